from django.urls import path

from notifications import views

app_name = "notifications"

urlpatterns = [
    path("notifications/", views.notification_list, name="list"),
    path("notifications/read/", views.mark_read, name="mark_read"),
    path("notifications/settings/", views.mail_settings, name="settings"),
    path("notifications/push/subscribe/", views.push_subscribe, name="push_subscribe"),
    path("notifications/push/remove/", views.push_remove, name="push_remove_this"),
    path("notifications/push/<int:subscription_id>/remove/", views.push_remove, name="push_remove"),
    path("notifications/<int:notification_id>/", views.notification_open, name="open"),
    path("notifications/unsubscribe/<str:token>/", views.unsubscribe, name="unsubscribe"),
]
