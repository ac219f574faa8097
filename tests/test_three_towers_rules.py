"""Three Towers, rule by rule: one or more tests per sentence of the seed document.

Seed: /work/shared/seeds/000_893a51a70fb8e264.txt ("Three Towers", by Maginobi). Each rule test is
named after its sentence and quotes it in its docstring. The second half of the file covers the
engine behaviour the rules rely on (parameters, losing, undo, rejected moves, errors, degree).

Positions are written as position codes: towers bottom card first, separated by "/", "-" for an
empty tower or deck; then the deck, top card first; then the number of moves made.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Callable

import pytest

from skillcheck import (
    DECK,
    NUMERALS,
    Card,
    EndReason,
    GameOverError,
    IllegalMoveError,
    Ivory,
    ParameterError,
    ParseError,
    Quota,
    Rank,
    RuleError,
    SkillcheckError,
    Status,
    Suit,
    ThreeTowers,
    ThreeTowersState,
    TowerMove,
    UndoError,
    UnknownSuitError,
    card,
    level_deck,
)
from skillcheck.serialization import game_from_params, game_params

Solver = Callable[[ThreeTowersState], list[TowerMove] | None]  # the ``solve`` fixture

LOWER = "a card must be lower than the card it goes on"
SHARE = "a card must share a suit with the card it goes on"


# ---- helpers -------------------------------------------------------------------------------------


def cards_of(code: str) -> list[Card]:
    """Cards from codes separated by spaces: ``cards_of("9MS 8MS")``."""
    return [Card.parse(c) for c in code.split()]


def cards_of_tuple(code: str) -> tuple[Card, ...]:
    return tuple(cards_of(code))


def numeral_ranks(cards: object) -> list[int]:
    return [int(c.rank) for c in cards]  # type: ignore[attr-defined]


def towers_are_well_built(towers: tuple[tuple[Card, ...], ...]) -> bool:
    """Each tower strictly descending, each card sharing a suit with the card below it."""
    for tower in towers:
        for below, above in itertools.pairwise(tower):
            if not (above.rank < below.rank and set(above.suits) & set(below.suits)):
                return False
    return True


def expected_moves(state: ThreeTowersState) -> set[tuple[int, int]]:
    """The legal moves by the seed's turn and placement rules, computed independently."""
    towers = state.towers
    sources: list[tuple[int, Card]] = []
    if state.remaining_deck:
        sources.append((DECK, state.remaining_deck[0]))
    sources += [(n, t[-1]) for n, t in enumerate(towers, 1) if t]
    moves = set()
    for source, moving in sources:
        for target, tower in enumerate(towers, 1):
            if target == source:
                continue
            if not tower or (
                moving.rank < tower[-1].rank and set(moving.suits) & set(tower[-1].suits)
            ):
                moves.add((source, target))
    return moves


def move_set(state: ThreeTowersState) -> set[tuple[int, int]]:
    return {(m.source, m.target) for m in state.legal_moves}


def final_arrangements(level: int) -> list[tuple[tuple[Card, ...], ...]]:
    """Every way to split the numerals 2..level into three towers that end a won game.

    Brute force over card data only (not the rules engine): the three cards of the top rank
    start the three towers (their order does not matter), then each lower rank's three cards
    are placed one per tower in each of the 3! orders that keep every card sharing a suit with
    the card below it.
    """
    by_rank = {r: [c for c in NUMERALS if c.rank == Rank(r)] for r in range(2, level + 1)}
    found: list[tuple[tuple[Card, ...], ...]] = []

    def extend(rank: int, towers: list[list[Card]]) -> None:
        if rank < 2:
            found.append(tuple(tuple(t) for t in towers))
            return
        for order in itertools.permutations(by_rank[rank]):
            if all(set(c.suits) & set(t[-1].suits) for c, t in zip(order, towers, strict=True)):
                extend(rank - 1, [[*t, c] for c, t in zip(order, towers, strict=True)])

    extend(level - 1, [[c] for c in by_rank[level]])
    return found


def pure_suits(tower: tuple[Card, ...]) -> set[Suit]:
    return {s for s in Suit if all(s in c.suits for c in tower)}


def position_code(towers: tuple[tuple[Card, ...], ...], spaces: int, deck: str = "-") -> str:
    parts = ["".join(c.code for c in t) for t in towers]
    parts += ["-"] * (spaces - len(parts))
    return "/".join(parts) + f" {deck} 0"


# ---- Setup ---------------------------------------------------------------------------------------


def test_setup_remove_aces_crowns_pawns_courts() -> None:
    """“Remove the Aces, Crowns, Pawns, and Courts from the deck and shuffle.”"""
    game = ThreeTowers()
    deck = game.deck()
    assert len(deck) == 24
    assert set(deck) == set(NUMERALS)
    removed = (Rank.ACE, Rank.CROWN, Rank.PAWN, Rank.COURT)
    for seed in (0, 1, 2**53 - 1):
        deal = game.deal(seed)
        assert len(deal) == 24
        assert not [c for c in deal if c.rank in removed or c.rank is None]
        assert Counter(c.rank for c in deal) == Counter({Rank(r): 3 for r in range(2, 10)})


@pytest.mark.parametrize("removed", ["AM", "XS", "PMSL", "CMWK", "E"])
def test_setup_removed_cards_cannot_be_dealt(removed: str) -> None:
    """“Remove the Aces, Crowns, Pawns, and Courts from the deck and shuffle.”"""
    game = ThreeTowers()
    deal = [*game.deal(5)[:-1], Card.parse(removed)]
    with pytest.raises(ParseError):
        game.state_from_deal(deal)


