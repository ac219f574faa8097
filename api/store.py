"""A SQL implementation of the library's :class:`~skillcheck.sessions.CheckStore`, on
advanced-alchemy's session maker and repositories.

``append`` is an atomic compare-and-append: one transaction runs ``UPDATE checks SET version =
:expected + n ... WHERE id = :id AND version = :expected``; no row updated means the version moved
(or the check does not exist) and nothing is written; then the actions, events and idempotency key
are inserted. A unique violation on the key rolls all of it back.
"""

from __future__ import annotations

import base64
import binascii
import json
import threading
from collections import OrderedDict
from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from datetime import datetime
from typing import Any, cast

import sqlalchemy as sa
from advanced_alchemy.extensions.litestar import SQLAlchemySyncConfig
from advanced_alchemy.repository import SQLAlchemySyncRepository
from advanced_alchemy.types import DateTimeUTC
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from api.db import AccessRow, ActionRow, CheckRow, EventRow, IdempotencyRow, WebhookRow
from api.outbox import CheckWebhook
from skillcheck.errors import CheckNotFoundError, IdempotencyKeyExistsError, VersionConflictError
from skillcheck.sessions import (
    Action,
    Append,
    CheckConfig,
    CheckEvent,
    CheckStatus,
    EventKind,
    IdempotencyRecord,
    StoredCheck,
)

__all__ = [
    "ACCESS_CACHE_SIZE",
    "Access",
    "BadCursorError",
    "SqlCheckStore",
    "summary_of",
]

#: Checks whose credentials a process keeps in memory (a few hundred bytes each).
ACCESS_CACHE_SIZE = 10_000


_CHECKS = cast("sa.Table", CheckRow.__table__)
_ACTIONS = cast("sa.Table", ActionRow.__table__)
_EVENTS = cast("sa.Table", EventRow.__table__)
_KEYS = cast("sa.Table", IdempotencyRow.__table__)
_ACCESS = cast("sa.Table", AccessRow.__table__)
#: The token digest column of each role a GM may re-issue.
_TOKEN_COLUMNS = {"player": "player_token_sha256", "spectator": "spectator_token_sha256"}

#: Compare and advance: the row moves to the new version only from the expected one.
_ADVANCE = (
    sa.update(_CHECKS)
    .where(_CHECKS.c.id == sa.bindparam("b_id"), _CHECKS.c.version == sa.bindparam("b_expected"))
    .values(
        version=sa.bindparam("b_version"),
        last_sequence=_CHECKS.c.last_sequence + sa.bindparam("b_events"),
        status=sa.bindparam("b_status"),
        updated_at=sa.func.coalesce(
            sa.bindparam("b_updated", type_=DateTimeUTC(timezone=True)), _CHECKS.c.updated_at
        ),
    )
    .returning(_CHECKS.c.last_sequence)
)
_VERSION = sa.select(_CHECKS.c.version).where(_CHECKS.c.id == sa.bindparam("b_id"))
_KEY_TAKEN = sa.select(_KEYS.c.key).where(
    _KEYS.c.scope == sa.bindparam("b_scope"), _KEYS.c.key == sa.bindparam("b_key")
)


class CheckRepository(SQLAlchemySyncRepository[CheckRow]):
    model_type = CheckRow


class AccessRepository(SQLAlchemySyncRepository[AccessRow]):
    model_type = AccessRow


class Access:
    """The hashed credentials of one check."""

    __slots__ = ("check_id", "gm_key_sha256", "player_token_sha256", "spectator_token_sha256")

    def __init__(self, check_id: str, player: str, spectator: str, gm: str) -> None:
        self.check_id = check_id
        self.player_token_sha256 = player
        self.spectator_token_sha256 = spectator
        self.gm_key_sha256 = gm


