"""The Foundry VTT module (examples/foundry/skillcheck/) against a real skillcheck server.

- ``node --test`` runs the module's own tests (examples/foundry/tests/): its Foundry-free parts
  directly, and its Foundry-facing code in worker threads over a stand-in for the Foundry
  globals, against the server started here: a check created through the module, played to a
  win through the HTTP API with the solver's line, its chat card posted exactly once, after a
  reload too, and when the GM was offline when it ended (the catch-up).
- The package script builds the installable zip and manifest; every file the manifest lists
  is in the zip [F11], with module.json at its root.
- The test harness page runs the same scripts in Debian's Chromium (dialog, chat cards, the
  player's window framing the real player's page) and saves the docs' screenshots
  (docs/images/vtt/foundry-*.png, written there with SKILLCHECK_DOC_IMAGES=1).

Node is required: without it these tests fail (CI installs it); they are never skipped.
"""

from __future__ import annotations

import functools
import io
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import zipfile
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "api"))

from api_support import PARAMS, winning_seed  # noqa: E402 (tests/api is not a package)
from live_server import api_server, free_port  # noqa: E402

FOUNDRY = ROOT / "examples" / "foundry"
MODULE = FOUNDRY / "skillcheck"
IMAGES = ROOT / "docs" / "images" / "vtt"
GM_KEY = "gm-foundry-module-key"
FOUNDRY_ORIGIN = "https://foundry.example.test"


def node() -> str:
    found = shutil.which("node")
    if found is None:
        pytest.fail("Node.js (node) is needed for the Foundry module's tests; CI installs it")
    return found


@pytest.fixture(scope="module")
def harness_port() -> int:
    port: int = free_port()
    return port


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, harness_port: int) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("foundry-module")
    harness = f"http://localhost:{harness_port}"
    env = {
        "SKILLCHECK_DATABASE_URL": f"sqlite:///{folder / 'checks.sqlite3'}",
        "SKILLCHECK_GM_KEYS": GM_KEY,
        "SKILLCHECK_CORS_ORIGINS": f"{FOUNDRY_ORIGIN},{harness}",
        "SKILLCHECK_FRAME_ANCESTORS": f"{FOUNDRY_ORIGIN},{harness}",
        "SKILLCHECK_RATE_LIMIT": "off",
    }
    with api_server(env, log=folder / "server.log") as base:
        yield base


# ---- the module's own tests under Node -------------------------------------------------------


@pytest.mark.slow
def test_module_under_node_against_the_server(server: str, tmp_path: Path) -> None:
    seed, line = winning_seed(PARAMS)
    tests = sorted(str(p) for p in (FOUNDRY / "tests").glob("*.test.mjs"))
    assert {Path(p).name for p in tests} >= {"pure.test.mjs", "live.test.mjs"}
    clean = {k: v for k, v in os.environ.items() if not k.startswith("SKILLCHECK_")}
    done = subprocess.run(
        [node(), "--test", "--test-reporter=tap", *tests],
        env={
            **clean,
            "SKILLCHECK_URL": server,
            "SKILLCHECK_GM_KEY": GM_KEY,
            "FOUNDRY_ORIGIN": FOUNDRY_ORIGIN,
            "SKILLCHECK_SEED": str(seed),
            "SKILLCHECK_LINE": ",".join(line),
        },
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    (tmp_path / "node-test.log").write_text(done.stdout + done.stderr, encoding="utf-8")
    summary = dict(
        re.findall(r"^# (tests|pass|fail|skipped|todo|cancelled) (\d+)$", done.stdout, re.M)
    )
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-3000:]
    assert summary["fail"] == "0" and summary["skipped"] == "0" and summary["todo"] == "0", summary
    assert int(summary["pass"]) >= 16, summary
    # What the server kept: the won check's card came from the module, with the tier in words.
    checks = httpx.get(
        f"{server}/v1/checks?status=won", headers={"Authorization": f"Bearer {GM_KEY}"}
    )
    labels = {c["label"] for c in checks.json()["checks"]}
    assert "Picks the lock" in labels


# ---- packaging ----------------------------------------------------------------------------------


def build(out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(FOUNDRY / "package.py"), "--out", str(out), *extra],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )  # fmt: skip


