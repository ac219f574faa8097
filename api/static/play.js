//# allFunctionsCalledOnLoad
// The player's page for a check of any game (docs/play-page.md).
// The token comes from the URL fragment (#token=...), which never reaches the server's logs.
//
// The page is a shell: it draws the view's `board` (zones, meters, the goal) and offers the
// view's `moves` ({code, from, to, text}, zone ids). It never reads a move code or a rule: a
// move is chosen by its source zone, then its target zone, and sent by its code as the server
// wrote it. A game may add a page module (api/static/games/<name>.js) with its own layouts.

import { ApiError, CheckClient, LiveFeed } from "./api.js";
import { Assist } from "./assist.js";
import { CardTable, nextTask, ordinal, slug } from "./cards.js";
import { DragDrop, focusBoard } from "./drag.js";
import { Motion } from "./motion.js";
import { Sound } from "./sound.js";

// Playing by hand: drag and drop, animations, sound, hints (set up in wire()).
const hand = { motion: null, drag: null, assist: null, sound: new Sound() };

const $ = (id) => document.getElementById(id);

const STATUS_WORDS = {
  in_progress: "In progress",
  won: "✔ Won",
  lost: "✘ Lost",
  cancelled: "Cancelled by the GM",
};
const REASONS = {
  goal: "the goal was reached",
  // (true of every game's end without moves: a stock used up, or every card played while a
  // target fell short, where "no legal move was left" read as a contradiction)
  no_legal_moves: "the game could go no further",
  move_limit: "the move limit was reached",
  conceded: "the player conceded",
  unwinnable: "the GM ended it: the solver proved it could no longer be won",
};

const page = {
  root: document.documentElement.dataset.root || "",
  games: readGames(),
  game: null, // {title, deck, deal_order, module} of the check's game
  plugin: {}, // the game's page module, if it has one
  client: null,
  cards: new CardTable(null),
  role: "spectator",
  view: null,
  viewCame: false, // the check's view has come (or failed to): no more rehearsals (rehearse)
  selected: null, // the id of the zone a move starts from
  busy: false,
  queued: null, // a move code typed while the last action was in flight
  feed: null,
  record: null,
  downloadUrl: null,
  focusKey: null, // data-key of the board control that last had the focus
  undoAsked: null, // the version at which a greyed Undo was pressed (its reason is shown)
  noticeTimer: 0, // a phone's notice steps aside when it runs out (say)
};

function readGames() {
  try {
    return JSON.parse(document.documentElement.dataset.games || "{}") || {};
  } catch {
    return {};
  }
}

// ---- start ------------------------------------------------------------------------------------

function checkIdFromPath() {
  const prefix = `${page.root}/play/`;
  const path = location.pathname;
  if (!path.startsWith(prefix)) return "";
  const segment = path.slice(prefix.length).split("/")[0];
  try {
    return decodeURIComponent(segment);
  } catch {
    return "";
  }
}

/** The game the link says the check is (`?game=<name>`, as the API's links carry it), if it is
 *  a registered one: a hint, so that the page prepares that game first while the check's view
 *  is on its way. The view decides: a link without it, or with a wrong one, shows the same. */
function gameFromLink() {
  const name = new URLSearchParams(location.search).get("game") || "";
  return Object.hasOwn(page.games, name) ? name : null;
}

