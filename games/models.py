"""Tables, seats, matches, hands and their action log, and table chat.

The engine state of a hand is stored whole (``Hand.state``, the engine's exact JSON);
``Action`` rows are the ordered log it can be replayed from. ``Hand.version`` grows by
one with every change and is what clients and Celery tasks compare against.
"""

from __future__ import annotations

import secrets
import threading
from collections import OrderedDict
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.db import models
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from accounts.notices import table_title
from games.engine import Clock, HandState, MatchState, Reason, Rules
from games.speeds import Speed, table_speed

MIN_SEATS, MAX_SEATS = 2, 4
# The days per move a correspondence table offers (Table.move_days; 0 is real time).
MOVE_DAYS = (1, 2, 3, 5, 7, 14)
MS_PER_DAY = 86_400_000

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)


def to_instant(moment: datetime) -> int:
    """An aware datetime as the engine's clock counts time: whole microseconds since
    the epoch (exact, as the database stores it)."""
    return (moment - _EPOCH) // _MICROSECOND


def to_moment(instant: int) -> datetime:
    """The aware datetime (UTC) of an engine instant: the inverse of ``to_instant``."""
    return _EPOCH + timedelta(microseconds=instant)


def new_invite_token() -> str:
    return secrets.token_urlsafe(12)


class BotLevel(models.TextChoices):
    """The bots' levels; the strong one names the playouts it searches per decision
    (``games.bots.DEFAULT_PLAYOUTS``, a test keeps them equal; ``make bench-engine``
    measures each level's strength at that budget)."""

    RANDOM = "random", _("Bot: random")
    GREEDY = "greedy", _("Bot: greedy")
    ISMCTS = "ismcts", _("Bot: strong (ISMCTS, 500 playouts)")


class Table(models.Model):
    class Status(models.TextChoices):
        OPEN = "open", _("waiting for players")
        PLAYING = "playing", _("playing")
        FINISHED = "finished", _("finished")
        CLOSED = "closed", _("closed")

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="owned_tables"
    )
    # Blank: the table is named by its owner in each reader's language (``title``).
    name = models.CharField(_("name"), max_length=60, blank=True)
    profile = models.CharField(_("rule profile"), max_length=32, blank=True)
    rules_json = models.JSONField(_("rules"))
    seats_count = models.PositiveSmallIntegerField(_("seats"), default=4)
    base_seconds = models.PositiveIntegerField(_("minutes per hand (in seconds)"), default=180)
    increment_seconds = models.PositiveIntegerField(_("seconds added per action"), default=2)
    # 0: a real-time table (minutes per hand above); else a correspondence table, with
    # this many days for each move (a move restores the full time).
    move_days = models.PositiveSmallIntegerField(_("days per move"), default=0)
    is_public = models.BooleanField(_("public"), default=True)
    rated = models.BooleanField(_("rated"), default=True)
    # Seated and dealt by a floor above games (a tournament): no casual seating command
    # applies, no next hand is dealt here, and its matches are not rated.
    managed = models.BooleanField(_("managed by a tournament"), default=False)
    invite_token = models.CharField(max_length=32, default=new_invite_token, unique=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.OPEN)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["status", "is_public"])]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(seats_count__gte=MIN_SEATS, seats_count__lte=MAX_SEATS),
                name="table_seats_2_to_4",
            )
        ]
        permissions = [
            ("intervene_table", _("Can abort hands, annul matches and remove players")),
        ]

    def __str__(self) -> str:
        return self.title

    def get_absolute_url(self) -> str:
        return reverse("games:table", kwargs={"table_id": self.pk})

    @property
    def title(self) -> str:
        """The name its reader sees, in the active language (``table_title``; reads the
        owner unless the query selected him)."""
        return table_title(self.name, self.owner.username)

    @property
    def rules(self) -> Rules:
        return Rules.from_json(self.rules_json)

    @property
    def speed(self) -> Speed:
        """The speed its matches are rated in."""
        return table_speed(self)


