"""The HTTP API's examples run against a real server (docs/api.md): examples/http/quickstart.sh
(curl), examples/http/client.py (httpx), the Foundry VTT macro under Node, and the Owlbear Rodeo
extension's logic under Node with a stand-in for the OBR SDK; plus the CORS answers a browser on
the VTT's origin gets, and the Owlbear manifest.

One uvicorn server serves the whole module: a temporary SQLite file, a GM key, the Foundry and
extension origins in SKILLCHECK_CORS_ORIGINS, Owlbear Rodeo and the extension in
SKILLCHECK_FRAME_ANCESTORS, no rate limit.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "api"))

from live_server import api_server, free_port  # noqa: E402 (tests/api is not a package)

EXAMPLES = ROOT / "examples"
GM_KEY = "gm-examples-key"
FOUNDRY_ORIGIN = "https://foundry.example.test"
EXTENSION_ORIGIN = "https://skillcheck-obr.example.test"
OBR_ORIGIN = "https://www.owlbear.rodeo"
NODE = shutil.which("node")
needs_node = pytest.mark.skipif(NODE is None, reason="Node.js (node) is not installed")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with examples_server(tmp_path_factory.mktemp("api-examples")) as base:
        yield base


@pytest.fixture
def own_server(tmp_path: Path) -> Iterator[str]:
    """A server of the test's own, for a test that reads every check the GM has (the module's
    server holds the checks of whichever tests ran before on this worker)."""
    with examples_server(tmp_path) as base:
        yield base


@contextlib.contextmanager
def examples_server(folder: Path) -> Iterator[str]:
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


@pytest.mark.parametrize("wrong", ["key", "url"])
def test_client_script_says_what_went_wrong_without_a_traceback(server: str, wrong: str) -> None:
    """A mistyped GM key (401, with where to find the key) or a server that is not there (with
    the URL tried) is one line and exit 2, not a traceback."""
    url = server if wrong == "key" else f"http://127.0.0.1:{free_port()}"
    key = "not-the-gm-key" if wrong == "key" else GM_KEY
    done = run(
        [sys.executable, str(EXAMPLES / "http" / "client.py")],
        {"SKILLCHECK_URL": url, "SKILLCHECK_GM_KEY": key, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    if wrong == "key":
        assert "the server refused: 401 unauthorized" in done.stderr
        assert "is --gm-key one of the server's GM keys?" in done.stderr
    else:
        assert f"cannot reach {url}" in done.stderr and "skillcheck serve" in done.stderr


def _ended_check(server: str, seed: int | None) -> tuple[dict[str, Any], dict[str, Any]]:
    """A conceded check (from ``seed`` when given: the GM chose it) and its revealed record."""
    body: dict[str, Any] = {"game": "three-towers", "params": {"level": 5}}
    if seed is not None:
        body["seed"] = seed
    created = httpx.post(f"{server}/v1/checks", json=body, headers=bearer(GM_KEY)).json()
    path = f"{server}/v1/checks/{created['check_id']}"
    conceded = httpx.post(f"{path}/concede", headers=bearer(created["player_token"]))
    assert conceded.status_code == 200, conceded.text
    revealed = httpx.get(f"{path}/record", headers=bearer(created["spectator_token"])).json()
    assert revealed["seed_chosen"] is (seed is not None)
    return created, revealed


def test_the_python_commitment_helpers_verify_a_seed_the_gm_chose(server: str) -> None:
    """examples/http/client.py's commitment_of and docs/api.md's snippet (section 6) hashed
    four members; a check created with "seed" binds a fifth, "seed_chosen": true."""
    client_module = load_client()
    docs = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    section = docs.split("### 6. The revealed record", 1)[1].split("### 7.", 1)[0]
    snippet = re.search(r"```python\n(.*?)```", section, re.S)
    assert snippet is not None, "docs/api.md section 6 has no Python snippet"
    for seed in (1234, None):
        created, revealed = _ended_check(server, seed)
        assert client_module.commitment_of(revealed) == created["commitment"], seed
        names = {"revealed": revealed, "commitment_published_at_creation": created["commitment"]}
        exec(compile(snippet.group(1), "docs/api.md#6", "exec"), names)  # it asserts itself
        # and a record that hides who chose the seed no longer matches
        hidden = {**revealed, "seed_chosen": not revealed["seed_chosen"]}
        assert client_module.commitment_of(hidden) != created["commitment"]


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
    # after the terminal event there is nothing: the server ends the stream, the client stops
    started = time.monotonic()
    assert list(gm.with_token(created.spectator_token).stream(created.check_id, after=3)) == []
    assert time.monotonic() - started < 5
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
def test_foundry_macro_verifies_a_seed_the_gm_chose(server: str) -> None:
    """A check created with "seed" binds "seed_chosen": true in its commitment; the macro's
    commitmentOf hashed only game, params, seed and salt, and called such a deal dishonest."""
    assert NODE is not None
    done = run(
        [NODE, str(EXAMPLES / "foundry" / "skillcheck-macro.js")],
        {"SKILLCHECK_URL": server, "SKILLCHECK_GM_KEY": GM_KEY, "FOUNDRY_ORIGIN": FOUNDRY_ORIGIN,
         "SKILLCHECK_SEED": "1234"},
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    result = result_line(done.stdout)
    assert result["seed_chosen"] is True and result["commitment_ok"] is True, result
    assert "the deal matches the commitment" in done.stdout and "(seed 1234)" in done.stdout


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
# The extension's browser side runs in Chromium in tests/browser/test_owlbear_extension.py; here its
# logic (examples/owlbear/skillcheck.js: no DOM, no SDK) runs under Node against the real server.

OWLBEAR = EXAMPLES / "owlbear"


def test_owlbear_manifest_has_what_owlbear_rodeo_requires() -> None:
    manifest = json.loads((OWLBEAR / "manifest.json").read_text(encoding="utf-8"))
    assert isinstance(manifest["name"], str) and 0 < len(manifest["name"]) <= 45
    assert isinstance(manifest["version"], str) and manifest["version"]
    assert manifest["manifest_version"] == 1
    assert manifest["author"]
    # homepage_url is optional: the extension has no public home of its own to link to (each GM
    # hosts it), and a link to a page that does not exist is worse than none.
    assert "homepage_url" not in manifest
    assert isinstance(manifest["description"], str) and len(manifest["description"]) <= 128
    action = manifest["action"]
    assert {"title", "icon", "popover", "height", "width"} <= action.keys()
    for path in (manifest["icon"], action["icon"], action["popover"], manifest["background_url"]):
        assert path.startswith("/") and (OWLBEAR / path.lstrip("/")).is_file(), path
    # Both pages load their script, which imports the SDK vendored next to them (no build step).
    for page, script in (
        (action["popover"], "popover.js"),
        (manifest["background_url"], "background.js"),
    ):
        html = (OWLBEAR / page.lstrip("/")).read_text(encoding="utf-8")
        assert f'<script type="module" src="./{script}"></script>' in html
        code = (OWLBEAR / script).read_text(encoding="utf-8")
        assert 'import OBR from "./vendor/owlbear-rodeo-sdk.js";' in code
    # The bundle, pinned to SDK 3.1.0, with the script that makes it and the licences inside it.
    vendor = OWLBEAR / "vendor"
    assert (
        (vendor / "owlbear-rodeo-sdk.js")
        .read_text(encoding="utf-8")
        .startswith("/* @owlbear-rodeo/sdk 3.1.0 (MIT")
    )
    assert "SDK_VERSION=3.1.0" in (vendor / "build.sh").read_text(encoding="utf-8")
    assert "Copyright (c) Owlbear Rodeo" in (vendor / "LICENSE").read_text(encoding="utf-8")
    bundled = (vendor / "THIRD-PARTY-LICENSES").read_text(encoding="utf-8")
    assert all(f"==== {dep} " in bundled for dep in ("events", "immer", "js-base64", "uuid"))


OWLBEAR_DRIVER = r"""
const [modulePath, api, gmKey, origin] = process.argv.slice(1);
const sc = await import(modulePath);
const out = {};