function tokenFromFragment() {
  const fragment = location.hash.replace(/^#/, "");
  return (new URLSearchParams(fragment).get("token") || "").trim();
}

/** Gives the page its icon. play.html holds an empty one (so the browser asks for no
 *  /favicon.ico): a browser fetches and decodes an SVG icon (a document of its own) on the
 *  page's main thread once the page has loaded, which is when the view tends to arrive on a
 *  phone's network, so the real icon comes after the first table (or problem) is on screen
 *  (docs/performance.md). */
function addIcon() {
  const link = document.querySelector("link[rel=icon]");
  const href = new URL("icon.svg", import.meta.url).href;
  if (!link || link.href === href) return;
  link.type = "image/svg+xml";
  link.href = href;
}

/** Shows the page's parts laid out unseen while the view was on its way (class `pending` in
 *  play.html: transparent, and hidden from screen readers until now). */
function reveal(...ids) {
  for (const id of ids) {
    $(id).classList.remove("pending");
    $(id).removeAttribute("aria-hidden");
  }
}

function fatal(title, detail, retry = false) {
  addIcon();
  reveal("header", "main");
  $("loading").hidden = true;
  $("game").hidden = true;
  $("fatal-title").textContent = title;
  $("fatal-detail").textContent = detail;
  $("retry").hidden = !retry;
  $("fatal").hidden = false;
  $("main").setAttribute("aria-busy", "false");
}

async function loadPlugin(module) {
  if (!module) return {};
  try {
    return await import(new URL(module, import.meta.url).href);
  } catch (error) {
    console.warn(`the game's page module ${module} did not load; drawing the board plainly`, error);
    return {};
  }
}

async function start() {
  const checkId = checkIdFromPath();
  const token = tokenFromFragment();
  if (!checkId) {
    fatal("No check in this link.", "The address should look like /play/<check id>#token=….");
    return;
  }
  if (!token) {
    fatal(
      "This link has no access token.",
      "Ask your GM for the whole link: it ends with #token= followed by your player token " +
        "(or a spectator token to watch).",
    );
    return;
  }
  page.role = token.startsWith("sc_play_") ? "player" : "spectator";
  page.client = new CheckClient(page.root, checkId, token);
  // The decks' tables load while the view does (they are the same for every check and cached
  // for a day), so the table is drawn as soon as the view arrives.
  const decks = new Map();
  for (const game of Object.values(page.games)) {
    if (game?.deck && !decks.has(game.deck)) {
      const loading = CardTable.load(page.root, game.deck);
      loading.then((table) => {
        // the deck's symbols, laid out ahead with the table's other words (play.html)
        const symbols = table.legend().map(suitMark).join("");
        for (const holder of document.querySelectorAll(".warmup-symbols")) holder.append(symbols);
      });
      decks.set(game.deck, loading);
    }
  }
  let view;
  const viewing = page.client.view();
  prepareAhead(decks); // (until the view comes)
  try {
    view = await viewing;
  } catch (error) {
    loadFailed(error);
    return;
  } finally {
    page.viewCame = true;
  }
  performance.mark("skillcheck:view"); // benchmarks/page_render.py measures from here
  if (!view.board || !Array.isArray(view.board.zones) || !Array.isArray(view.moves)) {
    fatal("This check cannot be shown here.", "The server sent no board for it; it may be older than this page.");
    return;
  }
  const game = page.games[view.game] || { title: view.game, deck: null, module: null, deal_order: "" };
  for (const [deck, loading] of decks) {
    if (deck !== game.deck) loading.then((table) => table.stopPreparing());
  }
  adopt(game, ...(await gameParts(game, decks)));
  const title = `${page.game.title || view.game} check`;
  $("title").textContent = title;
  document.title = title;
  document.body.dataset.game = slug(view.game);
  $("fatal").hidden = true;
  $("loading").hidden = true;
  $("game").hidden = false;
  $("main").setAttribute("aria-busy", "false");
  showRole();
  for (const warmup of document.querySelectorAll(".table-warmup")) warmup.remove();
  // The header, the table and the footer appear together, in one frame: nothing on screen moves.
  reveal("header", "main", "footer");
  applyView(view);
  performance.mark("skillcheck:drawn");
  // The frame that shows the table: a task queued from the next animation frame runs after it
  // is painted. The live feed starts then, so that opening its stream does not delay the frame
  // (it resumes after the view's version, so nothing played meanwhile is missed).
  // (A hidden page draws no frames: its feed starts at once.)
  const shown = () => {
    performance.mark("skillcheck:painted");
    addIcon();
    if (isOver()) {
      $("live").textContent = MODE_WORDS.stopped;
      $("live").dataset.mode = "stopped";
    } else {
      follow(view.version);
    }
  };
  if (document.hidden) setTimeout(shown, 0);
  else requestAnimationFrame(() => setTimeout(shown, 0));
}

/** What drawing `game` needs: its deck's table (drawn ahead when the page has it in `decks`)
 *  and its page module. */
function gameParts(game, decks) {
  return Promise.all([decks.get(game.deck) || CardTable.load(page.root, game.deck), loadPlugin(game.module)]);
}

/** Makes `game` the one drawn: its deck's `cards`, and its page module `plugin` ({} if none). */
function adopt(game, cards, plugin) {
  page.game = game;
  page.cards = cards;
  page.plugin = plugin || {};
  const face = typeof page.plugin.face === "function" ? page.plugin.face : null;
  if (cards.customFace !== face) cards.setFace(face);
}

/** A game's sample view: the first view of a made-up check (GET /v1/games/{name}/sample-view,
 *  the same for every check and kept by the browser's cache for a day). */
async function sampleView(name) {
  const response = await fetch(`${page.root}/v1/games/${encodeURIComponent(name)}/sample-view`, {
    headers: { Accept: "application/json" },
    credentials: "omit",
    referrerPolicy: "no-referrer",
  });
  if (!response.ok) throw new Error(`the sample view of ${name}: HTTP ${response.status}`);
  return response.json();
}

/** What the page does while the check's view is on its way, one step at a time in background
 *  tasks, until the view comes: it draws ahead the faces of each game's deck (showing a card is
 *  then a clone), then rehearses each game's table (rehearse). The game the link names
 *  (gameFromLink) goes first, deck and rehearsal, before any other game's; without that hint
 *  every deck is drawn ahead before any rehearsal, since the check's table needs its faces
 *  more than a rehearsal. */
async function prepareAhead(decks) {
  const hinted = gameFromLink();
  const others = Object.keys(page.games).filter((name) => name !== hinted);
  for (const names of hinted ? [[hinted], others] : [others]) {
    for (const name of names) {
      if (page.viewCame) return;
      const loading = decks.get(page.games[name]?.deck);
      if (!loading) continue;
      const table = await loading;
      if (page.viewCame) return;
      table.prepare();
      await table.prepared;
    }
    for (const name of names) {
      if (page.viewCame) return;
      await rehearse(name, decks);
    }
  }
}

/** Draws the sample view of game `name` (a made-up check's first view) once into the page, still
 *  unseen, and lays it out. A browser draws the first table of a kind far slower than the next
 *  (the styles, words and shapes it meets for the first time), so the check's own table, drawn
 *  next, comes quicker (docs/performance.md). One background task; none once the view has come,
 *  so a rehearsal never delays the view by more than one game's drawing. */
async function rehearse(name, decks) {
  const game = page.games[name];
  let sample;
  let parts;
  try {
    [sample, parts] = await Promise.all([sampleView(name), gameParts(game, decks)]);
  } catch {
    return; // (without it, the check's table is only slower to draw)
  }
  await new Promise((done) => nextTask(done));
  if (page.viewCame) return;
  drawUnseen(name, sample, game, ...parts);
}

/** Draws `view` (a sample view of `game`) into the unseen page, lays it out and forgets it; the
 *  check's own view replaces everything it drew. Nothing is animated, sounded or sent. */
function drawUnseen(name, view, game, cards, plugin) {
  try {
    adopt(game, cards, plugin);
    page.view = view;
    page.selected = null;
    render();
    void document.body.offsetHeight; // styled and laid out now (the page is still transparent)
    performance.mark(`skillcheck:rehearsed:${name}`);
  } catch (error) {
    console.debug(`the rehearsal of ${name} failed`, error);
  } finally {
    page.view = null;
  }
}

function loadFailed(error) {
  if (error instanceof ApiError && [401, 403, 404].includes(error.status)) {
    fatal(
      "This link does not open a check.",
      "Its token is wrong, belongs to another check, or the check no longer exists. " +
        "Ask your GM for a new link.",
    );
  } else if (error instanceof ApiError) {
    fatal("The check could not be loaded.", `${error.title} ${error.detail}`.trim(), true);
  } else {
    fatal("The check could not be loaded.", String(error), true);
  }
}

function showRole() {
  const role = $("role");
  role.hidden = false;
  role.textContent =
    page.role === "player"
      ? "You are the player."
      : "Spectator view: you are watching; moves appear as they happen.";
  document.body.classList.toggle("spectator", page.role !== "player");
  $("controls").hidden = page.role !== "player";
}

// ---- live updates -------------------------------------------------------------------------------

const MODE_WORDS = {
  stream: "● Live",
  polling: "● Live (checking every 2 seconds)",
  retrying: "○ Connection lost, retrying…",
  stopped: "The check has ended.",
};

function follow(version) {
  // A burst of events (a finish plays a hundred moves at once) is drawn once per frame: the
  // newest view wins, with the words of the last move in it.
  let pending = null; // {view, words} brought by the feed and not drawn yet
  const draw = () => {
    const { view, words } = pending;
    pending = null;
    if (applyView(view) && words && page.role !== "player") say(words);
  };
  page.feed = new LiveFeed(page.client, {
    onEvent: (event) => {
      const view = event.payload && event.payload.view;
      if (!view) {
        reload();
        return;
      }
      const before = pending?.view || page.view;
      if (before && view.version <= before.version) return; // shown or on its way already
      let words = pending?.words || null;
      if (event.kind === "moved") words = `Played: ${moveText(event.payload.move, before)}.`;
      if (event.kind === "undone") words = "The player took back a move.";
      const waiting = pending !== null;
      pending = { view, words };
      if (!waiting) {
        if (document.hidden) setTimeout(draw, 0);
        else requestAnimationFrame(draw);
      }
    },
    onMode: (mode) => {
      const live = $("live");
      live.textContent = MODE_WORDS[mode] || mode;
      live.dataset.mode = mode;
    },
  });
  // Every event at version v has a sequence above v, so starting after `version` misses nothing.
  page.feed.start(version);
}

// ---- the view ---------------------------------------------------------------------------------

function isOver() {
  return Boolean(page.view) && page.view.status !== "in_progress";
}

/** Shows `view` if it is newer than the one shown (or `force`); true if it was newer. */
function applyView(view, force = false) {
  const old = page.view;
  if (old && view.version <= old.version && !force) return false; // already shown (or older)
  const newer = !old || view.version > old.version;
  page.view = view;
  if (newer) page.selected = null;
  if (page.selected && !sources().has(page.selected)) page.selected = null;
  const first = old ? hand.motion.snapshot() : null;
  render();
  hand.motion.after(first, view.board);
  hand.assist.update(view);
  if (old && newer) {
    const ended = old.status === "in_progress" && view.status !== old.status;
    if (ended && view.status === "won") hand.sound.play("win");
    else if (ended && view.status === "lost") hand.sound.play("loss");
    else if (view.moves_made !== old.moves_made) hand.sound.play("move");
  }
  if (isOver()) {
    page.feed?.stop();
    if (!old || old.status === "in_progress") showResult();
  }
  return newer;
}

/** The check is over: the result takes the focus and, if it is out of sight or low on the
 *  screen (it stands above the table, and a player on a phone is often scrolled down to the
 *  table's foot), the page scrolls to it, under the bar at the top (scroll-padding-top). */
function showResult() {
  const result = $("result");
  result.focus({ preventScroll: true });
  const top = result.getBoundingClientRect().top;
  const hud = document.querySelector(".hud").getBoundingClientRect().bottom;
  if (top < hud || top > window.innerHeight * 0.6) {
    result.scrollIntoView({ block: "start", behavior: hand.motion?.reduced === false ? "smooth" : "auto" });
  }
}

async function reload() {
  try {
    applyView(await page.client.view(), true);
  } catch (error) {
    refuse(error);
  }
}

function playing() {
  return page.role === "player" && page.view && page.view.status === "in_progress";
}

// The moves, by zone: nothing here reads a move's code.

function moves() {
  return playing() ? page.view.moves || [] : [];
}

function movesFrom(zoneId) {
  return moves().filter((m) => m.from === zoneId);
}

function sources() {
  return new Set(moves().map((m) => m.from));
}

function targetsOf(zoneId) {
  return new Set(zoneId ? movesFrom(zoneId).filter((m) => m.to !== null && m.to !== undefined).map((m) => m.to) : []);
}

function zones() {
  return page.view.board.zones;
}

function zoneById(id) {
  return zones().find((z) => z.id === id) || null;
}

function zoneLabel(id) {
  return zoneById(id)?.label || id;
}

function topCode(zone) {
  return zone && zone.cards.length ? zone.cards.at(-1) : null;
}

/** "the Lunatic from Tower 2", "Deck" (a face-down or empty source). */
function sourceText(id) {
  const zone = zoneById(id);
  const code = topCode(zone);
  return code ? `${page.cards.shortName(code)} from ${zoneLabel(id)}` : zoneLabel(id);
}

/** The selected card by its name alone (the table marks where it lies), or its place. */
function chosenName(id) {
  const code = topCode(zoneById(id));
  return code ? page.cards.shortName(code) : zoneLabel(id);
}

/** The sentence the server wrote for the move `code` in `view`, or the code itself. */
/** The sentence of move `code` in `view`; a code typed in another case ("D5") finds its move
 *  when only one move has it in any case (the server reads it so). */
function moveText(code, view = page.view) {
  const moves = view?.moves || [];
  let move = moves.find((m) => m.code === code);
  if (!move) {
    const alike = moves.filter((m) => m.code.toLowerCase() === String(code).toLowerCase());
    if (alike.length === 1) move = alike[0];
  }
  return move ? move.text : code;
}

/** "a, b or c"; items that hold commas themselves ("the bottom row, 3rd of 10") are set
 *  apart with semicolons, so the list still reads. */
function listWords(words) {
  if (words.length < 2) return words[0] || "";
  const comma = words.some((w) => w.includes(",")) ? "; " : ", ";
  return `${words.slice(0, -1).join(comma)}${comma === "; " ? "; or " : " or "}${words.at(-1)}`;
}

function render() {
  const view = page.view;
  $("label").hidden = !view.label;
  // what the check is ("Mira picks the lock"), after the game's title: "… check — Mira picks the lock"
  $("label").textContent = view.label ? `— ${view.label}` : "";
  $("goal").textContent = view.board.goal || "";
  $("status").textContent = STATUS_WORDS[view.status] || view.status;
  $("status").dataset.status = view.status;
  $("moves-made").textContent = String(view.moves_made);
  $("version").textContent = String(view.version);
  $("result-commitment").textContent = view.commitment || "";
  const limits = [];
  if (view.params?.move_limit) limits.push(`at most ${view.params.move_limit} moves`);
  if (view.params?.undo === false || view.params?.undo === "off") limits.push("no undo");
  $("limits-fact").hidden = !limits.length;
  // The commitment proves the deal was fixed before play; when the GM chose it, say so.
  $("seed-fact").hidden = view.seed_chosen !== true;
  $("limits").textContent = limits.join(", ");
  document.body.dataset.status = view.status;
  renderMeters(view.board.meters || []);
  renderLegend();
  // Keep the keyboard focus on the same control across re-renders (and after a busy spell,
  // during which the disabled control lost it).
  const active = document.activeElement;
  const focused = active?.dataset?.key || (active === document.body ? page.focusKey : null);
  renderBoard();
  renderSelection();
  renderControls();
  renderMoveList();
  renderResult();
  if (focused) {
    const again = document.querySelector(`[data-key="${CSS.escape(focused)}"]`);
    if (again && !again.disabled) again.focus({ preventScroll: true });
  }
}

/** The board's meters: each one's label, a bar when it has a target, and its words. The first
 *  is the goal's own measure and is drawn largest. */
function renderMeters(meters) {
  const list = $("meters");
  list.hidden = !meters.length;
  list.replaceChildren(
    ...meters.map((meter, index) => {
      const item = document.createElement("li");
      item.className = index === 0 ? "meter main" : "meter";
      item.dataset.meter = meter.id;
      const label = document.createElement("span");
      label.className = "meter-label";
      label.textContent = meter.label;
      item.append(label);
      const text = document.createElement("span");
      text.className = "meter-text";
      text.textContent = meter.text;
      item.append(text);
      if (meter.target !== null && meter.target !== undefined && meter.target > 0) {
        const bar = document.createElement("progress");
        bar.max = meter.target;
        bar.value = Math.max(0, Math.min(meter.value, meter.target));
        bar.setAttribute("aria-hidden", "true");
        item.append(bar);
        // green says "reached": never on a lost check (a spent allowance of moves, or peaks
        // cleared while the score fell short, is no success)
        item.classList.toggle("met", meter.value >= meter.target && page.view?.status !== "lost");
      }
      return item;
    }),
  );
}

/** How a suit is marked on the page: its symbol, else its letter. */
function suitMark(suit) {
  return suit.symbol || suit.letter;
}

/** The deck's suits, symbol and name, always on show (touch screens show no tooltips); only
 *  those the game's cards can bear when the board says (`board.suits`). */
function renderLegend() {
  const legend = $("legend");
  const only = page.view?.board?.suits;
  const suits = page.cards.legend().filter((suit) => !only || only.includes(suit.letter));
  legend.hidden = !suits.length;
  const key = `${page.cards.deck} ${only ? only.join("") : "*"}`;
  if (legend.dataset.deck === key) return;
  legend.dataset.deck = key;
  legend.replaceChildren(
    ...suits.map((suit) => {
      const item = document.createElement("li");
      const symbol = document.createElement("span");
      symbol.className = `legend-symbol suit-${slug(suit.name)}` + (suit.colour ? ` colour-${slug(suit.colour)}` : "");
      symbol.setAttribute("aria-hidden", "true");
      symbol.textContent = suitMark(suit);
      const name = document.createElement("span");
      name.textContent = suit.name;
      item.append(symbol, name);
      return item;
    }),
  );
}

// ---- the board ----------------------------------------------------------------------------------

/** What a layout renderer (here or in a game's page module) may use. */
function context() {
  const selected = page.selected;
  const ctx = {
    board: page.view.board,
    cards: page.cards,
    playing: playing(),
    busy: page.busy,
    selected,
    sources: sources(),
    targets: targetsOf(selected),
    zone: (zone) => renderZone(zone, ctx),
    card: (code) => staticCard(code),
    narrowCards: markNarrowCards,
  };
  return ctx;
}

function renderBoard() {
  const board = page.view.board;
  const ctx = context();
  const custom = page.plugin.layouts?.[board.layout];
  let content = typeof custom === "function" ? custom(board, ctx) : null;
  if (!content) content = board.layout === "grid" ? gridLayout(board, ctx) : rowsLayout(board, ctx);
  const table = $("table");
  table.dataset.layout = board.layout;
  // a table with slots (peaks) sizes its cards to fit the screen's height (play.css)
  const slotRows = content.querySelector?.(".slots")?.style.getPropertyValue("--rows") || "";
  if (slotRows) table.style.setProperty("--slot-rows", slotRows);
  else table.style.removeProperty("--slot-rows");
  table.toggleAttribute("data-slots", Boolean(slotRows));
  table.replaceChildren(content);
}

/** Zones in order; neighbours of one layout share a band (stacks side by side as columns),
 *  and all `slot` zones lie together in one grid by their x, y. */
function rowsLayout(board, ctx) {
  const out = document.createDocumentFragment();
  let band = null;
  let slots = null;
  for (const zone of board.zones) {
    if (zone.layout === "slot") {
      if (!slots) {
        slots = zone;
        band = null;
        out.append(slotGrid(board.zones.filter((z) => z.layout === "slot"), ctx));
      }
      continue;
    }
    if (!band || band.dataset.layout !== zone.layout) {
      band = document.createElement("div");
      band.className = `band band-${slug(zone.layout)}`;
      band.dataset.layout = zone.layout;
      out.append(band);
    }
    band.append(ctx.zone(zone));
  }
  for (const stacks of out.querySelectorAll?.(".band-stack") || []) {
    stacks.style.setProperty("--columns", String(stacks.children.length));
    markNarrowCards(stacks, stacks.children.length);
  }
  return out;
}

/** Cards as many as this side by side may be too narrow for their whole face on a phone. */
const NARROW_ACROSS = 5;

/** Marks `element` (class narrow-cards) when `across` cards lie side by side in it: its cards
 *  then switch to the small face when narrow (play.css). Elsewhere a card is never narrow. */
function markNarrowCards(element, across) {
  element.classList.toggle("narrow-cards", across >= NARROW_ACROSS);
}

/** Zones placed whole at grid column x, row y (zones without a place follow in order). */
function gridLayout(board, ctx) {
  const grid = document.createElement("div");
  grid.className = "zone-grid";
  const placed = board.zones.filter((z) => Number.isInteger(z.x) && Number.isInteger(z.y));
  const columns = Math.max(1, ...placed.map((z) => z.x + 1));
  grid.style.setProperty("--columns", String(columns));
  markNarrowCards(grid, columns);
  for (const zone of board.zones) {
    const element = ctx.zone(zone);
    if (Number.isInteger(zone.x) && Number.isInteger(zone.y)) {
      element.style.gridColumn = String(zone.x + 1);
      element.style.gridRow = String(zone.y + 1);
    }
    grid.append(element);
  }
  return grid;
}

/** Slot zones at x, y in half-card steps: a card covers columns x, x+1 and rows y, y+1, so
 *  (2, 1) overlaps the lower halves of (1, 0) and (3, 0), as peaks of cards lie. Later zones
 *  lie on top. */
function slotGrid(slotZones, ctx) {
  const grid = document.createElement("div");
  grid.className = "slots";
  const columns = Math.max(2, ...slotZones.map((z) => (z.x ?? 0) + 2));
  const rows = Math.max(2, ...slotZones.map((z) => (z.y ?? 0) + 2));
  grid.style.setProperty("--columns", String(columns));
  grid.style.setProperty("--rows", String(rows));
  markNarrowCards(grid, columns / 2); // a card covers two columns
  grid.style.aspectRatio = `${columns} / ${rows * 1.4}`; // cards 1.4 times as tall as wide
  slotZones.forEach((zone, index) => {
    const element = ctx.zone(zone);
    element.style.gridColumn = `${(zone.x ?? 0) + 1} / span 2`;
    element.style.gridRow = `${(zone.y ?? 0) + 1} / span 2`;
    element.style.zIndex = String(index + 1);
    grid.append(element);
  });
  return grid;
}

function marker(kind, text, shown = true) {
  const span = document.createElement("span");
  span.className = `marker marker-${kind}${shown ? "" : " unshown"}`;
  span.setAttribute("aria-hidden", "true");
  span.textContent = text;
  return span;
}

/** A card that is not a control, named for screen readers (`words`, or the card's name). */
function staticCard(code, words = null) {
  const div = document.createElement("div");
  div.className = code === null ? "card face-down" : "card";
  div.setAttribute("role", "img");
  div.setAttribute("aria-label", words || cardWords(code));
  div.append(code === null ? page.cards.back(words || undefined) : page.cards.face(code));
  return div;
}

function cardWords(code) {
  return code === null ? "a face-down card" : page.cards.describe(code);
}

/** Where the card at `index` (0 = the covered end) of a zone's `shown` cards lies, in words:
 *  "top of Tower 2", "3rd in the Deck", "2nd from the bottom of Column 1". */
function placeWords(zone, index, shown) {
  const top = index === shown - 1;
  if (zone.layout === "slot") return zone.label;
  if (zone.layout === "pile") {
    const under = zone.count - 1;
    return `top of ${zone.label}` + (under > 0 ? `, ${under} more under it` : "");
  }
  if (zone.layout === "stack") {
    if (top) return `top of ${zone.label}`;
    return `${ordinal(index + 1)} from the bottom of ${zone.label}`;
  }
  return `${ordinal(index + 1)} in ${zone.label}` + (top ? ", the last" : "");
}

/** "the Forest, 5, Moons and Leaves, top of Tower 2"; "a face-down card, 3rd in Column 1". */
function cardInZoneWords(zone, code, index, shown) {
  return `${cardWords(code)}, ${placeWords(zone, index, shown)}`;
}

/** The zone's exposed card as a button: it starts a move from the zone, or ends one there. */
function cardButton(zone, code, ctx, words) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = code === null ? "card card-button face-down" : "card card-button";
  button.dataset.action = "card";
  button.dataset.key = `card-${zone.id}`;
  const chosen = ctx.selected === zone.id;
  button.setAttribute("aria-pressed", String(chosen));
  const from = ctx.sources.has(zone.id);
  if (from) button.classList.add("can-move");
  if (chosen) words += ", selected";
  else if (ctx.targets.has(zone.id)) words += ": the selected card can go here";
  else if (!from) words += ", no legal move from here";
  button.setAttribute("aria-label", words);
  button.disabled = page.busy;
  button.append(code === null ? page.cards.back() : page.cards.face(code));
  return button;
}

