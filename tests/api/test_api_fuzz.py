"""Hypothesis fuzzes every POST endpoint's body: no answer is a 5xx, every refusal is
problem+json, and a refused request changes nothing (the check's version and events, or the
number of checks, are what they were).

The endpoints and their body members are read from the OpenAPI document, so an endpoint added
later is fuzzed with no edit here. Bodies are valid-ish (the endpoint's own members with values
of every JSON type) or hostile: unknown members, deep nesting, huge and odd numbers, any
Unicode (lone surrogates included), invalid UTF-8, truncated JSON, with fuzzed ``If-Match``,
``Idempotency-Key`` and ``Content-Type`` headers. The app is the real one on a temporary SQLite
file.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from api_support import GAME, GM_KEY, PARAMS, bearer, settings_for
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from litestar.testing import TestClient

from api.app import create_app
from api.db import CheckRow
from api.settings import Settings

PROBLEM = "application/problem+json"
#: Operations only the GM may call; the others get the check's player token.
GM_ONLY = {"/v1/checks", "/v1/checks/{check_id}/cancel"}


def _post_operations() -> list[tuple[str, dict[str, Any]]]:
    """Every POST with a body in the document, with its body's JSON Schema (resolved)."""
    app = create_app(Settings(database_url="sqlite://", gm_keys=(GM_KEY,)))
    document = app.openapi_schema.to_schema()
    found = []
    for path, operations in document["paths"].items():
        post = operations.get("post")
        if post is None or "requestBody" not in post:
            continue
        schema = post["requestBody"]["content"]["application/json"]["schema"]
        ref = next(s["$ref"] for s in schema.get("oneOf", [schema]) if "$ref" in s)
        found.append((path, document["components"]["schemas"][ref.rsplit("/", 1)[-1]]))
    return found


OPERATIONS = _post_operations()

# ---- strategies ----------------------------------------------------------------------------------

#: Numbers a parser or a database may choke on.
ODD_NUMBERS = st.sampled_from(
    [0, -0.0, 1.0, 2**31, 2**53, 2**63, 2**64, -(2**63) - 1, 10**400, 1e308, 5e-324, -1]
)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    ODD_NUMBERS,
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(),  # any code point, lone surrogates included (json.dumps escapes them)
    st.text(alphabet="0123456789²³¹٣۴߅०১੧൨๓༤၅႖១᠑"),  # digits of every script
)
JSON = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


@st.composite
def deep(draw: st.DrawFn) -> bytes:
    """JSON nested 20 to 3000 levels deep (arrays, objects or both in turn), written directly
    (json.dumps would recurse), closed or not."""
    depth = draw(st.integers(min_value=20, max_value=3000))
    shape = draw(st.sampled_from([[b"["], [b'{"a":'], [b"[", b'{"a":']]))
    opening = [shape[i % len(shape)] for i in range(depth)]
    closing = b"".join(b"]" if o == b"[" else b"}" for o in reversed(opening))
    inner = json.dumps(draw(SCALARS)).encode("utf-8", "surrogatepass")
    return b"".join(opening) + inner + (closing if draw(st.booleans()) else b"")


@st.composite
def body_for(draw: st.DrawFn, schema: dict[str, Any]) -> bytes:
    """A request body for an operation whose body schema is ``schema``, as raw bytes."""
    kind = draw(st.sampled_from(["members", "members", "members", "any", "deep", "raw"]))
    if kind == "raw":
        return draw(
            st.one_of(
                st.binary(max_size=64),
                st.sampled_from([b"", b"{", b'{"a":', b"\xff\xfe", b"[1,]", b"NaN", b"{}}"]),
            )
        )
    if kind == "deep":
        return draw(deep())
    if kind == "any":
        value: Any = draw(JSON)
    else:
        members = list(schema.get("properties", {}))
        chosen = draw(st.lists(st.sampled_from(members), unique=True)) if members else []
        value = {name: draw(JSON | valid_value(name)) for name in chosen}
        if draw(st.booleans()):
            value.update(draw(st.dictionaries(st.text(max_size=12), JSON, max_size=3)))
        if "game" in schema.get("properties", {}) and draw(st.booleans()):
            value.setdefault("game", GAME)
    text = json.dumps(value, allow_nan=False)
    return text.encode("utf-8", "surrogatepass")


