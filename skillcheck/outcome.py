"""How a check ends, and the words every game shares: the outcome types, the four tiers of a
result, the undo policies and the reserved codes.

Kept apart from :mod:`skillcheck.engine` so that records and the registry sit below the engine
(no import cycle); the engine re-exports every name.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import Any

from attrs import frozen

from skillcheck.errors import ParameterError, quoted

__all__ = [
    "MAX_MOVE_CODE",
    "RESERVED_WORDS",
    "UNDO",
    "EndReason",
    "Outcome",
    "Status",
    "Tier",
    "Tiers",
    "UndoPolicy",
]


#: The action code of a take-back in histories and records.
UNDO = "undo"
#: Words that are actions of a session, never a game's move code (conformance checks it).
RESERVED_WORDS = frozenset({UNDO, "concede", "cancel", "unwinnable", "hint"})
#: The longest move code any game may write (the API stores codes in 32 characters).
MAX_MOVE_CODE = 32


class Status(enum.Enum):
    IN_PROGRESS = "in_progress"
    WON = "won"
    LOST = "lost"


class EndReason(enum.Enum):
    GOAL = "goal"
    NO_LEGAL_MOVES = "no_legal_moves"
    MOVE_LIMIT = "move_limit"
    CONCEDED = "conceded"
    #: The true deck leaves no winning line (proved by exhaustive search; GMs may enable this).
    UNWINNABLE = "unwinnable"


@frozen
class Outcome:
    """How a check ended.

    ``degree`` is the degree of success; each game documents its meaning (docs/rules.md).
    """

    status: Status
    reason: EndReason
    degree: int
    summary: str

    @property
    def success(self) -> bool:
        return self.status is Status.WON


class Tier(enum.Enum):
    """The four tiers of a finished check, as tabletop RPGs grade a roll (docs/rules.md)."""

    CRITICAL_SUCCESS = "critical_success"
    SUCCESS = "success"
    FAILURE = "failure"
    CRITICAL_FAILURE = "critical_failure"

    @property
    def text(self) -> str:
        """The tier in plain words: "Critical success", "Success", "Failure", "Critical failure"."""
        return self.value.replace("_", " ").capitalize()

    @property
    def rank(self) -> int:
        """0 (critical failure) to 3 (critical success): higher is better."""
        return _TIER_RANKS[self]


_TIER_RANKS = {
    Tier.CRITICAL_FAILURE: 0,
    Tier.FAILURE: 1,
    Tier.SUCCESS: 2,
    Tier.CRITICAL_SUCCESS: 3,
}

#: The keys of a tiers object in JSON (the API's creation body, records).
TIER_KEYS = ("critical_success", "critical_failure")


@frozen
class Tiers:
    """Thresholds on the degree of success that grade an outcome into the four tiers.

    A won check with ``degree >= critical_success`` is a critical success, any other win a
    success; a lost check with ``degree <= critical_failure`` is a critical failure, any other
    loss a failure. ``critical_success > critical_failure`` always (so the tier never falls as
    the degree rises). Each game declares its defaults (:meth:`Game.default_tiers`); a GM may
    set others for one check."""

    critical_success: int
    critical_failure: int

    def __attrs_post_init__(self) -> None:
        for name in TIER_KEYS:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise ParameterError(
                    "tiers", f"tiers.{name} {quoted(value)} is not allowed: it is a whole number"
                )
        if self.critical_success <= self.critical_failure:
            raise ParameterError(
                "tiers",
                f"tiers.critical_success ({self.critical_success}) must be greater than "
                f"tiers.critical_failure ({self.critical_failure})",
            )

    def tier(self, outcome: Outcome) -> Tier:
        """The tier of ``outcome`` under these thresholds."""
        if outcome.status is Status.WON:
            if outcome.degree >= self.critical_success:
                return Tier.CRITICAL_SUCCESS
            return Tier.SUCCESS
        if outcome.degree <= self.critical_failure:
            return Tier.CRITICAL_FAILURE
        return Tier.FAILURE

    def to_dict(self) -> dict[str, int]:
        return {
            "critical_success": self.critical_success,
            "critical_failure": self.critical_failure,
        }

    @classmethod
    def from_dict(cls, data: Any) -> Tiers:
        """Thresholds from JSON, strictly: an object with exactly the two keys, whole numbers
        (never a float, a string or a boolean); otherwise :class:`ParameterError` naming what
        was wrong and what is allowed."""
        if not isinstance(data, Mapping):
            raise ParameterError(
                "tiers",
                f'tiers must be an object {{"critical_success": N, "critical_failure": N}}, '
                f"not {quoted(data)}",
            )
        unknown = sorted(str(k) for k in data if k not in TIER_KEYS)
        if unknown:
            raise ParameterError(
                "tiers",
                f"unknown key {quoted(unknown[0])} in tiers: tiers takes critical_success and "
                "critical_failure",
            )
        missing = [k for k in TIER_KEYS if k not in data]
        if missing:
            raise ParameterError(
                "tiers",
                f"tiers.{missing[0]} is missing: give both critical_success and critical_failure",
            )
        return cls(data["critical_success"], data["critical_failure"])


class UndoPolicy(enum.Enum):
    """Which moves a player may take back (every game's ``undo`` parameter, docs/rules.md).

    ``off``: none. ``safe``: only moves that turned up no hidden card (so a take-back never
    lets the player replay a move knowing what it revealed). ``full``: any move.
    ``bool(policy)`` tells whether any take-back is allowed."""

    OFF = "off"
    SAFE = "safe"
    FULL = "full"

    def __bool__(self) -> bool:
        return self is not UndoPolicy.OFF

    @classmethod
    def of(cls, value: Any) -> UndoPolicy:
        """The policy of ``value``: a policy, its name, or (records written before the policies
        existed, and games that still take a switch) ``True`` for full and ``False`` for off."""
        if isinstance(value, UndoPolicy):
            return value
        if isinstance(value, bool):
            return cls.FULL if value else cls.OFF
        if isinstance(value, str):
            for policy in cls:
                if policy.value == value:
                    return policy
        raise ParameterError(
            "undo",
            f"undo {quoted(value)} is not allowed: undo is one of off, safe, full (off: no "
            "take-backs; safe: only moves that turned up no hidden card; full: any move)",
        )
