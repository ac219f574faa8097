"""Tri Peaks (seeds 001 and 003): the rules sentence by sentence, codes, the board, the check.

Each test of a rule quotes the seed's sentence it checks (seed 001 in Norwegian with a
translation); each would fail if that rule broke. docs/games/tripeaks.md has every
interpretation.
"""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Sequence

import pytest
from hypothesis import given
from hypothesis import strategies as st

from skillcheck import GAMES, EndReason, IllegalMoveError, ParameterError, ParseError, Status
from skillcheck.cards.standard import STANDARD, PlayingCard
from skillcheck.engine import RESERVED_WORDS, make_game
from skillcheck.games.tripeaks import (
    CONES,
    COVERED_BY,
    SLOTS,
    Tripeaks,
    TripeaksMove,
    TripeaksState,
    fits,
)
from skillcheck.games.tripeaks.layout import cards_needed
from skillcheck.games.tripeaks.rules import FULL_SKILL, STOCK_STEP
from skillcheck.serialization import game_from_params, game_params
from skillcheck.solving import autoplay

C = PlayingCard.parse
ALL_CODES = [c.code for c in STANDARD]


def deal_of(
    peaks: dict[int, str], waste: str | None = None, stock: Sequence[str] = ()
) -> list[str]:
    """A full deal (52 codes in deal order) with the given cards at the given peak positions,
    the given first waste card (None: an empty-waste deal) and the stock starting with
    ``stock``; every other card fills the remaining places in canonical order."""
    used = set(peaks.values()) | set(stock) | ({waste} if waste else set())
    rest = iter(c for c in ALL_CODES if c not in used)
    tableau = [peaks.get(i) or next(rest) for i in range(28)]
    head = [waste] if waste else []
    return tableau + head + list(stock) + list(rest)


def position(
    game: Tripeaks,
    peaks: dict[int, str],
    waste: Sequence[str],
    stock: Sequence[str] = (),
    *,
    redeals_left: int | None = None,
    score: int = 0,
    run: int = 0,
    filler: str = "waste",
) -> TripeaksState:
    """A position: only the given peak positions hold cards (``"-"``: gone); a peak tip not
    given holds a card of a rank that fits none of the cards given (so the game is not over
    and the tips never join a test's chain). The waste is bottom first, the stock top first;
    the other cards lie under the waste (or at the bottom of the stock)."""
    given = {i: c for i, c in peaks.items() if c != "-"}
    used = set(given.values()) | set(waste) | set(stock)
    ranks = {C(c).value for c in used}
    far = next(
        (r for r in range(13, 0, -1)
        if r != 2 and all(abs(r - u) not in (1, 12) for u in ranks)
        and sum(C(c).value == r for c in ALL_CODES if c not in used) >= 3),
        0,
    )  # fmt: skip
    spare = iter(c for c in ALL_CODES if c not in used and C(c).value == far)
    tips = {t: next(spare) for t in (0, 1, 2) if t not in peaks}
    cards = {**given, **tips}
    used |= set(tips.values())
    rest = [c for c in ALL_CODES if c not in used]
    waste = [*rest, *waste] if filler == "waste" else list(waste)
    stock = list(stock) if filler == "waste" else [*stock, *rest]
    items = ".".join(cards.get(i, "-") for i in range(28))
    left = game.passes if redeals_left is None else redeals_left
    code = f"{items} {'.'.join(waste) or '-'} {'.'.join(stock) or '-'} {left} {score} {run} 0"
    return game.state_from_code(code)


def codes(state: TripeaksState) -> list[str]:
    return [m.code for m in state.legal_moves]


def top(state: TripeaksState) -> str:
    return state.waste[-1].code


# ---- registration and the deal -------------------------------------------------------------------


def test_registered_as_tripeaks() -> None:
    assert GAMES["tripeaks"] is Tripeaks
    assert make_game("tripeaks") == Tripeaks()
    assert Tripeaks.deck_name == "standard"
    game = Tripeaks()
    assert (game.rules, game.wrap, game.face_up, game.redeals, game.wild) == (
        "basic", False, False, 0, 0,
    )  # fmt: skip


def test_the_deal_is_the_standard_deck_shuffled_by_pcg32() -> None:
    """Seed 001: "Du spiller alene med en vanlig kortstokk på 52 kort uten jokere" (you play
    alone with an ordinary deck of 52 cards without jokers)."""
    from skillcheck.rng import Pcg32

    game = Tripeaks()
    for seed in (0, 1, 77, 2**40):
        cards = list(STANDARD)
        Pcg32(seed).shuffle(cards)
        assert game.deal(seed) == tuple(cards)
        assert sorted(c.index for c in game.deal(seed)) == list(range(52))
    assert len({game.deal(seed) for seed in range(30)}) == 30


def test_28_cards_in_the_peaks_one_on_the_waste_23_in_the_stock() -> None:
    """Seed 001: "Du legger ut 28 kort som tre overlappende topper og sparer 24 kort som
    bunke" (28 cards as three overlapping peaks, 24 kept as a stock) and "Det første
    bunkekortet snus til kastebunken, og da ligger 23 kort igjen å trekke" (the first stock card
    is turned onto the waste, leaving 23 to draw). The deal order: positions 0..27, the waste
    card, the stock from its top."""
    game = Tripeaks()
    state = game.new_state(5)
    deal = state.deal or ()
    assert state.tableau == deal[:28]
    assert state.waste == (deal[28],)
    assert state.stock == deal[29:] and len(state.stock) == 23
    state.push_code("s")
    assert state.waste == (deal[28], deal[29]) and state.stock == deal[30:]


