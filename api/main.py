"""``skillcheck-api``: the same as ``skillcheck serve`` (options and SKILLCHECK_* variables:
docs/api.md), for deployments that install the service alone."""

from __future__ import annotations

from api.cli import serve

__all__ = ["run"]


def run() -> None:
    """Serve the API; see ``skillcheck serve --help``."""
    serve(prog_name="skillcheck-api")


if __name__ == "__main__":
    run()