class Seat(models.Model):
    """A chair at a table: empty, a user, or a bot of some level."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="seats")
    position = models.PositiveSmallIntegerField()
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    bot_level = models.CharField(max_length=16, choices=BotLevel.choices, blank=True)
    # How far its player had seen the hand in play when he last opened a correspondence
    # table (the hand's id and how many actions its log held), so the page marks the newer.
    seen_hand_id = models.PositiveIntegerField(null=True, blank=True)
    seen_actions = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["table", "position"]
        constraints = [
            models.UniqueConstraint(fields=["table", "position"], name="seat_position_unique"),
            models.UniqueConstraint(
                fields=["table", "user"],
                condition=models.Q(user__isnull=False),
                name="seat_one_per_user",
            ),
            models.CheckConstraint(
                condition=~(models.Q(user__isnull=False) & ~models.Q(bot_level="")),
                name="seat_user_or_bot",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.table} #{self.position + 1}"

    @property
    def is_empty(self) -> bool:
        return self.user_id is None and not self.bot_level


class Match(models.Model):
    """A series of hands at one table until somebody collects P-A-N."""

    class Status(models.TextChoices):
        PLAYING = "playing", _("playing")
        FINISHED = "finished", _("finished")
        ANNULLED = "annulled", _("annulled")

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="matches")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PLAYING)
    state = models.JSONField()  # the engine's MatchState: letters, dealer, hands played
    started_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-started_at"]
        verbose_name_plural = _("matches")

    def __str__(self) -> str:
        return f"{self.table} ({self.started_at:%Y-%m-%d %H:%M})"

    @property
    def match_state(self) -> MatchState:
        return MatchState.from_json(self.state)


class MatchPlayer(models.Model):
    """Who plays engine seat ``seat`` in a match (a user, or a bot level)."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="players")
    seat = models.PositiveSmallIntegerField()  # engine seat 0..n-1, clockwise
    table_position = models.PositiveSmallIntegerField()
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="match_players",
    )
    bot_level = models.CharField(max_length=16, choices=BotLevel.choices, blank=True)
    # Blank for a bot of the site: named by its level in each reader's language (``name``).
    display_name = models.CharField(max_length=150, blank=True)
    place = models.PositiveSmallIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["match", "seat"]
        constraints = [
            models.UniqueConstraint(fields=["match", "seat"], name="matchplayer_seat_unique")
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def name(self) -> str:
        """The player's name as the reader sees it: his own (a person's, a tournament
        bot's), else his bot level's in the active language ("Bot: greedy")."""
        if self.display_name or not self.bot_level:
            return self.display_name
        return str(BotLevel(self.bot_level).label)


class ParsedStates:
    """The engine states this process parsed or made lately, one per hand: parsing a
    hand's JSON rebuilds its whole history (milliseconds for a long hand), and a move is
    parsed by the service, then by every process that shows it. A state is reused only
    for JSON equal to the one it came from (HandState is immutable; a hand's ``state``
    is replaced on a change, never edited in place)."""

    def __init__(self, size: int = 512) -> None:
        self.size = size
        self.reused = 0
        self._states: OrderedDict[int, tuple[int, dict, HandState]] = OrderedDict()
        self._lock = threading.Lock()

    def parse(self, hand_id: int | None, version: int, data: dict) -> HandState:
        entry = self._states.get(hand_id) if hand_id is not None else None
        if entry is not None and entry[0] == version and entry[1] == data:
            self.reused += 1
            return entry[2]
        state = HandState.from_json(data)
        self.remember(hand_id, version, data, state)
        return state

    def remember(self, hand_id: int | None, version: int, data: dict, state: HandState) -> None:
        """``state`` is what ``data`` (its ``to_json()``) parses to at ``version``."""
        if hand_id is None:
            return
        with self._lock:
            self._states[hand_id] = (version, data, state)
            self._states.move_to_end(hand_id)
            while len(self._states) > self.size:
                self._states.popitem(last=False)


STATES = ParsedStates()


class Hand(models.Model):
    """One deal. ``state`` is the engine's exact JSON; ``version`` grows with every change.

    Whether the hand is over is the engine state's: ``outcome`` is a copy of its outcome
    (the JSON of ``engine_state.outcome``, written with it), kept in a column so that
    queries and the clock's index can read it.

    The clock (``clock``, the engine's ``Clock``): ``clock_ms`` holds every seat's
    remaining time at ``turn_started_at``; only the player to act is running, and
    ``deadline`` is when he runs out.
    """

    # A move writes a new version of its hand's row, and each index of the table one
    # entry more (the deadline changes, so PostgreSQL cannot update in place): the match
    # and the deadline are indexed only by the constraint and the clock's indexes below
    # (a row is in one of them at most).
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="hands", db_index=False)
    number = models.PositiveIntegerField()
    dealer = models.PositiveSmallIntegerField()
    seed = models.CharField(max_length=64)  # secret until the hand is over
    salt = models.CharField(max_length=32)
    commitment = models.CharField(max_length=64)  # SHA-256 shown from the deal
    state = models.JSONField()
    version = models.PositiveIntegerField(default=1)
    clock_ms = models.JSONField(default=list)
    increment_ms = models.PositiveIntegerField(default=0)
    move_ms = models.PositiveIntegerField(default=0)  # > 0: a correspondence clock (Clock.move_ms)
    bare_seats = models.PositiveSmallIntegerField(default=0)  # no increment (Clock.bare): Berserk
    turn_started_at = models.DateTimeField(null=True, blank=True)
    deadline = models.DateTimeField(null=True, blank=True)
    outcome = models.JSONField(null=True, blank=True)
    started_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["match", "number"]
        constraints = [
            models.UniqueConstraint(fields=["match", "number"], name="hand_number_unique")
        ]
        indexes = [
            # The clock tickers ask it ten times a second which live hands are due
            # (games.clock): only unfinished hands on a live clock, so it stays as small as
            # the live room, whatever the correspondence games open.
            models.Index(
                fields=["deadline"],
                condition=models.Q(outcome__isnull=True, move_ms=0),
                name="hand_live_deadline",
            ),
            # And once a second which correspondence hands are due, from an index of their
            # own (a move writes an entry in one of the two, as before in the one).
            models.Index(
                fields=["deadline"],
                condition=models.Q(outcome__isnull=True, move_ms__gt=0),
                name="hand_day_deadline",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.match} hand {self.number}"

    def get_absolute_url(self) -> str:
        return reverse("games:hand", kwargs={"hand_id": self.pk})

    @property
    def engine_state(self) -> HandState:
        state = STATES.parse(self.pk, self.version, self.state)
        if (
            state.outcome is None
            and self.outcome is not None
            and self.outcome.get("reason") == Reason.ABORTED
        ):
            # Aborted before the engine had an ``aborted`` outcome: the row kept the state
            # as it stood, and the outcome column alone said so. No data migration needed.
            return state.abort()
        return state

    @property
    def is_over(self) -> bool:
        """``engine_state.is_over``, read from the column that copies its outcome."""
        return self.outcome is not None

    @property
    def clock(self) -> Clock:
        """The hand's clock, read from its fields: running for the player to move
        while the hand has a deadline (the deadline decides his time left)."""
        return Clock.from_stored(
            clock_ms=self.clock_ms,
            increment_ms=self.increment_ms,
            move_ms=self.move_ms,
            bare_seats=self.bare_seats,
            to_move=self.state["to_move"],
            turn_started_at=_instant_or_none(self.turn_started_at),
            deadline=_instant_or_none(self.deadline),
        )

    @clock.setter
    def clock(self, clock: Clock) -> None:
        """Write ``clock`` on the hand's fields (not saved): the running seat must be the
        player to move, whom the stored form leaves to ``state``."""
        if clock.running not in (None, self.state["to_move"]):
            raise ValueError("only the player to move can have his time running")
        stored = clock.to_stored()
        self.clock_ms = stored["clock_ms"]
        self.increment_ms = stored["increment_ms"]
        self.move_ms = stored["move_ms"]
        self.bare_seats = stored["bare_seats"]
        self.turn_started_at = _moment_or_none(stored["turn_started_at"])
        self.deadline = _moment_or_none(stored["deadline"])


def _instant_or_none(moment: datetime | None) -> int | None:
    return None if moment is None else to_instant(moment)


def _moment_or_none(instant: int | None) -> datetime | None:
    return None if instant is None else to_moment(instant)


class Action(models.Model):
    """One entry of a hand's log: seat ``seat`` did ``move`` after ``time_used_ms``."""

    # Indexed by the constraint below, which starts with it (a move inserts its actions).
    hand = models.ForeignKey(Hand, on_delete=models.CASCADE, related_name="actions", db_index=False)
    index = models.PositiveIntegerField()
    seat = models.PositiveSmallIntegerField()
    move = models.JSONField()  # engine move JSON, e.g. {"type": "play", "cards": ["QH"]}
    entry = models.JSONField()  # engine public history entry (cards picked up, auto plays)
    time_used_ms = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["hand", "index"]
        constraints = [
            models.UniqueConstraint(fields=["hand", "index"], name="action_index_unique")
        ]

    def __str__(self) -> str:
        return f"{self.hand} #{self.index}"


class ChatMessage(models.Model):
    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="chat_messages")
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="chat_messages"
    )
    text = models.CharField(max_length=300)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    hidden_at = models.DateTimeField(null=True, blank=True)
    hidden_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="hidden_chat_messages",
    )

    class Meta:
        ordering = ["created_at"]
        permissions = [("hide_chatmessage", _("Can hide chat messages"))]

    def __str__(self) -> str:
        return f"{self.author}: {self.text[:40]}"


