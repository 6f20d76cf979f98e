"""The profile's statistics: matches, wins, P-A-N, hands, and replays of recent matches."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from games import services
from games.models import Hand
from moderation import services as moderation
from tests.factories import (
    make_moderator,
    make_table,
    make_user,
    play_to_pan_on_time,
    seated_users,
)

pytestmark = pytest.mark.django_db


def stats(client, user) -> dict[str, str]:
    page = client.get(reverse("profile", kwargs={"username": user.username}))
    assert page.status_code == 200
    html = page.content.decode()
    return dict(re.findall(r'data-stat="([a-z-]+)">([^<]*)', html)) | {"html": html}


def test_a_new_player_has_no_games_yet(client):
    ola = make_user()
    page = stats(client, ola)
    assert "No games played yet." in page["html"] and "matches" not in page


def test_after_a_match_the_profiles_count_the_win_the_pan_and_every_hand(client):
    table = make_table(players=2, is_public=False)
    match = play_to_pan_on_time(table)
    hands = match.hands.count()
    loser_seat = match.match_state.letters.index(3)
    players = {p.seat: p.user for p in match.players.select_related("user")}
    loser, winner = players[loser_seat], players[1 - loser_seat]

    lost = stats(client, loser)
    assert (lost["matches"], lost["wins"].split()[0], lost["pans"]) == ("1", "0", "1")
    assert lost["hands"] == str(hands) and lost["hands-lost"].split()[0] == "3"

    won = stats(client, winner)
    assert (won["matches"], won["wins"].split()[0], won["pans"]) == ("1", "1", "0")
    assert won["hands-lost"].split()[0] == str(hands - 3)
    assert "(100%)" in won["html"] and "(0%)" in lost["html"]

    # The table is private: its players may replay the last hand, a stranger may not.
    last = match.hands.order_by("-number").first()
    client.force_login(winner)
    assert last.get_absolute_url() in stats(client, loser)["html"]
    client.force_login(make_user())
    page = stats(client, loser)["html"]
    assert "Recent matches" in page and last.get_absolute_url() not in page


def test_an_aborted_hand_is_not_counted(client):
    table = make_table(players=2)
    match = services.match_start(table_id=table.pk, by=table.owner)
    hand = match.hands.get()
    moderation.hand_abort(by=make_moderator(), table_id=table.pk, reason="a broken deal")
    assert Hand.objects.get(pk=hand.pk).outcome["reason"] == "aborted"
    for user in seated_users(table):
        assert "No games played yet." in stats(client, user)["html"]


def test_an_annulled_match_no_longer_counts(client):
    table = make_table(players=2)
    match = play_to_pan_on_time(table)
    ola = seated_users(table)[0]
    assert stats(client, ola)["matches"] == "1"
    moderation.match_annul(by=make_moderator(), match_id=match.pk, reason="collusion")
    assert "No games played yet." in stats(client, ola)["html"]
