"""What a new user's first run of the HTTP API found: each section is one deviation, with
tests that fail on the code before its fix (the section's comment says what the run saw)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from api_support import GAME, GM_KEY, PARAMS, bearer, check_count, problem, settings_for
from litestar.testing import TestClient

from api.app import create_app
from skillcheck import __version__
from skillcheck.engine import GAMES

GM = bearer(GM_KEY)
DOCS = Path(__file__).resolve().parents[2] / "docs" / "api.md"


def new_check(client: TestClient[Any]) -> dict[str, Any]:
    made = client.post("/v1/checks", json={"game": GAME, "params": PARAMS, "seed": 7}, headers=GM)
    assert made.status_code == 201, made.text
    body: dict[str, Any] = made.json()
    return body


def post_raw(
    client: TestClient[Any], path: str, raw: bytes, headers: dict[str, str], **extra: str
) -> Any:
    return client.post(path, content=raw, headers={**headers, **extra})


# ---- 1. GET /v1 ----------------------------------------------------------------------------------
# `skillcheck serve` prints "API http://127.0.0.1:8000/v1", and GET /v1 was 404: it is an
# index now, whose links all lead to real routes.


def test_the_v1_the_server_prints_is_an_index_of_real_routes(client: TestClient[Any]) -> None:
    index = client.get("/v1")  # no token
    assert index.status_code == 200, index.text
    body = index.json()
    assert body["service"] == "skillcheck" and body["version"] == __version__
    assert body["api_version"] == client.get("/schema/openapi.json").json()["info"]["version"]
    links = body["links"]
    for name in ("self", "docs", "openapi", "health", "games", "decks", "checks"):
        assert name in links, name
    assert links["openapi"]["href"] == "/schema/openapi.json" and links["docs"]["href"] == "/schema"
    check = new_check(client)
    filled = {"{name}": GAME, "{deck}": GAMES[GAME].deck_name, "{check_id}": check["check_id"]}
    #: the queries the odds need (cells of the shipped tables: answered at once)
    queries = {
        "odds": "?game=three-towers&suit=moons&skill=5&quota=4",
        "calibrate": "?game=three-towers&suit=moons&skill=6&target=0.6&profile=casual",
    }
    documented = set(client.get("/schema/openapi.json").json()["paths"])
    for name, link in links.items():
        assert link["title"], name
        href = link["href"]
        assert href in documented or href in ("/schema", "/schema/openapi.json", "/gm"), href
        for template, value in filled.items():
            href = href.replace(template, value)
        answer = client.get(href + queries.get(name, ""), headers=GM)
        assert answer.status_code == 200, (name, href, answer.status_code, answer.text[:200])


def test_the_index_links_carry_the_path_prefix(sqlite_url: str) -> None:
    with TestClient(create_app(settings_for(sqlite_url)), root_path="/sc") as client:
        links = client.get("/v1").json()["links"]
    assert links["games"]["href"] == "/sc/v1/games"
    assert all(link["href"].startswith("/sc/") for link in links.values())


def test_the_index_is_a_documented_public_operation(client: TestClient[Any]) -> None:
    operation = client.get("/schema/openapi.json").json()["paths"]["/v1"]["get"]
    assert operation["security"] == []
    assert "$ref" in operation["responses"]["200"]["content"]["application/json"]["schema"]


# ---- 2. Content-Type -----------------------------------------------------------------------------
# A JSON body sent as text/plain or with no Content-Type was read as JSON: 415 now.

BODY = json.dumps({"game": GAME, "params": PARAMS}).encode()


@pytest.mark.parametrize(
    ("content_type", "named"),
    [
        (None, "no Content-Type"),
        ("text/plain", '"text/plain"'),
        ("text/plain; charset=utf-8", '"text/plain; charset=utf-8"'),
        ("application/x-www-form-urlencoded", '"application/x-www-form-urlencoded"'),
        ("application/merge-patch+json", '"application/merge-patch+json"'),
        ("application/jsonx", '"application/jsonx"'),
    ],
)
def test_a_body_not_sent_as_json_is_415_and_creates_nothing(
    client: TestClient[Any], content_type: str | None, named: str
) -> None:
    before = check_count(client)
    headers = dict(GM)
    if content_type is not None:
        headers["Content-Type"] = content_type
    else:
        headers["Content-Type"] = ""  # httpx sends none for raw bytes; say so outright
    answer = post_raw(client, "/v1/checks", BODY, headers)
    body = problem(answer, 415, "unsupported-media-type")
    assert body["field"] == "Content-Type" and body["title"] == "Unsupported media type"
    assert named in body["detail"] and "application/json" in body["detail"], body["detail"]
    assert answer.headers["accept-post"] == "application/json"
    assert check_count(client) == before


def test_no_content_type_at_all_is_415(client: TestClient[Any]) -> None:
    """httpx adds no Content-Type to raw bytes: the request as curl --data-binary would send
    it without -H."""
    answer = client.post("/v1/checks", content=BODY, headers=GM)
    assert "content-type" not in answer.request.headers
    assert "no Content-Type" in problem(answer, 415, "unsupported-media-type")["detail"]


@pytest.mark.parametrize(
    "content_type", ["application/json", "application/json; charset=utf-8", "Application/JSON"]
)
def test_json_with_parameters_or_in_any_case_is_read(
    client: TestClient[Any], content_type: str
) -> None:
    answer = post_raw(client, "/v1/checks", BODY, GM, **{"Content-Type": content_type})
    assert answer.status_code == 201, answer.text


def test_actions_are_refused_unread_and_a_bodiless_action_needs_no_type(
    client: TestClient[Any],
) -> None:
    check = new_check(client)
    url, player = f"/v1/checks/{check['check_id']}", bearer(check["player_token"])
    move = check["view"]["legal_moves"][0]
    raw = json.dumps({"move": move}).encode()
    refused = post_raw(client, f"{url}/moves", raw, player, **{"Content-Type": "text/plain"})
    problem(refused, 415, "unsupported-media-type")
    assert client.get(url, headers=player).json()["version"] == 0
    conceded = client.post(f"{url}/concede", headers=player)  # no body, no Content-Type
    assert conceded.status_code == 200, conceded.text


def test_every_operation_with_a_body_refuses_text_and_documents_415(
    client: TestClient[Any],
) -> None:
    check = new_check(client)
    document = client.get("/schema/openapi.json").json()
    bodied = [
        (path, post)
        for path, item in document["paths"].items()
        if (post := item.get("post")) is not None and "requestBody" in post
    ]
    assert len(bodied) >= 7
    for path, post in bodied:
        assert "415" in post["responses"], path
        answer = post_raw(
            client, path.replace("{check_id}", check["check_id"]), b"{}", GM,
            **{"Content-Type": "text/plain"},
        )  # fmt: skip
        problem(answer, 415, "unsupported-media-type")


def test_the_clients_in_the_repository_send_json_as_json() -> None:
    """Every client here that sends a body says application/json (the 415 would break it)."""
    root = Path(__file__).resolve().parents[2]
    clients = [
        root / "api/static/api.js",
        root / "examples/foundry/skillcheck-macro.js",
        root / "examples/foundry/skillcheck/scripts/client.mjs",
        root / "examples/owlbear/skillcheck.js",
        root / "api/docs_page.py",
    ]
    for path in clients:
        text = path.read_text()
        assert re.search(r"""["']Content-Type["']\]? *[:=] *["']application/json["']""", text), path
    script = (root / "examples/http/quickstart.sh").read_text()
    with_body = [c for c in script.split("curl -sS")[1:] if " -d " in c or "--data" in c]
    assert with_body and all("Content-Type: application/json" in c for c in with_body)


