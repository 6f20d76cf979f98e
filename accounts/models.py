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

    def is_muted(self, now: datetime | None = None) -> bool:
        """True while a chat mute is in force at ``now`` (default: the current time)."""
        return self.muted_until is not None and self.muted_until > (now or timezone.now())
