"""``{% social_actions player %}``: the follow and challenge buttons on a player's page."""

from __future__ import annotations

from typing import Any

from django import template

from accounts.models import User
from social import selectors
from social.forms import DECLINE_CHOICES
from social.models import Challenge

register = template.Library()


@register.inclusion_tag("social/profile_actions.html", takes_context=True)
def social_actions(context: template.Context, player: User) -> dict[str, Any]:
    """Nothing for a visitor or on one's own page; else follow (or unfollow), and challenge
    or why one may not (``selectors.profile_actions``)."""
    request = context.get("request")
    viewer = getattr(request, "user", None)
    return {
        "actions": selectors.profile_actions(viewer=viewer, player=player),
        "player": player,
        "csrf_token": context.get("csrf_token"),
        "request": request,
    }


@register.filter
def challenge_summary(challenge: Challenge) -> str:
    """Seats, rules, time control and rating of a challenge, in the active language."""
    return selectors.challenge_summary(challenge)


@register.simple_tag
def decline_choices() -> list[tuple[str, str]]:
    """The reasons a challenged player may give, short, for the decline menu."""
    return [(value, str(label)) for value, label in DECLINE_CHOICES]
