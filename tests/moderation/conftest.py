"""Fixtures of the moderation tests: English messages and a moderator."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.utils import translation

from accounts.models import User
from tests.factories import make_moderator


@pytest.fixture
def english() -> Iterator[None]:
    """Messages made outside a request (refusals, notices) in English."""
    with translation.override("en"):
        yield


@pytest.fixture
def mod() -> User:
    return make_moderator("mod", language="en")
