from __future__ import annotations

from dataclasses import replace

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from core import text
from games import renderers, selectors, services
from games.forms import TableForm
from games.models import Hand, Table
from games.ratings import DISPLAY_BASE, PROVISIONAL_MATCHES
from games.speeds import ACTIONS_PER_HAND, Speed


def home(request: HttpRequest) -> HttpResponse:
    """The lobby: open public tables, updated live over a websocket."""
    context = {
        "tables": selectors.lobby_tables(),
        "tv": selectors.tv_table(),
        "tournaments": selectors.lobby_tournaments(),
        "daily": selectors.lobby_puzzle(),
    }
    return render(request, "games/home.html", context)


def rules(request: HttpRequest) -> HttpResponse:
    """Every rule and table option of RULES.md, each with its anchor and examples."""
    sections = selectors.rules_page(translation.get_language() or "en")
    return render(request, "games/rules.html", {"sections": sections})


def fairness(request: HttpRequest) -> HttpResponse:
    return render(request, "games/fairness.html")


def leaderboard(request: HttpRequest) -> HttpResponse:
    """The ranking of one speed (``?speed=``; blitz, the default table's, when none)."""
    asked = request.GET.get("speed", Speed.BLITZ.value)
    if asked not in Speed.values:
        raise Http404(_("No such speed."))
    speed = Speed(asked)
    context = {
        "rows": selectors.leaderboard(speed),
        "speed": speed,
        "speeds": list(Speed),
        "provisional_matches": PROVISIONAL_MATCHES,
        "newcomer": DISPLAY_BASE,
        "actions_per_hand": ACTIONS_PER_HAND,
    }
    return render(request, "games/leaderboard.html", context)


@login_required
def table_create(request: HttpRequest) -> HttpResponse:
    form = TableForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            table = services.table_create(
                owner=request.user,
                name=data["name"],
                rules=data["rules"],
                profile=data["profile_key"],
                seats=data["seats"],
                base_seconds=data["base_seconds"],
                increment_seconds=data["increment_seconds"],
                move_days=data["move_days"],
                is_public=data["is_public"],
                rated=data["rated"],
            )
        except services.Refused as refusal:
            form.add_error(None, refusal.message)
        else:
            return redirect(table)
    return render(request, "games/table_create.html", {"form": form})


@login_required
def my_games(request: HttpRequest) -> HttpResponse:
    """My games: every table the player sits at, the most urgent first."""
    games = selectors.my_games(user=request.user, now=timezone.now())
    return render(request, "games/my_games.html", {"games": games})


def _tv_channel(asked: str | None) -> Speed | None:
    """The TV's channel named ``asked`` (a speed); None for the main one. An unknown
    name, or a speed with nothing to watch live (correspondence), is not found."""
    if not asked:
        return None
    channel = next((speed for speed in selectors.TV_SPEEDS if speed.value == asked), None)
    if channel is None:
        raise Http404(_("No such channel."))
    return channel


def tv(request: HttpRequest, speed: str | None = None) -> HttpResponse:
    """Pan TV: a channel's live table (``selectors.tv_match``: of the highest-rated
    players, of the channel's speed) as a spectator sees it, live over the table's own
    socket; the page moves on to the channel's next one when its match ends. Beside it,
    every match the TV may show, the strongest first."""
    channel = _tv_channel(speed)
    context = {
        "tv": selectors.tv_table(channel),
        "channel": channel,
        "channels": selectors.TV_SPEEDS,
        "on_air": selectors.tv_tables(),
        "tv_current_url": reverse("games:tv_current"),
    }
    return render(request, "games/tv.html", context)


def tv_current(request: HttpRequest) -> JsonResponse:
    """Which table a channel of the TV (``speed``; none: the main one) shows now
    (``table``, None: none is live) and, given the ``table`` the page shows, whether its
    match is still in play (``shown_live``): the TV page asks at long intervals, in case
    it missed the end of its match."""
    shown = request.GET.get("table", "")
    if shown and not shown.isdecimal():
        message = _("The table must be given by its number.")
        return JsonResponse({"error": {"code": "bad_request", "message": message}}, status=400)
    try:
        channel = _tv_channel(request.GET.get("speed"))
    except Http404 as missing:
        return JsonResponse({"error": {"code": "not_found", "message": str(missing)}}, status=404)
    match = selectors.tv_match(channel)
    answer: dict[str, object] = {"table": match.table_id if match is not None else None}
    if shown:
        answer["shown_live"] = selectors.tv_still_live(int(shown))
    return JsonResponse(answer)