# ---- 3. duplicate members ------------------------------------------------------------------------
# {"game": "poker", "game": "hanoy"} was read as hanoy (the last one won): 400 invalid-json
# naming the member, at every level.


@pytest.mark.parametrize(
    ("raw", "member"),
    [
        (b'{"game": "poker", "game": "hanoy"}', "game"),
        (b'{"game": "three-towers", "g\\u0061me": "hanoy"}', "game"),
        (
            b'{"game": "three-towers", "params": {"variant": '
            b'{"kind": "quota", "suit": "moons", "suit": "suns", "skill": 3, "quota": 3}}}',
            "suit",
        ),
        (b'{"game": "three-towers", "metadata": {"a": [{"b": {"c": 1, "c": 2}}]}}', "c"),
    ],
    ids=["top", "escaped", "params", "metadata"],
)
def test_a_member_named_twice_is_invalid_json_at_every_level(
    client: TestClient[Any], raw: bytes, member: str
) -> None:
    before = check_count(client)
    answer = post_raw(client, "/v1/checks", raw, GM, **{"Content-Type": "application/json"})
    body = problem(answer, 400, "invalid-json")
    assert f'"{member}" twice' in body["detail"] and body["field"] == "body", body["detail"]
    assert check_count(client) == before


def test_the_same_name_in_two_objects_is_fine(client: TestClient[Any]) -> None:
    raw = json.dumps({"game": GAME, "params": PARAMS, "metadata": {"a": {"x": 1}, "b": {"x": 2}}})
    answer = post_raw(
        client, "/v1/checks", raw.encode(), GM, **{"Content-Type": "application/json"}
    )
    assert answer.status_code == 201, answer.text


