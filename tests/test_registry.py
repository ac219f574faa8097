"""The registries: games, decks and each game's analysis (solver, bots, odds presets)."""

from __future__ import annotations

import pytest

import skillcheck
from skillcheck.board import Board, MoveView, Zone
from skillcheck.cards import DECKS, deck_named
from skillcheck.engine import GAMES, PARAMETER_KINDS, ParameterSpec
from skillcheck.errors import UnknownDeckError, UnknownGameError
from skillcheck.registry import analysis_of, game_class
from skillcheck.serialization import game_from_params, game_params


def test_games_register_on_import_and_unknown_names_are_refused_with_the_list() -> None:
    assert "three-towers" in skillcheck.GAMES
    with pytest.raises(UnknownGameError, match=r"the games are .*three-towers"):
        game_class("chess")


def test_decks_are_a_registry_and_each_parses_its_own_codes() -> None:
    assert {"decktet", "standard"} <= set(DECKS)
    assert deck_named("decktet").parse("AS").name == "the Ace of Suns"
    assert deck_named("standard").parse("AS").name == "Ace of Spades"
    with pytest.raises(UnknownDeckError, match="the decks are decktet, standard"):
        deck_named("tarot")


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_game_declares_what_front_ends_need(name: str) -> None:
    cls = GAMES[name]
    assert cls.title and cls.summary and cls.deck_name in DECKS
    specs = cls.parameters()
    assert all(isinstance(s, ParameterSpec) and s.kind in PARAMETER_KINDS for s in specs)
    names = [s.name for s in specs]
    assert len(set(names)) == len(names)
    examples = cls.examples()
    assert examples, "a game gives at least one example parameter set"
    for params in examples:
        game = game_from_params(name, params)
        assert game_from_params(name, game_params(game)) == game
        state = game.new_state(seed=7)
        board = game.board(state.observation())
        assert isinstance(board, Board) and board.goal == game.goal_text()
        assert all(isinstance(z, Zone) for z in board.zones)
        views = state.move_views()
        assert all(isinstance(v, MoveView) for v in views)
        assert [v.code for v in views] == [m.code for m in state.legal_moves]


def test_analysis_modules_register_solver_bots_and_presets_without_the_rules_importing_them() -> (
    None
):
    analysis = analysis_of("three-towers")
    assert analysis.solver is not None
    assert {"fast", "strong"} <= set(analysis.bots)
    game = skillcheck.ThreeTowers()
    assert list(game.bots())[-1] == "random"
    assert set(game.odds_presets()) == {"quota", "standard"}
    assert analysis_of("no-such-game").solver is None


def test_flat_options_build_the_structured_parameters() -> None:
    cls = GAMES["three-towers"]
    assert cls.params_from_options({"suit": "moons", "skill": 5, "quota": 4}) == {
        "variant": {"kind": "quota", "suit": "moons", "skill": 5, "quota": 4}
    }
    assert cls.params_from_options({"suit": "waves", "level": 6}) == {
        "level": 6,
        "variant": {"kind": "ivory", "suit": "waves"},
    }
    assert cls.params_from_options({"level": None, "undo": False}) == {"undo": False}
