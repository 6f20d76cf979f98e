"""Every change of state of a tournament: one function per action (DESIGN.md).

Each service runs in one transaction and says which locks it takes; a refusal raises
``core.errors.Refused`` and changes nothing. Broadcasts, tasks and mail leave after
the commit (``tournaments.events``). Everything a tournament knows lives in the
database (entries, their letters and tables, the games rows), and every step is
derived from it again, so each step is safe to repeat and a restarted worker loses
nothing.

The rules of the tournament's format (how players sit, who goes out, what the tables do
between hands, when it is over) are not here: the services call the format through
``tournaments.formats.TournamentFormat``, and the format works on the rows through
``tournaments.play``.

Lock order, free of deadlocks with the games services: **hand, match, tournament**,
then the rows of tables between hands (table, seats, match).

* A hand that ends at a tournament table holds its hand and match rows and then takes
  the tournament's row (``tournament_hand_finished``, inside the hand's transaction).
* ``tournament_advance`` (balancing and dealing) takes the tournament's row first and
  then touches only tables between hands, whose rows no move is holding on the way to
  the tournament's lock.
* Services that stop hands in play (pause, resume, cancel, disqualify) lock those hands
  and their matches before the tournament, as a finishing hand does, and try again if a
  hand was dealt in between.

Where things live: ``lifecycle`` (create, edit, register, announce, start, finished
hands, the steps between hands), ``staff`` (pause, resume, cancel, disqualify),
``schedules`` (recurring tournaments and the reminder before a start), ``arena`` (a
player's join, pause, withdrawal and Berserk in an arena), ``fairplay`` (the results of
an account marked for breaking fair play) and, below
both, ``_common`` (the settings and their check, permissions, the tournament's lock). This
package re-exports them, so callers import ``tournaments.services`` only.
"""

from tournaments.formats import AdvanceReport
from tournaments.services._common import (
    CAUSE_STAFF,
    CAUSE_TOO_FEW,
    ELIMINATED_FOLLOW_DELAY,
    MAX_SECONDS_BETWEEN_HANDS,
    NAME_MAX,
    PERM_CREATE,
    PERM_MANAGE,
    TournamentSettings,
    tournament_settings_check,
)
from tournaments.services.arena import (
    JOIN_CLOSES_AT,
    arena_berserk,
    arena_join,
    arena_join_closes,
    arena_pause,
    arena_withdraw,
)
from tournaments.services.fairplay import tournament_results_restore, tournament_results_strike
from tournaments.services.lifecycle import (
    ANNOUNCEMENT_MAX,
    on_hand_finished,
    tournament_advance,
    tournament_announce,
    tournament_create,
    tournament_hand_finished,
    tournament_register,
    tournament_register_bot,
    tournament_start,
    tournament_unregister,
    tournament_update,
)
from tournaments.services.schedules import (
    REMINDER_BEFORE,
    schedule_check,
    schedule_create_due,
    schedule_save,
    schedule_settings,
    tournament_remind,
    tournament_remind_due,
)
from tournaments.services.staff import (
    tournament_cancel,
    tournament_disqualify,
    tournament_pause,
    tournament_resume,
)

__all__ = [
    "ANNOUNCEMENT_MAX",
    "CAUSE_STAFF",
    "CAUSE_TOO_FEW",
    "ELIMINATED_FOLLOW_DELAY",
    "JOIN_CLOSES_AT",
    "MAX_SECONDS_BETWEEN_HANDS",
    "NAME_MAX",
    "PERM_CREATE",
    "PERM_MANAGE",
    "REMINDER_BEFORE",
    "AdvanceReport",
    "TournamentSettings",
    "arena_berserk",
    "arena_join",
    "arena_join_closes",
    "arena_pause",
    "arena_withdraw",
    "on_hand_finished",
    "schedule_check",
    "schedule_create_due",
    "schedule_save",
    "schedule_settings",
    "tournament_advance",
    "tournament_announce",
    "tournament_cancel",
    "tournament_create",
    "tournament_disqualify",
    "tournament_hand_finished",
    "tournament_pause",
    "tournament_register",
    "tournament_register_bot",
    "tournament_remind",
    "tournament_remind_due",
    "tournament_results_restore",
    "tournament_results_strike",
    "tournament_resume",
    "tournament_settings_check",
    "tournament_start",
    "tournament_unregister",
    "tournament_update",
]
