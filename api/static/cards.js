// Cards on the page: a deck's table from GET /v1/decks/{deck}, and a card drawn as DOM elements.
// Nothing here knows a deck: suits, ranks and names all come from the table. A suit is styled by
// its name (class "suit-<name>", e.g. suit-hearts) and, where the deck gives one, its colour
// (class "colour-red"); a game's page module may replace the face (setFace).

/** A CSS-safe lower-case word for a name ("Light Keeper" -> "light-keeper"). */
export function slug(text) {
  return String(text || "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");
}

export class CardTable {
  constructor(data) {
    this.deck = data?.deck || "";
    this.title = data?.title || "";
    this.suits = new Map((data?.suits || []).map((s) => [s.letter, s]));
    this.cards = new Map((data?.cards || []).map((c) => [c.code, c]));
    this.customFace = null;
  }

  /** The table of deck `deck` (a game's deck_name); a table of bare codes if it cannot load. */
  static async load(root, deck) {
    if (!deck) return new CardTable(null);
    try {
      const response = await fetch(`${root}/v1/decks/${encodeURIComponent(deck)}`, {
        credentials: "omit",
      });
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

  shortName(code) {
    return this.info(code).short_name;
  }

  /** "the Lunatic, 6 of Moons and Waves", "the 10 of Hearts" (for screen readers, tooltips). */
  describe(code) {
    const card = this.info(code);
    const suits = (card.suits || []).map((s) => this.suitName(s));
    const list = suits.length > 1 ? `${suits.slice(0, -1).join(", ")} and ${suits.at(-1)}` : suits[0] || "";
    // A card whose name already says its rank and suit ("the 10 of Hearts") needs no more.
    if (!card.rank || !list || card.name.includes(` of ${list}`)) return card.label || card.name;
    return `${card.name}, ${card.rank} of ${list}`;
  }

  /** The card face: rank, suit symbols (coloured, each named in its tooltip), the short name. */
  face(code) {
    const custom = this.customFace?.(code, this);
    if (custom) return custom;
    const card = this.info(code);
    const face = document.createElement("span");
    face.className = "face";
    face.dataset.code = code;
    if (card.colour) face.classList.add(`colour-${slug(card.colour)}`);
    const top = document.createElement("span");
    top.className = "corner";
    top.setAttribute("aria-hidden", "true");
    const rank = document.createElement("span");
    rank.className = "rank";
    rank.textContent = card.rank_char;
    top.append(rank);
    for (const letter of card.suits || []) {
      const info = this.suit(letter);
      const suit = document.createElement("span");
      suit.className = `suit suit-${slug(info.name)}`;
      if (info.colour) suit.classList.add(`colour-${slug(info.colour)}`);
      suit.title = info.name;
      suit.textContent = info.symbol || letter;
      top.append(suit);
    }
    const name = document.createElement("span");
    name.className = "name";
    name.setAttribute("aria-hidden", "true");
    name.textContent = card.short_name;
    const spoken = document.createElement("span");
    spoken.className = "visually-hidden";
    spoken.textContent = this.describe(code);
    face.append(top, name, spoken);
    face.title = this.describe(code);
    return face;
  }

  /** The back of a face-down card: a pattern, and words for screen readers. */
  back() {
    const back = document.createElement("span");
    back.className = "face back";
    back.dataset.back = "";
    const spoken = document.createElement("span");
    spoken.className = "visually-hidden";
    spoken.textContent = "a face-down card";
    back.append(spoken);
    back.title = "A face-down card";
    return back;
  }
}
