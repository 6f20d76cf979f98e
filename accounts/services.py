"""Changes to a user's own account, and the record of where accounts are seen from
(fair play: ``accounts.devices``)."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from accounts import devices
from accounts.models import AddressSalt, Sighting, User

# How long a sighting is kept: a device shared within it links two accounts.
SIGHTINGS_KEPT = timedelta(days=30)


def user_set_language(*, user: User, language: str) -> None:
    """Save the display language ('' follows the browser). Raises ValueError for an unknown one."""
    if language and language not in User.Language.values:
        raise ValueError(f"unknown language {language!r}")
    with transaction.atomic():
        User.objects.filter(pk=user.pk).update(language=language)
    user.language = language


def user_set_sounds(*, user: User, on: bool) -> None:
    """Save whether the table plays its sounds for this user."""
    with transaction.atomic():
        User.objects.filter(pk=user.pk).update(sounds_on=on)
    user.sounds_on = on


def sighting_record(
    *, user_id: int, device: str, address: str | None, now: datetime | None = None
) -> None:
    """``user_id`` is seen on ``device`` from ``address`` (which is hashed, never kept):
    one row per user, device and hashed address, its ``seen_at`` moved on."""
    now = now or timezone.now()
    ip_hash, ip_hash_before = devices.address_hashes(address, now)
    Sighting.objects.bulk_create(
        [
            Sighting(
                user_id=user_id,
                device=device,
                ip_hash=ip_hash,
                ip_hash_before=ip_hash_before,
                seen_at=now,
            )
        ],
        update_conflicts=True,
        unique_fields=["user", "device", "ip_hash"],
        update_fields=["seen_at", "ip_hash_before"],
    )


def sightings_forget(*, now: datetime | None = None) -> int:
    """Delete the sightings older than ``SIGHTINGS_KEPT`` and the salts no address is
    hashed with any more (all but today's and yesterday's). Returns how many sightings."""
    now = now or timezone.now()
    with transaction.atomic():
        deleted, _kinds = Sighting.objects.filter(seen_at__lt=now - SIGHTINGS_KEPT).delete()
        oldest_kept = devices.utc_day(now) - timedelta(days=devices.SaltBook.KEEP_DAYS - 1)
        AddressSalt.objects.filter(day__lt=oldest_kept).delete()
    return deleted
