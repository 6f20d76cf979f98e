"""A seek: one player waiting to be seated by the quick pairing. It lives as long as the
socket that made it (``channel_name``) and is deleted when the player is seated."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from games.services import PRESET_KEYS

SIZES = (2, 3, 4)  # a seek's size; None (no value) is "any size"
# The wait (seconds before the seeker may fill the seats with bots) the panel offers
# first; the choices are settings.PAIRING_WAITS.
DEFAULT_WAIT = 30
SEEN_EVERY = 20  # seconds between a seek socket's signs of life


class Seek(models.Model):
    """One open seek; a user has at most one (the row is his while he waits)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="seek"
    )
    time_control = models.CharField(
        _("time control"), max_length=8, choices=[(key, key) for key in PRESET_KEYS]
    )
    size = models.PositiveSmallIntegerField(
        _("seats"), null=True, blank=True, choices=[(n, str(n)) for n in SIZES]
    )
    rating = models.FloatField(_("rating when seeking"))  # the skill estimate mu
    bots_after = models.PositiveSmallIntegerField(default=DEFAULT_WAIT)
    channel_name = models.CharField(max_length=200)
    created_at = models.DateTimeField()
    # Its socket says it still lives (a daphne that dies closes no socket cleanly).
    seen_at = models.DateTimeField()

    class Meta:
        verbose_name = _("seek")
        verbose_name_plural = _("seeks")
        indexes = [models.Index(fields=["time_control", "created_at"])]

    def __str__(self) -> str:
        return f"{self.user_id} {self.time_control} {self.size or 'any'}"
