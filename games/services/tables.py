"""Tables and their seats: creating a table (its name, seats, rules and time control),
sitting down, standing up, and the bots its owner seats (the site's own, or a programmer's
bot account, which then plays through the Bot API). Each service locks the table's
row; a table's seating changes only while no match is being played there."""

from __future__ import annotations

from datetime import timedelta

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from accounts.selectors import active_user_named
from core.errors import Refused
from games import events
from games.engine import Rules
from games.models import MAX_SEATS, MIN_SEATS, MOVE_DAYS, BotLevel, Hand, Match, Seat, Table
from games.services._common import (
    TABLE_NAME_MAX,
    _locked_table,
    _refuse_linked_seat,
    _require_owner,
    _require_seating_open,
    _seating_changed,
)

# Time controls: bounds of a custom control, and the named presets.
MIN_BASE_SECONDS, MAX_BASE_SECONDS = 5, 60 * 60
MAX_INCREMENT_SECONDS = 60
TIME_PRESETS: dict[str, tuple[int, int]] = {
    "1+0": (60, 0),
    "2+1": (120, 1),
    "3+2": (180, 2),
    "5+3": (300, 3),
    "10+5": (600, 5),
}
# Correspondence controls: days per move (Table.move_days), by the key forms and seeks use.
DAY_PRESETS: dict[str, int] = {f"{days}d": days for days in MOVE_DAYS}

PRESET_KEYS: tuple[str, ...] = (*TIME_PRESETS, *DAY_PRESETS)


def preset_fields(key: str) -> dict[str, int] | None:
    """``table_create``'s time control arguments for the preset ``key`` (minutes per hand
    or days per move); None for a key the site does not offer."""
    if key in TIME_PRESETS:
        base_seconds, increment_seconds = TIME_PRESETS[key]
        return {"base_seconds": base_seconds, "increment_seconds": increment_seconds}
    if key in DAY_PRESETS:
        return {"move_days": DAY_PRESETS[key]}
    return None


# The automatic limit on creating tables.
TABLES_PER_WINDOW, TABLE_WINDOW = 5, timedelta(minutes=10)


def table_create(
    *,
    owner: User,
    name: str,
    rules: Rules,
    profile: str = "",
    seats: int = 4,
    base_seconds: int = 180,
    increment_seconds: int = 2,
    move_days: int = 0,
    is_public: bool = True,
    rated: bool = True,
) -> Table:
    """Create a table with ``seats`` empty seats and sit its owner in the first one.
    Without a ``name`` it is named by its owner in each reader's language (``Table.title``).
    ``move_days`` (one of ``MOVE_DAYS``) makes it a correspondence table: that many days
    per move, and the minutes per hand are not used."""
    name = (name or "").strip()
    if len(name) > TABLE_NAME_MAX:
        raise Refused(_("A table name has at most %(n)d characters.") % {"n": TABLE_NAME_MAX})
    if not MIN_SEATS <= seats <= MAX_SEATS:
        raise Refused(_("A table has 2 to 4 seats."))
    validate_time_control(base_seconds, increment_seconds)
    validate_move_days(move_days)
    try:
        rules.validate_for_players(seats)
    except ValueError as exc:
        raise Refused(str(exc)) from exc
    _refuse_marked(owner, rated=rated)
    _check_table_creation_rate(owner)
    with transaction.atomic():
        table = Table.objects.create(
            owner=owner,
            name=name,
            profile=profile,
            rules_json=rules.to_json(),
            seats_count=seats,
            base_seconds=base_seconds,
            increment_seconds=increment_seconds,
            move_days=move_days,
            is_public=is_public,
            rated=rated,
        )
        Seat.objects.bulk_create(
            Seat(table=table, position=p, user=owner if p == 0 else None) for p in range(seats)
        )
        events.lobby_changed_on_commit()
    return table


def validate_time_control(base_seconds: int, increment_seconds: int) -> None:
    """Refuse a time control outside the bounds the site offers."""
    if not MIN_BASE_SECONDS <= base_seconds <= MAX_BASE_SECONDS:
        raise Refused(_("The time per hand must be between 5 seconds and 60 minutes."))
    if not 0 <= increment_seconds <= MAX_INCREMENT_SECONDS:
        raise Refused(_("The increment must be between 0 and 60 seconds."))


def validate_move_days(move_days: int) -> None:
    """Refuse days per move the site does not offer (0: a real-time table)."""
    if move_days != 0 and move_days not in MOVE_DAYS:
        raise Refused(
            _("Days per move must be one of %(days)s.")
            % {"days": ", ".join(str(d) for d in MOVE_DAYS)}
        )


def _refuse_marked(user: User, *, rated: bool) -> None:
    """An account marked for breaking fair play takes no seat where matches are rated."""
    if rated and user.is_fairplay_marked:
        raise Refused(
            _("An account marked for breaking fair play plays at casual tables only."),
            code="fairplay_marked",
        )


def table_sit(*, table_id: int, user: User, position: int | None = None) -> Seat:
    """Sit ``user`` in an empty seat (the first free one if ``position`` is None). At a
    rated table, not beside an account linked to his (a shared device or connection), and
    not at all if his account is marked for breaking fair play."""
    with transaction.atomic():
        table = _locked_table(table_id)
        _require_seating_open(table)
        seats = list(table.seats.select_for_update())
        if any(s.user_id == user.pk for s in seats):
            raise Refused(_("You already have a seat at this table."))
        free = [s for s in seats if s.is_empty and (position is None or s.position == position)]
        if not free:
            raise Refused(
                _("This seat is taken.") if position is not None else _("The table is full.")
            )
        _refuse_marked(user, rated=table.rated and not table.managed)
        _refuse_linked_seat(table, user, [s.user_id for s in seats if s.user_id])
        seat = free[0]
        seat.user = user
        seat.save(update_fields=["user"])
        _seating_changed(table)
    return seat


