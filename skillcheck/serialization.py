"""The one cattrs converter used at the library's edges (records, CLI JSON, later the API).

Cards travel as their codes, suits as lowercase names, enums as their values. Nothing here
names a game: a game that needs hooks of its own (a tagged union of variants, its own card
type) registers them on :data:`converter` in its own module.
"""

from __future__ import annotations

import enum
import types
import typing
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import attrs
import cattrs
from cattrs.v import format_exception

from skillcheck.cards import DECKS, Deck
from skillcheck.errors import ParameterError, SkillcheckError, quoted
from skillcheck.outcome import Tiers, UndoPolicy
from skillcheck.registry import game_class
from skillcheck.schema import parameter_name_at

__all__ = [
    "converter",
    "first_domain_error",
    "game_from_params",
    "game_params",
    "structure_problems",
]

converter = cattrs.Converter(forbid_extra_keys=True)


def _card_code(card: Any) -> str:
    return str(card.code)


def _card_parser(deck: Deck) -> Callable[[Any, Any], Any]:
    def structure(value: Any, _type: Any) -> Any:
        return deck.parse(value)

    return structure


#: Python's type names in cattrs' messages → words for people.
_TYPE_WORDS = {
    "int": "a whole number",
    "float": "a number",
    "str": "text",
    "bool": "true or false",
    "None": "null",
}


def _strict(kind: type) -> Callable[[Any, Any], Any]:
    """Structure only values already of ``kind``: cattrs would turn "7" into 7 and true into
    1 (``int(value)``), and an edge must not coerce silently."""

    def structure(value: Any, _type: Any) -> Any:
        if type(value) is kind or (kind is float and type(value) is int):
            return value
        raise ValueError(f"{quoted(value)} is not {_TYPE_WORDS[kind.__name__]}")

    return structure


for _kind in (int, float, str, bool):
    converter.register_structure_hook(_kind, _strict(_kind))

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
    if not isinstance(params, Mapping):
        allowed = ", ".join(f.name for f in attrs.fields(cls) if f.init)
        raise ParameterError(
            "params",
            f"the parameters of {name} must be a JSON object (its members among {allowed}), "
            f"not {quoted(params)}",
        )
    try:
        return converter.structure(params, cls)
    except Exception as exc:
        domain = first_domain_error(exc)
        if domain is not None:
            raise domain from None
        extra = next(_extra_keys(exc), None)
        if extra is not None:
            raise _extra_key_error(cls, params, *extra) from None
        # a value of the wrong kind ("5" for cards): the game's own validators name the value
        # and the range, as its constructor does; the converter's account is the fallback
        worded = _constructor_error(cls, params)
        if worded is not None and not isinstance(
            params.get(getattr(worded, "parameter", "")), Mapping
        ):  # (a nested value, such as a variant, is worded better by the converter)
            raise worded from None
        missing = _missing_error(cls, name, exc)
        if missing is not None:
            raise missing from None
        allowed = ", ".join(p.name for p in cls.parameters() if p.name in _field_names(cls))
        detail = structure_problems(exc)
        raise ParameterError(
            "params", f"invalid parameters for {name}: {detail} (parameters: {allowed})"
        ) from None


def _missing_error(cls: type[Any], name: str, exc: BaseException) -> ParameterError | None:
    """When all that is wrong is a member left out (an ivory variant without its suit): the
    parameter by name, with what it takes ("variant.suit is missing: give suit, one of moons,
    suns..."), not the top-level list the parameters' member sits under."""
    problems = list(_problems(exc))
    if not problems or any(text != "required field missing" for text, _ in problems):
        return None
    paths = [tuple(where.split(".")) for _, where in problems]
    first = parameter_name_at(cls, paths[0])
    spec = next((s for s in cls.parameters() if s.name == first), None)
    takes = f", one of {', '.join(spec.choices)}" if spec and spec.choices else ""
    dotted = " and ".join(".".join(p) for p in paths)
    verb = "is" if len(paths) == 1 else "are"
    return ParameterError(first, f"{dotted} {verb} missing for {name}: give {first}{takes}")


def _constructor_error(cls: type[Any], params: Mapping[str, Any]) -> SkillcheckError | None:
    """The domain error the game's constructor raises for ``params`` as given, if any."""
    try:
        cls(**params)
    except SkillcheckError as exc:
        return exc
    except Exception:  # a value only the converter can read (a nested variant): no better words
        return None
    return None


def structure_problems(exc: BaseException, whole: str = "the object") -> str:
    """What cattrs found wrong, in words: ``params is missing; seed must be a whole number or
    null``."""
    if not isinstance(exc, cattrs.BaseValidationError):
        return str(exc)
    said = []
    for text, where in _problems(exc):
        name = where or whole
        if text == "required field missing":
            said.append(f"{name} is missing")
        elif text.startswith("extra fields found"):
            extra = text.removeprefix("extra fields found").strip(" ()")
            said.append(f"{name} has members it does not take: {extra}")
        elif text.startswith(_EXPECTED):
            said.append(f"{name} must be {text.removeprefix(_EXPECTED)}")
        else:
            said.append(f"{name}: {text}")
    return "; ".join(said)


