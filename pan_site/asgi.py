"""ASGI entry point: Django for HTTP, Channels for websockets.

Websockets are accepted only from this site's own origins (``ALLOWED_HOSTS``) and
carry the Django session user (``PooledAuthMiddlewareStack``, read in the thread pool);
behind a trusted proxy their ``scope["client"]`` is the real client's address
(``pan_site.proxy``), as ``REMOTE_ADDR`` is for HTTP.
"""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pan_site.settings")
django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from core.collector import keep_long_lived_aside  # noqa: E402
from pan_site.auth import PooledAuthMiddlewareStack  # noqa: E402  (needs Django set up first)
from pan_site.proxy import ForwardedForASGIMiddleware  # noqa: E402
from pan_site.routing import websocket_urlpatterns  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": ForwardedForASGIMiddleware(
            AllowedHostsOriginValidator(PooledAuthMiddlewareStack(URLRouter(websocket_urlpatterns)))
        ),
    }
)

# The collector walks only what came lately, not the whole live room (core.collector).
keep_long_lived_aside()
