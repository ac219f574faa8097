"""Check sessions: a server-side service that runs skill checks for players it does not trust.

No HTTP here. The service is what the web API wraps and what an RPG engine embeds directly
(``examples/embed_session.py``); the model, the event payloads, the commitment recipe and the
threading rules are in docs/sessions.md.

- A check is **event-sourced**: its stored form is the configuration, the secret seed and salt,
  and an append-only list of actions (move codes, ``undo``, ``concede``, ``cancel``,
  ``unwinnable``). The position is rebuilt by replaying the actions through the rules engine; the
  live state is cached per check, keyed by version, so an action costs one move normally.
- The **version** of a check is the number of actions in its log. An action may name the version
  it expects; a stale one raises :class:`VersionConflictError` and changes nothing. An
  **idempotency key** makes a retried request safe: the same key and request give back the same
  view without acting twice.
- Every accepted request appends **events** (``created``, ``moved``, ``undone``, ``ended``,
  ``cancelled``). Listeners subscribe to them, or poll them after a sequence number. Nothing a
  player can see before the end (views, events) holds the order of the hidden cards.
- At creation the service publishes a **commitment**, SHA-256 over the deal's seed material; after
  the end the revealed record carries the seed and the salt, so anyone can check that the deal was
  fixed before the first card was seen.
- Storage is a small :class:`CheckStore` protocol; :class:`InMemoryCheckStore` is thread-safe.
"""

from __future__ import annotations

import contextlib
import enum
import hashlib
import hmac
import json
import logging
import queue
import secrets
import threading
import uuid
from collections import OrderedDict, deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import UTC, datetime
from types import TracebackType
from typing import Any, Final, Protocol, runtime_checkable

import attrs
from attrs import field, frozen

from skillcheck.board import MoveView
from skillcheck.engine import UNDO, Game, Outcome, State, Status, Tier, Tiers
from skillcheck.errors import (
    CannotFinishError,
    CheckEndedError,
    CheckNotFoundError,
    CommitmentError,
    HintsNotAllowedError,
    IdempotencyConflictError,
    IdempotencyKeyExistsError,
    NoHintError,
    ParameterError,
    ParseError,
    RecordError,
    RecordNotAvailableError,
    SkillcheckError,
    VersionConflictError,
    quoted,
)
from skillcheck.records import UNWINNABLE_PROOF_STATES, GameRecord, read_json_object, verify
from skillcheck.rng import draw_seed, validate_seed
from skillcheck.serialization import converter, game_from_params, game_params
from skillcheck.solving import make_bot

__all__ = [
    "CANCEL",
    "COMMITMENT_SCHEME",
    "CONCEDE",
    "DEFAULT_UNWINNABLE_MAX_STATES",
    "HINT",
    "HINT_BOT",
    "REVEALED_FORMAT",
    "UNDO",
    "UNWINNABLE",
    "Action",
    "Append",
    "CheckConfig",
    "CheckEndedError",
    "CheckEvent",
    "CheckNotFoundError",
    "CheckStatus",
    "CheckStore",
    "CheckView",
    "CommitmentError",
    "CreatedCheck",
    "EventKind",
    "EventQueue",
    "IdempotencyConflictError",
    "IdempotencyKeyExistsError",
    "IdempotencyRecord",
    "InMemoryCheckStore",
    "RecordNotAvailableError",
    "RevealedRecord",
    "SessionService",
    "StoredCheck",
    "Subscription",
    "VersionConflictError",
    "commitment_preimage",
    "compute_commitment",
    "seed_provenance",
    "verify_commitment",
]

logger = logging.getLogger(__name__)

#: Action codes besides the game's move codes and :data:`~skillcheck.engine.UNDO`.
CONCEDE: Final = "concede"
CANCEL: Final = "cancel"
UNWINNABLE: Final = "unwinnable"
#: A hint taken (the suggested move in the action's note): counted, changes no position.
HINT: Final = "hint"
#: The note on the moves :meth:`SessionService.finish` played for the player.
FINISHED_FOR_PLAYER: Final = "finish"
#: The fair bot whose move a hint is (it sees only what the player sees; never the solver).
HINT_BOT: Final = "fast"
#: Names the commitment recipe (docs/sessions.md); a new recipe would get a new name.
COMMITMENT_SCHEME: Final = "sha256-canonical-json/1"
#: The ``format`` of a revealed record (a game record with the salt and the commitment).
REVEALED_FORMAT: Final = "skillcheck-revealed/1"
#: The solver budget (positions) for ``end_when_lost``, as ``skillcheck play --end-when-lost``.
DEFAULT_UNWINNABLE_MAX_STATES: Final = 200_000
#: How often an action without an expected version is retried when another one wins the race.
_MAX_ATTEMPTS: Final = 16
#: The longest label of a check and reason for a cancellation, in characters.
MAX_LABEL: Final = 200
MAX_REASON: Final = 1000
#: The idempotency scope of creations (an action's scope is its check id).
_CREATE_SCOPE: Final = ""


# ---- value objects -----------------------------------------------------------------------------


class CheckStatus(enum.Enum):
    """A check's status: the game's, plus ``cancelled`` (the GM ended it; no game outcome)."""

    IN_PROGRESS = "in_progress"
    WON = "won"
    LOST = "lost"
    CANCELLED = "cancelled"

    @property
    def is_over(self) -> bool:
        return self is not CheckStatus.IN_PROGRESS


class EventKind(enum.Enum):
    CREATED = "created"
    MOVED = "moved"
    UNDONE = "undone"
    #: The player took a hint (the position is unchanged; the count is in the view).
    HINT = "hint"
    ENDED = "ended"
    CANCELLED = "cancelled"

    @property
    def terminal(self) -> bool:
        """Whether this is a check's last event (``ended`` or ``cancelled``)."""
        return self in (EventKind.ENDED, EventKind.CANCELLED)


def _utc_now() -> datetime:
    return datetime.now(UTC)


def _new_id() -> str:
    return str(uuid.uuid4())


def _new_salt() -> str:
    return secrets.token_hex(16)


def _canonical_json(data: Any) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _copy(data: Any) -> Any:
    """A copy of JSON data already checked by :func:`_plain` (dicts and lists are new)."""
    if isinstance(data, dict):
        return {key: _copy(value) for key, value in data.items()}
    if isinstance(data, list):
        return [_copy(value) for value in data]
    return data


def _plain(data: Any, what: str) -> Any:
    """A deep copy of JSON data (refused with :class:`ParameterError` if it is not JSON)."""
    try:
        return json.loads(json.dumps(data, allow_nan=False))
    except (TypeError, ValueError) as exc:
        raise ParameterError(what, f"{what} must be plain JSON data: {exc}") from None


