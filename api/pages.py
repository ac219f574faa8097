"""The browser page where a player plays a check (docs/play-page.md).

- ``GET /play/{check_id}``: the page. The token travels in the URL fragment
  (``#token=sc_play_...`` or ``#token=sc_view_...``), which browsers never send to the server,
  so it stays out of access logs and ``Referer`` headers; the query may name the check's game
  (``?game=<name>``, :func:`play_link`), a hint the page alone reads. The HTML is the same
  for every check: it carries the registered games (title, deck, page module) from
  :data:`skillcheck.engine.GAMES` in ``data-games``, and the page picks the one the check's view
  names. Nothing here or in ``api/static/`` outside ``games/`` names a game. Its head preloads
  every module ``play.js`` imports and the registered games' deck tables, so neither waits on
  another request (docs/performance.md, "Player's page: first render").
- ``GET /play-assets/{build}/{name}`` and ``.../games/{name}``: the page's JavaScript modules, CSS
  and icon, read once from ``api/static/``, and the games' own page modules from
  ``api/static/games/`` (``<game name>.js``, or the game's ``page_module``). ``build`` is a hash
  of all of them, so a page always loads the assets it was written for and they can be cached
  for a year; an unknown build still gets today's file, revalidated on every use.
- ``GET /v1/decks/{deck}``: a deck's table (:meth:`skillcheck.cards.Deck.table`): its suits and
  every card's code, names, rank and suits, which the page draws cards from. The same for every
  check: it tells nothing about a deal.
- ``GET /v1/cards``: the Decktet's table in the older shape, kept for existing clients.
- ``GET /gm``: the GM's page (docs/gm-page.md): sign in with a GM key (kept in the tab's session
  storage, never in a URL), create checks from each game's parameters, see the odds, hand out
  links and QR codes, follow and cancel checks. It calls only the public API, with the same
  assets and policy as the player's page.

The page runs no inline script or style, so it works under a strict Content-Security-Policy; it
also carries that policy in a ``<meta>`` element because the app's security middleware replaces
the header's value with the ``frame-ancestors`` policy.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from typing import Any, TypedDict, cast
from urllib.parse import quote

from litestar import Request, Response, get
from litestar.exceptions import NotFoundException
from litestar.openapi.datastructures import ResponseSpec

import skillcheck.games  # noqa: F401  (registers the built-in and plug-in games)
from api.problems import PROBLEM_JSON, Problem, problem_responses
from skillcheck.cards import DECKTET, Suit, deck_named
from skillcheck.engine import GAMES
from skillcheck.errors import quoted

__all__ = [
    "ASSETS",
    "BUILD",
    "PAGE_HANDLERS",
    "PAGE_POLICY",
    "PUBLIC_DAY",
    "DeckCard",
    "DeckSuit",
    "DeckTable",
    "cards_table",
    "deck_table",
    "games_data",
    "play_link",
]

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
_GM_TEMPLATE = "gm.html"
_GAMES_FOLDER = "games"
_IMMUTABLE = "public, max-age=31536000, immutable"
#: Tables the same for every check (a deck, a sample view): cached by anyone for a day.
PUBLIC_DAY = "public, max-age=86400"


def play_link(base: str, check_id: str, game: str, token: str) -> str:
    """The page link of a check for the holder of ``token``: ``{base}/play/{check_id}?game=
    {game}#token={token}``. The token rides in the fragment, which browsers never send; the
    game is a hint the page reads to prepare that game's table alone while the check's view is
    on its way (docs/play-page.md). A link without it works the same, only less quickly."""
    return f"{base}/play/{quote(check_id, safe='')}?game={quote(game, safe='')}#token={token}"


@dataclass(frozen=True)
class Asset:
    body: bytes
    media_type: str


def _entries(folder: Traversable, prefix: str = "") -> list[tuple[str, Traversable]]:
    """The files of ``folder`` and of its ``games/`` folder, by asset name, sorted."""
    found: list[tuple[str, Traversable]] = []
    for entry in folder.iterdir():
        if entry.is_file():
            found.append((prefix + entry.name, entry))
        elif not prefix and entry.name == _GAMES_FOLDER and entry.is_dir():
            found += _entries(entry, f"{_GAMES_FOLDER}/")
    return sorted(found, key=lambda item: item[0])


def _load_assets() -> tuple[dict[str, Asset], dict[str, str], str]:
    folder = resources.files("api").joinpath("static")
    assets: dict[str, Asset] = {}
    templates: dict[str, str] = {}
    digest = hashlib.sha256()
    for name, entry in _entries(folder):
        body = entry.read_bytes()
        digest.update(name.encode() + b"\0" + body + b"\0")
        if name in (_PAGE_TEMPLATE, _GM_TEMPLATE):
            templates[name] = body.decode("utf-8")
            continue
        suffix = name[name.rfind(".") :]
        if suffix in _MEDIA_TYPES:
            assets[name] = Asset(body, _MEDIA_TYPES[suffix])
    for name in (_PAGE_TEMPLATE, _GM_TEMPLATE):
        if name not in templates:
            raise RuntimeError(f"api/static/{name} is missing from the installed package")
    return assets, templates, digest.hexdigest()[:16]


#: The pages' static files by name (``games/<name>.js`` for the games' own modules), the pages'
#: HTML templates, and the build hash of them all.
ASSETS, _TEMPLATES, BUILD = _load_assets()
_TEMPLATE = _TEMPLATES[_PAGE_TEMPLATE]


def _page_module(name: str, cls: Any) -> str | None:
    """The asset name of a game's own page module, if ``api/static/games/`` has one."""
    for stem in (getattr(cls, "page_module", None), name):
        if stem and f"{_GAMES_FOLDER}/{stem}.js" in ASSETS:
            return f"{_GAMES_FOLDER}/{stem}.js"
    return None


