"""Compare the compiled planner (Three Towers' _planner.c) with the Python one on fixed searches.

    python3 benchmarks/planner_speed.py
    python3 benchmarks/planner_speed.py --seeds 43 66 --positions 300000 --rounds 3

Each search is the first finished arrangement of a level-9 deal with the lead weights (4, 3),
run to ``--positions`` positions (both implementations generate exactly the same ones; the
script checks the counts agree). Prints CPU seconds (best of ``--rounds``), positions per CPU
second and the peak memory the search allocated (tracemalloc, measured in a separate run).
Then runs the compiled searches of all the seeds one after another and then at once, one thread
each, and prints both wall times (the compiled search lets go of the GIL, so threads use cores).
"""

from __future__ import annotations

import argparse
import gc
import sys
import threading
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rich.console import Console
from rich.table import Table

from skillcheck.games.three_towers import ThreeTowers, solver
from skillcheck.games.three_towers.solver import _Budget, _Planner, _Problem, _Target, _targets


def one_search(seed: int, positions: int, compiled: bool) -> tuple[float, int]:
    game = ThreeTowers(level=9)
    p = _Problem(game, ((),) * game.spaces, game.deal(seed))
    tg = _Target(p, _targets(p)[0])
    planner = _Planner(p, tg, list(p.start_towers), (4, 3), compiled=compiled)
    gc.disable()
    try:
        began = time.process_time()
        planner.run(_Budget(None, None), positions)
        seconds = time.process_time() - began
    finally:
        gc.enable()
    return seconds, planner.counter


def peak_memory(seed: int, positions: int, compiled: bool) -> int:
    tracemalloc.start()
    try:
        one_search(seed, positions, compiled)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--seeds", type=int, nargs="+", default=[43, 66])
    ap.add_argument("--positions", type=int, default=300_000)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args(argv)
    if not solver.accelerated():
        print("the compiled planner is not built (or SKILLCHECK_PURE_PYTHON is set)")
        return 1
    table = Table(title=f"planner, level 9, first arrangement, {args.positions:,} positions")
    for column in ("seed", "implementation", "CPU s (best)", "positions / CPU s", "peak MiB"):
        table.add_column(column, justify="right")
    for seed in args.seeds:
        counts = set()
        for compiled in (False, True):
            runs = [one_search(seed, args.positions, compiled) for _ in range(args.rounds)]
            best = min(s for s, _ in runs)
            counts.update(n for _, n in runs)
            peak = peak_memory(seed, args.positions, compiled)
            table.add_row(
                str(seed),
                "C" if compiled else "Python",
                f"{best:.3f}",
                f"{args.positions / best:,.0f}",
                f"{peak / 2**20:.1f}",
            )
        if len(counts) != 1:
            print(f"seed {seed}: the implementations generated different counts {counts}")
            return 1
    console = Console()
    console.print(table)
    began = time.perf_counter()
    for seed in args.seeds:
        one_search(seed, args.positions, True)
    in_turn = time.perf_counter() - began
    threads = [
        threading.Thread(target=one_search, args=(seed, args.positions, True))
        for seed in args.seeds
    ]
    began = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    at_once = time.perf_counter() - began
    console.print(
        f"compiled, seeds {', '.join(map(str, args.seeds))}: {in_turn:.3f} s wall one after "
        f"another, {at_once:.3f} s wall in {len(threads)} threads at once"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