@frozen
class CheckConfig:
    """What a check is: the game and its parameters (in ``game_params`` form) and the GM's
    options. ``metadata`` is the embedder's JSON data (a character, a scene), stored untouched."""

    game: str
    params: dict[str, Any]
    #: End the check as lost as soon as the solver proves it can no longer be won.
    end_when_lost: bool = False
    #: The solver budget of that proof, in positions (deterministic, unlike a time limit).
    unwinnable_max_states: int = DEFAULT_UNWINNABLE_MAX_STATES
    label: str | None = None
    metadata: dict[str, Any] = field(factory=dict)
    #: The character making the check ("Mira"), checked text like the label.
    character: str | None = None
    #: The creator passed the seed (the GM knows the deal): views, the revealed record and the
    #: commitment say so (docs/sessions.md#a-seed-the-gm-chose).
    seed_chosen: bool = False
    #: The GM's tier thresholds (``{"critical_success": N, "critical_failure": N}``); None:
    #: the game's defaults (docs/rules.md, "Tiers").
    tiers: dict[str, int] | None = None
    #: The GM allows hints: the fair fast bot's move on request, each one counted in the record.
    hints: bool = False

    def build_game(self) -> Game[Any]:
        game: Game[Any] = game_from_params(self.game, self.params)
        return game

    @property
    def thresholds(self) -> Tiers | None:
        """The GM's thresholds as :class:`~skillcheck.engine.Tiers` (None: the game's)."""
        return None if self.tiers is None else Tiers.from_dict(self.tiers)

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "params": _plain(self.params, "params"),
            "end_when_lost": self.end_when_lost,
            "unwinnable_max_states": self.unwinnable_max_states,
            "label": self.label,
            "metadata": _plain(self.metadata, "metadata"),
            "character": self.character,
            "seed_chosen": self.seed_chosen,
            "tiers": None if self.tiers is None else dict(self.tiers),
            "hints": self.hints,
        }


@frozen
class Action:
    """One entry of a check's append-only log: a move code, ``undo``, ``concede``, ``cancel``
    or ``unwinnable``; ``note`` is the GM's reason for a cancellation."""

    code: str
    at: datetime
    note: str | None = None


@frozen
class StoredCheck:
    """A check as a :class:`CheckStore` keeps it. ``seed`` and ``salt`` are secret until the end."""

    check_id: str
    config: CheckConfig
    seed: int
    salt: str
    commitment: str
    created_at: datetime
    actions: tuple[Action, ...] = ()
    status: CheckStatus = CheckStatus.IN_PROGRESS
    #: The sequence number of the check's last event (the store keeps it with the events).
    last_sequence: int = 0

    @property
    def version(self) -> int:
        """The number of actions taken: every accepted action adds one."""
        return len(self.actions)

    @property
    def updated_at(self) -> datetime:
        return self.actions[-1].at if self.actions else self.created_at


@frozen
class CheckEvent:
    """Something that happened to a check. ``sequence`` numbers a check's events from 1 without
    gaps; ``version`` is the check's version after it. Payloads are plain JSON data (treat them
    as read-only); before the end they never hold hidden cards."""

    check_id: str
    sequence: int
    version: int
    kind: EventKind
    payload: dict[str, Any]
    at: datetime

    @property
    def terminal(self) -> bool:
        return self.kind.terminal

    def to_dict(self) -> dict[str, Any]:
        return {
            "check_id": self.check_id,
            "sequence": self.sequence,
            "version": self.version,
            "kind": self.kind.value,
            "payload": self.payload,
            "at": self.at.isoformat(),
        }


@frozen
class IdempotencyRecord:
    """A request made with an idempotency key: its fingerprint and the version it produced.
    ``scope`` is the check id for actions and ``""`` for creations."""

    scope: str
    key: str
    fingerprint: str
    check_id: str
    version: int


@frozen
class Append:
    """One atomic write: the actions and events of one request, if the check is still at
    ``expected_version``, with the new status and the request's idempotency record."""

    expected_version: int
    actions: tuple[Action, ...]
    events: tuple[CheckEvent, ...]
    status: CheckStatus
    idempotency: IdempotencyRecord | None = None


@frozen
class CheckView:
    """What anyone may see of a check at one version: never the seed or the hidden cards."""

    check_id: str
    game: str
    params: dict[str, Any]
    status: CheckStatus
    version: int
    moves_made: int
    #: The game's observation as plain data (``converter.unstructure(state.observation())``).
    observation: dict[str, Any]
    #: The observation code (docs/notation.md), for games that have one.
    observation_code: str | None
    legal_moves: tuple[str, ...]
    #: The board as a front end draws it (:class:`skillcheck.board.Board` as JSON).
    board: dict[str, Any]
    #: The legal moves as ``{code, from, to, text}`` (zone ids), so no front end parses codes.
    moves: tuple[dict[str, Any], ...]
    can_undo: bool
    #: Why an undo would be refused now, in words (the game's ``State.undo_refusal``), while the
    #: check is in progress; None when it would be accepted, and once the check has ended.
    undo_refusal: str | None
    outcome: Outcome | None
    #: The outcome's tier (docs/rules.md); None until the game ends, and if cancelled.
    tier: Tier | None
    commitment: str
    end_when_lost: bool
    label: str | None
    metadata: dict[str, Any]
    cancel_reason: str | None
    created_at: datetime
    updated_at: datetime
    character: str | None = None
    #: The GM chose the seed: the deal was fixed before play, but not at random.
    seed_chosen: bool = False
    #: The check allows hints, and how many the player has taken.
    hints: bool = False
    hints_used: int = 0
    #: The check is won in substance and :meth:`SessionService.finish` would play it out.
    can_finish: bool = False

    @property
    def is_over(self) -> bool:
        return self.status.is_over

    @property
    def degree(self) -> int | None:
        """The degree of success (docs/rules.md); None until the game ends, and if cancelled."""
        return None if self.outcome is None else self.outcome.degree

    @property
    def success(self) -> bool:
        return self.status is CheckStatus.WON

    def to_dict(self) -> dict[str, Any]:
        return {
            "check_id": self.check_id,
            "game": self.game,
            "params": self.params,
            "status": self.status.value,
            "version": self.version,
            "moves_made": self.moves_made,
            "observation": self.observation,
            "observation_code": self.observation_code,
            "legal_moves": list(self.legal_moves),
            "board": _copy(self.board),
            "moves": [dict(m) for m in self.moves],
            "can_undo": self.can_undo,
            "undo_refusal": self.undo_refusal,
            "outcome": None if self.outcome is None else converter.unstructure(self.outcome),
            "degree": self.degree,
            "tier": None if self.tier is None else self.tier.value,
            "tier_text": None if self.tier is None else self.tier.text,
            "commitment": self.commitment,
            "end_when_lost": self.end_when_lost,
            "label": self.label,
            "metadata": self.metadata,
            "cancel_reason": self.cancel_reason,
            "seed_chosen": self.seed_chosen,
            "created_at": self.created_at.isoformat(),
            "updated_at": self.updated_at.isoformat(),
            "character": self.character,
            "hints": self.hints,
            "hints_used": self.hints_used,
            "can_finish": self.can_finish,
        }


@frozen
class CreatedCheck:
    """The answer to a creation: the id, the commitment (publish it now) and the first view."""

    check_id: str
    commitment: str
    view: CheckView

    @property
    def version(self) -> int:
        return self.view.version


# ---- the commitment ----------------------------------------------------------------------------


def commitment_preimage(
    game: str, params: Mapping[str, Any], seed: int, salt: str, *, seed_chosen: bool = False
) -> bytes:
    """The bytes the commitment hashes: the canonical JSON (keys sorted at every level, no
    whitespace, UTF-8) of ``{"game", "params", "salt", "seed"}``, plus ``"seed_chosen": true``
    when the GM chose the seed (so a record that hides that no longer matches)."""
    data: dict[str, Any] = {"game": game, "params": dict(params), "seed": seed, "salt": salt}
    if seed_chosen:
        data["seed_chosen"] = True
    return _canonical_json(data).encode("utf-8")


def compute_commitment(
    game: str, params: Mapping[str, Any], seed: int, salt: str, *, seed_chosen: bool = False
) -> str:
    """SHA-256 of :func:`commitment_preimage`, as 64 lowercase hex digits."""
    preimage = commitment_preimage(game, params, seed, salt, seed_chosen=seed_chosen)
    return hashlib.sha256(preimage).hexdigest()


