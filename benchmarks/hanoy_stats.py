"""Tower of Hanoy: every deal's minimum, the solver's speed, and the fast bot's wasted moves.

    python3 benchmarks/hanoy_stats.py                    # 3..9 cards, 200 sampled deals each
    python3 benchmarks/hanoy_stats.py --cards 9 --deals 1000

Three Markdown tables (docs/games/hanoy.md quotes them):

1. ``skillcheck hanoy stats`` for each card count: one backward breadth-first search over every
   position deals reach; all ``n!`` deals' minimum moves (min, median, mean, p90, max), the
   positions stored, wall and CPU seconds.
2. The solver (forward breadth-first search) on seeded deals: positions and milliseconds per
   deal, median / p90 / max; every line is replayed through the rules to a win of exactly that
   length.
3. The ``fast`` bot (the Tower of Hanoi method) on the same deals: moves over the minimum, how
   often it plays a shortest line, and its wins within 0, 8, 32 and 128 spare moves.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from skillcheck.games.hanoy import Hanoy
from skillcheck.games.hanoy.bots import hanoi_method
from skillcheck.games.hanoy.commands import deal_stats
from skillcheck.odds import deal_seeds


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def stats_table(card_counts: list[int]) -> None:
    print(
        "| cards | deals | unwinnable | min | median | mean | p90 | max | positions | wall s "
        "| CPU s |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for cards in card_counts:
        cpu = time.process_time()
        result = deal_stats(cards)
        cpu = time.process_time() - cpu
        print(
            f"| {cards} | {result.deals:,} | {result.unwinnable} | "
            f"{min(result.distribution)} | {result.percentile(0.5)} | {result.mean:.1f} | "
            f"{result.percentile(0.9)} | {max(result.distribution)} | {result.positions:,} | "
            f"{result.seconds:.2f} | {cpu:.2f} |",
            flush=True,
        )


def solver_and_bot_tables(card_counts: list[int], deals: int, seed: int) -> None:
    solver_rows, bot_rows = [], []
    for cards in card_counts:
        game = Hanoy(cards=cards)
        solver = game.solver()
        states, millis, excess = [], [], []
        for deal_seed in deal_seeds(seed, deals):
            state = game.new_state(deal_seed)
            started = time.perf_counter()
            solution = solver.solve(state)
            millis.append(1000 * (time.perf_counter() - started))
            states.append(solution.states)
            assert solution.result == "win"
            replay = game.new_state(deal_seed)
            for move in solution.moves:
                replay.push(move)
            assert replay.outcome is not None and replay.outcome.success
            assert replay.moves_made == len(solution.moves)
            excess.append(len(hanoi_method(state.columns)) - len(solution.moves))
        solver_rows.append(
            f"| {cards} | {deals} | {statistics.median(states):,.0f} | "
            f"{_percentile(states, 0.9):,.0f} | {max(states):,} | "
            f"{statistics.median(millis):.2f} | {_percentile(millis, 0.9):.2f} | "
            f"{max(millis):.2f} |"
        )
        within = [100 * sum(e <= spare for e in excess) / deals for spare in (0, 8, 32, 128)]
        bot_rows.append(
            f"| {cards} | {statistics.median(excess):.0f} | {_percentile(excess, 0.9):.0f} | "
            f"{max(excess)} | " + " | ".join(f"{w:.1f} %" for w in within) + " |"
        )
    print()
    print("| cards | deals | positions median | p90 | max | ms median | p90 | max |")
    print("|---|---|---|---|---|---|---|---|")
    print("\n".join(solver_rows))
    print()
    print("| cards | moves over the minimum: median | p90 | max | within 0 | 8 | 32 | 128 |")
    print("|---|---|---|---|---|---|---|---|")
    print("\n".join(bot_rows))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cards", type=int, nargs="*", default=list(range(3, 10)))
    parser.add_argument("--deals", type=int, default=200, help="sampled deals per card count")
    parser.add_argument("--seed", type=int, default=0, help="master seed of the sampled deals")
    parser.add_argument("--no-stats", action="store_true", help="skip the all-deals table")
    args = parser.parse_args()
    if not args.no_stats:
        stats_table(args.cards)
    solver_and_bot_tables(args.cards, args.deals, args.seed)


if __name__ == "__main__":
    main()
