"""What the quick pairing tells the seek sockets, after the commit (``core.broadcast``).

Only seek sockets join these groups, so no other socket of the user needs a handler."""

from __future__ import annotations

from core.broadcast import send_on_commit


def seeker_group(user_id: int) -> str:
    """The seek sockets of one user."""
    return f"pairing-user-{user_id}"


def waiting_group(time_control: str) -> str:
    """Every seek socket waiting for ``time_control`` (group names allow no '+')."""
    return "pairing-" + time_control.replace("+", "_")


def seated_on_commit(user_id: int, table_id: int) -> None:
    send_on_commit(seeker_group(user_id), {"type": "pairing.seated", "table": table_id})


def removed_on_commit(user_id: int) -> None:
    send_on_commit(seeker_group(user_id), {"type": "pairing.removed"})


def waiting_changed_on_commit(time_control: str, counts: dict[str, int]) -> None:
    send_on_commit(
        waiting_group(time_control),
        {"type": "pairing.waiting", "time_control": time_control, "counts": counts},
    )
