"""Load benchmark of the HTTP API's move endpoint against a bare Litestar JSON endpoint.

    python3 benchmarks/api_load.py                                   # 50 players, SQLite, 1 worker
    python3 benchmarks/api_load.py --players 50 --seconds 20 --json out.json
    python3 benchmarks/api_load.py --workers 2 \\
        --database-url postgresql+psycopg://postgres@127.0.0.1:5432/test

Loopback only. The real API runs as ``python -m uvicorn api.app:create_app --factory`` in a
subprocess on a free port (settings from SKILLCHECK_* variables; a fresh temporary SQLite file by
default; a PostgreSQL URL without ``options`` gets a throwaway schema, dropped at the end). N checks
are created with a GM key, then N simulated players (asyncio, one httpx connection each) play
them: GET the view, pick a legal move (deterministic from ``--seed``), POST it with
``expected_version``; a player whose check ends gets a new one. Then, in the same run, a tiny
Litestar app defined here (``create_bare_app``: an async handler answering a small JSON POST) is
served by uvicorn with the same settings and hammered by the same N clients. Reports moves/s,
p50/p90/p99 of the move endpoint, requests/s of the bare endpoint and the ratio; the client's and
the server's CPU use show which side was the bottleneck.

Targets (issue 4): moves/s ≥ 40 % of the bare endpoint's requests/s on SQLite, p99 of the move
endpoint < 50 ms at 50 players.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import httpx
from _api_harness import (
    API_APP,
    BENCHMARKS,
    DEFAULT_PARAMS,
    ROOT,
    Check,
    Server,
    api_server,
    create_check,
    latency_summary,
    pick_move,
    player_client,
    throwaway_database,
)
from litestar import Litestar, get, post
from rich.console import Console
from rich.table import Table

#: uvicorn's ``--factory`` target of the bare app (``--app-dir benchmarks``).
BARE_APP = "api_load:create_bare_app"
TARGET_RATIO = 0.40
TARGET_P99_MS = 50.0


def create_bare_app() -> Litestar:
    """The baseline: the cheapest useful Litestar JSON endpoint (async, no database)."""

    @post("/echo", sync_to_thread=False, status_code=200)
    async def echo(data: dict[str, Any]) -> dict[str, Any]:
        return {"ok": True, "echo": data}

    @get("/health", sync_to_thread=False)
    async def health() -> dict[str, str]:
        return {"status": "ok"}

    return Litestar(route_handlers=[echo, health], openapi_config=None)


# ---- measuring --------------------------------------------------------------------------------


@dataclass
class Phase:
    """Counters of one phase; only what happens after ``start`` (the end of the warm-up)."""

    start: float = 0.0
    end: float = 0.0
    main: list[float] = field(default_factory=list)  # move POSTs (API) / echo POSTs (bare)
    reads: list[float] = field(default_factory=list)  # view GETs (API only)
    created: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    client_cpu: float = 0.0
    server_cpu: float = 0.0

    def error(self, what: str) -> None:
        self.errors[what] = self.errors.get(what, 0) + 1

    @property
    def seconds(self) -> float:
        return max(self.end - self.start, 1e-9)

    def summary(self) -> dict[str, Any]:
        requests = len(self.main) + len(self.reads)
        return {
            "seconds": round(self.seconds, 3),
            "main_requests": len(self.main),
            "main_per_s": len(self.main) / self.seconds,
            "requests_per_s": requests / self.seconds,
            "main_latency": latency_summary(self.main),
            "read_latency": latency_summary(self.reads),
            "checks_created": self.created,
            "errors": dict(self.errors),
            "client_cpu_pct": 100 * self.client_cpu / self.seconds,
            "server_cpu_pct": 100 * self.server_cpu / self.seconds,
        }


def process_group_cpu(pgid: int) -> float:
    """User + system CPU seconds of the live processes of process group ``pgid`` (Linux)."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat.rpartition(")")[2].split()
        if int(fields[2]) == pgid:  # fields[0] is the state; pgrp is the 5th field of stat
            total += int(fields[11]) + int(fields[12])
    return total / tick


@dataclass
class Budget:
    """When a player stops: after ``seconds`` of measuring, or after ``moves`` measured ones."""

    warmup: float
    seconds: float | None
    moves: int | None

    def done(self, phase: Phase, counted: int) -> bool:
        if self.moves is not None:
            return counted >= self.moves
        assert self.seconds is not None
        return time.perf_counter() >= phase.start + self.seconds


