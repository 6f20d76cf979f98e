"""The signed one-click unsubscribe link of a notice e-mail (RFC 8058).

A token names its user and, for each kind of notice it stops, the version of that
choice it was made for (``MailChoice.version``): nothing else can be read from it or put
in it without the site's secret key, and once the choice has changed (by the link itself
or on the settings page) the token is spent.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.core import signing

SALT = "notifications.unsubscribe"


@dataclass(frozen=True)
class Unsubscribe:
    user_id: int
    versions: dict[str, int]  # kind -> the version of the user's choice it was made for


def make_token(user_id: int, versions: dict[str, int]) -> str:
    return signing.dumps({"u": user_id, "k": versions}, salt=SALT, compress=True)


def read_token(token: str) -> Unsubscribe | None:
    """What ``token`` stops, or None for a token the site did not sign."""
    try:
        data = signing.loads(token, salt=SALT)
        return Unsubscribe(
            user_id=int(data["u"]), versions={str(k): int(v) for k, v in data["k"].items()}
        )
    except (signing.BadSignature, KeyError, TypeError, ValueError, AttributeError):
        return None
