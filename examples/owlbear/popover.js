// The action's popover (manifest action.popover). A player plays the check the GM sent them
// right here, in an iframe of the server's player page. The GM keeps the server settings here
// (on this device only), makes a check for the selected character token from the game's own
// parameters, and sends its link sealed for that player. Everyone sees the room's checks and
// their results (room metadata [O6]), kept up to date by the background page.

import OBR from "./vendor/owlbear-rodeo-sdk.js";
import * as sc from "./skillcheck.js";
import * as store from "./store.js";

const $ = (id) => document.getElementById(id);
const state = {
  me: null, role: null, room: null,
  api: null, games: new Map(), details: new Map(), game: null,
  loadingGames: null, // the promise of the game list (one request, however many ask)
  loadingGame: null, // the game whose fields are on their way (Send waits for them)
  sending: false, // a check is being created
  token: null, // { id, name, createdUserId } of the character the check is for
  players: [],
  shown: null, // the check id shown in the play frame
};

function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    if (name === "text") node.textContent = value;
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  node.append(...children);
  return node;
}

function problemText(error) {
  return error instanceof sc.ApiError ? error.message : String(error?.message || error);
}

function showProblem(text) {
  $("problem").textContent = text || "";
  $("problem").hidden = !text;
}

// ---- the room's list ---------------------------------------------------------------------------

function renderRoom(list) {
  const entries = Array.isArray(list) ? list.filter((e) => e && typeof e.check_id === "string") : [];
  const mine = state.role === "GM" ? store.gmChecks(state.room) : {};
  $("room-list").replaceChildren(
    ...entries.map((entry) => {
      const who = entry.character || "A character";
      const item = el("li", { "data-check": entry.check_id, "data-status": entry.status });
      item.append(
        el("span", { class: "who", text: `${who}${entry.label ? ` — ${entry.label}` : ""}` }),
        el("span", { class: `state state-${entry.status}`, text: sc.entryWords(entry) }),
      );
      const actions = el("span", { class: "actions" });
      if (typeof entry.watch === "string" && /^https?:\/\//.test(entry.watch)) {
        actions.append(el("a", { href: entry.watch, target: "_blank", rel: "noopener noreferrer", text: "Watch" }));
      }
      const own = mine[entry.check_id];
      if (own && !own.result && own.player_url) {
        const again = el("button", { type: "button", class: "small", text: own.player_id ? "Send again" : "Show the link" });
        again.addEventListener("click", () => resend(own));
        actions.append(again);
      }
      if (actions.childNodes.length) item.append(actions);
      return item;
    }),
  );
  $("room").hidden = entries.length === 0;
}

// ---- the player's check ------------------------------------------------------------------------

function renderMine() {
  const checks = store.myChecks(state.room);
  const newest = checks[0];
  $("waiting").hidden = state.role === "GM" || Boolean(newest);
  $("mine").hidden = !newest;
  if (!newest) return;
  if (!checks.some((c) => c.check_id === state.shown)) state.shown = newest.check_id;
  const shown = checks.find((c) => c.check_id === state.shown);
  const frame = $("play-frame");
  if (frame.dataset.check !== shown.check_id) {
    frame.dataset.check = shown.check_id;
    frame.src = shown.url;
  }
  $("mine-title").textContent = shown.label ? `Your check: ${shown.label}` : "Your check";
  frame.title = `Your skill check${shown.label ? `: ${shown.label}` : ""}`;
  $("play-open").href = shown.url;
  const older = checks.filter((c) => c.check_id !== shown.check_id);
  $("mine-older").hidden = older.length === 0;
  $("mine-list").replaceChildren(
    ...older.map((check) => {
      const open = el("button", { type: "button", class: "small", text: check.label || "A check" });
      open.addEventListener("click", () => {
        state.shown = check.check_id;
        renderMine();
      });
      return el("li", {}, open);
    }),
  );
}

// ---- the GM: settings --------------------------------------------------------------------------

async function connect({ quiet = false } = {}) {
  const { server, key } = store.settings();
  $("server").value = server;
  $("gm-key").value = key;
  const ready = Boolean(server && key);
  $("settings").open = !ready;
  $("create-form").hidden = !ready;
  $("settings-state").textContent = ready ? "" : "(needed)";
  if (!ready) return;
  state.api = new sc.Api(server, key);
  try {
    await state.api.checks(1); // the key works and CORS lets us in
    $("settings-state").textContent = `(${new URL(server).host})`;
    $("settings-problem").textContent = "";
    await loadGames();
  } catch (error) {
    $("settings").open = true;
    $("create-form").hidden = true;
    $("settings-state").textContent = "(not connected)";
    if (!quiet || error.status) $("settings-problem").textContent = `Not connected: ${problemText(error)}`;
  }
}