def test_package_builds_an_installable_zip(tmp_path: Path) -> None:
    base = "https://files.example.org/foundry/skillcheck"
    done = build(tmp_path / "a", "--base-url", base)
    assert done.returncode == 0, done.stderr
    archive = tmp_path / "a" / "skillcheck-foundry.zip"
    manifest = json.loads((tmp_path / "a" / "module.json").read_text(encoding="utf-8"))
    assert manifest["manifest"] == f"{base}/module.json"
    assert manifest["download"] == f"{base}/skillcheck-foundry.zip"
    assert manifest["id"] == "skillcheck" and manifest["socket"] is True
    assert manifest["compatibility"] == {"minimum": "12", "verified": "13"}
    for key in ("title", "version", "authors", "esmodules", "styles", "languages"):
        assert manifest[key], key
    # no made-up project page: the module list links to one only when the packager names it
    assert "url" not in manifest and "bugs" not in manifest
    for legacy in ("name", "minimumCoreVersion", "compatibleCoreVersion", "dependencies"):
        assert legacy not in manifest, legacy  # migrated keys [F4]
    with zipfile.ZipFile(archive) as zf:
        names = zf.namelist()
        assert names == sorted(names)
        assert "module.json" in names  # at the archive's root [F8]
        assert json.loads(zf.read("module.json")) == manifest
        listed = (
            manifest["esmodules"]
            + manifest["styles"]
            + [lang["path"] for lang in manifest["languages"]]
        )
        missing = [p for p in listed if p not in names]
        assert not missing, f"files the manifest lists but the zip lacks [F11]: {missing}"
        # Every module a script imports is in the zip too (a missing one breaks at load time).
        for name in names:
            if name.endswith(".mjs"):
                text = zf.read(name).decode("utf-8")
                for target in re.findall(r'from "(\./[^"]+)"', text):
                    resolved = (Path(name).parent / target).as_posix().replace("/./", "/")
                    assert resolved in names, (name, target)
        assert all(info.date_time == (2024, 1, 1, 0, 0, 0) for info in zf.infolist())
        shipped = {n for n in names if n != "module.json"}
        on_disk = {p.relative_to(MODULE).as_posix() for p in MODULE.rglob("*") if p.is_file()}
        assert shipped == on_disk - {"module.json"}
    # The same sources give the same bytes. Without --base-url there is no address to write
    # into the manifest: the script says so, and where the server serves the module itself.
    again = build(tmp_path / "b", "--base-url", base)
    assert again.returncode == 0, again.stderr
    assert (tmp_path / "b" / "skillcheck-foundry.zip").read_bytes() == archive.read_bytes()
    default = build(tmp_path / "c")
    assert default.returncode == 2 and "--base-url" in default.stderr, default.stderr
    assert not (tmp_path / "c").exists()


def test_the_server_serves_the_module_foundry_installs(server: str, tmp_path: Path) -> None:
    """GET /foundry/module.json is a manifest URL a GM pastes into Foundry: its manifest and
    download are on this server, and the zip it names is the one package.py builds for that
    address, byte for byte."""
    manifest_url = f"{server}/foundry/module.json"
    got = httpx.get(manifest_url)
    assert got.status_code == 200, got.text
    assert got.headers["content-type"].startswith("application/json")
    manifest = got.json()
    assert manifest["manifest"] == manifest_url
    assert manifest["download"] == f"{server}/foundry/skillcheck-foundry.zip"
    assert manifest["id"] == "skillcheck"
    download = httpx.get(manifest["download"])
    assert download.status_code == 200
    assert download.headers["content-type"] == "application/zip"
    with zipfile.ZipFile(io.BytesIO(download.content)) as zf:
        assert json.loads(zf.read("module.json")) == manifest
        assert set(manifest["esmodules"]) <= set(zf.namelist())
    assert manifest["url"] == f"{server}/gm"  # the project page: this server's GM page
    built = build(
        tmp_path / "d", "--base-url", f"{server}/foundry", "--project-url", f"{server}/gm"
    )
    assert built.returncode == 0, built.stderr
    assert (tmp_path / "d" / "skillcheck-foundry.zip").read_bytes() == download.content
    # Nothing else is served from that folder.
    assert httpx.get(f"{server}/foundry/scripts/main.mjs").status_code == 404