Player = Callable[[int, httpx.AsyncClient, Phase], Awaitable[None]]


async def run_phase(
    server: Server, players: int, budget: Budget, play: Player, prepare: Player | None = None
) -> Phase:
    """Open one connection per player, let ``prepare`` run for each (not measured), then all
    players at once; the warm-up's requests are not counted."""
    phase = Phase()
    clients = [player_client(server.base_url) for _ in range(players)]
    try:
        if prepare is not None:
            for index, client in enumerate(clients):
                await prepare(index, client, phase)
        assert server.process is not None
        pgid = server.process.pid
        phase.start = time.perf_counter() + budget.warmup

        async def mark_start() -> None:
            await asyncio.sleep(max(0.0, phase.start - time.perf_counter()))
            phase.client_cpu = -time.process_time()
            phase.server_cpu = -process_group_cpu(pgid)

        marker = asyncio.create_task(mark_start())
        await asyncio.gather(*(play(i, c, phase) for i, c in enumerate(clients)))
        phase.end = time.perf_counter()
        await marker
        phase.client_cpu += time.process_time()
        phase.server_cpu += process_group_cpu(pgid)
    finally:
        await asyncio.gather(*(c.aclose() for c in clients))
    return phase


def api_players(
    budget: Budget, seed: int, params: dict[str, Any], think: float = 0.0, read: bool = False
) -> tuple[Player, Player]:
    """The players of the API phase: ``prepare`` creates each one's first check; after each
    move a player waits a random time of mean ``think`` seconds (0: a closed loop). A player
    plays from the view each move returns, as a client would; with ``read`` it also GETs the
    check before every move (a client that does not trust its copy)."""
    checks: dict[int, Check] = {}
    serial = iter(range(10**9))

    def deal() -> int:
        return seed * 1_000_003 + next(serial)

    async def prepare(index: int, client: httpx.AsyncClient, phase: Phase) -> None:
        checks[index] = await create_check(client, deal(), params)

    async def play(index: int, client: httpx.AsyncClient, phase: Phase) -> None:
        rng = random.Random(f"{seed}:{index}")
        check = checks[index]
        view: dict[str, Any] | None = check.view
        counted = 0
        while not budget.done(phase, counted):
            if view is None or read:
                t0 = time.perf_counter()
                got = await client.get(check.url, headers=check.headers)
                t1 = time.perf_counter()
                if got.status_code != 200:
                    phase.error(f"GET {got.status_code}")
                    await asyncio.sleep(0.01)
                    continue
                view = got.json()
                if t0 >= phase.start:
                    phase.reads.append(t1 - t0)
            assert view is not None
            if view["status"] != "in_progress":
                check = await create_check(client, deal(), params)
                view = check.view
                phase.created += time.perf_counter() >= phase.start
                continue
            body = {"move": pick_move(view, rng), "expected_version": view["version"]}
            t0 = time.perf_counter()
            moved = await client.post(f"{check.url}/moves", json=body, headers=check.headers)
            t1 = time.perf_counter()
            if moved.status_code != 200:
                phase.error(f"move {moved.status_code} {moved.json().get('code')}")
                view = None
                continue
            if t0 >= phase.start:
                phase.main.append(t1 - t0)
                counted += 1
            view = check.view = moved.json()
            if think:
                await asyncio.sleep(rng.expovariate(1 / think))

    return prepare, play


def bare_players(budget: Budget) -> Player:
    async def play(index: int, client: httpx.AsyncClient, phase: Phase) -> None:
        counted = 0
        version = 0
        while not budget.done(phase, counted):
            t0 = time.perf_counter()
            answer = await client.post("/echo", json={"move": "d3", "expected_version": version})
            t1 = time.perf_counter()
            if answer.status_code != 200:
                phase.error(f"echo {answer.status_code}")
                continue
            answer.json()
            version += 1
            if t0 >= phase.start:
                phase.main.append(t1 - t0)
                counted += 1

    return play


# ---- the run ----------------------------------------------------------------------------------


