"""The check session service (skillcheck.sessions): lifecycles, versions, idempotency, the
commitment, events and listeners, hidden information, threads, and a stateful model test."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, invariant, rule

from skillcheck import (
    Card,
    EndReason,
    GameOverError,
    IllegalMoveError,
    ParameterError,
    ParseError,
    Quota,
    SkillcheckError,
    Standard,
    Status,
    ThreeTowers,
    ThreeTowersState,
    UndoError,
    UnknownGameError,
)
from skillcheck.games.three_towers.solver import solve
from skillcheck.records import GameRecord, verify
from skillcheck.serialization import converter, game_params
from skillcheck.sessions import (
    CheckEndedError,
    CheckEvent,
    CheckNotFoundError,
    CheckStatus,
    CheckStore,
    CheckView,
    CommitmentError,
    EventKind,
    IdempotencyConflictError,
    InMemoryCheckStore,
    RecordNotAvailableError,
    RevealedRecord,
    SessionService,
    VersionConflictError,
    compute_commitment,
    verify_commitment,
)

ROOT = Path(__file__).resolve().parents[1]
SMALL = {"level": 4, "spaces": 4}  # seed 1 is winnable (the solver finds a 13-move line)
QUOTA = ThreeTowers.quota_check("moons", skill=3, quota=2, level=5, spaces=4)


class Clock:
    """A deterministic clock: one second per call."""

    def __init__(self) -> None:
        self.now = datetime(2026, 1, 1, tzinfo=UTC)
        self._lock = threading.Lock()

    def __call__(self) -> datetime:
        with self._lock:
            self.now += timedelta(seconds=1)
            return self.now


def make_service(store: CheckStore | None = None) -> SessionService:
    return SessionService(store, clock=Clock())


def engine_state(service: SessionService, check_id: str) -> ThreeTowersState:
    """An independent engine state at the check's position (replayed from the stored log)."""
    stored = service.store.load(check_id)
    game = stored.config.build_game()
    assert isinstance(game, ThreeTowers)
    state = game.new_state(stored.seed)
    for action in stored.actions:
        if action.code == "undo":
            state.undo()
        elif action.code not in ("concede", "cancel", "unwinnable"):
            state.push_code(action.code)
    return state


def winning_line(game: ThreeTowers, seed: int) -> list[str]:
    solution = solve(game, game.deal(seed))
    assert solution.result == "win"
    return [m.code for m in solution.moves]


def snapshot(service: SessionService, check_id: str) -> tuple[Any, ...]:
    stored = service.store.load(check_id)
    return (stored, service.view(check_id), service.events(check_id))


def three_twos_seed() -> int:
    """A level-4, 3-space deal whose first three cards are the three 2s (lost from the start)."""
    game = ThreeTowers(level=4, spaces=3)
    return next(s for s in range(100_000) if all(c.rank == 2 for c in game.deal(s)[:3]))


# ---- lifecycles ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("game", "params", "seed"),
    [("three-towers", SMALL, 1), (QUOTA, None, 3)],
    ids=["standard-level-4", "quota-level-5"],
)
def test_a_check_won_on_a_solver_line_reveals_a_record_that_verifies(
    game: Any, params: Any, seed: int
) -> None:
    service = make_service()
    created = service.create(game, params, seed=seed, label="pick the lock")
    view = created.view
    assert view.version == 0 and view.status is CheckStatus.IN_PROGRESS
    assert view.commitment == created.commitment and view.label == "pick the lock"
    built = service.store.load(created.check_id).config.build_game()
    assert isinstance(built, ThreeTowers)
    line = winning_line(built, seed)
    for number, code in enumerate(line, 1):
        assert code in view.legal_moves
        view = service.move(created.check_id, code, expected_version=view.version)
        assert view.version == number
    assert view.status is CheckStatus.WON and view.success and view.is_over
    assert view.outcome is not None and view.outcome.reason is EndReason.GOAL
    assert view.degree == view.outcome.degree and view.degree >= 0
    assert view.legal_moves == () and not view.can_undo

    revealed = service.record(created.check_id)
    assert revealed.status is CheckStatus.WON and revealed.record.moves == tuple(line)
    assert revealed.record.seed == seed
    final = verify(revealed.record)
    assert final.outcome == view.outcome
    # the seed was passed, so the commitment binds seed_chosen (docs/sessions.md)
    verify_commitment(revealed.record, revealed.salt, created.commitment, seed_chosen=True)
    assert revealed.verify().outcome == view.outcome
    # The JSON round trip keeps everything a third party needs.
    again = RevealedRecord.from_json(revealed.to_json())
    assert again == revealed
    verify_commitment(json.loads(revealed.to_json()))

    events = service.events(created.check_id)
    kinds = [e.kind for e in events]
    assert kinds == [EventKind.CREATED] + [EventKind.MOVED] * len(line) + [EventKind.ENDED]
    assert [e.sequence for e in events] == list(range(1, len(events) + 1))
    assert [e.version for e in events] == [0, *range(1, len(line) + 1), len(line)]
    assert [e.payload["move"] for e in events[1:-1]] == line
    assert events[-1].payload["record"] == revealed.to_dict()
    assert events[-1].payload["outcome"] == converter.unstructure(view.outcome)
    assert events[0].payload["commitment"] == created.commitment


