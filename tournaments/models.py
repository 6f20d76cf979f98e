"""Elimination tournaments: who registered, where everyone sits, letters and places.

The games themselves are ordinary games rows (``games.Table``, ``Match``, ``Hand``);
a tournament links its tables from this side (``TournamentTable``), so the games app
knows nothing about tournaments beyond asking whether a table belongs to one.

An entry carries its letters (0-3) from hand to hand and table to table; the match
at a tournament table starts from the letters its players carry.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from games.engine import Rules
from games.models import BotLevel, Table
from tournaments.occurrences import ALL_DAYS
from tournaments.seating import MAX_PLAYERS, MAX_SEATS, MIN_PLAYERS, MIN_SEATS

PAN = 3


class Format(models.TextChoices):
    """The kinds of tournament (their keys in ``tournaments.formats.FORMATS``)."""

    ELIMINATION = "rolling_elimination", _("P-A-N elimination")
    ARENA = "arena", _("Arena")


ARENA_MINUTES_MIN, ARENA_MINUTES_MAX = 20, 180


class Tournament(models.Model):
    class Status(models.TextChoices):
        SCHEDULED = "scheduled", _("registration open")
        RUNNING = "running", _("running")
        PAUSED = "paused", _("paused")
        FINISHED = "finished", _("finished")
        CANCELLED = "cancelled", _("cancelled")

    name = models.CharField(_("name"), max_length=80)
    description = models.TextField(_("description"), blank=True)
    starts_at = models.DateTimeField(_("start time"))
    min_players = models.PositiveSmallIntegerField(_("minimum players"), default=MIN_PLAYERS)
    max_players = models.PositiveSmallIntegerField(_("maximum players"), default=64)
    seats_per_table = models.PositiveSmallIntegerField(_("seats per table"), default=MAX_SEATS)
    profile = models.CharField(_("rule profile"), max_length=32, blank=True)
    rules_json = models.JSONField(_("rules"))
    base_seconds = models.PositiveIntegerField(_("seconds per hand"), default=180)
    increment_seconds = models.PositiveIntegerField(_("seconds added per action"), default=2)
    bots_allowed = models.BooleanField(_("bots may be registered"), default=False)
    seconds_between_hands = models.FloatField(_("seconds between hands"), default=4.0)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.SCHEDULED)
    format = models.CharField(
        _("format"), max_length=24, choices=Format.choices, default=Format.ELIMINATION
    )
    # An arena's length, its smallest table (``seats_per_table`` is its largest) and
    # whether its games are rated; ``ends_at`` is set at its start.
    minutes = models.PositiveSmallIntegerField(_("length in minutes"), null=True, blank=True)
    seats_min = models.PositiveSmallIntegerField(_("smallest table"), default=0)
    rated = models.BooleanField(_("rated"), default=False)
    ends_at = models.DateTimeField(null=True, blank=True)
    # The site's calendar of arenas (``tournaments.calendar``): one tournament per key.
    calendar_key = models.CharField(max_length=48, blank=True)

    class CancelCause(models.TextChoices):
        TOO_FEW = "too_few", _("fewer players registered than the minimum")
        STAFF = "staff", _("cancelled by the staff")

    cancel_cause = models.CharField(max_length=16, choices=CancelCause.choices, blank=True)
    cancel_reason = models.CharField(_("reason for cancelling"), max_length=300, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="tournaments_created"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    paused_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # Each registered player is told once, a minute before the start (services.schedules).
    reminded_at = models.DateTimeField(null=True, blank=True)
    # At the start, bots of this level fill the tables to full (blank: no bots are added).
    fill_bot_level = models.CharField(
        _("fill the tables with bots of level"), max_length=16, choices=BotLevel.choices, blank=True
    )

    class Meta:
        ordering = ["-starts_at"]
        indexes = [models.Index(fields=["status", "starts_at"])]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(min_players__gte=MIN_PLAYERS, max_players__lte=MAX_PLAYERS)
                & models.Q(min_players__lte=models.F("max_players")),
                name="tournament_players_3_to_512",
            ),
            models.CheckConstraint(
                condition=models.Q(seats_per_table__gte=MIN_SEATS, seats_per_table__lte=MAX_SEATS),
                name="tournament_seats_2_to_4",
            ),
            models.UniqueConstraint(
                fields=["calendar_key"],
                condition=~models.Q(calendar_key=""),
                name="tournament_calendar_once",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("tournaments:detail", kwargs={"tournament_id": self.pk})

    @property
    def is_arena(self) -> bool:
        return self.format == Format.ARENA

    @property
    def smallest_table(self) -> int:
        """An arena's smallest table (an elimination's tables are all of one size)."""
        return self.seats_min or self.seats_per_table

    @property
    def rules(self) -> Rules:
        return Rules.from_json(self.rules_json)

    @property
    def is_live(self) -> bool:
        """Started and not over: running or paused."""
        return self.status in (self.Status.RUNNING, self.Status.PAUSED)

    @property
    def is_over(self) -> bool:
        return self.status in (self.Status.FINISHED, self.Status.CANCELLED)


class TournamentTable(models.Model):
    """A games table used by a tournament, numbered from 1; closed when it breaks."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="tables")
    table = models.OneToOneField(Table, on_delete=models.CASCADE, related_name="tournament_table")
    number = models.PositiveSmallIntegerField()
    opened_at = models.DateTimeField(auto_now_add=True)
    closed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["tournament", "number"]
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "number"], name="tournamenttable_number_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.tournament} #{self.number}"


