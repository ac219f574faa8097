"""The response bodies of the API, as TypedDicts: Litestar turns each into an OpenAPI schema
(``/schema/openapi.json``), so generated clients get typed views, boards, moves and records.

TypedDicts describe the plain JSON the library already writes (``CheckView.to_dict()``,
``Board.to_dict()``, ``RevealedRecord.to_dict()``...): the handlers return those dicts
unchanged, with no copy into another type on the hot path. The tests check that real answers
fit the documented schemas (``tests/api/test_api_bodies.py``, schemathesis) and that a
TypeScript client generated from the document type-checks (``tests/api/typescript``).

What a game decides stays an open object here: a check's ``params`` (``GET /v1/games/{name}``
gives their JSON Schema), its ``observation`` and a zone's ``extras``. Nothing here names a game.

Functional syntax is used where a key is a Python keyword (``from``). ``NotRequired`` is not
used: with postponed annotations it is not seen; each body has every key, always.
"""

from __future__ import annotations

from typing import Any, Literal, TypedDict

__all__ = [
    "BoardBody",
    "CheckStatusName",
    "CheckSummaryBody",
    "CheckViewBody",
    "ChecksPage",
    "CreatedCheckBody",
    "DeliveryBody",
    "EventBody",
    "EventsPage",
    "GameDetail",
    "GameExample",
    "GameRecordBody",
    "GameSummary",
    "GamesList",
    "HealthBody",
    "HintBody",
    "IndexBody",
    "IndexLinks",
    "LinkBody",
    "MeterBody",
    "MoveViewBody",
    "OddsBody",
    "OddsCellBody",
    "OutcomeBody",
    "ParameterBody",
    "RevealedRecordBody",
    "TierName",
    "TiersBody",
    "TokenBody",
    "WebhookBody",
    "WebhookSecretBody",
    "ZoneBody",
]

#: A check's status: the game's, plus ``cancelled`` (the GM called it off).
CheckStatusName = Literal["in_progress", "won", "lost", "cancelled"]
#: The four tiers of a finished check (docs/rules.md, "Tiers").
TierName = Literal["critical_success", "success", "failure", "critical_failure"]


class TiersBody(TypedDict):
    """Thresholds on the degree of success: a win with ``degree >= critical_success`` is a
    critical success, a loss with ``degree <= critical_failure`` a critical failure; whole
    numbers, ``critical_success > critical_failure``."""

    critical_success: int
    critical_failure: int


# ---- the board -----------------------------------------------------------------------------------


class ZoneBody(TypedDict):
    """One place on the table (:class:`skillcheck.board.Zone`). ``cards`` lie from the covered
    card to the exposed one, ``null`` for a face-down card; ``count`` may exceed ``len(cards)``
    when a pile shows only its top. ``layout`` is ``stack``, ``pile``, ``fan``, ``row`` or
    ``slot`` (at ``x``, ``y``); ``accepts`` says whether a move can end here; ``extras`` are
    the game's own marks."""

    id: str
    label: str
    layout: str
    cards: list[str | None]
    count: int
    accepts: bool
    x: int | None
    y: int | None
    extras: dict[str, Any]


class MeterBody(TypedDict):
    """Progress towards the goal: ``value`` of ``target`` (null for an open score), and the
    same in plain words (``text``)."""

    id: str
    label: str
    value: int
    target: int | None
    text: str


class BoardBody(TypedDict):
    """The table as a front end draws it (:class:`skillcheck.board.Board`), from what the
    player sees: never a card the player has not seen. ``layout`` is ``rows`` or the name of a
    layout a game's page module draws."""

    layout: str
    goal: str
    zones: list[ZoneBody]
    meters: list[MeterBody]
    #: The suits (letters) the game's cards can bear when fewer than the deck's (the page's
    #: legend lists only these); null: every suit of the deck.
    suits: list[str] | None
    #: A tap on a card with one move plays it (a game where no card has a choice of place,
    #: such as Tri Peaks); false: a tap selects, a second tap says where.
    one_tap: bool


