from django.contrib import admin
from django.urls import include, path
from django.utils.translation import gettext_lazy as _

from api.urls import api_urlpatterns
from games import views as views_games
from pan_site import views, webapp

admin.site.site_header = _("Pan online administration")
admin.site.site_title = _("Pan online")

urlpatterns = [
    path("healthz", views.healthz, name="healthz"),
    path("manifest.webmanifest", webapp.manifest, name="manifest"),
    path("sw.js", webapp.service_worker, name="service_worker"),
    path("offline/<str:language>/", webapp.offline, name="offline"),
    path("admin/", admin.site.urls),
    path("accounts/", include("allauth.urls")),
    path("u/<str:username>/", views.profile, name="profile"),
    path("", include("accounts.urls")),
    *api_urlpatterns,
    path("", include("api.urls")),
    path("", include("moderation.urls")),
    path("", include("fairplay.urls")),
    path("", include("tournaments.urls")),
    path("", include("social.urls")),
    path("", include("puzzles.urls")),
    path("", include("learn.urls")),
    path("", include("notifications.urls")),
    path("", views_games.home, name="home"),
    path("rules/", views_games.rules, name="rules"),
    path("", include("games.urls")),
]
