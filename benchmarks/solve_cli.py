"""Time ``skillcheck solve three-towers --deal ... --json`` end to end (issue 9).

    python3 benchmarks/solve_cli.py --deals 50 --baseline
    python3 benchmarks/solve_cli.py --deals 50 --runs 3 --verbose
    python3 benchmarks/solve_cli.py --command ~/.pyenv/shims/skillcheck
    git show 44adfc5:skillcheck/games/three_towers/lines.py > /tmp/lines_before.py
    python3 benchmarks/solve_cli.py --deals 100 --no-command --reference /tmp/lines_before.py
    python3 benchmarks/solve_cli.py --deals 30 --no-command --level 8 --suit moons --skill 8 \\
        --quota 8 --reference /tmp/lines_before.py

Seeds ``--first-seed``.. are dealt with ``ThreeTowers.from_options(...).deal(seed)`` (level 9,
5 spaces, the standard goal unless told otherwise) and their card codes joined by commas (the
syntax of ``--deal``). Deals that are not won are skipped (and listed). For each won deal:

- the real command line runs as a subprocess, ``--runs`` times (process start, imports, solving,
  shortening and printing included), after one untimed warm-up run of the first deal: wall time,
  and CPU time (user + system, from ``getrusage``: steadier on a busy machine); its line is
  replayed through the rules engine and must win (``--no-command`` skips this part);
- with ``--baseline``, the same with ``--no-shorten`` (what the rest of the process costs);
- in this process: the solve (``solve(game, deal)`` with the command's default budget) and the
  shortening (``shorten_line``) are timed apart, wall and CPU, and the raw line's length is
  compared with the shortened one (which must equal the command's line and win);
- with ``--reference FILE``, another ``lines.py`` (for instance the one before a change) is
  loaded from FILE and shortens the same raw lines: its time, and how many of its lines are
  longer, as long or shorter than this build's.

``--command`` is the program to run (default ``skillcheck`` on PATH; split like a shell would).
The first lines printed say which program that is and whether Python may cache bytecode
(``PYTHONDONTWRITEBYTECODE``): without a cache every start compiles the package's sources again.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import resource
import shlex
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from skillcheck.engine import Status
from skillcheck.games.three_towers import ThreeTowers, ThreeTowersState, TowerMove
from skillcheck.games.three_towers.lines import shorten_line
from skillcheck.games.three_towers.solver import solve

#: The command's own default (``skillcheck solve --max-states``).
MAX_STATES = 2_000_000

Shorten = Callable[[ThreeTowers, ThreeTowersState, Sequence[TowerMove]], tuple[TowerMove, ...]]


@dataclass
class Deal:
    seed: int
    cli: list[float] = field(default_factory=list)
    cli_cpu: list[float] = field(default_factory=list)
    baseline: list[float] = field(default_factory=list)
    baseline_cpu: list[float] = field(default_factory=list)
    solve_wall: float = 0.0
    solve_cpu: float = 0.0
    shorten_wall: float = 0.0
    shorten_cpu: float = 0.0
    raw: int = 0
    short: int = 0
    reference: int = 0
    reference_cpu: float = 0.0


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_cli(argv: list[str]) -> tuple[float, float, dict[str, Any]]:
    """Wall seconds, CPU seconds (user + system, of the process and its children) and JSON."""
    cpu = children_cpu()
    began = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - began
    cpu = children_cpu() - cpu
    if done.returncode != 0:
        raise SystemExit(f"{shlex.join(argv)} failed ({done.returncode}):\n{done.stderr}")
    data: dict[str, Any] = json.loads(done.stdout)
    return seconds, cpu, data


def wins(game: ThreeTowers, deal: Sequence[Any], moves: Sequence[TowerMove | str]) -> bool:
    state = game.state_from_deal(deal)
    for move in moves:
        state.push(game.parse_move(move) if isinstance(move, str) else move)
    return state.status is Status.WON


def load_reference(path: str) -> Shorten:
    spec = importlib.util.spec_from_file_location("reference_lines", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load {path}")
    module: ModuleType = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    shorten: Shorten = module.shorten_line
    return shorten


def timed(function: Callable[[], Any]) -> tuple[Any, float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    result = function()
    return result, time.perf_counter() - wall, time.process_time() - cpu


def summary(name: str, values: list[float], unit: str = "s") -> str:
    return (f"{name}: median {statistics.median(values):.3f} {unit}, "
            f"max {max(values):.3f} {unit}")  # fmt: skip


def lengths(name: str, values: list[int]) -> str:
    return (f"{name}: median {statistics.median(values):.0f}, max {max(values)}, "
            f"total {sum(values)} moves")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--deals", type=int, default=20)
    ap.add_argument("--first-seed", type=int, default=0)
    ap.add_argument("--level", type=int, default=9)
    ap.add_argument("--spaces", type=int, default=5)
    ap.add_argument("--suit", help="alone: the Ivory goal; with --skill and --quota: a quota check")
    ap.add_argument("--skill", type=int)
    ap.add_argument("--quota", type=int)
    ap.add_argument("--runs", type=int, default=1, help="command runs per deal (all are counted)")
    ap.add_argument("--command", default="skillcheck", help="the program (default: %(default)s)")
    ap.add_argument("--baseline", action="store_true", help="also time --no-shorten")
    ap.add_argument("--no-command", action="store_true", help="only the in-process part")
    ap.add_argument("--reference", metavar="FILE", help="another lines.py to compare with")
    ap.add_argument("--verbose", action="store_true", help="one line per deal")
    args = ap.parse_args(argv)

    options: dict[str, Any] = {"level": args.level, "spaces": args.spaces}
    for name in ("suit", "skill", "quota"):
        if getattr(args, name) is not None:
            options[name] = getattr(args, name)
    game = ThreeTowers.from_options(**options)
    flags = [part for name, value in options.items() for part in (f"--{name}", str(value))]
    command = shlex.split(args.command)
    reference = load_reference(args.reference) if args.reference else None
    seeds = range(args.first_seed, args.first_seed + args.deals)
    print(f"{game.describe()}, seeds {seeds.start}..{seeds.stop - 1}, {args.runs} run(s) per deal")
    if not args.no_command:
        resolved = shutil.which(command[0]) or command[0]
        print(f"command: {shlex.join([resolved, *command[1:]])}")
    print(f"python {sys.version.split()[0]}; PYTHONDONTWRITEBYTECODE="
          f"{os.environ.get('PYTHONDONTWRITEBYTECODE', '(unset)')}; "
          f"load average {os.getloadavg()[0]:.2f}")  # fmt: skip

    def cli(codes: str, *extra: str) -> list[str]:
        return [*command, "solve", "three-towers", "--deal", codes, *flags, "--json", *extra]

    if not args.no_command:  # warm-up: disk caches, not counted
        run_cli(cli(",".join(c.code for c in game.deal(seeds.start)), "--max-states", "1"))
    results: list[Deal] = []
    skipped: list[int] = []  # deals that are not won (lost, or undecided within the budget)
    for seed in seeds:
        deal = game.deal(seed)
        codes = ",".join(c.code for c in deal)
        row = Deal(seed)
        solution, row.solve_wall, row.solve_cpu = timed(
            lambda: solve(game, deal, max_states=MAX_STATES)  # noqa: B023
        )
        if solution.result != "win":
            skipped.append(seed)
            continue
        printed: list[str] | None = None
        for _ in range(0 if args.no_command else args.runs):
            seconds, cpu, data = run_cli(cli(codes))
            row.cli.append(seconds)
            row.cli_cpu.append(cpu)
            printed = list(data["codes"])
            if data["result"] != "win" or not wins(game, deal, printed):
                raise SystemExit(f"seed {seed}: the command's line does not win")
            if args.baseline:
                seconds, cpu, _ = run_cli(cli(codes, "--no-shorten"))
                row.baseline.append(seconds)
                row.baseline_cpu.append(cpu)
        start = game.state_from_deal(deal)
        line, row.shorten_wall, row.shorten_cpu = timed(
            lambda: shorten_line(game, start, solution.moves)  # noqa: B023
        )
        row.raw, row.short = len(solution.moves), len(line)
        if not wins(game, deal, line):
            raise SystemExit(f"seed {seed}: the shortened line does not win")
        if printed is not None and [m.code for m in line] != printed:
            raise SystemExit(f"seed {seed}: the command printed another line than shorten_line")
        if reference is not None:
            other, _, row.reference_cpu = timed(
                lambda: reference(game, start, solution.moves)  # noqa: B023
            )
            row.reference = len(other)
        results.append(row)
        if args.verbose:
            parts = [f"seed {seed}:"]
            if row.cli:
                parts.append(f"command {statistics.median(row.cli):.3f} s "
                             f"(CPU {statistics.median(row.cli_cpu):.3f} s)")  # fmt: skip
            if row.baseline:
                parts.append(f"no-shorten {statistics.median(row.baseline):.3f} s")
            parts.append(f"solve {row.solve_wall:.3f} s  shorten {row.shorten_wall:.3f} s  "
                         f"line {row.raw} -> {row.short} moves")  # fmt: skip
            if reference is not None:
                parts.append(f"(reference {row.reference} in {row.reference_cpu:.3f} s)")
            print("  ".join(parts), flush=True)

    if skipped:
        print(f"not won, skipped: seeds {', '.join(map(str, skipped))}")
    if not results:
        return 1
    if not args.no_command:
        print(summary("command, wall per run", [t for r in results for t in r.cli]))
        print(summary("command, CPU per run", [t for r in results for t in r.cli_cpu]))
    if args.baseline and not args.no_command:
        print(summary("command --no-shorten, wall per run",
                      [t for r in results for t in r.baseline]))  # fmt: skip
        print(summary("command --no-shorten, CPU per run",
                      [t for r in results for t in r.baseline_cpu]))  # fmt: skip
    print(summary("in process: solve, wall", [r.solve_wall for r in results]))
    print(summary("in process: solve, CPU", [r.solve_cpu for r in results]))
    print(summary("in process: shorten_line, wall", [r.shorten_wall for r in results]))
    print(summary("in process: shorten_line, CPU", [r.shorten_cpu for r in results]))
    raw = [r.raw for r in results]
    short = [r.short for r in results]
    print(lengths("line, raw (solver)", raw))
    print(lengths("line, shortened", short) + f" ({100 * sum(short) / sum(raw):.0f} % of raw)")
    if reference is not None:
        print(summary("reference shorten_line, CPU", [r.reference_cpu for r in results]))
        print(lengths("reference line", [r.reference for r in results]))
        longer = [r.seed for r in results if r.short > r.reference]
        same = sum(r.short == r.reference for r in results)
        print(f"this build's line against the reference's: {len(results) - same - len(longer)} "
              f"shorter, {same} as long, {len(longer)} longer"
              + (f" (seeds {', '.join(map(str, longer))})" if longer else ""))  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
