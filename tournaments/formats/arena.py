"""The Arena: join any time, play as many games as the countdown allows, one leaderboard.

* One hand is one game. When it ends, its players' places give their points
  (``tournaments.arena_scale``: the scale, the streak's doubling, Berserk's point), its
  match ends, and its players go back to the pool.
* Every advance is a pairing wave (``tournaments.arena_pairing``): tables form from the
  waiting players nearest in the ranking, at the arena's sizes, avoiding last games'
  opponents while others wait, and never seating two linked accounts (fair play: one
  device, or one connection lately) in one game. A free table of the arena is used
  again before a new one opens.
* A person who times out in a game without a single action is paused: he is not
  paired until he comes back (a bot never is).
* At ``ends_at`` no game starts. The games in play finish and count, up to
  ``overtime(tournament)`` after the end; a game still in play then is stopped and
  counts for nobody. Then the ranking is frozen: points, then the performance.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from decimal import Decimal

from django.db.models import Q

from accounts.selectors import linked_among
from games import ratings
from games import services as games
from games.engine import Reason, Timeout, hand_places
from games.models import Hand, Match, MatchPlayer
from games.speeds import speed_of
from tournaments import events, play
from tournaments.arena_pairing import Waiting, pairing_wave
from tournaments.arena_scale import GameLine, game_points, performance, ranking_key
from tournaments.formats.base import AdvanceReport, Ranking
from tournaments.models import (
    ArenaGame,
    ArenaPlayer,
    Tournament,
    TournamentEntry,
    TournamentTable,
)

__all__ = ["Arena", "arena_rank_order", "overtime", "start_rating"]

# The rating a bot, or a person new to the arena's speed, is ranked by before points.
BOT_RATINGS = {"random": 1000, "greedy": 1300, "ismcts": 1700}


def overtime(tournament: Tournament) -> timedelta:
    """How long after the countdown's end the games in play may still finish and count:
    every seat's whole time once, with the increment of 30 own actions, and a minute."""
    seats = tournament.seats_per_table
    per_seat = tournament.base_seconds + 30 * tournament.increment_seconds
    return timedelta(seconds=seats * per_seat + 60)


def start_rating(tournament: Tournament, entry: TournamentEntry) -> int:
    """The rating an entry is ranked by while nobody has points: his rating in the
    arena's speed (a newcomer's 1500), a bot's by its level."""
    if entry.user is None:
        return BOT_RATINGS.get(entry.bot_level, 1500)
    speed = speed_of(
        base_seconds=tournament.base_seconds, increment_seconds=tournament.increment_seconds
    )
    rating = ratings.rating_in(entry.user, speed)
    return ratings.display_rating(rating.mu if rating is not None else ratings.RATING_MU)


def arena_rank_order(entries: Sequence[TournamentEntry]) -> list[TournamentEntry]:
    """``entries`` in the leaderboard's order (``arena_scale.ranking_key``)."""
    return sorted(
        entries,
        key=lambda e: (
            *ranking_key(e.points, e.performance, e.start_rating, e.display_name),
            e.pk or 0,
        ),
    )


