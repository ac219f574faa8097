"""Tower of Hanoy's own command: ``skillcheck hanoy stats``, the minimum moves of every deal."""

from __future__ import annotations

import json
import math
import sys
import time
from collections import Counter
from typing import Any

import click
from attrs import frozen

from skillcheck.games.hanoy.rules import MAX_CARDS, MIN_CARDS, Hanoy
from skillcheck.games.hanoy.search import column_sizes, deal_distances, distance_distribution
from skillcheck.registry import register_analysis

__all__ = ["COMMANDS", "DealStats", "deal_stats", "stats"]


@frozen
class DealStats:
    """The minimum moves of all ``cards!`` deals of ``cards`` cards: ``distribution`` maps a
    minimum to the number of deals that need it; ``positions`` counts the positions the
    backward search stored (canonical: column order forgotten)."""

    cards: int
    deals: int
    unwinnable: int
    distribution: dict[int, int]
    positions: int
    seconds: float

    @property
    def winnable(self) -> int:
        return self.deals - self.unwinnable

    @property
    def mean(self) -> float:
        return sum(m * n for m, n in self.distribution.items()) / max(1, self.winnable)

    def percentile(self, fraction: float) -> int:
        """The smallest minimum that at least ``fraction`` of the winnable deals reach."""
        wanted = fraction * self.winnable
        seen = 0
        for moves in sorted(self.distribution):
            seen += self.distribution[moves]
            if seen >= wanted:
                return moves
        return max(self.distribution, default=0)

    def to_dict(self) -> dict[str, Any]:
        return {
            "cards": self.cards,
            "columns": list(column_sizes(self.cards)),
            "deals": self.deals,
            "unwinnable": self.unwinnable,
            "min": min(self.distribution, default=None),
            "max": max(self.distribution, default=None),
            "mean": round(self.mean, 3),
            "median": self.percentile(0.5),
            "distribution": {str(k): v for k, v in sorted(self.distribution.items())},
            "positions": self.positions,
            "seconds": round(self.seconds, 3),
        }


def deal_stats(cards: int, *, progress: Any = None) -> DealStats:
    """Minimum moves over every deal of ``cards`` cards, by one backward breadth-first search
    (:func:`skillcheck.games.hanoy.search.deal_distances`). ``progress(level, positions)``."""
    started = time.perf_counter()
    distance, _ = deal_distances(cards, progress=progress)
    counts, unwinnable = distance_distribution(cards, distance)
    seconds = time.perf_counter() - started
    return DealStats(
        cards, math.factorial(cards), unwinnable, dict(sorted(Counter(counts).items())),
        len(distance), seconds,
    )  # fmt: skip


@click.command("stats")
@click.option(
    "--cards",
    type=click.IntRange(MIN_CARDS, MAX_CARDS),
    default=MAX_CARDS,
    show_default=True,
    help="Cards dealt (the rules: 9).",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option("--quiet", is_flag=True, help="No progress display on stderr.")
def stats(cards: int, as_json: bool, quiet: bool) -> None:
    """The minimum moves of every deal of Tower of Hanoy.

    One backward breadth-first search from the finished tower finds the distance of every
    position a deal can reach, so all 9! = 362,880 deals are answered at once (a few seconds).
    Suits and the card range do not matter, so this holds for 2-10 and A-9 alike.
    """
    from rich.console import Console

    err = Console(file=sys.stderr)
    show = not quiet and err.is_terminal
    status = err.status("searching backwards from the tower...") if show else None

    def progress(level: int, positions: int) -> None:
        if status is not None:
            status.update(f"searching backwards: {level} moves out, {positions:,} positions")
        elif not quiet and level % 50 == 0:
            print(f"  {level} moves out, {positions:,} positions", file=sys.stderr)

    if status is not None:
        status.start()
    try:
        result = deal_stats(cards, progress=progress)
    finally:
        if status is not None:
            status.stop()
    if as_json:
        click.echo(json.dumps(result.to_dict(), indent=2))
        return
    _print_stats(result)


def _print_stats(result: DealStats) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    sizes = ", ".join(map(str, column_sizes(result.cards)))
    console.print(
        f"[bold]Tower of Hanoy, {result.cards} cards[/] (columns of {sizes}): "
        f"{result.deals:,} deals, {result.unwinnable:,} cannot be won"
    )
    summary = Table(show_edge=False)
    for name in ("min", "p10", "p25", "median", "mean", "p75", "p90", "max"):
        summary.add_column(name, justify="right")
    summary.add_row(
        str(min(result.distribution, default=0)),
        str(result.percentile(0.1)),
        str(result.percentile(0.25)),
        str(result.percentile(0.5)),
        f"{result.mean:.1f}",
        str(result.percentile(0.75)),
        str(result.percentile(0.9)),
        str(max(result.distribution, default=0)),
    )
    console.print(summary)
    width = max(1, math.ceil((max(result.distribution, default=0) + 1) / 20))
    buckets: Counter[int] = Counter()
    for moves, count in result.distribution.items():
        buckets[moves // width] += count
    table = Table(title="Deals by minimum moves", show_edge=False, title_justify="left")
    table.add_column("moves", justify="right")
    table.add_column("deals", justify="right")
    table.add_column("%", justify="right")
    table.add_column("")
    peak = max(buckets.values(), default=1)
    for bucket in sorted(buckets):
        count = buckets[bucket]
        low, high = bucket * width, bucket * width + width - 1
        label = str(low) if width == 1 else f"{low}-{high}"
        table.add_row(
            label, f"{count:,}", f"{100 * count / result.deals:.1f}", "█" * round(30 * count / peak)
        )
    console.print(table)
    console.print(f"{result.positions:,} positions searched in {result.seconds:.1f} s", style="dim")


COMMANDS = (stats,)

register_analysis(Hanoy.name, commands=COMMANDS)