def test_a_duplicate_in_a_move_is_refused_before_the_move(client: TestClient[Any]) -> None:
    check = new_check(client)
    url, player = f"/v1/checks/{check['check_id']}", bearer(check["player_token"])
    first, second = check["view"]["legal_moves"][:2]
    raw = f'{{"move": "{first}", "move": "{second}"}}'.encode()
    refused = post_raw(client, f"{url}/moves", raw, player, **{"Content-Type": "application/json"})
    assert '"move" twice' in problem(refused, 400, "invalid-json")["detail"]
    assert client.get(url, headers=player).json()["version"] == 0


# ---- 4. weak If-Match ----------------------------------------------------------------------------
# If-Match: W/"0" (a weak ETag) matched; If-Match compares strongly (RFC 9110): 400.


@pytest.mark.parametrize("tag", ['W/"0"', ' W/"0" ', 'W/"1"'])
def test_a_weak_etag_in_if_match_is_refused_and_changes_nothing(
    client: TestClient[Any], tag: str
) -> None:
    check = new_check(client)
    url, player = f"/v1/checks/{check['check_id']}", bearer(check["player_token"])
    move = check["view"]["legal_moves"][0]
    answer = client.post(f"{url}/moves", json={"move": move}, headers={**player, "If-Match": tag})
    body = problem(answer, 400, "invalid-if-match")
    assert body["field"] == "If-Match" and body["title"] == "Bad request"
    assert "strong" in body["detail"] and '"3"' in body["detail"], body["detail"]
    assert client.get(url, headers=player).json()["version"] == 0
    strong = client.post(f"{url}/moves", json={"move": move}, headers={**player, "If-Match": '"0"'})
    assert strong.status_code == 200, strong.text


def test_if_none_match_still_compares_weakly(client: TestClient[Any]) -> None:
    check = new_check(client)
    url, player = f"/v1/checks/{check['check_id']}", bearer(check["player_token"])
    assert client.get(url, headers={**player, "If-None-Match": 'W/"0"'}).status_code == 304


# ---- 5. long values are cut ----------------------------------------------------------------------
# A 10,000-character move came back as a 10,130-character detail: values are cut now.

LONG = "x" * 10_000


def _long_requests(client: TestClient[Any], check: dict[str, Any]) -> list[tuple[str, Any]]:
    url, player = f"/v1/checks/{check['check_id']}", bearer(check["player_token"])
    json_type = {"Content-Type": "application/json"}
    return [
        ("move", client.post(f"{url}/moves", json={"move": LONG}, headers=player)),
        ("game", client.post("/v1/checks", json={"game": LONG}, headers=GM)),
        ("game page", client.get(f"/v1/games/{LONG[:3000]}")),
        (
            "suit",
            client.post(
                "/v1/checks",
                json={"game": GAME, "params": {"variant": {"kind": "ivory", "suit": LONG}}},
                headers=GM,
            ),
        ),
        (
            "card",
            client.post(
                "/v1/checks",
                json={
                    "game": GAME,
                    "params": {**PARAMS, "variant": {**PARAMS["variant"], "suited_cards": [LONG]}},
                },
                headers=GM,
            ),
        ),
        (
            "parameter",
            client.post("/v1/checks", json={"game": GAME, "params": {LONG: 1}}, headers=GM),
        ),
        ("member", client.post("/v1/checks", json={"game": GAME, LONG: 1}, headers=GM)),
        (
            "tiers",
            client.post("/v1/checks", json={"game": GAME, "tiers": {LONG: 1}}, headers=GM),
        ),
        (
            "duplicate",
            post_raw(
                client, "/v1/checks", f'{{"{LONG}": 1, "{LONG}": 2}}'.encode(), GM, **json_type
            ),
        ),
        ("status", client.get("/v1/checks", params={"status": LONG}, headers=GM)),
        ("limit", client.get("/v1/checks", params={"limit": LONG}, headers=GM)),
        ("odds option", client.get("/v1/odds", params={"game": GAME, LONG: "1"})),
        ("odds value", client.get("/v1/odds", params={"game": GAME, "level": LONG})),
        (
            "profile",
            client.get("/v1/calibrate", params={"game": GAME, "target": "0.5", "profile": LONG}),
        ),
        ("check id", client.get(f"/v1/checks/{LONG[:3000]}", headers=GM)),
        ("deck", client.get(f"/v1/decks/{LONG[:3000]}")),
        (
            "If-Match",
            client.post(f"{url}/concede", headers={**player, "If-Match": f'"{LONG[:3000]}"'}),
        ),
        (
            "Last-Event-ID",
            client.get(f"{url}/stream", headers={**player, "Last-Event-ID": LONG[:3000]}),
        ),
        (
            "content type",
            post_raw(client, "/v1/checks", BODY, GM, **{"Content-Type": "text/" + LONG[:3000]}),
        ),
    ]


