"""Tower of Hanoy (seed 004): the rules sentence by sentence, codes, the solver, stats, the check.

Each test of the rules cites the seed's sentence it checks; each would fail if that rule broke.
"""

from __future__ import annotations

import itertools
import json
import math
import random
from collections import Counter
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from skillcheck import (
    GAMES,
    EndReason,
    IllegalMoveError,
    ParameterError,
    ParseError,
    Status,
    make_game,
)
from skillcheck.cards.standard import PlayingCard
from skillcheck.engine import RESERVED_WORDS
from skillcheck.games.hanoy import Hanoy, HanoyMove, HanoyState, legal_moves_of
from skillcheck.games.hanoy.commands import deal_stats, stats
from skillcheck.games.hanoy.rules import Columns, apply_move
from skillcheck.games.hanoy.search import (
    column_sizes,
    deal_distances,
    distance_distribution,
    shortest_line,
)
from skillcheck.records import GameRecord, verify

S = PlayingCard.parse


def state_of(game: Hanoy, text: str) -> HanoyState:
    """A position from ``"6 2/5 4/3"`` (columns by '/', ranks covered first, '-' for empty)."""
    code = "/".join(
        "".join({"1": "A", "10": "T"}.get(r, r) for r in part.split()) or "-"
        for part in text.split("/")
    )
    return game.state_from_code(f"{code} 0")


def values(columns: Columns) -> list[list[int]]:
    return [[c.value for c in column] for column in columns]


# ---- the seed, sentence by sentence --------------------------------------------------------------


def test_registered_as_hanoy() -> None:
    assert GAMES["hanoy"] is Hanoy
    assert make_game("hanoy") == Hanoy()
    assert Hanoy.deck_name == "standard"


def test_nine_cards_deuce_to_ten_dealt_in_three_columns_of_three_face_up() -> None:
    """Seed: "nine cards, from Deuce to 10 ... are removed from the deck, shuffled and dealt in
    3 columns of three cards each, face up"."""
    game = Hanoy()
    for seed in range(20):
        state = game.new_state(seed)
        assert sorted(c.value for c in state.deal or ()) == list(range(2, 11))
        assert [len(c) for c in state.columns] == [3, 3, 3]
        assert state.hidden_codes() == frozenset()  # face up: nothing is hidden
        board = state.board()
        shown = [code for zone in board.zones for code in zone.cards]
        assert sorted(shown) == sorted(c.code for c in state.deal or ())
        assert None not in shown


def test_ace_to_nine_variant() -> None:
    """Seed: "(or Ace to 9)"."""
    game = Hanoy(ranks="A-9")
    state = game.new_state(7)
    assert sorted(c.value for c in state.deal or ()) == list(range(1, 10))
    assert game.goal_text().startswith("Build one column of all 9 cards in sequence, the 9 ")
    won = game.state_from_code("98765432A/-/- 0")
    assert won.outcome is not None and won.outcome.status is Status.WON
    with pytest.raises(ParseError, match="10"):
        game.state_from_code("T9876543/2/- 0")


def test_the_deal_is_a_shuffle_and_columns_follow_the_documented_order() -> None:
    game = Hanoy()
    deals = {game.deal(seed) for seed in range(50)}
    assert len(deals) == 50  # shuffled
    state = game.new_state(3)
    deal = state.deal or ()
    # column 1 from its covered card to its exposed card, then column 2, then column 3
    assert state.columns == (deal[0:3], deal[3:6], deal[6:9])
    assert game.deal(3) == game.deal(3)


@pytest.mark.parametrize(
    ("cards", "sizes"),
    [(3, (1, 1, 1)), (4, (2, 1, 1)), (5, (2, 2, 1)), (7, (3, 2, 2)), (8, (3, 3, 2))],
)
def test_fewer_cards_are_the_lowest_ranks_dealt_as_evenly_as_possible(
    cards: int, sizes: tuple[int, int, int]
) -> None:
    game = Hanoy(cards=cards)
    assert game.sizes == sizes == column_sizes(cards)
    state = game.new_state(11)
    assert tuple(len(c) for c in state.columns) == sizes
    assert sorted(c.value for c in state.deal or ()) == list(range(2, cards + 2))
    assert sorted(c.value for c in Hanoy(cards=cards, ranks="A-9").deal(1)) == list(
        range(1, cards + 1)
    )


