"""A token sent in the query string is written nowhere: not in daphne's access log, not
on Django's debug page."""

from __future__ import annotations

import sys
import urllib.error
import urllib.request

from django.test import RequestFactory
from django.views.debug import technical_500_response

from bench.processes import base_env, free_port, running, serve_args, wait_for_log, wait_for_port
from pan_site.redaction import MASK, redact_url

SECRET = "pan_Zq3secretSECRETsecret0123456789abcdefghij"


def test_a_urls_secret_parameters_are_masked_and_the_rest_kept():
    assert redact_url(f"/api/account?token={SECRET}&x=1") == f"/api/account?token={MASK}&x=1"
    assert redact_url(f"/a?x=1&ACCESS_TOKEN={SECRET}#top") == f"/a?x=1&ACCESS_TOKEN={MASK}#top"
    assert redact_url("/a?tokens=1&token") == "/a?tokens=1&token"
    assert redact_url("/a") == "/a"


def test_daphnes_access_log_masks_a_token_in_the_query_string(tmp_path):
    port, log = free_port(), tmp_path / "serve.log"
    with running(serve_args(port), env=base_env(DEBUG="false"), log=log) as server:
        wait_for_port(port, proc=server, log=log)
        url = f"http://127.0.0.1:{port}/api/account?token={SECRET}&access_token={SECRET}&x=1"
        try:
            urllib.request.urlopen(url, timeout=30)
        except urllib.error.HTTPError as refused:
            assert refused.code == 401
        wait_for_log(log, "GET /api/account?", proc=server)

    written = log.read_text()
    assert SECRET not in written
    assert f"GET /api/account?token={MASK}&access_token={MASK}&x=1" in written


def test_the_debug_page_masks_a_token_in_the_query_string(settings):
    settings.DEBUG = True
    request = RequestFactory().get("/api/account", {"token": SECRET, "page": "2"})
    try:
        raise ValueError(f"broken while {request!r} was served")
    except ValueError:
        page = technical_500_response(request, *sys.exc_info()).content.decode()

    assert SECRET not in page
    assert MASK in page
    assert "page=2" in page  # the rest of the URL is still shown
