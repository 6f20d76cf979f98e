"""What the services of several sub-domains share: a table's row lock, the checks of who
may change its seating and when, and the news that the seating changed."""

from __future__ import annotations

from django.utils.translation import gettext as _

from accounts.models import User
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


def _seating_changed(table: Table) -> None:
    table.save(update_fields=["updated_at"])
    events.table_changed_on_commit(table.pk, version=None)
    events.lobby_changed_on_commit()
