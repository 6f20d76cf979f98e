"""Web Push on the wire: one notice to one browser, through pywebpush.

The payload is encrypted to the browser's keys with aes128gcm (RFC 8291, RFC 8188) and
the request is signed with the site's VAPID key (RFC 8292); the push service's answer
(RFC 8030) decides what becomes of the subscription: 201 delivered, 404 and 410 gone
for good, 429 and 5xx (or no answer) worth another try later, anything else refused.
"""

from __future__ import annotations

import base64
import enum
import functools
import json
import logging
import threading
from dataclasses import dataclass
from datetime import datetime
from email.utils import parsedate_to_datetime
from urllib.parse import urlsplit

import requests
from cryptography.hazmat.primitives import serialization
from django.conf import settings
from py_vapid import Vapid
from pywebpush import WebPushException, webpush

logger = logging.getLogger(__name__)

# RFC 8292: the JWT may live up to 24 hours; the push services take one well inside it.
JWT_LIFETIME = 12 * 60 * 60
# Seconds to wait for a push service's answer before trying again later.
TIMEOUT = 10.0


class Outcome(enum.Enum):
    DELIVERED = "delivered"  # 201: the push service has it
    GONE = "gone"  # 404, 410: the browser unsubscribed or expired: forget it
    RETRY = "retry"  # 429, 5xx, no answer: try again later
    REFUSED = "refused"  # another 4xx: the request is wrong, and would be again


@dataclass(frozen=True)
class Result:
    outcome: Outcome
    status: int | None = None
    retry_after: float | None = None  # seconds, when the push service said


@dataclass(frozen=True)
class Message:
    """What a push says: its text and the page a tap opens (``url``), under ``title``;
    ``tag`` names what it is about, so a newer push about the same game replaces the
    older one on the device."""

    title: str
    body: str
    url: str
    tag: str
    lang: str
    ttl: int  # seconds the push service keeps it for a browser that is offline
    urgency: str  # RFC 8030: very-low, low, normal, high

    def payload(self) -> bytes:
        return json.dumps(
            {
                "title": self.title,
                "body": self.body,
                "url": self.url,
                "tag": self.tag,
                "lang": self.lang,
            },
            ensure_ascii=False,
            separators=(",", ":"),
        ).encode()


def enabled() -> bool:
    """Whether the site has a VAPID key to sign pushes with."""
    return bool(settings.VAPID_PRIVATE_KEY)


@functools.cache
def _vapid(private_key: str) -> Vapid:
    if "-----BEGIN" in private_key:
        return Vapid.from_pem(private_key.encode())
    return Vapid.from_string(private_key)


def vapid() -> Vapid:
    """The site's VAPID key pair, read once per process."""
    return _vapid(settings.VAPID_PRIVATE_KEY)


def application_server_key() -> str:
    """The public key browsers subscribe with (``applicationServerKey``): the uncompressed
    P-256 point in base64url, as ``PushManager.subscribe`` takes it."""
    point = vapid().public_key.public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    return base64.urlsafe_b64encode(point).rstrip(b"=").decode()


def generate_private_key_pem() -> str:
    """A new VAPID private key, as PEM (``manage.py vapid_keys``)."""
    key = Vapid()
    key.generate_keys()
    return key.private_pem().decode()


_sessions = threading.local()


def _session() -> requests.Session:
    """One HTTP session per thread: its connections to each push service are kept."""
    session = getattr(_sessions, "session", None)
    if session is None:
        session = _sessions.session = requests.Session()
    return session


def audience(endpoint: str) -> str:
    """The JWT's audience: the push service's origin (RFC 8292, section 2)."""
    parts = urlsplit(endpoint)
    return f"{parts.scheme}://{parts.netloc}"


def send(subscription: dict[str, object], message: Message, *, now: datetime) -> Result:
    """Send ``message`` to the browser of ``subscription`` (its ``endpoint`` and ``keys``),
    signed with a JWT that expires ``JWT_LIFETIME`` after ``now``."""
    claims = {
        "sub": settings.VAPID_SUBJECT,
        "aud": audience(str(subscription["endpoint"])),
        "exp": int(now.timestamp()) + JWT_LIFETIME,
    }
    try:
        webpush(
            subscription_info=subscription,
            data=message.payload().decode(),
            vapid_private_key=vapid(),
            vapid_claims=claims,
            content_encoding="aes128gcm",
            ttl=message.ttl,
            headers={"Urgency": message.urgency},
            timeout=TIMEOUT,
            requests_session=_session(),
        )
    except WebPushException as refusal:
        return _judged(refusal, now=now)
    except requests.RequestException as failure:  # refused, reset, timed out: no answer
        logger.info("push service unreachable (%s): trying again later", type(failure).__name__)
        return Result(Outcome.RETRY)
    return Result(Outcome.DELIVERED, status=201)


def _judged(refusal: WebPushException, *, now: datetime) -> Result:
    status = refusal.status_code
    if status in (404, 410):
        return Result(Outcome.GONE, status=status)
    if status is None or status == 429 or status >= 500:
        return Result(Outcome.RETRY, status=status, retry_after=_seconds(refusal.retry_after, now))
    logger.warning("push refused with %s: %s", status, refusal.message)
    return Result(Outcome.REFUSED, status=status)


def _seconds(retry_after: str | None, now: datetime) -> float | None:
    """Retry-After as seconds from ``now``: a number of seconds, or an HTTP date."""
    if not retry_after:
        return None
    try:
        return max(0.0, float(retry_after))
    except ValueError:
        pass
    try:
        return max(0.0, (parsedate_to_datetime(retry_after) - now).total_seconds())
    except (TypeError, ValueError):
        return None