def test_a_check_lost_by_concession() -> None:
    service = make_service()
    check = service.create(QUOTA, seed=11).check_id
    service.move(check, "d1")
    view = service.concede(check, expected_version=1)
    assert view.status is CheckStatus.LOST and not view.success
    assert view.outcome is not None and view.outcome.reason is EndReason.CONCEDED
    assert view.degree is not None and view.degree < 0
    revealed = service.record(check)
    assert revealed.record.moves == ("d1",)
    assert revealed.verify().outcome == view.outcome
    assert [e.kind for e in service.events(check)][-1] is EventKind.ENDED
    with pytest.raises(CheckEndedError) as caught:
        service.move(check, "d2")
    assert isinstance(caught.value, GameOverError) and caught.value.code == "check-ended"


def test_a_check_lost_by_the_move_limit() -> None:
    service = make_service()
    check = service.create("three-towers", {"level": 9, "move_limit": 2}, seed=4).check_id
    service.move(check, "d1")
    view = service.move(check, "d2")
    assert view.status is CheckStatus.LOST
    assert view.outcome is not None and view.outcome.reason is EndReason.MOVE_LIMIT
    events = service.events(check)
    assert [e.kind.value for e in events] == ["created", "moved", "moved", "ended"]
    assert events[-1].version == events[-2].version == 2
    assert service.record(check).verify().outcome == view.outcome


def test_end_when_lost_ends_a_check_that_can_no_longer_be_won() -> None:
    seed = three_twos_seed()
    service = make_service()
    check = service.create(
        "three-towers", {"level": 4, "spaces": 3}, seed=seed, end_when_lost=True
    ).check_id
    view = service.move(check, "d1", expected_version=0)
    assert view.status is CheckStatus.LOST and view.version == 2
    assert view.outcome is not None and view.outcome.reason is EndReason.UNWINNABLE
    assert [a.code for a in service.store.load(check).actions] == ["d1", "unwinnable"]
    events = service.events(check)
    assert [(e.kind.value, e.version) for e in events] == [
        ("created", 0),
        ("moved", 1),
        ("ended", 2),
    ]
    assert events[1].payload["view"]["status"] == "in_progress"
    revealed = service.record(check)
    assert revealed.verify().outcome == view.outcome
    # A fresh service on the same store replays the log, "unwinnable" included.
    assert make_service(service.store).view(check) == view

    # Without the GM's option the same deal plays on until it is stuck.
    plain = service.create("three-towers", {"level": 4, "spaces": 3}, seed=seed).check_id
    assert service.move(plain, "d1").status is CheckStatus.IN_PROGRESS


def test_the_gm_can_ask_for_an_unwinnable_ending_on_demand() -> None:
    service = make_service()
    lost = service.create("three-towers", {"level": 4, "spaces": 3}, seed=three_twos_seed())
    view = service.end_if_unwinnable(lost.check_id)
    assert view.outcome is not None and view.outcome.reason is EndReason.UNWINNABLE
    assert view.version == 1 and view.moves_made == 0

    alive = service.create("three-towers", SMALL, seed=1).check_id
    before = snapshot(service, alive)
    view = service.end_if_unwinnable(alive)
    assert view.status is CheckStatus.IN_PROGRESS
    assert snapshot(service, alive) == before


# ---- versions, idempotency, undo, cancel ---------------------------------------------------------


def test_a_stale_version_is_a_conflict_and_changes_nothing() -> None:
    service = make_service()
    check = service.create(QUOTA, seed=5).check_id
    service.move(check, "d1", expected_version=0)
    before = snapshot(service, check)
    for stale in (0, 2, 7):
        with pytest.raises(VersionConflictError) as caught:
            service.move(check, "d2", expected_version=stale)
        assert (caught.value.expected, caught.value.actual) == (stale, 1)
        assert caught.value.code == "version-conflict"
        # a version ahead of the check's was never reached: no other action "came first"
        assert ("another action came first" in caught.value.message) is (stale < 1)
        with pytest.raises(VersionConflictError):
            service.concede(check, expected_version=stale)
        with pytest.raises(VersionConflictError):
            service.cancel(check, expected_version=stale)
    assert snapshot(service, check) == before


