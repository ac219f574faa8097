"""The /v1 endpoints: thin handlers over :class:`skillcheck.sessions.SessionService`.

Handlers are synchronous (the service and the SQL store are) and run in worker threads
(``sync_to_thread=True``).
"""

from __future__ import annotations

import functools
import re
import threading
import weakref
from collections import Counter
from collections.abc import AsyncGenerator, Callable
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from typing import Annotated, Any, ClassVar, Literal, cast

import msgspec
import sqlalchemy as sa
from litestar import Controller, HttpMethod, Request, Response, get, post, route
from litestar.background_tasks import BackgroundTask
from litestar.channels import ChannelsPlugin
from litestar.datastructures import ResponseHeader
from litestar.exceptions import ValidationException
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import Parameter
from litestar.response import ServerSentEvent, ServerSentEventMessage
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session

import skillcheck.games  # noqa: F401  (registers the built-in and plug-in games)
from api.auth import Role, check_role, gm_key_digest, new_token, require, sha256_hex
from api.bodies import (
    ChecksPage,
    CheckStatusName,
    CheckViewBody,
    CreatedCheckBody,
    DeliveryBody,
    EventBody,
    EventsPage,
    GameDetail,
    GameExample,
    GamesList,
    GameSummary,
    HealthBody,
    HintBody,
    IndexBody,
    IndexLinks,
    LinkBody,
    MoveViewBody,
    ParameterBody,
    RevealedRecordBody,
    TokenBody,
    WebhookBody,
)
from api.live import (
    ACCESS_CHANGED,
    ACCESS_CHANNEL,
    Bridge,
    channel_for,
    event_stream,
    gm_channel,
    summary_message,
    summary_stream,
    time_of_change_id,
)
from api.odds import api_methods
from api.outbox import CheckWebhook, SqlOutbox
from api.pages import PUBLIC_DAY, play_link
from api.problems import (
    ApiProblem,
    game_names,
    missing_game_handler,
    problem_responses,
    refuse_unknown_cards,
    root_path,
)
from api.settings import Settings
from api.store import Access, BadCursorError, SqlCheckStore, summary_of
from api.strict import TEXT_PATTERN
from api.webhooks import (
    SECRET_FORM,
    CallbackUrlError,
    DeliveryStatus,
    WebhookDelivery,
    WebhookSecretError,
    WebhookSigner,
    generate_secret,
    validate_callback_url,
)
from skillcheck import __version__
from skillcheck.engine import GAMES, Game, ParameterSpec, game_class
from skillcheck.errors import SkillcheckError, UnknownCardError, quoted
from skillcheck.profiles import profile_methods
from skillcheck.rng import MAX_SEED
from skillcheck.schema import check_params, flat_params, parameter_schema
from skillcheck.serialization import game_from_params
from skillcheck.sessions import (
    COMMITMENT_SCHEME,
    MAX_LABEL,
    MAX_REASON,
    CheckView,
    SessionService,
)

__all__ = ["ChecksController", "GamesController", "Runtime", "health", "index"]

MAX_IDEMPOTENCY_KEY = 200
#: The GM's list: the most checks on one page, and the longest cursor.
MAX_LIST = 100
MAX_CURSOR = 500
#: A GM's list stream resumes from a change id: microseconds since 1970, up to the year 9999.
MAX_CHANGE_ID = 253_402_300_799_999_999
_PREFIXES = {"player": "sc_play", "spectator": "sc_view"}
#: Sequence numbers and versions are stored as 32-bit integers.
MAX_SEQUENCE = 2**31 - 1
_DIGITS = re.compile(r"[0-9]{1,10}")
ETAG = ResponseHeader(
    name="ETag", required=True, documentation_only=True,
    description="The check's version in quotes: send it back in If-Match",
)  # fmt: skip
#: What every route that acts on a check shares: answered with the new view and its ETag.
_ACTION_ROUTE: dict[str, Any] = {
    "sync_to_thread": True,
    "status_code": 200,
    "responses": problem_responses(400, 401, 403, 404, 409, 412, 413, 422),
    "response_headers": [ETAG],
}
LOCATION = ResponseHeader(
    name="Location", required=True, documentation_only=True, description="The new check"
)


class StreamSlots:
    """Live streams open at once in this process, counted per check and per client address,
    so that holding connections open costs the caller, not the server (429 past a bound)."""

    def __init__(self, per_check: int, per_client: int) -> None:
        self.per_check, self.per_client = per_check, per_client
        self._checks: Counter[str] = Counter()
        self._clients: Counter[str] = Counter()
        self._lock = threading.Lock()

    def claim(self, check_id: str, client: str) -> Callable[[], None]:
        """Take a slot (429 ``too-many-streams`` if none is free); returns its release, which
        may be called more than once."""
        with self._lock:
            if self._checks[check_id] >= self.per_check:
                most, what = self.per_check, "this check"
            elif self._clients[client] >= self.per_client:
                most, what = self.per_client, "one address"
            else:
                self._checks[check_id] += 1
                self._clients[client] += 1
                most = 0
        if most:
            raise ApiProblem(
                429,
                "too-many-streams",
                f"at most {most} live streams may be open at once for {what}: close one (or "
                "poll GET .../events) and retry",
                headers={"Retry-After": "5"},
            )
        released = threading.Event()

        def release() -> None:
            with self._lock:
                if released.is_set():
                    return
                released.set()
                self._checks[check_id] -= 1
                self._clients[client] -= 1
                self._checks += Counter()  # drop the zero counts
                self._clients += Counter()

        return release

    def open_streams(self, check_id: str) -> int:
        with self._lock:
            return self._checks[check_id]