def test_only_one_card_is_moved_at_a_time() -> None:
    """Seed: "Only one card can be moved at a time"."""
    game = Hanoy()
    rng = random.Random(1)
    for seed in range(10):
        state = game.new_state(seed)
        for _ in range(30):
            if state.is_terminal():
                break
            before = state.columns
            move = rng.choice(list(state.legal_moves))
            state.push(move)
            after = state.columns
            moved = [
                len(a) - len(b) for a, b in zip(after, before, strict=True) if len(a) != len(b)
            ]
            assert sorted(moved) == [-1, 1]
    # a code naming more than one card or move is not a move
    for code in ("123", "12 13", "1/3", "1-2-3"):
        with pytest.raises(ParseError):
            game.parse_move(code)


def test_a_card_moves_from_the_exposed_end_to_the_exposed_end() -> None:
    """Seed: "The card must be moved from the bottom of one column to the bottom of another"
    (the seed lays columns overlapping downwards: its "bottom" is the exposed card). Only the
    exposed card moves; it becomes the exposed card of its new column; covered cards stay."""
    game = Hanoy(cards=5)
    state = state_of(game, "6 2/5 4/3")
    state.push_code("32")  # the 3, exposed in column 3, onto the 4 exposed in column 2
    assert values(state.columns) == [[6, 2], [5, 4, 3], []]
    state.push_code("12")  # the 2, exposed in column 1; the 6 it covered stays
    assert values(state.columns) == [[6], [5, 4, 3, 2], []]
    rng = random.Random(2)
    for seed in range(10):
        state = Hanoy().new_state(seed)
        for _ in range(40):
            if state.is_terminal():
                break
            before = state.columns
            move = rng.choice(list(state.legal_moves))
            state.push(move)
            after = state.columns
            source, target = move.source - 1, move.target - 1
            assert after[source] == before[source][:-1]
            assert after[target] == (*before[target], before[source][-1])
            third = 3 - source - target
            assert after[third] == before[third]


def test_the_moved_card_goes_onto_a_card_of_higher_rank() -> None:
    """Seed: "The moved card must be placed under one of higher rank"."""
    game = Hanoy(cards=5)
    state = state_of(game, "6 2/5 4/3")
    code = state.code()
    with pytest.raises(IllegalMoveError, match="cannot go onto the 2 in column 1"):
        state.push_code("21")  # the 4 onto the 2: lower
    assert state.code() == code  # refused: nothing changed
    with pytest.raises(IllegalMoveError, match="higher rank"):
        state.push_code("31")  # the 3 onto the 2
    assert HanoyMove(2, 1) not in state.legal_moves
    state.push_code("13")  # the 2 onto the 3: higher, legal
    state.push_code("21")  # the 4 onto the 6: higher, legal
    assert values(state.columns) == [[6, 4], [5], [3, 2]]


def test_an_empty_column_takes_any_exposed_card() -> None:
    """Seed: "When a column has been emptied, the bottom card from one of the two remaining
    columns may be moved to the top of the vacant column"."""
    game = Hanoy(cards=5)
    state = state_of(game, "6 2/5 3 4/-")
    # the 2 onto the 4, the 2 into the empty column, the 4 into the empty column (whose rank
    # is higher than the 2 it could not go onto)
    assert {m.code for m in state.legal_moves} == {"12", "13", "23"}
    state.push_code("23")
    assert values(state.columns) == [[6, 2], [5, 3], [4]]
    state.undo()
    state.push_code("13")
    assert values(state.columns) == [[6], [5, 3, 4], [2]]
    # the 6, alone in column 1, may move to an empty column too (it changes nothing that matters)
    lone = state_of(game, "6/5 4 3 2/-")
    assert "13" in {m.code for m in lone.legal_moves}


def test_won_when_one_column_holds_every_card_in_sequence() -> None:
    """Seed: "The game is won when all nine cards arranged vertically in one column from the nine
    at the bottom to the ace at the top" (here: 10 covered down to 2 exposed)."""
    game = Hanoy()
    state = game.state_from_code("T98765432/-/- 0")
    assert state.outcome is not None and state.outcome.status is Status.WON
    for column in (1, 2):
        layout = ["-", "-", "-"]
        layout[column] = "T98765432"
        won = game.state_from_code("/".join(layout) + " 0")
        assert won.status is Status.WON
    # all nine cards in one column but not in sequence: not won
    assert game.state_from_code("T98765423/-/- 0").outcome is None
    assert game.state_from_code("98765432T/-/- 0").outcome is None
    # eight in sequence and one elsewhere: not won
    assert game.state_from_code("T9876543/2/- 0").outcome is None
    assert game.state_from_code("T9876543/-/2 0").outcome is None


