"""Exception types.

Two families, as in python-chess: a :class:`ParseError` means the *text* was malformed or named
something that does not exist (a card, a suit, a move code); a :class:`RuleError` means the text
was understood but the rules forbid it. :class:`ParameterError` covers game parameters outside
their allowed ranges. Every error has a stable ``code`` (used by the API for problem+json types)
and a message that names what was wrong and what is allowed. A rejected call changes nothing.
"""

from __future__ import annotations


class SkillcheckError(Exception):
    """Base class of every error the library raises on purpose."""

    code = "skillcheck-error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class ParseError(SkillcheckError, ValueError):
    """Text that cannot be read: bad syntax, or a name that does not exist."""

    code = "parse-error"


class UnknownCardError(ParseError):
    code = "unknown-card"


class UnknownSuitError(ParseError):
    code = "unknown-suit"


class UnknownGameError(ParseError):
    code = "unknown-game"


class ParameterError(SkillcheckError, ValueError):
    """A game parameter outside its allowed values."""

    code = "invalid-parameter"

    def __init__(self, parameter: str, message: str) -> None:
        super().__init__(message)
        self.parameter = parameter


class RuleError(SkillcheckError):
    """Understood, but the rules of the game forbid it."""

    code = "rule-violation"


class IllegalMoveError(RuleError):
    """A well-formed move that is not legal in the current position."""

    code = "illegal-move"

    def __init__(self, move: object, reason: str) -> None:
        super().__init__(reason)
        self.move = move
        self.reason = reason


class GameOverError(RuleError):
    """An action on a check that has already ended."""

    code = "game-over"


class UndoError(RuleError):
    """Undo is switched off for this check, or there is nothing to undo."""

    code = "undo-not-allowed"


class RecordError(SkillcheckError):
    """A game record that does not replay to what it claims."""

    code = "record-mismatch"