def test_two_services_on_one_store_never_act_on_a_stale_copy() -> None:
    """Two API processes share one database: each service starts an action from its own copy of
    the check, and the store's compare-and-append sends a stale copy back to be reread."""
    store = InMemoryCheckStore()
    one, two = make_service(store), make_service(store)
    check = one.create(QUOTA, seed=5).check_id
    assert two.view(check).version == 0  # ``two`` now holds a copy at version 0
    one.move(check, "d1")
    # without a version, ``two`` acts on the newer position: d2 follows d1
    after = two.move(check, "d2")
    assert after.version == 2
    assert [a.code for a in store.load(check).actions] == ["d1", "d2"]
    assert engine_state(two, check).moves_made == 2
    # with a version, a client that saw version 1 is told it is stale, whatever the copy says
    one.move(check, "d3")
    with pytest.raises(VersionConflictError) as caught:
        two.move(check, "d4", expected_version=2)
    assert (caught.value.expected, caught.value.actual) == (2, 3)
    # a check cancelled through one service has ended for the other
    one.cancel(check, "the door was open")
    with pytest.raises(CheckEndedError):
        two.move(check, "d4")
    assert store.load(check).version == 4


def test_rejected_actions_change_nothing() -> None:
    service = make_service()
    check = service.create(QUOTA, seed=5).check_id
    before = snapshot(service, check)
    with pytest.raises(ParseError):
        service.move(check, "zz")
    with pytest.raises(IllegalMoveError):
        service.move(check, "12")
    with pytest.raises(UndoError):
        service.undo(check)
    with pytest.raises(CheckNotFoundError) as caught:
        service.move("no-such-check", "d1")
    assert caught.value.code == "check-not-found"
    assert snapshot(service, check) == before


def test_an_idempotent_retry_returns_the_same_view_and_acts_once() -> None:
    service = make_service()
    check = service.create(QUOTA, seed=5).check_id
    first = service.move(check, "d1", expected_version=0, idempotency_key="k1")
    events = service.events(check)
    again = service.move(check, "d1", expected_version=0, idempotency_key="k1")
    assert again == first
    assert service.events(check) == events and service.view(check).version == 1
    # Still the same answer after the check has moved on, and after it has ended.
    service.move(check, "d2")
    assert service.move(check, "d1", expected_version=0, idempotency_key="k1") == first
    service.concede(check, idempotency_key="bye")
    assert service.move(check, "d1", expected_version=0, idempotency_key="k1") == first
    assert service.concede(check, idempotency_key="bye").status is CheckStatus.LOST
    assert [a.code for a in service.store.load(check).actions] == ["d1", "d2", "concede"]


def test_an_idempotency_key_reused_for_another_request_is_a_conflict() -> None:
    service = make_service()
    check = service.create(QUOTA, seed=5).check_id
    service.move(check, "d1", idempotency_key="k1")
    before = snapshot(service, check)
    others: list[Callable[[], object]] = [
        lambda: service.move(check, "d2", idempotency_key="k1"),
        lambda: service.move(check, "d1", expected_version=1, idempotency_key="k1"),
        lambda: service.concede(check, idempotency_key="k1"),
    ]
    for other in others:
        with pytest.raises(IdempotencyConflictError) as caught:
            other()
        assert caught.value.code == "idempotency-conflict"
    assert snapshot(service, check) == before
    # Keys are scoped to their check.
    other_check = service.create(QUOTA, seed=5).check_id
    assert service.move(other_check, "d2", idempotency_key="k1").version == 1


def test_creation_is_idempotent_too() -> None:
    store = InMemoryCheckStore()
    service = make_service(store)
    first = service.create(QUOTA, seed=9, idempotency_key="new-check")
    again = service.create(QUOTA, seed=9, idempotency_key="new-check")
    assert again == first and store.check_ids() == [first.check_id]
    # With entropy seeds too: the retry does not draw a second deal.
    fresh = service.create(QUOTA, idempotency_key="fresh")
    assert service.create(QUOTA, idempotency_key="fresh") == fresh
    with pytest.raises(IdempotencyConflictError):
        service.create(QUOTA, seed=10, idempotency_key="new-check")
    assert len(store.check_ids()) == 2


def test_undo_follows_the_checks_policy() -> None:
    service = make_service()
    strict = service.create(ThreeTowers(level=5, undo="off"), seed=2).check_id
    view = service.move(strict, "d1")
    assert not view.can_undo
    before = snapshot(service, strict)
    with pytest.raises(UndoError) as caught:
        service.undo(strict)
    assert caught.value.code == "undo-not-allowed"
    assert snapshot(service, strict) == before

    relaxed = service.create(ThreeTowers(level=5, undo="full"), seed=2)
    moved = service.move(relaxed.check_id, "d1")
    assert moved.can_undo
    undone = service.undo(relaxed.check_id, expected_version=1)
    assert undone.version == 2 and undone.moves_made == 0
    assert undone.observation == relaxed.view.observation
    assert undone.legal_moves == relaxed.view.legal_moves
    last = service.events(relaxed.check_id)[-1]
    assert last.kind is EventKind.UNDONE and last.payload["move"] == "d1"
    service.concede(relaxed.check_id)
    assert service.record(relaxed.check_id).record.moves == ("d1", "undo")
    assert service.record(relaxed.check_id).verify().status is Status.LOST


