"""Tower of Hanoy (seed 004): nine cards in three columns, rebuilt as one tower.

The rules as implemented, with every interpretation, are in docs/games/hanoy.md. In short: the
cards 2..10 (or Ace..9) of one suit are dealt face up into three columns; a move takes the
exposed card of a column onto an empty column or onto a higher exposed card; the game is won
when one column holds every card in sequence, the highest at the covered end. Nothing is hidden.

As a skill check (``skill`` set) the player has an allowance of moves: the deal's minimum (found
by breadth-first search when the state is created; public, as everything is) plus ``skill``.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Iterator, Sequence
from typing import Any, ClassVar

from attrs import field, frozen

from skillcheck.board import Board, Meter, MoveView, Zone
from skillcheck.cards import refuse_repeated
from skillcheck.cards.standard import PlayingCard, StandardSuit, parse_standard_cards
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
    register_game,
    undo_policy,
    undo_spec,
)
from skillcheck.errors import ParameterError, ParseError, UnknownCardError, quoted
from skillcheck.games.hanoy.search import (
    Key,
    column_sizes,
    key_of,
    pack,
    shortest_line,
    winning_column,
)
from skillcheck.rng import Pcg32, validate_seed
from skillcheck.words import counted

__all__ = [
    "COLUMNS",
    "MAX_CARDS",
    "MAX_SKILL",
    "MIN_CARDS",
    "RANKS",
    "SUIT",
    "Columns",
    "Hanoy",
    "HanoyMove",
    "HanoyObservation",
    "HanoyState",
    "apply_move",
    "legal_moves_of",
    "tower_height",
]

#: The number of columns.
COLUMNS = 3
MIN_CARDS, MAX_CARDS = 3, 9
#: The largest skill (spare moves over the deal's minimum).
MAX_SKILL = 500
#: The two card ranges: the seed's 2 to 10, and Ace to 9 (its variant).
RANKS: dict[str, tuple[int, ...]] = {"2-10": tuple(range(2, 11)), "A-9": tuple(range(1, 10))}
#: Suits do not matter in this game; every card dealt is a Spade.
SUIT = StandardSuit.SPADES
#: The search budget (positions) for "moves still needed" in a lost check's degree. A deal's
#: positions number a few thousand; only a hand-written position code can need more.
DEGREE_SEARCH_STATES = 1_000_000

Columns = tuple[tuple[PlayingCard, ...], ...]

_RANK_CHARS = {1: "A", 10: "T", **{v: str(v) for v in range(2, 10)}}
_CHAR_RANKS = {c: v for v, c in _RANK_CHARS.items()}


def _rank_name(card: PlayingCard) -> str:
    return f"the {card.rank.label}"


# ---- moves ---------------------------------------------------------------------------------------

_MOVE_CODE = re.compile(r"^\s*([1-3])\s*(?:-|>|->|\s)?\s*([1-3])\s*$")


@frozen(order=True)
class HanoyMove(Move):
    """Move the exposed card of column ``source`` onto column ``target`` (columns 1..3).

    The code is the two column numbers: ``13`` moves column 1's exposed card onto column 3."""

    source: int
    target: int

    @property
    def code(self) -> str:
        return f"{self.source}{self.target}"

    @classmethod
    def parse(cls, code: str) -> HanoyMove:
        match = _MOVE_CODE.match(str(code))
        if match is None:
            raise ParseError(
                f"cannot read move {quoted(code)}: a move is two column numbers 1-3, from and to, "
                "e.g. 13 (the exposed card of column 1 onto column 3)"
            )
        return cls(int(match.group(1)), int(match.group(2)))

    def __str__(self) -> str:
        return self.code


# ---- rules on visible columns (shared by state, observation and bots) ---------------------------


def _placement_error(card: PlayingCard, column: tuple[PlayingCard, ...], target: int) -> str | None:
    if not column:
        return None
    below = column[-1]
    if card.value < below.value:
        return None
    return (
        f"{_rank_name(card)} cannot go onto {_rank_name(below)} in column {target}: a card goes "
        "only onto a card of higher rank, or into an empty column"
    )


