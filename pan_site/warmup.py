"""What every web process needs before it takes its first socket, done as it starts.

After a deploy every player's page opens its sockets within the same seconds. Whatever a
fresh process would otherwise do on the first of them (compile the table page's
templates, load each language's translation catalogs, import the URL configuration and
every view it names, which the first link drawn would) is done here, once, before daphne
listens, instead of under the first socket's render while a thousand others wait.
"""

from __future__ import annotations

from django.conf import settings
from django.urls import reverse
from django.utils import translation

from games import renderers


def warm_up() -> None:
    """Load the translation catalogs of every language of the site, the URL configuration
    (a table's link) and compile the table page's partials."""
    reverse("games:table", kwargs={"table_id": 1})
    for code, _name in settings.LANGUAGES:
        with translation.override(code):
            translation.gettext("Table")
    renderers.load_partials()
