"""The GM's odds over HTTP: shipped tables answer at once, anything else is a background job
(GM key, 202 and polling, deduplicated, a bounded queue), "observed here", and calibration."""

from __future__ import annotations

import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from api_support import GM_KEY, bearer, poll_odds, settings_for
from litestar.testing import TestClient

from api.app import create_app
from api.db import CheckRow
from api.odds import OddsRunner
from skillcheck.odds import game_from_options
from skillcheck.profiles import PROFILE_NAMES, words_for
from skillcheck.tables import shipped_cell

#: The issue's example: in the shipped grid (level 9 and 5 spaces by default).
SHIPPED = {"game": "three-towers", "suit": "moons", "skill": 5, "quota": 4}
#: A small table no shipped grid holds (level 4, 4 spaces).
SMALL = {"game": "three-towers", "suit": "moons", "skill": 3, "quota": 2, "level": 4,
         "spaces": 4, "deals": 4}  # fmt: skip
#: A table that takes a while (the fast bot plays 40 standard level-9 games).
SLOW = {"game": "three-towers", "level": 9, "deals": 40, "bot": "fast"}


@pytest.fixture
def client(tmp_path: Path) -> Any:
    with TestClient(create_app(settings_for(f"sqlite:///{tmp_path / 'db.sqlite3'}"))) as c:
        yield c


def _runner(client: TestClient[Any]) -> OddsRunner:
    runner = client.app.state.odds_runner
    assert isinstance(runner, OddsRunner)
    return runner


def test_a_shipped_cell_answers_at_once_without_a_key_and_starts_no_job(
    client: TestClient[Any],
) -> None:
    options = {k: v for k, v in SHIPPED.items() if k != "game"}
    shipped = shipped_cell(game_from_options("three-towers", options))
    assert shipped is not None, "the shipped tables must hold the issue's example"
    began = time.perf_counter()
    answer = client.get("/v1/odds", params=SHIPPED)
    elapsed = time.perf_counter() - began
    assert answer.status_code == 200, answer.text
    assert answer.headers["x-cache"] == "shipped"
    assert elapsed < 2.0  # a file lookup, not seconds of play
    runner = _runner(client)
    assert runner.started == 0 and not runner.jobs and runner._pool is None  # no worker at all
    body = answer.json()
    assert body["source"] == "shipped" and body["seed"] == shipped.seed
    assert {k: body[k] for k in ("level", "spaces")} == {"level": 9, "spaces": 5}
    for cell in body["cells"]:
        profiles = {p["profile"]: p for p in cell["profiles"]}
        assert set(profiles) == set(shipped.profiles)
        for key, (successes, deals, _) in shipped.profiles.items():
            profile = profiles[key]
            assert profile["deals"] == deals
            assert profile["rate"] == pytest.approx(successes / deals)
            assert profile["low"] <= profile["rate"] <= profile["high"]
            assert profile["words"] == words_for(successes / deals)
            assert profile["name"] == PROFILE_NAMES[key]
        assert cell["observed"] == {"checks": 0, "successes": 0, "rate": None, "low": None,
                                    "high": None}  # fmt: skip
    casual = next(p for p in body["cells"][0]["profiles"] if p["profile"] == "casual")
    assert body["summary"].startswith("A casual player ")
    assert f"({round(100 * casual['rate'])} %)" in body["summary"]
    # the same cell with the neutral option spelled out is still the shipped one
    again = client.get("/v1/odds", params={**SHIPPED, "level": 9, "spaces": 5, "undo": "safe"})
    assert again.headers["x-cache"] == "shipped" and _runner(client).started == 0


def test_computing_needs_a_gm_key(client: TestClient[Any]) -> None:
    anonymous = client.get("/v1/odds", params=SMALL)
    assert anonymous.status_code == 401, anonymous.text
    assert anonymous.headers["content-type"].startswith("application/problem+json")
    assert anonymous.headers["www-authenticate"].startswith("Bearer")
    stranger = client.get("/v1/odds", params=SMALL, headers=bearer("not-a-gm-key"))
    assert stranger.status_code == 401, stranger.text  # a token that is nobody's
    assert "no GM key" in stranger.json()["detail"]
    # pinning the deals of a shipped cell asks for a computation too
    pinned = client.get("/v1/odds", params={**SHIPPED, "deals": 3})
    assert pinned.status_code == 401
    assert _runner(client).started == 0


