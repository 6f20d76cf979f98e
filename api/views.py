"""The account's API access tokens page: make a token (shown once), list them with their
last use, revoke one; and the API's reference page."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST
from ninja import NinjaAPI
from ninja.openapi.docs import DocsBase

from api import selectors, services
from api.forms import TokenForm
from api.reference import api_reference
from core.errors import Refused

# The token just made, kept in the session between the form's answer (a redirect, so that
# reloading the page makes no second token) and the page that shows it, once.
NEW_TOKEN_KEY = "api_new_token"


@never_cache
@login_required
def token_list(request: HttpRequest) -> HttpResponse:
    """The tokens, and the form that makes one. A token just made is shown once, on the
    page the form redirects to: it is not stored, and never shown again."""
    form = TokenForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            made = services.token_create(
                owner=request.user,
                name=form.cleaned_data["name"],
                scopes=form.cleaned_data["scopes"],
            )
        except Refused as exc:
            form.add_error(None, exc.message)
        else:
            request.session[NEW_TOKEN_KEY] = made.token
            return redirect("tokens:list")
    context = {
        "form": form,
        "new_token": request.session.pop(NEW_TOKEN_KEY, ""),
        "tokens": selectors.user_tokens(request.user),
    }
    return render(request, "api/tokens.html", context)


@login_required
@require_POST
def token_revoke(request: HttpRequest, token_id: int) -> HttpResponse:
    try:
        row = services.token_revoke(owner=request.user, token_id=token_id)
    except Refused as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, _("The token “%(name)s” is revoked.") % {"name": row.name})
    return redirect("tokens:list")


class SiteReference(DocsBase):
    """django-ninja's docs page (``/api/docs``) as a page of the site: the reference drawn
    on the server from the schema in the site's layout (``api.reference``), whole at
    once, with no script to load first."""

    def render_page(self, request: HttpRequest, api: NinjaAPI, **kwargs: Any) -> HttpResponse:
        schema = api.get_openapi_schema(path_params=kwargs)
        context = {
            "sections": api_reference(schema),
            "openapi_url": self.get_openapi_url(api, kwargs),
        }
        return render(request, "api/docs.html", context)