def test_setup_shuffle() -> None:
    """“Remove the Aces, Crowns, Pawns, and Courts from the deck and shuffle.”"""
    game = ThreeTowers()
    canonical = game.deck()
    deals = [game.deal(seed) for seed in range(20)]
    for deal in deals:
        assert sorted(deal, key=lambda c: c.index) == list(canonical)
    assert len(set(deals)) == 20  # 24! orders: twenty seeds giving a repeat would be no shuffle
    assert canonical not in deals
    assert game.deal(7) == game.deal(7)


def test_setup_a_deal_must_be_the_whole_shuffled_deck() -> None:
    """“Remove the Aces, Crowns, Pawns, and Courts from the deck and shuffle.”

    The deck in play is all the remaining cards: a "deal" that leaves numerals out is not a
    shuffle of that deck and must be refused, or a record could claim a game on a short deck.
    """
    game = ThreeTowers()
    deal = game.deal(3)
    assert game.state_from_deal(deal).cards_left == 24
    with pytest.raises(SkillcheckError):
        game.state_from_deal(deal[:-1])
    with pytest.raises(SkillcheckError):
        game.state_from_deal(deal[:1])


# ---- Game play -----------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(6))
def test_goal_towers_descend_and_share_suits_by_moves_that_keep_the_rules(seed: int) -> None:
    """“The goal of this game is to arrange the deck into three towers of descending rank where
    each card shares at least one suit with the card below it by making moves that keep the same
    rules.”"""
    game = ThreeTowers(level=6 + seed % 4, spaces=3 + seed % 4)
    state = game.new_state(seed)
    rng = random.Random(seed)
    steps = 0
    while state.legal_moves and steps < 300:
        before = state.towers
        state.push(rng.choice(list(state.legal_moves)))
        steps += 1
        assert towers_are_well_built(state.towers), (before, state.towers)
    assert steps > 5


def test_five_empty_tower_spaces() -> None:
    """“There are 5 empty tower spaces in front of you where you can build your towers.”"""
    game = ThreeTowers()
    assert game.spaces == 5
    state = game.new_state(11)
    assert state.towers == ((), (), (), (), ())
    assert state.observation().towers == ((), (), (), (), ())
    assert {m.target for m in state.legal_moves} == {1, 2, 3, 4, 5}
    with pytest.raises(IllegalMoveError, match="no tower 6"):
        state.push(TowerMove(DECK, 6))


@pytest.mark.parametrize("seed", [0, 1, 99])
def test_start_place_the_top_card_into_one_of_the_spaces(seed: int) -> None:
    """“To start the game, flip over the top card of the deck and place it into one of the 5
    tower spaces, then flip over a new card and leave it on top of the deck.”"""
    game = ThreeTowers()
    state = game.new_state(seed)
    deal = game.deal(seed)
    assert state.top_card == deal[0]
    assert move_set(state) == {(DECK, n) for n in range(1, 6)}
    for source in range(1, 6):
        with pytest.raises(IllegalMoveError, match="empty"):
            state.push(TowerMove(source, 1 + source % 5))
    state.push_code("d3")
    assert state.towers == ((), (), (deal[0],), (), ())


def test_start_then_flip_a_new_card_and_leave_it_on_top_of_the_deck() -> None:
    """“To start the game, flip over the top card of the deck and place it into one of the 5
    tower spaces, then flip over a new card and leave it on top of the deck.”"""
    game = ThreeTowers()
    deal = game.deal(21)
    state = game.new_state(21)
    state.push_code("d1")
    assert state.top_card == deal[1]
    assert state.observation().top_card == deal[1]
    assert state.cards_left == 23
    assert state.remaining_deck == deal[1:]


@pytest.mark.parametrize("seed", [0, 5, 12345])
def test_start_only_the_top_card_of_the_deck_is_visible(seed: int) -> None:
    """“To start the game, flip over the top card of the deck and place it into one of the 5
    tower spaces, then flip over a new card and leave it on top of the deck.”"""
    game = ThreeTowers()
    state = game.new_state(seed)
    rng = random.Random(seed)
    for _ in range(8):
        obs = state.observation()
        hidden = state.remaining_deck[1:]
        assert obs.top_card == state.remaining_deck[0]
        assert obs.cards_left == len(state.remaining_deck)
        text = obs.code() + repr(obs)
        for c in hidden:
            assert c.code not in text
        state.push(rng.choice(list(state.legal_moves)))


def test_turn_move_the_top_card_from_one_tower_space_to_another() -> None:
    """“Each turn, you may either move the top card from one tower space to another tower space
    or move the card on top of the deck to a tower space and flip over the new top card of the
    deck.”"""
    game = ThreeTowers()
    state = game.state_from_code("9MS8MS4MS/7SK/-/-/- 6MW5ML 3")
    state.push_code("13")  # the Mountain (4, Moons Suns): tower 1's top card, to empty tower 3
    assert state.towers[0] == cards_of_tuple("9MS 8MS")
    assert state.towers[2] == cards_of_tuple("4MS")
    assert state.remaining_deck == cards_of_tuple("6MW 5ML")  # the deck did not move
    state.push_code("32")  # the Mountain onto the Castle (7, Suns Knots): shares Suns
    assert state.towers == (
        cards_of_tuple("9MS 8MS"),
        cards_of_tuple("7SK 4MS"),
        (),
        (),
        (),
    )
    # only the top card of a tower moves: the Pact (9) under the Diplomat never leaves tower 1
    assert all(m.source != 1 or state.card_to_move(m) == card("8MS") for m in state.legal_moves)


def test_turn_move_the_deck_card_to_a_tower_and_flip_the_next() -> None:
    """“Each turn, you may either move the top card from one tower space to another tower space
    or move the card on top of the deck to a tower space and flip over the new top card of the
    deck.”"""
    game = ThreeTowers()
    state = game.state_from_code("9MS/-/-/-/- 8MS7SK6MW 1")
    state.push_code("d1")
    assert state.towers[0] == cards_of_tuple("9MS 8MS")
    assert state.top_card == card("7SK")
    assert state.cards_left == 2