# --- ratings -------------------------------------------------------------------------------
# OpenSkill's Plackett-Luce model (games.ratings): a skill estimate ``mu`` and its
# uncertainty ``sigma`` per player, moved by the places of every rated match.

RATING_MU = 25.0
RATING_SIGMA = 25.0 / 3.0


class Rating(models.Model):
    """A player's current rating in one speed (created at his first rated match of it)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ratings"
    )
    speed = models.CharField(max_length=16, choices=Speed.choices)
    mu = models.FloatField(default=RATING_MU)
    sigma = models.FloatField(default=RATING_SIGMA)
    matches = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        # The leaderboard reads one speed by rating.
        indexes = [models.Index(fields=["speed", "-mu"], name="rating_speed_mu_desc")]
        constraints = [
            models.UniqueConstraint(fields=["user", "speed"], name="rating_one_per_speed")
        ]

    def __str__(self) -> str:
        return f"{self.user} ({self.speed}): {self.mu:.2f} ± {self.sigma:.2f}"


class RatingChange(models.Model):
    """What one rated match did to one player's rating (shown after the match)."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="rating_changes")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="rating_changes"
    )
    speed = models.CharField(max_length=16, choices=Speed.choices)  # the match's
    mu_before = models.FloatField()
    sigma_before = models.FloatField()
    mu_after = models.FloatField()
    sigma_after = models.FloatField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["match", "user"]
        constraints = [models.UniqueConstraint(fields=["match", "user"], name="ratingchange_once")]

    def __str__(self) -> str:
        return f"{self.user} in {self.match_id}: {self.mu_before:.2f} → {self.mu_after:.2f}"


