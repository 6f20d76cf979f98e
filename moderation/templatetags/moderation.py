"""Template helpers of moderation: who sees the moderator tools, and the mute notice."""

from __future__ import annotations

from django import template

from accounts.models import User
from accounts.notices import mute_notice
from accounts.permissions import PERM_HIDE_CHAT, PERM_INTERVENE, may

register = template.Library()


@register.filter
def may_hide_chat(user: User | None) -> bool:
    return may(user, PERM_HIDE_CHAT)


@register.filter
def may_intervene(user: User | None) -> bool:
    return may(user, PERM_INTERVENE)


@register.simple_tag
def mute_notice_for(user: User | None) -> str:
    """Why and until when ``user`` is muted; empty when he is not."""
    if user is None or not user.is_authenticated or not user.is_muted():
        return ""
    return mute_notice(user)
