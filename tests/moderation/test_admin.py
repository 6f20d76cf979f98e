"""The admin for moderators, through the Django test client.

A moderator can do each moderator action and none of the superuser-only ones; a player
gets no admin access at all; the audit log cannot be changed or deleted by anybody.
"""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.contrib.auth.models import Group
from django.test import Client
from django.utils import timezone

from accounts.models import User
from games import services
from games.models import ChatMessage, Hand, Match, Table
from moderation import services as moderation
from moderation.models import AuditLog, Report
from tests.factories import client_for, make_moderator, make_table, make_user, seated_users
from tests.times import local_noon

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("english")]

USERS = "/admin/accounts/user/"


def run_action(client: Client, url: str, action: str, objects: list, **form: object):
    """Post an admin action as the changelist does; then its form (if any) with ``form``."""
    selected = [str(o.pk) for o in objects]
    first = client.post(url, {"action": action, ACTION_CHECKBOX_NAME: selected, "index": 0})
    if not form:
        return first
    assert first.status_code == 200, first
    assert 'data-testid="moderation-action-form"' in first.content.decode()
    return client.post(
        url, {"action": action, ACTION_CHECKBOX_NAME: selected, "apply": "1", **form}
    )


@pytest.fixture
def superuser_client() -> Client:
    return client_for(make_user(is_staff=True, is_superuser=True, language="en"))


def last_entry() -> AuditLog:
    return AuditLog.objects.order_by("-pk").first()


# --- who gets in ---------------------------------------------------------------------------------


def test_a_player_gets_no_admin_access_at_all():
    client = client_for(make_user())
    for url in (
        "/admin/",
        USERS,
        "/admin/moderation/report/",
        "/admin/moderation/auditlog/",
        "/admin/games/chatmessage/",
        "/admin/auth/group/",
    ):
        response = client.get(url)
        assert response.status_code == 302 and "/admin/login/" in response.url, url


def test_a_moderator_sees_the_moderation_pages_and_no_superuser_ones(mod):
    client = client_for(mod)
    for url in (
        "/admin/",
        USERS,
        "/admin/moderation/report/",
        "/admin/moderation/auditlog/",
        "/admin/games/chatmessage/",
        "/admin/games/table/",
        "/admin/games/match/",
    ):
        assert client.get(url).status_code == 200, url
    for url in ("/admin/auth/group/", "/admin/auth/group/add/", f"{USERS}add/"):
        assert client.get(url).status_code == 403, url


def test_a_moderator_cannot_change_or_delete_anybody_nor_give_rights(mod):
    player = make_user()
    staff = make_moderator()
    client = client_for(mod)
    page = client.get(f"{USERS}{player.pk}/change/")
    assert page.status_code == 200  # to read only: no form fields to post
    assert 'name="is_staff"' not in page.content.decode()
    assert 'name="groups"' not in page.content.decode()
    response = client.post(
        f"{USERS}{player.pk}/change/",
        {"username": player.username, "is_staff": "on", "is_superuser": "on"},
    )
    assert response.status_code == 403
    assert client.get(f"{USERS}{player.pk}/delete/").status_code == 403
    assert client.get(f"{USERS}{player.pk}/password/").status_code == 403
    assert client.get(f"{USERS}{staff.pk}/change/").status_code == 200  # read only
    player.refresh_from_db()
    assert not player.is_staff and not player.is_superuser
    assert not Group.objects.filter(user=player).exists()


def test_even_a_moderator_with_change_rights_cannot_touch_staff_or_give_rights(mod):
    from django.contrib.auth.models import Permission

    mod.user_permissions.add(Permission.objects.get(codename="change_user"))
    player, staff = make_user(), make_moderator()
    client = client_for(mod)
    page = client.get(f"{USERS}{player.pk}/change/").content.decode()
    assert 'name="username"' in page  # he may edit a player's ordinary fields
    for field in ("is_staff", "is_superuser", "groups", "user_permissions", "banned_until"):
        assert f'name="{field}"' not in page, field
    assert 'name="username"' not in client.get(f"{USERS}{staff.pk}/change/").content.decode()
    assert client.post(f"{USERS}{staff.pk}/change/", {"username": "x"}).status_code == 403