@pytest.mark.parametrize("seed", range(5))
def test_turn_the_legal_moves_are_exactly_those_two_kinds(seed: int) -> None:
    """“Each turn, you may either move the top card from one tower space to another tower space
    or move the card on top of the deck to a tower space and flip over the new top card of the
    deck.”"""
    state = ThreeTowers(level=7, spaces=4).new_state(seed)
    rng = random.Random(seed)
    for _ in range(60):
        if state.is_terminal():
            break
        assert move_set(state) == expected_moves(state)
        state.push(rng.choice(list(state.legal_moves)))


def test_turn_cards_never_go_back_onto_the_deck() -> None:
    """“Each turn, you may either move the top card from one tower space to another tower space
    or move the card on top of the deck to a tower space and flip over the new top card of the
    deck.”"""
    state = ThreeTowers().state_from_code("9MS/-/-/-/- 8MS7SK 1")
    with pytest.raises(IllegalMoveError, match="deck"):
        state.push(TowerMove(1, DECK))
    assert all(m.target != DECK for m in state.legal_moves)


def test_placement_rules_apply_to_deck_moves_and_tower_moves_alike() -> None:
    """“Always follow these placement rules:”"""
    game = ThreeTowers()
    for below, above in itertools.permutations(NUMERALS, 2):
        from_deck = game.state_from_code(f"{below.code}/-/-/-/- {above.code} 1")
        from_tower = game.state_from_code(f"{below.code}/{above.code}/-/-/- - 2")
        assert (TowerMove(DECK, 1) in from_deck.legal_moves) is (
            TowerMove(2, 1) in from_tower.legal_moves
        ), (above, below)


def test_placement_must_share_a_suit() -> None:
    """“A card must share at least one suit with the card it is placed on top of.”"""
    game = ThreeTowers()
    # the Desert (2, Suns Wyrms) on the Journey (3, Moons Waves): lower, but no suit in common
    state = game.state_from_code("3MW/-/-/-/- 2SY 1")
    before = state.code()
    with pytest.raises(IllegalMoveError) as info:
        state.push_code("d1")
    assert SHARE in str(info.value)
    assert state.code() == before
    # the Author (2, Moons Knots) shares Moons with the Journey: allowed
    state = game.state_from_code("3MW/-/-/-/- 2MK 1")
    state.push_code("d1")
    assert state.towers[0] == cards_of_tuple("3MW 2MK")


def test_placement_empty_spaces_accept_cards_of_any_suit() -> None:
    """“(Empty spaces accept cards of any suit)”"""
    game = ThreeTowers()
    for c in NUMERALS:
        # every empty space takes it, whatever its suits
        state = game.state_from_code(f"-/-/-/-/- {c.code} 0")
        for target in range(1, 6):
            assert TowerMove(DECK, target) in state.legal_moves
        # next to a card it cannot go on, the empty spaces still take it
        other = next(o for o in NUMERALS if o.rank == c.rank and o != c)
        state = game.state_from_code(f"{other.code}/-/-/-/- {c.code} 1")
        assert TowerMove(DECK, 1) not in state.legal_moves  # same rank: never allowed
        assert TowerMove(DECK, 2) in state.legal_moves
        state.push_code("d2")
        assert state.towers[1] == (c,)


def test_placement_must_have_lower_value_higher_refused() -> None:
    """“A card must have lower value than the card it is placed on top of.”"""
    # the Journey (3, Moons Waves) on the Author (2, Moons Knots): a suit in common, but higher
    state = ThreeTowers().state_from_code("2MK/-/-/-/- 3MW 1")
    before = state.code()
    with pytest.raises(IllegalMoveError) as info:
        state.push_code("d1")
    assert LOWER in str(info.value)
    assert state.code() == before
    # and from tower to tower
    state = ThreeTowers().state_from_code("2MK/3MW/-/-/- 9MS 2")
    with pytest.raises(IllegalMoveError) as info:
        state.push_code("21")
    assert LOWER in str(info.value)


def test_placement_must_have_lower_value_equal_rank_refused() -> None:
    """“A card must have lower value than the card it is placed on top of.”"""
    state = ThreeTowers().state_from_code("5ML/5SW/5YK/-/- 9MS 3")
    for source, target in itertools.permutations((1, 2, 3), 2):
        with pytest.raises(IllegalMoveError) as info:
            state.push(TowerMove(source, target))
        assert LOWER in str(info.value)


def test_placement_rules_for_every_pair_of_cards() -> None:
    """“A card must share at least one suit with the card it is placed on top of.” and “A card
    must have lower value than the card it is placed on top of.”"""
    game = ThreeTowers()
    allowed = 0
    for below, above in itertools.permutations(NUMERALS, 2):
        state = game.state_from_code(f"{below.code}/{above.code}/-/-/- - 2")
        expect = int(above.rank) < int(below.rank) and bool(set(above.suits) & set(below.suits))
        assert (TowerMove(2, 1) in state.legal_moves) is expect, (above, below)
        assert ((2, 1) in move_set(state)) is expect, (above, below)  # the move generator too
        if expect:
            allowed += 1
            state.push(TowerMove(2, 1))
            assert state.towers[0] == (below, above)
        else:
            with pytest.raises(IllegalMoveError) as info:
                state.push(TowerMove(2, 1))
            assert (LOWER if int(above.rank) >= int(below.rank) else SHARE) in str(info.value)
    assert allowed > 0


