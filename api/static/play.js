// The player's page for a Three Towers check (docs/play-page.md).
// The token comes from the URL fragment (#token=...), which never reaches the server's logs.

import { ApiError, CheckClient, LiveFeed } from "./api.js";
import { CardTable } from "./cards.js";

const $ = (id) => document.getElementById(id);

const STATUS_WORDS = {
  in_progress: "In progress",
  won: "✔ Won",
  lost: "✘ Lost",
  cancelled: "Cancelled by the GM",
};
const REASONS = {
  goal: "the goal was reached",
  no_legal_moves: "no legal move was left",
  move_limit: "the move limit was reached",
  conceded: "the player conceded",
  unwinnable: "the GM ended it: the solver proved it could no longer be won",
};

const page = {
  root: document.documentElement.dataset.root || "",
  client: null,
  cards: new CardTable(null),
  role: "spectator",
  view: null,
  selected: null, // "d" or a tower number as a string
  busy: false,
  feed: null,
  record: null,
  downloadUrl: null,
  focusKey: null, // data-key of the board control that last had the focus
};

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

function tokenFromFragment() {
  const fragment = location.hash.replace(/^#/, "");
  return (new URLSearchParams(fragment).get("token") || "").trim();
}

function fatal(title, detail, retry = false) {
  $("loading").hidden = true;
  $("game").hidden = true;
  $("fatal-title").textContent = title;
  $("fatal-detail").textContent = detail;
  $("retry").hidden = !retry;
  $("fatal").hidden = false;
  $("main").setAttribute("aria-busy", "false");
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
  const [cards, view] = await Promise.all([
    CardTable.load(page.root),
    page.client.view().catch((error) => error),
  ]);
  page.cards = cards;
  if (view instanceof Error) {
    loadFailed(view);
    return;
  }
  if (view.game !== "three-towers") {
    fatal("Not a Three Towers check.", `This page plays Three Towers; this check is ${view.game}.`);
    return;
  }
  $("fatal").hidden = true;
  $("loading").hidden = true;
  $("game").hidden = false;
  $("main").setAttribute("aria-busy", "false");
  showRole();
  applyView(view);
  if (isOver()) {
    $("live").textContent = MODE_WORDS.stopped;
    $("live").dataset.mode = "stopped";
  } else {
    follow(view.version);
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
  // Every event at version v has a sequence above v, so starting after `version` misses nothing.
  page.feed = new LiveFeed(page.client, {
    onEvent: (event) => {
      const view = event.payload && event.payload.view;
      if (view) {
        const before = page.view;
        const newer = applyView(view);
        if (newer && before && page.role !== "player") {
          if (event.kind === "moved") say(`Played: ${describeMove(event.payload.move, before)}.`);
          if (event.kind === "undone") say("The player took back a move.");
        }
      } else {
        reload();
      }
    },
    onMode: (mode) => {
      const live = $("live");
      live.textContent = MODE_WORDS[mode] || mode;
      live.dataset.mode = mode;
    },
  });
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
  render();
  if (isOver()) {
    page.feed?.stop();
    if (!old || old.status === "in_progress") $("result").focus({ preventScroll: true });
  }
  return newer;
}

async function reload() {
  try {
    applyView(await page.client.view(), true);
  } catch (error) {
    refuse(error);
  }
}

function goalText(params) {
  const variant = params.variant || { kind: "standard" };
  const suit = variant.suit ? variant.suit[0].toUpperCase() + variant.suit.slice(1) : "";
  let goal;
  if (variant.kind === "quota") {
    goal =
      `Goal: a tower of ${variant.quota} cards that all bear ${suit} ` +
      `(the deck holds ${variant.skill} cards of ${suit}).`;
  } else if (variant.kind === "ivory") {
    goal = `Goal: the whole deck in three towers from ${params.level} down to 2, one of them all ${suit}.`;
  } else {
    goal = `Goal: the whole deck in three towers from ${params.level} down to 2.`;
  }
  const extra = [`Level ${params.level}.`];
  if (params.move_limit) extra.push(`At most ${params.move_limit} moves.`);
  if (params.undo === false) extra.push("No undo.");
  return `${goal} ${extra.join(" ")}`;
}

function render() {
  const view = page.view;
  const obs = view.observation;
  if (view.label) {
    $("label").hidden = false;
    $("label").textContent = `for ${view.label}`;
  }
  $("goal").textContent = goalText(view.params);
  $("status").textContent = STATUS_WORDS[view.status] || view.status;
  $("status").dataset.status = view.status;
  $("moves-made").textContent = String(view.moves_made);
  $("version").textContent = String(view.version);
  $("cards-left").textContent = `${obs.cards_left} ${obs.cards_left === 1 ? "card" : "cards"} left`;
  // Keep the keyboard focus on the same control across re-renders (and after a busy spell,
  // during which the disabled control lost it).
  const active = document.activeElement;
  const focused = active?.dataset?.key || (active === document.body ? page.focusKey : null);
  renderDeck(obs);
  renderTowers(obs);
  renderSelection();
  renderControls();
  renderResult();
  if (focused) {
    const again = document.querySelector(`[data-key="${focused}"]`);
    if (again && !again.disabled) again.focus({ preventScroll: true });
  }
}

function playing() {
  return page.role === "player" && page.view && page.view.status === "in_progress";
}

function legalFrom(source) {
  return page.view.legal_moves.filter((m) => m[0] === source).map((m) => m.slice(1));
}

function targetsOfSelection() {
  return page.selected ? new Set(legalFrom(page.selected)) : new Set();
}

function cardButton(code, source, label) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "card card-button";
  button.dataset.action = "source";
  button.dataset.source = source;
  button.dataset.key = `source-${source}`;
  const chosen = page.selected === source;
  button.setAttribute("aria-pressed", String(chosen));
  const moves = legalFrom(source).length;
  button.setAttribute(
    "aria-label",
    `${page.cards.describe(code)}, ${label}${chosen ? ", selected" : ""}` +
      (moves ? "" : ", no legal move from here"),
  );
  button.disabled = page.busy;
  button.append(page.cards.face(code));
  if (chosen) button.append(marker("selected", "Selected"));
  return button;
}

function staticCard(code) {
  const div = document.createElement("div");
  div.className = "card";
  div.append(page.cards.face(code));
  return div;
}

function marker(kind, text) {
  const span = document.createElement("span");
  span.className = `marker marker-${kind}`;
  span.setAttribute("aria-hidden", "true");
  span.textContent = text;
  return span;
}

function renderDeck(obs) {
  const deck = $("deck");
  deck.replaceChildren();
  if (!obs.top_card) {
    const empty = document.createElement("div");
    empty.className = "card empty";
    empty.textContent = "Empty";
    deck.append(empty);
  } else if (playing()) {
    deck.append(cardButton(obs.top_card, "d", "the deck's top card"));
  } else {
    deck.append(staticCard(obs.top_card));
  }
  const under = Math.max(0, obs.cards_left - (obs.top_card ? 1 : 0));
  $("deck-count").textContent = `${under} face down under it`;
  deck.classList.toggle("selected", page.selected === "d");
}

function renderTowers(obs) {
  const list = $("towers");
  list.replaceChildren();
  list.style.setProperty("--spaces", String(obs.towers.length));
  const targets = targetsOfSelection();
  obs.towers.forEach((tower, index) => {
    const number = String(index + 1);
    const item = document.createElement("li");
    item.className = "tower";
    item.dataset.tower = number;
    const target = targets.has(number);
    item.classList.toggle("target", target);
    item.classList.toggle("source", page.selected === number);
    const size = `${tower.length} ${tower.length === 1 ? "card" : "cards"}`;
    let head;
    if (playing()) {
      head = document.createElement("button");
      head.type = "button";
      head.dataset.action = "target";
      head.dataset.key = `tower-${number}`;
      head.disabled = page.busy;
      head.setAttribute(
        "aria-label",
        `Tower ${number}, ${size}` +
          (page.selected ? (target ? ": the selected card can go here" : ": not a legal place") : ""),
      );
    } else {
      head = document.createElement("div");
    }
    head.classList.add("tower-head");
    head.dataset.tower = number;
    const title = document.createElement("span");
    title.textContent = `Tower ${number}`;
    head.append(title);
    if (target) head.append(marker("target", "▼ can go here"));
    item.append(head);
    const stack = document.createElement("ol");
    stack.className = "stack";
    stack.setAttribute("aria-label", `Tower ${number}, bottom to top: ${size}`);
    tower.forEach((code, position) => {
      const entry = document.createElement("li");
      const top = position === tower.length - 1;
      entry.className = top ? "top" : "under";
      if (top && playing()) entry.append(cardButton(code, number, `top of tower ${number}`));
      else entry.append(staticCard(code));
      stack.append(entry);
    });
    if (!tower.length) {
      const empty = document.createElement("li");
      empty.className = "empty-space";
      empty.textContent = "empty";
      if (playing()) empty.dataset.tower = number;
      stack.append(empty);
    }
    item.append(stack);
    list.append(item);
  });
}

function sourceName(source, view = page.view) {
  const obs = view.observation;
  if (source === "d") return obs.top_card ? `${page.cards.info(obs.top_card).short_name} from the deck` : "the deck";
  const tower = obs.towers[Number(source) - 1] || [];
  const code = tower.at(-1);
  return code ? `${page.cards.info(code).short_name} from tower ${source}` : `tower ${source}`;
}

function describeMove(code, view = page.view) {
  if (!/^[dD1-9][1-9]$/.test(code || "")) return code;
  return `${sourceName(code[0].toLowerCase(), view)} to tower ${code[1]}`;
}

function renderSelection() {
  const text = $("selection");
  if (!playing()) {
    text.textContent = "";
    return;
  }
  if (!page.selected) {
    text.textContent = "Choose the deck's card or a tower's top card.";
    return;
  }
  const targets = [...targetsOfSelection()];
  text.textContent =
    `Selected: ${sourceName(page.selected)}. ` +
    (targets.length
      ? `It can go on tower ${targets.join(", ")}. Choose a tower, or press Escape.`
      : "It cannot go anywhere now; choose another card.");
}

function renderControls() {
  const view = page.view;
  const active = playing() && !page.busy;
  $("move-input").disabled = !playing();
  $("play").disabled = !active;
  $("undo").disabled = !active || !view.can_undo;
  $("concede").disabled = !active;
  $("undo").hidden = view.params.undo === false;
  $("controls").classList.toggle("over", !playing());
}

function renderResult() {
  const view = page.view;
  const result = $("result");
  if (!isOver()) {
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
    $("result-title").textContent = view.status === "won" ? "✔ Check won" : "✘ Check lost";
    $("result-summary").textContent = outcome?.summary ? capitalise(outcome.summary) + "." : "";
    $("result-degree").textContent = degreeText(view);
    $("result-reason").textContent = REASONS[outcome?.reason] || outcome?.reason || "";
  }
  $("result-commitment").textContent = view.commitment;
}

function capitalise(text) {
  return text ? text[0].toUpperCase() + text.slice(1) : text;
}

function degreeText(view) {
  const degree = view.degree;
  if (degree === null || degree === undefined) return "none";
  const variant = view.params.variant || {};
  if (variant.kind === "quota") {
    return view.status === "won"
      ? `${degree} (cards left in the deck when the quota was met)`
      : `${degree} (the tallest ${variant.suit} tower minus the quota)`;
  }
  return `${degree} (cards placed from the deck)`;
}

// ---- acting -------------------------------------------------------------------------------------

function say(text) {
  $("notice").textContent = text;
}

function clearRefusal() {
  $("refusal").hidden = true;
}

function refuse(error) {
  const title = error instanceof ApiError ? error.title : "Something went wrong.";
  const detail = error instanceof ApiError ? error.detail : String(error);
  $("refusal-title").textContent = /[.!?]$/.test(title) ? title : `${title}:`;
  $("refusal-detail").textContent = detail;
  $("refusal").hidden = false;
}

async function act(doing, request) {
  if (page.busy || !playing()) return;
  page.busy = true;
  clearRefusal();
  render();
  try {
    const view = await request(page.view.version);
    page.busy = false;
    // The live feed may have shown this version already (while the controls were busy).
    if (!applyView(view)) render();
    say(doing);
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
  }
}

function play(code) {
  const move = code.trim().toLowerCase().replace(/[\s>-]+/g, "");
  if (!move) return;
  const text = `Played ${describeMove(move)}.`;
  return act(text, (version) => page.client.move(move, version));
}

function select(source) {
  page.selected = page.selected === source ? null : source;
  clearRefusal();
  render();
}

function chooseTower(number) {
  if (!page.selected) {
    say("First choose the deck's card or a tower's top card.");
    return;
  }
  if (page.selected === number) {
    select(number);
    return;
  }
  play(`${page.selected}${number}`);
}

function onBoardClick(event) {
  if (!playing() || page.busy) return;
  const control = event.target.closest("[data-action], [data-tower]");
  if (!control) return;
  if (control.dataset.action === "source") {
    const source = control.dataset.source;
    if (page.selected && page.selected !== source && source !== "d" && targetsOfSelection().has(source)) {
      chooseTower(source); // the top card of a tower the selected card can go on
    } else {
      select(source);
    }
    return;
  }
  const tower = control.dataset.tower || control.closest(".tower")?.dataset.tower;
  if (tower) chooseTower(tower);
}

function onKey(event) {
  if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
  if ($("concede-dialog").open) return;
  const target = event.target;
  if (target instanceof HTMLInputElement || target instanceof HTMLTextAreaElement) {
    if (event.key === "Escape" && target.id === "move-input") target.value = "";
    return;
  }
  if (!playing()) return;
  if (event.key === "Escape" && page.selected) {
    page.selected = null;
    render();
  } else if (/^[dD1-8]$/.test(event.key)) {
    const input = $("move-input");
    input.value = (event.key.toLowerCase() === "d" ? "" : input.value) + event.key.toLowerCase();
    input.focus();
    event.preventDefault();
  } else if (event.key === "u" || event.key === "U") {
    undo();
  }
}

function undo() {
  return act("Took back the last move.", (version) => page.client.undo(version));
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
  const deal = $("record-deal");
  deal.replaceChildren(
    ...(record.deal || []).map((code) => {
      const item = document.createElement("li");
      item.append(staticCard(code));
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

// ---- wiring -------------------------------------------------------------------------------------

function wire() {
  $("board").addEventListener("click", onBoardClick);
  $("board").addEventListener("focusin", (event) => {
    page.focusKey = event.target.dataset?.key || null;
  });
  $("move-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const input = $("move-input");
    const code = input.value;
    input.value = "";
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
  $("refusal-close").addEventListener("click", clearRefusal);
  $("show-record").addEventListener("click", showRecord);
  $("retry").addEventListener("click", () => location.reload());
  document.addEventListener("keydown", onKey);
  window.addEventListener("hashchange", () => location.reload());
}

wire();
start().catch((error) => fatal("The page failed to start.", String(error), true));
