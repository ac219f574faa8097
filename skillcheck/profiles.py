"""Odds a GM can act on: three player profiles, plain words for a chance, one sentence.

A GM does not think in solvers and bots but in people at the table:

- **careful** ("A careful player"): the game's strong fair bot, which plans patiently from what
  it sees;
- **casual** ("A casual player"): the game's fast fair bot, a hasty player;
- **ceiling** ("The ceiling (perfect play)"): the exact solver with the true cards, a bound no
  player reaches.

Which bot is which is the game's to say (:func:`register_gm_odds`, in the game's ``odds.py``);
a game without a strong bot simply has no careful profile, one without a solver no ceiling.
The same declaration names the game's difficulty parameter (what :mod:`skillcheck.calibrate`
turns), the tables shipped with the package (:mod:`skillcheck.tables`) and the parameters that
never change the odds. Nothing here names a game.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from attrs import field, frozen

from skillcheck.engine import Game
from skillcheck.odds import PERFECT, wilson_interval
from skillcheck.solving import RandomBot
from skillcheck.words import counted

__all__ = [
    "PROFILE_KEYS",
    "PROFILE_NAMES",
    "WORDS",
    "WORD_THRESHOLDS",
    "Difficulty",
    "GmOdds",
    "ProfileOdds",
    "ShippedGrid",
    "gm_odds_of",
    "percent",
    "profile_methods",
    "register_gm_odds",
    "summary",
    "words_for",
]

ProfileKey = Literal["careful", "casual", "ceiling"]
#: The profiles in the order a GM reads them.
PROFILE_KEYS: tuple[ProfileKey, ...] = ("careful", "casual", "ceiling")
PROFILE_NAMES: dict[str, str] = {
    "careful": "A careful player",
    "casual": "A casual player",
    "ceiling": "The ceiling (perfect play)",
}
#: The words for a chance, from the best to the worst.
WORDS: tuple[str, ...] = ("almost sure", "likely", "even", "hard", "very hard")
#: A rate at or above the threshold earns the word (the last word takes everything below).
WORD_THRESHOLDS: tuple[tuple[float, str], ...] = (
    (0.90, "almost sure"),
    (0.60, "likely"),
    (0.40, "even"),
    (0.15, "hard"),
)
#: The verb phrase of each word in a sentence ("A casual player is likely to succeed").
_PHRASES = {
    "almost sure": "is almost sure to succeed",
    "likely": "is likely to succeed",
    "even": "has an even chance",
    "hard": "will find it hard",
    "very hard": "will find it very hard",
}


def words_for(rate: float) -> str:
    """The plain words for a success rate (0..1): thresholds in :data:`WORD_THRESHOLDS`."""
    for threshold, word in WORD_THRESHOLDS:
        if rate >= threshold:
            return word
    return WORDS[-1]


def percent(rate: float) -> str:
    """A rate as a whole percentage that never claims a certainty it does not have."""
    if 0 < rate < 0.01:
        return "under 1 %"
    if 0.99 < rate < 1:
        return "over 99 %"
    return f"{round(100 * rate)} %"


@frozen
class Difficulty:
    """The parameter a GM turns to make a check harder or easier, its candidate values (in
    order) and which way is harder (``"up"``: a larger value is harder)."""

    parameter: str
    values: tuple[Any, ...]
    harder: Literal["up", "down"] = "up"


@frozen
class ShippedGrid:
    """One table shipped with the package: fixed flat options, axes (every combination the
    game accepts is a cell), the master seed, and the deals per profile (a profile left out is
    not shipped for this grid)."""

    name: str
    params: dict[str, Any]
    axes: dict[str, tuple[Any, ...]]
    deals: dict[str, int]
    seed: int = 2026


@frozen
class GmOdds:
    """What a game declares for the GM's odds (:func:`register_gm_odds`)."""

    bots: dict[str, str] = field(factory=dict)
    difficulty: Callable[[Mapping[str, Any]], Difficulty] | None = None
    grids: tuple[ShippedGrid, ...] = ()
    neutral: tuple[str, ...] = ()
    tables: Path | None = None