def test_no_detail_repeats_a_long_value_whole(client: TestClient[Any]) -> None:
    check = new_check(client)
    for what, answer in _long_requests(client, check):
        assert 400 <= answer.status_code < 500, (what, answer.status_code, answer.text[:300])
        body = answer.json()
        detail = body["detail"]
        assert len(detail) < 600, (what, len(detail), detail[:300])
        assert "x" * 41 not in detail, (what, detail[:300])
        assert "…" in detail and "characters)" in detail, (what, detail)
        assert len(json.dumps({k: v for k, v in body.items() if k != "instance"})) < 1500, what
        assert "x" * 41 not in str(body.get("field")), (what, body.get("field"))


def test_a_long_move_is_cut_to_its_start_and_its_length(client: TestClient[Any]) -> None:
    check = new_check(client)
    url, player = f"/v1/checks/{check['check_id']}", bearer(check["player_token"])
    answer = client.post(f"{url}/moves", json={"move": "d" * 10_000}, headers=player)
    detail = problem(answer, 422, "parse-error")["detail"]
    assert f'"{"d" * 40}…" (10000 characters)' in detail, detail
    assert len(detail) < 250


# ---- 6. values spelt as JSON ---------------------------------------------------------------------
# "undo": false was "undo False is not allowed": values are spelt as JSON now.


@pytest.mark.parametrize(
    ("params", "spelt"),
    [
        ({"undo": False}, "undo false is not allowed"),
        ({"undo": True}, "undo true is not allowed"),
        ({"undo": "false"}, 'undo "false" is not allowed'),
        ({"level": "6"}, 'level "6" is not allowed'),
        ({"level": [6]}, "level [6] is not allowed"),
        ({"level": None}, "level null is not allowed"),
    ],
)
def test_values_in_errors_are_spelt_as_json(
    client: TestClient[Any], params: dict[str, Any], spelt: str
) -> None:
    answer = client.post("/v1/checks", json={"game": GAME, "params": params}, headers=GM)
    detail = problem(answer, 422, "invalid-parameter")["detail"]
    assert spelt in detail, detail
    assert not re.search(r"\b(False|True|None)\b|'[^']*'", detail), detail


def test_tiers_and_queries_spell_values_as_json(client: TestClient[Any]) -> None:
    tiers = client.post(
        "/v1/checks",
        json={"game": GAME, "tiers": {"critical_success": 5, "critical_failure": True}},
        headers=GM,
    )
    assert "tiers.critical_failure true" in problem(tiers, 422, "invalid-parameter")["detail"]
    query = client.get("/v1/odds", params={"game": GAME, "level": "six"})
    assert 'level "six" is not allowed' in problem(query, 422, "invalid-parameter")["detail"]
    status = client.get("/v1/checks", params={"status": "done"}, headers=GM)
    detail = problem(status, 400, "validation-error")["detail"]
    assert 'status "done" is not allowed' in detail and "in_progress" in detail, detail


# ---- 7. one title per code -----------------------------------------------------------------------
# invalid-parameter had two titles ("Invalid parameter", "Unprocessable request"), and so
# had unknown-game, version-conflict and validation-error: one title per code now.


