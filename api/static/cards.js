//# allFunctionsCalledOnLoad
// Cards on the page: a deck's table from GET /v1/decks/{deck}, and each card drawn as an inline
// SVG built from it (no artwork is published or downloaded). Nothing here knows a deck: suits,
// ranks, names and colours all come from the table, and how a face is laid out follows from
// what the card is:
//
// - a card with one suit and a number for its rank (the 7 of Hearts) shows that many pips;
// - any other card shows its suit symbols large in the middle (one, two or three of them), and a
//   card whose rank is a word (a Crown, a Pawn, a Queen) a frame around them with the word;
// - every face has corner indices (rank and suit symbols) at the top left and, turned, at the
//   bottom right; a deck whose cards carry several suits lays its index in a row (so the top
//   strip of a covered card shows all of them), a one-suit deck stacks it in the corner;
// - a card whose name says more than its rank and suits ("the Forest") shows the name under the
//   index, in a size that fits the card (measured, never cut off).
//
// A suit is styled by its name (class "suit-<name>", e.g. suit-moons) and, where the deck gives
// one, its colour (class "colour-red"); suits are told apart by the shape of their symbol, and
// the page's legend names each symbol. A game's page module may replace the face (setFace).

import { GLYPHS } from "./glyphs.js";

const SVG = "http://www.w3.org/2000/svg";
/** The card's drawing box: 100 wide, 140 high (a poker card's proportions, 5 : 7). */
export const CARD_W = 100;
export const CARD_H = 140;
/** The font the faces are drawn in, also used to measure names so they fit. */
const FONT = '"DejaVu Sans", "Noto Sans", Verdana, "Segoe UI", Roboto, Arial, sans-serif';
const NAME_WIDTH = 86; // the width a name may take (the card less its margins)
const NAME_SIZE = 12.5; // a name's size when it fits
const SLICE_MS = 3; // the longest run of drawing ahead between two looks at what has arrived
/** The attributes of a face's <text> that choose its font (warmFonts). */
const FONT_ATTRIBUTES = ["font-family", "font-size", "font-weight", "font-style"];

/** A CSS-safe lower-case word for a name ("Light Keeper" -> "light-keeper"). */
export function slug(text) {
  return String(text || "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");
}

/** "1st", "2nd", "3rd", "11th", "22nd". */
export function ordinal(n) {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? "th" : { 1: "st", 2: "nd", 3: "rd" }[n % 10] || "th";
  return `${n}${suffix}`;
}

function node(name, attributes = {}, text = null) {
  const element = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) {
    if (value !== null && value !== undefined) element.setAttribute(key, String(value));
  }
  if (text !== null) element.textContent = text;
  return element;
}

// A face's words and symbols are drawn as paths from the outlines in glyphs.js (DejaVu Sans,
// written by api/make_glyphs.py), not as SVG text: laying out text is most of what a table
// costs the browser in its first frame, and a path looks the same whatever fonts the device
// has. A run with a character the outlines lack is drawn as text in FONT instead.

/** The outlines of `weight` ("normal" or "bold") if they hold every character of `text`. */
function outlinesFor(text, weight) {
  const font = GLYPHS.fonts[weight === "bold" ? "bold" : "normal"];
  if (!font || !text) return null;
  for (const character of text) if (!(character in font.glyphs)) return null;
  return font;
}

/** The pen's advance after each character of `text` (font units: kerning with the next one
 *  and `spacing` included), the last without its spacing. */
function advances(font, characters, spacing) {
  return characters.map((character, i) => {
    const next = characters[i + 1];
    if (next === undefined) return font.glyphs[character][0];
    return font.glyphs[character][0] + (font.kerning[character + next] || 0) + spacing;
  });
}

const total = (steps) => steps.reduce((sum, step) => sum + step, 0);

const commands = new Map(); // "weight character" -> its outline's tokens, parsed once
/** A glyph's outline tokens (commands, and numbers alternating x and y, in font units). */
function tokensOf(font, weight, character) {
  const key = `${weight} ${character}`;
  let tokens = commands.get(key);
  if (!tokens) {
    tokens = (font.glyphs[character][1].match(/[A-Z]|-?\d+/g) || []).map((t) => (t >= "A" ? t : Number(t)));
    commands.set(key, tokens);
  }
  return tokens;
}

