"""A generic board description: what a front end draws without knowing the game.

A game turns an observation into a :class:`Board` (``Game.board(observation)``) and each legal
move into a :class:`MoveView` (``Game.move_view(observation, move)``). A page, a terminal or a
chat bot draws zones and meters and offers moves by zone id, so no front end parses a move code
or restates a rule. Both are built from the observation alone, so a board can never show a card
the player has not seen: face-down cards are ``None``.

JSON (``Board.to_dict``)::

    {"layout": "rows", "goal": "...", "zones": [{"id": "t1", "label": "Tower 1",
     "layout": "stack", "cards": ["9MS", null], "count": 2, "x": null, "y": null,
     "accepts": true, "extras": {}}], "meters": [{"id": "quota", "label": "Quota",
     "value": 3, "target": 4, "text": "3 of 4"}]}
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from attrs import field, frozen

__all__ = [
    "LAYOUTS",
    "QUIET_MARKS",
    "WORD_MARKS",
    "ZONE_LAYOUTS",
    "Board",
    "Meter",
    "MoveView",
    "Zone",
]

#: How a zone's cards lie: ``stack`` (one on another, the last on top, all visible as a column),
#: ``pile`` (squared up: only the top card shows), ``fan`` (side by side), ``row``, and ``slot``
#: (one place at grid position ``x``, ``y``, as in Tri Peaks' peaks).
ZONE_LAYOUTS = ("stack", "pile", "fan", "row", "slot")
#: How the zones lie on the table: ``rows`` (zones in order, wrapping), or a name a game's own
#: page module draws (``api/static/games/<name>.js``).
LAYOUTS = ("rows", "grid")
#: Zone marks (``extras``) every front end understands: true flags that light a zone without
#: words (it counts towards the goal, it won, a light), and marks whose value is the words shown
#: (the zone's progress, "1 of 4"; a note). Any other true flag shows its name, any other value
#: as "name: value" (api/static/play.js reads the same marks: docs/play-page.md).
QUIET_MARKS = frozenset({"highlight", "lead", "won"})
WORD_MARKS = ("progress", "note", "text")


def _frozen_dict(value: Any) -> dict[str, Any]:
    return dict(value or {})


def _cards(value: Iterable[str | None]) -> tuple[str | None, ...]:
    return tuple(value)


def _zones(value: Iterable[Zone]) -> tuple[Zone, ...]:
    return tuple(value)


def _meters(value: Iterable[Meter]) -> tuple[Meter, ...]:
    return tuple(value)


def _suits(value: Iterable[str] | None) -> tuple[str, ...] | None:
    return None if value is None else tuple(value)


@frozen
class Zone:
    """One place on the table. ``cards`` lie from the covered (first placed) card to the exposed
    one; ``None`` is a face-down card. ``count`` is how many cards the zone holds, which is more
    than ``len(cards)`` when a pile shows only its top. ``accepts`` says whether a move can end
    here. ``extras`` carries per-game marks a page may show (``{"highlight": true}``)."""

    id: str
    label: str
    layout: str
    cards: tuple[str | None, ...] = field(converter=_cards)
    count: int
    accepts: bool = True
    x: int | None = None
    y: int | None = None
    extras: dict[str, Any] = field(factory=dict, converter=_frozen_dict)

    def __attrs_post_init__(self) -> None:
        if self.layout not in ZONE_LAYOUTS:
            raise ValueError(f"zone layout {self.layout!r}: the layouts are {ZONE_LAYOUTS}")
        if self.count < len(self.cards):
            raise ValueError(f"zone {self.id}: count {self.count} < {len(self.cards)} cards shown")

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "label": self.label,
            "layout": self.layout,
            "cards": list(self.cards),
            "count": self.count,
            "accepts": self.accepts,
            "x": self.x,
            "y": self.y,
            "extras": dict(self.extras),
        }


@frozen
class Meter:
    """Progress towards the goal, always shown: a quota bar, a score, moves against an allowance.

    ``text`` is the meter in plain words (``"3 of 4"``); ``target`` is None for an open score."""

    id: str
    label: str
    value: int
    target: int | None
    text: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "label": self.label,
            "value": self.value,
            "target": self.target,
            "text": self.text,
        }


@frozen
class Board:
    """The whole table as a front end draws it, with the goal in plain words."""

    zones: tuple[Zone, ...] = field(converter=_zones)
    meters: tuple[Meter, ...] = field(converter=_meters, factory=tuple)
    goal: str = ""
    layout: str = "rows"
    #: The suits (their letters) the game's cards can bear, when fewer than the deck's (a game
    #: dealt in one suit): the page's suit legend lists only these. None: every suit of the deck.
    suits: tuple[str, ...] | None = field(default=None, converter=_suits)
    #: A tap on a card that has one move plays it, with no second tap on where it goes: for a
    #: game whose moves leave the player no choice of place (Tri Peaks: every card goes to the
    #: waste). Otherwise a tap selects, and only a move that goes nowhere plays at once.
    one_tap: bool = False

    def __attrs_post_init__(self) -> None:
        ids = [z.id for z in self.zones]
        if len(set(ids)) != len(ids):
            raise ValueError(f"zone ids must be unique: {ids}")

    def zone(self, zone_id: str) -> Zone:
        for zone in self.zones:
            if zone.id == zone_id:
                return zone
        raise KeyError(zone_id)

    def to_dict(self) -> dict[str, Any]:
        return {
            "layout": self.layout,
            "goal": self.goal,
            "zones": [z.to_dict() for z in self.zones],
            "meters": [m.to_dict() for m in self.meters],
            "suits": None if self.suits is None else list(self.suits),
            "one_tap": self.one_tap,
        }


@frozen
class MoveView:
    """A legal move as a front end offers it: its code, the zone ids it goes ``from`` and
    ``to`` (``to`` is None for a move that is not a card going somewhere, such as dealing), and
    a sentence saying what it does."""

    code: str
    source: str
    target: str | None
    text: str

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "from": self.source, "to": self.target, "text": self.text}
