"""Compile the committed .po files to .mo without GNU gettext (a fresh machine may lack it)."""

from __future__ import annotations

from typing import Any

import polib
from django.conf import settings
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Compile locale/*/LC_MESSAGES/*.po to .mo with polib."

    def handle(self, *args: Any, **options: Any) -> None:
        compiled = 0
        for locale_dir in settings.LOCALE_PATHS:
            for po_path in sorted(locale_dir.glob("*/LC_MESSAGES/*.po")):
                catalog = polib.pofile(str(po_path))
                untranslated = [e.msgid for e in catalog.untranslated_entries() if not e.obsolete]
                if untranslated:
                    self.stderr.write(f"{po_path}: {len(untranslated)} untranslated string(s)")
                catalog.save_as_mofile(str(po_path.with_suffix(".mo")))
                compiled += 1
        if options["verbosity"]:
            self.stdout.write(f"Compiled {compiled} catalogue(s).")
