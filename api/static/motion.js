//# allFunctionsCalledOnLoad
// Card animations on the player's page (docs/play-page.md, "Playing by hand"): moves, the deal
// and cards turning face up, each 150-250 ms, with the Web Animations API.
//
// Moves are FLIP animations: the page measures where each face-up card (`data-code`) is before a
// redraw ("first"), where it is after ("last"), and plays the difference back as a transform, so
// the card is already in its new place (and takes input) while it glides there. Only transforms
// and opacity animate: nothing is laid out again, nothing shifts. With
// `prefers-reduced-motion: reduce` nothing animates at all.

export const MOVE_MS = 200;
export const FLIP_MS = 200;
export const DEAL_MS = 220;
const DEAL_STAGGER_MS = 12;
const DEAL_SPREAD_MS = 280; // the last card of a deal starts at most this late

const EASE = "cubic-bezier(0.2, 0.7, 0.3, 1)";
const REDUCE = "(prefers-reduced-motion: reduce)";

/** The element that is the card around a `data-code` (or card back) element: the card button or
 *  `.card` box that holds it, the element itself otherwise. */
export function cardOf(element) {
  return element.closest("[data-action='card'], .card") || element;
}

function centre(rect) {
  return { x: rect.left + rect.width / 2, y: rect.top + rect.height / 2 };
}

export class Motion {
  /** root: the element the cards are drawn in (the page's table). */
  constructor(root) {
    this.root = root;
    this.held = new Map(); // code -> a rect the card should fly from on the next redraw
    this.media = window.matchMedia ? window.matchMedia(REDUCE) : null;
  }

  get reduced() {
    return Boolean(this.media?.matches);
  }

  /** The face-up cards on the table now: code -> the card's rectangle on the screen. */
  snapshot() {
    const rects = new Map();
    if (this.reduced) return rects;
    for (const element of this.root.querySelectorAll("[data-code]")) {
      const code = element.dataset.code;
      if (!rects.has(code)) rects.set(code, cardOf(element).getBoundingClientRect());
    }
    return rects;
  }

  /** The next redraw moves the card `code` from `rect` (where the player dropped it) instead of
   *  from its old place. */
  hold(code, rect) {
    if (code) this.held.set(code, rect);
  }

  /** After a redraw: glide each card from where `before` saw it, and turn over the cards that
   *  were not face up. `before` null means the first drawing of `board`: deal every card from
   *  its stock (the first pile holding cards nobody has seen), or from the table's corner. */
  after(before, board = null) {
    const held = this.held;
    this.held = new Map();
    if (this.reduced) return [];
    if (!before) {
      const stock = (board?.zones || []).find(
        (z) => z.layout === "pile" && z.count > z.cards.filter((c) => c !== null).length,
      );
      return this.deal(stock ? stock.id : null);
    }
    // Every card's place is read before any animation starts: an animation restyles its card,
    // and a read after it would style (and lay out) the page again, once per card.
    const moves = [];
    const seen = new Set();
    for (const element of this.root.querySelectorAll("[data-code]")) {
      const code = element.dataset.code;
      if (seen.has(code)) continue;
      seen.add(code);
      const card = cardOf(element);
      const first = held.get(code) || before.get(code);
      moves.push({ card, first, last: first ? card.getBoundingClientRect() : null });
    }
    const started = [];
    for (const { card, first, last } of moves) {
      if (!first) {
        started.push(this.flip(card));
        continue;
      }
      const dx = first.left - last.left;
      const dy = first.top - last.top;
      if (Math.abs(dx) < 1 && Math.abs(dy) < 1) continue;
      started.push(
        card.animate(
          [{ transform: `translate(${dx}px, ${dy}px)` }, { transform: "translate(0px, 0px)" }],
          { duration: MOVE_MS, easing: EASE, composite: "add" },
        ),
      );
    }
    for (const animation of started) animation.id = "skillcheck-card";
    return started;
  }

  /** A card turning face up: it grows from its edge, as a card turned over. */
  flip(card) {
    return card.animate(
      [{ transform: "perspective(40rem) rotateY(90deg)" }, { transform: "perspective(40rem) rotateY(0deg)" }],
      { duration: FLIP_MS, easing: "ease-out", composite: "add" },
    );
  }

  /** The first drawing: every card, face up or down, comes from the stock (or the table's
   *  corner), one after another. The cards wait unseen (class `undealt`) and each one's
   *  animation starts in the frame of its turn, from the frame after the one that first shows
   *  the table (each started animation restyles its card: starting some forty at once made a
   *  slow phone's first table 100 ms later, and even the first few cost it 10-30 ms;
   *  docs/performance.md). Returns the cards, in the order they are dealt. */
  deal(origin) {
    const cards = [];
    for (const element of this.root.querySelectorAll("[data-code], [data-back], .face-down")) {
      const card = cardOf(element);
      if (!cards.includes(card)) cards.push(card);
    }
    if (!cards.length || document.hidden) return []; // (a hidden page draws no frames to deal in)
    for (const card of cards) card.classList.add("undealt");
    const step = Math.min(DEAL_STAGGER_MS, DEAL_SPREAD_MS / cards.length);
    let start = null;
    let places = null;
    let begun = null;
    let next = 0;
    const frame = (now) => {
      if (places === null) {
        // Read in the deal's first frame (the table is laid out by then), every place before any
        // animation starts: an animation restyles its card, and a read after it would style
        // and lay out the page again.
        const from = origin ? this.root.querySelector(`[data-zone="${CSS.escape(origin)}"]`) : null;
        const table = this.root.getBoundingClientRect();
        start = from ? centre(from.getBoundingClientRect()) : { x: table.left + 40, y: table.top + 40 };
        places = cards.map((card) => centre(card.getBoundingClientRect()));
        begun = now;
      }
      while (next < cards.length && next * step <= now - begun) {
        const card = cards[next];
        const here = places[next];
        next += 1;
        card.classList.remove("undealt");
        if (!card.isConnected) continue; // (redrawn meanwhile: the new table is not dealt)
        const animation = card.animate(
          [
            { transform: `translate(${start.x - here.x}px, ${start.y - here.y}px) scale(0.8)`, opacity: 0 },
            { transform: "translate(0px, 0px) scale(1)", opacity: 1 },
          ],
          { duration: DEAL_MS, easing: EASE, fill: "backwards" },
        );
        animation.id = "skillcheck-deal";
      }
      if (next < cards.length) requestAnimationFrame(frame);
    };
    // The first frame shows the table with every card still to come; the deal starts in the
    // next, so the frame that first shows the table is no dearer with motion than without.
    requestAnimationFrame(() => requestAnimationFrame(frame));
    return cards;
  }
}