_DECLARED: dict[str, GmOdds] = {}


def register_gm_odds(
    name: str,
    *,
    careful: str | None = None,
    casual: str | None = None,
    difficulty: Callable[[Mapping[str, Any]], Difficulty] | None = None,
    grids: Sequence[ShippedGrid] = (),
    neutral: Sequence[str] = (),
    tables: Path | None = None,
) -> None:
    """Declare game ``name``'s profiles (the bot names of the careful and casual player), its
    difficulty parameter (a function of the fixed flat options), its shipped grids, the
    options that never change the odds (its bots and solver ignore them, such as undo) and the
    file its shipped tables live in, in the game's own folder (needed with grids; usually
    ``Path(__file__).with_name("odds_tables.json")``, shipped as package data)."""
    if grids and tables is None:
        raise ValueError(f"{name} declares shipped grids, so it must say where their tables live")
    bots = {k: v for k, v in (("careful", careful), ("casual", casual)) if v is not None}
    _DECLARED[name] = GmOdds(bots, difficulty, tuple(grids), tuple(neutral), tables)


def gm_odds_of(name: str) -> GmOdds:
    """What game ``name`` declared (nothing: casual is its first bot that is not the random
    fallback, and there is no careful profile)."""
    return _DECLARED.get(name) or GmOdds()


def profile_methods(game: Game[Any]) -> dict[str, str]:
    """The profiles ``game`` has, in reading order, each with the method that plays it."""
    declared = gm_odds_of(game.name).bots
    bots = list(game.bots())
    found: dict[str, str] = {}
    for key in PROFILE_KEYS:
        if key == "ceiling":
            if game.solver() is not None:
                found[key] = PERFECT
            continue
        bot = declared.get(key)
        if bot is None and key == "casual":  # the first bot that is more than random moves
            bot = next((b for b in bots if b != RandomBot.name), None)
        if bot is not None and bot in bots:
            found[key] = bot
    return found


@frozen
class ProfileOdds:
    """One profile's odds: successes over deals, with the Wilson 95 % interval and the words."""

    profile: str
    successes: int
    deals: int

    @property
    def rate(self) -> float:
        return self.successes / self.deals if self.deals else 0.0

    @property
    def words(self) -> str:
        return words_for(self.rate)

    def to_dict(self) -> dict[str, Any]:
        low, high = wilson_interval(self.successes, self.deals)
        return {
            "profile": self.profile,
            "name": PROFILE_NAMES[self.profile],
            "rate": round(self.rate, 6),
            "low": round(low, 6),
            "high": round(high, 6),
            "deals": self.deals,
            "words": self.words,
        }


#: A 95 % range wider than this (in parts of 1) is said in the sentence: its words alone would
#: sound surer than a few test deals allow (3 wins of 3 is "almost sure", yet 44 % to 100 %).
WIDE_RANGE = 0.3


def _clause(odds: ProfileOdds, first: bool) -> str:
    name = "Perfect play" if odds.profile == "ceiling" else PROFILE_NAMES[odds.profile]
    who = name if first else name[0].lower() + name[1:]
    low, high = wilson_interval(odds.successes, odds.deals)
    if high - low > WIDE_RANGE:  # no word: "almost sure" from 3 deals would claim too much
        return (
            f"{who} won {odds.successes} of {counted(odds.deals, 'test deal')}, too few to "
            f"tell: anywhere from {percent(low)} to {percent(high)}"
        )
    return f"{who} {_PHRASES[odds.words]} ({percent(odds.rate)})"


def summary(profiles: Sequence[ProfileOdds]) -> str:
    """One plain sentence for a GM: the casual player first (the table's usual player), then
    the careful one; perfect play only when no player profile is known."""
    by_key = {p.profile: p for p in profiles}
    people = [by_key[k] for k in ("casual", "careful") if k in by_key]
    if not people:
        if "ceiling" in by_key:
            clause = _clause(by_key["ceiling"], True)
            return f"{clause}; no player profile is known for this game."
        return "No odds are known for these parameters."
    clauses = [_clause(p, i == 0) for i, p in enumerate(people)]
    return "; ".join(clauses) + "."