def _problems(exc: BaseException) -> Iterator[tuple[str, str]]:
    """Each of cattrs' problems as (what, where): ``("required field missing",
    "variant.suit")``; nothing for an error that is not cattrs' own."""
    if not isinstance(exc, cattrs.BaseValidationError):
        return
    for line in cattrs.transform_error(exc, format_exception=_problem):
        text, _, where = line.rpartition(" @ ")
        yield text, where.removeprefix("$").removeprefix(".")


#: How :func:`_problem` says what a value should have been (``must be`` follows in the message).
_EXPECTED = "expected: "


def _problem(exc: BaseException, kind: Any) -> str:
    """cattrs' account of one wrong value, with the expected kind in words (``one of "won",
    "lost"``, ``an object``) instead of Python's type names (``skillcheck.outcome.Status``,
    ``expected a mapping``)."""
    if isinstance(exc, cattrs.ForbiddenExtraKeysError | KeyError):
        return format_exception(exc, kind)
    if kind is not None and isinstance(exc, ValueError | TypeError | AttributeError):
        return f"{_EXPECTED}{_kind_words(kind)}"
    if isinstance(exc, AttributeError) or (
        isinstance(exc, TypeError) and str(exc).endswith("is not iterable")
    ):
        return f"{_EXPECTED}an object"
    if isinstance(exc, ValueError | TypeError):
        return "invalid value"
    return format_exception(exc, kind)


def _kind_words(kind: Any) -> str:
    """A type as words for people: ``Tier | None`` is ``one of "critical_success", ... or
    null``; ``int`` ``a whole number``; a mapping or an attrs class ``an object``."""
    if kind is None or kind is type(None):
        return "null"
    if typing.get_origin(kind) in (typing.Union, types.UnionType):
        parts = [_kind_words(k) for k in typing.get_args(kind)]
        return " or ".join(parts)
    if isinstance(kind, type) and issubclass(kind, enum.Enum):
        return f"one of {', '.join(quoted(member.value) for member in kind)}"
    origin = typing.get_origin(kind) or kind
    if isinstance(origin, type):
        if origin.__name__ in _TYPE_WORDS:
            return _TYPE_WORDS[origin.__name__]
        if issubclass(origin, Mapping) or attrs.has(origin):
            return "an object"
        if issubclass(origin, tuple | list):
            return "a list"
    return "a value of another kind"


def _field_names(cls: type) -> set[str]:
    return {f.name for f in attrs.fields(cls)}


def _extra_keys(
    exc: BaseException, path: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], list[str], type]]:
    """Where cattrs found members that the class being built does not take: ``(path of the
    object, its extra members, the class)``, depth first (``variant`` of the standard kind
    given a ``suit``: ``(("variant",), ["suit"], Standard)``)."""
    if isinstance(exc, cattrs.ForbiddenExtraKeysError):
        yield path, sorted(exc.extra_fields), exc.cl
        return
    if isinstance(exc, cattrs.ClassValidationError):
        with_notes, without = exc.group_exceptions()
        for inner, note in with_notes:
            name = getattr(note, "name", None)
            yield from _extra_keys(inner, (*path, str(name)) if name is not None else path)
        for inner in without:
            yield from _extra_keys(inner, path)


def _extra_key_error(
    cls: type, params: Any, path: tuple[str, ...], extra: list[str], built: type
) -> ParameterError:
    """Members the parameters do not take here, named by their path and the first one's
    parameter (``suit`` for ``variant.suit``, as :func:`~skillcheck.schema.check_params` names
    them), with what the object around them takes: ``variant.suit is not allowed with
    variant.kind "standard": variant then takes only kind``."""
    given: Any = params
    for key in path:
        given = given.get(key) if isinstance(given, dict) else None
    fields = [f.name for f in attrs.fields(built)] if attrs.has(built) else []
    # members read before the class was chosen (a tagged union's kind)
    chosen = (
        [k for k in given if k not in extra and k not in fields] if isinstance(given, dict) else []
    )
    keys = [".".join((*path, name)) for name in extra]
    subject = f"{' and '.join(keys)} {'is' if len(keys) == 1 else 'are'} not allowed"
    takes = ", ".join([*chosen, *fields]) or "nothing more"
    if not path:
        message = f"{subject}: the parameters are {takes}"
    elif chosen:
        by = ", ".join(f"{'.'.join((*path, k))} {quoted(given[k])}" for k in chosen)
        message = f"{subject} with {by}: {'.'.join(path)} then takes only {takes}"
    else:
        message = f"{subject}: {'.'.join(path)} takes {takes}"
    return ParameterError(parameter_name_at(cls, (*path, extra[0])), message)


# Every game's undo parameter: a policy by name; True/False (records written when undo was a
# switch) are read as full/off, so old records and stored checks still load.
converter.register_structure_hook(UndoPolicy, lambda value, _type: UndoPolicy.of(value))
# Tier thresholds are read strictly (whole numbers, never "7" or 7.5), as the API reads them.
converter.register_structure_hook(Tiers, lambda value, _type: Tiers.from_dict(value))
converter.register_unstructure_hook(Tiers, Tiers.to_dict)
