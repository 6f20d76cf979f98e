"""Model factories for tests: small functions, real rows."""

from __future__ import annotations

import functools
import itertools

from allauth.account.models import EmailAddress
from django.contrib.auth.hashers import make_password

from accounts.models import User

_counter = itertools.count(1)
PASSWORD = "correct-horse-battery-9"


@functools.cache
def password_hash(password: str) -> str:
    """A password hashed as the site hashes it (PBKDF2, a million rounds: a third of a
    second here, by design), once per password for the whole run: every user made with
    it gets this hash. It is a real one, so any process of the site checks it as any
    other (the browser tests log in with it)."""
    return make_password(password)


def make_user(
    username: str | None = None,
    *,
    password: str = PASSWORD,
    verified: bool = True,
    **fields: object,
) -> User:
    """A user with a (verified) primary e-mail address who can log in with ``password``."""
    username = username or f"player{next(_counter)}"
    email = fields.pop("email", f"{username}@example.com")
    user = User.objects.create(
        username=User.normalize_username(username),
        email=User.objects.normalize_email(email),
        password=password_hash(password),
        **fields,
    )
    EmailAddress.objects.create(user=user, email=email, verified=verified, primary=True)
    return user


def make_table(owner: User | None = None, *, players: int = 2, rules=None, **fields: object):
    """A table whose first ``players`` seats hold users (the owner first)."""
    from games import services
    from games.engine import Rules

    owner = owner or make_user()
    table = services.table_create(
        owner=owner, name=fields.pop("name", "Test table"), rules=rules or Rules(), **fields
    )
    for _ in range(players - 1):
        services.table_sit(table_id=table.pk, user=make_user())
    return table


def table_form(**fields: str | None) -> dict[str, str]:
    """The create-table form filled in for a public table of the kurnik rules, with
    ``fields`` changed (None: left out, as an unticked box is)."""
    form: dict[str, str | None] = {
        "name": "Test table", "profile": "kurnik", "seats": "2", "time_control": "3+2",
        "is_public": "on", "deck": "24", "jokers": "0", "beton": "0", "three_cards": "nines",
        "pickup": "three", "tie_rule": "any_final_play", "max_actions": "500",
        "max_actions_result": "tie",
    }  # fmt: skip
    return {key: value for key, value in (form | fields).items() if value is not None}


def play_to_pan_on_time(table):
    """Start a match at ``table`` and let the player to move run out of time, hand after
    hand, until somebody has P-A-N. Returns the finished match."""
    from datetime import timedelta

    from games import services
    from games.models import Match

    match = services.match_start(table_id=table.pk, by=table.owner)
    for _ in range(40):
        match.refresh_from_db()
        if match.status == Match.Status.FINISHED:
            return match
        hand = match.hands.order_by("-number").first()
        if hand.is_over:
            services.match_next_hand(
                match_id=match.pk, after_number=hand.number, now=hand.finished_at
            )
            continue
        assert services.execute(
            services.Timeout(hand_id=hand.pk), now=hand.deadline + timedelta(seconds=1)
        )
    raise AssertionError("the match did not end")


def first_hand(table, now):
    """Start a match at ``table`` at ``now``; returns its first hand."""
    from games import services
    from games.models import Hand

    services.match_start(table_id=table.pk, by=table.owner, now=now)
    return Hand.objects.get(match__table=table)


def act_first_legal(hand, now):
    """The player to move on ``hand`` makes his first legal move at ``now``; returns the
    hand after it."""
    from games import services
    from games.engine import move_to_json

    state = hand.engine_state
    return services.execute(
        services.move_action(
            move_to_json(state.legal_moves()[0]),
            hand_id=hand.pk,
            version=hand.version,
            user=hand.match.players.get(seat=state.to_move).user,
        ),
        now=now,
    )


def client_for(user: User | None = None):
    """A test client that reads English pages, signed in as ``user`` if given."""
    from django.test import Client

    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    if user is not None:
        client.force_login(user)
    return client


def seated_users(table) -> list[User]:
    return [s.user for s in table.seats.select_related("user").order_by("position") if s.user]


def moderators_group():
    """The Moderators group as the migrations make it (a transactional test's flush drops it)."""
    from importlib import import_module

    from django.contrib.auth.models import Group, Permission

    group, created = Group.objects.get_or_create(name="Moderators")
    if created:
        # The audit log and reports moved from accounts to moderation after these migrations.
        moved = import_module("moderation.migrations.0001_initial").MOVED_MODELS
        for migration in ("0002_moderators_group", "0004_moderators_permissions"):
            module = import_module(f"accounts.migrations.{migration}")
            for app_label, codename in module.MODERATOR_PERMISSIONS:
                if app_label == "accounts" and codename.split("_", 1)[1] in moved:
                    app_label = "moderation"
                group.permissions.add(
                    Permission.objects.get(content_type__app_label=app_label, codename=codename)
                )
    return group


def make_moderator(username: str | None = None, **fields: object) -> User:
    """A staff user in the Moderators group."""
    user = make_user(username, is_staff=True, **fields)
    user.groups.add(moderators_group())
    return user


def share_device(*users: User, now=None) -> str:
    """Note ``users`` as seen on one browser (fair play links their accounts); its id."""
    import secrets

    from accounts import services

    device = secrets.token_hex(16)
    for user in users:
        services.sighting_record(user_id=user.pk, device=device, address=None, now=now)
    return device
