"""The statements every move runs, their SQL built once per process from the models.

The ORM compiles a query anew each time it runs one: for a move's read of the match's
players and its write of the hand that compiling costs as much as the rest of the
move's database work. These helpers build the same SQL once from the
models' own metadata (tables, columns, field conversions), so a renamed column or an
added field needs no change here.

Each statement runs on Django's connection (the services, in a thread) or on an async
psycopg connection (``live.adb``: a player's move in the event loop), with the same SQL,
the same parameters and the same conversions of what is read (by ``live.adb.wrapper``,
which never connects). The move pipeline's one write routine (``games.services.moves``)
asks for its compare-and-set (``CompareAndSet``) and is driven on either cursor by
``run`` or ``run_async``: that is the only difference between its sync and async ways.
"""

from __future__ import annotations

import functools
from collections.abc import Generator, Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from typing import Any, TypeVar

import orjson
from django.db import connection, models
from django.db.models import F
from psycopg import AsyncConnection
from psycopg.types.json import Jsonb

from games.models import Action, Hand, MatchPlayer
from live.adb import CONNECTIONS, available, wrapper

M = TypeVar("M", bound=models.Model)


@functools.cache
def _players_sql() -> str:
    sql, _params = MatchPlayer.objects.filter(match_id=0).order_by("seat").query.sql_with_params()
    return sql


def match_players(match_id: int) -> list[MatchPlayer]:
    """The players of a match by seat, as ``match.players.order_by("seat")`` reads them."""
    return list(MatchPlayer.objects.raw(_players_sql(), [match_id]))


@functools.cache
def _hand_sql() -> str:
    query = Hand.objects.filter(pk=0).annotate(table_id=F("match__table_id"))
    sql, _params = query.query.sql_with_params()
    return sql


@functools.cache
def _hand_players_sql() -> str:
    query = MatchPlayer.objects.filter(match__hands=0).order_by("seat")
    sql, _params = query.query.sql_with_params()
    return sql


def hand_for_move(hand_id: int) -> tuple[Hand | None, list[MatchPlayer]]:
    """The hand, with its table's id as ``table_id``, and its match's players by seat;
    (None, []) if there is no such hand. Nothing is locked: the move is written only if
    the row is still at the version it was judged on (``move_if_unchanged``). (Outside
    PostgreSQL, the embedded SQLite mode, through the ORM, which converts its values.)"""
    if not available():
        hand = Hand.objects.annotate(table_id=F("match__table_id")).filter(pk=hand_id).first()
        return (hand, match_players(hand.match_id)) if hand is not None else (None, [])
    with connection.cursor() as cursor:
        cursor.execute(_hand_sql(), [hand_id])
        row = cursor.fetchone()
        names = [column[0] for column in cursor.description]
    if row is None:
        return None, []
    hand = _instance(Hand, names[:-1], row[:-1])
    hand.table_id = row[-1]
    return hand, match_players(hand.match_id)


async def hand_for_move_async(
    conn: AsyncConnection, hand_id: int
) -> tuple[Hand | None, list[MatchPlayer]]:
    """``hand_for_move`` on an async connection: both statements in one round trip (the
    connection is in pipeline mode, ``live.adb``)."""
    async with conn.cursor() as hand_cursor, conn.cursor() as players_cursor:
        await hand_cursor.execute(_hand_sql(), [hand_id])
        await players_cursor.execute(_hand_players_sql(), [hand_id])
        row = await hand_cursor.fetchone()
        names = [column.name for column in hand_cursor.description]
        player_rows = await players_cursor.fetchall()
        player_names = [column.name for column in players_cursor.description]
    if row is None:
        return None, []
    hand = _instance(Hand, names[:-1], row[:-1])
    hand.table_id = row[-1]
    return hand, [_instance(MatchPlayer, player_names, r) for r in player_rows]


def _instance(model: type[M], names: list[str], row: Sequence[Any]) -> M:
    """A model instance from a row of its columns, converted as the ORM converts them."""
    attnames, converters = _reading(model, tuple(names))
    values = [
        value if value is None or convert is None else convert(value, None, wrapper())
        for convert, value in zip(converters, row, strict=True)
    ]
    return model.from_db(wrapper().alias, attnames, values)


