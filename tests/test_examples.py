"""The examples in examples/ run as documented."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_embedding_example_resolves_checks_and_prints_records() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "embed_check.py")],
        capture_output=True, text=True, check=True, timeout=120,
    )  # fmt: skip
    lines = result.stdout.splitlines()
    verdicts = [line for line in lines if " succeeds " in line or " fails " in line]
    assert len(verdicts) == 2
    assert all("degree" in line for line in verdicts)
    assert sum('"format": "skillcheck-record/1"' in line for line in lines) == 2
