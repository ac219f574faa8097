"""Tri Peaks' exact solver against a plain depth-first search in C, on the same seeded deals.

    python3 benchmarks/tripeaks_solver.py
    python3 benchmarks/tripeaks_solver.py --deals 300 --rounds 3 --cli

The deals are the ones ``skillcheck odds tripeaks --deals N`` plays: the seeds
``skillcheck.odds.deal_seeds(SEED, N)``, each dealt as the rules deal it (the standard deck shuffled
with ``Pcg32(seed)``; positions 0..27, then the first waste card, then the stock). Two rule sets:
``basic`` (no King-Ace wrap) and ``tritowers`` (wrap; its scoring does not change who wins).

- The baseline, ``benchmarks/tripeaks_dfs_baseline.c``, is compiled here with ``cc -O2`` and
  given every deal on its standard input; its time is the whole process's wall time (reading 300
  lines is nothing next to the searches), and the CPU seconds it reports for the searches alone.
- The solver is timed in this process: one call of
  ``skillcheck.games.tripeaks.solver.solve_deal`` per deal (what ``TriPeaksSolver.solve`` runs
  for these checks), deals prepared beforehand. Both must agree on every deal's answer.
- ``--cli`` also times ``skillcheck odds tripeaks --rules R --deals N --bot perfect --workers 1``
  as a subprocess (interpreter start, imports, states built by the rules, the table printed):
  the speed target is that this takes at most twice the baseline's time.

Prints, per rule set, the best of ``--rounds`` wall times and the ratio solver / baseline.

``--redeals N`` instead plays N deals of each check with redeals left (``TriPeaksSolver.solve``
on the rules' start, the odds command's budget of 5,000,000 positions) and prints how many were
won, lost and left unknown, and the time::

    python3 benchmarks/tripeaks_solver.py --redeals 100

(``short_stock=8``: the rules' start with the stock cut to its first 8 cards, the rest of the
deck set aside.)
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from skillcheck.cards.standard import STANDARD  # noqa: E402
from skillcheck.games.tripeaks import Tripeaks, search  # noqa: E402
from skillcheck.games.tripeaks.rules import TripeaksState  # noqa: E402
from skillcheck.games.tripeaks.solver import TriPeaksSolver, solve_deal  # noqa: E402
from skillcheck.odds import PERFECT_PLAY_STATES, deal_seeds  # noqa: E402
from skillcheck.rng import Pcg32  # noqa: E402

BASELINE = Path(__file__).resolve().parent / "tripeaks_dfs_baseline.c"
RULES = {"basic": False, "tritowers": True}


def deal_ranks(seed: int) -> list[int]:
    cards = list(STANDARD)
    Pcg32(seed).shuffle(cards)
    return [card.value for card in cards]


def baseline_input(deals: list[list[int]], wrap: bool) -> str:
    lines = []
    for ranks in deals:
        row = [int(wrap), ranks[28], *ranks[:28], *ranks[29:]]
        lines.append(" ".join(map(str, row)))
    return "\n".join(lines) + "\n"


def compile_baseline(cc: str, where: Path) -> Path:
    exe = where / "tripeaks_dfs_baseline"
    subprocess.run([cc, "-O2", "-o", str(exe), str(BASELINE)], check=True)
    return exe


def run_baseline(exe: Path, text: str) -> tuple[float, float, list[str], int]:
    began = time.perf_counter()
    done = subprocess.run([str(exe)], input=text, capture_output=True, text=True, check=True)
    wall = time.perf_counter() - began
    lines = done.stdout.split("\n")
    answers = [line.split()[0] for line in lines if line and not line.startswith("deals")]
    summary = next(line for line in lines if line.startswith("deals")).split()
    fields = dict(zip(summary[::2], summary[1::2], strict=True))
    return wall, float(fields["cpu_seconds"]), answers, int(fields["positions"])


def run_solver(deals: list[list[int]], wrap: bool) -> tuple[float, list[str], int]:
    answers: list[str] = []
    states = 0
    began = time.perf_counter()
    for ranks in deals:
        found = solve_deal(ranks, wrap=wrap)
        answers.append(found.result)
        states += found.states
    return time.perf_counter() - began, answers, states


def run_cli(rules: str, count: int, seed: int) -> float:
    exe = shutil.which("skillcheck")
    command = (
        [exe]
        if exe
        else [sys.executable, "-c", "import sys; from skillcheck.cli import main; sys.exit(main())"]
    )
    command += ["odds", "tripeaks", "--rules", rules, "--deals", str(count), "--bot", "perfect"]
    command += ["--workers", "1", "--seed", str(seed)]
    began = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    return time.perf_counter() - began


#: The checks with redeals ``--redeals`` plays (the odds presets' skill column and variants).
REDEAL_CHECKS: tuple[dict[str, object], ...] = (
    {"skill": 1},
    {"skill": 1, "peaks": 2},
    {"wrap": True, "skill": 1},
    {"empty_waste": True, "redeals": 1},
    {"wild": 1, "redeals": 1},
    {"skill": 3},
    {"rules": "tritowers", "skill": 1},
    {"rules": "tritowers", "target": 60, "skill": 1},
    {"rules": "tritowers", "target": 120, "skill": 1},
    {"rules": "tritowers", "target": 160, "skill": 1},
    {"rules": "tritowers", "target": 120, "skill": 2},
    {"short_stock": 8, "redeals": 1},
)


def run_redeals(count: int, seed: int) -> None:
    seeds = deal_seeds(seed, count)
    for params in REDEAL_CHECKS:
        options = dict(params)
        short = options.pop("short_stock", None)  # the stock cut to this many cards
        game = Tripeaks(**options)  # type: ignore[arg-type]
        tally = {"win": 0, "loss": 0, "unknown": 0}
        worst = 0.0
        began = time.perf_counter()
        for deal_seed in seeds:
            one = time.perf_counter()
            state = game.new_state(deal_seed)
            if isinstance(short, int):  # the rest of the deck set aside, out of play
                deal = game.deal(deal_seed)
                state = TripeaksState(game, tuple(deal[:28]), (deal[28],),
                                      tuple(deal[29 : 29 + short]), game.passes)  # fmt: skip
            found = TriPeaksSolver().solve(state, max_states=PERFECT_PLAY_STATES)
            worst = max(worst, time.perf_counter() - one)
            tally[found.result] += 1
        took = time.perf_counter() - began
        words = ", ".join(f"{k}={v}" for k, v in params.items())
        print(f"{words:40} win {tally['win']:4} loss {tally['loss']:4} unknown "
              f"{tally['unknown']:4}  {took:7.2f} s ({took / count * 1000:.0f} ms a deal, "
              f"slowest {worst:.2f} s)")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--deals", type=int, default=300)
    ap.add_argument("--seed", type=int, default=0, help="the master seed of deal_seeds")
    ap.add_argument("--rounds", type=int, default=3, help="best of this many runs")
    ap.add_argument("--cc", default="cc")
    ap.add_argument("--cli", action="store_true", help="also time the skillcheck odds command")
    ap.add_argument("--redeals", type=int, metavar="N", help="decide N deals of each redeal check")
    args = ap.parse_args(argv)
    if args.redeals:
        print(f"{args.redeals} deals (deal_seeds({args.seed}, {args.redeals})) of each check, "
              f"solver {'compiled' if search.accelerated() else 'pure Python'}")  # fmt: skip
        run_redeals(args.redeals, args.seed)
        return 0
    seeds = deal_seeds(args.seed, args.deals)
    deals = [deal_ranks(s) for s in seeds]
    print(f"{args.deals} deals (deal_seeds({args.seed}, {args.deals})), best of {args.rounds}; "
          f"solver {'compiled' if search.accelerated() else 'pure Python'}")  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        exe = compile_baseline(args.cc, Path(tmp))
        for rules, wrap in RULES.items():
            text = baseline_input(deals, wrap)
            base = min((run_baseline(exe, text) for _ in range(args.rounds)), key=lambda r: r[0])
            mine = min((run_solver(deals, wrap) for _ in range(args.rounds)), key=lambda r: r[0])
            if base[2] != mine[1]:
                pairs = enumerate(zip(base[2], mine[1], strict=True))
                differ = [i for i, (a, b) in pairs if a != b]
                print(f"{rules}: the answers differ on deals {differ[:10]}")
                return 1
            wins = mine[1].count("win")
            print(
                f"{rules:9} wins {wins}/{args.deals}  baseline {base[0]:.3f} s wall "
                f"({base[1]:.3f} s searching, {base[3]:,} positions)  solver {mine[0]:.3f} s "
                f"({mine[2]:,} positions)  ratio {mine[0] / base[0]:.2f}"
            )
            if args.cli:
                cli = min(run_cli(rules, args.deals, args.seed) for _ in range(args.rounds))
                command = f"skillcheck odds tripeaks --rules {rules} --deals {args.deals}"
                command += " --bot perfect --workers 1"
                print(f"{'':9} {command}: {cli:.3f} s, ratio {cli / base[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