function exposed(zone, code, ctx, words) {
  return ctx.playing ? cardButton(zone, code, ctx, words) : staticCard(code, words);
}

function emptyPlace(zone, ctx) {
  const words = `${zone.label}, empty`;
  if (ctx.playing && zone.layout === "slot" && zone.accepts) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "empty-space";
    button.dataset.action = "zone";
    button.dataset.key = `empty-${zone.id}`;
    button.disabled = page.busy;
    button.textContent = "empty";
    button.setAttribute("aria-label", words + (ctx.targets.has(zone.id) ? ": the selected card can go here" : ""));
    return button;
  }
  const empty = document.createElement("div");
  empty.className = "empty-space";
  empty.setAttribute("role", "img");
  empty.setAttribute("aria-label", words);
  const text = document.createElement("span");
  text.setAttribute("aria-hidden", "true");
  text.textContent = "empty";
  empty.append(text);
  return empty;
}

/** The cards of a zone as its layout lays them; a game's page module may add layouts. */
function zoneCards(zone, ctx) {
  const custom = page.plugin.zoneLayouts?.[zone.layout];
  const drawn = typeof custom === "function" ? custom(zone, ctx) : null;
  if (drawn) return drawn;
  const list = document.createElement("ol");
  list.className = "cards";
  const count = zone.cards.length;
  const shown = zone.layout === "pile" || zone.layout === "slot" ? zone.cards.slice(-1) : zone.cards;
  // A pile that shows no card but holds some is face down.
  if (!shown.length && zone.count > 0) shown.push(null);
  shown.forEach((code, index) => {
    const entry = document.createElement("li");
    const top = index === shown.length - 1;
    entry.className = top ? "top" : "under";
    const words = cardInZoneWords(zone, code, index, shown.length);
    entry.append(top ? exposed(zone, code, ctx, words) : staticCard(code, words));
    list.append(entry);
  });
  if (!shown.length) {
    const entry = document.createElement("li");
    entry.className = "top";
    entry.append(emptyPlace(zone, ctx));
    list.append(entry);
  }
  // A pile of several cards shows its thickness (drawn by the stylesheet).
  if (zone.layout === "pile") list.dataset.depth = String(Math.min(3, Math.max(0, zone.count - 1)));
  list.setAttribute(
    "aria-label",
    `${zone.label}, ${zone.layout === "stack" ? "bottom to top" : "cards"}: ${zone.count} ${zone.count === 1 ? "card" : "cards"}`,
  );
  list.dataset.shown = String(count);
  return list;
}