class Arena:
    """Join any time, paired again at once, points for places, frozen at the end."""

    name = "arena"

    def start(
        self, tournament: Tournament, entries: list[TournamentEntry], *, now: datetime
    ) -> None:
        tournament.ends_at = now + timedelta(minutes=tournament.minutes or 0)
        tournament.save(update_fields=["ends_at"])
        for entry in entries:
            entry.start_rating = start_rating(tournament, entry)
            entry.waiting_since = None if entry.paused else now
        TournamentEntry.objects.bulk_update(entries, ["start_rating", "waiting_since"])
        self._pair(tournament, now=now)

    def hand_finished(
        self, tournament: Tournament, *, table: TournamentTable, hand: Hand, now: datetime
    ) -> None:
        """The game is over: its places give its points, its match ends (rated where
        the arena is), and its players go back to the pool."""
        game = ArenaGame.objects.filter(match_id=hand.match_id, finished_at__isnull=True).first()
        if game is None:
            return
        state = hand.engine_state
        places = hand_places(state)
        actions = [0] * state.players
        for entry in state.history:
            if not entry.auto and entry.move.__class__ is not Timeout:
                actions[entry.seat] += 1
        idle = (
            state.outcome.loser
            if state.outcome is not None and state.outcome.reason is Reason.TIMEOUT
            else None
        )
        self._end_game(tournament, game, places=places, actions=actions, idle_seat=idle, now=now)
        if places is not None:
            self._close_match(tournament, hand.match, places, now=now)

    def disqualify(
        self, tournament: Tournament, entry: TournamentEntry, *, now: datetime, reason: str
    ) -> None:
        """Out of the arena and off the leaderboard; a game he was in was stopped."""
        game = (
            ArenaGame.objects.filter(players__entry=entry, finished_at__isnull=True)
            .select_for_update()
            .first()
        )
        if game is not None:
            self._end_game(tournament, game, places=None, actions=[], idle_seat=None, now=now)
            match = Match.objects.select_for_update().get(pk=game.match_id)
            games.tournament_match_close(match=match, now=now)
        play.take_out(tournament, [entry], now=now, disqualified=True, reason=reason)

    def advance(self, tournament: Tournament, *, now: datetime) -> AdvanceReport:
        """Before the end: a pairing wave. After it: wait for the games in play (stop
        them past the overtime), then freeze the ranking and finish."""
        report = AdvanceReport()
        if tournament.ends_at is not None and now >= tournament.ends_at:
            in_play = list(
                ArenaGame.objects.filter(tournament=tournament, finished_at__isnull=True)
            )
            if in_play and now >= tournament.ends_at + overtime(tournament):
                for game in in_play:
                    match = Match.objects.select_for_update().get(pk=game.match_id)
                    games.tournament_hand_stop(match=match, now=now)
                    games.tournament_match_close(match=match, now=now)
                    self._end_game(
                        tournament, game, places=None, actions=[], idle_seat=None, now=now
                    )
                in_play = []
            if in_play:
                deadline = tournament.ends_at + overtime(tournament)
                events.schedule_advance_on_commit(
                    tournament.pk, countdown=(deadline - now).total_seconds() + 0.05
                )
                return report
            self._freeze(tournament, now=now)
            return report
        report.started = self._pair(tournament, now=now)
        return report

    def standings(self, entries: Sequence[TournamentEntry]) -> Ranking:
        """Everyone in the leaderboard's order; the disqualified apart."""
        players_in = [e for e in entries if not e.disqualified]
        out = [e for e in entries if e.disqualified]
        if any(e.place for e in players_in):  # frozen: the places say it
            players_in.sort(key=lambda e: (e.place or 10**6, e.display_name.lower()))
        else:
            players_in = arena_rank_order(players_in)
        out.sort(key=lambda e: e.display_name.lower())
        return Ranking(players_in=players_in, out=out)

    # --- the steps -------------------------------------------------------------------

    def _pair(self, tournament: Tournament, *, now: datetime) -> int:
        """One pairing wave: seat the tables ``pairing_wave`` forms. Returns how many."""
        pause = timedelta(seconds=tournament.seconds_between_hands)
        waiting = tournament.entries.filter(
            eliminated_at__isnull=True,
            paused=False,
            table__isnull=True,
            waiting_since__isnull=False,
        )
        # Those whose game has just ended see its result for the pause first.
        ready = Q(games_played=0) | Q(waiting_since__lte=now - pause)
        later = waiting.exclude(ready).order_by("waiting_since").first()
        if later is not None:
            countdown = (later.waiting_since + pause - now).total_seconds() + 0.05
            events.schedule_advance_on_commit(tournament.pk, countdown=countdown)
        pool = list(waiting.filter(ready).select_for_update(of=("self",)).select_related("user"))
        if not pool:
            return 0
        pool = arena_rank_order(pool)
        by_pk = {e.pk: e for e in pool}
        queue = [
            Waiting(
                key=e.pk,
                since=e.waiting_since.timestamp(),
                last_opponents=frozenset(e.last_opponents),
            )
            for e in pool
        ]
        groups = pairing_wave(
            queue,
            smallest=tournament.smallest_table,
            largest=tournament.seats_per_table,
            now=now.timestamp(),
            apart=linked_among({e.pk: e.user_id for e in pool}, now=now),
        )
        if not groups and len(pool) == 2 and tournament.smallest_table == 2:
            events.schedule_advance_on_commit(tournament.pk, countdown=5.0)
        free = list(self._free_tables(tournament))
        for keys in groups:
            link = free.pop() if free else self._open_table(tournament)
            self._seat(tournament, link, [by_pk[k] for k in keys], now=now)
        return len(groups)

    def _free_tables(self, tournament: Tournament) -> list[TournamentTable]:
        """The arena's open tables with no game in play and nobody seated."""
        busy = ArenaGame.objects.filter(tournament=tournament, finished_at__isnull=True)
        return list(
            tournament.tables.filter(closed_at__isnull=True, entries__isnull=True)
            .exclude(pk__in=busy.values("link_id"))
            .select_related("table")
            .order_by("-number")
        )

    def _open_table(self, tournament: Tournament) -> TournamentTable:
        number = (
            tournament.tables.order_by("-number").values_list("number", flat=True).first()
        ) or 0
        return play.open_table(tournament, number + 1)

    def _seat(
        self,
        tournament: Tournament,
        link: TournamentTable,
        entries: list[TournamentEntry],
        *,
        now: datetime,
    ) -> None:
        for position, entry in enumerate(entries):
            entry.table, entry.position, entry.waiting_since = link, position, None
        TournamentEntry.objects.bulk_update(entries, ["table", "position", "waiting_since"])
        play.seat_and_play(link, entries, now=now)
        match = Match.objects.filter(table_id=link.table_id).order_by("-pk").first()
        game = ArenaGame.objects.create(
            tournament=tournament, link=link, match=match, started_at=now
        )
        ArenaPlayer.objects.bulk_create(
            ArenaPlayer(
                game=game,
                entry=entry,
                seat=seat,
                opponents_rating=sum(o.start_rating for o in entries if o is not entry)
                / (len(entries) - 1),
            )
            for seat, entry in enumerate(entries)
        )
        for entry in entries:
            if entry.user_id:
                kind = events.FOLLOW_PAIRED if entry.games_played else events.FOLLOW_SEATED
                events.user_follow_on_commit(entry.user_id, tournament.pk, kind=kind)

    def _end_game(
        self,
        tournament: Tournament,
        game: ArenaGame,
        *,
        places: Sequence | None,
        actions: Sequence[int],
        idle_seat: int | None,
        now: datetime,
    ) -> None:
        """The game is over: points to its players (``places`` None: it counts for
        nobody), each back in the pool (paused if he timed out without acting)."""
        game.finished_at = now
        game.counted = places is not None
        game.save(update_fields=["finished_at", "counted"])
        parts = list(game.players.select_related("entry").order_by("seat"))
        entries = {
            e.pk: e
            for e in TournamentEntry.objects.select_for_update().filter(
                pk__in=[p.entry_id for p in parts]
            )
        }
        size = len(parts)
        for part in parts:
            entry = entries[part.entry_id]
            if places is not None:
                place = places[part.seat]
                scored = game_points(
                    place,
                    size,
                    streak=entry.streak,
                    berserk=part.berserk,
                    actions=actions[part.seat],
                )
                part.place_best, part.place_worst = place.best, place.worst
                part.points, part.doubled = scored.points, scored.doubled
                part.berserk_point, part.actions = scored.berserk_point, actions[part.seat]
                part.save(
                    update_fields=[
                        "place_best",
                        "place_worst",
                        "points",
                        "doubled",
                        "berserk_point",
                        "actions",
                    ]
                )
                line = GameLine(place, size, opponents_rating=part.opponents_rating)
                old = (entry.performance or 0.0) * entry.games_played
                entry.games_played += 1
                entry.performance = (old + (performance([line]) or 0.0)) / entry.games_played
                entry.points = Decimal(entry.points) + scored.points
                entry.streak = scored.streak
                if idle_seat == part.seat and actions[part.seat] == 0 and entry.user_id:
                    entry.paused = True  # he was not there: not paired until he comes back
            if entry.table_id == game.link_id:
                games.tournament_seat_vacate(table_id=game.link.table_id, position=entry.position)
                entry.table, entry.position = None, None
            entry.last_opponents = [p.entry_id for p in parts if p.entry_id != entry.pk]
            live = entry.eliminated_at is None and not entry.paused
            entry.waiting_since = now if live else None
            entry.save(
                update_fields=[
                    "points",
                    "streak",
                    "games_played",
                    "performance",
                    "paused",
                    "table",
                    "position",
                    "last_opponents",
                    "waiting_since",
                ]
            )
        events.tournament_changed_on_commit(tournament.pk)

    def _close_match(
        self, tournament: Tournament, match: Match, places: Sequence, *, now: datetime
    ) -> None:
        """The game's match ends with the hand: its players placed, rated where the
        arena is rated."""
        for seat, place in enumerate(places):
            MatchPlayer.objects.filter(match=match, seat=seat).update(place=place.best)
        games.tournament_match_close(match=match, now=now)
        if tournament.rated:
            ratings.match_rate(match=match)

    def _freeze(self, tournament: Tournament, *, now: datetime) -> None:
        """The countdown is over and no game is in play: places by the ranking."""
        entries = list(
            tournament.entries.select_for_update()
            .filter(disqualified=False, struck_at__isnull=True)
            .order_by("pk")
        )
        for place, entry in enumerate(arena_rank_order(entries), 1):
            entry.place = place
            entry.waiting_since = None
        TournamentEntry.objects.bulk_update(entries, ["place", "waiting_since"])
        tournament.entries.filter(Q(disqualified=True)).update(waiting_since=None)
        play.finish(tournament, now=now)
