"""A player's report about another player or a chat message, from the table page."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _

from core.errors import Refused
from moderation import selectors, services
from moderation.forms import ReportForm


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


def _int_or_none(value: str | None) -> int | None:
    try:
        return int(value) if value else None
    except ValueError:
        return None