def test_a_gm_gets_202_with_progress_then_polls_to_200(client: TestClient[Any]) -> None:
    first, done = poll_odds(client, SMALL)
    assert first.status_code == 202, first.text
    running = first.json()
    assert running["status"] == "running" and 0 <= running["done"] <= running["total"]
    assert running["total"] == 4  # one combination × 4 deals (each played by both methods)
    assert int(first.headers["retry-after"]) >= 1
    assert done.status_code == 200, done.text
    body = done.json()
    assert body["source"] == "computed" and done.headers["x-cache"] == "hit"
    assert [c["method"] for c in body["cells"]] == ["perfect", "fast"]
    [cell, _] = body["cells"]
    assert [p["profile"] for p in cell["profiles"]] == ["casual", "ceiling"]
    assert all(p["deals"] == 4 for p in cell["profiles"])
    # now cached: anyone reads it at once, and no new job starts
    anyone = client.get("/v1/odds", params=SMALL)
    assert anyone.status_code == 200 and anyone.json()["cells"] == body["cells"]
    assert _runner(client).started == 1


def test_two_requests_for_one_table_share_one_job(client: TestClient[Any]) -> None:
    one = client.get("/v1/odds", params=SLOW, headers=bearer(GM_KEY))
    two = client.get("/v1/odds", params=SLOW, headers=bearer(GM_KEY))
    assert one.status_code == two.status_code == 202
    runner = _runner(client)
    assert runner.started == 1 and len(runner.jobs) == 1
    other = client.get("/v1/odds", params={**SLOW, "deals": 41}, headers=bearer(GM_KEY))
    assert other.status_code == 202 and runner.started == 2


def test_a_full_queue_answers_429_with_retry_after(client: TestClient[Any]) -> None:
    runner = _runner(client)
    runner.max_jobs = 1
    assert client.get("/v1/odds", params=SLOW, headers=bearer(GM_KEY)).status_code == 202
    full = client.get("/v1/odds", params={**SLOW, "deals": 41}, headers=bearer(GM_KEY))
    assert full.status_code == 429, full.text
    assert full.headers["content-type"].startswith("application/problem+json")
    assert int(full.headers["retry-after"]) >= 1
    assert full.json()["code"] == "odds-queue-full"
    # the running job is still reachable: polling it is not refused
    assert client.get("/v1/odds", params=SLOW, headers=bearer(GM_KEY)).status_code == 202
    assert runner.started == 1


def test_a_full_queue_of_jobs_keeps_every_other_request_answering(
    client: TestClient[Any],
) -> None:
    """A job waits on the worker process in a thread of its own for the whole table: were it
    one of the handlers' few threads (``Settings.threads``, 4 by default), four jobs would hold
    them all and every other request, a player's move included, would wait for a job to end."""
    runner = _runner(client)
    assert runner.max_jobs >= client.app.state.runtime.settings.threads
    for n in range(runner.max_jobs):  # a full queue of tables that each take a while
        slow = {**SLOW, "deals": 200 + n}
        assert client.get("/v1/odds", params=slow, headers=bearer(GM_KEY)).status_code == 202
    assert len(runner.jobs) == runner.max_jobs
    shipped = client.get("/v1/odds", params=SHIPPED)
    created = client.post(
        "/v1/checks",
        json={"game": "three-towers", "params": {"level": 4, "spaces": 4}, "seed": 3},
        headers=bearer(GM_KEY),
    )
    assert shipped.status_code == 200 and created.status_code == 201, created.text
    body = created.json()
    view = client.get(f"/v1/checks/{body['check_id']}", headers=bearer(body["player_token"]))
    assert view.status_code == 200, view.text
    # answered while every job still runs (with the jobs on the handlers' threads they come
    # only after one of the jobs has ended)
    assert len(runner.jobs) == runner.max_jobs
    assert all(job.done < job.total for job in runner.jobs.values())