def run(args: argparse.Namespace, console: Console) -> dict[str, Any]:
    budget = Budget(args.warmup, None if args.moves_per_player else args.seconds,
                    args.moves_per_player)  # fmt: skip
    params = dict(DEFAULT_PARAMS)
    params["level"], params["move_limit"] = args.level, args.move_limit
    server_cpus = (0,) if args.pin else ()
    if args.pin:
        os.sched_setaffinity(0, {1})
    results: dict[str, Any] = {
        "players": args.players,
        "workers": args.workers,
        "seconds": args.seconds if not args.moves_per_player else None,
        "moves_per_player": args.moves_per_player,
        "warmup": args.warmup,
        "think": args.think,
        "seed": args.seed,
        "params": params,
        "pinned": args.pin,
        "access_log": args.access_log,
        "cpus": os.cpu_count(),
        "python": sys.version.split()[0],
        "load_average_before": os.getloadavg(),
        "app": args.app,
        "source": source_revision(),
    }
    with throwaway_database(args.database_url) as url:
        results["database"] = "postgresql" if url.startswith("postgresql") else "sqlite"
        console.print(f"[bold]API[/] on {results['database']}, {args.workers} worker(s), "
                      f"{args.players} players …")  # fmt: skip
        server = api_server(url, workers=args.workers, access_log=args.access_log,
                            cpus=server_cpus, app=args.app, app_dir=Path(args.app_dir))  # fmt: skip
        with server:
            prepare, play = api_players(
                budget, args.seed, params, args.think, args.read_every_move
            )
            spy = start_py_spy(args.py_spy, server, args) if args.py_spy else None
            api = asyncio.run(run_phase(server, args.players, budget, play, prepare))
            if spy is not None:
                spy.wait()
    console.print("[bold]bare Litestar endpoint[/] …")
    bare_server = Server(BARE_APP, workers=args.workers, app_dir=BENCHMARKS, cpus=server_cpus,
                         access_log=args.access_log, ready_path="/health")  # fmt: skip
    with bare_server:
        bare = asyncio.run(run_phase(bare_server, args.players, budget, bare_players(budget)))
    results["api"] = api.summary()
    results["bare"] = bare.summary()
    moves, echo = results["api"]["main_per_s"], results["bare"]["main_per_s"]
    p99 = results["api"]["main_latency"]["p99_ms"]
    results["ratio"] = moves / echo if echo else 0.0
    results["ratio_requests"] = results["api"]["requests_per_s"] / echo if echo else 0.0
    results["targets"] = {
        "ratio_min": TARGET_RATIO,
        "p99_ms_max": TARGET_P99_MS,
        "ratio_met": results["ratio"] >= TARGET_RATIO,
        "p99_met": p99 < TARGET_P99_MS,
    }
    return results


def source_revision() -> str:
    """The commit the measured code comes from, ``+dirty`` if the tree has changes."""
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, text=True,
                              capture_output=True, check=True).stdout.strip()  # fmt: skip
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "api", "skillcheck"],
                               cwd=ROOT, text=True, capture_output=True).stdout.strip()  # fmt: skip
    except (OSError, subprocess.CalledProcessError):
        return "unknown (not a git checkout)"
    return head + ("+dirty" if dirty else "")


def start_py_spy(path: str, server: Server, args: argparse.Namespace) -> subprocess.Popen[bytes]:
    """Sample the API server (and its workers) for the warm-up plus the measured seconds."""
    assert server.process is not None
    duration = int(args.warmup + (args.seconds or 30)) + 1
    return subprocess.Popen(
        ["py-spy", "record", "--pid", str(server.process.pid), "--subprocesses",
         "--format", "raw", "--rate", "200", "--duration", str(duration), "--output", path,
         "--nonblocking", "--gil"],
        stdout=subprocess.DEVNULL,
    )  # fmt: skip


