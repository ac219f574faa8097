// skillcheck-deal.mjs: reproduce skillcheck's seeded deals in JavaScript.
//
// A dependency-free ES module implementing docs/rng.md: PCG32 (PCG-XSH-RR 64/32, M. E. O'Neill,
// 2014) with pcg32_srandom_r seeding on stream 54, unbiased bounded integers (pcg32_boundedrand_r),
// the Fisher–Yates shuffle, the canonical order of the 24 Decktet numerals and of the standard
// 52-card deck, the Three Towers deal and the Tri Peaks deal. For a given (parameters, seed) it
// returns exactly the card codes the Python library deals. tests/test_deal_vectors.py checks this
// against the golden vectors in tests/golden/deals.json and tests/golden/tripeaks_deals.json and
// against random parameters and seeds.
//
// Library use (browser or Node):
//
//   import { dealThreeTowers, dealTriPeaks } from "./skillcheck-deal.mjs";
//   dealThreeTowers({ level: 9, variant: { kind: "quota", suit: "moons", skill: 4, quota: 3 } }, 1234);
//   dealTriPeaks(1234);                       // {tableau: [28 codes], waste: [code], stock, deal}
//   dealTriPeaks(1234, { emptyWaste: true }); // waste [] and a 24-card stock
//
// Command line (Node 18+):
//
//   node skillcheck-deal.mjs '<params JSON>' <seed>     Three Towers: the deal as a JSON list of codes
//   node skillcheck-deal.mjs three-towers '<params JSON>' <seed>      the same
//   node skillcheck-deal.mjs tripeaks <seed> [--empty-waste]           {tableau, waste, stock, deal}
//   node skillcheck-deal.mjs --batch < cases.json       [{game?, params, seed}, ...] -> [deal, ...]

const MASK64 = (1n << 64n) - 1n;
const MULTIPLIER = 6364136223846793005n;

/** The PCG32 stream selector (initseq) every deal uses. */
export const STREAM = 54;
/** Seeds are whole numbers 0..MAX_SEED (2**53 - 1), so a JavaScript Number holds any seed exactly. */
export const MAX_SEED = Number.MAX_SAFE_INTEGER;

function toBigInt64(value, what) {
  if (typeof value === "bigint") return value & MASK64;
  if (typeof value === "number" && Number.isSafeInteger(value)) return BigInt(value) & MASK64;
  throw new TypeError(`${what} must be a whole number (a safe-integer Number or a BigInt), got ${value}`);
}

/** The PCG32 generator: 64-bit state (a BigInt), 32-bit outputs (Numbers). */
export class Pcg32 {
  #state;
  #inc;

  /** pcg32_srandom_r(initstate, initseq). */
  constructor(initstate, initseq = STREAM) {
    const seed = toBigInt64(initstate, "initstate");
    this.#state = 0n;
    this.#inc = ((toBigInt64(initseq, "initseq") << 1n) | 1n) & MASK64;
    this.nextU32();
    this.#state = (this.#state + seed) & MASK64;
    this.nextU32();
  }

  /** The next 32-bit output, 0..2**32-1 (pcg32_random_r). */
  nextU32() {
    const old = this.#state;
    this.#state = (old * MULTIPLIER + this.#inc) & MASK64;
    const xorshifted = Number((((old >> 18n) ^ old) >> 27n) & 0xffffffffn);
    const rot = Number(old >> 59n);
    return ((xorshifted >>> rot) | (xorshifted << (-rot & 31))) >>> 0;
  }

  /** A uniform integer 0 <= r < bound, without modulo bias (pcg32_boundedrand_r). */
  bounded(bound) {
    if (!Number.isInteger(bound) || bound < 1 || bound > 0xffffffff) {
      throw new RangeError(`bound must be between 1 and 2**32 - 1, got ${bound}`);
    }
    const threshold = (0x100000000 - bound) % bound;
    for (;;) {
      const r = this.nextU32();
      if (r >= threshold) return r % bound;
    }
  }

  /** Shuffle in place (for i = n-1 down to 1: swap items[i] and items[bounded(i + 1)]); returns items. */
  shuffle(items) {
    for (let i = items.length - 1; i > 0; i--) {
      const j = this.bounded(i + 1);
      const t = items[i];
      items[i] = items[j];
      items[j] = t;
    }
    return items;
  }
}

// ---- the Decktet numerals ------------------------------------------------------------------------

/** The six suits in conventional order, with the letters card codes use. */
export const SUITS = Object.freeze([
  Object.freeze({ name: "moons", letter: "M" }),
  Object.freeze({ name: "suns", letter: "S" }),
  Object.freeze({ name: "waves", letter: "W" }),
  Object.freeze({ name: "leaves", letter: "L" }),
  Object.freeze({ name: "wyrms", letter: "Y" }),
  Object.freeze({ name: "knots", letter: "K" }),
]);

