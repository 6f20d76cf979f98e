"""The quick pairing's changes of state: a player seeks, stops seeking, is seated with
others (``pairing_match``) or with bots (``seek_fill_with_bots``).

Seating takes the pairing lock (a PostgreSQL advisory lock held to the end of the
transaction), so only one transaction at a time turns seeks into tables: a seek is read,
seated and deleted under that lock and can never be seated twice. A user has at most one
seek (a unique row), so he cannot be seated at two tables by the pairing.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.utils.translation import gettext as _

from accounts.models import User
from accounts.selectors import linked_among
from core.errors import Refused
from games import services as games
from games.engine import PROFILES
from games.models import RATING_MU, BotLevel, Rating, Seat, Table
from games.services import DAY_PRESETS, preset_fields
from games.speeds import speed_of
from pairing import events, matching
from pairing.models import SEEN_EVERY, SIZES, Seek

PAIRING_LOCK = 0x70A1_2026  # the advisory lock's key: any number the site uses for nothing else
RULES_PROFILE = "kurnik"  # the rules of every table the pairing creates
BOT_TABLE_SIZE = 4  # a seeker of "any size" who fills with bots gets a full table
# A seek whose socket has given no sign of life for this long is gone (its daphne died).
STALE_AFTER = timedelta(seconds=3 * SEEN_EVERY)
# A seat at a real-time table of these keeps a player from seeking a real-time game (a
# correspondence table, played over days, keeps him from nothing).
SEATED_STATUSES = (Table.Status.OPEN, Table.Status.PLAYING)


class SeatedElsewhere(Refused):
    """The seeker holds a seat at another table; ``table_url`` is where he finds it (the
    lobby links to it rather than only saying so)."""

    def __init__(self, table: Table) -> None:
        super().__init__(_("You have a seat at another table; leave it first."))
        self.table_url = table.get_absolute_url()


def seek_create(
    *,
    user: User,
    time_control: str,
    size: int | None,
    bots_after: int,
    channel_name: str,
    now: datetime,
) -> Seek:
    """``user`` starts waiting for a table of ``size`` seats (None: any) at ``time_control``
    (minutes per hand, or days per move: a correspondence game, which a seat at another
    table does not prevent)."""
    if preset_fields(time_control) is None:
        raise Refused(_("Unknown time control."))
    if size is not None and size not in SIZES:
        raise Refused(_("A table has 2 to 4 seats."))
    if bots_after not in settings.PAIRING_WAITS:
        raise Refused(_("Unknown waiting time."))
    if user.is_fairplay_marked:  # "Play now" seats at rated tables
        raise Refused(_("An account marked for breaking fair play plays at casual tables only."))
    if time_control not in DAY_PRESETS:
        _refuse_if_seated_elsewhere(user)
    # Paired by the rating of the speed he will play.
    speed = speed_of(**{"base_seconds": 0, "increment_seconds": 0, **preset_fields(time_control)})
    rating = Rating.objects.filter(user=user, speed=speed).values_list("mu", flat=True).first()
    try:
        with transaction.atomic():
            seek = Seek.objects.create(
                user=user,
                time_control=time_control,
                size=size,
                rating=RATING_MU if rating is None else rating,
                bots_after=bots_after,
                channel_name=channel_name,
                created_at=now,
                seen_at=now,
            )
            _waiting_changed(time_control)
    except IntegrityError:
        raise Refused(_("You are already waiting for a game (in another window?).")) from None
    return seek


def seek_cancel(*, user: User, channel_name: str | None = None) -> bool:
    """``user`` stops waiting (only the seek of ``channel_name``, if given: a socket that
    closes ends its own seek, not one made since by another window). False: no seek."""
    with transaction.atomic():
        seeks = Seek.objects.select_for_update().filter(user=user)
        if channel_name is not None:
            seeks = seeks.filter(channel_name=channel_name)
        seek = seeks.first()
        if seek is None:
            return False
        seek.delete()
        _waiting_changed(seek.time_control)
    return True


def seek_remove(*, seek_id: int) -> bool:
    """Staff take a seek off the list (the admin's delete: one whose player has gone
    without its socket closing). A socket still waiting on it hears that it stopped
    waiting. False: no such seek."""
    with transaction.atomic():
        seek = Seek.objects.select_for_update().filter(pk=seek_id).first()
        if seek is None:
            return False
        seek.delete()
        _waiting_changed(seek.time_control)
        events.removed_on_commit(seek.user_id)
    return True


def seek_seen(*, user: User, channel_name: str, now: datetime) -> bool:
    """The socket of ``user``'s seek still lives (False: it has no seek)."""
    return bool(Seek.objects.filter(user=user, channel_name=channel_name).update(seen_at=now))