const round = (n) => Math.round(n * 100) / 100;

const placed = new Map(); // "weight character scale turn" -> the glyph's outline, ready to place
/** A glyph's outline at `scale`, turned half a turn when `turn` is -1, ready to be placed
 *  anywhere: its first point from the pen ([x, y], in hundredths of the card's units) and the
 *  rest of it in relative commands. A deck draws the same few glyphs at the same few sizes, so
 *  placing one is two additions and a string (drawing a table's faces on the spot, when the
 *  view came before they could be drawn ahead, costs little: docs/performance.md). */
function placedGlyph(font, weight, character, scale, turn) {
  const key = `${weight} ${character} ${scale} ${turn}`;
  let glyph = placed.get(key);
  if (glyph) return glyph;
  // every point in whole hundredths from the pen: the relative steps between them are exact
  const at = (n) => Math.round(n * scale * turn * 100);
  const step = (n) => `${n / 100}`;
  let first = null;
  let rest = "";
  let x = 0;
  let y = 0; // the current point
  let startX = 0;
  let startY = 0; // where the contour began (Z goes back to it)
  let command = "";
  let pending = []; // the numbers of the command being read
  const points = (numbers) => {
    let out = "";
    const fromX = x;
    const fromY = y;
    for (let i = 0; i < numbers.length; i += 2) {
      const px = at(numbers[i]);
      const py = -at(numbers[i + 1]);
      out += `${step(px - fromX)} ${step(py - fromY)} `;
      x = px;
      y = py;
    }
    return out;
  };
  const flush = () => {
    if (!command) return;
    if (command === "M" && first === null) {
      x = at(pending[0]);
      y = -at(pending[1]);
      first = [x, y];
      startX = x;
      startY = y;
    } else if (command === "M") {
      rest += `m${points(pending)}`;
      startX = x;
      startY = y;
    } else if (command === "Z") {
      rest += "Z";
      x = startX;
      y = startY;
    } else {
      rest += command.toLowerCase() + points(pending);
    }
    pending = [];
  };
  for (const token of tokensOf(font, weight, character)) {
    if (typeof token === "string") {
      flush();
      command = token;
    } else {
      pending.push(token);
    }
  }
  flush();
  glyph = { first: first || [0, 0], rest };
  placed.set(key, glyph);
  return glyph;
}

/** The outline of a run of words as <text> would draw it (x, y, font-size, font-weight,
 *  text-anchor, letter-spacing), in the card's own units: path commands, turned half a turn
 *  about `turn` ([x, y]) when given; null when the outlines lack one of its characters. */
export function runOutline(attributes, text, turn = null) {
  const weight = attributes["font-weight"] === "bold" ? "bold" : "normal";
  const font = outlinesFor(text, weight);
  if (!font) return null;
  const scale = Number(attributes["font-size"]) / font.unitsPerEm;
  const characters = [...text];
  const steps = advances(font, characters, Number(attributes["letter-spacing"] || 0) / scale);
  const wide = total(steps) * scale;
  const anchor = attributes["text-anchor"];
  const left = Number(attributes.x) - (anchor === "middle" ? wide / 2 : anchor === "end" ? wide : 0);
  const base = Number(attributes.y);
  // (x, y) on the card, turned: (2 cx - x, 2 cy - y)
  const [f, ox, oy] = turn ? [-1, 2 * turn[0], 2 * turn[1]] : [1, 0, 0];
  const penY = Math.round((oy + f * base) * 100);
  let d = "";
  let pen = 0;
  characters.forEach((character, i) => {
    if (font.glyphs[character][1]) {
      const { first, rest } = placedGlyph(font, weight, character, scale, f);
      const penX = Math.round((ox + f * (left + pen * scale)) * 100);
      d += `M${(penX + first[0]) / 100} ${(penY + first[1]) / 100} ${rest}`;
    }
    pen += steps[i];
  });
  return d;
}

/** A face's drawing, gathered so that runs drawn alike (a rank in both corners; one suit's
 *  pips and index symbols) become one <path>: fewer elements for the browser to style and lay
 *  out. A run the outlines cannot draw becomes a <text> of its own. */
/** Ranks that read as each other upside down: underlined wherever they are drawn, as printed
 *  cards do, so that a turned corner index is not misread. */
