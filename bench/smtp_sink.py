"""A local SMTP server that keeps what it receives (aiosmtpd, a development dependency):
the mail server of the e-mail tests and of ``make bench-mail``."""

from __future__ import annotations

import logging
import socket
from email import message_from_bytes, policy
from email.message import EmailMessage
from types import TracebackType
from typing import Any

from aiosmtpd.controller import Controller
from django.test.utils import override_settings


def free_port() -> int:
    """A TCP port nobody listens on (just now)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def smtp_settings(port: int, **more: object) -> override_settings:
    """Django's settings that send e-mail over SMTP to 127.0.0.1:``port``, plainly."""
    return override_settings(
        EMAIL_BACKEND="django.core.mail.backends.smtp.EmailBackend",
        EMAIL_HOST="127.0.0.1",
        EMAIL_PORT=port,
        EMAIL_USE_TLS=False,
        EMAIL_HOST_USER="",
        EMAIL_HOST_PASSWORD="",
        **more,
    )


class _Keeper:
    def __init__(self) -> None:
        self.messages: list[EmailMessage] = []

    # aiosmtpd calls the handler by this name.
    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.messages.append(message_from_bytes(envelope.content, policy=policy.default))
        return "250 OK"


class SmtpSink:
    """``with SmtpSink() as sink:`` an SMTP server on ``sink.port``; ``sink.messages``."""

    def __init__(self, port: int | None = None) -> None:
        # aiosmtpd logs every SMTP command at INFO: a thousand lines for a hundred e-mails.
        logging.getLogger("mail.log").setLevel(logging.WARNING)
        self.port = port or free_port()
        self._keeper = _Keeper()
        self._controller = Controller(self._keeper, hostname="127.0.0.1", port=self.port)

    def settings(self, **more: object) -> override_settings:
        """Django's settings that send the site's e-mail here (``more`` besides)."""
        return smtp_settings(self.port, **more)

    @property
    def messages(self) -> list[EmailMessage]:
        return self._keeper.messages

    def __enter__(self) -> SmtpSink:
        self._controller.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self._controller.stop()
