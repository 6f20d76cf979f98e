"""Pan TV: the live tables worth watching, for /tv/ and the lobby.

The TV has a channel per real-time speed besides its main one: each shows one table at
a time as a spectator sees it (``tables.table_view`` with no viewer), so nothing private
ever reaches it. Beside it, the list of every match it may show, the strongest first."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Avg, F, FilteredRelation, FloatField, Q, QuerySet, Value
from django.db.models.functions import Coalesce

from games.models import RATING_MU, Match, Table
from games.ratings import display_rating, table_speed_sql
from games.selectors.tables import TableView, table_view, with_seats
from games.speeds import Speed

# The people of a match: seats a person plays (not a bot of the site, not a bot account,
# not a bot finishing the match for a person who left).
_PEOPLE = Q(
    players__user__isnull=False,
    players__bot_level="",
    players__user__is_bot_account=False,
)

# The TV's channels besides the main one (the best match of any speed): the best match
# of each speed there is something to watch in. Correspondence moves once a day.
TV_SPEEDS = (Speed.BULLET, Speed.BLITZ, Speed.RAPID, Speed.CLASSICAL)
# The matches the TV's list shows at most.
TV_LIST_SIZE = 50


@dataclass(frozen=True)
class TvTable:
    """The TV's table: as a spectator sees it, and the mean shown rating it was chosen by."""

    view: TableView
    strength: int

    @property
    def table(self) -> Table:
        return self.view.table


def _on_air() -> QuerySet[Match]:
    """The matches the TV may show: in play at a public table of real time. A table of
    days per move is left out: its match moves once a day, nothing to watch."""
    return Match.objects.filter(
        status=Match.Status.PLAYING, table__is_public=True, table__move_days=0
    )


def _strongest_first(speed: Speed | None = None) -> QuerySet[Match]:
    """The matches on air (of ``speed`` alone, if given), the one whose people have the
    highest mean rating first.

    A person's rating is his skill estimate in the table's speed (a newcomer's is the
    starting one), so the mean orders matches as the mean of their shown ratings does.
    Bots are left out of the mean (the site's bots, bot accounts and a bot playing for a
    person who left): they have no rating, and a match of bots alone is never on TV.
    Ties go to the oldest table (the lowest id), then the oldest match."""
    matches = _on_air().annotate(speed=table_speed_sql("table__"))
    if speed is not None:
        matches = matches.filter(speed=speed.value)
    return (
        matches.annotate(
            # Each person's rating of the table's speed (none yet: a newcomer's; an
            # account marked for breaking fair play counts as a newcomer too).
            speed_rating=FilteredRelation(
                "players__user__ratings",
                condition=Q(
                    players__user__ratings__speed=F("speed"),
                    players__user__fairplay_marked_at__isnull=True,
                ),
            ),
            strength=Avg(
                Coalesce("speed_rating__mu", Value(RATING_MU), output_field=FloatField()),
                filter=_PEOPLE,
            ),
        )
        .filter(strength__isnull=False)
        .order_by("-strength", "table_id", "pk")
    )


def tv_match(speed: Speed | None = None) -> Match | None:
    """The match a channel of the TV shows: of the public real-time tables' matches in
    play (of ``speed`` alone, for that speed's channel), the one whose people have the
    highest mean rating (``_strongest_first``), or None when no such match is being
    played. Private tables are never on TV."""
    return _strongest_first(speed).select_related("table").first()


def tv_still_live(table_id: int) -> bool:
    """Whether the TV may stay on the public table ``table_id``: a match it may show is
    in play there (a better match starting elsewhere does not cut the one being watched)."""
    return _on_air().filter(table_id=table_id).exists()


def tv_table(speed: Speed | None = None) -> TvTable | None:
    """The table of a channel of the TV (``tv_match``) as every spectator sees it, or None
    when none is live."""
    match = tv_match(speed)
    if match is None:
        return None
    view = table_view(table=match.table, viewer=None, with_chat=False)
    return TvTable(view=view, strength=display_rating(match.strength))


def tv_tables() -> list[Table]:
    """Every table whose match the TV may show, the strongest first (as its channels
    choose), at most ``TV_LIST_SIZE``: each with its seats as the lobby shows them and
    the mean shown rating of its people (``tv_strength``)."""
    matches = list(_strongest_first().select_related("table__owner")[:TV_LIST_SIZE])
    tables = []
    for match in matches:
        match.table.tv_strength = display_rating(match.strength)
        tables.append(match.table)
    return with_seats(tables)