async function saveSettings(event) {
  event.preventDefault();
  let server;
  try {
    server = sc.serverUrl($("server").value);
  } catch (error) {
    $("settings-problem").textContent = error.message;
    $("server").focus();
    return;
  }
  const key = $("gm-key").value.trim();
  if (!key) {
    $("settings-problem").textContent = "Enter your GM key.";
    $("gm-key").focus();
    return;
  }
  store.saveSettings({ server, key }); // the background page restarts its follower on this
  state.games.clear();
  state.details.clear();
  await connect();
}

// ---- the GM: the check form --------------------------------------------------------------------

function loadGames() {
  if (state.games.size) return Promise.resolve();
  state.loadingGames ??= fetchGames().finally(() => {
    state.loadingGames = null;
  });
  return state.loadingGames;
}

async function fetchGames() {
  state.game = null; // the list, and so the form, is being replaced
  updateSend();
  const list = await state.api.games();
  const select = $("game");
  select.replaceChildren();
  for (const game of list.games) {
    state.games.set(game.name, game);
    select.append(el("option", { value: game.name, text: game.title }));
  }
  if (list.games.length) await chooseGame(list.games[0].name);
}

function fieldFor(spec, start) {
  const id = `param-${spec.name}`;
  const label = el("label", { for: id, text: sc.humanName(spec.name) });
  const help = String(spec.help || "");
  const hint = el("p", { class: "hint wide", id: `${id}-hint`, text: help.charAt(0).toUpperCase() + help.slice(1) });
  let control;
  if (spec.kind === "bool" && !spec.optional) {
    control = el("input", { id, type: "checkbox", "aria-describedby": `${id}-hint`, "data-param": spec.name });
    control.checked = Boolean(start);
  } else if (spec.kind === "bool" || spec.kind === "choice") {
    control = el("select", { id, "aria-describedby": `${id}-hint`, "data-param": spec.name });
    if (spec.optional) control.append(el("option", { value: "", text: spec.kind === "bool" ? "The game's default" : "None" }));
    const choices = spec.kind === "bool" ? [["true", "Yes"], ["false", "No"]] : (spec.choices || []).map((c) => [c, sc.humanName(c)]);
    for (const [value, text] of choices) control.append(el("option", { value, text }));
    control.value = start === null || start === undefined ? "" : String(start);
  } else if (spec.kind === "int") {
    control = el("input", {
      id, type: "number", inputmode: "numeric", step: 1, min: spec.minimum, max: spec.maximum,
      placeholder: spec.optional ? "None" : null, "aria-describedby": `${id}-hint`, "data-param": spec.name,
    });
    control.value = start === null || start === undefined ? "" : String(start);
  } else {
    control = el("input", { id, autocomplete: "off", spellcheck: "false", placeholder: "Card codes", "aria-describedby": `${id}-hint`, "data-param": spec.name });
    control.value = Array.isArray(start) ? start.join(" ") : "";
  }
  return [label, control, hint];
}

/** Send works once the chosen game's fields are on the form, and not twice at once. */
function canSend() {
  return state.game !== null && state.loadingGame === null && !state.sending;
}

function updateSend() {
  $("send").disabled = !canSend();
}

async function chooseGame(name) {
  state.game = name;
  state.loadingGame = name;
  updateSend();
  $("game").value = name;
  let detail = state.details.get(name);
  if (!detail) {
    detail = await state.api.game(name);
    state.details.set(name, detail);
  }
  // A game chosen meanwhile (its answer came first) keeps the form.
  if (state.game !== name) return;
  state.loadingGame = null;
  updateSend();
  $("game-summary").textContent = detail.summary || "";
  const start = sc.startValues(detail);
  const main = [];
  const more = [];
  for (const spec of detail.parameters) {
    // What the game's example leaves unset and may stay unset goes behind "More options".
    const rare = spec.optional && (start[spec.name] === null || start[spec.name] === undefined);
    (rare ? more : main).push(...fieldFor(spec, start[spec.name]));
  }
  $("param-fields").replaceChildren(...main);
  $("more-fields").replaceChildren(...more);
  $("more-options").hidden = more.length === 0;
  showApplicable();
}

