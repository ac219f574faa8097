"""What the browser tests share besides fixtures: the GM key, the check parameters and a check
created over HTTP (a module of its own so that tests import it by a name no other directory
uses; ``conftest`` is a name every test directory has)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import httpx

GM_KEY = "gm-browser-test-key"
PARAMS: dict[str, Any] = {
    "level": 6,
    "variant": {"kind": "quota", "suit": "moons", "skill": 3, "quota": 3},
}


@dataclass
class Check:
    """A check created over HTTP, with helpers to act as its player or read it."""

    http: httpx.Client
    check_id: str
    player: str
    spectator: str
    commitment: str

    def auth(self, token: str | None = None) -> dict[str, str]:
        return {"Authorization": f"Bearer {token or self.player}"}

    def view(self) -> dict[str, Any]:
        got = self.http.get(f"/v1/checks/{self.check_id}", headers=self.auth())
        assert got.status_code == 200, got.text
        data: dict[str, Any] = got.json()
        return data

    def move(self, code: str) -> dict[str, Any]:
        moved = self.http.post(
            f"/v1/checks/{self.check_id}/moves", json={"move": code}, headers=self.auth()
        )
        assert moved.status_code == 200, moved.text
        data: dict[str, Any] = moved.json()
        return data

    def record(self) -> dict[str, Any]:
        got = self.http.get(f"/v1/checks/{self.check_id}/record", headers=self.auth())
        assert got.status_code == 200, got.text
        data: dict[str, Any] = got.json()
        return data

    def url(self, server: str, token: str | None = None) -> str:
        return f"{server}/play/{self.check_id}#token={token or self.player}"