def test_every_code_has_one_title(client: TestClient[Any]) -> None:
    check = new_check(client)
    url, player = f"/v1/checks/{check['check_id']}", bearer(check["player_token"])
    create = "/v1/checks"
    answers = [
        client.post(create, json={"game": GAME, "params": {**PARAMS, "level": 99}}, headers=GM),
        client.post(create, json={"game": GAME, "tiers": {"critical_success": 1}}, headers=GM),
        client.post(create, json={"game": GAME, "seed": -1}, headers=GM),
        client.post(create, json={"game": GAME, "character": "a\x01"}, headers=GM),
        client.post(create, json={"params": {}}, headers=GM),
        client.post(f"{url}/undo", json={"expected_version": -1}, headers=player),
        client.get("/v1/odds", params={"game": GAME, "suit": "stars"}),
        client.post(create, json={"game": "poker"}, headers=GM),
        client.get("/v1/games/poker"),
        client.get("/v1/odds", params={"game": "poker"}),
        client.get("/v1/checks/no-such-check", headers=GM),
        client.post(f"{url}/moves", json={"move": "d1"}, headers={**player, "If-Match": '"5"'}),
        client.post(f"{url}/moves", json={"move": "d1", "expected_version": 5}, headers=player),
        client.post(create, json={"game": GAME, "bogus": 1}, headers=GM),
        client.post(create, headers=GM),
        client.get("/v1/checks", params={"limit": "0"}, headers=GM),
    ]
    titles: dict[str, set[str]] = {}
    for answer in answers:
        assert answer.status_code >= 400, answer.text
        body = answer.json()
        titles.setdefault(body["code"], set()).add(body["title"])
    assert {
        "invalid-parameter", "unknown-game", "check-not-found", "version-conflict",
        "validation-error",
    } <= set(titles)  # fmt: skip
    assert all(len(found) == 1 for found in titles.values()), titles
    assert titles["invalid-parameter"] == {"Invalid parameter"}
    assert titles["version-conflict"] == {"Version conflict"}
    assert titles["unknown-game"] == {"Unknown game"}


# ---- 8. the games in registry order --------------------------------------------------------------
# The creation's unknown-game listed the games sorted, everything else in registry order.


def test_every_list_of_games_is_in_registry_order(client: TestClient[Any]) -> None:
    order = ", ".join(g["name"] for g in client.get("/v1/games").json()["games"])
    assert order == ", ".join(GAMES)
    details = [
        client.post("/v1/checks", json={"game": "poker"}, headers=GM).json()["detail"],
        client.get("/v1/games/poker").json()["detail"],
        client.get("/v1/odds", params={"game": "poker"}).json()["detail"],
        client.get("/v1/calibrate", params={"game": "poker", "target": "0.5"}).json()["detail"],
        client.post("/v1/checks", json={"params": {}}, headers=GM).json()["detail"],
    ]
    for detail in details:
        assert order in detail, detail


# ---- 9. the table of endpoints -------------------------------------------------------------------
# docs/api.md's table of endpoints lacked GET /v1/decks/{deck} (and GET /v1): the table is
# checked against the OpenAPI document now.


def _table_operations() -> set[tuple[str, str]]:
    """The operations docs/api.md's "All endpoints" table lists: ``(method, path)`` with every
    path parameter written ``{}`` (``/v1/checks/{id}/undo``, ``/concede`` → both paths)."""
    text = DOCS.read_text()
    table = text.split("### All endpoints", 1)[1].split("\n## ", 1)[0]
    found: set[tuple[str, str]] = set()
    for line in table.splitlines():
        if not line.startswith("| `"):
            continue
        cell = line.split("|")[1]
        paths = re.findall(r"`([^`]+)`", cell)
        method, first = paths[0].split(" ", 1)
        base = first.split("?", 1)[0]
        found.add((method, re.sub(r"\{[^}]*\}", "{}", base)))
        for other in paths[1:]:
            tail = other.split("?", 1)[0]
            whole = tail if tail.startswith("/schema") else base.rsplit("/", 1)[0] + tail
            if other.startswith("/tokens"):
                whole = base.rsplit("/tokens", 1)[0] + tail
            found.add((method, re.sub(r"\{[^}]*\}", "{}", whole)))
    return found


def test_the_docs_table_lists_every_documented_operation(client: TestClient[Any]) -> None:
    listed = _table_operations()
    assert ("GET", "/v1") in listed and ("GET", "/v1/decks/{}") in listed
    document = client.get("/schema/openapi.json").json()
    for path, item in document["paths"].items():
        for method in item:
            if method in ("get", "post", "put", "patch", "delete"):
                key = (method.upper(), re.sub(r"\{[^}]*\}", "{}", path))
                assert key in listed, f"docs/api.md's table lacks {key}"


# ---- the standard variant given a suit -----------------------------------------------------------
# A standard variant given a suit was refused with field "params" and cattrs' words ("extra
# fields found (suit) @ $.variant"): the field is the parameter now, in a sentence.


def test_a_member_the_variant_does_not_take_is_named_as_the_parameter(
    client: TestClient[Any],
) -> None:
    params = {"variant": {"kind": "standard", "suit": "moons"}}
    answer = client.post("/v1/checks", json={"game": GAME, "params": params}, headers=GM)
    body = problem(answer, 422, "invalid-parameter")
    assert body["field"] == "suit", body
    assert body["detail"].startswith("variant.suit is not allowed"), body["detail"]
    assert '"standard"' in body["detail"] and "@" not in body["detail"], body["detail"]
