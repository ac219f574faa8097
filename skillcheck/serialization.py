"""The one cattrs converter used at the library's edges (records, CLI JSON, later the API).

Cards travel as their codes, suits as lowercase names, enums as their values, and the Three
Towers variant as a tagged union whose ``kind`` names the variant.
"""

from __future__ import annotations

from typing import Any

import cattrs
from cattrs.strategies import configure_tagged_union

from skillcheck.cards import Card, Suit
from skillcheck.engine import Game, game_class
from skillcheck.errors import ParameterError, SkillcheckError
from skillcheck.three_towers import Ivory, Quota, Standard, Variant

__all__ = ["converter", "game_from_params", "game_params"]

converter = cattrs.Converter(forbid_extra_keys=True)
converter.register_unstructure_hook(Card, lambda c: c.code)
converter.register_structure_hook(Card, lambda v, _: Card.parse(v))
converter.register_unstructure_hook(Suit, lambda s: s.value)
converter.register_structure_hook(Suit, lambda v, _: Suit.parse(v))


def _variant_tag(cls: Any) -> str:
    return str(cls.kind)


configure_tagged_union(Variant, converter, tag_generator=_variant_tag, tag_name="kind")


def _first_domain_error(exc: BaseException) -> SkillcheckError | None:
    if isinstance(exc, SkillcheckError):
        return exc
    for inner in getattr(exc, "exceptions", ()):
        found = _first_domain_error(inner)
        if found is not None:
            return found
    return None


def game_params(game: Game[Any]) -> dict[str, Any]:
    """A game's parameters as plain JSON-able data."""
    data: dict[str, Any] = converter.unstructure(game)
    return data


def game_from_params(name: str, params: dict[str, Any]) -> Game[Any]:
    """Rebuild a game from its registry name and :func:`game_params` data.

    Raises :class:`ParameterError` (or another domain error) naming what was wrong.
    """
    cls = game_class(name)
    try:
        return converter.structure(params, cls)
    except Exception as exc:
        domain = _first_domain_error(exc)
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


# Re-exported so callers can name the variant classes from one place.
VARIANT_CLASSES = (Standard, Ivory, Quota)