def test_the_last_move_wins_and_ends_the_check() -> None:
    game = Hanoy()
    state = game.state_from_code("T9876543/2/- 5")
    state.push_code("21")
    assert state.outcome is not None and state.outcome.status is Status.WON
    assert state.outcome.reason is EndReason.GOAL
    assert state.outcome.summary == "success: the tower of 9 cards built in 6 moves"
    assert not list(state.legal_moves)


def test_a_full_column_out_of_order_is_reachable_and_not_a_win() -> None:
    # 2-10, four cards: the 3 and the 5 are dealt in column 1 (the 3 covered)
    game = Hanoy(cards=4)
    state = game.state_from_deal([S("3S"), S("5S"), S("4S"), S("2S")])
    assert values(state.columns) == [[3, 5], [4], [2]]
    state.push_code("21")
    state.push_code("31")
    assert values(state.columns) == [[3, 5, 4, 2], [], []]
    assert state.outcome is None  # every card in one column, not in sequence


def test_legal_moves_are_exactly_the_rule() -> None:
    rng = random.Random(5)
    game = Hanoy()
    for seed in range(30):
        state = game.new_state(seed)
        for _ in range(rng.randrange(40)):
            if state.is_terminal():
                break
            state.push(rng.choice(list(state.legal_moves)))
        if state.is_terminal():
            continue
        columns = state.columns
        expected = {
            (a, b)
            for a in range(1, 4)
            for b in range(1, 4)
            if a != b
            and columns[a - 1]
            and (not columns[b - 1] or columns[b - 1][-1].value > columns[a - 1][-1].value)
        }
        assert {(m.source, m.target) for m in state.legal_moves} == expected
        for a, b in itertools.product(range(1, 4), repeat=2):
            assert state.is_legal(HanoyMove(a, b)) == ((a, b) in expected)


def test_refusals_name_the_rule() -> None:
    game = Hanoy(cards=4)
    state = state_of(game, "5 3/-/4 2")
    with pytest.raises(IllegalMoveError, match="column 2 is empty"):
        state.push_code("21")
    with pytest.raises(IllegalMoveError, match="same column"):
        state.push_code("11")
    with pytest.raises(IllegalMoveError, match="the 3 cannot go onto the 2 in column 3"):
        state.push_code("13")
    assert state.code() == "53/-/42 0"


# ---- codes ---------------------------------------------------------------------------------------


@given(source=st.integers(1, 3), target=st.integers(1, 3))
def test_move_codes_round_trip(source: int, target: int) -> None:
    move = HanoyMove(source, target)
    assert move.code == f"{source}{target}"
    assert Hanoy().parse_move(move.code) == move
    assert move.code not in RESERVED_WORDS
    assert Hanoy().move_json(move) == {"from": source, "to": target}


@given(text=st.text(max_size=6))
def test_malformed_move_codes_raise_parse_errors(text: str) -> None:
    try:
        move = Hanoy().parse_move(text)
    except ParseError:
        return
    assert move.code in {f"{a}{b}" for a in "123" for b in "123"}


@pytest.mark.parametrize("code", ["", "1", "14", "40", "d1", "undo", "1 2 3", "a b"])
def test_bad_move_codes(code: str) -> None:
    with pytest.raises(ParseError, match="two column numbers"):
        Hanoy().parse_move(code)


@settings(max_examples=60, deadline=None)
@given(
    cards=st.integers(3, 9),
    ranks=st.sampled_from(["2-10", "A-9"]),
    skill=st.none() | st.integers(0, 20),
    seed=st.integers(0, 2**40),
    picks=st.lists(st.integers(0, 100), max_size=40),
)
def test_position_and_observation_codes_round_trip(
    cards: int, ranks: str, skill: int | None, seed: int, picks: list[int]
) -> None:
    game = Hanoy(cards=cards, ranks=ranks, skill=skill)
    state = game.new_state(seed)
    for pick in picks:
        moves = list(state.legal_moves)
        if not moves:
            break
        state.push(moves[pick % len(moves)])
    code = state.code()
    again = game.state_from_code(code)
    assert again.code() == code
    assert again.columns == state.columns and again.allowance == state.allowance
    assert again.moves_made == state.moves_made
    assert (again.outcome is None) == (state.outcome is None)
    assert state.observation().code() == code  # nothing is hidden
    assert state.observation().legal_moves() == list(state.legal_moves)


