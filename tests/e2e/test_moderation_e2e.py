"""Moderation in the browser: a hidden message vanishes from an open table page, and a ban
cuts a player's open page off with a notice saying why and until when."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from games import services
from tests.e2e.pages import log_in, new_page
from tests.factories import PASSWORD, make_moderator, make_table, make_user

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def open_table(page: Page, url: str) -> None:
    """Open a table page and wait until its websocket is connected."""
    page.goto(url)
    expect(page.get_by_test_id("conn-state")).to_have_class(re.compile(r"\bon\b"))
    page.evaluate("window.notReloaded = true")


def test_a_hidden_message_vanishes_from_a_players_open_page(site, browser: Browser):
    make_moderator("warden")
    table = make_table(make_user("host"), players=1, name="Hide and seek")
    rude = make_user("rude")
    services.table_sit(table_id=table.pk, user=rude)
    message = services.chat_post(table_id=table.pk, user=rude, text="you all play like donkeys")
    services.chat_post(table_id=table.pk, user=table.owner, text="good luck everyone")
    url = f"{site.url}{table.get_absolute_url()}"

    host_ctx, host = new_page(browser)
    log_in(host, site.url, "host")
    open_table(host, url)
    chat = host.get_by_test_id("chat")
    expect(chat).to_contain_text("you all play like donkeys")
    expect(host.get_by_test_id("hide-chat")).to_have_count(0)  # a player has no such button

    warden_ctx, warden = new_page(browser)
    log_in(warden, site.url, "warden")
    open_table(warden, url)
    expect(warden.get_by_test_id("mod-tools")).to_be_visible()
    warden.locator(f'li[data-message="{message.pk}"]').get_by_test_id("hide-chat").click()

    expect(chat).not_to_contain_text("you all play like donkeys")
    expect(chat).to_contain_text("good luck everyone")
    expect(warden.get_by_test_id("chat")).not_to_contain_text("you all play like donkeys")
    assert host.evaluate("window.notReloaded") is True
    host_ctx.close()
    warden_ctx.close()


def test_a_ban_from_the_admin_cuts_off_the_players_open_page_with_a_notice(site, browser: Browser):
    make_moderator("warden")
    table = make_table(make_user("host"), players=1, name="Last stand")
    make_user("cheater")
    url = f"{site.url}{table.get_absolute_url()}"

    cheater_ctx, cheater = new_page(browser)
    log_in(cheater, site.url, "cheater")
    open_table(cheater, url)
    cheater.get_by_test_id("sit").first.click()
    expect(cheater.get_by_test_id("leave")).to_be_visible()

    warden_ctx, warden = new_page(browser)
    log_in(warden, site.url, "warden")
    warden.goto(f"{site.url}/admin/accounts/user/?q=cheater")
    warden.locator("input[name=_selected_action]").first.check()
    warden.select_option("select[name=action]", "ban_users")
    warden.get_by_role("button", name="Go").click()
    warden.select_option("select[name=duration]", "7d")
    warden.fill("textarea[name=reason]", "colluding with a friend")
    warden.get_by_role("button", name="Confirm").click()
    expect(warden.get_by_text("1 user banned.")).to_be_visible()

    notice = cheater.get_by_test_id("moderation-notice")
    expect(notice).to_contain_text("You are banned until")
    expect(notice).to_contain_text("colluding with a friend")
    expect(cheater.get_by_test_id("conn-state")).to_have_class(re.compile(r"\boff\b"))
    assert cheater.evaluate("window.notReloaded") is True

    # His session is gone: a reload shows the table to an anonymous visitor, seat empty.
    cheater.reload()
    expect(cheater.get_by_test_id("nav-profile")).to_have_count(0)
    expect(cheater.locator("#seats")).not_to_contain_text("cheater")
    # And he cannot log in again: the form says why and until when.
    cheater.goto(f"{site.url}/accounts/login/")
    cheater.fill("input[name=login]", "cheater")
    cheater.fill("input[name=password]", PASSWORD)
    cheater.get_by_role("button", name="Sign In").click()
    expect(cheater.get_by_text(re.compile("You are banned until .*colluding"))).to_be_visible()
    cheater_ctx.close()
    warden_ctx.close()
