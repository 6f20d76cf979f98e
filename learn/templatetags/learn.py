"""The lesson page's hand: the table's own hand section, its moves posted to the lesson."""

from __future__ import annotations

import re

from django import template
from django.middleware.csrf import get_token
from django.utils.safestring import SafeString

from core.html import format_html
from games.templatetags.pan import my_hand_section
from learn.selectors import LessonTable

register = template.Library()

# The table's hand sends its moves over the table's socket (``ws-send``); a lesson has
# no socket, so the same forms post to the lesson page (htmx boosts them, and without
# script they post as they are), carrying the learner's earlier moves.
_SOCKET_FORM = re.compile(r"<form ws-send([^>]*)>")


@register.simple_tag(takes_context=True)
def lesson_hand(context: template.Context, view: LessonTable, path: str) -> SafeString:
    """The learner's hand and moves, each form posting to this lesson with ``path`` and
    the step it answers (a table's forms take the hand's version from the page)."""
    request = context["request"]
    hidden = format_html(
        '<input type="hidden" name="csrfmiddlewaretoken" value="{}">'
        '<input type="hidden" name="path" value="{}">'
        '<input type="hidden" name="version" value="{}">',
        get_token(request),
        path,
        view.version,
    )
    html = my_hand_section(view)
    start = format_html('<form method="post" action="{}"', request.path)
    return SafeString(_SOCKET_FORM.sub(lambda m: f"{start}{m.group(1)}>{hidden}", html))
