"""Websocket URL routes of every app, gathered for the ASGI router."""

from games.routing import websocket_urlpatterns as games_routes

websocket_urlpatterns = [*games_routes]