// The extension's fetch as a browser on the extension's origin makes it.
const allowOrigin = [];
const browserFetch = async (url, init = {}) => {
  const response = await fetch(url, { ...init, headers: { ...init.headers, Origin: origin } });
  allowOrigin.push(response.headers.get("access-control-allow-origin"));
  return response;
};
const server = sc.serverUrl(api + "/");
const gm = new sc.Api(server, gmKey, browserFetch);

// The form: the game's parameters from its schema, started at its first example.
const detail = await gm.game("three-towers");
const start = Object.entries(sc.startValues(detail));
const raw = Object.fromEntries(start.map(([k, v]) => [k, v ?? ""]));
raw.level = "6"; raw.skill = "3"; raw.quota = "3";
const read = sc.readParams(detail.parameters, raw);
out.params = read.params;
out.badNumber = sc.readParams(detail.parameters, { ...raw, level: "six" });
// back to the standard game with the quota check's options still filled in (applies_if)
out.standard = sc.readParams(detail.parameters, { ...raw, variant: "standard" }).params;
out.missing = sc.readParams(detail.parameters, { ...raw, level: "" });

// Which player a token belongs to.
const players = [
  { id: "gm-1", name: "Gwen", role: "GM", connectionId: "c-gm", metadata: {} },
  { id: "player-mira", name: "Mira", role: "PLAYER", connectionId: "c-mira", metadata: {} },
  { id: "player-bo", name: "Bo", role: "PLAYER", connectionId: "c-bo", metadata: {} },
];
const token = { id: "t1", name: "Mira", createdUserId: "gm-1", text: { plainText: "" } };
out.guessByName = sc.playerForToken(token, players)?.id;
const wolf = { ...token, name: "Wolf", createdUserId: "player-bo" };
out.guessByOwner = sc.playerForToken(wolf, players)?.id;
out.guessRemembered = sc.playerForToken(token, players, { t1: "player-bo" })?.id;
out.tokenLabel = sc.tokenName({ name: "Token 3", text: { plainText: " Sir Bo " } });

