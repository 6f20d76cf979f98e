from django.urls import path

from moderation import views

app_name = "moderation"

urlpatterns = [
    path("reports/new/", views.report_new, name="report_new"),
    path("moderation/fair-play/", views.fairplay_queue, name="fairplay_queue"),
    path("moderation/fair-play/<int:case_id>/", views.fairplay_case, name="fairplay_case"),
]
