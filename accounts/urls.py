from django.urls import path

from accounts import views

app_name = "accounts"

urlpatterns = [
    path("account/settings/", views.account_settings, name="settings"),
    path("account/sounds/", views.sounds_set, name="sounds"),
    path("i18n/setlang/", views.set_language, name="set_language"),
    path("privacy/", views.privacy, name="privacy"),
]
