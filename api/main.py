"""``run()``: serve the API with uvicorn, configured from the environment (docs/api.md)."""

from __future__ import annotations

import uvicorn

from api.settings import Settings

__all__ = ["run"]


def run(settings: Settings | None = None) -> None:
    """Start uvicorn on ``SKILLCHECK_HOST``:``SKILLCHECK_PORT`` (127.0.0.1:8000 by default)
    with ``SKILLCHECK_WORKERS`` processes; each builds the app from the environment."""
    settings = Settings.from_env() if settings is None else settings
    if settings.workers > 1:
        uvicorn.run(
            "api.app:create_app",
            factory=True,
            host=settings.host,
            port=settings.port,
            workers=settings.workers,
        )
        return
    from api.app import create_app

    uvicorn.run(create_app(settings), host=settings.host, port=settings.port)


if __name__ == "__main__":
    run()
