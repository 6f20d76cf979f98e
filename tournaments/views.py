"""Tournament pages: thin views that render a selector's data or call one service."""

from __future__ import annotations

from collections.abc import Callable

from django.contrib import messages
from django.contrib.auth.decorators import login_required, permission_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST
from django_htmx.http import HttpResponseClientRedirect

from core import text
from core.errors import Refused
from games import selectors as games_selectors
from games.models import Table
from tournaments import arena_selectors, selectors, services
from tournaments.forms import ScheduleForm, TournamentForm
from tournaments.models import Format, Tournament

View = Callable[..., HttpResponse]


def permission_needed(permission: str) -> Callable[[View], View]:
    """A visitor logs in first; a user without ``permission`` gets 403. A permission, not
    is_staff: moderators are staff too (for the admin) and run no tournaments."""

    def decorator(view: View) -> View:
        return login_required(permission_required(permission, raise_exception=True)(view))

    return decorator


def tournament_list(request: HttpRequest) -> HttpResponse:
    return render(request, "tournaments/list.html", {"lists": selectors.tournament_lists()})


def tournament_detail(request: HttpRequest, tournament_id: int) -> HttpResponse:
    tournament = get_object_or_404(Tournament, pk=tournament_id)
    if tournament.is_arena:
        page = arena_selectors.arena_page(
            tournament=tournament, viewer=request.user, page=_page(request)
        )
        return render(request, "tournaments/arena.html", {"p": page})
    page = selectors.tournament_page(tournament=tournament, viewer=request.user)
    return render(request, "tournaments/detail.html", {"p": page})


def _page(request: HttpRequest) -> int | None:
    try:
        return int(request.GET["page"])
    except (KeyError, ValueError):
        return None


@require_POST
@login_required
def arena_action(request: HttpRequest, tournament_id: int, action: str) -> HttpResponse:
    """A player's own button on an arena's page: join (or come back), pause, withdraw."""
    actions = {
        "join": (
            services.arena_join,
            _("You are in the arena: you are seated as soon as a table forms."),
        ),
        "pause": (services.arena_pause, _("You are paused: you keep your points.")),
        "withdraw": (services.arena_withdraw, _("You have withdrawn from the arena.")),
    }
    if action not in actions:
        raise Http404(_("Unknown command."))
    service, done = actions[action]
    try:
        service(tournament_id=tournament_id, user=request.user)
    except Refused as refusal:
        messages.error(request, refusal.message)
    else:
        messages.success(request, done)
    return redirect("tournaments:detail", tournament_id=tournament_id)


