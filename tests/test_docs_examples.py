"""The Python examples of the README and the docs run as printed: a new user pastes them first.

Every ```python block of README.md runs, and every block of docs/ that starts with an import
from ``skillcheck`` (the others are excerpts of a module or a receiver's handler, which name
things defined elsewhere)."""

from __future__ import annotations

import contextlib
import io
import os
import re
from pathlib import Path

import pytest
from _pytest.mark.structures import ParameterSet
from click.testing import CliRunner

from skillcheck.cli import main

ROOT = Path(__file__).resolve().parent.parent
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def _blocks() -> list[ParameterSet]:
    found: list[ParameterSet] = []
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for number, code in enumerate(BLOCK.findall(path.read_text(encoding="utf-8")), 1):
            if path.name == "README.md" or code.startswith("from skillcheck"):
                name = f"{path.relative_to(ROOT)}#{number}"
                found.append(pytest.param(code, id=name))
    return found


def test_the_readme_has_a_runnable_example() -> None:
    assert any("README" in p.id for p in _blocks())


@pytest.mark.parametrize("code", _blocks())
def test_example_runs_as_printed(code: str) -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "<example>", "exec"), {"__name__": "__example__"})
    assert out.getvalue() or "print(" not in code


CALIBRATE = "skillcheck calibrate three-towers --suit moons --skill 6 --target 0.6"


@pytest.mark.parametrize("doc", ["cli.md", "odds.md"])
def test_the_printed_calibration_is_what_the_command_prints(doc: str) -> None:
    """The docs print a calibration from the shipped tables; when the tables change, so must the
    docs (they once showed 20 deals per value and quota 5 chosen, long after the tables grew)."""
    text = (ROOT / "docs" / doc).read_text(encoding="utf-8")
    printed = re.search(rf"\$ {re.escape(CALIBRATE)}\n(.*?)\n(?:\$ |```)", text, re.S)
    assert printed is not None, f"docs/{doc} no longer shows {CALIBRATE}"
    result = CliRunner().invoke(main, CALIBRATE.split()[1:], env={**os.environ, "COLUMNS": "100"})
    assert result.exit_code == 0, result.output
    assert [line.rstrip() for line in result.stdout.splitlines()] == printed.group(1).splitlines()