async def _close_stream(
    stream: AsyncGenerator[ServerSentEventMessage, None], release: Callable[[], None]
) -> None:
    """Close ``stream`` (its channel subscription) and give its slot back."""
    try:
        await stream.aclose()
    finally:
        release()


def _live_response(
    stream: AsyncGenerator[ServerSentEventMessage, None],
    release: Callable[[], None] = lambda: None,
) -> ServerSentEvent:
    """``stream`` as server-sent events, closed as soon as the response is over.

    Litestar cancels a stream whose client went away but never closes its generator: one
    suspended at a ``yield`` would wait for the garbage collector, holding its subscription
    and its slot for seconds (CI saw a slot never given back). The response's background
    task runs once it is over, however it ended, and closes it now; a response never sent
    gives the slot back when the generator is collected."""
    weakref.finalize(stream, release)
    return ServerSentEvent(
        stream,
        background=BackgroundTask(_close_stream, stream, release),
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )


@dataclass(frozen=True)
class Runtime:
    """What the handlers share, kept in ``app.state.runtime``."""

    settings: Settings
    store: SqlCheckStore
    service: SessionService
    channels: ChannelsPlugin
    outbox: SqlOutbox
    streams: StreamSlots = dataclass_field(init=False)

    def __post_init__(self) -> None:
        slots = StreamSlots(self.settings.streams_per_check, self.settings.streams_per_client)
        object.__setattr__(self, "streams", slots)


def _bridge(request: Request[Any, Any, Any]) -> Bridge:
    bridge = request.app.state.bridge
    assert isinstance(bridge, Bridge)
    return bridge


def _runtime(request: Request[Any, Any, Any]) -> Runtime:
    runtime = request.app.state.runtime
    assert isinstance(runtime, Runtime)
    return runtime


# ---- request bodies ---------------------------------------------------------------------------


#: The version an action expects (If-Match says the same); versions are 32-bit in storage.
ExpectedVersion = Annotated[int, msgspec.Meta(ge=0, le=MAX_SEQUENCE)] | None
_TEXT = TEXT_PATTERN


class CreateCheck(msgspec.Struct, forbid_unknown_fields=True):
    """A new check: the game (a name from ``GET /v1/games``; required), its parameters as
    records write them (``GET /v1/games/{name}`` gives their JSON Schema; left out: the
    defaults) and GM options."""

    game: str
    params: dict[str, Any] = msgspec.field(default_factory=dict)
    #: Deal from this seed (tests, replays); omitted: fresh OS entropy. Never shown before the
    #: end; the view, the record and the commitment then say the GM chose the deal.
    seed: Annotated[int, msgspec.Meta(ge=0, le=MAX_SEED)] | None = None
    end_when_lost: bool = False
    label: Annotated[str, msgspec.Meta(max_length=MAX_LABEL, pattern=_TEXT)] | None = None
    #: The character making the check ("Mira"): text like ``label``, shown in the GM's list.
    character: Annotated[str, msgspec.Meta(max_length=MAX_LABEL, pattern=_TEXT)] | None = None
    metadata: dict[str, Any] = msgspec.field(default_factory=dict)
    #: Where the result is POSTed when the check ends (Standard Webhooks, docs/webhooks.md).
    callback_url: str | None = None
    #: The ``whsec_...`` secret that signs the callbacks; omitted: one is made and returned.
    webhook_secret: str | None = None
    #: The GM's tier thresholds, ``{"critical_success": N, "critical_failure": N}`` (whole
    #: numbers, the first greater; docs/rules.md, "Tiers"); omitted: the game's defaults. Read
    #: strictly by the library (422 ``invalid-parameter``, field ``tiers``), never converted.
    tiers: dict[str, Any] | None = None
    #: Let the player ask for hints: the fair fast bot's move (it sees only what the player
    #: sees), each one counted in the view and the revealed record.
    hints: bool = False


class MoveBody(msgspec.Struct, forbid_unknown_fields=True):
    move: str
    expected_version: ExpectedVersion = None


class ActionBody(msgspec.Struct, forbid_unknown_fields=True):
    expected_version: ExpectedVersion = None


class CancelBody(msgspec.Struct, forbid_unknown_fields=True):
    reason: Annotated[str, msgspec.Meta(max_length=MAX_REASON, pattern=_TEXT)] | None = None
    expected_version: ExpectedVersion = None


# ---- helpers ----------------------------------------------------------------------------------


def etag(version: int) -> str:
    return f'"{version}"'


def _view_body(view: CheckView) -> CheckViewBody:
    return cast(CheckViewBody, view.to_dict())


def _view_response(view: CheckView, status: int = 200) -> Response[CheckViewBody]:
    return Response(_view_body(view), status_code=status, headers={"ETag": etag(view.version)})


