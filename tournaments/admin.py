"""The admin of tournaments: create and edit (through the services), and the staff actions.

Saving calls ``tournament_create`` / ``tournament_update``; the actions call one service
each. Entries and announcements are shown read-only: they change on the tournament page.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from core.errors import Refused
from games.admin import ReadOnlyInline
from tournaments import services
from tournaments.forms import ScheduleForm, TournamentForm
from tournaments.models import (
    Tournament,
    TournamentAnnouncement,
    TournamentEntry,
    TournamentSchedule,
)


class TournamentAdminForm(forms.ModelForm):
    """The model's fields as the staff page shows them, plus the action limit (in the rules)."""

    profile = TournamentForm.base_fields["profile"]
    seats_per_table = TournamentForm.base_fields["seats_per_table"]
    max_actions = TournamentForm.base_fields["max_actions"]

    class Meta:
        model = Tournament
        fields = [
            "name",
            "description",
            "starts_at",
            "min_players",
            "max_players",
            "seats_per_table",
            "profile",
            "max_actions",
            "base_seconds",
            "increment_seconds",
            "seconds_between_hands",
            "bots_allowed",
        ]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.instance.pk:
            self.initial["max_actions"] = self.instance.rules.max_actions

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if not self.errors:
            started = self.instance.pk and self.instance.status != Tournament.Status.SCHEDULED
            try:
                services.tournament_settings_check(
                    self.to_settings(), now=timezone.now(), starts_at_checked=not started
                )
            except Refused as refusal:
                raise forms.ValidationError(refusal.message) from None
        return data

    def to_settings(self) -> services.TournamentSettings:
        data = self.cleaned_data
        return services.TournamentSettings(
            **{name: data[name] for name in self.Meta.fields if name != "starts_at"},
            starts_at=data["starts_at"],
        )


class EntryInline(ReadOnlyInline):
    model = TournamentEntry
    fields = ["display_name", "user", "bot_level", "letters", "place", "eliminated_at"]


class AnnouncementInline(ReadOnlyInline):
    model = TournamentAnnouncement
    fields = ["created_at", "text", "posted_by"]


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin):
    form = TournamentAdminForm
    list_display = ["name", "status", "starts_at", "seats_per_table", "bots_allowed"]
    list_filter = ["status"]
    search_fields = ["name"]
    actions = ["start_now", "pause", "resume", "cancel"]

    def save_model(
        self, request: HttpRequest, obj: Tournament, form: TournamentAdminForm, change: bool
    ) -> None:
        """Through the services: they check the settings and schedule the start."""
        try:
            if change:
                saved = services.tournament_update(
                    tournament_id=obj.pk, by=request.user, settings=form.to_settings()
                )
            else:
                saved = services.tournament_create(by=request.user, settings=form.to_settings())
        except Refused as refusal:
            # The admin has no way back to the form from here: say why, keep the old state.
            messages.error(request, refusal.message)
            if not change:
                raise
            return
        obj.pk = saved.pk
        obj._state.adding = False
        obj.refresh_from_db()

    def get_inlines(self, request: HttpRequest, obj: Tournament | None) -> list[type]:
        return [EntryInline, AnnouncementInline] if obj is not None else []

    def _each(self, request: HttpRequest, queryset: QuerySet, call: Any, done: str) -> None:
        for tournament in queryset:
            try:
                call(tournament_id=tournament.pk, by=request.user)
            except Refused as refusal:
                messages.error(request, f"{tournament}: {refusal.message}")
            else:
                messages.success(request, f"{tournament}: {done}")

    @admin.action(description=_("Start now"))
    def start_now(self, request: HttpRequest, queryset: QuerySet) -> None:
        self._each(request, queryset, services.tournament_start, _("started"))

    @admin.action(description=_("Pause (stop every clock)"))
    def pause(self, request: HttpRequest, queryset: QuerySet) -> None:
        self._each(request, queryset, services.tournament_pause, _("paused"))

    @admin.action(description=_("Resume"))
    def resume(self, request: HttpRequest, queryset: QuerySet) -> None:
        self._each(request, queryset, services.tournament_resume, _("resumed"))

    @admin.action(description=_("Cancel the tournament"))
    def cancel(self, request: HttpRequest, queryset: QuerySet) -> None:
        self._each(request, queryset, services.tournament_cancel, _("cancelled"))


@admin.register(TournamentSchedule)
class TournamentScheduleAdmin(admin.ModelAdmin):
    """Recurring tournaments: the beat creates each one ahead (``schedule_create_due``)."""

    form = ScheduleForm
    list_display = ["name", "active", "time_of_day", "time_zone", "time_control", "max_players"]
    list_filter = ["active"]

    def save_model(
        self,
        request: HttpRequest,
        obj: TournamentSchedule,
        form: ScheduleForm,
        change: bool,
    ) -> None:
        """Through the service: it checks the settings and who may define schedules."""
        try:
            services.schedule_save(schedule=obj, by=request.user)
        except Refused as refusal:
            messages.error(request, refusal.message)
            if not change:
                raise
