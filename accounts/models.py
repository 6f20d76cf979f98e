"""The site's user: Django's user plus display language and moderation state."""

from __future__ import annotations

from datetime import datetime

from django.contrib.auth.models import AbstractUser
from django.db import models
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class User(AbstractUser):
    """A registered player (or staff member).

    Moderation state lives here from the start: a ban or a mute is a time it lasts
    until (``None`` = not in force) and a reason shown to the user.
    """

    class Language(models.TextChoices):
        POLISH = "pl", _("Polish")
        ENGLISH = "en", _("English")

    language = models.CharField(
        _("display language"),
        max_length=8,
        choices=Language.choices,
        blank=True,
        help_text=_("Leave empty to follow the browser."),
    )
    banned_until = models.DateTimeField(_("banned until"), null=True, blank=True, db_index=True)
    ban_reason = models.CharField(_("ban reason"), max_length=500, blank=True)
    muted_until = models.DateTimeField(_("muted until"), null=True, blank=True, db_index=True)
    mute_reason = models.CharField(_("mute reason"), max_length=500, blank=True)
    sounds_on = models.BooleanField(
        _("sounds at the table"),
        default=True,
        help_text=_("Your turn, plays, pick-ups, letters and the last ten seconds."),
    )
    # A bot account (api.services.bot_account_upgrade): a program plays it through the
    # API; marked "bot" wherever its name is shown, and its matches are not rated.
    # Irreversible.
    is_bot_account = models.BooleanField(_("bot account"), default=False)
    # Fair play: when a moderator marked the account for breaking it (None: not marked).
    # Who, why and the appeal live in fairplay (``FairPlayMark``); the floors below read
    # this alone: a marked account is off the leaderboards and plays at casual tables only.
    fairplay_marked_at = models.DateTimeField(
        _("marked for breaking fair play"), null=True, blank=True, db_index=True
    )
    # Whether this user object was found in a group or holding a right of his own
    # (``accounts.permissions.holds_rights``); None until asked. Not a field.
    rights_held: bool | None = None

    class Meta:
        verbose_name = _("user")
        verbose_name_plural = _("users")
        permissions = [
            ("ban_user", _("Can ban and unban users")),
            ("mute_user", _("Can mute and unmute users")),
        ]

    def __str__(self) -> str:
        return self.username

    def get_absolute_url(self) -> str:
        return reverse("profile", kwargs={"username": self.username})

    def is_banned(self, now: datetime | None = None) -> bool:
        """True while a ban is in force at ``now`` (default: the current time)."""
        return self.banned_until is not None and self.banned_until > (now or timezone.now())

    @property
    def is_fairplay_marked(self) -> bool:
        """Whether a moderator marked the account for breaking fair play."""
        return self.fairplay_marked_at is not None

    def is_muted(self, now: datetime | None = None) -> bool:
        """True while a chat mute is in force at ``now`` (default: the current time)."""
        return self.muted_until is not None and self.muted_until > (now or timezone.now())


# --- fair play: where accounts are seen from -------------------------------------------------
# What ``accounts.selectors.accounts_linked`` reads to keep two accounts of one person from
# one rated table, tournament table or arena game. Never shown to anyone, moderators
# included (they see "shares a device with X"), never in the API, kept 30 days
# (``accounts.services.sightings_forget``), deleted with the account.


class Sighting(models.Model):
    """A signed-in user seen on a device (the random id in his browser's signed
    ``pan_device`` cookie) from an address, kept only as its hash under the salt of the
    day (``ip_hash``) and of the day before (``ip_hash_before``: an address seen on both
    sides of midnight still matches). One row per user, device and address a day;
    ``seen_at`` is the last time."""

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="+")
    device = models.CharField(max_length=32)
    # Empty: no address worth comparing (a loopback one says nothing of the client).
    ip_hash = models.CharField(max_length=64, blank=True)
    ip_hash_before = models.CharField(max_length=64, blank=True)
    seen_at = models.DateTimeField(db_index=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "device", "ip_hash"], name="sighting_once")
        ]
        indexes = [
            models.Index(fields=["device"], name="sighting_device"),
            models.Index(fields=["ip_hash"], name="sighting_ip_hash"),
        ]

    def __str__(self) -> str:
        # What the admin's deletion page lists: never the device or the hash.
        return f"{self.user_id} {self.seen_at:%Y-%m-%d %H:%M}"


class AddressSalt(models.Model):
    """The secret an address is hashed with on one day (UTC). Deleted once no address is
    hashed with it any more (after the next day): a stored hash can then no longer be
    turned back into its address by trying every address."""

    day = models.DateField(unique=True)
    salt = models.CharField(max_length=64)

    def __str__(self) -> str:
        return f"{self.day}"


class AllowedPair(models.Model):
    """Two accounts a moderator allowed to play together although they share a device or
    a connection (a family at one computer). ``user`` has the lower id."""

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="+")
    other = models.ForeignKey(User, on_delete=models.CASCADE, related_name="+")
    allowed_by = models.ForeignKey(
        User, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "other"], name="allowedpair_once"),
            models.CheckConstraint(
                condition=models.Q(user__lt=models.F("other")), name="allowedpair_ordered"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} & {self.other_id}"
