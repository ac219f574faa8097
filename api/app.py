"""The application factory."""

from __future__ import annotations

import logging
from typing import Any

import anyio.to_thread
from advanced_alchemy.extensions.litestar import SQLAlchemyPlugin
from litestar import Litestar, Request
from litestar.config.cors import CORSConfig
from litestar.datastructures import Headers, MutableScopeHeaders, State
from litestar.enums import ScopeType
from litestar.exceptions import HTTPException
from litestar.middleware.rate_limit import RateLimitConfig
from litestar.openapi import OpenAPIConfig
from litestar.openapi.plugins import JsonRenderPlugin
from litestar.openapi.spec import Components, SecurityScheme
from litestar.stores.base import Store
from litestar.stores.memory import MemoryStore
from litestar.stores.redis import RedisStore
from litestar.types import ASGIApp, Message, Receive, Scope, Send
from sqlalchemy.exc import SQLAlchemyError

import skillcheck.games  # noqa: F401  (registers the built-in and plug-in games)
from api.db import database_config, migrate
from api.docs_page import OfflineDocsPlugin
from api.foundry import FOUNDRY_HANDLERS
from api.live import Bridge, make_channels
from api.odds import OddsController, OddsRunner
from api.openapi import tell_the_truth
from api.outbox import SqlOutbox
from api.pages import PAGE_HANDLERS
from api.problems import (
    domain_error_handler,
    http_error_handler,
    internal_error_handler,
    problem_response,
    title_for,
)
from api.routes import ChecksController, GamesController, Runtime, health, index
from api.settings import Settings
from api.store import SqlCheckStore
from api.strict import strict_request
from api.webhooks import WebhookDispatcher
from skillcheck.engine import GAMES
from skillcheck.errors import SkillcheckError, quoted
from skillcheck.sessions import CheckEvent, SessionService

__all__ = ["create_app"]

logger = logging.getLogger("api")

#: Request bodies are small JSON objects; anything bigger is refused with 413.
MAX_BODY_BYTES = 64 * 1024
#: The request headers a browser script on an allowed origin may send (CORS).
_CORS_HEADERS = ("Authorization", "Content-Type", "If-Match", "Idempotency-Key", "Last-Event-ID")


def _security_headers(settings: Settings) -> Any:
    """Every response says who may frame it (``frame-ancestors`` from the settings: VTTs embed
    the player's page) and forbids type sniffing; a policy a handler set is kept and extended."""
    ancestors = " ".join(("'self'", *settings.frame_ancestors))
    frame_policy = f"frame-ancestors {ancestors}"

    def middleware(app: ASGIApp) -> ASGIApp:
        async def wrapped(scope: Scope, receive: Receive, send: Send) -> None:
            if scope["type"] != ScopeType.HTTP:
                await app(scope, receive, send)
                return

            async def sending(message: Message) -> None:
                if message["type"] == "http.response.start":
                    headers = MutableScopeHeaders.from_message(message)
                    own = headers.get("Content-Security-Policy")
                    headers["Content-Security-Policy"] = (
                        f"{own.rstrip('; ')}; {frame_policy}" if own else frame_policy
                    )
                    headers["X-Content-Type-Options"] = "nosniff"
                await send(message)

            await app(scope, receive, sending)

        return wrapped

    return middleware


#: Request headers every browser may send without asking (Litestar's CORS check allows them).
_SAFE_HEADERS = ("Accept", "Accept-Language", "Content-Language", "Content-Type")