#: What a summary of a check carries, read from the check's newest view (``CheckView.to_dict``);
#: keys a view lacks (an older check, a server without tiers) are null.
_SUMMARY_KEYS = (
    "check_id", "game", "params", "label", "character", "status", "version", "moves_made",
    "degree", "tier", "tier_text", "created_at", "updated_at", "hints_used",
)  # fmt: skip
#: What a view written before a key existed stands for.
_SUMMARY_DEFAULTS: dict[str, Any] = {"hints_used": 0}


def summary_of(view: Mapping[str, Any]) -> dict[str, Any]:
    """What the GM's list shows of a check, from its view's JSON (which holds no hidden card)."""
    return {key: view.get(key, _SUMMARY_DEFAULTS.get(key)) for key in _SUMMARY_KEYS}


class BadCursorError(ValueError):
    """A listing cursor this server did not write."""


def _encode_cursor(created_at: datetime, check_id: str) -> str:
    raw = json.dumps([created_at.isoformat(), check_id], separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _decode_cursor(cursor: str) -> tuple[datetime, str]:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        at, check_id = json.loads(raw)
        when = datetime.fromisoformat(at)
        if not isinstance(check_id, str) or when.tzinfo is None:
            raise ValueError(cursor)
    except (ValueError, TypeError, binascii.Error, UnicodeDecodeError):
        raise BadCursorError(cursor) from None
    return when, check_id


class SqlCheckStore:
    """Checks in SQL tables (SQLite or PostgreSQL), safe to use from many threads."""

    def __init__(self, config: SQLAlchemySyncConfig) -> None:
        self.config = config
        self._session_maker = config.create_session_maker()
        self._engine = config.get_engine()
        # SQLite lets one writer in at a time and makes the others poll with growing sleeps;
        # queueing this process's writers on a lock hands the file over at once instead.
        sqlite = config.get_engine().dialect.name == "sqlite"
        self._write_lock: AbstractContextManager[Any] = (
            threading.Lock() if sqlite else nullcontext()
        )
        self._access_cache: OrderedDict[str, Access] = OrderedDict()
        self._access_lock = threading.Lock()
        #: Counts evictions: a read that began before one is not cached (it may be stale).
        self._access_generation = 0

    @contextmanager
    def _transaction(self) -> Iterator[Session]:
        with self._write_lock, self._session_maker() as session, session.begin():
            yield session

    @contextmanager
    def _reading(self) -> Iterator[Session]:
        with self._session_maker() as session:
            yield session

    # -- the CheckStore protocol ------------------------------------------------------------------
    def create(
        self,
        check: StoredCheck,
        events: Sequence[CheckEvent],
        idempotency: IdempotencyRecord | None = None,
    ) -> None:
        _check_sequences(check.check_id, check.last_sequence, events)
        try:
            with self._transaction() as session:
                if idempotency is not None:
                    self._refuse_taken_key(session.connection(), idempotency)
                CheckRepository(session=session).add(
                    CheckRow(
                        id=check.check_id,
                        game=check.config.game,
                        config=check.config.to_dict(),
                        seed=check.seed,
                        salt=check.salt,
                        commitment=check.commitment,
                        status=check.status.value,
                        version=check.version,
                        last_sequence=check.last_sequence + len(events),
                        created_at=check.created_at,
                        updated_at=check.updated_at,
                    )
                )
                session.flush()  # the check's row before the rows that refer to it
                conn = session.connection()
                self._insert_actions(conn, check.check_id, 1, check.actions)
                self._insert_events(conn, events)
                if idempotency is not None:
                    self._insert_key(conn, idempotency)
        except IntegrityError:
            if idempotency is not None and self.idempotency(idempotency.scope, idempotency.key):
                raise IdempotencyKeyExistsError(idempotency.scope, idempotency.key) from None
            raise

    def load(self, check_id: str) -> StoredCheck:
        with self._reading() as session:
            row = session.get(CheckRow, check_id)
            if row is None:
                raise CheckNotFoundError(check_id)
            # The actions up to the row's version only: a move committed between the two reads
            # (neither SQLite outside a transaction nor PostgreSQL's read committed holds one
            # snapshot across them) would otherwise give this version with the row's older
            # last_sequence, and the next move would number its events wrongly.
            logged = session.execute(
                sa.select(ActionRow.code, ActionRow.at, ActionRow.note)
                .where(ActionRow.check_id == check_id, ActionRow.number <= row.version)
                .order_by(ActionRow.number)
            ).all()
            return StoredCheck(
                check_id=row.id,
                config=CheckConfig(**dict(row.config)),
                seed=int(row.seed),
                salt=row.salt,
                commitment=row.commitment,
                created_at=row.created_at,
                actions=tuple(Action(a.code, a.at, a.note) for a in logged),
                status=CheckStatus(row.status),
                last_sequence=row.last_sequence,
            )

    def append(self, check_id: str, change: Append) -> None:
        # The hot path of every move: prepared Core statements on one connection.
        expected = change.expected_version
        try:
            with self._write_lock, self._engine.begin() as conn:
                last = conn.execute(
                    _ADVANCE,
                    {
                        "b_id": check_id,
                        "b_expected": expected,
                        "b_version": expected + len(change.actions),
                        "b_events": len(change.events),
                        "b_status": change.status.value,
                        "b_updated": change.actions[-1].at if change.actions else None,
                    },
                ).scalar_one_or_none()
                if last is None:
                    actual = conn.execute(_VERSION, {"b_id": check_id}).scalar_one_or_none()
                    if actual is None:
                        raise CheckNotFoundError(check_id)
                    raise VersionConflictError(check_id, expected, actual)
                # The row is locked by this transaction now: its last_sequence is ours.
                _check_sequences(check_id, last - len(change.events), change.events)
                if change.idempotency is not None:
                    self._refuse_taken_key(conn, change.idempotency)
                self._insert_actions(conn, check_id, expected + 1, change.actions)
                self._insert_events(conn, change.events)
                if change.idempotency is not None:
                    self._insert_key(conn, change.idempotency)
        except IntegrityError:
            key = change.idempotency
            if key is not None and self.idempotency(key.scope, key.key) is not None:
                raise IdempotencyKeyExistsError(key.scope, key.key) from None
            raise

    def events(self, check_id: str, after: int = 0, limit: int | None = None) -> list[CheckEvent]:
        with self._reading() as session:
            if session.get(CheckRow, check_id) is None:
                raise CheckNotFoundError(check_id)
            query = (
                sa.select(EventRow)
                .where(EventRow.check_id == check_id, EventRow.sequence > after)
                .order_by(EventRow.sequence)
            )
            if limit is not None:
                query = query.limit(limit)
            rows = session.scalars(query).all()
            return [
                CheckEvent(
                    r.check_id, r.sequence, r.version, EventKind(r.kind), dict(r.payload), r.at
                )
                for r in rows
            ]

    def idempotency(self, scope: str, key: str) -> IdempotencyRecord | None:
        with self._reading() as session:
            row = session.get(IdempotencyRow, (scope, key))
            if row is None:
                return None
            return IdempotencyRecord(row.scope, row.key, row.fingerprint, row.check_id, row.version)

    # -- access (tokens are stored as SHA-256 digests only) ---------------------------------------
    def save_access(self, access: Access, webhook: CheckWebhook | None = None) -> None:
        """Store a new check's hashed credentials and, if it has one, its callback."""
        with self._transaction() as session:
            if webhook is not None:
                session.add(
                    WebhookRow(check_id=webhook.check_id, url=webhook.url, secret=webhook.secret)
                )
            AccessRepository(session=session).add(
                AccessRow(
                    check_id=access.check_id,
                    player_token_sha256=access.player_token_sha256,
                    spectator_token_sha256=access.spectator_token_sha256,
                    gm_key_sha256=access.gm_key_sha256,
                )
            )

    def access(self, check_id: str, *, fresh: bool = False) -> Access | None:
        """A check's credentials, cached (a re-issue in this process replaces the cached entry;
        one in another process evicts it through :meth:`forget_access`). ``fresh`` reads the
        database whatever the cache holds."""
        with self._access_lock:
            cached = None if fresh else self._access_cache.get(check_id)
            if cached is not None:
                self._access_cache.move_to_end(check_id)
                return cached
            generation = self._access_generation
        with self._reading() as session:
            row = session.get(AccessRow, check_id)
            if row is None:
                return None  # not cached: the check may be created in a moment
            found = Access(
                row.check_id, row.player_token_sha256, row.spectator_token_sha256, row.gm_key_sha256
            )
        with self._access_lock:
            if generation != self._access_generation:
                return found  # a token changed meanwhile: what was read may be the old one
            self._access_cache[check_id] = found
            while len(self._access_cache) > ACCESS_CACHE_SIZE:
                self._access_cache.popitem(last=False)
        return found

    def forget_access(self, check_id: str) -> None:
        """Drop a check's cached credentials (another process re-issued one of its tokens)."""
        with self._access_lock:
            self._access_cache.pop(check_id, None)
            self._access_generation += 1

    def rotate_token(self, check_id: str, role: str, digest: str) -> bool:
        """Replace the digest of a check's ``role`` token (``player`` or ``spectator``): from
        the commit on, the old token reaches nothing. False if the check has no credentials."""
        column = _TOKEN_COLUMNS[role]
        with self._transaction() as session:
            changed = session.execute(
                sa.update(_ACCESS).where(_ACCESS.c.check_id == check_id).values({column: digest})
            )
            found = bool(getattr(changed, "rowcount", 0))
        self.forget_access(check_id)
        return found

    # -- the GM's list ----------------------------------------------------------------------------
    def list_checks(
        self,
        gm_key_sha256: str,
        *,
        status: str | None = None,
        label: str | None = None,
        limit: int = 50,
        cursor: str | None = None,
    ) -> tuple[list[dict[str, Any]], str | None]:
        """The summaries of the checks created with this GM key, newest first, and the cursor
        of the next page (None on the last). ``label`` keeps the checks whose label or
        character contains it (ignoring case); :class:`BadCursorError` for a foreign cursor."""
        query = self._owned(gm_key_sha256)
        if status is not None:
            query = query.where(_CHECKS.c.status == status)
        if label:
            needle = label.lower()
            query = query.where(
                sa.or_(
                    sa.func.lower(CheckRow.config["label"].as_string()).contains(
                        needle, autoescape=True
                    ),
                    sa.func.lower(CheckRow.config["character"].as_string()).contains(
                        needle, autoescape=True
                    ),
                )
            )
        if cursor is not None:
            when, after_id = _decode_cursor(cursor)
            query = query.where(
                sa.or_(
                    _CHECKS.c.created_at < when,
                    sa.and_(_CHECKS.c.created_at == when, _CHECKS.c.id < after_id),
                )
            )
        query = query.order_by(_CHECKS.c.created_at.desc(), _CHECKS.c.id.desc()).limit(limit + 1)
        with self._engine.connect() as conn:
            rows = conn.execute(query).all()
        more = len(rows) > limit
        rows = rows[:limit]
        found = [summary_of(row.payload["view"]) for row in rows]
        last = rows[-1] if rows and more else None
        return found, None if last is None else _encode_cursor(last.created_at, last.id)

    def changed_since(
        self, gm_key_sha256: str, since: datetime, limit: int = 1000
    ) -> list[dict[str, Any]]:
        """The summaries of this GM's checks changed at or after ``since``, oldest change
        first (a live list resuming after a lost connection)."""
        query = (
            self._owned(gm_key_sha256)
            .where(_CHECKS.c.updated_at >= since)
            .order_by(_CHECKS.c.updated_at, _CHECKS.c.id)
            .limit(limit)
        )
        with self._engine.connect() as conn:
            return [summary_of(row.payload["view"]) for row in conn.execute(query)]

    @staticmethod
    def _owned(gm_key_sha256: str) -> sa.Select[Any]:
        """The GM's checks with the payload of each one's newest event (which holds its view)."""
        return (
            sa.select(_CHECKS.c.id, _CHECKS.c.created_at, _EVENTS.c.payload)
            .join(_ACCESS, _ACCESS.c.check_id == _CHECKS.c.id)
            .join(
                _EVENTS,
                sa.and_(
                    _EVENTS.c.check_id == _CHECKS.c.id,
                    _EVENTS.c.sequence == _CHECKS.c.last_sequence,
                ),
            )
            .where(_ACCESS.c.gm_key_sha256 == gm_key_sha256)
        )

    # -- helpers ----------------------------------------------------------------------------------
    def token_known(self, token_sha256: str) -> bool:
        """Whether some check has this player or spectator token (both columns are unique, so
        indexed): a token that is no check's gets 401, one of another check's 404."""
        return self.token_role(token_sha256) is not None

    def token_role(self, token_sha256: str) -> str | None:
        """``"player"`` or ``"spectator"`` when some check has this token in that role (a 403
        says the role), else None."""
        query = sa.select(AccessRow.player_token_sha256).where(
            sa.or_(
                AccessRow.player_token_sha256 == token_sha256,
                AccessRow.spectator_token_sha256 == token_sha256,
            )
        )
        with self._reading() as session:
            found = session.execute(query.limit(1)).first()
        if found is None:
            return None
        return "player" if found[0] == token_sha256 else "spectator"

    def last_event(self, check_id: str) -> tuple[int, bool]:
        """The sequence of the check's last event and whether the check has ended (that event
        is then its terminal one): one primary-key read. Raises :class:`CheckNotFoundError`."""
        query = sa.select(_CHECKS.c.last_sequence, _CHECKS.c.status).where(_CHECKS.c.id == check_id)
        with self._reading() as session:
            found = session.execute(query).first()
        if found is None:
            raise CheckNotFoundError(check_id)
        return int(found[0]), found[1] != CheckStatus.IN_PROGRESS.value

    @staticmethod
    def _refuse_taken_key(conn: Connection, record: IdempotencyRecord) -> None:
        taken = conn.execute(_KEY_TAKEN, {"b_scope": record.scope, "b_key": record.key}).first()
        if taken is not None:
            raise IdempotencyKeyExistsError(record.scope, record.key)

    @staticmethod
    def _insert_actions(
        conn: Connection, check_id: str, first: int, logged: Sequence[Action]
    ) -> None:
        if logged:
            conn.execute(
                _ACTIONS.insert(),
                [
                    {"check_id": check_id, "number": first + i, "code": a.code, "note": a.note,
                     "at": a.at}
                    for i, a in enumerate(logged)
                ],
            )  # fmt: skip

    @staticmethod
    def _insert_events(conn: Connection, new: Sequence[CheckEvent]) -> None:
        if new:
            conn.execute(
                _EVENTS.insert(),
                [
                    {"check_id": e.check_id, "sequence": e.sequence, "version": e.version,
                     "kind": e.kind.value, "payload": e.payload, "at": e.at}
                    for e in new
                ],
            )  # fmt: skip

    @staticmethod
    def _insert_key(conn: Connection, record: IdempotencyRecord) -> None:
        conn.execute(
            _KEYS.insert(),
            {
                "scope": record.scope,
                "key": record.key,
                "fingerprint": record.fingerprint,
                "check_id": record.check_id,
                "version": record.version,
            },
        )


def _check_sequences(check_id: str, last_sequence: int, new: Sequence[CheckEvent]) -> None:
    for offset, event in enumerate(new, 1):
        if event.check_id != check_id or event.sequence != last_sequence + offset:
            raise ValueError(
                f"event {event.sequence} of check {event.check_id!r} does not follow event "
                f"{last_sequence + offset - 1} of check {check_id!r}"
            )
