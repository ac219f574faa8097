"""Tri Peaks (seeds 001 and 003): 28 cards in three overlapping peaks, cleared onto one waste pile.

The rules as implemented, with every interpretation of both seeds, are in docs/games/tripeaks.md.
In short: a free card of the peaks (no card covering it) goes onto the waste when it is one rank
above or below the waste's top card, whatever its suit; the stock is dealt one card at a time
onto the waste; the game is won when the peaks are gone (a peak is cleared when its tip is gone).

- ``rules="basic"`` (seed 001, "De tre tårn"): rows 0-2 face down, each turned face up when both
  cards covering it are gone; no King-Ace wrap; no redeal. Its variants are parameters: ``wrap``,
  ``face_up``, ``redeals``, ``wild`` and ``empty_waste``.
- ``rules="tritowers"`` (seed 003): every card face up, wrap on, and the seed's scoring: the k-th
  card in a row from the peaks scores k, a card dealt from the stock costs 5 and ends the run, the
  first two peaks cleared score 15 each and the last 30, and a win scores 5 for each card left in
  the stock.

As a skill check: ``peaks`` (1 to 3) peaks to clear, and ``wrap``, are the difficulty; ``skill``
(0 to 10) sizes the stock: at 6 the whole stock, 3 cards fewer (set aside unseen) for each point
below, a pass through the stock more for each point above; for TriTowers ``target`` is a score to
reach.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Any, ClassVar

from attrs import field, frozen

from skillcheck.board import Board, Meter, MoveView, Zone
from skillcheck.cards import refuse_repeated
from skillcheck.cards.standard import STANDARD, STANDARD_DECK, PlayingCard, StandardSuit
from skillcheck.engine import (
    EndReason,
    Game,
    Move,
    Observation,
    Outcome,
    ParameterSpec,
    State,
    Status,
    Tiers,
    UndoPolicy,
    int_in_range,
    is_bool,
    register_game,
    undo_policy,
    undo_spec,
)
from skillcheck.errors import ParameterError, ParseError, UnknownCardError, quoted
from skillcheck.games.tripeaks.layout import (
    COVERED_BY,
    POSITIONS,
    SLOTS,
    TIPS,
    cards_needed,
    place_words,
)
from skillcheck.rng import Pcg32, validate_seed
from skillcheck.words import counted

__all__ = [
    "DEAL_COST",
    "MAX_REDEALS",
    "MAX_SKILL",
    "MAX_TARGET",
    "PEAK_BONUS",
    "RULES",
    "STOCK_BONUS",
    "WILD_ORDER",
    "Tableau",
    "Tripeaks",
    "TripeaksMove",
    "TripeaksObservation",
    "TripeaksState",
    "fits",
    "free_positions",
    "is_face_up",
    "is_free",
    "legal_moves_of",
    "wild_cards",
]

#: The two rule sets: seed 001's basic form and seed 003's TriTowers.
RULES = ("basic", "tritowers")
#: The most times the stock may be turned over (``redeals``).
MAX_REDEALS = 10
#: A character's ``skill``, 0 to 10: at :data:`FULL_SKILL` the whole stock is dealt; each point
#: below it sets :data:`STOCK_STEP` stock cards aside, each point above it adds a pass through
#: the stock (docs/games/tripeaks.md, "The skill check").
MAX_SKILL = 10
FULL_SKILL = 6
STOCK_STEP = 3
#: The highest target score (the most a deal can score is 406 + 60 + 115 = 581).
MAX_TARGET = 1000
#: TriTowers: what dealing a card from the stock costs.
DEAL_COST = 5
#: TriTowers: the bonus of the first, second and third peak cleared.
PEAK_BONUS = (15, 15, 30)
#: TriTowers: the bonus for each card left in the stock when the game is won (the seed names no
#: amount; 5 is what dealing the card would have cost).
STOCK_BONUS = 5
#: The wild cards, in the order ``wild`` makes them wild: the 2 of Spades, Hearts, Diamonds, Clubs.
WILD_ORDER: tuple[PlayingCard, ...] = tuple(PlayingCard.of(2, suit) for suit in StandardSuit)

#: The tableau: the card at each of the 28 positions, None once it is gone.
Tableau = tuple[PlayingCard | None, ...]


def wild_cards(count: int) -> frozenset[PlayingCard]:
    """The wild cards of a game with ``wild`` = ``count``: the first ``count`` of the 2s in the
    order Spades, Hearts, Diamonds, Clubs."""
    return frozenset(WILD_ORDER[:count])


# ---- moves ---------------------------------------------------------------------------------------

STOCK = "s"
REDEAL = "r"
_WORDS = {"s": STOCK, "stock": STOCK, "r": REDEAL, "redeal": REDEAL}
_POSITION = re.compile(r"^p?(0|[1-9][0-9]?)$")


@frozen(order=True)
class TripeaksMove(Move):
    """A move: the card at ``position`` (0..27) onto the waste, or (``position`` None) the
    ``action`` ``"s"`` (deal the stock's top card onto the waste) or ``"r"`` (turn the waste
    over as a new stock, a redeal)."""

    position: int | None = None
    action: str = "card"

    @property
    def code(self) -> str:
        return str(self.position) if self.position is not None else self.action

    @classmethod
    def card(cls, position: int) -> TripeaksMove:
        return cls(position, "card")

    @classmethod
    def parse(cls, code: str) -> TripeaksMove:
        text = str(code).strip().lower()
        if text in _WORDS:
            return cls(None, _WORDS[text])
        match = _POSITION.match(text)
        if match is not None and int(match.group(1)) < POSITIONS:
            return cls(int(match.group(1)), "card")
        raise ParseError(
            f"cannot read move {quoted(code)}: a move is a position of the peaks, 0 to 27 (that "
            "card onto the waste), s (deal the stock's top card onto the waste) or r (redeal: the "
            "waste turned over as a new stock)"
        )

    def __str__(self) -> str:
        return self.code


DEAL_MOVE = TripeaksMove(None, STOCK)
REDEAL_MOVE = TripeaksMove(None, REDEAL)


# ---- rules on the visible table (shared by the state, the observation and the bots) -------------


def is_free(present: Sequence[bool], position: int) -> bool:
    """Whether the card at ``position`` is there and nothing covers it."""
    return present[position] and not any(present[j] for j in COVERED_BY[position])


def is_face_up(present: Sequence[bool], position: int, all_face_up: bool) -> bool:
    """Whether the card at ``position`` lies face up: always in the bottom row or when every
    card is dealt face up; otherwise once both cards covering it are gone."""
    return all_face_up or not any(present[j] for j in COVERED_BY[position])


def free_positions(present: Sequence[bool]) -> list[int]:
    """The positions whose cards are free (playable if their rank fits), in order."""
    return [i for i in range(POSITIONS) if is_free(present, i)]


def fits(card: PlayingCard, top: PlayingCard | None, wrap: bool, wild: int) -> bool:
    """Whether ``card`` may go onto the waste whose top card is ``top`` (None: an empty waste,
    where any card may go): one rank above or below, suits do not matter; with ``wrap`` the King
    and the Ace are neighbours; a wild card goes on anything and anything goes on it."""
    if top is None:
        return True
    if wild and (card in WILD_ORDER[:wild] or top in WILD_ORDER[:wild]):
        return True
    gap = abs(card.value - top.value)
    return gap == 1 or (wrap and gap == 12)


def legal_moves_of(
    cards: Sequence[PlayingCard | None],
    present: Sequence[bool],
    top: PlayingCard | None,
    stock: int,
    waste: int,
    redeals_left: int,
    wrap: bool,
    wild: int,
) -> Iterator[TripeaksMove]:
    """The legal moves, in order: the fitting free cards by position, then dealing, then a
    redeal. ``cards`` needs only the free cards (which are always face up). Nothing is legal
    once the peaks are gone."""
    if not any(present):
        return
    for position in free_positions(present):
        card = cards[position]
        if card is not None and fits(card, top, wrap, wild):
            yield TripeaksMove(position, "card")
    if stock:
        yield DEAL_MOVE
    elif redeals_left > 0 and waste > 1:
        yield REDEAL_MOVE


# ---- observation ---------------------------------------------------------------------------------


@frozen
class TripeaksObservation(Observation):
    """What the player sees: the face-up cards of the peaks (``peaks[i]`` None for a face-down
    card or a position whose card is gone; ``present`` says which), the waste pile (bottom first:
    every card in it was seen), how many cards the stock holds (never their order), the redeals
    left, the TriTowers score and run, and the two rules the legal moves need."""

    peaks: tuple[PlayingCard | None, ...]
    present: tuple[bool, ...]
    waste: tuple[PlayingCard, ...]
    stock: int
    redeals_left: int
    score: int
    run: int
    wrap: bool
    wild: int
    moves_made: int
    status: Status
    outcome: Outcome | None
    #: Cards of the deck out of play (a short stock, the skill check): never seen, never dealt.
    set_aside: int = 0

    @property
    def top(self) -> PlayingCard | None:
        """The waste's top card (None: the waste is empty)."""
        return self.waste[-1] if self.waste else None

    @property
    def left(self) -> int:
        """Cards still on the peaks."""
        return sum(self.present)

    @property
    def tips_gone(self) -> int:
        """Peaks cleared (their tips gone)."""
        return sum(not self.present[t] for t in TIPS)

    def face_down(self) -> list[int]:
        """The positions of face-down cards."""
        return [i for i in range(POSITIONS) if self.present[i] and self.peaks[i] is None]

    def legal_moves(self) -> list[TripeaksMove]:
        if self.outcome is not None:
            return []
        return list(
            legal_moves_of(
                self.peaks, self.present, self.top, self.stock, len(self.waste),
                self.redeals_left, self.wrap, self.wild,
            )
        )  # fmt: skip

    def code(self) -> str:
        """``<peaks> <waste> <stock count> <redeals left> <score> <run> <moves made>``: the
        peaks as 28 items separated by ``.`` (a card code, ``#`` face down, ``-`` gone), the
        waste bottom first (``-`` empty). docs/games/tripeaks.md, "Notation"."""
        peaks = ".".join(
            "-" if not here else ("#" if card is None else card.code)
            for card, here in zip(self.peaks, self.present, strict=True)
        )
        return " ".join(
            (peaks, _cards_code(self.waste), str(self.stock), str(self.redeals_left),
             str(self.score), str(self.run), str(self.moves_made))
        )  # fmt: skip


