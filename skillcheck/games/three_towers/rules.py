"""Three Towers (seed 000, by Maginobi): a Decktet solitaire, and the Quota skill check.

Rules as implemented, with each interpretation, are in docs/rules.md. In short: the deck holds the
numerals 2..level; each move puts the deck's top card, or a tower's top card, onto one of the
tower spaces: onto an empty space, or onto a card of strictly higher rank sharing a suit with it.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, ClassVar

from attrs import field, frozen

from skillcheck.board import Board, Meter, MoveView, Zone
from skillcheck.cards import refuse_repeated
from skillcheck.cards.decktet import NUMERALS, Card, Suit, split_codes
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
from skillcheck.errors import ParameterError, ParseError, quoted
from skillcheck.rng import Pcg32, validate_seed
from skillcheck.serialization import converter
from skillcheck.words import counted

__all__ = [
    "DECK",
    "Ivory",
    "Quota",
    "Standard",
    "ThreeTowers",
    "ThreeTowersObservation",
    "ThreeTowersState",
    "TowerMove",
    "apply_tower_move",
    "legal_tower_moves",
    "level_deck",
    "quota_deck",
]

#: ``TowerMove.source`` for the deck; towers are numbered from 1.
DECK = 0
MIN_LEVEL, MAX_LEVEL = 2, 9
MIN_SPACES, MAX_SPACES = 3, 8


def _suit(value: Suit | str) -> Suit:
    return Suit.parse(value)


# ---- variants (a tagged union: "kind" names the variant in JSON) -------------------------------


@frozen
class Standard:
    """Win with three full towers."""

    kind: ClassVar[str] = "standard"


@frozen
class Ivory:
    """Win with three full towers, one of them made only of cards bearing ``suit``."""

    kind: ClassVar[str] = "ivory"
    suit: Suit = field(converter=_suit)


def _optional_cards(value: Any) -> tuple[Card, ...] | None:
    if value is None:
        return None
    if isinstance(value, str):
        value = [p for p in value.split(",") if p.strip()]
    return tuple(Card.parse(v) for v in value)


@frozen
class Quota:
    """The skill check: the deck holds exactly ``skill`` numerals bearing ``suit``; the check is
    won as soon as a tower made only of cards bearing ``suit`` holds ``quota`` cards.

    ``suited_cards`` lets the GM choose which suited numerals are in the deck; by default the
    seeded RNG chooses them.
    """

    kind: ClassVar[str] = "quota"
    suit: Suit = field(converter=_suit)
    skill: int = field(validator=int_in_range("skill", 1, MAX_LEVEL - 1))
    quota: int = field(validator=int_in_range("quota", 1, MAX_LEVEL - 1))
    suited_cards: tuple[Card, ...] | None = field(default=None, converter=_optional_cards)

    def __attrs_post_init__(self) -> None:
        if self.quota > self.skill:
            raise ParameterError(
                "quota",
                f"quota {self.quota} is larger than skill {self.skill}: the deck holds only "
                f"{counted(self.skill, 'card')} of {self.suit.title}, so quota must be from 1 to "
                f"{self.skill}",
            )


Variant = Standard | Ivory | Quota
VARIANTS: dict[str, type[Standard] | type[Ivory] | type[Quota]] = {
    v.kind: v for v in (Standard, Ivory, Quota)
}


def _unstructure_variant(variant: Variant) -> dict[str, Any]:
    return {"kind": variant.kind, **converter.unstructure_attrs_asdict(variant)}


def _structure_variant(value: Any, _: Any) -> Variant:
    """The tagged union: ``{"kind": "quota", ...}``; a bare kind string for variants without
    fields (``"standard"``)."""
    data = {"kind": value} if isinstance(value, str) else value
    kind = data.get("kind") if isinstance(data, dict) else None
    if kind not in VARIANTS:
        raise ParameterError(
            "variant",
            f"variant {quoted(kind if kind is not None else value)} is not allowed: the "
            f"variants are {', '.join(VARIANTS)}",
        )
    fields = {k: v for k, v in data.items() if k != "kind"}
    chosen = fields.get("suited_cards")
    if kind == Quota.kind and fields.get("skill") is None and isinstance(chosen, list) and chosen:
        # The GM's cards are the character's skill in cards: their number is the skill (as
        # the CLI's --cards and from_options read it), so the same parameters work everywhere.
        fields["skill"] = len(chosen)
    return converter.structure(fields, VARIANTS[kind])


converter.register_unstructure_hook(Suit, lambda s: s.value)
converter.register_structure_hook(Suit, lambda v, _: Suit.parse(v))
converter.register_unstructure_hook(Variant, _unstructure_variant)
for _cls in (Standard, Ivory, Quota):
    converter.register_unstructure_hook(_cls, _unstructure_variant)
converter.register_structure_hook(Variant, _structure_variant)


# ---- decks ---------------------------------------------------------------------------------------


def level_deck(level: int) -> tuple[Card, ...]:
    """The numerals 2..level in canonical order (the Difficulty variant's deck)."""
    return tuple(c for c in NUMERALS if c.rank is not None and c.rank <= level)


def _cards(count: int) -> str:
    """``1 card``, ``3 different cards``."""
    return "1 card" if count == 1 else f"{count} different cards"


def quota_deck(level: int, suit: Suit, suited: Sequence[Card]) -> tuple[Card, ...]:
    """The numerals 2..level not bearing ``suit``, plus the ``suited`` ones, in canonical order."""
    chosen = set(suited)
    return tuple(c for c in level_deck(level) if not c.bears(suit) or c in chosen)


# ---- moves ---------------------------------------------------------------------------------------

_MOVE_CODE = re.compile(r"^\s*(d|[1-9])\s*[-> ]?\s*([1-9])\s*$", re.IGNORECASE)


@frozen(order=True)
class TowerMove(Move):
    """Move a card from ``source`` (:data:`DECK` or a tower 1..spaces) onto tower ``target``.

    Codes: ``d3`` puts the deck's top card on tower 3; ``14`` moves tower 1's top card to tower 4.
    """

    source: int
    target: int

    @classmethod
    def from_deck(cls, target: int) -> TowerMove:
        return cls(DECK, target)

    @property
    def code(self) -> str:
        return ("d" if self.source == DECK else str(self.source)) + str(self.target)

    @classmethod
    def parse(cls, code: str) -> TowerMove:
        match = _MOVE_CODE.match(str(code))
        if match is None:
            raise ParseError(
                f"cannot read move {quoted(code)}: a move is d<N> (the deck's top card to "
                "tower N) or <A><B> (the top card of tower A to tower B), e.g. d3 or 14"
            )
        src, dst = match.groups()
        return cls(DECK if src.lower() == "d" else int(src), int(dst))

    def __str__(self) -> str:
        return self.code


# ---- the game ------------------------------------------------------------------------------------


def _variant(value: Any) -> Variant:
    if isinstance(value, Standard | Ivory | Quota):
        return value
    if value is None or value == "standard":
        return Standard()
    raise ParameterError(
        "variant",
        f"variant {quoted(value)} is not allowed: use Standard(), Ivory(suit) or "
        "Quota(suit, skill, quota)",
    )


@register_game
@frozen
class ThreeTowers(Game[TowerMove]):
    """Three Towers with its Difficulty (``level``), Ivory and Quota variants."""

    name: ClassVar[str] = "three-towers"
    title: ClassVar[str] = "Three Towers"
    summary: ClassVar[str] = (
        "Decktet solitaire: build three towers of falling ranks that share a suit; the quota "
        "check wins with one tower of the check's suit as tall as the GM's quota"
    )
    deck_name: ClassVar[str] = "decktet"
    deal_order: ClassVar[str] = "the deck from its top card down"

    level: int = field(default=MAX_LEVEL, validator=int_in_range("level", MIN_LEVEL, MAX_LEVEL))
    spaces: int = field(default=5, validator=int_in_range("spaces", MIN_SPACES, MAX_SPACES))
    variant: Variant = field(factory=Standard, converter=_variant)
    undo: UndoPolicy = field(default=UndoPolicy.SAFE, converter=undo_policy)
    move_limit: int | None = field(
        default=None, validator=int_in_range("move_limit", 1, 100_000, optional=True)
    )

    def __attrs_post_init__(self) -> None:
        variant = self.variant
        if not isinstance(variant, Quota):
            return
        available = self.level - 1
        if variant.skill > available:
            raise ParameterError(
                "skill",
                f"skill {variant.skill} is larger than the {counted(available, 'numeral')} of "
                f"{variant.suit.title} at level {self.level}: skill must be from 1 to {available}",
            )
        if variant.suited_cards is not None:
            allowed = [c for c in level_deck(self.level) if c.bears(variant.suit)]
            wrong = [c for c in variant.suited_cards if c not in allowed]
            if wrong or len(set(variant.suited_cards)) != variant.skill:
                names = ", ".join(c.short_name for c in allowed)
                raise ParameterError(
                    "suited_cards",
                    f"suited_cards must be {_cards(variant.skill)} of "
                    f"{variant.suit.title} up to level {self.level} (from: {names}); got "
                    f"{', '.join(c.short_name for c in variant.suited_cards)}",
                )

    @classmethod
    def examples(cls) -> tuple[dict[str, Any], ...]:
        quota = {"kind": "quota", "suit": "moons", "skill": 5, "quota": 4}
        return (
            {"variant": quota},
            {"level": 6, "variant": {"kind": "quota", "suit": "knots", "skill": 3, "quota": 2}},
            {"level": 6},
            {"level": 6, "spaces": 4, "variant": {"kind": "ivory", "suit": "waves"}},
            {"level": 5, "undo": "off", "move_limit": 40},
            {"variant": {**quota, "suited_cards": ["5ML", "7ML", "8MS", "9MS", "6MW"]}},
            {
                "level": 6,
                "variant": {"kind": "quota", "suit": "waves", "skill": 4, "quota": 3},
                "undo": "full",
            },
        )

    @classmethod
    def params_from_options(cls, options: Mapping[str, Any]) -> dict[str, Any]:
        """Flat options: ``variant`` may be left out; no suit is then the standard game, a suit
        alone the Ivory variant, and a suit with skill and quota (or cards) the quota check."""
        cls.refuse_unknown_options(options)
        flat = {k: v for k, v in options.items() if v is not None}
        params: dict[str, Any] = {
            k: flat.pop(k) for k in ("level", "spaces", "undo", "move_limit") if k in flat
        }
        kind = flat.pop("variant", None)
        if kind is None:
            if "suit" not in flat and {"skill", "quota", "suited_cards"} & flat.keys():
                raise ParameterError(
                    "suit", "skill, quota and suited cards need a suit: give the check's suit"
                )
            if "suit" not in flat:
                kind = "standard"
            elif {"skill", "quota", "suited_cards"} & flat.keys():
                kind = "quota"
            else:
                kind = "ivory"
        if kind not in VARIANTS:
            allowed_kinds = ", ".join(VARIANTS)
            raise ParameterError(
                "variant",
                f"variant {quoted(kind)} is not allowed: the variants are {allowed_kinds}",
            )
        fields = {f: flat.pop(f) for f in ("suit", "skill", "quota", "suited_cards") if f in flat}
        if kind == "quota" and "skill" not in fields and "suited_cards" in fields:
            fields["skill"] = len(_optional_cards(fields["suited_cards"]) or ())
        if "suited_cards" in fields and isinstance(fields["suited_cards"], str):
            fields["suited_cards"] = [c.code for c in _optional_cards(fields["suited_cards"]) or ()]
        if kind != "standard" and "suit" not in fields:
            raise ParameterError("suit", f"the {kind} variant needs a suit: give the check's suit")
        if kind == "quota":
            for name in ("skill", "quota"):
                if name not in fields:
                    raise ParameterError(
                        name, f"a quota check needs both skill and quota: {name} is missing"
                    )
        allowed = {"standard": set(), "ivory": {"suit"}}.get(kind)
        if allowed is not None and set(fields) - allowed:
            extra = sorted(set(fields) - allowed)
            where = {"suit": "ivory and quota checks"}
            said = "; ".join(f"{name} applies only to {where.get(name, 'a quota check')}"
                             for name in extra)  # fmt: skip
            raise ParameterError(
                extra[0], f"{said} (the {kind} variant takes {'a suit' if allowed else 'none'})"
            )
        if fields or kind != "standard":
            params["variant"] = {"kind": kind, **fields}
        return params

    # -- convenience constructors
    @classmethod
    def quota_check(
        cls,
        suit: Suit | str,
        skill: int,
        quota: int,
        *,
        suited_cards: Sequence[Card | str] | None = None,
        **params: Any,
    ) -> ThreeTowers:
        """The RPG skill check: ``ThreeTowers.quota_check("moons", skill=4, quota=3)``."""
        return cls(variant=Quota(suit, skill, quota, suited_cards), **params)

    @classmethod
    def ivory(cls, suit: Suit | str, **params: Any) -> ThreeTowers:
        return cls(variant=Ivory(suit), **params)

    @classmethod
    def from_options(
        cls,
        *,
        suit: Suit | str | None = None,
        skill: int | None = None,
        quota: int | None = None,
        suited_cards: Sequence[Card | str] | str | None = None,
        **params: Any,
    ) -> ThreeTowers:
        """Flat options as a CLI or a form gives them: no suit is the standard game, a suit
        alone is Ivory, a suit with skill and quota is the quota check."""
        if suit is None:
            if skill is not None or quota is not None or suited_cards is not None:
                raise ParameterError(
                    "suit", "skill, quota and suited cards need a suit: give the check's suit"
                )
            return cls(**params)
        if skill is None and quota is None and suited_cards is None:
            return cls.ivory(suit, **params)
        if skill is None and suited_cards is not None:
            skill = len(_optional_cards(suited_cards) or ())
        if skill is None or quota is None:
            missing = "skill" if skill is None else "quota"
            raise ParameterError(
                missing, f"a quota check needs both skill and quota: {missing} is missing"
            )
        return cls(variant=Quota(suit, skill, quota, suited_cards), **params)

    @classmethod
    def parameters(cls) -> tuple[ParameterSpec, ...]:
        suits = tuple(s.value for s in Suit)
        return (
            ParameterSpec("level", "int", MAX_LEVEL, "highest rank in the deck (difficulty)",
                          MIN_LEVEL, MAX_LEVEL),
            ParameterSpec("spaces", "int", 5, "tower spaces (5 by the rules; 3-8 as a house rule)",
                          MIN_SPACES, MAX_SPACES),
            ParameterSpec("variant", "choice", "standard", "goal of the game",
                          choices=tuple(VARIANTS), path=("variant", "kind")),
            ParameterSpec("suit", "choice", None, "the ivory/quota suit (ivory and quota variants)",
                          choices=suits, optional=True, path=("variant", "suit"),
                          applies_if=("variant", ("ivory", "quota"))),
            ParameterSpec("skill", "int", None, "suited numerals in the deck (quota variant)",
                          1, MAX_LEVEL - 1, optional=True, path=("variant", "skill"),
                          applies_if=("variant", ("quota",))),
            ParameterSpec("quota", "int", None, "suited tower height that wins (quota variant)",
                          1, MAX_LEVEL - 1, optional=True, path=("variant", "quota"),
                          applies_if=("variant", ("quota",))),
            ParameterSpec("suited_cards", "cards", None,
                          "the GM's choice of suited numerals (quota variant; default: seeded)",
                          optional=True, deck="decktet", path=("variant", "suited_cards"),
                          applies_if=("variant", ("quota",))),
            undo_spec(),
            ParameterSpec("move_limit", "int", None, "moves allowed before the check is lost",
                          1, 100_000, optional=True),
        )  # fmt: skip

    def default_tiers(self) -> Tiers:
        """Quota check: a critical success meets the quota with more cards left in the deck
        than an average shuffle leaves after its quota-th suited card (n - q(n+1)/(s+1) for n
        cards, s suited, quota q; at least 1); a critical failure ends with the tallest tower of
        the suit below half the quota. Standard and ivory: a win places every card, so it has
        no margin (every win is a success); a critical failure places fewer than half the cards
        (docs/rules.md)."""
        variant = self.variant
        if isinstance(variant, Quota):
            n, s, q = 2 * (self.level - 1) + variant.skill, variant.skill, variant.quota
            expected_left = -((q * (n + 1) - n * (s + 1)) // (s + 1))  # rounded up
            return Tiers(max(1, expected_left), -(q // 2 + 1))
        cards = 3 * (self.level - 1)
        return Tiers(cards + 1, (cards - 1) // 2)

    # -- chance
    def deck(self, suited: Sequence[Card] | None = None) -> tuple[Card, ...]:
        """The cards of this game's deck in canonical order (quota: with ``suited`` chosen)."""
        variant = self.variant
        if not isinstance(variant, Quota):
            return level_deck(self.level)
        chosen = suited if suited is not None else variant.suited_cards
        if chosen is None:
            raise ValueError("a quota deck needs its suited cards: pass them or a seed to deal()")
        return quota_deck(self.level, variant.suit, chosen)

    def deal(self, seed: int) -> tuple[Card, ...]:
        """The deck order for ``seed``, top card first (the algorithm is in docs/rng.md)."""
        rng = Pcg32(validate_seed(seed))
        variant = self.variant
        suited: list[Card] | None = None
        if isinstance(variant, Quota) and variant.suited_cards is None:
            suited = [c for c in level_deck(self.level) if c.bears(variant.suit)]
            rng.shuffle(suited)
            suited = suited[: variant.skill]
        cards = list(self.deck(suited))
        rng.shuffle(cards)
        return tuple(cards)

    def new_state(self, seed: int | None = None) -> ThreeTowersState:
        state = super().new_state(seed)
        assert isinstance(state, ThreeTowersState)
        return state

    def state_from_deal(self, deal: Sequence[Card], seed: int | None = None) -> ThreeTowersState:
        cards = tuple(Card.parse(c) for c in deal)
        self._check_cards(cards, "the deal")
        self._check_complete(cards, "the deal")
        empty: tuple[tuple[Card, ...], ...] = ((),) * self.spaces
        return ThreeTowersState(self, empty, cards, 0, seed=seed, deal=cards)

    def parse_move(self, code: str) -> TowerMove:
        return TowerMove.parse(code)

    def state_from_code(self, code: str) -> ThreeTowersState:
        parsed = _parse_position(code, self.spaces, hidden_allowed=False)
        towers, deck, moves_made = parsed.towers, parsed.deck or (), parsed.moves_made
        cards = tuple(c for t in towers for c in t) + deck
        # A position may hold fewer cards than the whole deck (puzzles, tests, analysis); only a
        # deal, the chance event, must be complete.
        self._check_cards(cards, "the position")
        for number, tower in enumerate(towers, 1):
            for below, above in itertools.pairwise(tower):
                error = _placement_error(above, below)
                if error is not None:
                    raise ParseError(f"tower {number} of the position breaks the rules: {error}")
        return ThreeTowersState(self, towers, deck, 0, moves_made=moves_made)

    def _check_cards(self, cards: tuple[Card, ...], what: str) -> None:
        allowed = set(level_deck(self.level))
        bad = [c for c in cards if c not in allowed]
        if bad:
            raise ParseError(
                f"{what} holds {', '.join(c.label for c in bad)}: this game uses only the "
                f"numerals 2 to {self.level}"
            )
        refuse_repeated(cards, what)
        if not cards:
            raise ParseError(f"{what} holds no cards")

    def _check_complete(self, cards: tuple[Card, ...], what: str) -> None:
        """A deal (or a position's cards) must be this game's whole deck."""
        variant = self.variant
        full = level_deck(self.level)
        if isinstance(variant, Quota):
            suit = variant.suit
            suited = [c for c in cards if c.bears(suit)]
            if variant.suited_cards is not None and set(suited) != set(variant.suited_cards):
                raise ParseError(
                    f"{what} holds the {suit.title} cards "
                    f"{', '.join(c.short_name for c in suited) or 'none'}, but the GM chose "
                    f"{', '.join(c.short_name for c in variant.suited_cards)}"
                )
            if len(suited) != variant.skill:
                raise ParseError(
                    f"{what} holds {counted(len(suited), 'card')} of {suit.title}: this quota "
                    f"check's deck holds exactly skill = {variant.skill} of them"
                )
            full = tuple(c for c in full if not c.bears(suit)) + tuple(suited)
        missing = [c for c in full if c not in set(cards)]
        if missing:
            raise ParseError(
                f"{what} is missing {', '.join(c.label for c in missing)}: it must hold the whole "
                f"deck of {counted(len(full), 'card')}"
            )

    def describe(self) -> str:
        variant = self.variant
        text = f"Three Towers, level {self.level}, {self.spaces} spaces"
        if isinstance(variant, Ivory):
            text += f", ivory {variant.suit.value}"
        elif isinstance(variant, Quota):
            text += (
                f", quota check: {variant.suit.value}, skill {variant.skill}, quota {variant.quota}"
            )
        return text

    def move_json(self, move: TowerMove) -> dict[str, Any]:
        """``{"from": "deck" or a tower number, "to": a tower number}``."""
        return {"from": "deck" if move.source == DECK else move.source, "to": move.target}

    def goal_text(self) -> str:
        variant = self.variant
        if isinstance(variant, Quota):
            return (
                f"Build a tower of {counted(variant.quota, 'card')} that all bear "
                f"{variant.suit.title} ({variant.suit.symbol}). Each card goes on an empty space "
                "or on a higher card that shares a suit with it."
            )
        goal = (
            f"Use every card to build three towers, each from {self.level} down to 2. Each card "
            "goes on an empty space or on a higher card that shares a suit with it."
        )
        if isinstance(variant, Ivory):
            goal += f" One tower must be all {variant.suit.title} ({variant.suit.symbol})."
        return goal

    def board(self, observation: ThreeTowersObservation) -> Board:
        variant = self.variant
        suit = variant.suit if isinstance(variant, Ivory | Quota) else None
        zones = [
            Zone(
                "deck", "Deck", "pile",
                () if observation.top_card is None else (observation.top_card.code,),
                observation.cards_left, accepts=False,
            )
        ]  # fmt: skip
        won = observation.status is Status.WON
        for number, tower in enumerate(observation.towers, 1):
            pure = suit is not None and bool(tower) and _is_pure(tower, suit)
            # in words (the page shows "★ all Moons"): a bare flag read "★ pure", unexplained
            extras: dict[str, Any] = {"note": f"all {suit.title}"} if pure and suit else {}
            extras.update(self._tower_marks(observation, number, won))
            zones.append(
                Zone(
                    f"t{number}", f"Tower {number}", "stack", tuple(c.code for c in tower),
                    len(tower), extras=extras,
                )
            )  # fmt: skip
        meters = [
            Meter("cards", "Cards left", observation.cards_left, None,
                  f"{observation.cards_left} in the deck")
        ]  # fmt: skip
        if isinstance(variant, Quota):
            height = _pure_height(observation.towers, variant.suit)
            meters.insert(
                0,
                Meter("quota", f"{variant.suit.title} tower", min(height, variant.quota),
                      variant.quota, f"{min(height, variant.quota)} of {variant.quota}"),
            )  # fmt: skip
        else:
            full = sum(1 for t in observation.towers if len(t) == self.level - 1)
            meters.insert(0, Meter("towers", "Full towers", full, 3, f"{full} of 3"))
        return Board(tuple(zones), tuple(meters), goal=self.goal_text())

    def _tower_marks(
        self, observation: ThreeTowersObservation, number: int, won: bool
    ) -> dict[str, Any]:
        """The board's marks of tower ``number`` (docs/play-page.md, extras): in a quota check
        the tower that counts (the first of the tallest towers all of the suit) is ``lead``
        with its ``progress`` ("3 of 4"), and ``won`` once it reaches the quota; otherwise each
        tower's height against a full one, and the full towers ``won`` at a win."""
        towers = observation.towers
        tower = towers[number - 1]
        variant = self.variant
        if isinstance(variant, Quota):
            height = _pure_height(towers, variant.suit)
            counting = next(
                (i for i, t in enumerate(towers, 1) if t and len(t) == height
                 and _is_pure(t, variant.suit)),
                None,
            )  # fmt: skip
            if counting != number:
                return {}
            marks: dict[str, Any] = {
                "lead": True, "progress": f"{min(height, variant.quota)} of {variant.quota}",
            }  # fmt: skip
            if won:
                marks["won"] = True
            return marks
        if not tower:
            return {}
        full = self.level - 1
        marks = {"progress": f"{len(tower)} of {full}"}
        if won and len(tower) == full:
            marks["won"] = True
        return marks

    def move_view(self, observation: ThreeTowersObservation, move: TowerMove) -> MoveView:
        towers = observation.towers
        if move.source == DECK:
            card, source, where = observation.top_card, "deck", "the deck"
        else:
            tower = towers[move.source - 1]
            card = tower[-1] if tower else None
            source, where = f"t{move.source}", f"tower {move.source}"
        target = towers[move.target - 1]
        onto = (
            f"{target[-1].short_name} on tower {move.target}"
            if target
            else (f"empty tower {move.target}")
        )
        moved = card.title if card is not None else "Nothing"
        return MoveView(move.code, source, f"t{move.target}", f"{moved} from {where} onto {onto}")


# ---- rules ---------------------------------------------------------------------------------------


def _placement_error(card: Card, below: Card) -> str | None:
    """Why ``card`` may not go on ``below``, or None (the two placement rules of seed 000)."""
    assert card.rank is not None and below.rank is not None
    if not card.rank < below.rank:
        return (
            f"{card.label} cannot go on {below.label}: a card must be lower than the card it "
            "goes on"
        )
    if not card.shares_suit(below):
        return (
            f"{card.label} cannot go on {below.label}: a card must share a suit with the card it "
            f"goes on ({card.short_name}: {_suit_list(card)}; "
            f"{below.short_name}: {_suit_list(below)})"
        )
    return None


def _suit_list(card: Card) -> str:
    return ", ".join(s.title for s in card.suits)


def _can_place(card: Card, tower: tuple[Card, ...]) -> bool:
    if not tower:
        return True
    below = tower[-1]
    assert card.rank is not None and below.rank is not None
    return card.rank < below.rank and card.shares_suit(below)


def apply_tower_move(
    towers: tuple[tuple[Card, ...], ...], move: TowerMove, top_card: Card | None
) -> tuple[tuple[Card, ...], ...]:
    """The towers after a (legal) move; ``top_card`` is the deck's top card for a deck move."""
    result = list(towers)
    if move.source == DECK:
        assert top_card is not None
        card = top_card
    else:
        card = result[move.source - 1][-1]
        result[move.source - 1] = result[move.source - 1][:-1]
    result[move.target - 1] = (*result[move.target - 1], card)
    return tuple(result)


def legal_tower_moves(
    towers: Sequence[tuple[Card, ...]], top_card: Card | None
) -> Iterator[TowerMove]:
    """The legal moves of a visible position: deck moves first, then tower moves, in order."""
    if top_card is not None:
        for target, tower in enumerate(towers, 1):
            if _can_place(top_card, tower):
                yield TowerMove(DECK, target)
    for source, tower in enumerate(towers, 1):
        if not tower:
            continue
        card = tower[-1]
        for target, other in enumerate(towers, 1):
            if target != source and _can_place(card, other):
                yield TowerMove(source, target)


def _pure_height(towers: Sequence[tuple[Card, ...]], suit: Suit) -> int:
    return max((len(t) for t in towers if _is_pure(t, suit)), default=0)


def _is_pure(tower: tuple[Card, ...], suit: Suit) -> bool:
    return all(c.bears(suit) for c in tower)


@frozen
class ThreeTowersObservation(Observation):
    """What the player sees: the towers, the deck's top card and how many cards are left."""

    towers: tuple[tuple[Card, ...], ...]
    top_card: Card | None
    cards_left: int
    moves_made: int
    status: Status
    outcome: Outcome | None

    def pure_height(self, suit: Suit) -> int:
        """The height of the tallest tower made only of cards bearing ``suit``."""
        return _pure_height(self.towers, suit)

    def legal_moves(self) -> list[TowerMove]:
        """The legal moves (they depend only on what the player sees)."""
        if self.outcome is not None:
            return []
        return list(legal_tower_moves(self.towers, self.top_card))

    def code(self) -> str:
        """The observation code: ``<towers> <top card>+<cards under it> <moves made>``."""
        deck = "-" if self.top_card is None else f"{self.top_card.code}+{self.cards_left - 1}"
        return f"{_towers_code(self.towers)} {deck} {self.moves_made}"

    @classmethod
    def from_code(cls, code: str, spaces: int | None = None) -> ThreeTowersObservation:
        parsed = _parse_position(code, spaces, hidden_allowed=True)
        return cls(
            parsed.towers, parsed.top_card, parsed.cards_left, parsed.moves_made,
            Status.IN_PROGRESS, None,
        )  # fmt: skip


def _towers_code(towers: Sequence[Sequence[Card]]) -> str:
    return "/".join("".join(c.code for c in t) or "-" for t in towers)


@frozen
class _ParsedPosition:
    towers: tuple[tuple[Card, ...], ...]
    deck: tuple[Card, ...] | None  # None when the code hides the deck's order
    top_card: Card | None
    cards_left: int
    moves_made: int


def _parse_position(code: str, spaces: int | None, *, hidden_allowed: bool) -> _ParsedPosition:
    fields = str(code).split()
    if len(fields) not in (2, 3):
        raise ParseError(
            f"cannot read position {quoted(code)}: a position is "
            '"<towers> <deck> [<moves made>]", towers separated by "/", "-" for an empty tower '
            "or deck"
        )
    tower_texts = fields[0].split("/")
    if spaces is not None and len(tower_texts) != spaces:
        raise ParseError(
            f"the position has {counted(len(tower_texts), 'tower')} but this game has "
            f"{counted(spaces, 'tower space')}"
        )
    towers = tuple(
        () if t == "-" else tuple(Card.parse(c) for c in split_codes(t)) for t in tower_texts
    )
    moves_made = 0
    if len(fields) == 3:
        if not fields[2].isdigit():
            raise ParseError(
                f"cannot read moves made {quoted(fields[2])}: it must be a whole number"
            )
        moves_made = int(fields[2])
    deck_text = fields[1]
    if "+" in deck_text:
        if not hidden_allowed:
            raise ParseError(
                "this is an observation code (the deck's order is hidden): a full position lists "
                "every card of the deck"
            )
        top_text, _, hidden = deck_text.partition("+")
        if not hidden.isdigit():
            raise ParseError(
                f"cannot read hidden card count {quoted(hidden)}: it must be a whole number"
            )
        return _ParsedPosition(towers, None, Card.parse(top_text), int(hidden) + 1, moves_made)
    deck = () if deck_text == "-" else tuple(Card.parse(c) for c in split_codes(deck_text))
    return _ParsedPosition(towers, deck, deck[0] if deck else None, len(deck), moves_made)


class ThreeTowersState(State[TowerMove]):
    """A Three Towers position: towers (bottom card first) and the deck (top card first)."""

    game: ThreeTowers

    def __init__(
        self,
        game: ThreeTowers,
        towers: tuple[tuple[Card, ...], ...],
        deck: tuple[Card, ...],
        position: int,
        *,
        seed: int | None = None,
        deal: tuple[Card, ...] | None = None,
        moves_made: int = 0,
    ) -> None:
        super().__init__(game, seed, deal)
        self._towers = towers
        self._deck = deck
        self._position = position  # index of the deck's top card in self._deck
        self._offset = moves_made  # moves made before this state was built from a code
        self._outcome = self._evaluate()

    # -- reading the position
    @property
    def towers(self) -> tuple[tuple[Card, ...], ...]:
        return self._towers

    @property
    def top_card(self) -> Card | None:
        return self._deck[self._position] if self._position < len(self._deck) else None

    @property
    def cards_left(self) -> int:
        return len(self._deck) - self._position

    @property
    def remaining_deck(self) -> tuple[Card, ...]:
        """The deck's cards, top first. Hidden information: never show it to a player."""
        return self._deck[self._position :]

    def observation(self) -> ThreeTowersObservation:
        return ThreeTowersObservation(
            self._towers, self.top_card, self.cards_left, self.moves_made, self.status,
            self._outcome,
        )  # fmt: skip

    def hidden_codes(self) -> frozenset[str]:
        """The cards under the deck's top card."""
        return frozenset(c.code for c in self._deck[self._position + 1 :])

    def code(self) -> str:
        deck = "".join(c.code for c in self.remaining_deck) or "-"
        return f"{_towers_code(self._towers)} {deck} {self.moves_made}"

    def pure_height(self, suit: Suit) -> int:
        """The height of the tallest tower made only of cards bearing ``suit``."""
        return _pure_height(self._towers, suit)

    @property
    def cards_placed(self) -> int:
        """Cards on the towers (every one came from the deck)."""
        return sum(len(t) for t in self._towers)

    def card_to_move(self, move: TowerMove) -> Card | None:
        if move.source == DECK:
            return self.top_card
        if 1 <= move.source <= len(self._towers) and self._towers[move.source - 1]:
            return self._towers[move.source - 1][-1]
        return None

    # -- rules hooks
    def _move_error(self, move: TowerMove) -> str | None:
        spaces = len(self._towers)
        for number in (move.source, move.target):
            if number != DECK and not 1 <= number <= spaces:
                return f"there is no tower {number}: the towers are numbered 1 to {spaces}"
        if move.target == DECK:
            return "cards cannot go back onto the deck: a card goes onto a tower space"
        if move.source == move.target:
            return f"a card cannot move from tower {move.source} onto the same tower"
        card = self.card_to_move(move)
        if card is None:
            if move.source == DECK:
                return "the deck is empty: there is no card to place"
            return f"tower {move.source} is empty: there is no card to move"
        target = self._towers[move.target - 1]
        return _placement_error(card, target[-1]) if target else None

    def _apply(self, move: TowerMove) -> None:
        self._towers = apply_tower_move(self._towers, move, self.top_card)
        if move.source == DECK:
            self._position += 1

    def _generate_moves(self) -> Iterator[TowerMove]:
        return legal_tower_moves(self._towers, self.top_card)

    def _goal_outcome(self) -> Outcome | None:
        variant = self.game.variant
        if isinstance(variant, Quota):
            height = self.pure_height(variant.suit)
            if height >= variant.quota:
                left = self.cards_left
                return Outcome(
                    Status.WON, EndReason.GOAL, left,
                    f"success: a tower of {height} {variant.suit.value} reached the quota of "
                    f"{variant.quota} with {counted(left, 'card')} to spare",
                )  # fmt: skip
            return None
        if self.cards_left:
            return None
        full = [t for t in self._towers if len(t) == self.game.level - 1]
        if len(full) != 3:
            return None
        if isinstance(variant, Ivory) and not any(_is_pure(t, variant.suit) for t in full):
            return None
        placed = self.cards_placed
        goal = (
            "three towers"
            if isinstance(variant, Standard)
            else (f"three towers, one of pure {variant.suit.value}")
        )
        return Outcome(Status.WON, EndReason.GOAL, placed,
                       f"success: {goal} built from all {placed} cards")  # fmt: skip

    def _loss_outcome(self, reason: EndReason) -> Outcome:
        why = {
            EndReason.NO_LEGAL_MOVES: "no legal move remains",
            EndReason.MOVE_LIMIT: f"the move limit of {self.game.move_limit} was reached",
            EndReason.CONCEDED: "the player conceded",
            EndReason.UNWINNABLE: "no winning line remains with the cards left in the deck",
            EndReason.GOAL: "",
        }[reason]
        variant = self.game.variant
        if isinstance(variant, Quota):
            height = self.pure_height(variant.suit)
            short = variant.quota - height
            return Outcome(
                Status.LOST, reason, -short,
                f"failure: {why}; the tallest {variant.suit.value} tower holds {height}, "
                f"{short} short of the quota of {variant.quota}",
            )  # fmt: skip
        placed = self.cards_placed
        total = placed + self.cards_left
        return Outcome(Status.LOST, reason, placed,
                       f"failure: {why}; {placed} of {total} cards placed")  # fmt: skip

    def _snapshot(self) -> tuple[tuple[tuple[Card, ...], ...], int]:
        return self._towers, self._position

    def _restore(self, snapshot: tuple[tuple[tuple[Card, ...], ...], int]) -> None:
        self._towers, self._position = snapshot

    def _copy_position(self) -> ThreeTowersState:
        other = ThreeTowersState.__new__(ThreeTowersState)
        State.__init__(other, self.game, self.seed, self.deal)
        other._towers, other._deck, other._position = self._towers, self._deck, self._position
        return other
