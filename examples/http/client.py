"""A small typed client for the skillcheck HTTP API (docs/api.md), on httpx.

Copy this file into your bot, engine or VTT bridge, or run it as a script to play a short check
against a running server:

    SKILLCHECK_URL=http://127.0.0.1:8000 SKILLCHECK_GM_KEY=my-gm-key python3 examples/http/client.py

What it shows:

- one client per token (the GM key creates checks; the player token plays one check);
- every action carries the version it was decided on (``If-Match``) and an ``Idempotency-Key``,
  so a request whose answer was lost can be sent again without acting twice; a stale version
  raises :class:`VersionConflict` instead of playing on a position the player never saw;
- retries with backoff on network errors and on 429 (honouring ``Retry-After``);
- the live stream (server-sent events), resumed with ``Last-Event-ID`` after a disconnect;
- the revealed record, checked against the commitment published when the check was created.

Only httpx is needed. If the skillcheck library is installed too, the record is also replayed
through the rules (``RevealedRecord.verify``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx

__all__ = [
    "ApiError",
    "CreatedCheck",
    "Event",
    "SkillcheckClient",
    "VersionConflict",
    "commitment_of",
]

TERMINAL_KINDS = frozenset({"ended", "cancelled"})


class ApiError(Exception):
    """An answer of the API that is not a success: its RFC 9457 problem document."""

    def __init__(self, status: int, problem: dict[str, Any]) -> None:
        self.status = status
        self.problem = problem
        self.code: str = str(problem.get("code") or "http-error")
        self.detail: str = str(problem.get("detail") or problem.get("title") or "")
        self.field: str | None = problem.get("field")
        super().__init__(f"{status} {self.code}: {self.detail}")


class VersionConflict(ApiError):
    """The check moved on (409, or 412 with If-Match): fetch it, show it, decide again."""

    @property
    def actual_version(self) -> int | None:
        value = self.problem.get("actual_version")
        return int(value) if value is not None else None


@dataclass(frozen=True)
class CreatedCheck:
    check_id: str
    player_token: str  # shown once: hand it to the player (or build the /play link)
    spectator_token: str
    commitment: str
    commitment_scheme: str
    version: int
    view: dict[str, Any]
    webhook: dict[str, Any] | None

    def play_url(self, base_url: str, token: str | None = None) -> str:
        """The player's page; the token rides in the fragment, which never reaches a server, and
        the game in the query, a hint the page prepares that game's table from."""
        base = base_url.rstrip("/")
        game = self.view["game"]
        return f"{base}/play/{self.check_id}?game={game}#token={token or self.player_token}"


@dataclass(frozen=True)
class Event:
    sequence: int
    version: int
    kind: str  # created, moved, undone, ended, cancelled
    payload: dict[str, Any]
    at: str

    @property
    def terminal(self) -> bool:
        return self.kind in TERMINAL_KINDS

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Event:
        return cls(data["sequence"], data["version"], data["kind"], data["payload"], data["at"])


