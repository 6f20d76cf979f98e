"""ASGI entry point: Django for HTTP, Channels for websockets.

Websockets are accepted only from this site's own origins (``ALLOWED_HOSTS``) and
carry the Django session and user (``SessionUserMiddlewareStack``, read in the thread pool);
behind a trusted proxy their ``scope["client"]`` is the real client's address
(``pan_site.proxy``), as ``REMOTE_ADDR`` is for HTTP.
"""

import os
from typing import Any

import django
from asgiref.sync import sync_to_async
from django.core.handlers.asgi import ASGIHandler
from django.db import connections

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pan_site.settings")
django.setup(set_prefix=False)

from core.broadcast import served_here  # noqa: E402  (needs Django set up first)


class RequestASGIHandler(ASGIHandler):
    """Django's ASGI handler, closing the request's database connections when it ends.

    Django runs each HTTP request's synchronous code in a thread of its own
    (``ThreadSensitiveContext``): the connection a request opens is never used again,
    and kept (``CONN_MAX_AGE``) it stays open until the collector frees the dead
    thread's wrapper, which sits in reference cycles. Set aside from the collector
    while the request ran (``core.collector``), it would stay open until the rare
    complete pass, and a busy daphne would exhaust PostgreSQL's connections. The
    websocket consumers' pool threads live as long as the process and keep theirs.
    """

    async def handle(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        served_here()  # what the request's thread sends goes through this loop
        try:
            await super().handle(scope, receive, send)
        finally:
            # Thread-sensitive: this runs in the request's own thread, on its connections.
            await sync_to_async(connections.close_all)()


django_asgi_app = RequestASGIHandler()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402
from django.conf import settings  # noqa: E402

from core.collector import Freezer, keep_long_lived_aside  # noqa: E402
from pan_site.auth import SessionUserMiddlewareStack  # noqa: E402  (needs Django set up first)
from pan_site.proxy import ForwardedForASGIMiddleware  # noqa: E402
from pan_site.routing import websocket_urlpatterns  # noqa: E402
from pan_site.warmup import warm_up  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": ForwardedForASGIMiddleware(
            AllowedHostsOriginValidator(
                SessionUserMiddlewareStack(URLRouter(websocket_urlpatterns))
            )
        ),
    }
)

# Before daphne listens: what a fresh process's first sockets would wait for.
warm_up()

# The collector walks only what came lately, not the whole live room (core.collector).
keep_long_lived_aside(Freezer(full_every=settings.GC_FULL_EVERY))