def test_a_moderator_cannot_ban_or_mute_a_staff_account_from_the_admin(mod):
    staff = make_moderator()
    client = client_for(mod)
    response = run_action(
        client, USERS, "ban_users", [staff], duration="1d", reason="revenge", until=""
    )
    assert response.status_code == 302
    messages = [str(m) for m in client.get(USERS).context["messages"]]
    assert any("Only a superuser can act on a staff account." in m for m in messages)
    staff.refresh_from_db()
    assert not staff.is_banned()
    assert not AuditLog.objects.exists()


# --- users: search, filters, actions -------------------------------------------------------


def test_user_search_and_filters(mod):
    banned = make_user("banned-one", banned_until=timezone.now() + timedelta(days=1))
    muted = make_user("muted-one", muted_until=timezone.now() + timedelta(hours=1))
    old = make_user("old-timer")
    User.objects.filter(pk=old.pk).update(date_joined=timezone.now() - timedelta(days=90))
    client = client_for(mod)

    def listed(query: str) -> set[str]:
        response = client.get(f"{USERS}?{query}")
        assert response.status_code == 200, query
        return {u.username for u in response.context["cl"].result_list}

    assert listed("banned=yes") == {"banned-one"}
    assert listed("muted=yes") == {"muted-one"}
    assert "old-timer" not in listed("joined=7d") and "banned-one" in listed("joined=7d")
    assert listed("is_staff__exact=1") == {"mod"}
    assert listed("q=muted") == {"muted-one"}
    assert banned.pk and muted.pk


def test_a_moderator_bans_with_a_reason_and_a_duration_from_the_admin(mod):
    player = make_user()
    client = client_for(mod)
    response = run_action(
        client, USERS, "ban_users", [player], duration="7d", reason="cheating", until=""
    )
    assert response.status_code == 302
    player.refresh_from_db()
    assert player.is_banned() and player.ban_reason == "cheating"
    assert player.banned_until > timezone.now() + timedelta(days=6)
    entry = last_entry()
    assert (entry.action, entry.actor, entry.target_user) == ("ban", mod, player)


def test_the_ban_form_asks_again_without_a_reason(mod):
    player = make_user()
    response = run_action(client_for(mod), USERS, "ban_users", [player], duration="1d", reason="")
    assert response.status_code == 200 and "This field is required." in response.content.decode()
    player.refresh_from_db()
    assert not player.is_banned()


def test_a_ban_until_a_given_time_and_for_good(mod):
    first, second = make_user(), make_user()
    client = client_for(mod)
    until = local_noon(2)
    run_action(
        client,
        USERS,
        "ban_users",
        [first],
        duration="until",
        until=until.strftime("%Y-%m-%dT%H:%M"),
        reason="x",
    )
    run_action(client, USERS, "ban_users", [second], duration="forever", reason="y")
    first.refresh_from_db()
    second.refresh_from_db()
    assert first.banned_until == until
    assert second.banned_until.year == 9000


def test_unban_mute_unmute_and_log_out_everywhere_from_the_admin(mod):
    player = make_user(banned_until=timezone.now() + timedelta(days=1), ban_reason="x")
    client = client_for(mod)

    run_action(client, USERS, "unban_users", [player])
    player.refresh_from_db()
    assert not player.is_banned() and last_entry().action == "unban"

    run_action(client, USERS, "mute_users", [player], duration="10m", reason="spam", until="")
    player.refresh_from_db()
    assert player.is_muted() and player.mute_reason == "spam"
    assert last_entry().action == "mute"

    run_action(client, USERS, "unmute_users", [player])
    player.refresh_from_db()
    assert not player.is_muted() and last_entry().action == "unmute"

    client_for(player)  # a session to end
    run_action(client, USERS, "logout_everywhere", [player], text="shared account")
    entry = last_entry()
    assert (entry.action, entry.reason, entry.details["sessions_ended"]) == (
        "logout_everywhere",
        "shared account",
        1,
    )


