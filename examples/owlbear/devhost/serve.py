"""A stand-in for Owlbear Rodeo, to run the extension on a developer's machine and in the tests.

NOT Owlbear Rodeo and not part of the extension (do not deploy this folder). It serves:

- on one origin (``HOST``), ``/host.html``: a minimal Owlbear-like room page that embeds the
  extension from its own origin, exactly as Owlbear Rodeo does (iframes with the ``obrref`` query
  parameter, the SDK's postMessage protocol; see host.js, which cites the SDK source for every
  message it answers), plus ``/room/...``: the room's shared state (players, room metadata,
  scene items, broadcasts), which Owlbear Rodeo's servers keep in the real thing;
- on another origin (``EXTENSION``), the extension's folder, with
  ``Access-Control-Allow-Origin: *`` as GitHub Pages and most static hosts send.

    python3 examples/owlbear/devhost/serve.py

prints a GM's and a player's room link (open them in two browser profiles: each is a device).
The skillcheck server needs ``SKILLCHECK_CORS_ORIGINS=<extension origin>`` and
``SKILLCHECK_FRAME_ANCESTORS=<host origin>,<extension origin>``.
"""

from __future__ import annotations

import argparse
import copy
import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

HERE = Path(__file__).resolve().parent
EXTENSION_DIR = HERE.parent
ROOM_ID = "devhost-room"


def _token(item_id: str, name: str, x: float, y: float, layer: str = "CHARACTER") -> dict[str, Any]:
    """A scene item with the fields of the SDK's ``Item``/``Image`` types (src/types/items)."""
    return {
        "id": item_id, "type": "IMAGE", "name": name, "visible": True, "locked": False,
        "createdUserId": "gm-1", "zIndex": 1, "lastModified": "2025-01-01T00:00:00.000Z",
        "lastModifiedUserId": "gm-1", "position": {"x": x, "y": y}, "rotation": 0,
        "scale": {"x": 1, "y": 1}, "metadata": {}, "layer": layer,
        "text": {"plainText": "", "type": "PLAIN", "richText": []},
    }  # fmt: skip


class Room:
    """One room's shared state, and the events each connection has not read yet."""

    def __init__(self) -> None:
        self.lock = threading.Condition()
        self.players: dict[
            str, dict[str, Any]
        ] = {}  # connection id -> Player (src/types/Player.ts)
        self.metadata: dict[str, Any] = {}
        self.items = [
            _token("token-mira", "Mira", 180, 200),
            _token("token-bo", "Bo", 360, 330),
            _token("chest", "Chest", 520, 180, layer="PROP"),
        ]
        self.events: list[dict[str, Any]] = []
        #: Everything the extension put in the room (room and player metadata, broadcasts), for
        #: the tests to check what other clients could read.
        self.log: list[dict[str, Any]] = []

    def _emit(self, to: list[str], kind: str, payload: Any) -> None:
        self.events.append(
            {"seq": len(self.events) + 1, "to": to, "kind": kind, "payload": payload}
        )
        self.lock.notify_all()

    def _party(self) -> None:
        for conn in self.players:
            others = [copy.deepcopy(p) for c, p in self.players.items() if c != conn]
            self._emit([conn], "party", others)

    def join(self, conn: str, player_id: str, name: str, role: str) -> dict[str, Any]:
        with self.lock:
            self.players[conn] = {
                "id": player_id, "connectionId": conn, "role": role, "selection": None,
                "name": name, "color": "#bb99ff" if role == "GM" else "#7ec8e3",
                "syncView": False, "metadata": {},
            }  # fmt: skip
            self._party()
            return self.state(conn)

    def state(self, conn: str) -> dict[str, Any]:
        return {
            "room": ROOM_ID,
            "me": copy.deepcopy(self.players[conn]),
            "party": [copy.deepcopy(p) for c, p in self.players.items() if c != conn],
            "metadata": copy.deepcopy(self.metadata),
            "items": copy.deepcopy(self.items),
            "seq": len(self.events),
        }

    def act(self, conn: str, op: str, data: dict[str, Any]) -> dict[str, Any]:
        with self.lock:
            me = self.players[conn]
            if op == "player-metadata":
                self.log.append({"kind": "player-metadata", "from": conn, "data": data["update"]})
                me["metadata"] = {**me["metadata"], **data["update"]}
                self._emit([conn], "player", copy.deepcopy(me))
                self._party()
            elif op == "selection":
                me["selection"] = data["selection"] or None
                self._emit([conn], "player", copy.deepcopy(me))
                self._party()
            elif op == "room-metadata":
                self.log.append({"kind": "room-metadata", "from": conn, "data": data["update"]})
                self.metadata = {**self.metadata, **data["update"]}
                self._emit(list(self.players), "room-metadata", copy.deepcopy(self.metadata))
            elif op == "broadcast":
                destination = (data.get("options") or {}).get("destination", "REMOTE")
                self.log.append(
                    {"kind": "broadcast", "from": conn, "data": data, "destination": destination}
                )
                to = {
                    "REMOTE": [c for c in self.players if c != conn],
                    "LOCAL": [conn],
                    "ALL": list(self.players),
                }[destination]
                message = {"channel": data["channel"], "data": data["data"], "connectionId": conn}
                self._emit(to, "broadcast", message)
            else:
                raise ValueError(f"unknown room operation {op!r}")
            return {"ok": True}

    def poll(self, conn: str, after: int, timeout: float = 10.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        with self.lock:
            while len(self.events) <= after and time.monotonic() < deadline:
                self.lock.wait(deadline - time.monotonic())
            mine = [e for e in self.events[after:] if conn in e["to"]]
            return {"events": mine, "seq": len(self.events)}


class HostHandler(SimpleHTTPRequestHandler):
    room: Room

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, directory=str(HERE), **kwargs)

    def log_message(self, format: str, *args: Any) -> None:
        return

    def _json(self, value: Any, status: int = 200) -> None:
        body = json.dumps(value).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Cache-Control", "no-store")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        with suppress(BrokenPipeError, ConnectionResetError):  # the page left while a poll waited
            self.wfile.write(body)

    def do_GET(self) -> None:
        url = urlsplit(self.path)
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        if url.path == "/room/poll":
            self._json(self.room.poll(query["conn"], int(query.get("after", "0"))))
        elif url.path == "/room/log":
            with self.room.lock:
                self._json({"log": self.room.log, "metadata": self.room.metadata,
                            "players": list(self.room.players.values())})  # fmt: skip
        elif url.path.startswith("/room/"):
            self._json({"error": "not found"}, 404)
        else:
            super().do_GET()

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", "0"))
        body = json.loads(self.rfile.read(length) or b"{}")
        url = urlsplit(self.path)
        try:
            if url.path == "/room/join":
                self._json(self.room.join(body["conn"], body["id"], body["name"], body["role"]))
            elif url.path == "/room/act":
                self._json(self.room.act(body["conn"], body["op"], body.get("data") or {}))
            else:
                self._json({"error": "not found"}, 404)
        except (KeyError, ValueError) as exc:
            self._json({"error": str(exc)}, 400)


