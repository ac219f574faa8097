"""What every command shares: consoles, the red error line and its exit status, JSON output."""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Callable, Iterator
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


#: How often, in seconds, progress is written as a plain line when stderr is not a terminal.
PLAIN_PROGRESS_SECONDS = 10.0


@contextmanager
def progress_bar(description: str) -> Iterator[Callable[..., None]]:
    """Progress of long work on stderr, as ``update(done, total, description=None)``: rich's
    bar on a terminal; elsewhere (a log, a CI job, a pipe) a plain line at once and then at most
    every :data:`PLAIN_PROGRESS_SECONDS` and at the end, so a long run never looks dead."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    console = stderr()
    if console.is_terminal:
        progress = Progress(
            "[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
            TimeRemainingColumn(), console=console, transient=True,
        )  # fmt: skip
        with progress:
            task = progress.add_task(description, total=None)

            def bar(done: int, total: int, description: str | None = None) -> None:
                progress.update(task, completed=done, total=total)
                if description is not None:
                    progress.update(task, description=description)

            yield bar
        return
    started, last, title = time.monotonic(), [-math.inf], description

    def line(done: int, total: int, description: str | None = None) -> None:
        now = time.monotonic()
        if done < total and now - last[0] < PLAIN_PROGRESS_SECONDS:
            return
        last[0] = now
        share = f"{100 * done // total} %, " if total else ""
        what = description or title
        console.print(f"{what}: {done}/{total} ({share}{now - started:.0f} s)", soft_wrap=True)

    yield line


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