def _preflight_refusal(config: CORSConfig, headers: Headers) -> tuple[str, str] | None:
    """Why a CORS preflight is refused, as Litestar's CORS middleware decides it (the same three
    checks: the origin, the method, the request headers), in words naming what was refused and
    what is allowed, with the header at fault first; None when it is allowed."""
    origin = headers.get("origin") or ""
    method = headers.get("access-control-request-method")
    asked = [
        h.strip() for h in headers.get("access-control-request-headers", "").split(",") if h.strip()
    ]
    said: list[tuple[str, str]] = []
    if not config.is_origin_allowed(origin):
        said.append((
            "Origin",
            f"the origin {quoted(origin)} may not call this API from a browser script: the "
            f"allowed origins are {', '.join(config.allow_origins)} (SKILLCHECK_CORS_ORIGINS)",
        ))  # fmt: skip
    if method and not config.is_allow_all_methods and method not in config.allow_methods:
        allowed = " and ".join(m for m in config.allow_methods if m != "OPTIONS")
        said.append((
            "Access-Control-Request-Method",
            f"the method {quoted(method)} is not allowed from a browser: only {allowed} are",
        ))  # fmt: skip
    if asked and not config.is_allow_all_headers:
        allowed_headers = {h.lower() for h in (*config.allow_headers, *_SAFE_HEADERS)}
        refused = [h for h in asked if h.lower() not in allowed_headers]
        safe = [h for h in _SAFE_HEADERS if h not in _CORS_HEADERS]
        if refused:
            names = ", ".join(quoted(h) for h in refused)
            said.append((
                "Access-Control-Request-Headers",
                f"the request header{'s' if len(refused) > 1 else ''} {names} "
                f"{'are' if len(refused) > 1 else 'is'} not allowed from a browser: the "
                f"allowed ones are {', '.join(_CORS_HEADERS)} (and {', '.join(safe)})",
            ))  # fmt: skip
    if not said:
        return None
    return said[0][0], "CORS preflight refused: " + "; ".join(text for _, text in said)


