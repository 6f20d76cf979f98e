"""A user's notices (the bell, /notifications/) and his choice of which come by e-mail."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _


class Kind(models.TextChoices):
    YOUR_TURN = "your_turn", _("Your turn in a correspondence game")
    CHALLENGED = "challenged", _("A challenge to you")
    CHALLENGE_ANSWERED = "challenge_answered", _("The answer to your challenge")
    TOURNAMENT_STARTS = "tournament_starts", _("A tournament you registered for starts")
    TOURNAMENT_MOVED = "tournament_moved", _("You were moved to another tournament table")
    FOLLOWED_PLAYS = "followed_plays", _("A player you follow starts a tournament game")
    MODERATION = "moderation", _("A moderator's notice")
    MATCH_ENDED = "match_ended", _("A match ended while you were away")


# The kinds that may arrive by e-mail too: the ones that wait for the player's answer.
MAILED_KINDS = (Kind.YOUR_TURN, Kind.CHALLENGED)


class Notification(models.Model):
    """One notice to its owner. Its text is drawn from ``kind`` and ``params`` in the
    reader's language when it is shown, so a change of language changes old notices too.
    ``key`` names what it tells of: raising the same notice twice stores it once."""

    class Mail(models.TextChoices):
        NONE = "", _("not by e-mail")
        PENDING = "pending", _("waiting to be mailed")
        SENT = "sent", _("mailed")
        SKIPPED = "skipped", _("not mailed")

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notifications"
    )
    kind = models.CharField(_("kind"), max_length=24, choices=Kind.choices)
    params = models.JSONField(default=dict, blank=True)
    link = models.CharField(max_length=200, blank=True)
    key = models.CharField(max_length=120)
    # The game (or challenge) it is about: at most one e-mail per subject a day.
    subject = models.CharField(max_length=60, blank=True)
    created_at = models.DateTimeField(_("created"))
    read_at = models.DateTimeField(_("read"), null=True, blank=True)
    mail = models.CharField(max_length=8, choices=Mail.choices, default=Mail.NONE, blank=True)
    mailed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        constraints = [
            models.UniqueConstraint(fields=["owner", "key"], name="notification_once_per_key"),
        ]
        indexes = [
            models.Index(
                fields=["owner", "created_at"],
                condition=Q(read_at__isnull=True),
                name="notification_unread",
            ),
            models.Index(
                fields=["owner"], condition=Q(mail="pending"), name="notification_mail_pending"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.owner_id}: {self.kind} {self.key}"


class MailChoice(models.Model):
    """Whether notices of ``kind`` reach ``user`` by e-mail (no row: they do).

    ``version`` counts the changes: an unsubscribe link carries the version it was made
    for, so a link replayed after any change (or a second time) changes nothing."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="mail_choices"
    )
    kind = models.CharField(max_length=24, choices=Kind.choices)
    enabled = models.BooleanField(default=True)
    version = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "kind"], name="mail_choice_once_per_kind"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id}: {self.kind} {'on' if self.enabled else 'off'}"