function zoneHead(zone, ctx, badge) {
  const target = ctx.targets.has(zone.id);
  const size = `${zone.count} ${zone.count === 1 ? "card" : "cards"}`;
  let head;
  if (ctx.playing && (zone.accepts || (ctx.sources.has(zone.id) && !zone.count))) {
    head = document.createElement("button");
    head.type = "button";
    head.dataset.action = "zone";
    head.dataset.key = `zone-${zone.id}`;
    head.disabled = page.busy;
    head.setAttribute(
      "aria-label",
      `${zone.label}, ${size}` +
        (badge ? `, ${badge}` : "") +
        (ctx.selected && ctx.selected !== zone.id ? (target ? ": the selected card can go here" : ": not a legal place") : ""),
    );
  } else {
    head = document.createElement("div");
  }
  head.classList.add("zone-head");
  const title = document.createElement("span");
  title.className = "zone-label";
  title.textContent = zone.label;
  head.append(title);
  if (badge) {
    const progress = document.createElement("span");
    progress.className = "zone-progress";
    progress.textContent = badge;
    head.append(progress);
  }
  if (ctx.playing) {
    // Both marks lie in one cell, only the one that holds shown: the head keeps its height
    // whatever it says, so the cards under it stay under the player's finger.
    const marks = document.createElement("span");
    marks.className = "markers";
    const chosen = ctx.selected === zone.id;
    const source = ctx.sources.has(zone.id) && !chosen && !ctx.selected;
    marks.append(
      marker("target", "▼ can go here", target),
      marker("source", "can move", !target && source),
      marker("selected", "Selected", chosen),
    );
    head.append(marks);
  }
  return head;
}

