"""How a check ends, and the words every game shares: the outcome types and reserved codes.

Kept apart from :mod:`skillcheck.engine` so that records and the registry sit below the engine
(no import cycle); the engine re-exports every name.
"""

from __future__ import annotations

import enum

from attrs import frozen

__all__ = ["MAX_MOVE_CODE", "RESERVED_WORDS", "UNDO", "EndReason", "Outcome", "Status"]


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
