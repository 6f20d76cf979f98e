"""Websocket URL routes of every app, gathered for the ASGI router."""

from games.routing import websocket_urlpatterns as games_routes
from pairing.routing import websocket_urlpatterns as pairing_routes
from tournaments.routing import websocket_urlpatterns as tournaments_routes

websocket_urlpatterns = [*games_routes, *tournaments_routes, *pairing_routes]