def test_position_code_format() -> None:
    game = Hanoy()
    state = game.state_from_deal(game.parse_deal("2 7 5/9 3 10/4 8 6"))
    assert state.code() == "275/93T/486 0"
    assert game.state_from_code("275/93T/486").code() == "275/93T/486 0"
    assert game.state_from_code("275/9310/486 4").code() == "275/93T/486 4"
    check = Hanoy(skill=3).state_from_deal(state.deal or ())
    minimum = game.minimum_moves(state.columns)
    assert minimum is not None
    assert check.code() == f"275/93T/486 0/{minimum + 3}"


@pytest.mark.parametrize(
    ("code", "message"),
    [
        ("275/93T 0", "2 columns"),
        ("275/93T/486/- 0", "4 columns"),
        ("275/93X/486 0", '"X" is not a rank'),
        ("275/93T/48 0", "missing the 6 of Spades"),
        ("275/93T/4866 0", "twice"),
        ("275/93T/486 x", "move counter"),
        ("275/93T/486 0/12", "not a skill check"),
        ("275/93T/486 1 2", "a position is"),
        ("A75/93T/486 0", "the Ace"),
    ],
)
def test_bad_position_codes(code: str, message: str) -> None:
    with pytest.raises(ParseError, match=message):
        Hanoy().state_from_code(code)


def test_parse_deal_reads_ranks_codes_and_checks_the_layout() -> None:
    game = Hanoy()
    deal = game.parse_deal("2 7 5/9 3 10/4 8 6")
    assert [c.value for c in deal] == [2, 7, 5, 9, 3, 10, 4, 8, 6]
    assert game.parse_deal("2S 7H 5D / 9C 3S TS / 4,8,6") == deal  # suits are ignored
    assert game.parse_deal("2 7 5 9 3 10 4 8 6") == deal  # no '/': deal order
    assert game.state_from_deal(deal).code() == "275/93T/486 0"
    with pytest.raises(ParseError, match="column 1 of the deal has 2 cards"):
        game.parse_deal("2 7/5 9 3 10/4 8 6")
    with pytest.raises(ParseError, match="2 columns"):
        game.parse_deal("2 7 5 9/3 10 4 8 6")
    with pytest.raises(ParseError, match="not a card of this game"):
        game.parse_deal("A 7 5/9 3 10/4 8 6")
    with pytest.raises(ParseError, match='cannot read card "X"'):
        game.parse_deal("X 7 5/9 3 10/4 8 6")
    with pytest.raises(ParseError, match="twice"):
        game.parse_deal("2 2 5/9 3 10/4 8 6")
    small = Hanoy(cards=5, ranks="A-9")
    assert [c.value for c in small.parse_deal("A 5/4 2/3")] == [1, 5, 4, 2, 3]


def test_parameters_are_checked() -> None:
    with pytest.raises(ParameterError, match="cards"):
        Hanoy(cards=10)
    with pytest.raises(ParameterError, match="ranks"):
        Hanoy(ranks="3-11")
    with pytest.raises(ParameterError, match="skill"):
        Hanoy(skill=-1)
    assert Hanoy(ranks="a-9").ranks == "A-9"
    names = [p.name for p in Hanoy.parameters()]
    assert names == ["cards", "ranks", "skill", "undo", "move_limit"]
    examples = Hanoy.examples()
    assert {e.get("ranks", "2-10") for e in examples} == {"2-10", "A-9"}
    assert any(e.get("undo") == "off" for e in examples)
    assert any("move_limit" in e for e in examples)
    assert any("skill" in e for e in examples) and any("skill" not in e for e in examples)


# ---- board and move views ------------------------------------------------------------------------


