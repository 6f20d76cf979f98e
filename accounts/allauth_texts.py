"""allauth's texts that the site translates itself.

Django reads the site's catalogue (``LOCALE_PATHS``) before allauth's own, so a msgid
listed here and translated in ``locale/`` replaces allauth's translation; listing it
keeps ``makemessages`` from dropping it as unused.
"""

from __future__ import annotations

from django.utils.translation import gettext_noop

__all__ = ["RETRANSLATED"]

RETRANSLATED = (
    # The e-mail verification page's heading: allauth's Polish breaks a phone's line
    # after "e-"; ours joins "e-mail" with a non-breaking hyphen (U+2011).
    gettext_noop("Verify Your Email Address"),
)
