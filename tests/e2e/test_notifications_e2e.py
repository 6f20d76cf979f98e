"""The notification centre in a browser, in Polish at 360 px: the turn of a
correspondence game reaches the player's bell live, /notifications/ lists and marks it
read; with his page closed the e-mail arrives, its link opens the game and its
unsubscribe link stops the e-mails."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import Browser, Page, expect

from bench.smtp_sink import SmtpSink
from notifications import services
from notifications.models import Kind, MailChoice
from tests.e2e.test_fixes_e2e import log_in_any_language
from tests.factories import make_table, make_user
from tests.notifications.helpers import send_turn

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

WIDTH, HEIGHT = 360, 740


def fits(page: Page, selector: str) -> None:
    box = page.locator(selector).bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= WIDTH, box
    assert page.evaluate("() => document.documentElement.scrollWidth") <= WIDTH


def test_the_turn_reaches_the_bell_live_then_the_email_and_its_links_work(
    site, browser: Browser, site_channel_layer
):
    ola = make_user("ola_dzwonek", language="pl")
    table = make_table(ola, name="Partia listowna")
    context = browser.new_context(locale="pl-PL", viewport={"width": WIDTH, "height": HEIGHT})
    context.set_default_timeout(15_000)
    page = context.new_page()
    log_in_any_language(page, site.url, ola.username)
    page.goto(f"{site.url}/rules/")
    expect(page.locator("#me-socket[data-me-ws=open]")).to_have_count(1)
    expect(page.get_by_test_id("bell-count")).to_have_count(0)

    send_turn(table, ola, hand_id=1, deadline=timezone.now() + timedelta(days=3))
    expect(page.get_by_test_id("bell-count")).to_have_text("1")
    page.locator("#notification-bell > summary").click()
    notice = page.get_by_test_id("bell-notice")
    expect(notice.get_by_role("link")).to_have_text("Twój ruch przy stole Partia listowna.")
    fits(page, "#bell-panel")
    page.keyboard.press("Escape")  # shuts as a menu does
    expect(page.locator("#bell-panel")).to_be_hidden()
    page.locator("#notification-bell > summary").click()

    page.get_by_test_id("bell-all").click()
    expect(page.get_by_role("heading", name="Powiadomienia")).to_be_visible()
    expect(page.get_by_test_id("notice")).to_have_attribute("data-unread", "yes")
    fits(page, "[data-testid=notifications]")
    page.get_by_test_id("mark-all-read").click()
    expect(page.get_by_test_id("notice")).to_have_attribute("data-unread", "no")
    expect(page.get_by_test_id("bell-count")).to_have_count(0)
    page.close()

    # A day later with no page open: the e-mail leaves (the worker's task, run here on
    # injected time), and its links work in the browser.
    with (
        SmtpSink() as sink,
        sink.settings(
            SITE_URL=site.url,
            # The link is signed as the site signs it: with the key the site keeps.
            SECRET_KEY=(site.var_dir / "secret_key").read_text().strip(),
        ),
    ):
        sent = services.notifications_mail_send(
            user_id=ola.pk, now=timezone.now() + timedelta(days=1)
        )
    assert sent == 1
    (message,) = sink.messages
    text = message.get_content()
    assert "Twój ruch przy stole Partia listowna." in text
    game = next(line.strip() for line in text.splitlines() if "/tables/" in line)
    page = context.new_page()
    page.goto(game)
    assert page.url == f"{site.url}/tables/{table.pk}/"
    unsubscribe = str(message["List-Unsubscribe"]).strip().strip("<>")
    page.goto(unsubscribe)
    page.get_by_test_id("unsubscribe-confirm").click()
    expect(page.get_by_test_id("unsubscribe-done")).to_be_visible()
    fits(page, "[data-testid=unsubscribe]")
    assert not MailChoice.objects.get(user=ola, kind=Kind.YOUR_TURN).enabled
    context.close()
