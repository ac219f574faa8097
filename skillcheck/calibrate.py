"""Calibrate a check: which value of the game's difficulty parameter gives the wanted chance.

A GM wants "a 60 % chance for a casual player" and asks which quota (or level, or number of
peaks) gives it. Each game names its difficulty parameter and the values it may take
(:func:`skillcheck.profiles.register_gm_odds`); every value is a cell, looked up in the shipped
tables when they hold it (:mod:`skillcheck.tables`) or played by the odds harness, and the
answer is the value whose rate is closest to the target, with the odds of every other value
so a GM sees the neighbouring choices. Nothing here names a game.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from concurrent.futures import Executor
from typing import Any

from attrs import frozen

from skillcheck.engine import GAMES
from skillcheck.errors import ParameterError, quoted
from skillcheck.odds import PERFECT_PLAY_STATES, Progress, game_from_options, odds
from skillcheck.profiles import (
    PROFILE_KEYS,
    PROFILE_NAMES,
    Difficulty,
    gm_odds_of,
    percent,
    profile_methods,
    words_for,
)
from skillcheck.tables import shipped_cell

__all__ = [
    "Calibration",
    "CalibrationPlan",
    "Choice",
    "calibrate",
    "choose",
    "plan",
]


@frozen
class Choice:
    """One value of the difficulty parameter: its successes over deals for the profile."""

    value: Any
    successes: int
    deals: int

    @property
    def rate(self) -> float:
        return self.successes / self.deals if self.deals else 0.0

    def to_dict(self) -> dict[str, Any]:
        from skillcheck.odds import wilson_interval

        low, high = wilson_interval(self.successes, self.deals)
        return {
            "value": self.value,
            "rate": round(self.rate, 6),
            "low": round(low, 6),
            "high": round(high, 6),
            "deals": self.deals,
            "words": words_for(self.rate),
        }


@frozen
class Calibration:
    """The answer: the difficulty parameter, the best value and every value's odds."""

    game: str
    parameter: str
    target: float
    profile: str
    choices: tuple[Choice, ...]
    best: Any
    source: str

    @property
    def summary(self) -> str:
        best = next(c for c in self.choices if c.value == self.best)
        who = PROFILE_NAMES[self.profile]
        who = who[0].lower() + who[1:]
        return (
            f"{self.parameter.capitalize()} {self.best} comes closest to {percent(self.target)} "
            f"for {who}: {percent(best.rate)} ({words_for(best.rate)})."
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "parameter": self.parameter,
            "target": self.target,
            "profile": self.profile,
            "best": self.best,
            "choices": [c.to_dict() for c in self.choices],
            "source": self.source,
            "summary": self.summary,
        }


@frozen
class CalibrationPlan:
    """What a calibration plays: the difficulty, the fixed options, one cell per value the
    game accepts, and the method of the profile."""

    game: str
    difficulty: Difficulty
    fixed: dict[str, Any]
    cells: tuple[dict[str, Any], ...]
    profile: str
    method: str

    @property
    def values(self) -> tuple[Any, ...]:
        return tuple(c[self.difficulty.parameter] for c in self.cells)


def _check_target(target: float) -> None:
    if isinstance(target, bool) or not isinstance(target, int | float) or not 0 <= target <= 1:
        raise ParameterError(
            "target",
            f"target {quoted(target)} is not allowed: give a chance from 0 to 1 (0.6 is 60 %)",
        )