# ---- observed here -------------------------------------------------------------------------------


def _finished(client: TestClient[Any], params: dict[str, Any], status: str, config: Any) -> None:
    """A check row as the store writes one, straight into the app's database."""
    now = datetime.now(UTC)
    engine = client.app.state.runtime.store.config.get_engine()
    with engine.begin() as conn:
        conn.execute(
            CheckRow.__table__.insert(),  # type: ignore[attr-defined]
            {
                "id": uuid.uuid4().hex, "game": "three-towers",
                "config": {"game": "three-towers", "params": params, **config},
                "seed": 1, "salt": "00", "commitment": "00", "status": status, "version": 1,
                "last_sequence": 1, "created_at": now, "updated_at": now,
            },
        )  # fmt: skip


def test_observed_here_counts_finished_checks_whose_seed_the_server_drew(
    client: TestClient[Any],
) -> None:
    same = {"level": 9, "variant": {"kind": "quota", "suit": "moons", "skill": 5, "quota": 4}}
    drawn = {"seed_chosen": False}
    for status in ("won", "won", "won", "lost"):
        _finished(client, same, status, drawn)
    _finished(client, {**same, "undo": False}, "lost", drawn)  # undo never changes the odds
    _finished(client, same, "won", {"seed_chosen": True})  # the GM chose the deal
    _finished(client, same, "won", {})  # not recorded: left out too
    _finished(client, same, "in_progress", drawn)
    _finished(client, same, "cancelled", drawn)
    other = {"level": 9, "variant": {"kind": "quota", "suit": "moons", "skill": 5, "quota": 3}}
    _finished(client, other, "won", drawn)
    answer = client.get("/v1/odds", params=SHIPPED)
    assert answer.status_code == 200
    observed = answer.json()["cells"][0]["observed"]
    assert observed["checks"] == 5 and observed["successes"] == 3
    assert observed["rate"] == pytest.approx(0.6)
    assert 0 < observed["low"] < 0.6 < observed["high"] < 1
    table = client.get("/v1/odds", params={**SHIPPED, "quota": [3, 4]}).json()
    by_quota = {c["params"]["quota"]: c["observed"]["checks"] for c in table["cells"]}
    assert by_quota == {3: 1, 4: 5}


# ---- calibrate -----------------------------------------------------------------------------------


def test_calibrate_from_the_shipped_tables(client: TestClient[Any]) -> None:
    query = {"game": "three-towers", "suit": "moons", "skill": 6, "target": 0.6}
    answer = client.get("/v1/calibrate", params=query)
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["parameter"] == "quota" and body["profile"] == "casual"
    assert [c["value"] for c in body["choices"]] == [1, 2, 3, 4, 5, 6]
    best = next(c for c in body["choices"] if c["value"] == body["best"])
    assert all(abs(best["rate"] - 0.6) <= abs(c["rate"] - 0.6) for c in body["choices"])
    assert body["source"] == "shipped" and _runner(client).started == 0
    rates = [c["rate"] for c in body["choices"]]
    assert rates[0] >= rates[-1]  # the declared direction: a larger quota is harder
    for choice in body["choices"]:
        assert choice["words"] == words_for(choice["rate"])
        assert choice["low"] <= choice["rate"] <= choice["high"]


