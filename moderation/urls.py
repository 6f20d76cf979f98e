from django.urls import path

from moderation import views

app_name = "moderation"

urlpatterns = [
    path("reports/new/", views.report_new, name="report_new"),
    path("fair-play/appeal/", views.fairplay_appeal, name="fairplay_appeal"),
    path("fair-play/appeals/", views.fairplay_appeals, name="fairplay_appeals"),
    path(
        "fair-play/appeals/<int:appeal_id>/decide/",
        views.fairplay_appeal_decide,
        name="fairplay_appeal_decide",
    ),
    path("moderation/fair-play/", views.fairplay_queue, name="fairplay_queue"),
    path("moderation/fair-play/<int:case_id>/", views.fairplay_case, name="fairplay_case"),
]