class ExtensionHandler(SimpleHTTPRequestHandler):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, directory=str(EXTENSION_DIR), **kwargs)

    def log_message(self, format: str, *args: Any) -> None:
        return

    def end_headers(self) -> None:
        self.send_header("Access-Control-Allow-Origin", "*")  # Owlbear Rodeo reads the manifest
        self.send_header("Cache-Control", "no-store")
        super().end_headers()


def _serve(handler: Any, port: int, name: str) -> ThreadingHTTPServer:
    httpd = ThreadingHTTPServer(("127.0.0.1", port), handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, name=name, daemon=True).start()
    return httpd


@contextmanager
def devhost(
    host_port: int = 0, extension_port: int = 0, *, cross_site: bool = False
) -> Iterator[tuple[str, str, Room]]:
    """Serve the stand-in host and the extension; yields (host origin, extension origin, room).

    The host is ``http://127.0.0.1:<port>``. The extension is another origin: by default
    ``http://127.0.0.1:<other port>`` (same site, so the browser lets its frames use storage);
    with ``cross_site`` ``http://localhost:<port>``, another site, as the extension's host is
    for www.owlbear.rodeo, where a browser blocking third-party cookies also blocks the frames'
    localStorage."""
    room = Room()
    handler = type("BoundHostHandler", (HostHandler,), {"room": room})
    host = _serve(handler, host_port, "owlbear-devhost")
    extension = _serve(ExtensionHandler, extension_port, "owlbear-extension")
    try:
        yield (
            f"http://127.0.0.1:{host.server_address[1]}",
            f"http://{'localhost' if cross_site else '127.0.0.1'}:{extension.server_address[1]}",
            room,
        )
    finally:
        for httpd in (host, extension):
            httpd.shutdown()
            httpd.server_close()


def host_url(host: str, extension: str, *, player_id: str, name: str, role: str) -> str:
    from urllib.parse import urlencode

    query = urlencode({"extension": extension, "id": player_id, "name": name, "role": role})
    return f"{host}/host.html?{query}"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--host-port", type=int, default=8701)
    parser.add_argument("--extension-port", type=int, default=8702)
    parser.add_argument(
        "--cross-site", action="store_true", help="serve the extension as http://localhost"
    )
    args = parser.parse_args()
    with devhost(args.host_port, args.extension_port, cross_site=args.cross_site) as (
        host,
        extension,
        _room,
    ):
        print(f"extension: {extension}/manifest.json")
        gm = host_url(host, extension, player_id="gm-1", name="The GM", role="GM")
        player = host_url(host, extension, player_id="player-mira", name="Mira", role="PLAYER")
        print(f"GM:        {gm}")
        print(f"player:    {player}")
        print(f"server:    SKILLCHECK_CORS_ORIGINS={extension}")
        print(f"           SKILLCHECK_FRAME_ANCESTORS={host},{extension}")
        with suppress(KeyboardInterrupt):
            threading.Event().wait()


if __name__ == "__main__":
    main()
