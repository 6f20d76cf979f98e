"""The site's own small icons: symbols of one inline sprite (templates/_icons.html, at the
top of every page), no emoji. The fragments sent over the websockets use them as well."""

from __future__ import annotations

from django import template
from django.utils.html import format_html
from django.utils.safestring import SafeString

register = template.Library()


@register.simple_tag
def icon(name: str, label: str = "", css: str = "") -> SafeString:
    """An icon of the sprite. With ``label`` it is an image of that name for a screen
    reader; without, it is decoration beside words that say the same (hidden from it)."""
    href = f"#i-{name}"
    classes = f"icon icon-{name} {css}".strip()
    if label:
        return format_html(
            '<svg class="{}" role="img" aria-label="{}" focusable="false">'
            '<use href="{}"></use></svg>',
            classes,
            label,
            href,
        )
    return format_html(
        '<svg class="{}" aria-hidden="true" focusable="false"><use href="{}"></use></svg>',
        classes,
        href,
    )