_IMPORT = re.compile(r"""^\s*import\b[^;]*?\bfrom\s+["']\./([\w.-]+\.js)["']""", re.MULTILINE)


def module_imports(entry: str) -> list[str]:
    """Every page module ``entry`` imports, directly or not (its static ``import … from
    "./x.js"`` lines), in the order they are first met: the page preloads them all at once
    instead of finding them one level at a time."""
    found: list[str] = []
    pending = [entry]
    while pending:
        asset = ASSETS.get(pending.pop(0))
        for name in _IMPORT.findall(asset.body.decode() if asset else ""):
            if name not in found and name != entry:
                found.append(name)
                pending.append(name)
    return found


def page_preloads(assets: str, root: str, decks: list[str]) -> str:
    """The play page's ``<link rel=preload>`` lines: its modules, and the tables of the decks
    the registered games use (fetched while the page parses, so they are in hand before the
    check's view is)."""
    lines = [f'<link rel="modulepreload" href="{assets}/{name}">' for name in _PLAY_MODULES]
    lines += [
        f'<link rel="preload" href="{root}/v1/decks/{_html_attr(deck)}" as="fetch" crossorigin>'
        for deck in decks
    ]
    return "\n".join(lines)


_PLAY_MODULES = module_imports("play.js")


def games_data() -> dict[str, dict[str, Any]]:
    """What the page needs of each registered game before it sees a check: its title, the
    registry name of its deck, the order a revealed deal lists the cards in, and its own page
    module (a path under the assets) or None."""
    return {
        name: {
            "title": cls.title,
            "deck": getattr(cls, "deck_name", None),
            "deal_order": getattr(cls, "deal_order", ""),
            "module": _page_module(name, cls),
        }
        for name, cls in GAMES.items()
    }


# (Two classes each: with postponed annotations ``NotRequired`` is not seen, ``total=False`` is.)


class _DeckSuitRequired(TypedDict):
    letter: str
    name: str


class DeckSuit(_DeckSuitRequired, total=False):
    """One suit of a deck: its letter in card codes, its name, and the symbol drawn for it."""

    symbol: str
    #: ``red`` or ``black`` in a deck whose suits have colours.
    colour: str


class _DeckCardRequired(TypedDict):
    code: str
    name: str
    label: str


class DeckCard(_DeckCardRequired, total=False):
    """One card of a deck. ``code``, ``name`` and ``label`` are always there; the rest as the
    deck has them (a deck may add more fields)."""

    short_name: str
    title: str
    #: The rank's name (``Ace``, ``10``, ``Crown``), or None for a card without a rank.
    rank: str | None
    #: The rank as written in codes and on the card's corner (``A``, ``10``, ``X``).
    rank_char: str
    value: int | None
    #: The letters of the card's suits (see the table's ``suits``).
    suits: list[str]
    suit: str
    colour: str
    glyph: str