@pytest.mark.slow
def test_the_wheel_carries_the_module_for_an_installed_server(tmp_path: Path) -> None:
    """``pip install .`` (the README's) is not editable: the wheel must hold the module's files
    (setup.py copies them to api/foundry_module/), or the installed server would have nothing to
    serve at /foundry/module.json."""
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(ROOT)],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert built.returncode == 0, built.stderr[-3000:]
    (wheel,) = tmp_path.glob("skillcheck-*.whl")
    with zipfile.ZipFile(wheel) as zf:
        shipped = {n.removeprefix("api/foundry_module/") for n in zf.namelist()}
    on_disk = {p.relative_to(MODULE).as_posix() for p in MODULE.rglob("*") if p.is_file()}
    assert on_disk <= shipped, on_disk - shipped


def test_package_refuses_a_manifest_naming_a_missing_file(tmp_path: Path) -> None:
    source = tmp_path / "skillcheck"
    shutil.copytree(MODULE, source)
    manifest = json.loads((source / "module.json").read_text(encoding="utf-8"))
    manifest["styles"].append("styles/missing.css")
    (source / "module.json").write_text(json.dumps(manifest), encoding="utf-8")
    done = build(tmp_path / "out", "--source", str(source), "--base-url", "https://x.example/m")
    assert done.returncode != 0
    assert "styles/missing.css" in done.stderr
    assert not (tmp_path / "out" / "skillcheck-foundry.zip").exists()


def test_every_script_parses_as_a_module() -> None:
    for script in sorted(MODULE.glob("scripts/*.mjs")):
        done = subprocess.run([node(), "--check", str(script)], capture_output=True, text=True)
        assert done.returncode == 0, (script.name, done.stderr)


# ---- the harness in Chromium: the docs' screenshots --------------------------------------------


class _Quiet(SimpleHTTPRequestHandler):
    extensions_map = {  # noqa: RUF012 (the base class declares it an instance variable)
        **SimpleHTTPRequestHandler.extensions_map,
        ".mjs": "text/javascript",
        ".js": "text/javascript",
    }

    def log_message(self, format: str, *args: Any) -> None:
        return


@pytest.fixture(scope="module")
def harness(harness_port: int) -> Iterator[int]:
    handler = functools.partial(_Quiet, directory=str(FOUNDRY))
    httpd = ThreadingHTTPServer(("127.0.0.1", harness_port), handler)
    thread = threading.Thread(target=httpd.serve_forever, name="foundry-harness", daemon=True)
    thread.start()
    try:
        yield harness_port
    finally:
        httpd.shutdown()
        httpd.server_close()


def _open_table(context: Any, harness: int, server: str, errors: list[str]) -> Any:
    """The harness's table (the GM's and Mira's Foundry side by side) in a new page of
    ``context``, every uncaught error and console error of it added to ``errors``."""
    context.set_default_timeout(10000)
    page = context.new_page()
    page.on("pageerror", lambda error: errors.append(f"page error: {error}"))
    page.on(
        "console",
        lambda m: errors.append(f"{m.text} @ {m.location}") if m.type == "error" else None,
    )
    page.goto(f"http://localhost:{harness}/harness/table.html?api={server}&users=gm,mira")
    return page


def _frame(page: Any, user: str) -> Any:
    """The client iframe of ``user`` once the module has loaded in it."""
    page.wait_for_function(
        f"() => document.getElementById('client-{user}')?.contentWindow?.harness?.ready === true"
    )
    frame = page.frame_locator(f"#client-{user}")
    return frame, next(f for f in page.frames if f.url.endswith(f"client.html?user={user}"))


def _player_token(frame: Any, check_id: str) -> str:
    src = frame.locator(f"#skillcheck-play-{check_id} iframe.skillcheck-frame").get_attribute("src")
    assert src and "#token=sc_play_" in src, src
    return str(src).split("#token=")[1]


