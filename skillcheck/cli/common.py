"""What every command shares: consoles, the red error line and its exit status, JSON output."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, NoReturn

import click
from rich.console import Console
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from skillcheck.engine import Outcome, State
from skillcheck.errors import SkillcheckError

#: Exit status for bad parameters and other errors reported by the library (as click's usage
#: errors); ``verify`` uses 1 for a record that does not check out.
EXIT_ERROR = 2
EXIT_INVALID_RECORD = 1


def stdout() -> Console:
    # Built per call so that click's test runner (which swaps sys.stdout) captures the output.
    return Console(highlight=False)


def stderr() -> Console:
    return Console(stderr=True, highlight=False)


def fail(message: str, status: int = EXIT_ERROR) -> NoReturn:
    """Print ``message`` in red on stderr and exit with ``status``."""
    stderr().print(Text(message, style="bold red"), soft_wrap=True)
    raise click.exceptions.Exit(status)


@contextmanager
def library_errors(status: int = EXIT_ERROR) -> Iterator[None]:
    """Report any :class:`SkillcheckError` as a red message and an exit status, no traceback."""
    try:
        yield
    except SkillcheckError as exc:
        fail(exc.message, status)


def print_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False))


def outcome_panel(outcome: Outcome, state: State[Any]) -> Panel:
    """The outcome of a check in a box, titled by its tier (CRITICAL SUCCESS, SUCCESS,
    FAILURE, CRITICAL FAILURE, by the game's default thresholds): why, its degree, the moves
    made."""
    success = outcome.success
    tier = state.game.tier(outcome)
    title = tier.text.upper()
    style = "green" if success else "red"
    body = Table.grid(padding=(0, 2))
    body.add_column(style="bold")
    body.add_column()
    body.add_row("Result", Text(tier.text, style=f"bold {style}"))
    body.add_row("Outcome", Text(outcome.summary))
    body.add_row("Degree of success", Text(f"{outcome.degree:+d}", style=f"bold {style}"))
    body.add_row("Moves made", str(len(state.moves)))
    return Panel(body, title=Text(title, style=f"bold {style}"), border_style=style, expand=False)