def seed_provenance(seed_chosen: bool) -> str:
    """Who chose a check's seed, and so what its commitment proves, in plain words."""
    if seed_chosen:
        return (
            "chosen by the GM — the commitment proves the deal was fixed before play, "
            "not that it was random"
        )
    return "drawn at random by the server"


def verify_commitment(
    record: GameRecord | RevealedRecord | Mapping[str, Any],
    salt: str | None = None,
    commitment: str | None = None,
    *,
    seed_chosen: bool = False,
) -> None:
    """Check that a revealed record's game, parameters and seed, with ``salt``, hash to
    ``commitment``; raises :class:`CommitmentError` if not.

    ``record`` is a :class:`GameRecord`, its JSON data, or a :class:`RevealedRecord` (or its
    JSON data), which carries its own salt, commitment and ``seed_chosen``.
    """
    if isinstance(record, Mapping) and record.get("format") == REVEALED_FORMAT:
        record = RevealedRecord.from_dict(record)
    if isinstance(record, RevealedRecord):
        salt = record.salt if salt is None else salt
        commitment = record.commitment if commitment is None else commitment
        seed_chosen = record.seed_chosen
        game_record = record.record
    elif isinstance(record, GameRecord):
        game_record = record
    else:
        game_record = GameRecord.from_dict(dict(record))
    if salt is None or commitment is None:
        raise CommitmentError("checking a commitment needs the salt and the commitment")
    if game_record.seed is None:
        raise CommitmentError(
            "the record hides its seed (the check had not ended when it was written): the "
            "commitment cannot be checked"
        )
    actual = compute_commitment(
        game_record.game, game_record.params, game_record.seed, salt, seed_chosen=seed_chosen
    )
    if not hmac.compare_digest(actual, commitment.lower()):
        other = compute_commitment(
            game_record.game,
            game_record.params,
            game_record.seed,
            salt,
            seed_chosen=not seed_chosen,
        )
        if hmac.compare_digest(other, commitment.lower()):
            # The deal is the one committed to, but its seed's provenance was given wrong: the
            # usual slip is checking the inner game record without the revealed record's flag.
            words = {True: "the GM chose the seed", False: "the seed was drawn at random"}
            raise CommitmentError(
                f"the commitment says {words[not seed_chosen]}, but seed_chosen={seed_chosen} "
                f"says {words[seed_chosen]}: verify the revealed record itself (it carries "
                f"seed_chosen), or pass seed_chosen={not seed_chosen}"
            )
        raise CommitmentError(
            f"the revealed game, parameters, seed and salt hash to {actual}, not to the published "
            f"commitment {commitment}: the deal is not the one committed to"
        )


