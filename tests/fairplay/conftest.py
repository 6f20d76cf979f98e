"""Fixtures of the fair play tests: moderation's (English messages, a moderator)."""

from tests.moderation.conftest import english, mod

__all__ = ["english", "mod"]
