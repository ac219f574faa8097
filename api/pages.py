"""The browser page where a player plays a check (docs/play-page.md).

- ``GET /play/{check_id}``: the page. The token travels in the URL fragment
  (``#token=sc_play_...`` or ``#token=sc_view_...``), which browsers never send to the server,
  so it stays out of access logs and ``Referer`` headers. The HTML is the same for every check.
- ``GET /play-assets/{build}/{name}``: the page's JavaScript modules, CSS and icon, read once from
  ``api/static/``. ``build`` is a hash of all of them, so a page always loads the assets it was
  written for and they can be cached for a year; an unknown build still gets today's file,
  revalidated on every use.
- ``GET /v1/cards``: every Decktet card's code, name, rank and suits, generated from
  :data:`skillcheck.cards.DECKTET` (the page's only card table). The same for every check: it
  tells nothing about a deal.

The page runs no inline script or style, so it works under a strict Content-Security-Policy; it
also carries that policy in a ``<meta>`` element because the app's security middleware replaces
the header's value with the ``frame-ancestors`` policy.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from importlib import resources
from typing import Any

from litestar import Request, Response, get
from litestar.exceptions import NotFoundException

from api.problems import problem_responses
from skillcheck.cards import DECKTET, Suit

__all__ = ["ASSETS", "BUILD", "PAGE_HANDLERS", "PAGE_POLICY", "cards_table"]

#: The Content-Security-Policy of the page (everything from this server, nothing inline).
PAGE_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob: data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; object-src 'none'"
)

_MEDIA_TYPES = {
    ".js": "text/javascript",  # Litestar adds "; charset=utf-8" to text types
    ".css": "text/css",
    ".svg": "image/svg+xml",
}
_PAGE_TEMPLATE = "play.html"
_IMMUTABLE = "public, max-age=31536000, immutable"


@dataclass(frozen=True)
class Asset:
    body: bytes
    media_type: str


def _load_assets() -> tuple[dict[str, Asset], str, str]:
    folder = resources.files("api").joinpath("static")
    assets: dict[str, Asset] = {}
    template = ""
    digest = hashlib.sha256()
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if not entry.is_file():
            continue
        body = entry.read_bytes()
        digest.update(entry.name.encode() + b"\0" + body + b"\0")
        if entry.name == _PAGE_TEMPLATE:
            template = body.decode("utf-8")
            continue
        suffix = entry.name[entry.name.rfind(".") :]
        if suffix in _MEDIA_TYPES:
            assets[entry.name] = Asset(body, _MEDIA_TYPES[suffix])
    if not template:
        raise RuntimeError(f"api/static/{_PAGE_TEMPLATE} is missing from the installed package")
    return assets, template, digest.hexdigest()[:16]


#: The page's static files by name, the page's HTML template, and the build hash of them all.
ASSETS, _TEMPLATE, BUILD = _load_assets()


def cards_table() -> dict[str, Any]:
    """The Decktet as plain data: suits (letter, name, symbol) and cards (code, names, rank)."""
    return {
        "suits": [{"letter": s.letter, "name": s.title, "symbol": s.symbol} for s in Suit],
        "cards": [
            {
                "code": c.code,
                "name": c.name,
                "short_name": c.short_name,
                "title": c.title,
                "rank": None if c.rank is None else c.rank.label,
                "rank_char": "E" if c.rank is None else c.rank.char,
                "suits": [s.letter for s in c.suits],
            }
            for c in DECKTET
        ],
    }


def _root(request: Request[Any, Any, Any]) -> str:
    root = str(request.scope.get("root_path") or "")
    return root.rstrip("/")


def _html_attr(text: str) -> str:
    return (
        text.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;").replace(">", "&gt;")
    )


@get("/play/{check_id:str}", sync_to_thread=False, include_in_schema=False)
def play_page(request: Request[Any, Any, Any], check_id: str) -> Response[str]:
    """The player's (or spectator's) page for a check; the token is read from the fragment."""
    root = _html_attr(_root(request))
    html = (
        _TEMPLATE.replace("%POLICY%", PAGE_POLICY)
        .replace("%ASSETS%", f"{root}/play-assets/{BUILD}")
        .replace("%ROOT%", root)
    )
    return Response(
        html,
        media_type="text/html",
        headers={
            # The same bytes for every check, but a new build must reach players at once.
            "Cache-Control": "no-cache",
            "Content-Security-Policy": PAGE_POLICY,  # the server adds frame-ancestors
            "Referrer-Policy": "no-referrer",
            "X-Robots-Tag": "noindex",
        },
    )


@get("/play-assets/{build:str}/{name:str}", sync_to_thread=False, include_in_schema=False)
def play_asset(build: str, name: str) -> Response[bytes]:
    """One of the page's static files; cached for a year when ``build`` is the current one."""
    asset = ASSETS.get(name)
    if asset is None:
        raise NotFoundException(f"no page asset {name!r}")
    return Response(
        asset.body,
        media_type=asset.media_type,
        headers={"Cache-Control": _IMMUTABLE if build == BUILD else "no-cache"},
    )


@get(
    "/v1/cards",
    sync_to_thread=False,
    summary="The Decktet's cards: codes, names, suits",
    security=[],
    responses=problem_responses(),
)
def cards() -> Response[dict[str, Any]]:
    """Every card's code, name, rank and suits (no token needed; the same for every check)."""
    return Response(cards_table(), headers={"Cache-Control": "public, max-age=86400"})


PAGE_HANDLERS: list[Any] = [play_page, play_asset, cards]