@pytest.mark.parametrize(("level", "seed"), [(2, 0), (3, 0), (3, 1), (3, 2), (4, 0), (4, 1)])
def test_win_deck_empty_and_three_descending_towers(level: int, seed: int, solve: Solver) -> None:
    """“You win when the deck is empty and there are three towers each with all ranks 2-9 in
    descending order with each card sharing a suit with its neighbors.”"""
    game = ThreeTowers(level=level)
    line = solve(game.new_state(seed))
    assert line is not None, "small deals are winnable: the search should find a line"
    state = game.new_state(seed)
    for move in line:
        assert state.status is Status.IN_PROGRESS
        assert state.outcome is None
        state.push(move)
    assert state.status is Status.WON
    assert state.outcome is not None and state.outcome.reason is EndReason.GOAL
    # the win is exactly the seed's picture: deck empty, three towers of ranks level..2
    assert state.cards_left == 0
    built = [t for t in state.towers if t]
    assert len(built) == 3
    for tower in built:
        assert numeral_ranks(tower) == list(range(level, 1, -1))
    assert towers_are_well_built(state.towers)
    assert not state.legal_moves


def test_win_every_final_arrangement_of_the_full_deck_is_won() -> None:
    """“You win when the deck is empty and there are three towers each with all ranks 2-9 in
    descending order with each card sharing a suit with its neighbors.”"""
    arrangements = final_arrangements(9)
    assert len(arrangements) == 2**7  # each rank below 9 continues the towers in 2 ways
    for spaces in (3, 5):
        game = ThreeTowers(spaces=spaces)
        for towers in arrangements:
            state = game.state_from_code(position_code(towers, spaces))
            assert state.status is Status.WON
            assert state.outcome is not None and state.outcome.reason is EndReason.GOAL


def test_win_not_before_the_deck_is_empty() -> None:
    """“You win when the deck is empty and there are three towers each with all ranks 2-9 in
    descending order with each card sharing a suit with its neighbors.”"""
    towers = final_arrangements(9)[17]
    short = (towers[0][:-1], towers[1], towers[2])
    state = ThreeTowers().state_from_code(position_code(short, 5, deck=towers[0][-1].code))
    assert state.status is Status.IN_PROGRESS
    state.push_code("d1")
    assert state.status is Status.WON


def test_win_not_when_the_deck_is_empty_but_the_towers_are_not_arranged() -> None:
    """“You win when the deck is empty and there are three towers each with all ranks 2-9 in
    descending order with each card sharing a suit with its neighbors.”"""
    game = ThreeTowers(level=3)
    # deck empty, cards in four towers: not won (moves remain, so not lost either)
    state = game.state_from_code("3MW2MK/3SK/2SY/3LY2WL/- - 6")
    assert state.cards_left == 0
    assert state.status is Status.IN_PROGRESS
    state.push_code("32")  # the Desert (2, Suns Wyrms) onto the Painter (3, Suns Knots)
    assert state.status is Status.WON
    # deck empty, six cards in five towers: not won
    state = game.state_from_code("3MW2MK/3SK/2SY/3LY/2WL - 6")
    assert state.status is Status.IN_PROGRESS
    # level 9: deck empty, all 24 cards placed, but in four towers
    towers = final_arrangements(9)[0]
    split = (towers[0][:4], towers[1], towers[2], towers[0][4:])
    state = ThreeTowers().state_from_code(position_code(split, 5))
    assert state.status is not Status.WON


def test_extended_deck_pawns_and_courts_are_not_used() -> None:
    """“Pawns and courts are not used in this game.”"""
    for level in range(2, 10):
        deck = ThreeTowers(level=level).deck()
        assert not [c for c in deck if c.rank in (Rank.PAWN, Rank.COURT)]
    game = ThreeTowers()
    for extra in ("the Harvest", "the Watchman", "the Consul", "the Window"):
        with pytest.raises(ParseError):
            game.state_from_deal([*game.deal(1)[:-1], card(extra)])
        with pytest.raises(ParseError):
            game.state_from_code(f"-/-/-/-/- {card(extra).code} 0")


# ---- Variants: Adjusting Difficulty --------------------------------------------------------------


@pytest.mark.parametrize("level", range(2, 10))
def test_difficulty_remove_high_ranked_cards_to_select_the_level(level: int) -> None:
    """“For an easier game, remove high-ranked cards from the deck to select your difficulty
    level.”"""
    game = ThreeTowers(level=level)
    assert len(game.deck()) == 3 * (level - 1)
    for seed in (0, 1, 2):
        deal = game.deal(seed)
        assert Counter(int(c.rank) for c in deal) == Counter({r: 3 for r in range(2, level + 1)})
    above = [c for c in NUMERALS if int(c.rank) > level]
    if above:
        with pytest.raises(ParseError):
            game.state_from_code(f"-/-/-/-/- {above[0].code} 0")


def test_difficulty_level_6_and_level_9() -> None:
    """“At level 6 (only cards going up to rank 6 included) the game is easy to win every time;
    at level 9 (all cards included) I find I win about 1 in 3 games.”"""
    six = ThreeTowers(level=6).deck()
    assert {int(c.rank) for c in six} == {2, 3, 4, 5, 6}
    assert len(six) == 15
    assert set(ThreeTowers(level=9).deck()) == set(NUMERALS)
    assert ThreeTowers().level == 9  # the game as written uses all cards


@pytest.mark.parametrize("seed", range(4))
def test_difficulty_small_levels_can_be_won(seed: int, solve: Solver) -> None:
    """“Adjusting Difficulty: I believe it is possible to win this game regardless of how the
    deck is shuffled given enough time, but it can be very difficult.”

    Checked where it is cheap to check: every tried deal at levels 2 to 4 has a winning line.
    """
    for level in (2, 3, 4):
        line = solve(ThreeTowers(level=level).new_state(seed))
        assert line is not None
        assert len([m for m in line if m.source == DECK]) == 3 * (level - 1)