def _etag_matches(header: str | None, version: int) -> bool:
    """Whether an If-None-Match header names this version (a poller already has the view)."""
    if header is None:
        return False
    tags = {t.strip().removeprefix("W/") for t in header.split(",")}
    return "*" in tags or etag(version) in tags


def _sequence_number(text: str) -> int | None:
    """A version or sequence number written in a header: ASCII digits only (``str.isdigit``
    takes ``²`` and other Unicode digits, which ``int`` then refuses), at most
    :data:`MAX_SEQUENCE`; None for anything else."""
    if not _DIGITS.fullmatch(text):
        return None
    number = int(text)
    return number if number <= MAX_SEQUENCE else None


def _expected_version(request: Request[Any, Any, Any], field: int | None) -> int | None:
    header = request.headers.get("if-match")
    from_header: int | None = None
    if header is not None:
        text = header.strip()
        if text.startswith("W/"):  # RFC 9110 13.1.1: If-Match compares strongly
            raise ApiProblem(
                400,
                "invalid-if-match",
                'If-Match needs a strong ETag, the check\'s version in quotes such as "3": this '
                'one is weak (W/"..."), and RFC 9110 compares If-Match strongly, so a weak ETag '
                "never matches",
                field="If-Match",
            )
        # an entity tag is quoted (RFC 9110 8.8.3): "3", never a bare 3 or a half-quoted "3
        quoted_tag = len(text) >= 2 and text[0] == text[-1] == '"'
        from_header = _sequence_number(text[1:-1]) if quoted_tag else None
        if from_header is None:
            raise ApiProblem(
                400,
                "invalid-if-match",
                f'If-Match must be the check\'s ETag (its version in quotes, e.g. "3", a whole '
                f"number up to {MAX_SEQUENCE}), not {quoted(header)}",
                field="If-Match",
            )
    if from_header is not None and field is not None and from_header != field:
        raise ApiProblem(
            400,
            "version-mismatch",
            f"If-Match says version {from_header} but expected_version says {field}: give one",
            field="expected_version",
        )
    return from_header if from_header is not None else field


def _idempotency_key(request: Request[Any, Any, Any], role: Role) -> str | None:
    key = request.headers.get("idempotency-key")
    if key is None:
        return None
    key = key.strip()
    if not key or len(key) > MAX_IDEMPOTENCY_KEY or not key.isprintable():
        raise ApiProblem(
            400,
            "invalid-idempotency-key",
            f"Idempotency-Key must be 1 to {MAX_IDEMPOTENCY_KEY} printable characters",
            field="Idempotency-Key",
        )
    return f"{role.value}:{key}"  # keys are scoped to the check; prefix the caller's role


def _player_action(
    request: Request[Any, Any, Any],
    check_id: str,
    data: ActionBody | None,
    doing: str,
    operation: Literal["undo", "concede", "finish"],
) -> Response[CheckViewBody]:
    """A player's action without arguments (undo, concede, finish), with version and
    idempotency."""
    rt = _runtime(request)
    role = check_role(request, rt.settings, rt.store, check_id)
    require(role, Role.PLAYER, action=doing)
    act = {"undo": rt.service.undo, "concede": rt.service.concede, "finish": rt.service.finish}[
        operation
    ]
    expected = None if data is None else data.expected_version
    view = act(
        check_id,
        expected_version=_expected_version(request, expected),
        idempotency_key=_idempotency_key(request, role),
    )
    return _view_response(view)


def _webhook_of(data: CreateCheck, settings: Settings) -> tuple[str, str] | None:
    """The callback URL and signing secret a creation asks for, checked (422 names the field:
    a well-formed request with a value the server refuses, as for any other parameter)."""
    if data.callback_url is None:
        if data.webhook_secret is not None:
            raise ApiProblem(
                422,
                "invalid-webhook-secret",
                "webhook_secret signs callbacks: give callback_url with it",
                field="webhook_secret",
            )
        return None
    try:
        url = validate_callback_url(
            data.callback_url, allow_private=settings.webhooks_allow_private
        )
    except CallbackUrlError as exc:
        raise ApiProblem(422, "invalid-callback-url", str(exc), field="callback_url") from None
    secret = data.webhook_secret if data.webhook_secret is not None else generate_secret()
    try:
        WebhookSigner(secret)
    except WebhookSecretError as exc:
        raise ApiProblem(
            422,
            "invalid-webhook-secret",
            f"webhook_secret must be {SECRET_FORM} (the Standard Webhooks form); {exc.reason}. "
            "Leave webhook_secret out and the server makes one, returned once in webhook.secret",
            field="webhook_secret",
        ) from None
    return url, secret


def _spec(spec: ParameterSpec) -> ParameterBody:
    return {
        "name": spec.name,
        "kind": cast(Any, spec.kind),
        "default": spec.default,
        "help": spec.help,
        "minimum": spec.minimum,
        "maximum": spec.maximum,
        "choices": None if spec.choices is None else list(spec.choices),
        "optional": spec.optional,
        "deck": spec.deck,
        "path": list(spec.where),
        "applies_if": None
        if spec.applies_if is None
        else {"parameter": spec.applies_if[0], "values": list(spec.applies_if[1])},
    }


def _summary(name: str, cls: type[Game[Any]]) -> GameSummary:
    return {
        "name": name,
        "title": cls.title,
        "summary": cls.summary,
        "deck": cls.deck_name,
        "parameters": [_spec(p) for p in cls.parameters()],
    }


