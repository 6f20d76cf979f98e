"""A player's report about another player or a chat message, from the table page; a
marked player's appeal, and the moderators' list of appeals to decide."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _

from accounts.permissions import PERM_BAN, may
from core.errors import Refused
from moderation import selectors, services
from moderation.forms import AppealDecideForm, AppealForm, ReportForm


@login_required
def report_new(request: HttpRequest) -> HttpResponse:
    """Report a player or a chat message. On the table page this is an htmx fragment
    swapped into the report box; without htmx it is a page of its own."""
    source = request.POST if request.method == "POST" else request.GET
    form = ReportForm(
        request.POST or None,
        initial={name: source.get(name) for name in ("user", "message", "table")},
    )
    invited_tables = request.session.get("invited_tables", [])
    subject = selectors.report_subject(
        viewer=request.user,
        invited_tables=invited_tables,
        user_id=_int_or_none(source.get("user")),
        message_id=_int_or_none(source.get("message")),
        table_id=_int_or_none(source.get("table")),
    )
    if subject is None:
        raise Http404(_("There is nothing to report here."))
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            services.report_create(
                by=request.user,
                reason=data["reason"],
                text=data["text"],
                reported_user_id=subject.user.pk,
                chat_message_id=subject.message.pk if subject.message else None,
                table_id=subject.table.pk if subject.table else None,
                invited_tables=invited_tables,
            )
        except Refused as refusal:
            form.add_error(None, refusal.message)
        else:
            if request.htmx:
                return render(request, "accounts/report.html#report-done")
            messages.success(request, _("Thank you: the moderators will look at your report."))
            return redirect(subject.table or "home")
    context = {"form": form, "subject": subject, "standalone": not request.htmx}
    template = "accounts/report.html#report-form" if request.htmx else "accounts/report.html"
    return render(request, template, context)


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
            return redirect("moderation:fairplay_appeal")
    state = selectors.fairplay_state(request.user)
    status = 400 if request.method == "POST" else 200
    return render(request, "moderation/appeal.html", {"state": state, "form": form}, status=status)


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
    return render(request, "moderation/appeals.html", context)


@login_required
def fairplay_appeal_decide(request: HttpRequest, appeal_id: int) -> HttpResponse:
    """Moderators: decide an appeal (POST); back to the list, saying what was done."""
    _require_moderator(request)
    if request.method != "POST":
        return redirect("moderation:fairplay_appeals")
    form = AppealDecideForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Choose a decision and give a reason."))
        return redirect("moderation:fairplay_appeals")
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
    return redirect("moderation:fairplay_appeals")


def _int_or_none(value: str | None) -> int | None:
    try:
        return int(value) if value else None
    except ValueError:
        return None


# --- fair play: the moderators' queue ---------------------------------------------------------


def _require_moderator(request: HttpRequest) -> None:
    if not may(request.user, PERM_BAN):
        raise PermissionDenied(_("You do not have permission to do that."))


@login_required
def fairplay_queue(request: HttpRequest) -> HttpResponse:
    """The open fair-play cases, the strongest evidence first (moderators only)."""
    _require_moderator(request)
    return render(request, "moderation/fairplay_queue.html", {"rows": selectors.fairplay_queue()})


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
            return redirect("moderation:fairplay_queue")
        return redirect("moderation:fairplay_case", case_id=case_id)
    view = selectors.fairplay_case(case_id)
    if view is None:
        raise Http404(_("There is no such case."))
    return render(request, "moderation/fairplay_case.html", {"v": view})
