"""The JSON Schema of a game's parameters (skillcheck.schema), for every registered game.

Every example and every ``game_params`` of every game fits its schema, checked by the
``jsonschema`` package when it is installed and by the library's own strict checker always; the
two agree on values that break the schema; and the schema is built from the specs alone, so a
game added later (a plug-in) is covered without naming it here.
"""

from __future__ import annotations

from typing import Any, ClassVar

import pytest
from attrs import frozen

import skillcheck.games  # noqa: F401  (registers the built-in games)
from skillcheck.engine import GAMES, Game, ParameterSpec
from skillcheck.errors import ParameterError
from skillcheck.schema import (
    JSON_SCHEMA_DIALECT,
    check_params,
    flat_params,
    parameter_schema,
    schema_errors,
)
from skillcheck.serialization import game_from_params, game_params

try:
    import jsonschema
except ImportError:  # pragma: no cover - the test extra installs it (through schemathesis)
    jsonschema = None

NAMES = list(GAMES)


def _jsonschema_errors(schema: dict[str, Any], value: Any) -> list[str] | None:
    """The jsonschema package's verdict, or None when it is not installed."""
    if jsonschema is None:
        return None
    validator = jsonschema.Draft202012Validator(schema)
    return [error.message for error in validator.iter_errors(value)]


def _walk(schema: dict[str, Any]) -> list[dict[str, Any]]:
    found = [schema]
    for child in schema.get("properties", {}).values():
        found += _walk(child)
    return found


@pytest.mark.parametrize("name", NAMES)
def test_the_schema_is_valid_draft_2020_12(name: str) -> None:
    schema = parameter_schema(GAMES[name])
    assert schema["$schema"] == JSON_SCHEMA_DIALECT
    if jsonschema is not None:
        jsonschema.Draft202012Validator.check_schema(schema)
    for node in _walk(schema):
        if node.get("type") == "object":
            assert node["additionalProperties"] is False and "properties" in node


@pytest.mark.parametrize("name", NAMES)
def test_every_example_and_its_record_form_fit(name: str) -> None:
    cls = GAMES[name]
    schema = parameter_schema(cls)
    for example in cls.examples():
        written = game_params(game_from_params(name, dict(example)))
        for params in (dict(example), written):
            assert schema_errors(schema, params) == [], params
            check_params(cls, params)
            assert _jsonschema_errors(schema, params) in (None, []), params
    default = game_params(game_from_params(name, dict(cls.examples()[0])))
    assert _jsonschema_errors(schema, default) in (None, [])


@pytest.mark.parametrize("name", NAMES)
def test_every_spec_is_in_the_schema_where_its_path_says(name: str) -> None:
    cls = GAMES[name]
    schema = parameter_schema(cls)
    for spec in cls.parameters():
        node = schema
        for key in spec.where:
            node = node["properties"][key]
        assert node["title"] == spec.name and spec.help in node["description"]
        types = node["type"] if isinstance(node["type"], list) else [node["type"]]
        assert ("null" in types) == spec.optional
        kind = {"int": "integer", "bool": "boolean", "choice": "string", "cards": "array"}
        assert kind[spec.kind] in types
        if spec.kind == "int":
            assert node.get("minimum") == spec.minimum and node.get("maximum") == spec.maximum
        if spec.kind == "choice":
            assert spec.choices is not None
            assert [c for c in node["enum"] if c is not None] == list(spec.choices)
        if spec.kind == "cards":
            assert str(spec.deck) in node["description"]
            assert node["items"]["type"] == "string"
        if spec.default is not None:
            assert node["default"] == spec.default


@pytest.mark.parametrize("name", NAMES)
def test_flat_params_read_each_spec_at_its_path(name: str) -> None:
    cls = GAMES[name]
    for example in cls.examples():
        written = game_params(game_from_params(name, dict(example)))
        flat = flat_params(cls, written)
        assert list(flat) == [spec.name for spec in cls.parameters()]
        rebuilt = cls.params_from_options(flat)
        assert game_params(game_from_params(name, rebuilt)) == written