def table_leave(*, table_id: int, user: User) -> None:
    """Stand up. During a match a greedy bot takes over the seat so the others can play on."""
    with transaction.atomic():
        table = _locked_table(table_id)
        seat = table.seats.select_for_update().filter(user=user).first()
        if seat is None:
            raise Refused(_("You have no seat at this table."))
        if table.managed:
            raise Refused(_("A tournament seat cannot be left: an absent player loses on time."))
        if table.status == Table.Status.PLAYING:
            seat.bot_level = BotLevel.GREEDY
            match = table.matches.filter(status=Match.Status.PLAYING).first()
            if match:
                match.players.filter(user=user).update(bot_level=BotLevel.GREEDY)
                hand = match.hands.order_by("-number").first()
                if hand:
                    events.schedule_bot_if_needed_on_commit(hand)
        seat.user = None
        seat.save(update_fields=["user", "bot_level"])
        _seating_changed(table)


def table_visit(*, table_id: int, user: User, hand: Hand | None) -> int:
    """``user`` opens the page of a correspondence table where he sits, showing ``hand``
    (None: no hand in play): remember how far he has seen it, and return how many of its
    actions are new to him since his last visit (all of them if he last saw another
    hand). 0 for anyone not seated there. One query for the seat, one to update it."""
    seat = Seat.objects.filter(table_id=table_id, user=user).first()
    if seat is None or hand is None:
        return 0
    actions = hand.engine_state.history_length
    new = actions - seat.seen_actions if seat.seen_hand_id == hand.pk else actions
    if (seat.seen_hand_id, seat.seen_actions) != (hand.pk, actions):
        Seat.objects.filter(pk=seat.pk).update(seen_hand_id=hand.pk, seen_actions=actions)
    return max(0, new)


def table_add_bot(*, table_id: int, by: User, position: int, level: str) -> Seat:
    """The table's owner puts a bot of ``level`` in an empty seat."""
    if level not in BotLevel.values:
        raise Refused(_("Unknown bot level."))
    with transaction.atomic():
        table = _locked_table(table_id)
        _require_owner(table, by)
        _require_seating_open(table)
        seat = table.seats.select_for_update().filter(position=position).first()
        if seat is None or not seat.is_empty:
            raise Refused(_("This seat is taken."))
        seat.bot_level = level
        seat.save(update_fields=["bot_level"])
        _seating_changed(table)
    return seat


def table_seat_bot_account(*, table_id: int, by: User, position: int, username: str) -> Seat:
    """The table's owner seats the bot account named ``username`` (any case) in an empty
    seat, as he seats a bot of the site; the account plays it through the Bot API, and its
    event stream hears ``gameStart`` when the match begins. Only a bot account, never a
    person, and not a banned one. Locks the table's row, as ``table_add_bot`` does."""
    username = (username or "").strip()
    if not username:
        raise Refused(_("Enter the name of a bot account."))
    with transaction.atomic():
        table = _locked_table(table_id)
        _require_owner(table, by)
        _require_seating_open(table)
        account = active_user_named(username)
        if account is None:
            raise Refused(_("There is no account named %(name)s.") % {"name": username})
        if not account.is_bot_account:
            raise Refused(_("%(name)s is not a bot account.") % {"name": account.username})
        if account.is_banned():
            raise Refused(_("%(name)s is banned.") % {"name": account.username})
        seats = list(table.seats.select_for_update())
        if any(s.user_id == account.pk for s in seats):
            raise Refused(
                _("%(name)s already has a seat at this table.") % {"name": account.username}
            )
        seat = next((s for s in seats if s.position == position), None)
        if seat is None or not seat.is_empty:
            raise Refused(_("This seat is taken."))
        seat.user = account
        seat.save(update_fields=["user"])
        _seating_changed(table)
    return seat


def table_remove_bot(*, table_id: int, by: User, position: int) -> None:
    """The table's owner removes the bot from a seat: a bot of the site, or a bot account
    he (or it) seated; a person is never removed so."""
    with transaction.atomic():
        table = _locked_table(table_id)
        _require_owner(table, by)
        _require_seating_open(table)
        seats = table.seats.select_for_update(of=("self",)).select_related("user")
        seat = seats.filter(position=position).first()
        if seat is not None and seat.user is not None and seat.user.is_bot_account:
            seat.user = None
            seat.save(update_fields=["user"])
            _seating_changed(table)
            return
        if seat is None or not seat.bot_level:
            raise Refused(_("There is no bot in this seat."))
        seat.bot_level = ""
        seat.save(update_fields=["bot_level"])
        _seating_changed(table)


def _check_table_creation_rate(owner: User) -> None:
    """At most TABLES_PER_WINDOW new tables per user in TABLE_WINDOW."""
    since = timezone.now() - TABLE_WINDOW
    if Table.objects.filter(owner=owner, created_at__gte=since).count() >= TABLES_PER_WINDOW:
        raise Refused(
            _("You have created %(n)d tables in the last few minutes; wait a while.")
            % {"n": TABLES_PER_WINDOW}
        )