def commitment_of(revealed: dict[str, Any]) -> str:
    """The commitment a revealed record hashes to (docs/sessions.md, sha256-canonical-json/1):
    its game, parameters, seed and salt, and ``"seed_chosen": true`` when the GM chose the
    seed (the commitment binds that too, so a chosen deal cannot pass for a random one)."""
    record = revealed["record"]
    preimage = {
        "game": record["game"],
        "params": record["params"],
        "seed": record["seed"],
        "salt": revealed["salt"],
    }
    if revealed.get("seed_chosen") is True:
        preimage["seed_chosen"] = True
    text = json.dumps(preimage, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class SkillcheckClient:
    """One token's view of the API. ``retries`` bounds the extra attempts of a request."""

    def __init__(
        self,
        base_url: str,
        token: str,
        *,
        timeout: float = 15.0,
        retries: int = 4,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.retries = retries
        self._transport = transport
        self._http = httpx.Client(
            base_url=self.base_url,
            headers={"Authorization": f"Bearer {token}", "Accept": "application/json"},
            timeout=timeout,
            transport=transport,
        )

    def with_token(self, token: str) -> SkillcheckClient:
        """A client for the same server with another token (the player's, a spectator's)."""
        return SkillcheckClient(
            self.base_url, token, retries=self.retries, transport=self._transport
        )

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> SkillcheckClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- plumbing ------------------------------------------------------------------------

    def _request(
        self,
        method: str,
        path: str,
        *,
        body: Any = None,
        headers: dict[str, str] | None = None,
        params: dict[str, Any] | None = None,
        safe_to_repeat: bool,
    ) -> httpx.Response:
        """Send, retrying 429 always (the server refused before acting) and network errors when
        repeating cannot act twice (reads, and actions carrying an Idempotency-Key)."""
        for attempt in range(self.retries + 1):
            last = attempt == self.retries
            try:
                response = self._http.request(
                    method, path, json=body, headers=headers, params=params
                )
            except httpx.TransportError:
                if last or not safe_to_repeat:
                    raise
                time.sleep(_backoff(attempt))
                continue
            if response.status_code == 429 and not last:
                time.sleep(min(_retry_after(response) or _backoff(attempt), 30.0))
                continue
            if response.is_success:
                return response
            _raise_problem(response)
        raise AssertionError("unreachable")

    def _action(
        self,
        check_id: str,
        action: str,
        body: dict[str, Any] | None,
        version: int | None,
        idempotency_key: str | None,
    ) -> dict[str, Any]:
        headers = {"Idempotency-Key": idempotency_key or uuid.uuid4().hex}
        if version is not None:
            headers["If-Match"] = f'"{version}"'
        response = self._request(
            "POST",
            f"/v1/checks/{check_id}/{action}",
            body=body,
            headers=headers,
            safe_to_repeat=True,  # one key for every attempt of this request
        )
        view: dict[str, Any] = response.json()
        return view

    # ---- the API -------------------------------------------------------------------------

    def games(self) -> list[dict[str, Any]]:
        """Every game with its parameters (name, kind, default, minimum, maximum, choices)."""
        games: list[dict[str, Any]] = self._request("GET", "/v1/games", safe_to_repeat=True).json()[
            "games"
        ]
        return games

    def create(
        self,
        params: dict[str, Any],
        *,
        game: str = "three-towers",
        label: str | None = None,
        metadata: dict[str, Any] | None = None,
        seed: int | None = None,
        end_when_lost: bool = False,
        callback_url: str | None = None,
    ) -> CreatedCheck:
        """Deal a check (GM key). Not retried after a network error: a creation has no
        idempotency key (its player token is shown only once), so a lost answer means a check
        nobody can play; create another."""
        body: dict[str, Any] = {"game": game, "params": params, "end_when_lost": end_when_lost}
        for name, value in (
            ("label", label),
            ("metadata", metadata),
            ("seed", seed),
            ("callback_url", callback_url),
        ):
            if value is not None:
                body[name] = value
        data = self._request("POST", "/v1/checks", body=body, safe_to_repeat=False).json()
        return CreatedCheck(
            data["check_id"],
            data["player_token"],
            data["spectator_token"],
            data["commitment"],
            data["commitment_scheme"],
            data["version"],
            data["view"],
            data["webhook"],
        )

    def view(self, check_id: str) -> dict[str, Any]:
        view: dict[str, Any] = self._request(
            "GET", f"/v1/checks/{check_id}", safe_to_repeat=True
        ).json()
        return view

    def move(
        self,
        check_id: str,
        move: str,
        *,
        version: int | None = None,
        idempotency_key: str | None = None,
    ) -> dict[str, Any]:
        """Play ``move`` (``d3``, ``14``) on ``version``; returns the new view. Give your own
        ``idempotency_key`` to make a retry of the whole call safe too."""
        return self._action(check_id, "moves", {"move": move}, version, idempotency_key)

    def undo(
        self, check_id: str, *, version: int | None = None, idempotency_key: str | None = None
    ) -> dict[str, Any]:
        return self._action(check_id, "undo", None, version, idempotency_key)

    def concede(
        self, check_id: str, *, version: int | None = None, idempotency_key: str | None = None
    ) -> dict[str, Any]:
        return self._action(check_id, "concede", None, version, idempotency_key)

    def cancel(
        self,
        check_id: str,
        reason: str | None = None,
        *,
        version: int | None = None,
        idempotency_key: str | None = None,
    ) -> dict[str, Any]:
        """GM only: call the check off (no outcome)."""
        return self._action(check_id, "cancel", {"reason": reason}, version, idempotency_key)

    def events(self, check_id: str, after: int = 0, limit: int = 100) -> list[Event]:
        data = self._request(
            "GET",
            f"/v1/checks/{check_id}/events",
            params={"after": after, "limit": limit},
            safe_to_repeat=True,
        ).json()
        return [Event.from_dict(e) for e in data["events"]]

    def record(self, check_id: str) -> dict[str, Any]:
        """The revealed record (after the end; 409 record-not-available before)."""
        record: dict[str, Any] = self._request(
            "GET", f"/v1/checks/{check_id}/record", safe_to_repeat=True
        ).json()
        return record

    def stream(self, check_id: str, after: int = 0, *, reconnects: int = 10) -> Iterator[Event]:
        """The check's events from ``after`` on, live; ends after the terminal event. A dropped
        connection (or the server's 30-minute cap) is resumed with Last-Event-ID. A stream
        started at or after the terminal event yields nothing: the server ends it at once."""
        last, failures = after, 0
        while True:
            headers = {"Accept": "text/event-stream", "Last-Event-ID": str(last)}
            received = False
            try:
                with self._http.stream(
                    "GET",
                    f"/v1/checks/{check_id}/stream",
                    headers=headers,
                    timeout=httpx.Timeout(15.0, read=60.0),  # keepalives come every 15 s
                ) as response:
                    if not response.is_success:
                        response.read()
                        _raise_problem(response)
                    for event in _parse_sse(response.iter_lines()):
                        failures, received = 0, True
                        last = event.sequence
                        yield event
                        if event.terminal:
                            return
                if not received and self.view(check_id)["status"] != "in_progress":
                    return  # closed with nothing to send: the check ended before `after`
            except httpx.TransportError:
                pass
            failures += 1
            if failures > reconnects:
                raise ConnectionError(f"the stream of {check_id} keeps failing")
            time.sleep(_backoff(failures - 1))


def _backoff(attempt: int) -> float:
    return float(min(0.25 * 2**attempt, 8.0) * random.uniform(0.5, 1.0))


def _retry_after(response: httpx.Response) -> float | None:
    value = response.headers.get("Retry-After", "")
    return float(value) if value.strip().isdigit() else None


def _raise_problem(response: httpx.Response) -> None:
    try:
        problem = response.json()
    except ValueError:
        problem = {"detail": response.text}
    if not isinstance(problem, dict):
        problem = {"detail": str(problem)}
    if problem.get("code") == "version-conflict":
        raise VersionConflict(response.status_code, problem)
    raise ApiError(response.status_code, problem)


def _parse_sse(lines: Iterator[str]) -> Iterator[Event]:
    """Server-sent events (https://html.spec.whatwg.org/#event-stream-interpretation): ``id:``,
    ``event:`` and ``data:`` lines, a blank line ends a message, ``:`` lines are keepalives."""
    data: list[str] = []
    for line in lines:
        if line == "":
            if data:
                yield Event.from_dict(json.loads("\n".join(data)))
            data = []
        elif line.startswith(":"):
            continue
        else:
            name, _, value = line.partition(":")
            if name == "data":
                data.append(value.removeprefix(" "))
    if data:
        yield Event.from_dict(json.loads("\n".join(data)))


# ---- the script ----------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default=os.environ.get("SKILLCHECK_URL", "http://127.0.0.1:8000"))
    parser.add_argument("--gm-key", default=os.environ.get("SKILLCHECK_GM_KEY"))
    parser.add_argument("--moves", type=int, default=2, help="moves to play before conceding")
    args = parser.parse_args(argv)
    if not args.gm_key:
        parser.error("give --gm-key or set SKILLCHECK_GM_KEY (one of the server's GM keys)")
    try:
        return _play_one_check(args.url, args.gm_key, args.moves)
    except httpx.TransportError as exc:
        why = str(exc) or type(exc).__name__
        print(
            f"{parser.prog}: cannot reach {args.url} ({why}): is the server running there "
            "(skillcheck serve), and is --url right?",
            file=sys.stderr,
        )
    except ApiError as exc:
        hint = ""
        if exc.status == 401:
            hint = " (is --gm-key one of the server's GM keys? `skillcheck serve` says where)"
        print(f"{parser.prog}: the server refused: {exc}{hint}", file=sys.stderr)
    return 2


def _play_one_check(url: str, gm_key: str, moves: int) -> int:
    """Create a check, play ``moves`` moves and concede, follow it live, verify the record."""
    with SkillcheckClient(url, gm_key) as gm:
        names = [p["name"] for p in gm.games()[0]["parameters"]]
        print(f"three-towers parameters: {', '.join(names)}")
        created = gm.create(
            {"level": 6, "variant": {"kind": "quota", "suit": "moons", "skill": 3, "quota": 3}},
            label="Mira picks the lock",
            metadata={"pc": "Mira"},
        )
        print(f"created {created.check_id}, commitment {created.commitment}")
        print(f"player's page: {created.play_url(url)}")

        # A spectator follows the stream in the background, as a VTT or a chat bot would.
        seen: list[Event] = []
        spectator = gm.with_token(created.spectator_token)

        def follow() -> None:
            for event in spectator.stream(created.check_id):
                seen.append(event)
                print(f"  stream: #{event.sequence} {event.kind} (version {event.version})")

        follower = threading.Thread(target=follow, daemon=True)
        follower.start()

        player = gm.with_token(created.player_token)
        view = player.view(created.check_id)
        first_version = view["version"]
        for _ in range(moves):
            if view["status"] != "in_progress" or not view["legal_moves"]:
                break
            move = view["legal_moves"][0]  # a real client asks the player
            key, decided_on = uuid.uuid4().hex, view["version"]
            view = player.move(created.check_id, move, version=decided_on, idempotency_key=key)
            # The same request again (as after a lost answer): answered, not played twice.
            again = player.move(created.check_id, move, version=decided_on, idempotency_key=key)
            assert again["version"] == view["version"], "a retried move acted twice"
            print(f"moved {move}: version {view['version']} (the retry got the same answer)")

        try:
            player.concede(created.check_id, version=first_version)
        except VersionConflict as conflict:
            print(f"stale version refused: {conflict.status} {conflict.code}, "
                  f"the check is at version {conflict.actual_version}")  # fmt: skip
        if view["status"] == "in_progress":
            view = player.concede(created.check_id, version=view["version"])
        print(f"status {view['status']}, degree {view['degree']}: {view['outcome']['summary']}")

        follower.join(timeout=30)
        revealed = spectator.record(created.check_id)
        matches = commitment_of(revealed) == created.commitment == revealed["commitment"]
        print(f"revealed seed {revealed['record']['seed']}; commitment matches: {matches}")
        replayed = None
        try:
            from skillcheck.sessions import RevealedRecord
        except ImportError:
            pass
        else:
            RevealedRecord.from_dict(revealed).verify()  # the commitment, then a replay
            replayed = True
            print("replayed through the rules: OK")
        summary = {
            "check_id": created.check_id,
            "spectator_token": created.spectator_token,
            "status": view["status"],
            "degree": view["degree"],
            "version": view["version"],
            "stream": [[e.sequence, e.kind, e.version] for e in seen],
            "commitment_ok": matches,
            "replayed": replayed,
        }
        print("RESULT " + json.dumps(summary))
        return 0 if matches and seen and seen[-1].terminal else 1


if __name__ == "__main__":
    sys.exit(main())
