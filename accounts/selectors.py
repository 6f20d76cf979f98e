"""Reads about users, as plain data for pages; and which accounts are linked (fair play)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from itertools import combinations
from typing import TypeVar

from django.db.models import Q
from django.http import Http404
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import AllowedPair, Sighting, User
from core import text

# Two accounts seen from one address within this long of now are linked (a device shared
# within the sightings kept, ``accounts.services.SIGHTINGS_KEPT``, links them too).
ADDRESS_WINDOW = timedelta(hours=24)

K = TypeVar("K", bound=Hashable)


def user_with_mute(user: User) -> User:
    """``user`` with his mute (until when, and why) as the database holds it now."""
    user.refresh_from_db(fields=["muted_until", "mute_reason"])
    return user


def active_user_named(username: str) -> User | None:
    """The active user named ``username``, in any case; None when there is none (a name
    holding what the database cannot store, ``core.text``, names nobody)."""
    if not text.is_storable(username):
        return None
    return User.objects.filter(username__iexact=username, is_active=True).first()


def user_public_profile(*, username: str) -> User:
    """The active user shown on /u/<username>/ (404 for unknown or deactivated names)."""
    user = active_user_named(username)
    if user is None:
        raise Http404(_("There is no such player."))
    return user


# --- fair play: linked accounts ------------------------------------------------------------


def accounts_linked(user_ids: Iterable[int], *, now: datetime | None = None) -> set[frozenset[int]]:
    """The pairs among ``user_ids`` that may not sit at one rated table, tournament table
    or arena game: seen on one device (in the sightings kept: 30 days), or from one
    address within ``ADDRESS_WINDOW`` of ``now``, and not allowed by a moderator. Two
    queries; nothing of why is returned, so nothing of it can be shown."""
    ids = sorted(set(user_ids))
    if len(ids) < 2:
        return set()
    now = now or timezone.now()
    sharing: dict[tuple[str, str], set[int]] = defaultdict(set)
    recent = now - ADDRESS_WINDOW
    for user_id, device, ip_hash, ip_hash_before, seen_at in Sighting.objects.filter(
        user_id__in=ids
    ).values_list("user_id", "device", "ip_hash", "ip_hash_before", "seen_at"):
        sharing["device", device].add(user_id)
        if seen_at >= recent:
            # One address hashed under yesterday's salt matches it under today's.
            for key in (ip_hash, ip_hash_before):
                if key:
                    sharing["address", key].add(user_id)
    pairs = {
        frozenset(pair)
        for users in sharing.values()
        if len(users) > 1
        for pair in combinations(sorted(users), 2)
    }
    if pairs:
        allowed = AllowedPair.objects.filter(user_id__in=ids, other_id__in=ids)
        pairs -= {frozenset(pair) for pair in allowed.values_list("user_id", "other_id")}
    return pairs


def linked_among(
    owners: Mapping[K, int | None], *, now: datetime | None = None
) -> set[frozenset[K]]:
    """``accounts_linked`` for what users hold (a seek, a tournament entry): the pairs of
    keys of ``owners`` (a key's user id; None for a bot, never linked) whose users are
    linked."""
    keys_of: dict[int, list[K]] = defaultdict(list)
    for key, user_id in owners.items():
        if user_id is not None:
            keys_of[user_id].append(key)
    return {
        frozenset((mine, theirs))
        for one, other in map(tuple, accounts_linked(keys_of, now=now))
        for mine in keys_of[one]
        for theirs in keys_of[other]
    }


@dataclass(frozen=True)
class SharedAccount:
    """Another account seen on one of a user's devices or from one of his connections
    (in the sightings kept), as a moderator sees it: never the device or the address."""

    user: User
    device: bool
    connection: bool
    allowed: AllowedPair | None


def accounts_sharing(user: User) -> list[SharedAccount]:
    """The other accounts sharing a device or a connection with ``user`` in the sightings
    kept (30 days), by name, with the moderator's allowance where there is one."""
    mine = list(
        Sighting.objects.filter(user=user).values_list("device", "ip_hash", "ip_hash_before")
    )
    if not mine:
        return []
    devices = {device for device, _hash, _before in mine}
    hashes = {ip_hash for _device, ip_hash, _before in mine if ip_hash}
    keys = hashes | {before for _device, _hash, before in mine if before}
    found: dict[int, set[str]] = defaultdict(set)
    others = Sighting.objects.exclude(user=user).filter(
        Q(device__in=devices) | Q(ip_hash__in=keys) | Q(ip_hash_before__in=hashes)
    )
    for other_id, device, ip_hash, ip_hash_before in others.values_list(
        "user_id", "device", "ip_hash", "ip_hash_before"
    ):
        if device in devices:
            found[other_id].add("device")
        if (ip_hash and ip_hash in keys) or (ip_hash_before and ip_hash_before in hashes):
            found[other_id].add("connection")
    if not found:
        return []
    allowed = {
        pair.user_id if pair.other_id == user.pk else pair.other_id: pair
        for pair in AllowedPair.objects.filter(
            Q(user=user, other_id__in=found) | Q(other=user, user_id__in=found)
        ).select_related("allowed_by")
    }
    return [
        SharedAccount(
            user=other,
            device="device" in found[other.pk],
            connection="connection" in found[other.pk],
            allowed=allowed.get(other.pk),
        )
        for other in User.objects.filter(pk__in=found).order_by("username")
    ]
