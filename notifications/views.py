"""The notification centre, the e-mail settings and the one-click unsubscribe link."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods, require_POST

from notifications import selectors, services
from notifications.forms import MailChoicesForm
from notifications.models import Kind
from notifications.unsubscribe import read_token


@login_required
def notification_list(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "notifications/list.html",
        {"notices": selectors.page(request.user), "unread": selectors.unread_count(request.user)},
    )


@login_required
def notification_open(request: HttpRequest, notification_id: int) -> HttpResponse:
    """A notice read: marked read and followed to what it tells of."""
    notification = selectors.notification_for(request.user, notification_id)
    if notification is None:
        raise Http404
    services.notifications_mark_read(user=request.user, ids=[notification.pk])
    return redirect(notification.link or "notifications:list")


@login_required
@require_POST
def mark_read(request: HttpRequest) -> HttpResponse:
    """Mark read the notices posted as ``id`` (every unread one without any); ids that
    are not the user's own change nothing."""
    raw = request.POST.getlist("id")
    try:
        ids = [int(value) for value in raw] if raw else None
    except ValueError:
        messages.error(request, _("That is not a notification: nothing was marked read."))
    else:
        services.notifications_mark_read(user=request.user, ids=ids)
    target = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()}):
        target = "notifications:list"
    return redirect(target)


@login_required
def mail_settings(request: HttpRequest) -> HttpResponse:
    initial = {"mailed": selectors.mailed_kinds(request.user)}
    form = MailChoicesForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        services.mail_choices_set(user=request.user, mailed=form.cleaned_data["mailed"])
        messages.success(request, _("Your settings have been saved."))
        return redirect("notifications:settings")
    return render(
        request,
        "notifications/settings.html",
        {"form": form, "kinds": selectors.site_kinds(), "has_email": bool(request.user.email)},
    )


# A mail program posts the one-click unsubscribe (RFC 8058) with no cookie and no token of
# a form: the signed link is all the proof there is.
@csrf_exempt
@require_http_methods(["GET", "POST"])
def unsubscribe(request: HttpRequest, token: str) -> HttpResponse:
    """GET asks to confirm; POST stops the e-mails the link names. A link the site did not
    sign, or one already spent, changes nothing."""
    found = read_token(token)
    if found is None:
        return render(request, "notifications/unsubscribe.html", {"invalid": True}, status=400)
    kinds = [Kind(k).label for k in found.versions if k in Kind.values]
    if request.method == "GET":
        return render(request, "notifications/unsubscribe.html", {"kinds": kinds, "token": token})
    stopped = services.unsubscribe_apply(unsubscribe=found)
    return render(
        request,
        "notifications/unsubscribe.html",
        {"done": True, "spent": not stopped, "kinds": [Kind(k).label for k in stopped]},
    )
