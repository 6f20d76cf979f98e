"""Where a signed-in user is seen from, for fair play: the device cookie and the hash of
the address.

* The device: a random id in a signed, long-lived, first-party cookie (``pan_device``),
  given to a browser the first time a signed-in user's page is served to it. A cookie
  whose signature does not hold is ignored (and replaced), so nobody can claim another
  browser's id.
* The address: never stored. HMAC-SHA256 of it under the salt of the day (UTC), a random
  secret kept in the database (``AddressSalt``) and deleted once nothing is hashed with
  it any more, so that a stored hash cannot be turned back into its address by trying
  every address. An IPv6 address counts by its /64 network, which is one household's
  line (the devices behind it pick their own addresses in it). A loopback address says
  nothing of the client (a proxy left out of ``TRUSTED_PROXIES``, a developer's machine)
  and is not hashed.

The client's address is ``REMOTE_ADDR`` as ``pan_site.proxy.ForwardedForMiddleware``
(first in the stack) leaves it: the trusted proxies' ``X-Forwarded-For`` believed.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import re
import secrets
import threading
from datetime import UTC, date, datetime, timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.http import HttpRequest, HttpResponse

from accounts.models import AddressSalt

DEVICE_COOKIE = "pan_device"
DEVICE_COOKIE_SALT = "accounts.devices"  # signs this cookie apart from any other
DEVICE_COOKIE_AGE = 60 * 60 * 24 * 365
_DEVICE_ID = re.compile(r"[0-9a-f]{32}")


def new_device_id() -> str:
    return secrets.token_hex(16)


def device_of(request: HttpRequest) -> str | None:
    """The device id of the request's browser; None without a cookie, or with one whose
    signature does not hold (forged, or signed with another key)."""
    device = request.get_signed_cookie(DEVICE_COOKIE, default=None, salt=DEVICE_COOKIE_SALT)
    return device if device is not None and _DEVICE_ID.fullmatch(device) else None


def set_device_cookie(response: HttpResponse, device: str) -> None:
    response.set_signed_cookie(
        DEVICE_COOKIE,
        device,
        salt=DEVICE_COOKIE_SALT,
        max_age=DEVICE_COOKIE_AGE,
        httponly=True,
        samesite="Lax",
        secure=settings.HTTPS,
    )


def comparable_address(address: str | None) -> str | None:
    """What of ``address`` tells one connection from another: an IPv4 address, an IPv6
    address's /64 network; None for none, a loopback or an unspecified one."""
    try:
        ip = ipaddress.ip_address((address or "").strip())
    except ValueError:
        return None
    if ip.is_loopback or ip.is_unspecified:
        return None
    if ip.version == 6:
        mapped = ip.ipv4_mapped
        if mapped is not None:
            return comparable_address(str(mapped))
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


def address_hash(address: str, salt: str) -> str:
    """HMAC-SHA256 of a comparable address under a day's salt, in hex."""
    return hmac.new(bytes.fromhex(salt), address.encode(), hashlib.sha256).hexdigest()


def address_hashes(address: str | None, now: datetime) -> tuple[str, str]:
    """``address`` hashed under the salt of ``now``'s day (made if it is the first
    address of the day) and under the day before's (empty if that day had none); two
    empty strings for an address not worth comparing."""
    comparable = comparable_address(address)
    if comparable is None:
        return "", ""
    today = utc_day(now)
    before = SALTS.get(today - timedelta(days=1), make=False)
    return (
        address_hash(comparable, SALTS.get(today, make=True) or ""),
        address_hash(comparable, before) if before else "",
    )


def utc_day(now: datetime) -> date:
    """The day whose salt hashes the addresses seen at ``now``."""
    return now.astimezone(UTC).date()


class SaltBook:
    """The salts of the last days, read (or made) once per process and day, and kept
    once committed."""

    KEEP_DAYS = 2  # today's and yesterday's: no address is hashed with an older one

    def __init__(self) -> None:
        self._salts: dict[date, str] = {}
        self._lock = threading.Lock()

    def get(self, day: date, *, make: bool) -> str | None:
        with self._lock:
            salt = self._salts.get(day)
        if salt is not None:
            return salt
        salt = AddressSalt.objects.filter(day=day).values_list("salt", flat=True).first()
        if salt is None and make:
            try:
                with transaction.atomic():
                    salt = AddressSalt.objects.create(day=day, salt=secrets.token_hex(32)).salt
            except IntegrityError:  # another process made it first
                salt = AddressSalt.objects.get(day=day).salt
        if salt is not None:
            # Only a salt the database holds for good: one made in a transaction that is
            # rolled back would hash this process's addresses apart from the others'.
            transaction.on_commit(lambda: self._remember(day, salt))
        return salt

    def _remember(self, day: date, salt: str) -> None:
        with self._lock:
            self._salts[day] = salt
            for old in [d for d in self._salts if d < day - timedelta(days=self.KEEP_DAYS)]:
                del self._salts[old]


SALTS = SaltBook()
