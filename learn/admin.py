"""The admin of completed lessons: a page to read (every change goes through the services)."""

from __future__ import annotations

from django.contrib import admin

from games.admin import ReadOnlyAdmin
from learn.models import LessonProgress


@admin.register(LessonProgress)
class LessonProgressAdmin(ReadOnlyAdmin):
    list_display = ("completed_at", "user", "lesson")
    list_filter = ("lesson",)
    search_fields = ("user__username",)