const TURNS_ALIKE = new Set(["6", "9"]);

class Sketch {
  constructor() {
    this.layers = new Map(); // layer name -> { className, d, words }: its path, drawn so far
    this.order = []; // layer names and <text> elements, in the order first drawn
  }

  /** Draws `text` as `attributes` say (as for a <text>; `class` styles the layer's path) into
   *  the layer named `layer`, turned half a turn about `turn` when given. */
  add(layer, attributes, text, turn = null) {
    const words = String(text);
    const d = runOutline(attributes, words, turn);
    if (d === null) {
      const transform = turn ? `rotate(180 ${turn[0]} ${turn[1]})` : null;
      this.order.push(node("text", { ...attributes, transform }, words));
      return;
    }
    let found = this.layers.get(layer);
    if (!found) {
      found = { className: attributes.class, d: "", words: [] };
      this.layers.set(layer, found);
      this.order.push(layer);
    }
    found.d += d;
    found.words.push(words);
  }

  /** Draws the bar under a 6 or a 9 (x0 to x1, from y down `thick`) into the layer "bar",
   *  turned half a turn about `turn` when given. */
  bar(x0, x1, y, thick, turn = null) {
    const at = (x, yy) => (turn ? [2 * turn[0] - x, 2 * turn[1] - yy] : [x, yy]);
    const corners = [at(x0, y), at(x1, y), at(x1, y + thick), at(x0, y + thick)];
    let found = this.layers.get("bar");
    if (!found) {
      found = { className: "rank rank-bar", d: "", words: [] };
      this.layers.set("bar", found);
      this.order.push("bar");
    }
    found.d += `M${corners.map(([x, yy]) => `${round(x)} ${round(yy)}`).join("L")}Z`;
  }

  /** The drawing's elements: one path per layer (its words in data-text), and the texts. */
  elements() {
    return this.order.map((item) => {
      if (typeof item !== "string") return item;
      const { className, d, words } = this.layers.get(item);
      return node("path", { class: className, d: d.trim(), "data-text": words.join(" ") });
    });
  }
}

let measurer = null;
let measuring = ""; // the font the measurer is set to
const widths = new Map(); // "weight text" -> width at size 1: a deck repeats its ranks and symbols
/** The width of `text` at size 1 as a face draws it: from the outlines' advances, or, for a
 *  run drawn as text, from canvas metrics (no layout needed; setting a canvas font parses it
 *  and measuring loads it, so each is done once per weight and text). */
function textWidth(text, weight = "bold") {
  const key = `${weight} ${text}`;
  let width = widths.get(key);
  if (width === undefined) {
    const font = outlinesFor(text, weight);
    if (font) {
      width = total(advances(font, [...text], 0)) / font.unitsPerEm;
    } else {
      measurer = measurer || document.createElement("canvas").getContext("2d");
      if (!measurer) return text.length * 0.62;
      const canvasFont = `${weight} 100px ${FONT}`;
      if (measuring !== canvasFont) {
        measurer.font = canvasFont;
        measuring = canvasFont;
      }
      width = measurer.measureText(text).width / 100;
    }
    widths.set(key, width);
  }
  return width;
}

/** The size at which `text` fits `width` (at most `size`). */
function fitSize(text, width, size, weight = "bold") {
  const wide = textWidth(text, weight) * size;
  return wide > width ? Math.floor((size * width * 100) / wide) / 100 : size;
}

// Pip positions of a one-suit numbered card (the classic layouts), x and y on the 100 x 140 box.
const L = 34;
const C = 50;
const R = 66;
const PIPS = {
  1: [[C, 70]],
  2: [[C, 30], [C, 110]],
  3: [[C, 30], [C, 70], [C, 110]],
  4: [[L, 30], [R, 30], [L, 110], [R, 110]],
  5: [[L, 30], [R, 30], [C, 70], [L, 110], [R, 110]],
  6: [[L, 30], [R, 30], [L, 70], [R, 70], [L, 110], [R, 110]],
  7: [[L, 30], [R, 30], [C, 50], [L, 70], [R, 70], [L, 110], [R, 110]],
  8: [[L, 30], [R, 30], [C, 50], [L, 70], [R, 70], [C, 90], [L, 110], [R, 110]],
  9: [[L, 30], [R, 30], [L, 56.7], [R, 56.7], [C, 70], [L, 83.3], [R, 83.3], [L, 110], [R, 110]],
  10: [[L, 30], [R, 30], [C, 43], [L, 56.7], [R, 56.7], [L, 83.3], [R, 83.3], [C, 97], [L, 110], [R, 110]],
};