def test_eighteen_face_down_ten_face_up() -> None:
    """Seed 001: "Atten kort ligger med baksiden opp som tre pyramider med seks kort i hver. Ti
    kort med forsiden opp danner en rad under pyramidene." (Eighteen cards lie face down as three
    pyramids of six; ten cards face up form a row under them.)"""
    game = Tripeaks()
    for seed in range(10):
        state = game.new_state(seed)
        observation = state.observation()
        assert observation.face_down() == list(range(18))
        shown = [c.code for c in observation.peaks if c is not None]
        assert shown == [c.code for c in state.tableau[18:] if c is not None]
        assert state.hidden_codes() == {c.code for c in (state.deal or ())[:18]} | {
            c.code for c in state.stock
        }
        for pyramid in range(3):  # six face-down cards in each pyramid
            assert len(CONES[pyramid] - set(range(18, 28))) == 6


def test_four_rows_three_peaks_and_gaps_in_the_six_row() -> None:
    """Seed 001: "Fire rader danner tre topper, og seksraden har en luke etter det andre og det
    fjerde kortet." (Four rows make three peaks, and the row of six has a gap after the second
    and the fourth card.) The slots on the page's half-card grid match the cover table."""
    rows = {y: sorted(x for x, yy in SLOTS if yy == y) for y in range(4)}
    assert rows[0] == [3, 9, 15]
    assert rows[1] == [2, 4, 8, 10, 14, 16]  # gaps after the 2nd (4 -> 8) and 4th (10 -> 14)
    assert rows[2] == list(range(1, 18, 2))
    assert rows[3] == list(range(0, 19, 2))
    for i, (x, y) in enumerate(SLOTS):
        below = tuple(j for j, (xx, yy) in enumerate(SLOTS) if yy == y + 1 and abs(xx - x) == 1)
        assert below == COVERED_BY[i]


# ---- playing a card ------------------------------------------------------------------------------


def test_a_free_card_one_rank_above_or_below_the_top_goes_to_the_waste() -> None:
    """Seed 001: "Du fjerner et helt fritt kort fra bordet når det ligger én valør over eller
    under det øverste kortet i kastebunken. Fargen teller ikke." (You remove a completely free
    card when it is one rank above or below the waste's top card. The suit does not count.)
    Seed 003: "if an 8 is at the top of the waste pile, then a 7 or a 9 can be moved onto it"."""
    game = Tripeaks()
    peaks = {18: "7H", 19: "9C", 20: "6S", 21: "10D", 22: "8D", 23: "7S"}
    # the other bottom-row positions hold cards (the rows above them must be gone)
    state = position(game, peaks, ["8C"], ["KD"])
    assert codes(state) == ["18", "19", "23", "s"]
    state.push_code("19")  # the 9 of Clubs onto the 8 of Clubs
    assert top(state) == "9C" and state.tableau[19] is None
    assert codes(state) == ["21", "22", "s"]  # the 10 and the 8, any suit
    for a, b in itertools.product(range(1, 14), repeat=2):
        ok = fits(PlayingCard.of(a, "hearts"), PlayingCard.of(b, "spades"), False, 0)
        assert ok == (abs(a - b) == 1)


def test_no_king_ace_wrap_in_the_basic_form() -> None:
    """Seed 001: "I grunnformen stopper kjeden ved ess og konge, så konge kobles ikke til ess."
    (In the basic form the chain stops at Ace and King, so King does not connect to Ace.) And
    "Kan ess legges på konge? Nei, i grunnformen." (Can an Ace go on a King? No, in the basic
    form.)"""
    game = Tripeaks()
    state = position(game, {18: "AS", 19: "QH"}, ["KC"], ["2D"])
    assert codes(state) == ["19", "s"]
    with pytest.raises(IllegalMoveError, match="no King-Ace wrap"):
        state.push_code("18")  # Ace on King: refused
    state = position(game, {18: "KS", 19: "2H"}, ["AC"], ["5D"])
    assert codes(state) == ["19", "s"]
    with pytest.raises(IllegalMoveError, match="cannot go onto the Ace of Clubs"):
        state.push_code("18")  # King on Ace: refused
    assert not fits(C("AS"), C("KC"), False, 0) and not fits(C("KS"), C("AC"), False, 0)


@pytest.mark.parametrize("params", [{"wrap": True}, {"rules": "tritowers"}])
def test_wrap_both_ways(params: dict[str, object]) -> None:
    """Seed 001: "I flere digitale former slutter ringen fra konge til ess og fra ess til konge"
    (in several digital forms the ring closes from King to Ace and from Ace to King). Seed 003:
    "an Ace can be built ontop a King, and a King can be built ontop an Ace"."""
    game = Tripeaks(**params)  # type: ignore[arg-type]
    state = position(game, {18: "AS"}, ["KC"], ["2D"])
    state.push_code("18")  # Ace on King
    assert top(state) == "AS"
    state = position(game, {18: "KS"}, ["AC"], ["2D"])
    state.push_code("18")  # King on Ace
    assert top(state) == "KS"
    assert fits(C("AS"), C("KC"), True, 0) and fits(C("KS"), C("AC"), True, 0)
    assert not fits(C("QS"), C("AC"), True, 0) and not fits(C("2S"), C("KC"), True, 0)