// Extras the page itself understands (docs/play-page.md): a zone that counts towards the goal
// (`lead`), the zone that won it (`won`), a light with no words (`highlight`), and words: the
// zone's progress (`progress`, a badge on its head) or a note under it (`note`, `text`).
const QUIET_FLAGS = new Set(["highlight", "lead", "won"]);

/** Per-game marks (`extras`): true flags light the zone (and, but for the flags the page knows,
 *  show their name); words show as a note or a progress badge; other values become
 *  data-extra-* attributes. */
function zoneExtras(zone, element) {
  const notes = [];
  for (const [key, value] of Object.entries(zone.extras || {})) {
    if (value === true) {
      element.classList.add("marked", `mark-${slug(key)}`);
      if (!QUIET_FLAGS.has(key)) notes.push(key.replace(/_/g, " "));
    } else if (typeof value === "string" || typeof value === "number") {
      element.dataset[`extra${slug(key).replace(/(^|-)(\w)/g, (_, __, c) => c.toUpperCase())}`] = String(value);
      if (key === "note" || key === "text") notes.push(String(value));
    }
  }
  if (!notes.length) return null;
  const note = document.createElement("p");
  note.className = "zone-note";
  note.textContent = `★ ${notes.join(", ")}`;
  return note;
}

function renderZone(zone, ctx = context()) {
  const element = document.createElement("section");
  element.className = `zone zone-${slug(zone.layout)}`;
  element.dataset.zone = zone.id;
  element.dataset.layout = zone.layout;
  element.setAttribute("role", "group");
  const badge = typeof zone.extras?.progress === "string" ? zone.extras.progress : "";
  const words = [zone.label, `${zone.count} ${zone.count === 1 ? "card" : "cards"}`];
  if (badge) words.push(badge);
  if (zone.extras?.won === true) words.push("the winning place");
  element.setAttribute("aria-label", words.join(", "));
  element.classList.toggle("source", ctx.sources.has(zone.id));
  element.classList.toggle("selected", ctx.selected === zone.id);
  element.classList.toggle("target", ctx.targets.has(zone.id));
  element.classList.toggle("empty", !zone.count);
  if (zone.layout !== "slot") element.append(zoneHead(zone, ctx, badge));
  element.append(zoneCards(zone, ctx));
  if (zone.layout === "pile") {
    const count = document.createElement("p");
    count.className = "count";
    const under = zone.count - Math.min(1, zone.count);
    // cards the zone counts but does not list were never seen (a deck, a stock); listed ones
    // under the top were seen (a waste)
    const unseen = zone.count - zone.cards.length;
    count.textContent = under < 1 ? "" : unseen > 0 || zone.cards.at(-1) === null
      ? `${under} face down under it`
      : `${under} more under it`;
    element.append(count);
  }
  const note = zoneExtras(zone, element);
  if (note) element.append(note);
  return element;
}

