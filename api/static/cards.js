// Cards on the page: the table from GET /v1/cards, and a card drawn as DOM elements.

const SUIT_CLASS = { M: "moons", S: "suns", W: "waves", L: "leaves", Y: "wyrms", K: "knots" };

export class CardTable {
  constructor(data) {
    this.suits = new Map((data?.suits || []).map((s) => [s.letter, s]));
    this.cards = new Map((data?.cards || []).map((c) => [c.code, c]));
  }

  static async load(root) {
    try {
      const response = await fetch(`${root}/v1/cards`, { credentials: "omit" });
      if (response.ok) return new CardTable(await response.json());
    } catch {
      // The page still works with bare codes.
    }
    return new CardTable(null);
  }

  /** What the page knows of a code: name, rank label, rank character, suits. */
  info(code) {
    const known = this.cards.get(code);
    if (known) return known;
    return { code, name: code, short_name: code, title: code, rank: null, rank_char: code[0] || "?", suits: [...code.slice(1)] };
  }

  suitName(letter) {
    return this.suits.get(letter)?.name || letter;
  }

  suitSymbol(letter) {
    return this.suits.get(letter)?.symbol || letter;
  }

  /** "the Lunatic, 6 of Moons and Waves" (for screen readers and tooltips). */
  describe(code) {
    const card = this.info(code);
    const suits = card.suits.map((s) => this.suitName(s));
    const list = suits.length > 1 ? `${suits.slice(0, -1).join(", ")} and ${suits.at(-1)}` : suits[0] || "";
    return card.rank ? `${card.name}, ${card.rank} of ${list}` : card.name;
  }

  /** The card face: rank, suit symbols (each coloured and lettered), the short name. */
  face(code) {
    const card = this.info(code);
    const face = document.createElement("span");
    face.className = "face";
    face.dataset.code = code;
    const top = document.createElement("span");
    top.className = "corner";
    top.setAttribute("aria-hidden", "true");
    const rank = document.createElement("span");
    rank.className = "rank";
    rank.textContent = card.rank_char === "X" ? "10" : card.rank_char;
    top.append(rank);
    for (const letter of card.suits) {
      const suit = document.createElement("span");
      suit.className = `suit suit-${SUIT_CLASS[letter] || "unknown"}`;
      suit.title = this.suitName(letter);
      suit.textContent = this.suitSymbol(letter);
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
}