def test_the_user_page_shows_his_matches_reports_chat_and_actions(mod):
    table = make_table(players=2)
    owner, other = seated_users(table)
    services.match_start(table_id=table.pk, by=owner)
    services.chat_post(table_id=table.pk, user=owner, text="gg everyone")
    moderation.report_create(by=other, reason="stalling", reported_user_id=owner.pk)
    moderation.report_create(by=owner, reason="spam", reported_user_id=other.pk)

    page = client_for(mod).get(f"{USERS}{owner.pk}/change/").content.decode()

    assert 'data-testid="moderation-summary"' in page
    assert table.name in page and "gg everyone" in page
    assert "stalling" in page and "spam" in page
    for action in ("ban_users", "mute_users", "logout_everywhere"):
        assert f'data-testid="user-action-{action}"' in page


# --- reports -----------------------------------------------------------------------------------


def test_the_report_queue_opens_on_open_reports_and_resolves_with_the_action_taken(mod):
    reporter = make_user()
    open_report = moderation.report_create(
        by=reporter, reason="insults", reported_user_id=make_user().pk
    )
    done = moderation.report_create(by=reporter, reason="spam", reported_user_id=make_user().pk)
    moderation.report_dismiss(by=make_user(is_superuser=True, is_staff=True), report_id=done.pk)
    client = client_for(mod)

    queue = client.get("/admin/moderation/report/")
    assert [r.pk for r in queue.context["cl"].result_list] == [open_report.pk]

    run_action(
        client,
        "/admin/moderation/report/",
        "resolve_reports",
        [open_report],
        text="muted for a day",
    )
    open_report.refresh_from_db()
    assert open_report.status == Report.Status.RESOLVED
    assert open_report.action_taken == "muted for a day" and open_report.handled_by == mod
    assert last_entry().action == "report_resolve"
    # The report's own page is for reading; it changes only through the actions.
    assert client.post(f"/admin/moderation/report/{open_report.pk}/change/", {}).status_code == 403
    assert client.get("/admin/moderation/report/add/").status_code == 403
    assert client.post(f"/admin/moderation/report/{open_report.pk}/delete/").status_code == 403


def test_dismiss_a_report_from_the_queue(mod):
    report = moderation.report_create(
        by=make_user(), reason="other", reported_user_id=make_user().pk
    )
    run_action(client_for(mod), "/admin/moderation/report/", "dismiss_reports", [report], text="")
    report.refresh_from_db()
    assert report.status == Report.Status.DISMISSED
    assert last_entry().action == "report_dismiss"


# --- the audit log -------------------------------------------------------------------------------


@pytest.mark.parametrize("superuser", [False, True])
def test_nobody_edits_or_deletes_the_audit_log(mod, superuser):
    entry = moderation.audit_record(actor=mod, action=AuditLog.Action.BAN, reason="r")
    user = make_user(is_staff=True, is_superuser=True) if superuser else mod
    client = client_for(user)
    base = "/admin/moderation/auditlog/"
    assert client.get(base).status_code == 200
    assert client.get(f"{base}{entry.pk}/change/").status_code == 200  # to read
    assert client.post(f"{base}{entry.pk}/change/", {"reason": "x"}).status_code == 403
    assert client.post(f"{base}{entry.pk}/delete/", {"post": "yes"}).status_code == 403
    assert client.get(f"{base}add/").status_code == 403
    response = client.post(
        base, {"action": "delete_selected", ACTION_CHECKBOX_NAME: [entry.pk], "post": "yes"}
    )
    assert response.status_code in (200, 302)
    entry.refresh_from_db()
    assert entry.reason == "r"


