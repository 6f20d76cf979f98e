"""Follows, each user's challenge preference, and challenges to a table.

A challenge asks one named player to a table with seats, a rule profile and a time
control. It waits for an answer until ``expires_at``, which the challenger's open page
(or his API event stream) keeps pushing forward; past it the challenge counts as expired
for every reader and a periodic sweep writes so.
"""

from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.db import models
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games.engine import PROFILES
from games.models import MAX_SEATS, MIN_SEATS


class Follow(models.Model):
    """``follower`` follows ``followed`` (one row per pair; never oneself)."""

    follower = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="following_links"
    )
    followed = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="follower_links"
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name = _("follow")
        verbose_name_plural = _("follows")
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(fields=["follower", "followed"], name="follow_once"),
            models.CheckConstraint(
                condition=~models.Q(follower=models.F("followed")), name="follow_not_oneself"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.follower_id} → {self.followed_id}"


class Preferences(models.Model):
    """What a user chose about the people around him; a user without a row has the defaults."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="social_preferences",
    )
    challenges_from_followed_only = models.BooleanField(
        _("only people I follow may challenge me"), default=False
    )

    class Meta:
        verbose_name = _("social preferences")
        verbose_name_plural = _("social preferences")

    def __str__(self) -> str:
        return str(self.user_id)


class DeclineReason(models.TextChoices):
    """Why a challenge was declined, as lichess offers them; the label is what the
    challenger reads."""

    GENERIC = "generic", _("I am not accepting challenges at the moment.")
    LATER = "later", _("This is not the right time for me; please ask again later.")
    TOO_FAST = (
        "too_fast",
        _("This time control is too fast for me; please challenge me to a slower game."),
    )
    TOO_SLOW = (
        "too_slow",
        _("This time control is too slow for me; please challenge me to a faster game."),
    )
    RATED = "rated", _("Please send me a rated challenge instead.")
    CASUAL = "casual", _("Please send me a casual challenge instead.")
    RULES = "rules", _("I am not accepting challenges with these rules.")
    SEATS = "seats", _("I am not accepting challenges for this number of seats.")
    NO_BOT = "no_bot", _("I am not accepting challenges from bots.")
    ONLY_BOT = "only_bot", _("I am only accepting challenges from bots.")


def profile_choices() -> list[tuple[str, str]]:
    return [(key, profile.name_en) for key, profile in PROFILES.items()]


class Challenge(models.Model):
    class Status(models.TextChoices):
        CREATED = "created", _("waiting for an answer")
        ACCEPTED = "accepted", _("accepted")
        DECLINED = "declined", _("declined")
        CANCELED = "canceled", _("canceled")
        EXPIRED = "expired", _("expired")

    challenger = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="challenges_sent"
    )
    challenged = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="challenges_received"
    )
    seats = models.PositiveSmallIntegerField(_("seats"), default=2)
    profile = models.CharField(_("rule profile"), max_length=32, choices=profile_choices)
    base_seconds = models.PositiveIntegerField(_("minutes per hand (in seconds)"))
    increment_seconds = models.PositiveIntegerField(_("seconds added per action"))
    move_days = models.PositiveSmallIntegerField(_("days per move"), default=0)  # Table.move_days
    rated = models.BooleanField(_("rated"), default=True)
    status = models.CharField(
        _("status"), max_length=16, choices=Status.choices, default=Status.CREATED
    )
    decline_reason = models.CharField(
        _("reason for declining"), max_length=16, choices=DeclineReason.choices, blank=True
    )
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField()
    answered_at = models.DateTimeField(null=True, blank=True)
    # The table the challenge made, once accepted.
    table = models.ForeignKey(
        "games.Table", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        verbose_name = _("challenge")
        verbose_name_plural = _("challenges")
        ordering = ["-created_at"]
        indexes = [
            # The sweep's and every reader's question: which open challenges are due.
            models.Index(
                fields=["expires_at"],
                condition=models.Q(status="created"),
                name="challenge_open_by_expiry",
            ),
        ]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(seats__gte=MIN_SEATS, seats__lte=MAX_SEATS),
                name="challenge_seats_2_to_4",
            ),
            models.CheckConstraint(
                condition=~models.Q(challenger=models.F("challenged")),
                name="challenge_not_oneself",
            ),
            models.UniqueConstraint(
                fields=["challenger", "challenged"],
                condition=models.Q(status="created"),
                name="challenge_one_open_per_pair",
            ),
        ]

    def __str__(self) -> str:
        return f"#{self.pk} {self.challenger_id} → {self.challenged_id} ({self.status})"

    def get_absolute_url(self) -> str:
        return reverse("social:challenge", kwargs={"challenge_id": self.pk})

    def is_due(self, now: datetime) -> bool:
        """Still marked open, but its time has run out (the sweep has not written it yet)."""
        return self.status == self.Status.CREATED and self.expires_at <= now

    def status_at(self, now: datetime) -> str:
        """The status every reader sees at ``now``: an open challenge past its time is expired."""
        return self.Status.EXPIRED if self.is_due(now) else self.status

    def is_open(self, now: datetime) -> bool:
        return self.status_at(now) == self.Status.CREATED
