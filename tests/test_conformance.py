"""One conformance test that every registered game runs (OpenSpiel style).

It uses only the generic Game/State interface, so a new game that registers itself is checked
for the contract every front end (CLI, API, bots) relies on.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from skillcheck import GAMES, Game, IllegalMoveError, State, game_class
from skillcheck.records import GameRecord, verify
from skillcheck.serialization import game_from_params, game_params


def _games() -> list[Game[Any]]:
    return [cls() for cls in GAMES.values()]


def _random_playout(state: State[Any], rng: random.Random, steps: int) -> None:
    for _ in range(steps):
        if state.is_terminal():
            return
        moves = list(state.legal_moves)
        before = state.code()
        if state.moves and rng.random() < 0.15 and state.game.undo:
            state.undo()
            continue
        move = rng.choice(moves)
        assert move in state.legal_moves
        assert state.game.parse_move(move.code) == move
        state.push(move)
        if not state.is_terminal() and state.game.undo:
            state.undo()
            assert state.code() == before
            state.push(move)


@pytest.mark.parametrize("game", _games(), ids=lambda g: g.name)
def test_registry_parameters_and_params_round_trip(game: Game[Any]) -> None:
    assert game_class(game.name) is type(game)
    specs = type(game).parameters()
    assert specs and all(spec.help for spec in specs)
    assert game_from_params(game.name, game_params(game)) == game
    assert repr(game).startswith(type(game).__name__ + "(")


@pytest.mark.parametrize("game", _games(), ids=lambda g: g.name)
@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4])
def test_generic_contract(game: Game[Any], seed: int) -> None:
    first, second = game.new_state(seed), game.new_state(seed)
    assert first.code() == second.code()
    assert game.deal(seed) == first.deal
    assert game.state_from_code(first.code()).code() == first.code()

    rng = random.Random(seed)
    state = game.new_state(seed)
    _random_playout(state, rng, 60)
    # Full position codes round-trip at any point.
    assert game.state_from_code(state.code()).code() == state.code()
    # The legal-move view is consistent: len, iteration and `in` agree.
    moves = list(state.legal_moves)
    assert len(state.legal_moves) == len(moves)
    assert all(m in state.legal_moves for m in moves)
    # An illegal move is refused and changes nothing.
    if not state.is_terminal():
        code = state.code()
        illegal = next((m for m in _candidate_moves(state) if m not in state.legal_moves), None)
        if illegal is not None:
            with pytest.raises(IllegalMoveError):
                state.push(illegal)
            assert state.code() == code
        state.concede()
    assert state.is_terminal() and state.outcome is not None
    assert not list(state.legal_moves)
    # The record replays and verifies, through JSON.
    record = GameRecord.from_json(state.record().to_json())
    assert verify(record).code() == state.code()


def _candidate_moves(state: State[Any]) -> list[Any]:
    """Moves of the right type that may or may not be legal: every code of length 2."""
    found = []
    for a in "d123456789":
        for b in "123456789":
            try:
                found.append(state.game.parse_move(a + b))
            except Exception:
                continue
    return found
