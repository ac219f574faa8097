"""The Foundry module served by the server (api/foundry.py): the manifest's URLs follow the
server's public address, and a server without the module's files says what to do."""

from __future__ import annotations

import dataclasses
import io
import json
import zipfile
from pathlib import Path

from api_support import settings_for
from litestar.testing import TestClient

from api.app import create_app


def test_the_manifest_names_the_public_address_when_one_is_set(sqlite_url: str) -> None:
    settings = dataclasses.replace(settings_for(sqlite_url), public_url="https://checks.example")
    with TestClient(create_app(settings)) as client:
        manifest = client.get("/foundry/module.json").json()
        assert manifest["manifest"] == "https://checks.example/foundry/module.json"
        assert manifest["download"] == "https://checks.example/foundry/skillcheck-foundry.zip"
        # Foundry's module list links to this server's GM page; no bug tracker is made up
        assert manifest["url"] == "https://checks.example/gm"
        assert client.get("/gm").status_code == 200
        assert "bugs" not in manifest
        assert all(set(author) == {"name"} for author in manifest["authors"])
        archive = client.get("/foundry/skillcheck-foundry.zip")
        with zipfile.ZipFile(io.BytesIO(archive.content)) as zf:
            assert json.loads(zf.read("module.json")) == manifest


def test_a_server_without_the_module_says_where_to_point_it(
    sqlite_url: str, tmp_path: Path
) -> None:
    settings = dataclasses.replace(settings_for(sqlite_url), foundry_module=str(tmp_path / "none"))
    with TestClient(create_app(settings)) as client:
        for path in ("/foundry/module.json", "/foundry/skillcheck-foundry.zip"):
            got = client.get(path)
            assert got.status_code == 404
            assert got.headers["content-type"].startswith("application/problem+json")
            body = got.json()
            assert body["code"] == "foundry-module-unavailable"
            assert "SKILLCHECK_FOUNDRY_MODULE" in body["detail"]
