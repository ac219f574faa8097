"""`skillcheck serve` as a new user runs it: no configuration, SQLite, a GM key made for them;
and several worker processes on the real PostgreSQL and Redis."""

from __future__ import annotations

import os
import re
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from api_support import GAME, PARAMS, bearer
from click.testing import CliRunner
from live_server import free_port, redis_unreachable_reason

from skillcheck.cli import _missing_extra

#: The demo's player link: the check, the game as a hint, the token in the fragment.
LINK = re.compile(r"(http://\S+/play/([^?\s]+)\?game=[\w-]+#token=(sc_play_\S+))")


@contextmanager
def serving(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> Iterator[Path]:
    """``skillcheck serve ARGS`` in ``cwd``; yields the file its output goes to."""
    out = cwd / "serve.out"
    clean = {k: v for k, v in os.environ.items() if not k.startswith("SKILLCHECK_")}
    with out.open("wb") as sink:
        process = subprocess.Popen(
            [sys.executable, "-m", "skillcheck.cli", "serve", *args],
            cwd=cwd,
            env={**clean, "COLUMNS": "200", **(env or {})},
            stdout=sink,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            yield out
        finally:
            os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


def _wait_for_text(path: Path, pattern: re.Pattern[str], seconds: float = 60) -> re.Match[str]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = pattern.search(path.read_text(errors="replace"))
        if found:
            return found
        time.sleep(0.2)
    raise AssertionError(f"{pattern.pattern!r} not printed; output:\n{path.read_text()}")


def test_serve_works_on_a_fresh_directory_with_no_configuration(tmp_path: Path) -> None:
    port = free_port()
    with serving(["--port", str(port), "--demo"], tmp_path) as out:
        link = _wait_for_text(out, LINK)
        check_id, token = link.group(2), link.group(3)
        view = httpx.get(f"http://127.0.0.1:{port}/v1/checks/{check_id}", headers=bearer(token))
        assert view.status_code == 200
        assert view.json()["status"] == "in_progress"
        # the page reads "<game> check for <label>": not "... for Demo: Three Towers, level 9"
        assert view.json()["label"] == "the demo"
    key_file = tmp_path / "skillcheck-gm-key.txt"
    assert (tmp_path / "skillcheck.sqlite3").exists()
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    key = key_file.read_text().strip()
    # start-up output lands in container logs: only the key's prefix, and where it is kept
    printed = out.read_text()
    assert key not in printed
    assert f"{key[:8]}…" in printed and str(key_file) in printed
    port = free_port()
    with serving(["--port", str(port)], tmp_path) as out:  # the same key next time
        _wait_for_text(out, re.compile("Application startup complete"))
        created = httpx.post(
            f"http://127.0.0.1:{port}/v1/checks",
            json={"game": GAME, "params": PARAMS},
            headers=bearer(key),
        )
        assert created.status_code == 201
        # the demo check of the first run survived the restart
        again = httpx.get(f"http://127.0.0.1:{port}/v1/checks/{check_id}", headers=bearer(token))
        assert again.status_code == 200


def test_serve_without_the_api_extra_says_what_to_install() -> None:
    command = _missing_extra("serve", "api.cli:serve", ImportError("no litestar", name="litestar"))
    result = CliRunner().invoke(command, ["--port", "1"])
    assert result.exit_code == 1
    assert "pip install 'skillcheck[api]'" in result.output and "litestar" in result.output


@pytest.mark.slow  # several server processes
def test_several_workers_on_postgresql_and_redis_serve_one_consistent_check(
    tmp_path: Path, pg_url: str
) -> None:
    reason = redis_unreachable_reason()
    if reason is not None:
        pytest.skip(reason)
    port = free_port()
    args = ["--port", str(port), "--workers", "2", "--gm-key", "gm-w"]
    args += ["--database-url", pg_url, "--redis-url", "redis://127.0.0.1:6379/0"]
    env = {"SKILLCHECK_RATE_LIMIT": "off"}
    base = f"http://127.0.0.1:{port}"
    with serving(args, tmp_path, env) as out:
        _wait_for_text(out, re.compile(r"Application startup complete[\s\S]*startup complete"))
        checks: list[dict[str, Any]] = []
        for _ in range(6):  # new connections spread over the workers
            with httpx.Client() as client:
                made = client.post(
                    f"{base}/v1/checks",
                    json={"game": GAME, "params": PARAMS, "seed": 5},
                    headers=bearer("gm-w"),
                )
                assert made.status_code == 201, made.text
                checks.append(made.json())
        versions = []
        for check in checks:  # each move on a fresh connection, whichever worker takes it
            for version in range(3):
                with httpx.Client() as client:
                    url = f"{base}/v1/checks/{check['check_id']}"
                    view = client.get(url, headers=bearer(check["player_token"])).json()
                    moved = client.post(
                        f"{url}/moves",
                        json={"move": view["legal_moves"][0], "expected_version": version},
                        headers=bearer(check["player_token"]),
                    )
                    assert moved.status_code == 200, moved.text
                    versions.append(moved.json()["version"])
        assert versions == [1, 2, 3] * len(checks)
        text = out.read_text()
        pids = set(re.findall(r"Started server process \[(\d+)\]", text))
        assert len(pids) == 2, text