class DeckTable(TypedDict):
    """A whole deck, in its canonical order: what a page draws any card of it from."""

    deck: str
    title: str
    suits: list[DeckSuit]
    cards: list[DeckCard]


def deck_table(name: str) -> DeckTable:
    """A deck's table by its registry name; :class:`~skillcheck.errors.UnknownDeckError` (404)
    names the decks there are."""
    return cast(DeckTable, deck_named(name).table())


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
    data = games_data()
    games = _html_attr(json.dumps(data, sort_keys=True, separators=(",", ":")))
    decks = sorted({game["deck"] for game in data.values() if game["deck"]})
    assets = f"{root}/play-assets/{BUILD}"
    html = (
        _TEMPLATE.replace("%POLICY%", PAGE_POLICY)
        .replace("%PRELOADS%", page_preloads(assets, root, decks))
        .replace("%ASSETS%", assets)
        .replace("%ROOT%", root)
        .replace("%GAMES%", games)
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


@get("/gm", sync_to_thread=False, include_in_schema=False)
def gm_page(request: Request[Any, Any, Any]) -> Response[str]:
    """The GM's page; it asks for the GM key and keeps it in the tab's session storage."""
    root = _html_attr(_root(request))
    html = (
        _TEMPLATES[_GM_TEMPLATE]
        .replace("%POLICY%", PAGE_POLICY)
        .replace("%ASSETS%", f"{root}/play-assets/{BUILD}")
        .replace("%ROOT%", root)
    )
    return Response(
        html,
        media_type="text/html",
        headers={
            "Cache-Control": "no-cache",
            "Content-Security-Policy": PAGE_POLICY,
            "Referrer-Policy": "no-referrer",
            "X-Robots-Tag": "noindex",
        },
    )


def _asset(build: str, name: str) -> Response[bytes]:
    asset = ASSETS.get(name)
    if asset is None:
        raise NotFoundException(f"no page asset {quoted(name)}")
    return Response(
        asset.body,
        media_type=asset.media_type,
        headers={"Cache-Control": _IMMUTABLE if build == BUILD else "no-cache"},
    )


@get("/play-assets/{build:str}/{name:str}", sync_to_thread=False, include_in_schema=False)
def play_asset(build: str, name: str) -> Response[bytes]:
    """One of the page's static files; cached for a year when ``build`` is the current one."""
    return _asset(build, name)


@get(
    f"/play-assets/{{build:str}}/{_GAMES_FOLDER}/{{name:str}}",
    sync_to_thread=False,
    include_in_schema=False,
)
def play_game_asset(build: str, name: str) -> Response[bytes]:
    """A game's own page module (``api/static/games/``), cached like the other assets."""
    return _asset(build, f"{_GAMES_FOLDER}/{name}")


@get(
    "/v1/cards",
    sync_to_thread=False,
    summary="The Decktet's cards: codes, names, suits",
    description="Kept for existing clients; `GET /v1/decks/{deck}` serves every deck.",
    security=[],
    responses=problem_responses(),
)
def cards() -> Response[dict[str, Any]]:
    """Every card's code, name, rank and suits (no token needed; the same for every check)."""
    return Response(cards_table(), headers={"Cache-Control": PUBLIC_DAY})


@get(
    "/v1/decks/{deck:str}",
    sync_to_thread=False,
    summary="A deck's suits and cards: codes, names, ranks, suits",
    security=[],
    tags=["games"],
    responses={
        **problem_responses(),
        404: ResponseSpec(
            data_container=Problem,
            media_type=PROBLEM_JSON,
            description="No deck of that name (the problem's detail names the decks there are)",
            generate_examples=False,
        ),
    },
)
def deck(deck: str) -> Response[DeckTable]:
    """A deck by its registry name (a game's ``deck_name``: ``decktet``, ``standard``): its
    suits, and every card in canonical order with its code, names, rank and suits. No token is
    needed; the table is the same for every check and tells nothing about a deal."""
    return Response(deck_table(deck), headers={"Cache-Control": PUBLIC_DAY})


PAGE_HANDLERS: list[Any] = [play_page, gm_page, play_asset, play_game_asset, cards, deck]
