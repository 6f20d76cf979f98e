from django.urls import path

from pairing import consumers

websocket_urlpatterns = [
    path("ws/seek/", consumers.SeekConsumer.as_asgi()),
]