# ---- Variants: Ivory Three Towers ----------------------------------------------------------------


def test_ivory_select_a_suit_at_the_start() -> None:
    """“Ivory Three Towers: For an additional challenge, select a suit at the start of the game
    that one of your towers will exclusively contain.”"""
    for suit in Suit:
        game = ThreeTowers.ivory(suit.value)
        assert game.variant == Ivory(suit)
        assert game.deck() == ThreeTowers().deck()
        assert ThreeTowers.ivory(suit.letter).variant == Ivory(suit)
    with pytest.raises(UnknownSuitError):
        ThreeTowers.ivory("purple")


def test_ivory_win_only_with_three_towers_one_of_them_all_of_the_suit() -> None:
    """“You win only when you have three towers and one of them has every card it contains
    matching the suit you selected.”"""
    # The two ways to end a level-3 game. In the first, the Journey on the Author is all Moons,
    # the Painter on the Desert all Suns, the Savage on the Origin all Leaves; in the second, the
    # Journey on the Origin is all Waves, the Painter on the Author all Knots, the Savage on the
    # Desert all Wyrms.
    first = "3MW2MK/3SK2SY/3LY2WL/-/- - 6"
    second = "3MW2WL/3SK2MK/3LY2SY/-/- - 6"
    for suit in Suit:
        in_first = suit in (Suit.MOONS, Suit.SUNS, Suit.LEAVES)
        game = ThreeTowers.ivory(suit, level=3)
        assert (game.state_from_code(first).status is Status.WON) is in_first, suit
        assert (game.state_from_code(second).status is Status.WON) is not in_first, suit
        # the standard game wins both
        assert ThreeTowers(level=3).state_from_code(first).status is Status.WON
    # a tower all of Wyrms, but four towers: not yet
    state = ThreeTowers.ivory("wyrms", level=3).state_from_code("3MW2WL/3SK2MK/3LY/2SY/- - 6")
    assert state.status is Status.IN_PROGRESS
    state.push_code("43")  # the Desert (2, Suns Wyrms) onto the Savage (3, Leaves Wyrms)
    assert state.status is Status.WON


def test_ivory_win_checked_on_every_final_arrangement() -> None:
    """“You win only when you have three towers and one of them has every card it contains
    matching the suit you selected.”"""
    wins = Counter[Suit]()
    for towers in final_arrangements(9):
        code = position_code(towers, 5)
        pure = set().union(*(pure_suits(t) for t in towers))
        for suit in Suit:
            state = ThreeTowers.ivory(suit).state_from_code(code)
            assert (state.status is Status.WON) is (suit in pure), (suit, code)
            wins[suit] += state.status is Status.WON
    assert sum(wins.values()) > 0


def test_ivory_is_harder_than_the_standard_game() -> None:
    """“While this technically makes the game harder, it also provides direction and is how I
    usually play.”"""
    arrangements = final_arrangements(9)
    standard = ThreeTowers()
    ivory_wins = 0
    for towers in arrangements:
        code = position_code(towers, 5)
        assert standard.state_from_code(code).status is Status.WON
        for suit in Suit:
            if ThreeTowers.ivory(suit).state_from_code(code).status is Status.WON:
                ivory_wins += 1
    # every ivory win is a standard win, and some standard wins are no ivory win
    assert 0 < ivory_wins < len(arrangements) * len(Suit)


def test_ivory_no_two_towers_ivory_in_different_suits() -> None:
    """“It is not possible to have more than one tower at end of game that is Ivory in different
    suits.”

    Exhaustive: the 2**7 ways to end a full game (level 9) are enumerated from the card data, and
    in none of them are two towers each made of one suit. (At levels 6 and below the claim does
    not hold: short towers such as the Journey on the Author (Moons) next to the Painter on the
    Desert (Suns) are possible, which is why the check is made on the full game.)
    """
    arrangements = final_arrangements(9)
    assert len(arrangements) == 128
    with_ivory = 0
    for towers in arrangements:
        ivory_towers = [t for t in towers if pure_suits(t)]
        assert len(ivory_towers) <= 1, towers
        with_ivory += bool(ivory_towers)
    assert with_ivory > 0
    # the library agrees: no end position wins Ivory in two different suits
    for towers in arrangements:
        code = position_code(towers, 5)
        won = [s for s in Suit if ThreeTowers.ivory(s).state_from_code(code).status is Status.WON]
        assert len(won) <= 1
    # and the short-tower exception is real
    assert any(len([t for t in towers if pure_suits(t)]) > 1 for towers in final_arrangements(3))


# ---- Variants: Quota -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("suit", "skill", "level"),
    [("moons", 4, 9), ("knots", 1, 9), ("waves", 8, 9), ("leaves", 3, 5), ("wyrms", 1, 2)],
)
def test_quota_partial_decktet_with_the_suit_fixed_to_the_skill(
    suit: str, skill: int, level: int
) -> None:
    """“Quota: This game was originally intended as a mini game in an rpg for an extended skill
    check with a partial Decktet with the number of cards of a given suit fixed to the
    character's skill.”"""
    game = ThreeTowers.quota_check(suit, skill=skill, quota=1, level=level)
    the_suit = Suit.parse(suit)
    for seed in range(8):
        deal = game.deal(seed)
        suited = [c for c in deal if c.bears(the_suit)]
        assert len(suited) == skill
        assert all(int(c.rank) <= level for c in deal)
        assert {c for c in deal if not c.bears(the_suit)} == {
            c for c in level_deck(level) if not c.bears(the_suit)
        }
        assert len(deal) == len(set(deal)) == 2 * (level - 1) + skill