@frozen
class RevealedRecord:
    """A finished check's game record (with its seed and deal) plus the salt and commitment.

    ``record`` is an ordinary :class:`GameRecord`: ``skillcheck verify`` replays it as it is.
    A cancelled check's record has no outcome (the game did not end), so no tier; it still
    verifies. The tier (docs/rules.md) is the game record's, graded again by ``verify``.
    """

    check_id: str
    status: CheckStatus
    commitment: str
    salt: str
    record: GameRecord
    cancel_reason: str | None = None
    #: The GM chose the seed (bound into the commitment, docs/sessions.md).
    seed_chosen: bool = False
    #: Hints the player took (the fair fast bot's moves, asked for during play).
    hints_used: int = 0
    format: str = REVEALED_FORMAT

    def verify(self) -> State[Any]:
        """Check the commitment, then replay the record; returns the final state. Raises
        :class:`CommitmentError` or :class:`~skillcheck.errors.RecordError`."""
        verify_commitment(self)
        state: State[Any] = verify(self.record)
        expected = (
            CheckStatus.CANCELLED
            if self.status is CheckStatus.CANCELLED
            else CheckStatus(state.status.value)
        )
        if self.status is not expected:
            raise RecordError(
                f"the revealed record says {self.status.value} but its game replays to "
                f"{state.status.value}"
            )
        return state

    @property
    def tier(self) -> Tier | None:
        """The check's tier: the game record's (None if cancelled)."""
        return None if self.status is CheckStatus.CANCELLED else self.record.tier

    def to_dict(self) -> dict[str, Any]:
        tier = self.tier
        return {
            "format": self.format,
            "check_id": self.check_id,
            "status": self.status.value,
            "tier": None if tier is None else tier.value,
            "tier_text": None if tier is None else tier.text,
            "commitment": self.commitment,
            "salt": self.salt,
            "cancel_reason": self.cancel_reason,
            "seed_chosen": self.seed_chosen,
            "hints_used": self.hints_used,
            "record": self.record.to_dict(),
        }

    def to_json(self, *, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RevealedRecord:
        if data.get("format") != REVEALED_FORMAT:
            raise ParseError(
                f"unknown revealed record format {quoted(data.get('format'))}: this library "
                f"reads {quoted(REVEALED_FORMAT)}"
            )
        seed_chosen = data.get("seed_chosen", False)
        if not isinstance(seed_chosen, bool):
            raise ParseError(
                f"a revealed record's seed_chosen is true or false, not {quoted(seed_chosen)}"
            )
        hints_used = data.get("hints_used", 0)
        if isinstance(hints_used, bool) or not isinstance(hints_used, int) or hints_used < 0:
            raise ParseError(
                f"a revealed record's hints_used is a whole number from 0, not {quoted(hints_used)}"
            )
        needed = ("check_id", "status", "commitment", "salt", "record")
        missing = [name for name in needed if name not in data]
        if missing:
            raise ParseError(
                f"cannot read the revealed record: {', '.join(missing[:-1])}"
                f"{' and ' if len(missing) > 1 else ''}{missing[-1]} "
                f"{'is' if len(missing) == 1 else 'are'} missing (a revealed record has "
                f"{', '.join(needed)}, and optionally cancel_reason, seed_chosen, hints_used)"
            )
        for name in ("check_id", "commitment", "salt"):
            if not isinstance(data[name], str):
                raise ParseError(f"a revealed record's {name} is text, not {quoted(data[name])}")
        statuses = [s.value for s in CheckStatus]
        if data["status"] not in statuses:
            raise ParseError(
                f"a revealed record's status is one of {', '.join(statuses)}, not "
                f"{quoted(data['status'])}"
            )
        cancel_reason = data.get("cancel_reason")
        if cancel_reason is not None and not isinstance(cancel_reason, str):
            raise ParseError(
                f"a revealed record's cancel_reason is text or null, not {quoted(cancel_reason)}"
            )
        revealed = cls(
            seed_chosen=seed_chosen,
            hints_used=hints_used,
            check_id=data["check_id"],
            status=CheckStatus(data["status"]),
            commitment=data["commitment"],
            salt=data["salt"],
            record=GameRecord.from_dict(data["record"]),
            cancel_reason=cancel_reason,
        )
        tier = revealed.tier
        if "tier" in data and data["tier"] != (None if tier is None else tier.value):
            raise ParseError(
                f"the revealed record says the tier is {quoted(data['tier'])} but its game "
                f"record says {quoted(None if tier is None else tier.value)}"
            )
        return revealed

    @classmethod
    def from_json(cls, text: str) -> RevealedRecord:
        return cls.from_dict(read_json_object(text, "a revealed record"))


# ---- storage -----------------------------------------------------------------------------------


@runtime_checkable
class CheckStore(Protocol):
    """Where checks, their action logs, events and idempotency keys live.

    Every method is atomic; implementations must be safe to call from several threads. The API
    implements this with SQL tables (checks, actions, events, idempotency keys); see
    docs/sessions.md for the mapping.
    """

    def create(
        self,
        check: StoredCheck,
        events: Sequence[CheckEvent],
        idempotency: IdempotencyRecord | None = None,
    ) -> None:
        """Store a new check (version 0) with its first events. Raises
        :class:`IdempotencyKeyExistsError` (writing nothing) if the key is already stored."""

    def load(self, check_id: str) -> StoredCheck:
        """The check with its whole action log; raises :class:`CheckNotFoundError`."""

    def append(self, check_id: str, change: Append) -> None:
        """Compare and append: if the check is at ``change.expected_version``, add the actions
        and events, set the status and store the idempotency record, all or nothing. Raises
        :class:`CheckNotFoundError`, :class:`VersionConflictError` or
        :class:`IdempotencyKeyExistsError`, writing nothing."""

    def events(self, check_id: str, after: int = 0, limit: int | None = None) -> list[CheckEvent]:
        """The check's events with ``sequence > after``, in order (at most ``limit``); raises
        :class:`CheckNotFoundError`."""

    def idempotency(self, scope: str, key: str) -> IdempotencyRecord | None:
        """The stored request for ``(scope, key)``, if any."""


class InMemoryCheckStore:
    """A :class:`CheckStore` in a dictionary, guarded by one lock (tests, embedding, demos)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._checks: dict[str, StoredCheck] = {}
        self._events: dict[str, list[CheckEvent]] = {}
        self._keys: dict[tuple[str, str], IdempotencyRecord] = {}

    def create(
        self,
        check: StoredCheck,
        events: Sequence[CheckEvent],
        idempotency: IdempotencyRecord | None = None,
    ) -> None:
        with self._lock:
            if check.check_id in self._checks:
                raise ValueError(f"check {check.check_id!r} already exists")
            if idempotency is not None:
                self._check_key(idempotency)
            _check_sequences(check, events)
            stored = attrs.evolve(check, last_sequence=check.last_sequence + len(events))
            self._checks[check.check_id] = stored
            self._events[check.check_id] = list(events)
            if idempotency is not None:
                self._keys[idempotency.scope, idempotency.key] = idempotency

    def load(self, check_id: str) -> StoredCheck:
        with self._lock:
            return self._get(check_id)

    def append(self, check_id: str, change: Append) -> None:
        with self._lock:
            check = self._get(check_id)
            if check.version != change.expected_version:
                raise VersionConflictError(check_id, change.expected_version, check.version)
            if change.idempotency is not None:
                self._check_key(change.idempotency)
            _check_sequences(check, change.events)
            stored = attrs.evolve(
                check,
                actions=check.actions + change.actions,
                status=change.status,
                last_sequence=check.last_sequence + len(change.events),
            )
            self._checks[check_id] = stored
            self._events[check_id].extend(change.events)
            if change.idempotency is not None:
                key = change.idempotency
                self._keys[key.scope, key.key] = key

    def events(self, check_id: str, after: int = 0, limit: int | None = None) -> list[CheckEvent]:
        with self._lock:
            self._get(check_id)
            events = self._events[check_id][max(after, 0) :]  # sequence n is at index n - 1
            return events if limit is None else events[:limit]

    def idempotency(self, scope: str, key: str) -> IdempotencyRecord | None:
        with self._lock:
            return self._keys.get((scope, key))

    def check_ids(self) -> list[str]:
        """Every stored check id, oldest first."""
        with self._lock:
            return list(self._checks)

    def _get(self, check_id: str) -> StoredCheck:
        try:
            return self._checks[check_id]
        except KeyError:
            raise CheckNotFoundError(check_id) from None

    def _check_key(self, record: IdempotencyRecord) -> None:
        if (record.scope, record.key) in self._keys:
            raise IdempotencyKeyExistsError(record.scope, record.key)


def _check_sequences(check: StoredCheck, events: Sequence[CheckEvent]) -> None:
    for offset, event in enumerate(events, 1):
        if event.check_id != check.check_id or event.sequence != check.last_sequence + offset:
            raise ValueError(
                f"event {event.sequence} of check {event.check_id!r} does not follow event "
                f"{check.last_sequence + offset - 1} of check {check.check_id!r}"
            )


# ---- listeners ---------------------------------------------------------------------------------

Listener = Callable[[CheckEvent], None]


class Subscription:
    """A registered listener; :meth:`close` (or leaving a ``with`` block) unsubscribes it."""

    def __init__(self, service: SessionService, callback: Listener, check_id: str | None) -> None:
        self.callback = callback
        self.check_id = check_id
        self._service = service

    def wants(self, event: CheckEvent) -> bool:
        return self.check_id is None or self.check_id == event.check_id

    def close(self) -> None:
        self._service._unsubscribe(self)

    def __enter__(self) -> Subscription:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


class EventQueue:
    """Events delivered into a queue, for a consumer in another thread (an SSE stream, a
    webhook sender): ``get(timeout)``, or iterate until :meth:`close`."""

    _CLOSED: Final = object()

    def __init__(self, service: SessionService, check_id: str | None, maxsize: int = 0) -> None:
        self._queue: queue.Queue[object] = queue.Queue(maxsize)
        self._subscription = service.subscribe(self._put, check_id=check_id)
        self._closed = False

    def _put(self, event: CheckEvent) -> None:
        try:
            self._queue.put_nowait(event)
        except queue.Full:
            logger.warning(
                "event queue full: dropped event %s of %s", event.sequence, event.check_id
            )

    def get(self, timeout: float | None = None) -> CheckEvent | None:
        """The next event, or None on timeout or once closed."""
        if self._closed and self._queue.empty():
            return None
        try:
            item = self._queue.get(timeout=timeout)
        except queue.Empty:
            return None
        return item if isinstance(item, CheckEvent) else None

    def drain(self) -> list[CheckEvent]:
        """Every event waiting now, without blocking."""
        out: list[CheckEvent] = []
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                return out
            if isinstance(item, CheckEvent):
                out.append(item)

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._subscription.close()
            while True:  # wake a blocked consumer; a full queue gives up its oldest event
                try:
                    self._queue.put_nowait(self._CLOSED)
                    return
                except queue.Full:
                    with contextlib.suppress(queue.Empty):
                        self._queue.get_nowait()

    def __iter__(self) -> Iterator[CheckEvent]:
        while True:
            item = self._queue.get()
            if not isinstance(item, CheckEvent):
                return
            yield item

    def __enter__(self) -> EventQueue:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


# ---- the service -------------------------------------------------------------------------------


@frozen
class _Live:
    """A check's position at one version. The state is never changed once built (the service
    works on copies), so it can be shared between threads."""

    version: int
    state: State[Any]
    cancelled: bool = False
    cancel_reason: str | None = None
    hints_used: int = 0


@frozen
class _Change:
    actions: tuple[Action, ...]
    events: tuple[CheckEvent, ...]
    live: _Live
    status: CheckStatus
    view: CheckView


class SessionService:
    """Runs checks: create, observe, move, undo, concede, cancel, reveal, and events.

    ``clock`` returns timezone-aware datetimes; ``id_factory`` makes check ids (UUID4 text by
    default); ``salt_factory`` the commitment salts (128 random bits as 32 hex digits). Methods
    may be called from several threads; see docs/sessions.md for the guarantees.
    """

    def __init__(
        self,
        store: CheckStore | None = None,
        *,
        clock: Callable[[], datetime] = _utc_now,
        id_factory: Callable[[], str] = _new_id,
        salt_factory: Callable[[], str] = _new_salt,
        cache_size: int = 1024,
    ) -> None:
        self.store: CheckStore = InMemoryCheckStore() if store is None else store
        self._clock = clock
        self._id_factory = id_factory
        self._salt_factory = salt_factory
        self._cache: OrderedDict[str, _Live] = OrderedDict()
        #: The newest stored form of each check this service has seen or written: an action
        #: starts from it without reading the store, and the store's compare-and-append catches
        #: a stale one (another process acted), which is then reloaded.
        self._heads: OrderedDict[str, StoredCheck] = OrderedDict()
        self._cache_size = cache_size
        #: Finishing lines by (check id, full position code): a position, not a version, so an
        #: uncommitted try (a lost race) can never stand for another process's committed one.
        self._finish_lines: OrderedDict[tuple[str, str], tuple[Any, ...] | None] = OrderedDict()
        self._cache_lock = threading.Lock()
        self._subscriptions: list[Subscription] = []
        self._subscriptions_lock = threading.Lock()
        self._dispatch_lock = threading.RLock()
        self._dispatching = False
        self._pending: deque[tuple[str, tuple[CheckEvent, ...]]] = deque()
        self._delivered: dict[str, int] = {}
        self._new_events = threading.Condition()

    # -- creating ---------------------------------------------------------------------------------
    def create(
        self,
        game: str | Game[Any],
        params: Mapping[str, Any] | None = None,
        *,
        seed: int | None = None,
        end_when_lost: bool = False,
        unwinnable_max_states: int = DEFAULT_UNWINNABLE_MAX_STATES,
        label: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        tiers: Tiers | Mapping[str, Any] | None = None,
        idempotency_key: str | None = None,
        character: str | None = None,
        hints: bool = False,
    ) -> CreatedCheck:
        """Create a check and commit to its deal.

        ``game`` is a registry name with ``params`` in ``game_params`` form (missing ones take
        their defaults), or a :class:`Game` (then no ``params``). Without ``seed`` one is drawn
        from OS entropy. ``tiers`` are the GM's thresholds (``{"critical_success": N,
        "critical_failure": N}``, whole numbers, the first greater); without them the game's.
        Invalid input raises the library's errors (:class:`ParameterError`,
        :class:`~skillcheck.errors.UnknownGameError`) and stores nothing.
        """
        built = self._build_game(game, params)
        name, normalized = built.name, game_params(built)
        if seed is not None:
            seed = validate_seed(seed)
        if not isinstance(end_when_lost, bool):
            raise ParameterError("end_when_lost", "end_when_lost is true or false")
        if not isinstance(hints, bool):
            raise ParameterError("hints", "hints is true or false")
        if (
            isinstance(unwinnable_max_states, bool)
            or not isinstance(unwinnable_max_states, int)
            or unwinnable_max_states < 1
        ):
            raise ParameterError(
                "unwinnable_max_states", "unwinnable_max_states must be a positive whole number"
            )
        if label is not None:
            _check_text(label, "label", MAX_LABEL)
        if character is not None:
            _check_text(character, "character", MAX_LABEL)
        meta = _plain(dict(metadata or {}), "metadata")
        chosen = None
        if tiers is not None:
            chosen = (tiers if isinstance(tiers, Tiers) else Tiers.from_dict(tiers)).to_dict()
        config = CheckConfig(
            name,
            normalized,
            end_when_lost,
            unwinnable_max_states,
            label,
            meta,
            character=character,
            seed_chosen=seed is not None,
            tiers=chosen,
            hints=hints,
        )

        idempotency: IdempotencyRecord | None = None
        fingerprint = ""
        if idempotency_key is not None:
            request = {"op": "create", "config": config.to_dict(), "seed": seed}
            fingerprint = _fingerprint(request)
            found = self._created_again(idempotency_key, fingerprint)
            if found is not None:
                return found
        check_id = self._id_factory()
        if idempotency_key is not None:
            idempotency = IdempotencyRecord(
                _CREATE_SCOPE, idempotency_key, fingerprint, check_id, 0
            )

        seed = draw_seed() if seed is None else seed
        salt = self._salt_factory()
        commitment = compute_commitment(
            name, normalized, seed, salt, seed_chosen=config.seed_chosen
        )
        state = built.new_state(seed)
        now = self._clock()
        stored = StoredCheck(check_id, config, seed, salt, commitment, now)
        live = _Live(0, state)
        view = self._make_view(stored, live, updated_at=now)
        payload = {
            "commitment": commitment,
            "commitment_scheme": COMMITMENT_SCHEME,
            "config": config.to_dict(),
            "view": view.to_dict(),
        }
        event = CheckEvent(check_id, 1, 0, EventKind.CREATED, payload, now)
        try:
            self.store.create(stored, [event], idempotency)
        except IdempotencyKeyExistsError:
            assert idempotency_key is not None
            found = self._created_again(idempotency_key, fingerprint)
            if found is None:  # pragma: no cover - a store that lost the key it refused
                raise
            return found
        self._cache_put(check_id, live)
        self._remember(attrs.evolve(stored, last_sequence=stored.last_sequence + 1))
        self._dispatch(check_id, (event,))
        return CreatedCheck(check_id, commitment, view)

    def _build_game(self, game: str | Game[Any], params: Mapping[str, Any] | None) -> Game[Any]:
        if isinstance(game, Game):
            if params is not None:
                raise ParameterError(
                    "params", "give either a Game, or a game name with its params, not both"
                )
            return game
        if not isinstance(game, str):
            raise ParameterError("game", f"game must be a registry name, not {quoted(game)}")
        if params is None:
            params = {}
        if not isinstance(params, Mapping):
            raise ParameterError("params", "params must be a JSON object (a mapping)")
        built: Game[Any] = game_from_params(game, _plain(dict(params), "params"))
        return built

    def _created_again(self, key: str, fingerprint: str) -> CreatedCheck | None:
        found = self.store.idempotency(_CREATE_SCOPE, key)
        if found is None:
            return None
        if found.fingerprint != fingerprint:
            raise IdempotencyConflictError(key)
        view = self._view_at(found.check_id, 0)
        return CreatedCheck(found.check_id, view.commitment, view)

    # -- reading ----------------------------------------------------------------------------------
    def view(self, check_id: str) -> CheckView:
        """What the player may see now; never the seed or the order of hidden cards."""
        stored = self._load(check_id)
        return self._make_view(stored, self._live(stored))

    def record(self, check_id: str) -> RevealedRecord:
        """The revealed record (seed, deal, moves, outcome, salt and commitment), once the check
        has ended; before that :class:`RecordNotAvailableError`."""
        stored = self._load(check_id)
        if not stored.status.is_over:
            raise RecordNotAvailableError(check_id)
        return self._revealed(stored, self._live(stored), stored.status)

    def events(self, check_id: str, after: int = 0, limit: int | None = None) -> list[CheckEvent]:
        """The check's events after sequence number ``after``, oldest first."""
        return self.store.events(check_id, after, limit)

    def wait_for_events(
        self, check_id: str, after: int = 0, timeout: float | None = None
    ) -> list[CheckEvent]:
        """Like :meth:`events`, but if there are none yet, wait up to ``timeout`` seconds for
        this service to commit some (long polling). Events written by another process are
        seen only when the wait ends: poll :meth:`events` then."""
        with self._new_events:
            events = self.store.events(check_id, after)
            if events:
                return events
            self._new_events.wait_for(lambda: bool(self.store.events(check_id, after, 1)), timeout)
        return self.store.events(check_id, after)

    # -- acting -----------------------------------------------------------------------------------
    def move(
        self,
        check_id: str,
        code: str,
        *,
        expected_version: int | None = None,
        idempotency_key: str | None = None,
    ) -> CheckView:
        """Make a move given by its code (``d3``, ``14``). An unreadable or illegal move raises
        :class:`~skillcheck.errors.ParseError` or :class:`~skillcheck.errors.IllegalMoveError`
        and changes nothing."""
        if not isinstance(code, str):
            raise ParameterError("move", f"a move is given by its code, not {quoted(code)}")

        def step(stored: StoredCheck, live: _Live, now: datetime) -> _Change:
            state = live.state.copy()
            move = state.game.parse_move(code)
            state.push(move)
            return self._after_move(stored, live, state, move.code, now)

        return self._act(
            check_id, {"op": "move", "code": code}, step, expected_version, idempotency_key
        )

    def undo(
        self,
        check_id: str,
        *,
        expected_version: int | None = None,
        idempotency_key: str | None = None,
    ) -> CheckView:
        """Take back the last move, if the check's parameters allow undo (else
        :class:`~skillcheck.errors.UndoError`)."""

        def step(stored: StoredCheck, live: _Live, now: datetime) -> _Change:
            state = live.state.copy()
            taken_back = state.undo()
            builder = _ChangeBuilder(self, stored, live, now)
            builder.add(Action(UNDO, now), state)
            builder.event(EventKind.UNDONE, {"move": taken_back.code})
            return builder.done()

        return self._act(check_id, {"op": "undo"}, step, expected_version, idempotency_key)

    def concede(
        self,
        check_id: str,
        *,
        expected_version: int | None = None,
        idempotency_key: str | None = None,
    ) -> CheckView:
        """The player gives up: the check ends as lost (reason ``conceded``)."""

        def step(stored: StoredCheck, live: _Live, now: datetime) -> _Change:
            state = live.state.copy()
            state.concede()
            builder = _ChangeBuilder(self, stored, live, now)
            builder.add(Action(CONCEDE, now), state)
            builder.ended()
            return builder.done()

        return self._act(check_id, {"op": "concede"}, step, expected_version, idempotency_key)

    def hint(
        self,
        check_id: str,
        *,
        expected_version: int | None = None,
        idempotency_key: str | None = None,
    ) -> tuple[MoveView, CheckView]:
        """The fair fast bot's move for the player (it sees only what the player sees; never
        the solver, which knows the hidden cards), if the GM allowed hints
        (:class:`HintsNotAllowedError` otherwise). The position does not change; the hint is
        logged, so the version goes up and the record counts it."""
        given: list[MoveView] = []

        def step(stored: StoredCheck, live: _Live, now: datetime) -> _Change:
            if not stored.config.hints:
                raise HintsNotAllowedError(
                    "the GM did not allow hints for this check (a check is created with "
                    "hints: true to allow them)"
                )
            state = live.state
            move = make_bot(state.game, HINT_BOT).choose(state.game, state.observation())
            if move is None or not state.is_legal(move):
                raise NoHintError("there is no move to suggest here: conceding is all that is left")
            given[:] = [state.game.move_view(state.observation(), move)]
            builder = _ChangeBuilder(self, stored, live, now)
            builder.add(Action(HINT, now, move.code), state)
            builder.event(
                EventKind.HINT, {"move": move.code, "hints_used": builder.live.hints_used}
            )
            return builder.done()

        view = self._act(check_id, {"op": "hint"}, step, expected_version, idempotency_key)
        if given and idempotency_key is None:  # without a key, the last try is the committed one
            return given[0], view
        # with a key the answer may be an earlier request's: the hint is that action's note
        stored = self._load(check_id)
        note = stored.actions[view.version - 1].note
        live = self._live(stored, view.version)
        game = live.state.game
        assert note is not None
        return game.move_view(live.state.observation(), game.parse_move(note)), view

    def finish(
        self,
        check_id: str,
        *,
        expected_version: int | None = None,
        idempotency_key: str | None = None,
    ) -> CheckView:
        """Play out a check that is won in substance (the view's ``can_finish``: every hidden
        card is seen and a win is proved, :meth:`State.finishing_line`); otherwise
        :class:`CannotFinishError`. The moves go into the log one by one, as if played."""

        def step(stored: StoredCheck, live: _Live, now: datetime) -> _Change:
            line = self._finishing_line(stored.check_id, live)
            if not line:
                reason = live.state.copy().finish_refusal() if not live.cancelled else None
                raise CannotFinishError(
                    f"this check cannot be finished for you: {reason or 'it is over'}"
                )
            state = live.state.copy()
            builder = _ChangeBuilder(self, stored, live, now)
            for done, move in enumerate(line, 1):
                state.push(move)
                # the rest of a winning line wins from here: no solver run for each view
                if done < len(line):
                    self._remember_line((stored.check_id, state.code()), tuple(line[done:]))
                builder.add(Action(move.code, now, FINISHED_FOR_PLAYER), state)
                builder.event(EventKind.MOVED, {"move": move.code})
            if state.is_terminal():
                builder.ended()
            return builder.done()

        return self._act(check_id, {"op": "finish"}, step, expected_version, idempotency_key)

    def cancel(
        self,
        check_id: str,
        reason: str | None = None,
        *,
        expected_version: int | None = None,
        idempotency_key: str | None = None,
    ) -> CheckView:
        """The GM calls the check off: its status becomes ``cancelled``, with no game outcome
        (neither a success nor a failure), and its record is revealed."""
        if reason is not None:
            _check_text(reason, "reason", MAX_REASON)

        def step(stored: StoredCheck, live: _Live, now: datetime) -> _Change:
            builder = _ChangeBuilder(self, stored, live, now)
            builder.add(Action(CANCEL, now, reason), live.state, cancel=True)
            builder.cancelled(reason)
            return builder.done()

        return self._act(
            check_id, {"op": "cancel", "reason": reason}, step, expected_version, idempotency_key
        )

    def end_if_unwinnable(
        self,
        check_id: str,
        *,
        max_states: int | None = None,
        expected_version: int | None = None,
        idempotency_key: str | None = None,
    ) -> CheckView:
        """The GM asks now whether the check can still be won; if the solver proves it cannot
        (within ``max_states``, default the check's budget) it ends as lost (``unwinnable``).
        Otherwise nothing changes and the current view is returned."""

        def step(stored: StoredCheck, live: _Live, now: datetime) -> _Change:
            state = live.state.copy()
            budget = stored.config.unwinnable_max_states if max_states is None else max_states
            builder = _ChangeBuilder(self, stored, live, now)
            if state.end_if_unwinnable(max_states=budget):
                builder.add(Action(UNWINNABLE, now), state)
                builder.ended()
            return builder.done()

        request = {"op": "end_if_unwinnable", "max_states": max_states}
        return self._act(check_id, request, step, expected_version, idempotency_key)

    # -- listening --------------------------------------------------------------------------------
    def subscribe(self, callback: Listener, *, check_id: str | None = None) -> Subscription:
        """Call ``callback(event)`` for every event this service commits from now on (of one
        check, or of all). Callbacks run synchronously after the store commit, in the thread
        that acted, one at a time and in sequence order per check; an exception in a callback is
        logged and ignored. Keep them quick and do not block in them: hand slow work (webhooks)
        to another thread, e.g. through :meth:`listen`."""
        subscription = Subscription(self, callback, check_id)
        with self._subscriptions_lock:
            self._subscriptions.append(subscription)
        return subscription

    def listen(self, check_id: str | None = None, *, maxsize: int = 0) -> EventQueue:
        """A subscription that puts events into a queue for another thread to consume."""
        return EventQueue(self, check_id, maxsize)

    def _unsubscribe(self, subscription: Subscription) -> None:
        with self._subscriptions_lock:
            if subscription in self._subscriptions:
                self._subscriptions.remove(subscription)

    # -- internals --------------------------------------------------------------------------------
    def _act(
        self,
        check_id: str,
        request: dict[str, Any],
        step: Callable[[StoredCheck, _Live, datetime], _Change],
        expected_version: int | None,
        idempotency_key: str | None,
    ) -> CheckView:
        if expected_version is not None and (
            isinstance(expected_version, bool) or not isinstance(expected_version, int)
        ):
            raise ParameterError("expected_version", "expected_version is a whole number")
        fingerprint = ""
        if idempotency_key is not None:
            if not isinstance(idempotency_key, str) or not idempotency_key:
                raise ParameterError("idempotency_key", "an idempotency key is non-empty text")
            fingerprint = _fingerprint({**request, "expected_version": expected_version})
        fresh = False  # whether ``stored`` was just read from the store
        for _ in range(_MAX_ATTEMPTS):
            if idempotency_key is not None:
                again = self._acted_again(check_id, idempotency_key, fingerprint)
                if again is not None:
                    return again
            stored_or_none = None if fresh else self._head(check_id)
            if stored_or_none is None or (
                expected_version is not None and expected_version != stored_or_none.version
            ):
                stored, fresh = self._load(check_id), True
            else:
                stored = stored_or_none
            if expected_version is not None and expected_version != stored.version:
                raise VersionConflictError(check_id, expected_version, stored.version)
            if stored.status.is_over:
                raise CheckEndedError(check_id, stored.status)
            live = self._live(stored)
            change = step(stored, live, self._clock())
            if not change.actions:
                return change.view
            idempotency = None
            if idempotency_key is not None:
                idempotency = IdempotencyRecord(
                    check_id, idempotency_key, fingerprint, check_id, change.live.version
                )
            append = Append(
                stored.version, change.actions, change.events, change.status, idempotency
            )
            try:
                self.store.append(check_id, append)
            except VersionConflictError:
                if not fresh:  # our copy was stale (another process acted): read it and retry
                    self._forget(check_id)
                    fresh = True
                    continue
                if expected_version is not None and idempotency_key is None:
                    raise
                if expected_version is not None:
                    assert idempotency_key is not None
                    again = self._acted_again(check_id, idempotency_key, fingerprint)
                    if again is not None:
                        return again
                    raise
                fresh = False
                continue  # no version was asked for: act on the newer position
            except IdempotencyKeyExistsError:
                fresh = False
                continue  # the same key won a race: the next round answers from it
            self._cache_put(check_id, change.live)
            self._remember(
                attrs.evolve(
                    stored,
                    actions=stored.actions + change.actions,
                    status=change.status,
                    last_sequence=stored.last_sequence + len(change.events),
                )
            )
            self._dispatch(check_id, change.events)
            return change.view
        raise VersionConflictError(check_id, stored.version, self.store.load(check_id).version)

    def _acted_again(self, check_id: str, key: str, fingerprint: str) -> CheckView | None:
        found = self.store.idempotency(check_id, key)
        if found is None:
            return None
        if found.fingerprint != fingerprint:
            raise IdempotencyConflictError(key)
        return self._view_at(check_id, found.version)

    def _after_move(
        self, stored: StoredCheck, live: _Live, state: State[Any], code: str, now: datetime
    ) -> _Change:
        builder = _ChangeBuilder(self, stored, live, now)
        builder.add(Action(code, now), state)
        builder.event(EventKind.MOVED, {"move": code})
        if state.is_terminal():
            builder.ended()
        elif stored.config.end_when_lost:
            after = state.copy()
            if after.end_if_unwinnable(max_states=stored.config.unwinnable_max_states):
                builder.add(Action(UNWINNABLE, now), after)
                builder.ended()
        return builder.done()

    def _live(self, stored: StoredCheck, version: int | None = None) -> _Live:
        version = stored.version if version is None else version
        with self._cache_lock:
            cached = self._cache.get(stored.check_id)
            if cached is not None and cached.version == version:
                self._cache.move_to_end(stored.check_id)
                return cached
        live = _replay(stored, version)
        if version == stored.version:
            self._cache_put(stored.check_id, live)
        return live

    def _load(self, check_id: str) -> StoredCheck:
        stored = self.store.load(check_id)
        self._remember(stored)
        return stored

    def _head(self, check_id: str) -> StoredCheck | None:
        with self._cache_lock:
            return self._heads.get(check_id)

    def _remember(self, stored: StoredCheck) -> None:
        with self._cache_lock:
            current = self._heads.get(stored.check_id)
            if current is not None and current.version > stored.version:
                return
            self._heads[stored.check_id] = stored
            self._heads.move_to_end(stored.check_id)
            while len(self._heads) > self._cache_size:
                self._heads.popitem(last=False)

    def _forget(self, check_id: str) -> None:
        with self._cache_lock:
            self._heads.pop(check_id, None)

    def _cache_put(self, check_id: str, live: _Live) -> None:
        with self._cache_lock:
            current = self._cache.get(check_id)
            if current is not None and current.version > live.version:
                return
            self._cache[check_id] = live
            self._cache.move_to_end(check_id)
            while len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)

    def _view_at(self, check_id: str, version: int) -> CheckView:
        stored = self._load(check_id)
        version = min(version, stored.version)
        return self._make_view(stored, self._live(stored, version))

    def _make_view(
        self, stored: StoredCheck, live: _Live, *, updated_at: datetime | None = None
    ) -> CheckView:
        state = live.state
        status = CheckStatus.CANCELLED if live.cancelled else CheckStatus(state.status.value)
        observation = state.observation()
        code_of = getattr(observation, "code", None)
        in_progress = status is CheckStatus.IN_PROGRESS
        legal = tuple(state.legal_moves) if in_progress else ()
        undo_refusal = state.undo_refusal() if in_progress else None
        if updated_at is None:
            updated_at = stored.actions[live.version - 1].at if live.version else stored.created_at
        return CheckView(
            check_id=stored.check_id,
            game=stored.config.game,
            params=_copy(stored.config.params),
            status=status,
            version=live.version,
            moves_made=state.moves_made,
            observation=converter.unstructure(observation),
            observation_code=code_of() if callable(code_of) else None,
            legal_moves=tuple(m.code for m in legal),
            # over, the deal is revealed: the last table shows cards left face down in place
            board=state.game.board(
                observation if in_progress else state.revealed_observation()
            ).to_dict(),
            moves=tuple(state.game.move_view(observation, m).to_dict() for m in legal),
            can_undo=in_progress and undo_refusal is None,
            undo_refusal=undo_refusal,
            outcome=state.outcome,
            tier=None
            if state.outcome is None or status is CheckStatus.CANCELLED
            else state.game.tier(state.outcome, stored.config.thresholds),
            commitment=stored.commitment,
            end_when_lost=stored.config.end_when_lost,
            label=stored.config.label,
            metadata=_copy(stored.config.metadata),
            cancel_reason=live.cancel_reason,
            created_at=stored.created_at,
            updated_at=updated_at,
            character=stored.config.character,
            seed_chosen=stored.config.seed_chosen,
            hints=stored.config.hints,
            hints_used=live.hints_used,
            can_finish=in_progress and bool(self._finishing_line(stored.check_id, live)),
        )

    def _finishing_line(self, check_id: str, live: _Live) -> tuple[Any, ...] | None:
        """:meth:`State.finishing_line` of a check's position, worked out once per position
        (the solver runs only once nothing is hidden)."""
        state = live.state
        if live.cancelled or state.is_terminal() or state.hidden_codes():
            return None
        key = (check_id, state.code())
        with self._cache_lock:
            if key in self._finish_lines:
                return self._finish_lines[key]
        line = state.copy().finishing_line()
        self._remember_line(key, line)
        return line

    def _remember_line(self, key: tuple[str, str], line: tuple[Any, ...] | None) -> None:
        with self._cache_lock:
            self._finish_lines[key] = line
            while len(self._finish_lines) > self._cache_size:
                self._finish_lines.popitem(last=False)

    def _revealed(self, stored: StoredCheck, live: _Live, status: CheckStatus) -> RevealedRecord:
        record = live.state.record(reveal=True, tiers=stored.config.thresholds)
        # The parameters exactly as committed to: a check stored before a parameter changed
        # form (undo was true/false) keeps them, so its commitment still verifies.
        record = attrs.evolve(record, params=_copy(stored.config.params))
        return RevealedRecord(
            check_id=stored.check_id,
            status=status,
            commitment=stored.commitment,
            salt=stored.salt,
            record=record,
            cancel_reason=live.cancel_reason,
            seed_chosen=stored.config.seed_chosen,
            hints_used=live.hints_used,
        )

    def _dispatch(self, check_id: str, events: Sequence[CheckEvent]) -> None:
        """Deliver newly committed events to the listeners, exactly once and in order per
        check, even when several threads commit at once or a callback acts on the service."""
        with self._new_events:
            self._new_events.notify_all()
        with self._subscriptions_lock:
            listening = bool(self._subscriptions)
        with self._dispatch_lock:
            if not listening:
                self._delivered.pop(check_id, None)  # a later listener starts from then
                return
            self._pending.append((check_id, tuple(events)))
            if self._dispatching:
                return  # a callback of this thread acted: the loop below delivers it next
            self._dispatching = True
            try:
                while self._pending:
                    self._deliver(*self._pending.popleft())
            finally:
                self._dispatching = False

    def _deliver(self, check_id: str, events: tuple[CheckEvent, ...]) -> None:
        """Deliver ``events`` (just committed by this service), after any this service's
        listeners have missed since the last delivery (another thread's commit that landed in
        between is read back from the store)."""
        last = self._delivered.get(check_id)
        if events and last is not None and events[0].sequence > last + 1:
            try:
                events = tuple(self.store.events(check_id, last))
            except Exception:  # the action is committed; a failing read must not undo its answer
                logger.exception("cannot read the events of check %s to deliver them", check_id)
        with self._subscriptions_lock:
            subscriptions = list(self._subscriptions)
        for event in events:
            if last is not None and event.sequence <= last:
                continue
            last = self._delivered[check_id] = event.sequence
            for subscription in subscriptions:
                if not subscription.wants(event):
                    continue
                try:
                    subscription.callback(event)
                except Exception:
                    logger.exception(
                        "a listener failed on event %s of check %s", event.sequence, check_id
                    )
            if event.terminal:
                self._delivered.pop(check_id, None)