def test_the_gm_cancels_a_check() -> None:
    service = make_service()
    created = service.create(QUOTA, seed=8)
    check = created.check_id
    service.move(check, "d1")
    view = service.cancel(check, "the dragon arrived")
    assert view.status is CheckStatus.CANCELLED and view.is_over and not view.success
    assert view.outcome is None and view.degree is None
    assert view.cancel_reason == "the dragon arrived" and view.legal_moves == ()
    actions: list[Callable[[], object]] = [
        lambda: service.move(check, "d2"),
        lambda: service.undo(check),
        lambda: service.concede(check),
        lambda: service.cancel(check),
    ]
    for action in actions:
        with pytest.raises(CheckEndedError):
            action()
    revealed = service.record(check)
    assert revealed.status is CheckStatus.CANCELLED
    assert revealed.cancel_reason == "the dragon arrived"
    assert revealed.record.outcome is None and revealed.record.seed == 8
    assert revealed.verify().outcome is None  # the game did not end; its moves replay
    last = service.events(check)[-1]
    assert last.kind is EventKind.CANCELLED and last.terminal
    assert last.payload["reason"] == "the dragon arrived"
    assert last.payload["record"] == revealed.to_dict()
    assert make_service(service.store).view(check) == view


# ---- the record and the commitment ---------------------------------------------------------------


def test_the_record_is_revealed_only_after_the_end() -> None:
    service = make_service()
    created = service.create(QUOTA, seed=21)
    with pytest.raises(RecordNotAvailableError) as caught:
        service.record(created.check_id)
    assert caught.value.code == "record-not-available"
    service.move(created.check_id, "d1")
    with pytest.raises(RecordNotAvailableError):
        service.record(created.check_id)
    service.concede(created.check_id)
    revealed = service.record(created.check_id)
    assert revealed.commitment == created.commitment
    assert re.fullmatch(r"[0-9a-f]{32}", revealed.salt)
    verify_commitment(revealed)


