"""Every change of state at a table: one function per action (DESIGN.md, "the way of a move").

Each service runs in one transaction and locks the row it changes
(``select_for_update``); a refusal raises :class:`Refused` with a message a player can
read, and nothing is half-applied. Broadcasts and Celery tasks leave only after the
commit (``transaction.on_commit``), so nobody sees a state that was rolled back.

Lock order, to stay free of deadlocks: table, then match, then hand.

Callers use this package (``from games import services``;
``services.execute(services.Play(...))``),
which names the whole public API; the sub-modules hold it by sub-domain:
``tables`` (tables, seats, bots, time controls), ``moves`` (every action on a hand:
a player's or a bot's move, the clock's timeout, a stop; the one move pipeline),
``play`` (matches, dealing, and the moderators' stop and annulment), ``chat``,
``analysis`` (a finished hand's analysis for one of its players), and ``tournament``
(the helpers tournaments.services calls); ``_common`` holds what several of them share.
"""

from core.errors import Refused
from games.services._common import TABLE_NAME_MAX
from games.services.analysis import ANALYSIS_STALE, analysis_request, analysis_run
from games.services.chat import CHAT_MAX_LENGTH, CHAT_RATE, chat_post
from games.services.moves import (
    NEXT_HAND_DELAY,
    HandAction,
    NewHand,
    PickUp,
    Play,
    SetClocks,
    Stop,
    Timeout,
    execute,
    execute_async,
    move_action,
)
from games.services.play import (
    hand_stop_without_letter,
    match_next_hand,
    match_rematch,
    match_set_annulled,
    match_start,
)
from games.services.tables import (
    DAY_PRESETS,
    MAX_BASE_SECONDS,
    MAX_INCREMENT_SECONDS,
    MIN_BASE_SECONDS,
    PRESET_KEYS,
    TABLE_WINDOW,
    TABLES_PER_WINDOW,
    TIME_PRESETS,
    preset_fields,
    table_add_bot,
    table_create,
    table_leave,
    table_remove_bot,
    table_seat_bot_account,
    table_sit,
    table_visit,
    validate_move_days,
    validate_time_control,
)
from games.services.tournament import (
    SeatedPlayer,
    tournament_berserk,
    tournament_clocks_start,
    tournament_clocks_stop,
    tournament_hand_deal,
    tournament_hand_stop,
    tournament_match_close,
    tournament_match_start,
    tournament_seat_vacate,
    tournament_table_close,
    tournament_table_create,
    tournament_table_seat,
)

__all__ = [
    "ANALYSIS_STALE",
    "CHAT_MAX_LENGTH",
    "CHAT_RATE",
    "DAY_PRESETS",
    "MAX_BASE_SECONDS",
    "MAX_INCREMENT_SECONDS",
    "MIN_BASE_SECONDS",
    "NEXT_HAND_DELAY",
    "PRESET_KEYS",
    "TABLES_PER_WINDOW",
    "TABLE_NAME_MAX",
    "TABLE_WINDOW",
    "TIME_PRESETS",
    "HandAction",
    "NewHand",
    "PickUp",
    "Play",
    "Refused",
    "SeatedPlayer",
    "SetClocks",
    "Stop",
    "Timeout",
    "analysis_request",
    "analysis_run",
    "chat_post",
    "execute",
    "execute_async",
    "hand_stop_without_letter",
    "match_next_hand",
    "match_rematch",
    "match_set_annulled",
    "match_start",
    "move_action",
    "preset_fields",
    "table_add_bot",
    "table_create",
    "table_leave",
    "table_remove_bot",
    "table_seat_bot_account",
    "table_sit",
    "table_visit",
    "tournament_berserk",
    "tournament_clocks_start",
    "tournament_clocks_stop",
    "tournament_hand_deal",
    "tournament_hand_stop",
    "tournament_match_close",
    "tournament_match_start",
    "tournament_seat_vacate",
    "tournament_table_close",
    "tournament_table_create",
    "tournament_table_seat",
    "validate_move_days",
    "validate_time_control",
]