@pytest.mark.slow
def test_harness_in_chromium_and_the_docs_screenshots(
    server: str, harness: int, tmp_path: Path, browser: Any
) -> None:
    seed, line = winning_seed(PARAMS)
    gm_auth = {"Authorization": f"Bearer {GM_KEY}"}
    # The pictures go to a temporary folder; SKILLCHECK_DOC_IMAGES=1 writes them over the docs'
    # (docs/vtt-foundry.md says so), so a test run leaves the working tree alone.
    shots = IMAGES if os.environ.get("SKILLCHECK_DOC_IMAGES") == "1" else tmp_path
    shots.mkdir(parents=True, exist_ok=True)
    errors: list[str] = []
    context = browser.new_context(viewport={"width": 2120, "height": 880})
    try:
        page = _open_table(context, harness, server, errors)
        gm, gm_page = _frame(page, "gm")
        mira, _ = _frame(page, "mira")
        # Without a key the GM is told where to enter it.
        warned = gm.locator(".notification.warn", has_text="Enter the GM key")
        warned.wait_for()
        warned.wait_for(state="detached")  # notifications fade, as Foundry's do

        # 1. The GM key, in the GM's browser only.
        gm_page.evaluate("harness.api().openKeyForm()")
        gm.locator("#skillcheck-key").fill(GM_KEY)
        page.locator("#client-gm").screenshot(path=str(shots / "foundry-gm-key.png"))
        gm.locator("#skillcheck-gm-key button[data-action=test]").click()
        status = gm.locator("#skillcheck-gm-key .skillcheck-key-status")
        status.filter(has_text="Connected: the server accepted the GM key").wait_for()
        gm.locator("#skillcheck-gm-key button[type=submit]").click()
        gm.locator(".notification", has_text="The GM key is saved in this browser").last.wait_for()
        gm.locator("#skillcheck-gm-key").wait_for(state="detached")
        gm_page.wait_for_function("harness.api().watcher.running === true")

        # 2. The check dialog from Mira's actor: her Sleight of Hand fills in the skill.
        gm_page.evaluate(
            "() => { window.started = harness.api().openCheckDialog(harness.actor('mira-actor')); }"
        )
        dialog = gm.locator(".skillcheck-dialog")
        dialog.wait_for()
        assert dialog.locator("select[name=game] option").count() >= 3
        assert dialog.locator("select[name=player]").input_value() == "mira"
        dialog.locator("select[name=systemSkill]").select_option("slt")
        assert dialog.locator("[name='param.three-towers.skill']").input_value() == "3"
        assert dialog.locator("input[name=label]").input_value() == "Sleight of Hand"
        assert dialog.locator("input[name=character]").input_value() == "Mira"
        dialog.locator("input[name=label]").fill("Picks the lock")
        dialog.locator("[name='param.three-towers.level']").fill("6")
        dialog.locator("[name='param.three-towers.variant']").select_option("quota")
        dialog.locator("[name='param.three-towers.suit']").select_option("moons")
        dialog.locator("[name='param.three-towers.quota']").fill("5")
        # Other games' fields follow the game select.
        dialog.locator("select[name=game]").select_option("hanoy")
        assert dialog.locator("fieldset[data-game=three-towers]").is_hidden()
        assert dialog.locator("fieldset[data-game=hanoy]").is_visible()
        dialog.locator("select[name=game]").select_option("three-towers")
        gm.locator(".notification").first.wait_for(state="detached")  # they fade, as Foundry's do
        page.locator("#client-gm").screenshot(path=str(shots / "foundry-check-dialog.png"))
        # A quota above the skill: the server refuses, the dialog comes back with the reason.
        gm.locator(".skillcheck-dialog-window button[type=submit]").click()
        refused = gm.locator(".skillcheck-error")
        refused.wait_for()
        assert "quota" in refused.inner_text().lower(), refused.inner_text()
        assert gm.locator("[name='param.three-towers.quota']").input_value() == "5"  # values kept
        page.locator("#client-gm").screenshot(path=str(shots / "foundry-dialog-refused.png"))
        gm.locator("[name='param.three-towers.quota']").fill("3")
        gm.locator(".skillcheck-dialog-window button[type=submit]").click()
        first = gm_page.evaluate("window.started.then((r) => r.checkId)")
        view = httpx.get(f"{server}/v1/checks/{first}", headers=gm_auth).json()
        variant = view["params"]["variant"]
        assert (variant["kind"], variant["suit"], variant["skill"], variant["quota"]) == (
            "quota",
            "moons",
            3,
            3,
        )
        assert view["params"]["level"] == 6 and view["label"] == "Picks the lock"
        assert (
            view["character"] == "Mira"
            and view["metadata"]["foundry"]["world"] == "the-sunken-keep"
        )

        # 3. The player's window opens in Ana's Foundry, framing the real player's page.
        mira.locator(f"#skillcheck-play-{first}").wait_for()
        play = mira.frame_locator(f"#skillcheck-play-{first} iframe.skillcheck-frame")
        play.locator(".zone").first.wait_for()
        gm.locator(".skillcheck-invite").wait_for()
        page.locator("#client-gm").screenshot(path=str(shots / "foundry-chat-started.png"))
        page.locator("#client-mira").screenshot(path=str(shots / "foundry-player-window.png"))
        token = _player_token(mira, first)
        conceded = httpx.post(
            f"{server}/v1/checks/{first}/concede", headers={"Authorization": f"Bearer {token}"}
        )
        assert conceded.status_code == 200 and conceded.json()["status"] == "lost"

        # 4. A second check (the deal chosen, so the solver's line wins it), reopened from chat.
        second = gm_page.evaluate(
            "(s) => harness.api().startCheck({actor: harness.actor('mira-actor'),"
            " game: 'three-towers', params: s.params, label: 'Climbs the wall',"
            " playerId: 'mira', seed: s.seed})"
            ".then((r) => r.checkId)",
            {"params": PARAMS, "seed": seed},
        )
        mira.locator(f"#skillcheck-play-{second}").wait_for()
        mira.locator(f"#skillcheck-play-{second} .header-close").click()
        mira.locator(f"#skillcheck-play-{second}").wait_for(state="detached")
        mira.locator(
            f".skillcheck-invite[data-check-id='{second}'] button"
        ).click()  # from the whisper
        token = _player_token(mira, second)
        version = 0
        for move in line:
            moved = httpx.post(
                f"{server}/v1/checks/{second}/moves", json={"move": move},
                headers={"Authorization": f"Bearer {token}", "If-Match": f'"{version}"'},
            )  # fmt: skip
            assert moved.status_code == 200, moved.text
            version = moved.json()["version"]
        assert moved.json()["status"] == "won"
        won_frame = mira.frame_locator(f"#skillcheck-play-{second} iframe.skillcheck-frame")
        won_frame.locator("text=/won/i").first.wait_for()

        # 5. Both results reach both chats as cards, each once.
        gm.locator(f".skillcheck-result[data-check-id='{first}']").wait_for()
        gm.locator(f".skillcheck-result[data-check-id='{second}']").wait_for()
        mira.locator(f".skillcheck-result[data-check-id='{second}']").wait_for()
        gm.locator(".skillcheck-result").last.scroll_into_view_if_needed()
        gm.locator(".sidebar").screenshot(path=str(shots / "foundry-result-cards.png"))
        page.locator("#client-mira").screenshot(path=str(shots / "foundry-player-won.png"))
        counts = page.evaluate(
            "(ids) => ids.map((id) => table.server.messages.filter((m) =>"
            " m.flags?.skillcheck?.checkId === id && m.flags.skillcheck.kind === 'result').length)",
            [first, second],
        )
        assert counts == [1, 1]
        verdicts = gm.locator(".skillcheck-result .skillcheck-verdict").all_inner_texts()
        assert any("ailure" in v for v in verdicts) and any("uccess" in v for v in verdicts), (
            verdicts
        )
        # The whisper with the player's link is in Ana's and the GM's chat, never in the HTML.
        assert "sc_play_" not in gm.locator("#chat-log").inner_html()
        # Expected: the browser logs the refused creation (the quota above the skill, 422).
        # Nothing else: the player's page sets its dialog's focus itself (no `autofocus`, which
        # Chromium blocks and logs in a cross-origin frame [W5]).
        refusals = [e for e in errors if "status of 422" in e and "/v1/checks'" in e]
        unexpected = [e for e in errors if e not in refusals]
        assert len(refusals) == 1, errors
        assert not unexpected, "\n".join(unexpected)

        # 6. A Foundry whose address the server does not list: the GM is told what to set.
        other = context.new_page()
        other.goto(f"http://127.0.0.1:{harness}/harness/table.html?api={server}&users=gm")
        cors, cors_page = _frame(other, "gm")
        cors_page.evaluate(f"harness.api().saveKey({json.dumps(GM_KEY)})")
        note = cors.locator(".notification.error", has_text="SKILLCHECK_CORS_ORIGINS")
        note.first.wait_for()
        assert f"http://127.0.0.1:{harness}" in note.first.inner_text()
        other.locator("#client-gm").screenshot(path=str(shots / "foundry-error-cors.png"))
    finally:
        context.close()


