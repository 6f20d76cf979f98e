"""A lesson's move as the lesson page posts it: the move, the step it answers and the
learner's earlier moves (the lesson keeps no state on the server)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext as _

from core.errors import Refused
from games.engine import Move, move_to_json
from games.refusals import parsed_move
from games.teaching import TeachingDataError
from learn.lessons import Lesson

PATH_MAX = 200  # characters: a handful of moves, one per step


def path_text(moves: list[Move]) -> str:
    """The learner's moves as the page carries them: '9H QH,QS 3' (a play's cards joined
    by commas, a pick-up's size)."""
    return " ".join(
        str(data["count"]) if data["type"] == "pickup" else ",".join(data["cards"])
        for data in map(move_to_json, moves)
    )


def path_moves(text: str) -> list[Move]:
    """The moves of ``path_text``; raises Refused for something no move."""
    return [_move(token) for token in text.split()]


def _move(token: str) -> Move:
    if token.isdigit():
        return parsed_move({"type": "pickup", "count": int(token)})
    return parsed_move({"type": "play", "cards": token.split(",")})


class LessonMoveForm(forms.Form):
    """The move posted at a step: ``action`` play (``cards``, comma-joined) or pickup
    (``count``), ``version`` the step it answers, ``path`` the moves before it."""

    action = forms.ChoiceField(choices=[("play", "play"), ("pickup", "pickup")])
    cards = forms.CharField(required=False, max_length=40)
    count = forms.IntegerField(required=False, min_value=1, max_value=60)
    version = forms.IntegerField(min_value=0)
    path = forms.CharField(required=False, max_length=PATH_MAX, strip=False)

    def __init__(self, *args: Any, lesson: Lesson, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lesson = lesson

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if self.errors:
            raise forms.ValidationError(_("This is not a move of the lesson."))
        try:
            earlier = path_moves(data.get("path") or "")
            move = (
                _move(str(data.get("count") or 0))
                if data["action"] == "pickup"
                else _move(data.get("cards") or "")
            )
        except Refused as refusal:
            raise forms.ValidationError(refusal.message) from refusal
        if data["version"] != len(earlier) or len(earlier) >= len(self.lesson.steps):
            raise forms.ValidationError(
                _("This step of the lesson is not the one shown: start the lesson again.")
            )
        try:
            data["state"] = self.lesson.replay(earlier)
        except TeachingDataError as exc:
            raise forms.ValidationError(
                _("This step of the lesson is not the one shown: start the lesson again.")
            ) from exc
        data["earlier"], data["move"] = earlier, move
        return data