def arena_tv(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """The arena's own TV: its top table (the best-ranked players' game in play) as a
    spectator sees it, moving on to the next top table when that game ends."""
    tournament = get_object_or_404(Tournament, pk=tournament_id, format=Format.ARENA)
    top = arena_selectors.arena_top_table(tournament)
    tv = None
    if top is not None:
        table = Table.objects.get(pk=top)
        view = games_selectors.table_view(table=table, viewer=None, with_chat=False)
        tv = games_selectors.TvTable(view=view, strength=arena_selectors.table_strength(top))
    context = {
        "tv": tv,
        "channel": None,
        "channels": games_selectors.TV_SPEEDS,
        "on_air": [],
        "arena": tournament,
        "tv_current_url": reverse("tournaments:arena_tv_current", args=[tournament.pk]),
    }
    return render(request, "games/tv.html", context)


def arena_tv_current(request: HttpRequest, tournament_id: int) -> JsonResponse:
    """Which table the arena's TV shows now, and whether the one a page shows (``table``)
    is still in play: ``tv.js`` asks, as the site's TV's pages do."""
    tournament = get_object_or_404(Tournament, pk=tournament_id, format=Format.ARENA)
    answer: dict[str, object] = {"table": arena_selectors.arena_top_table(tournament)}
    shown = request.GET.get("table", "")
    if shown.isdecimal():
        answer["shown_live"] = arena_selectors.table_in_play(tournament, int(shown))
    return JsonResponse(answer)


@require_POST
@login_required
def arena_berserk(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """Berserk from the player's table: back to the table, which shows it."""
    try:
        services.arena_berserk(tournament_id=tournament_id, user=request.user)
    except Refused as refusal:
        messages.error(request, refusal.message)
    else:
        messages.success(
            request, _("Berserk! Half your time, no increment: a point more if you are not last.")
        )
    url = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(url, allowed_hosts={request.get_host()}):
        url = reverse("tournaments:detail", kwargs={"tournament_id": tournament_id})
    return redirect(url)


@require_POST
@login_required
def tournament_register(request: HttpRequest, tournament_id: int) -> HttpResponse:
    try:
        services.tournament_register(tournament_id=tournament_id, user=request.user)
    except Refused as refusal:
        messages.error(request, refusal.message)
    else:
        messages.success(request, _("You are registered. Good luck!"))
    return redirect("tournaments:detail", tournament_id=tournament_id)


@require_POST
@login_required
def tournament_unregister(request: HttpRequest, tournament_id: int) -> HttpResponse:
    try:
        services.tournament_unregister(tournament_id=tournament_id, user=request.user)
    except Refused as refusal:
        messages.error(request, refusal.message)
    else:
        messages.success(request, _("You have withdrawn from the tournament."))
    return redirect("tournaments:detail", tournament_id=tournament_id)


def tournament_follow(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """Where the user plays now: his table, else the tournament page. From htmx (a page
    following its player) the answer is an ``HX-Redirect``; otherwise a plain redirect."""
    tournament = get_object_or_404(Tournament, pk=tournament_id)
    url = None
    if request.user.is_authenticated:
        url = selectors.current_table_url(tournament=tournament, user=request.user)
    url = url or tournament.get_absolute_url()
    if request.htmx:
        return HttpResponseClientRedirect(url)
    return redirect(url)


@permission_needed(services.PERM_CREATE)
def tournament_create(request: HttpRequest) -> HttpResponse:
    form = TournamentForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            tournament = services.tournament_create(by=request.user, settings=form.to_settings())
        except Refused as refusal:
            form.add_error(None, refusal.message)
        else:
            messages.success(request, _("The tournament is created; registration is open."))
            return redirect(tournament)
    return render(request, "tournaments/form.html", {"form": form, "tournament": None})


@permission_needed(services.PERM_CREATE)
def schedule_create(request: HttpRequest) -> HttpResponse:
    """Staff: a recurring tournament; the beat creates each of its tournaments ahead."""
    form = ScheduleForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            services.schedule_save(schedule=form.save(commit=False), by=request.user)
        except Refused as refusal:
            form.add_error(None, refusal.message)
        else:
            messages.success(
                request, _("The schedule is saved: each tournament opens ahead of its start.")
            )
            return redirect("tournaments:list")
    return render(request, "tournaments/schedule_form.html", {"form": form})


@permission_needed(services.PERM_MANAGE)
def tournament_edit(request: HttpRequest, tournament_id: int) -> HttpResponse:
    tournament = get_object_or_404(Tournament, pk=tournament_id)
    form = TournamentForm(request.POST or None, initial=TournamentForm.initial_of(tournament))
    if request.method == "POST" and form.is_valid():
        try:
            services.tournament_update(
                tournament_id=tournament.pk, by=request.user, settings=form.to_settings()
            )
        except Refused as refusal:
            form.add_error(None, refusal.message)
        else:
            messages.success(request, _("The tournament is saved."))
            return redirect(tournament)
    return render(request, "tournaments/form.html", {"form": form, "tournament": tournament})


@require_POST
@permission_needed(services.PERM_MANAGE)
def tournament_staff_action(request: HttpRequest, tournament_id: int, action: str) -> HttpResponse:
    """One staff button of the tournament page: one service call."""
    by, data = request.user, request.POST
    done = {
        "start": _("The tournament has started."),
        "pause": _("The tournament is paused: every clock has stopped."),
        "resume": _("The tournament goes on."),
        "cancel": _("The tournament is cancelled."),
        "announce": _("The announcement is posted."),
        "disqualify": _("The player is disqualified."),
        "add_bot": _("A bot is registered."),
    }
    if action not in done:
        raise Http404(_("Unknown command."))
    try:
        for value in data.values():  # the reasons and announcements, read raw
            text.storable_text(value)
        if action == "start":
            services.tournament_start(tournament_id=tournament_id, by=by)
        elif action == "pause":
            services.tournament_pause(tournament_id=tournament_id, by=by)
        elif action == "resume":
            services.tournament_resume(tournament_id=tournament_id, by=by)
        elif action == "cancel":
            services.tournament_cancel(
                tournament_id=tournament_id, by=by, reason=data.get("reason", "")
            )
        elif action == "announce":
            services.tournament_announce(
                tournament_id=tournament_id, by=by, text=data.get("text", "")
            )
        elif action == "disqualify":
            services.tournament_disqualify(
                tournament_id=tournament_id,
                entry_id=_int(data.get("entry")),
                by=by,
                reason=data.get("reason", ""),
            )
        elif action == "add_bot":
            services.tournament_register_bot(
                tournament_id=tournament_id, by=by, level=data.get("level", "")
            )
    except Refused as refusal:
        messages.error(request, refusal.message)
    else:
        messages.success(request, done[action])
    return redirect("tournaments:detail", tournament_id=tournament_id)


def _int(value: str | None) -> int:
    try:
        return int(value or "")
    except ValueError:
        raise Refused(_("That message could not be read.")) from None
