"""Exception types.

Two families, as in python-chess: a :class:`ParseError` means the *text* was malformed or named
something that does not exist (a card, a suit, a move code); a :class:`RuleError` means the text
was understood but the rules forbid it. :class:`ParameterError` covers game parameters outside
their allowed ranges, and names a game does not take. A value of the wrong kind handed to a
method that takes one of the library's own objects (``state.push("d1")``: text, another game's
move, ``None``) is a :class:`NotAMoveError`, which is also a ``TypeError``: a mistake in the calling
code, neither text to parse nor a move the rules forbid (text goes to ``state.push_code``). Every
error has a stable ``code`` (used by the API for problem+json types) and a message that names
what was wrong and what is allowed. A rejected call changes nothing.

A message quotes what it was given with :func:`quoted`: spelt as JSON (``false``, ``null``,
``"moons"``), so that an API client reads the value it sent, and cut short when long, so that a
10,000-character move code does not come back as a 10,000-character message.
"""

from __future__ import annotations

import enum
import json
import math

#: The most characters of a given value that a message quotes (:func:`quoted`).
QUOTE_LIMIT = 40


def quoted(value: object, limit: int = QUOTE_LIMIT) -> str:
    """``value`` as an error message quotes it: in JSON's spelling (``false``, ``true``,
    ``null``, ``"text"`` in double quotes with control characters escaped; never Python's
    ``False``, ``None`` or ``'text'``), and when longer than ``limit`` characters its first
    ``limit`` characters, ``…`` and its length: ``"dddd…" (10000 characters)``.

    A value JSON cannot write (a tuple key, an object) is written as text. Every message that
    repeats what a person or a client gave uses this, in the library and in the HTTP API."""
    if isinstance(value, str):
        text = _json(value[:limit])
        if len(value) <= limit:
            return text
        return f'{text[:-1]}…" ({len(value)} characters)'
    if isinstance(value, enum.Enum):
        value = value.value
    try:
        text = _json(value)
    except (TypeError, ValueError):
        text = _text(value)
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text)} characters)"


def _text(value: object) -> str:
    """A value JSON cannot write: as text, or in words when it is too big to be written at all
    (Python refuses to write a whole number of more than 4300 digits)."""
    try:
        return str(value)
    except ValueError:
        if isinstance(value, int):
            digits = int(math.log10(abs(value))) + 1
            return f"(a whole number of about {digits} digits)"
        return f"(a {type(value).__name__} too large to write)"


def _json(value: object) -> str:
    text = json.dumps(value, ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: written as its \u escape
        text = json.dumps(value)
    return text


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


class NotAMoveError(SkillcheckError, TypeError):
    """``State.push`` or ``State.is_legal`` given something that is not a move of the state's
    game: text (which ``State.push_code`` reads), another game's move, ``None`` or any other
    value. Not a :class:`RuleError` (no rule was asked) nor a :class:`ParseError` (no text was
    read): the calling code passed the wrong kind of value."""

    code = "not-a-move"

    def __init__(self, value: object, message: str) -> None:
        super().__init__(message)
        self.value = value


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
        super().__init__(f"there is no check {quoted(check_id)}")
        self.check_id = check_id


class VersionConflictError(SkillcheckError):
    """The check is not at the version the request expected; nothing was changed."""

    code = "version-conflict"

    def __init__(self, check_id: str, expected: int, actual: int) -> None:
        why = (
            "another action came first"
            if expected < actual
            else "that version has not been reached (the check counts one version per action)"
        )
        super().__init__(
            f"check {quoted(check_id)} is at version {actual}, not {expected}: {why}; fetch the "
            "check and try again"
        )
        self.check_id = check_id
        self.expected = expected
        self.actual = actual


class CheckEndedError(GameOverError):
    """An action on a check that has already ended (won, lost or cancelled)."""

    code = "check-ended"

    def __init__(self, check_id: str, status: enum.Enum) -> None:
        super().__init__(
            f"check {quoted(check_id)} is over ({status.value}): it accepts no more actions"
        )
        self.check_id = check_id
        self.status = status


class IdempotencyConflictError(SkillcheckError):
    """An idempotency key was used before with a different request."""

    code = "idempotency-conflict"

    def __init__(self, key: str) -> None:
        super().__init__(
            f"idempotency key {quoted(key)} was already used for a different request: use a new "
            "key for a new request"
        )
        self.key = key


class IdempotencyKeyExistsError(SkillcheckError):
    """Raised by a :class:`CheckStore` when a write carries a key it already holds (a race the
    service resolves by looking the key up); nothing was written."""

    code = "idempotency-key-exists"

    def __init__(self, scope: str, key: str) -> None:
        super().__init__(f"idempotency key {quoted(key)} is already stored")
        self.scope = scope
        self.key = key


class RecordNotAvailableError(SkillcheckError):
    """The revealed record exists only once the check has ended."""

    code = "record-not-available"

    def __init__(self, check_id: str) -> None:
        super().__init__(
            f"check {quoted(check_id)} is still in progress: its record (with the seed) is "
            "revealed only when it ends"
        )
        self.check_id = check_id


class CommitmentError(RecordError):
    """A revealed seed and salt that do not hash to the published commitment."""

    code = "commitment-mismatch"
