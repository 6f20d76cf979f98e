"""Linked accounts in moderation: a moderator allows two accounts that share a device or
a connection to play together (and takes it back), each with an audit entry; a player's
page says only "shares a device with X", never the device or the address."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied

from accounts import services as accounts
from accounts.models import AllowedPair, Sighting
from core.errors import Refused
from moderation import services as moderation
from moderation.models import AuditLog
from tests.factories import client_for, make_user, share_device
from tests.moderation.test_admin import USERS, run_action

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("english")]

HOME = "203.0.113.5"


def test_a_moderator_allows_a_pair_and_takes_it_back_each_with_one_audit_entry(mod):
    ola, ewa = make_user("ola"), make_user("ewa")
    allowed = moderation.user_pair_allow(
        by=mod, user_id=ewa.pk, other_id=ola.pk, reason="Sisters at one computer"
    )
    assert (allowed.user, allowed.other, allowed.allowed_by) == (ola, ewa, mod)
    entry = AuditLog.objects.get()
    assert (entry.actor, entry.action, entry.target_user) == (mod, "pair_allow", ola)
    assert entry.details == {"other_id": ewa.pk, "other": "ewa"}
    assert entry.reason == "Sisters at one computer"
    with pytest.raises(Refused, match="already allowed"):
        moderation.user_pair_allow(by=mod, user_id=ola.pk, other_id=ewa.pk, reason="again")

    moderation.user_pair_disallow(by=mod, user_id=ola.pk, other_id=ewa.pk)
    assert not AllowedPair.objects.exists()
    assert AuditLog.objects.filter(action="pair_disallow", target_user=ola).count() == 1
    with pytest.raises(Refused, match="not allowed"):
        moderation.user_pair_disallow(by=mod, user_id=ola.pk, other_id=ewa.pk)


def test_allowing_needs_the_right_a_reason_two_accounts_and_none_of_one_s_own(mod):
    ola, ewa = make_user(), make_user()
    with pytest.raises(PermissionDenied):
        moderation.user_pair_allow(by=make_user(), user_id=ola.pk, other_id=ewa.pk, reason="x")
    with pytest.raises(Refused, match="Give a reason"):
        moderation.user_pair_allow(by=mod, user_id=ola.pk, other_id=ewa.pk, reason=" ")
    with pytest.raises(Refused, match="two different"):
        moderation.user_pair_allow(by=mod, user_id=ola.pk, other_id=ola.pk, reason="x")
    with pytest.raises(Refused, match="your own account"):
        moderation.user_pair_allow(by=mod, user_id=mod.pk, other_id=ola.pk, reason="my alt")
    assert not AllowedPair.objects.exists() and not AuditLog.objects.exists()


def test_the_player_s_page_says_who_shares_a_device_or_a_connection_and_nothing_more(mod):
    ola, ewa, jan, stranger = (make_user(name) for name in ("ola", "ewa", "jan", "stranger"))
    device = share_device(ola, ewa)
    for user in (ola, jan):
        accounts.sighting_record(user_id=user.pk, device=f"{user.pk:032x}", address=HOME)
    accounts.sighting_record(
        user_id=stranger.pk, device=f"{stranger.pk:032x}", address="198.51.100.7"
    )
    page = client_for(mod).get(f"{USERS}{ola.pk}/change/").content.decode()
    assert 'data-testid="shared-accounts"' in page
    assert "shares a device with ewa" in page and "shares a connection with jan" in page
    assert "shares a device with jan" not in page and "stranger" not in page
    for secret in [device, *Sighting.objects.exclude(ip_hash="").values_list("ip_hash", flat=True)]:
        assert secret not in page
    assert HOME not in page
    assert f'data-testid="pair-action-allow_pairs-{ewa.pk}"' in page


def test_a_moderator_allows_and_keeps_apart_from_the_admin(mod):
    ola, ewa = make_user("ola"), make_user("ewa")
    share_device(ola, ewa)
    client = client_for(mod)
    alone = run_action(client, USERS, "allow_pairs", [ola])
    assert alone.status_code == 302 and not AllowedPair.objects.exists()
    asked = client.post(USERS, {"action": "allow_pairs", "_selected_action": [ola.pk, ewa.pk]})
    assert "Give a reason" not in asked.content.decode()  # the form first, nothing done
    assert not AllowedPair.objects.exists()
    run_action(client, USERS, "allow_pairs", [ola, ewa], text="Twins on one connection")
    assert AllowedPair.objects.filter(user=ola, other=ewa, allowed_by=mod).exists()
    for user in (ola, ewa):  # each one's page: the allowance and the audit entry
        page = client.get(f"{USERS}{user.pk}/change/").content.decode()
        assert "allowed to play together by mod" in page
        assert "two linked accounts allowed to play together (ola &amp; ewa)" in page
    run_action(client, USERS, "disallow_pairs", [ola, ewa], text="They share no more")
    assert not AllowedPair.objects.exists()
    page = client.get(f"{USERS}{ewa.pk}/change/").content.decode()
    assert "kept apart" in page and f'data-testid="pair-action-allow_pairs-{ola.pk}"' in page