function renderSelection() {
  const text = $("selection");
  text.replaceChildren();
  text.parentElement.hidden = !playing(); // the slot too: spectators and an ended check have no selection
  if (!playing()) return;
  const from = [...sources()];
  if (!page.selected) {
    if (!from.length) text.textContent = "No move can be made.";
    else
      sayTwoWays(
        text,
        `Choose what to move: from ${listWords(from.map(zoneLabel))}.`,
        from.length > 2
          ? `Choose what to move: any of the ${from.length} places the table marks.`
          : `Choose what to move: from ${listWords(from.map(zoneLabel))}.`,
      );
    return;
  }
  const targets = [...targetsOf(page.selected)];
  const here = movesFrom(page.selected).filter((m) => m.to === null || m.to === undefined);
  const selected = `Selected: ${sourceText(page.selected)}. `;
  if (targets.length) {
    const names = listWords(targets.map(zoneLabel));
    const where = targets.length > 2 ? `any of the ${targets.length} lit places` : names;
    // the eye's line keeps to two lines on a phone (a third covered the heads below it)
    sayTwoWays(
      text,
      `${selected}It can go to ${names}. Choose where, or ${CHOOSE_AGAIN}.`,
      `${capitalise(chosenName(page.selected))}: it can go to ${where}; ${LET_GO}.`,
    );
  } else {
    text.append(selected + (here.length ? "" : "It cannot go anywhere now; choose another card."));
  }
  for (const move of here) text.append(" ", moveButton(move, "small"));
}

/** Writes `full` into `element` for screen readers, and `short` for the eye when it differs
 *  (the table marks the places already, and a long line would cover it). */
function sayTwoWays(element, full, short) {
  if (short === full) {
    element.append(full);
    return;
  }
  const seen = document.createElement("span");
  seen.setAttribute("aria-hidden", "true");
  seen.textContent = short;
  const heard = document.createElement("span");
  heard.className = "visually-hidden";
  heard.textContent = full;
  element.append(seen, heard);
}

// How to let go of a selected card, in the words of the device: a touch screen has no Escape key.
const COARSE = globalThis.matchMedia?.("(pointer: coarse)").matches;
const CHOOSE_AGAIN = COARSE
  ? "tap it again to choose another"
  : "press Escape (or select it again) to choose another";
const LET_GO = COARSE ? "tap it again to let go" : "Escape lets go";

function moveButton(move, className = "") {
  const button = document.createElement("button");
  button.type = "button";
  button.className = className;
  button.dataset.action = "move";
  button.dataset.code = move.code;
  button.dataset.key = `move-${move.code}`;
  button.disabled = page.busy || !playing();
  button.textContent = move.text;
  return button;
}

/** Every legal move as a button, in the folded "Keyboard and every move" panel: drawn only
 *  while the panel is open (and when it opens), so a table's first frame does not wait for it. */
function renderMoveList() {
  const list = moves();
  $("move-list").hidden = !playing();
  if (!$("keyboard").open) return;
  $("move-count").textContent = String(list.length);
  $("moves").replaceChildren(
    ...list.map((move) => {
      const item = document.createElement("li");
      const button = moveButton(move);
      const code = document.createElement("code");
      code.textContent = move.code;
      code.setAttribute("aria-hidden", "true");
      button.prepend(code, " ");
      item.append(button);
      return item;
    }),
  );
}

/** The controls while the player may act; none of them once the check is over (they are
 *  removed, not greyed out: nothing on the page offers what can no longer be done). */
function renderControls() {
  const view = page.view;
  const active = playing() && !page.busy;
  const input = $("move-input");
  input.disabled = !playing();
  input.placeholder = view.moves?.[0]?.code || "";
  // Play stays enabled while a move is in flight: a code typed then waits its turn (act()).
  $("play").disabled = !playing();
  // A greyed Undo that the server says why it refuses stays pressable: pressing it says why
  // beside it (a touch screen shows no tooltip), and sends nothing.
  const refusal = active && !view.can_undo ? view.undo_refusal : null;
  $("undo").disabled = !active || (!view.can_undo && !refusal);
  $("undo").setAttribute("aria-disabled", String(Boolean(refusal)));
  $("concede").disabled = !active;
  $("undo").hidden = view.params?.undo === false || view.params?.undo === "off";
  // The reason stays said while it holds for the version it was asked at.
  if (!refusal || page.undoAsked !== view.version) sayWhyNoUndo(null);
  $("controls").hidden = !playing();
  $("keyboard").hidden = !playing();
}

function renderResult() {
  const view = page.view;
  const result = $("result");
  const over = isOver();
  $("record-wait").hidden = over;
  $("show-record").hidden = !over || !$("record").hidden;
  if (!over) {
    result.hidden = true;
    return;
  }
  result.hidden = false;
  result.dataset.status = view.status;
  const outcome = view.outcome;
  if (view.status === "cancelled") {
    $("result-title").textContent = "The GM cancelled this check";
    $("result-summary").textContent = view.cancel_reason
      ? `Reason: ${view.cancel_reason}`
      : "No outcome: the check was called off.";
    $("result-degree").textContent = "none";
    $("result-reason").textContent = "cancelled";
  } else {
    const won = view.status === "won" ? "✔ Check won" : "✘ Check lost";
    // The tier in words ("Critical success"), graded by the check's thresholds; a plain success
    // or failure only says again what won or lost says.
    const tier = (view.tier_text || "").toLowerCase();
    const plain = tier === "" || tier === "success" || tier === "failure";
    $("result-title").textContent = plain ? won : `${won}: ${tier}`;
    // the heading says won or lost and the tier: the summary goes on from there
    const said = (outcome?.summary || "").replace(/^(success|failure): /, "");
    $("result-summary").textContent = said ? capitalise(said) + "." : "";
    $("result-degree").textContent = view.degree === null || view.degree === undefined ? "none" : String(view.degree);
    const own = outcome?.reason === "conceded" && page.role === "player";
    $("result-reason").textContent = own ? "you conceded" : REASONS[outcome?.reason] || outcome?.reason || "";
  }
}

function capitalise(text) {
  return text ? text[0].toUpperCase() + text.slice(1) : text;
}

// ---- acting -------------------------------------------------------------------------------------

