"""The client: the HTTP API through ``urllib``, one thread per game being played."""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from games.bots import choose_move

logger = logging.getLogger("pan_bot")

STREAM_TIMEOUT = 60.0  # seconds without a byte (keep-alives come every 6 s): the stream is dead
REQUEST_TIMEOUT = 30.0
RECONNECT_WAIT = 5.0  # seconds before the event stream is opened again after a drop


class ApiError(Exception):
    """A refusal of the API: its HTTP status, code and message (and Retry-After)."""

    def __init__(self, status: int, code: str, message: str, retry_after: float = 0) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status, self.code, self.message, self.retry_after = status, code, message, retry_after


@dataclass
class Api:
    """The site's API for one token. The token makes one request at a time (the API
    answers 429 otherwise): requests wait for each other here; streams do not count."""

    url: str
    token: str
    lock: threading.Lock = field(default_factory=threading.Lock)

    def _request(self, method: str, path: str, body: dict | None = None) -> urllib.request.Request:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.url.rstrip("/") + path, data=data, method=method)
        request.add_header("Authorization", f"Bearer {self.token}")
        request.add_header("Accept-Language", "en")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        return request

    def call(self, method: str, path: str, body: dict | None = None) -> dict[str, Any]:
        """A request's JSON answer; ApiError for a refusal (after waiting out a 429)."""
        for _attempt in range(5):
            try:
                with (
                    self.lock,
                    urllib.request.urlopen(
                        self._request(method, path, body), timeout=REQUEST_TIMEOUT
                    ) as response,
                ):
                    return json.loads(response.read())
            except urllib.error.HTTPError as exc:
                error = _api_error(exc)
                if error.status != 429:
                    raise error from None
                time.sleep(error.retry_after or 1)
        raise error

    def stream(self, path: str) -> Iterator[dict[str, Any]]:
        """The lines of an NDJSON stream, keep-alives skipped, until the server ends it."""
        try:
            response = urllib.request.urlopen(self._request("GET", path), timeout=STREAM_TIMEOUT)
        except urllib.error.HTTPError as exc:
            raise _api_error(exc) from None
        with response:
            for raw in response:
                if raw.strip():
                    yield json.loads(raw)


def _api_error(exc: urllib.error.HTTPError) -> ApiError:
    try:
        error = json.loads(exc.read())["error"]
        code, message = error["code"], error["message"]
    except (ValueError, KeyError, TypeError):
        code, message = "http_error", str(exc)
    return ApiError(exc.code, code, message, float(exc.headers.get("Retry-After") or 0))


Chooser = Callable[[dict[str, Any], str], dict[str, Any]]


def chooser(strategy: str, playouts: int | None = None) -> Chooser:
    """A move from a ``view`` (a gameState's, for the seat to move) by one of the site's
    bots: ``greedy`` (a one-move heuristic) or ``ismcts`` (a search over the deals of
    the cards the seat cannot see)."""

    def choose(view: dict[str, Any], seed: str) -> dict[str, Any]:
        return choose_move(strategy, view, seed=seed, playouts=playouts)

    return choose


def body_of(move: dict[str, Any], state: dict[str, Any]) -> dict[str, Any]:
    """The API's move body from the engine's move JSON, at the state's hand and version."""
    body: dict[str, Any] = {"version": state["version"], "handId": state["handId"]}
    if move["type"] == "play":
        body["cards"] = move["cards"]
    else:
        body["pickup"] = move["count"]
    return body