# --- games -------------------------------------------------------------------------------------


def test_a_moderator_hides_chat_from_the_admin(mod):
    table = make_table(players=1)
    message = services.chat_post(table_id=table.pk, user=table.owner, text="rude words")
    client = client_for(mod)
    run_action(client, "/admin/games/chatmessage/", "hide_messages", [message], text="insults")
    message.refresh_from_db()
    assert message.hidden_by == mod and last_entry().action == "chat_hide"
    assert last_entry().reason == "insults"
    run_action(client, "/admin/games/chatmessage/", "unhide_messages", [message])
    message.refresh_from_db()
    assert message.hidden_at is None and last_entry().action == "chat_unhide"
    assert client.post(f"/admin/games/chatmessage/{message.pk}/delete/").status_code == 403


def test_hiding_chat_from_the_admin_asks_for_a_reason_and_refuses_none(mod):
    table = make_table(players=1)
    message = services.chat_post(table_id=table.pk, user=table.owner, text="rude words")
    client = client_for(mod)
    first = run_action(client, "/admin/games/chatmessage/", "hide_messages", [message])
    assert first.status_code == 200  # the form, before anything is hidden
    assert 'name="text"' in first.content.decode()
    response = run_action(
        client, "/admin/games/chatmessage/", "hide_messages", [message], text="   "
    )
    assert response.status_code == 200 and "This field is required." in response.content.decode()
    message.refresh_from_db()
    assert message.hidden_at is None
    assert not AuditLog.objects.filter(action="chat_hide").exists()


def test_the_admin_index_names_each_section_once(superuser_client):
    page = superuser_client.get("/admin/").content.decode()
    sections = re.findall(r'<caption>\s*<a [^>]*class="section"[^>]*>([^<]+)</a>', page)
    assert {"Users", "Accounts", "Moderation", "Quick pairing"} <= set(sections)
    assert len(sections) == len(set(sections)), sections


def test_a_moderator_intervenes_at_tables_from_the_admin(mod):
    table = make_table(players=3)
    owner, second, third = seated_users(table)
    client = client_for(mod)

    run_action(client, "/admin/games/table/", "remove_player", [table], player=third.pk, text="afk")
    assert seated_users(table) == [owner, second]
    assert last_entry().action == "table_remove_player"

    services.match_start(table_id=table.pk, by=owner)
    run_action(client, "/admin/games/table/", "abort_hand", [table], text="lag")
    assert Hand.objects.get(match__table=table).outcome["reason"] == "aborted"
    assert last_entry().action == "hand_abort"

    run_action(client, "/admin/games/table/", "annul_match", [table], text="collusion")
    assert Match.objects.get(table=table).status == Match.Status.ANNULLED
    assert Table.objects.get(pk=table.pk).status == Table.Status.FINISHED
    assert last_entry().action == "match_annul"


def test_a_moderator_annuls_a_finished_match_from_the_match_list(mod):
    table = make_table(players=2)
    match = services.match_start(table_id=table.pk, by=table.owner)
    Match.objects.filter(pk=match.pk).update(status=Match.Status.FINISHED)
    Hand.objects.filter(match=match).update(outcome={"loser": 0, "tie": False, "reason": "x"})
    run_action(client_for(mod), "/admin/games/match/", "annul_matches", [match], text="cheats")
    match.refresh_from_db()
    assert match.status == Match.Status.ANNULLED


def test_a_player_cannot_run_moderator_actions_even_by_posting(mod):
    table = make_table(players=1)
    message = services.chat_post(table_id=table.pk, user=table.owner, text="hello")
    client = client_for(make_user())
    response = run_action(client, "/admin/games/chatmessage/", "hide_messages", [message])
    assert response.status_code == 302 and "/admin/login/" in response.url
    assert not ChatMessage.objects.filter(hidden_at__isnull=False).exists()
