"""The notice e-mails, on injected time and a real SMTP server: one e-mail gathers every
waiting game, at most one a day per game, none to a player with a page open, a server
that is down loses nothing, and each carries a working one-click unsubscribe."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.test import Client
from django.utils import timezone

from bench.smtp_sink import SmtpSink, free_port, smtp_settings
from notifications import services, tasks
from notifications.models import Kind, MailChoice, Notification
from social import presence
from social import services as social
from tests.factories import make_table, make_user
from tests.notifications.helpers import send_turn

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 12, 3, 9, 0, tzinfo=UTC)


def smtp(port: int):
    return smtp_settings(port, SITE_URL="https://pan.example")


def turn(table, user, *, hand_id: int, at: datetime) -> None:
    send_turn(table, user, hand_id=hand_id, deadline=at + timedelta(days=2))
    Notification.objects.filter(owner=user, kind=Kind.YOUR_TURN).filter(
        key__startswith=f"turn:{hand_id}:"
    ).update(created_at=at)


def body(message) -> str:
    return message.get_content()


def test_several_waiting_games_leave_in_one_email_with_the_unsubscribe_headers():
    ola = make_user("ola_mail")
    first, second = make_table(owner=ola, name="Kraków"), make_table(owner=ola, name="Gdańsk")
    turn(first, ola, hand_id=1, at=NOW)
    turn(second, ola, hand_id=2, at=NOW)
    with SmtpSink() as sink, smtp(sink.port):
        assert services.notifications_mail_send(user_id=ola.pk, now=NOW) == 2
        assert services.notifications_mail_send(user_id=ola.pk, now=NOW) == 0  # nothing left
    (message,) = sink.messages
    assert message["To"] == "ola_mail@example.com"
    assert message["Subject"] == "[Pan online] 2 notifications wait for you"
    text = body(message)
    assert "Your move at the table Kraków." in text and "Your move at the table Gdańsk." in text
    assert f"https://pan.example/tables/{first.pk}/" in text
    unsubscribe = str(message["List-Unsubscribe"]).strip()
    assert unsubscribe.startswith("<https://pan.example/notifications/unsubscribe/")
    assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert unsubscribe.strip("<>") in text


def test_one_game_is_mailed_at_most_once_a_day():
    ola = make_user("ola_daily")
    table = make_table(owner=ola, name="Daily")
    with SmtpSink() as sink, smtp(sink.port):
        turn(table, ola, hand_id=1, at=NOW)
        assert services.notifications_mail_send(user_id=ola.pk, now=NOW) == 1
        turn(table, ola, hand_id=2, at=NOW + timedelta(hours=23))
        assert services.notifications_mail_send(user_id=ola.pk, now=NOW + timedelta(hours=23)) == 0
        turn(table, ola, hand_id=3, at=NOW + timedelta(hours=25))
        assert services.notifications_mail_send(user_id=ola.pk, now=NOW + timedelta(hours=25)) == 1
    assert len(sink.messages) == 2
    assert Notification.objects.get(owner=ola, key__startswith="turn:2:").mail == "skipped"
    # The notice itself is not lost: it is under the bell.
    assert Notification.objects.filter(owner=ola, kind=Kind.YOUR_TURN).count() == 3


def test_a_player_with_a_page_open_gets_no_email():
    ola = make_user("ola_online")
    turn(make_table(owner=ola), ola, hand_id=1, at=NOW)
    presence.mark_seen(ola.pk, now=NOW.timestamp() - 30)
    with SmtpSink() as sink, smtp(sink.port):
        assert services.notifications_mail_send(user_id=ola.pk, now=NOW) == 0
    assert sink.messages == []


def test_the_email_is_in_the_recipients_language():
    ola = make_user("ola_pl", language="pl")
    challenger = make_user("janek_pl")
    social.challenge_create(challenger=challenger, challenged=ola, seats=2, profile="kurnik")
    with SmtpSink() as sink, smtp(sink.port):
        assert services.notifications_mail_send(user_id=ola.pk, now=NOW + timedelta(days=1)) == 1
    (message,) = sink.messages
    assert "janek_pl wyzywa cię do gry." in message["Subject"]
    assert "Wyłącz te e-maile:" in body(message)


def test_a_mail_server_that_is_down_delays_the_email_and_loses_nothing():
    ola = make_user("ola_down")
    table = make_table(owner=ola, name="Retry")
    turn(table, ola, hand_id=1, at=NOW)
    closed = free_port()
    with smtp(closed), pytest.raises(OSError):
        services.notifications_mail_send(user_id=ola.pk, now=NOW)
    assert OSError in tasks.notifications_mail.autoretry_for  # the task tries again later
    assert Notification.objects.get(owner=ola).mail == Notification.Mail.PENDING
    with SmtpSink(port=closed) as sink, smtp(closed):
        assert services.notifications_mail_send(user_id=ola.pk, now=NOW + timedelta(minutes=5)) == 1
    (message,) = sink.messages
    assert "Your move at the table Retry." in message["Subject"]


def test_a_kind_turned_off_in_the_settings_is_not_mailed():
    ola = make_user("ola_off")
    client = Client()
    client.force_login(ola)
    assert 'href="/notifications/settings/"' in client.get("/account/settings/").content.decode()
    page = client.get("/notifications/settings/")
    assert "Your turn in a correspondence game" in page.content.decode()
    client.post("/notifications/settings/", {"mailed": [Kind.CHALLENGED]})
    turn(make_table(owner=ola), ola, hand_id=1, at=NOW)
    assert Notification.objects.get(owner=ola).mail == Notification.Mail.NONE
    assert not MailChoice.objects.get(user=ola, kind=Kind.YOUR_TURN).enabled


def test_the_sweep_queues_the_mail_of_a_notice_whose_task_was_lost():
    ola = make_user("ola_lost")
    turn(make_table(owner=ola), ola, hand_id=1, at=NOW)
    assert services.notifications_mail_due(now=NOW + timedelta(minutes=1)) == 0
    assert services.notifications_mail_due(now=NOW + timedelta(minutes=10)) == 1


# --- the unsubscribe link -------------------------------------------------------------------


def _link(user) -> str:
    turn(make_table(owner=user), user, hand_id=user.pk, at=NOW)
    with SmtpSink() as sink, smtp(sink.port):
        services.notifications_mail_send(user_id=user.pk, now=NOW)
    return (
        str(sink.messages[-1]["List-Unsubscribe"])
        .strip()
        .strip("<>")
        .removeprefix("https://pan.example")
    )


def _mailed(user, kind: str = Kind.YOUR_TURN) -> bool:
    return not MailChoice.objects.filter(user=user, kind=kind, enabled=False).exists()


def test_the_one_click_post_unsubscribes_without_a_page_or_a_cookie():
    ola = make_user("ola_click")
    link = _link(ola)
    mail_program = Client(enforce_csrf_checks=True)
    confirm = mail_program.get(link)
    assert confirm.status_code == 200 and "Stop these e-mails" in confirm.content.decode()
    assert _mailed(ola)  # a GET (a link checker's) changes nothing
    answer = mail_program.post(link, {"List-Unsubscribe": "One-Click"})
    assert answer.status_code == 200
    assert not _mailed(ola)
    assert _mailed(ola, Kind.CHALLENGED)  # only what the e-mail was about


def test_a_forged_link_changes_nothing():
    ola = make_user("ola_forged")
    link = _link(ola)
    forged = link.replace("/unsubscribe/", "/unsubscribe/x")
    answer = Client().post(forged)
    assert answer.status_code == 400
    assert "This link is not valid" in answer.content.decode()
    assert _mailed(ola)


def test_a_link_changes_only_its_own_users_choice_whoever_opens_it():
    ola, bob = make_user("ola_own"), make_user("bob_other")
    link = _link(ola)
    bobs_browser = Client()
    bobs_browser.force_login(bob)
    bobs_browser.post(link)
    assert _mailed(bob)
    assert not _mailed(ola)


def test_a_replayed_link_changes_nothing_after_the_choice_changed():
    ola = make_user("ola_replay")
    link = _link(ola)
    Client().post(link)
    assert not _mailed(ola)
    client = Client()
    client.force_login(ola)
    client.post("/notifications/settings/", {"mailed": [Kind.YOUR_TURN, Kind.CHALLENGED]})
    assert _mailed(ola)
    replay = Client().post(link)
    assert "has been used already" in replay.content.decode()
    assert _mailed(ola)  # his new choice stands


def test_the_start_of_an_arena_is_mailed_only_to_the_players_who_asked_for_it():
    from tests.tournaments.helpers import make_tournament
    from tournaments import services as tournaments
    from tournaments.models import Format

    asked, silent = make_user("ola_arena_mail", language="pl"), make_user("janek_arena_mail")
    client = Client()
    client.force_login(asked)
    page = client.get("/notifications/settings/").content.decode()
    assert "A tournament you registered for starts" not in page  # Polish for her
    assert "Turniej, na który się zapisałeś, się zaczyna" in page
    wanted = [Kind.YOUR_TURN, Kind.CHALLENGED, Kind.TOURNAMENT_STARTS]
    assert client.post("/notifications/settings/", {"mailed": wanted}).status_code == 302
    arena = make_tournament(
        users=[asked, silent],
        format=Format.ARENA,
        minutes=20,
        name="Arena o ósmej",
        seats_per_table=4,
        seats_min=3,
        starts_in=50,
    )
    # She closed the settings page long ago: a player with a page open gets the bell only.
    now = timezone.now() + timedelta(seconds=presence.ONLINE_WINDOW + 1)
    arena.starts_at = now + timedelta(seconds=50)
    arena.save(update_fields=["starts_at"])
    assert tournaments.tournament_remind_due(now=now)
    mine = Notification.objects.get(owner=asked, kind=Kind.TOURNAMENT_STARTS)
    theirs = Notification.objects.get(owner=silent, kind=Kind.TOURNAMENT_STARTS)
    assert mine.mail == Notification.Mail.PENDING
    assert theirs.mail == Notification.Mail.NONE  # the bell only: he never asked
    with SmtpSink() as sink, smtp(sink.port):
        assert services.notifications_mail_send(user_id=asked.pk, now=now) == 1
        assert services.notifications_mail_send(user_id=silent.pk, now=now) == 0
    (message,) = sink.messages
    assert message["To"] == "ola_arena_mail@example.com"
    assert "Turniej Arena o ósmej zaczyna się za minutę." in message["Subject"]
    assert f"https://pan.example{arena.get_absolute_url()}" in body(message)
