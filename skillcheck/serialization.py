"""The one cattrs converter used at the library's edges (records, CLI JSON, later the API).

Cards travel as their codes, suits as lowercase names, enums as their values, and the Three
Towers variant as a tagged union whose ``kind`` names the variant.
"""

from __future__ import annotations

from typing import Any

import cattrs

from skillcheck.cards import Card, Suit
from skillcheck.engine import Game, game_class
from skillcheck.errors import ParameterError, SkillcheckError
from skillcheck.three_towers import VARIANTS, Ivory, Quota, Standard, Variant

__all__ = ["converter", "game_from_params", "game_params"]

converter = cattrs.Converter(forbid_extra_keys=True)
converter.register_unstructure_hook(Card, lambda c: c.code)
converter.register_structure_hook(Card, lambda v, _: Card.parse(v))
converter.register_unstructure_hook(Suit, lambda s: s.value)
converter.register_structure_hook(Suit, lambda v, _: Suit.parse(v))
VARIANT_CLASSES = (Standard, Ivory, Quota)


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
            f"variant {kind if kind is not None else value!r} is not allowed: the variants are "
            f"{', '.join(VARIANTS)}",
        )
    fields = {k: v for k, v in data.items() if k != "kind"}
    return converter.structure(fields, VARIANTS[kind])


converter.register_unstructure_hook(Variant, _unstructure_variant)
for _cls in VARIANT_CLASSES:
    converter.register_unstructure_hook(_cls, _unstructure_variant)
converter.register_structure_hook(Variant, _structure_variant)


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
