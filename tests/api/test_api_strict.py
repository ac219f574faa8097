"""Issue 11's API hardening: strict JSON types on every body and query parameter, headers that
hold Unicode digits or huge numbers, deeply nested bodies, the GM's chosen seed made visible,
and bounded live streams. Each defect the issue lists has a regression test here that fails on
the code before the fix (``"seed": "7"`` dealt from seed 7, ``expected_version: "0"`` acted,
JSON nested 1000 deep answered 500 with a traceback, ``If-Match: "²"`` answered 500).
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from api_support import GAME, GM_KEY, PARAMS, PROBLEM, bearer, check_count, problem, winning_seed
from click.testing import CliRunner
from litestar.testing import TestClient
from live_server import api_server

from api.strict import MAX_DEPTH
from skillcheck.cli import main as cli
from skillcheck.errors import CommitmentError, ParseError
from skillcheck.sessions import CheckConfig, RevealedRecord

GM = bearer(GM_KEY)


def create(client: TestClient[Any], **body: Any) -> Any:
    return client.post("/v1/checks", json={"game": GAME, "params": PARAMS, **body}, headers=GM)


# ---- the defects the probe found ----------------------------------------------------------------


def test_a_string_is_never_a_boolean_in_params(client: TestClient[Any]) -> None:
    """``{"params": {"undo": "false"}}`` once made a check with undo on: refused, naming the
    field and what it takes (read from the game's own parameter spec, whatever its kind)."""
    spec = next(
        p for p in client.get(f"/v1/games/{GAME}").json()["parameters"] if p["name"] == "undo"
    )
    allowed = ["true or false"] if spec["kind"] == "bool" else list(spec["choices"])
    before = check_count(client)
    for text in ("false", "true", "0", "no"):
        refused = create(client, params={**PARAMS, "undo": text})
        body = problem(refused, 422)
        assert body["field"] == "undo"
        assert all(words in body["detail"] for words in allowed), body["detail"]
    for number in (0, 1):
        assert problem(create(client, params={**PARAMS, "undo": number}), 422)["field"] == "undo"
    assert check_count(client) == before


@pytest.mark.parametrize("level", [6.5, 6.0, "6"])
def test_a_level_is_a_whole_number_never_a_float_or_a_string(
    client: TestClient[Any], level: Any
) -> None:
    before = check_count(client)
    body = problem(create(client, params={**PARAMS, "level": level}), 422)
    assert body["field"] == "level" and "whole number" in body["detail"]
    assert check_count(client) == before


@pytest.mark.parametrize("seed", ["7", 7.0, 7.5, True, "0x7"])
def test_a_seed_is_a_whole_number_never_a_string_or_a_float(
    client: TestClient[Any], seed: Any
) -> None:
    """docs/rng.md says a seed given as text is refused; ``"7"`` used to deal from seed 7."""
    before = check_count(client)
    body = problem(create(client, seed=seed), 422, "wrong-type")
    assert body["field"] == "seed"
    assert body["expected"] == "a whole number or null"
    assert "whole number" in body["detail"]
    assert check_count(client) == before


@pytest.mark.parametrize("seed", [-1, 2**53])
def test_a_seed_out_of_range_is_refused(client: TestClient[Any], seed: int) -> None:
    assert problem(create(client, seed=seed), 422, "invalid-parameter")["field"] == "seed"


def test_expected_version_is_never_a_string(client: TestClient[Any]) -> None:
    """``expected_version: "0"`` used to act as version 0."""
    created = create(client).json()
    url, player = f"/v1/checks/{created['check_id']}", bearer(created["player_token"])
    move = created["view"]["legal_moves"][0]
    for version in ("0", 0.0, False, [0]):
        for action, body in (
            ("moves", {"move": move, "expected_version": version}),
            ("undo", {"expected_version": version}),
            ("concede", {"expected_version": version}),
        ):
            refused = client.post(f"{url}/{action}", json=body, headers=player)
            assert problem(refused, 422, "wrong-type")["field"] == "expected_version"
        cancel = client.post(f"{url}/cancel", json={"expected_version": version}, headers=GM)
        assert problem(cancel, 422, "wrong-type")["field"] == "expected_version"
    view = client.get(url, headers=player).json()
    assert view["version"] == 0 and view["status"] == "in_progress"
    events = client.get(f"{url}/events", headers=player).json()["events"]
    assert [e["kind"] for e in events] == ["created"]


def test_every_body_field_refuses_every_other_json_type(client: TestClient[Any]) -> None:
    """Generic: for every POST body in the OpenAPI document and every member it declares, a
    value of each JSON type the member does not take is 422 ``wrong-type`` naming the member
    and the type expected, and changes nothing."""
    document = client.get("/schema/openapi.json").json()
    samples: dict[str, Any] = {
        "integer": 3,
        "number": 2.5,
        "string": "3",
        "boolean": True,
        "object": {"a": 1},
        "array": [1],
    }
    created = create(client).json()
    check_id, player = created["check_id"], bearer(created["player_token"])
    tried = 0
    for path, operations in document["paths"].items():
        post = operations.get("post")
        if post is None or "requestBody" not in post:
            continue
        ref = post["requestBody"]["content"]["application/json"]["schema"]
        ref = next((s for s in ref.get("oneOf", [ref]) if "$ref" in s), ref)
        schema = document["components"]["schemas"][ref["$ref"].rsplit("/", 1)[-1]]
        url = path.replace("{check_id}", check_id)
        headers = GM if path in ("/v1/checks", "/v1/checks/{check_id}/cancel") else player
        valid = {"game": GAME} if "game" in schema.get("required", []) else {}
        if "move" in schema.get("required", []):
            valid = {"move": created["view"]["legal_moves"][0]}
        for name, member in schema["properties"].items():
            options = member.get("anyOf", [member])
            types = {o.get("type") for o in options}
            if "integer" in types:
                types.add("number")  # a whole float such as 2.0 is checked below
            for json_type, value in samples.items():
                if json_type in types or (json_type == "integer" and "number" in types):
                    continue
                if "string" in types and member.get("enum") and json_type == "string":
                    continue
                body = {**valid, name: value}
                refused = client.post(url, json=body, headers=headers)
                found = problem(refused, 422, "wrong-type")
                assert found["field"] == name, (path, name, value, found)
                assert found["expected"], found
                tried += 1
            if "integer" in types:
                refused = client.post(url, json={**valid, name: 2.0}, headers=headers)
                assert problem(refused, 422, "wrong-type")["field"] == name
    assert tried > 20
    view = client.get(f"/v1/checks/{check_id}", headers=player).json()
    assert view["version"] == 0


def test_query_numbers_are_ascii_whole_numbers(client: TestClient[Any]) -> None:
    created = create(client).json()
    url, player = f"/v1/checks/{created['check_id']}", bearer(created["player_token"])
    for name, text in [
        ("after", "1.0"),
        ("after", "²"),
        ("after", "٣"),
        ("limit", "1e2"),
        ("limit", " 5"),
        ("limit", "true"),
    ]:
        refused = client.get(f"{url}/events", params={name: text}, headers=player)
        body = problem(refused, 422, "wrong-type")
        assert body["field"] == name and "whole number" in body["detail"]
    assert client.get(
        f"{url}/events", params={"after": "0", "limit": "5"}, headers=player
    ).is_success
    huge = client.get(f"{url}/events", params={"after": str(10**30)}, headers=player)
    assert problem(huge, 400)["field"] == "after"


# ---- deep nesting -------------------------------------------------------------------------------


def test_refusals_of_missing_and_out_of_range_values_are_in_words(
    client: TestClient[Any],
) -> None:
    """A missing body member, a missing query parameter and a number out of range say so in
    words and name the field, not in the framework's spelling ("Object missing required field
    `move`", "Expected `int` >= 0", "Missing required query parameter 'target' for path ...")."""
    made = create(client).json()
    url, player = f"/v1/checks/{made['check_id']}", bearer(made["player_token"])
    said = {
        "move": client.post(f"{url}/moves", json={}, headers=player),
        "target": client.get("/v1/calibrate", params={"game": "hanoy"}),
        "after": client.get(f"{url}/events", params={"after": "-1"}, headers=player),
        "limit": client.get(f"{url}/events", params={"limit": "0"}, headers=player),
    }
    expected = {
        "move": "move is missing: the body's members are move, expected_version",
        "target": "the query parameter target is required",
        "after": 'after must be a whole number at least 0, not "-1"',
        "limit": 'limit must be a whole number at least 1, not "0"',
    }
    for field, response in said.items():
        body = problem(response, 400, "validation-error")
        assert body["detail"] == expected[field] and body["field"] == field, body
        assert "`" not in body["detail"] and "Expected" not in body["detail"]
    wrong = problem(client.get("/v1/calibrate", params={"game": "hanoy", "target": "x"}), 400)
    assert wrong["detail"] == 'target must be a number, not "x"'


@pytest.mark.parametrize("with_token", [True, False])
@pytest.mark.parametrize(
    "raw",
    [
        b"[" * 1000 + b"]" * 1000,
        b'{"game": "three-towers", "metadata": ' + b'{"a": ' * 1000 + b"1" + b"}" * 1001,
        b"[" * 100_000,  # not even closed
    ],
    ids=["array", "metadata", "unclosed"],
)
def test_deeply_nested_json_is_a_4xx_without_a_traceback(
    client: TestClient[Any], caplog: pytest.LogCaptureFixture, raw: bytes, with_token: bool
) -> None:
    headers = {"Content-Type": "application/json", **(GM if with_token else {})}
    before = check_count(client)
    with caplog.at_level(logging.DEBUG):
        answer = client.post("/v1/checks", content=raw, headers=headers)
    assert answer.status_code in (400, 413), answer.text
    assert answer.headers["content-type"].startswith(PROBLEM)
    assert answer.json()["code"] in ("invalid-json", "request-too-large")
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert "Traceback" not in caplog.text and "RecursionError" not in caplog.text
    assert check_count(client) == before


def test_nesting_a_few_levels_is_fine_and_the_limit_is_stated(client: TestClient[Any]) -> None:
    def nested(depth: int) -> Any:
        value: Any = 1
        for _ in range(depth):
            value = {"a": value}
        return value

    assert create(client, metadata=nested(MAX_DEPTH - 1)).status_code == 201  # body adds one
    deep = problem(create(client, metadata=nested(MAX_DEPTH)), 400, "invalid-json")
    assert str(MAX_DEPTH) in deep["detail"]


# ---- headers ------------------------------------------------------------------------------------

#: Headers a client may send that are no version: the raw latin-1 byte of ``²`` (which
#: ``str.isdigit`` accepted and ``int`` refused: a 500), other Unicode digits in UTF-8, and
#: numbers past any version. Sent over real HTTP: an in-process client re-encodes raw bytes.
BAD_NUMBERS = [
    b'"\xb2"',
    b"\xb2",
    b"\xb9\xb3",
    '"٣"'.encode(),
    "१".encode(),
    b'"99999999999"',
    b'"2147483648"',
    b'"-1"',
    b'W/"1.0"',
]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[httpx.Client]:
    folder = tmp_path_factory.mktemp("served")
    env = {
        "SKILLCHECK_DATABASE_URL": f"sqlite:///{folder / 'db.sqlite3'}",
        "SKILLCHECK_GM_KEYS": GM_KEY,
        "SKILLCHECK_RATE_LIMIT": "off",
    }
    with api_server(env) as base, httpx.Client(base_url=base, timeout=10) as http:
        yield http


def test_version_headers_with_no_number_are_a_400_naming_them(served: httpx.Client) -> None:
    made = served.post("/v1/checks", json={"game": GAME, "params": PARAMS}, headers=GM).json()
    url, player = f"/v1/checks/{made['check_id']}", bearer(made["player_token"])
    move = made["view"]["legal_moves"][0]
    for header in BAD_NUMBERS:
        moved = served.post(
            f"{url}/moves", json={"move": move}, headers={**player, "If-Match": header}
        )
        assert problem(moved, 400, "invalid-if-match")["field"] == "If-Match", header
        streamed = served.get(f"{url}/stream", headers={**player, "Last-Event-ID": header})
        assert problem(streamed, 400, "invalid-last-event-id")["field"] == "Last-Event-ID"
    assert served.get(url, headers=player).json()["version"] == 0
    # If-Match takes the ETag as the server wrote it, quotes and all (RFC 9110 8.8.3)
    for header in ("0", '"0', '0"', '"', "'0'"):
        moved = served.post(
            f"{url}/moves", json={"move": move}, headers={**player, "If-Match": header}
        )
        body = problem(moved, 400, "invalid-if-match")
        assert body["field"] == "If-Match" and 'in quotes, e.g. "3"' in body["detail"], header
    assert served.get(url, headers=player).json()["version"] == 0
    moved = served.post(f"{url}/moves", json={"move": move}, headers={**player, "If-Match": '"0"'})
    assert moved.status_code == 200 and moved.json()["version"] == 1


# ---- the seed the GM chose ----------------------------------------------------------------------


def _finish(client: TestClient[Any], created: dict[str, Any]) -> dict[str, Any]:
    url = f"/v1/checks/{created['check_id']}"
    assert client.post(f"{url}/concede", headers=bearer(created["player_token"])).is_success
    record: dict[str, Any] = client.get(f"{url}/record", headers=GM).json()
    return record


def test_a_chosen_seed_is_said_in_the_view_events_record_and_commitment(
    client: TestClient[Any], tmp_path: Path
) -> None:
    seed, _ = winning_seed()
    chosen = create(client, seed=seed).json()
    drawn = create(client).json()
    assert chosen["view"]["seed_chosen"] is True and drawn["view"]["seed_chosen"] is False
    for created, expected in ((chosen, True), (drawn, False)):
        url = f"/v1/checks/{created['check_id']}"
        assert client.get(url, headers=GM).json()["seed_chosen"] is expected
        first = client.get(f"{url}/events", headers=GM).json()["events"][0]
        assert first["payload"]["config"]["seed_chosen"] is expected
        assert first["payload"]["view"]["seed_chosen"] is expected
        record = _finish(client, created)
        assert record["seed_chosen"] is expected
        RevealedRecord.from_dict(record).verify()
        # the commitment binds the flag: a record that hides (or invents) it no longer matches
        forged = RevealedRecord.from_dict({**record, "seed_chosen": not expected})
        with pytest.raises(CommitmentError):
            forged.verify()
        path = tmp_path / f"{created['check_id']}.json"
        path.write_text(json.dumps(record), encoding="utf-8")
        result = CliRunner().invoke(cli, ["verify", str(path)])
        assert result.exit_code == 0, result.output
        if expected:
            assert "seed: chosen by the GM" in result.output
            assert "not that it was random" in result.output
        else:
            assert "seed: drawn at random by the server" in result.output
        path.write_text(json.dumps(forged.to_dict()), encoding="utf-8")
        assert CliRunner().invoke(cli, ["verify", str(path)]).exit_code != 0


def test_a_stored_check_without_the_flag_reads_as_a_drawn_seed() -> None:
    config = CheckConfig(**{"game": GAME, "params": {}, "end_when_lost": False})
    assert config.seed_chosen is False and config.to_dict()["seed_chosen"] is False
    record = {
        "format": "skillcheck-revealed/1",
        "check_id": "x",
        "status": "cancelled",
        "commitment": "0" * 64,
        "salt": "0" * 32,
        "cancel_reason": None,
        "record": {"format": "skillcheck-record/1", "game": GAME, "params": {}, "moves": []},
    }
    assert RevealedRecord.from_dict(record).seed_chosen is False
    with pytest.raises(ParseError):
        RevealedRecord.from_dict({**record, "seed_chosen": "yes"})


# ---- made-up tokens


def test_a_made_up_token_is_401_and_a_foreign_one_404(client: TestClient[Any]) -> None:
    mine, other = create(client).json(), create(client).json()
    missing = "/v1/checks/00000000-0000-4000-8000-000000000000"
    for path in (f"/v1/checks/{mine['check_id']}", missing):
        body = problem(client.get(path, headers=bearer("sc_play_made-up")), 401, "unauthorized")
        assert "not valid" in body["detail"]
        foreign = client.get(path, headers=bearer(other["player_token"]))
        problem(foreign, 404, "check-not-found")


# ---- bounded live streams (a real server: the streams stay open) --------------------------------


def test_live_streams_are_bounded_per_check_and_give_their_slot_back(tmp_path: Path) -> None:
    env = {
        "SKILLCHECK_DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "SKILLCHECK_GM_KEYS": GM_KEY,
        "SKILLCHECK_RATE_LIMIT": "off",
        "SKILLCHECK_STREAMS_PER_CHECK": "2",
    }
    log = tmp_path / "server.log"
    with api_server(env, log=log) as base, httpx.Client(base_url=base, timeout=10) as http:
        # Several rounds: a stream closed while its generator waits at a yield used to hold
        # its slot until the garbage collector came (seconds, or never), one round in four.
        for round_ in range(8):
            made = http.post("/v1/checks", json={"game": GAME, "params": PARAMS}, headers=GM)
            url = f"/v1/checks/{made.json()['check_id']}/stream"
            player = bearer(made.json()["player_token"])
            first = http.stream("GET", url, headers=player)
            second = http.stream("GET", url, headers=player)
            with first as one, second as two:
                assert one.status_code == 200 and two.status_code == 200
                third = http.get(url, headers=player)
                body = problem(third, 429, "too-many-streams")
                assert third.headers["retry-after"] and "at most 2" in body["detail"]
            # closed streams give their slots back as soon as the server notices the disconnect
            deadline = time.monotonic() + 2
            while True:
                with http.stream("GET", url, headers=player) as again:
                    if again.status_code == 200:
                        break
                assert time.monotonic() < deadline, (
                    f"round {round_}: the closed streams' slots were not given back within 2 s"
                )
                time.sleep(0.02)
    assert "Traceback" not in log.read_text(), log.read_text()