const NUMERAL_TABLE = [
  ["the Author", 2, "MK"], ["the Desert", 2, "SY"], ["the Origin", 2, "WL"],
  ["the Journey", 3, "MW"], ["the Painter", 3, "SK"], ["the Savage", 3, "LY"],
  ["the Mountain", 4, "MS"], ["the Sailor", 4, "WL"], ["the Battle", 4, "YK"],
  ["the Forest", 5, "ML"], ["the Discovery", 5, "SW"], ["the Soldier", 5, "YK"],
  ["the Lunatic", 6, "MW"], ["the Penitent", 6, "SY"], ["the Market", 6, "LK"],
  ["the Chance Meeting", 7, "ML"], ["the Castle", 7, "SK"], ["the Cave", 7, "WY"],
  ["the Diplomat", 8, "MS"], ["the Mill", 8, "WL"], ["the Betrayal", 8, "YK"],
  ["the Pact", 9, "MS"], ["the Darkness", 9, "WY"], ["the Merchant", 9, "LK"],
];

const SUIT_BY_LETTER = Object.fromEntries(SUITS.map((s) => [s.letter, s.name]));

/**
 * The 24 numerals 2..9 in canonical order (docs/rng.md): {index, code, name, rank, suits}.
 * `index` is the card's place in the full 45-card canonical Decktet (the six Aces come first).
 */
export const NUMERALS = Object.freeze(
  NUMERAL_TABLE.map(([name, rank, letters], i) =>
    Object.freeze({
      index: 6 + i,
      code: `${rank}${letters}`,
      name,
      rank,
      suits: Object.freeze([...letters].map((l) => SUIT_BY_LETTER[l])),
    }),
  ),
);

/** A suit name from its name (any case, singular or plural) or its letter, as Suit.parse reads it. */
export function parseSuit(text) {
  const key = String(text).trim().toLowerCase();
  for (const suit of SUITS) {
    if (key === suit.name || key === suit.name.slice(0, -1) || key === suit.letter.toLowerCase()) {
      return suit.name;
    }
  }
  if (key === "wood") return "leaves"; // the old name of Leaves
  throw new RangeError(`unknown suit ${JSON.stringify(text)}: the suits are ${SUITS.map((s) => s.name).join(", ")}`);
}

/** A numeral from its code (any case, suit letters in any order) or its name ("the" optional). */
export function parseNumeral(text) {
  const raw = String(text).trim();
  const upper = raw.toUpperCase();
  for (const card of NUMERALS) {
    if (upper.length === card.code.length && upper[0] === card.code[0]) {
      const letters = [...upper.slice(1)].sort().join("");
      if (letters === [...card.code.slice(1)].sort().join("")) return card;
    }
  }
  let key = raw.toLowerCase().replace(/-/g, " ").split(/\s+/).filter(Boolean).join(" ");
  if (key.startsWith("the ")) key = key.slice(4);
  if (key === "meeting") key = "chance meeting";
  for (const card of NUMERALS) {
    if (card.name.slice(4).toLowerCase() === key) return card;
  }
  throw new RangeError(`unknown numeral ${JSON.stringify(text)}: give a code such as 2MK or a name such as the Author`);
}

// ---- Three Towers --------------------------------------------------------------------------------

function wholeInRange(value, name, low, high) {
  if (!Number.isInteger(value) || value < low || value > high) {
    throw new RangeError(`${name} ${JSON.stringify(value)} is not allowed: ${name} must be a whole number from ${low} to ${high}`);
  }
  return value;
}

/** A seed as a BigInt, after checking it is a whole number 0..MAX_SEED (a Number, BigInt or digit string). */
export function validateSeed(seed) {
  let value;
  if (typeof seed === "number" && Number.isInteger(seed)) value = BigInt(seed);
  else if (typeof seed === "bigint") value = seed;
  else if (typeof seed === "string" && /^[0-9]+$/.test(seed.trim())) value = BigInt(seed.trim());
  if (value === undefined || value < 0n || value > BigInt(MAX_SEED)) {
    throw new RangeError(`seed ${String(seed)} is not allowed: a seed is a whole number from 0 to ${MAX_SEED}`);
  }
  return value;
}

/** The numerals 2..level in canonical order. */
export function levelDeck(level) {
  return NUMERALS.filter((c) => c.rank <= level);
}