def test_the_odds_name_what_calibrating_them_chooses(client: TestClient[Any]) -> None:
    """A form asks for the odds of all its options, then calibrates them: the odds answer
    says which option to leave out (a quota check's quota, the standard game's level, Tri
    Peaks' peaks), as calibrating these options answers it."""
    for query in (SHIPPED, {"game": "three-towers", "level": 9}, {"game": "tripeaks"}):
        odds = client.get("/v1/odds", params=query)
        assert odds.status_code == 200, odds.text
        named = odds.json()["difficulty"]
        rest = {k: v for k, v in query.items() if k != named}
        calibrated = client.get("/v1/calibrate", params={**rest, "target": 0.5})
        assert calibrated.status_code == 200, calibrated.text
        assert calibrated.json()["parameter"] == named
        refused = client.get("/v1/calibrate", params={**rest, named: 1, "target": 0.5})
        assert refused.status_code == 422 and refused.json()["field"] == named


def test_calibrate_computes_for_a_gm_and_refuses_what_it_cannot_do(
    client: TestClient[Any],
) -> None:
    query = {"game": "three-towers", "suit": "moons", "skill": 2, "level": 4, "spaces": 4,
             "target": 0.5, "profile": "ceiling"}  # fmt: skip
    assert client.get("/v1/calibrate", params=query).status_code == 401
    first, done = poll_odds(client, query, path="/v1/calibrate")
    assert first.status_code == 202 and done.status_code == 200, done.text
    body = done.json()
    assert body["source"] == "computed" and [c["value"] for c in body["choices"]] == [1, 2]
    assert all(c["deals"] == 200 for c in body["choices"])
    refusals = [
        ({**query, "quota": 1}, 422, "quota"),  # what calibrating chooses
        ({**query, "profile": "careful"}, 422, "profile"),  # not shipped there: too slow
        ({"game": "hanoy", "skill": 2, "target": 0.5, "profile": "careful"}, 422, "profile"),
        ({**query, "target": 1.5}, 400, "target"),
        ({**query, "profile": "lucky"}, 400, "profile"),
        ({**query, "deals": 5}, 422, "deals"),
        ({**{k: v for k, v in query.items() if k != "skill"}, "variant": "quota"}, 422, "skill"),
    ]
    for params, status, field in refusals:
        refused = client.get("/v1/calibrate", params=params, headers=bearer(GM_KEY))
        assert refused.status_code == status, (params, refused.text)
        assert refused.json().get("field") == field or field in refused.json()["detail"], params


def test_a_gm_asks_for_the_careful_player_on_demand(client: TestClient[Any]) -> None:
    """The careful player (the strong fair bot) is computed on demand for a GM, with few deals
    (seconds a deal), and its profile joins the answer with the shipped ones."""
    detail = client.get("/v1/games/three-towers").json()
    assert detail["profiles"] == {"careful": "strong", "casual": "fast", "ceiling": "perfect"}
    careful = {**SMALL, "bot": detail["profiles"]["careful"], "deals": 3}
    assert client.get("/v1/odds", params=careful).status_code == 401  # computing needs a key
    first, answer = poll_odds(client, careful)
    assert first.status_code == 202 and first.json()["total"] == 3
    assert answer.status_code == 200, answer.text
    (cell,) = answer.json()["cells"]
    assert cell["method"] == "strong" and cell["trials"] == 3
    assert [p["profile"] for p in cell["profiles"]] == ["careful"]
    assert cell["profiles"][0]["name"] == PROFILE_NAMES["careful"]
    # without deals it plays the slow method's default, never the 200 of the quick ones
    without = {k: v for k, v in careful.items() if k != "deals"}
    started = client.get("/v1/odds", params=without, headers=bearer(GM_KEY))
    assert started.status_code == 202 and started.json()["total"] == 10


def test_the_careful_player_is_refused_more_deals_than_it_can_play(
    client: TestClient[Any],
) -> None:
    refused = client.get(
        "/v1/odds", params={**SMALL, "bot": "strong", "deals": 11}, headers=bearer(GM_KEY)
    )
    assert refused.status_code == 422 and refused.json()["field"] == "deals"
    assert "at most 10 deals" in refused.json()["detail"]
    other = client.get("/v1/odds", params={**SMALL, "bot": "random"}, headers=bearer(GM_KEY))
    assert other.status_code == 422 and other.json()["field"] == "bot"
    assert "strong" in other.json()["detail"]  # the message names every bot allowed
