"""How much the rehearsal shortens the check's first table: cold loads of the player's page as it
is and with the rehearsal kept from happening, alternately (docs/performance.md, "2026-12-03,
third session").

    python3 benchmarks/page_rehearsal.py [--games three-towers hanoy tripeaks] [--throttle 5]
    python3 benchmarks/page_rehearsal.py --latency 50 --view-after 0
    python3 benchmarks/page_rehearsal.py --same-deal
    python3 benchmarks/page_rehearsal.py --hint

While the check's view is on its way the page draws the sample view of the game its link names
(``?game=``, as the API's links carry it; without it, of each registered game: ``GET
/v1/games/{name}/sample-view``) into the still unseen page and lays it out (``rehearse`` in
``api/static/play.js``). Here, in every other load, those requests are answered 404 (a
Playwright route), so that page draws no rehearsal: the same page and server otherwise. With
``--same-deal`` the rehearsing loads rehearse the check's game alone, on the view of a second
check of it with the same deal (its first example, seed 4, three moves in, where the check is
six moves in), as the first experiment did: the most a rehearsal can win. With ``--hint`` the
two ways are instead the link as the API makes it (``?game=``: the page draws ahead and
rehearses the check's game before any other) and the same link without the game (the page
prepares every game, in its own order) (docs/performance.md, "2026-12-03, fourth session").
The real API runs in a subprocess (benchmarks/_api_harness.py); each load is a new page in
Debian's Chromium, its CPU ``--throttle`` times slower, the check's view held until
``--view-after`` ms after the page asked for it (0: not held), ``--latency`` ms added to every
round trip. Printed per game and viewport, each way: how many loads rehearsed the check's game,
and from the view's arrival (its response's last byte) to the table drawn and to the frame that
shows it (p50 / p90), from the navigation to that frame (p50), and the layout shift.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _api_harness import bearer, percentile
from page_render import (
    SHIFTS,
    VIEWPORTS,
    check_of,
    load_until_painted,
    make_check,
    new_page,
    served_chromium,
)

#: From the view's arrival (Resource Timing of the check's GET), and whether its game was
#: rehearsed before it came.
MEASURE = """([checkId, game]) => {
  const at = (name) => performance.getEntriesByName(name)[0]?.startTime;
  const own = performance.getEntriesByType("resource").filter(
    (e) => e.name.split("?")[0].endsWith("/v1/checks/" + checkId));
  const view = own[0].responseEnd;
  const rehearsed = at("skillcheck:rehearsed:" + game);
  return { drawn: at("skillcheck:drawn") - view, painted: at("skillcheck:painted") - view,
           total: at("skillcheck:painted"), cls: window.__cls,
           rehearsed: rehearsed !== undefined && rehearsed < view };
}"""

#: Each way: whether the sample views are refused, and whether the link names the game.
WAYS = {"as is": (False, True), "no rehearsal": (True, True)}
HINT_WAYS = {"no hint": (False, False), "hint": (False, True)}


def answer_with(body: dict[str, Any]) -> Any:
    """A route handler answering ``body`` as JSON (one argument: Playwright passes the request
    too to a handler taking two)."""
    return lambda route: route.fulfill(json=body)


def same_deal_view(http: Any, game: str) -> dict[str, Any]:
    """The view of a second check of ``game`` with the benchmark check's deal, fewer moves in."""
    link = make_check(http, game, 3)
    answer = http.get(
        f"/v1/checks/{check_of(link)}",
        headers=bearer(link.split("#token=", 1)[1]),
    )
    answer.raise_for_status()
    view: dict[str, Any] = answer.json()
    return view


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", nargs="*", default=["three-towers", "hanoy", "tripeaks"])
    parser.add_argument("--viewports", nargs="*", default=["phone"])
    parser.add_argument("--loads", type=int, default=10, help="loads of each way")
    parser.add_argument("--throttle", type=float, default=5, help="CPU slow-down factor")
    parser.add_argument("--latency", type=float, default=0, help="ms added to each round trip")
    parser.add_argument("--view-after", type=float, default=1500, help="ms the view is held")
    parser.add_argument(
        "--same-deal", action="store_true", help="rehearse on a view of the check's own deal"
    )
    parser.add_argument(
        "--hint", action="store_true", help="compare the link with and without ?game="
    )
    args = parser.parse_args()
    ways = HINT_WAYS if args.hint else WAYS
    print(
        f"CPU {args.throttle:g}x slower, latency {args.latency:g} ms, view after "
        f"{args.view_after:g} ms; ms from the view's arrival, p50 / p90 of {args.loads} loads"
    )
    with served_chromium() as (server, http, browser):
        for game in args.games:
            link = make_check(http, game, 6)
            links = {True: link, False: link.replace(f"?game={game}", "", 1)}
            check_id = check_of(link)
            sample = same_deal_view(http, game) if args.same_deal else None
            for size in args.viewports:
                contexts = {}
                for way, (held, _hint) in ways.items():
                    context = browser.new_context(**VIEWPORTS[size], reduced_motion="reduce")
                    context.add_init_script(SHIFTS)
                    if held or sample is not None:
                        context.route("**/sample-view", lambda route: route.fulfill(status=404))
                    if not held and sample is not None:
                        context.route(
                            f"**/v1/games/{game}/sample-view",
                            answer_with(sample),
                        )
                    contexts[way] = context
                found: dict[str, list[dict[str, Any]]] = {way: [] for way in ways}
                for _ in range(args.loads):
                    for way, context in contexts.items():
                        page, _cdp = new_page(context, args.throttle, args.latency)
                        url = server.base_url + links[ways[way][1]]
                        load_until_painted(page, url, args.view_after)
                        page.wait_for_timeout(100)  # shifts after the first paint count too
                        found[way].append(page.evaluate(MEASURE, [check_id, game]))
                        page.close()
                for context in contexts.values():
                    context.close()
                for way, loads in found.items():
                    drawn = [m["drawn"] for m in loads]
                    painted = [m["painted"] for m in loads]
                    total = statistics.median(m["total"] for m in loads)
                    print(
                        f"{game:14} {size:7} {way:13}"
                        f" rehearsed {sum(m['rehearsed'] for m in loads):2}/{len(loads)}"
                        f"  drawn {statistics.median(drawn):6.1f} / {percentile(drawn, 0.9):6.1f}"
                        f"  painted {statistics.median(painted):6.1f} / "
                        f"{percentile(painted, 0.9):6.1f}"
                        f"  navigation → painted {total:7.1f}"
                        f"  CLS {max(m['cls'] for m in loads):.4f}",
                        flush=True,
                    )


if __name__ == "__main__":
    main()