// Create the check as the popover does.
const created = await gm.create(sc.checkBody({
  game: "three-towers", params: read.params, label: "Pick the lock", character: "Mira",
  metadata: { owlbear_room: "room-1", owlbear_token: "t1" },
}));
out.checkId = created.check_id;
const playerUrl = sc.playUrl(server, created.check_id, created.view.game, created.player_token);
out.playerUrl = playerUrl;

// The link sealed for Mira: only Mira's key opens it.
const mira = await sc.makeKeyPair();
const bo = await sc.makeKeyPair();
players[1].metadata[sc.PLAYER_KEY] = { id: mira.id, jwk: mira.publicJwk };
players[2].metadata[sc.PLAYER_KEY] = { id: bo.id, jwk: bo.publicJwk };
const message = await sc.linkMessage(players[1], {
  checkId: created.check_id, url: playerUrl, label: "Pick the lock", character: "Mira",
});
out.message = message;
out.miraOpens = await sc.openLink(message, "player-mira", mira);
out.boOpens = await sc.openLink({ ...message, to: "player-bo", key: bo.id }, "player-bo", bo);
const ct = message.sealed.ct;
const flipped = (ct.startsWith("A") ? "B" : "A") + ct.slice(1);
const altered = { ...message, sealed: { ...message.sealed, ct: flipped } };
out.tampered = await sc.openLink(altered, "player-mira", mira);
const forged = await sc.linkMessage(players[1], {
  checkId: "x", url: "https://evil.example/login", label: "", character: "",
});
out.forged = await sc.openLink(forged, "player-mira", mira);
out.noKey = await sc.linkMessage({ ...players[2], metadata: {} }, { checkId: "x", url: playerUrl });

