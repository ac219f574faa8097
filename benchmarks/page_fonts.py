"""How many fonts the player's page makes in its first layout after the view (docs/performance.md,
"What the page does to be quick"): a cold load traced in Debian's Chromium.

    python3 benchmarks/page_fonts.py [--loads 3] [--game three-towers] [--viewport phone]

Each load is a new page. Tracing over CDP (``Tracing.start``), it counts, inside the longest
rendering update after ``skillcheck:view``, the font instances Blink creates
(``FontCache::GetFontPlatformData``) and the synchronous calls to the browser process for their
rendering style (``WebSandboxSupportLinux::GetWebFontRenderStyleForStrike``, Linux only), with
the update's length. The counts are what to compare; the milliseconds move with the machine.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from page_render import VIEWPORTS, load_until_painted, make_check, new_page, served_chromium, traced

CATEGORIES = "blink,devtools.timeline,blink.user_timing,disabled-by-default-devtools.timeline,fonts"
FONT = "FontCache::GetFontPlatformData"
STYLE_CALL = "WebSandboxSupportLinux::GetWebFontRenderStyleForStrike"
UPDATE = "WebFrameWidgetImpl::UpdateLifecycle"


def traced_load(context: Any, url: str) -> list[dict[str, Any]]:
    page, cdp = new_page(context)
    events = traced(page, cdp, CATEGORIES, lambda: load_until_painted(page, url))
    page.close()
    return events


def first_layout(events: list[dict[str, Any]]) -> tuple[int, int, float]:
    """Fonts made, style calls and milliseconds of the longest rendering update after the view."""
    view = next(e for e in events if e.get("name") == "skillcheck:view")
    main = [
        e for e in events
        if e.get("ph") == "X" and e.get("pid") == view["pid"] and e.get("tid") == view["tid"]
    ]  # fmt: skip
    update = max(
        (e for e in main if e["name"] == UPDATE and e["ts"] > view["ts"]), key=lambda e: e["dur"]
    )
    start, end = update["ts"], update["ts"] + update["dur"]
    inside = [e for e in main if start <= e["ts"] and e["ts"] + e.get("dur", 0) <= end]
    fonts = sum(1 for e in inside if e["name"] == FONT)
    calls = sum(1 for e in inside if e["name"] == STYLE_CALL)
    return fonts, calls, update["dur"] / 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--loads", type=int, default=3)
    parser.add_argument("--game", default="three-towers")
    parser.add_argument("--viewport", choices=sorted(VIEWPORTS), default="phone")
    args = parser.parse_args()
    with served_chromium() as (server, http, browser):
        link = server.base_url + make_check(http, args.game, 6)
        context = browser.new_context(**VIEWPORTS[args.viewport], reduced_motion="reduce")
        for n in range(1, args.loads + 1):
            fonts, calls, ms = first_layout(traced_load(context, link))
            print(f"load {n}: {fonts} fonts made, {calls} style calls, update {ms:.1f} ms")
        context.close()


if __name__ == "__main__":
    main()
