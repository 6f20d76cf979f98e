"""The statements every move runs, their SQL built once per process from the models.

The ORM compiles a query anew each time it runs one: for a move's read of the match's
players and its write of the hand that is about a millisecond of Python each, as much as
the rest of the move's database work. These helpers build the same SQL once from the
models' own metadata (tables, columns, field conversions), so a renamed column or an
added field needs no change here.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from django.db import DatabaseError, connection, models

from games.models import MatchPlayer


@functools.cache
def _players_sql() -> str:
    sql, _params = MatchPlayer.objects.filter(match_id=0).order_by("seat").query.sql_with_params()
    return sql


def match_players(match_id: int) -> list[MatchPlayer]:
    """The players of a match by seat, as ``match.players.order_by("seat")`` reads them."""
    return list(MatchPlayer.objects.raw(_players_sql(), [match_id]))


@functools.cache
def _update_sql(model: type[models.Model], names: tuple[str, ...]) -> str:
    quote = connection.ops.quote_name
    meta = model._meta
    columns = ", ".join(f"{quote(meta.get_field(name).column)} = %s" for name in names)
    return f"UPDATE {quote(meta.db_table)} SET {columns} WHERE {quote(meta.pk.column)} = %s"


def save_fields(instance: models.Model, names: Sequence[str]) -> None:
    """Write ``names`` of a saved row, as ``instance.save(update_fields=names)`` does (no
    signals: the models written this way have no receivers)."""
    meta = instance._meta
    fields = [meta.get_field(name) for name in names]
    params = [
        field.get_db_prep_save(getattr(instance, field.attname), connection) for field in fields
    ]
    with connection.cursor() as cursor:
        cursor.execute(_update_sql(type(instance), tuple(names)), [*params, instance.pk])
        if cursor.rowcount != 1:
            raise DatabaseError("Save with update_fields did not affect any rows.")