def test_only_uncovered_cards_are_played() -> None:
    """Seed 001: "Bare kort som ingen andre kort overlapper kan spilles til kastebunken." (Only
    cards no other card overlaps can be played to the waste.) Seed 003: "Any completely
    uncovered card in the tableau may be moved to the waste pile"."""
    game = Tripeaks(face_up=True)
    # 9 is covered by 18 and 19; with 18 gone it is still covered by 19
    state = position(game, {9: "8S", 19: "2D", 3: "KD", 10: "QD", 4: "AD", 11: "JD", 20: "3C"},
                     ["9C"], ["5H", "KS"])  # fmt: skip
    assert "9" not in codes(state)
    with pytest.raises(IllegalMoveError) as one:
        state.push_code("9")
    assert one.value.message == (
        "the card at the third row, 1st of 9 from the left (position 9) is not free: the card "
        "at position 19 still covers it"
    )
    state.push_code("s")  # 5H
    with pytest.raises(IllegalMoveError) as two:
        state.push_code("3")  # covered by 9 and 10
    assert two.value.message.endswith(
        "(position 3) is not free: the cards at positions 9 and 10 still cover it"
    )


def test_a_face_down_card_turns_up_when_both_cards_covering_it_are_gone() -> None:
    """Seed 001: "Et kort med baksiden opp snus når begge kortene som grenser til det er borte."
    (A face-down card is turned over when both cards next to it are gone.)"""
    game = Tripeaks(undo="full")
    deal = deal_of({18: "7S", 19: "8S", 9: "QH"}, "6C", ["KD"])
    state = game.state_from_deal([C(c) for c in deal])
    assert state.observation().peaks[9] is None
    state.push_code("18")  # 7S on 6C: one of the two covering cards is gone
    assert state.observation().peaks[9] is None and "QH" in state.hidden_codes()
    state.push_code("19")  # 8S on 7S: both gone
    assert state.observation().peaks[9] == C("QH") and "QH" not in state.hidden_codes()
    assert state.board().zone("p9").cards == ("QH",)
    state.undo()
    assert state.observation().peaks[9] is None  # turned back down by the take-back


def test_the_last_card_played_is_the_new_comparison_card_a_chain_up_and_down() -> None:
    """Seed 001: "Det siste utlagte kortet blir nytt sammenligningskort, så en kjede kan gå opp
    og ned i valør. Et eksempel på en kjede er 7 8 9 10 9 10 knekt 10 9 8." (The last card laid
    becomes the new comparison card, so a chain can go up and down in rank, e.g. 7 8 9 10 9 10
    Jack 10 9 8.)"""
    chain = ["7S", "8S", "9S", "10S", "9H", "10H", "JS", "10D", "9D", "8H"]
    game = Tripeaks()
    deal = deal_of(dict(zip(range(18, 28), chain, strict=True)), "6C", ["KD"])
    state = game.state_from_deal(deal)
    for position_, card in zip(range(18, 28), chain, strict=True):
        state.push_code(str(position_))
        assert top(state) == card
    assert [c.code for c in state.waste] == ["6C", *chain]


def test_a_stock_card_is_dealt_one_at_a_time_and_at_any_time() -> None:
    """Seed 001: "Når ikke noe fritt kort passer, snur du et bunkekort til kastebunken, og
    bunkekortene tas ett om gangen." (When no free card fits, you turn a stock card onto the
    waste; stock cards are taken one at a time.) Seed 003: "23 cards in the talon, which can be
    dealt at any time". Dealing is allowed while a card fits too (the seed says when to deal,
    not that one may not deal otherwise: docs/games/tripeaks.md)."""
    for game in (Tripeaks(), Tripeaks(rules="tritowers")):
        state = position(game, {18: "7S"}, ["6C"], ["KD", "QD", "2C"])
        assert codes(state) == ["18", "s"]  # a card fits, and dealing is offered too
        state.push_code("s")
        assert top(state) == "KD" and [c.code for c in state.stock] == ["QD", "2C"]
        assert [c.code for c in state.waste[-2:]] == ["6C", "KD"]


def test_no_redeal_in_the_basic_form() -> None:
    """Seed 001: "Guiden forklarer grunnformen med ett kort om gangen fra bunken uten omlegging
    når bunken er tom." (The basic form: one card at a time from the stock, no redeal when the
    stock is empty.) "I grunnformen er given slutt når bunken er tom og det ligger kort igjen på
    bordet." (In the basic form the deal is over when the stock is empty and cards remain.)"""
    game = Tripeaks()
    state = position(game, {18: "7S"}, ["9C", "8C"])
    assert codes(state) == ["18"]  # the stock is empty: no redeal is offered
    with pytest.raises(IllegalMoveError, match="this check allows no redeal"):
        state.push_code("r")
    # with cards still in the stock too: not "the stock is not empty yet", which would say
    # a redeal may come
    with pytest.raises(IllegalMoveError, match="this check allows no redeal"):
        position(game, {18: "7S"}, ["9C", "8C"], ["3D"]).push_code("r")
    state = position(game, {18: "7S", 19: "KH"}, ["9C", "5C"], ["3D"])
    assert codes(state) == ["s"]
    state.push_code("s")  # 3D: nothing fits, no stock, no redeal
    assert state.status is Status.LOST
    assert state.outcome is not None and state.outcome.reason is EndReason.NO_LEGAL_MOVES


# ---- winning and losing --------------------------------------------------------------------------


