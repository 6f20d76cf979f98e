"""What the services of several sub-domains share: a table's row lock, the checks of who
may change its seating and when (fair play's among them), and the news that the seating
changed."""

from __future__ import annotations

from collections.abc import Iterable

from django.utils.translation import gettext as _

from accounts.models import User
from accounts.selectors import accounts_linked
from core.errors import Refused
from games import events
from games.models import Table

TABLE_NAME_MAX = 60


def _locked_table(table_id: int) -> Table:
    try:
        return Table.objects.select_for_update().get(pk=table_id)
    except Table.DoesNotExist:
        raise Refused(_("This table does not exist.")) from None


def _require_seating_open(table: Table) -> None:
    if table.status == Table.Status.PLAYING:
        raise Refused(_("A match is being played at this table; wait until it ends."))
    if table.status == Table.Status.CLOSED:
        raise Refused(_("This table is closed."))


def _require_owner(table: Table, user: User) -> None:
    if table.owner_id != user.pk:
        raise Refused(_("Only the table's owner can do that."))


def _linked_people(table: Table, user_ids: Iterable[int]) -> set[frozenset[int]]:
    """The linked pairs (``accounts.selectors.accounts_linked``: one device, or one
    connection lately) among the people ``user_ids`` seated at ``table``, where fair play
    keeps them apart: a rated table seated by its players (a tournament keeps its own
    linked players apart). Bot accounts are never rated and do not count."""
    user_ids = set(user_ids)
    if not table.rated or table.managed or len(user_ids) < 2:
        return set()
    people = User.objects.filter(pk__in=user_ids, is_bot_account=False)
    return accounts_linked(people.values_list("pk", flat=True))


def _refuse_linked_seat(table: Table, user: User, seated_ids: Iterable[int]) -> None:
    """Refuse ``user`` a seat at ``table`` beside an account linked to his. The message
    names nobody: that would tell him whose account shares his device or connection."""
    if any(user.pk in pair for pair in _linked_people(table, [user.pk, *seated_ids])):
        raise Refused(
            _(
                "You cannot sit at this rated table: your account shares a device or a "
                "connection with a player here. A moderator can allow it."
            ),
            code="linked_accounts",
        )


def _seating_changed(table: Table) -> None:
    table.save(update_fields=["updated_at"])
    events.table_changed_on_commit(table.pk, version=None)
    events.lobby_changed_on_commit()
