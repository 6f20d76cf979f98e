from django.urls import path

from fairplay import views

app_name = "fairplay"

urlpatterns = [
    path("fair-play/appeal/", views.fairplay_appeal, name="appeal"),
    path("moderation/fair-play/", views.fairplay_queue, name="queue"),
    path("moderation/fair-play/<int:case_id>/", views.fairplay_case, name="case"),
    path("moderation/fair-play/appeals/", views.fairplay_appeals, name="appeals"),
    path(
        "moderation/fair-play/appeals/<int:appeal_id>/decide/",
        views.fairplay_appeal_decide,
        name="appeal_decide",
    ),
]
