//# allFunctionsCalledOnLoad
// Drag and drop on the player's page (docs/play-page.md, "Playing by hand"), with pointer events:
// mouse, touch and pen alike.
//
// A card that can start a move (`data-action="card"` inside a zone that is a move's `from`) may be
// picked up: while it is carried, the places it may go (the `to`s of the view's moves from its
// zone) are lit. Dropped on one of them, it plays that move; dropped on another place, it flies
// back and the page says where it can go; dropped nowhere, it flies back. A press that does not
// move is a tap and is left to the page's tap-tap handling. Like the rest of the page this reads
// no move code and no rule: only the view's moves, by zone.

import { cardOf } from "./motion.js";

const MOUSE_SLOP = 5; // px a press must travel to become a drag
const TOUCH_SLOP = 8;
const BACK_MS = 200;
const EDGE_PX = 56; // a card held this near the top or bottom edge scrolls the page
const MAX_SCROLL_PX = 18; // per frame, at the very edge

function listWords(words) {
  return words.length > 1 ? `${words.slice(0, -1).join(", ")} or ${words.at(-1)}` : words[0] || "";
}

function capitalise(text) {
  return text ? text[0].toUpperCase() + text.slice(1) : text;
}

/**
 * hooks (all from the page):
 *   moves()            the view's moves the player may make now ([] when not playing)
 *   busy()             true while an action is on its way to the server
 *   play(code)         sends a move; returns a promise that settles when the view is shown
 *   choose(from, to)   several moves join the two places: let the player pick one
 *   refuse({title, detail}), say(text)
 *   zoneLabel(id), topCode(id) (the code of a zone's exposed card, or null)
 *   cardName(code)     "the Lunatic"
 *   motion             the page's Motion (to fly a dropped card from where it was dropped)
 *   reduced()          true when the player asked for reduced motion
 *   footOfView()       where the table stops showing at the screen's foot, or null: the
 *                      screen's foot (optional)
 */
export class DragDrop {
  constructor(board, hooks) {
    this.board = board;
    this.hooks = hooks;
    this.press = null; // {id, type, x, y, card, from} from pointerdown until it moves or ends
    this.drag = null; // the carried card: {id, from, ghost, dx, dy, origin, targets, over}
    this.swallowClick = false;
    this.spent = null; // the pointer of a drag put back while still pressed
    // Whether the player's last input was a pointer (not a key): the page then moves no focus
    // ring onto the table after a move.
    this.byPointer = false;
    window.addEventListener("pointerdown", () => (this.byPointer = true), true);
    window.addEventListener("keydown", () => (this.byPointer = false), true);
    board.addEventListener("pointerdown", (event) => this.down(event));
    board.addEventListener("dragstart", (event) => {
      if (event.target.closest?.("[data-zone]")) event.preventDefault(); // no native image drag
    });
    window.addEventListener("pointermove", (event) => this.moved(event), { passive: false });
    window.addEventListener("pointerup", (event) => this.up(event));
    window.addEventListener("pointercancel", (event) => this.cancelled(event));
    // A press that became a drag must not also count as a tap on the card it started on.
    window.addEventListener(
      "click",
      (event) => {
        if (!this.swallowClick) return;
        this.swallowClick = false;
        event.stopPropagation();
        event.preventDefault();
      },
      true,
    );
    new MutationObserver(() => this.refresh()).observe(board, { childList: true, subtree: true });
  }

  get active() {
    return this.drag !== null;
  }

  /** Zones from which a carried card can go somewhere (a `to` that is not null). */
  draggableZones() {
    const zones = new Set();
    for (const move of this.hooks.moves()) {
      if (move.to !== null && move.to !== undefined) zones.add(move.from);
    }
    return zones;
  }

  targetsFrom(from) {
    return new Set(
      this.hooks.moves().filter((m) => m.from === from && m.to !== null && m.to !== undefined).map((m) => m.to),
    );
  }

  zoneElements(id) {
    return this.board.querySelectorAll(`[data-zone="${CSS.escape(id)}"]`);
  }

  /** After every redraw: mark the cards that can be picked up (so a touch on them drags instead
   *  of scrolling the page) and, mid-drag, light the targets again. */
  refresh() {
    const zones = this.draggableZones();
    for (const card of this.board.querySelectorAll("[data-zone] [data-action='card']")) {
      const zone = card.closest("[data-zone]").dataset.zone;
      const can = zones.has(zone);
      if (card.classList.contains("draggable") !== can) card.classList.toggle("draggable", can);
    }
    if (this.drag) {
      if (!zones.has(this.drag.from)) {
        this.flyBack();
        return;
      }
      this.light(true);
    }
  }

