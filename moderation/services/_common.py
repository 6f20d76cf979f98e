"""What every moderation service shares: the audit log, the permission checks (who may
act, and on whom), the cleaning of a reason, and the user row lock.

The lowest module of ``moderation.services``: ``users``, ``reports`` and ``tables``
import it, it imports none of them. ``fairplay``, the floor above, uses the same checks
for its moderators' actions.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied
from django.utils.translation import gettext as _

from accounts.models import User
from accounts.permissions import may
from core.errors import Refused
from games.models import Table
from moderation.models import AuditLog

REASON_MAX = 500


# --- the audit log and the rules of who may act ---------------------------------------------


def audit_record(
    *,
    actor: User | None,
    action: str,
    target_user: User | None = None,
    table: Table | None = None,
    reason: str = "",
    details: dict[str, Any] | None = None,
) -> AuditLog:
    """Write one audit entry (``actor`` None: the site itself). Call it inside the
    transaction of the action it records, so that both commit or neither does.

    The floors below (games, tournaments) never call it: what they want recorded reaches
    moderation through a signal it connects in its ``ready()``, as the chat flood does.
    """
    return AuditLog.objects.create(
        actor=actor,
        action=action,
        target_user=target_user,
        table=table,
        reason=reason,
        details=details or {},
    )


def require_permission(by: User, permission: str) -> None:
    """Raise ``PermissionDenied`` unless ``by`` holds ``permission``."""
    if not may(by, permission):
        raise PermissionDenied(_("You do not have permission to do that."))


def require_may_act_on(by: User, target: User) -> None:
    """Refuse an action on one's own account; only a superuser acts on a staff account."""
    if target.pk == by.pk:
        raise Refused(_("You cannot do that to your own account."))
    if (target.is_staff or target.is_superuser) and not by.is_superuser:
        raise PermissionDenied(_("Only a superuser can act on a staff account."))


def clean_reason(reason: str, *, required: bool) -> str:
    """The reason on one line; refused when missing (if ``required``) or too long."""
    reason = " ".join((reason or "").split())
    if required and not reason:
        raise Refused(_("Give a reason."))
    if len(reason) > REASON_MAX:
        raise Refused(_("A reason has at most %(n)d characters.") % {"n": REASON_MAX})
    return reason


def locked_user(user_id: int) -> User:
    """The user row, locked for the transaction (which the caller holds)."""
    try:
        return User.objects.select_for_update().get(pk=user_id)
    except User.DoesNotExist:
        raise Refused(_("This user does not exist.")) from None
