from django.urls import path, re_path

from api import views
from api.api import api, not_found

app_name = "tokens"

# The account's tokens page; the API itself is mounted by ``api_urlpatterns``.
urlpatterns = [
    path("account/tokens/", views.token_list, name="list"),
    path("account/tokens/<int:token_id>/revoke/", views.token_revoke, name="revoke"),
]

api_urlpatterns = [
    path("api/", api.urls),
    re_path(r"^api/(?P<rest>.*)$", not_found, name="api-not-found"),
]
