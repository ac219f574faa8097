"""The OpenAPI document types the answers: a TypeScript client generated from it compiles.

A live server (uvicorn on a temporary SQLite file) serves ``/schema/openapi.json``;
``openapi-typescript`` turns it into ``schema.d.ts``; ``tsc --noEmit --strict`` type-checks
``tests/api/typescript/client.ts``, which reads ``view.board.zones[0].id``,
``view.moves[0].from``, ``view.outcome`` and more from the types of ``paths`` alone. An endpoint
whose answer is not documented would be typed ``unknown`` and the client would not compile: the
second test proves it by blanking the answers' schemas. Then the compiled client runs against
the server, so the types are also what the server sends.

The npm packages are pinned in ``tests/api/typescript/package.json`` (and its lock file) and
installed with ``npm install --no-save`` into this test's own temporary folder; the test is
skipped only when npm itself is missing.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from live_server import api_server

from skillcheck.engine import GAMES

HERE = Path(__file__).resolve().parent / "typescript"
FILES = ("package.json", "package-lock.json", "tsconfig.json", "client.ts")
GM_KEY = "gm-typescript-key"
NPM = shutil.which("npm")

pytestmark = [
    pytest.mark.slow,  # npm installs the generator and tsc, then compiles
    pytest.mark.skipif(
        NPM is None,
        reason="npm is not installed (Debian: apt-get install npm; it comes with Node.js)",
    ),
]


def _run(command: list[str], cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The client and its pinned tools in a folder of their own (node_modules included)."""
    folder = tmp_path_factory.mktemp("typescript")
    for name in FILES:
        shutil.copy(HERE / name, folder / name)
    assert NPM is not None
    pinned = json.loads((HERE / "package.json").read_text())["devDependencies"]
    done = _run(
        [NPM, "install", "--no-save", "--no-audit", "--no-fund", "--loglevel=error", *pinned],
        folder,
    )
    assert done.returncode == 0, f"npm install failed:\n{done.stdout}\n{done.stderr}"
    for name, version in pinned.items():
        installed = json.loads((folder / "node_modules" / name / "package.json").read_text())
        assert installed["version"] == version, (name, installed["version"])
    return folder


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("server")
    env = {
        "SKILLCHECK_DATABASE_URL": f"sqlite:///{folder / 'api.sqlite3'}",
        "SKILLCHECK_GM_KEYS": GM_KEY,
        "SKILLCHECK_RATE_LIMIT": "off",
    }
    with api_server(env, log=folder / "server.log") as base:
        yield base


def _generate(project: Path, document: dict[str, Any]) -> subprocess.CompletedProcess[str]:
    (project / "openapi.json").write_text(json.dumps(document))
    tool = project / "node_modules" / ".bin" / "openapi-typescript"
    # a member with a default is optional in a request body (the answers list every member)
    command = [str(tool), "openapi.json", "--output", "schema.d.ts", "--default-non-nullable=false"]
    done = _run(command, project)
    assert done.returncode == 0, f"openapi-typescript failed:\n{done.stdout}\n{done.stderr}"
    return done


def _tsc(project: Path, *options: str) -> subprocess.CompletedProcess[str]:
    tsc = project / "node_modules" / ".bin" / "tsc"
    return _run([str(tsc), "-p", "tsconfig.json", "--strict", *options], project)


def test_a_client_generated_from_the_document_compiles_and_runs(project: Path, server: str) -> None:
    document = httpx.get(f"{server}/schema/openapi.json", timeout=30).json()
    _generate(project, document)
    checked = _tsc(project, "--noEmit")
    assert checked.returncode == 0, f"tsc --noEmit --strict:\n{checked.stdout}{checked.stderr}"
    built = _tsc(project)
    assert built.returncode == 0, built.stdout + built.stderr
    node = shutil.which("node")
    assert node is not None
    ran = _run([node, "out/client.js", server, GM_KEY], project, timeout=120)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    summary = json.loads(ran.stdout)
    assert summary["game"] == next(iter(GAMES))
    assert summary["zone"] and summary["moveFrom"] and summary["moveText"]
    assert summary["outcomeBefore"] is None
    assert (
        summary["status"] in ("won", "lost") and summary["outcome"]["status"] == summary["status"]
    )
    assert summary["eventKinds"][0] == "created" and summary["eventKinds"][-1] == "ended"
    assert summary["revealedSeed"] == 7 and summary["schemaType"] == "object"
    assert 0 <= summary["oddsRate"] <= 1
    assert summary["missingGame"] == "422 invalid-parameter game"


def test_the_client_does_not_compile_when_answers_are_undocumented(
    project: Path, server: str
) -> None:
    """Without response schemas (as before the bodies were typed) the same client fails."""
    document = httpx.get(f"{server}/schema/openapi.json", timeout=30).json()
    for operations in document["paths"].values():
        for operation in operations.values():
            for status, response in operation["responses"].items():
                for content in (response.get("content") or {}).values():
                    if status.startswith("2"):
                        content["schema"] = {}
    _generate(project, document)
    checked = _tsc(project, "--noEmit")
    assert checked.returncode != 0
    assert "client.ts" in checked.stdout and "unknown" in checked.stdout, checked.stdout