def _move_error(columns: Columns, move: HanoyMove) -> str | None:
    for number in (move.source, move.target):
        if not 1 <= number <= COLUMNS:
            return f"there is no column {number}: the columns are numbered 1 to {COLUMNS}"
    if move.source == move.target:
        return f"a card cannot move from column {move.source} onto the same column"
    source = columns[move.source - 1]
    if not source:
        return f"column {move.source} is empty: there is no card to move"
    return _placement_error(source[-1], columns[move.target - 1], move.target)


def legal_moves_of(columns: Columns) -> Iterator[HanoyMove]:
    """The legal moves of a position, by source column then target column."""
    for source, column in enumerate(columns, 1):
        if not column:
            continue
        for target, other in enumerate(columns, 1):
            if target != source and (not other or other[-1].value > column[-1].value):
                yield HanoyMove(source, target)


def apply_move(columns: Columns, move: HanoyMove) -> Columns:
    """The columns after a (legal) move."""
    result = list(columns)
    card = result[move.source - 1][-1]
    result[move.source - 1] = result[move.source - 1][:-1]
    result[move.target - 1] = (*result[move.target - 1], card)
    return tuple(result)


def tower_height(columns: Columns, cards: int) -> int:
    """How many cards lie in sequence at the covered end of a column, from the highest rank
    down: the goal is reached when it is ``cards``."""
    values = sorted((c.value for column in columns for c in column), reverse=True)
    return min(max((_sequence(column, values) for column in columns), default=0), cards)


def _sequence(column: tuple[PlayingCard, ...], values: Sequence[int]) -> int:
    """How many cards at the covered end of ``column`` follow ``values`` (highest first)."""
    height = 0
    for card, wanted in zip(column, values, strict=False):
        if card.value != wanted:
            break
        height += 1
    return height


def _is_won(columns: Columns) -> bool:
    full = [c for c in columns if c]
    return len(full) == 1 and all(a.value > b.value for a, b in itertools.pairwise(full[0]))


def packed(columns: Columns) -> tuple[int, int, int]:
    """The columns packed for the search (:mod:`skillcheck.games.hanoy.search`)."""
    a, b, c = (pack(card.value for card in column) for column in columns)
    return a, b, c


def columns_code(columns: Columns) -> str:
    return "/".join("".join(_RANK_CHARS[c.value] for c in col) or "-" for col in columns)


# ---- observation ---------------------------------------------------------------------------------


@frozen
class HanoyObservation(Observation):
    """What the player sees: everything (the columns, moves made, the allowance if any)."""

    columns: Columns
    moves_made: int
    allowance: int | None
    status: Status
    outcome: Outcome | None

    def legal_moves(self) -> list[HanoyMove]:
        if self.outcome is not None:
            return []
        return list(legal_moves_of(self.columns))

    def code(self) -> str:
        """``<columns> <moves made>[/<allowance>]``: the position code (nothing is hidden)."""
        return _position_code(self.columns, self.moves_made, self.allowance)


def _position_code(columns: Columns, moves_made: int, allowance: int | None) -> str:
    counter = str(moves_made) if allowance is None else f"{moves_made}/{allowance}"
    return f"{columns_code(columns)} {counter}"


# ---- the game ------------------------------------------------------------------------------------


def _ranks(value: Any) -> str:
    text = str(value).strip().upper().replace("ACE", "A").replace("–", "-")
    if text in ("2-10", "A-9"):
        return text
    raise ParameterError(
        "ranks", f"ranks {quoted(value)} is not allowed: ranks is 2-10 (the seed's) or A-9"
    )


