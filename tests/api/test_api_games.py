"""The games from the registry (``GET /v1/games``, ``GET /v1/games/{name}``), and creating a check:
``game`` is required, ``params`` are checked strictly against the game's parameter schema."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest
from api_support import GAME, GM_KEY, PARAMS, bearer
from litestar.testing import TestClient

from api.cli import demo_check
from skillcheck.engine import GAMES
from skillcheck.schema import parameter_schema
from skillcheck.serialization import game_from_params, game_params
from skillcheck.sessions import SessionService

PROBLEM = "application/problem+json"


def _problem(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith(PROBLEM)
    body: dict[str, Any] = response.json()
    assert body["status"] == status and body["code"] == code and body["detail"]
    return body


def test_the_list_is_the_registry_in_order(client: TestClient[Any]) -> None:
    games = client.get("/v1/games").json()["games"]
    assert [g["name"] for g in games] == list(GAMES)
    for game in games:
        cls = GAMES[game["name"]]
        assert game["title"] == cls.title and game["deck"] == cls.deck_name
        assert [p["name"] for p in game["parameters"]] == [p.name for p in cls.parameters()]
        for parameter, spec in zip(game["parameters"], cls.parameters(), strict=True):
            assert parameter["path"] == list(spec.where) and parameter["deck"] == spec.deck
            condition = spec.applies_if
            assert parameter["applies_if"] == (
                None if condition is None
                else {"parameter": condition[0], "values": list(condition[1])}
            )  # fmt: skip
    towers = next(g for g in games if g["name"] == "three-towers")
    quota = next(p for p in towers["parameters"] if p["name"] == "quota")
    assert quota["applies_if"] == {"parameter": "variant", "values": ["quota"]}


@pytest.mark.parametrize("name", list(GAMES))
def test_a_game_gives_its_schema_examples_and_goal(client: TestClient[Any], name: str) -> None:
    answer = client.get(f"/v1/games/{name}")
    assert answer.status_code == 200, answer.text
    game = answer.json()
    cls = GAMES[name]
    assert game["name"] == name and game["deck"] == cls.deck_name and game["goal"]
    assert game["schema"] == parameter_schema(cls)
    jsonschema.Draft202012Validator.check_schema(game["schema"])
    validator = jsonschema.Draft202012Validator(game["schema"])
    assert [e["params"] for e in game["examples"]] == [dict(e) for e in cls.examples()]
    for example in game["examples"]:
        validator.validate(example["params"])
        validator.validate(game_params(game_from_params(name, example["params"])))
        assert example["description"] and example["goal"]
    assert game["methods"] and game["parameters"][0]["name"] == cls.parameters()[0].name


def test_an_unknown_game_is_404_naming_the_games(client: TestClient[Any]) -> None:
    body = _problem(client.get("/v1/games/chess"), 404, "unknown-game")
    for name in GAMES:
        assert name in body["detail"]


def test_every_example_of_every_game_makes_a_check(client: TestClient[Any]) -> None:
    for name, cls in GAMES.items():
        for example in cls.examples():
            created = client.post(
                "/v1/checks",
                json={"game": name, "params": example, "seed": 1},
                headers=bearer(GM_KEY),
            )
            assert created.status_code == 201, (name, example, created.text)
            view = created.json()["view"]
            assert view["game"] == name and view["board"]["zones"]
            assert view["params"] == game_params(game_from_params(name, dict(example)))


def test_a_check_without_its_game_is_422_naming_the_games(client: TestClient[Any]) -> None:
    answer = client.post("/v1/checks", json={"params": PARAMS}, headers=bearer(GM_KEY))
    body = _problem(answer, 422, "invalid-parameter")
    assert body["field"] == "game"
    for name in GAMES:
        assert name in body["detail"]
    unknown = client.post(
        "/v1/checks", json={"game": "chess", "params": {}}, headers=bearer(GM_KEY)
    )
    assert "three-towers" in _problem(unknown, 422, "unknown-game")["detail"]
    # other body errors are still 400 validation errors
    extra = client.post("/v1/checks", json={"game": GAME, "colour": 1}, headers=bearer(GM_KEY))
    assert _problem(extra, 400, "validation-error")["field"] == "colour"


@pytest.mark.parametrize(
    ("params", "field", "words"),
    [
        ({**PARAMS, "level": "6"}, "level", "whole number"),
        ({**PARAMS, "level": 6.0}, "level", "whole number"),
        ({**PARAMS, "undo": 1}, "undo", "one of off, safe, full"),
        ({**PARAMS, "undo": "false"}, "undo", "one of off, safe, full"),
        ({**PARAMS, "undo": True}, "undo", "one of off, safe, full"),
        ({**PARAMS, "variant": {**PARAMS["variant"], "skill": "3"}}, "skill", "whole number"),
        ({**PARAMS, "variant": {**PARAMS["variant"], "suit": "Moons"}}, "suit", "moons"),
        ({**PARAMS, "variant": "standard"}, "variant", "an object"),
        ({**PARAMS, "colour": "red"}, "colour", "unknown parameter"),
        ({**PARAMS, "level": 12}, "level", "from 2 to 9"),
        ({**PARAMS, "variant": {**PARAMS["variant"], "quota": 5}}, "quota", "skill"),
    ],
)
def test_params_are_checked_strictly_never_converted(
    client: TestClient[Any], params: dict[str, Any], field: str, words: str
) -> None:
    answer = client.post(
        "/v1/checks", json={"game": GAME, "params": params}, headers=bearer(GM_KEY)
    )
    body = _problem(answer, 422, "invalid-parameter")
    assert body["field"] == field and words in body["detail"], body


def test_the_demo_is_the_first_registered_games_first_example() -> None:
    name, params, description = demo_check()
    first = next(iter(GAMES.values()))
    assert name == first.name and params == first.examples()[0]
    assert description == game_from_params(name, params).describe()


def test_the_app_description_lists_the_registered_games(client: TestClient[Any]) -> None:
    info = client.get("/schema/openapi.json").json()["info"]
    for name, cls in GAMES.items():
        assert name in info["description"] and cls.title in info["description"]


#: Parts of a view that differ between two checks of the same game, parameters and seed.
VOLATILE = {"check_id", "commitment", "created_at", "updated_at"}


@pytest.mark.parametrize("name", list(GAMES))
def test_a_sample_view_is_the_first_view_of_a_made_up_check(
    client: TestClient[Any], name: str
) -> None:
    """``GET /v1/games/{name}/sample-view`` (what the player's page draws unseen while a check's
    own view is on its way) is the first view of a check of the game's first example at seed 0,
    made by the same session code as every view (so it names no hidden card), stored nowhere,
    public and cached for a day."""
    answer = client.get(f"/v1/games/{name}/sample-view")
    assert answer.status_code == 200, answer.text
    assert answer.headers["cache-control"] == "public, max-age=86400"
    sample = answer.json()
    made = SessionService().create(name, GAMES[name].examples()[0], seed=0).view.to_dict()
    assert {k: v for k, v in sample.items() if k not in VOLATILE} == {
        k: v for k, v in made.items() if k not in VOLATILE
    }
    assert sample["game"] == name and sample["status"] == "in_progress"
    assert sample["version"] == 0 and sample["label"] is None and sample["board"]["zones"]
    # stored nowhere: no token opens it, and the GM's list does not hold it
    found = client.get(f"/v1/checks/{sample['check_id']}", headers=bearer(GM_KEY))
    assert found.status_code == 404, found.text
    listed = client.get("/v1/checks", headers=bearer(GM_KEY)).json()["checks"]
    assert sample["check_id"] not in {c["check_id"] for c in listed}
    assert client.get(f"/v1/games/{name}/sample-view").json() == sample  # made once


def test_the_sample_view_of_an_unknown_game_is_404_naming_the_games(
    client: TestClient[Any],
) -> None:
    body = _problem(client.get("/v1/games/chess/sample-view"), 404, "unknown-game")
    for name in GAMES:
        assert name in body["detail"]