class TournamentEntry(models.Model):
    """A registered player (a user, or a bot where the tournament allows bots)."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="entries")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="tournament_entries",
    )
    bot_level = models.CharField(max_length=16, choices=BotLevel.choices, blank=True)
    display_name = models.CharField(max_length=150)
    registered_at = models.DateTimeField(auto_now_add=True)
    letters = models.PositiveSmallIntegerField(default=0)
    place = models.PositiveSmallIntegerField(null=True, blank=True)
    eliminated_at = models.DateTimeField(null=True, blank=True)
    disqualified = models.BooleanField(default=False)
    disqualify_reason = models.CharField(max_length=300, blank=True)
    # Fair play: taken off the results (his account was marked for breaking it); the
    # others' places close up. ``place_played`` keeps the place as it was played, so that
    # lifting the mark gives every place back (``tournaments.services.fairplay``).
    struck_at = models.DateTimeField(null=True, blank=True)
    place_played = models.PositiveSmallIntegerField(null=True, blank=True)
    table = models.ForeignKey(
        TournamentTable,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="entries",
    )
    position = models.PositiveSmallIntegerField(null=True, blank=True)
    # An arena's: points, good games in a row (the flame), games finished, the
    # tie-break, the rating at joining (the ranking before points), paused (not paired),
    # in the pool since (None: seated, or paused), and the last game's opponents (entry
    # ids), whom the next pairing avoids while others wait.
    points = models.DecimalField(max_digits=7, decimal_places=1, default=0)
    streak = models.PositiveSmallIntegerField(default=0)
    games_played = models.PositiveSmallIntegerField(default=0)
    performance = models.FloatField(null=True, blank=True)
    start_rating = models.IntegerField(default=0)
    paused = models.BooleanField(default=False)
    waiting_since = models.DateTimeField(null=True, blank=True)
    last_opponents = models.JSONField(default=list, blank=True)

    class Meta:
        ordering = ["tournament", "registered_at", "pk"]
        verbose_name_plural = _("tournament entries")
        indexes = [
            models.Index(fields=["tournament", "eliminated_at"]),
            models.Index(fields=["tournament", "-points", "-performance"], name="entry_arena_rank"),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "user"],
                condition=models.Q(user__isnull=False),
                name="tournamententry_one_per_user",
            ),
            models.UniqueConstraint(
                fields=["tournament", "display_name"], name="tournamententry_name_unique"
            ),
            models.UniqueConstraint(
                fields=["table", "position"],
                condition=models.Q(table__isnull=False),
                name="tournamententry_one_per_seat",
            ),
            models.CheckConstraint(
                condition=models.Q(letters__lte=PAN), name="tournamententry_letters_0_to_3"
            ),
            models.CheckConstraint(
                condition=~(models.Q(user__isnull=False) & ~models.Q(bot_level="")),
                name="tournamententry_user_or_bot",
            ),
        ]

    def __str__(self) -> str:
        return self.display_name

    @property
    def is_in(self) -> bool:
        return self.eliminated_at is None


class ArenaGame(models.Model):
    """One game of an arena: one hand at one of its tables (its match's only hand)."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="games")
    link = models.ForeignKey(TournamentTable, on_delete=models.CASCADE, related_name="games")
    match = models.OneToOneField("games.Match", on_delete=models.CASCADE, related_name="arena_game")
    started_at = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)
    counted = models.BooleanField(default=False)  # False: stopped, or still in play

    class Meta:
        ordering = ["tournament", "pk"]
        indexes = [models.Index(fields=["tournament", "finished_at"])]

    def __str__(self) -> str:
        return f"{self.tournament} game {self.pk}"


