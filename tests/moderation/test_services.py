"""Moderation services on PostgreSQL: who may act, what each action does, its audit entry,
the automatic limits, and the HTTP side (login refused, sessions ended, notices, reports)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.models import Group, Permission
from django.contrib.sessions.models import Session
from django.core.cache import cache
from django.core.exceptions import PermissionDenied
from django.utils import timezone

from accounts.models import User
from accounts.notices import PERMANENT
from accounts.permissions import PERM_HIDE_CHAT, PERM_INTERVENE, may
from fairplay import services as fairplay
from fairplay.models import FairPlayCase
from games import selectors, services
from games.engine import Reason, Rules
from games.models import BotLevel, ChatMessage, Hand, Match, Table
from moderation import services as moderation
from moderation.models import AuditLog, Report
from tests.factories import (
    PASSWORD,
    client_for,
    make_moderator,
    make_table,
    make_user,
    moderators_group,
    seated_users,
)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("english")]

AUDIT = AuditLog.Action


def sessions_of(user: User) -> int:
    return sum(
        1 for s in Session.objects.all() if s.get_decoded().get("_auth_user_id") == str(user.pk)
    )


def start_match(table: Table) -> Hand:
    services.match_start(table_id=table.pk, by=table.owner)
    return Hand.objects.get(match__table=table, number=1)


def only_entry(**filters: object) -> AuditLog:
    entries = list(AuditLog.objects.filter(**filters))
    assert len(entries) == 1, entries
    return entries[0]


# --- roles -------------------------------------------------------------------------------------


def test_the_moderators_group_holds_exactly_the_moderation_permissions():
    codenames = set(
        Group.objects.get(name="Moderators").permissions.values_list(
            "content_type__app_label", "codename"
        )
    )
    assert codenames == {
        ("accounts", "view_user"),
        ("accounts", "ban_user"),
        ("accounts", "mute_user"),
        ("moderation", "view_report"),
        ("moderation", "change_report"),
        ("moderation", "view_auditlog"),
        ("games", "view_table"),
        ("games", "intervene_table"),
        ("games", "view_match"),
        ("games", "view_matchplayer"),
        ("games", "view_chatmessage"),
        ("games", "hide_chatmessage"),
    }


def test_who_may_intervene_a_player_a_moderator_a_right_of_his_own_and_a_superuser(
    django_assert_num_queries,
):
    player, moderator = make_user("plain"), make_moderator("mod_of_group")
    own = make_user("own_right")
    own.user_permissions.add(Permission.objects.get(codename="intervene_table"))
    boss = make_user("boss", is_superuser=True)
    fresh = {u.pk: User.objects.get(pk=u.pk) for u in (player, moderator, own, boss)}

    # A player in no group and with no right of his own: one question, then none.
    with django_assert_num_queries(1):
        assert not may(fresh[player.pk], PERM_INTERVENE)
        assert not may(fresh[player.pk], PERM_HIDE_CHAT)
    assert may(fresh[moderator.pk], PERM_INTERVENE)
    assert may(fresh[moderator.pk], PERM_HIDE_CHAT)
    assert may(fresh[own.pk], PERM_INTERVENE)
    assert not may(fresh[own.pk], PERM_HIDE_CHAT)  # only the right he was given
    with django_assert_num_queries(0):
        assert may(fresh[boss.pk], PERM_INTERVENE)

    # Put in the group, the player may, once read again (as Django's own permissions).
    player.groups.add(moderators_group())
    assert may(User.objects.get(pk=player.pk), PERM_INTERVENE)


# --- bans --------------------------------------------------------------------------------------


def test_a_ban_ends_sessions_empties_open_seats_and_is_logged(mod):
    table = make_table(players=2)
    owner, guest = seated_users(table)
    client_for(guest)
    client_for(guest)
    until = timezone.now() + timedelta(days=3)

    moderation.user_ban(by=mod, user_id=guest.pk, reason="insults", until=until)

    guest.refresh_from_db()
    assert guest.is_banned() and guest.ban_reason == "insults"
    assert sessions_of(guest) == 0
    assert seated_users(table) == [owner]
    entry = only_entry(action=AUDIT.BAN)
    assert (entry.actor, entry.target_user, entry.reason) == (mod, guest, "insults")
    assert entry.details["until"] == until.isoformat()
    assert entry.details["sessions_ended"] == 2
    assert entry.details["tables_left"] == [table.pk]


def test_a_ban_during_a_match_hands_the_seat_to_a_bot(mod):
    table = make_table(players=2)
    start_match(table)
    guest = seated_users(table)[1]

    moderation.user_ban(by=mod, user_id=guest.pk, reason="cheating")

    seat = table.seats.get(position=1)
    assert seat.user is None and seat.bot_level == BotLevel.GREEDY
    player = Match.objects.get(table=table).players.get(table_position=1)
    assert player.bot_level == BotLevel.GREEDY


def test_the_table_says_why_a_bot_plays_a_persons_seat(mod):
    """ "bot · banned" or "bot · left", not a bare "bot" (#14)."""
    table = make_table(players=3)
    start_match(table)
    _, leaver, banned = seated_users(table)
    services.table_leave(table_id=table.pk, user=leaver)
    moderation.user_ban(by=mod, user_id=banned.pk, reason="cheating")
    page = client_for().get(table.get_absolute_url()).content.decode()
    assert f"A bot plays for {banned.username}, who is banned." in page
    assert f"A bot plays for {leaver.username}, who left the table." in page
    assert page.count('data-testid="bot-for"') == 2
    assert ">bot · banned<" in page and ">bot · left<" in page


def test_a_ban_without_an_end_is_for_good(mod):
    player = make_user()
    moderation.user_ban(by=mod, user_id=player.pk, reason="spam bot")
    player.refresh_from_db()
    assert player.banned_until == PERMANENT
    assert only_entry(action=AUDIT.BAN).details["until"] is None


def test_ban_refusals_change_nothing_and_log_nothing(mod):
    player, other = make_user(), make_user()
    staff = make_user(is_staff=True)
    with pytest.raises(PermissionDenied):
        moderation.user_ban(by=player, user_id=other.pk, reason="x")
    with pytest.raises(PermissionDenied, match="superuser"):
        moderation.user_ban(by=mod, user_id=staff.pk, reason="x")
    with pytest.raises(services.Refused, match="your own account"):
        moderation.user_ban(by=mod, user_id=mod.pk, reason="x")
    with pytest.raises(services.Refused, match="Give a reason"):
        moderation.user_ban(by=mod, user_id=other.pk, reason="  ")
    with pytest.raises(services.Refused, match="future"):
        moderation.user_ban(
            by=mod, user_id=other.pk, reason="x", until=timezone.now() - timedelta(hours=1)
        )
    assert not User.objects.filter(banned_until__isnull=False).exists()
    assert not AuditLog.objects.exists()


def test_a_superuser_may_ban_a_staff_member():
    boss = make_user(is_staff=True, is_superuser=True)
    staff = make_moderator()
    moderation.user_ban(by=boss, user_id=staff.pk, reason="abuse of power")
    staff.refresh_from_db()
    assert staff.is_banned()


def test_unban_lifts_the_ban_and_is_logged(mod):
    player = make_user(banned_until=timezone.now() + timedelta(days=1), ban_reason="x")
    moderation.user_unban(by=mod, user_id=player.pk, reason="appeal accepted")
    player.refresh_from_db()
    assert not player.is_banned() and player.ban_reason == ""
    assert only_entry(action=AUDIT.UNBAN).reason == "appeal accepted"
    with pytest.raises(services.Refused, match="is not banned"):
        moderation.user_unban(by=mod, user_id=player.pk)


def test_log_out_everywhere_ends_every_session(mod):
    player = make_user()
    client_for(player)
    client_for(mod)
    moderation.user_logout_everywhere(by=mod, user_id=player.pk, reason="account shared")
    assert sessions_of(player) == 0
    assert sessions_of(mod) == 1
    assert only_entry(action=AUDIT.LOGOUT_EVERYWHERE).details["sessions_ended"] == 1


# --- mutes and the chat ------------------------------------------------------------------------


def test_a_mute_refuses_chat_with_the_reason_and_time_left_even_to_a_stale_user(mod):
    table = make_table(players=1)
    player = make_user()
    stale = User.objects.get(pk=player.pk)  # as a websocket holds it since it connected
    moderation.user_mute(
        by=mod, user_id=player.pk, reason="shouting", until=timezone.now() + timedelta(hours=1)
    )
    with pytest.raises(services.Refused, match=r"muted until .* \(59\s+minutes left\): shouting"):
        services.chat_post(table_id=table.pk, user=stale, text="HELLO")
    assert not ChatMessage.objects.exists()
    assert only_entry(action=AUDIT.MUTE).target_user == player

    moderation.user_unmute(by=mod, user_id=player.pk)
    services.chat_post(table_id=table.pk, user=stale, text="sorry")
    assert only_entry(action=AUDIT.UNMUTE).target_user == player


def test_a_player_cannot_mute(mod):
    with pytest.raises(PermissionDenied):
        moderation.user_mute(by=make_user(), user_id=make_user().pk, reason="x")


def test_repeated_flooding_mutes_for_ten_minutes_in_the_system_s_name():
    table = make_table(players=1)
    author = table.owner
    cache.delete(f"chat-floods:{author.pk}")
    now = timezone.now()

    def flood(at):
        for i in range(5):
            services.chat_post(table_id=table.pk, user=author, text=f"m{i}", now=at)
        ChatMessage.objects.filter(author=author).update(created_at=at)
        with pytest.raises(services.Refused, match="too fast"):
            services.chat_post(table_id=table.pk, user=author, text="again", now=at)
        # More refusals within the same burst are the same flood.
        with pytest.raises(services.Refused, match="too fast"):
            services.chat_post(table_id=table.pk, user=author, text="again", now=at)

    flood(now)
    flood(now + timedelta(seconds=30))
    author.refresh_from_db()
    assert not author.is_muted(now + timedelta(seconds=30))

    later = now + timedelta(seconds=60)
    for i in range(5):
        services.chat_post(table_id=table.pk, user=author, text=f"m{i}", now=later)
    ChatMessage.objects.filter(author=author).update(created_at=later)
    with pytest.raises(services.Refused, match=r"muted until .*: flooding the chat"):
        services.chat_post(table_id=table.pk, user=author, text="again", now=later)

    author.refresh_from_db()
    assert author.muted_until == later + timedelta(minutes=10)
    entry = only_entry(action=AUDIT.AUTO_MUTE)
    assert entry.actor is None and entry.target_user == author
    assert entry.details["minutes"] == 10


def test_a_moderator_hides_a_message_and_it_leaves_the_visible_chat(mod):
    table = make_table(players=2)
    rude = seated_users(table)[1]
    message = services.chat_post(table_id=table.pk, user=rude, text="you idiot")
    with pytest.raises(PermissionDenied):
        moderation.chat_hide(by=table.owner, message_id=message.pk)

    moderation.chat_hide(by=mod, message_id=message.pk, reason="insult")

    message.refresh_from_db()
    assert message.hidden_by == mod and message.hidden_at is not None
    assert selectors.visible_chat(table.pk) == []
    entry = only_entry(action=AUDIT.CHAT_HIDE)
    assert (entry.target_user, entry.table, entry.details["text"]) == (rude, table, "you idiot")
    with pytest.raises(services.Refused, match="already hidden"):
        moderation.chat_hide(by=mod, message_id=message.pk)
    moderation.chat_unhide(by=mod, message_id=message.pk)
    assert selectors.visible_chat(table.pk) == [message]


# --- automatic limit on new tables -----------------------------------------------------------


def test_a_user_creates_at_most_five_tables_in_ten_minutes():
    owner = make_user()
    for i in range(5):
        services.table_create(owner=owner, name=f"t{i}", rules=Rules())
    with pytest.raises(services.Refused, match="5 tables in the last few minutes"):
        services.table_create(owner=owner, name="one more", rules=Rules())
    Table.objects.filter(owner=owner).update(created_at=timezone.now() - timedelta(minutes=11))
    services.table_create(owner=owner, name="later", rules=Rules())


# --- games -------------------------------------------------------------------------------------


def test_abort_hand_ends_it_without_a_letter_and_the_match_deals_on(mod):
    table = make_table(players=2)
    hand = start_match(table)
    version = hand.version
    with pytest.raises(PermissionDenied):
        moderation.hand_abort(by=table.owner, table_id=table.pk, reason="x")

    moderation.hand_abort(by=mod, table_id=table.pk, reason="server trouble")

    hand.refresh_from_db()
    assert hand.is_over and hand.outcome["reason"] == "aborted"
    assert hand.version == version + 1 and hand.deadline is None
    match = Match.objects.get(pk=hand.match_id)
    assert match.status == Match.Status.PLAYING
    assert match.match_state.letters == (0, 0)
    assert match.match_state.hands_played == 1
    view = selectors.table_view(table=table, viewer=seated_users(table)[0])
    assert "aborted" in view.outcome_text and view.pickups == [] and view.playable == {}
    assert services.match_next_hand(match_id=match.pk, after_number=1).number == 2
    entry = only_entry(action=AUDIT.HAND_ABORT)
    assert entry.table == table and entry.details["hand"] == hand.pk
    with pytest.raises(services.Refused, match="No hand is being played"):
        moderation.hand_abort(by=mod, table_id=make_table().pk, reason="x")


def test_an_aborted_hand_is_over_in_its_engine_state_old_rows_too(mod):
    table = make_table(players=2)
    hand = start_match(table)
    before = hand.engine_state
    moderation.hand_abort(by=mod, table_id=table.pk, reason="server trouble")

    hand = Hand.objects.get(pk=hand.pk)
    state = hand.engine_state
    assert state.is_over and state.outcome.reason is Reason.ABORTED
    assert state.outcome.to_json() == hand.outcome == hand.state["outcome"]
    assert hand.outcome == {"loser": None, "tie": True, "reason": "aborted", "final_play": None}
    assert (state.pile, state.to_move, state.history) == (
        before.pile,
        before.to_move,
        before.history,
    )

    # A hand aborted before the engine knew the reason kept its state as it stood.
    Hand.objects.filter(pk=hand.pk).update(state=before.to_json(), version=hand.version + 1)
    old = Hand.objects.get(pk=hand.pk)
    assert old.state["outcome"] is None
    assert old.engine_state.is_over and old.engine_state.outcome.reason is Reason.ABORTED
    assert old.engine_state.legal_moves() == ()
    view = selectors.table_view(table=table, viewer=seated_users(table)[0])
    assert "aborted" in view.outcome_text and view.pickups == [] and view.playable == {}


def test_annul_match_stops_the_hand_and_leaves_the_table_ready_for_a_rematch(mod):
    table = make_table(players=2)
    hand = start_match(table)

    moderation.match_annul(by=mod, match_id=hand.match_id, reason="collusion")

    hand.refresh_from_db()
    table.refresh_from_db()
    match = Match.objects.get(pk=hand.match_id)
    assert match.status == Match.Status.ANNULLED and match.finished_at is not None
    assert hand.is_over and table.status == Table.Status.FINISHED
    entry = only_entry(action=AUDIT.MATCH_ANNUL)
    assert entry.details["match"] == match.pk and entry.reason == "collusion"
    with pytest.raises(services.Refused, match="already been annulled"):
        moderation.match_annul(by=mod, match_id=match.pk, reason="again")
    rematch = services.match_rematch(table_id=table.pk, by=table.owner)
    assert rematch.status == Match.Status.PLAYING


def test_remove_a_player_empties_his_seat_before_a_match_and_bots_him_during_one(mod):
    table = make_table(players=3)
    owner, second, third = seated_users(table)
    moderation.table_remove_player(by=mod, table_id=table.pk, user_id=second.pk, reason="afk")
    assert seated_users(table) == [owner, third]
    assert only_entry(action=AUDIT.TABLE_REMOVE_PLAYER).target_user == second

    start_match(table)
    moderation.table_remove_player(by=mod, table_id=table.pk, user_id=third.pk, reason="stalling")
    assert table.seats.get(position=2).bot_level == BotLevel.GREEDY
    with pytest.raises(services.Refused, match="has no seat"):
        moderation.table_remove_player(by=mod, table_id=table.pk, user_id=third.pk, reason="x")
    with pytest.raises(PermissionDenied):
        moderation.table_remove_player(by=owner, table_id=table.pk, user_id=owner.pk, reason="x")


# --- reports -----------------------------------------------------------------------------------


def test_a_report_about_a_message_names_its_author_and_table():
    table = make_table(players=2)
    owner, rude = seated_users(table)
    message = services.chat_post(table_id=table.pk, user=rude, text="spam spam")
    report = moderation.report_create(
        by=owner, reason="spam", text="again and again", chat_message_id=message.pk
    )
    assert (report.reported_user, report.table, report.chat_message) == (rude, table, message)
    assert report.status == Report.Status.OPEN
    with pytest.raises(services.Refused, match="already reported"):
        moderation.report_create(by=owner, reason="spam", chat_message_id=message.pk)
    with pytest.raises(services.Refused, match="cannot report yourself"):
        moderation.report_create(by=owner, reason="other", reported_user_id=owner.pk)
    with pytest.raises(services.Refused, match="Choose a reason"):
        moderation.report_create(by=owner, reason="ugly", reported_user_id=rude.pk)
    assert not AuditLog.objects.exists()  # a player's report is not a moderator action


def test_reports_per_hour_are_limited():
    reporter = make_user()
    for _ in range(moderation.REPORTS_PER_HOUR):
        moderation.report_create(by=reporter, reason="other", reported_user_id=make_user().pk)
    with pytest.raises(services.Refused, match="many reports"):
        moderation.report_create(by=reporter, reason="other", reported_user_id=make_user().pk)


def test_resolving_a_report_is_logged_and_the_reporter_is_told_once(mod):
    reporter = make_user(language="en")
    report = moderation.report_create(
        by=reporter, reason="stalling", reported_user_id=make_user("slowpoke").pk
    )
    with pytest.raises(PermissionDenied):
        moderation.report_resolve(by=reporter, report_id=report.pk, action_taken="x")
    with pytest.raises(services.Refused, match="Give a reason"):
        moderation.report_resolve(by=mod, report_id=report.pk, action_taken="")

    moderation.report_resolve(by=mod, report_id=report.pk, action_taken="muted for a day")

    report.refresh_from_db()
    assert (report.status, report.handled_by) == (Report.Status.RESOLVED, mod)
    entry = only_entry(action=AUDIT.REPORT_RESOLVE)
    assert entry.details["report"] == report.pk and entry.reason == "muted for a day"
    with pytest.raises(services.Refused, match="already been handled"):
        moderation.report_dismiss(by=mod, report_id=report.pk)

    client = client_for(reporter)
    page = client.get("/").content.decode()
    assert "Your report about slowpoke has been resolved: muted for a day" in page
    assert "has been resolved" not in client.get("/").content.decode()


def test_dismissing_a_report_is_logged(mod):
    report = moderation.report_create(
        by=make_user(), reason="other", reported_user_id=make_user().pk
    )
    moderation.report_dismiss(by=mod, report_id=report.pk)
    report.refresh_from_db()
    assert report.status == Report.Status.DISMISSED
    assert only_entry(action=AUDIT.REPORT_DISMISS).target_user == report.reported_user


# --- every action writes its one audit entry -----------------------------------------------------


def test_every_moderator_action_writes_exactly_one_audit_entry(mod):
    table = make_table(players=3)
    owner, second, third = seated_users(table)
    message = services.chat_post(table_id=table.pk, user=second, text="hi")
    report = moderation.report_create(by=owner, reason="other", reported_user_id=second.pk)
    report2 = moderation.report_create(by=third, reason="other", reported_user_id=second.pk)
    future = timezone.now() + timedelta(hours=1)
    marked = make_user()
    fairplay.account_mark(by=mod, user_id=marked.pk, reason="engine")
    appeal = fairplay.appeal_create(user=marked, text="not me")
    steps = [
        (AUDIT.CHAT_HIDE, lambda: moderation.chat_hide(by=mod, message_id=message.pk)),
        (AUDIT.CHAT_UNHIDE, lambda: moderation.chat_unhide(by=mod, message_id=message.pk)),
        (
            AUDIT.REPORT_RESOLVE,
            lambda: moderation.report_resolve(by=mod, report_id=report.pk, action_taken="ok"),
        ),
        (AUDIT.REPORT_DISMISS, lambda: moderation.report_dismiss(by=mod, report_id=report2.pk)),
        (
            AUDIT.MUTE,
            lambda: moderation.user_mute(by=mod, user_id=second.pk, reason="r", until=future),
        ),
        (AUDIT.UNMUTE, lambda: moderation.user_unmute(by=mod, user_id=second.pk)),
        (
            AUDIT.TABLE_REMOVE_PLAYER,
            lambda: moderation.table_remove_player(
                by=mod, table_id=table.pk, user_id=third.pk, reason="r"
            ),
        ),
        (
            AUDIT.HAND_ABORT,
            lambda: (
                start_match(table),
                moderation.hand_abort(by=mod, table_id=table.pk, reason="r"),
            ),
        ),
        (
            AUDIT.FAIRPLAY_CLEAR,
            lambda: fairplay.fairplay_case_decide(
                by=mod,
                case_id=FairPlayCase.objects.create(user=third, chance=1e-6).pk,
                decision="clear",
            ),
        ),
        (
            AUDIT.MATCH_ANNUL,
            lambda: moderation.match_annul(
                by=mod, match_id=Match.objects.get(table=table).pk, reason="r"
            ),
        ),
        (
            AUDIT.LOGOUT_EVERYWHERE,
            lambda: moderation.user_logout_everywhere(by=mod, user_id=second.pk),
        ),
        (AUDIT.BAN, lambda: moderation.user_ban(by=mod, user_id=second.pk, reason="r")),
        (AUDIT.UNBAN, lambda: moderation.user_unban(by=mod, user_id=second.pk)),
        (
            AUDIT.PAIR_ALLOW,
            lambda: moderation.user_pair_allow(
                by=mod, user_id=owner.pk, other_id=second.pk, reason="r"
            ),
        ),
        (
            AUDIT.PAIR_DISALLOW,
            lambda: moderation.user_pair_disallow(by=mod, user_id=owner.pk, other_id=second.pk),
        ),
        (
            AUDIT.FAIRPLAY_WARN,
            lambda: fairplay.account_warn(by=mod, user_id=third.pk, reason="r"),
        ),
        (
            AUDIT.FAIRPLAY_MARK,
            lambda: fairplay.account_mark(by=mod, user_id=third.pk, reason="r"),
        ),
        (
            AUDIT.FAIRPLAY_UPHOLD,
            lambda: fairplay.appeal_decide(
                by=mod,
                appeal_id=fairplay.appeal_create(user=third, text="no").pk,
                lift=False,
                reason="r",
            ),
        ),
        (
            AUDIT.FAIRPLAY_LIFT,
            lambda: fairplay.appeal_decide(by=mod, appeal_id=appeal.pk, lift=True, reason="r"),
        ),
    ]
    for action, step in steps:
        before = AuditLog.objects.count()
        step()
        assert AuditLog.objects.count() == before + 1, action
        latest = AuditLog.objects.order_by("-pk").first()
        assert (latest.action, latest.actor) == (action, mod)
    assert {a for a, _ in steps} == set(AUDIT.values) - {
        AUDIT.AUTO_MUTE,  # the site's own: tested with flooding
        AUDIT.TOURNAMENT_DISQUALIFY,  # tournaments do not exist yet
    }


def test_an_audit_entry_is_never_changed_or_deleted(mod):
    entry = moderation.audit_record(actor=mod, action=AUDIT.BAN, reason="r")
    entry.reason = "rewritten"
    with pytest.raises(ValueError, match="never changed"):
        entry.save()
    with pytest.raises(ValueError, match="never deleted"):
        entry.delete()


# --- HTTP: login, sessions, notices ----------------------------------------------------------


def test_a_banned_user_cannot_log_in_and_is_told_why_and_until_when():
    player = make_user(
        "banned1", banned_until=timezone.now() + timedelta(days=2), ban_reason="cheating"
    )
    client = client_for()
    response = client.post("/accounts/login/", {"login": "banned1", "password": PASSWORD})
    page = response.content.decode()
    assert "You are banned until" in page and "cheating" in page
    assert "_auth_user_id" not in client.session
    assert sessions_of(player) == 0


@pytest.mark.parametrize(
    ("language", "notice"),
    [("en", "You are banned for good: spam bot."), ("pl", "Masz bana na zawsze: spam bot.")],
)
def test_a_ban_for_good_reads_for_good_at_login_with_one_full_stop(language, notice):
    make_user("banned2", banned_until=PERMANENT, ban_reason="spam bot")
    client = client_for()
    client.cookies["django_language"] = language
    page = client.post("/accounts/login/", {"login": "banned2", "password": PASSWORD})
    text = page.content.decode()
    assert notice in text
    assert "9000" not in text and f"{notice}." not in text


def test_a_reason_ending_in_a_full_stop_gets_no_second_one():
    player = make_user(language="en")
    client = client_for(player)
    User.objects.filter(pk=player.pk).update(banned_until=PERMANENT, ban_reason="Spam. ")
    page = client.get("/").content.decode()
    assert "You are banned for good: Spam." in page and "Spam.." not in page


def test_a_banned_user_with_a_surviving_session_is_logged_out_on_his_next_request():
    player = make_user(language="en")
    client = client_for(player)
    User.objects.filter(pk=player.pk).update(banned_until=PERMANENT, ban_reason="spam bot")

    response = client.get("/")

    assert response.status_code == 403
    assert "You are banned for good: spam bot" in response.content.decode()
    assert "_auth_user_id" not in client.session
    assert client.get("/").status_code == 200  # now an anonymous visitor


def test_the_table_page_shows_a_muted_player_why_and_until_when(mod):
    table = make_table(players=1)
    player = make_user(language="en")
    moderation.user_mute(
        by=mod, user_id=player.pk, reason="caps lock", until=timezone.now() + timedelta(hours=3)
    )
    page = client_for(player).get(table.get_absolute_url()).content.decode()
    assert 'data-testid="mute-notice"' in page and "caps lock" in page


def test_moderator_tools_on_the_table_page_only_for_moderators(mod):
    table = make_table(players=2)
    services.chat_post(table_id=table.pk, user=seated_users(table)[1], text="hello")
    player_page = client_for(table.owner).get(table.get_absolute_url()).content.decode()
    mod_page = client_for(mod).get(table.get_absolute_url()).content.decode()
    for marker in ('data-testid="mod-tools"', 'data-testid="hide-chat"', "remove-player"):
        assert marker not in player_page
        assert marker in mod_page
    assert 'data-testid="report-message"' in player_page
    assert 'data-testid="report-player"' in player_page


def test_a_player_reports_a_message_from_the_table_page():
    table = make_table(players=2)
    owner, rude = seated_users(table)
    message = services.chat_post(table_id=table.pk, user=rude, text="noob")
    client = client_for(owner)

    form = client.get(f"/reports/new/?message={message.pk}", HTTP_HX_REQUEST="true")
    assert form.status_code == 200
    assert "noob" in form.content.decode() and 'data-testid="report-form"' in form.content.decode()

    done = client.post(
        "/reports/new/",
        {"message": message.pk, "reason": "insults", "text": "rude"},
        HTTP_HX_REQUEST="true",
    )
    assert 'data-testid="report-done"' in done.content.decode()
    report = Report.objects.get()
    assert (report.reporter, report.reported_user, report.chat_message) == (owner, rude, message)

    again = client.post(
        "/reports/new/", {"message": message.pk, "reason": "insults"}, HTTP_HX_REQUEST="true"
    )
    assert "already reported" in again.content.decode()
    assert Report.objects.count() == 1


def test_a_player_reports_a_player_without_htmx():
    table = make_table(players=2)
    owner, other = seated_users(table)
    client = client_for(owner)
    response = client.post(
        "/reports/new/", {"user": other.pk, "table": table.pk, "reason": "stalling"}
    )
    assert response.status_code == 302 and response.url == table.get_absolute_url()
    assert Report.objects.get().table == table


def test_a_private_tables_chat_cannot_be_read_through_the_report_form():
    table = make_table(players=2, is_public=False)
    owner, guest = seated_users(table)
    message = services.chat_post(table_id=table.pk, user=guest, text="our secret plan")
    outsider = client_for(make_user())

    for response in (
        outsider.get(f"/reports/new/?message={message.pk}", HTTP_HX_REQUEST="true"),
        outsider.get(f"/reports/new/?message={message.pk}"),
        outsider.get(f"/reports/new/?user={guest.pk}&table={table.pk}"),
        outsider.post("/reports/new/", {"message": message.pk, "reason": "spam"}),
        outsider.post("/reports/new/", {"user": guest.pk, "table": table.pk, "reason": "spam"}),
    ):
        page = response.content.decode()
        assert response.status_code == 404
        assert "our secret plan" not in page and guest.username not in page
    assert not Report.objects.exists()
    never_was = outsider.get(f"/reports/new/?message={message.pk + 1000}")
    assert never_was.status_code == 404  # the same answer as for the private message

    invited = client_for(make_user())
    invited.get(f"/t/{table.invite_token}/")
    form = invited.get(f"/reports/new/?message={message.pk}", HTTP_HX_REQUEST="true")
    assert form.status_code == 200 and "our secret plan" in form.content.decode()
    assert client_for(owner).get(f"/reports/new/?message={message.pk}").status_code == 200


def test_the_report_service_refuses_a_table_the_reporter_may_not_see():
    table = make_table(players=2, is_public=False)
    _owner, guest = seated_users(table)
    message = services.chat_post(table_id=table.pk, user=guest, text="psst")
    outsider = make_user()
    with pytest.raises(services.Refused, match="message does not exist"):
        moderation.report_create(by=outsider, reason="spam", chat_message_id=message.pk)
    with pytest.raises(services.Refused, match="table does not exist"):
        moderation.report_create(
            by=outsider, reason="spam", reported_user_id=guest.pk, table_id=table.pk
        )
    report = moderation.report_create(
        by=outsider, reason="spam", chat_message_id=message.pk, invited_tables=[table.pk]
    )
    assert report.table == table