def test_quota_the_gm_may_choose_the_suited_cards() -> None:
    """“Quota: This game was originally intended as a mini game in an rpg for an extended skill
    check with a partial Decktet with the number of cards of a given suit fixed to the
    character's skill.”"""
    chosen = ["the Pact", "Lunatic", "2MK"]
    game = ThreeTowers.quota_check("moons", skill=3, quota=2, suited_cards=chosen)
    for seed in (0, 1):
        suited = {c for c in game.deal(seed) if c.bears(Suit.MOONS)}
        assert suited == {card(c) for c in chosen}
    with pytest.raises(ParameterError):
        ThreeTowers.quota_check("moons", skill=3, quota=2, suited_cards=["9MS", "6MW", "9LK"])
    with pytest.raises(ParameterError):
        ThreeTowers.quota_check("moons", skill=3, quota=2, suited_cards=["9MS", "6MW"])


def test_quota_parameters_may_give_the_cards_for_the_skill() -> None:
    """The deck holds as many cards of the suit as the character's skill: parameters (the API's,
    a record's) that list the GM's cards and no skill get the skill from their number, as the
    CLI's --cards does, and a wrong card is named as such, not reported as a missing skill."""
    params = {"variant": {"kind": "quota", "suit": "moons", "quota": 2,
                          "suited_cards": ["2MK", "5ML", "9MS"]}}  # fmt: skip
    game = game_from_params("three-towers", params)
    assert game == ThreeTowers.quota_check(
        "moons", skill=3, quota=2, suited_cards=["2MK", "5ML", "9MS"]
    )
    assert game_params(game)["variant"]["skill"] == 3
    wrong = {"variant": {**params["variant"], "suited_cards": ["2SY"], "quota": 1}}
    with pytest.raises(ParameterError, match="suited_cards must be 1 card of Moons"):
        game_from_params("three-towers", wrong)
    nothing = {"variant": {"kind": "quota", "suit": "moons", "quota": 1}}
    with pytest.raises(ParameterError, match="skill is missing"):
        game_from_params("three-towers", nothing)


def test_quota_a_deal_must_hold_exactly_skill_suited_cards() -> None:
    """“Quota: This game was originally intended as a mini game in an rpg for an extended skill
    check with a partial Decktet with the number of cards of a given suit fixed to the
    character's skill.”

    So a deal handed to a quota check (e.g. from a record) that holds more suited cards than the
    skill, or only a handful of cards, is not a deal of that check.
    """
    game = ThreeTowers.quota_check("moons", skill=2, quota=2)
    assert len(game.state_from_deal(game.deal(4)).remaining_deck) == 16 + 2
    full = ThreeTowers().deal(4)  # all eight Moons cards
    with pytest.raises(SkillcheckError):
        game.state_from_deal(full)
    with pytest.raises(SkillcheckError):
        game.state_from_deal(cards_of("9MS 8MS 7ML"))


def test_quota_win_when_the_suit_tower_reaches_the_quota() -> None:
    """“Then, the player wins when they have extracted a specific number of cards of the given
    suit set as the difficulty of the check.”"""
    game = ThreeTowers.quota_check(
        "moons", skill=3, quota=2, level=4, suited_cards=["2MK", "3MW", "4MS"]
    )
    state = game.state_from_code("4MS/-/-/-/- 3MW2SY2WL 1")
    assert state.status is Status.IN_PROGRESS
    state.push_code("d1")
    assert state.status is Status.WON
    assert state.outcome is not None and state.outcome.reason is EndReason.GOAL
    assert state.cards_left == 2  # won at once, with cards still in the deck
    with pytest.raises(GameOverError):
        state.push_code("d2")


def test_quota_play_as_ivory_win_when_the_ivory_tower_has_at_least_quota_cards() -> None:
    """“Play as with Ivory Three Towers above, but you win when your ivory tower has at least as
    many cards as a preset quota.”"""
    game = ThreeTowers.quota_check("moons", skill=8, quota=3)
    # three cards tall but not all Moons: the Castle (7, Suns Knots) breaks the suit
    state = game.state_from_code("9MS8MS7SK/-/-/-/- 6MW5ML 3")
    assert state.status is Status.IN_PROGRESS
    state.push_code("d2")
    state.push_code("d2")  # a Moons tower of two: the Lunatic, the Forest
    assert state.status is Status.IN_PROGRESS
    # two Moons towers of two cards each are not a tower of three
    state = game.state_from_code("9MS8MS/6MW5ML/-/-/- 4MS3MW 4")
    assert state.status is Status.IN_PROGRESS
    state.push_code("d2")  # the Mountain (4, Moons Suns) onto the Forest: three of Moons
    assert state.status is Status.WON
    # at least: a position already taller than the quota is won
    state = game.state_from_code("9MS8MS6MW5ML/-/-/-/- 4MS 4")
    assert state.status is Status.WON
    # a pure tower of another suit does not count
    other = ThreeTowers.quota_check("knots", skill=8, quota=3)
    state = other.state_from_code("9MS8MS6MW5ML/-/-/-/- 4MS 4")
    assert state.status is Status.IN_PROGRESS


def test_quota_difficulty_scale_3_to_8() -> None:
    """“(3 = very easy, 5 or 6 = medium, 8 = very hard)”"""
    for quota in (3, 5, 6, 8):
        game = ThreeTowers.quota_check("suns", skill=8, quota=quota)
        assert game.variant == Quota(Suit.SUNS, 8, quota)
    with pytest.raises(ParameterError) as info:
        ThreeTowers.quota_check("moons", skill=4, quota=6)
    assert "quota 6 is larger than skill 4" in str(info.value)
    assert info.value.parameter == "quota"
    with pytest.raises(ParameterError):
        ThreeTowers.quota_check("moons", skill=8, quota=9)


# ---- engine behaviour the rules rely on ----------------------------------------------------------