def test_board_and_move_views() -> None:
    game = Hanoy(cards=5, skill=3)
    state = game.state_from_deal(game.parse_deal("6 2/5 4/3"))
    board = state.board()
    assert [z.id for z in board.zones] == ["c1", "c2", "c3"]
    assert all(z.layout == "stack" for z in board.zones)
    assert board.zone("c1").cards == ("6S", "2S")  # covered first
    minimum = game.minimum_moves(state.columns)
    assert minimum is not None
    meters = {m.id: m for m in board.meters}
    assert meters["moves"].text == f"0 of {minimum + 3} moves"
    assert meters["tower"].text == "1 of 5 cards in sequence"
    assert meters["allowance"].label == "Spare moves"
    assert meters["allowance"].text == f"3 over the fewest ({minimum})"
    views = {v.code: v for v in state.move_views()}
    assert views["13"].text == "the 2 from column 1 onto the 3 in column 3"
    assert (views["13"].source, views["13"].target) == ("c1", "c3")
    state.push_code("13")
    state.push_code("21")
    views = {v.code: v for v in state.move_views()}
    assert [v.code for v in state.move_views()] == [m.code for m in state.legal_moves]
    assert views["31"].text == "the 2 from column 3 onto the 4 in column 1"
    assert {m.id: m.text for m in state.board().meters}["moves"] == f"2 of {minimum + 3} moves"
    plain = Hanoy(cards=5, move_limit=20).state_from_code("6/5/432 7")
    assert {m.id: m.text for m in plain.board().meters}["moves"] == "7 of 20 moves"
    assert {m.id: m.text for m in Hanoy(cards=5).state_from_code("6/5/432 1").board().meters}[
        "moves"
    ] == "1 move"


def test_move_view_sentences() -> None:
    game = Hanoy(cards=5, ranks="A-9")
    state = game.state_from_code("54/-/A32 0")
    texts = {v.code: v.text for v in state.move_views()}
    assert texts == {
        "12": "the 4 from column 1 into empty column 2",
        "32": "the 2 from column 3 into empty column 2",
        "31": "the 2 from column 3 onto the 4 in column 1",
    }


# ---- the solver: breadth-first search ------------------------------------------------------------


def brute_force_minimum(columns: Columns, limit: int) -> int | None:
    """Iterative deepening over the rules' own move generator (not the packed search): the
    fewest moves to a column holding every card in sequence, or None within ``limit``."""

    def won(position: Columns) -> bool:
        full = [c for c in position if c]
        return len(full) == 1 and [c.value for c in full[0]] == sorted(
            (c.value for c in full[0]), reverse=True
        )

    best: dict[Columns, int] = {}

    def search(position: Columns, left: int) -> bool:
        if won(position):
            return True
        if left == 0 or best.get(position, -1) >= left:
            return False
        best[position] = left
        return any(search(apply_move(position, m), left - 1) for m in legal_moves_of(position))

    for depth in range(limit + 1):
        best.clear()
        if search(columns, depth):
            return depth
    return None


@pytest.mark.parametrize("cards", [3, 4, 5])
def test_bfs_minimum_matches_brute_force_on_every_small_deal(cards: int) -> None:
    game = Hanoy(cards=cards)
    for deal in itertools.permutations(game.card_set()):
        columns = game.columns_of(deal)
        minimum = game.minimum_moves(columns)
        assert minimum is not None
        # iterative deepening tries every smaller depth first: equal means none is shorter
        assert brute_force_minimum(columns, minimum) == minimum


def test_bfs_minimum_matches_brute_force_on_sampled_six_card_deals() -> None:
    game = Hanoy(cards=6)
    rng = random.Random(4)
    for _ in range(12):
        deal = list(game.card_set())
        rng.shuffle(deal)
        columns = game.columns_of(deal)
        minimum = game.minimum_moves(columns)
        assert minimum is not None
        if minimum <= 14:
            assert brute_force_minimum(columns, minimum) == minimum


@pytest.mark.parametrize("cards", [3, 5, 7, 9])
def test_solver_lines_replay_to_a_win_in_exactly_the_minimum(cards: int) -> None:
    game = Hanoy(cards=cards)
    solver = game.solver()
    for seed in range(8):
        state = game.new_state(seed)
        solution = solver.solve(state)
        assert solution.result == "win" and solution.minimum
        assert len(solution.moves) == solution.extras["minimum"]
        assert len(solution.moves) == game.minimum_moves(state.columns)
        replay = game.new_state(seed)
        for move in solution.moves:
            assert not replay.is_terminal()
            replay.push(move)
        assert replay.status is Status.WON and replay.moves_made == len(solution.moves)
        assert state.moves_made == 0  # the solver never changes the state


