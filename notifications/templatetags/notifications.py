from __future__ import annotations

from django import template
from django.template.loader import render_to_string
from django.utils.safestring import SafeString, mark_safe

from accounts.models import User
from notifications import selectors

register = template.Library()


@register.simple_tag(takes_context=True)
def notification_bell(context: template.Context) -> SafeString:
    """The header's bell of the signed-in user (nothing for a visitor)."""
    user = context.get("user")
    if not isinstance(user, User) or not user.is_authenticated:
        return mark_safe("")
    request = context.get("request")
    # Rendered (and escaped) by the template engine.
    return mark_safe(
        render_to_string("notifications/bell.html", {"bell": selectors.bell(user)}, request=request)
    )