def plan(name: str, target: float, profile: str, fixed: Mapping[str, Any]) -> CalibrationPlan:
    """Check a calibration's request and list the cells it needs (raises
    :class:`ParameterError` naming what was wrong and what is allowed)."""
    _check_target(target)
    if name not in GAMES:
        raise ParameterError(
            "game", f"unknown game {quoted(name)}: the games are {', '.join(GAMES)}"
        )
    declared = gm_odds_of(name).difficulty
    if declared is None:
        raise ParameterError("game", f"{name} declares no difficulty parameter to calibrate")
    if profile not in PROFILE_KEYS:
        raise ParameterError(
            "profile",
            f"unknown profile {quoted(profile)}: the profiles are {', '.join(PROFILE_KEYS)}",
        )
    fixed = {k: v for k, v in fixed.items() if v is not None}
    difficulty = declared(fixed)
    if difficulty.parameter in fixed:
        raise ParameterError(
            difficulty.parameter,
            f"{difficulty.parameter} is what calibrating chooses: leave it out",
        )
    cells: list[dict[str, Any]] = []
    first_error: ParameterError | None = None
    for value in difficulty.values:
        options = {**fixed, difficulty.parameter: value}
        try:
            game_from_options(name, options)
        except ParameterError as exc:
            first_error = first_error or exc
            continue
        cells.append(options)
    if not cells:
        if first_error is not None:
            raise first_error
        game_from_options(name, fixed)  # the fixed options' own error, if they have one
        raise ParameterError(
            difficulty.parameter,
            f"with these options {difficulty.parameter} has no value to choose from",
        )
    methods = profile_methods(game_from_options(name, cells[0]))
    if profile not in methods:
        raise ParameterError(
            "profile",
            f"{GAMES[name].title} has no {profile} profile: its profiles are {', '.join(methods)}",
        )
    return CalibrationPlan(name, difficulty, fixed, tuple(cells), profile, methods[profile])


def shipped_choices(chosen: CalibrationPlan) -> list[Choice] | None:
    """Every value's odds from the shipped tables, or None if they do not hold them all."""
    found = []
    for options in chosen.cells:
        cell = shipped_cell(game_from_options(chosen.game, options))
        if cell is None or chosen.profile not in cell.profiles:
            return None
        successes, deals, _ = cell.profiles[chosen.profile]
        found.append(Choice(options[chosen.difficulty.parameter], successes, deals))
    return found


def choose(
    chosen: CalibrationPlan, target: float, choices: Sequence[Choice], source: str
) -> Calibration:
    """The value whose rate is closest to ``target`` (ties go to the easier value)."""
    harder_up = chosen.difficulty.harder == "up"
    ordered = list(choices) if harder_up else list(reversed(choices))  # easiest first
    best = min(ordered, key=lambda c: abs(c.rate - target))
    return Calibration(
        chosen.game,
        chosen.difficulty.parameter,
        target,
        chosen.profile,
        tuple(choices),
        best.value,
        source,
    )


def calibrate(
    name: str,
    target: float,
    profile: str,
    fixed: Mapping[str, Any] | None = None,
    *,
    deals: int | None = None,
    seed: int = 0,
    executor: Executor | None = None,
    progress: Progress | None = None,
    solver_states: int = PERFECT_PLAY_STATES,
) -> Calibration:
    """Which value of game ``name``'s difficulty parameter gives ``target`` (0..1) for
    ``profile``, the other options ``fixed``. The shipped tables answer when they hold every
    value and ``deals`` is None; otherwise every value is played over ``deals`` deals (200 when
    None) from master ``seed``."""
    chosen = plan(name, target, profile, fixed or {})
    if deals is None:
        found = shipped_choices(chosen)
        if found is not None:
            return choose(chosen, target, found, "shipped")
    parameter = chosen.difficulty.parameter
    table = odds(
        name,
        chosen.fixed,
        {parameter: chosen.values},
        methods=[chosen.method],
        deals=deals if deals is not None else 200,
        seed=seed,
        executor=executor,
        progress=progress,
        solver_states=solver_states,
    )
    return choose(chosen, target, choices_of(table.cells, parameter), "computed")


def choices_of(cells: Sequence[Any], parameter: str) -> list[Choice]:
    """Choices from odds cells (:class:`~skillcheck.odds.OddsCell` or their dicts) of one
    method, in the order of the axis."""
    found = []
    for cell in cells:
        data = cell if isinstance(cell, Mapping) else cell.to_dict()
        found.append(Choice(data["params"][parameter], data["successes"], data["trials"]))
    return found
