"""Settings of the bare baseline of `make bench-load` (``bench.baseline_asgi``).

Only what a Channels consumer needs, with the site's own channel layer configuration
(the same channels_redis backend, hosts, prefix, capacity and expiry): the baseline
measures the layer and daphne, not a different layer.
"""

from pan_site.settings import ALLOWED_HOSTS, CHANNEL_LAYERS, SECRET_KEY  # noqa: F401

DEBUG = False
INSTALLED_APPS = ["channels"]
ASGI_APPLICATION = "bench.baseline_asgi.application"
USE_TZ = True
