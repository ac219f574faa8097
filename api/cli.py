"""``skillcheck serve``: run the API (a command the API package adds to the ``skillcheck`` CLI
through the ``skillcheck.commands`` entry point, so the library never imports the service).

With no configuration it serves on 127.0.0.1:8000 from the SQLite file ./skillcheck.sqlite3,
and, when no GM key is configured, makes one and keeps it in a file beside the database (mode
0600). Start-up prints only a key's first characters and where the key is kept, never the key.
Options override the ``SKILLCHECK_*`` environment variables (docs/api.md).
"""

from __future__ import annotations

import logging
import os
import secrets
import threading
import time
from pathlib import Path
from typing import Any

import click
import httpx
from rich.console import Console
from rich.panel import Panel
from rich.table import Table
from sqlalchemy.engine import make_url

from api.settings import Settings, check_gm_keys

__all__ = ["demo_check", "key_prefix", "serve"]


def demo_check() -> tuple[str, dict[str, Any], str]:
    """The demo: the first registered game's first example (``Game.examples()``), as the
    game's name, its parameters and the game in words."""
    import skillcheck.games  # noqa: F401  (registers the built-in and plug-in games)
    from skillcheck.engine import GAMES
    from skillcheck.serialization import game_from_params

    if not GAMES:
        raise click.ClickException("no game is installed: there is nothing to demonstrate")
    name, cls = next(iter(GAMES.items()))
    params = dict(cls.examples()[0])
    return name, params, game_from_params(name, params).describe()


def gm_key_file(database_url: str) -> Path:
    """Where a generated GM key is kept: beside a SQLite file, else in the working directory."""
    url = make_url(database_url)
    if url.get_backend_name() == "sqlite" and url.database not in (None, "", ":memory:"):
        return Path(url.database).resolve().with_name("skillcheck-gm-key.txt")
    return Path("skillcheck-gm-key.txt").resolve()


def ensure_gm_key(path: Path) -> tuple[str, bool]:
    """The key stored at ``path``, made (and stored, readable by the owner only) if missing;
    returns the key and whether it was made now."""
    if path.exists():
        key = path.read_text(encoding="utf-8").strip()
        if key:
            return key, False
    key = "sc_gm_" + secrets.token_urlsafe(24)
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        handle.write(key + "\n")
    return key, True


def key_prefix(key: str) -> str:
    """What start-up shows of a GM key: its first 8 characters, never the whole key."""
    return f"{key[:8]}…" if len(key) > 8 else "…"


def _environment(settings: Settings) -> dict[str, str]:
    """The settings as the environment the worker processes build their app from."""
    rate = "off" if settings.rate_limit is None else "/".join(map(str, settings.rate_limit[::-1]))
    env = {
        "SKILLCHECK_DATABASE_URL": settings.database_url,
        "SKILLCHECK_GM_KEYS": ",".join(settings.gm_keys),
        "SKILLCHECK_HOST": settings.host,
        "SKILLCHECK_PORT": str(settings.port),
        "SKILLCHECK_WORKERS": str(settings.workers),
        "SKILLCHECK_RATE_LIMIT": rate,
    }
    if settings.redis_url:
        env["SKILLCHECK_REDIS_URL"] = settings.redis_url
    return env


def _create_demo_check(base: str, gm_key: str, console: Console) -> None:
    """Once the server answers, create a demo check over HTTP and print the player's link."""
    logging.getLogger("httpx").setLevel(logging.WARNING)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{base}/health", timeout=1).status_code == 200:
                break
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    else:
        console.print("[red]The server did not answer /health within 60 s: no demo check.")
        return
    game, params, description = demo_check()
    response = httpx.post(
        f"{base}/v1/checks",
        # the page reads "<game> check for <label>": the label says what the check is for
        json={"game": game, "params": params, "label": "the demo"},
        headers={"Authorization": f"Bearer {gm_key}"},
        timeout=30,
    )
    if response.status_code != 201:
        console.print(
            f"[red]Could not create the demo check: {response.status_code} {response.text}"
        )
        return
    check = response.json()
    from api.pages import play_link

    def link(token: str) -> str:
        return play_link(base, check["check_id"], game, token)

    console.print(
        f"[bold]Demo check[/] ({description}): open the player's page",
        highlight=False,
        soft_wrap=True,  # one line however narrow the terminal, as the links below
    )
    console.print(f"  {link(check['player_token'])}", soft_wrap=True, highlight=False)
    console.print("and, to watch it live, the spectator's page")
    console.print(f"  {link(check['spectator_token'])}", soft_wrap=True, highlight=False)


