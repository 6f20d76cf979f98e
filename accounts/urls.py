from django.urls import path

from accounts import views

app_name = "accounts"

urlpatterns = [
    path("account/settings/", views.account_settings, name="settings"),
    path("i18n/setlang/", views.set_language, name="set_language"),
]