def _default_game(name: str, cls: type[Game[Any]]) -> Game[Any]:
    """The game with its default parameters, or with its first example if it has no defaults
    for everything."""
    game: Game[Any]
    try:
        game = game_from_params(name, {})
    except SkillcheckError:
        game = game_from_params(name, dict(cls.examples()[0]))
    return game


def _detail(name: str, cls: type[Game[Any]]) -> GameDetail:
    examples: list[GameExample] = []
    for params in cls.examples():
        game = game_from_params(name, dict(params))
        examples.append(
            {"params": dict(params), "description": game.describe(), "goal": game.goal_text()}
        )
    default = _default_game(name, cls)
    summary = _summary(name, cls)
    return {
        "name": name,
        "title": summary["title"],
        "summary": summary["summary"],
        "deck": summary["deck"],
        "deal_order": cls.deal_order,
        "goal": default.goal_text(),
        "parameters": summary["parameters"],
        "schema": parameter_schema(cls),
        "examples": examples,
        "methods": list(api_methods(default)),
        "profiles": profile_methods(default),
    }


# ---- controllers ------------------------------------------------------------------------------


@get(
    "/health",
    sync_to_thread=True,
    summary="Liveness and database readiness",
    tags=["ops"],
    security=[],
    responses={
        503: ResponseSpec(
            data_container=HealthBody,
            description="The database does not answer: {status, database: the reason}",
            generate_examples=False,
        )
    },
)
def health(db_session: Session) -> Response[HealthBody]:
    """200 when the database answers (load balancers and ``docker`` health checks poll this);
    503 with the reason when it does not."""
    try:
        db_session.execute(sa.text("SELECT 1"))
    except SQLAlchemyError as exc:
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return Response({"status": "unavailable", "database": reason}, status_code=503)
    return Response({"status": "ok", "database": "ok"})


#: The routes ``GET /v1`` links to (every one a route of this app: the tests check it).
_INDEX: dict[str, tuple[str, str]] = {
    "self": ("/v1", "this index"),
    "docs": ("/schema", "the docs: every operation, with a form to try it (docs/api.md in depth)"),
    "openapi": ("/schema/openapi.json", "the OpenAPI 3.1 document, to generate a client"),
    "health": ("/health", "liveness and database readiness"),
    "games": ("/v1/games", "the games and their parameters"),
    "game": ("/v1/games/{name}", "one game: its parameters' JSON Schema, examples and goal"),
    "sample_view": (
        "/v1/games/{name}/sample-view",
        "a made-up check's view of the game, for a page to draw its table with ahead",
    ),
    "decks": ("/v1/decks/{deck}", "a deck's suits and cards (a game's deck)"),
    "checks": ("/v1/checks", "create a check (POST), or list the GM's checks (GET); GM key"),
    "check": ("/v1/checks/{check_id}", "one check as its player sees it; any of its tokens"),
    "odds": ("/v1/odds", "how often a check succeeds, for choosing fair parameters"),
    "calibrate": ("/v1/calibrate", "which difficulty gives the wanted chance"),
    "gm_page": ("/gm", "the GM's page in a browser: create checks, hand out links"),
}


@get(
    "/v1",
    sync_to_thread=False,
    summary="What this server is, and where its routes and docs are",
    tags=["ops"],
    security=[],
    responses=problem_responses(),
)
def index(request: Request[Any, Any, Any]) -> IndexBody:
    """The service's name and version and links to its routes (no token needed; nothing is
    looked up). Links carry the server's path prefix (``--root-path``)."""
    root = root_path(request)
    config = request.app.openapi_config
    links = {
        name: LinkBody(href=root + path, title=title) for name, (path, title) in _INDEX.items()
    }
    return {
        "service": "skillcheck",
        "title": config.title if config is not None else "skillcheck API",
        "version": __version__,
        "api_version": config.version if config is not None else "1",
        "description": "Card mini-games as skill checks for tabletop RPGs: a GM creates a "
        "check, the player plays it in the browser or a client, everyone watches it live",
        "links": cast(IndexLinks, links),
    }


class GamesController(Controller):
    path = "/v1/games"
    tags: ClassVar[list[str]] = ["games"]  # type: ignore[misc]

    @get(
        "/",
        sync_to_thread=False,
        summary="List the games with their parameters",
        security=[],
        responses=problem_responses(),
    )
    def list_games(self) -> GamesList:
        """Every registered game (in registry order: the first is the demo's), its
        parameters, their defaults and allowed values (no token needed)."""
        return {"games": [_summary(name, cls) for name, cls in GAMES.items()]}

    @get(
        "/{name:str}",
        sync_to_thread=False,
        summary="One game: its parameters' JSON Schema, examples and goal",
        security=[],
        responses=problem_responses(400, 404),
    )
    def game(self, name: str) -> GameDetail:
        """What the list says of the game, plus the JSON Schema of the ``params`` that
        ``POST /v1/checks`` takes, example parameter sets, the goal, the deck and the odds
        methods. An unknown name is 404 ``unknown-game``, naming the games."""
        return _detail(name, _registered(name))

    @get(
        "/{name:str}/sample-view",
        sync_to_thread=False,
        summary="A made-up check's view, for a page to draw its table with ahead",
        security=[],
        responses=problem_responses(400, 404),
    )
    def sample_view(self, name: str) -> Response[CheckViewBody]:
        """The view of a check of the game that no one plays and nothing stores (its first
        example parameters, seed 0): the player's page draws it unseen while a check's own view
        is on its way, so that the browser has laid out a table of the game before it draws the
        check's (docs/play-page.md). No token is needed; it is the same for a day. An unknown
        name is 404 ``unknown-game``, naming the games."""
        _registered(name)
        return Response(_sample_view(name), headers={"Cache-Control": PUBLIC_DAY})


