"""JSON Schema of a game's parameters, built from its :class:`~skillcheck.engine.ParameterSpec`.

A game's parameters travel as records and the API write them (``game_params``): nested objects
where a spec's ``path`` says so (``{"level": 6, "variant": {"kind": "quota", "suit": "moons",
...}}``). :func:`parameter_schema` describes that shape as a JSON Schema (draft 2020-12) that a
form builder, a client generator or any JSON Schema validator can read:

- one property per spec, nested by ``path``; every object has ``additionalProperties: false``;
- ``int`` → ``integer`` with ``minimum``/``maximum``; ``bool`` → ``boolean``; ``choice`` → a
  string ``enum``; ``cards`` → an array of card codes (the deck is named in the description);
- ``optional`` parameters also accept ``null`` (records write ``null`` for them); every
  property carries its ``default``, and no property is required (a parameter left out takes
  its default).

What the schema cannot say (a quota no larger than the skill, fields that only one variant
takes) the game's own validation says when the game is built. :func:`check_params` applies the
schema strictly and without coercion (``"6"`` is not a whole number, ``1`` is not ``true``,
``6.0`` is not an integer) before the game is built, and raises
:class:`~skillcheck.errors.ParameterError` naming the parameter. Nothing here names a game.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from skillcheck.engine import Game, ParameterSpec
from skillcheck.errors import ParameterError, quoted

__all__ = [
    "JSON_SCHEMA_DIALECT",
    "check_params",
    "flat_params",
    "parameter_name_at",
    "parameter_schema",
    "schema_errors",
    "spec_schema",
]

JSON_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"

_TYPES = {"int": "integer", "bool": "boolean", "choice": "string", "cards": "array"}


def spec_schema(spec: ParameterSpec) -> dict[str, Any]:
    """The JSON Schema of one parameter's value."""
    kind = _TYPES[spec.kind]
    schema: dict[str, Any] = {"title": spec.name, "description": spec.help}
    schema["type"] = [kind, "null"] if spec.optional else kind
    if spec.kind == "int":
        if spec.minimum is not None:
            schema["minimum"] = spec.minimum
        if spec.maximum is not None:
            schema["maximum"] = spec.maximum
    elif spec.kind == "choice":
        assert spec.choices is not None
        schema["enum"] = [*spec.choices, None] if spec.optional else list(spec.choices)
    elif spec.kind == "cards":
        schema["items"] = {"type": "string", "description": f"a card code of the {spec.deck} deck"}
        schema["description"] = f"{spec.help} (card codes of the {spec.deck} deck)"
    if spec.default is not None or spec.optional:
        schema["default"] = copy.deepcopy(spec.default)
    return schema


def _object() -> dict[str, Any]:
    return {"type": "object", "properties": {}, "additionalProperties": False}


def parameter_schema(game: type[Game[Any]]) -> dict[str, Any]:
    """A JSON Schema (draft 2020-12) of ``game``'s parameters as records write them.

    Every :meth:`~skillcheck.engine.Game.examples` entry and every ``game_params(game)`` fits
    it. Raises ``ValueError`` if two specs claim the same place or one's path runs through
    another's value."""
    root: dict[str, Any] = {
        "$schema": JSON_SCHEMA_DIALECT,
        "title": f"{game.title} parameters",
        "description": f"The parameters of {game.name} as records write them; a parameter "
        "left out takes its default.",
        **_object(),
    }
    for spec in game.parameters():
        node = root
        for depth, key in enumerate(spec.where[:-1], 1):
            child = node["properties"].setdefault(key, _object())
            if child.get("type") != "object":
                where = ".".join(spec.where[:depth])
                raise ValueError(f"parameter {spec.name!r}: {where} is a value, not an object")
            node = child
        leaf = spec.where[-1]
        if leaf in node["properties"]:
            raise ValueError(f"parameter {spec.name!r}: {'.'.join(spec.where)} is taken already")
        node["properties"][leaf] = spec_schema(spec)
    for name, child in root["properties"].items():
        _object_defaults(name, child)
    return root


def _object_defaults(name: str, node: dict[str, Any]) -> None:
    """Give nested objects a title and the default made of their members' defaults."""
    if node.get("type") != "object":
        return
    node.setdefault("title", name)
    default: dict[str, Any] = {}
    for key, child in node["properties"].items():
        _object_defaults(key, child)
        if child.get("default") is not None:
            default[key] = copy.deepcopy(child["default"])
    if default:
        node["default"] = default


# ---- strict validation --------------------------------------------------------------------------

_JSON_TYPES: dict[str, str] = {
    "integer": "a whole number",
    "boolean": "true or false",
    "string": "a string",
    "array": "a list",
    "object": "an object",
    "null": "null",
}


