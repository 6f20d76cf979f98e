from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.utils import translation
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST
from django.views.i18n import set_language as django_set_language

from accounts import services
from accounts.forms import AccountSettingsForm
from accounts.models import User
from core.redirects import next_or


@login_required
def account_settings(request: HttpRequest) -> HttpResponse:
    form = AccountSettingsForm(request.POST or None, instance=request.user)
    if request.method == "POST" and form.is_valid():
        services.user_set_language(user=request.user, language=form.cleaned_data["language"])
        services.user_set_sounds(user=request.user, on=form.cleaned_data["sounds_on"])
        if request.user.language:
            translation.activate(request.user.language)
        messages.success(request, _("Your settings have been saved."))
        return redirect("accounts:settings")
    return render(request, "accounts/settings.html", {"form": form})


def privacy(request: HttpRequest) -> HttpResponse:
    """What the site keeps to keep play fair, for how long, and its cookies."""
    return render(request, "accounts/privacy.html")


@require_POST
def set_language(request: HttpRequest) -> HttpResponse:
    """Django's language switch, which also saves the choice for a signed-in user."""
    language = request.POST.get("language", "")
    if request.user.is_authenticated and language in User.Language.values:
        services.user_set_language(user=request.user, language=language)
    return django_set_language(request)


@login_required
@require_POST
def sounds_set(request: HttpRequest) -> HttpResponse:
    """The table's sound switch: ``sounds_on`` "1" or "0". Answers JSON to the page's
    script (which asks for it), else goes back to ``next`` (a form sent without it)."""
    on = request.POST.get("sounds_on") == "1"
    services.user_set_sounds(user=request.user, on=on)
    if "application/json" in request.headers.get("Accept", ""):
        return JsonResponse({"sounds_on": on})
    return redirect(next_or(request, "accounts:settings"))
