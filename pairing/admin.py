"""The admin of the quick pairing: who waits for which table, to read, and a seek left
behind (its player gone without its socket closing) to delete, through the service."""

from __future__ import annotations

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games.admin import ReadOnlyAdmin
from games.ratings import display_rating
from pairing import services
from pairing.models import Seek


class StaleFilter(admin.SimpleListFilter):
    """Seeks whose socket has said nothing for ``services.STALE_AFTER`` (the next
    pairing run drops them anyway)."""

    title = _("socket silent")
    parameter_name = "silent"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list[tuple]:
        return [("yes", _("Yes")), ("no", _("No"))]

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        since = timezone.now() - services.STALE_AFTER
        if self.value() == "yes":
            return queryset.filter(seen_at__lt=since)
        if self.value() == "no":
            return queryset.filter(seen_at__gte=since)
        return queryset


@admin.register(Seek)
class SeekAdmin(ReadOnlyAdmin):
    list_display = (
        "user",
        "time_control",
        "seats",
        "shown_rating",
        "bots_after",
        "created_at",
        "seen_at",
        "is_silent",
    )
    list_filter = ("time_control", "size", StaleFilter, "created_at")
    list_select_related = ("user",)
    search_fields = ("user__username",)
    ordering = ("created_at",)

    @admin.display(description=_("seats"), ordering="size")
    def seats(self, seek: Seek) -> str:
        return str(seek.size) if seek.size else str(_("any"))

    @admin.display(description=_("rating"), ordering="rating")
    def shown_rating(self, seek: Seek) -> int:
        return display_rating(seek.rating)

    @admin.display(description=_("socket silent"), boolean=True)
    def is_silent(self, seek: Seek) -> bool:
        return seek.seen_at < timezone.now() - services.STALE_AFTER

    def delete_model(self, request: HttpRequest, obj: Seek) -> None:
        services.seek_remove(seek_id=obj.pk)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet) -> None:
        for seek_id in queryset.values_list("pk", flat=True):
            services.seek_remove(seek_id=seek_id)
