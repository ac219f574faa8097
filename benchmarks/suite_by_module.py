"""Where the test suite's time goes: the seconds of each test module, summed from a JUnit XML
report, heaviest first (docs/performance.md, "The test suite").

    python3 -m pytest --junitxml=/tmp/suite.xml
    python3 benchmarks/suite_by_module.py /tmp/suite.xml [--top 10]

The total is the work of all xdist workers together; the wall time is about that divided by
the number of workers when they are kept equally busy.
"""

from __future__ import annotations

import argparse
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path


def seconds_by_module(report: Path) -> Counter[str]:
    totals: Counter[str] = Counter()
    for case in ET.parse(report).iter("testcase"):
        # classname is "tests.api.test_x" or "tests.test_x.TestClass": the module's path
        parts = [p for p in case.get("classname", "").split(".") if p and not p[0].isupper()]
        totals["/".join(parts) + ".py"] += float(case.get("time", 0))
    return totals


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("report", type=Path, help="pytest --junitxml output")
    parser.add_argument("--top", type=int, default=10, help="modules to list")
    args = parser.parse_args()
    totals = seconds_by_module(args.report)
    print(f"{sum(totals.values()):8.0f} s  all {len(totals)} modules")
    for module, seconds in totals.most_common(args.top):
        print(f"{seconds:8.1f} s  {module}")


if __name__ == "__main__":
    main()
