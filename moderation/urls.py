from django.urls import path

from moderation import views

app_name = "moderation"

urlpatterns = [
    path("reports/new/", views.report_new, name="report_new"),
]
