"""Shared helpers of ``api_load.py`` and ``api_faults.py`` (and their tests): a uvicorn server in
a subprocess on a free loopback port, throwaway databases (a temp SQLite file, or a PostgreSQL
schema of its own), creating checks as the GM, a deterministic move policy, percentiles.

Nothing here listens anywhere but 127.0.0.1.
"""

from __future__ import annotations

import contextlib
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

import httpx

ROOT = Path(__file__).resolve().parent.parent
BENCHMARKS = Path(__file__).resolve().parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

HOST = "127.0.0.1"
GM_KEY = "bench-gm-key"
#: The API's own app (uvicorn ``--factory``, settings from the environment).
API_APP = "api.app:create_app"
#: Every check the benchmarks create: a full deck, a move limit so that random play ends.
DEFAULT_PARAMS: dict[str, Any] = {"level": 9, "move_limit": 60}


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        port: int = sock.getsockname()[1]
        return port


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile (0..1) by nearest rank; 0.0 for no values."""
    ordered = sorted(values)
    if not ordered:
        return 0.0
    k = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[k]


def latency_summary(seconds: Sequence[float]) -> dict[str, float]:
    """Count, p50/p90/p99 and max of latencies given in seconds, as milliseconds."""
    return {
        "count": len(seconds),
        "p50_ms": 1000 * percentile(seconds, 0.50),
        "p90_ms": 1000 * percentile(seconds, 0.90),
        "p99_ms": 1000 * percentile(seconds, 0.99),
        "max_ms": 1000 * max(seconds, default=0.0),
    }


# ---- databases --------------------------------------------------------------------------------


def is_postgres(url: str) -> bool:
    return url.startswith("postgresql")


@contextlib.contextmanager
def throwaway_database(url: str | None) -> Iterator[str]:
    """The URL to serve: without ``url`` a fresh SQLite file in a temp directory (removed
    afterwards); for PostgreSQL without ``options`` in the URL, a schema of its own
    (``skillcheck_bench_<hex>``, reached with ``options=-csearch_path=...`` and dropped
    afterwards, like tests/api/conftest.py); any other URL as it is."""
    if url is None:
        with tempfile.TemporaryDirectory(prefix="skillcheck-bench-") as tmp:
            yield f"sqlite+aiosqlite:///{Path(tmp) / 'skillcheck.sqlite3'}"
        return
    query = url.partition("?")[2]
    if not is_postgres(url) or any(k == "options" for k, _ in parse_qsl(query)):
        yield url
        return
    import sqlalchemy as sa

    from api.db import sync_url

    schema = f"skillcheck_bench_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(sync_url(url), isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
        joiner = "&" if query else "?"
        try:
            yield f"{url}{joiner}options=-csearch_path%3D{schema}"
        finally:
            with admin.connect() as conn:
                conn.execute(sa.text(f'DROP SCHEMA "{schema}" CASCADE'))
    finally:
        admin.dispose()


def migrate(url: str) -> None:
    """Bring the database to the newest revision once, before several workers start (each
    worker migrating at startup would race on the first ``CREATE TABLE``)."""
    from api.db import database_config
    from api.db import migrate as run_migrations

    config = database_config(url)
    try:
        run_migrations(config)
    finally:
        config.get_engine().dispose()


# ---- the server -------------------------------------------------------------------------------


@dataclass
class Server:
    """``python -m uvicorn APP --factory`` in a subprocess (its own process group) on
    127.0.0.1:``port``. ``env`` is added to this process's environment."""

    app: str = API_APP
    port: int = field(default_factory=free_port)
    workers: int = 1
    env: Mapping[str, str] = field(default_factory=dict)
    access_log: bool = False
    app_dir: Path = ROOT
    #: CPUs to pin the server to (``os.sched_setaffinity``); empty: no pinning.
    cpus: tuple[int, ...] = ()
    ready_path: str = "/v1/games"
    process: subprocess.Popen[bytes] | None = None
    log: Path | None = None
    starts: int = 0

    @property
    def base_url(self) -> str:
        return f"http://{HOST}:{self.port}"

    def command(self) -> list[str]:
        cmd = [
            sys.executable, "-m", "uvicorn", self.app, "--factory",
            "--host", HOST, "--port", str(self.port), "--workers", str(self.workers),
            "--app-dir", str(self.app_dir), "--log-level", "warning",
        ]  # fmt: skip
        if not self.access_log:
            cmd.append("--no-access-log")
        return cmd

    def start(self, timeout: float = 60.0) -> None:
        """Start the server and wait until ``ready_path`` answers 2xx on every worker's port."""
        if self.process is not None and self.process.poll() is None:
            raise RuntimeError("the server is already running")
        if self.log is None:
            handle, name = tempfile.mkstemp(prefix="skillcheck-server-", suffix=".log")
            os.close(handle)
            self.log = Path(name)
        env = {**os.environ, **self.env}
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
        cpus = set(self.cpus)
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(
                self.command(),
                cwd=ROOT,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                preexec_fn=(lambda: os.sched_setaffinity(0, cpus)) if cpus else None,
            )
        self.starts += 1
        self.wait_ready(timeout)

    def wait_ready(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        assert self.process is not None
        while True:
            if self.process.poll() is not None:
                code = self.process.returncode
                raise RuntimeError(f"the server exited with {code}:\n{self.tail()}")
            try:
                response = httpx.get(self.base_url + self.ready_path, timeout=2.0)
                if response.is_success:
                    return
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"the server did not answer within {timeout} s:\n{self.tail()}")
            time.sleep(0.05)

    def kill(self) -> None:
        """SIGKILL the server's whole process group (uvicorn and its workers) and reap it."""
        if self.process is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()

    def stop(self, timeout: float = 15.0) -> None:
        """SIGTERM (a graceful shutdown), SIGKILL after ``timeout`` seconds."""
        if self.process is None or self.process.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()

    def tail(self, lines: int = 40) -> str:
        if self.log is None or not self.log.exists():
            return ""
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])

    def cleanup(self) -> None:
        self.stop()
        if self.log is not None:
            self.log.unlink(missing_ok=True)

    def __enter__(self) -> Server:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.cleanup()


