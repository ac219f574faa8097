"""The one cattrs converter used at the library's edges (records, CLI JSON, later the API).

Cards travel as their codes, suits as lowercase names, enums as their values. Nothing here
names a game: a game that needs hooks of its own (a tagged union of variants, its own card
type) registers them on :data:`converter` in its own module.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import cattrs

from skillcheck.cards import DECKS, Deck
from skillcheck.errors import ParameterError, SkillcheckError
from skillcheck.outcome import Tiers, UndoPolicy
from skillcheck.registry import game_class

__all__ = ["converter", "first_domain_error", "game_from_params", "game_params"]

converter = cattrs.Converter(forbid_extra_keys=True)


def _card_code(card: Any) -> str:
    return str(card.code)


def _card_parser(deck: Deck) -> Callable[[Any, Any], Any]:
    def structure(value: Any, _type: Any) -> Any:
        return deck.parse(value)

    return structure


for _deck in DECKS.values():  # every deck's cards travel as their codes
    converter.register_unstructure_hook(_deck.card_type, _card_code)
    converter.register_structure_hook(_deck.card_type, _card_parser(_deck))


def first_domain_error(exc: BaseException) -> SkillcheckError | None:
    if isinstance(exc, SkillcheckError):
        return exc
    for inner in getattr(exc, "exceptions", ()):
        found = first_domain_error(inner)
        if found is not None:
            return found
    return None


def game_params(game: Any) -> dict[str, Any]:
    """A game's parameters as plain JSON-able data."""
    data: dict[str, Any] = converter.unstructure(game)
    return data


def game_from_params(name: str, params: dict[str, Any]) -> Any:
    """Rebuild a game from its registry name and :func:`game_params` data.

    Raises :class:`ParameterError` (or another domain error) naming what was wrong.
    """
    cls = game_class(name)
    try:
        return converter.structure(params, cls)
    except Exception as exc:
        domain = first_domain_error(exc)
        if domain is not None:
            raise domain from None
        allowed = ", ".join(p.name for p in cls.parameters() if p.name in _field_names(cls))
        detail = (
            "; ".join(cattrs.transform_error(exc))
            if isinstance(exc, cattrs.BaseValidationError)
            else str(exc)
        )
        raise ParameterError(
            "params", f"invalid parameters for {name}: {detail} (parameters: {allowed})"
        ) from None


def _field_names(cls: type) -> set[str]:
    import attrs

    return {f.name for f in attrs.fields(cls)}


# Every game's undo parameter: a policy by name; True/False (records written when undo was a
# switch) are read as full/off, so old records and stored checks still load.
converter.register_structure_hook(UndoPolicy, lambda value, _type: UndoPolicy.of(value))
# Tier thresholds are read strictly (whole numbers, never "7" or 7.5), as the API reads them.
converter.register_structure_hook(Tiers, lambda value, _type: Tiers.from_dict(value))
converter.register_unstructure_hook(Tiers, Tiers.to_dict)