function normaliseVariant(variant, level) {
  if (variant === undefined || variant === null || variant === "standard") return { kind: "standard" };
  if (typeof variant !== "object") {
    throw new RangeError(`variant ${JSON.stringify(variant)} is not allowed: the kinds are standard, ivory and quota`);
  }
  const kind = variant.kind;
  if (kind === "standard") return { kind };
  if (kind === "ivory") return { kind, suit: parseSuit(variant.suit) };
  if (kind !== "quota") {
    throw new RangeError(`variant kind ${JSON.stringify(kind)} is not allowed: the kinds are standard, ivory and quota`);
  }
  const suit = parseSuit(variant.suit);
  const skill = wholeInRange(variant.skill, "skill", 1, Math.min(8, level - 1));
  const quota = wholeInRange(variant.quota, "quota", 1, skill);
  let suited = variant.suited_cards ?? variant.suitedCards ?? null;
  if (suited !== null) {
    if (typeof suited === "string") suited = suited.split(",").filter((p) => p.trim());
    suited = suited.map(parseNumeral);
    const allowed = levelDeck(level).filter((c) => c.suits.includes(suit));
    if (suited.some((c) => !allowed.includes(c)) || new Set(suited).size !== skill) {
      throw new RangeError(
        `suited_cards must be ${skill} different cards of ${suit} up to level ${level} (from: ${allowed.map((c) => c.code).join(", ")})`,
      );
    }
  }
  return { kind, suit, skill, quota, suited };
}

/**
 * The Three Towers deal for `params` and `seed`: the deck's card codes, top card first.
 *
 * `params` is the Python library's game_params() form, {level, spaces, variant, undo, move_limit}
 * (level defaults to 9, spaces to 5; spaces, undo and move_limit do not change the deal), with
 * variant {kind: "standard"} | {kind: "ivory", suit} | {kind: "quota", suit, skill, quota,
 * suited_cards} (suited_cards: null or omitted to let the seed choose, else the GM's codes).
 */
export function dealThreeTowers(params, seed) {
  const p = params ?? {};
  const level = wholeInRange(p.level ?? 9, "level", 2, 9);
  wholeInRange(p.spaces ?? 5, "spaces", 3, 8);
  const variant = normaliseVariant(p.variant, level);
  const rng = new Pcg32(validateSeed(seed));
  let cards = levelDeck(level);
  if (variant.kind === "quota") {
    let chosen = variant.suited;
    if (chosen === null) {
      const candidates = cards.filter((c) => c.suits.includes(variant.suit));
      rng.shuffle(candidates);
      chosen = candidates.slice(0, variant.skill);
    }
    cards = cards.filter((c) => !c.suits.includes(variant.suit) || chosen.includes(c));
  }
  return rng.shuffle([...cards]).map((c) => c.code);
}

// ---- the standard 52-card deck -------------------------------------------------------------------