/** Runs `fn` in a task of its own at background priority: after whatever else is waiting (the
 *  view's response above all), yet without the 4 ms a nested setTimeout is held back. */
export function nextTask(fn) {
  if (globalThis.scheduler?.postTask) {
    globalThis.scheduler.postTask(fn, { priority: "background" });
  } else if (typeof MessageChannel !== "undefined") {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => fn();
    channel.port2.postMessage(null);
  } else {
    setTimeout(fn, 0);
  }
}

let backImage = null; // the blob URL of the card back drawn as an image, once it is
let backImageDone = null; // drawing it (started once, by the first deck drawn ahead), then done
/** Properties that colour an SVG drawing, copied onto its elements for an image of it. */
const PAINT = ["fill", "fill-opacity", "stroke", "stroke-opacity", "stroke-width"];

/** Draws the card back (`back`, the SVG face CardTable.back makes) once as a bitmap, ahead of
 *  any view, and styles every back made afterwards with it: a face-down card is then one
 *  element with a background image instead of an SVG of seven elements to style, lay out and
 *  paint in the table's first frame (docs/performance.md). The SVG stays the one drawing of the
 *  back: its colours are read from the page's stylesheet (an SVG image sees none), then it is
 *  drawn on a canvas at up to four pixels per unit (cards are at most about a unit per CSS
 *  pixel) and kept as a PNG, once a deck's faces are drawn ahead (CardTable.prepare). Backs
 *  made before it is ready stay SVG. */
async function drawBackImage(back) {
  if (typeof document === "undefined" || !document.body) return;
  const holder = document.createElement("span");
  holder.className = "face font-warmup";
  holder.setAttribute("aria-hidden", "true");
  holder.append(back);
  document.body.append(holder);
  const drawing = back.querySelector("svg");
  const copy = drawing.cloneNode(true);
  try {
    const painted = [...copy.querySelectorAll("*")];
    [...drawing.querySelectorAll("*")].forEach((element, i) => {
      const style = getComputedStyle(element);
      for (const name of PAINT) painted[i].setAttribute(name, style.getPropertyValue(name));
    });
  } finally {
    holder.remove();
  }
  const scale = Math.min(4, Math.max(2, Math.ceil((globalThis.devicePixelRatio || 1) * 1.5)));
  copy.setAttribute("xmlns", SVG);
  copy.setAttribute("width", String(CARD_W * scale));
  copy.setAttribute("height", String(CARD_H * scale));
  const source = URL.createObjectURL(
    new Blob([new XMLSerializer().serializeToString(copy)], { type: "image/svg+xml" }),
  );
  try {
    const image = new Image();
    image.src = source;
    await image.decode();
    const canvas = document.createElement("canvas");
    canvas.width = CARD_W * scale;
    canvas.height = CARD_H * scale;
    canvas.getContext("2d").drawImage(image, 0, 0, canvas.width, canvas.height);
    const blob = await new Promise((done) => canvas.toBlob(done, "image/png"));
    if (!blob) return;
    const url = URL.createObjectURL(blob);
    const bitmap = new Image();
    bitmap.src = url;
    await bitmap.decode(); // decoded now, not in the first frame that shows a back
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(
      `.face.back[data-image] { background: url("${url}") 0 0 / 100% 100% no-repeat;` +
        " print-color-adjust: exact; }",
    );
    document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
    backImage = url;
    performance.mark("skillcheck:back-image");
  } finally {
    URL.revokeObjectURL(source);
  }
}

