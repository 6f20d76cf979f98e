"""The one refusal every service raises: the user reads its message, nothing changed."""

from __future__ import annotations


class Refused(Exception):
    """A refusal a user can read; the state did not change.

    ``resync``: the client's view is behind (the table page asks for a fresh render).
    ``code``: a stable name of the reason for programs (the API's error codes); empty
    where the raiser gives none.
    """

    def __init__(self, message: str, *, resync: bool = False, code: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.resync = resync
        self.code = code