def _cards_code(cards: Sequence[PlayingCard]) -> str:
    return ".".join(c.code for c in cards) or "-"


# ---- the game ------------------------------------------------------------------------------------


def _rules(value: Any) -> str:
    text = str(value).strip().lower().replace("-", "").replace(" ", "")
    if text in RULES:
        return text
    raise ParameterError(
        "rules", f"rules {quoted(value)} is not allowed: rules is basic or tritowers"
    )


def _optional_bool(name: str) -> Any:
    def check(_instance: Any, _attribute: Any, value: Any) -> None:
        if value is not None and not isinstance(value, bool):
            raise ParameterError(
                name, f"{name} {quoted(value)} is not allowed: {name} is true, false or left out"
            )

    return check


@register_game
@frozen
class Tripeaks(Game[TripeaksMove]):
    """Tri Peaks: seed 001's basic form and its variants, or seed 003's TriTowers with its score.

    ``wrap`` and ``face_up`` left out (None) take the rule set's value: off in the basic form, on
    in TriTowers; after construction they are always True or False."""

    name: ClassVar[str] = "tripeaks"
    title: ClassVar[str] = "Tri Peaks"
    summary: ClassVar[str] = (
        "Three overlapping peaks of 28 cards cleared onto one waste pile, a card one rank above "
        "or below the top at a time; the check sets the peaks to clear, or a TriTowers score"
    )
    deck_name: ClassVar[str] = "standard"
    deal_order: ClassVar[str] = (
        "the peaks' positions 0 to 27 (row by row from the three tips down to the bottom row, "
        "left to right), then the first waste card, then the stock from its top card (with an "
        "empty waste: positions 0 to 27, then the stock from its top card)"
    )

    rules: str = field(default="basic", converter=_rules)
    wrap: bool | None = field(default=None, validator=_optional_bool("wrap"))
    face_up: bool | None = field(default=None, validator=_optional_bool("face_up"))
    redeals: int = field(default=0, validator=int_in_range("redeals", 0, MAX_REDEALS))
    wild: int = field(default=0, validator=int_in_range("wild", 0, len(WILD_ORDER)))
    empty_waste: bool = field(default=False, validator=is_bool("empty_waste"))
    peaks: int = field(default=3, validator=int_in_range("peaks", 1, 3))
    skill: int = field(default=FULL_SKILL, validator=int_in_range("skill", 0, MAX_SKILL))
    target: int | None = field(
        default=None, validator=int_in_range("target", 1, MAX_TARGET, optional=True)
    )
    undo: UndoPolicy = field(default=UndoPolicy.SAFE, converter=undo_policy)
    move_limit: int | None = field(
        default=None, validator=int_in_range("move_limit", 1, 100_000, optional=True)
    )

    def __attrs_post_init__(self) -> None:
        tritowers = self.rules == "tritowers"
        if self.wrap is None:
            object.__setattr__(self, "wrap", tritowers)
        if self.face_up is None:
            object.__setattr__(self, "face_up", tritowers)
        if self.target is not None and not tritowers:
            raise ParameterError(
                "target",
                "a target score needs the TriTowers rules (rules \"tritowers\"): only TriTowers "
                "keeps a score",
            )
        if self.target is not None and self.peaks != 3:
            raise ParameterError(
                "peaks",
                "peaks and target are two kinds of check: with a target score the game is "
                "played to its end (leave peaks at 3)",
            )

    # -- what the rules make of the parameters
    @property
    def tritowers(self) -> bool:
        """Whether TriTowers' scoring is kept."""
        return self.rules == "tritowers"

    @property
    def wraps(self) -> bool:
        """Whether King and Ace are neighbours (``wrap``, after the rule set's default)."""
        return bool(self.wrap)

    @property
    def all_face_up(self) -> bool:
        """Whether every card of the peaks is dealt face up (``face_up``, after the default)."""
        return bool(self.face_up)

    @property
    def passes(self) -> int:
        """How many times the stock may be turned over: ``redeals``, plus a pass for each point
        of ``skill`` above :data:`FULL_SKILL`."""
        return self.redeals + max(0, self.skill - FULL_SKILL)

    @property
    def full_stock(self) -> int:
        """The stock of a whole deal: 23 cards, or 24 with an empty waste."""
        return len(STANDARD) - POSITIONS - (0 if self.empty_waste else 1)

    @property
    def stock_size(self) -> int:
        """The cards dealt to the stock: the whole stock at :data:`FULL_SKILL` or more,
        :data:`STOCK_STEP` fewer for each point of ``skill`` below it."""
        return self.full_stock - STOCK_STEP * max(0, FULL_SKILL - self.skill)

    @property
    def set_aside(self) -> int:
        """The cards of the deal left out of play, unseen (the end of the deal order)."""
        return self.full_stock - self.stock_size

    @property
    def wild_set(self) -> frozenset[PlayingCard]:
        return wild_cards(self.wild)

    # -- hooks for front ends
    @classmethod
    def parameters(cls) -> tuple[ParameterSpec, ...]:
        return (
            ParameterSpec("rules", "choice", "basic",
                          "the rule set: basic (the lower rows face down, no King-Ace wrap) "
                          "or tritowers (every card face up, wrap, scored)", choices=RULES),
            ParameterSpec("wrap", "bool", None,
                          "whether an Ace goes on a King and a King on an Ace (left out: off "
                          "in basic, on in tritowers)", optional=True),
            ParameterSpec("face_up", "bool", None,
                          "whether every card of the peaks is dealt face up (left out: off in "
                          "basic, on in tritowers)", optional=True),
            ParameterSpec("redeals", "int", 0,
                          "times the waste, under its top card, may be turned over as a new "
                          "stock once the stock is empty", 0, MAX_REDEALS),
            ParameterSpec("wild", "int", 0,
                          "wild 2s: 1 makes the 2 of Spades wild, then Hearts, Diamonds, Clubs; "
                          "a wild card goes on any card and any card on it", 0, len(WILD_ORDER)),
            ParameterSpec("empty_waste", "bool", False,
                          "start with an empty waste: any free card may be the first (the stock "
                          "holds 24 cards)"),
            ParameterSpec("peaks", "int", 3,
                          "the check's difficulty: peaks to clear to succeed (3: every card)",
                          1, 3),
            ParameterSpec("skill", "int", FULL_SKILL,
                          f"the character's skill: {FULL_SKILL} deals the whole stock, each point "
                          f"below sets {STOCK_STEP} stock cards aside unseen, each point above "
                          "adds a pass through the stock", 0, MAX_SKILL),
            ParameterSpec("target", "int", None,
                          "with the TriTowers rules only: the score to reach by the end of the "
                          "game (none: clear the peaks)", 1, MAX_TARGET, optional=True,
                          applies_if=("rules", ("tritowers",))),
            undo_spec(),
            ParameterSpec("move_limit", "int", None, "moves allowed before the check is lost",
                          1, 100_000, optional=True),
        )  # fmt: skip

    @classmethod
    def examples(cls) -> tuple[dict[str, Any], ...]:
        return (
            {},
            {"wrap": True},
            {"face_up": True},
            {"redeals": 2},
            {"wild": 4},
            {"wild": 1, "wrap": True},
            {"empty_waste": True},
            {"rules": "tritowers"},
            {"rules": "tritowers", "target": 60},
            {"rules": "tritowers", "empty_waste": True, "redeals": 1},
            {"peaks": 1},
            {"peaks": 2, "skill": 2},
            {"skill": 0},
            {"rules": "tritowers", "target": 40, "skill": 4},
            {"skill": 7, "undo": "off"},
            {"wrap": True, "move_limit": 40},
        )

    def default_tiers(self) -> Tiers:
        """Target: a critical success scores at least twice the target and 60 over it, a
        critical failure ends 30 points or more below zero. Peaks: a critical success leaves a
        third of the stock plus two cards per peak not needed (a TriTowers win: 100 points); a
        critical failure leaves more than a fifth of the cards the peaks needed
        (docs/games/tripeaks.md)."""
        if self.target is not None:
            return Tiers(max(self.target, 60), -(self.target + 30))
        needed = cards_needed(set(range(POSITIONS)), self.peaks)
        best = 100 if self.tritowers else self.stock_size // 3 + 2 * (3 - self.peaks)
        return Tiers(best, -(needed // 5 + 1))

    def describe(self) -> str:
        parts = [f"{self.title}, {'TriTowers' if self.tritowers else 'basic form'}"]
        if self.wraps != self.tritowers:
            parts.append("King-Ace wrap" if self.wraps else "no King-Ace wrap")
        if self.all_face_up != self.tritowers:
            parts.append("all face up" if self.all_face_up else "rows 1-3 face down")
        if self.redeals:
            parts.append(counted(self.redeals, "redeal"))
        if self.wild:
            parts.append(counted(self.wild, "wild 2"))
        if self.empty_waste:
            parts.append("empty waste")
        if self.target is not None:
            parts.append(f"check: {counted(self.target, 'point')}")
        elif self.peaks < 3:
            parts.append(f"check: {counted(self.peaks, 'peak')}")
        if self.skill < FULL_SKILL:
            parts.append(
                f"skill {self.skill} ({counted(self.stock_size, 'stock card')}, "
                f"{self.set_aside} set aside)"
            )
        elif self.skill > FULL_SKILL:
            parts.append(
                f"skill {self.skill} ({counted(self.skill - FULL_SKILL, 'extra pass', 'es')})"
            )
        if self.move_limit is not None:
            parts.append(f"at most {counted(self.move_limit, 'move')}")
        if not self.undo:
            parts.append("no undo")
        return ", ".join(parts)

    def goal_text(self) -> str:
        if self.target is not None:
            goal = f"Score at least {counted(self.target, 'point')} by the end of the game."
        elif self.peaks == 3:
            goal = "Clear all three peaks: every card of the peaks onto the waste."
        else:
            goal = (
                f"Clear {self.peaks} of the three peaks (a peak is cleared when its tip is gone)."
            )
        rule = (
            " A free card goes onto the waste when it is one rank above or below the top card, "
            "whatever its suit"
        )
        rule += "; King and Ace are neighbours." if self.wraps else "; no King-Ace wrap."
        if self.wild:
            suits = [s.title[:-1] for s in StandardSuit][: self.wild]
            rule += f" Wild ({'/'.join(suits)} deuces): on any card, and any card on them."
        passes = self.passes
        if self.set_aside:
            rule += (
                f" The stock holds {counted(self.stock_size, 'card')}; "
                f"{self.set_aside} more are set aside unseen."
            )
        rule += " Deal from the stock when stuck"
        rule += f"; the stock may be turned over {counted(passes, 'time')}." if passes else "."
        if self.tritowers:
            rule += (
                " Scoring: the k-th card in a row from the peaks scores k, a stock card costs "
                f"{DEAL_COST}, peaks score {PEAK_BONUS[0]}, {PEAK_BONUS[1]} and {PEAK_BONUS[2]}, "
                f"and a win {STOCK_BONUS} for each card left in the stock."
            )
        return goal + rule

    def move_json(self, move: TripeaksMove) -> Any:
        if move.position is not None:
            return move.position
        return "stock" if move.action == STOCK else "redeal"

    def board(self, observation: TripeaksObservation) -> Board:
        zones: list[Zone] = []
        for position in range(POSITIONS):
            x, y = SLOTS[position]
            label = place_words(position)
            here = observation.present[position]
            card = observation.peaks[position]
            cards: tuple[str | None, ...] = ((card.code if card else None),) if here else ()
            # (no mark for a free card: the page rings the cards that can move now, and a free
            # card that cannot move looked the same as one that can)
            zones.append(
                Zone(f"p{position}", label, "slot", cards, 1 if here else 0, accepts=False,
                     x=x, y=y)
            )  # fmt: skip
        zones.append(Zone("stock", "Stock", "pile", (), observation.stock, accepts=False))
        # At a win the waste, which holds every card played, is the winning pile.
        won = {"won": True} if observation.status is Status.WON else {}
        zones.append(
            Zone("waste", "Waste", "pile", tuple(c.code for c in observation.waste),
                 len(observation.waste), extras=won)
        )  # fmt: skip
        removed = POSITIONS - observation.left
        goal_peaks = self.peaks if self.target is None else 3
        meters = [
            Meter("cleared", "Cards", removed, POSITIONS, f"{removed} of {POSITIONS} cleared"),
            Meter("peaks", "Peaks", observation.tips_gone, goal_peaks,
                  f"{observation.tips_gone} of {counted(goal_peaks, 'peak')} cleared"),
            Meter("stock", "Stock", observation.stock, None,
                  f"{counted(observation.stock, 'card')} in the stock"
                  + (f", {counted(observation.redeals_left, 'redeal')} left"
                     if self.passes else "")
                  + (f" ({self.set_aside} set aside)" if self.set_aside else "")),
        ]  # fmt: skip
        if self.tritowers:
            score = observation.score
            text = (
                counted(score, "point")
                if self.target is None
                else f"{score} of {counted(self.target, 'point')}"
            )
            meters.append(Meter("score", "Score", score, self.target, text))
            run = observation.run
            meters.append(
                Meter("run", "Run", run, None, f"run of {run}: the next card scores {run + 1}")
            )
        if self.target is not None:  # the goal is the score: its meter leads (drawn largest)
            meters.sort(key=lambda meter: meter.id != "score")
        return Board(tuple(zones), tuple(meters), goal=self.goal_text(), one_tap=True)

    def move_view(self, observation: TripeaksObservation, move: TripeaksMove) -> MoveView:
        top = observation.top
        onto = f"onto the {top.name}" if top is not None else "onto the empty waste"
        if move.position is not None:
            card = observation.peaks[move.position]
            moved = f"the {card.name}" if card is not None else "a face-down card"
            if card is not None and card in self.wild_set:
                moved += " (wild)"
            text = f"{moved} from the peaks {onto}"
            if self.tritowers:
                text += f" (+{observation.run + 1})"
            return MoveView(move.code, f"p{move.position}", "waste", text)
        if move.action == STOCK:
            text = f"turn up the stock's top card {onto}"
            if self.tritowers:
                text += f" (-{DEAL_COST}, ends the run)"
            return MoveView(move.code, "stock", "waste", text)
        left = observation.redeals_left - 1
        size = len(observation.waste) - 1
        return MoveView(
            move.code, "stock", None,
            f"turn the waste under its top card over as a new stock of {counted(size, 'card')} "
            f"({counted(left, 'redeal')} left after this)",
        )  # fmt: skip

    # -- cards and chance
    def deal(self, seed: int) -> tuple[PlayingCard, ...]:
        """The 52 cards in :attr:`deal_order` for ``seed``: the standard deck in canonical order,
        shuffled with PCG32 (docs/rng.md)."""
        cards = list(STANDARD)
        Pcg32(validate_seed(seed)).shuffle(cards)
        return tuple(cards)

    def new_state(self, seed: int | None = None) -> TripeaksState:
        state = super().new_state(seed)
        assert isinstance(state, TripeaksState)
        return state

    def state_from_deal(
        self, deal: Sequence[PlayingCard | str], seed: int | None = None
    ) -> TripeaksState:
        cards = _read_cards(deal, "the deal")
        _check_all(cards, "the deal")
        tableau: Tableau = tuple(cards[:POSITIONS])
        rest = cards[POSITIONS:]
        waste: tuple[PlayingCard, ...] = () if self.empty_waste else (rest[0],)
        stock = rest if self.empty_waste else rest[1:]
        size = self.stock_size
        return TripeaksState(
            self, tableau, waste, tuple(stock[:size]), self.passes, seed=seed,
            deal=tuple(cards), aside=tuple(stock[size:]),
        )  # fmt: skip

    def parse_move(self, code: str) -> TripeaksMove:
        return TripeaksMove.parse(code)

    def parse_deal(self, text: str) -> tuple[PlayingCard, ...]:
        """52 cards in :attr:`deal_order`: codes separated by spaces (``AS 10H KD ...``), or
        codes or names separated by commas (``Ace of Spades, 10 of Hearts, ...``)."""
        try:
            cards = STANDARD_DECK.parse_all(str(text))
        except UnknownCardError as exc:
            raise ParseError(f"cannot read a card of the deal: {exc}") from None
        _check_all(cards, "the deal")
        return cards

    def state_from_code(self, code: str) -> TripeaksState:
        """A state from a position code (docs/games/tripeaks.md, "Notation"):
        ``<peaks> <waste> <stock> [<set aside>] [<redeals left> [<score> [<run> [<moves
        made>]]]]``, the peaks as 28 items separated by ``.`` (a card code, or ``-`` for a card
        gone), the waste bottom first and the stock top first, ``-`` when empty; the cards set
        aside are there exactly when the game sets cards aside (a ``skill`` below full)."""
        fields = str(code).split()
        aside: tuple[PlayingCard, ...] = ()
        if self.set_aside and len(fields) >= 4 and not fields[3].lstrip("-").isdecimal():
            aside = _read_pile(fields.pop(3), "the cards set aside")
            if len(aside) != self.set_aside:
                raise ParseError(
                    f"the position sets {counted(len(aside), 'card')} aside: this game sets "
                    f"{self.set_aside} aside (skill {self.skill})"
                )
        elif self.set_aside:
            raise ParseError(
                f"this game sets {counted(self.set_aside, 'card')} aside: write them after the "
                "stock"
            )
        if not 3 <= len(fields) <= 7:
            raise ParseError(
                f"cannot read position {quoted(code)}: a position is "
                '"<peaks> <waste> <stock> <redeals left> <score> <run> <moves made>", the peaks '
                'as 28 items separated by "." (a card code or "-")'
            )
        items = fields[0].split(".")
        if len(items) != POSITIONS:
            raise ParseError(
                f'the peaks hold {counted(len(items), "item")}: write {POSITIONS}, "." between'
            )
        tableau: Tableau = tuple(None if i == "-" else _read_card(i, "the peaks") for i in items)
        waste = _read_pile(fields[1], "the waste")
        stock = _read_pile(fields[2], "the stock")
        _check_all(
            [c for c in tableau if c is not None] + list(waste) + list(stock) + list(aside),
            "the position",
        )
        numbers = []
        for text, what in zip(
            fields[3:], ("redeals left", "score", "run", "moves made"), strict=False
        ):
            if not re.fullmatch(r"-?[0-9]+", text) or (what != "score" and text.startswith("-")):
                raise ParseError(f"cannot read {what} {quoted(text)}: write a whole number")
            numbers.append(int(text))
        redeals_left, score, run, made = (numbers + [self.passes, 0, 0, 0][len(numbers) :])[:4]
        if not self.tritowers and (score or run):
            raise ParseError("only TriTowers keeps a score: score and run must be 0")
        return TripeaksState(
            self, tableau, waste, stock, redeals_left, score, run, moves_made=made, aside=aside
        )


def _read_card(item: Any, what: str) -> PlayingCard:
    try:
        return PlayingCard.parse(item)
    except UnknownCardError as exc:
        raise ParseError(f"cannot read a card of {what}: {exc}") from None


def _read_cards(items: Sequence[Any], what: str) -> tuple[PlayingCard, ...]:
    return tuple(_read_card(item, what) for item in items)


def _read_pile(text: str, what: str) -> tuple[PlayingCard, ...]:
    if text == "-":
        return ()
    return _read_cards(text.split("."), what)


def _check_all(cards: Sequence[PlayingCard], what: str) -> None:
    refuse_repeated(cards, what, written=lambda card: card.code)
    if len(cards) != len(STANDARD):
        missing = [c.code for c in STANDARD if c not in set(cards)]
        raise ParseError(
            f"{what} holds {counted(len(cards), 'card')}: it must hold all 52 of the standard "
            f"deck (missing {', '.join(missing[:8])}{' ...' if len(missing) > 8 else ''})"
        )


# ---- the state -----------------------------------------------------------------------------------


class TripeaksState(State[TripeaksMove]):
    """A Tri Peaks position: the peaks (a card or None at each position), the waste (bottom
    first), the stock (top first), the redeals left, and TriTowers' score and run."""

    game: Tripeaks

    def __init__(
        self,
        game: Tripeaks,
        tableau: Tableau,
        waste: tuple[PlayingCard, ...],
        stock: tuple[PlayingCard, ...],
        redeals_left: int,
        score: int = 0,
        run: int = 0,
        *,
        seed: int | None = None,
        deal: tuple[PlayingCard, ...] | None = None,
        moves_made: int = 0,
        aside: tuple[PlayingCard, ...] = (),
    ) -> None:
        super().__init__(game, seed, deal)
        self._aside = aside
        self._tableau = tableau
        self._waste = waste
        self._stock = stock
        self._redeals_left = redeals_left
        self._score = score
        self._run = run
        self._offset = moves_made
        self._outcome = self._evaluate()

    # -- reading the position
    @property
    def tableau(self) -> Tableau:
        return self._tableau

    @property
    def waste(self) -> tuple[PlayingCard, ...]:
        return self._waste

    @property
    def stock(self) -> tuple[PlayingCard, ...]:
        """The stock from its top card (hidden from the player)."""
        return self._stock

    @property
    def aside(self) -> tuple[PlayingCard, ...]:
        """The cards set aside, out of play for the whole game (hidden from the player)."""
        return self._aside

    @property
    def redeals_left(self) -> int:
        return self._redeals_left

    @property
    def score(self) -> int:
        """TriTowers' score (0 in the basic form)."""
        return self._score

    @property
    def run(self) -> int:
        """Cards moved from the peaks since the last card dealt (TriTowers' run)."""
        return self._run

    @property
    def present(self) -> tuple[bool, ...]:
        return tuple(c is not None for c in self._tableau)

    @property
    def left(self) -> int:
        return sum(c is not None for c in self._tableau)

    @property
    def tips_gone(self) -> int:
        return sum(self._tableau[t] is None for t in TIPS)

    def face_up(self, position: int) -> bool:
        """Whether the card at ``position`` (if there) lies face up."""
        return is_face_up(self.present, position, self.game.all_face_up)

    def observation(self) -> TripeaksObservation:
        return self._observation(reveal=False)

    def revealed_observation(self) -> TripeaksObservation:
        """Once the game is over, every card still in the peaks face up (before, the
        player's observation: nothing hidden is shown while the game goes on)."""
        return self._observation(reveal=self.status is not Status.IN_PROGRESS)

    def _observation(self, *, reveal: bool) -> TripeaksObservation:
        present = self.present
        up = self.game.all_face_up or reveal
        peaks = tuple(
            card if card is not None and is_face_up(present, i, up) else None
            for i, card in enumerate(self._tableau)
        )
        return TripeaksObservation(
            peaks, present, self._waste, len(self._stock), self._redeals_left, self._score,
            self._run, self.game.wraps, self.game.wild, self.moves_made, self.status,
            self._outcome, len(self._aside),
        )  # fmt: skip

    def hidden_codes(self) -> frozenset[str]:
        present = self.present
        up = self.game.all_face_up
        down = {
            c.code
            for i, c in enumerate(self._tableau)
            if c is not None and not is_face_up(present, i, up)
        }
        return frozenset(down | {c.code for c in (*self._stock, *self._aside)})

    def code(self) -> str:
        peaks = ".".join("-" if c is None else c.code for c in self._tableau)
        aside = (_cards_code(self._aside),) if self.game.set_aside else ()
        return " ".join(
            (peaks, _cards_code(self._waste), _cards_code(self._stock), *aside,
             str(self._redeals_left), str(self._score), str(self._run), str(self.moves_made))
        )  # fmt: skip

    # -- rules hooks
    def _top(self) -> PlayingCard | None:
        return self._waste[-1] if self._waste else None

    def _move_error(self, move: TripeaksMove) -> str | None:
        if self.left == 0:
            return "the peaks are gone: nothing is left to play"
        top = self._top()
        if move.position is not None:
            position = move.position
            if not 0 <= position < POSITIONS:
                return f"there is no position {position}: the peaks are numbered 0 to 27"
            card = self._tableau[position]
            if card is None:
                return (
                    f"no card is left at {place_words(position)} (position {position}): it is "
                    "already on the waste"
                )
            covering = [j for j in COVERED_BY[position] if self._tableau[j] is not None]
            if covering:
                over = " and ".join(map(str, covering))
                return (
                    f"the card at {place_words(position)} (position {position}) is not free: "
                    + (f"the cards at positions {over} still cover it" if len(covering) > 1
                       else f"the card at position {over} still covers it")
                )  # fmt: skip
            if not fits(card, top, self.game.wraps, self.game.wild):
                assert top is not None
                edge = "" if self.game.wraps else " (no King-Ace wrap in this game)"
                return (
                    f"{card.label} cannot go onto {top.label}: a card goes onto the waste only "
                    f"one rank above or below its top card{edge}"
                )
            return None
        if move.action == STOCK:
            return None if self._stock else "the stock is empty"
        if move.action == REDEAL:
            if self.game.passes == 0 and self._redeals_left <= 0:
                # (a position may carry redeals of its own: only the refusal's words change)
                return "this check allows no redeal: the stock is dealt through once"
            if self._stock:
                return "the stock is not empty yet: a redeal turns the waste over once it is"
            if self._redeals_left <= 0:
                return "no redeal is left: the stock may not be turned over again"
            if len(self._waste) < 2:
                return "the waste has no card under its top card to turn over"
            return None
        return (
            f"{quoted(move.code)} is not a Tri Peaks move: a move is a position of the peaks, 0 "
            "to 27, s (deal) or r (redeal)"
        )

    def _board_won(self) -> bool:
        if self.game.target is not None:
            return self.left == 0
        return self.tips_gone >= self.game.peaks

    def _apply(self, move: TripeaksMove) -> None:
        tritowers = self.game.tritowers
        if move.position is not None:
            card = self._tableau[move.position]
            assert card is not None
            tableau = list(self._tableau)
            tableau[move.position] = None
            self._tableau = tuple(tableau)
            self._waste = (*self._waste, card)
            if tritowers:
                self._run += 1
                self._score += self._run
                if move.position in TIPS:
                    self._score += PEAK_BONUS[self.tips_gone - 1]
                if self._board_won():
                    self._score += STOCK_BONUS * len(self._stock)
        elif move.action == STOCK:
            self._waste = (*self._waste, self._stock[0])
            self._stock = self._stock[1:]
            if tritowers:
                self._score -= DEAL_COST
                self._run = 0
        else:
            self._stock = self._waste[:-1]
            self._waste = self._waste[-1:]
            self._redeals_left -= 1
            self._run = 0

    def _generate_moves(self) -> Iterator[TripeaksMove]:
        return legal_moves_of(
            self._tableau, self.present, self._top(), len(self._stock), len(self._waste),
            self._redeals_left, self.game.wraps, self.game.wild,
        )  # fmt: skip

    def _goal_outcome(self) -> Outcome | None:
        game = self.game
        if game.target is not None:
            over = self.left == 0 or not any(True for _ in self._generate_moves())
            if not over or self._score < game.target:
                return None
            how = (
                "all three peaks cleared with"
                if self.left == 0
                else "the stock is used up and no free card fits;"
            )
            return Outcome(
                Status.WON, EndReason.GOAL, self._score - game.target,
                f"success: {how} {counted(self._score, 'point')}, "
                f"{self._score - game.target} over the target of {game.target}",
            )  # fmt: skip
        if self.tips_gone < game.peaks:
            return None
        what = (
            "all three peaks cleared"
            if game.peaks == 3
            else f"{counted(game.peaks, 'peak')} cleared"
        )
        left = counted(len(self._stock), "card")
        if game.tritowers:
            return Outcome(
                Status.WON, EndReason.GOAL, self._score,
                f"success: {what} with {left} left in the stock; "
                f"{counted(self._score, 'point')}",
            )  # fmt: skip
        return Outcome(
            Status.WON, EndReason.GOAL, len(self._stock),
            f"success: {what} with {left} left in the stock",
        )  # fmt: skip

    def _loss_outcome(self, reason: EndReason) -> Outcome:
        game = self.game
        limit = game.move_limit
        why = {
            EndReason.MOVE_LIMIT: f"the move limit of {limit} was reached",
            EndReason.NO_LEGAL_MOVES: (
                "all three peaks are cleared, so the game is over" if self.left == 0
                else "the stock is used up and no free card fits"
            ),
            EndReason.CONCEDED: f"the player conceded after {counted(self.moves_made, 'move')}",
            EndReason.UNWINNABLE: "the peaks can no longer be cleared with the cards left",
        }.get(reason, reason.value)  # fmt: skip
        if game.target is not None:
            short = game.target - self._score
            return Outcome(
                Status.LOST, reason, self._score - game.target,
                f"failure: {why}; {counted(self._score, 'point')}, {short} short of "
                f"{game.target}",
            )  # fmt: skip
        present = {i for i, c in enumerate(self._tableau) if c is not None}
        needed = cards_needed(present, game.peaks)
        text = f"failure: {why}; {counted(needed, 'card')} still to clear"
        if game.tritowers:
            text += f"; {counted(self._score, 'point')}"
        return Outcome(Status.LOST, reason, -needed, text)

    def _snapshot(self) -> tuple[Any, ...]:
        return (
            self._tableau, self._waste, self._stock, self._redeals_left, self._score, self._run,
        )  # fmt: skip

    def _restore(self, snapshot: tuple[Any, ...]) -> None:
        (
            self._tableau, self._waste, self._stock, self._redeals_left, self._score, self._run,
        ) = snapshot  # fmt: skip

    def _copy_position(self) -> TripeaksState:
        other = TripeaksState.__new__(TripeaksState)
        State.__init__(other, self.game, self.seed, self.deal)
        other._aside = self._aside
        other._tableau, other._waste, other._stock = self._tableau, self._waste, self._stock
        other._redeals_left, other._score, other._run = (
            self._redeals_left, self._score, self._run,
        )  # fmt: skip
        return other