def report(results: dict[str, Any], console: Console) -> None:
    api, bare = results["api"], results["bare"]
    table = Table(
        title=f"{results['players']} players, {results['database']}, "
        f"{results['workers']} worker(s), {api['seconds']:.1f} s measured"
    )
    for column in ("endpoint", "requests", "per s", "p50 ms", "p90 ms", "p99 ms", "max ms",
                   "errors", "client CPU", "server CPU"):  # fmt: skip
        table.add_column(column, justify="left" if column == "endpoint" else "right",
                         no_wrap=column == "endpoint")  # fmt: skip

    def row(name: str, count: int, rate: float, lat: dict[str, float], phase: dict[str, Any],
            errors: bool = True) -> None:  # fmt: skip
        table.add_row(
            name, str(count), f"{rate:,.0f}", f"{lat['p50_ms']:.1f}", f"{lat['p90_ms']:.1f}",
            f"{lat['p99_ms']:.1f}", f"{lat['max_ms']:.1f}",
            str(sum(phase["errors"].values())) if errors else "",
            f"{phase['client_cpu_pct']:.0f} %", f"{phase['server_cpu_pct']:.0f} %",
        )  # fmt: skip

    reads = api["read_latency"]
    row("POST …/moves", api["main_requests"], api["main_per_s"], api["main_latency"], api)
    row("GET …/{id}", reads["count"], reads["count"] / api["seconds"], reads, api, errors=False)
    row("bare POST", bare["main_requests"], bare["main_per_s"], bare["main_latency"], bare)
    console.print(table)
    targets = results["targets"]
    verdict = "[green]met[/]" if targets["ratio_met"] else "[red]missed[/]"
    console.print(
        f"moves/s ÷ bare requests/s = [bold]{results['ratio']:.1%}[/] (target ≥ "
        f"{targets['ratio_min']:.0%}: {verdict}); API requests/s (GET + move) ÷ bare = "
        f"{results['ratio_requests']:.1%}"
    )
    verdict = "[green]met[/]" if targets["p99_met"] else "[red]missed[/]"
    console.print(
        f"move p99 = [bold]{api['main_latency']['p99_ms']:.1f} ms[/] (target < "
        f"{targets['p99_ms_max']:.0f} ms: {verdict}); checks finished and replaced while "
        f"measuring: {api['checks_created']}"
    )
    for name, phase in (("API", api), ("bare", bare)):
        if phase["errors"]:
            console.print(f"[yellow]{name} errors:[/] {phase['errors']}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--players", type=int, default=50, help="concurrent players (default 50)")
    budget = ap.add_mutually_exclusive_group()
    budget.add_argument("--seconds", type=float, default=10.0,
                        help="measured seconds per phase (default 10)")  # fmt: skip
    budget.add_argument("--moves-per-player", type=int, help="measured moves per player instead")
    ap.add_argument("--warmup", type=float, default=2.0, help="unmeasured seconds (default 2)")
    ap.add_argument("--database-url", help="default: a temporary SQLite file; PostgreSQL "
                    "URLs without options get a throwaway schema")  # fmt: skip
    ap.add_argument("--workers", type=int, default=1, help="uvicorn workers (default 1)")
    ap.add_argument("--seed", type=int, default=2026, help="deals and move choices")
    ap.add_argument("--level", type=int, default=DEFAULT_PARAMS["level"])
    ap.add_argument("--move-limit", type=int, default=DEFAULT_PARAMS["move_limit"],
                    help="each check is lost after this many moves (default 60)")  # fmt: skip
    ap.add_argument("--app", default=API_APP,
                    help=f"the API's uvicorn factory (default {API_APP}; for A/B runs of a "
                    "patched app)")  # fmt: skip
    ap.add_argument("--app-dir", default=str(ROOT), help="where --app is imported from")
    ap.add_argument("--think", type=float, default=0.0,
                    help="mean seconds a player thinks after each move (default 0: the "
                    "players saturate the server; the bare phase never thinks)")  # fmt: skip
    ap.add_argument("--read-every-move", action="store_true",
                    help="GET the check before every move too (default: play from the move's "
                         "answer, as the player's page does)")
    ap.add_argument("--access-log", action="store_true", help="keep uvicorn's access log on")
    ap.add_argument("--pin", action="store_true",
                    help="pin the server to CPU 0 and this client to CPU 1")  # fmt: skip
    ap.add_argument("--py-spy", metavar="FILE",
                    help="sample the API server with py-spy (raw collapsed stacks)")  # fmt: skip
    ap.add_argument("--json", metavar="FILE", help="write the results as JSON")
    args = ap.parse_args(argv)
    if args.players < 1 or args.workers < 1:
        ap.error("--players and --workers must be at least 1")
    if args.seconds is not None and not 0 < args.seconds <= 600:
        ap.error("--seconds must be in (0, 600]")
    if args.moves_per_player is not None and not 0 < args.moves_per_player <= 100_000:
        ap.error("--moves-per-player must be in 1..100000")
    console = Console(width=max(Console().width, 110))
    results = run(args, console)
    report(results, console)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