  light(on) {
    const drag = this.drag;
    if (!drag) return;
    for (const id of drag.targets) {
      for (const zone of this.zoneElements(id)) {
        if (zone.classList.contains("drop-target") !== on) zone.classList.toggle("drop-target", on);
      }
    }
    for (const zone of this.zoneElements(drag.from)) {
      if (zone.classList.contains("drag-source") !== on) zone.classList.toggle("drag-source", on);
    }
    for (const zone of this.board.querySelectorAll(".drop-over")) {
      if (!on || zone.dataset.zone !== drag.over) zone.classList.remove("drop-over");
    }
    if (on && drag.over) {
      for (const zone of this.zoneElements(drag.over)) {
        if (!zone.classList.contains("drop-over")) zone.classList.add("drop-over");
      }
    }
  }

  down(event) {
    if (this.drag || this.press || !event.isPrimary || this.hooks.busy()) return;
    if (event.pointerType === "mouse" && event.button !== 0) return;
    const card = event.target.closest("[data-action='card']");
    const zone = card?.closest("[data-zone]");
    if (!card || !zone || card.disabled || !this.board.contains(zone)) return;
    const from = zone.dataset.zone;
    if (!this.draggableZones().has(from)) return; // a tap, or nothing
    this.press = { id: event.pointerId, type: event.pointerType, x: event.clientX, y: event.clientY, card, from };
    try {
      card.setPointerCapture(event.pointerId);
    } catch {
      // capture is a convenience: the window's listeners follow the pointer anyway
    }
  }

  moved(event) {
    if (this.drag && event.pointerId === this.drag.id) {
      event.preventDefault();
      this.carry(event.clientX, event.clientY);
      return;
    }
    const press = this.press;
    if (!press || event.pointerId !== press.id) return;
    const slop = press.type === "mouse" ? MOUSE_SLOP : TOUCH_SLOP;
    if (Math.hypot(event.clientX - press.x, event.clientY - press.y) < slop) return;
    event.preventDefault();
    this.start(press, event.clientX, event.clientY);
  }

  start(press, x, y) {
    this.press = null;
    const card = cardOf(press.card);
    const origin = card.getBoundingClientRect();
    const ghost = card.cloneNode(true);
    for (const element of [ghost, ...ghost.querySelectorAll("*")]) {
      element.removeAttribute("id");
      element.removeAttribute("data-key");
      element.removeAttribute("data-action");
      element.removeAttribute("data-code");
    }
    ghost.classList.add("drag-ghost");
    ghost.setAttribute("aria-hidden", "true");
    ghost.style.width = `${origin.width}px`;
    ghost.style.height = `${origin.height}px`;
    document.body.append(ghost);
    press.card.classList.add("drag-origin");
    this.drag = {
      id: press.id,
      from: press.from,
      code: this.hooks.topCode(press.from),
      card: press.card,
      ghost,
      origin,
      dx: press.x - origin.left,
      dy: press.y - origin.top,
      targets: this.targetsFrom(press.from),
      over: null,
    };
    document.documentElement.classList.add("dragging");
    this.carry(x, y);
  }

  place(x, y) {
    const drag = this.drag;
    drag.ghost.style.transform = `translate(${x - drag.dx}px, ${y - drag.dy}px)`;
  }

  carry(x, y) {
    const drag = this.drag;
    drag.x = x;
    drag.y = y;
    this.place(x, y);
    const over = this.zoneAt(x, y);
    if (over !== drag.over) {
      drag.over = over;
      this.light(true);
    }
    this.autoScroll();
  }

  /** A card held near the top or bottom edge scrolls the page that way (a phone's table is
   *  taller than its screen), faster the nearer the edge; the card stays under the finger and
   *  the place under it is lit as the table moves. */
  autoScroll() {
    const drag = this.drag;
    if (!drag || drag.scrolling) return;
    const step = () => {
      const now = this.drag;
      if (now !== drag) return;
      const edge = Math.min(EDGE_PX, window.innerHeight / 5);
      // the bottom edge is where the table stops showing (above controls stuck to the foot)
      const foot = this.hooks.footOfView?.() ?? window.innerHeight;
      const speed =
        drag.y < edge ? -(edge - drag.y) : drag.y > foot - edge ? Math.min(drag.y - (foot - edge), edge) : 0;
      const before = window.scrollY;
      if (speed) window.scrollBy(0, Math.sign(speed) * Math.ceil((Math.abs(speed) / edge) * MAX_SCROLL_PX));
      if (!speed || window.scrollY === before) {
        drag.scrolling = false;
        return;
      }
      const over = this.zoneAt(drag.x, drag.y);
      if (over !== drag.over) {
        drag.over = over;
        this.light(true);
      }
      requestAnimationFrame(step);
    };
    drag.scrolling = true;
    requestAnimationFrame(step);
  }

  /** The zone under the point (the topmost: slots overlap), or null. */
  zoneAt(x, y) {
    for (const element of document.elementsFromPoint(x, y)) {
      if (this.drag && this.drag.ghost.contains(element)) continue;
      const zone = element.closest("[data-zone]");
      if (zone && this.board.contains(zone)) return zone.dataset.zone;
    }
    return null;
  }

