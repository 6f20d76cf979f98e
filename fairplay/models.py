"""What fair play records: a moderator's mark on an account and the player's appeal; the
judged hands, each player's and each pair's sums of signals, the decisions that weigh
most, and the moderators' cases."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class FairPlayMark(models.Model):
    """A moderator's finding that an account broke fair play (lichess's "marked"): when,
    by whom and why, and, once an appeal succeeds, when it was lifted. At most one in
    force per user; ``accounts.User.fairplay_marked_at`` mirrors it for the floors below."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("player"),
        on_delete=models.CASCADE,
        related_name="fairplay_marks",
    )
    marked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("moderator"),
        null=True,
        on_delete=models.SET_NULL,
        related_name="fairplay_marks_given",
    )
    reason = models.TextField(_("reason"))
    marked_at = models.DateTimeField(_("marked at"), default=timezone.now)
    lifted_at = models.DateTimeField(_("lifted at"), null=True, blank=True)
    lifted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="fairplay_marks_lifted",
    )

    class Meta:
        verbose_name = _("fair play mark")
        verbose_name_plural = _("fair play marks")
        ordering = ["-marked_at", "-pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["user"],
                condition=models.Q(lifted_at__isnull=True),
                name="fairplaymark_one_in_force",
            )
        ]

    def __str__(self) -> str:
        return f"{self.user} ({self.marked_at:%Y-%m-%d})"


class FairPlayAppeal(models.Model):
    """The marked player's one answer to his mark, and the moderator's decision."""

    class Status(models.TextChoices):
        OPEN = "open", _("open")
        UPHELD = "upheld", _("the mark stays")
        LIFTED = "lifted", _("the mark is lifted")

    mark = models.OneToOneField(FairPlayMark, on_delete=models.CASCADE, related_name="appeal")
    text = models.TextField(_("appeal"))
    created_at = models.DateTimeField(_("sent at"), default=timezone.now)
    status = models.CharField(
        _("status"), max_length=8, choices=Status.choices, default=Status.OPEN, db_index=True
    )
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="fairplay_appeals_decided",
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    decision = models.TextField(_("decision"), blank=True)

    class Meta:
        verbose_name = _("fair play appeal")
        verbose_name_plural = _("fair play appeals")
        ordering = ["created_at", "pk"]

    def __str__(self) -> str:
        return f"#{self.pk} {self.mark.user} ({self.get_status_display()})"


# --- fair play: the signals of rated hands, and the moderators' cases --------------------
# Written by fairplay.services.cases on the analysis worker, after each hand of a rated
# match, a tournament or an arena (fairplay.signals says what each is).


class FairPlayHand(models.Model):
    """A hand whose decisions were judged (once: the task may run again)."""

    hand = models.OneToOneField("games.Hand", on_delete=models.CASCADE, related_name="+")
    decisions = models.PositiveIntegerField(default=0)
    checked_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"hand {self.hand_id}: {self.decisions} decisions"


class PlayerSignals(models.Model):
    """One player's sums over his judged decisions (``signals.PlayerTotals``)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="fairplay_signals"
    )
    hands = models.PositiveIntegerField(default=0)
    decisions = models.PositiveIntegerField(default=0)
    nontrivial = models.PositiveIntegerField(default=0)
    matched = models.PositiveIntegerField(default=0)
    expected = models.FloatField(default=0.0)
    variance = models.FloatField(default=0.0)
    times = models.PositiveIntegerField(default=0)
    log_time_sum = models.FloatField(default=0.0)
    log_time_squares = models.FloatField(default=0.0)
    updated_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"user {self.user_id}: {self.decisions} decisions"


class PairSignals(models.Model):
    """One player's sums toward another who sat at his tables (``signals.PairTotals``),
    and how often they shared a table against what the pairing's chance gives
    (``expected_together``, counted after their first table together)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    other = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    decisions = models.PositiveIntegerField(default=0)
    help_sum = models.FloatField(default=0.0)
    help_squares = models.FloatField(default=0.0)
    knowledge_sum = models.FloatField(default=0.0)
    knowledge_squares = models.FloatField(default=0.0)
    dumps = models.PositiveIntegerField(default=0)
    dump_expected = models.FloatField(default=0.0)
    dump_variance = models.FloatField(default=0.0)
    together = models.PositiveIntegerField(default=0)
    expected_together = models.FloatField(default=0.0)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "other"], name="pairsignals_once"),
        ]

    def __str__(self) -> str:
        return f"user {self.user_id} toward {self.other_id}"


class FairPlayMoment(models.Model):
    """A decision that weighs in a signal: shown on a case with the bot's estimates."""

    class Kind(models.TextChoices):
        ASSISTANCE = "assistance", _("the strong bot's move")
        FEEDING = "feeding", _("help to the other player")
        KNOWLEDGE = "knowledge", _("explained by the other's hand")
        DUMPING = "dumping", _("a costly move, among his worst")

    hand = models.ForeignKey("games.Hand", on_delete=models.CASCADE, related_name="+")
    step = models.PositiveIntegerField()
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    other = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.CASCADE, related_name="+"
    )
    kind = models.CharField(max_length=16, choices=Kind.choices)
    weight = models.FloatField()
    details = models.JSONField(default=dict)

    class Meta:
        indexes = [models.Index(fields=["user", "kind", "-weight"], name="fairplaymoment_weight")]

    def __str__(self) -> str:
        return f"{self.kind} at hand {self.hand_id} step {self.step}"


class FairPlayCase(models.Model):
    """A player (``other`` empty) or a pair whose signals are unusual, for a moderator.

    ``chance``: the chance that honest play shows signals as strong (``reference.combined``);
    the queue ranks by it, smallest first. ``signals``: what the case page shows of each.
    At most one open case per player or pair; a decided one stays as the record.
    """

    class Status(models.TextChoices):
        OPEN = "open", _("open")
        CLEARED = "cleared", _("cleared")
        WARNED = "warned", _("warned")
        MARKED = "marked", _("marked for cheating")
        CLOSED = "closed", _("account closed")

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    other = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.OPEN, db_index=True
    )
    chance = models.FloatField()
    signals = models.JSONField(default=dict)
    opened_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)
    decided_at = models.DateTimeField(null=True, blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    reason = models.TextField(blank=True)

    class Meta:
        ordering = ["chance", "pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["user", "other"],
                condition=models.Q(status="open"),
                nulls_distinct=False,
                name="fairplaycase_one_open",
            ),
        ]

    def __str__(self) -> str:
        return f"#{self.pk} ({self.status})"

    @property
    def is_pair(self) -> bool:
        return self.other_id is not None