def _cors_refusals(app: ASGIApp, config: CORSConfig) -> ASGIApp:
    """Answer a refused CORS preflight (``OPTIONS`` with ``Origin``) with a problem, 400
    ``cors-refused`` naming what was refused and what is allowed, where Litestar's CORS
    middleware answers 400 in plain text ("Disallowed CORS Origin"); an allowed one, and every
    other request, goes on to it unchanged. No CORS headers either way: the browser refuses."""

    async def guarded(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == ScopeType.HTTP and scope.get("method") == "OPTIONS":
            headers = Headers.from_scope(scope)
            refusal = _preflight_refusal(config, headers) if headers.get("origin") else None
            if refusal is not None:
                field, detail = refusal
                request: Request[Any, Any, Any] = scope["litestar_app"].request_class(
                    scope=scope, receive=receive, send=send
                )
                response = problem_response(
                    request, 400, "cors-refused", title_for("cors-refused", 400), detail,
                    field=field,
                )  # fmt: skip
                await response.to_asgi_response(app=None, request=request)(scope, receive, send)
                return
        await app(scope, receive, send)

    return guarded


def _stores(settings: Settings) -> dict[str, Store]:
    """Rate-limit counters and the odds cache: in Redis when configured (shared by every API
    process), else in this process's memory."""
    names = ("rate_limit", "odds")
    if settings.redis_url:
        from redis.asyncio import Redis

        redis = Redis.from_url(settings.redis_url)
        prefix = settings.redis_prefix
        return {name: RedisStore(redis, namespace=f"{prefix}:{name}") for name in names}
    return {name: MemoryStore() for name in names}


def _rate_limit(settings: Settings) -> RateLimitConfig | None:
    """Requests per client address; /health, the docs and the player's page are exempt."""
    if settings.rate_limit is None:
        return None
    unit, count = settings.rate_limit
    return RateLimitConfig(
        rate_limit=(unit, count),  # type: ignore[arg-type]
        exclude=["/health", "/schema", "/play"],
        store="rate_limit",
    )


def _middleware(settings: Settings) -> list[Any]:
    limits = _rate_limit(settings)
    security = _security_headers(settings)
    return [security] if limits is None else [security, limits.middleware]


def _description() -> str:
    """The API's description in the OpenAPI document, from the game registry."""
    games = "; ".join(f"{cls.title} ({name}): {cls.summary}" for name, cls in GAMES.items())
    return (
        f"Card mini-games as RPG skill checks. The games: {games or 'none installed'}. "
        "GET /v1/games lists them with their parameters (docs/api.md)."
    )


def create_app(settings: Settings | None = None) -> Litestar:
    """Build the API for ``settings`` (default: read from the environment)."""
    settings = Settings.from_env() if settings is None else settings
    db_config = database_config(settings.database_url)
    store = SqlCheckStore(db_config)
    service = SessionService(store)
    channels = make_channels(settings.redis_url, settings.redis_prefix)
    bridge = Bridge(service, channels, store)
    outbox = SqlOutbox(
        db_config, base_url=settings.public_url, allow_private=settings.webhooks_allow_private
    )
    dispatcher = WebhookDispatcher(
        outbox, outbox.signer_for, allow_private=settings.webhooks_allow_private
    )
    runtime = Runtime(settings, store, service, channels, outbox)

    def enqueue_result(event: CheckEvent) -> None:
        delivery = outbox.delivery_for(event)
        if delivery is not None and outbox.enqueue(delivery):
            dispatcher.wake()

    service.subscribe(enqueue_result)
    odds_runner = OddsRunner()

    async def on_startup() -> None:
        anyio.to_thread.current_default_thread_limiter().total_tokens = settings.threads
        if settings.migrate_on_startup:
            await anyio.to_thread.run_sync(migrate, db_config)
        await bridge.start()
        try:
            await anyio.to_thread.run_sync(outbox.enqueue_missing)
        except SQLAlchemyError:  # the database may come up later; /health says so meanwhile
            logger.exception("cannot look for webhooks left unsent; the next start will")
        await dispatcher.start()

    async def on_shutdown() -> None:
        await dispatcher.stop()
        await bridge.stop()
        odds_runner.shutdown()

    cors = None
    if settings.cors_origins:
        cors = CORSConfig(
            allow_origins=list(settings.cors_origins),
            allow_methods=["GET", "POST", "OPTIONS"],
            allow_headers=list(_CORS_HEADERS),
            expose_headers=[
                "ETag",
                "Location",
                "Retry-After",
                "RateLimit-Limit",
                "RateLimit-Remaining",
                "RateLimit-Reset",
                "RateLimit-Policy",
                "X-Cache",
            ],
            max_age=600,
        )
    app = Litestar(
        route_handlers=[
            GamesController,
            ChecksController,
            OddsController,
            health,
            index,
            *PAGE_HANDLERS,
            *FOUNDRY_HANDLERS,
        ],
        on_startup=[on_startup],
        on_shutdown=[on_shutdown],
        plugins=[SQLAlchemyPlugin(config=db_config), channels],
        state=State({"runtime": runtime, "odds_runner": odds_runner, "bridge": bridge}),
        stores=_stores(settings),
        middleware=_middleware(settings),
        exception_handlers={
            SkillcheckError: domain_error_handler,
            HTTPException: http_error_handler,
            Exception: internal_error_handler,
        },
        cors_config=cors,
        before_request=strict_request,
        request_max_body_size=MAX_BODY_BYTES,
        openapi_config=OpenAPIConfig(
            title="skillcheck API",
            version="1",
            description=_description(),
            path="/schema",
            components=Components(
                security_schemes={
                    "bearer": SecurityScheme(
                        type="http",
                        scheme="bearer",
                        description="A GM key, or a check's player or spectator token",
                    )
                }
            ),
            security=[{"bearer": []}],
            render_plugins=[OfflineDocsPlugin(), JsonRenderPlugin()],
        ),
    )
    tell_the_truth(app)  # the document says what the server does (api/openapi.py)
    if cors is not None:
        app.asgi_handler = _cors_refusals(app.asgi_handler, cors)
    return app