/** How long a phone shows what the page said (play.css: a note over the table's first line)
 *  before it steps aside; a screen reader has heard it at once (aria-live). */
const NOTICE_MS = 5000;

function say(text) {
  const notice = $("notice");
  notice.textContent = text;
  // over the selection line, it would hide what to do with the selected card: it steps aside
  notice.classList.toggle("aside", Boolean(page.selected));
  clearTimeout(page.noticeTimer);
  if (!text) return;
  page.noticeTimer = setTimeout(() => notice.classList.add("aside"), NOTICE_MS);
}

function clearRefusal() {
  $("refusal").hidden = true;
}

function refuse(error) {
  const title = error instanceof ApiError ? error.title : error?.title || "Something went wrong.";
  const detail = error instanceof ApiError ? error.detail : error?.detail ?? String(error);
  $("refusal-title").textContent = /[.!?]$/.test(title) ? title : `${title}:`;
  $("refusal-detail").textContent = detail;
  $("refusal").hidden = false;
  standAboveControls($("refusal"));
  // It stands at the foot of the screen: the form the player was typing in must stay in sight
  // (the table is never scrolled: what the player taps next stays under the finger).
  const active = document.activeElement;
  if (active?.closest("form")) {
    const field = active.getBoundingClientRect();
    if (field.bottom > $("refusal").getBoundingClientRect().top) active.scrollIntoView({ block: "center" });
  }
}

/** A message at the foot of the screen covers none of the controls: on a phone their bar sticks
 *  there (play.css), and the message then stands above it. */
function standAboveControls(message) {
  const top = controlsOverFoot();
  if (top === null) message.style.removeProperty("--controls-height");
  else message.style.setProperty("--controls-height", `${Math.ceil(window.innerHeight - top)}px`);
}

/** The top of the controls' bar where it is stuck to the screen's foot, or null. */
function controlsOverFoot() {
  const bar = document.querySelector(".control-bar").getBoundingClientRect();
  const foot = window.innerHeight;
  return bar.height > 0 && bar.top < foot && bar.bottom >= foot - 1 ? bar.top : null;
}

async function act(doing, request) {
  if (page.busy || !playing()) return;
  page.busy = true;
  clearRefusal();
  render();
  const before = page.view;
  let answered = false;
  try {
    const view = await request(page.view.version);
    answered = true;
    page.busy = false;
    // The live feed may have shown this version already (while the controls were busy).
    if (!applyView(view)) render();
    // Undo greys after a move it cannot take back (one that turned up a card): say so then,
    // not only when the greyed button is pressed.
    const noUndo = page.view.undo_refusal;
    const moved = page.view.moves_made > before.moves_made;
    const newlyRefused = playing() && moved && noUndo && noUndo !== before.undo_refusal && !$("undo").hidden;
    // (the reason's first clause: the whole of it is said beside Undo when it is pressed; five
    // lines over a phone's table were too many)
    say(newlyRefused ? `${doing} Undo is off for now: ${noUndo.split(";")[0]}.` : doing);
    // After a move (or an undo) the keys act on the table again (`u` undoes, not types): a
    // focus outside the table (the move box, one lost with a key) goes back to it.
    const active = document.activeElement;
    const onTable = $("board").contains(active) && active !== $("board");
    const lost = !active || active === document.body;
    if (playing() && page.view.moves_made !== before.moves_made && !onTable && !(lost && hand.drag.byPointer)) {
      focusBoard($("board"), before, page.view);
    }
  } catch (error) {
    page.busy = false;
    if (error instanceof ApiError && (error.status === 409 || error.status === 412)) {
      const conflict = error.code === "version-conflict" || error.status === 412;
      await reload();
      say(
        conflict
          ? "The check changed elsewhere (another tab or device): the table was reloaded. Try again."
          : `${error.title} The table was reloaded.`,
      );
      if (!conflict) refuse(error);
    } else {
      refuse(error);
      render();
    }
  } finally {
    const next = page.queued;
    page.queued = null;
    if (next && answered && playing() && !page.busy) play(next);
    else if (next) say(`${next.trim()} was not sent: the action before it did not go through.`);
  }
}

/** Sends a move code as the player typed it (the server reads it) or as a move carries it. */
function play(code) {
  const move = String(code || "").trim();
  if (!move) return;
  return act(`Played: ${moveText(move)}.`, (version) => page.client.move(move, version));
}

function select(zoneId) {
  page.selected = page.selected === zoneId ? null : zoneId;
  if (page.selected) $("notice").classList.add("aside"); // (say)
  clearRefusal();
  render();
}

/** A tap on zone `id` (on its exposed card if `onCard`): start, end or change a move. */
function chooseZone(id, onCard) {
  const selected = page.selected;
  if (selected && selected !== id) {
    const matches = movesFrom(selected).filter((m) => m.to === id);
    if (matches.length === 1) {
      play(matches[0].code);
      return;
    }
    if (matches.length > 1) {
      // Several moves between the same two places: the selection bar offers them by name.
      say(`Choose one: ${matches.map((m) => m.text).join("; ")}.`);
      const text = $("selection");
      text.replaceChildren("Choose the move: ", ...matches.map((m) => moveButton(m, "small")));
      return;
    }
    if (onCard && sources().has(id)) {
      // another card that can move: it becomes the selection, and the player is told why the
      // first one did not go there (the selection alone moving read as nothing happening)
      select(id);
      say(`${capitalise(sourceText(selected))} cannot go to ${zoneLabel(id)}: ${sourceText(id)} is selected instead.`);
      return;
    }
    const targets = [...targetsOf(selected)].map(zoneLabel);
    refuse({
      title: "Not a legal move.",
      detail:
        `${sourceText(selected)} cannot go to ${zoneLabel(id)} now.` +
        (targets.length ? ` It can go to ${listWords(targets)}.` : ""),
    });
    return;
  }
  if (selected === id) {
    select(id);
    return;
  }
  const from = movesFrom(id);
  if (!from.length) {
    const code = topCode(zoneById(id));
    say(
      code
        ? `${capitalise(page.cards.shortName(code))} (${zoneLabel(id)}) cannot move now.`
        : `Nothing can move from ${zoneLabel(id)} now.`,
    );
    return;
  }
  const nowhere = from[0].to === null || from[0].to === undefined;
  if (from.length === 1 && (nowhere || page.view.board.one_tap)) {
    // one tap: a move that goes nowhere in particular (dealing), or a game where a card has
    // no choice of place (the board's one_tap: every card goes to one pile)
    play(from[0].code);
    return;
  }
  select(id);
}

function onBoardClick(event) {
  if (!playing() || page.busy) return;
  const control = event.target.closest("[data-action]");
  if (control?.dataset.action === "move") {
    play(control.dataset.code);
    return;
  }
  const zone = event.target.closest("[data-zone]");
  if (!zone) return;
  chooseZone(zone.dataset.zone, control?.dataset.action === "card");
}

function onMoveListClick(event) {
  const control = event.target.closest("[data-action='move']");
  if (control && playing() && !page.busy) play(control.dataset.code);
}

