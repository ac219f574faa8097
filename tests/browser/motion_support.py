"""What the "playing by hand" browser tests share (test_motion_*.py): a page that fails on any
console error, real pointer drags (mouse through Playwright, touch through the DevTools
protocol's touch input), and waiting for the page to show a view.

Nothing here reads a move code's meaning: a move is dragged from the zone the view names as its
``from`` to the zone it names as its ``to``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from skillcheck.serialization import game_from_params

#: A tall window, so that the whole table is on screen while a card is carried over it.
VIEWPORT = {"width": 1000, "height": 1300}

#: Per registered game, parameters (one of its examples or close to one) and a seed whose
#: solver line is short. A game missing here is searched for one (``winning_line``).
FIXED: dict[str, tuple[dict[str, Any], int]] = {
    "three-towers": (
        {"level": 6, "variant": {"kind": "quota", "suit": "knots", "skill": 3, "quota": 2}},
        3,
    ),
    "hanoy": ({"cards": 5, "skill": 2}, 1),
    "tripeaks": ({"peaks": 1, "wrap": True}, 237),
}


#: Parameters, a seed and a line of move codes.
Line = tuple[dict[str, Any], int, list[str]]


def winning_line(name: str, examples: list[dict[str, Any]]) -> Line:
    """Parameters, a seed and the game's solver line to a win (the test knows the seed, so the
    solver may know the deal). Fails when the game's solver finds no win quickly."""
    tries = [FIXED[name]] if name in FIXED else [(p, s) for p in examples for s in range(12)]
    best: Line | None = None
    for params, seed in tries:
        game = game_from_params(name, params)
        solver = game.solver()
        assert solver is not None, f"{name} has no solver to find a winning line with"
        solution = solver.solve(game.new_state(seed), max_states=50_000, max_seconds=2)
        if solution.result == "win" and (best is None or len(solution.moves) < len(best[2])):
            best = params, seed, [m.code for m in solution.moves]
    assert best is not None, f"no short win found for {name}: add a seed to FIXED"
    return best


#: An init script that keeps every Animation the page starts (``window.animations``; an
#: animation over when the test looks is still there to read), the length of each
#: (``window.animated``) and every layout shift (``window.shifts``).
RECORDER = """
window.animations = [];
window.animated = [];
const animate = Element.prototype.animate;
Element.prototype.animate = function (keyframes, options) {
  const animation = animate.call(this, keyframes, options);
  window.animations.push(animation);
  window.animated.push(typeof options === "number" ? options : options?.duration);
  return animation;
};
window.shifts = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) window.shifts.push(entry.value);
}).observe({ type: "layout-shift", buffered: true });
"""


# Fixtures (a test module imports them by these names; pytest knows them by `name`).


@pytest.fixture(name="hand_context")
def hand_context_fixture(browser: Any) -> Iterator[Any]:
    ctx = browser.new_context(viewport=VIEWPORT)
    ctx.set_default_timeout(8000)
    try:
        yield ctx
    finally:
        ctx.close()


class Console:
    """Every console error and uncaught exception of the pages it watches."""

    def __init__(self) -> None:
        self.problems: list[str] = []

    def watch(self, page: Any) -> Any:
        page.on("pageerror", lambda error: self.problems.append(f"uncaught: {error}"))
        page.on(
            "console",
            lambda message: (
                self.problems.append(f"console {message.type}: {message.text}")
                if message.type == "error"
                else None
            ),
        )
        return page

    def assert_clean(self) -> None:
        assert not self.problems, self.problems


@pytest.fixture(name="console")
def console_fixture() -> Iterator[Console]:
    watched = Console()
    yield watched
    watched.assert_clean()


@pytest.fixture(name="hand")
def hand_fixture(hand_context: Any, console: Console) -> Any:
    """A page in a tall window that fails the test on any console error."""
    return console.watch(hand_context.new_page())


# ---- the board -----------------------------------------------------------------------------


def expected_codes(view: dict[str, Any]) -> dict[str, list[str]]:
    """The face-up cards each zone of ``view`` shows, sorted: every card of a stack, fan or
    row; the top card of a pile or slot."""
    shown: dict[str, list[str]] = {}
    for zone in view["board"]["zones"]:
        cards = list(zone["cards"])
        if zone["layout"] in ("pile", "slot"):
            cards = cards[-1:]
        shown[zone["id"]] = sorted(c for c in cards if c is not None)
    return shown


_SHOWS = """expected => Object.entries(expected).every(([zone, codes]) => {
    const found = [...document.querySelectorAll(`[data-zone="${CSS.escape(zone)}"] [data-code]`)]
        .map(e => e.dataset.code);
    const got = [...new Set(found)].sort();
    return got.length === codes.length && got.every((c, i) => c === codes[i]);
})"""


def wait_shows(frame: Any, view: dict[str, Any]) -> None:
    """Waits until the page (a Frame) shows ``view``'s face-up cards, zone by zone."""
    frame.wait_for_function(_SHOWS, arg=expected_codes(view))