def test_won_when_the_three_peaks_are_empty_even_with_stock_left() -> None:
    """Seed 001: "Kabalen er vunnet når alle tre toppene er tomme, selv om det ligger igjen kort
    i bunken. Gevinsten regnes når alle 28 kortene på bordet er borte, og kort som ligger igjen i
    bunken eller kastebunken trenger ikke å fjernes." (Won when all three peaks are empty, even
    if cards remain in the stock; the win counts when all 28 cards on the table are gone.)"""
    game = Tripeaks()
    state = position(game, {0: "7S", 1: "-", 2: "-"}, ["6C"], ["KD", "QD", "2C"])
    state.push_code("0")
    assert state.outcome is not None and state.outcome.status is Status.WON
    assert state.outcome.reason is EndReason.GOAL
    assert state.outcome.degree == 3  # cards left in the stock
    assert (
        state.outcome.summary == "success: all three peaks cleared with 3 cards left in the stock"
    )
    assert not list(state.legal_moves)  # the stock need not be played


def test_lost_when_the_stock_is_empty_and_no_free_card_fits() -> None:
    """Seed 001: "Given er tapt hvis det blir igjen kort på bordet når bunken er tom." (The deal
    is lost if cards remain on the table when the stock is empty.) Seed 003: "When the stock is
    exhausted, and no more building can occur, then the game is over." A card that fits the last
    stock card may still be played (the stock is empty, but building can occur)."""
    game = Tripeaks()
    state = position(game, {0: "7S", 1: "-", 2: "KH"}, ["2C"], ["8D"])
    state.push_code("s")  # 8D: the stock is empty, the 7 fits
    assert state.outcome is None and codes(state) == ["0"]
    state.push_code("0")
    assert state.outcome is not None and state.status is Status.LOST
    assert state.outcome.degree == -1  # one card (the King) still to clear
    assert "the stock is used up and no free card fits; 1 card still to clear" in (
        state.outcome.summary
    )


def test_a_game_is_won_or_lost() -> None:
    """Seed 001: "en kabal går ut eller tapes" (a solitaire comes out or is lost)."""
    for params in Tripeaks.examples():
        game = game_from_params("tripeaks", params)
        for seed in range(4):
            state = autoplay(game, "random", seed)
            assert state.status in (Status.WON, Status.LOST)


# ---- the variants of seed 001 --------------------------------------------------------------------


def test_face_up_variant_shows_every_card() -> None:
    """Seed 001: "Uvanlige utlegg har ... alle toppkort med forsiden opp fra start" (unusual
    layouts have all peak cards face up from the start)."""
    game = Tripeaks(face_up=True)
    state = game.new_state(3)
    assert state.observation().face_down() == []
    assert state.hidden_codes() == {c.code for c in state.stock}
    assert None not in [z.cards[0] for z in state.board().zones if z.id.startswith("p")]


def test_empty_waste_variant_any_free_card_first() -> None:
    """Seed 001: "tom kastebunke der et fritt kort kan velges som første kort" (an empty waste,
    where any free card may be chosen as the first card)."""
    game = Tripeaks(empty_waste=True)
    state = game.new_state(8)
    deal = state.deal or ()
    assert state.waste == () and state.stock == deal[28:] and len(state.stock) == 24
    assert codes(state) == [str(i) for i in range(18, 28)] + ["s"]
    state.push_code("22")
    assert state.waste == (deal[22],)
    other = game.new_state(8)
    other.push_code("s")  # the stock's top card may start the waste too
    assert other.waste == (deal[28],)


def test_wild_deuces() -> None:
    """Seed 001: "Uvanlige utlegg har villkort" (unusual layouts have wild cards). Here: ``wild``
    makes the 2 of Spades, then Hearts, Diamonds, Clubs wild; a wild card goes onto any card and
    any card goes onto it."""
    game = Tripeaks(wild=1)
    state = position(game, {18: "2S", 19: "9H", 20: "2H"}, ["KC"], ["QD"])
    assert codes(state) == ["18", "s"]  # the 2 of Spades onto a King; the 2 of Hearts is no wild
    state.push_code("18")
    # anything onto the wild 2 (the tips too: they are free, and hold cards fitting nothing else)
    assert codes(state) == ["0", "1", "2", "19", "20", "s"]
    state.push_code("19")
    assert codes(state) == ["s"]
    assert Tripeaks(wild=4).wild_set == {C("2S"), C("2H"), C("2D"), C("2C")}
    assert not fits(C("9H"), C("2H"), False, 1) and fits(C("9H"), C("2H"), False, 2)


def test_redeals_turn_the_waste_over_as_a_new_stock() -> None:
    """Seed 001: "Andre utlegg lar bunken sirkulere for flere runder." (Other layouts let the
    stock circulate for more rounds.) Here: once the stock is empty, ``r`` turns the waste under
    its top card over as the new stock (the waste's bottom card on top), ``redeals`` times."""
    game = Tripeaks(redeals=1)
    state = position(game, {18: "7S", 19: "KH"}, ["AC", "2C"], ["9D"], filler="stock")
    # filler="stock": the 46 other cards follow the 9D in the stock
    while state.stock:
        state.push_code("s")
    before = state.waste
    assert "r" in codes(state)
    state.push_code("r")
    assert state.waste == before[-1:] and state.stock == before[:-1]
    assert state.redeals_left == 0
    state.push_code("s")
    assert top(state) == "AC"  # the first card of the old waste is dealt first again
    while state.stock:
        state.push_code("s")
    assert "r" not in codes(state)  # no redeal left


