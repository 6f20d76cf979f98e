"""Issue #39's whole flow through the real chain, over several days of injected time: a
correspondence table made through the site's form; the turn that a move in the browser
passes to the other player reaches his bell live (the move pipeline sends the turn's
signal, the notifications hear it); with his page closed the e-mail task sends it, its
link opens the game, its unsubscribe link stops the next one; My games puts his moves
first by deadline; at P-A-N both players have a correspondence rating and no other.

The moves of the days gone by are made through the move service with ``now=``, and the
e-mail task is run as the worker runs it, ``MAIL_DELAY`` after the notice."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import Browser, Page, expect

from bench.smtp_sink import SmtpSink
from games import services
from games.models import Hand, Match, Rating, Table
from notifications import services as notifications
from notifications.events import MAIL_DELAY
from notifications.models import Kind, MailChoice, Notification
from tests.e2e.pages import log_in, new_page
from tests.e2e.test_correspondence_e2e import move_until
from tests.e2e.test_fixes_e2e import log_in_any_language
from tests.factories import act_first_legal, make_table, make_user

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

DAY = timedelta(days=1)


def polish_page(browser: Browser, base_url: str, username: str) -> Page:
    context = browser.new_context(locale="pl-PL", viewport={"width": 360, "height": 740})
    context.set_default_timeout(15_000)
    page = context.new_page()
    log_in_any_language(page, base_url, username)
    return page


def move_in_browser(page: Page) -> None:
    """The player whose turn it is makes his first legal move, by the keyboard (at a
    phone's width the fanned cards cover each other), and his page shows it made."""
    expect(page.get_by_test_id("your-turn")).to_be_visible()
    version = page.locator("#table-status").get_attribute("data-version")
    legal = page.locator("button.card-button.legal")
    (legal.first if legal.count() else page.get_by_test_id("pickup").first).press("Enter")
    expect(page.locator("#table-status")).not_to_have_attribute("data-version", version)


def send_mail(site, janek_id: int, *, now: datetime) -> list:
    """The e-mail task at ``now``, sending to a local SMTP sink; the messages it sent."""
    with (
        SmtpSink() as sink,
        sink.settings(
            SITE_URL=site.url,
            # The links are signed as the site signs them: with the key the site keeps.
            SECRET_KEY=(site.var_dir / "secret_key").read_text().strip(),
        ),
    ):
        notifications.notifications_mail_send(user_id=janek_id, now=now)
    return list(sink.messages)


def unread(user_id: int) -> int:
    return Notification.objects.filter(owner_id=user_id, read_at__isnull=True).count()


def test_a_correspondence_match_from_the_form_to_the_bell_the_email_and_the_ratings(
    site, browser: Browser, site_channel_layer
):
    ola = make_user("ola_flow")
    janek = make_user("janek_flow", language="pl")

    # Ola makes the table through the form, three days per move; janek sits at it.
    ola_context, ola_page = new_page(browser)
    log_in(ola_page, site.url, ola.username)
    ola_page.goto(f"{site.url}/tables/new/")
    ola_page.fill("input[name=name]", "Listowna")
    ola_page.select_option("select[name=time_control]", "3d")
    ola_page.get_by_role("button", name="Create the table").click()
    expect(ola_page.get_by_role("heading", level=1)).to_contain_text("Listowna")
    table = Table.objects.get(owner=ola)
    assert table.move_days == 3
    janek_page = polish_page(browser, site.url, janek.username)
    janek_page.goto(f"{site.url}/tables/{table.pk}/")
    janek_page.get_by_test_id("sit").first.click()
    expect(janek_page.get_by_test_id("sit")).to_have_count(0)

    # Three days ago the match started; a move a day since, through the move service.
    t0 = timezone.now() - timedelta(days=2, hours=22)
    services.match_start(table_id=table.pk, by=ola, now=t0)
    hand = Hand.objects.get(match__table=table)
    for day in range(3):
        hand = act_first_legal(hand, t0 + day * DAY)
    hand = move_until(hand, "ola_flow", t0 + 2 * DAY + timedelta(hours=1))
    # Two more games: one of a day per move waiting for janek since two hours ago (its
    # deadline comes first), one waiting for ola.
    games = {}
    for name, days, mover in (("Krótka", 1, "janek_flow"), ("Jej", 3, "ola_flow")):
        other = make_table(ola, players=1, move_days=days, name=name)
        services.table_sit(table_id=other.pk, user=janek)
        start = timezone.now() - timedelta(hours=2)
        services.match_start(table_id=other.pk, by=ola, now=start)
        move_until(Hand.objects.get(match__table=other), mover, start)
        games[name] = other.pk

    # Janek on My games; ola's move in her browser passes the turn to him: his bell and
    # his count of games waiting hear of it live.
    janek_page.goto(f"{site.url}/games/")
    expect(janek_page.locator("h1")).to_have_text("Moje partie")
    expect(janek_page.locator("#me-socket[data-me-ws=open]")).to_have_count(1)
    count = janek_page.get_by_test_id("my-games-count")
    expect(count).to_have_attribute("data-count", "1")
    bell = janek_page.get_by_test_id("bell-count")
    before = unread(janek.pk)
    expect(bell).to_have_count(1 if before else 0)
    janek_page.evaluate("window.notReloaded = true")
    ola_page.goto(f"{site.url}/tables/{table.pk}/")
    move_in_browser(ola_page)
    expect(bell).to_have_text(str(before + 1))
    expect(count).to_have_attribute("data-count", "2")
    assert janek_page.evaluate("window.notReloaded") is True
    janek_page.locator("#notification-bell > summary").click()
    expect(janek_page.get_by_test_id("bell-notice").first.get_by_role("link")).to_have_text(
        "Twój ruch przy stole Listowna."
    )
    # My games: his moves first, the sooner deadline first, then the game waiting for ola.
    janek_page.reload()
    rows = janek_page.get_by_test_id("my-game")
    expect(rows).to_have_count(3)
    order = [int(rows.nth(i).get_attribute("data-table")) for i in range(3)]
    assert order == [games["Krótka"], table.pk, games["Jej"]]
    expect(rows.nth(2)).to_contain_text("ruch: ola_flow")
    assert janek_page.evaluate("document.documentElement.scrollWidth") <= 360
    janek_page.context.close()

    # His page closed, the e-mail task runs when the worker would: the e-mail carries
    # the turn, and its link opens the game.
    (message,) = send_mail(site, janek.pk, now=timezone.now() + timedelta(seconds=MAIL_DELAY))
    text = message.get_content()
    assert "Twój ruch przy stole Listowna." in text
    link = next(line.strip() for line in text.splitlines() if f"/tables/{table.pk}/" in line)
    janek_page = polish_page(browser, site.url, janek.username)
    janek_page.goto(link)
    assert janek_page.url == f"{site.url}/tables/{table.pk}/"
    expect(janek_page.get_by_test_id("your-turn")).to_be_visible()

    # The unsubscribe link: a page to confirm on (GET), then the POST stops the e-mails.
    janek_page.goto(str(message["List-Unsubscribe"]).strip().strip("<>"))
    assert not MailChoice.objects.filter(user=janek, enabled=False).exists()
    janek_page.get_by_test_id("unsubscribe-confirm").click()
    expect(janek_page.get_by_test_id("unsubscribe-done")).to_be_visible()

    # The next turn reaches his bell, but no e-mail (two days on: no "one a day" rule).
    janek_page.goto(f"{site.url}/tables/{table.pk}/")
    move_in_browser(janek_page)
    janek_page.context.close()
    move_in_browser(ola_page)
    assert Notification.objects.filter(owner=janek, kind=Kind.YOUR_TURN).count() >= 2
    assert send_mail(site, janek.pk, now=timezone.now() + 2 * DAY) == []
    ola_context.close()

    # Nobody moves again: day deadline after day deadline the clock gives letters until
    # P-A-N, and the match is rated as correspondence, for both.
    match = Match.objects.get(table=table)
    now = timezone.now()
    while match.status == Match.Status.PLAYING:
        hand = match.hands.order_by("-number").first()
        if hand.is_over:
            services.match_next_hand(match_id=match.pk, after_number=hand.number, now=now)
        else:
            now = max(now, hand.deadline + timedelta(seconds=1))
            services.execute(services.Timeout(hand_id=hand.pk), now=now)
        match.refresh_from_db()
    for user in (ola, janek):
        assert set(Rating.objects.filter(user=user).values_list("speed", flat=True)) == {
            "correspondence"
        }
    page = polish_page(browser, site.url, ola.username)
    page.goto(f"{site.url}/u/{janek.username}/")
    ratings = page.get_by_test_id("speed-ratings")
    correspondence = ratings.locator("dd", has=page.locator("[data-stat=rating-correspondence]"))
    expect(correspondence).to_contain_text("1 partia rankingowa")
    blitz = ratings.locator("dd", has=page.locator("[data-stat=rating-blitz]"))
    expect(blitz).not_to_contain_text("rankingow")
    page.context.close()