export class CardTable {
  constructor(data) {
    this.deck = data?.deck || "";
    this.title = data?.title || "";
    this.suits = new Map((data?.suits || []).map((s) => [s.letter, s]));
    this.cards = new Map((data?.cards || []).map((c) => [c.code, c]));
    // A deck whose cards bear several suits lays its corner index in a row.
    this.rowIndex = [...this.cards.values()].some((c) => (c.suits || []).length > 1);
    this.customFace = null;
    this.drawn = new Map(); // code -> a drawn face to clone (drawing is the costly part)
    this.preparing = null; // the step drawing faces ahead in background tasks, while it runs
    this.preparedAll = false; // every face drawn ahead and its fonts laid out: nothing left to do
    // Settled once the faces are drawn ahead, their fonts laid out and the back drawn as an
    // image (or drawing ahead stopped): what the page does next before the view waits for it.
    this.prepared = new Promise((done) => {
      this.donePreparing = done;
    });
  }

  /** The table of deck `deck` (a game's deck_name); a table of bare codes if it cannot load. */
  static async load(root, deck) {
    if (!deck) return new CardTable(null);
    try {
      // (the request the page's <link rel=preload> made: same URL, mode and credentials)
      const response = await fetch(`${root}/v1/decks/${encodeURIComponent(deck)}`);
      if (response.ok) return new CardTable(await response.json());
    } catch {
      // The page still works with bare codes.
    }
    return new CardTable({ deck });
  }

  /** Lets a game's page module draw faces: fn(code, table) returns an element, or null for
   *  the usual face. */
  setFace(fn) {
    this.customFace = typeof fn === "function" ? fn : null;
    this.stopPreparing();
    this.drawn.clear();
  }

  /** Draws the deck's faces ahead, a short slice at a time, while the check's view is on its
   *  way: showing a card is then only a clone. Each slice is a background task of its own (not
   *  an idle callback: a loading page has few idle periods), so a response that arrives
   *  meanwhile waits for one slice at most. */
  prepare() {
    if (this.preparing || this.preparedAll || typeof document === "undefined") return;
    const codes = [...this.cards.keys()];
    const step = () => {
      if (this.preparing !== step) return;
      const until = performance.now() + SLICE_MS;
      do {
        const code = codes.shift();
        if (code !== undefined && !this.drawn.has(code)) this.drawn.set(code, this.drawFace(code));
      } while (codes.length && performance.now() < until);
      if (codes.length) {
        nextTask(step);
      } else {
        // The fonts last, in a task of their own (one layout of one small drawing).
        nextTask(() => {
          if (this.preparing !== step) return;
          this.preparing = null;
          this.preparedAll = true;
          this.warmFonts();
          // then the back, as an image (the faces come first: a view waiting for them draws
          // them on the spot, while a back can always be drawn as SVG)
          backImageDone ||= drawBackImage(this.back()).catch(() => {}); // (backs stay SVG)
          backImageDone.then(this.donePreparing);
        });
      }
    };
    this.preparing = step;
    nextTask(step);
  }

  /** The fonts the drawn faces use (the runs drawn as text: Sketch): for each font (size,
   *  weight, style and family, as the face's <text> elements set them) every character drawn
   *  in it. */
  fontRuns() {
    const runs = new Map();
    for (const face of this.drawn.values()) {
      for (const text of face.querySelectorAll("text")) {
        const font = {};
        for (const name of FONT_ATTRIBUTES) font[name] = text.getAttribute(name);
        const key = JSON.stringify(font);
        if (!runs.has(key)) runs.set(key, { font, characters: new Set() });
        for (const character of text.textContent) runs.get(key).characters.add(character);
      }
    }
    return [...runs.values()].map(({ font, characters }) => ({ font, text: [...characters].join("") }));
  }

  /** Lays out, unseen, one line per font of the drawn faces (fontRuns), then removes it. A
   *  font used for the first time costs its loading and a synchronous call to the browser
   *  process for its rendering style; done here, before the view arrives, it is not done in
   *  the first layout of the table (docs/performance.md). The faces' text is laid out at its
   *  own size whatever the card's width (.card-svg's geometricPrecision), so any width will do. */
  warmFonts() {
    if (typeof document === "undefined" || !document.body) return;
    const runs = this.fontRuns();
    if (!runs.length) {
      // (every face drawn from the outlines: no font to make)
      performance.mark(`skillcheck:fonts-warmed:${this.deck}`);
      return;
    }
    const holder = document.createElement("span");
    holder.className = "face font-warmup";
    holder.setAttribute("aria-hidden", "true");
    const svg = node("svg", { viewBox: `0 0 ${CARD_W} ${CARD_H}`, class: "card-svg", "font-family": FONT, focusable: "false" });
    for (const { font, text } of runs) svg.append(node("text", { x: 0, y: 70, ...font }, text));
    holder.append(svg);
    document.body.append(holder);
    svg.getBBox(); // lays the lines out: the fonts are made and their glyphs shaped now
    holder.remove();
    performance.mark(`skillcheck:fonts-warmed:${this.deck}`);
  }

