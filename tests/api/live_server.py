"""Real API servers for tests: uvicorn in a subprocess on a free loopback port."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def redis_unreachable_reason(url: str = "redis://127.0.0.1:6379/0") -> str | None:
    """None when Redis answers PING at ``url``, else why not."""
    try:
        import redis
    except ImportError as exc:  # pragma: no cover - the api extra installs it
        return f"the redis package is not installed: {exc}"
    try:
        redis.Redis.from_url(url, socket_connect_timeout=3).ping()
    except Exception as exc:
        return f"Redis at {url} does not answer: {exc}"
    return None


@contextmanager
def api_server(
    env: Mapping[str, str],
    *,
    workers: int = 1,
    log: Path | None = None,
    root_path: str = "",
) -> Iterator[str]:
    """Serve the API with ``env`` (SKILLCHECK_* settings) until the block ends; yields its base
    URL once /health answers 200. ``root_path`` is uvicorn's ``--root-path`` (what
    ``skillcheck serve --root-path`` passes): the server is then behind a proxy that strips it."""
    port = free_port()
    full_env = {**os.environ, **env, "PYTHONPATH": str(ROOT)}
    command = [
        sys.executable, "-m", "uvicorn", "api.app:create_app", "--factory",
        "--host", "127.0.0.1", "--port", str(port), "--workers", str(workers),
        "--log-level", "warning", "--timeout-graceful-shutdown", "2",
        *(["--root-path", root_path] if root_path else []),
    ]  # fmt: skip
    out = open(log, "ab") if log is not None else subprocess.DEVNULL  # noqa: SIM115
    process = subprocess.Popen(command, env=full_env, cwd=ROOT, stdout=out, stderr=out)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"the API server exited with {process.returncode}")
            try:
                if httpx.get(f"{base}/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("the API server did not become healthy within 30 s")
            time.sleep(0.1)
        yield base
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if log is not None and hasattr(out, "close"):
            out.close()
