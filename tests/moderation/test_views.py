"""The report form of the table page."""

from __future__ import annotations

import pytest

from moderation.models import Report
from tests.factories import client_for, make_table, make_user, seated_users

pytestmark = pytest.mark.django_db


def test_a_report_whose_words_hold_a_nul_is_a_form_error_and_files_nothing():
    table = make_table(players=2)
    _owner, guest = seated_users(table)
    reporter = client_for(make_user())
    response = reporter.post(
        "/reports/new/",
        {"user": guest.pk, "table": table.pk, "reason": "spam", "text": "sp\x00am"},
    )
    assert response.status_code == 200
    assert "Null characters are not allowed." in response.content.decode()
    assert not Report.objects.exists()
