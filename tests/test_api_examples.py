"""The HTTP API's examples run against a real server (docs/api.md): examples/http/quickstart.sh
(curl), examples/http/client.py (httpx), the Foundry VTT macro under Node, and the Owlbear Rodeo
extension's logic under Node with a stand-in for the OBR SDK; plus the CORS answers a browser on
the VTT's origin gets, and the Owlbear manifest.

One uvicorn server serves the whole module: a temporary SQLite file, a GM key, the Foundry and
extension origins in SKILLCHECK_CORS_ORIGINS, Owlbear Rodeo and the extension in
SKILLCHECK_FRAME_ANCESTORS, no rate limit.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "api"))

from live_server import api_server  # noqa: E402 (tests/api is not a package)

EXAMPLES = ROOT / "examples"
GM_KEY = "gm-examples-key"
FOUNDRY_ORIGIN = "https://foundry.example.test"
EXTENSION_ORIGIN = "https://skillcheck-obr.example.test"
OBR_ORIGIN = "https://www.owlbear.rodeo"
NODE = shutil.which("node")
needs_node = pytest.mark.skipif(NODE is None, reason="Node.js (node) is not installed")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("api-examples")
    env = {
        "SKILLCHECK_DATABASE_URL": f"sqlite:///{folder / 'checks.sqlite3'}",
        "SKILLCHECK_GM_KEYS": GM_KEY,
        "SKILLCHECK_CORS_ORIGINS": f"{FOUNDRY_ORIGIN},{EXTENSION_ORIGIN}",
        "SKILLCHECK_FRAME_ANCESTORS": f"{OBR_ORIGIN},{EXTENSION_ORIGIN}",
        "SKILLCHECK_RATE_LIMIT": "off",
    }
    with api_server(env, log=folder / "server.log") as base:
        yield base


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def run(
    command: list[str], env: dict[str, str], timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("SKILLCHECK_")}
    return subprocess.run(
        command, env={**clean, **env}, cwd=ROOT, capture_output=True, text=True, timeout=timeout
    )


def result_line(stdout: str) -> dict[str, Any]:
    """The JSON after ``RESULT`` that the example scripts print last."""
    lines = [line for line in stdout.splitlines() if line.startswith("RESULT ")]
    assert lines, f"no RESULT line in:\n{stdout}"
    found: dict[str, Any] = json.loads(lines[-1].removeprefix("RESULT "))
    return found


def stored_events(base: str, check_id: str, token: str) -> list[list[Any]]:
    answer = httpx.get(f"{base}/v1/checks/{check_id}/events", headers=bearer(token))
    assert answer.status_code == 200, answer.text
    return [[e["sequence"], e["kind"], e["version"]] for e in answer.json()["events"]]


# ---- curl ----------------------------------------------------------------------------------------


def test_quickstart_script_plays_a_check_with_curl(server: str) -> None:
    assert shutil.which("curl"), "curl is needed by examples/http/quickstart.sh"
    done = run(
        ["bash", str(EXAMPLES / "http" / "quickstart.sh")],
        {
            "SKILLCHECK_URL": server,
            "SKILLCHECK_GM_KEY": GM_KEY,
            "SKILLCHECK_CLI": f"{sys.executable} -m skillcheck.cli",
        },
    )
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    check_id = re.search(r"^check (\S+), ETag \"0\"", out, re.M)
    assert check_id, out
    assert "attempt 1: 200, version 1, moves made 1" in out
    assert "attempt 2: 200, version 1, moves made 1" in out  # the retry did not act again
    assert re.search(r"^412 version-conflict: .* is at version 1, not 0", out, re.M)
    assert "1 created (version 0)\n2 moved (version 1)" in out
    assert re.search(r"^200 status lost, degree -\d+$", out, re.M)
    assert "OK: the seed matches the commitment" in out
    # What the server kept: one move and the concession, nothing from the retry or the stale call.
    view = httpx.get(f"{server}/v1/checks/{check_id[1]}", headers=bearer(GM_KEY)).json()
    assert (view["status"], view["version"], view["moves_made"]) == ("lost", 2, 1)
    assert view["outcome"]["reason"] == "conceded"
    kinds = [kind for _, kind, _ in stored_events(server, check_id[1], GM_KEY)]
    assert kinds == ["created", "moved", "ended"]


# ---- httpx ---------------------------------------------------------------------------------------


def load_client() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "skillcheck_http_client", EXAMPLES / "http" / "client.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_client_script_streams_and_verifies(server: str) -> None:
    done = run(
        [sys.executable, str(EXAMPLES / "http" / "client.py")],
        {"SKILLCHECK_URL": server, "SKILLCHECK_GM_KEY": GM_KEY, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    result = result_line(done.stdout)
    assert result["status"] == "lost" and result["degree"] < 0
    assert result["commitment_ok"] is True and result["replayed"] is True
    stream = result["stream"]
    assert [kind for _, kind, _ in stream] == ["created", "moved", "moved", "ended"]
    assert [seq for seq, _, _ in stream] == [1, 2, 3, 4]
    assert [version for _, _, version in stream] == [0, 1, 2, 3]
    # The stream saw exactly what the server stored: the retried moves did not act twice.
    assert stored_events(server, result["check_id"], result["spectator_token"]) == stream
    assert "stale version refused: 412 version-conflict" in done.stdout


class LoseFirstAnswer(httpx.BaseTransport):
    """Forwards every request; the first POST to .../moves reaches the server, but its answer
    is "lost" (a ReadError), as when a connection drops after the server acted."""

    def __init__(self) -> None:
        self.inner = httpx.HTTPTransport()
        self.lost = 0

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = self.inner.handle_request(request)
        if request.method == "POST" and request.url.path.endswith("/moves") and not self.lost:
            response.read()
            self.lost += 1
            raise httpx.ReadError("connection reset after the server answered", request=request)
        return response


def test_client_retries_a_lost_answer_without_acting_twice(server: str) -> None:
    client_module = load_client()
    transport = LoseFirstAnswer()
    gm = client_module.SkillcheckClient(server, GM_KEY, transport=transport)
    created = gm.create({"level": 5}, label="retry test")
    player = gm.with_token(created.player_token)
    move = created.view["legal_moves"][0]
    view = player.move(created.check_id, move, version=0)
    assert transport.lost == 1  # the first answer was lost, the retry was answered
    assert view["version"] == 1 and view["moves_made"] == 1
    kinds = [kind for _, kind, _ in stored_events(server, created.check_id, GM_KEY)]
    assert kinds == ["created", "moved"]

    with pytest.raises(client_module.VersionConflict) as stale:
        player.concede(created.check_id, version=0)
    assert stale.value.status == 412 and stale.value.actual_version == 1
    with pytest.raises(client_module.ApiError) as unreadable:
        player.move(created.check_id, "z9", version=1)
    assert (unreadable.value.status, unreadable.value.code) == (422, "parse-error")
    with pytest.raises(client_module.ApiError) as forbidden:
        gm.with_token(created.spectator_token).concede(created.check_id)
    assert (forbidden.value.status, forbidden.value.code) == (403, "forbidden")

    # A stream resumed after event 2 (Last-Event-ID) gets only what came later.
    cancelled = gm.cancel(created.check_id, "the guard came back", version=1)
    assert cancelled["status"] == "cancelled"
    later = list(gm.with_token(created.spectator_token).stream(created.check_id, after=2))
    assert [(e.sequence, e.kind) for e in later] == [(3, "cancelled")]
    assert later[0].payload["reason"] == "the guard came back"
    gm.close()


# ---- Foundry VTT ---------------------------------------------------------------------------------


@needs_node
def test_foundry_macro_runs_under_node(server: str) -> None:
    assert NODE is not None
    done = run(
        [NODE, str(EXAMPLES / "foundry" / "skillcheck-macro.js")],
        {"SKILLCHECK_URL": server, "SKILLCHECK_GM_KEY": GM_KEY, "FOUNDRY_ORIGIN": FOUNDRY_ORIGIN},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    result = result_line(done.stdout)
    # It read the stream: created, then its own move arriving, then the end after conceding.
    assert result["stream"] == [[1, "created", 0], [2, "moved", 1], [3, "ended", 2]]
    assert (result["status"], result["reason"]) == ("lost", "conceded")
    assert result["commitment_ok"] is True
    assert stored_events(server, result["check_id"], result["spectator_token"]) == result["stream"]
    revealed = httpx.get(
        f"{server}/v1/checks/{result['check_id']}/record",
        headers=bearer(result["spectator_token"]),
    ).json()
    assert len(revealed["record"]["moves"]) == 1
    assert revealed["record"]["outcome"]["degree"] == result["degree"]
    assert "Failure (degree" in done.stdout and "the deal matches the commitment" in done.stdout


@needs_node
def test_foundry_macro_stops_when_the_origin_is_not_allowed(server: str) -> None:
    assert NODE is not None
    done = run(
        [NODE, str(EXAMPLES / "foundry" / "skillcheck-macro.js")],
        {"SKILLCHECK_URL": server, "SKILLCHECK_GM_KEY": GM_KEY,
         "FOUNDRY_ORIGIN": "https://unlisted.example.test"},
    )  # fmt: skip
    assert done.returncode == 1
    assert "SKILLCHECK_CORS_ORIGINS" in done.stderr
    assert "RESULT" not in done.stdout


def test_cors_preflight_from_the_foundry_origin(server: str) -> None:
    created = httpx.post(
        f"{server}/v1/checks",
        json={"game": "three-towers", "params": {"level": 5}},
        headers=bearer(GM_KEY),
    ).json()
    check = f"/v1/checks/{created['check_id']}"
    asks = [
        ("POST", "/v1/checks", "authorization, content-type"),
        ("POST", f"{check}/moves", "authorization, content-type, if-match, idempotency-key"),
        ("POST", f"{check}/concede", "authorization, if-match, idempotency-key"),
        ("GET", f"{check}/stream", "authorization, last-event-id"),
        ("GET", check, "authorization"),
    ]
    for method, path, headers in asks:
        answer = httpx.options(
            server + path,
            headers={
                "Origin": FOUNDRY_ORIGIN,
                "Access-Control-Request-Method": method,
                "Access-Control-Request-Headers": headers,
            },
        )
        assert answer.status_code in (200, 204), (path, answer.text)
        assert answer.headers["access-control-allow-origin"] == FOUNDRY_ORIGIN
        assert method in answer.headers["access-control-allow-methods"]
        allowed = {
            h.strip().lower() for h in answer.headers["access-control-allow-headers"].split(",")
        }
        assert {h.strip() for h in headers.split(",")} <= allowed, (path, allowed)
    # The answer itself: readable from the origin, with the ETag exposed to scripts.
    view = httpx.get(
        server + check, headers={"Origin": FOUNDRY_ORIGIN, **bearer(created["player_token"])}
    )
    assert view.headers["access-control-allow-origin"] == FOUNDRY_ORIGIN
    assert "etag" in view.headers["access-control-expose-headers"].lower()
    assert view.headers["etag"] == '"0"'
    # An origin that is not listed gets no CORS headers: the browser refuses.
    other = httpx.options(
        server + "/v1/checks",
        headers={
            "Origin": "https://unlisted.example.test",
            "Access-Control-Request-Method": "POST",
        },
    )
    assert "access-control-allow-origin" not in other.headers


# ---- Owlbear Rodeo -------------------------------------------------------------------------------


def test_owlbear_manifest_has_what_owlbear_rodeo_requires() -> None:
    folder = EXAMPLES / "owlbear"
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    assert isinstance(manifest["name"], str) and 0 < len(manifest["name"]) <= 45
    assert isinstance(manifest["version"], str) and manifest["version"]
    assert manifest["manifest_version"] == 1
    assert isinstance(manifest["description"], str) and len(manifest["description"]) <= 128
    action = manifest["action"]
    assert {"title", "icon", "popover"} <= action.keys()
    for path in (manifest["icon"], action["icon"], action["popover"]):
        assert path.startswith("/") and (folder / path.lstrip("/")).is_file(), path
    page = (folder / action["popover"].lstrip("/")).read_text(encoding="utf-8")
    assert 'src="./main.js"' in page and '"@owlbear-rodeo/sdk"' in page
    imports = re.search(r'<script type="importmap">(.*?)</script>', page, re.S)
    assert imports and json.loads(imports[1])["imports"]["@owlbear-rodeo/sdk"]


OWLBEAR_DRIVER = r"""
const [mainPath, api, gmKey, origin] = process.argv.slice(1);
const main = await import(mainPath);

