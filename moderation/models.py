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