def _registered(name: str) -> type[Game[Any]]:
    """The registered game ``name`` (a path's), or 404 ``unknown-game`` naming the games."""
    if name not in GAMES:
        raise ApiProblem(
            404, "unknown-game", f"unknown game {quoted(name)}: the games are {game_names()}"
        )
    return GAMES[name]


@functools.cache
def _sample_view(name: str) -> CheckViewBody:
    """The first view of a made-up check of ``name`` (made once per process, never stored)."""
    params = GAMES[name].examples()[0]
    return _view_body(SessionService().create(name, params, seed=0).view)


class ChecksController(Controller):
    path = "/v1/checks"
    tags: ClassVar[list[str]] = ["checks"]  # type: ignore[misc]

    @get(
        "/",
        sync_to_thread=True,
        summary="The GM's checks (GM)",
        responses=problem_responses(400, 401, 403, 422),
    )
    def list_checks(
        self,
        request: Request[Any, Any, Any],
        status: CheckStatusName | None = Parameter(  # noqa: B008 (litestar reads it)
            default=None, description="only the checks with this status"
        ),
        label: str | None = Parameter(
            default=None,
            min_length=1,
            max_length=MAX_LABEL,
            description="only the checks whose label or character contains this text "
            "(ignoring case)",
        ),
        limit: int = Parameter(default=50, ge=1, le=MAX_LIST, description="at most this many"),
        cursor: str | None = Parameter(
            default=None,
            min_length=1,
            max_length=MAX_CURSOR,
            description="the next_cursor of the previous page (with the same filters)",
        ),
    ) -> ChecksPage:
        """GM key only: the checks created with this GM key (never another GM's), newest
        first, as summaries. A player or spectator token gets 403; no token, or one that is
        nobody's, 401; a cursor this server did not write gets 422 ``invalid-cursor``
        (well-formed text, a refused value)."""
        rt = _runtime(request)
        gm = gm_key_digest(request, rt.settings, rt.store)
        try:
            found, following = rt.store.list_checks(
                gm, status=status, label=label, limit=limit, cursor=cursor
            )
        except BadCursorError:
            raise ApiProblem(
                422,
                "invalid-cursor",
                "cursor must be the next_cursor of an earlier page of this list",
                field="cursor",
            ) from None
        return cast(ChecksPage, {"checks": found, "next_cursor": following})

    @get(
        "/stream",
        sync_to_thread=True,
        summary="The GM's checks as they change (server-sent events; GM)",
        media_type="text/event-stream",
        response_description="text/event-stream: one message per change of one of the GM's "
        "checks (id = the change's time in microseconds since 1970; event = created, moved, "
        "undone, hint, ended, cancelled, or changed when resumed; data = the check's summary, a "
        "CheckSummaryBody)",
        responses=problem_responses(400, 401, 403),
    )
    def checks_stream(self, request: Request[Any, Any, Any]) -> ServerSentEvent:
        """GM key only: a summary of each of the GM's checks whenever it is created, moved,
        undone, hinted, ended or cancelled. With ``Last-Event-ID`` (the id of the last message seen)
        it first sends every check changed since then. Read it with ``fetch`` (docs/api.md)."""
        rt = _runtime(request)
        gm = gm_key_digest(request, rt.settings, rt.store)
        since = _change_id(request)

        def read(when: Any) -> list[dict[str, Any]]:
            return rt.store.changed_since(gm, when)

        return _live_response(
            summary_stream(
                rt.channels, gm, read, since, max_seconds=float(rt.settings.stream_seconds)
            )
        )

    @route("/", http_method=[HttpMethod.OPTIONS], include_in_schema=False, sync_to_thread=False)
    def checks_options(self) -> Response[None]:
        """``OPTIONS /v1/checks``: Litestar 2 lists only one of a path's handlers in the
        automatic answer's ``Allow`` (litestar#4169, fixed in 3), so this path says it itself."""
        return Response(None, status_code=204, headers={"Allow": "GET, OPTIONS, POST"})

    @post(
        "/",
        sync_to_thread=True,
        summary="Create a check (GM)",
        status_code=201,
        responses=problem_responses(400, 401, 403, 413, 422),
        response_headers=[ETAG, LOCATION],
        exception_handlers={ValidationException: missing_game_handler},
    )
    def create_check(
        self, request: Request[Any, Any, Any], data: CreateCheck
    ) -> Response[CreatedCheckBody]:
        """Deal a check and commit to it. The player token is shown only in this answer.

        ``game`` is required (422 ``invalid-parameter`` naming the games when missing, 422
        ``unknown-game`` when unknown); ``params`` are checked strictly against the game's
        parameter schema (a string where a number belongs is refused, never converted), then
        by the game's own rules (422 ``invalid-parameter`` with ``field``)."""
        rt = _runtime(request)
        gm = gm_key_digest(request, rt.settings, rt.store)
        webhook = _webhook_of(data, rt.settings)  # checked before anything is created
        cls = game_class(data.game)
        try:
            check_params(cls, data.params)
            created = rt.service.create(
                data.game,
                data.params,
                seed=data.seed,
                end_when_lost=data.end_when_lost,
                label=data.label,
                metadata=data.metadata,
                character=data.character,
                tiers=data.tiers,
                hints=data.hints,
            )
        except UnknownCardError:  # say which parameter holds it (the library does not)
            refuse_unknown_cards(cls, flat_params(cls, data.params))
            raise
        player, spectator = new_token("sc_play"), new_token("sc_view")
        hook = None if webhook is None else CheckWebhook(created.check_id, *webhook)
        rt.store.save_access(
            Access(created.check_id, sha256_hex(player), sha256_hex(spectator), gm), hook
        )
        _bridge(request).publish(  # the GM's live list (the check has an owner only now)
            (summary_message("created", summary_of(created.view.to_dict())), gm_channel(gm))
        )
        base = rt.settings.public_url or root_path(request)
        body: CreatedCheckBody = {
            "check_id": created.check_id,
            "player_token": player,
            "spectator_token": spectator,
            "player_link": play_link(base, created.check_id, data.game, player),
            "spectator_link": play_link(base, created.check_id, data.game, spectator),
            "commitment": created.commitment,
            "commitment_scheme": COMMITMENT_SCHEME,
            "version": created.version,
            "view": _view_body(created.view),
            "webhook": None if webhook is None else {"url": webhook[0], "secret": webhook[1]},
        }
        return Response(
            body,
            status_code=201,
            headers={
                "ETag": etag(created.version),
                "Location": f"{root_path(request)}/v1/checks/{created.check_id}",
                "Cache-Control": "no-store",
            },
        )

    @get(
        "/{check_id:str}",
        sync_to_thread=True,
        summary="The check as the player sees it",
        responses={
            **problem_responses(400, 401, 403, 404),
            304: ResponseSpec(
                data_container=None,
                description="If-None-Match names the check's version: nothing changed (no body)",
                generate_examples=False,
            ),
        },
        response_headers=[ETAG],
    )
    def get_check(self, request: Request[Any, Any, Any], check_id: str) -> Response[CheckViewBody]:
        """Observation, board, legal moves, status, degree of success; the ETag is the
        version (``If-None-Match`` with it: 304 while nothing has happened)."""
        rt = _runtime(request)
        check_role(request, rt.settings, rt.store, check_id)
        view = rt.service.view(check_id)
        if _etag_matches(request.headers.get("if-none-match"), view.version):
            return cast(
                "Response[CheckViewBody]",
                Response(None, status_code=304, headers={"ETag": etag(view.version)}),
            )
        return _view_response(view)

    @post("/{check_id:str}/moves", summary="Make a move", **_ACTION_ROUTE)
    def move(
        self, request: Request[Any, Any, Any], check_id: str, data: MoveBody
    ) -> Response[CheckViewBody]:
        """Player only. Give the version (If-Match or ``expected_version``): a stale one gets
        412 (If-Match) or 409 and changes nothing. An Idempotency-Key makes a retry safe."""
        rt = _runtime(request)
        role = check_role(request, rt.settings, rt.store, check_id)
        require(role, Role.PLAYER, action="making a move")
        view = rt.service.move(
            check_id,
            data.move,
            expected_version=_expected_version(request, data.expected_version),
            idempotency_key=_idempotency_key(request, role),
        )
        return _view_response(view)

    @post("/{check_id:str}/undo", summary="Undo a move", **_ACTION_ROUTE)
    def undo(
        self, request: Request[Any, Any, Any], check_id: str, data: ActionBody | None = None
    ) -> Response[CheckViewBody]:
        """Player only; refused (422 undo-not-allowed) if the check's parameters forbid it."""
        return _player_action(request, check_id, data, "undoing a move", "undo")

    @post("/{check_id:str}/concede", summary="Concede", **_ACTION_ROUTE)
    def concede(
        self, request: Request[Any, Any, Any], check_id: str, data: ActionBody | None = None
    ) -> Response[CheckViewBody]:
        """Player only: the check ends as lost (reason ``conceded``)."""
        return _player_action(request, check_id, data, "conceding", "concede")

    @post("/{check_id:str}/hint", summary="Ask for a hint", **_ACTION_ROUTE)
    def hint(
        self, request: Request[Any, Any, Any], check_id: str, data: ActionBody | None = None
    ) -> Response[HintBody]:
        """Player only, when the GM created the check with ``hints: true`` (else 422
        ``hints-off``): the fair fast bot's move, which sees only what the player sees. The
        position does not change, but the hint is logged: the version goes up by one and
        ``hints_used`` (view, revealed record) counts it."""
        rt = _runtime(request)
        role = check_role(request, rt.settings, rt.store, check_id)
        require(role, Role.PLAYER, action="asking for a hint")
        expected = None if data is None else data.expected_version
        move, view = rt.service.hint(
            check_id,
            expected_version=_expected_version(request, expected),
            idempotency_key=_idempotency_key(request, role),
        )
        body: HintBody = {"hint": cast(MoveViewBody, move.to_dict()), "view": _view_body(view)}
        return Response(body, headers={"ETag": etag(view.version)})

    @post("/{check_id:str}/finish", summary="Finish a won check", **_ACTION_ROUTE)
    def finish(
        self, request: Request[Any, Any, Any], check_id: str, data: ActionBody | None = None
    ) -> Response[CheckViewBody]:
        """Player only, when the view's ``can_finish`` is true (every card is seen and a win
        is proved; else 422 ``cannot-finish``): the server plays the winning moves, each
        logged as a move, and the check ends won."""
        return _player_action(request, check_id, data, "finishing the check", "finish")

    @post("/{check_id:str}/cancel", summary="Cancel (GM)", **_ACTION_ROUTE)
    def cancel(
        self, request: Request[Any, Any, Any], check_id: str, data: CancelBody | None = None
    ) -> Response[CheckViewBody]:
        """GM only: the check is called off (no outcome) and its record is revealed."""
        rt = _runtime(request)
        role = check_role(request, rt.settings, rt.store, check_id)
        require(role, Role.GM, action="cancelling a check")
        view = rt.service.cancel(
            check_id,
            None if data is None else data.reason,
            expected_version=_expected_version(
                request, None if data is None else data.expected_version
            ),
            idempotency_key=_idempotency_key(request, role),
        )
        return _view_response(view)

    @get(
        "/{check_id:str}/record",
        sync_to_thread=True,
        summary="The revealed record",
        responses=problem_responses(400, 401, 403, 404, 409),
    )
    def record(self, request: Request[Any, Any, Any], check_id: str) -> RevealedRecordBody:
        """After the end: seed, deal, moves, outcome, salt and commitment (409 before)."""
        rt = _runtime(request)
        check_role(request, rt.settings, rt.store, check_id)
        return cast(RevealedRecordBody, rt.service.record(check_id).to_dict())

    @get(
        "/{check_id:str}/events",
        sync_to_thread=True,
        summary="Events after a sequence number",
        responses=problem_responses(400, 401, 403, 404, 422),
    )
    def events(
        self,
        request: Request[Any, Any, Any],
        check_id: str,
        after: int = Parameter(
            default=0, ge=0, le=MAX_SEQUENCE, description="return events after this sequence"
        ),
        limit: int = Parameter(default=100, ge=1, le=1000, description="at most this many"),
    ) -> EventsPage:
        """The check's events, oldest first (poll with ``after`` = the last sequence seen;
        one beyond the check's last event is 422 ``beyond-last-event``, naming the last)."""
        rt = _runtime(request)
        check_role(request, rt.settings, rt.store, check_id)
        found = rt.service.events(check_id, after, limit)
        if not found and after > 0:  # nothing after it: is it a sequence the check has reached?
            _refuse_beyond_last(after, rt.store.last_event(check_id)[0], "after")
        return {
            "events": [cast(EventBody, e.to_dict()) for e in found],
            "last_sequence": found[-1].sequence if found else after,
        }

    @get(
        "/{check_id:str}/stream",
        sync_to_thread=True,
        summary="Live events (server-sent events)",
        media_type="text/event-stream",
        response_description="text/event-stream: one message per event (id = sequence, "
        "event = kind, data = the event as in /events, an EventBody); ends after the check's "
        "last event, at once when resumed at it",
        responses=problem_responses(400, 401, 403, 404, 422),
        opt={"event_data": "EventBody"},
    )
    def stream(
        self,
        request: Request[Any, Any, Any],
        check_id: str,
        after: int | None = Parameter(
            default=None,
            ge=0,
            le=MAX_SEQUENCE,
            description="start after this sequence (else Last-Event-ID, else 0)",
        ),
    ) -> ServerSentEvent:
        """Moves and the result as they happen, to the player, spectators and the GM. Resume
        with ``Last-Event-ID`` (or ``?after=``); browsers read it with ``fetch`` because
        ``EventSource`` cannot send the Authorization header (docs/api.md). Resumed at an
        ended check's last event it ends at once; beyond the last event it is 422
        ``beyond-last-event``, naming the last."""
        rt = _runtime(request)
        check_role(request, rt.settings, rt.store, check_id)
        start = after if after is not None else _last_event_id(request)
        last, ended = rt.store.last_event(check_id)
        _refuse_beyond_last(start, last, "after" if after is not None else "Last-Event-ID")
        if ended and start == last:  # the client has the terminal event: nothing more comes
            return _live_response(_no_events())

        def read(since: int) -> list[dict[str, Any]]:
            return [e.to_dict() for e in rt.service.events(check_id, since)]

        client = request.client.host if request.client is not None else "unknown"

        def still_allowed() -> bool:
            try:
                check_role(request, rt.settings, rt.store, check_id, fresh=True)
            except ApiProblem:
                return False
            return True

        release = rt.streams.claim(check_id, client)
        stream = event_stream(
            rt.channels,
            read,
            check_id,
            start,
            still_allowed=still_allowed,
            max_seconds=float(rt.settings.stream_seconds),
        )
        return _live_response(stream, release)

    @get(
        "/{check_id:str}/webhook",
        sync_to_thread=True,
        summary="The check's webhook deliveries",
        responses=problem_responses(400, 401, 403, 404),
    )
    def webhook(self, request: Request[Any, Any, Any], check_id: str) -> WebhookBody:
        """GM only: the callback URL and each delivery's status, attempts and last error (the
        secret is not shown again)."""
        rt = _runtime(request)
        role = check_role(request, rt.settings, rt.store, check_id)
        require(role, Role.GM, action="reading a check's webhook deliveries")
        hook = rt.outbox.webhook(check_id)
        return {
            "url": None if hook is None else hook.url,
            "deliveries": [_delivery(d) for d in rt.outbox.deliveries(check_id)],
        }

    @post(
        "/{check_id:str}/tokens/player",
        sync_to_thread=True,
        status_code=200,
        summary="Re-issue the player's token (GM)",
        responses=problem_responses(400, 401, 403, 404),
    )
    def new_player_token(
        self, request: Request[Any, Any, Any], check_id: str
    ) -> Response[TokenBody]:
        """GM only: a new player token and link; the old player link stops working at once
        (its open streams end)."""
        return _reissue(request, check_id, "player")

    @post(
        "/{check_id:str}/tokens/spectator",
        sync_to_thread=True,
        status_code=200,
        summary="Re-issue the spectators' token (GM)",
        responses=problem_responses(400, 401, 403, 404),
    )
    def new_spectator_token(
        self, request: Request[Any, Any, Any], check_id: str
    ) -> Response[TokenBody]:
        """GM only: a new spectator token and link; the old spectator link stops working at
        once (its open streams end)."""
        return _reissue(request, check_id, "spectator")