def test_solver_respects_the_allowance_and_the_move_limit() -> None:
    game = Hanoy(cards=6, skill=0)
    state = game.new_state(2)
    minimum = game.minimum_moves(state.columns)
    assert minimum is not None and minimum >= 2 and state.allowance == minimum
    solver = game.solver()
    assert solver.solve(state).result == "win"
    wrong = next(m for m in state.legal_moves if _worse(game, state, m))
    state.push(wrong)  # a move that does not shorten the way: no spare move left for it
    solution = solver.solve(state)
    assert solution.result == "loss" and not solution.moves
    assert game.can_win(state) is False
    assert state.end_if_unwinnable()
    assert state.outcome is not None and state.outcome.reason is EndReason.UNWINNABLE
    limited = Hanoy(cards=6, move_limit=minimum - 1).new_state(2)
    assert solver.solve(limited).result == "loss"
    assert (
        Hanoy(cards=6, move_limit=minimum)
        .solver()
        .solve(Hanoy(cards=6, move_limit=minimum).new_state(2))
        .result
        == "win"
    )


def _worse(game: Hanoy, state: HanoyState, move: HanoyMove) -> bool:
    after = apply_move(state.columns, move)
    before = game.minimum_moves(state.columns)
    now = game.minimum_moves(after)
    return before is not None and now is not None and now >= before


def test_solver_budget_gives_unknown_and_terminal_states() -> None:
    game = Hanoy()
    state = game.new_state(5)
    assert game.solver().solve(state, max_states=10).result == "unknown"
    won = game.state_from_code("T98765432/-/- 3")
    solution = game.solver().solve(won)
    assert solution.result == "win" and solution.moves == ()
    state.concede()
    assert game.solver().solve(state).result == "loss"


# ---- every deal: the stats command ---------------------------------------------------------------


@pytest.mark.parametrize("cards", [3, 4, 5, 6])
def test_stats_agree_with_a_search_per_deal(cards: int) -> None:
    game = Hanoy(cards=cards)
    per_deal: Counter[int] = Counter()
    for deal in itertools.permutations(game.card_set()):
        minimum = game.minimum_moves(game.columns_of(deal))
        assert minimum is not None
        per_deal[minimum] += 1
    result = deal_stats(cards)
    assert result.deals == math.factorial(cards) == sum(per_deal.values())
    assert result.unwinnable == 0
    assert result.distribution == dict(sorted(per_deal.items()))


