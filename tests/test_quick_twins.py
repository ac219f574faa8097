"""The suite's own scheduling rule (tests/conftest.py): a quick property test marked
``quick_twin_of(name)`` is deselected when its slow twin ``name`` is collected, and runs when
the twin is not (``-m "not slow"``, or no twin at all)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

HOOK = "pytest_collection_modifyitems"

TWINS = """
import pytest

@pytest.mark.quick_twin_of("test_check_long")
@pytest.mark.parametrize("n", [1, 2])
def test_check(n):
    pass

@pytest.mark.slow
@pytest.mark.parametrize("n", [1, 2])
def test_check_long(n):
    pass

@pytest.mark.quick_twin_of("test_nowhere_long")
def test_alone():
    pass
"""


def suite_hook() -> str:
    """The source of the suite's collection hook, with its decorator."""
    source = (Path(__file__).parent / "conftest.py").read_text()
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef) and node.name == HOOK:
            start = min([d.lineno for d in node.decorator_list] + [node.lineno])
            lines = source.splitlines()[start - 1 : node.end_lineno]
            return "\n".join(lines) + "\n"
    raise AssertionError(f"tests/conftest.py defines no {HOOK}")


@pytest.fixture
def twins(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeconftest("import pytest\n\n\n" + suite_hook())
    pytester.makeini(
        "[pytest]\nmarkers =\n    slow: long\n    quick_twin_of(name): a quick run of name\n"
    )
    pytester.makepyfile(test_twins=TWINS)
    return pytester


def test_with_its_slow_twin_the_quick_test_is_deselected(twins: pytest.Pytester) -> None:
    run = twins.runpytest("-p", "no:xdist", "-p", "no:cacheprovider", "-v", "--strict-markers")
    run.assert_outcomes(passed=3, deselected=2)
    run.stdout.fnmatch_lines(["*test_check_long?1? PASSED*", "*test_alone PASSED*"])
    run.stdout.no_fnmatch_line("*test_check?1? PASSED*")


def test_without_the_slow_tests_the_quick_twin_runs(twins: pytest.Pytester) -> None:
    run = twins.runpytest("-p", "no:xdist", "-p", "no:cacheprovider", "-v", "-m", "not slow")
    run.assert_outcomes(passed=3, deselected=2)
    run.stdout.fnmatch_lines(["*test_check?1? PASSED*", "*test_check?2? PASSED*"])
    run.stdout.no_fnmatch_line("*test_check_long*PASSED*")