def test_the_commitment_follows_the_documented_recipe() -> None:
    service = make_service()
    created = service.create(QUOTA, seed=1234)
    service.concede(created.check_id)
    revealed = service.record(created.check_id)
    # docs/sessions.md: SHA-256 of the canonical JSON of {game, params, salt, seed}, and
    # "seed_chosen": true since the caller chose the seed.
    material = {
        "game": "three-towers",
        "params": game_params(QUOTA),
        "seed": 1234,
        "salt": revealed.salt,
        "seed_chosen": True,
    }
    text = json.dumps(material, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert hashlib.sha256(text.encode("utf-8")).hexdigest() == created.commitment
    assert compute_commitment(
        "three-towers", game_params(QUOTA), 1234, revealed.salt, seed_chosen=True
    ) == (created.commitment)
    assert re.fullmatch(r"[0-9a-f]{64}", created.commitment)


def test_the_worked_commitment_example_in_the_docs() -> None:
    params = game_params(ThreeTowers.quota_check("moons", skill=4, quota=3))
    digest = compute_commitment("three-towers", params, 1234, "00112233445566778899aabbccddeeff")
    assert digest == "1f056e0b538b58fd9c011dd30090d6f7331cad0b3413e4e344606ce656e78b75"
    assert digest in (ROOT / "docs" / "sessions.md").read_text(encoding="utf-8")


def test_a_tampered_reveal_fails_the_commitment() -> None:
    service = make_service()
    created = service.create(QUOTA, seed=77)
    service.concede(created.check_id)
    revealed = service.record(created.check_id)
    record = revealed.record
    other_seed = GameRecord.from_dict({**record.to_dict(), "seed": 78, "deal": None})
    with pytest.raises(CommitmentError):
        verify_commitment(other_seed, revealed.salt, created.commitment)
    with pytest.raises(CommitmentError):
        verify_commitment(record, "0" * 32, created.commitment, seed_chosen=True)
    with pytest.raises(CommitmentError):
        verify_commitment(record, revealed.salt, "f" * 64, seed_chosen=True)
    hidden = GameRecord.from_dict({**record.to_dict(), "seed": None, "deal": None})
    with pytest.raises(CommitmentError):
        verify_commitment(hidden, revealed.salt, created.commitment)
    with pytest.raises(CommitmentError):  # the seed was chosen: saying otherwise is a forgery
        verify_commitment(record, revealed.salt, created.commitment, seed_chosen=False)
    verify_commitment(record.to_dict(), revealed.salt, created.commitment.upper(), seed_chosen=True)


def test_a_wrong_provenance_is_told_apart_from_a_wrong_deal() -> None:
    """Verifying a chosen seed's inner game record without ``seed_chosen`` (the example's old
    slip) says that the provenance, not the deal, disagrees, and how to verify; the revealed
    record itself, as data, verifies with no flag, and a random seed said chosen is caught too."""
    service = make_service()
    for seed, chosen in ((77, True), (None, False)):
        created = service.create(QUOTA, seed=seed)
        service.concede(created.check_id)
        revealed = service.record(created.check_id)
        assert revealed.seed_chosen is chosen
        published = json.loads(revealed.to_json())
        verify_commitment(published, commitment=created.commitment)
        with pytest.raises(CommitmentError) as caught:
            verify_commitment(
                published["record"], published["salt"], created.commitment, seed_chosen=not chosen
            )
        said = "the GM chose the seed" if chosen else "the seed was drawn at random"
        assert f"the commitment says {said}" in caught.value.message
        assert f"pass seed_chosen={chosen}" in caught.value.message
        assert "verify the revealed record itself" in caught.value.message
        other_seed = {**published["record"], "seed": 5, "deal": None}
        with pytest.raises(CommitmentError, match="not the one committed to"):
            verify_commitment(other_seed, published["salt"], created.commitment, seed_chosen=chosen)


def test_two_checks_on_the_same_seed_have_different_commitments() -> None:
    service = make_service()
    a = service.create(QUOTA, seed=3)
    b = service.create(QUOTA, seed=3)
    assert a.commitment != b.commitment  # the salt differs
    assert a.view.observation == b.view.observation


# ---- hidden information ----------------------------------------------------------------------


def _patterns(cards: set[Card]) -> list[re.Pattern[str]]:
    patterns = []
    for card in cards:
        patterns.append(re.compile(rf"(?<![0-9]){card.code}(?![A-Z])"))
        patterns.append(re.compile(re.escape(card.name), re.IGNORECASE))
    return patterns


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_nothing_before_the_end_shows_a_hidden_card(seed: int) -> None:
    """Every view and event emitted before the end is scanned for the codes and names of the
    cards under the deck's top card that the player has never seen (a card seen once and put
    back by an undo is no secret)."""
    service = make_service()
    listened: list[CheckEvent] = []
    service.subscribe(listened.append)
    game = ThreeTowers.quota_check("suns", skill=6, quota=5, level=9, move_limit=60)
    created = service.create(game, seed=seed)
    check = created.check_id
    salt = service.store.load(check).salt
    seen: set[Card] = set()
    new: list[Any] = [created.view.to_dict()]
    scanned_events = 0
    step = 0
    while True:
        view = service.view(check)
        if view.is_over:
            break
        state = engine_state(service, check)
        seen.update(c for tower in state.towers for c in tower)
        seen.update(state.remaining_deck[:1])
        new.append(view.to_dict())
        events = service.events(check)
        new.extend(e.to_dict() for e in events[scanned_events:])
        new.extend(e.to_dict() for e in listened[scanned_events:])
        scanned_events = len(events)
        text = json.dumps(new)
        hidden = _patterns(set(state.remaining_deck[1:]) - seen)
        for pattern in hidden:
            assert not pattern.search(text), f"{pattern.pattern} shown at step {step}"
        # The scan would catch a leak: the full position (code and names) shows every hidden card.
        leak = state.code() + json.dumps([c.name for c in state.remaining_deck])
        assert all(pattern.search(leak) for pattern in hidden)
        assert salt not in text and '"seed"' not in text and '"deal"' not in text
        new = []
        with pytest.raises(RecordNotAvailableError):
            service.record(check)
        # Take back a move now and then: undo must not leak either.
        if step % 7 == 6 and view.can_undo:
            service.undo(check)
        else:
            moves = list(view.legal_moves)
            service.move(check, moves[(seed + step) % len(moves)])
        step += 1
    assert listened == service.events(check)
    assert listened[-1].terminal and '"seed"' in json.dumps(listened[-1].to_dict())


# ---- events and listeners --------------------------------------------------------------------


def test_listeners_get_every_event_once_in_order() -> None:
    service = make_service()
    everything: list[CheckEvent] = []
    service.subscribe(everything.append)
    first = service.create(QUOTA, seed=1).check_id
    only_first: list[CheckEvent] = []
    with service.subscribe(only_first.append, check_id=first):
        second = service.create(QUOTA, seed=2).check_id
        service.move(first, "d1")
        service.move(second, "d1")
        service.concede(first)
    service.move(second, "d2")  # after the with block: unsubscribed
    assert [e for e in everything if e.check_id == first] == service.events(first)
    assert [e for e in everything if e.check_id == second] == service.events(second)
    assert only_first == service.events(first, after=1)
    assert service.events(first, after=2) == service.events(first)[2:]
    assert service.events(first, after=1, limit=1) == service.events(first)[1:2]
    assert service.events(first, after=99) == []
    with pytest.raises(CheckNotFoundError):
        service.events("nope")


def test_a_failing_listener_does_not_undo_the_action() -> None:
    service = make_service()
    seen: list[int] = []

    def broken(event: CheckEvent) -> None:
        raise RuntimeError("webhook down")

    service.subscribe(broken)
    service.subscribe(lambda e: seen.append(e.sequence))
    check = service.create(QUOTA, seed=1).check_id
    assert service.move(check, "d1").version == 1
    assert seen == [1, 2]


def test_a_listener_that_acts_on_the_service_still_sees_events_in_order() -> None:
    service = make_service()
    order: list[tuple[str, int]] = []
    check = service.create(QUOTA, seed=1).check_id

    def auto_concede(event: CheckEvent) -> None:
        order.append(("first", event.sequence))
        if event.kind is EventKind.MOVED:
            service.concede(event.check_id)

    service.subscribe(auto_concede)
    service.subscribe(lambda e: order.append(("second", e.sequence)))
    view = service.move(check, "d1")
    assert view.status is CheckStatus.IN_PROGRESS  # the answer to the move itself
    assert service.view(check).status is CheckStatus.LOST
    assert order == [("first", 2), ("second", 2), ("first", 3), ("second", 3)]


def test_event_queues_and_long_polling_serve_another_thread() -> None:
    service = make_service()
    check = service.create(QUOTA, seed=1).check_id
    with service.listen(check) as events:
        got: list[CheckEvent] = []
        polled: list[CheckEvent] = []

        def consume() -> None:
            for event in events:
                got.append(event)
                if event.terminal:
                    return

        def long_poll() -> None:
            polled.extend(service.wait_for_events(check, after=1, timeout=10))

        threads = [threading.Thread(target=consume), threading.Thread(target=long_poll)]
        for thread in threads:
            thread.start()
        service.move(check, "d1")
        service.concede(check)
        for thread in threads:
            thread.join(10)
        assert got == service.events(check, after=1)
        assert polled and polled[0].sequence == 2
    assert events.get(timeout=0.01) is None
    assert service.wait_for_events(check, after=99, timeout=0.01) == []


# ---- threads, storage, validation --------------------------------------------------------------


def test_racing_threads_with_expected_versions_one_wins_each_version() -> None:
    service = make_service()
    delivered: list[int] = []
    service.subscribe(lambda e: delivered.append(e.sequence))
    check = service.create(ThreeTowers(level=9, spaces=8), seed=12).check_id
    threads_count, rounds = 8, 6
    for _ in range(rounds):
        view = service.view(check)
        barrier = threading.Barrier(threads_count)
        results: list[str] = []

        def race(
            index: int,
            view: CheckView = view,
            barrier: threading.Barrier = barrier,
            results: list[str] = results,
        ) -> None:
            code = view.legal_moves[index % len(view.legal_moves)]
            barrier.wait()
            try:
                service.move(check, code, expected_version=view.version)
                outcome = "won"
            except VersionConflictError:
                outcome = "conflict"
            results.append(outcome)  # list.append is atomic

        threads = [threading.Thread(target=race, args=(i,)) for i in range(threads_count)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(10)
        assert sorted(results) == ["conflict"] * (threads_count - 1) + ["won"]
        assert service.view(check).version == view.version + 1
    events = service.events(check)
    assert [e.sequence for e in events] == list(range(1, rounds + 2))
    assert delivered == [e.sequence for e in events]


def test_racing_threads_without_versions_all_apply_in_some_order() -> None:
    service = make_service()
    delivered: list[int] = []
    service.subscribe(lambda e: delivered.append(e.sequence))
    check = service.create(ThreeTowers(level=9, spaces=8), seed=12).check_id
    applied: list[int] = []
    lock = threading.Lock()
    barrier = threading.Barrier(6)

    def mover() -> None:
        barrier.wait()
        for _ in range(3):
            view = service.view(check)
            if view.is_over or not view.legal_moves:
                return
            try:
                new = service.move(check, view.legal_moves[0])
            except IllegalMoveError:
                continue  # the position changed under this thread: a fair rejection
            with lock:
                applied.append(new.version)

    threads = [threading.Thread(target=mover) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    final = service.view(check)
    assert sorted(applied) == list(range(1, final.version + 1))
    assert delivered == [e.sequence for e in service.events(check)]
    assert make_service(service.store).view(check) == final


def test_the_in_memory_store_is_a_check_store_and_views_survive_a_cold_cache() -> None:
    store = InMemoryCheckStore()
    assert isinstance(store, CheckStore)
    service = SessionService(store, clock=Clock(), cache_size=1)
    a = service.create(QUOTA, seed=1).check_id
    b = service.create(QUOTA, seed=2).check_id
    service.move(a, "d1")
    service.move(b, "d2")
    service.move(a, "d2")
    assert make_service(store).view(a) == service.view(a)
    assert make_service(store).view(b) == service.view(b)


def test_invalid_creations_raise_the_librarys_errors_and_store_nothing() -> None:
    store = InMemoryCheckStore()
    service = make_service(store)
    with pytest.raises(UnknownGameError):
        service.create("tri-peaks")
    with pytest.raises(ParameterError) as caught:
        service.create("three-towers", {"level": 12})
    assert caught.value.parameter == "level"
    with pytest.raises(ParameterError):
        service.create("three-towers", {"levle": 5})
    with pytest.raises(ParameterError):
        service.create("three-towers", seed=-1)
    with pytest.raises(ParameterError):
        service.create(QUOTA, {"level": 5})
    with pytest.raises(ParameterError):
        service.create(QUOTA, metadata={"bad": object()})
    with pytest.raises(ParameterError):
        service.move("x", 12)  # type: ignore[arg-type]
    assert store.check_ids() == []


def test_metadata_and_views_are_plain_json_and_copies() -> None:
    service = make_service()
    created = service.create(
        "three-towers",
        {"level": 5, "variant": {"kind": "quota", "suit": "moons", "skill": 3, "quota": 2}},
        seed=4,
        metadata={"character": "Mira", "scene": 3},
    )
    view = created.view
    assert view.params == game_params(ThreeTowers.quota_check("moons", 3, 2, level=5))
    assert view.metadata == {"character": "Mira", "scene": 3}
    view.params["level"] = 9  # a caller scribbling on a view changes nothing stored
    assert service.view(created.check_id).params["level"] == 5
    data = json.loads(json.dumps(service.view(created.check_id).to_dict()))
    assert data["observation_code"] == service.view(created.check_id).observation_code
    assert data["status"] == "in_progress" and data["version"] == 0


def test_the_embedding_example_runs() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "embed_session.py")],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    out = result.stdout
    assert "commitment" in out and "degree" in out
    assert "record verified against the commitment" in out


@pytest.mark.parametrize("args", [["--seed", "12"], ["--stdin", "--seed", "1"]])
def test_the_embedding_example_verifies_a_chosen_seed(args: list[str]) -> None:
    """A GM's seed is bound into the commitment as chosen: the example verifies the whole
    revealed record, which says so (it once verified the inner record and failed)."""
    result = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "embed_session.py"), *args],
        input="d1\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert "chosen by the GM" in result.stdout
    assert "record verified against the commitment" in result.stdout


