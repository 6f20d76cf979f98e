"""Settings of the bare baseline of `make bench-load` (``bench.baseline_asgi``).

Only what a Channels consumer needs, with the site's own channel layer configuration
(hosts, prefix, timeouts) on channels_redis's own pub/sub layer, as it comes: the
baseline measures the layer and daphne bare, without the site's decoding of a message
once per process (``live.layer``).
"""

from pan_site.settings import ALLOWED_HOSTS, SECRET_KEY  # noqa: F401
from pan_site.settings import CHANNEL_LAYERS as SITE_LAYERS

CHANNEL_LAYERS = {
    "default": {
        **SITE_LAYERS["default"],
        "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
    }
}

DEBUG = False
INSTALLED_APPS = ["channels"]
ASGI_APPLICATION = "bench.baseline_asgi.application"
USE_TZ = True