class RatingRefund(models.Model):
    """Rating given back to a player: what he lost in one rated match to an account later
    marked for breaking fair play (``games.ratings.ratings_refund``). It is part of his
    rating's history: a replay or a rebuild applies it again where it was given."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="rating_refunds"
    )
    speed = models.CharField(max_length=16, choices=Speed.choices)  # the match's
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="rating_refunds")
    # The marked account whose games are refunded (None once that account is deleted).
    because_of = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        on_delete=models.SET_NULL,
        related_name="refunds_caused",
    )
    mu = models.FloatField()  # added to his skill estimate; his uncertainty stays
    created_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        ordering = ["created_at", "pk"]
        constraints = [models.UniqueConstraint(fields=["user", "match"], name="ratingrefund_once")]

    def __str__(self) -> str:
        return f"{self.user} in {self.match_id}: +{self.mu:.2f}"


# --- hand analysis -------------------------------------------------------------------------
# "Where did I lose this hand" (games.bots.analysis), computed by a Celery task on a
# player's request and kept: the result depends only on the hand, the seat and the budget.


class HandAnalysis(models.Model):
    """The analysis of one seat's decisions in a finished hand, asked for by its player.

    It waits ``queued`` for the analysis worker from ``started_at`` (when he asked); the
    worker marks it ``running`` and sets ``started_at`` again to when it began. ``done``
    of ``total`` decisions are analysed while it runs; ``result`` is the JSON of
    ``games.bots.analysis.Analysis`` when it is done. A user has at most one queued or
    running (a constraint of the database, so two requests at once cannot both start one).
    """

    # A run this old that is still marked running lost its worker, and a request waiting
    # this long in the queue lost its message (a broker wiped): neither blocks its user
    # or counts in the queue, and asking again starts it anew. Far above a hand's few
    # seconds, and above the wait behind many players asking at once.
    RUNNING_STALE = timedelta(minutes=5)
    QUEUED_STALE = timedelta(minutes=30)

    class Status(models.TextChoices):
        QUEUED = "queued", _("queued")
        RUNNING = "running", _("running")
        DONE = "done", _("done")
        FAILED = "failed", _("failed")

    hand = models.ForeignKey(Hand, on_delete=models.CASCADE, related_name="analyses")
    seat = models.PositiveSmallIntegerField()
    playouts = models.PositiveIntegerField()
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="hand_analyses"
    )
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    done = models.PositiveIntegerField(default=0)
    total = models.PositiveIntegerField(default=0)
    result = models.JSONField(null=True, blank=True)
    started_at = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name_plural = _("hand analyses")
        constraints = [
            models.UniqueConstraint(
                fields=["hand", "seat", "playouts"], name="handanalysis_once_per_budget"
            ),
            models.UniqueConstraint(
                fields=["user"],
                condition=models.Q(status__in=["queued", "running"]),
                name="handanalysis_one_pending_per_user",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.hand} seat {self.seat} ({self.status})"

    @classmethod
    def lost(cls, now: datetime) -> models.Q:
        """The pending analyses whose worker or message was lost (see ``*_STALE``)."""
        return models.Q(status=cls.Status.RUNNING, started_at__lt=now - cls.RUNNING_STALE) | (
            models.Q(status=cls.Status.QUEUED, started_at__lt=now - cls.QUEUED_STALE)
        )
