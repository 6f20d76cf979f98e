"""Browser helpers shared by the browser tests: fresh contexts, logging in, a move."""

from __future__ import annotations

from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.factories import PASSWORD


def new_page(browser: Browser) -> tuple[BrowserContext, Page]:
    """A fresh browser context (its own cookies) in English, at a phone's width."""
    context = browser.new_context(locale="en-GB", viewport={"width": 390, "height": 844})
    context.set_default_timeout(15_000)
    return context, context.new_page()


def log_in(page: Page, base_url: str, username: str) -> None:
    """Log in through the login form of the server at ``base_url``."""
    page.goto(f"{base_url}/accounts/login/")
    page.fill("input[name=login]", username)
    page.fill("input[name=password]", PASSWORD)
    page.get_by_role("button", name="Sign In").click()
    expect(page.get_by_test_id("nav-profile")).to_have_text(username)


def pages_at_table(
    browser: Browser, base_url: str, table_id: int, usernames: list[str]
) -> tuple[list[BrowserContext], list[Page]]:
    """For each user, a fresh context logged in and showing the table's page."""
    contexts, pages = [], []
    for username in usernames:
        context, page = new_page(browser)
        log_in(page, base_url, username)
        page.goto(f"{base_url}/tables/{table_id}/")
        contexts.append(context)
        pages.append(page)
    return contexts, pages


def shown_state(pages: list[Page], *, timeout_ms: int = 15_000) -> tuple[str, str]:
    """The hand and version every page shows, once they all show the same one."""
    states: set[tuple[str | None, str | None]] = set()
    for _ in range(timeout_ms // 50):
        states = set()
        for page in pages:
            status = page.locator("#table-status")
            states.add((status.get_attribute("data-hand"), status.get_attribute("data-version")))
        if len(states) == 1:
            hand, version = states.pop()
            return hand or "", version or ""
        pages[0].wait_for_timeout(50)
    raise AssertionError(f"the pages show different states: {sorted(states, key=str)}")


def play_one_move(pages: list[Page]) -> bool:
    """Once every player's page shows the same state, the player whose turn it is
    plays his first legal card, or picks up, and waits until his page shows the table
    after it. False when it is nobody's turn at that state."""
    before = shown_state(pages)
    for page in pages:
        if page.get_by_test_id("your-turn").count():
            legal = page.locator("button.card-button.legal")
            # With the mouse, in the middle of the button (Playwright checks that nothing
            # lies over that point): a long hand after pick-ups overlaps its cards.
            target = legal.first if legal.count() else page.get_by_test_id("pickup").first
            target.click()
            page.wait_for_function(
                """([hand, version]) => {
                    const s = document.getElementById("table-status");
                    return s.dataset.hand !== hand || s.dataset.version !== version;
                }""",
                arg=list(before),
            )
            return True
    return False


# Counts the frames the page's socket swaps in, from the page's first script on.
FRAMES_COUNTED = """window.__panFrames = 0;
document.addEventListener("htmx:wsAfterMessage", () => { window.__panFrames += 1; });"""


def count_frames(page: Page) -> None:
    """From the next page loaded on, count its socket's frames (``first_frame_drawn``)."""
    page.add_init_script(FRAMES_COUNTED)


def first_frame_drawn(page: Page) -> None:
    """Wait until the page's socket has swapped in its first frame: at a table the whole
    table, which draws again the parts the page was loaded with (a click meanwhile may
    land on a button that is being replaced)."""
    page.wait_for_function("() => window.__panFrames > 0")
