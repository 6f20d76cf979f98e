"""The site's own small icons: symbols of one inline sprite (templates/_icons.html, at the
top of every page), no emoji. The ``icon`` template tag (pan_site.templatetags.icons) and
the fragments put together in Python (games.templatetags.pan) draw them alike."""

from __future__ import annotations

import functools

from django.utils.safestring import SafeString

from core.html import format_html


def icon(name: str, label: str = "", css: str = "") -> SafeString:
    """An icon of the sprite. With ``label`` it is an image of that name for a screen
    reader; without, it is decoration beside words that say the same (hidden from it)."""
    if not label:
        return _decoration(name, css)
    href = f"#i-{name}"
    classes = f"icon icon-{name} {css}".strip()
    return format_html(
        '<svg class="{}" role="img" aria-label="{}" focusable="false"><use href="{}"></use></svg>',
        classes,
        label,
        href,
    )


@functools.lru_cache(maxsize=256)
def _decoration(name: str, css: str) -> SafeString:
    """An icon beside words, the same whatever the language: drawn once."""
    href = f"#i-{name}"
    classes = f"icon icon-{name} {css}".strip()
    return format_html(
        '<svg class="{}" aria-hidden="true" focusable="false"><use href="{}"></use></svg>',
        classes,
        href,
    )