def settle(frame: Any) -> None:
    """Waits until every card is dealt and no animation runs (a card is measured where it lies,
    not mid-flight)."""
    frame.wait_for_function(
        "() => !document.querySelector('.undealt')"
        " && document.getAnimations().every(a => a.playState !== 'running')"
    )


def move_of(view: dict[str, Any], code: str) -> dict[str, Any]:
    return next(m for m in view["moves"] if m["code"] == code)


def card_point(frame: Any, zone: str) -> tuple[float, float]:
    """A point on the card that starts a move from ``zone`` (its upper part: in a stack or
    overlapping slots the lower part may lie under another card)."""
    card = frame.locator(f"[data-zone='{zone}'] [data-action='card']").last
    card.scroll_into_view_if_needed()
    box = card.bounding_box()
    assert box is not None, f"no card to pick up in {zone}"
    return box["x"] + box["width"] / 2, box["y"] + min(box["height"] / 2, 18)


def zone_point(frame: Any, zone: str) -> tuple[float, float]:
    """A point inside ``zone``'s element (its upper quarter, for the same reason)."""
    box = frame.locator(f"[data-zone='{zone}']").first.bounding_box()
    assert box is not None, f"zone {zone} is not drawn"
    return box["x"] + box["width"] / 2, box["y"] + max(min(box["height"] * 0.25, 30), 4)


def mouse_drag(page: Any, start: tuple[float, float], end: tuple[float, float]) -> None:
    """A real mouse drag: press, travel in steps, release."""
    page.mouse.move(*start)
    page.mouse.down()
    page.mouse.move(start[0] + 3, start[1] + 3)
    page.mouse.move(*end, steps=6)
    page.mouse.up()


def _steps(
    start: tuple[float, float], end: tuple[float, float], count: int = 8
) -> list[tuple[float, float]]:
    """The points a drag travels through from ``start`` to ``end`` (``end`` the last)."""
    return [
        (start[0] + (end[0] - start[0]) * i / count, start[1] + (end[1] - start[1]) * i / count)
        for i in range(1, count + 1)
    ]


def record_pointer_kinds(page: Any) -> None:
    """From now on the page keeps the pointer type of every pointerdown (``pointer_kinds``)."""
    page.evaluate(
        "() => { window.kinds = []; document.addEventListener('pointerdown',"
        " e => window.kinds.push(e.pointerType)); }"
    )


def pointer_kinds(page: Any) -> list[str]:
    kinds: list[str] = page.evaluate("() => window.kinds")
    return kinds


def touch_drag(page: Any, start: tuple[float, float], end: tuple[float, float]) -> None:
    """A real touch drag (a finger: touchstart, touchmoves, touchend) through the DevTools
    protocol, which the browser turns into pointer events of type "touch"."""
    session = page.context.new_cdp_session(page)
    try:
        session.send(
            "Input.dispatchTouchEvent",
            {"type": "touchStart", "touchPoints": [{"x": start[0], "y": start[1]}]},
        )
        for x, y in _steps(start, end):
            session.send(
                "Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": x, "y": y}]}
            )
        session.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    finally:
        session.detach()


def pen_drag(page: Any, start: tuple[float, float], end: tuple[float, float]) -> None:
    """A real pen drag (a stylus: down, moves, up) through the DevTools protocol's mouse events
    with ``pointerType: "pen"``, which the browser turns into pointer events of type "pen"."""
    session = page.context.new_cdp_session(page)
    pen = {"pointerType": "pen", "button": "left", "clickCount": 1}
    try:
        session.send(
            "Input.dispatchMouseEvent",
            {"type": "mousePressed", "x": start[0], "y": start[1], **pen},
        )
        for x, y in _steps(start, end):
            session.send(
                "Input.dispatchMouseEvent",
                {"type": "mouseMoved", "x": x, "y": y, "buttons": 1, **pen},
            )
        session.send(
            "Input.dispatchMouseEvent", {"type": "mouseReleased", "x": end[0], "y": end[1], **pen}
        )
    finally:
        session.detach()


def drag_move(page: Any, frame: Any, view: dict[str, Any], code: str, touch: bool = False) -> None:
    """Plays the move ``code`` of ``view`` by hand: dragged from its source zone's card to its
    target zone, or tapped when it goes nowhere in particular (``to`` null)."""
    move = move_of(view, code)
    settle(frame)
    if move["to"] is None:
        frame.locator(f"[data-zone='{move['from']}'] [data-action='card']").last.click()
        return
    start = card_point(frame, move["from"])
    end = zone_point(frame, move["to"])
    (touch_drag if touch else mouse_drag)(page, start, end)


def is_post(path: str) -> Callable[[Any], bool]:
    """A predicate for ``page.expect_response``: the answer to a POST to a URL ending in path."""
    return lambda response: bool(response.request.method == "POST" and response.url.endswith(path))
