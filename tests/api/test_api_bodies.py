"""The OpenAPI document types every answer, and real answers fit the types it documents.

Each JSON answer of a ``/v1`` endpoint (and ``/health``) has a named schema in
``/schema/openapi.json`` (no ``{}`` or open ``object``); the answers of a whole check (created,
viewed, moved, undone, conceded, cancelled, its events, record and webhook), the games, the odds
and the problems are validated against those schemas with ``jsonschema``. Schemathesis checks
the same for generated requests (``test_api_schemathesis.py``, slow); the TypeScript test
(``test_api_typescript.py``) checks that a client generated from the document is typed.
"""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest
from api_support import GAME, GM_KEY, PARAMS, bearer, poll_odds, winning_seed
from litestar.testing import TestClient

from skillcheck.engine import GAMES

#: Answers that are not JSON documents of their own (the event stream, the page's assets).
NOT_JSON = {("get", "/v1/checks/{check_id}/stream"), ("get", "/v1/checks/stream")}
#: Routes of the player's page module (api/pages.py), typed by its own owner.
PAGE_ROUTES = {"/v1/cards", "/v1/decks/{deck}"}


@pytest.fixture
def document(client: TestClient[Any]) -> dict[str, Any]:
    answer = client.get("/schema/openapi.json")
    assert answer.status_code == 200
    body: dict[str, Any] = answer.json()
    return body


def _validator(document: dict[str, Any], schema: dict[str, Any]) -> jsonschema.Validator:
    """A validator of ``schema`` whose ``#/components/...`` references resolve in the document."""
    root = {**schema, "components": document["components"]}
    return jsonschema.Draft202012Validator(root)


def _response_schema(
    document: dict[str, Any], method: str, path: str, status: int
) -> dict[str, Any]:
    responses = document["paths"][path][method]["responses"]
    content = responses[str(status)]["content"]
    media = "application/problem+json" if status >= 400 else "application/json"
    schema: dict[str, Any] = content[media]["schema"]
    return schema


def _fits(document: dict[str, Any], method: str, path: str, answer: Any) -> dict[str, Any]:
    schema = _response_schema(document, method, path, answer.status_code)
    body: dict[str, Any] = answer.json()
    errors = sorted(_validator(document, schema).iter_errors(body), key=str)
    assert not errors, f"{method.upper()} {path} {answer.status_code}: {errors[0]}"
    return body


def test_every_json_answer_has_a_named_schema(document: dict[str, Any]) -> None:
    for path, operations in document["paths"].items():
        if path in PAGE_ROUTES:
            continue
        for method, operation in operations.items():
            for status, response in operation["responses"].items():
                if (method, path) in NOT_JSON or not status.startswith("2"):
                    continue
                for media, content in (response.get("content") or {}).items():
                    schema = content["schema"]
                    assert "$ref" in schema, (method, path, status, media, schema)
                    name = schema["$ref"].rsplit("/", 1)[-1]
                    target = document["components"]["schemas"][name]
                    assert target.get("properties"), (method, path, name)
            for status in operation["responses"]:
                if (method, path, status) == ("get", "/health", "503"):
                    continue  # the health check's own body, for load balancers
                if status.startswith("4") or status.startswith("5"):
                    problem = operation["responses"][status]["content"]
                    assert "application/problem+json" in problem, (method, path, status)


def test_the_view_documents_the_board_moves_and_outcome(document: dict[str, Any]) -> None:
    schemas = document["components"]["schemas"]
    view = schemas["CheckViewBody"]
    assert view["properties"]["board"] == {"$ref": "#/components/schemas/BoardBody"}
    assert view["properties"]["moves"]["items"] == {"$ref": "#/components/schemas/MoveViewBody"}
    assert {"$ref": "#/components/schemas/OutcomeBody"} in view["properties"]["outcome"]["oneOf"]
    assert set(schemas["MoveViewBody"]["required"]) == {"code", "from", "to", "text"}
    assert "id" in schemas["ZoneBody"]["required"]
    assert set(view["required"]) == set(view["properties"])


def test_the_answers_of_a_whole_check_fit_their_schemas(
    client: TestClient[Any], document: dict[str, Any]
) -> None:
    gm = bearer(GM_KEY)
    seed, line = winning_seed()
    params = {**PARAMS, "undo": "full"}  # the first move is a deck move: take it back too
    created = client.post(
        "/v1/checks", json={"game": GAME, "params": params, "seed": seed}, headers=gm
    )
    body = _fits(document, "post", "/v1/checks", created)
    base = "/v1/checks/{check_id}"
    url = f"/v1/checks/{body['check_id']}"
    player = bearer(body["player_token"])
    _fits(document, "get", base, client.get(url, headers=player))
    moved = client.post(f"{url}/moves", json={"move": line[0]}, headers=player)
    _fits(document, "post", f"{base}/moves", moved)
    _fits(document, "post", f"{base}/undo", client.post(f"{url}/undo", headers=player))
    _fits(document, "post", f"{base}/concede", client.post(f"{url}/concede", headers=player))
    record = _fits(document, "get", f"{base}/record", client.get(f"{url}/record", headers=player))
    assert record["record"]["seed"] == seed
    events = _fits(document, "get", f"{base}/events", client.get(f"{url}/events", headers=gm))
    assert [e["kind"] for e in events["events"]] == ["created", "moved", "undone", "ended"]
    _fits(document, "get", f"{base}/webhook", client.get(f"{url}/webhook", headers=gm))
    other = client.post("/v1/checks", json={"game": GAME, "params": PARAMS}, headers=gm).json()
    cancelled = client.post(f"/v1/checks/{other['check_id']}/cancel", headers=gm)
    _fits(document, "post", f"{base}/cancel", cancelled)
    # problems
    _fits(document, "get", base, client.get(url))  # 401
    ended = client.post(f"{url}/moves", json={"move": "d1"}, headers=player)  # 409
    _fits(document, "post", f"{base}/moves", ended)
    _fits(document, "post", "/v1/checks", client.post("/v1/checks", json={}, headers=gm))


def test_the_games_health_and_odds_fit_their_schemas(
    client: TestClient[Any], document: dict[str, Any]
) -> None:
    _fits(document, "get", "/health", client.get("/health"))
    _fits(document, "get", "/v1/games", client.get("/v1/games"))
    for name in GAMES:
        answer = client.get(f"/v1/games/{name}")
        if answer.status_code == 200:  # a game being written may not answer yet
            _fits(document, "get", "/v1/games/{name}", answer)
    _fits(document, "get", "/v1/games/{name}", client.get("/v1/games/chess"))
    query = {"game": GAME, "suit": "moons", "skill": 2, "quota": [1, 2], "level": 4, "deals": 2}
    running, odds = poll_odds(client, query)  # computed in the background for a GM
    assert running.status_code == 202
    _fits(document, "get", "/v1/odds", running)
    body = _fits(document, "get", "/v1/odds", odds)
    assert len(body["cells"]) == 4
    shipped = {"game": GAME, "suit": "moons", "skill": 5, "quota": 4}
    _fits(document, "get", "/v1/odds", client.get("/v1/odds", params=shipped))
    calibrate = {"game": GAME, "suit": "moons", "skill": 5, "target": 0.6}
    calibrated = client.get("/v1/calibrate", params=calibrate)
    assert calibrated.status_code == 200, calibrated.text
    _fits(document, "get", "/v1/calibrate", calibrated)
    _fits(document, "get", "/v1/odds", client.get("/v1/odds", params={"game": GAME, "x": 1}))