def _is(value: Any, json_type: str) -> bool:
    if json_type == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if json_type == "boolean":
        return isinstance(value, bool)
    if json_type == "string":
        return isinstance(value, str)
    if json_type == "array":
        return isinstance(value, list | tuple)
    if json_type == "object":
        return isinstance(value, Mapping)
    if json_type == "null":
        return value is None
    raise ValueError(f"unsupported JSON type {json_type!r}")


def _describe(schema: Mapping[str, Any]) -> str:
    types = schema.get("type")
    names = [types] if isinstance(types, str) else list(types or [])
    if "enum" in schema:
        choices = ", ".join(c if isinstance(c, str) else quoted(c) for c in schema["enum"])
        return f"one of {choices}"
    words = " or ".join(_JSON_TYPES.get(t, t) for t in names)
    if "integer" in names and ("minimum" in schema or "maximum" in schema):
        low, high = schema.get("minimum"), schema.get("maximum")
        if low is not None and high is not None:
            words += f" from {low} to {high}"
        elif low is not None:
            words += f" of at least {low}"
        else:
            words += f" of at most {high}"
    return words


def schema_errors(
    schema: Mapping[str, Any], value: Any, path: tuple[str, ...] = ()
) -> list[tuple[tuple[str, ...], str]]:
    """Where ``value`` breaks ``schema`` and why, for the subset of JSON Schema that
    :func:`parameter_schema` writes (type, enum, minimum, maximum, properties,
    additionalProperties, items, required). Strict: no value is converted, and a float is
    never an integer. Returns ``(path, message)`` pairs; empty when the value fits."""
    where = ".".join(path) or "params"
    types = schema.get("type")
    if types is not None:
        names = [types] if isinstance(types, str) else list(types)
        if not any(_is(value, t) for t in names):
            return [
                (path, f"{where} {quoted(value)} is not allowed: {where} is {_describe(schema)}")
            ]
    if "enum" in schema and not any(_same(value, choice) for choice in schema["enum"]):
        return [(path, f"{where} {quoted(value)} is not allowed: {where} is {_describe(schema)}")]
    if _is(value, "integer"):
        low, high = schema.get("minimum"), schema.get("maximum")
        if (low is not None and value < low) or (high is not None and value > high):
            return [
                (path, f"{where} {quoted(value)} is not allowed: {where} is {_describe(schema)}")
            ]
    errors: list[tuple[tuple[str, ...], str]] = []
    if _is(value, "object"):
        properties: Mapping[str, Any] = schema.get("properties", {})
        for key in schema.get("required", ()):
            if key not in value:
                errors.append(((*path, key), f"{'.'.join((*path, key))} is missing"))
        for key, item in value.items():
            if key in properties:
                errors += schema_errors(properties[key], item, (*path, str(key)))
            elif schema.get("additionalProperties", True) is False:
                known = ", ".join(properties) or "none"
                errors.append(
                    (
                        (*path, str(key)),
                        f"unknown parameter {quoted('.'.join((*path, str(key))))}: the parameters "
                        f"{'of ' + where + ' ' if path else ''}are {known}",
                    )
                )
    if _is(value, "array") and "items" in schema:
        for index, item in enumerate(value):
            errors += schema_errors(schema["items"], item, (*path, str(index)))
    return errors


def _same(value: Any, choice: Any) -> bool:
    """JSON equality for enum members: ``1`` is not ``true``."""
    return type(value) is type(choice) and value == choice


def parameter_name_at(game: type[Game[Any]], path: tuple[str, ...]) -> str:
    """The name of the parameter at ``path`` (or above it), else the path itself."""
    best: tuple[int, str] | None = None
    for spec in game.parameters():
        where = spec.where
        if path[: len(where)] == where and (best is None or len(where) > best[0]):
            best = len(where), spec.name
    if best is not None:
        return best[1]
    return path[0] if path else "params"


def check_params(game: type[Game[Any]], params: Any) -> None:
    """Check ``params`` (as records write them) against :func:`parameter_schema`, strictly.

    Raises :class:`ParameterError` naming the first parameter that does not fit (its spec's
    name, e.g. ``suit`` for ``variant.suit``) with every problem found in the message."""
    if not isinstance(params, Mapping):
        raise ParameterError("params", f"params must be a JSON object, not {quoted(params)}")
    errors = schema_errors(parameter_schema(game), params)
    if errors:
        message = "; ".join(text for _, text in errors)
        raise ParameterError(parameter_name_at(game, errors[0][0]), message)


def flat_params(game: type[Game[Any]], params: Mapping[str, Any]) -> dict[str, Any]:
    """The flat options (one per spec, by name) of structured ``params``: the value at each
    spec's path, None where there is none. The inverse of ``Game.params_from_options`` for
    complete parameters such as ``game_params(game)`` writes."""
    flat: dict[str, Any] = {}
    for spec in game.parameters():
        value: Any = params
        for key in spec.where:
            value = value.get(key) if isinstance(value, Mapping) else None
        flat[spec.name] = copy.deepcopy(value)
    return flat