def api_env(url: str, *, migrate_on_startup: bool = True) -> dict[str, str]:
    """The environment of ``api.app:create_app`` for the database at ``url``."""
    return {
        "SKILLCHECK_DATABASE_URL": url,
        "SKILLCHECK_GM_KEYS": GM_KEY,
        "SKILLCHECK_MIGRATE": "1" if migrate_on_startup else "0",
        # every simulated player comes from 127.0.0.1: a per-address limit would throttle them
        "SKILLCHECK_RATE_LIMIT": "off",
    }


def api_server(url: str, *, workers: int = 1, **kwargs: Any) -> Server:
    """A server of the real API (or of ``app=``, a factory taking its settings from the same
    environment) on ``url``. With several workers the database is migrated here once and the
    workers do not migrate."""
    if workers > 1:
        migrate(url)
    kwargs.setdefault("app", API_APP)
    return Server(workers=workers, env=api_env(url, migrate_on_startup=workers == 1), **kwargs)


# ---- playing ----------------------------------------------------------------------------------


@dataclass
class Check:
    """A check as a player holds it: its id, the player token and the last view seen."""

    check_id: str
    player_token: str
    view: dict[str, Any]

    @property
    def url(self) -> str:
        return f"/v1/checks/{self.check_id}"

    @property
    def headers(self) -> dict[str, str]:
        return bearer(self.player_token)


def creation_body(seed: int, params: Mapping[str, Any] = DEFAULT_PARAMS) -> dict[str, Any]:
    return {"game": "three-towers", "params": dict(params), "seed": seed, "label": "bench"}


async def create_check(
    client: httpx.AsyncClient, seed: int, params: Mapping[str, Any] = DEFAULT_PARAMS
) -> Check:
    """Create a check as the GM (deal ``seed``); raises on anything but 201."""
    response = await client.post(
        "/v1/checks", json=creation_body(seed, params), headers=bearer(GM_KEY)
    )
    if response.status_code != 201:
        raise RuntimeError(f"creating a check: {response.status_code} {response.text}")
    body = response.json()
    return Check(body["check_id"], body["player_token"], body["view"])


def pick_move(view: Mapping[str, Any], rng: random.Random) -> str:
    """A legal move, deterministic from ``rng``: a deck move (``d3``) four times in five when
    there is one, else any legal move. Random play then ends by the move limit at the latest."""
    legal: list[str] = list(view["legal_moves"])
    if not legal:
        raise ValueError("the check has no legal move")
    deck = [code for code in legal if code.startswith("d")]
    if deck and rng.random() < 0.8:
        return rng.choice(deck)
    return rng.choice(legal)


def player_client(base_url: str, timeout: float = 30.0) -> httpx.AsyncClient:
    """One keep-alive connection per simulated player."""
    return httpx.AsyncClient(
        base_url=base_url,
        timeout=timeout,
        limits=httpx.Limits(max_connections=1, max_keepalive_connections=1),
    )
