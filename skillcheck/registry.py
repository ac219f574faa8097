"""The registry of games: every game class by its registry name.

A game registers itself with :func:`register_game` when its module is imported
(:mod:`skillcheck.games` imports the built-in ones and plug-ins). The registry holds classes only
and imports no game, so records and the converter can find a game by name without an import
cycle; :mod:`skillcheck.engine` re-exports these names.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from skillcheck.errors import ParameterError, UnknownGameError, quoted

__all__ = [
    "ANALYSES",
    "GAMES",
    "Analysis",
    "analysis_of",
    "game_class",
    "make_game",
    "register_analysis",
    "register_game",
]

GAMES: dict[str, type[Any]] = {}
G = TypeVar("G", bound=type[Any])


def register_game(cls: G) -> G:
    """Class decorator: make a game available by its ``name``."""
    GAMES[cls.name] = cls
    return cls


def game_class(name: str) -> type[Any]:
    try:
        return GAMES[name]
    except KeyError:
        raise UnknownGameError(
            f"unknown game {quoted(name)}: the games are {', '.join(GAMES)}"
        ) from None


def make_game(name: str, **params: Any) -> Any:
    """A game by registry name and parameters: ``make_game("three-towers", level=6)``."""
    cls = game_class(name)
    try:
        return cls(**params)
    except TypeError as exc:
        allowed = ", ".join(p.name for p in cls.parameters())
        raise ParameterError("params", f"{exc}; the parameters of {name} are {allowed}") from None


class Analysis:
    """What a game's analysis modules add to its rules: a solver, fair bots, odds presets and
    command-line commands.

    A game's solver and bots import its rules; so that the rules need not import them back (an
    import cycle), each analysis module registers what it provides here, and the game's package
    imports those modules. ``Game.solver()``, ``Game.bots()`` and ``Game.odds_presets()`` read it.
    """

    def __init__(self) -> None:
        self.solver: Callable[[], Any] | None = None
        self.bots: dict[str, Callable[[], Any]] = {}
        self.odds_presets: dict[str, Mapping[str, Any]] = {}
        self.commands: list[Any] = []


ANALYSES: dict[str, Analysis] = {}


def analysis_of(name: str) -> Analysis:
    """The analysis registered for game ``name`` (empty if none was)."""
    return ANALYSES.get(name) or Analysis()


def register_analysis(
    name: str,
    *,
    solver: Callable[[], Any] | None = None,
    bots: Mapping[str, Callable[[], Any]] | None = None,
    odds_presets: Mapping[str, Mapping[str, Any]] | None = None,
    commands: Sequence[Any] = (),
) -> None:
    """Add a solver factory, bot factories (by name), odds presets or ``click`` commands to
    game ``name``."""
    analysis = ANALYSES.setdefault(name, Analysis())
    if solver is not None:
        analysis.solver = solver
    analysis.bots.update(bots or {})
    analysis.odds_presets.update(odds_presets or {})
    analysis.commands.extend(commands)
