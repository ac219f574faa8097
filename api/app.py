"""The application factory."""

from __future__ import annotations

from typing import Any

from advanced_alchemy.extensions.litestar import SQLAlchemyPlugin
from litestar import Litestar
from litestar.config.cors import CORSConfig
from litestar.datastructures import MutableScopeHeaders, State
from litestar.enums import ScopeType
from litestar.exceptions import HTTPException
from litestar.openapi import OpenAPIConfig
from litestar.openapi.plugins import JsonRenderPlugin
from litestar.types import ASGIApp, Message, Receive, Scope, Send

from api.db import database_config, migrate
from api.docs_page import OfflineDocsPlugin
from api.pages import PAGE_HANDLERS
from api.problems import domain_error_handler, http_error_handler, internal_error_handler
from api.routes import ChecksController, GamesController, Runtime, health
from api.settings import Settings
from api.store import SqlCheckStore
from skillcheck.errors import SkillcheckError
from skillcheck.sessions import SessionService

__all__ = ["create_app"]

#: Request bodies are small JSON objects; anything bigger is refused with 413.
MAX_BODY_BYTES = 64 * 1024


def _security_headers(settings: Settings) -> Any:
    ancestors = " ".join(("'self'", *settings.frame_ancestors))
    csp = f"frame-ancestors {ancestors}".encode("latin-1")

    def middleware(app: ASGIApp) -> ASGIApp:
        async def wrapped(scope: Scope, receive: Receive, send: Send) -> None:
            if scope["type"] != ScopeType.HTTP:
                await app(scope, receive, send)
                return

            async def sending(message: Message) -> None:
                if message["type"] == "http.response.start":
                    headers = MutableScopeHeaders.from_message(message)
                    headers["Content-Security-Policy"] = csp.decode("latin-1")
                    headers["X-Content-Type-Options"] = "nosniff"
                await send(message)

            await app(scope, receive, sending)

        return wrapped

    return middleware


def create_app(settings: Settings | None = None) -> Litestar:
    """Build the API for ``settings`` (default: read from the environment)."""
    settings = Settings.from_env() if settings is None else settings
    db_config = database_config(settings.database_url)
    store = SqlCheckStore(db_config)
    runtime = Runtime(settings, store, SessionService(store))

    def on_startup() -> None:
        if settings.migrate_on_startup:
            migrate(db_config)

    cors = None
    if settings.cors_origins:
        cors = CORSConfig(
            allow_origins=list(settings.cors_origins),
            allow_methods=["GET", "POST", "OPTIONS"],
            allow_headers=["Authorization", "Content-Type", "If-Match", "Idempotency-Key"],
            expose_headers=["ETag", "Location"],
            max_age=600,
        )
    return Litestar(
        route_handlers=[GamesController, ChecksController, health, *PAGE_HANDLERS],
        on_startup=[on_startup],
        plugins=[SQLAlchemyPlugin(config=db_config)],
        state=State({"runtime": runtime}),
        exception_handlers={
            SkillcheckError: domain_error_handler,
            HTTPException: http_error_handler,
            Exception: internal_error_handler,
        },
        cors_config=cors,
        middleware=[_security_headers(settings)],
        request_max_body_size=MAX_BODY_BYTES,
        openapi_config=OpenAPIConfig(
            title="skillcheck API",
            version="1",
            description="Decktet card mini-games as RPG skill checks (docs/api.md).",
            path="/schema",
            render_plugins=[OfflineDocsPlugin(), JsonRenderPlugin()],
        ),
    )
