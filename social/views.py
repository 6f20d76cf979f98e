"""Pages and forms of follows and challenges: each view reads a selector or calls one
service. Forms post with their CSRF token; from htmx (the profile's follow button, the
challenge bar of every page, the challenger's waiting page) the answer is a fragment or
an ``HX-Redirect``, otherwise a redirect."""

from __future__ import annotations

import time

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST
from django_htmx.http import HttpResponseClientRedirect

from accounts.selectors import user_public_profile
from core.errors import Refused
from core.redirects import next_or
from social import selectors, services
from social.forms import ChallengeForm, DeclineForm, PreferencesForm
from social.models import Challenge, DeclineReason

WAIT_POLL_SECONDS = 3  # the waiting page's sign of life; well within services.CHALLENGE_TTL


@login_required
def friends(request: HttpRequest) -> HttpResponse:
    """The people the user follows, who is online and where each plays; the user's
    preference of who may challenge him."""
    preferences = selectors.preferences_of(request.user)
    context = {
        "friends": selectors.friends(user=request.user, now=time.time()),
        "preferences_form": PreferencesForm(
            initial={"challenges_from_followed_only": preferences.challenges_from_followed_only}
        ),
        "outgoing": selectors.outgoing_challenges(user=request.user),
    }
    return render(request, "social/friends.html", context)


@login_required
@require_POST
def preferences(request: HttpRequest) -> HttpResponse:
    form = PreferencesForm(request.POST)
    if form.is_valid():
        services.preferences_set(
            user=request.user,
            challenges_from_followed_only=form.cleaned_data["challenges_from_followed_only"],
        )
        messages.success(request, _("Your preference is saved."))
    return redirect("social:friends")


@login_required
@require_POST
def follow(request: HttpRequest, username: str) -> HttpResponse:
    return _follow_answer(request, username, follows=True)


@login_required
@require_POST
def unfollow(request: HttpRequest, username: str) -> HttpResponse:
    return _follow_answer(request, username, follows=False)


def _follow_answer(request: HttpRequest, username: str, *, follows: bool) -> HttpResponse:
    player = user_public_profile(username=username)
    try:
        if follows:
            services.follow_create(follower=request.user, followed=player)
        else:
            services.follow_delete(follower=request.user, followed=player)
    except Refused as refusal:
        messages.error(request, refusal.message)
    if not request.htmx:
        return redirect(next_or(request, player.get_absolute_url()))
    return render(
        request,
        "social/profile_actions.html",
        {
            "actions": selectors.profile_actions(viewer=request.user, player=player),
            "player": player,
        },
    )


@login_required
def challenge_new(request: HttpRequest, username: str) -> HttpResponse:
    """The challenge form for a player; sent, it takes the challenger to the waiting page.
    To a player who takes no challenge from the user, the reason instead of the form."""
    player = user_public_profile(username=username)
    may_challenge = selectors.accepts_challenges_from(challenged=player, challenger=request.user)
    form = ChallengeForm(request.POST or None)
    if may_challenge and request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            challenge = services.challenge_create(
                challenger=request.user,
                challenged=player,
                seats=data["seats"],
                profile=data["profile"],
                base_seconds=data["base_seconds"],
                increment_seconds=data["increment_seconds"],
                move_days=data["move_days"],
                rated=data["rated"],
            )
        except Refused as refusal:
            form.add_error(None, refusal.message)
        else:
            return redirect(challenge)
    return render(
        request,
        "social/challenge_new.html",
        {"form": form, "player": player, "may_challenge": may_challenge},
    )


@login_required
def challenge_detail(request: HttpRequest, challenge_id: int) -> HttpResponse:
    """The challenger's waiting page (it keeps the challenge alive and follows it to the
    table), or the challenged player's page to answer it. From htmx, an accepted
    challenge answers with the way to its table."""
    challenge = _challenge_or_404(request, challenge_id)
    if request.htmx and challenge.status == Challenge.Status.ACCEPTED and challenge.table_id:
        return HttpResponseClientRedirect(reverse("games:table", args=[challenge.table_id]))
    return render(request, "social/challenge.html", _challenge_context(challenge))


