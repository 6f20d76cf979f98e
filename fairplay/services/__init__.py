"""Fair play: every change of its state, one service per change (DESIGN.md, house style 2).

``accounts``: a moderator warns a player, marks his account for breaking fair play (the
refunds and the struck places follow) or closes it; the marked player appeals once and a
moderator decides the appeal. ``cases``: the check of a finished hand on the analysis
worker, the sums of signals and the moderators' cases they open, and a case's decision.

Every moderator action checks its permission and writes its one audit entry through
``moderation.services``, the floor below, in its own transaction. This package
re-exports the public names, so callers import ``fairplay.services`` only.
"""

from fairplay.services.accounts import (
    APPEAL_MAX,
    MarkResult,
    account_close,
    account_mark,
    account_warn,
    appeal_create,
    appeal_decide,
)
from fairplay.services.cases import fairplay_case_decide, fairplay_hand_check, on_hand_finished

__all__ = [
    "APPEAL_MAX",
    "MarkResult",
    "account_close",
    "account_mark",
    "account_warn",
    "appeal_create",
    "appeal_decide",
    "fairplay_case_decide",
    "fairplay_hand_check",
    "on_hand_finished",
]