#: A legal move as a front end offers it: the zone ids it goes ``from`` and ``to`` (null for a
#: move that is not a card going somewhere) and a sentence. ``code`` is what ``POST .../moves``
#: takes.
MoveViewBody = TypedDict("MoveViewBody", {"code": str, "from": str, "to": str | None, "text": str})


class OutcomeBody(TypedDict):
    """How the game ended: ``status`` ``won`` or ``lost``; ``reason`` ``goal``,
    ``no_legal_moves``, ``move_limit``, ``conceded`` or ``unwinnable``; the ``degree`` of
    success (docs/rules.md) and a ``summary`` in words."""

    status: Literal["won", "lost"]
    reason: str
    degree: int
    summary: str


# ---- checks --------------------------------------------------------------------------------------


class CheckViewBody(TypedDict):
    """What anyone holding one of the check's tokens may see of it at one version: never the
    seed, the salt or a hidden card. ``params`` are the game's (``GET /v1/games/{name}``),
    ``observation`` the game's view of the table as data, ``board`` and ``moves`` the same for
    any front end; ``outcome`` and ``degree`` are null until the game ends (and stay null if
    cancelled). ``seed_chosen`` is true when the GM chose the seed (then the GM knows the deal;
    the commitment proves it was fixed before play, not that it was random). ``tier`` grades the
    outcome into four tiers (docs/rules.md) by the check's ``tiers`` thresholds, and
    ``tier_text`` says it in words ("Critical success"); both null until the game ends, and if
    cancelled. ``can_undo`` says whether ``POST .../undo`` would be accepted now under the
    check's ``undo`` policy (off, safe, full), and ``undo_refusal`` why not, in words, while the
    check is in progress (null when it would be accepted, and once the check has ended). Times
    are ISO 8601 with a UTC offset."""

    check_id: str
    game: str
    params: dict[str, Any]
    status: CheckStatusName
    version: int
    moves_made: int
    observation: dict[str, Any]
    observation_code: str | None
    legal_moves: list[str]
    board: BoardBody
    moves: list[MoveViewBody]
    can_undo: bool
    undo_refusal: str | None
    outcome: OutcomeBody | None
    degree: int | None
    tier: TierName | None
    tier_text: str | None
    commitment: str
    end_when_lost: bool
    label: str | None
    metadata: dict[str, Any]
    cancel_reason: str | None
    created_at: str
    updated_at: str
    #: The character making the check, as the GM wrote it at creation (null: none given).
    character: str | None
    #: The GM chose the seed: the deal was fixed before play, but the GM knows it.
    seed_chosen: bool
    #: The check allows hints (``POST .../hint``), and how many the player has taken.
    hints: bool
    hints_used: int
    #: Every card is seen and a win is proved: ``POST .../finish`` plays it out.
    can_finish: bool


class HintBody(TypedDict):
    """A hint: the fair fast bot's move (as the view's ``moves`` give it), and the view after
    it was logged (the position is the same; ``version`` and ``hints_used`` went up)."""

    hint: MoveViewBody
    view: CheckViewBody


class CheckSummaryBody(TypedDict):
    """One of the GM's checks in ``GET /v1/checks`` and ``GET /v1/checks/stream``: what a list
    shows, from the check's newest view (never a hidden card). ``degree``, ``tier`` and
    ``tier_text`` are null until the end (and stay null when cancelled; ``tier`` is null on a
    server without tiers)."""

    check_id: str
    game: str
    params: dict[str, Any]
    label: str | None
    character: str | None
    status: CheckStatusName
    version: int
    moves_made: int
    degree: int | None
    tier: str | None
    tier_text: str | None
    created_at: str
    updated_at: str
    #: Hints the player has taken so far.
    hints_used: int


class ChecksPage(TypedDict):
    """A page of the GM's checks, newest first; ``next_cursor`` (null on the last page) asks
    for the next page with the same filters."""

    checks: list[CheckSummaryBody]
    next_cursor: str | None


class TokenBody(TypedDict):
    """A check's new player or spectator token (shown only in this answer) and the page link
    that carries it (``/play/{check_id}#token=...``; absolute when the server knows its public
    URL). The previous token of that role stopped working when this was answered."""

    check_id: str
    role: Literal["player", "spectator"]
    token: str
    link: str


