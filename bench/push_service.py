"""A local Web Push service (RFC 8030) and a browser's side of a subscription: the push
service of the push tests and of ``make bench-push``.

``PushService`` is an HTTP server on 127.0.0.1 that takes the site's real requests as a
browser vendor's push service would: it answers 201 with the push message's
``Location``, or what a test tells it to for an endpoint (404, 410, 429 with
``Retry-After``, 5xx), and keeps what it received. ``Subscriber`` holds what a browser
holds after ``PushManager.subscribe``: its P-256 key pair and auth secret, from which
it decrypts a push (``http_ece``, aes128gcm). ``read_vapid`` reads and checks the VAPID
JWT of a request (RFC 8292) as a push service does.
"""

from __future__ import annotations

import base64
import json
import os
import threading
from collections import defaultdict, deque
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType

import http_ece
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass(frozen=True)
class Received:
    """One request the push service took: its endpoint's name, headers and body."""

    name: str
    headers: dict[str, str]
    body: bytes
    status: int  # what the push service answered


@dataclass(frozen=True)
class Answer:
    status: int
    retry_after: str | None = None


class PushService:
    """``with PushService() as service:`` a push service on ``service.origin``.

    ``service.endpoint(name)`` is a browser's push URL; ``service.answer(name, 429, 201)``
    makes the next requests to it get those answers in turn (then 201);
    ``service.received`` lists the requests, oldest first (``keep=False``: only counted,
    for the benchmark)."""

    def __init__(self, *, port: int = 0, keep: bool = True) -> None:
        self.keep = keep
        self.received: list[Received] = []
        self.count = 0
        self._answers: dict[str, deque[Answer]] = defaultdict(deque)
        self._lock = threading.Lock()
        self._arrived = threading.Condition(self._lock)
        self._server = ThreadingHTTPServer(("127.0.0.1", port), _handler_for(self))
        self._server.daemon_threads = True
        self.origin = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def endpoint(self, name: str) -> str:
        return f"{self.origin}/push/{name}"

    def answer(self, name: str, *statuses: int, retry_after: str | None = None) -> None:
        with self._lock:
            self._answers[name].extend(Answer(status, retry_after) for status in statuses)

    def wait_for(self, count: int, *, timeout: float = 30.0) -> list[Received]:
        """The requests received, once there are at least ``count`` (or ``timeout``)."""
        with self._arrived:
            self._arrived.wait_for(lambda: self.count >= count, timeout=timeout)
            return list(self.received)

    def take(self, name: str, headers: dict[str, str], body: bytes) -> Answer:
        with self._arrived:
            queued = self._answers.get(name)
            answer = queued.popleft() if queued else Answer(201)
            self.count += 1
            if self.keep:
                self.received.append(Received(name, headers, body, answer.status))
            self._arrived.notify_all()
        return answer

    def serve_forever(self) -> None:
        self._server.serve_forever()

    def __enter__(self) -> PushService:
        self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self._server.shutdown()
        self._server.server_close()


def _handler_for(service: PushService) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive: a sender's session reuses its connection

        def do_POST(self) -> None:  # the name http.server calls
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            name = self.path.removeprefix("/push/")
            answer = service.take(name, {k.lower(): v for k, v in self.headers.items()}, body)
            self.send_response(answer.status)
            if answer.status == 201:
                self.send_header("Location", f"/message/{service.count}")
            if answer.retry_after is not None:
                self.send_header("Retry-After", answer.retry_after)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: object) -> None:
            pass  # a benchmark's ten thousand requests need no lines

    return Handler


class Subscriber:
    """A browser's side of one subscription: the key pair and auth secret it made when it
    subscribed, and its endpoint at the push service."""

    def __init__(self, endpoint: str) -> None:
        self.endpoint = endpoint
        self.private_key = ec.generate_private_key(ec.SECP256R1())
        self.auth_secret = os.urandom(16)

    @property
    def p256dh(self) -> str:
        point = self.private_key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return b64url(point)

    @property
    def auth(self) -> str:
        return b64url(self.auth_secret)

    def decrypt(self, body: bytes) -> dict[str, object]:
        """The push's payload, decrypted as the browser decrypts it (aes128gcm)."""
        plain = http_ece.decrypt(
            body, private_key=self.private_key, auth_secret=self.auth_secret, version="aes128gcm"
        )
        return json.loads(plain)


@dataclass(frozen=True)
class VapidToken:
    claims: dict[str, object]
    public_key: str  # the "k" of the Authorization header, base64url
    header: dict[str, object]
    signature_valid: bool


def read_vapid(authorization: str) -> VapidToken:
    """The VAPID token of an ``Authorization: vapid t=<JWT>, k=<key>`` header (RFC 8292,
    section 3), its ES256 signature checked against ``k``."""
    scheme, _, rest = authorization.partition(" ")
    if scheme.lower() != "vapid":
        raise ValueError(f"not a vapid authorization: {scheme!r}")
    params = dict(part.strip().split("=", 1) for part in rest.split(","))
    token, key = params["t"], params["k"]
    head, payload, signature = token.split(".")
    raw = unb64url(signature)
    public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64url(key))
    try:
        public.verify(
            encode_dss_signature(int.from_bytes(raw[:32]), int.from_bytes(raw[32:])),
            f"{head}.{payload}".encode(),
            ec.ECDSA(hashes.SHA256()),
        )
        valid = len(raw) == 64
    except InvalidSignature:
        valid = False
    return VapidToken(
        claims=json.loads(unb64url(payload)),
        public_key=key,
        header=json.loads(unb64url(head)),
        signature_valid=valid,
    )
