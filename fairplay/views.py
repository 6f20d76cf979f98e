"""Fair play's pages: a marked player's appeal; for moderators, the list of appeals to
decide, the queue of open cases and a case with its decision."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _

from accounts.permissions import PERM_BAN, may
from core.errors import Refused
from fairplay import selectors, services
from fairplay.forms import AppealDecideForm, AppealForm


@login_required
def fairplay_appeal(request: HttpRequest) -> HttpResponse:
    """A player's fair play mark, with his one appeal: the form until he sends it, then
    where it stands."""
    form = AppealForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            services.appeal_create(user=request.user, text=form.cleaned_data["text"])
        except Refused as refusal:
            form.add_error(None, refusal.message)
        else:
            messages.success(request, _("Your appeal is sent: a moderator will decide it."))
            return redirect("fairplay:appeal")
    state = selectors.fairplay_state(request.user)
    status = 400 if request.method == "POST" else 200
    return render(request, "fairplay/appeal.html", {"state": state, "form": form}, status=status)


def _require_moderator(request: HttpRequest) -> None:
    if not may(request.user, PERM_BAN):
        raise PermissionDenied(_("You do not have permission to do that."))


@login_required
def fairplay_appeals(request: HttpRequest) -> HttpResponse:
    """Moderators: the open appeals, each with its decision form."""
    _require_moderator(request)
    context = {
        "appeals": [
            (appeal, AppealDecideForm(auto_id=f"id_%s_{appeal.pk}"))
            for appeal in selectors.appeals_open()
        ]
    }
    return render(request, "fairplay/appeals.html", context)


@login_required
def fairplay_appeal_decide(request: HttpRequest, appeal_id: int) -> HttpResponse:
    """Moderators: decide an appeal (POST); back to the list, saying what was done."""
    _require_moderator(request)
    if request.method != "POST":
        return redirect("fairplay:appeals")
    form = AppealDecideForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Choose a decision and give a reason."))
        return redirect("fairplay:appeals")
    lift = form.cleaned_data["decision"] == "lift"
    try:
        appeal = services.appeal_decide(
            by=request.user, appeal_id=appeal_id, lift=lift, reason=form.cleaned_data["reason"]
        )
    except Refused as refusal:
        messages.error(request, refusal.message)
    else:
        name = appeal.mark.user.username
        messages.success(
            request,
            (_("The mark on %(name)s is lifted.") if lift else _("The mark on %(name)s stays."))
            % {"name": name},
        )
    return redirect("fairplay:appeals")


# --- the moderators' queue and a case -------------------------------------------------------


@login_required
def fairplay_queue(request: HttpRequest) -> HttpResponse:
    """The open fair-play cases, the strongest evidence first (moderators only)."""
    _require_moderator(request)
    return render(request, "fairplay/queue.html", {"rows": selectors.fairplay_queue()})


@login_required
def fairplay_case(request: HttpRequest, case_id: int) -> HttpResponse:
    """One case: the signals, how unusual each is, the decisions that weigh most, and the
    moderator's decision (POST: clear, warn, mark or close; answered with a redirect)."""
    _require_moderator(request)
    if request.method == "POST":
        try:
            services.fairplay_case_decide(
                by=request.user,
                case_id=case_id,
                decision=request.POST.get("decision", ""),
                reason=request.POST.get("reason", ""),
            )
        except Refused as refusal:
            messages.error(request, refusal.message)
        else:
            messages.success(request, _("The case is decided."))
            return redirect("fairplay:queue")
        return redirect("fairplay:case", case_id=case_id)
    view = selectors.fairplay_case(case_id)
    if view is None:
        raise Http404(_("There is no such case."))
    return render(request, "fairplay/case.html", {"v": view})