  /** Stops drawing ahead (the check turned out to use another deck). */
  stopPreparing() {
    this.preparing = null;
    this.donePreparing();
  }

  /** What the page knows of a code: names, rank, suits (a bare code if the table lacks it). */
  info(code) {
    const known = this.cards.get(code);
    if (known) {
      return {
        short_name: known.name,
        title: known.name,
        rank_char: known.rank === null || known.rank === undefined ? "" : String(known.rank),
        suits: known.suit ? [known.suit] : [],
        ...known,
      };
    }
    return { code, name: code, short_name: code, title: code, label: code, rank: null, rank_char: code, suits: [] };
  }

  suit(letter) {
    return this.suits.get(letter) || { letter, name: letter, symbol: letter };
  }

  suitName(letter) {
    return this.suit(letter).name || letter;
  }

  suitSymbol(letter) {
    return this.suit(letter).symbol || letter;
  }

  /** The deck's suits in its own order, for the legend: [{letter, name, symbol, colour}]. */
  legend() {
    return [...this.suits.values()];
  }

  shortName(code) {
    return this.info(code).short_name;
  }

  /** Whether the card's name says more than its rank and suits ("the Forest" does; "the Ace of
   *  Moons" and "the 10 of Hearts" do not): only then is the name printed on the face. */
  hasOwnName(code) {
    const card = this.info(code);
    if (!card.rank) return Boolean(card.short_name) && card.short_name !== card.rank_char;
    const suits = (card.suits || []).map((s) => this.suitName(s));
    return !(suits.length === 1 && card.short_name === `${card.rank} of ${suits[0]}`);
  }

  /** "the Forest, 5, Moons and Leaves", "the 10 of Hearts", "the Excuse" (what screen readers
   *  hear and tooltips show). */
  describe(code) {
    const card = this.info(code);
    const suits = (card.suits || []).map((s) => this.suitName(s));
    const list = suits.length > 1 ? `${suits.slice(0, -1).join(", ")} and ${suits.at(-1)}` : suits[0] || "";
    // A card whose name already says its rank and suit ("the 10 of Hearts") needs no more.
    if (!card.rank || !list || !this.hasOwnName(code)) return card.name;
    return `${card.name}, ${card.rank}, ${list}`;
  }

  /** The card's face: an element with data-code holding its SVG, its description as a tooltip
   *  (the element that holds it names it for screen readers: an aria-label). */
  face(code) {
    const custom = this.customFace?.(code, this);
    if (custom) return custom;
    let drawn = this.drawn.get(code);
    if (!drawn) {
      drawn = this.drawFace(code);
      this.drawn.set(code, drawn);
    }
    return drawn.cloneNode(true);
  }