@pytest.mark.parametrize(
    ("params", "parameter", "allowed"),
    [
        ({"level": 1}, "level", "2 to 9"),
        ({"level": 10}, "level", "2 to 9"),
        ({"spaces": 2}, "spaces", "3 to 8"),
        ({"spaces": 9}, "spaces", "3 to 8"),
        ({"move_limit": 0}, "move_limit", "1 to 100000"),
        ({"variant": Quota(Suit.MOONS, 4, 2), "level": 4}, "skill", "1 to 3"),
    ],
)
def test_parameters_out_of_range(params: dict[str, object], parameter: str, allowed: str) -> None:
    with pytest.raises(ParameterError) as info:
        ThreeTowers(**params)  # type: ignore[arg-type]
    assert info.value.parameter == parameter
    assert parameter in str(info.value)
    assert allowed in str(info.value)


def test_skill_out_of_range() -> None:
    with pytest.raises(ParameterError) as info:
        ThreeTowers.quota_check("moons", skill=9, quota=3)
    assert info.value.parameter == "skill"
    assert "skill" in str(info.value) and "1 to 8" in str(info.value)


def test_loss_when_no_legal_move_remains() -> None:
    game = ThreeTowers(level=3, spaces=3)
    state = game.state_from_code("3MW2MK/3SK2SY/- 2WL3LY 4")
    assert state.status is Status.IN_PROGRESS
    state.push_code("d3")
    # the Savage (3) cannot go on a 2, and no 2 can go on another 2
    assert not expected_moves(state)
    assert state.status is Status.LOST
    assert state.outcome is not None and state.outcome.reason is EndReason.NO_LEGAL_MOVES
    assert not state.legal_moves


def test_loss_by_move_limit() -> None:
    game = ThreeTowers(level=9, move_limit=3)
    state = game.new_state(8)
    state.push_code("d1")
    state.push_code("d2")
    assert state.status is Status.IN_PROGRESS
    state.push_code("d3")
    assert state.status is Status.LOST
    assert state.outcome is not None and state.outcome.reason is EndReason.MOVE_LIMIT
    with pytest.raises(GameOverError):
        state.push_code("d4")


def test_a_win_on_the_last_allowed_move_is_a_win(solve: Solver) -> None:
    line = solve(ThreeTowers(level=3).new_state(1))
    assert line is not None
    state = ThreeTowers(level=3, move_limit=len(line)).new_state(1)
    for move in line:
        state.push(move)
    assert state.status is Status.WON


def test_loss_by_concession() -> None:
    state = ThreeTowers().new_state(3)
    state.push_code("d1")
    outcome = state.concede()
    assert outcome.status is Status.LOST and outcome.reason is EndReason.CONCEDED
    assert state.outcome == outcome
    assert not state.legal_moves
    with pytest.raises(GameOverError):
        state.concede()
    with pytest.raises(GameOverError):
        state.push_code("d2")


def ends_the_check(state: ThreeTowersState, move: TowerMove) -> bool:
    probe = state.copy()
    probe.push(move)
    return probe.is_terminal()


def test_undo_restores_the_position_exactly() -> None:
    state = ThreeTowers(level=7, undo="full").new_state(17)
    rng = random.Random(17)
    history = [(state.code(), state.observation(), move_set(state))]
    for _ in range(25):
        moves = [m for m in state.legal_moves if not ends_the_check(state, m)]
        if not moves:
            break
        state.push(rng.choice(moves))
        history.append((state.code(), state.observation(), move_set(state)))
    assert len(history) > 10
    pushed = list(state.moves)
    for expected_code, expected_obs, expected_moves_ in reversed(history[:-1]):
        undone = state.undo()
        assert undone == pushed.pop()
        assert state.code() == expected_code
        assert state.observation() == expected_obs
        assert move_set(state) == expected_moves_
    assert state.moves == ()
    with pytest.raises(UndoError):
        state.undo()


def test_undo_refused_when_switched_off() -> None:
    state = ThreeTowers(undo=False).new_state(2)
    state.push_code("d1")
    before = state.code()
    with pytest.raises(UndoError):
        state.undo()
    assert state.code() == before
    assert len(state.moves) == 1


def test_undo_refused_after_the_end() -> None:
    state = ThreeTowers().new_state(2)
    state.push_code("d1")
    state.concede()
    with pytest.raises(GameOverError):
        state.undo()
    state = ThreeTowers(level=3, spaces=3).state_from_code("3MW2MK/3SK2SY/- 2WL3LY 4")
    state.push_code("d3")
    assert state.status is Status.LOST
    with pytest.raises(GameOverError):
        state.undo()


def test_rejected_moves_change_nothing() -> None:
    state = ThreeTowers().new_state(31)
    rng = random.Random(31)
    for _ in range(10):
        state.push(rng.choice(list(state.legal_moves)))
    legal = move_set(state)
    before = (state.code(), state.observation(), state.moves, state.moves_made)
    rejected = 0
    for source, target in itertools.product(range(0, 10), range(0, 10)):
        if (source, target) in legal:
            continue
        with pytest.raises(RuleError):
            state.push(TowerMove(source, target))
        rejected += 1
        assert (state.code(), state.observation(), state.moves, state.moves_made) == before
    assert rejected > 50
    state.concede()
    after_end = state.code()
    for code in ("d1", "12"):
        with pytest.raises(GameOverError):
            state.push_code(code)
    assert state.code() == after_end


@pytest.mark.parametrize("text", ["zz", "", "d0", "0 1", "d", "123", "x3", "d10"])
def test_parse_errors_are_parse_errors_not_rule_errors(text: str) -> None:
    with pytest.raises(ParseError) as info:
        TowerMove.parse(text)
    assert not isinstance(info.value, RuleError)
    state = ThreeTowers().new_state(1)
    before = state.code()
    with pytest.raises(ParseError):
        state.push_code(text)
    assert state.code() == before