#: Draws a token HUD in the client's page and renders it through the module's hook, as Foundry
#: does when a token is right-clicked: ``renderTokenHUD(hud, html)`` with ``hud.object`` the
#: token (its ``actor``), ``html`` a jQuery object in v12 and an HTMLElement in v13, the HUD's
#: buttons in columns ``col left`` / ``col middle`` / ``col right`` (Foundry's token-hud template;
#: other modules add buttons the same way, e.g. chrisjbrown/my-names-jeff
#: ``src/hooks/renderTokenHUD.ts`` reading ``html[0]`` in v12). Returns the module's buttons.
_TOKEN_HUD = """async ([jquery, actorId]) => {
  document.getElementById('token-hud')?.remove();
  const root = document.createElement('form');
  root.id = 'token-hud';
  root.innerHTML = '<div class="col left"></div><div class="col middle"></div>'
    + '<div class="col right"></div>';
  document.body.append(root);
  const hud = { object: { actor: harness.actor(actorId) } };
  const html = jquery ? Object.assign([root], { jquery: '3' }) : root;
  await Hooks.callAll('renderTokenHUD', hud, html);
  return root.querySelectorAll('.col.right [data-skillcheck]').length;
}"""

#: The token controls as Foundry asks modules for them (``getSceneControlButtons``): an array of
#: controls with tool arrays in v12, a record of controls with tool records in v13 [F25]; the
#: module's tool, pressed as Foundry presses a button tool (v12 ``onClick``, v13 ``onChange``).
_TOKEN_TOOL = """async ([v13]) => {
  const controls = v13 ? { tokens: { tools: { select: { name: 'select' } } } }
                       : [{ name: 'token', tools: [{ name: 'select' }] }];
  await Hooks.callAll('getSceneControlButtons', controls);
  const tool = v13 ? controls.tokens.tools.skillcheck
                   : controls[0].tools.find((t) => t.name === 'skillcheck');
  if (!tool) return null;
  (v13 ? tool.onChange : tool.onClick)();
  return tool.title;
}"""


