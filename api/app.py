"""The application factory."""

from __future__ import annotations

import logging
from typing import Any

import anyio.to_thread
from advanced_alchemy.extensions.litestar import SQLAlchemyPlugin
from litestar import Litestar
from litestar.config.cors import CORSConfig
from litestar.datastructures import MutableScopeHeaders, State
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
from api.problems import domain_error_handler, http_error_handler, internal_error_handler
from api.routes import ChecksController, GamesController, Runtime, health, index
from api.settings import Settings
from api.store import SqlCheckStore
from api.strict import strict_request
from api.webhooks import WebhookDispatcher
from skillcheck.engine import GAMES
from skillcheck.errors import SkillcheckError
from skillcheck.sessions import CheckEvent, SessionService

__all__ = ["create_app"]

logger = logging.getLogger("api")

#: Request bodies are small JSON objects; anything bigger is refused with 413.
MAX_BODY_BYTES = 64 * 1024


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
            allow_headers=[
                "Authorization",
                "Content-Type",
                "If-Match",
                "Idempotency-Key",
                "Last-Event-ID",
            ],
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
    return app
