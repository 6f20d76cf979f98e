"""What moderation records: the audit log of every moderator (and automatic) action, and
the players' reports.

Their tables keep the names of the ``accounts`` app (``accounts_auditlog``,
``accounts_report``) and their indexes: the models' ``db_table`` says so.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class AuditLog(models.Model):
    """One moderator action (or an automatic one: ``actor`` is None for the system).

    Append-only: an entry is written by the service that takes the action, in the same
    transaction, and is never changed or deleted afterwards (not even by a superuser).
    """

    class Action(models.TextChoices):
        BAN = "ban", _("ban")
        UNBAN = "unban", _("unban")
        MUTE = "mute", _("mute")
        UNMUTE = "unmute", _("unmute")
        AUTO_MUTE = "auto_mute", _("automatic mute for flooding")
        LOGOUT_EVERYWHERE = "logout_everywhere", _("log out everywhere")
        REPORT_RESOLVE = "report_resolve", _("report resolved")
        REPORT_DISMISS = "report_dismiss", _("report dismissed")
        CHAT_HIDE = "chat_hide", _("chat message hidden")
        CHAT_UNHIDE = "chat_unhide", _("chat message shown again")
        HAND_ABORT = "hand_abort", _("hand aborted")
        MATCH_ANNUL = "match_annul", _("match annulled")
        TABLE_REMOVE_PLAYER = "table_remove_player", _("player removed from a table")
        TOURNAMENT_DISQUALIFY = "tournament_disqualify", _("player disqualified from a tournament")
        PAIR_ALLOW = "pair_allow", _("two linked accounts allowed to play together")
        PAIR_DISALLOW = "pair_disallow", _("two linked accounts kept apart again")
        FAIRPLAY_WARN = "fairplay_warn", _("warning about fair play")
        FAIRPLAY_MARK = "fairplay_mark", _("account marked for breaking fair play")
        FAIRPLAY_UPHOLD = "fairplay_uphold", _("appeal heard: the fair play mark stays")
        FAIRPLAY_LIFT = "fairplay_lift", _("fair play mark lifted")
        FAIRPLAY_CLEAR = "fairplay_clear", _("fair-play case cleared")

    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("moderator"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="audit_actions",
        help_text=_("Empty: the site itself (an automatic limit)."),
    )
    action = models.CharField(_("action"), max_length=32, choices=Action.choices, db_index=True)
    target_user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("user"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="audit_entries",
    )
    table = models.ForeignKey(
        "games.Table",
        verbose_name=_("table"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="audit_entries",
    )
    details = models.JSONField(_("details"), default=dict, blank=True)
    reason = models.TextField(_("reason"), blank=True)
    created_at = models.DateTimeField(_("time"), default=timezone.now, db_index=True)

    class Meta:
        db_table = "accounts_auditlog"
        verbose_name = _("audit log entry")
        verbose_name_plural = _("audit log")
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.created_at:%Y-%m-%d %H:%M} {self.get_action_display()}"

    def save(self, *args: object, **kwargs: object) -> None:
        if not self._state.adding:
            raise ValueError("audit log entries are never changed")
        super().save(*args, **kwargs)

    def delete(self, *args: object, **kwargs: object) -> tuple[int, dict[str, int]]:
        raise ValueError("audit log entries are never deleted")


class Report(models.Model):
    """A player's report about another player or one of his chat messages, and how it ended."""

    class Reason(models.TextChoices):
        INSULTS = "insults", _("insults")
        SPAM = "spam", _("spam")
        CHEATING = "cheating", _("cheating or collusion")
        STALLING = "stalling", _("stalling")
        OTHER = "other", _("other")

    class Status(models.TextChoices):
        OPEN = "open", _("open")
        RESOLVED = "resolved", _("resolved")
        DISMISSED = "dismissed", _("dismissed")

    reporter = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("reported by"),
        on_delete=models.CASCADE,
        related_name="reports_made",
    )
    reported_user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("reported player"),
        on_delete=models.CASCADE,
        related_name="reports_received",
    )
    chat_message = models.ForeignKey(
        "games.ChatMessage",
        verbose_name=_("chat message"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="reports",
    )
    table = models.ForeignKey(
        "games.Table",
        verbose_name=_("table"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="reports",
    )
    reason = models.CharField(_("reason"), max_length=16, choices=Reason.choices)
    text = models.TextField(_("details"), max_length=1000, blank=True)
    status = models.CharField(
        _("status"), max_length=16, choices=Status.choices, default=Status.OPEN, db_index=True
    )
    action_taken = models.TextField(_("action taken"), blank=True)
    handled_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("handled by"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="reports_handled",
    )
    handled_at = models.DateTimeField(_("handled at"), null=True, blank=True)
    # When the reporter was told the outcome (a message on his next page view).
    reporter_notified_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(_("reported at"), auto_now_add=True, db_index=True)

    class Meta:
        db_table = "accounts_report"
        verbose_name = _("player report")
        verbose_name_plural = _("player reports")
        ordering = ["created_at", "pk"]
        indexes = [
            models.Index(
                fields=["reporter", "reporter_notified_at"], name="accounts_re_reporte_fe4889_idx"
            )
        ]

    def __str__(self) -> str:
        return f"#{self.pk} {self.reported_user} ({self.get_reason_display()})"


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
# Written by moderation.services.fairplay_cases on the analysis worker, after each hand of
# a rated match, a tournament or an arena (moderation.fairplay.signals says what each is).


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
    dump_squares = models.FloatField(default=0.0)
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
        DUMPING = "dumping", _("a costly move in a lost hand")

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