def test_full_skill_deals_the_whole_stock_as_the_seeds_do() -> None:
    """The default skill is the seeds' game: 23 stock cards (24 with an empty waste), none set
    aside, no redeal."""
    for empty, size in ((False, 23), (True, 24)):
        game = Tripeaks(empty_waste=empty)
        assert game.skill == FULL_SKILL and game.stock_size == size and game.set_aside == 0
        state = game.new_state(9)
        assert len(state.stock) == size and state.aside == () and state.redeals_left == 0
        assert state.observation().set_aside == 0


@pytest.mark.parametrize("skill", range(0, FULL_SKILL))
@pytest.mark.parametrize("empty", [False, True])
def test_skill_below_full_sets_the_end_of_the_stock_aside(skill: int, empty: bool) -> None:
    """Each point of skill below full sets STOCK_STEP cards aside: the last cards of the deal
    order, out of play, unseen, never dealt."""
    game = Tripeaks(skill=skill, empty_waste=empty)
    full = Tripeaks(empty_waste=empty)
    short, whole = game.new_state(77), full.new_state(77)
    aside = STOCK_STEP * (FULL_SKILL - skill)
    assert game.set_aside == aside == len(short.aside)
    assert short.stock == whole.stock[: len(whole.stock) - aside]  # the same deal, cut short
    assert short.aside == whole.stock[len(whole.stock) - aside :]
    assert short.tableau == whole.tableau and short.waste == whole.waste
    assert short.observation().stock == len(short.stock)
    assert short.observation().set_aside == aside
    # hidden from the player: the cards set aside are hidden cards, never in the observation
    assert {c.code for c in short.aside} <= short.hidden_codes()
    assert not {c.code for c in short.aside} & set(short.observation().code().split("."))
    # and never dealt: deal the stock out, the cards set aside are still out of play
    while short.stock and short.outcome is None:
        short.push_code("s")
    assert not set(short.aside) & set(short.waste)
    assert short.redeals_left == 0


@pytest.mark.parametrize("skill", range(FULL_SKILL + 1, 11))
def test_skill_above_full_adds_passes_through_the_stock(skill: int) -> None:
    game = Tripeaks(redeals=1, skill=skill)
    assert game.passes == 1 + skill - FULL_SKILL and game.set_aside == 0
    assert game.new_state(1).redeals_left == 1 + skill - FULL_SKILL


def test_skill_is_monotone_for_perfect_play() -> None:
    """More skill never makes a deal harder: with a longer stock (the same deal, not cut so
    short) every deal a lower skill wins is still won."""
    from skillcheck.games.tripeaks.solver import TriPeaksSolver

    solver = TriPeaksSolver()
    for seed in range(12):
        won = [
            solver.solve(Tripeaks(skill=s, peaks=2).new_state(seed)).result == "win"
            for s in range(0, FULL_SKILL + 1)
        ]
        assert won == sorted(won), (seed, won)


def test_a_short_stock_round_trips_its_position_code() -> None:
    game = Tripeaks(skill=3)
    state = game.new_state(5)
    for code in ("s", "s"):
        state.push_code(code)
    again = game.state_from_code(state.code())
    assert again.code() == state.code() and again.aside == state.aside
    assert again.stock == state.stock
    with pytest.raises(ParseError, match="sets 6 cards aside: this game sets 9"):
        Tripeaks(skill=3).state_from_code(Tripeaks(skill=4).new_state(5).code())
    with pytest.raises(ParseError, match="write them after the stock"):
        Tripeaks(skill=3).state_from_code(Tripeaks().new_state(5).code())


# ---- TriTowers (seed 003) ------------------------------------------------------------------------


def test_tritowers_all_face_up_with_wrap() -> None:
    """Seed 003: "3 pyramids. These Pyramids overlap, and are 4 rows high, using up a total of
    28 cards, all face up. There is 1 card turned up in the waste pile and there are 23 cards in
    the talon" and "When playing TriTowers, cards wrap around from King to Ace"."""
    game = Tripeaks(rules="tritowers")
    assert game.wrap is True and game.face_up is True and game.tritowers
    state = game.new_state(4)
    assert state.observation().face_down() == [] and len(state.stock) == 23
    assert len(state.waste) == 1
    assert state.hidden_codes() == {c.code for c in state.stock}
    # the rule set's defaults may be overridden
    assert Tripeaks(rules="tritowers", wrap=False).wrap is False


def tritowers_example() -> TripeaksState:
    # peak 1 (tip 0) holds 0, 3, 4, 9; peak 2 (tip 1) holds 1, 5, 6; peak 3 just its tip 2
    return position(Tripeaks(rules="tritowers"), *TRITOWERS_EXAMPLE)


TRITOWERS_EXAMPLE = (
    {5: "10H", 6: "JH", 4: "QH", 9: "6D", 3: "5D", 0: "4D", 1: "2S", 2: "2C"},
    ["9C"],
    ["7C", "KS"],
)


def test_the_seed_003_scoring_example_move_by_move() -> None:
    """Seed 003: "Move a card from the Pyramid. +1 point / Move another card from the Pyramid. +2
    points / Move another card from the Pyramid. +3 points / Deal from the talon. -5 points / Move
    a card from the Pyramid. +1 point / Move another card from the Pyramid. +2 points / Move
    another card from the Pyramid, clears the first pyramid +3 points, + 15 points"."""
    state = tritowers_example()
    steps = [("5", 1), ("6", 2), ("4", 3), ("s", -5), ("9", 1), ("3", 2), ("0", 3 + 15)]
    score = 0
    for code, gain in steps:
        state.push_code(code)
        score += gain
        assert state.score == score, f"after {code}"
    assert state.score == 22 and state.run == 3
    assert state.tips_gone == 1
    board = state.board()
    assert board.zone("p0").count == 0
    assert [m.text for m in board.meters if m.id in ("score", "run")] == [
        "22 points", "run of 3: the next card scores 4",
    ]  # fmt: skip