// Results: one check ends before the GM's follower starts (caught up from the list), one while
// it follows (from the stream).
const concede = (id, playerToken) => fetch(`${server}/v1/checks/${id}/concede`, {
  method: "POST", headers: { Authorization: `Bearer ${playerToken}` },
});
await concede(created.check_id, created.player_token);
const second = await gm.create(sc.checkBody({
  game: "three-towers", params: read.params, label: "Swim", character: "Bo",
}));
const ended = [];
let live;
const isLive = new Promise((resolve) => { live = resolve; });
const follower = new sc.ResultFollower(gm, {
  onEnd: (summary) => ended.push(sc.resultOf(summary)),
  onMode: (mode) => { if (mode === "live") live(); },
});
follower.run();
await isLive;
const deadline = Date.now() + 10000;
const until = async (id) => {
  while (!ended.some((r) => r.check_id === id) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};
await until(created.check_id);
await concede(second.check_id, second.player_token);
await until(second.check_id);
follower.stop();
out.ended = ended;
out.secondId = second.check_id;
out.text = sc.resultText(ended.find((r) => r.check_id === second.check_id));
const refused = [];
await new sc.ResultFollower(new sc.Api(server, "not-a-key", browserFetch), {
  onEnd: () => {}, onMode: (mode) => refused.push(mode),
}).run();
out.refusedModes = refused;

// The room's list stays small however many checks there are.
let list = [];
for (let i = 0; i < 40; i++) {
  const entry = sc.roomEntry({
    check_id: `c${i}`, label: "x".repeat(200), character: "y".repeat(200),
    watch: sc.playUrl(server, `c${i}`, "three-towers", "sc_view_" + "z".repeat(43)),
    created_at: new Date(1e12 + i * 1000).toISOString(),
  });
  list = sc.mergeRoomList(list, [entry]);
}
out.listLength = list.length;
out.listBytes = sc.jsonBytes(list);
out.listNewest = list[0].check_id;
const ending = sc.roomEntry({ check_id: "c39", created_at: list[0].at }, ended[0]);
out.updated = sc.mergeRoomList(list, [ending])[0];

// The server's address.
out.addresses = [
  "https://checks.example.org/", "http://127.0.0.1:8000", "http://checks.example.org",
  "https://checks.example.org/?a=1", "not a url",
].map((text) => {
  try { return sc.serverUrl(text); } catch (error) { return "refused"; }
});
out.allowOrigin = [...new Set(allowOrigin)];
console.log(JSON.stringify(out));
"""


@needs_node
def test_owlbear_extension_logic_under_node(own_server: str) -> None:
    """The popover's form, the sealed player link, the GM's result follower and the room's
    list, run under Node 20 against the real server as a browser on the extension's origin."""
    assert NODE is not None
    server = own_server
    done = run(
        [NODE, "--input-type=module", "-e", OWLBEAR_DRIVER,
         (OWLBEAR / "skillcheck.js").as_uri(), server, GM_KEY, EXTENSION_ORIGIN],
        {},
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    # CORS let the extension's origin read every answer.
    assert out["allowOrigin"] == [EXTENSION_ORIGIN]
    # The form: nested params as the schema says, refusals in words naming the field.
    assert out["params"]["level"] == 6 and out["params"]["variant"] == {
        "kind": "quota", "suit": "moons", "skill": 3, "quota": 3,
    }  # fmt: skip
    assert out["badNumber"] == {"error": "Level must be a whole number.", "field": "level"}
    assert out["standard"]["variant"] == {"kind": "standard"}  # another variant's options left out
    assert out["missing"] == {"error": "Level is needed.", "field": "level"}
    assert (out["guessByName"], out["guessByOwner"], out["guessRemembered"]) == (
        "player-mira", "player-bo", "player-bo",
    )  # fmt: skip
    assert out["tokenLabel"] == "Sir Bo"
    # The check the popover made is on the server, for the character.
    check_id = out["checkId"]
    view = httpx.get(f"{server}/v1/checks/{check_id}", headers=bearer(GM_KEY)).json()
    assert view["character"] == "Mira" and view["label"] == "Pick the lock"
    assert view["metadata"] == {"owlbear_room": "room-1", "owlbear_token": "t1"}
    # The link travels sealed: neither the token nor the URL is readable in the broadcast.
    message = out["message"]
    assert message["to"] == "player-mira" and "sc_play_" not in json.dumps(message)
    assert out["miraOpens"]["url"] == out["playerUrl"] and out["miraOpens"]["check_id"] == check_id
    assert out["boOpens"] is None and out["tampered"] is None and out["forged"] is None
    assert out["noKey"] is None
    # Both ends reached the follower, once each; the GM key was refused without retrying.
    results = {r["check_id"]: r for r in out["ended"]}
    assert set(results) == {check_id, out["secondId"]} and len(out["ended"]) == 2
    first = results[check_id]
    assert first["status"] == "lost" and first["character"] == "Mira"
    assert first["result"] == first["tier_text"] and first["tier"] in (
        "failure",
        "critical_failure",
    )
    assert out["text"] == f"Bo — Swim: {results[out['secondId']]['result']}"
    assert out["refusedModes"] == ["stopped"]
    # The room's list: at most 12 checks and 4 kB of the room's 16 kB, newest first.
    assert out["listLength"] <= 12 and out["listBytes"] <= 4096 and out["listNewest"] == "c39"
    assert out["updated"]["check_id"] == "c39" and out["updated"]["status"] == "lost"
    assert out["addresses"] == [
        "https://checks.example.org", "http://127.0.0.1:8000", "refused", "refused", "refused",
    ]  # fmt: skip