def valid_value(name: str) -> st.SearchStrategy[Any]:
    """Plausible values for a member, so that fuzzing also reaches past the type checks."""
    plausible: dict[str, st.SearchStrategy[Any]] = {
        "game": st.sampled_from([GAME, "chess", ""]),
        "params": st.just(PARAMS) | st.just({}) | st.just({"level": 6.0}),
        "expected_version": st.integers(min_value=-1, max_value=3),
        "seed": st.integers(min_value=-1, max_value=2**54),
        "move": st.sampled_from(["d1", "d2", "12", "zz", "", "undo"]),
    }
    return plausible.get(name, st.nothing())


HEADER = st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0xFF), max_size=24)
HEADERS = st.fixed_dictionaries(
    {},
    optional={
        "If-Match": HEADER.map(lambda t: t.encode("latin-1")),
        "Idempotency-Key": HEADER.map(lambda t: t.encode("latin-1")),
        # the body's type: JSON (with parameters) or not (415, which changes nothing either)
        "Content-Type": st.sampled_from(
            [b"application/json; charset=utf-8", b"text/plain", b"", b"application/x-json"]
        ),
    },
)

# ---- the app and its check -----------------------------------------------------------------------


class Live:
    """The app and an in-progress check that the fuzzed requests act on."""

    def __init__(self, client: TestClient[Any]) -> None:
        self.client = client
        self.renew()

    def renew(self) -> None:
        made = self.client.post(
            "/v1/checks", json={"game": GAME, "params": PARAMS}, headers=bearer(GM_KEY)
        )
        assert made.status_code == 201, made.text
        self.check_id = made.json()["check_id"]
        self.player = made.json()["player_token"]

    def state(self) -> tuple[int, int, str, int]:
        """The check's version, event count and status, and how many checks exist."""
        url = f"/v1/checks/{self.check_id}"
        view = self.client.get(url, headers=bearer(self.player)).json()
        events = self.client.get(f"{url}/events?limit=1000", headers=bearer(self.player)).json()
        engine = self.client.app.state.runtime.store.config.get_engine()
        with engine.connect() as connection:
            count = connection.execute(sa.select(sa.func.count()).select_from(CheckRow))
            checks = int(count.scalar_one())
        return view["version"], len(events["events"]), view["status"], checks


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    path: Path = tmp_path_factory.mktemp("fuzz") / "skillcheck.sqlite3"
    # no rate limit: the fuzzer sends thousands of requests from one address
    settings = dataclasses.replace(settings_for(f"sqlite+aiosqlite:///{path}"), rate_limit=None)
    with TestClient(create_app(settings)) as client:
        yield Live(client)


@pytest.mark.quick_twin_of("test_fuzzed_bodies_never_get_a_5xx_and_a_refusal_changes_nothing_long")
@pytest.mark.parametrize(("path", "schema"), OPERATIONS, ids=[p for p, _ in OPERATIONS])
def test_fuzzed_bodies_never_get_a_5xx_and_a_refusal_changes_nothing(
    live: Live, path: str, schema: dict[str, Any]
) -> None:
    fuzz(live, path, schema, examples=30)


@pytest.mark.slow
@pytest.mark.parametrize(("path", "schema"), OPERATIONS, ids=[p for p, _ in OPERATIONS])
def test_fuzzed_bodies_never_get_a_5xx_and_a_refusal_changes_nothing_long(
    live: Live, path: str, schema: dict[str, Any]
) -> None:
    fuzz(live, path, schema, examples=120)


def fuzz(live: Live, path: str, schema: dict[str, Any], examples: int) -> None:
    """``examples`` fuzzed bodies (and headers) posted to ``path``: none gets a 5xx, and a
    refusal is a problem+json that changes nothing."""

    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(raw=body_for(schema), headers=HEADERS)
    def attempt(raw: bytes, headers: dict[str, bytes]) -> None:
        if live.state()[2] != "in_progress":
            live.renew()
        before = live.state()
        token = GM_KEY if path in GM_ONLY else live.player
        answer = live.client.post(
            path.replace("{check_id}", live.check_id),
            content=raw,
            headers={
                **bearer(token),
                "Content-Type": "application/json",
                **headers,
            },
        )
        assert answer.status_code < 500, (raw[:200], headers, answer.text)
        if answer.status_code >= 400:
            assert answer.headers["content-type"].startswith(PROBLEM), answer.headers
            assert answer.json()["detail"]
            assert live.state() == before, (raw[:200], answer.text)

    attempt()
