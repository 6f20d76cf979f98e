"""The site as an app on a phone (#52): Chromium finds it installable (its manifest, its
icons, its service worker), the worker keeps the static files and never a player's page
nor a POST's answer, shows the offline page in the reader's language once the server has
stopped, and the notification settings' switch asks for the permission to notify.

Chromium cannot complete a push subscription here: ``PushManager.subscribe`` goes to its
vendor's push service (Google's), which these machines cannot reach. So the browser's
side stops at the subscription call (its arguments are checked); the site's side of
Web Push, from the notice to the decrypted payload, is tested on the real protocol
against a local push service in ``tests/notifications/test_push.py``.
"""

from __future__ import annotations

import re
import sys

import pytest
from playwright.sync_api import Browser, Page, expect

from bench.processes import free_port, running, wait_for_port
from tests.e2e.conftest import CHROMIUM, CHROMIUM_FLAGS
from tests.e2e.pages import log_in
from tests.factories import make_user

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

# Every entry of the worker's caches: its URL, type and whether its text names ``needle``.
CACHED = """async (needle) => {
  const found = [];
  for (const name of await caches.keys()) {
    const cache = await caches.open(name);
    for (const request of await cache.keys()) {
      const response = await cache.match(request);
      const type = response.headers.get("Content-Type") || "";
      const text = /text|javascript|json/.test(type) ? await response.text() : "";
      found.push({url: request.url, method: request.method, type: type,
                  names: needle !== "" && text.includes(needle)});
    }
  }
  return found;
}"""

READY = """async () => {
  const registration = await navigator.serviceWorker.ready;
  return {script: registration.active.scriptURL, scope: registration.scope};
}"""


def worker_ready(page: Page) -> dict[str, str]:
    """The active worker's script and scope, once the page is controlled by it (a page
    whose navigation began before the worker was active never is: it is loaded again)."""
    ready = page.evaluate(READY)
    if not page.evaluate("navigator.serviceWorker.controller !== null"):
        page.reload()
    page.wait_for_function("() => navigator.serviceWorker.controller !== null")
    return ready


def test_chromium_finds_the_site_installable(site, browser: Browser, tmp_path):
    # A profile on disk: Chromium installs nothing from an incognito window (a fresh
    # context is one), and says so as an installability error of its own.
    context = browser.browser_type.launch_persistent_context(
        str(tmp_path / "profile"), executable_path=CHROMIUM, args=CHROMIUM_FLAGS, locale="en-GB"
    )
    context.set_default_timeout(15_000)
    page = context.new_page()
    page.goto(f"{site.url}/")
    ready = worker_ready(page)
    assert ready == {"script": f"{site.url}/sw.js", "scope": f"{site.url}/"}
    cdp = page.context.new_cdp_session(page)
    manifest = cdp.send("Page.getAppManifest")
    assert manifest["url"] == f"{site.url}/manifest.webmanifest"
    assert manifest["errors"] == []
    # Chromium's own installability checks, the ones Lighthouse's "installable" audit
    # reported: a manifest with a name, a start URL in scope, standalone display, PNG
    # icons of 192 and 512 px that load, a worker.
    errors = cdp.send("Page.getInstallabilityErrors")["installabilityErrors"]
    assert [e["errorId"] for e in errors] == []
    data = page.request.get(f"{site.url}/manifest.webmanifest").json()
    assert data["display"] == "standalone" and data["start_url"] == "/"
    sizes = {icon["sizes"] for icon in data["icons"]}
    assert {"192x192", "512x512"} <= sizes
    for icon in data["icons"]:
        assert re.fullmatch(r"/static/img/icons/[a-z0-9-]+\.[0-9a-f]{12}\.png", icon["src"])
        assert page.request.get(f"{site.url}{icon['src']}").headers["content-type"] == "image/png"
    answer = page.request.get(f"{site.url}/sw.js")
    assert answer.headers["service-worker-allowed"] == "/"
    assert answer.headers["cache-control"] == "no-cache"
    assert answer.headers["content-type"].startswith("text/javascript")
    context.close()


def test_the_worker_keeps_static_files_and_never_a_players_page_or_a_posts_answer(site, page: Page):
    ola = make_user("ola_app")
    log_in(page, site.url, ola.username)  # a POST (the login form) and its pages
    worker_ready(page)
    for path in ("/", "/notifications/", "/notifications/settings/", "/account/settings/"):
        page.goto(f"{site.url}{path}")
        expect(page.get_by_test_id("nav-profile")).to_have_text(ola.username)
    page.get_by_role("button", name="EN").first.click()  # the language switch: a POST
    expect(page.get_by_test_id("nav-profile")).to_have_text(ola.username)
    page.reload()  # a navigation with the worker in control all along
    cached = page.evaluate(CACHED, ola.username)
    assert cached, "the worker kept nothing"
    assert [c for c in cached if c["names"]] == []  # no entry holds the player's name
    assert {c["method"] for c in cached} == {"GET"}
    pages = [c for c in cached if "text/html" in c["type"]]
    assert {c["url"] for c in pages} == {f"{site.url}/offline/pl/", f"{site.url}/offline/en/"}
    others = [c["url"] for c in cached if c not in pages]
    assert all(
        url.startswith(f"{site.url}/static/") or url == f"{site.url}/offline/language"
        for url in others
    ), others
    # The files kept are the hashed names the pages use: every script and stylesheet.
    used = page.evaluate(
        """() => [...document.querySelectorAll("script[src], link[rel=stylesheet]")]
                  .map(el => el.src || el.href)"""
    )
    assert set(used) <= set(others), set(used) - set(others)
    assert any(re.search(r"/static/css/site\.[0-9a-f]{12}\.css$", url) for url in others)


