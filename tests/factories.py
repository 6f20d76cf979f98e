"""Model factories for tests: small functions, real rows."""

from __future__ import annotations

import itertools

from allauth.account.models import EmailAddress

from accounts.models import User

_counter = itertools.count(1)
PASSWORD = "correct-horse-battery-9"


def make_user(
    username: str | None = None,
    *,
    password: str = PASSWORD,
    verified: bool = True,
    **fields: object,
) -> User:
    """A user with a (verified) primary e-mail address who can log in with ``password``."""
    username = username or f"player{next(_counter)}"
    email = fields.pop("email", f"{username}@example.com")
    user = User.objects.create_user(username=username, email=email, password=password, **fields)
    EmailAddress.objects.create(user=user, email=email, verified=verified, primary=True)
    return user
