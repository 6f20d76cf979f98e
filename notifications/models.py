"""A user's notices (the bell, /notifications/), his choice of which come by e-mail and
by push, and the browsers he takes pushes on."""

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
    RATING_REFUNDED = "rating_refunded", _("Rating given back after a fair play mark")


# The kinds that may arrive by e-mail too: the ones that wait for the player's answer, and
# the start of a tournament or arena he joined, which only those who asked for it get.
MAILED_KINDS = (Kind.YOUR_TURN, Kind.CHALLENGED, Kind.TOURNAMENT_STARTS)
MAILED_ON_REQUEST = (Kind.TOURNAMENT_STARTS,)
# The kinds whose e-mail leaves at once: a minute's notice is no use three minutes late.
MAILED_AT_ONCE = (Kind.TOURNAMENT_STARTS,)


def mailed_by_default(kind: str) -> bool:
    """Whether notices of ``kind`` are mailed to a user who never chose."""
    return kind in MAILED_KINDS and kind not in MAILED_ON_REQUEST


# The kinds that may arrive as a push on a phone or a desktop: those worth a look now.
PUSHED_KINDS = (Kind.YOUR_TURN, Kind.CHALLENGED, Kind.TOURNAMENT_STARTS, Kind.MATCH_ENDED)


class Notification(models.Model):
    """One notice to its owner. Its text is drawn from ``kind`` and ``params`` in the
    reader's language when it is shown, so a change of language changes old notices too.
    ``key`` names what it tells of: raising the same notice twice stores it once."""

    class Mail(models.TextChoices):
        NONE = "", _("not by e-mail")
        PENDING = "pending", _("waiting to be mailed")
        SENT = "sent", _("mailed")
        SKIPPED = "skipped", _("not mailed")

    class Push(models.TextChoices):
        NONE = "", _("not by push")
        PENDING = "pending", _("waiting to be pushed")
        SENDING = "sending", _("being pushed")
        SENT = "sent", _("pushed")
        SKIPPED = "skipped", _("not pushed")

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
    push = models.CharField(max_length=8, choices=Push.choices, default=Push.NONE, blank=True)
    # When its push left (or was judged not worth sending): at most one per game in
    # ``services.PUSH_EVERY_SUBJECT``, and retries end with the push's time to live.
    pushed_at = models.DateTimeField(null=True, blank=True)

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
            models.Index(
                fields=["created_at"], condition=Q(push="pending"), name="notification_push_pending"
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


class PushChoice(models.Model):
    """Whether notices of ``kind`` reach ``user``'s browsers by push (no row: they do)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="push_choices"
    )
    kind = models.CharField(max_length=24, choices=Kind.choices)
    enabled = models.BooleanField(default=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "kind"], name="push_choice_once_per_kind"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id}: push {self.kind} {'on' if self.enabled else 'off'}"


class PushSubscription(models.Model):
    """One browser's Web Push subscription (what ``PushManager.subscribe`` gave it): the
    push service's URL for that browser and the keys its pushes are encrypted to
    (RFC 8291). Deleted with the account, on the settings page, and when the push
    service says it is gone (404, 410)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="push_subscriptions"
    )
    # One browser, one row: a browser that subscribes again for another account moves.
    endpoint = models.URLField(max_length=1000, unique=True)
    p256dh = models.CharField(max_length=100)
    auth = models.CharField(max_length=40)
    device = models.CharField(_("device"), max_length=80, blank=True)
    created_at = models.DateTimeField(_("added"))

    class Meta:
        ordering = ["created_at", "pk"]

    def __str__(self) -> str:
        return f"{self.user_id}: {self.device or self.endpoint[:40]}"

    def info(self) -> dict[str, object]:
        """The subscription as the browser's ``PushSubscription.toJSON()`` gives it."""
        return {"endpoint": self.endpoint, "keys": {"p256dh": self.p256dh, "auth": self.auth}}
