"""The skillcheck HTTP API: a thin Litestar layer over :mod:`skillcheck.sessions`.

``api.app.create_app`` builds the application; ``api.main.run`` serves it with uvicorn. The
library never imports this package. See docs/api.md.
"""

from __future__ import annotations

__all__: list[str] = []