class WebhookSecretBody(TypedDict):
    """The callback URL and its signing secret, shown once, at creation."""

    url: str
    secret: str


class CreatedCheckBody(TypedDict):
    """A new check: hand ``player_link`` (or ``player_token``) to the player and publish
    ``commitment``. The tokens, the links that carry them (and a made-up webhook secret) are
    shown only in this answer."""

    check_id: str
    player_token: str
    spectator_token: str
    player_link: str
    spectator_link: str
    commitment: str
    commitment_scheme: str
    version: int
    view: CheckViewBody
    webhook: WebhookSecretBody | None


class EventBody(TypedDict):
    """Something that happened to a check: ``sequence`` numbers its events from 1 without gaps,
    ``version`` is the check's version after it. ``payload`` depends on ``kind``: every one has
    the ``view`` after the event, ``created`` the ``commitment`` and ``config``, ``moved`` the
    ``move``, and the terminal event (``ended``, ``cancelled``) the revealed ``record``."""

    check_id: str
    sequence: int
    version: int
    kind: Literal["created", "moved", "undone", "hint", "ended", "cancelled"]
    payload: dict[str, Any]
    at: str


class EventsPage(TypedDict):
    """Events after ``after``, oldest first; poll again with ``after`` = ``last_sequence``."""

    events: list[EventBody]
    last_sequence: int


class GameRecordBody(TypedDict):
    """A game record (``skillcheck verify`` replays it): the game, its parameters, every
    action (move codes and ``undo``), the outcome, and once revealed the ``seed`` and the
    ``deal`` (card codes in the game's deal order), or the ``start`` position. ``tier`` is the
    outcome's tier under ``tiers``, the thresholds it was graded by (``skillcheck verify``
    grades it again)."""

    format: str
    game: str
    params: dict[str, Any]
    moves: list[str]
    outcome: OutcomeBody | None
    tier: TierName | None
    tiers: TiersBody | None
    seed: int | None
    deal: list[str] | None
    start: str | None


class RevealedRecordBody(TypedDict):
    """A finished check's record with the salt and commitment that prove its deal was fixed
    at the start (docs/sessions.md#the-commitment)."""

    format: str
    check_id: str
    status: CheckStatusName
    tier: TierName | None
    tier_text: str | None
    commitment: str
    salt: str
    cancel_reason: str | None
    #: The GM chose the seed (bound into the commitment).
    seed_chosen: bool
    #: Hints the player took during the check.
    hints_used: int
    record: GameRecordBody


class DeliveryBody(TypedDict):
    """One webhook delivery: ``id`` is its ``webhook-id``; ``status`` ``pending``,
    ``delivered`` or ``failed``; times are ISO 8601; ``next_attempt_at`` is when a pending
    delivery is tried next (null once it is delivered or has failed for good)."""

    id: str
    type: str
    status: Literal["pending", "delivered", "failed"]
    attempts: int
    next_attempt_at: str | None
    last_attempt_at: str | None
    last_error: str | None


class WebhookBody(TypedDict):
    """A check's callback URL (null without one) and its deliveries; never the secret."""

    url: str | None
    deliveries: list[DeliveryBody]


class HealthBody(TypedDict):
    """``ok`` and ``ok``; or, with 503, ``unavailable`` and why the database does not answer."""

    status: str
    database: str


class LinkBody(TypedDict):
    """A route of the API: its path (``{name}`` where a path parameter goes; with the server's
    path prefix) and what it is, in words."""

    href: str
    title: str


class IndexLinks(TypedDict):
    """Where things are, by name."""

    self: LinkBody
    docs: LinkBody
    openapi: LinkBody
    health: LinkBody
    games: LinkBody
    game: LinkBody
    sample_view: LinkBody
    decks: LinkBody
    checks: LinkBody
    check: LinkBody
    odds: LinkBody
    calibrate: LinkBody
    gm_page: LinkBody


