"""Helpers for the HTTP API tests: settings, a client on a fresh app, a winnable seed, and a
whole check played through HTTP (shared by the SQLite and PostgreSQL tests)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import sqlalchemy as sa
from litestar.testing import TestClient

from api.app import create_app
from api.db import CheckRow
from api.settings import Settings
from skillcheck.cards import Card
from skillcheck.games.three_towers import ThreeTowers, ThreeTowersState
from skillcheck.games.three_towers.solver import solve
from skillcheck.serialization import game_from_params
from skillcheck.sessions import RevealedRecord

PROBLEM = "application/problem+json"
GM_KEY = "gm-test-key-1"
OTHER_GM_KEY = "gm-test-key-2"
#: The game the HTTP tests play (a check names its game: there is no default).
GAME = "three-towers"
PARAMS: dict[str, Any] = {
    "level": 6,
    "variant": {"kind": "quota", "suit": "moons", "skill": 3, "quota": 3},
}
PG_BASE = "postgresql+psycopg://{user}@127.0.0.1:5432/test"


def problem(response: Any, status: int, code: str | None = None) -> dict[str, Any]:
    """The problem+json body of a refusal, after checking its status, type and code."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith(PROBLEM), response.headers
    body: dict[str, Any] = response.json()
    assert body["status"] == status and body["detail"], body
    if code is not None:
        assert body["code"] == code, body
    return body


def check_count(client: TestClient[Any]) -> int:
    """How many checks the database holds (a refused creation adds none)."""
    engine = client.app.state.runtime.store.config.get_engine()
    with engine.connect() as connection:
        count = connection.execute(sa.select(sa.func.count()).select_from(CheckRow))
        return int(count.scalar_one())


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def settings_for(url: str) -> Settings:
    return Settings(database_url=url, gm_keys=(GM_KEY, OTHER_GM_KEY))


@contextmanager
def running(url: str) -> Iterator[TestClient[Any]]:
    """A client on a fresh app (its own engine) over the database at ``url``."""
    with TestClient(create_app(settings_for(url))) as client:
        yield client


# ---- a whole check through HTTP ------------------------------------------------------------------


def winning_seed(params: dict[str, Any] = PARAMS) -> tuple[int, list[str]]:
    """The seed (of a few) whose solver line is shortest, and that line's move codes."""
    game = game_from_params("three-towers", params)
    assert isinstance(game, ThreeTowers)
    best: tuple[int, list[str]] | None = None
    for seed in range(100, 140):
        deal = game.new_state(seed).deal
        assert deal is not None
        solution = solve(game, deal)
        if solution.result == "win" and (best is None or len(solution.moves) < len(best[1])):
            best = seed, [m.code for m in solution.moves]
    assert best is not None, "no winnable seed found"
    return best


def hidden_patterns(state: ThreeTowersState, seen: set[Card]) -> list[re.Pattern[str]]:
    """Regexes for the codes and names of the cards under the deck's top that were never seen."""
    patterns = []
    for card in set(state.remaining_deck[1:]) - seen:
        patterns.append(re.compile(rf"(?<![0-9]){card.code}(?![A-Z])"))
        patterns.append(re.compile(re.escape(card.name), re.IGNORECASE))
    return patterns


def play_whole_check(client: TestClient[Any]) -> dict[str, Any]:
    """Create a check as GM, win it with the solver's line, scanning every response body before
    the end for hidden cards, then fetch and verify the revealed record. Returns the record."""
    seed, line = winning_seed()
    created = client.post(
        "/v1/checks",
        json={"game": GAME, "params": PARAMS, "seed": seed, "label": "Mira"},
        headers=bearer(GM_KEY),
    )
    assert created.status_code == 201, created.text
    body = created.json()
    check_id, player, spectator = body["check_id"], body["player_token"], body["spectator_token"]
    commitment = body["commitment"]
    assert re.fullmatch(r"[0-9a-f]{64}", commitment)
    assert body["version"] == 0 and created.headers["etag"] == '"0"'
    parallel = game_from_params("three-towers", PARAMS).new_state(seed)
    assert isinstance(parallel, ThreeTowersState)
    seen: set[Card] = set()
    # the tokens are random text that may spell a card code by chance: scan without them
    bodies: list[str] = [created.text.replace(player, "").replace(spectator, "")]

    def scan() -> None:
        seen.update(c for tower in parallel.towers for c in tower)
        seen.update(parallel.remaining_deck[:1])
        text = "\n".join(bodies)
        for pattern in hidden_patterns(parallel, seen):
            assert not pattern.search(text), f"hidden card {pattern.pattern} shown"
        assert '"seed"' not in text and '"salt"' not in text and '"deal"' not in text
        bodies.clear()

    scan()
    version = 0
    for number, code in enumerate(line, 1):
        for token in (player, spectator, GM_KEY):
            got = client.get(f"/v1/checks/{check_id}", headers=bearer(token))
            assert got.status_code == 200 and got.headers["etag"] == f'"{version}"'
            bodies.append(got.text)
        assert code in got.json()["legal_moves"]
        events = client.get(f"/v1/checks/{check_id}/events", headers=bearer(spectator))
        bodies.append(events.text)
        early = client.get(f"/v1/checks/{check_id}/record", headers=bearer(player))
        assert early.status_code == 409
        assert early.json()["code"] == "record-not-available"
        bodies.append(early.text)
        scan()
        moved = client.post(
            f"/v1/checks/{check_id}/moves",
            json={"move": code},
            headers={**bearer(player), "If-Match": f'"{version}"'},
        )
        assert moved.status_code == 200, moved.text
        parallel.push_code(code)
        version = moved.json()["version"]
        assert moved.headers["etag"] == f'"{version}"'
        if number < len(line):
            assert moved.json()["status"] == "in_progress"
            bodies.append(moved.text)
            scan()
    final = moved.json()
    assert final["status"] == "won" and final["degree"] is not None
    assert final["legal_moves"] == []
    record = client.get(f"/v1/checks/{check_id}/record", headers=bearer(spectator))
    assert record.status_code == 200
    data = record.json()
    revealed = RevealedRecord.from_dict(data)
    assert revealed.commitment == commitment and revealed.record.seed == seed
    state = revealed.verify()  # the commitment, then a replay through the rules
    assert state.outcome is not None and state.outcome.success
    assert json.loads(revealed.to_json()) == data
    events = client.get(
        f"/v1/checks/{check_id}/events?after=0&limit=1000", headers=bearer(GM_KEY)
    ).json()
    kinds = [e["kind"] for e in events["events"]]
    assert kinds[0] == "created" and kinds[-1] == "ended" and kinds.count("moved") == len(line)
    after = client.get(
        f"/v1/checks/{check_id}/events?after={events['last_sequence'] - 1}", headers=bearer(player)
    ).json()
    assert [e["kind"] for e in after["events"]] == ["ended"]
    assert isinstance(data, dict)
    return data


# ---- odds computed in the background -------------------------------------------------------------


def poll_odds(
    client: TestClient[Any],
    params: Any,
    *,
    path: str = "/v1/odds",
    token: str = GM_KEY,
    timeout: float = 300.0,
) -> tuple[Any, Any]:
    """GET an odds (or calibrate) URL as a GM and poll it while it answers 202: the first
    answer and the last."""
    import time

    first = client.get(path, params=params, headers=bearer(token))
    answer, deadline = first, time.monotonic() + timeout
    while answer.status_code == 202 and time.monotonic() < deadline:
        assert int(answer.headers["retry-after"]) >= 1
        time.sleep(0.2)
        answer = client.get(path, params=params, headers=bearer(token))
    return first, answer