def test_the_run_scores_1_2_3_and_a_deal_costs_5_and_resets_it() -> None:
    """Seed 003: "The first card you move from a Pyramid gives you 1 point. The second ... 2
    points. The third ... 3 points. The fourth ... 4 points. etc. As soon as you deal a card from
    the Talon, you lose 5 points, and the sequence goes back to 1 point again."."""
    chain = ["7S", "8S", "9S", "10S", "9H", "10H", "JS", "10D", "9D", "8H"]
    game = Tripeaks(rules="tritowers")
    state = game.state_from_deal(deal_of(dict(zip(range(18, 28), chain, strict=True)), "6C"))
    for k, code in enumerate(["18", "19", "20", "21", "22"], 1):
        before = state.score
        state.push_code(code)
        assert state.score - before == k and state.run == k
    state.push_code("s")
    assert state.score == 15 - 5 and state.run == 0
    assert state.score < 15  # no floor at 0 either: a deal at the start scores -5
    fresh = game.new_state(9)
    fresh.push_code("s")
    assert fresh.score == -5


def test_peak_bonuses_15_15_and_30() -> None:
    """Seed 003: "You'll receive a bonus every time you completely demolish one of the three
    peaks" and "This first two pyramids you clear will give you 15 points each, and when you
    clear the final pyramid, you will get an extra 30 points". A peak is cleared when its tip is
    gone; every order of the three tips scores 15, 15, 30."""
    for order in itertools.permutations(range(3)):
        # the tips are free; they hold 5, 6, 7 in the order they are played onto the 4
        peaks = dict(zip(order, ["5S", "6S", "7S"], strict=True))
        state = position(Tripeaks(rules="tritowers"), peaks, ["4H"], ["KD", "QD"])
        gains = []
        for tip in order:
            before = state.score
            state.push_code(str(tip))
            gains.append(state.score - before)
        # the run's 1, 2, 3 plus the bonuses; the last card also wins: 5 for each stock card
        assert gains == [1 + 15, 2 + 15, 3 + 30 + 5 * 2], order
        assert state.status is Status.WON


def test_a_win_scores_a_bonus_for_each_card_left_in_the_stock() -> None:
    """Seed 003: "you'll also receive a bonus for each card that remains in the tableau when you
    win the game". When you win no tableau card remains; the bonus is read as for each card left
    in the stock (the talon), 5 points a card (the seed gives no amount: 5 is what dealing it
    would have cost). docs/games/tripeaks.md explains the reading."""
    game = Tripeaks(rules="tritowers")
    for stock in ([], ["KD"], ["KD", "QD", "JD", "2C"]):
        state = position(game, {0: "7S", 1: "-", 2: "-"}, ["6C"], stock)  # the last tip
        state.push_code("0")
        assert state.status is Status.WON
        assert state.score == 1 + 30 + 5 * len(stock)
        assert state.outcome is not None and state.outcome.degree == state.score


def test_tritowers_won_when_every_card_is_off_the_tableau() -> None:
    """Seed 003: "You win the game when you've removed all the cards from the tableau to the
    waste pile, demolishing the three peaks"."""
    game = Tripeaks(rules="tritowers")
    state = position(game, {0: "7S", 1: "8S", 2: "-"}, ["6C"], ["KD"])
    state.push_code("0")
    assert state.outcome is None
    state.push_code("1")
    assert state.status is Status.WON


def test_undo_restores_score_and_run() -> None:
    state = position(Tripeaks(rules="tritowers", undo="full"), *TRITOWERS_EXAMPLE)
    history = []
    for code in ["5", "6", "4", "s", "9", "3", "0"]:
        history.append((state.code(), state.score, state.run))
        state.push_code(code)
    for code, score, run in reversed(history):
        state.undo()
        assert (state.code(), state.score, state.run) == (code, score, run)


# ---- the check -----------------------------------------------------------------------------------


def test_peaks_to_clear_is_the_difficulty() -> None:
    game = Tripeaks(peaks=1)
    state = position(game, {1: "8S", 0: "KS", 2: "QH"}, ["7C"], ["2D", "3D"])
    state.push_code("1")
    assert state.status is Status.WON
    assert state.outcome is not None and state.outcome.degree == 2
    assert state.outcome.summary == "success: 1 peak cleared with 2 cards left in the stock"
    two = position(Tripeaks(peaks=2), {1: "8S", 0: "KS", 2: "QH"}, ["7C"], ["2D"])
    two.push_code("1")
    assert two.outcome is None
    two.concede()
    assert two.outcome is not None and two.outcome.degree == -1  # one more tip would do


def test_cards_needed_counts_the_cheapest_peaks() -> None:
    everything = set(range(28))
    assert cards_needed(everything, 3) == 28
    assert cards_needed(everything, 1) == 10
    assert cards_needed(everything, 2) == 19  # two cones share one bottom card
    assert cards_needed(everything - CONES[2], 1) == 0
    assert cards_needed({0, 1, 2, 5}, 2) == 2