class _ChangeBuilder:
    """Collects the actions and events of one request as they happen."""

    def __init__(self, service: SessionService, stored: StoredCheck, live: _Live, now: datetime):
        self.service = service
        self.stored = stored
        self.live = live
        self.now = now
        self.actions: list[Action] = []
        self.events: list[CheckEvent] = []
        self._view: CheckView | None = None
        self._view_dict: dict[str, Any] | None = None

    @property
    def view(self) -> CheckView:
        """The view after the actions so far (made when first asked for)."""
        if self._view is None:
            updated_at = self.now if self.actions else None
            self._view = self.service._make_view(self.stored, self.live, updated_at=updated_at)
        return self._view

    def add(self, action: Action, state: State[Any], *, cancel: bool = False) -> None:
        self.actions.append(action)
        version = self.live.version + 1
        hints = self.live.hints_used + (action.code == HINT)
        self.live = _Live(version, state, cancel, action.note if cancel else None, hints)
        self._view = self._view_dict = None

    def event(self, kind: EventKind, payload: dict[str, Any]) -> None:
        sequence = self.stored.last_sequence + len(self.events) + 1
        if self._view_dict is None:
            self._view_dict = self.view.to_dict()
        # the view dict is made fresh from checked data; only the rest needs the JSON check
        full = {**_plain(payload, "payload"), "view": self._view_dict}
        self.events.append(
            CheckEvent(self.stored.check_id, sequence, self.live.version, kind, full, self.now)
        )

    def ended(self) -> None:
        outcome = self.live.state.outcome
        assert outcome is not None
        revealed = self.service._revealed(self.stored, self.live, self.view.status)
        self.event(
            EventKind.ENDED,
            {
                "status": self.view.status.value,
                "outcome": converter.unstructure(outcome),
                "record": revealed.to_dict(),
            },
        )

    def cancelled(self, reason: str | None) -> None:
        revealed = self.service._revealed(self.stored, self.live, CheckStatus.CANCELLED)
        self.event(
            EventKind.CANCELLED,
            {"status": CheckStatus.CANCELLED.value, "reason": reason, "record": revealed.to_dict()},
        )

    def done(self) -> _Change:
        return _Change(
            tuple(self.actions), tuple(self.events), self.live, self.view.status, self.view
        )