def test_the_offline_page_shows_in_the_readers_language_when_the_server_stops(
    site, browser: Browser
):
    """A daphne of its own, stopped mid-visit: the next page is the offline page, in the
    language the reader chose on the site (Polish) though his browser speaks English."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log = site.var_dir / f"server-offline-{port}.log"
    serve = [sys.executable, "manage.py", "serve", "--host", "127.0.0.1", "--port", str(port)]
    context = browser.new_context(locale="en-GB", viewport={"width": 390, "height": 844})
    context.set_default_timeout(15_000)
    page = context.new_page()
    with running(serve, env=site.env, log=log) as server:
        wait_for_port(port, proc=server, log=log)
        page.goto(f"{url}/rules/")
        page.get_by_role("button", name="PL").first.click()
        expect(page.locator("html")).to_have_attribute("lang", "pl")
        worker_ready(page)
        page.goto(f"{url}/")  # a page the worker saw in Polish
        expect(page.locator("html")).to_have_attribute("lang", "pl")
    page.goto(f"{url}/tournaments/")  # the server has stopped
    expect(page.get_by_test_id("offline")).to_be_visible()
    expect(page.locator("html")).to_have_attribute("lang", "pl")
    expect(page.get_by_role("heading", level=1)).to_have_text("Brak połączenia")
    assert page.url == f"{url}/tournaments/"  # "Try again" reloads this very page
    expect(page.get_by_test_id("offline-retry")).to_have_attribute("href", "")
    # Its stylesheet came from the worker's cache: the page is styled, not bare.
    assert page.evaluate("getComputedStyle(document.querySelector('.site-header')).display") != (
        "inline"
    )
    context.close()


# Records each call of the permission prompt and of the subscription, and what it got.
RECORD_PUSH_CALLS = """
window.__asked = [];
window.__subscribed = [];
const ask = Notification.requestPermission.bind(Notification);
Notification.requestPermission = function () {
  window.__asked.push(Notification.permission);
  return ask();
};
const subscribe = PushManager.prototype.subscribe;
PushManager.prototype.subscribe = function (options) {
  const key = options.applicationServerKey;
  window.__subscribed.push({
    userVisibleOnly: options.userVisibleOnly,
    key: btoa(String.fromCharCode(...new Uint8Array(key))).replace(/\\+/g, "-")
      .replace(/\\//g, "_").replace(/=+$/, ""),
  });
  return subscribe.call(this, options);
};
"""


@pytest.mark.parametrize("permission", ["denied", "granted"])
def test_the_push_switch_asks_for_permission_and_then_subscribes_with_the_sites_key(
    site, browser: Browser, permission: str
):
    ola = make_user(f"ola_switch_{permission}")
    context = browser.new_context(locale="en-GB", viewport={"width": 360, "height": 740})
    context.set_default_timeout(15_000)
    if permission == "granted":
        context.grant_permissions(["notifications"], origin=site.url)
    context.add_init_script(RECORD_PUSH_CALLS)
    page = context.new_page()
    log_in(page, site.url, ola.username)
    page.goto(f"{site.url}/notifications/settings/")
    switch = page.get_by_role("switch", name=re.compile("Push notifications in this browser"))
    expect(switch).to_be_enabled()  # once the worker is ready
    expect(switch).to_have_attribute("aria-checked", "false")
    expect(page.get_by_test_id("push-no-devices")).to_be_visible()
    box = switch.bounding_box()
    switch.click()
    status = page.get_by_test_id("push-status")
    if permission == "denied":
        # Headless Chromium answers the prompt itself: "denied" unless the context grants it.
        expect(status).to_contain_text("blocks the site's notifications")
        assert page.evaluate("window.__asked") == ["default"]
        assert page.evaluate("window.__subscribed") == []
    else:
        # Chromium's push service is out of reach: the subscription fails, and says so.
        expect(status).to_contain_text("could not subscribe")
        assert page.evaluate("window.__asked") == ["granted"]
        key = page.locator("[data-push]").get_attribute("data-push-key")
        assert page.evaluate("window.__subscribed") == [{"userVisibleOnly": True, "key": key}]
    expect(switch).to_have_attribute("aria-checked", "false")
    assert switch.bounding_box() == box  # the message appeared below, nothing moved
    from notifications.models import PushSubscription

    assert not PushSubscription.objects.exists()
    context.close()
