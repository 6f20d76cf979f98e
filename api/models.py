"""Personal access tokens: what a program shows to act for its owner through ``/api/``.

A token is a random secret shown once, when it is made; only its SHA-256 is stored, so
a copy of the database authorises nothing. It carries scopes (what it may do), records
when it was last used and can be revoked; a revoked token is kept for the owner's list.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class Scope(models.TextChoices):
    """What a token may do. ``bot:play`` plays a bot account's games; ``board:play`` a
    person's own games from a program of his; the challenge scopes read and send
    challenges."""

    BOT_PLAY = "bot:play", _("Play games as a bot account (bot:play)")
    BOARD_PLAY = "board:play", _("Play your own games from another program (board:play)")
    CHALLENGE_READ = "challenge:read", _("Read incoming challenges (challenge:read)")
    CHALLENGE_WRITE = "challenge:write", _("Send, accept and decline challenges (challenge:write)")


class AccessToken(models.Model):
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="access_tokens"
    )
    name = models.CharField(_("name"), max_length=60)
    scopes = models.JSONField(_("scopes"), default=list)  # Scope values, sorted
    # The SHA-256 (hex) of the whole token ("pan_" + secret); the token itself is not kept.
    token_hash = models.CharField(max_length=64, unique=True)
    # The first characters of the token, so that its owner can tell his tokens apart.
    hint = models.CharField(max_length=12)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name = _("access token")
        verbose_name_plural = _("access tokens")
        indexes = [models.Index(fields=["owner", "revoked_at"], name="accesstoken_owner_live")]

    def __str__(self) -> str:
        return f"{self.owner}: {self.name}"

    @property
    def is_revoked(self) -> bool:
        return self.revoked_at is not None

    def allows(self, scope: str) -> bool:
        return scope in self.scopes
