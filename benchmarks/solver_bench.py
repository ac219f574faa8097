"""Benchmark the perfect-information solver over seeded deals.

    python3 benchmarks/solver_bench.py --level 9 --deals 200 --seconds-per-deal 5
    python3 benchmarks/solver_bench.py --quota-suit moons --skill 8 --quota 8 --deals 200
    python3 benchmarks/solver_bench.py --quota-table --deals 50 --seconds-per-deal 2 --clock cpu

Seeds 0..N-1 are dealt with ``ThreeTowers(...).deal(seed)``; every "win" certificate is replayed
through the rules engine. Prints decided %, median/p90 time and wins/losses/unknown, and the
states explored (deterministic, unlike the seconds). The budget is wall time (``solve``'s
``max_seconds``); the CPU time of the process is printed too, because on a shared machine it is
the steadier measure of the solver's own speed.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

from skillcheck.engine import Status
from skillcheck.games.three_towers import ThreeTowers, solver
from skillcheck.games.three_towers.solver import solve


def planner_line() -> str:
    """Which planner ran: the compiled one (Three Towers' _planner.c) or the Python one."""
    if solver.accelerated():
        return "planner: compiled (skillcheck.games.three_towers._planner)"
    return "planner: Python (the compiled one is not built, or SKILLCHECK_PURE_PYTHON is set)"


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    k = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[k]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--level", type=int, default=9)
    ap.add_argument("--spaces", type=int, default=5)
    ap.add_argument("--deals", type=int, default=200)
    ap.add_argument("--first-seed", type=int, default=0)
    ap.add_argument("--seconds-per-deal", type=float, default=5.0)
    ap.add_argument("--max-states", type=int, default=0, help="0: no state limit")
    ap.add_argument("--ivory", metavar="SUIT", help="Ivory variant of this suit")
    ap.add_argument("--quota-suit", metavar="SUIT", help="quota check of this suit")
    ap.add_argument("--skill", type=int)
    ap.add_argument("--quota", type=int)
    ap.add_argument("--verbose", action="store_true", help="one line per deal")
    ap.add_argument(
        "--quota-table", action="store_true",
        help="every quota check of --quota-suit (default moons): skill 1..level-1, quota "
        "1..skill, one Markdown row each",
    )  # fmt: skip
    ap.add_argument(
        "--clock", choices=("wall", "cpu"), default="wall",
        help="the clock of the per-deal budget: wall time (solve's own), or this process's CPU "
        "time (seconds of one core however busy the machine is)",
    )  # fmt: skip
    args = ap.parse_args(argv)
    if args.clock == "cpu":
        solver._clock = time.process_time

    params = {"level": args.level, "spaces": args.spaces}
    if args.quota_table:
        return quota_table(args, params)
    if args.quota_suit:
        game = ThreeTowers.quota_check(args.quota_suit, args.skill, args.quota, **params)
    elif args.ivory:
        game = ThreeTowers.ivory(args.ivory, **params)
    else:
        game = ThreeTowers(**params)
    stats = run_deals(game, args)
    counts, times, cpu, states = stats.counts, stats.times, stats.cpu, stats.states
    n = len(times)
    decided = counts["win"] + counts["loss"]
    print(game.describe())
    print(planner_line())
    print(f"deals: {n} (seeds {args.first_seed}..{args.first_seed + n - 1}), "
          f"budget {args.seconds_per_deal:g} s ({args.clock} clock) per deal")  # fmt: skip
    print(f"decided: {decided}/{n} = {100 * decided / max(1, n):.1f} %  "
          f"(win {counts['win']}, loss {counts['loss']}, unknown {counts['unknown']})")  # fmt: skip
    if stats.unknown:
        print(f"unknown seeds: {', '.join(map(str, stats.unknown))}")
    print(f"wall time per deal: median {statistics.median(times):.3f} s, "
          f"p90 {percentile(times, 0.9):.3f} s, max {max(times):.3f} s")  # fmt: skip
    print(f"cpu time per deal: median {statistics.median(cpu):.3f} s, "
          f"p90 {percentile(cpu, 0.9):.3f} s")  # fmt: skip
    if stats.decided_times:
        print(f"decided deals: median {statistics.median(stats.decided_times):.3f} s")
    print(f"states: median {statistics.median(states):.0f}; total wall "
          f"{stats.wall:.1f} s")  # fmt: skip
    return 0


@dataclass
class Stats:
    counts: dict[str, int] = field(default_factory=lambda: {"win": 0, "loss": 0, "unknown": 0})
    times: list[float] = field(default_factory=list)
    decided_times: list[float] = field(default_factory=list)
    states: list[int] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    unknown: list[int] = field(default_factory=list)
    wall: float = 0.0


def run_deals(game: ThreeTowers, args: argparse.Namespace) -> Stats:
    """Solve seeds ``first_seed..`` of ``game`` and replay every win through the rules engine."""
    console = Console(stderr=True)
    stats = Stats()
    counts = stats.counts
    began = time.perf_counter()
    with Progress(
        "[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
        TimeElapsedColumn(), console=console,
    ) as progress:  # fmt: skip
        task = progress.add_task(game.describe(), total=args.deals)
        for seed in range(args.first_seed, args.first_seed + args.deals):
            deal = game.deal(seed)
            cpu_began = time.process_time()
            sol = solve(
                game, deal, max_states=args.max_states or None,
                max_seconds=args.seconds_per_deal,
            )  # fmt: skip
            stats.cpu.append(time.process_time() - cpu_began)
            if sol.result == "win":
                state = game.state_from_deal(deal)
                for move in sol.moves:
                    state.push(move)
                if state.status is not Status.WON:
                    raise SystemExit(f"seed {seed}: the certificate does not win")
            counts[sol.result] += 1
            if sol.result == "unknown":
                stats.unknown.append(seed)
            stats.times.append(sol.seconds)
            stats.states.append(sol.states)
            if sol.result != "unknown":
                stats.decided_times.append(sol.seconds)
            if args.verbose:
                progress.console.print(
                    f"seed {seed}: {sol.result} {sol.seconds:.2f}s (cpu {stats.cpu[-1]:.2f}s) "
                    f"{sol.states} states "
                    f"{len(sol.moves)} moves"
                )
            progress.update(task, advance=1, description=(
                f"{game.describe()}  win {counts['win']} loss {counts['loss']} "
                f"unknown {counts['unknown']}"
            ))  # fmt: skip
    stats.wall = time.perf_counter() - began
    return stats


def quota_table(args: argparse.Namespace, params: dict[str, int]) -> int:
    """Every quota check of one suit: skill 1..level-1, quota 1..skill, as a Markdown table."""
    suit = args.quota_suit or "moons"
    print(planner_line())
    print(f"quota checks of {suit}, level {args.level}, {args.spaces} spaces, seeds "
          f"{args.first_seed}..{args.first_seed + args.deals - 1}, budget "
          f"{args.seconds_per_deal:g} s ({args.clock} clock) per deal")  # fmt: skip
    print("| skill | quota | decided | unknown seeds | median CPU s | p90 CPU s | median states |")
    print("|---|---|---|---|---|---|---|")
    for skill in range(1, args.level):
        for quota in range(1, skill + 1):
            game = ThreeTowers.quota_check(suit, skill, quota, **params)
            stats = run_deals(game, args)
            decided = stats.counts["win"] + stats.counts["loss"]
            unknown = ", ".join(map(str, stats.unknown)) or "-"
            print(f"| {skill} | {quota} | {decided}/{len(stats.times)} | {unknown} | "
                  f"{statistics.median(stats.cpu):.3f} | {percentile(stats.cpu, 0.9):.3f} | "
                  f"{statistics.median(stats.states):,.0f} |", flush=True)  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
