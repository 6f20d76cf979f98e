"""HTML fragments sent over the websockets, rendered from the page templates' partials.

Every fragment's root element carries its id and ``hx-swap-oob``, so htmx's ws
extension swaps it into the page in place.
"""

from __future__ import annotations

from django.template.loader import render_to_string
from django.utils.html import format_html

from accounts.models import User
from games import selectors
from games.models import Table

TABLE_PARTIALS = ("status", "players", "pile", "myhand", "log", "seats")


def table_fragments(view: selectors.TableView) -> str:
    """All the parts of the table page that change with a move, for one viewer."""
    context = {"v": view, "oob": True}
    return "".join(render_to_string(f"games/table.html#{name}", context) for name in TABLE_PARTIALS)


def notice_fragment(message: str) -> str:
    return render_to_string("games/table.html#notice", {"notice": message, "oob": True})


def chat_fragment(table: Table, *, viewer: User | None) -> str:
    return render_to_string(
        "games/table.html#chat",
        {"chat": selectors.visible_chat(table), "viewer": viewer, "oob": True},
    )


def lobby_fragment() -> str:
    return render_to_string(
        "games/home.html#tables", {"tables": selectors.lobby_tables(), "oob": True}
    )


def ping_fragment(sent: float) -> str:
    return format_html('<div id="ws-ping" hx-swap-oob="true" data-ping="{}"></div>', f"{sent:.6f}")