@functools.cache
def _reading(model: type[models.Model], names: tuple[str, ...]) -> tuple[list[str], list[Any]]:
    """For columns ``names`` of ``model``: the fields' attribute names, and each field's
    ``from_db_value`` (None where the value is taken as read)."""
    by_column = {field.column: field for field in model._meta.concrete_fields}
    fields = [by_column[name] for name in names]
    return [f.attname for f in fields], [getattr(f, "from_db_value", None) for f in fields]


@functools.cache
def _update_sql(model: type[models.Model], names: tuple[str, ...]) -> str:
    quote = wrapper().ops.quote_name
    meta = model._meta
    columns = ", ".join(f"{quote(meta.get_field(name).column)} = %s" for name in names)
    return f"UPDATE {quote(meta.db_table)} SET {columns} WHERE {quote(meta.pk.column)} = %s"


def _prepared(field: models.Field, value: Any) -> Any:
    """``value`` of ``field`` as a statement's parameter, as ``get_db_prep_save`` makes
    it; JSON encoded by orjson (a hand's state is tens of kilobytes late in a hand, and
    orjson encodes it many times faster than the standard library)."""
    if (
        value is not None
        and isinstance(field, models.JSONField)
        and field.encoder is None
        and available()  # PostgreSQL (psycopg's Jsonb)
    ):
        return Jsonb(value, dumps=_json_dumps)
    return field.get_db_prep_save(value, wrapper())


def _json_dumps(value: Any) -> bytes:
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS)


def _update(instance: models.Model, names: Sequence[str]) -> tuple[str, list[Any]]:
    meta = instance._meta
    fields = [meta.get_field(name) for name in names]
    params = [_prepared(field, getattr(instance, field.attname)) for field in fields]
    return _update_sql(type(instance), tuple(names)), [*params, instance.pk]


@functools.cache
def _insert_sql(model: type[models.Model], rows: int) -> str:
    quote = wrapper().ops.quote_name
    fields = _insert_fields(model)
    one = "(" + ", ".join(["%s"] * len(fields)) + ")"
    columns = ", ".join(quote(field.column) for field in fields)
    return f"INSERT INTO {quote(model._meta.db_table)} ({columns}) VALUES " + ", ".join(
        [one] * rows
    )


@functools.cache
def _insert_fields(model: type[models.Model]) -> list[models.Field]:
    return [field for field in model._meta.concrete_fields if not field.primary_key]


def _insert(instances: Sequence[models.Model]) -> tuple[str, list[Any]]:
    model = type(instances[0])
    params = []
    for instance in instances:
        for field in _insert_fields(model):
            params.append(_prepared(field, field.pre_save(instance, True)))
    return _insert_sql(model, len(instances)), params


def players_key(players: Sequence[MatchPlayer]) -> str:
    """Who sits where in a match, as ``_players_key_sql`` reads it from the database:
    ``seat:user:bot level`` by seat (a missing user left out)."""
    return ",".join(
        ":".join(str(v) for v in (p.seat, p.user_id, p.bot_level) if v is not None)
        for p in sorted(players, key=lambda p: p.seat)
    )


@functools.cache
def _players_key_sql() -> str:
    quote, meta = wrapper().ops.quote_name, MatchPlayer._meta
    seat, user, bot, match = (
        quote(meta.get_field(name).column) for name in ("seat", "user", "bot_level", "match")
    )
    table = quote(meta.db_table)
    if available():  # PostgreSQL: concat_ws leaves out a missing user
        return (
            f"(SELECT string_agg(concat_ws(':', {seat}, {user}, {bot}), ',' ORDER BY {seat}) "
            f"FROM {table} WHERE {match} = %s)"
        )
    return (  # SQLite (the embedded mode): || gives NULL for a missing user
        f"(SELECT group_concat(k, ',') FROM (SELECT CAST({seat} AS TEXT) "
        f"|| COALESCE(':' || {user}, '') || ':' || {bot} AS k "
        f"FROM {table} WHERE {match} = %s ORDER BY {seat}))"
    )


@functools.cache
def _update_if_unchanged_sql(names: tuple[str, ...]) -> str:
    version = wrapper().ops.quote_name(Hand._meta.get_field("version").column)
    return f"{_update_sql(Hand, names)} AND {version} = %s AND {_players_key_sql()} = %s"


@functools.cache
def _move_sql(names: tuple[str, ...], actions: int) -> str:
    into, values = _insert_sql(Action, actions).split(" VALUES ", 1)
    return (
        f"WITH moved AS ({_update_if_unchanged_sql(names)} RETURNING 1) {into} "
        f"SELECT * FROM (VALUES {values}) AS new WHERE EXISTS (SELECT 1 FROM moved)"
    )


