"""Pan TV: the live table worth watching, for /tv/ and the lobby.

The TV shows one table at a time as a spectator sees it (``tables.table_view`` with no
viewer), so nothing private ever reaches it."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Avg, F, FilteredRelation, FloatField, Q, QuerySet, Value
from django.db.models.functions import Coalesce

from games.models import RATING_MU, Match, Table
from games.ratings import display_rating, table_speed_sql
from games.selectors.tables import TableView, table_view

# The people of a match: seats a person plays (not a bot of the site, not a bot account,
# not a bot finishing the match for a person who left).
_PEOPLE = Q(
    players__user__isnull=False,
    players__bot_level="",
    players__user__is_bot_account=False,
)


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


def tv_match() -> Match | None:
    """The match the TV shows: of the public real-time tables' matches in play
    (``_on_air``), the one whose people have the highest mean rating, or None when no
    such match is being played.

    A person's rating is his skill estimate in the table's speed (a newcomer's is the
    starting one), so the mean orders matches as the mean of their shown ratings does.
    Bots are left out of the mean (the site's bots, bot accounts and a bot playing for a
    person who left): they have no rating, and a match of bots alone is never on TV.
    Private tables never are either. Ties go to the oldest table (the lowest id), then
    the oldest match."""
    return (
        _on_air()
        .annotate(
            speed=table_speed_sql("table__"),
            # Each person's rating of the table's speed (none yet: a newcomer's).
            speed_rating=FilteredRelation(
                "players__user__ratings", condition=Q(players__user__ratings__speed=F("speed"))
            ),
            strength=Avg(
                Coalesce("speed_rating__mu", Value(RATING_MU), output_field=FloatField()),
                filter=_PEOPLE,
            ),
        )
        .filter(strength__isnull=False)
        .select_related("table")
        .order_by("-strength", "table_id", "pk")
        .first()
    )


def tv_still_live(table_id: int) -> bool:
    """Whether the TV may stay on the public table ``table_id``: a match it may show is
    in play there (a better match starting elsewhere does not cut the one being watched)."""
    return _on_air().filter(table_id=table_id).exists()


def tv_table() -> TvTable | None:
    """The TV's table as every spectator sees it (``tv_match``), or None when none is live."""
    match = tv_match()
    if match is None:
        return None
    view = table_view(table=match.table, viewer=None, with_chat=False)
    return TvTable(view=view, strength=display_rating(match.strength))