def _reissue(
    request: Request[Any, Any, Any], check_id: str, which: Literal["player", "spectator"]
) -> Response[TokenBody]:
    rt = _runtime(request)
    role = check_role(request, rt.settings, rt.store, check_id)
    require(role, Role.GM, action=f"re-issuing the {which} token")
    token = new_token(_PREFIXES[which])
    if not rt.store.rotate_token(check_id, which, sha256_hex(token)):
        raise ApiProblem(404, "check-not-found", f"there is no check {quoted(check_id)}")
    # Every open stream of the check asks again; every process drops its cached credentials.
    _bridge(request).publish((ACCESS_CHANGED, channel_for(check_id)), (check_id, ACCESS_CHANNEL))
    base = rt.settings.public_url or root_path(request)
    body: TokenBody = {
        "check_id": check_id,
        "role": which,
        "token": token,
        "link": play_link(base, check_id, rt.store.load(check_id).config.game, token),
    }
    return Response(body, headers={"Cache-Control": "no-store"})


def _change_id(request: Request[Any, Any, Any]) -> Any:
    """The time a GM's list stream resumes from (``Last-Event-ID``), or None."""
    header = request.headers.get("last-event-id")
    if header is None or not header.strip():
        return None
    text = header.strip()
    if not (text.isascii() and text.isdigit()) or int(text) > MAX_CHANGE_ID:
        raise ApiProblem(
            400,
            "invalid-last-event-id",
            f"Last-Event-ID must be the id of a message of this stream (a whole number up to "
            f"{MAX_CHANGE_ID}), not {quoted(header)}",
            field="Last-Event-ID",
        )
    return time_of_change_id(int(text))