def _check_text(value: object, name: str, most: int) -> None:
    """A label or reason: text of at most ``most`` characters, without control characters
    other than tab and newline (a NUL cannot even be stored by PostgreSQL)."""
    if not isinstance(value, str):
        raise ParameterError(name, f"{name} must be text, not {type(value).__name__}")
    if len(value) > most:
        raise ParameterError(name, f"{name} is {len(value)} characters long; at most {most}")
    bad = next((c for c in value if (ord(c) < 32 and c not in "\t\n") or ord(c) == 127), None)
    if bad is not None:
        raise ParameterError(
            name, f"{name} contains the control character U+{ord(bad):04X}; only text is allowed"
        )


def _fingerprint(request: Mapping[str, Any]) -> str:
    return hashlib.sha256(_canonical_json(dict(request)).encode("utf-8")).hexdigest()


def _replay(stored: StoredCheck, version: int) -> _Live:
    """Rebuild a check's position after its first ``version`` actions."""
    config = stored.config
    state = config.build_game().new_state(stored.seed)
    cancelled, reason, hints = False, None, 0
    for number, action in enumerate(stored.actions[:version], 1):
        try:
            if action.code == HINT:
                hints += 1
            elif action.code == UNDO:
                state.undo()
            elif action.code == CONCEDE:
                state.concede()
            elif action.code == CANCEL:
                cancelled, reason = True, action.note
            elif action.code == UNWINNABLE:
                if not (
                    state.end_if_unwinnable(max_states=config.unwinnable_max_states)
                    or state.end_if_unwinnable(max_states=UNWINNABLE_PROOF_STATES)
                ):
                    raise RecordError("no longer proved unwinnable by this solver")
            else:
                state.push_code(action.code)
        except SkillcheckError as exc:
            raise RecordError(
                f"check {stored.check_id!r} cannot be replayed: action {number} "
                f"({action.code}): {exc}"
            ) from None
    return _Live(version, state, cancelled, reason, hints)


# Status values must line up with the check statuses they are mapped to.
assert {s.value for s in Status} <= {s.value for s in CheckStatus}