@pytest.mark.parametrize(
    ("text", "move"),
    [("d3", TowerMove(DECK, 3)), ("D5", TowerMove(DECK, 5)), ("14", TowerMove(1, 4)),
     ("1-4", TowerMove(1, 4)), ("2>1", TowerMove(2, 1)), (" 3 2 ", TowerMove(3, 2))],
)  # fmt: skip
def test_move_codes(text: str, move: TowerMove) -> None:
    assert TowerMove.parse(text) == move
    assert TowerMove.parse(move.code) == move


def test_rule_errors_are_not_parse_errors() -> None:
    state = ThreeTowers().new_state(1)
    with pytest.raises(RuleError) as info:
        state.push_code("12")  # well formed, but tower 1 is empty
    assert isinstance(info.value, IllegalMoveError)
    assert not isinstance(info.value, ParseError)
    assert not issubclass(ParseError, RuleError)
    assert not issubclass(RuleError, ParseError)
    assert issubclass(ParseError, SkillcheckError) and issubclass(RuleError, SkillcheckError)


def test_degree_quota_win_is_cards_left_in_the_deck() -> None:
    game = ThreeTowers.quota_check(
        "moons", skill=3, quota=2, level=4, suited_cards=["2MK", "3MW", "4MS"]
    )
    state = game.state_from_code("4MS/-/-/-/- 3MW2SY2WL3SK 1")
    state.push_code("d1")  # a Moons tower of 2 with 3 cards left
    assert state.outcome is not None and state.outcome.status is Status.WON
    assert state.outcome.degree == state.cards_left == 3


def test_degree_quota_loss_is_tallest_pure_tower_minus_quota() -> None:
    game = ThreeTowers.quota_check("moons", skill=8, quota=5)
    # a Moons tower of two (the Pact, the Diplomat) and one of one (the Lunatic)
    state = game.state_from_code("9MS8MS/6MW/7SK/-/- 5ML4MS 3")
    outcome = state.concede()
    assert outcome.status is Status.LOST
    assert outcome.degree == 2 - 5
    # concede at once from a deal: no Moons tower at all
    state = game.new_state(9)
    assert state.concede().degree == 0 - 5


def test_degree_standard_is_cards_placed(solve: Solver) -> None:
    game = ThreeTowers(level=9)
    state = game.new_state(40)
    rng = random.Random(40)
    for _ in range(12):
        state.push(rng.choice(list(state.legal_moves)))
    placed = sum(len(t) for t in state.towers)
    assert placed == 24 - state.cards_left
    assert state.concede().degree == placed
    # a win places the whole deck
    line = solve(ThreeTowers(level=4).new_state(3))
    assert line is not None
    state = ThreeTowers(level=4).new_state(3)
    for move in line:
        state.push(move)
    assert state.outcome is not None and state.outcome.degree == 9


def test_degree_standard_counts_cards_on_towers_for_a_position_from_code() -> None:
    # a position loaded from a code already has cards on its towers; they count as placed
    game = ThreeTowers(level=3)
    state = game.state_from_code("3MW2MK/3SK2SY/3LY/-/- 2WL 5")
    state.push_code("d3")
    assert state.status is Status.WON
    assert state.outcome is not None and state.outcome.degree == 6
    state = game.state_from_code("3MW2MK/3SK2SY/-/-/- 2WL3LY 4")
    assert state.concede().degree == 4


@pytest.mark.parametrize(
    ("options", "said"),
    [
        ({"variant": "standard", "suit": "moons"},
         "suit applies only to ivory and quota checks (the standard variant takes none)"),
        ({"variant": "ivory", "suit": "moons", "skill": 3},
         "skill applies only to a quota check (the ivory variant takes a suit)"),
    ],
)  # fmt: skip
def test_an_option_the_variant_does_not_take_names_the_variants_that_do(
    options: dict[str, object], said: str
) -> None:
    """A suit belongs to the ivory variant too: the refusal said 'only apply to a quota check'."""
    with pytest.raises(ParameterError) as refused:
        ThreeTowers.params_from_options(options)
    assert refused.value.message == said


def test_the_table_says_in_words_which_towers_hold_only_the_suit() -> None:
    """An ivory or quota check's tower of cards that all bear the suit is the one that counts:
    the board notes it "all Moons" (a bare flag showed "★ pure" on the page, unexplained), and
    a tower with any other card has no note."""
    game = ThreeTowers(variant=Ivory(Suit.MOONS))
    noted = {True: False, False: False}
    for seed in range(40):
        state = game.new_state(seed)
        top = state.observation().top_card
        assert top is not None
        state.push_code("d1")
        (tower,) = [z for z in state.board().zones if z.id == "t1"]
        bears = top.bears(Suit.MOONS)
        assert tower.extras.get("note") == ("all Moons" if bears else None), (seed, top)
        noted[bears] = True
        empty = [z for z in state.board().zones if z.id == "t2"]
        assert "note" not in empty[0].extras  # an empty tower holds nothing to count
    assert all(noted.values())  # both kinds of tower were seen


def test_a_variant_without_its_suit_is_refused_naming_the_suit() -> None:
    """An ivory check whose suit was left out: the refusal names the suit (a form marks that
    field) and its choices. It named "params" and listed the top-level parameters, suit not
    among them."""
    for kind in ("ivory", "quota"):
        with pytest.raises(ParameterError) as refused:
            game_from_params("three-towers", {"variant": {"kind": kind, "skill": 3, "quota": 2}}
                             if kind == "quota" else {"variant": {"kind": kind}})
        assert refused.value.parameter == "suit"
        assert refused.value.message.startswith("variant.suit is missing for three-towers")
        assert "one of moons, suns, waves, leaves, wyrms, knots" in refused.value.message
