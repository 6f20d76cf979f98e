"""Websocket URL routes of every app, gathered for the ASGI router."""

from games.routing import websocket_urlpatterns as games_routes
from pairing.routing import websocket_urlpatterns as pairing_routes
from social.routing import websocket_urlpatterns as social_routes
from tournaments.routing import websocket_urlpatterns as tournaments_routes

websocket_urlpatterns = [*games_routes, *tournaments_routes, *pairing_routes, *social_routes]
