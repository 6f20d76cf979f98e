"""The notification centre, the e-mail and push settings, the browsers that take pushes
and the one-click unsubscribe link."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods, require_POST

from notifications import push, selectors, services
from notifications.forms import NotificationChoicesForm, PushSubscriptionForm, device_name
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
    initial = {
        "mailed": selectors.mailed_kinds(request.user),
        "pushed": selectors.pushed_kinds(request.user),
    }
    form = NotificationChoicesForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        services.mail_choices_set(user=request.user, mailed=form.cleaned_data["mailed"])
        services.push_choices_set(user=request.user, pushed=form.cleaned_data["pushed"])
        messages.success(request, _("Your settings have been saved."))
        return redirect("notifications:settings")
    return render(
        request,
        "notifications/settings.html",
        {
            "form": form,
            "kinds": selectors.site_kinds(),
            "has_email": bool(request.user.email),
            "push_key": push.application_server_key() if push.enabled() else "",
            "devices": selectors.push_devices(request.user),
        },
    )


@login_required
@require_POST
def push_subscribe(request: HttpRequest) -> HttpResponse:
    """This browser takes the user's pushes (``static/js/push.js`` posts its subscription)."""
    form = PushSubscriptionForm(request.POST)
    if not push.enabled() or not form.is_valid():
        return HttpResponseBadRequest(
            _("That is not a push subscription: nothing was saved."),
            content_type="text/plain; charset=utf-8",
        )
    services.push_subscription_add(
        user=request.user,
        endpoint=form.cleaned_data["endpoint"],
        p256dh=form.cleaned_data["p256dh"],
        auth=form.cleaned_data["auth"],
        device=device_name(request.headers.get("User-Agent", "")),
    )
    messages.success(request, _("Pushes are on in this browser."))
    return redirect("notifications:settings")


@login_required
@require_POST
def push_remove(request: HttpRequest, subscription_id: int | None = None) -> HttpResponse:
    """No more pushes to one of the user's browsers: a row of the list, or this browser
    (its endpoint posted as it unsubscribes). Another user's changes nothing."""
    removed = services.push_subscription_remove(
        user=request.user,
        subscription_id=subscription_id,
        endpoint=request.POST.get("endpoint") if subscription_id is None else None,
    )
    if removed:
        messages.success(request, _("That browser gets no more pushes."))
    return redirect("notifications:settings")


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