  up(event) {
    if (this.press && event.pointerId === this.press.id) {
      this.press = null; // a tap: the click that follows is the page's
      return;
    }
    const drag = this.drag;
    const spent = this.spent === event.pointerId; // a drag put back (Escape) before the release
    this.spent = null;
    if (!spent && (!drag || event.pointerId !== drag.id)) return;
    this.swallowClick = true;
    setTimeout(() => (this.swallowClick = false), 0);
    if (!spent) this.drop(this.zoneAt(event.clientX, event.clientY));
  }

  cancelled(event) {
    if (this.press && event.pointerId === this.press.id) this.press = null;
    if (this.drag && event.pointerId === this.drag.id) this.flyBack();
  }

  /** Puts the carried card back (Escape, a cancelled pointer, the table changed). */
  cancel() {
    this.press = null;
    if (!this.drag) return;
    this.spent = this.drag.id; // its release is not a tap
    this.flyBack();
  }

  drop(to) {
    const drag = this.drag;
    const { from } = drag;
    if (to === null || to === from) {
      if (to === null) this.hooks.say("Nothing moved: drop the card on one of the lit places.");
      this.flyBack();
      return;
    }
    const matches = this.hooks.moves().filter((m) => m.from === from && m.to === to);
    if (matches.length === 1) {
      const rect = drag.ghost.getBoundingClientRect();
      this.hooks.motion.hold(drag.code, rect);
      this.finish(false, true); // the card stays hidden where it was until it is drawn anew
      const played = this.hooks.play(matches[0].code);
      const done = () => {
        drag.ghost.remove();
        drag.card.classList.remove("drag-origin"); // still there if the move was not played
      };
      Promise.resolve(played).then(done, done);
      return;
    }
    if (matches.length > 1) {
      this.flyBack();
      this.hooks.choose(from, to);
      return;
    }
    const what = drag.code ? this.hooks.cardName(drag.code) : `the card from ${this.hooks.zoneLabel(from)}`;
    const places = [...drag.targets].map((id) => this.hooks.zoneLabel(id));
    // The words first: the message may push the table down, and the card flies to where its
    // place is now.
    this.hooks.refuse({
      title: "Not a legal move.",
      detail:
        `${capitalise(what)} cannot go to ${this.hooks.zoneLabel(to)}` +
        (places.length ? `: it can go only to ${listWords(places)}.` : ": it cannot go anywhere now."),
    });
    this.flyBack();
  }

  /** Ends the drag; the ghost stays (removeGhost false) until the move's view is drawn. */
  finish(removeGhost = true, keepOrigin = false) {
    const drag = this.drag;
    this.light(false);
    this.drag = null;
    document.documentElement.classList.remove("dragging");
    if (!keepOrigin) drag.card.classList.remove("drag-origin");
    if (removeGhost) drag.ghost.remove();
    return drag;
  }

  /** The carried card flies back to where it was picked up, then the card shows again. */
  flyBack() {
    const drag = this.finish(false);
    const { ghost, from } = drag;
    if (this.hooks.reduced() || !ghost.animate) {
      ghost.remove();
      return;
    }
    // The card's place now (the table may have been redrawn or pushed down meanwhile).
    const cards = this.board.querySelectorAll(`[data-zone="${CSS.escape(from)}"] [data-action='card']`);
    const card = drag.card.isConnected ? drag.card : cards[cards.length - 1] || drag.card;
    const home = card.isConnected ? cardOf(card).getBoundingClientRect() : drag.origin;
    card.classList.add("drag-origin");
    const animation = ghost.animate(
      [{ transform: ghost.style.transform }, { transform: `translate(${home.left}px, ${home.top}px)` }],
      { duration: BACK_MS, easing: "cubic-bezier(0.3, 0.6, 0.3, 1)", fill: "forwards" },
    );
    animation.id = "skillcheck-back";
    const done = () => {
      ghost.remove();
      card.classList.remove("drag-origin");
    };
    animation.finished.then(done, done);
  }
}

/** After a move, puts the keyboard focus back on the table: on the card in the place that gained
 *  a card (where the moved card went), else on the first card that can move, else on the table
 *  itself; so that keys such as `u` act on the game instead of typing into the move box. */
export function focusBoard(board, before, after) {
  const counts = new Map((before?.board?.zones || []).map((z) => [z.id, z.count]));
  const grown = (after?.board?.zones || []).filter((z) => counts.has(z.id) && z.count > counts.get(z.id));
  const sources = [...new Set((after?.moves || []).map((m) => m.from))];
  for (const id of [...grown.map((z) => z.id), ...sources]) {
    for (const zone of board.querySelectorAll(`[data-zone="${CSS.escape(id)}"]`)) {
      const controls = [...zone.querySelectorAll("[data-action='card'], button")].filter((c) => !c.disabled);
      const control = controls.find((c) => c.dataset.action === "card") || controls[0];
      if (control) {
        control.focus({ preventScroll: true });
        return control;
      }
    }
  }
  board.focus({ preventScroll: true });
  return board;
}
