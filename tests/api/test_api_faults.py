"""Crash safety of the HTTP API (benchmarks/api_faults.py): the server is SIGKILLed twice under
load and restarted on the same SQLite file; every acknowledged move must be in the log exactly
once and every check's revealed record must replay."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from api_faults import run_faults


@pytest.mark.slow
def test_acknowledged_moves_survive_sigkill_exactly_once() -> None:
    report = run_faults(players=6, seconds=10.0, kills=2, seed=7, move_limit=30)
    assert report.violations == []
    assert report.kills == 2 and report.restarts == 2
    assert report.acknowledged >= 30, report
    assert report.retries > 0, "the kills interrupted no request: nothing was tested"
    assert report.records_verified == report.checks > 0