// A stand-in for the OBR SDK: one room, three connected clients.
const room = {};
const listeners = new Map();
function client(id, role) {
  return {
    player: { getId: async () => id, getRole: async () => role },
    room: {
      getMetadata: async () => structuredClone(room),
      setMetadata: async (update) => { Object.assign(room, structuredClone(update)); },
    },
    broadcast: {
      sendMessage: async (channel, data) => {  // destination REMOTE: every other client
        for (const [who, cb] of listeners.get(channel) ?? []) {
          if (who !== id) cb({ data, connectionId: id });
        }
      },
      onMessage: (channel, cb) => {
        const entry = [id, cb];
        listeners.set(channel, [...(listeners.get(channel) ?? []), entry]);
        return () => listeners.set(channel, listeners.get(channel).filter((e) => e !== entry));
      },
    },
  };
}
const gm = client("gm-1", "GM");
const mira = client("player-mira", "PLAYER");
const bo = client("player-bo", "PLAYER");
const got = { mira: [], bo: [] };
main.onPlayerLink(mira, "player-mira", (m) => got.mira.push(m));
main.onPlayerLink(bo, "player-bo", (m) => got.bo.push(m));

// The extension's fetch as a browser on the extension's origin makes it.
const allowOrigin = [];
const browserFetch = async (url, init) => {
  const response = await fetch(url, { ...init, headers: { ...init.headers, Origin: origin } });
  allowOrigin.push(response.headers.get("access-control-allow-origin"));
  return response;
};
const created = await main.createCheck({
  api, gmKey, label: "Mira picks the lock", fetchImpl: browserFetch,
  params: main.quotaParams({ suit: "moons", skill: 3, quota: 3, level: 6 }),
});
await main.shareCheck(gm, {
  api, created, playerId: "player-mira", playerName: "Mira", label: "Mira picks the lock",
});
let refused = null;
try {
  await main.createCheck({
    api, gmKey: "not-a-key", label: "x", fetchImpl: browserFetch,
    params: main.quotaParams({ suit: "moons", skill: 3, quota: 3 }),
  });
} catch (error) { refused = error.problem.code; }
const listed = await main.roomChecks(bo);
const checkId = created.check_id;
console.log(JSON.stringify({ check_id: checkId, got, room: listed, allowOrigin, refused }));
"""


@needs_node
def test_owlbear_extension_shares_the_player_link(server: str) -> None:
    assert NODE is not None
    done = run(
        [NODE, "--input-type=module", "-e", OWLBEAR_DRIVER,
         (EXAMPLES / "owlbear" / "main.js").as_uri(), server, GM_KEY, EXTENSION_ORIGIN],
        {},
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    check_id = result["check_id"]
    assert result["allowOrigin"] == [EXTENSION_ORIGIN, EXTENSION_ORIGIN]  # CORS lets it read both
    assert result["refused"] == "forbidden"
    assert result["got"]["bo"] == []  # only the addressee shows the player link
    [message] = result["got"]["mira"]
    page, _, fragment = message["url"].partition("#")
    assert page == f"{server}/play/{check_id}" and fragment.startswith("token=sc_play_")
    player_token = fragment.removeprefix("token=")
    [listed] = result["room"]
    assert listed["check_id"] == check_id and "sc_play_" not in json.dumps(listed)
    spectator_token = listed["spectator_url"].partition("#token=")[2]
    assert spectator_token.startswith("sc_view_")

    # The player's page may be framed by Owlbear Rodeo and by the extension's own page.
    shown = httpx.get(page)
    assert shown.status_code == 200 and "text/html" in shown.headers["content-type"]
    directives = [d.strip() for d in shown.headers["content-security-policy"].split(";")]
    [ancestors] = [d for d in directives if d.startswith("frame-ancestors ")]
    assert ancestors.startswith("frame-ancestors 'self'")
    assert OBR_ORIGIN in ancestors and EXTENSION_ORIGIN in ancestors
    # The tokens in the links work, each for its role.
    view = httpx.get(f"{server}/v1/checks/{check_id}", headers=bearer(player_token))
    assert view.status_code == 200 and view.json()["status"] == "in_progress"
    watched = httpx.post(f"{server}/v1/checks/{check_id}/concede", headers=bearer(spectator_token))
    assert watched.status_code == 403
    conceded = httpx.post(f"{server}/v1/checks/{check_id}/concede", headers=bearer(player_token))
    assert conceded.status_code == 200 and conceded.json()["status"] == "lost"