  drawFace(code) {
    const card = this.info(code);
    const face = document.createElement("span");
    face.className = "face";
    face.dataset.code = code;
    if (card.colour) face.classList.add(`colour-${slug(card.colour)}`);
    face.title = this.describe(code);
    const svg = node("svg", {
      viewBox: `0 0 ${CARD_W} ${CARD_H}`,
      class: "card-svg",
      "font-family": FONT,
      "aria-hidden": "true",
      focusable: "false",
    });
    svg.append(node("rect", { class: "card-paper", x: 0.5, y: 0.5, width: 99, height: 139, rx: 7 }));
    const named = this.hasOwnName(code);
    const suits = card.suits || [];
    const pips = suits.length === 1 && /^\d+$/.test(String(card.rank ?? "")) && PIPS[card.value];
    // A rank said in words (Crown, Pawn, Queen) frames the middle, as a court card is framed.
    const worded = card.rank && !/^\d+$/.test(String(card.rank)) && !(card.value === 1 && suits.length === 1);
    if (worded) {
      svg.append(node("rect", { class: "card-frame", x: 19, y: named ? 48 : 34, width: 62, height: named ? 66 : 72, rx: 4 }));
    }
    // The whole face: the middle, both corner indices and the name, in few paths.
    const full = new Sketch();
    if (pips) {
      for (const [x, y] of pips) this.symbol(full, suits[0], x, y, 23, y > 70 && pips.length > 1);
    } else if (suits.length) {
      const top = named ? 58 : 46;
      const bottom = worded ? (named ? 98 : 92) : 118;
      const spots = this.spots(suits.length, top, bottom);
      const size = suits.length === 1 ? (worded ? 34 : 50) : suits.length === 2 ? 30 : 24;
      suits.forEach((letter, i) => this.symbol(full, letter, spots[i][0], spots[i][1], size));
    } else {
      full.add("mark", { class: "card-mark", x: 50, y: 92, "text-anchor": "middle", "font-size": 40 }, card.rank_char || "★");
    }
    if (worded) {
      const word = String(card.rank);
      const y = named ? 110 : 102;
      const size = fitSize(word, 54, 11, "normal");
      full.add("word", { class: "card-word", x: 50, y, "text-anchor": "middle", "font-size": size, "letter-spacing": round(size * 0.08) }, word);
    }
    this.index(full, card, false);
    this.index(full, card, true);
    if (named) {
      const name = card.short_name;
      const size = fitSize(name, NAME_WIDTH, NAME_SIZE);
      const y = this.rowIndex ? 41 : 44;
      full.add("name", { class: "card-name", x: 7, y, "font-size": size, "font-weight": "bold" }, name);
    }
    const whole = node("g", { class: "card-full" });
    whole.append(...full.elements());
    // A second, simpler face for small cards (the stylesheet shows one of the two by width).
    svg.append(whole, this.miniFace(card));
    // (no words inside: the page names a card on the element that holds its face, an
    // aria-label, and a hidden copy here would cost every card a line of text to lay out)
    face.append(svg);
    return face;
  }

  /** Centres for n symbols between y `top` and `bottom`: one in the middle, two aslant, three
   *  as a triangle. */
  spots(n, top, bottom) {
    const mid = (top + bottom) / 2;
    if (n === 1) return [[50, mid]];
    if (n === 2) return [[35, top + (bottom - top) * 0.28], [65, top + (bottom - top) * 0.74]];
    return [[50, top + (bottom - top) * 0.2], [31, top + (bottom - top) * 0.78], [69, top + (bottom - top) * 0.78]];
  }

  /** A suit's symbol centred on x, y (`size` high), into the suit's layer of `sketch`. */
  symbol(sketch, letter, x, y, size, turned = false) {
    const info = this.suit(letter);
    const attributes = { class: this.suitClass(info, "suit pip"), x, y: y + size * 0.36, "text-anchor": "middle", "font-size": size };
    sketch.add(`suit ${letter}`, attributes, info.symbol || letter, turned ? [x, y] : null);
  }

  suitClass(info, kind) {
    let name = `${kind} suit-${slug(info.name)}`;
    if (info.colour) name += ` colour-${slug(info.colour)}`;
    return name;
  }

  /** A corner index: the rank and the suit symbols, in a row (several-suit decks) or stacked;
   *  `turned`, the same half a turn about the card's centre. The rank goes into the layer
   *  "rank", each symbol into its suit's layer (one path with the suit's pips: the class
   *  "suit" is then on one path per suit, a count of the card's suits). */
  index(sketch, card, turned) {
    const turn = turned ? [CARD_W / 2, CARD_H / 2] : null;
    const rank = card.rank_char || "";
    const suits = card.suits || [];
    const add = (letter, attributes) => {
      const info = this.suit(letter);
      sketch.add(`suit ${letter}`, { class: this.suitClass(info, "suit pip"), ...attributes }, info.symbol || letter, turn);
    };
    if (this.rowIndex) {
      const rankSize = 25;
      const rankWide = rank ? textWidth(rank) * rankSize : 0;
      if (rank) sketch.add("rank", { class: "rank", x: 7, y: 25, "font-size": rankSize, "font-weight": "bold" }, rank, turn);
      if (TURNS_ALIKE.has(rank)) sketch.bar(7, 7 + rankWide, 27, 2, turn);
      let x = 7 + rankWide + (rank ? 3 : 0);
      const size = suits.length > 2 ? 15 : 17;
      for (const letter of suits) {
        const symbol = this.suit(letter).symbol || letter;
        const wide = Math.max(textWidth(symbol, "normal") * size, size * 0.7);
        add(letter, { x: x + wide / 2, y: 24, "text-anchor": "middle", "font-size": size });
        x += wide + 1.5;
      }
    } else {
      const rankSize = rank.length > 1 ? 18 : 22;
      if (rank) sketch.add("rank", { class: "rank", x: 12, y: 23, "text-anchor": "middle", "font-size": rankSize, "font-weight": "bold", "letter-spacing": rank.length > 1 ? -2 : 0 }, rank, turn);
      if (TURNS_ALIKE.has(rank)) {
        const half = (textWidth(rank) * rankSize) / 2;
        sketch.bar(12 - half, 12 + half, 25, 2, turn);
      }
      suits.forEach((letter, i) => add(letter, { x: 12, y: 41 + i * 16, "text-anchor": "middle", "font-size": 17 }));
    }
  }