class ArenaPlayer(models.Model):
    """A player's part in one arena game: his seat, Berserk, and once it is over his
    place and points (``tournaments.arena_scale``)."""

    game = models.ForeignKey(ArenaGame, on_delete=models.CASCADE, related_name="players")
    entry = models.ForeignKey(TournamentEntry, on_delete=models.CASCADE, related_name="arena_games")
    seat = models.PositiveSmallIntegerField()  # the engine's seat in the hand
    berserk = models.BooleanField(default=False)
    place_best = models.PositiveSmallIntegerField(null=True, blank=True)
    place_worst = models.PositiveSmallIntegerField(null=True, blank=True)
    points = models.DecimalField(max_digits=5, decimal_places=1, null=True, blank=True)
    doubled = models.BooleanField(default=False)
    berserk_point = models.BooleanField(default=False)
    actions = models.PositiveSmallIntegerField(default=0)
    opponents_rating = models.FloatField(default=0.0)

    class Meta:
        ordering = ["game", "seat"]
        indexes = [models.Index(fields=["entry", "game"])]
        constraints = [
            models.UniqueConstraint(fields=["game", "entry"], name="arenaplayer_once_per_game"),
            models.UniqueConstraint(fields=["game", "seat"], name="arenaplayer_seat_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.entry} in {self.game}"


class TournamentAnnouncement(models.Model):
    """A message from the staff, shown on the tournament page."""

    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="announcements"
    )
    text = models.CharField(_("announcement"), max_length=500)
    posted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return self.text[:60]


# The weekdays of a schedule's mask (``occurrences.WEEKDAY_BITS``), Monday first.
WEEKDAY_NAMES = [
    _("Monday"),
    _("Tuesday"),
    _("Wednesday"),
    _("Thursday"),
    _("Friday"),
    _("Saturday"),
    _("Sunday"),
]


class TournamentSchedule(models.Model):
    """A recurring tournament the staff defines once ("every day at 20:00, 3+2, up to 64
    players"); the beat creates each occurrence's tournament ahead of its start
    (``services.schedule_create_due``)."""

    name = models.CharField(_("name"), max_length=80)
    description = models.TextField(_("description"), blank=True)
    weekdays = models.PositiveSmallIntegerField(
        _("weekdays"),
        default=ALL_DAYS,
        help_text=_("Monday 1, Tuesday 2, Wednesday 4, … Sunday 64"),
    )
    time_of_day = models.TimeField(_("local start time"))
    time_zone = models.CharField(_("time zone"), max_length=64, default="Europe/Warsaw")
    time_control = models.CharField(_("time control"), max_length=8, default="3+2")
    min_players = models.PositiveSmallIntegerField(_("minimum players"), default=MIN_PLAYERS)
    max_players = models.PositiveSmallIntegerField(_("maximum players"), default=64)
    seats_per_table = models.PositiveSmallIntegerField(_("seats per table"), default=MAX_SEATS)
    profile = models.CharField(_("rule profile"), max_length=32, default="tournament")
    max_actions = models.PositiveIntegerField(_("action limit per hand"), default=500)
    seconds_between_hands = models.FloatField(_("seconds between hands"), default=4.0)
    fill_with_bots = models.BooleanField(_("fill the tables with bots at the start"), default=False)
    bot_level = models.CharField(
        _("bot level"), max_length=16, choices=BotLevel.choices, default=BotLevel.GREEDY
    )
    create_ahead_hours = models.PositiveSmallIntegerField(
        _("hours ahead to open registration"), default=24
    )
    # Every hour of its weekdays at ``time_of_day``'s minute, rather than once a day.
    every_hour = models.BooleanField(_("every hour"), default=False)
    format = models.CharField(
        _("format"), max_length=24, choices=Format.choices, default=Format.ELIMINATION
    )
    minutes = models.PositiveSmallIntegerField(_("arena: length in minutes"), null=True, blank=True)
    seats_min = models.PositiveSmallIntegerField(_("arena: smallest table"), default=0)
    rated = models.BooleanField(_("arena: rated"), default=False)
    bots_allowed = models.BooleanField(_("bots may be registered"), default=False)
    # The site's own calendar of arenas (``tournaments.calendar``): one schedule per key.
    calendar_key = models.CharField(max_length=32, blank=True)
    active = models.BooleanField(_("active"), default=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="tournament_schedules"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        verbose_name = _("tournament schedule")
        verbose_name_plural = _("tournament schedules")
        constraints = [
            models.CheckConstraint(
                condition=models.Q(weekdays__gte=1, weekdays__lte=ALL_DAYS),
                name="tournamentschedule_weekdays_mask",
            ),
            models.CheckConstraint(
                condition=models.Q(create_ahead_hours__gte=1, create_ahead_hours__lte=24 * 14),
                name="tournamentschedule_ahead_1h_to_14d",
            ),
            models.UniqueConstraint(
                fields=["calendar_key"],
                condition=~models.Q(calendar_key=""),
                name="tournamentschedule_calendar_once",
            ),
        ]

    def __str__(self) -> str:
        return self.name


class ScheduledTournament(models.Model):
    """One occurrence of a schedule and the tournament created for it: the unique pair
    (schedule, start) makes creating it happen once, however many sweeps run at once."""

    schedule = models.ForeignKey(
        TournamentSchedule, on_delete=models.CASCADE, related_name="occurrences"
    )
    starts_at = models.DateTimeField()
    tournament = models.OneToOneField(
        Tournament, on_delete=models.CASCADE, related_name="scheduled_as"
    )

    class Meta:
        ordering = ["schedule", "starts_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["schedule", "starts_at"], name="scheduledtournament_once"
            )
        ]

    def __str__(self) -> str:
        return f"{self.schedule} {self.starts_at:%Y-%m-%d %H:%M}"