def test_the_embedding_example_refuses_a_bad_seed_in_words() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "embed_session.py"), "--seed", "-5"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode != 0
    assert "seed -5 is not allowed" in result.stderr and "from 0 to" in result.stderr
    assert "Traceback" not in result.stderr


# ---- a stateful model test -------------------------------------------------------------------


class _Model:
    def __init__(self, state: ThreeTowersState) -> None:
        self.state = state
        self.version = 0
        self.events = 1
        self.cancelled = False
        self.keys: dict[str, tuple[tuple[Any, ...], CheckView]] = {}

    @property
    def over(self) -> bool:
        return self.cancelled or self.state.is_terminal()


class SessionMachine(RuleBasedStateMachine):
    checks = Bundle("checks")

    def __init__(self) -> None:
        super().__init__()
        self.service = make_service()
        self.models: dict[str, _Model] = {}

    @rule(
        target=checks,
        level=st.integers(3, 5),
        spaces=st.integers(3, 5),
        quota=st.booleans(),
        undo=st.sampled_from(["off", "safe", "full"]),
        move_limit=st.one_of(st.none(), st.integers(1, 12)),
        seed=st.integers(0, 2**53 - 1),
    )
    def create(
        self, level: int, spaces: int, quota: bool, undo: str, move_limit: int | None, seed: int
    ) -> str:
        params: dict[str, Any] = {"level": level, "spaces": spaces, "undo": undo}
        params["move_limit"] = move_limit
        if quota:
            params["variant"] = {"kind": "quota", "suit": "waves", "skill": 2, "quota": 2}
        created = self.service.create("three-towers", params, seed=seed)
        variant = Quota("waves", 2, 2) if quota else Standard()
        game = ThreeTowers(level, spaces, variant, undo=undo, move_limit=move_limit)
        self.models[created.check_id] = _Model(game.new_state(seed))
        return created.check_id

    @rule(
        check=checks,
        op=st.sampled_from(["legal", "code", "undo", "concede", "cancel"]),
        code=st.sampled_from(["d1", "d2", "d3", "12", "21", "31", "d9", "99", "x", "undo"]),
        pick=st.integers(0, 100),
        version=st.sampled_from(["none", "current", "stale"]),
        key=st.sampled_from([None, "new", "reuse"]),
    )
    def act(self, check: str, op: str, code: str, pick: int, version: str, key: str | None) -> None:
        model = self.models[check]
        if op == "legal":
            legal = [m.code for m in model.state.legal_moves]
            op, code = "code", legal[pick % len(legal)] if legal else code
        request = (op, code if op == "code" else None)
        expected = {
            "none": None,
            "current": model.version,
            "stale": model.version + (1 if pick % 2 else -1),
        }[version]
        idem: str | None = None
        if key == "new":
            idem = f"key-{len(model.keys)}-{pick}"
        elif key == "reuse" and model.keys:
            idem = sorted(model.keys)[pick % len(model.keys)]
        before = snapshot(self.service, check)

        def call() -> CheckView:
            kwargs: dict[str, Any] = {"expected_version": expected, "idempotency_key": idem}
            if op == "code":
                return self.service.move(check, code, **kwargs)
            if op == "undo":
                return self.service.undo(check, **kwargs)
            if op == "concede":
                return self.service.concede(check, **kwargs)
            return self.service.cancel(check, "stop", **kwargs)

        if idem is not None and idem in model.keys:
            stored_request, stored_view = model.keys[idem]
            if stored_request == (*request, expected):
                assert call() == stored_view
            else:
                with pytest.raises(IdempotencyConflictError):
                    call()
            assert snapshot(self.service, check) == before
            return
        if expected is not None and expected != model.version:
            with pytest.raises(VersionConflictError):
                call()
            assert snapshot(self.service, check) == before
            return
        if model.over:
            with pytest.raises(CheckEndedError):
                call()
            assert snapshot(self.service, check) == before
            return
        trial = model.state.copy()
        error: type[Exception] | None = None
        try:
            if op == "code":
                trial.push_code(code)
            elif op == "undo":
                trial.undo()
            elif op == "concede":
                trial.concede()
        except SkillcheckError as exc:
            error = type(exc)
        if error is not None:
            with pytest.raises(error):
                call()
            assert snapshot(self.service, check) == before
            return
        view = call()
        assert isinstance(trial, ThreeTowersState)
        model.state = trial
        model.version += 1
        model.cancelled = model.cancelled or op == "cancel"
        model.events += 2 if op == "code" and trial.is_terminal() else 1
        if idem is not None:
            model.keys[idem] = ((*request, expected), view)

    @rule(check=checks, pick=st.integers(0, 100))
    def retry(self, check: str, pick: int) -> None:
        """Resend a request that succeeded, with its key: the same view, nothing applied."""
        model = self.models[check]
        if not model.keys:
            return
        key = sorted(model.keys)[pick % len(model.keys)]
        (op, code, expected), view = model.keys[key]
        before = snapshot(self.service, check)
        kwargs: dict[str, Any] = {"expected_version": expected, "idempotency_key": key}
        if op == "code":
            again = self.service.move(check, code, **kwargs)
        elif op == "undo":
            again = self.service.undo(check, **kwargs)
        elif op == "concede":
            again = self.service.concede(check, **kwargs)
        else:
            again = self.service.cancel(check, "stop", **kwargs)
        assert again == view
        assert snapshot(self.service, check) == before

    @invariant()
    def the_service_matches_the_model(self) -> None:
        for check, model in self.models.items():
            view = self.service.view(check)
            assert view.version == model.version
            assert view.observation == converter.unstructure(model.state.observation())
            if model.cancelled:
                assert view.status is CheckStatus.CANCELLED and view.legal_moves == ()
            else:
                assert view.status.value == model.state.status.value
                assert view.outcome == model.state.outcome
                assert view.legal_moves == tuple(m.code for m in model.state.legal_moves)
            events = self.service.events(check)
            assert [e.sequence for e in events] == list(range(1, model.events + 1))
            assert events[-1].version == model.version
            assert sum(e.terminal for e in events) == (1 if model.over else 0)
            if model.over:
                assert self.service.record(check).verify().outcome == model.state.outcome
            else:
                with pytest.raises(RecordNotAvailableError):
                    self.service.record(check)


SessionMachine.TestCase.settings = settings(
    max_examples=100,
    stateful_step_count=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
TestSessionMachine = SessionMachine.TestCase


@pytest.mark.parametrize(
    ("field", "value", "problem"),
    [
        ("label", "a\x00b", "U+0000"),
        ("label", "x" * 201, "at most 200"),
        ("label", 7, "must be text"),
        ("reason", "bell\x07", "U+0007"),
        ("reason", "y" * 1001, "at most 1000"),
    ],
)
def test_labels_and_reasons_are_text_and_bad_ones_change_nothing(
    field: str, value: Any, problem: str
) -> None:
    service = make_service()
    check = service.create(QUOTA, seed=5, label="Mira\tpicks the lock\n").check_id
    before = snapshot(service, check)
    with pytest.raises(ParameterError, match=re.escape(problem)) as caught:
        if field == "label":
            service.create(QUOTA, seed=5, label=value)
        else:
            service.cancel(check, value)
    assert caught.value.parameter == field
    assert snapshot(service, check) == before