def table_detail(request: HttpRequest, table_id: int) -> HttpResponse:
    table = get_object_or_404(Table, pk=table_id)
    if not selectors.can_view_table(table, request.user, request.session.get("invited_tables", [])):
        raise Http404(_("This table is private."))
    view = selectors.table_view(table=table, viewer=request.user)
    if table.move_days and view.my_seat is not None:
        new = services.table_visit(table_id=table.pk, user=request.user, hand=view.hand)
        view = replace(view, new_actions=min(new, len(view.last_actions)))
    invite_url = request.build_absolute_uri(f"/t/{table.invite_token}/")
    berserk = ""
    if view.my_seat is not None and view.hand is not None and not view.hand.is_over:
        berserk = selectors.berserk_url(table, request.user.pk)
    return render(
        request,
        "games/table.html",
        {"v": view, "invite_url": invite_url, "berserk_url": berserk},
    )


@login_required
@require_POST
def table_seat_bot_account(request: HttpRequest, table_id: int) -> HttpResponse:
    """The owner seats a bot account by its name (the seats' "Bot account" field). From the
    table page (htmx) it answers the table's notice: empty when done (the seats change
    through the table's socket, as for a bot of the site), the refusal otherwise."""
    try:
        position = int(request.POST.get("position", ""))
    except ValueError:
        position = -1
    notice = ""
    try:
        services.table_seat_bot_account(
            table_id=table_id,
            by=request.user,
            position=position,
            username=request.POST.get("username", ""),
        )
    except services.Refused as refusal:
        notice = str(refusal.message)
    if request.htmx:
        return HttpResponse(renderers.notice_fragment(notice))
    if notice:
        messages.error(request, notice)
    return redirect("games:table", table_id=table_id)


def table_invite(request: HttpRequest, token: str) -> HttpResponse:
    """An invite link: remember in the session that this visitor may see the private table."""
    if not text.is_storable(token):  # no table's token holds it: the query would fail
        raise Http404(_("This table does not exist."))
    table = get_object_or_404(Table.objects.select_related("owner"), invite_token=token)
    invited = request.session.get("invited_tables", [])
    if table.pk not in invited:
        request.session["invited_tables"] = [*invited, table.pk][-50:]
    messages.info(request, _("You were invited to %(name)s.") % {"name": table.title})
    return redirect(table)


def _visible_hand(request: HttpRequest, hand_id: int) -> Hand:
    hand = get_object_or_404(Hand.objects.select_related("match__table"), pk=hand_id)
    if not selectors.can_view_hand(hand, request.user):
        raise Http404(_("This hand is not public."))
    return hand


def hand_detail(request: HttpRequest, hand_id: int) -> HttpResponse:
    """A finished hand, replayed step by step, with its verifiable shuffle."""
    hand = _visible_hand(request, hand_id)
    replay = selectors.hand_replay(hand)
    # ``?move=N`` opens the replay at step N (a moderator's evidence links to a move).
    asked = request.GET.get("move", "")
    at = min(int(asked), len(replay.frames) - 1) if asked.isdigit() else 0
    context = {
        "r": replay,
        "at": at,
        "frame": replay.frames[at],
        "analysis": selectors.hand_analysis(hand, request.user),
    }
    return render(request, "games/hand.html", context)


def hand_analysis(request: HttpRequest, hand_id: int) -> HttpResponse:
    """The "where did I lose it" panel of a player of the hand: GET reads it (the page
    polls it while it runs), POST asks for it."""
    hand = _visible_hand(request, hand_id)
    error = ""
    if request.method == "POST":
        try:
            services.analysis_request(hand_id=hand.pk, user=request.user)
        except services.Refused as refusal:
            error = refusal.message
    analysis = selectors.hand_analysis(hand, request.user)
    if analysis is None:
        raise Http404(_("Only the players of this hand can analyse it."))
    if not request.htmx:
        return redirect(hand)
    context = {"analysis": analysis, "analysis_error": error}
    return render(request, "games/_hand_analysis.html", context)


def hand_export(request: HttpRequest, hand_id: int) -> JsonResponse:
    hand = _visible_hand(request, hand_id)
    return JsonResponse(
        selectors.hand_export(hand), json_dumps_params={"indent": 2, "ensure_ascii": False}
    )
