"""Which lessons of the course an account has completed. A visitor's progress lives in
his browser only and is never written here."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class LessonProgress(models.Model):
    """``user`` solved the last step of the lesson ``lesson`` (its slug) at ``completed_at``."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="lessons_completed"
    )
    lesson = models.CharField(max_length=64)
    completed_at = models.DateTimeField()

    class Meta:
        verbose_name = _("completed lesson")
        verbose_name_plural = _("completed lessons")
        constraints = [
            models.UniqueConstraint(fields=["user", "lesson"], name="lesson_completed_once"),
        ]

    def __str__(self) -> str:
        return f"{self.user} completed {self.lesson}"
