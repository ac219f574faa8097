"""Crash test of the HTTP API: SIGKILL the server under load, restart it, and prove that no
acknowledged move was lost and none was applied twice.

    python3 benchmarks/api_faults.py                     # 8 players, 15 s, 2 kills, SQLite
    python3 benchmarks/api_faults.py --players 16 --seconds 30 --kills 4 --json faults.json

Loopback only. The API runs as a uvicorn subprocess (``_api_harness.Server``) on a temporary
SQLite file (or ``--database-url``). Players (asyncio, one httpx connection each) create checks
as the GM and play them; every move carries an ``Idempotency-Key`` and ``expected_version`` and
is retried with the same key and body after a connection error or a 5xx until it is answered.
Meanwhile the server is killed with SIGKILL ``--kills`` times and restarted on the same
database and port. At the end every check is fetched and checked:

- every acknowledged (2xx) move is in the check's log (events and revealed record) at the
  version its answer gave, and the check's version is the number of distinct acknowledged
  actions (so nothing was applied twice and nothing unacknowledged slipped in);
- the events are numbered 1..n without gaps, and no version was moved to twice;
- re-sending acknowledged requests (every retried one and a sample of the others) with their
  keys answers the same version and changes nothing;
- the revealed record (checks still in progress are cancelled by the GM first) verifies: the
  commitment, then a replay through the rules (``skillcheck.sessions.RevealedRecord.verify``,
  ``skillcheck.records.GameRecord.replay``) to the acknowledged moves and status.

Prints a summary (moves acknowledged, retries, kills) and exits 1 on any violation.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import time
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import httpx
from _api_harness import (
    DEFAULT_PARAMS,
    GM_KEY,
    Check,
    Server,
    api_server,
    bearer,
    create_check,
    pick_move,
    player_client,
    throwaway_database,
)
from rich.console import Console

from skillcheck.sessions import CheckStatus, RevealedRecord

#: Pause between two tries of a request while the server is down.
RETRY_PAUSE = 0.05
#: Give up on one request after this long (the server should be back within seconds).
RETRY_LIMIT = 60.0
#: Acknowledged requests re-sent per check besides every retried one.
RESEND_SAMPLE = 3


@dataclass
class Ack:
    """A move the server acknowledged: its key, body and the version its answer gave."""

    key: str
    move: str
    expected_version: int
    version: int
    tries: int


@dataclass
class Played:
    check: Check
    acks: list[Ack] = field(default_factory=list)


@dataclass
class FaultReport:
    players: int
    seconds: float
    kills: int = 0
    restarts: int = 0
    checks: int = 0
    acknowledged: int = 0
    retries: int = 0
    retried_moves: int = 0
    #: Retried moves whose answer came from the idempotency key: applied before a kill, but
    #: their first answer was lost with the server (the case the keys exist for).
    answered_from_key: int = 0
    lost_creations: int = 0
    resent: int = 0
    records_verified: int = 0
    wall_seconds: float = 0.0
    violations: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.violations


class Unavailable(Exception):
    """The server did not answer (connection error or 5xx)."""


async def send(client: httpx.AsyncClient, method: str, url: str, **kwargs: Any) -> httpx.Response:
    try:
        response = await client.request(method, url, **kwargs)
    except httpx.TransportError as exc:
        raise Unavailable(repr(exc)) from exc
    if response.status_code >= 500:
        raise Unavailable(f"{response.status_code} {response.text[:200]}")
    return response


class Run:
    def __init__(self, server: Server, args: argparse.Namespace, report: FaultReport) -> None:
        self.server = server
        self.args = args
        self.report = report
        self.played: list[Played] = []
        self.deadline = 0.0
        self.kill_times: list[datetime] = []
        self.seeds = iter(range(args.seed * 1_000_003, args.seed * 1_000_003 + 10**6))
        self.params = {**DEFAULT_PARAMS, "move_limit": args.move_limit}

    async def new_check(self, client: httpx.AsyncClient) -> Played:
        """Create a check; a creation that got no answer is lost (nobody has its token) and
        another one is made. Creation has no idempotency key (docs/api.md)."""
        started = time.monotonic()
        while True:
            try:
                check = await create_check(client, next(self.seeds), self.params)
            except (httpx.TransportError, RuntimeError):
                self.report.lost_creations += 1
                if time.monotonic() - started > RETRY_LIMIT:
                    raise
                await asyncio.sleep(RETRY_PAUSE)
                continue
            played = Played(check)
            self.played.append(played)
            return played

    async def move(self, client: httpx.AsyncClient, played: Played, rng: random.Random) -> None:
        view = played.check.view
        body = {"move": pick_move(view, rng), "expected_version": view["version"]}
        key = f"mv-{rng.getrandbits(64):016x}"
        headers = {**played.check.headers, "Idempotency-Key": key}
        started, tries = time.monotonic(), 0
        while True:
            tries += 1
            try:
                answer = await send(client, "POST", f"{played.check.url}/moves", json=body,
                                    headers=headers)  # fmt: skip
                break
            except Unavailable:
                self.report.retries += 1
                if time.monotonic() - started > RETRY_LIMIT:
                    raise
                await asyncio.sleep(RETRY_PAUSE)
        if answer.status_code != 200:
            self.violation(played, f"move {body} answered {answer.status_code}: {answer.text}")
            raise RuntimeError(f"unexpected answer {answer.status_code}")
        new_view = answer.json()
        played.acks.append(Ack(key, body["move"], body["expected_version"], new_view["version"],
                               tries))  # fmt: skip
        self.report.acknowledged += 1
        self.report.retried_moves += tries > 1
        if tries > 1 and self.kill_times:
            applied = datetime.fromisoformat(new_view["updated_at"])
            self.report.answered_from_key += applied < self.kill_times[-1]
        played.check.view = new_view

    async def player(self, index: int) -> None:
        rng = random.Random(f"{self.args.seed}:{index}")
        async with player_client(self.server.base_url, timeout=10.0) as client:
            played = await self.new_check(client)
            while time.monotonic() < self.deadline:
                if played.check.view["status"] != "in_progress":
                    played = await self.new_check(client)
                    continue
                await self.move(client, played, rng)

    async def killer(self) -> None:
        rng = random.Random(f"{self.args.seed}:kills")
        start, span = time.monotonic(), self.args.seconds
        for number in range(1, self.args.kills + 1):
            at = start + span * (number - rng.uniform(0.2, 0.8)) / (self.args.kills + 0.5)
            await asyncio.sleep(max(0.0, at - time.monotonic()))
            self.kill_times.append(datetime.now(UTC))
            await asyncio.to_thread(self.server.kill)
            self.report.kills += 1
            await asyncio.sleep(rng.uniform(0.0, 0.5))  # let the players hit a dead port
            await asyncio.to_thread(self.server.start)
            self.report.restarts += 1

    async def play(self) -> None:
        self.deadline = time.monotonic() + self.args.seconds
        tasks = [asyncio.create_task(self.player(i)) for i in range(self.args.players)]
        tasks.append(asyncio.create_task(self.killer()))
        done, pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
        for task in pending:  # a failed restart or player stops the run at once
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
        for task in done:
            task.result()

    # ---- verification -------------------------------------------------------------------------
    def violation(self, played: Played, text: str) -> None:
        self.report.violations.append(f"check {played.check.check_id}: {text}")

    async def verify(self) -> None:
        self.report.checks = len(self.played)
        async with player_client(self.server.base_url, timeout=30.0) as client:
            for played in self.played:
                await self.verify_check(client, played)

    async def verify_check(self, client: httpx.AsyncClient, played: Played) -> None:
        url, player = played.check.url, played.check.headers
        acks = played.acks
        view = (await send(client, "GET", url, headers=player)).json()
        version = view["version"]
        versions = [a.version for a in acks]
        if versions != list(range(1, len(acks) + 1)) or any(
            a.expected_version != a.version - 1 for a in acks
        ):
            self.violation(played, f"acknowledged versions are {versions}, not 1..{len(acks)}")
        if len({a.key for a in acks}) != len(acks):
            self.violation(played, "an idempotency key was acknowledged twice")
        if version != len(acks):
            self.violation(played, f"version {version} but {len(acks)} acknowledged moves")

        # re-send every retried request and a sample of the others: same answer, no change
        rng = random.Random(played.check.check_id)
        retried = [a for a in acks if a.tries > 1]
        others = [a for a in acks if a.tries == 1]
        for ack in retried + rng.sample(others, min(RESEND_SAMPLE, len(others))):
            again = await send(
                client, "POST", f"{url}/moves",
                json={"move": ack.move, "expected_version": ack.expected_version},
                headers={**player, "Idempotency-Key": ack.key},
            )  # fmt: skip
            self.report.resent += 1
            if again.status_code != 200 or again.json()["version"] != ack.version:
                self.violation(
                    played, f"re-sent key {ack.key} answered {again.status_code} {again.text}"
                )
        after = (await send(client, "GET", url, headers=player)).json()
        if after["version"] != version:
            self.violation(played, f"re-sending moved the version {version} → {after['version']}")

        # the event log: gapless sequences, one event per version moved to, the acked moves
        events = await self.all_events(client, played)
        if [e["sequence"] for e in events] != list(range(1, len(events) + 1)):
            self.violation(played, "event sequence numbers have gaps or repeats")
        moved = [e for e in events if e["kind"] == "moved"]
        if [e["version"] for e in moved] != versions:
            self.violation(played, f"moved events at versions {[e['version'] for e in moved]}")
        if [e["payload"]["move"] for e in moved] != [a.move for a in acks]:
            self.violation(played, "the moved events do not hold the acknowledged moves")

        # the revealed record replays to the acknowledged moves
        if view["status"] == "in_progress":
            cancelled = await send(
                client, "POST", f"{url}/cancel", headers=bearer(GM_KEY),
                json={"reason": "fault test over", "expected_version": version},
            )  # fmt: skip
            if cancelled.status_code != 200:
                self.violation(played, f"cancel answered {cancelled.status_code}")
                return
        record = await send(client, "GET", f"{url}/record", headers=player)
        if record.status_code != 200:
            self.violation(played, f"record answered {record.status_code}: {record.text}")
            return
        revealed = RevealedRecord.from_dict(record.json())
        try:
            state = revealed.verify()
            replayed = revealed.record.replay()
        except Exception as exc:
            self.violation(played, f"the revealed record does not verify: {exc}")
            return
        if list(revealed.record.moves) != [a.move for a in acks]:
            self.violation(played, "the record's moves are not the acknowledged moves")
        if state.moves_made != len(acks) or replayed.moves_made != len(acks):
            self.violation(played, f"the record replays to {state.moves_made} moves")
        expected = CheckStatus.CANCELLED if view["status"] == "in_progress" else view["status"]
        if revealed.status is not CheckStatus(expected):
            self.violation(played, f"record status {revealed.status.value}, view {expected}")
        self.report.records_verified += 1

    async def all_events(self, client: httpx.AsyncClient, played: Played) -> list[dict[str, Any]]:
        events: list[dict[str, Any]] = []
        after = 0
        while True:
            page = await send(client, "GET", f"{played.check.url}/events",
                              params={"after": after, "limit": 1000},
                              headers=played.check.headers)  # fmt: skip
            found = page.json()["events"]
            if not found:
                return events
            events.extend(found)
            after = found[-1]["sequence"]


def run_faults(
    players: int = 8,
    seconds: float = 15.0,
    kills: int = 2,
    *,
    seed: int = 2026,
    move_limit: int = 40,
    database_url: str | None = None,
) -> FaultReport:
    """Play, kill and restart, then verify; the report lists every violation found."""
    args = argparse.Namespace(players=players, seconds=seconds, kills=kills, seed=seed,
                              move_limit=move_limit)  # fmt: skip
    report = FaultReport(players, seconds)
    started = time.monotonic()
    with throwaway_database(database_url) as url:
        server = api_server(url)
        try:
            server.start()
            run = Run(server, args, report)
            asyncio.run(run.play())
            asyncio.run(run.verify())
        finally:
            server.cleanup()
    report.wall_seconds = round(time.monotonic() - started, 2)
    return report


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--players", type=int, default=8, help="concurrent players (default 8)")
    ap.add_argument("--seconds", type=float, default=15.0, help="seconds of play (default 15)")
    ap.add_argument("--kills", type=int, default=2, help="SIGKILLs during play (default 2)")
    ap.add_argument("--seed", type=int, default=2026, help="deals, moves and kill times")
    ap.add_argument("--move-limit", type=int, default=40, help="moves per check (default 40)")
    ap.add_argument("--database-url", help="default: a temporary SQLite file")
    ap.add_argument("--json", metavar="FILE", help="write the report as JSON")
    args = ap.parse_args(argv)
    if not 1 <= args.players <= 200 or not 0 < args.seconds <= 600 or not 0 <= args.kills <= 50:
        ap.error("--players 1..200, --seconds (0, 600], --kills 0..50")
    console = Console()
    report = run_faults(args.players, args.seconds, args.kills, seed=args.seed,
                        move_limit=args.move_limit, database_url=args.database_url)  # fmt: skip
    console.print(
        f"{report.players} players, {report.seconds:g} s, [bold]{report.kills} kills[/] "
        f"({report.restarts} restarts): {report.acknowledged} moves acknowledged on "
        f"{report.checks} checks, {report.retries} retries ({report.retried_moves} moves "
        f"retried, {report.answered_from_key} of them applied before a kill and answered from "
        f"their key), {report.lost_creations} creations unanswered, {report.resent} re-sent, "
        f"{report.records_verified} records verified, {report.wall_seconds} s in all"
    )
    if report.ok:
        console.print("[green]no acknowledged move lost, none applied twice, every record "
                      "replays[/]")  # fmt: skip
    else:
        console.print(f"[red]{len(report.violations)} violations:[/]")
        for violation in report.violations[:50]:
            console.print(f"  {violation}", markup=False)
    if args.json:
        Path(args.json).write_text(json.dumps(asdict(report), indent=2) + "\n")
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