def test_a_target_score_check() -> None:
    """For TriTowers, success is a target score: the game is played to its end (peaks cleared,
    or no move left) and succeeds if the score reached the target; the degree is the score
    minus the target."""
    game = Tripeaks(rules="tritowers", target=40)
    state = position(game, {18: "7S", 19: "KH"}, ["6C"], ["2D"])
    state.push_code("18")  # +1: 1 point; the game goes on
    assert state.outcome is None
    state.push_code("s")  # -5: -4 points, nothing fits the 2: the game is over
    assert state.status is Status.LOST
    assert state.outcome is not None and state.outcome.degree == -44
    assert "-4 points, 44 short of 40" in state.outcome.summary
    win = position(
        Tripeaks(rules="tritowers", target=30), {0: "7S", 1: "-", 2: "-"}, ["6C"], ["2D"]
    )
    win.push_code("0")  # 1 + 30 + 5
    assert win.status is Status.WON and win.outcome is not None and win.outcome.degree == 6
    low = position(
        Tripeaks(rules="tritowers", target=100), {0: "7S", 1: "-", 2: "-"}, ["6C"], ["2D"]
    )
    low.push_code("0")  # every card cleared, 36 points: not enough
    assert low.status is Status.LOST and low.outcome is not None
    assert low.outcome.degree == 36 - 100
    stuck = position(Tripeaks(rules="tritowers", target=1), {18: "7S", 19: "KH"}, ["6C"])
    stuck.push_code("18")  # 1 point, then nothing fits and the stock is empty: over, reached
    assert stuck.status is Status.WON and stuck.outcome is not None
    assert stuck.outcome.degree == 0


def test_check_parameters_are_checked() -> None:
    with pytest.raises(ParameterError, match="tritowers"):
        Tripeaks(target=50)
    with pytest.raises(ParameterError, match="peaks"):
        Tripeaks(rules="tritowers", target=50, peaks=2)
    with pytest.raises(ParameterError, match="peaks"):
        Tripeaks(peaks=4)
    with pytest.raises(ParameterError, match="rules"):
        Tripeaks(rules="klondike")
    with pytest.raises(ParameterError, match="wild"):
        Tripeaks(wild=5)
    with pytest.raises(ParameterError, match="wrap"):
        Tripeaks(wrap="yes")  # type: ignore[arg-type]
    assert Tripeaks(rules="TriTowers").rules == "tritowers"


def test_parameters_round_trip_and_examples_cover_every_variant() -> None:
    examples = Tripeaks.examples()
    keys = {k for params in examples for k in params}
    assert {"wrap", "face_up", "redeals", "wild", "empty_waste", "rules", "peaks", "skill",
            "target", "undo", "move_limit"} <= keys  # fmt: skip
    for params in examples:
        game = game_from_params("tripeaks", json.loads(json.dumps(params)))
        assert game_from_params("tripeaks", game_params(game)) == game
    assert game_params(Tripeaks(rules="tritowers"))["wrap"] is True


# ---- codes ---------------------------------------------------------------------------------------


@given(position_=st.integers(0, 27))
def test_move_codes_round_trip(position_: int) -> None:
    game = Tripeaks()
    move = TripeaksMove.card(position_)
    assert move.code == str(position_) and game.parse_move(move.code) == move
    assert game.move_json(move) == position_
    assert game.parse_move(f"p{position_}") == move


def test_stock_and_redeal_codes() -> None:
    game = Tripeaks()
    for code, json_ in (("s", "stock"), ("r", "redeal")):
        move = game.parse_move(code)
        assert move.code == code and move.code not in RESERVED_WORDS
        assert game.move_json(move) == json_
        assert game.parse_move(json_) == move


@pytest.mark.parametrize("code", ["", "28", "-1", "07", "x", "1 2", "p", "ss", "undo", "2.5"])
def test_bad_move_codes(code: str) -> None:
    with pytest.raises(ParseError, match="a move is a position"):
        Tripeaks().parse_move(code)


def test_position_and_observation_codes() -> None:
    game = Tripeaks()
    state = game.new_state(1)
    code = state.code()
    assert game.state_from_code(code).code() == code
    peaks, waste, stock, *numbers = code.split()
    assert peaks.split(".") == [c.code for c in state.tableau]
    assert waste == state.waste[0].code and stock.split(".") == [c.code for c in state.stock]
    assert numbers == ["0", "0", "0", "0"]
    observed = state.observation().code().split()
    assert observed[0].split(".")[:18] == ["#"] * 18
    assert observed[2] == "23"
    state.push_code("s")
    assert state.observation().code().split()[1] == f"{waste}.{state.waste[1].code}"


@pytest.mark.parametrize(
    ("code", "message"),
    [
        ("AS 2S", "a position is"),
        (".".join(["-"] * 27) + " - -", "27 items"),
        (".".join(["-"] * 28) + " AS -", "holds 1 card:"),
        (".".join(ALL_CODES[:28]) + " " + ".".join(ALL_CODES[28:51]) + " AS", "twice"),
        (".".join(ALL_CODES[:28]) + " " + ".".join(ALL_CODES[28:]) + " - x", "redeals left"),
        (".".join(ALL_CODES[:28]) + " " + ".".join(ALL_CODES[28:]) + " - 0 5", "score"),
        (".".join(ALL_CODES[:28]) + " ZZ." + ".".join(ALL_CODES[29:]) + " -", "cannot read"),
    ],
)  # fmt: skip
def test_bad_position_codes(code: str, message: str) -> None:
    with pytest.raises(ParseError, match=message):
        Tripeaks().state_from_code(code)


