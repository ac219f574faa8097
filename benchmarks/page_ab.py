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

import mimetypes
import subprocess
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _api_harness import ROOT
from page_render import (
    SHIFTS,
    VIEWPORTS,
    alternate,
    make_check,
    paired,
    paired_parser,
    rate_for,
    served_chromium,
    way_line,
)

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
    parser = paired_parser(__doc__ or "", loads=10)
    parser.add_argument("--base", required=True, help="the commit whose page is compared")
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
                throttle = rate_for(browser, args, f"{game}, {size}", default_device="low-tier")
                contexts = {}
                for name, files in versions.items():
                    context = browser.new_context(
                        **VIEWPORTS[size],
                        reduced_motion="no-preference" if args.motion else "reduce",
                    )
                    context.add_init_script(SHIFTS)
                    context.route("**/play-assets/**", serving(files))
                    contexts[name] = context
                found = alternate(
                    contexts, link, args.loads, throttle, args.latency, args.view_after,
                    extra=lambda page, game=game: {"rehearsed": page.evaluate(REHEARSED, game)},
                )  # fmt: skip
                for context in contexts.values():
                    context.close()
                prefix = f"{game:13} {size:7} {throttle:5.2f}x"
                for name, loads in found.items():
                    print(way_line(prefix, name, loads), flush=True)
                median, won = paired(found, "working tree", args.base)
                print(
                    f"{game:13} {size:7} working tree - {args.base}: view -> painted "
                    f"{median:+.1f} ms (median of pairs), quicker in {won}/{args.loads}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