@pytest.mark.slow
def test_the_token_hud_button_and_the_token_tool_open_the_check_dialog(
    server: str, harness: int, browser: Any
) -> None:
    """A GM opens the check dialog from a token's HUD (v12 and v13 hook shapes) or from the
    token controls; a player gets neither. The HUD's button opens it for the token's actor."""
    errors: list[str] = []
    context = browser.new_context(viewport={"width": 2120, "height": 880})
    try:
        page = _open_table(context, harness, server, errors)
        gm, gm_page = _frame(page, "gm")
        _, mira_page = _frame(page, "mira")
        gm_page.evaluate("harness.api().openKeyForm()")
        gm.locator("#skillcheck-key").fill(GM_KEY)
        gm.locator("#skillcheck-gm-key button[type=submit]").click()
        gm.locator("#skillcheck-gm-key").wait_for(state="detached")
        dialogs = gm.locator(".skillcheck-dialog-window")
        for jquery in (True, False):
            assert gm_page.evaluate(_TOKEN_HUD, [jquery, "mira-actor"]) == 1
            # rendered again (the HUD re-renders as tokens change): still one button
            assert gm_page.evaluate(_TOKEN_HUD, [jquery, "mira-actor"]) == 1
            gm.locator("#token-hud [data-skillcheck=open]").click()
            dialogs.wait_for()
            assert gm.locator(".skillcheck-dialog input[name=character]").input_value() == "Mira"
            dialogs.locator(".header-close").click()
            dialogs.wait_for(state="detached")
        for v13 in (False, True):
            assert gm_page.evaluate(_TOKEN_TOOL, [v13]) == "Skill check"
            dialogs.wait_for()
            dialogs.locator(".header-close").click()
            dialogs.wait_for(state="detached")
        # A player's HUD and controls get nothing of the module's.
        assert mira_page.evaluate(_TOKEN_HUD, [False, "mira-actor"]) == 0
        assert mira_page.evaluate(_TOKEN_TOOL, [True]) is None
    finally:
        context.close()
    assert not errors, errors
