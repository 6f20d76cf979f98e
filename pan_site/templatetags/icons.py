"""The site's own small icons as a template tag: ``{% icon "name" %}`` (core.icons)."""

from __future__ import annotations

from django import template

from core.icons import icon

register = template.Library()
register.simple_tag(icon)
