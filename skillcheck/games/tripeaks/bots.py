"""The fair bot of Tri Peaks: it sees only the observation (never a face-down card or the stock).

The ``fast`` bot plays as a careful person does: when a free card fits, it looks at every chain of
plays it can see from here (free cards only, and the cards a removal frees when they are already
face up) and starts the one that plays the most cards, turning up the most face-down cards as a
tie-breaker, and favouring a peak the check needs that is closest to cleared. When no card
fits it deals from the stock, and when the stock is empty it takes a redeal if one is left.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from skillcheck.cards.standard import PlayingCard
from skillcheck.games.tripeaks.layout import CONES, COVERS, POSITIONS
from skillcheck.games.tripeaks.rules import (
    Tripeaks,
    TripeaksMove,
    TripeaksObservation,
    fits,
    is_free,
)
from skillcheck.registry import register_analysis

__all__ = ["BOTS", "FastBot", "best_chain"]

#: Positions a chain search looks at before it settles for the best chain found.
MAX_NODES = 4000


def best_chain(
    observation: TripeaksObservation, favour: frozenset[int] = frozenset()
) -> tuple[float, list[int]]:
    """The best chain of plays visible from ``observation``: its value (cards played, plus
    half a point for each face-down card it turns up and a tenth for each card of ``favour``)
    and its positions in order."""
    present = list(observation.present)
    known: list[PlayingCard | None] = list(observation.peaks)
    best: tuple[float, list[int]] = (0.0, [])
    nodes = 0

    def search(top: PlayingCard | None, line: list[int], value: float) -> None:
        nonlocal best, nodes
        nodes += 1
        if value > best[0]:
            best = (value, list(line))
        if nodes > MAX_NODES:
            return
        for position in range(POSITIONS):
            card = known[position]
            if card is None or not is_free(present, position):
                continue
            if not fits(card, top, observation.wrap, observation.wild):
                continue
            present[position] = False
            flips = sum(
                1 for above in COVERS[position]
                if present[above] and known[above] is None and is_free(present, above)
            )  # fmt: skip
            gain = 1 + 0.5 * flips + (0.1 if position in favour else 0.0)
            line.append(position)
            search(card, line, value + gain)
            line.pop()
            present[position] = True

    search(observation.top, [], 0.0)
    return best


def _favoured(game: Tripeaks, observation: TripeaksObservation) -> frozenset[int]:
    """The cards of the uncleared peak with the fewest cards left, when the check needs fewer
    than three peaks."""
    if game.peaks == 3 or game.target is not None:
        return frozenset()
    open_cones = [cone for tip, cone in enumerate(CONES) if observation.present[tip]]
    if not open_cones:
        return frozenset()
    here = {i for i in range(POSITIONS) if observation.present[i]}
    return min(open_cones, key=lambda cone: len(cone & here))


class FastBot:
    """Plays the longest visible chain; deals when no card fits (see the module's docstring)."""

    name = "fast"

    def choose(self, game: Any, observation: Any) -> TripeaksMove | None:
        if not isinstance(game, Tripeaks) or not isinstance(observation, TripeaksObservation):
            raise TypeError("the fast bot plays Tri Peaks")
        moves = observation.legal_moves()
        if not moves:
            return None
        if any(m.position is not None for m in moves):
            _, line = best_chain(observation, _favoured(game, observation))
            if line:
                return TripeaksMove.card(line[0])
        others = [m for m in moves if m.position is None]
        return others[0] if others else moves[0]


BOTS: dict[str, Callable[[], FastBot]] = {"fast": FastBot}

register_analysis(Tripeaks.name, bots=BOTS)
