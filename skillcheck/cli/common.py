"""What every command shares: consoles, the red error line and its exit status, JSON output."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
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


class OutputFile(click.ParamType):  # type: ignore[type-arg]
    """A file a command will write (``-`` is stdout when ``dash``): refused before any work
    when its folder does not exist or cannot be written, or it names a folder."""

    name = "file"

    def __init__(self, *, dash: bool = False) -> None:
        self.dash = dash

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Path:
        path = Path(value)
        if self.dash and str(value) == "-":
            return path
        folder = path.parent
        if path.is_dir():
            self.fail(f"{value} is a folder: give a file name", param, ctx)
        if not folder.is_dir():
            self.fail(f"cannot write {value}: there is no folder {folder}", param, ctx)
        if not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
            self.fail(f"cannot write {value}: permission denied", param, ctx)
        return path


def write_file(path: Path, text: str) -> None:
    """Write ``text`` to ``path``; a failure (the disk full, the folder gone since) is the red
    error line, not a traceback."""
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        fail(f"cannot write {path}: {exc.strerror or exc}")


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
