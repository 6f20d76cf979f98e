"""Fair play: the results of a player whose account is marked for breaking it.

Fair play marks the account (``fairplay.services``) and calls these: his
entries leave the results of every tournament and arena, and everyone placed below him
moves up; lifting the mark gives every place back as it was played. A tournament in play
disqualifies him first, as the staff would; one not yet started loses his registration.

Places close up by a recount from the places as played (``TournamentEntry.place_played``,
kept at the first strike): a counted player's place is one more than the counted players
placed above him (and those still in), so shared places stay shared.
"""

from __future__ import annotations

from datetime import datetime

from django.db import transaction
from django.db.models import F

from tournaments import events
from tournaments.models import Tournament, TournamentEntry
from tournaments.services._common import _locked
from tournaments.services.staff import _disqualify


def tournament_results_strike(*, user_id: int, reason: str, now: datetime) -> list[int]:
    """Take the user's entries off the results of every tournament he registered for
    (again: nothing more). Locks each tournament concerned, in id order (a tournament in
    play: its hands first, as a disqualification does). Returns the tournaments changed."""
    entries = TournamentEntry.objects.filter(user_id=user_id, struck_at__isnull=True)
    live = entries.filter(
        tournament__status__in=(Tournament.Status.RUNNING, Tournament.Status.PAUSED),
        eliminated_at__isnull=True,
    )
    for entry in live.order_by("tournament_id"):
        _disqualify(tournament_id=entry.tournament_id, entry_id=entry.pk, reason=reason, now=now)
    changed = []
    with transaction.atomic():
        ids = sorted(set(entries.values_list("tournament_id", flat=True)))
        for tournament_id in ids:
            tournament = _locked(tournament_id)
            mine = tournament.entries.select_for_update().filter(user_id=user_id)
            if tournament.status == Tournament.Status.SCHEDULED:
                mine.delete()  # a marked account may not register
            else:
                _keep_places_played(tournament)
                mine.update(struck_at=now, place=None)
                _close_up(tournament)
            events.tournament_changed_on_commit(tournament.pk)
            changed.append(tournament_id)
    return changed


def tournament_results_restore(*, user_id: int) -> list[int]:
    """Put the user's struck entries back in the results, every place as played. Locks
    each tournament concerned, in id order. Returns the tournaments changed."""
    changed = []
    with transaction.atomic():
        ids = sorted(
            set(
                TournamentEntry.objects.filter(
                    user_id=user_id, struck_at__isnull=False
                ).values_list("tournament_id", flat=True)
            )
        )
        for tournament_id in ids:
            tournament = _locked(tournament_id)
            tournament.entries.select_for_update().filter(user_id=user_id).update(struck_at=None)
            _close_up(tournament)
            events.tournament_changed_on_commit(tournament.pk)
            changed.append(tournament_id)
    return changed


def _keep_places_played(tournament: Tournament) -> None:
    """The places as played, kept once (a later strike or a lift counts from them)."""
    tournament.entries.filter(place__isnull=False, place_played__isnull=True).update(
        place_played=F("place")
    )


def _close_up(tournament: Tournament) -> None:
    """Every counted entry's place again, from the places as played: one more than the
    counted entries placed above it, or still in (tournament locked)."""
    entries = list(tournament.entries.select_for_update().order_by("pk"))
    counted = [e for e in entries if e.struck_at is None]

    def played(entry: TournamentEntry) -> int | None:
        return entry.place_played if entry.place_played is not None else entry.place

    def still_in(entry: TournamentEntry) -> bool:
        return played(entry) is None and entry.eliminated_at is None and not entry.disqualified

    for entry in entries:
        base = played(entry)
        if entry.struck_at is not None:
            entry.place = None
            continue
        if base is None:
            continue
        entry.place = 1 + sum(
            1
            for other in counted
            if other.pk != entry.pk
            and (still_in(other) or (played(other) is not None and played(other) < base))
        )
    TournamentEntry.objects.bulk_update(entries, ["place"])
