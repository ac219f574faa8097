"""Property-based tests of the HTTP API against its own OpenAPI schema (schemathesis).

A live server (uvicorn subprocess on a temporary SQLite file, ``benchmarks/_api_harness.py``)
serves ``/schema/openapi.json``; schemathesis generates requests for every operation. Each
request is authenticated (the GM key for creating and cancelling, else the player token of a
real check, whose id replaces the generated ``check_id``; a check that has ended is replaced by
a new one), so the handlers are reached, not only the 404 of an unknown id.

- ``test_schemathesis_run_with_every_check_finds_nothing``: the command a client author would
  run, ``schemathesis run <url>/schema/openapi.json --checks all`` with a GM key, from the
  repository (so it reads ``schemathesis.toml``), exits 0: auth (public endpoints need no
  token, a made-up token is refused), required headers, content types, schema conformance both
  ways (schema-valid requests accepted, schema-invalid ones refused) and the stateful links.
- ``test_responses_conform_to_the_schema``: no response is a 5xx, and every status code,
  content type, header and body is the one the schema documents (errors as
  application/problem+json).

A schema-valid move such as ``"zz"`` is rightly refused by the rules (422, documented); the
schema cannot say which moves are legal (``schemathesis.toml`` says why 422 is an expected
answer to schema-valid data). Bounded: a few examples per operation, no shrinking, no example
database. Every operation is covered, the streams and the odds included: the test server ends a
stream after 0.2 seconds (``SKILLCHECK_STREAM_SECONDS``, so a generated request to a stream gets
its whole answer), and an odds table or a calibration outside the shipped tables is a background
job (202), at most four at once (then 429), which the server stops when the test ends.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, settings
from schemathesis import checks

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

from _api_harness import (  # noqa: E402
    GM_KEY,
    Server,
    api_server,
    bearer,
    creation_body,
    throwaway_database,
)

pytestmark = pytest.mark.slow

#: Operations the GM calls; every other one gets the player's token (re-issuing a token is
#: left to the player's token, refused with 403, so the check's own token stays valid).
GM_OPERATIONS = {
    ("POST", "/v1/checks"),
    ("POST", "/v1/checks/{check_id}/cancel"),
    ("GET", "/v1/checks"),
    ("GET", "/v1/checks/stream"),
    ("GET", "/v1/checks/{check_id}/webhook"),
    ("GET", "/v1/odds"),
    ("GET", "/v1/calibrate"),
}
#: How long the test server keeps a live stream open (a generated request to a stream waits
#: for all of it).
STREAM_SECONDS = 0.2
BOUNDED = settings(
    max_examples=12,
    deadline=None,
    database=None,
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=list(HealthCheck),
)


class Live:
    """The server and the check the generated requests act on."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.http = httpx.Client(base_url=server.base_url, timeout=30.0)
        self.created = 0
        self.check_id = ""
        self.player_token = ""
        self.renew()

    def renew(self) -> None:
        answer = self.http.post(
            "/v1/checks", json=creation_body(self.created), headers=bearer(GM_KEY)
        )
        assert answer.status_code == 201, answer.text
        body = answer.json()
        self.check_id, self.player_token = body["check_id"], body["player_token"]
        self.created += 1

    def in_progress_check(self) -> str:
        view = self.http.get(f"/v1/checks/{self.check_id}", headers=bearer(self.player_token))
        if view.status_code != 200 or view.json()["status"] != "in_progress":
            self.renew()
        return self.check_id

    def prepare(self, case: Any) -> None:
        """Point the case at the real check and give it the caller's token."""
        if case.path_parameters is not None and "check_id" in case.path_parameters:
            case.path_parameters["check_id"] = self.in_progress_check()
        gm = (case.method.upper(), case.path) in GM_OPERATIONS
        token = GM_KEY if gm else self.player_token
        case.headers = {**(case.headers or {}), **bearer(token)}


@pytest.fixture(scope="module")
def live() -> Iterator[Live]:
    with throwaway_database(None) as url:
        server = api_server(url)
        server.env = {**server.env, "SKILLCHECK_STREAM_SECONDS": str(STREAM_SECONDS)}
        try:
            server.start()
            live = Live(server)
            yield live
            live.http.close()
        finally:
            server.cleanup()


@pytest.fixture(scope="module")
def api_schema(live: Live) -> Any:
    return schemathesis.openapi.from_url(f"{live.server.base_url}/schema/openapi.json")


schema = schemathesis.pytest.from_fixture("api_schema")


def test_schemathesis_run_with_every_check_finds_nothing(live: Live) -> None:
    command = [
        sys.executable, "-m", "schemathesis.cli", "run",
        f"{live.server.base_url}/schema/openapi.json",
        "--checks", "all",
        "-H", f"Authorization: Bearer {GM_KEY}",
        "--max-examples", "10",
        "--seed", "1",
        "--no-color",
        # a loaded two-core CI machine runs the odds worker beside the server: give it time
        "--request-timeout", "60",
        "--max-response-time", "60",
    ]  # fmt: skip
    run = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=900)
    report = run.stdout + run.stderr
    assert run.returncode == 0, report[-6000:]
    assert "Stateful" in report and "passed" in report


@schema.parametrize()
@BOUNDED
def test_responses_conform_to_the_schema(case: Any, live: Live) -> None:
    live.prepare(case)
    case.call_and_validate(
        checks=[
            checks.not_a_server_error,
            checks.status_code_conformance,
            checks.content_type_conformance,
            checks.response_headers_conformance,
            checks.response_schema_conformance,
        ],
    )


@pytest.mark.parametrize(
    "after",
    [2**31, 2**63],  # past PostgreSQL's integer (the sequence column), past SQLite's INTEGER
)
def test_events_after_a_huge_sequence_is_not_a_server_error(live: Live, after: int) -> None:
    """Found by schemathesis: ``after`` had no upper bound, and the database refused it (500)."""
    check_id = live.in_progress_check()
    answer = live.http.get(
        f"/v1/checks/{check_id}/events",
        params={"after": after},
        headers=bearer(live.player_token),
    )
    assert answer.status_code < 500, answer.text
