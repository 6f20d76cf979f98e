"""The client: the HTTP API through ``urllib``, one thread per game being played."""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
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


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m pan_bot", description=__doc__)
    parser.add_argument("--token", required=True, help="a personal access token (pan_...)")
    parser.add_argument("--url", default="http://127.0.0.1:8000", help="the site")
    parser.add_argument("--strategy", choices=("greedy", "ismcts", "random"), default="greedy")
    parser.add_argument("--playouts", type=int, default=None, help="ismcts: playouts per move")
    parser.add_argument("--games", type=int, default=0, help="stop after N matches (0: never)")
    parser.add_argument("--upgrade", action="store_true", help="make the account a bot first")
    options = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(name)s: %(message)s", stream=sys.stderr
    )
    api = Api(options.url, options.token)
    if options.upgrade:
        try:
            api.call("POST", "/api/bot/account/upgrade")
        except ApiError as exc:
            if exc.code != "already_bot":
                raise
    player = Player(api, chooser(options.strategy, options.playouts), games=options.games)
    with contextlib.suppress(KeyboardInterrupt):
        player.run()
    logger.info("%d moves played, %d matches over", player.moves, player.finished)
