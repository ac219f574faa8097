"""Exception types.

Two families, as in python-chess: a :class:`ParseError` means the *text* was malformed or named
something that does not exist (a card, a suit, a move code); a :class:`RuleError` means the text
was understood but the rules forbid it. :class:`ParameterError` covers game parameters outside
their allowed ranges. Every error has a stable ``code`` (used by the API for problem+json types)
and a message that names what was wrong and what is allowed. A rejected call changes nothing.
"""

from __future__ import annotations

import enum


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


class UnknownDeckError(ParseError):
    code = "unknown-deck"


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


class HintsNotAllowedError(RuleError):
    """The check's GM did not allow hints."""

    code = "hints-off"


class NoHintError(RuleError):
    """The hint bot has no move to suggest here."""

    code = "no-hint"


class CannotFinishError(RuleError):
    """The check is not won in substance, so it cannot be finished for the player."""

    code = "cannot-finish"


class RecordError(SkillcheckError):
    """A game record that does not replay to what it claims."""

    code = "record-mismatch"


# ---- check sessions (skillcheck.sessions) ----------------------------------------------------


class CheckNotFoundError(SkillcheckError, LookupError):
    """No check has this id."""

    code = "check-not-found"

    def __init__(self, check_id: str) -> None:
        super().__init__(f"there is no check {check_id!r}")
        self.check_id = check_id


class VersionConflictError(SkillcheckError):
    """The check is not at the version the request expected; nothing was changed."""

    code = "version-conflict"

    def __init__(self, check_id: str, expected: int, actual: int) -> None:
        super().__init__(
            f"check {check_id!r} is at version {actual}, not {expected}: another action came "
            "first; fetch the check and try again"
        )
        self.check_id = check_id
        self.expected = expected
        self.actual = actual


class CheckEndedError(GameOverError):
    """An action on a check that has already ended (won, lost or cancelled)."""

    code = "check-ended"

    def __init__(self, check_id: str, status: enum.Enum) -> None:
        super().__init__(f"check {check_id!r} is over ({status.value}): it accepts no more actions")
        self.check_id = check_id
        self.status = status


class IdempotencyConflictError(SkillcheckError):
    """An idempotency key was used before with a different request."""

    code = "idempotency-conflict"

    def __init__(self, key: str) -> None:
        super().__init__(
            f"idempotency key {key!r} was already used for a different request: use a new key "
            "for a new request"
        )
        self.key = key


class IdempotencyKeyExistsError(SkillcheckError):
    """Raised by a :class:`CheckStore` when a write carries a key it already holds (a race the
    service resolves by looking the key up); nothing was written."""

    code = "idempotency-key-exists"

    def __init__(self, scope: str, key: str) -> None:
        super().__init__(f"idempotency key {key!r} is already stored")
        self.scope = scope
        self.key = key


class RecordNotAvailableError(SkillcheckError):
    """The revealed record exists only once the check has ended."""

    code = "record-not-available"

    def __init__(self, check_id: str) -> None:
        super().__init__(
            f"check {check_id!r} is still in progress: its record (with the seed) is revealed "
            "only when it ends"
        )
        self.check_id = check_id


class CommitmentError(RecordError):
    """A revealed seed and salt that do not hash to the published commitment."""

    code = "commitment-mismatch"