/** A parameter of another variant (applies_if) hides with its label and hint; readParams
 *  leaves it out of the check. */
function showApplicable() {
  const detail = state.details.get(state.game);
  if (!detail) return;
  const raw = rawValues();
  for (const spec of detail.parameters) {
    const hidden = !sc.applies(spec, raw);
    for (const id of [`param-${spec.name}`, `param-${spec.name}-hint`]) {
      const node = $(id);
      if (node) node.hidden = hidden;
    }
    const label = document.querySelector(`label[for="param-${spec.name}"]`);
    if (label) label.hidden = hidden;
  }
}

function rawValues() {
  const raw = {};
  for (const control of document.querySelectorAll("[data-param]")) {
    raw[control.dataset.param] = control.type === "checkbox" ? control.checked : control.value;
  }
  return raw;
}

function markField(name) {
  for (const node of document.querySelectorAll("[aria-invalid]")) node.removeAttribute("aria-invalid");
  const control = name ? $(`param-${name}`) || (name === "label" ? $("check-label") : $(name)) : null;
  if (control) {
    if (control.closest("#more-options")) $("more-options").open = true;
    control.setAttribute("aria-invalid", "true");
    control.focus();
  }
}

// ---- the GM: which token, which player ---------------------------------------------------------

async function selectedToken() {
  const ids = await OBR.player.getSelection();
  if (ids?.length === 1) {
    const [item] = await OBR.scene.items.getItems(ids);
    if (item && item.layer === "CHARACTER") return { id: item.id, name: sc.tokenName(item), createdUserId: item.createdUserId };
  }
  return null;
}

async function refreshTarget() {
  let token = null;
  if (await OBR.scene.isReady()) token = await selectedToken();
  const chosen = store.target();
  if (!token && chosen && Date.now() - chosen.at < 10 * 60 * 1000) token = chosen;
  const changed = token?.id !== state.token?.id;
  state.token = token;
  $("target").replaceChildren(
    ...(token
      ? ["A check for ", el("b", { text: token.name || "the selected token" }), "."]
      : ["Select a character token on the map, or right-click it and choose ", el("b", { text: "Skill check" }), "."]),
  );
  $("target").classList.toggle("chosen", Boolean(token));
  if (changed && token) {
    $("character").value = token.name || "";
    renderPlayers();
  }
}

function renderPlayers() {
  const select = $("player");
  const before = select.value;
  const playing = state.players.filter((p) => p.role === "PLAYER");
  select.replaceChildren(
    ...playing.map((p) => el("option", { value: p.id, text: p.name })),
    el("option", { value: "", text: "Nobody: show me the link" }),
  );
  const guess = state.token ? sc.playerForToken(state.token, state.players, store.tokenPlayers()) : null;
  select.value = guess?.id ?? (playing.some((p) => p.id === before) ? before : playing[0]?.id ?? "");
}

// ---- the GM: sending -----------------------------------------------------------------------------

async function deliver(check) {
  const players = await OBR.party.getPlayers();
  const player = players.find((p) => p.id === check.player_id);
  const message = player
    ? await sc.linkMessage(player, { checkId: check.check_id, url: check.player_url, label: check.label, character: check.character })
    : null;
  if (message) await OBR.broadcast.sendMessage(sc.LINK_CHANNEL, message); // REMOTE: the others [O4]
  return { player, sent: Boolean(message) };
}

function showSent(check, { player, sent }) {
  const who = player?.name || check.player_name;
  $("sent-text").textContent = sent
    ? `Sent to ${who}: it opens in their skillcheck popover. The result shows up here and as a notification.`
    : who
      ? `${who}'s skillcheck extension is not running, so the check could not be sent. Send them this link privately; the result still shows up here.`
      : "The check is ready. Send the player this link privately; the result shows up here.";
  $("sent-link").hidden = sent;
  $("sent-url").value = sent ? "" : check.player_url;
  $("sent").hidden = false;
  $("sent").focus();
}

async function resend(check) {
  try {
    showSent(check, await deliver(check));
  } catch (error) {
    showProblem(`Not sent: ${problemText(error)}`);
  }
}