@click.command()
@click.option("--host", help="Address to listen on (SKILLCHECK_HOST; default 127.0.0.1).")
@click.option("--port", type=click.IntRange(1, 65535), help="Port (SKILLCHECK_PORT; 8000).")
@click.option(
    "--workers", type=click.IntRange(1, 64), help="Worker processes (SKILLCHECK_WORKERS; 1)."
)
@click.option(
    "--database-url",
    help="SQLAlchemy URL (SKILLCHECK_DATABASE_URL; default the SQLite file ./skillcheck.sqlite3).",
)
@click.option("--redis-url", help="Redis for several workers (SKILLCHECK_REDIS_URL).")
@click.option(
    "--gm-key",
    "gm_keys",
    multiple=True,
    help="A GM API key (repeatable; SKILLCHECK_GM_KEYS). None: one is made and kept on disk.",
)
@click.option(
    "--root-path",
    default="",
    help="The path prefix a reverse proxy serves the API under (e.g. /skillcheck).",
)
@click.option("--demo", is_flag=True, help="Create a demo check once up and print its links.")
def serve(
    host: str | None,
    port: int | None,
    workers: int | None,
    database_url: str | None,
    redis_url: str | None,
    gm_keys: tuple[str, ...],
    root_path: str,
    demo: bool,
) -> None:
    """Serve the check API (docs at /schema, the player's page at /play/<check>).

    A virtual tabletop that shows the player's page in a frame must be named in
    SKILLCHECK_FRAME_ANCESTORS (its address, e.g. https://foundry.example.org; several apart
    with commas): browsers refuse any other site's frame (docs/vtt.md)."""
    import dataclasses

    import uvicorn

    console = Console(stderr=True)
    try:
        settings = Settings.from_env()
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    changes: dict[str, Any] = {
        name: value
        for name, value in {
            "host": host,
            "port": port,
            "workers": workers,
            "database_url": database_url,
            "redis_url": redis_url,
        }.items()
        if value is not None
    }
    if gm_keys:
        try:
            changes["gm_keys"] = check_gm_keys(tuple(gm_keys), "--gm-key")
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="--gm-key") from None
    settings = dataclasses.replace(settings, **changes)
    key_note = "from --gm-key" if gm_keys else "from the SKILLCHECK_GM_KEYS variable"
    if not settings.gm_keys:
        path = gm_key_file(settings.database_url)
        key, made = ensure_gm_key(path)
        settings = dataclasses.replace(settings, gm_keys=(key,))
        key_note = f"{'made now and ' if made else ''}kept in {path}"
    if settings.workers > 1 and make_url(settings.database_url).get_backend_name() == "sqlite":
        console.print(
            "[yellow]Several workers on SQLite work, but writes queue on one file: use "
            "PostgreSQL and Redis (--database-url, --redis-url) for real load."
        )
    if settings.workers > 1 and not settings.redis_url:
        console.print(
            "[yellow]Without --redis-url each worker has its own live streams and rate limits."
        )
    base = f"http://{settings.host}:{settings.port}"
    info = Table.grid(padding=(0, 2))
    info.add_row("API", f"{base}/v1  (docs: {base}/schema)")
    info.add_row("GM page", f"{base}/gm  (sign in with the GM key)")
    info.add_row("Database", make_url(settings.database_url).render_as_string(hide_password=True))
    # Only a prefix: start-up output ends up in container logs, and the key is a password.
    more = len(settings.gm_keys) - 1
    others = f", and {more} more" if more else ""
    info.add_row("GM key", f"{key_prefix(settings.gm_keys[0])}  ({key_note}{others})")
    info.add_row("Workers", str(settings.workers))
    # a VTT that frames the player's page must be listed, or the browser shows a broken frame
    info.add_row(
        "Framed by",
        ", ".join(settings.frame_ancestors)
        if settings.frame_ancestors
        else "no other site (set SKILLCHECK_FRAME_ANCESTORS to a VTT's address to play in it)",
    )
    console.print(Panel(info, title="skillcheck serve", expand=False))
    os.environ.update(_environment(settings))
    if demo:
        threading.Thread(
            target=_create_demo_check, args=(base, settings.gm_keys[0], console), daemon=True
        ).start()
    uvicorn.run(
        "api.app:create_app",
        factory=True,
        host=settings.host,
        port=settings.port,
        workers=settings.workers,
        timeout_graceful_shutdown=5,
        root_path=root_path,
    )
