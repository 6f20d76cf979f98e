"""E-mail in development: readable on the console and kept as files under var/mail/."""

from __future__ import annotations

from collections.abc import Sequence

from django.core.mail.backends.base import BaseEmailBackend
from django.core.mail.backends.console import EmailBackend as ConsoleBackend
from django.core.mail.backends.filebased import EmailBackend as FileBackend
from django.core.mail.message import EmailMessage


class DevelopmentEmailBackend(BaseEmailBackend):
    """Write every message both to stdout and to a file, so a developer can open the links."""

    def __init__(self, fail_silently: bool = False, **kwargs: object) -> None:
        super().__init__(fail_silently=fail_silently)
        self.console = ConsoleBackend(fail_silently=fail_silently)
        self.files = FileBackend(fail_silently=fail_silently)

    def send_messages(self, email_messages: Sequence[EmailMessage]) -> int:
        self.console.send_messages(email_messages)
        return self.files.send_messages(email_messages)