async function createCheck(event) {
  event.preventDefault();
  if (!canSend()) return; // (the button is disabled meanwhile)
  $("create-problem").textContent = "";
  markField(null);
  const read = sc.readParams(state.details.get(state.game).parameters, rawValues());
  if (read.error) {
    $("create-problem").textContent = read.error;
    markField(read.field);
    return;
  }
  const player = state.players.find((p) => p.id === $("player").value) || null;
  const character = $("character").value.trim();
  const label = $("check-label").value.trim();
  const body = sc.checkBody({
    game: state.game, params: read.params, label, character, hints: $("hints").checked,
    metadata: { owlbear_room: state.room, owlbear_token: state.token?.id ?? null },
  });
  state.sending = true;
  updateSend();
  try {
    const created = await state.api.create(body);
    const server = state.api.server;
    const check = store.updateGmCheck(state.room, created.check_id, {
      check_id: created.check_id, label, character,
      player_id: player?.id ?? null, player_name: player?.name ?? null, token_id: state.token?.id ?? null,
      player_url: sc.playUrl(server, created.check_id, created.view.game, created.player_token), // this device only
      watch: sc.playUrl(server, created.check_id, created.view.game, created.spectator_token),
      created_at: created.view.created_at,
    }); // the background page sees this and lists the check for the room
    if (state.token && player) store.rememberTokenPlayer(state.token.id, player.id);
    showSent(check, await deliver(check));
  } catch (error) {
    const field = error instanceof sc.ApiError && error.field ? String(error.field).split(".").pop() : null;
    $("create-problem").textContent =
      field === "hints"
        ? "This server does not offer hints yet: untick “Let the player ask for hints”."
        : `The check was not created: ${problemText(error)}`;
    markField(field === "hints" ? null : field);
  } finally {
    state.sending = false;
    updateSend();
  }
}

async function copyLink() {
  const input = $("sent-url");
  input.focus();
  input.select();
  try {
    await navigator.clipboard.writeText(input.value); // may be refused in a cross-origin frame [W4]
    $("copy-link").textContent = "Copied";
  } catch {
    $("copy-link").textContent = "Selected: press Ctrl+C";
  }
}

// ---- start ---------------------------------------------------------------------------------------

async function applyTheme() {
  try {
    const theme = await OBR.theme.getTheme();
    const root = document.documentElement.style;
    document.documentElement.dataset.mode = theme.mode === "LIGHT" ? "light" : "dark";
    root.setProperty("--text", theme.text.primary);
    root.setProperty("--muted", theme.text.secondary);
    root.setProperty("--accent", theme.primary.main);
    root.setProperty("--accent-text", theme.primary.contrastText);
  } catch {
    // the page's own colours
  }
}

async function start() {
  state.me = await OBR.player.getId();
  state.role = await OBR.player.getRole();
  state.room = OBR.room.id;
  await applyTheme();
  $("who").textContent = `${await OBR.player.getName()} · ${state.role === "GM" ? "GM" : "player"}`;
  renderMine();
  renderRoom((await OBR.room.getMetadata())[sc.ROOM_KEY]);
  OBR.room.onMetadataChange((metadata) => renderRoom(metadata[sc.ROOM_KEY]));
  store.onStored((key) => {
    if (key === store.myChecksKey(state.room)) renderMine();
    if (key === store.TARGET_KEY) refreshTarget().catch((e) => showProblem(problemText(e)));
  });
  OBR.player.onChange((player) => {
    if (player.role !== state.role) location.reload();
    else if (state.role === "GM") refreshTarget().catch((e) => showProblem(problemText(e)));
  });
  if (state.role !== "GM") return;

  $("gm").hidden = false;
  // The GM's news first (what was just sent, the room's results), then the form of a new check.
  $("gm").insertBefore($("room"), $("create-form"));
  $("gm").insertBefore($("sent"), $("room"));
  $("not-kept").hidden = store.persistent();
  state.players = await OBR.party.getPlayers();
  OBR.party.onChange((players) => {
    state.players = players;
    renderPlayers();
  });
  renderPlayers();
  $("settings-form").addEventListener("submit", saveSettings);
  $("create-form").addEventListener("submit", createCheck);
  $("create-form").addEventListener("change", showApplicable);
  $("game").addEventListener("change", () => chooseGame($("game").value).catch((e) => showProblem(problemText(e))));
  $("copy-link").addEventListener("click", copyLink);
  await refreshTarget();
  await connect({ quiet: true });
}

if (OBR.isAvailable) {
  OBR.onReady(() => start().catch((error) => showProblem(`Something went wrong: ${problemText(error)}`)));
} else {
  $("outside").hidden = false;
}