function isTextField(element) {
  return element instanceof HTMLInputElement || element instanceof HTMLTextAreaElement;
}

function onKey(event) {
  if (event.key === "Escape" && hand.drag?.active) {
    hand.drag.cancel(); // the carried card goes back
    event.preventDefault();
    return;
  }
  if (event.defaultPrevented || $("concede-dialog").open) return;
  const target = event.target;
  const command = event.ctrlKey || event.metaKey;
  if (command && !event.altKey && !event.shiftKey && event.key.toLowerCase() === "z") {
    if (!playing() || isTextField(target)) return; // a text field keeps its own undo
    event.preventDefault(); // Ctrl+Z (Cmd+Z) undoes, as in every program with an undo
    undo();
    return;
  }
  if (command || event.altKey) return;
  if (isTextField(target)) {
    if (event.key === "Escape" && target.id === "move-input") target.value = "";
    return;
  }
  if (!playing()) return;
  if (event.key === "Escape" && page.selected) {
    page.selected = null;
    render();
  } else if (event.key === "u" || event.key === "U") {
    undo();
  } else if (/^[a-z0-9]$/i.test(event.key)) {
    // A letter or digit starts a move code in the box; the rest of it is typed there.
    const input = $("move-input");
    input.value = event.key;
    input.focus();
    event.preventDefault();
  }
}

function undo() {
  if (!page.view) return; // (no check shown yet)
  if ($("undo").getAttribute("aria-disabled") === "true") return sayWhyNoUndo(page.view.undo_refusal);
  return act("Took back the last move.", (version) => page.client.undo(version));
}

/** Says beside the Undo button why it takes nothing back (the server's words), or clears it. */
function sayWhyNoUndo(why) {
  const note = $("undo-note");
  page.undoAsked = why ? page.view.version : null;
  note.hidden = !why;
  note.textContent = why ? `${capitalise(why)}.` : "";
  if (why) $("undo").setAttribute("aria-describedby", "undo-note");
  else $("undo").removeAttribute("aria-describedby");
}

function askConcede() {
  if (!playing()) return;
  const dialog = $("concede-dialog");
  dialog.returnValue = "";
  dialog.showModal();
}

async function showRecord() {
  const button = $("show-record");
  button.disabled = true;
  try {
    page.record = page.record || (await page.client.record());
  } catch (error) {
    refuse(error);
    button.disabled = false;
    return;
  }
  const revealed = page.record;
  const record = revealed.record || {};
  const matches = revealed.commitment === page.view.commitment;
  $("record-check").textContent = matches
    ? `Its commitment (${revealed.commitment.slice(0, 12)}…) is the one published when the check was created.`
    : "Warning: this record's commitment differs from the one shown during the check.";
  $("record-seed").textContent = record.seed === null || record.seed === undefined ? "none" : String(record.seed);
  $("record-salt").textContent = revealed.salt || "";
  $("record-moves").textContent = (record.moves || []).join(" ") || "none";
  const order = page.game?.deal_order;
  $("record-deal-title").textContent = order ? `The deal, in ${order}` : "The deal";
  const deal = $("record-deal");
  deal.replaceChildren(
    ...(record.deal || []).map((code) => {
      const item = document.createElement("li");
      item.append(staticCard(typeof code === "string" ? code : JSON.stringify(code)));
      return item;
    }),
  );
  if (page.downloadUrl) URL.revokeObjectURL(page.downloadUrl);
  page.downloadUrl = URL.createObjectURL(
    new Blob([JSON.stringify(revealed, null, 2)], { type: "application/json" }),
  );
  const link = $("record-download");
  link.href = page.downloadUrl;
  link.download = `check-${page.view.check_id}.json`;
  $("record").hidden = false;
  button.hidden = true;
}

/** The move box lives behind the "Keyboard" door: a letter or digit typed on the table (which
 *  onKey sends to the box) opens the door first, so the box can take the focus. */
function openKeyboardDoor(event) {
  if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
  if (isTextField(event.target) || !playing() || $("concede-dialog").open) return;
  if (/^[a-z0-9]$/i.test(event.key) && event.key.toLowerCase() !== "u") $("keyboard").open = true;
}

// ---- wiring -------------------------------------------------------------------------------------

function wire() {
  hand.motion = new Motion($("table"));
  hand.drag = new DragDrop($("board"), {
    moves: () => moves(),
    busy: () => page.busy,
    play: (code) => play(code),
    choose: (from, to) => {
      page.selected = from;
      render();
      chooseZone(to, false);
    },
    refuse,
    say,
    zoneLabel,
    topCode: (id) => topCode(zoneById(id)),
    cardName: (code) => page.cards.info(code).name,
    motion: hand.motion,
    reduced: () => hand.motion.reduced,
    footOfView: controlsOverFoot,
  });
  hand.assist = new Assist($("board"), {
    view: () => page.view,
    playing,
    busy: () => page.busy,
    act,
    client: () => page.client,
    zoneLabel,
    sound: hand.sound,
  });
  // Every refusal (a drop, a tap, the server's answer) sounds the same, if sound is on.
  new MutationObserver(() => {
    if (!$("refusal").hidden) hand.sound.play("refusal");
  }).observe($("refusal"), { attributes: true, attributeFilter: ["hidden"], childList: true, subtree: true, characterData: true });
  $("board").addEventListener("click", onBoardClick);
  $("board").addEventListener("focusin", (event) => {
    page.focusKey = event.target.dataset?.key || null;
  });
  $("moves").addEventListener("click", onMoveListClick);
  $("keyboard").addEventListener("toggle", () => {
    if ($("keyboard").open && page.view) renderMoveList();
  });
  $("move-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const input = $("move-input");
    const code = input.value;
    input.value = "";
    if (page.busy && code.trim()) {
      page.queued = code; // sent when the move in flight is answered, on the new version
      say(`${code.trim()} goes next, once the last move is answered.`);
      return;
    }
    play(code);
  });
  $("undo").addEventListener("click", undo);
  $("concede").addEventListener("click", askConcede);
  $("concede-dialog").addEventListener("close", () => {
    if ($("concede-dialog").returnValue === "concede") {
      act("You conceded.", (version) => page.client.concede(version));
    } else {
      $("concede").focus();
    }
  });
  // the refusal stands in front of the table's foot: a tap anywhere on it puts it away
  $("refusal").addEventListener("click", clearRefusal);
  // a selection line longer than its slot lies over the table, on a background of its own
  new ResizeObserver(() => {
    const line = $("selection");
    line.classList.toggle("spills", line.offsetHeight > line.parentElement.clientHeight + 1);
  }).observe($("selection"));
  $("show-record").addEventListener("click", showRecord);
  $("retry").addEventListener("click", () => location.reload());
  document.addEventListener("keydown", onKey);
  window.addEventListener("hashchange", () => location.reload());
}

// The requests go out first (start() runs up to its first wait); the controls are wired while
// they are on their way.
const started = start();
wire();
document.addEventListener("keydown", openKeyboardDoor, true); // before onKey (capture)
started.catch((error) => fatal("The page failed to start.", String(error), true));