@login_required
@require_POST
def challenge_alive(request: HttpRequest, challenge_id: int) -> HttpResponse:
    """The waiting page's poll: the challenger still waits. Answers the challenge's
    state, or the way to the table once it is accepted."""
    challenge = _challenge_or_404(request, challenge_id)
    if challenge.challenger_id == request.user.pk:
        services.challenge_keep_alive(challenger=request.user, challenge_id=challenge.pk)
        challenge.refresh_from_db()
    if challenge.status == Challenge.Status.ACCEPTED and challenge.table_id:
        url = reverse("games:table", args=[challenge.table_id])
        return HttpResponseClientRedirect(url) if request.htmx else redirect(url)
    if not request.htmx:
        return redirect(challenge)
    return render(request, "social/challenge.html#status", _challenge_context(challenge))


@login_required
@require_POST
def challenge_accept(request: HttpRequest, challenge_id: int) -> HttpResponse:
    try:
        challenge = services.challenge_accept(challenge_id=challenge_id, user=request.user)
    except Refused as refusal:
        return _refused(request, challenge_id, refusal)
    url = reverse("games:table", args=[challenge.table_id])
    return HttpResponseClientRedirect(url) if request.htmx else redirect(url)


@login_required
@require_POST
def challenge_decline(request: HttpRequest, challenge_id: int) -> HttpResponse:
    form = DeclineForm(request.POST)
    reason = form.cleaned_data["reason"] if form.is_valid() else DeclineReason.GENERIC
    try:
        services.challenge_decline(challenge_id=challenge_id, user=request.user, reason=reason)
    except Refused as refusal:
        return _refused(request, challenge_id, refusal)
    return _back(request, challenge_id)


@login_required
@require_POST
def challenge_cancel(request: HttpRequest, challenge_id: int) -> HttpResponse:
    try:
        services.challenge_cancel(challenge_id=challenge_id, user=request.user)
    except Refused as refusal:
        return _refused(request, challenge_id, refusal)
    return _back(request, challenge_id)


def _challenge_or_404(request: HttpRequest, challenge_id: int) -> Challenge:
    challenge = selectors.challenge_for(challenge_id=challenge_id, user=request.user)
    if challenge is None:
        raise Http404(_("No such challenge."))
    return challenge


def _challenge_context(challenge: Challenge) -> dict[str, object]:
    now = timezone.now()
    return {
        "c": challenge,
        "status": challenge.status_at(now),
        "summary": selectors.challenge_summary(challenge),
        "rule_lines": selectors.challenge_rule_lines(challenge),
        "poll_seconds": WAIT_POLL_SECONDS,
    }


def _refused(request: HttpRequest, challenge_id: int, refusal: Refused) -> HttpResponse:
    """A refused answer from the challenge bar shows in the bar; from a page, on the page."""
    if request.htmx and request.POST.get("from") == "bar":
        return _bar(request, error=refusal.message)
    messages.error(request, refusal.message)
    if request.htmx:
        return HttpResponseClientRedirect(request.headers.get("HX-Current-URL") or "/")
    return _back(request, challenge_id)


def _back(request: HttpRequest, challenge_id: int) -> HttpResponse:
    """After a decline or a cancel: the bar's fresh list, or the challenge's page."""
    if request.htmx and request.POST.get("from") == "bar":
        return _bar(request)
    url = reverse("social:challenge", args=[challenge_id])
    return HttpResponseClientRedirect(url) if request.htmx else redirect(url)


def _bar(request: HttpRequest, *, error: str = "") -> HttpResponse:
    context = {
        "bar_challenges": selectors.incoming_challenges(user=request.user),
        "bar_error": error,
    }
    return render(request, "social/bar.html#incoming", context)
