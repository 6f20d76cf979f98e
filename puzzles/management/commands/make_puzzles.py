"""Make puzzles from N bot hands: play, analyse the loser's decisions (``--every-seat``:
every seat's, an analysis each), keep what the finder keeps after its re-check
(puzzles.finder). Saved in the database, or with ``--write`` written as the data file
the demo seed loads (puzzles/data/puzzles.json)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from puzzles.making import findings_in_bot_hand, play_bot_hand
from puzzles.services import puzzle_fields, puzzle_save


class Command(BaseCommand):
    help = "Play N bot hands and keep the puzzles found in them."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("hands", type=int, help="how many bot hands to play")
        parser.add_argument("--seed", default="make-puzzles", help="the hands' seed")
        parser.add_argument(
            "--write", type=Path, default=None, help="write the puzzles to this JSON file"
        )
        parser.add_argument(
            "--every-seat",
            action="store_true",
            help="analyse every seat's decisions, not the loser's alone",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        records: dict[str, dict[str, Any]] = {}
        saved = candidates = 0
        for number in range(options["hands"]):
            hand = play_bot_hand(number, seed=options["seed"])
            findings = findings_in_bot_hand(
                hand, seed=f"{options['seed']}:{number}", every_seat=options["every_seat"]
            )
            if not findings:
                self.stdout.write(f"hand {number}: a tie, nothing to analyse")
                continue
            for seat, finding in findings:
                where = f"hand {number}, seat {seat}"
                candidates += finding.candidate is not None
                kept = finding.kept
                if kept is None:
                    why = "no clear answer" if finding.candidate is None else "re-check"
                    self.stdout.write(f"{where}: no puzzle ({why})")
                    continue
                fields = puzzle_fields(kept)
                self.stdout.write(
                    f"{where}: a puzzle, spread {kept.spread:.2f},"
                    f" {len(kept.solutions)} solution move(s), themes {', '.join(kept.themes)}"
                )
                if options["write"] is not None:
                    records.setdefault(fields["content_hash"], fields)
                elif puzzle_save(candidate=kept) is not None:
                    saved += 1
        made = len(records) if options["write"] is not None else saved
        if options["write"] is not None:
            options["write"].write_text(json.dumps(list(records.values()), indent=None) + "\n")
        self.stdout.write(
            f"{made} puzzles made from {options['hands']} hands ({candidates} candidates)"
            + (f", written to {options['write']}" if options["write"] is not None else "")
        )