Statement = tuple[str, list[Any], int]


def _statements(
    hand: Hand,
    names: Sequence[str],
    actions: Sequence[Action],
    version: int,
    players: Sequence[MatchPlayer],
) -> list[Statement]:
    """The compare-and-set's statements, each with its parameters and the rows it changes
    when the hand's row was unchanged (only the first can miss: then nothing is
    written). On PostgreSQL an action with log entries is one statement (one round trip:
    the update, and the log's rows only if the update found the row); one with none (a
    pause) is the update alone; on SQLite (the embedded mode, whose WITH holds no
    UPDATE) the update, then the log's rows."""
    names = tuple(names)
    _update_statement, values = _update(hand, names)
    condition = [version, players[0].match_id, players_key(players)]
    if available() and actions:
        _insert_statement, inserted = _insert(actions)
        return [(_move_sql(names, len(actions)), [*values, *condition, *inserted], len(actions))]
    update = (_update_if_unchanged_sql(names), [*values, *condition], 1)
    return [update, (*_insert(actions), len(actions))] if actions else [update]


def move_if_unchanged(
    hand: Hand,
    names: Sequence[str],
    actions: Sequence[Action],
    *,
    version: int,
    players: Sequence[MatchPlayer],
) -> bool:
    """``names`` of ``hand`` and the log's new ``actions`` written on Django's connection,
    inside the caller's transaction, only if the hand's row is still at ``version`` and
    its match's players still sit as in ``players``. Whether it was written; if not,
    nothing was.

    Every change to a hand moves its version on, so a row at ``version`` is the row the
    action was judged on; a seat handed to a bot (who left) does not, hence the players.
    An action made at the same moment waits on the row's lock, then finds the version
    gone."""
    with connection.cursor() as cursor:
        for sql, params, changed in _statements(hand, names, actions, version, players):
            cursor.execute(sql, params)
            if cursor.rowcount != changed:
                return False
    return True


async def move_if_unchanged_async(
    conn: AsyncConnection,
    hand: Hand,
    names: Sequence[str],
    actions: Sequence[Action],
    *,
    version: int,
    players: Sequence[MatchPlayer],
) -> bool:
    """``move_if_unchanged`` on an async connection in autocommit: a move's one statement
    (one round trip) is its own transaction."""
    statements = _statements(hand, names, actions, version, players)
    async with conn.transaction() if len(statements) > 1 else nullcontext(), conn.cursor() as cur:
        for sql, params, changed in statements:
            await cur.execute(sql, params)
            if cur.rowcount != changed:
                return False
    return True


@dataclass(frozen=True)
class CompareAndSet:
    """What a write routine asks its cursor for: ``move_if_unchanged``'s arguments."""

    hand: Hand
    names: Sequence[str]
    actions: Sequence[Action]
    version: int
    players: Sequence[MatchPlayer]


@dataclass(frozen=True)
class Written:
    """What a write routine is told of its statement: whether the row was written, and
    whether that is committed already (the event loop's statement is its own
    transaction) or will be with the caller's transaction."""

    ok: bool
    committed: bool


T = TypeVar("T")
WriteRoutine = Generator[CompareAndSet, Written, T]


def run(write: WriteRoutine[T]) -> T:
    """Drive a write routine (``games.services.moves``) on Django's connection, inside the
    caller's transaction: its compare-and-set runs here, and the routine goes on, told
    whether the row was written; what it publishes leaves when the caller commits."""
    cas = next(write)
    ok = move_if_unchanged(
        cas.hand, cas.names, cas.actions, version=cas.version, players=cas.players
    )
    return _finished(write, Written(ok, committed=False))


async def run_async(write: WriteRoutine[T]) -> T:
    """``run`` on an async connection of the event loop (``live.adb``), in autocommit: a
    move's one statement is its own transaction, so what the routine publishes leaves
    at once, and the mover waits on no thread."""
    cas = next(write)
    async with CONNECTIONS.connection() as conn:
        ok = await move_if_unchanged_async(
            conn, cas.hand, cas.names, cas.actions, version=cas.version, players=cas.players
        )
    return _finished(write, Written(ok, committed=True))


def _finished(write: WriteRoutine[T], written: Written) -> T:
    try:
        write.send(written)
    except StopIteration as done:
        return done.value
    raise RuntimeError("a write routine makes one compare-and-set")
