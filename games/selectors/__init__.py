"""Reads for the games app: what a given viewer may see, as plain data for templates.

A player sees his own hand and legal moves; everybody else (other players, spectators)
sees only the engine's public view (RULES.md §10). Nothing here changes state.

Callers use this package (``from games import selectors``; ``selectors.table_view(...)``),
which names the whole public API; the sub-modules hold it by sub-domain:
``tables`` (the lobby, the table page for one viewer, who may see a table, its chat),
``snapshot`` (one read of a table shared by all its viewers), ``records`` (the
leaderboard, a player's record, a finished hand's replay and export), ``analysis`` (a
finished hand's analysis for one of its players), ``rules_page`` (the rule sections
and their examples) and ``labels``
(cards, rules, actions and outcomes in words), which the others stand on.
"""

from games.selectors.analysis import AnalysisRow, AnalysisView, hand_analysis, move_in_words
from games.selectors.labels import (
    SUIT_ORDER,
    CardView,
    RuleLine,
    bot_label,
    card_sort_key,
    cards_in_words,
    describe_action,
    describe_outcome,
    profile_name,
    rating_delta,
    rules_summary,
    time_control_label,
)
from games.selectors.records import (
    LEADERBOARD_SIZE,
    RATING_CHART_MATCHES,
    RECENT_MATCHES,
    HandReplay,
    LeaderRow,
    PlayerRecord,
    RatingChart,
    RecentMatch,
    ReplayFrame,
    can_view_hand,
    hand_export,
    hand_replay,
    leaderboard,
    player_record,
)
from games.selectors.rules_page import ExampleView, RuleSectionView, rules_page
from games.selectors.snapshot import (
    ACTIONS_SHOWN,
    CommonView,
    PlayerView,
    TableSnapshot,
    TournamentEnd,
    current_hand,
    current_match,
    lag_key,
    presence_key,
    register_tournament_end,
    snapshot_after_change,
    table_presence,
    table_snapshot,
    tables_presence,
    tournament_end,
)
from games.selectors.tables import (
    CHAT_SHOWN,
    MoveOption,
    TableView,
    can_view_table,
    lobby_tables,
    sees_as_spectator,
    table_view,
    visible_chat,
)

__all__ = [
    "ACTIONS_SHOWN",
    "CHAT_SHOWN",
    "LEADERBOARD_SIZE",
    "RATING_CHART_MATCHES",
    "RECENT_MATCHES",
    "SUIT_ORDER",
    "AnalysisRow",
    "AnalysisView",
    "CardView",
    "CommonView",
    "ExampleView",
    "HandReplay",
    "LeaderRow",
    "MoveOption",
    "PlayerRecord",
    "PlayerView",
    "RatingChart",
    "RecentMatch",
    "ReplayFrame",
    "RuleLine",
    "RuleSectionView",
    "TableSnapshot",
    "TableView",
    "TournamentEnd",
    "bot_label",
    "can_view_hand",
    "can_view_table",
    "card_sort_key",
    "cards_in_words",
    "current_hand",
    "current_match",
    "describe_action",
    "describe_outcome",
    "hand_analysis",
    "hand_export",
    "hand_replay",
    "lag_key",
    "leaderboard",
    "lobby_tables",
    "move_in_words",
    "player_record",
    "presence_key",
    "profile_name",
    "rating_delta",
    "register_tournament_end",
    "rules_page",
    "rules_summary",
    "sees_as_spectator",
    "snapshot_after_change",
    "table_presence",
    "table_snapshot",
    "table_view",
    "tables_presence",
    "time_control_label",
    "tournament_end",
    "visible_chat",
]
