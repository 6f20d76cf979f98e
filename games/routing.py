from django.urls import path

from games import consumers, consumers_lobby

websocket_urlpatterns = [
    path("ws/lobby/", consumers_lobby.LobbyConsumer.as_asgi()),
    path("ws/tables/<int:table_id>/", consumers.TableConsumer.as_asgi()),
]