def pairing_match(*, now: datetime) -> list[int]:
    """Seat every group of compatible seeks that can fill a table (``matching.groups``):
    create the table, seat them, start the match, delete their seeks, and send each
    player there. Seeks whose socket went silent (``STALE_AFTER``) are deleted first.
    Returns the new tables' ids. Takes the pairing lock."""
    tables = []
    with transaction.atomic():
        _take_pairing_lock()
        stale = Seek.objects.filter(seen_at__lt=now - STALE_AFTER)
        stale_time_controls = set(stale.values_list("time_control", flat=True))
        stale.delete()
        seeks = list(Seek.objects.select_for_update().select_related("user").order_by("pk"))
        busy = _seated_elsewhere([s.user_id for s in seeks if s.time_control not in DAY_PRESETS])
        seeking = [s for s in seeks if s.user_id not in busy]
        # The tables are rated: two seeks of linked accounts (fair play) never make one.
        apart = linked_among({s.pk: s.user_id for s in seeking}, now=now)
        for size, group in matching.groups(seeking, apart=apart):
            try:
                with transaction.atomic():  # a refused group leaves no half-made table
                    tables.append(_seat(group, size=size, bot_level="", now=now).pk)
            except Refused:
                continue  # none of them may create a table now: they keep waiting
        for time_control in {s.time_control for s in seeks} | stale_time_controls:
            _waiting_changed(time_control)
    return tables


def seek_fill_with_bots(*, user: User, level: str, now: datetime) -> int:
    """The seeker, having waited his chosen time, sits at a new table with bots of
    ``level`` in the other seats; the match starts at once. Returns the table's id.
    Takes the pairing lock (his seek cannot be seated elsewhere meanwhile)."""
    if level not in BotLevel.values:
        raise Refused(_("Unknown bot level."))
    with transaction.atomic():
        _take_pairing_lock()
        seek = Seek.objects.select_for_update().select_related("user").filter(user=user).first()
        if seek is None:
            raise Refused(_("You are not waiting for a game."))
        if seek.time_control not in DAY_PRESETS:
            _refuse_if_seated_elsewhere(user)
        if now < seek.created_at + timedelta(seconds=seek.bots_after):
            raise Refused(
                _("You may fill the seats with bots after waiting %(n)d seconds.")
                % {"n": seek.bots_after}
            )
        table = _seat([seek], size=seek.size or BOT_TABLE_SIZE, bot_level=level, now=now)
        _waiting_changed(seek.time_control)
    return table.pk


def _seat(group: list[Seek], *, size: int, bot_level: str, now: datetime) -> Table:
    """One new table for ``group`` (bots of ``bot_level`` in the seats left), its match
    started, the seeks deleted. Refused (games' limit on the tables a player creates)
    when no player of the group may create a table now."""
    time_control = preset_fields(group[0].time_control) or {}
    refusal = None
    for owner in group:  # the first player's limit may be reached, another's not
        try:
            table = games.table_create(
                owner=owner.user,
                name="",
                rules=PROFILES[RULES_PROFILE].rules,
                profile=RULES_PROFILE,
                seats=size,
                **time_control,
            )
        except Refused as refused:
            refusal = refused
            continue
        break
    else:
        raise refusal or Refused(_("The table is full."))
    for seek in group:
        if seek is not owner:
            games.table_sit(table_id=table.pk, user=seek.user)
    for position in range(len(group), size):
        games.table_add_bot(table_id=table.pk, by=owner.user, position=position, level=bot_level)
    games.match_start(table_id=table.pk, by=owner.user, now=now)
    Seek.objects.filter(pk__in=[s.pk for s in group]).delete()
    for seek in group:
        events.seated_on_commit(seek.user_id, table.pk)
    return table


def _seated_elsewhere(user_ids: list[int]) -> set[int]:
    """Those of ``user_ids`` who hold a seat at a real-time table that is open or playing
    (one who sat down somewhere after seeking waits on until he leaves it)."""
    seats = Seat.objects.filter(
        user__in=user_ids, table__status__in=SEATED_STATUSES, table__move_days=0
    )
    return set(seats.values_list("user_id", flat=True))


def _refuse_if_seated_elsewhere(user: User) -> None:
    """Refuse ``user``, who holds a seat at an open or playing real-time table, and say
    which."""
    tables = Table.objects.filter(seats__user=user, status__in=SEATED_STATUSES, move_days=0)
    table = tables.order_by("-pk").first()
    if table is not None:
        raise SeatedElsewhere(table)


def _take_pairing_lock() -> None:
    """Wait for the pairing lock, held until this transaction ends. SQLite (the embedded
    mode) has one writer at a time anyway."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [PAIRING_LOCK])


def _waiting_changed(time_control: str) -> None:
    seeks = Seek.objects.filter(time_control=time_control).only("size")
    events.waiting_changed_on_commit(time_control, matching.waiting_counts(list(seeks)))