class IndexBody(TypedDict):
    """``GET /v1``: what this server is, and links to its routes and docs."""

    service: str
    title: str
    version: str
    api_version: str
    description: str
    links: IndexLinks


# ---- games ---------------------------------------------------------------------------------------


class AppliesIfBody(TypedDict):
    """A parameter taken only while the parameter ``parameter`` has one of ``values``."""

    parameter: str
    values: list[str]


class ParameterBody(TypedDict):
    """One game parameter (:class:`skillcheck.engine.ParameterSpec`), enough to build a form:
    ``kind`` is ``int`` (``minimum``..``maximum``), ``bool``, ``choice`` (``choices``) or
    ``cards`` (codes of the deck ``deck``); ``optional`` ones may be null; ``path`` is where the
    value sits in the check's ``params`` (``["variant", "suit"]``); ``name`` is its name as a
    flat option (``GET /v1/odds``, the CLI); ``applies_if`` (or null) names the parameter and
    values it goes with: a form shows the parameter only then (the game refuses it
    otherwise)."""

    name: str
    kind: Literal["int", "bool", "choice", "cards"]
    default: Any
    help: str
    minimum: int | None
    maximum: int | None
    choices: list[str] | None
    optional: bool
    deck: str | None
    path: list[str]
    applies_if: AppliesIfBody | None


class GameSummary(TypedDict):
    """A game in the list: its registry name (what ``POST /v1/checks`` takes as ``game``),
    title, one-line summary, the deck it deals from and its parameters."""

    name: str
    title: str
    summary: str
    deck: str
    parameters: list[ParameterBody]


class GamesList(TypedDict):
    """Every registered game, in registry order (the first is the demo's)."""

    games: list[GameSummary]


class GameExample(TypedDict):
    """A parameter set that shows a variant of the game, as ``params`` of ``POST /v1/checks``,
    with the game it makes in words and its goal."""

    params: dict[str, Any]
    description: str
    goal: str


class GameDetail(TypedDict):
    """One game: what the list says, plus ``schema`` (a JSON Schema, draft 2020-12, of the
    ``params`` of ``POST /v1/checks``), ``examples`` (the first is the demo), the goal with the
    default parameters, how a revealed deal lists the cards (``deal_order``) and the
    ``methods`` ``GET /v1/odds`` takes (``perfect`` when the game has a solver, then its first
    bot; ``skillcheck odds`` plays every bot)."""

    name: str
    title: str
    summary: str
    deck: str
    deal_order: str
    goal: str
    parameters: list[ParameterBody]
    schema: dict[str, Any]
    examples: list[GameExample]
    methods: list[str]
    #: The player profiles (``careful``, ``casual``, ``ceiling``) the game has, each with the
    #: method that plays it; ``bot=`` the careful one asks ``GET /v1/odds`` for that player
    #: (GM key, at most 10 deals a cell: it takes seconds a deal).
    profiles: dict[str, str]


# ---- odds ----------------------------------------------------------------------------------------


class OddsCellBody(TypedDict):
    """One cell of an odds table: the cell's flat options (``params``: those of the request,
    one value of each axis) and ``method``, the deals played (``trials``), won
    (``successes``) and left undecided by perfect play's budget (counted as failures), the
    ``rate`` and its Wilson 95 % interval. Each of the game's flat options (its parameters by
    name, defaults filled in) is also a member of the cell (``level``, ``suit``...), as in the
    tables of ``skillcheck odds``."""

    params: dict[str, Any]
    method: str
    successes: int
    trials: int
    undecided: int
    rate: float
    ci95_low: float
    ci95_high: float


class OddsBody(TypedDict):
    """An odds table: ``params`` are the flat options asked for, ``axes`` the options given
    more than once (each combination is a cell), ``deals`` per cell from the master ``seed``
    (the same deals in every cell), ``methods`` in order, and one cell per combination and
    method. The game's fixed options, defaults filled in, are also members of the body."""

    game: str
    params: dict[str, Any]
    axes: dict[str, list[Any]]
    deals: int
    seed: int
    methods: list[str]
    cells: list[OddsCellBody]