/** The standard deck's suit letters in canonical (bridge) order: Spades, Hearts, Diamonds, Clubs. */
export const STANDARD_SUITS = Object.freeze(["S", "H", "D", "C"]);
/** The rank characters, Ace (1) to King (13); ten is written "10". */
export const STANDARD_RANKS = Object.freeze(["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]);

/**
 * The 52 standard card codes in canonical order (docs/rng.md), a fresh array each call: suit by suit
 * (Spades, Hearts, Diamonds, Clubs), each Ace, 2, ..., 10, Jack, Queen, King. A card's place is
 * 13 * suit + rank - 1: "AS" 0, "KS" 12, "AH" 13, "KC" 51.
 */
export function standardDeck() {
  return STANDARD_SUITS.flatMap((suit) => STANDARD_RANKS.map((rank) => rank + suit));
}

// ---- Tri Peaks -----------------------------------------------------------------------------------

/** The Tri Peaks tableau positions by row: the peak tips 0..2 first, the face-up bottom row 18..27 last. */
export const TRIPEAKS_ROWS = Object.freeze([
  Object.freeze([0, 1, 2]),
  Object.freeze([3, 4, 5, 6, 7, 8]),
  Object.freeze([9, 10, 11, 12, 13, 14, 15, 16, 17]),
  Object.freeze([18, 19, 20, 21, 22, 23, 24, 25, 26, 27]),
]);
/** Cards in the Tri Peaks tableau. */
export const TRIPEAKS_TABLEAU = 28;

function emptyWasteOption(options) {
  const o = options ?? {};
  if (typeof o !== "object") {
    throw new TypeError(`the Tri Peaks options must be an object such as {emptyWaste: true}, got ${JSON.stringify(options)}`);
  }
  const value = o.emptyWaste ?? o.empty_waste ?? false;
  if (typeof value !== "boolean") {
    throw new RangeError(`emptyWaste ${JSON.stringify(value)} is not allowed: emptyWaste must be true or false`);
  }
  return value;
}

/**
 * The Tri Peaks deal for `seed` (docs/rng.md, "The Tri Peaks deal").
 *
 * The 52 standard cards in canonical order are shuffled with Pcg32(seed) (stream 54); the shuffled
 * list `deal` is dealt as `deal[0..27]` to tableau positions 0..27, `deal[28]` to the waste, and
 * `deal[29..51]` to the stock, top card first. With `{emptyWaste: true}` there is no waste card and
 * `deal[28..51]` is the stock. Returns `{tableau, waste, stock, deal}`: arrays of card codes
 * (`waste` holds one code, or none), and `deal` the 52 codes in the order above.
 */
export function dealTriPeaks(seed, options = {}) {
  const emptyWaste = emptyWasteOption(options);
  const deal = new Pcg32(validateSeed(seed)).shuffle(standardDeck());
  const stockFrom = emptyWaste ? TRIPEAKS_TABLEAU : TRIPEAKS_TABLEAU + 1;
  return {
    tableau: deal.slice(0, TRIPEAKS_TABLEAU),
    waste: deal.slice(TRIPEAKS_TABLEAU, stockFrom),
    stock: deal.slice(stockFrom),
    deal,
  };
}

// ---- command line --------------------------------------------------------------------------------

async function readStdin() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return Buffer.concat(chunks).toString("utf8");
}

/** The games the command line deals, by registry name. */
const GAMES = Object.freeze({
  "three-towers": (c) => dealThreeTowers(c.params, c.seed),
  tripeaks: (c) => dealTriPeaks(c.seed, c.params ?? { emptyWaste: c.emptyWaste ?? c.empty_waste }),
});

function dealCase(c) {
  if (c === null || typeof c !== "object") throw new TypeError(`a batch case must be an object, got ${JSON.stringify(c)}`);
  const game = c.game ?? "three-towers";
  const deal = Object.hasOwn(GAMES, game) ? GAMES[game] : undefined;
  if (deal === undefined) {
    throw new RangeError(`unknown game ${JSON.stringify(game)}: the games are ${Object.keys(GAMES).join(", ")}`);
  }
  return deal(c);
}

const USAGE =
  "usage: node skillcheck-deal.mjs '<three-towers params JSON>' <seed>\n" +
  "       node skillcheck-deal.mjs three-towers '<params JSON>' <seed>\n" +
  "       node skillcheck-deal.mjs tripeaks <seed> [--empty-waste]\n" +
  "       node skillcheck-deal.mjs --batch < [{\"game\": ..., \"params\": {...}, \"seed\": N}, ...]\n";

function usage(message) {
  throw new RangeError(`${message}\n${USAGE}`);
}

async function main(args) {
  let result;
  if (args.length === 1 && args[0] === "--batch") {
    const cases = JSON.parse(await readStdin());
    if (!Array.isArray(cases)) throw new TypeError("--batch reads a JSON list of cases from stdin");
    result = cases.map(dealCase);
  } else if (args[0] === "tripeaks") {
    const rest = args.slice(1);
    const emptyWaste = rest.includes("--empty-waste");
    const seeds = rest.filter((a) => a !== "--empty-waste");
    if (seeds.length !== 1) usage("tripeaks takes one seed and optionally --empty-waste");
    result = dealTriPeaks(seeds[0], { emptyWaste });
  } else if (args[0] === "three-towers") {
    if (args.length !== 3) usage("three-towers takes a params JSON and a seed");
    result = dealThreeTowers(JSON.parse(args[1]), args[2]);
  } else if (args.length === 2 && args[0].trim().startsWith("{")) {
    result = dealThreeTowers(JSON.parse(args[0]), args[1]); // the original form: Three Towers
  } else if (args.length >= 1 && !args[0].trim().startsWith("{") && !args[0].startsWith("-")) {
    usage(`unknown game ${JSON.stringify(args[0])}: the games are ${Object.keys(GAMES).join(", ")}`);
  } else {
    usage("expected a game and a seed");
  }
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

// Run as a program only under Node and only when this file is the entry point, so that importing
// the module (a Foundry VTT module in the browser, or another Node module) has no side effects.
if (typeof process !== "undefined" && process.argv?.[1] && import.meta.url.startsWith("file:")) {
  const { pathToFileURL } = await import("node:url");
  const { realpathSync } = await import("node:fs");
  let entry;
  try {
    entry = pathToFileURL(realpathSync(process.argv[1])).href;
  } catch {
    entry = undefined;
  }
  if (entry === import.meta.url) {
    try {
      await main(process.argv.slice(2));
    } catch (error) {
      process.stderr.write(`skillcheck-deal: ${error.message}\n`);
      process.exitCode = 2;
    }
  }
}
