"""The three undo policies (docs/rules.md, "Undo"): off, safe and full, for each game, through the
session service, the CLI, records old and new, and a stateful property test that under "safe" no
line of moves and take-backs shows the player a card and then takes back the move that showed it.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from click.testing import CliRunner
from conformance_support import CardScanner, build, cases, seen_by_player
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from skillcheck import GAMES, Hanoy, ParameterError, ThreeTowers, UndoError
from skillcheck.cli import main
from skillcheck.engine import UNDO_OFF, UNDO_REVEALED, State, UndoPolicy
from skillcheck.errors import GameOverError
from skillcheck.games.tripeaks.rules import Tripeaks
from skillcheck.records import GameRecord, verify
from skillcheck.schema import check_params
from skillcheck.serialization import game_from_params, game_params
from skillcheck.sessions import (
    CheckConfig,
    InMemoryCheckStore,
    RevealedRecord,
    SessionService,
    StoredCheck,
    compute_commitment,
)

QUOTA = {"kind": "quota", "suit": "moons", "skill": 5, "quota": 4}


def deck_then_tower(policy: str) -> State[Any]:
    """A Three Towers quota check after d1 (turns up the next card), d2, then 12 (a tower
    move: the 2nd card onto the 1st, if it fits; otherwise a move between towers that does)."""
    game = game_from_params("three-towers", {"variant": QUOTA, "undo": policy})
    for seed in range(200):
        state = game.new_state(seed)
        state.push_code("d1")
        state.push_code("d2")
        tower = [m for m in state.legal_moves if m.code[0] != "d"]
        if tower and not state.is_terminal():
            state.push(tower[0])
            if not state.is_terminal():
                return state
    raise AssertionError("no seed with a tower move after two deck moves")


# ---- the policy as a parameter ----------------------------------------------------------------


def test_the_policy_is_a_choice_and_old_switches_still_read() -> None:
    assert [p.value for p in UndoPolicy] == ["off", "safe", "full"]
    assert ThreeTowers().undo is UndoPolicy.SAFE
    assert ThreeTowers.quota_check("moons", 5, 4).undo is UndoPolicy.SAFE
    assert ThreeTowers(undo="full").undo is UndoPolicy.FULL
    # Records written when undo was a switch: true was "any move", false "none".
    assert game_from_params("three-towers", {"undo": True}).undo is UndoPolicy.FULL
    assert game_from_params("hanoy", {"undo": False}).undo is UndoPolicy.OFF
    assert game_params(ThreeTowers(undo=True))["undo"] == "full"
    with pytest.raises(ParameterError, match="undo is one of off, safe, full") as caught:
        ThreeTowers(undo="maybe")
    assert caught.value.parameter == "undo"


@pytest.mark.parametrize("value", [True, False, "false", "true", 1, None, "SAFE"])
@pytest.mark.parametrize("name", list(GAMES))
def test_the_edges_take_only_the_three_names(name: str, value: Any) -> None:
    """The strict check of the API and the GM page: a JSON boolean (or anything but the three
    names) is refused, naming the three values; it is never read as a switch there."""
    with pytest.raises(ParameterError, match="one of off, safe, full") as caught:
        check_params(GAMES[name], {"undo": value})
    assert caught.value.parameter == "undo"
    for policy in UndoPolicy:
        check_params(GAMES[name], {"undo": policy.value})


# ---- each game under each policy ----------------------------------------------------------------


def test_three_towers_safe_takes_back_tower_moves_only() -> None:
    state = deck_then_tower("safe")
    assert not state.last_move_revealed() and state.can_undo
    state.undo()  # the tower move revealed nothing
    assert state.moves_made == 2 and state.last_move_revealed()
    assert not state.can_undo and state.undo_refusal() == UNDO_REVEALED
    before = state.code()
    with pytest.raises(UndoError, match="the last move turned up a hidden card; this check allows "
                       "undo only for moves that reveal nothing"):  # fmt: skip
        state.undo()
    assert state.code() == before and state.history[-1] == "undo" and state.undo_count == 1


def test_three_towers_full_takes_back_everything_and_off_nothing() -> None:
    state = deck_then_tower("full")
    for _ in range(3):
        assert state.can_undo
        state.undo()
    assert state.moves_made == 0 and not state.can_undo
    # the refusal says what happened: moves were made and all taken back, not "none made yet"
    assert state.undo_refusal() == "nothing to undo: every move made has been taken back"
    fresh = deck_then_tower("full").game.new_state(0)
    assert fresh.undo_refusal() == "nothing to undo: no move has been made yet"
    strict = deck_then_tower("off")
    assert not strict.can_undo and strict.undo_refusal() == UNDO_OFF
    with pytest.raises(UndoError, match="switched off"):
        strict.undo()


def test_the_last_card_of_the_deck_reveals_nothing() -> None:
    """A deck move that leaves no card under the top turns nothing up: safe takes it back."""
    game = ThreeTowers(level=2, spaces=3, undo="safe")  # three cards: 2 of three suit pairs
    state = game.new_state(4)
    state.push_code("d1")
    assert state.last_move_revealed()  # the second card came up
    state.push_code("d2")
    assert state.last_move_revealed()  # the third card came up
    state.push_code("d3")
    assert state.is_terminal() or not state.last_move_revealed()


def test_hanoy_hides_nothing_so_safe_is_full() -> None:
    for policy in ("safe", "full"):
        state = Hanoy(cards=5, skill=2, undo=policy).new_state(1)
        for code in ("21", "23"):
            if not state.is_terminal():
                state.push_code(code)
        while state.moves and not state.is_terminal():
            assert state.can_undo and not state.last_move_revealed()
            state.undo()
        assert state.moves_made == 0


def _face_down(state: State[Any]) -> int:
    return sum(1 for card, here in zip(state.observation().peaks, state.observation().present,
                                       strict=True) if here and card is None)  # fmt: skip


def test_tripeaks_safe_refuses_the_stock_and_a_card_turned_up() -> None:
    game = Tripeaks(undo="safe")
    # Seed 12 offers 18 and 19: playing 19 leaves 9 and 10 covered (18 and 20 still lie there).
    state = game.new_state(12)
    assert {"18", "19"} <= {m.code for m in state.legal_moves}
    down = _face_down(state)
    state.push_code("19")
    assert _face_down(state) == down and state.can_undo
    state.undo()
    state.push_code("s")  # the stock's top card turns up on the waste
    assert not state.can_undo and state.undo_refusal() == UNDO_REVEALED
    # A play that turns a face-down card up (found by what the player sees) cannot be undone.
    for seed in range(300):
        state = game.new_state(seed)
        for move in list(state.legal_moves):
            if move.code == "s":
                continue
            trial = state.copy()
            trial.push(move)
            for second in list(trial.legal_moves):
                if second.code == "s" or trial.is_terminal():
                    continue
                again = trial.copy()
                again.push(second)
                if again.is_terminal() or _face_down(again) == _face_down(trial):
                    continue
                assert not again.can_undo and again.undo_refusal() == UNDO_REVEALED
                assert trial.can_undo  # the first play turned nothing up
                full = again.copy()
                full.game = game.evolve(undo="full")
                assert full.can_undo
                return
    raise AssertionError("no line turns a face-down card up")


def test_tritowers_deals_the_peaks_face_up_so_safe_takes_back_plays() -> None:
    state = Tripeaks(rules="tritowers", undo="safe").new_state(12)
    plays = [m for m in state.legal_moves if m.code != "s"]
    assert plays
    state.push(plays[0])
    assert state.is_terminal() or state.can_undo


# ---- under "safe" nothing seen is ever taken back: a stateful property test ---------------------


class SafeUndo(RuleBasedStateMachine):
    """Random games of every registered game (its examples, undo forced to safe), random moves
    and take-backs. What the player is shown is read from everything a front end receives (the
    card scanner of the conformance suite), not from ``hidden_codes``: a move that shows a card
    that was hidden at the start and never shown before must never be taken back."""

    @initialize(case=st.sampled_from([c.values for c in cases()]), seed=st.integers(0, 2**32))
    def start(self, case: tuple[str, dict[str, Any]], seed: int) -> None:
        name, params = case
        self.game = build(name, params).evolve(undo=UndoPolicy.SAFE)
        self.state = self.game.new_state(seed)
        self.scanner = CardScanner(self.game)
        self.hidden_at_start = set(self.state.hidden_codes())
        self.ever_shown = self._shown()
        self.showed: list[set[str]] = []  # per move on the stack: cards it showed first

    def _shown(self) -> set[str]:
        data = seen_by_player(self.state)
        return self.scanner.codes_in(data) & self.hidden_at_start

    @rule(pick=st.integers(0, 10_000))
    def move(self, pick: int) -> None:
        if self.state.is_terminal():
            return
        moves = list(self.state.legal_moves)
        self.state.push(moves[pick % len(moves)])
        new = self._shown() - self.ever_shown
        self.ever_shown |= new
        self.showed.append(new)

    @rule()
    def undo(self) -> None:
        allowed = self.state.can_undo
        if not allowed:
            # refused by the policy (UndoError), or the check is over (GameOverError): either
            # way typed, and nothing is taken back
            before = self.state.code()
            with pytest.raises(UndoError if not self.state.is_terminal() else GameOverError):
                self.state.undo()
            assert self.state.code() == before
            return
        shown_by_it = self.showed.pop()
        assert not shown_by_it, f"took back a move that showed {sorted(shown_by_it)}"
        self.state.undo()

    @invariant()
    def one_entry_per_move_on_the_stack(self) -> None:
        if hasattr(self, "state"):
            assert len(self.showed) == len(self.state.moves)


SafeUndo.TestCase.settings = settings(
    max_examples=60,
    stateful_step_count=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
test_safe_undo_never_takes_back_a_move_that_showed_a_card = SafeUndo.TestCase


# ---- the session service: can_undo tells the truth ----------------------------------------------


@pytest.mark.parametrize("policy", ["off", "safe", "full"])
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), picks=st.lists(st.integers(-1, 50), max_size=25))
def test_the_view_says_whether_undo_would_be_accepted(
    policy: str, seed: int, picks: list[int]
) -> None:
    service = SessionService()
    check = service.create("three-towers", {"variant": QUOTA, "undo": policy}, seed=seed).check_id
    view = service.view(check)
    for pick in picks:
        if view.is_over:
            break
        if pick >= 0:
            view = service.move(check, view.legal_moves[pick % len(view.legal_moves)])
            continue
        if view.can_undo:
            view = service.undo(check)
        else:
            version = view.version
            with pytest.raises(UndoError) as caught:
                service.undo(check)
            assert caught.value.code == "undo-not-allowed"
            assert service.view(check).version == version  # refused: nothing changed
            if policy == "safe" and view.moves_made:
                assert str(caught.value) == UNDO_REVEALED


def test_a_stored_check_from_before_the_policies_still_loads() -> None:
    """A check stored with ``"undo": false`` (a switch) replays, refuses undo, and its revealed
    record verifies against the commitment made over those very parameters."""
    store = InMemoryCheckStore()
    params = {**game_params(ThreeTowers(level=5)), "undo": False}
    commitment = compute_commitment("three-towers", params, 7, "ab" * 16)
    config = CheckConfig("three-towers", params)
    store.create(StoredCheck("old", config, 7, "ab" * 16, commitment, _now()), [])
    service = SessionService(store)
    view = service.move("old", "d1")
    assert not view.can_undo and view.params["undo"] is False
    with pytest.raises(UndoError, match="switched off"):
        service.undo("old")
    service.concede("old")
    revealed = service.record("old")
    assert revealed.record.params["undo"] is False
    again = RevealedRecord.from_json(revealed.to_json())
    assert again.verify().outcome is not None


def _now() -> Any:
    from datetime import UTC, datetime

    return datetime(2026, 1, 1, tzinfo=UTC)


@pytest.mark.parametrize(("switch", "undo_ok"), [(True, True), (False, False)])
def test_old_records_with_an_undo_switch_replay_and_verify(switch: bool, undo_ok: bool) -> None:
    state = ThreeTowers(level=5, undo="full").new_state(3)
    state.push_code("d1")
    if undo_ok:
        state.undo()
        state.push_code("d2")
    state.concede()
    data = state.record().to_dict()
    data["params"]["undo"] = switch
    for key in ("tier", "tiers"):  # written before tiers existed, too
        data.pop(key)
    record = GameRecord.from_json(json.dumps(data))
    replayed = verify(record)
    assert replayed.outcome == state.outcome and replayed.game.undo_policy is (
        UndoPolicy.FULL if switch else UndoPolicy.OFF
    )


# ---- the command line: the option is generated from the parameter spec ----------------------


def test_the_cli_takes_undo_safe_full_and_off() -> None:
    runner = CliRunner()
    args = ["play", "three-towers", "--suit", "moons", "--skill", "5", "--quota", "4"]
    args += ["--seed", "3"]
    safe = runner.invoke(main, [*args, "--undo", "safe"], input="d1\nu\nq\ny\n")
    assert safe.exit_code == 0, safe.output
    assert "turned up a hidden card" in " ".join(safe.stdout.split())
    full = runner.invoke(main, [*args, "--undo", "full"], input="d1\nu\nq\ny\n")
    assert full.exit_code == 0 and "Took back d1" in full.stdout
    bad = runner.invoke(main, [*args, "--undo", "sometimes"])
    assert bad.exit_code != 0 and "off, safe, full" in " ".join(bad.output.split())