  /** The face of a small card: the rank and the suit symbols large, nothing else. */
  miniFace(card) {
    const mini = new Sketch();
    const rank = card.rank_char || "";
    if (rank) mini.add("rank", { class: "rank", x: 50, y: 58, "text-anchor": "middle", "font-size": rank.length > 1 ? 50 : 58, "font-weight": "bold", "letter-spacing": rank.length > 1 ? -4 : 0 }, rank);
    if (TURNS_ALIKE.has(rank)) {
      const half = (textWidth(rank) * 58) / 2;
      mini.bar(50 - half, 50 + half, 63, 4);
    }
    const suits = card.suits || [];
    const size = suits.length > 2 ? 34 : suits.length === 2 ? 42 : 54;
    const step = size * 0.95;
    suits.forEach((letter, i) => {
      const info = this.suit(letter);
      const x = 50 + (i - (suits.length - 1) / 2) * step;
      mini.add(`suit ${letter}`, { class: this.suitClass(info, "mini-suit"), x, y: 120, "text-anchor": "middle", "font-size": size }, info.symbol || letter);
    });
    const group = node("g", { class: "card-mini" });
    group.append(...mini.elements());
    return group;
  }

  /** The back of a face-down card: a lattice in a frame, `words` as its tooltip. Once the
   *  back has been drawn as an image (drawBackImage), an element with that image. */
  back(words = "a face-down card") {
    if (backImage && !this.drawnBack?.hasAttribute("data-image")) {
      const back = document.createElement("span");
      back.className = "face back";
      back.dataset.back = "";
      back.dataset.image = "";
      this.drawnBack = back;
    }
    if (!this.drawnBack) {
      const back = document.createElement("span");
      back.className = "face back";
      back.dataset.back = "";
      const svg = node("svg", { viewBox: `0 0 ${CARD_W} ${CARD_H}`, class: "card-svg", "aria-hidden": "true", focusable: "false" });
      svg.append(node("rect", { class: "back-paper", x: 0.5, y: 0.5, width: 99, height: 139, rx: 7 }));
      // A nested <svg> clips the lattice to the inner frame (no ids, so any number may show).
      const inner = node("svg", { x: 8, y: 8, width: 84, height: 124, viewBox: "0 0 84 124" });
      inner.append(node("rect", { class: "back-field", x: 0, y: 0, width: 84, height: 124 }));
      const lines = [];
      for (let d = -124; d <= 84; d += 12) lines.push(`M${d} 0L${d + 124} 124M${d + 124} 0L${d} 124`);
      inner.append(node("path", { class: "back-lattice", d: lines.join("") }));
      inner.append(node("rect", { class: "back-medallion", x: 27, y: 47, width: 30, height: 30, rx: 3, transform: "rotate(45 42 62)" }));
      svg.append(inner);
      svg.append(node("rect", { class: "back-frame", x: 8, y: 8, width: 84, height: 124, rx: 4 }));
      back.append(svg);
      this.drawnBack = back;
    }
    const back = this.drawnBack.cloneNode(true);
    back.title = words.charAt(0).toUpperCase() + words.slice(1);
    return back;
  }
}