class Player:
    """Plays the token's games: one thread per game stream."""

    def __init__(self, api: Api, choose: Chooser, *, games: int = 0) -> None:
        self.api, self.choose, self.games = api, choose, games
        self.kind = "board"
        self.playing: dict[int, threading.Thread] = {}
        self.finished = 0
        self.moves = 0

    def run(self) -> None:
        account = self.api.call("GET", "/api/account")
        self.kind = "bot" if account["bot"] else "board"
        logger.info("playing as %s (%s account)", account["username"], self.kind)
        while True:
            try:
                for line in self.api.stream("/api/stream/event"):
                    if self.handle_event(line):
                        return
            except (OSError, ApiError) as exc:  # a drop: open the stream again
                if isinstance(exc, ApiError) and exc.status in (401, 403):
                    raise
                logger.warning("the event stream dropped (%s); opening it again", exc)
            time.sleep(RECONNECT_WAIT)

    def handle_event(self, line: dict[str, Any]) -> bool:
        """Follow one event; True once the games asked for are played."""
        if line["type"] == "gameStart":
            game = line["game"]
            if game["matchId"] not in self.playing:  # a stream shows one match, then ends
                thread = threading.Thread(target=self.play, args=(game["tableId"],), daemon=True)
                self.playing[game["matchId"]] = thread
                thread.start()
        elif line["type"] == "gameFinish":
            self.finished += 1
            logger.info("match %s %s", line["game"]["matchId"], line["game"]["status"])
            if self.games and self.finished >= self.games:
                for thread in self.playing.values():
                    thread.join(timeout=10)
                return True
        return False

    def play(self, table_id: int) -> None:
        """Follow a game's stream and move whenever it is our turn."""
        done: set[tuple[int, int]] = set()  # (hand, version) already answered
        try:
            for line in self.api.stream(f"/api/{self.kind}/game/stream/{table_id}"):
                state = line.get("state") if line["type"] == "gameFull" else line
                if line["type"] in ("gameFull", "gameState") and state["myTurn"]:
                    position = (state["handId"], state["version"])
                    if position not in done:
                        done.add(position)
                        self.move(table_id, state)
        except (OSError, ApiError) as exc:
            logger.warning("table %s: the game stream ended: %s", table_id, exc)

    def move(self, table_id: int, state: dict[str, Any]) -> None:
        move = self.choose(state["view"], f"{state['handId']}:{state['version']}")
        try:
            self.api.call("POST", f"/api/{self.kind}/game/{table_id}/move", body_of(move, state))
            self.moves += 1
        except ApiError as exc:  # the table moved on (a clock, a resync): the stream says how
            logger.info("table %s: move refused: %s", table_id, exc)


DEFAULT_URL = "http://127.0.0.1:8000"

DESCRIPTION = """Play the games of a Pan online account with one of the site's own bots.

It waits for the account's games (seat it at a table and start the match, or challenge
it) and plays each to its end, one move whenever it is its turn. Make the token on the
site (Account settings, API access tokens, scope bot:play for a bot account, board:play
for your own). It runs until you stop it (Ctrl+C), or until the site refuses the token
for good (revoked, or its owner banned): then it says why and exits with status 1."""


def main(argv: list[str] | None = None, environ: Mapping[str, str] = os.environ) -> None:
    """The command line: options (or ``PAN_TOKEN`` and ``PAN_URL``), then play until
    stopped; a refusal for good ends the program with the server's message, status 1."""
    parser = argparse.ArgumentParser(
        prog="python -m pan_bot",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--token",
        default=environ.get("PAN_TOKEN"),
        help="a personal access token, pan_... (default: the environment's PAN_TOKEN)",
    )
    parser.add_argument(
        "--url",
        default=environ.get("PAN_URL", DEFAULT_URL),
        help=f"the site (default: the environment's PAN_URL, else {DEFAULT_URL})",
    )
    parser.add_argument(
        "--strategy",
        choices=("greedy", "ismcts", "random"),
        default="greedy",
        help="greedy: quick, one move ahead; ismcts: stronger and slower; random "
        "(default: %(default)s)",
    )
    parser.add_argument("--playouts", type=int, default=None, help="ismcts: playouts per move")
    parser.add_argument(
        "--games", type=int, default=0, help="stop after N matches (default: 0, never stop)"
    )
    parser.add_argument(
        "--upgrade",
        action="store_true",
        help="first make the account a bot account (for good: unrated, marked bot)",
    )
    options = parser.parse_args(argv)
    if not options.token:
        parser.error("give a token: --token pan_... or PAN_TOKEN")
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(name)s: %(message)s", stream=sys.stderr
    )
    api = Api(options.url, options.token)
    player = Player(api, chooser(options.strategy, options.playouts), games=options.games)
    try:
        if options.upgrade:
            upgrade(api)
        with contextlib.suppress(KeyboardInterrupt):
            player.run()
    except ApiError as refusal:
        parser.exit(1, f"{parser.prog}: {refusal.message} ({refusal.code})\n")
    except OSError as exc:
        parser.exit(1, f"{parser.prog}: {options.url} cannot be reached: {exc}\n")
    logger.info("%d moves played, %d matches over", player.moves, player.finished)


def upgrade(api: Api) -> None:
    """Make the token's account a bot account, unless it is one already."""
    try:
        api.call("POST", "/api/bot/account/upgrade")
    except ApiError as exc:
        if exc.code != "already_bot":
            raise
