"""What every game's solver and bots answer to, and playing a check with a bot.

Two kinds of player stand apart (docs/solver.md):

- a :class:`Solver` knows the hidden cards (perfect information). It decides whether a position
  can be won, gives a winning line as a certificate the rules replay, and proves losses. Odds
  under perfect play and dead-position checks use it; a player never sees its answers before a
  check ends.
- a :class:`Bot` sees only the player's observation, so it plays as fairly as a person could:
  NPC checks, odds under plausible play and hints use bots.

:class:`RandomBot` is every game's fallback bot; :func:`autoplay` runs any bot against a real
state, and :func:`resolve` is the one call an RPG engine needs for an NPC's check.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any, Generic, Literal, Protocol, TypeVar

from attrs import field, frozen

from skillcheck.errors import ParameterError, quoted

__all__ = [
    "Bot",
    "RandomBot",
    "Result",
    "Solution",
    "Solver",
    "autoplay",
    "make_bot",
    "resolve",
]

Result = Literal["win", "loss", "unknown"]
M = TypeVar("M")
S = TypeVar("S", bound="PlayableState")
S_co = TypeVar("S_co", bound="PlayableState", covariant=True)


class PlayableState(Protocol):
    """What autoplay needs of a state (``skillcheck.engine.State`` has it all)."""

    @property
    def outcome(self) -> Any: ...

    @property
    def moves(self) -> tuple[Any, ...]: ...

    def is_terminal(self) -> bool: ...

    def observation(self) -> Any: ...

    def push(self, move: Any) -> None: ...

    def concede(self) -> Any: ...


class PlayableGame(Protocol[S_co]):
    """What autoplay needs of a game (``skillcheck.engine.Game`` has it all). This module sits
    below the engine: the engine's solver and bot hooks name these protocols."""

    @property
    def title(self) -> str: ...

    def new_state(self, seed: int | None = None) -> S_co: ...

    def bots(self) -> Mapping[str, Callable[[], Bot]]: ...


#: Autoplay concedes a check after this many moves (a bot that wanders never hangs a caller).
MAX_AUTOPLAY_MOVES = 5000


@frozen
class Solution(Generic[M]):
    """What a solver found.

    ``moves`` is a winning line from the start position when ``result`` is ``"win"`` (empty
    otherwise). ``minimum`` says the line is proved shortest (a breadth-first search); a line
    that is only a certificate has ``minimum`` False. ``states`` counts the positions searched;
    ``seconds`` is wall time. ``extras`` holds per-game answers (a best score).
    """

    result: Result
    moves: tuple[M, ...]
    states: int
    seconds: float
    minimum: bool = False
    extras: dict[str, Any] = field(factory=dict)

    @property
    def decided(self) -> bool:
        return self.result != "unknown"


class Solver(Protocol[M]):
    """A perfect-information solver of one game (it knows the hidden cards)."""

    def solve(
        self,
        state: Any,
        *,
        max_states: int | None = 2_000_000,
        max_seconds: float | None = None,
    ) -> Solution[M]:
        """Solve ``state`` (a State of the solver's game) as it stands, with its true hidden
        cards; never changes it."""
        ...

    # Optional: ``details(state, solution, *, max_states, max_seconds) -> Solution``, the
    # solution with what a person asking about one deal also wants in ``extras`` and an odds
    # table need not pay for (a best score). ``skillcheck solve`` calls it when the
    # solver has it and prints the extras.


class Bot(Protocol):
    """Chooses a move from what the player sees; None concedes."""

    name: str

    def choose(self, game: Any, observation: Any) -> Any:
        """The next move for ``observation`` (a legal move of ``game``), or None to concede."""
        ...


class RandomBot:
    """Plays a uniformly random legal move: every game's fallback bot, and a floor for odds.

    It sees only the observation; the legal moves come from a state rebuilt from the game's
    rules, so the observation must say which moves are legal (``legal_moves()``)."""

    name = "random"

    def __init__(self, seed: int = 0) -> None:
        self._rng = random.Random(seed)

    def choose(self, game: Any, observation: Any) -> Any:
        moves: list[Any] = list(observation.legal_moves())
        return self._rng.choice(moves) if moves else None


def make_bot(game: PlayableGame[Any], name: str) -> Bot:
    """The bot ``name`` of ``game``; :class:`ParameterError` names the bots there are."""
    bots: Mapping[str, Callable[[], Bot]] = game.bots()
    try:
        return bots[name]()
    except KeyError:
        raise ParameterError(
            "bot", f"unknown bot {quoted(name)} for {game.title}: the bots are {', '.join(bots)}"
        ) from None


def autoplay(
    game: PlayableGame[S],
    bot: Bot | str = "fast",
    seed: int | None = None,
    *,
    max_moves: int = MAX_AUTOPLAY_MOVES,
) -> S:
    """Play one check to the end with ``bot`` (which sees only observations)."""
    player = make_bot(game, bot) if isinstance(bot, str) else bot
    state = game.new_state(seed)
    while not state.is_terminal():
        move = player.choose(game, state.observation())
        if move is None or len(state.moves) >= max_moves:
            state.concede()
        else:
            state.push(move)
    return state


def resolve(game: PlayableGame[Any], *, bot: Bot | str = "fast", seed: int | None = None) -> Any:
    """Resolve an NPC's check in one call: the bot plays it; returns the
    :class:`~skillcheck.engine.Outcome`."""
    outcome = autoplay(game, bot, seed).outcome
    assert outcome is not None
    return outcome