@register_game
@frozen
class Hanoy(Game[HanoyMove]):
    """Tower of Hanoy, as a solitaire (``skill`` None) or as a skill check with a move allowance
    of the deal's minimum plus ``skill``."""

    name: ClassVar[str] = "hanoy"
    title: ClassVar[str] = "Tower of Hanoy"
    summary: ClassVar[str] = (
        "Nine cards in three columns, rebuilt as one tower in sequence, one exposed card at a "
        "time onto a higher card; the skill check allows the deal's minimum plus skill moves"
    )
    deck_name: ClassVar[str] = "standard"
    deal_order: ClassVar[str] = (
        "column 1 from its covered card to its exposed card, then column 2, then column 3"
    )

    cards: int = field(default=MAX_CARDS, validator=int_in_range("cards", MIN_CARDS, MAX_CARDS))
    ranks: str = field(default="2-10", converter=_ranks)
    skill: int | None = field(
        default=None, validator=int_in_range("skill", 0, MAX_SKILL, optional=True)
    )
    undo: UndoPolicy = field(default=UndoPolicy.SAFE, converter=undo_policy)
    move_limit: int | None = field(
        default=None, validator=int_in_range("move_limit", 1, 100_000, optional=True)
    )

    # -- hooks for front ends
    @classmethod
    def parameters(cls) -> tuple[ParameterSpec, ...]:
        return (
            ParameterSpec("cards", "int", MAX_CARDS,
                          "how many cards are dealt, the lowest of the range first (the "
                          "difficulty: more cards, more moves; 9 by the rules)",
                          MIN_CARDS, MAX_CARDS),
            ParameterSpec("ranks", "choice", "2-10", "the card range: 2 to 10, or Ace to 9",
                          choices=tuple(RANKS)),
            ParameterSpec("skill", "int", None,
                          "the character's skill: spare moves over the deal's minimum "
                          "(left empty: no limit on moves, so the tower is always built)",
                          0, MAX_SKILL, optional=True),
            undo_spec(),
            ParameterSpec("move_limit", "int", None, "moves allowed before the check is lost",
                          1, 100_000, optional=True),
        )  # fmt: skip

    @classmethod
    def examples(cls) -> tuple[dict[str, Any], ...]:
        return (
            {"cards": 5, "skill": 2},
            {},
            {"ranks": "A-9"},
            {"cards": 7, "ranks": "A-9", "skill": 6, "undo": "off"},
            {"cards": 4, "move_limit": 12},
            {"skill": 30, "move_limit": 400},
            {"cards": 3, "skill": 0, "undo": "off"},
        )

    def default_tiers(self) -> Tiers:
        """The check: a critical success leaves at least half the spare moves (``skill``)
        unused, and at least one; a critical failure still needs 2^(cards - 2) moves or more,
        about a median deal's whole solution. The plain game: a win has no margin (every
        win is a success); a critical failure has fewer than half the cards in sequence
        (docs/games/hanoy.md)."""
        if self.skill is None:
            return Tiers(self.cards + 1, (self.cards - 1) // 2)
        return Tiers(max(1, (self.skill + 1) // 2), -(2 ** (self.cards - 2)))

    def describe(self) -> str:
        low, high = self.rank_values[0], self.rank_values[-1]
        text = f"Tower of Hanoy, {self.cards} cards ({_short(low)} to {_short(high)})"
        if self.skill is not None:
            text += f", skill check: the deal's minimum + {counted(self.skill, 'move')}"
        if self.move_limit is not None:
            text += f", at most {counted(self.move_limit, 'move')}"
        if not self.undo:
            text += ", no undo"
        return text

    def goal_text(self) -> str:
        low, high = self.rank_values[0], self.rank_values[-1]
        goal = (
            f"Build one column of all {self.cards} cards in sequence, {_label(high)} at the "
            f"covered end down to {_label(low)}, moving one exposed card at a time onto a higher "
            "card or into an empty column."
        )
        if self.skill is not None:
            goal += f" You have the deal's minimum number of moves plus {self.skill} to spare."
        return goal

    def move_json(self, move: HanoyMove) -> Any:
        return {"from": move.source, "to": move.target}

    def board(self, observation: HanoyObservation) -> Board:
        columns = observation.columns
        # The column the tower grows in (the first with the longest sequence at its covered
        # end) carries its progress, and is the winning one at a win (docs/play-page.md).
        values = sorted((c.value for column in columns for c in column), reverse=True)
        heights = [_sequence(column, values) for column in columns]
        best = min(max(heights, default=0), self.cards)
        lead = heights.index(max(heights)) if best else None
        zones = tuple(
            Zone(f"c{number}", f"Column {number}", "stack", tuple(c.code for c in column),
                 len(column), extras=self._column_marks(observation, best) if number - 1 == lead
                 else {})
            for number, column in enumerate(columns, 1)
        )  # fmt: skip
        made = observation.moves_made
        limit = _limit(observation.allowance, self.move_limit)
        if limit is None:
            moves = Meter("moves", "Moves", made, None, counted(made, "move"))
        else:
            moves = Meter("moves", "Moves", made, limit, f"{made} of {counted(limit, 'move')}")
        height = tower_height(columns, self.cards)
        tower = Meter("tower", "Tower", height, self.cards,
                      f"{height} of {self.cards} cards in sequence")  # fmt: skip
        meters = [moves, tower]
        if observation.allowance is not None and self.skill is not None:
            meters.append(
                Meter("allowance", "Spare moves", observation.allowance, None,
                      f"{self.skill} over the fewest ({observation.allowance - self.skill})")
            )  # fmt: skip
        # every card is a Spade: the legend names no other suit
        return Board(
            zones, tuple(meters), goal=self.goal_text(), suits=(StandardSuit.SPADES.letter,)
        )

    def _column_marks(self, observation: HanoyObservation, height: int) -> dict[str, Any]:
        marks: dict[str, Any] = {"lead": True, "progress": f"{height} of {self.cards}"}
        if observation.status is Status.WON:
            marks["won"] = True
        return marks

    def move_view(self, observation: HanoyObservation, move: HanoyMove) -> MoveView:
        columns = observation.columns
        source = columns[move.source - 1]
        target = columns[move.target - 1]
        moved = _rank_name(source[-1]) if source else "nothing"
        onto = (
            f"onto {_rank_name(target[-1])} in column {move.target}"
            if target
            else f"into empty column {move.target}"
        )
        return MoveView(
            move.code, f"c{move.source}", f"c{move.target}",
            f"{moved} from column {move.source} {onto}",
        )  # fmt: skip

    # -- cards and chance
    @property
    def rank_values(self) -> tuple[int, ...]:
        """The ranks dealt (as values, Ace = 1), lowest first: the lowest ``cards`` of the
        range."""
        return RANKS[self.ranks][: self.cards]

    def card_set(self) -> tuple[PlayingCard, ...]:
        """The cards of this game, lowest first: one suit (Spades), since suits do not matter."""
        return tuple(PlayingCard.of(v, SUIT) for v in self.rank_values)

    @property
    def sizes(self) -> tuple[int, int, int]:
        """How many cards each column is dealt: 3, 3, 3 for nine cards; fewer cards are dealt as
        evenly as possible, the first columns one more (5 cards: 2, 2, 1)."""
        return column_sizes(self.cards)

    def deal(self, seed: int) -> tuple[PlayingCard, ...]:
        """The cards in :attr:`deal_order` for ``seed``: the game's cards lowest first,
        shuffled with PCG32 (docs/rng.md)."""
        cards = list(self.card_set())
        Pcg32(validate_seed(seed)).shuffle(cards)
        return tuple(cards)

    def columns_of(self, deal: Sequence[PlayingCard]) -> Columns:
        """The dealt columns: the first :attr:`sizes` [0] cards are column 1, covered first."""
        columns: list[tuple[PlayingCard, ...]] = []
        start = 0
        for size in self.sizes:
            columns.append(tuple(deal[start : start + size]))
            start += size
        return tuple(columns)

    def new_state(self, seed: int | None = None) -> HanoyState:
        state = super().new_state(seed)
        assert isinstance(state, HanoyState)
        return state

    def state_from_deal(
        self, deal: Sequence[PlayingCard | str], seed: int | None = None
    ) -> HanoyState:
        cards = tuple(PlayingCard.parse(c) for c in deal)
        self._check_cards(cards, "the deal")
        columns = self.columns_of(cards)
        allowance = None
        if self.skill is not None:
            minimum = self.minimum_moves(columns)
            # Every deal of 3 to 9 cards can be won (skillcheck hanoy stats proves it); were one
            # not, its allowance would be 0 and the check lost at once.
            allowance = 0 if minimum is None else minimum + self.skill
        return HanoyState(self, columns, allowance, seed=seed, deal=cards)

    def minimum_moves(self, columns: Columns) -> int | None:
        """The fewest moves that build the tower from ``columns`` (breadth-first search), or None
        if it cannot be built."""
        return _minimum(key_of(packed(columns)), self.win_packed)

    @property
    def win_packed(self) -> int:
        return winning_column(self.rank_values)

    def parse_move(self, code: str) -> HanoyMove:
        return HanoyMove.parse(code)

    def parse_deal(self, text: str) -> tuple[PlayingCard, ...]:
        """A deal as a person writes it: the columns separated by ``/``, each from its covered
        card to its exposed card, ranks only (``2 7 5/9 3 10/4 8 6``) or card codes (suits are
        ignored: every card of this game is a Spade). Without ``/`` the cards are read in deal
        order."""
        parts = str(text).split("/")
        columns = [self._parse_cards(part) for part in parts]
        if len(parts) > 1:
            if len(parts) != COLUMNS:
                raise ParseError(
                    f"the deal has {counted(len(parts), 'column')}: write {COLUMNS} columns "
                    'separated by "/"'
                )
            for number, (column, size) in enumerate(zip(columns, self.sizes, strict=True), 1):
                if len(column) != size:
                    raise ParseError(
                        f"column {number} of the deal has {counted(len(column), 'card')}: "
                        f"{self.cards} cards are dealt {', '.join(map(str, self.sizes))}"
                    )
        cards = tuple(c for column in columns for c in column)
        self._check_cards(cards, "the deal")
        return cards

    def _parse_cards(self, text: str) -> list[PlayingCard]:
        found: list[PlayingCard] = []
        for item in text.split(",") if "," in text else text.split():
            item = item.strip()
            rank = _CHAR_RANKS.get(item.upper(), 10 if item == "10" else None)
            if rank is None:
                try:
                    card = parse_standard_cards(item)
                except UnknownCardError:
                    raise ParseError(
                        f"cannot read card {quoted(item)}: write a rank ({self._range_text()}) "
                        "or a card code such as 7S"
                    ) from None
                rank = card[0].value
            if rank not in self.rank_values:
                raise ParseError(
                    f"{quoted(item)} is not a card of this game: its cards are {self._range_text()}"
                )
            found.append(PlayingCard.of(rank, SUIT))
        return found

    def _range_text(self) -> str:
        return ", ".join(_RANK_CHARS[v] for v in self.rank_values).replace("T", "10")

    def _check_cards(self, cards: Sequence[PlayingCard], what: str) -> None:
        wanted = set(self.card_set())
        wrong = [c for c in cards if c not in wanted]
        if wrong:
            raise ParseError(
                f"{what} holds {', '.join(c.label for c in wrong)}: this game's cards are the "
                f"{self._range_text()} of Spades"
            )
        refuse_repeated(cards, what)
        missing = [c for c in self.card_set() if c not in set(cards)]
        if missing:
            raise ParseError(
                f"{what} is missing {', '.join(c.label for c in missing)}: it must hold all "
                f"{self.cards} cards"
            )

    def state_from_code(self, code: str) -> HanoyState:
        """A state from a position code ``<columns> <moves made>[/<allowance>]``.

        Columns are separated by ``/``, each written covered card first as rank characters
        (``A``, ``2``-``9``, ``T`` for ten; ``10`` is read too), ``-`` for an empty column. A
        check's code carries its allowance; without one, a check's allowance is counted from
        this position (moves made + its minimum + skill)."""
        fields = str(code).split()
        if len(fields) not in (1, 2):
            raise ParseError(
                f"cannot read position {quoted(code)}: a position is "
                '"<columns> <moves made>", columns separated by "/", e.g. "275/93T/486 0"'
            )
        texts = fields[0].split("/")
        if len(texts) != COLUMNS:
            raise ParseError(
                f"the position has {counted(len(texts), 'column')}: write {COLUMNS} separated "
                'by "/"'
            )
        columns = tuple(self._column_from_code(t) for t in texts)
        cards = [c for column in columns for c in column]
        self._check_cards(cards, "the position")
        moves_made, allowance = 0, None
        if len(fields) == 2:
            made_text, slash, allowance_text = fields[1].partition("/")
            if not made_text.isdigit() or (slash and not allowance_text.isdigit()):
                raise ParseError(
                    f"cannot read the move counter {quoted(fields[1])}: it is moves made, or "
                    "moves made / allowance in a check (e.g. 4/27)"
                )
            moves_made = int(made_text)
            allowance = int(allowance_text) if slash else None
        if allowance is not None and self.skill is None:
            raise ParseError(
                "the position has a move allowance but this game is not a skill check: give "
                'the game a skill, or leave "/<allowance>" out'
            )
        if allowance is None and self.skill is not None:
            minimum = self.minimum_moves(columns)
            allowance = moves_made + (0 if minimum is None else minimum + self.skill)
        return HanoyState(self, columns, allowance, moves_made=moves_made)

    def _column_from_code(self, text: str) -> tuple[PlayingCard, ...]:
        if text == "-":
            return ()
        values: list[int] = []
        index = 0
        while index < len(text):
            char = text[index].upper()
            if text.startswith("10", index):
                values.append(10)
                index += 2
                continue
            if char not in _CHAR_RANKS:
                raise ParseError(
                    f"cannot read column {quoted(text)}: {quoted(text[index])} is not a rank "
                    '(A, 2-9, T), and an empty column is "-"'
                )
            values.append(_CHAR_RANKS[char])
            index += 1
        for value in values:
            if value not in self.rank_values:
                raise ParseError(
                    f"column {quoted(text)} holds {_label(value)}: this game's cards are "
                    f"{self._range_text()}"
                )
        return tuple(PlayingCard.of(v, SUIT) for v in values)


@functools.lru_cache(maxsize=4096)
def _minimum(key: Key, win: int) -> int | None:
    """A position's minimum, remembered: a check's deal is rebuilt from its seed on every replay
    (records, sessions), and each rebuild needs its allowance."""
    return shortest_line(key, win).distance


def _label(value: int) -> str:
    return "the Ace" if value == 1 else f"the {value}"


def _short(value: int) -> str:
    return "Ace" if value == 1 else str(value)


def _limit(allowance: int | None, move_limit: int | None) -> int | None:
    limits = [x for x in (allowance, move_limit) if x is not None]
    return min(limits) if limits else None


# ---- the state -----------------------------------------------------------------------------------


class HanoyState(State[HanoyMove]):
    """A Tower of Hanoy position: three columns, each from its covered card to its exposed card,
    and the move allowance of a check."""

    game: Hanoy

    def __init__(
        self,
        game: Hanoy,
        columns: Columns,
        allowance: int | None,
        *,
        seed: int | None = None,
        deal: tuple[PlayingCard, ...] | None = None,
        moves_made: int = 0,
    ) -> None:
        super().__init__(game, seed, deal)
        self._columns = columns
        self._allowance = allowance
        self._offset = moves_made
        self._outcome = self._evaluate()

    # -- reading the position
    @property
    def columns(self) -> Columns:
        return self._columns

    @property
    def allowance(self) -> int | None:
        """The moves a check allows (the deal's minimum + skill), or None without a skill."""
        return self._allowance

    @property
    def moves_left(self) -> int | None:
        """Moves left before the allowance or the move limit ends the check (None: no end)."""
        limit = _limit(self._allowance, self.game.move_limit)
        return None if limit is None else max(0, limit - self.moves_made)

    @property
    def tower_height(self) -> int:
        return tower_height(self._columns, self.game.cards)

    def observation(self) -> HanoyObservation:
        return HanoyObservation(
            self._columns, self.moves_made, self._allowance, self.status, self._outcome
        )

    def hidden_codes(self) -> frozenset[str]:
        return frozenset()

    def code(self) -> str:
        return _position_code(self._columns, self.moves_made, self._allowance)

    def moves_needed(self, max_states: int = DEGREE_SEARCH_STATES) -> int | None:
        """The fewest moves that still build the tower from here (None: impossible, or not
        decided within ``max_states`` positions)."""
        return shortest_line(
            packed(self._columns), self.game.win_packed, max_states=max_states
        ).distance

    # -- rules hooks
    def _move_error(self, move: HanoyMove) -> str | None:
        return _move_error(self._columns, move)

    def _apply(self, move: HanoyMove) -> None:
        self._columns = apply_move(self._columns, move)

    def _generate_moves(self) -> Iterator[HanoyMove]:
        return legal_moves_of(self._columns)

    def _evaluate(self) -> Outcome | None:
        outcome = super()._evaluate()
        if outcome is None and self._allowance is not None and self.moves_made >= self._allowance:
            return self._loss_outcome(EndReason.MOVE_LIMIT)
        return outcome

    def _goal_outcome(self) -> Outcome | None:
        if not _is_won(self._columns):
            return None
        made, cards = self.moves_made, self.game.cards
        built = f"the tower of {cards} cards built in {counted(made, 'move')}"
        if self._allowance is None:
            return Outcome(Status.WON, EndReason.GOAL, cards, f"success: {built}")
        spare = self._allowance - made
        return Outcome(
            Status.WON, EndReason.GOAL, spare,
            f"success: {built}, {spare} to spare of the allowance of {self._allowance}",
        )  # fmt: skip

    def _loss_outcome(self, reason: EndReason) -> Outcome:
        made = self.moves_made
        limit = self.game.move_limit
        if reason is EndReason.MOVE_LIMIT and limit is not None and made >= limit:
            why = f"the move limit of {limit} was reached"
        elif reason is EndReason.MOVE_LIMIT:
            why = f"the allowance of {counted(self._allowance or 0, 'move')} is used up"
        else:
            why = {
                EndReason.NO_LEGAL_MOVES: "no legal move remains",
                EndReason.CONCEDED: f"the player conceded after {counted(made, 'move')}",
                EndReason.UNWINNABLE: "the tower can no longer be built within the moves left",
            }.get(reason, reason.value)
        if self._allowance is None:
            height = self.tower_height
            return Outcome(
                Status.LOST, reason, height,
                f"failure: {why}; {height} of {self.game.cards} cards in sequence",
            )  # fmt: skip
        found = shortest_line(
            packed(self._columns), self.game.win_packed, max_states=DEGREE_SEARCH_STATES
        )
        needed = found.distance
        if needed is None:
            left = (
                "the tower cannot be built from here"
                if found.exhausted
                else "the moves still needed were not counted (too many positions)"
            )
            return Outcome(Status.LOST, reason, -self.game.cards, f"failure: {why}; {left}")
        return Outcome(
            Status.LOST, reason, -needed,
            f"failure: {why}; {counted(needed, 'more move')} would have built "
            "the tower",
        )  # fmt: skip

    def _snapshot(self) -> Columns:
        return self._columns

    def _restore(self, snapshot: Columns) -> None:
        self._columns = snapshot

    def _copy_position(self) -> HanoyState:
        other = HanoyState.__new__(HanoyState)
        State.__init__(other, self.game, self.seed, self.deal)
        other._columns, other._allowance = self._columns, self._allowance
        return other
