"""What every web process needs before it takes its first socket, done as it starts.

After a deploy every player's page opens its sockets within the same seconds. Whatever a
fresh process would otherwise do on the first of them (compile the table page's
templates, load each language's translation catalogs) is done here, once, before daphne
listens, instead of under the first socket's render while a thousand others wait.
"""

from __future__ import annotations

from django.conf import settings
from django.utils import translation

from games import renderers


def warm_up() -> None:
    """Load the translation catalogs of every language of the site and compile the table
    page's partials."""
    for code, _name in settings.LANGUAGES:
        with translation.override(code):
            translation.gettext("Table")
    renderers.load_partials()
