"""The table as players meet it (#14): seats around the felt, play by keyboard, card
motion and its absence when the system asks for less, the sound and theme switches."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page, expect

from accounts.models import User
from games import services
from games.engine import Rules
from tests.e2e.pages import log_in, new_page, pages_at_table
from tests.factories import make_user

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def started_table(*names: str):
    """A table of len(names) seats, all taken, its match started; returns it and the users."""
    users = [make_user(name) for name in names]
    table = services.table_create(
        owner=users[0], name="UX", rules=Rules(), seats=len(users), base_seconds=600
    )
    for user in users[1:]:
        services.table_sit(table_id=table.pk, user=user)
    services.match_start(table_id=table.pk, by=users[0])
    return table, users


def version(page: Page) -> str:
    return page.locator("#table-status").get_attribute("data-version")


def wait_for_move(page: Page, before: str) -> None:
    expect(page.locator("#table-status")).not_to_have_attribute("data-version", before)


def mover_and_other(pages: list[Page]) -> tuple[Page, Page]:
    for page in pages:
        expect(page.locator("#conn-state.on")).to_have_count(1)
    expect(pages[0].locator('[data-testid="to-move"]:visible')).to_have_count(1)
    movers = [p for p in pages if p.get_by_test_id("your-turn").count()]
    assert len(movers) == 1
    (other,) = (p for p in pages if p is not movers[0])
    return movers[0], other


def focused(page: Page, script: str):
    return page.evaluate(f"(() => {{ const el = document.activeElement; return {script}; }})()")


def tab_into_the_hand(page: Page) -> None:
    """Press Tab until the focus is on a card of the own hand (its one tab stop)."""
    for _ in range(60):
        page.keyboard.press("Tab")
        if focused(page, "!!el.closest('#my-hand .card-button')"):
            return
    raise AssertionError("Tab never reached the hand")


def play_a_card_by_keyboard(page: Page) -> str:
    """Reach the hand with Tab, choose a card that may be played with the arrows, play it
    with Enter; returns its code."""
    tab_into_the_hand(page)
    # The focus ring shows where the keyboard is: round the card's face (on a phone, where
    # the cards overlap, the button is only the edge that shows).
    assert focused(page, "getComputedStyle(el.querySelector('svg')).outlineStyle") != "none"
    for _ in range(30):
        if focused(page, "el.classList.contains('legal')"):
            break
        page.keyboard.press("ArrowRight")
    code = focused(page, "el.dataset.card")
    assert focused(page, "el.classList.contains('legal')"), code
    before = version(page)
    page.keyboard.press("Enter")
    wait_for_move(page, before)
    return code


def test_a_hand_is_played_and_picked_up_by_keyboard_alone(site, browser: Browser):
    table, users = started_table("keys_ola", "keys_janek")
    contexts, pages = pages_at_table(browser, site.url, table.pk, [u.username for u in users])
    first, second = mover_and_other(pages)
    name = first.get_by_test_id("nav-profile").inner_text()

    opening = play_a_card_by_keyboard(first)
    assert opening == "9H"  # the base card opens
    expect(second.locator('#pile [data-card="9H"]')).to_have_count(1)
    expect(second.get_by_test_id("your-turn")).to_be_visible()
    # The live region says what happened and whose turn it is, once.
    expect(second.get_by_test_id("announcer")).to_have_text(
        f"{name} played nine of hearts. Your turn"
    )

    answer = play_a_card_by_keyboard(second)
    expect(first.locator(f'#pile [data-card="{answer}"]')).to_have_count(1)
    expect(first.get_by_test_id("your-turn")).to_be_visible()

    # P picks up (the pile holds one card above the base card).
    before = version(first)
    first.keyboard.press("p")
    wait_for_move(first, before)
    expect(first.locator(f'#my-hand [data-card="{answer}"]')).to_have_count(1)
    expect(second.get_by_test_id("announcer")).to_contain_text(f"{name} picked up")
    # Each box is named for a screen reader with the player's cards and letters.
    # (aria-labelledby: who he is, then what a move changes, joined by a space)
    label = second.locator("#players .player:has(> .to-move)").evaluate(
        "b => b.getAttribute('aria-labelledby').split(' ')"
        ".map(id => document.getElementById(id).textContent).join(' ')"
    )
    assert label.startswith(second.get_by_test_id("nav-profile").inner_text())
    assert "cards in hand" in label and "no letters" in label and label.endswith("to move")
    for context in contexts:
        context.close()


def count_transitions(page: Page) -> None:
    page.evaluate(
        "window.__transitions = 0;"
        "document.addEventListener('transitionrun', () => { window.__transitions += 1; });"
    )


@pytest.mark.parametrize("motion", ["reduce", "no-preference"])
def test_cards_fly_unless_the_system_asks_for_less_motion(site, browser: Browser, motion):
    table, users = started_table(f"motion_ola_{motion[:2]}", f"motion_jan_{motion[:2]}")
    contexts, pages = [], []
    for user in users:
        context = browser.new_context(
            locale="en-GB", viewport={"width": 390, "height": 844}, reduced_motion=motion
        )
        page = context.new_page()
        log_in(page, site.url, user.username)
        page.goto(f"{site.url}/tables/{table.pk}/")
        contexts.append(context)
        pages.append(page)
    mover, watcher = mover_and_other(pages)
    for page in pages:
        count_transitions(page)
    before = version(mover)
    mover.locator("button.card-button.legal").first.click()
    wait_for_move(watcher, before)
    wait_for_move(mover, before)
    for page in pages:
        started = page.evaluate("window.__transitions")
        if motion == "reduce":
            assert started == 0
            assert page.evaluate("document.getAnimations().length") == 0
        else:  # the card flew from the mover's hand, or from his box, to the pile
            assert started > 0
    for context in contexts:
        context.close()


def test_the_sound_switch_is_kept_on_the_account(site, page: Page):
    user = make_user("sound_ola")
    table = services.table_create(owner=user, name="Quiet", rules=Rules(), seats=2)
    log_in(page, site.url, user.username)
    page.goto(f"{site.url}/tables/{table.pk}/")
    switch = page.get_by_test_id("sound-switch")
    expect(switch).to_have_attribute("aria-pressed", "true")
    switch.click()
    expect(switch).to_have_attribute("aria-pressed", "false")
    expect(page.locator("[data-sound-switch]")).to_have_attribute("data-sounds", "off")
    page.reload()
    expect(page.get_by_test_id("sound-switch")).to_have_attribute("aria-pressed", "false")
    assert User.objects.get(pk=user.pk).sounds_on is False


def test_the_theme_switch_sets_the_dark_theme_and_keeps_it(site, browser: Browser):
    context = browser.new_context(locale="en-GB", color_scheme="light")
    page = context.new_page()
    page.goto(f"{site.url}/")
    html = page.locator("html")
    expect(html).to_have_attribute("data-theme", "light")
    page.get_by_test_id("theme-dark").click()
    expect(html).to_have_attribute("data-theme", "dark")
    expect(page.get_by_test_id("theme-dark")).to_have_attribute("aria-pressed", "true")
    page.goto(f"{site.url}/rules/")
    expect(html).to_have_attribute("data-theme", "dark")
    background = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert background != "rgb(251, 250, 247)"  # the light paper
    page.get_by_test_id("theme-system").click()
    expect(html).to_have_attribute("data-theme", "light")  # the system here is light
    context.close()


def test_before_the_start_the_empty_seats_wait_around_the_table(site, browser: Browser):
    owner = make_user("ring_owner")
    make_user("ring_guest")
    table = services.table_create(owner=owner, name="Ring", rules=Rules(), seats=3)
    context, guest = new_page(browser)
    log_in(guest, site.url, "ring_guest")
    guest.goto(f"{site.url}/tables/{table.pk}/")
    places = guest.get_by_test_id("seat-place")
    expect(places).to_have_count(3)
    expect(guest.locator(".seat-place.empty").get_by_role("button", name="Sit here")).to_have_count(
        2
    )
    expect(guest.get_by_test_id("ring-center")).to_contain_text("1 of 3 seats taken")
    expect(guest.get_by_test_id("ring-center")).to_contain_text("at least two")
    guest.get_by_test_id("sit").first.click()
    expect(guest.get_by_test_id("ring-center")).to_contain_text("2 of 3 seats taken")
    # Seated, the guest sees himself at the bottom of the table.
    mine = guest.locator(".seat-place").filter(has_text="ring_guest")
    expect(mine).to_have_attribute("data-slot", "bottom")
    expect(guest.get_by_role("button", name="Sit here")).to_have_count(0)
    context.close()


def test_the_seats_sit_around_the_pile_with_the_viewer_at_the_bottom(site, browser: Browser):
    table, users = started_table("around_ola", "around_janek", "around_kasia", "around_tomek")
    contexts, pages = pages_at_table(browser, site.url, table.pk, [u.username for u in users])
    spectator_context, spectator = new_page(browser)
    spectator.goto(f"{site.url}/tables/{table.pk}/")
    for page in pages:
        expect(page.locator("#players .player.me")).to_have_count(1)
        pile = page.locator("#pile").bounding_box()
        middle = pile["y"] + pile["height"] / 2
        me = page.locator("#players .player.me").bounding_box()
        assert me["y"] > middle  # below the pile
        my_seat = int(page.locator("#players .player.me").get_attribute("data-seat"))
        across = page.locator(f'#players .player[data-seat="{(my_seat + 2) % 4}"]').bounding_box()
        assert across["y"] + across["height"] < middle  # the player across, above it
        left = page.locator(f'#players .player[data-seat="{(my_seat + 1) % 4}"]').bounding_box()
        right = page.locator(f'#players .player[data-seat="{(my_seat + 3) % 4}"]').bounding_box()
        assert left["x"] < me["x"] < right["x"]  # clockwise: next on the left
    # A spectator sees seat 0 at the bottom.
    seat0 = spectator.locator('#players .player[data-seat="0"]').bounding_box()
    pile = spectator.locator("#pile").bounding_box()
    assert seat0["y"] > pile["y"] + pile["height"] / 2
    for context in (*contexts, spectator_context):
        context.close()