def test_parse_deal() -> None:
    game = Tripeaks()
    deal = game.deal(3)
    text = " ".join(c.code for c in deal)
    assert game.parse_deal(text) == deal
    assert game.parse_deal(text.replace(" ", ",")) == deal
    with pytest.raises(ParseError, match="51 cards"):
        game.parse_deal(" ".join(c.code for c in deal[:-1]))
    with pytest.raises(ParseError, match="twice"):
        game.parse_deal(" ".join(c.code for c in (*deal[:-1], deal[0])))
    with pytest.raises(ParseError, match="cannot read"):
        game.parse_deal(text.replace(deal[0].code, "1X", 1))


# ---- board and move views ------------------------------------------------------------------------


def test_board_zones_meters_and_move_views() -> None:
    game = Tripeaks()
    state = game.new_state(1)
    board = state.board()
    ids = [z.id for z in board.zones]
    assert ids == [f"p{i}" for i in range(28)] + ["stock", "waste"]
    labels = [board.zone(f"p{i}").label for i in range(28)]
    # where each card lies in a player's words, each place its own, no bare position numbers
    assert len(set(labels)) == 28
    assert labels[:3] == ["the left peak's tip", "the middle peak's tip", "the right peak's tip"]
    assert labels[3] == "the second row, 1st of 6 from the left"
    assert labels[17] == "the third row, 9th of 9 from the left"
    assert labels[20] == "the bottom row, 3rd of 10 from the left"
    assert labels[27] == "the bottom row, 10th of 10 from the left"
    for i in range(28):
        zone = board.zone(f"p{i}")
        assert zone.layout == "slot" and (zone.x, zone.y) == SLOTS[i] and not zone.accepts
        assert zone.cards == ((None,) if i < 18 else (state.tableau[i].code,))  # type: ignore[union-attr]
        assert zone.extras == {}  # the page rings what can move; a mark for "free" looked the same
    stock = board.zone("stock")
    assert (stock.layout, stock.cards, stock.count, stock.accepts) == ("pile", (), 23, False)
    waste = board.zone("waste")
    assert waste.layout == "pile" and waste.cards == (state.waste[0].code,) and waste.accepts
    texts = {m.id: m.text for m in board.meters}
    assert texts == {"cleared": "0 of 28 cleared", "peaks": "0 of 3 peaks cleared",
                     "stock": "23 cards in the stock"}  # fmt: skip
    for view in state.move_views():
        if view.code == "s":
            assert (view.source, view.target) == ("stock", "waste")
            assert view.text == f"turn up the stock's top card onto the {state.waste[0].name}"
        else:
            card = state.tableau[int(view.code)]
            assert card is not None
            assert (view.source, view.target) == (f"p{view.code}", "waste")
            assert view.text == f"the {card.name} from the peaks onto the {state.waste[0].name}"
    state.push(next(m for m in state.legal_moves if m.position is not None))
    board = state.board()
    moved = state.moves[-1].position
    assert board.zone(f"p{moved}").cards == () and board.zone(f"p{moved}").count == 0
    assert board.meters[0].text == "1 of 28 cleared"


def test_redeal_move_view() -> None:
    game = Tripeaks(redeals=2)
    state = position(game, {18: "7S", 19: "KH"}, ["AC", "2C", "9C"], [], filler="stock")
    while state.stock:
        state.push_code("s")
    view = next(v for v in state.move_views() if v.code == "r")
    assert view.source == "stock" and view.target is None
    assert view.text.startswith("turn the waste under its top card over as a new stock of")
    assert "1 redeal left after this" in view.text


def test_goal_and_describe_name_no_card() -> None:
    game = Tripeaks(wild=2, redeals=1, skill=FULL_SKILL + 1)
    text = game.goal_text() + game.describe()
    assert "2 of" not in text and "2S" not in text
    assert "Spade/Heart deuces" in game.goal_text()
    assert "turned over 2 times" in game.goal_text()


def test_the_fast_bot_wins_and_loses_sometimes() -> None:
    rng = random.Random(0)
    seeds = [rng.randrange(2**32) for _ in range(40)]
    results = [autoplay(Tripeaks(wrap=True), "fast", s).status for s in seeds]
    assert Status.WON in results and Status.LOST in results


def test_examples_play_to_an_end() -> None:
    for params in Tripeaks.examples():
        game = game_from_params("tripeaks", params)
        state = autoplay(game, "fast", 2)
        assert state.outcome is not None


def test_a_target_score_without_tritowers_names_the_rules_it_needs() -> None:
    """Worded for any front end (the CLI's --rules, the API's "rules"), not as rules=tritowers."""
    with pytest.raises(ParameterError, match=r'needs the TriTowers rules \(rules "tritowers"\)'):
        Tripeaks(target=60)


def test_with_a_target_score_the_score_meter_leads() -> None:
    """The first meter is the goal's own measure (the page draws it largest): with a target
    score that is the score, not the cards cleared; without one, the cards cleared lead."""
    scored = game_from_params("tripeaks", {"rules": "tritowers", "target": 20})
    assert [m.id for m in scored.new_state(1).board().meters][:1] == ["score"]
    assert scored.new_state(1).board().meters[0].target == 20
    plain = game_from_params("tripeaks", {"rules": "tritowers"})
    assert plain.new_state(1).board().meters[0].id == "cleared"