def _broken(cls: type[Game[Any]]) -> list[tuple[dict[str, Any], str]]:
    """Values that break the schema, one per spec kind the game has, and the spec's name."""
    cases: list[tuple[dict[str, Any], str]] = [({"not_a_parameter": 1}, "not_a_parameter")]

    def at(spec: ParameterSpec, value: Any) -> dict[str, Any]:
        params: dict[str, Any] = {}
        node = params
        for key in spec.where[:-1]:
            node = node.setdefault(key, {})
        node[spec.where[-1]] = value
        return params

    for spec in cls.parameters():
        if spec.kind == "int":
            cases.append((at(spec, str(spec.default or spec.minimum or 1)), spec.name))
            cases.append((at(spec, float(spec.minimum or 1) + 0.5), spec.name))
            cases.append((at(spec, True), spec.name))
            if spec.maximum is not None:
                cases.append((at(spec, spec.maximum + 1), spec.name))
        elif spec.kind == "bool":
            cases.append((at(spec, 1), spec.name))
            cases.append((at(spec, "true"), spec.name))
        elif spec.kind == "choice":
            assert spec.choices is not None
            cases.append((at(spec, spec.choices[0].upper() + "?"), spec.name))
            cases.append((at(spec, 3), spec.name))
        elif spec.kind == "cards":
            cases.append((at(spec, "a,b"), spec.name))
            cases.append((at(spec, [1, 2]), spec.name))
        if not spec.optional:
            cases.append((at(spec, None), spec.name))
    return cases


@pytest.mark.parametrize("name", NAMES)
def test_values_that_break_the_schema_are_refused_naming_the_parameter(name: str) -> None:
    """Strict: a string is not a number, 1 is not true, 2.5 is not whole; the library's checker
    and the jsonschema package agree."""
    cls = GAMES[name]
    schema = parameter_schema(cls)
    for params, parameter in _broken(cls):
        with pytest.raises(ParameterError) as refused:
            check_params(cls, params)
        assert refused.value.parameter == parameter, (params, refused.value)
        assert schema_errors(schema, params)
        assert _jsonschema_errors(schema, params) != [], params
    with pytest.raises(ParameterError, match="JSON object"):
        check_params(cls, ["not", "an", "object"])


def test_an_integral_float_is_no_whole_number_here() -> None:
    """JSON Schema counts 6.0 as an integer; the strict checker does not (nor does Python's
    JSON, which reads 6.0 as a float): records write whole numbers as 6."""
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}}
    assert schema_errors(schema, {"n": 6.0})
    assert schema_errors(schema, {"n": 6}) == []


@frozen
class _Nested(Game[Any]):
    """A made-up game's parameters: only ``parameters`` is used."""

    name: ClassVar[str] = "nested-example"
    title: ClassVar[str] = "Nested example"
    deck_name: ClassVar[str] = "decktet"
    SPECS: ClassVar[tuple[ParameterSpec, ...]] = ()

    @classmethod
    def parameters(cls) -> tuple[ParameterSpec, ...]:
        return cls.SPECS


def _game_with(*specs: ParameterSpec) -> type[Game[Any]]:
    return type("Made", (_Nested,), {"SPECS": specs})


def test_paths_nest_objects_and_defaults() -> None:
    cls = _game_with(
        ParameterSpec("size", "int", 3, "how big", 1, 9),
        ParameterSpec(
            "mode", "choice", "easy", "the mode", choices=("easy", "hard"), path=("rules", "mode")
        ),
        ParameterSpec(
            "hand",
            "cards",
            None,
            "cards held",
            optional=True,
            deck="standard",
            path=("rules", "hand"),
        ),
    )
    schema = parameter_schema(cls)
    rules = schema["properties"]["rules"]
    assert rules["type"] == "object" and rules["default"] == {"mode": "easy"}
    assert rules["properties"]["hand"]["type"] == ["array", "null"]
    assert "standard" in rules["properties"]["hand"]["description"]
    assert schema_errors(schema, {"size": 2, "rules": {"mode": "hard", "hand": ["AS"]}}) == []
    with pytest.raises(ParameterError) as refused:
        check_params(cls, {"rules": {"mode": "HARD"}})
    assert refused.value.parameter == "mode" and "easy, hard" in refused.value.message
    assert flat_params(cls, {"rules": {"mode": "hard"}}) == {
        "size": None, "mode": "hard", "hand": None,
    }  # fmt: skip


def test_specs_that_collide_are_refused() -> None:
    same = _game_with(
        ParameterSpec("a", "int", 1, "a"), ParameterSpec("b", "int", 1, "b", path=("a",))
    )
    with pytest.raises(ValueError, match="taken"):
        parameter_schema(same)
    through = _game_with(
        ParameterSpec("a", "int", 1, "a"), ParameterSpec("b", "int", 1, "b", path=("a", "b"))
    )
    with pytest.raises(ValueError, match="not an object"):
        parameter_schema(through)
