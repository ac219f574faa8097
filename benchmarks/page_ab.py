"""The player's page as it is against the page of another commit, load for load: the first render
of each, alternately, on the same check and the same (calibrated) phone (docs/performance.md).

    python3 benchmarks/page_ab.py --base HEAD~1 --games tripeaks
    python3 benchmarks/page_ab.py --base 09e12b6 --device low-tier --loads 12 --view-after 1000

A machine shared with others wanders up to twice as slow within minutes, so two runs of
page_render.py, one per version, differ by more than most changes of the page do. Here both
versions load in the same run, one after the other, under one calibration, and the difference
is taken load by load.

The real API runs in a subprocess (benchmarks/_api_harness.py) from the working tree. The base
version's page is the working tree's page with its static files (``api/static/``: modules,
stylesheets; served under ``/play-assets/``) taken from ``--base`` instead (a Playwright
route; the other version's loads are routed too, to the working tree's own files, so both
go through the same route and neither has the browser's cache). The HTML comes from the
server, so a change of play.html is not compared (the script says when the two differ).

Per game and viewport it prints, for each version, view -> drawn and view -> painted (p50 /
p90; from the view response's last byte, as page_render.py measures), whether the check's game
had been rehearsed before the view came, the layout shift, and the median of the load-by-load
difference of view -> painted with the share of pairs the working tree won. Motion is reduced
unless ``--motion`` (then the first table is dealt, as most players see it).
"""

from __future__ import annotations

import argparse
import mimetypes
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _api_harness import ROOT, percentile
from _cpu import DEVICE_SCORES, calibrate
from page_render import (
    MEASURE,
    SHIFTS,
    VIEWPORTS,
    load_until_painted,
    make_check,
    new_page,
    served_chromium,
)

from skillcheck.engine import GAMES

STATIC = "api/static"

#: Whether the check's game was rehearsed before its view came (api/static/play.js marks it).
REHEARSED = """(game) => {
  const fetched = performance.getEntriesByType("resource").filter(
    (e) => e.initiatorType === "fetch" && /\\/v1\\/checks\\/[^/?]+$/.test(e.name.split("?")[0]));
  const rehearsed = performance.getEntriesByName("skillcheck:rehearsed:" + game);
  return fetched.length > 0 && rehearsed.some((m) => m.startTime < fetched[0].responseEnd);
}"""


def files_at(commit: str) -> dict[str, bytes]:
    """The page's static files at ``commit``: name under api/static -> bytes."""
    listed = subprocess.run(
        ["git", "ls-tree", "-r", "--name-only", commit, STATIC + "/"],
        cwd=ROOT, check=True, capture_output=True, text=True,
    ).stdout.split()  # fmt: skip
    return {
        path[len(STATIC) + 1 :]: subprocess.run(
            ["git", "show", f"{commit}:{path}"], cwd=ROOT, check=True, capture_output=True
        ).stdout
        for path in listed
    }


def files_here() -> dict[str, bytes]:
    """The working tree's static files."""
    folder = ROOT / STATIC
    return {
        str(path.relative_to(folder)): path.read_bytes()
        for path in folder.rglob("*")
        if path.is_file()
    }


def serving(files: dict[str, bytes]) -> Any:
    """A route handler answering ``/play-assets/{build}/{name}`` from ``files`` (404 if absent).
    (One argument: Playwright passes the request too to a handler taking two.)"""

    def answer(route: Any) -> None:
        name = route.request.url.split("?", 1)[0].split("/play-assets/", 1)[1].split("/", 1)[1]
        body = files.get(name)
        if body is None:
            route.fulfill(status=404)
            return
        kind = mimetypes.guess_type(name)[0] or "application/octet-stream"
        if name.endswith(".js"):
            kind = "text/javascript"
        route.fulfill(status=200, body=body, headers={"Content-Type": kind})

    return answer


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--base", required=True, help="the commit whose page is compared")
    parser.add_argument("--games", nargs="*", choices=sorted(GAMES), default=sorted(GAMES))
    parser.add_argument("--viewports", nargs="*", choices=sorted(VIEWPORTS), default=["phone"])
    parser.add_argument("--loads", type=int, default=10, help="loads of each version")
    slowdown = parser.add_mutually_exclusive_group()
    slowdown.add_argument("--throttle", type=float, help="CPU slow-down factor")
    slowdown.add_argument(
        "--device", choices=sorted(DEVICE_SCORES), default="low-tier",
        help="CPU slowed down to this class of phone (the default: low-tier)",
    )  # fmt: skip
    parser.add_argument("--latency", type=float, default=0, help="ms added to each round trip")
    parser.add_argument("--view-after", type=float, default=1500, help="ms the view is held")
    parser.add_argument(
        "--motion", action="store_true", help="motion not reduced: the deal animates, as by default"
    )
    args = parser.parse_args()
    base = files_at(args.base)
    here = files_here()
    if base.get("play.html") != here.get("play.html"):
        print("play.html differs: both versions are served the working tree's (from the server)")
    versions = {args.base: base, "working tree": here}
    print(
        f"motion {'on' if args.motion else 'reduced'}, "
        f"latency {args.latency:g} ms, view after {args.view_after:g} ms; ms from the view's "
        f"arrival, p50 / p90 of {args.loads} loads of each version, alternately"
    )
    with served_chromium() as (server, http, browser):
        for game in args.games:
            link = server.base_url + make_check(http, game, 6)
            for size in args.viewports:
                throttle = args.throttle or 1
                if args.throttle is None:
                    calibration = calibrate(browser, args.device)
                    throttle = calibration.rate
                    print(f"{game}, {size}: {calibration.words()}", flush=True)
                contexts = {}
                for name, files in versions.items():
                    context = browser.new_context(
                        **VIEWPORTS[size],
                        reduced_motion="no-preference" if args.motion else "reduce",
                    )
                    context.add_init_script(SHIFTS)
                    context.route("**/play-assets/**", serving(files))
                    contexts[name] = context
                found: dict[str, list[dict[str, Any]]] = {name: [] for name in versions}
                for _ in range(args.loads):
                    for name, context in contexts.items():
                        page, _cdp = new_page(context, throttle, args.latency)
                        load_until_painted(page, link, args.view_after)
                        page.wait_for_timeout(100)  # shifts after the first paint count too
                        measured = page.evaluate(MEASURE)
                        measured["rehearsed"] = page.evaluate(REHEARSED, game)
                        found[name].append(measured)
                        page.close()
                for context in contexts.values():
                    context.close()
                for name, loads in found.items():
                    drawn = [m["drawn"] for m in loads]
                    painted = [m["painted"] for m in loads]
                    print(
                        f"{game:13} {size:7} {throttle:5.2f}x {name:>14}"
                        f"  rehearsed {sum(m['rehearsed'] for m in loads):2}/{len(loads)}"
                        f"  drawn {statistics.median(drawn):6.1f} / {percentile(drawn, 0.9):6.1f}"
                        f"  painted {statistics.median(painted):6.1f} / "
                        f"{percentile(painted, 0.9):6.1f}"
                        f"  CLS {max(m['cls'] for m in loads):.4f}",
                        flush=True,
                    )
                pairs = [
                    b["painted"] - a["painted"]
                    for a, b in zip(found[args.base], found["working tree"], strict=True)
                ]
                won = sum(d < 0 for d in pairs)
                print(
                    f"{game:13} {size:7} working tree - {args.base}: view -> painted "
                    f"{statistics.median(pairs):+.1f} ms (median of pairs), quicker in "
                    f"{won}/{len(pairs)}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