def _refuse_beyond_last(after: int, last: int, field: str) -> None:
    """422 ``beyond-last-event`` when ``after`` (a query's ``after`` or ``Last-Event-ID``) names
    a sequence the check has not reached: its events are numbered 1 to ``last`` without gaps,
    so a client that asks for more than that has lost track, and saying so (with the real last
    sequence) beats a page or a stream that waits for events that are already there."""
    if after <= last:
        return
    raise ApiProblem(
        422,
        "beyond-last-event",
        f"{field} {after} is beyond the check's last event, number {last}: {field} is the "
        f"sequence of the last event you saw, 0 to {last}",
        field=field,
        last_sequence=last,
    )


async def _no_events() -> AsyncGenerator[ServerSentEventMessage, None]:
    """The stream of a check whose terminal event the client already has: it ends at once."""
    return
    yield  # pragma: no cover (makes this an async generator)


def _last_event_id(request: Request[Any, Any, Any]) -> int:
    header = request.headers.get("last-event-id")
    if header is None or not header.strip():
        return 0
    number = _sequence_number(header.strip())
    if number is None:
        raise ApiProblem(
            400,
            "invalid-last-event-id",
            f"Last-Event-ID must be an event's sequence number (a whole number up to "
            f"{MAX_SEQUENCE}), not {quoted(header)}",
            field="Last-Event-ID",
        )
    return number


def _delivery(d: WebhookDelivery) -> DeliveryBody:
    return {
        "id": d.id,
        "type": d.event_type,
        "status": cast(Any, d.status.value),
        "attempts": d.attempts,
        # only a pending delivery has a next attempt; a delivered or failed one has none
        "next_attempt_at": (
            d.next_attempt_at.isoformat() if d.status is DeliveryStatus.PENDING else None
        ),
        "last_attempt_at": None if d.last_attempt_at is None else d.last_attempt_at.isoformat(),
        "last_error": d.last_error,
    }