def test_stats_command_json_and_table() -> None:
    runner = CliRunner()
    out = runner.invoke(stats, ["--cards", "5", "--json", "--quiet"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert data["cards"] == 5 and data["deals"] == 120 and data["unwinnable"] == 0
    assert data["columns"] == [2, 2, 1]
    assert sum(data["distribution"].values()) == 120
    assert data["min"] == 3 and data["max"] == 18
    out = runner.invoke(stats, ["--cards", "4"])
    assert out.exit_code == 0 and "24 deals, 0 cannot be won" in out.output
    assert [c.name for c in Hanoy.commands()] == ["stats"]


def test_backward_search_is_exact_for_positions_deals_reach() -> None:
    distance, deepest = deal_distances(6)
    game = Hanoy(cards=6, ranks="A-9")
    rng = random.Random(9)
    for _ in range(40):
        state = game.new_state(rng.randrange(2**32))
        for _ in range(rng.randrange(30)):
            state.push(rng.choice(list(state.legal_moves)))
            if state.is_terminal():
                break
        key = tuple(sorted(_pack(c) for c in state.columns))
        assert distance[key] == game.minimum_moves(state.columns)  # type: ignore[index]
    counts, unwinnable = distance_distribution(6, distance)
    assert unwinnable == 0 and max(counts) <= deepest


def _pack(column: tuple[PlayingCard, ...]) -> int:
    packed = 0
    for card in column:
        packed = (packed << 4) | card.value
    return packed


@pytest.mark.slow
def test_stats_of_all_nine_card_deals() -> None:
    result = deal_stats(9)
    assert result.deals == 362_880 and result.unwinnable == 0
    assert min(result.distribution) == 6 and max(result.distribution) == 350
    assert result.distribution[6] == 60 and result.distribution[350] == 24
    assert round(result.mean, 3) == 153.034 and result.percentile(0.5) == 147


# ---- the skill check -----------------------------------------------------------------------------


def test_allowance_is_the_minimum_plus_skill() -> None:
    for skill in (0, 1, 7):
        game = Hanoy(cards=6, skill=skill)
        for seed in range(5):
            state = game.new_state(seed)
            minimum = game.minimum_moves(state.columns)
            assert minimum is not None
            assert state.allowance == minimum + skill
            assert state.moves_left == minimum + skill
    assert Hanoy(cards=6).new_state(1).allowance is None


def test_success_within_the_allowance_and_degree_is_moves_to_spare() -> None:
    game = Hanoy(cards=7, skill=4)
    for seed in range(4):
        state = game.new_state(seed)
        line = game.solver().solve(state).moves
        for move in line:
            state.push(move)
        assert state.outcome is not None and state.outcome.success
        assert state.outcome.degree == 4
        assert state.outcome.summary == (
            f"success: the tower of 7 cards built in {len(line)} moves, 4 to spare of the "
            f"allowance of {len(line) + 4}"
        )


def test_using_every_spare_move_still_succeeds_with_degree_zero() -> None:
    game = Hanoy(cards=5, skill=2)
    state = game.state_from_deal(game.parse_deal("6 2/5 4/3"))
    assert state.allowance is not None
    state.push_code("13")
    state.push_code("31")  # two wasted moves: back where it started
    for move in game.solver().solve(state).moves:
        state.push(move)
    assert state.outcome is not None and state.outcome.success and state.outcome.degree == 0
    assert state.moves_made == state.allowance


def test_failure_when_the_allowance_is_used_up_degree_is_moves_still_needed() -> None:
    game = Hanoy(cards=5, skill=1)
    state = game.state_from_deal(game.parse_deal("6 2/5 4/3"))
    allowance = state.allowance
    assert allowance is not None
    while not state.is_terminal():  # the 2 back and forth between the 6 and the 3
        state.push_code("13" if state.is_legal(HanoyMove(1, 3)) else "31")
    outcome = state.outcome
    assert outcome is not None and outcome.reason is EndReason.MOVE_LIMIT
    assert state.moves_made == allowance
    needed = game.minimum_moves(state.columns)
    assert needed is not None and needed > 0
    assert outcome.degree == -needed
    assert outcome.summary == (
        f"failure: the allowance of {allowance} moves is used up; {needed} more "
        f"move{'s' if needed != 1 else ''} would have built the tower"
    )


def test_concession_and_move_limit_degrees() -> None:
    game = Hanoy(cards=6, skill=10)
    state = game.new_state(4)
    minimum = game.minimum_moves(state.columns)
    outcome = state.concede()
    assert outcome.degree == -(minimum or 0)
    assert outcome.summary.startswith("failure: the player conceded after 0 moves;")
    limited = Hanoy(cards=6, skill=10, move_limit=1).new_state(4)
    limited.push(next(iter(limited.legal_moves)))
    assert limited.outcome is not None and limited.outcome.reason is EndReason.MOVE_LIMIT
    assert "the move limit of 1 was reached" in limited.outcome.summary
    plain = Hanoy(cards=6).new_state(4)
    lost = plain.concede()
    assert lost.status is Status.LOST and lost.degree == plain.tower_height
    assert lost.summary.endswith(f"{plain.tower_height} of 6 cards in sequence")
    one = Hanoy(cards=6).new_state(4)
    one.push(next(iter(one.legal_moves)))
    assert "the player conceded after 1 move;" in one.concede().summary  # not "1 moves"
    assert Hanoy(cards=6, move_limit=1).describe().endswith("at most 1 move")


def test_records_of_checks_verify() -> None:
    game = Hanoy(cards=6, skill=2, undo=True)
    state = game.new_state(8)
    state.push(next(iter(state.legal_moves)))
    state.undo()
    for move in game.solver().solve(state).moves:
        state.push(move)
    record = GameRecord.from_json(state.record().to_json())
    assert verify(record).code() == state.code()
    assert record.deal is not None and len(record.deal) == 6


def test_describe_and_goal() -> None:
    assert Hanoy().describe() == "Tower of Hanoy, 9 cards (2 to 10)"
    text = Hanoy(cards=5, ranks="A-9", skill=3, undo=False, move_limit=30).describe()
    assert text == (
        "Tower of Hanoy, 5 cards (Ace to 5), skill check: the deal's minimum + 3 moves, at most "
        "30 moves, no undo"
    )
    assert "plus 3 to spare" in Hanoy(skill=3).goal_text()


def test_odds_preset_is_a_valid_table() -> None:
    from skillcheck.odds import game_from_options

    presets = Hanoy().odds_presets()
    preset = presets["check"]
    assert preset["methods"] == ["perfect", "fast"]
    for cards in preset["axes"]["cards"]:
        for skill in preset["axes"]["skill"]:
            options: dict[str, Any] = {**preset["params"], "cards": cards, "skill": skill}
            assert isinstance(game_from_options("hanoy", options), Hanoy)


def test_shortest_line_depth_bound() -> None:
    game = Hanoy(cards=5)
    state = game.state_from_deal(game.parse_deal("6 2/5 4/3"))
    packed = tuple(_pack(c) for c in state.columns)
    found = shortest_line(packed, game.win_packed)
    assert found.distance == game.minimum_moves(state.columns)
    assert found.distance is not None
    bounded = shortest_line(packed, game.win_packed, depth=found.distance - 1)
    assert bounded.keys is None and bounded.exhausted


def test_a_position_code_at_its_allowance_is_over() -> None:
    game = Hanoy(cards=5, skill=1)
    state = game.state_from_code("62/54/3 6/6")
    assert state.outcome is not None and state.outcome.reason is EndReason.MOVE_LIMIT
    assert state.outcome.summary.startswith("failure: the allowance of 6 moves is used up;")
    won = game.state_from_code("65432/-/- 6/6")
    assert won.outcome is not None and won.outcome.success and won.outcome.degree == 0
    # a check's position without an allowance counts one from here: made + minimum + skill
    fresh = game.state_from_code("62/54/3 2")
    minimum = game.minimum_moves(fresh.columns)
    assert minimum is not None and fresh.allowance == 2 + minimum + 1


def test_a_lost_check_whose_remaining_moves_are_not_counted(monkeypatch: Any) -> None:
    from skillcheck.games.hanoy import rules

    monkeypatch.setattr(rules, "DEGREE_SEARCH_STATES", 1)
    outcome = Hanoy(skill=5).new_state(1).concede()
    assert outcome.degree == -9
    assert outcome.summary.endswith("the moves still needed were not counted (too many positions)")


@pytest.mark.parametrize("cards", [3, 4, 5])
def test_every_arrangement_of_a_few_cards_can_be_won(cards: int) -> None:
    game = Hanoy(cards=cards)
    for order in itertools.permutations(game.card_set()):
        for cut in itertools.combinations_with_replacement(range(cards + 1), 2):
            columns = (order[: cut[0]], order[cut[0] : cut[1]], order[cut[1] :])
            assert game.minimum_moves(columns) is not None


# ---- deals are frozen forever (docs/rng.md, "Stability") ----------------------------------------

GOLDEN_DEALS = [
    ({}, 0, "5S 7S 4S 3S 2S 8S 6S 9S 10S"),
    ({}, 1, "9S 10S 3S 8S 7S 4S 5S 2S 6S"),
    ({}, 1234, "2S 7S 6S 10S 9S 4S 3S 8S 5S"),
    ({"cards": 5, "ranks": "A-9"}, 7, "3S 5S 2S AS 4S"),
]


@pytest.mark.parametrize(("params", "seed", "codes"), GOLDEN_DEALS)
def test_a_seed_deals_the_same_cards_forever(params: dict[str, Any], seed: int, codes: str) -> None:
    game = Hanoy(**params)
    assert " ".join(c.code for c in game.deal(seed)) == codes


def test_the_shipped_odds_never_drop_as_the_allowance_grows() -> None:
    """Every skill 0 to 8 is in one shipped grid, on the same deals: a larger allowance of
    moves wins every deal a smaller one won (neither player looks at it), so a GM turning
    skill up never reads lower odds. (The grid had skills 0, 1, 2, 4, 8...: skill 3 came from
    200 other deals computed on demand, and read 74 % where skill 4 read 70 %.)"""
    from skillcheck.tables import table_file

    path = table_file("hanoy")
    assert path is not None
    (grid,) = json.loads(path.read_text(encoding="utf-8"))["grids"]
    by_cards: dict[int, list[tuple[int, dict[str, Any]]]] = {}
    for cell in grid["cells"]:
        by_cards.setdefault(cell["options"]["cards"], []).append(
            (cell["options"]["skill"], cell["profiles"])
        )
    for cards, cells in by_cards.items():
        skills = [skill for skill, _ in sorted(cells, key=lambda c: c[0])]
        assert skills[:9] == list(range(9)), (cards, skills)
        for profile in ("casual", "ceiling"):
            wins = [p[profile][0] for _, p in sorted(cells, key=lambda c: c[0])]
            assert wins == sorted(wins), (cards, profile, wins)
