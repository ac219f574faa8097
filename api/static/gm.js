// The GM's page (docs/gm-page.md): sign in with a GM key (kept in this tab's sessionStorage,
// never in a URL), create checks from each game's parameters with the odds beside the form,
// hand out the player's and the spectators' links (copy, QR code, re-issue), and follow the
// GM's checks live: cancel them, watch them, and check a finished check's commitment.
// Only public endpoints of the API are used (docs/api.md). Nothing here names a game.

import { ApiError, SseParser, fetchJson, readStream } from "./api.js";
import { qrSvg } from "./qr.js";

const root = document.documentElement.dataset.root || "";
const KEY_STORE = "skillcheck.gm.key";
const LINK_STORE = "skillcheck.gm.links";
const ODDS_DELAY_MS = 350;
const PAGE_SIZE = 50;
const CREATE_NOTE = "You can create the check now: the odds will keep coming.";
const $ = (id) => document.getElementById(id);

const state = {
  key: null,
  games: new Map(), // name -> summary (title, parameters)
  details: new Map(), // name -> GET /v1/games/{name}
  calibrating: null, // a promise: whether the server offers GET /v1/calibrate (its index says)
  calibration: null, // the calibration asked last (an object): an answer for another is dropped
  calibrates: false, // its answer, once in
  game: null,
  loadingGame: null, // the game whose fields are on their way (Create waits for them)
  creating: false, // a POST /v1/checks is on its way
  checks: new Map(), // check id -> { summary, item }
  cursor: null,
  feed: null,
  odds: null, // the AbortController of the odds being fetched
  oddsQuery: null, // the query of the odds shown (URLSearchParams)
  lastOdds: null, // the odds answer shown
  careful: null, // the AbortController of the careful player's odds being computed
  announced: new Set(), // checks whose end was announced
};

// ---- talking to the API ----------------------------------------------------------------------

/** A request with the GM key; answers { response, data } for any status. */
function call(method, path, { body, signal, headers = {} } = {}) {
  const auth = state.key ? { Authorization: `Bearer ${state.key}` } : {};
  return fetchJson(`${root}${path}`, method, { headers: { ...headers, ...auth }, body, signal });
}

/** A request that must succeed (2xx): its JSON, or an ApiError. */
async function api(method, path, options) {
  const { response, data } = await call(method, path, options);
  if (!response.ok) throw new ApiError(response.status, data);
  return data;
}

const sleep = (ms, signal) =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    });
  });

function retryAfter(response, fallback = 1) {
  const seconds = Number.parseFloat(response.headers.get("retry-after") || "");
  return Math.min(Math.max(Number.isFinite(seconds) ? seconds : fallback, 0.5), 30);
}

/** GET a computation that may answer 202 (running: poll) or 429 (queue full: wait), with
 * progress reported to onProgress(text, fraction|null). */
async function computed(path, signal, onProgress) {
  for (;;) {
    const { response, data } = await call("GET", path, { signal });
    if (response.status === 202) {
      const done = Number(data?.done) || 0;
      const total = Number(data?.total) || 0;
      onProgress(
        total ? `Working it out: ${done} of ${total} test deals played…` : "Working it out…",
        total ? done / total : null,
      );
      await sleep(retryAfter(response) * 1000, signal);
    } else if (response.status === 429) {
      const wait = retryAfter(response, 5);
      onProgress(`The server is busy with other odds; trying again in ${Math.ceil(wait)} s…`, null);
      await sleep(wait * 1000, signal);
    } else if (!response.ok) {
      throw new ApiError(response.status, data);
    } else {
      return data;
    }
    if (signal?.aborted) throw new DOMException("aborted", "AbortError");
  }
}

// ---- small helpers ---------------------------------------------------------------------------

function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    if (name === "class") node.className = value;
    else if (name === "text") node.textContent = value;
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  node.append(...children.filter((c) => c !== null && c !== undefined));
  return node;
}

function announce(text) {
  const region = $("announce");
  region.textContent = "";
  setTimeout(() => {
    region.textContent = text;
  }, 50);
}

function percent(rate) {
  return rate === null || rate === undefined ? "—" : `${Math.round(rate * 100)}\u00a0%`;
}

function humanName(name) {
  const words = String(name).replace(/_/g, " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** A refusal in the form's words: the nested parameters' paths the server names
 *  ("variant.quota") become the labels the GM sees ("Quota"). */
function problemText(error) {
  if (!(error instanceof ApiError)) return String(error?.message || error);
  let text = error.detail || error.title;
  const nested = (state.details.get(state.game)?.parameters || []).filter((s) => s.path.length > 1);
  for (const spec of nested.sort((a, b) => b.path.join(".").length - a.path.join(".").length)) {
    text = text.replaceAll(spec.path.join("."), humanName(spec.name));
  }
  return text;
}

/** A check's page link for `token` (api/pages.py, play_link): the game rides in the query, a
 *  hint the page prepares that game's table from; the token in the fragment, never sent. */
function playLink(checkId, game, token) {
  const query = game ? `?game=${encodeURIComponent(game)}` : "";
  return `${location.origin}${root}/play/${encodeURIComponent(checkId)}${query}#token=${token}`;
}

function links() {
  try {
    return JSON.parse(sessionStorage.getItem(LINK_STORE) || "{}");
  } catch {
    return {};
  }
}

function remember(checkId, fields) {
  const all = links();
  all[checkId] = { ...(all[checkId] || {}), ...fields };
  sessionStorage.setItem(LINK_STORE, JSON.stringify(all));
}

const STATUS_WORDS = {
  in_progress: "In progress",
  won: "Succeeded",
  lost: "Failed",
  cancelled: "Cancelled",
};

// ---- signing in ------------------------------------------------------------------------------

async function signIn(key, { quiet = false } = {}) {
  state.key = key;
  const problem = $("signin-problem");
  problem.textContent = "";
  let response;
  try {
    ({ response } = await call("GET", "/v1/checks?limit=1"));
  } catch (error) {
    state.key = null;
    showSignIn(problemText(error));
    return;
  }
  if (!response.ok) {
    state.key = null;
    sessionStorage.removeItem(KEY_STORE);
    showSignIn(
      quiet
        ? ""
        : response.status === 403 || response.status === 401
          ? "That is not a GM key of this server. Check it and try again."
          : `The server answered ${response.status}; try again.`,
    );
    return;
  }
  sessionStorage.setItem(KEY_STORE, key);
  $("signin").hidden = true;
  $("app").hidden = false;
  $("sign-out").hidden = false;
  await loadGames();
  startFeed();
  await loadChecks();
}

function showSignIn(message = "") {
  $("app").hidden = true;
  $("sign-out").hidden = true;
  $("signin").hidden = false;
  $("signin-problem").textContent = message;
  $("gm-key").value = "";
  $("gm-key").focus();
}

function signOut() {
  state.feed?.stop();
  state.feed = null;
  state.key = null;
  sessionStorage.removeItem(KEY_STORE);
  sessionStorage.removeItem(LINK_STORE);
  state.checks.clear();
  $("check-list").replaceChildren();
  $("created").hidden = true;
  showSignIn("You are signed out.");
}

// ---- the form from the game's parameters -----------------------------------------------------

async function loadGames() {
  const select = $("game");
  if (state.games.size) return;
  const list = await api("GET", "/v1/games");
  for (const game of list.games) {
    state.games.set(game.name, game);
    select.append(el("option", { value: game.name, text: game.title }));
  }
  if (list.games.length) await chooseGame(list.games[0].name);
}

function valueAt(object, path) {
  let value = object;
  for (const part of path) {
    if (value === null || typeof value !== "object" || !(part in value)) return undefined;
    value = value[part];
  }
  return value;
}

function fieldFor(spec, initial) {
  const id = `param-${spec.name}`;
  const hintId = `${id}-hint`;
  const wrap = el("div", { class: "field", "data-param": spec.name });
  const label = el("label", { for: id, text: humanName(spec.name) });
  const hint = el("p", { id: hintId, class: "hint", text: spec.help });
  let control;
  if (spec.kind === "bool" && !spec.optional) {
    control = el("input", { id, type: "checkbox", "aria-describedby": hintId });
    control.checked = initial === undefined || initial === null ? Boolean(spec.default) : initial;
    wrap.classList.add("check-field");
    wrap.append(control, label, hint);
    return wrap;
  }
  if (spec.kind === "bool") {
    control = el("select", { id, "aria-describedby": hintId });
    control.append(
      el("option", { value: "", text: "The game's default" }),
      el("option", { value: "true", text: "Yes" }),
      el("option", { value: "false", text: "No" }),
    );
    control.value = initial === true ? "true" : initial === false ? "false" : "";
  } else if (spec.kind === "choice") {
    control = el("select", { id, "aria-describedby": hintId });
    if (spec.optional) control.append(el("option", { value: "", text: "None" }));
    for (const choice of spec.choices || []) {
      control.append(el("option", { value: choice, text: humanName(choice) }));
    }
    const start = initial ?? spec.default;
    control.value = start === null || start === undefined ? "" : String(start);
  } else if (spec.kind === "int") {
    control = el("input", {
      id,
      type: "number",
      inputmode: "numeric",
      step: 1,
      min: spec.minimum,
      max: spec.maximum,
      placeholder: spec.optional ? "None" : null,
      "aria-describedby": hintId,
    });
    const start = initial ?? spec.default;
    control.value = start === null || start === undefined ? "" : String(start);
  } else {
    control = el("input", {
      id,
      autocomplete: "off",
      spellcheck: "false",
      placeholder: "Card codes",
      "aria-describedby": hintId,
    });
    const start = initial ?? spec.default;
    control.value = Array.isArray(start) ? start.join(" ") : "";
  }
  wrap.append(label, control, hint);
  return wrap;
}

/** Create works once the chosen game's fields are on the form, and not twice at once. */
function canCreate() {
  return Boolean(state.game) && !state.loadingGame && !state.creating;
}

function updateCreate() {
  $("create-check").disabled = !canCreate();
}

async function chooseGame(name) {
  state.game = name;
  state.loadingGame = name;
  updateCreate();
  $("game").value = name;
  $("odds").style.minHeight = ""; // another game's odds take the room they need (holdOddsRoom)
  let detail = state.details.get(name);
  // (whether the server calibrates is asked at the same time, so that the box appears with the
  // fields, in one frame, not after them)
  const probing = serverCalibrates();
  if (!detail) {
    try {
      detail = await api("GET", `/v1/games/${encodeURIComponent(name)}`);
    } catch (error) {
      if (state.game === name) {
        $("create-problem").textContent = `This game's settings did not load (${problemText(error)}). Choose another game and back, or reload the page, to try again.`;
      }
      return;
    }
    state.details.set(name, detail);
  }
  await probing;
  // A game chosen meanwhile (its answer came first) keeps the form.
  if (state.game !== name) return;
  state.loadingGame = null;
  updateCreate();
  $("create-problem").textContent = "";
  $("game-summary").textContent = detail.summary;
  const example = detail.examples?.[0]?.params || {};
  const fields = $("param-fields");
  fields.replaceChildren(...detail.parameters.map((spec) => fieldFor(spec, valueAt(example, spec.path))));
  showApplicable();
  forgetCalibration();
  showCalibrate(name);
  scheduleOdds();
}

/** Whether the parameter `spec` applies with the form as it is: one declared `applies_if`
 *  goes only with some values of another parameter (a quota check's quota). */
function applies(spec) {
  const condition = spec.applies_if;
  if (!condition) return true;
  const other = $(`param-${condition.parameter}`);
  return Boolean(other) && condition.values.includes(other.value);
}

/** Shows only the parameters that apply; a hidden one keeps what was typed (it comes back with
 *  its variant) but is neither sent nor checked. */
function showApplicable() {
  for (const spec of state.details.get(state.game)?.parameters || []) {
    const field = document.querySelector(`#param-fields [data-param="${spec.name}"]`);
    if (field) field.hidden = !applies(spec);
  }
}

/** The form's values: { params (nested, as POST /v1/checks takes them), flat (as GET /v1/odds
 * takes them) }, or { error, spec } for a value that is not allowed. */
function readParams() {
  const detail = state.details.get(state.game);
  const params = {};
  const flat = {};
  for (const spec of detail.parameters) {
    if (!applies(spec)) continue;
    const control = $(`param-${spec.name}`);
    let value;
    if (spec.kind === "bool" && !spec.optional) value = control.checked;
    else if (spec.kind === "bool") value = control.value === "" ? null : control.value === "true";
    else if (spec.kind === "int") {
      const text = control.value.trim();
      if (text === "") value = null;
      else if (!/^-?\d+$/.test(text)) {
        return { error: `${humanName(spec.name)} must be a whole number.`, spec };
      } else value = Number.parseInt(text, 10);
      if (value === null && !spec.optional) {
        return { error: `${humanName(spec.name)} is needed.`, spec };
      }
      if (value !== null && spec.minimum !== null && spec.minimum !== undefined && value < spec.minimum) {
        return { error: `${humanName(spec.name)} must be at least ${spec.minimum}.`, spec };
      }
      if (value !== null && spec.maximum !== null && spec.maximum !== undefined && value > spec.maximum) {
        return { error: `${humanName(spec.name)} must be at most ${spec.maximum}.`, spec };
      }
    } else if (spec.kind === "cards") {
      const codes = control.value.replace(/,/g, " ").split(/\s+/).filter(Boolean);
      value = codes.length ? codes : null;
    } else value = control.value === "" ? null : control.value;
    if (value === null) continue;
    let target = params;
    spec.path.slice(0, -1).forEach((part) => {
      target[part] = target[part] && typeof target[part] === "object" ? target[part] : {};
      target = target[part];
    });
    target[spec.path[spec.path.length - 1]] = value;
    flat[spec.name] = Array.isArray(value) ? value.join(" ") : String(value);
  }
  return { params, flat };
}

function markField(name) {
  for (const node of document.querySelectorAll("[aria-invalid]")) node.removeAttribute("aria-invalid");
  if (!name) return null;
  const control = $(`param-${name}`) || (name === "label" ? $("check-label") : null) || $(name);
  if (control) control.setAttribute("aria-invalid", "true");
  return control;
}

// ---- odds and calibration --------------------------------------------------------------------

/** On a phone the odds sit between the parameters and the Create button. While the GM stays
 *  with one game the box never shrinks, so odds that need less room than before (no careful
 *  player to offer, a shorter summary) leave the button where it is; the browser's scroll
 *  anchoring alone does not always hold it (seen in a test on a loaded machine). */
function holdOddsRoom() {
  const box = $("odds");
  const narrow = window.matchMedia("(max-width: 47.99rem)");
  if (typeof ResizeObserver === "undefined") return;
  new ResizeObserver(() => {
    if (!narrow.matches) {
      box.style.minHeight = "";
      return;
    }
    const height = box.getBoundingClientRect().height;
    if (height > (parseFloat(box.style.minHeight) || 0)) box.style.minHeight = `${height}px`;
  }).observe(box);
}

let oddsTimer = null;

function scheduleOdds() {
  clearTimeout(oddsTimer);
  oddsTimer = setTimeout(showOdds, ODDS_DELAY_MS);
}

/** The odds are being worked out (the server answered 202, or 429: busy): the progress, and
 *  beside the Create button a note that the check need not wait for them. Creating a check
 *  does not depend on the odds (the check is what the form says), so Create stays enabled. The
 *  note is a live region always on the page, written once per wait (a screen reader hears it
 *  once), and placed so that it never moves the button (gm.css). */
function oddsProgress(text, fraction) {
  $("odds-progress-line").hidden = false;
  $("odds-progress-text").textContent = text;
  const bar = $("odds-progress");
  if (fraction === null) bar.removeAttribute("value");
  else bar.value = fraction;
  const note = $("create-note");
  if (note.textContent !== CREATE_NOTE) note.textContent = CREATE_NOTE;
}

/** No odds are being worked out any more (shown, refused, or given up for newer choices). */
function oddsIdle() {
  $("odds").removeAttribute("aria-busy");
  $("odds-progress-line").hidden = true;
  $("create-note").textContent = "";
}

async function showOdds() {
  if (state.loadingGame) return; // its fields are not on the form yet (chooseGame asks again)
  const read = readParams();
  const query = read.error ? null : new URLSearchParams({ game: state.game, ...read.flat });
  // a change event that changed nothing (leaving a field) keeps what is shown or running
  if (query && state.lastOdds && query.toString() === state.oddsQuery?.toString()) return;
  state.odds?.abort();
  state.careful?.abort();
  oddsIdle(); // (what was aborted leaves the page to this request: it touches nothing more)
  const controller = new AbortController();
  state.odds = controller;
  state.lastOdds = null;
  const words = $("odds-words");
  $("careful-line").hidden = true;
  if (read.error) {
    words.textContent = read.error;
    return;
  }
  state.oddsQuery = query;
  words.textContent = "Working out the odds…";
  $("odds").setAttribute("aria-busy", "true");
  try {
    const table = await computed(`/v1/odds?${query}`, controller.signal, oddsProgress);
    if (controller.signal.aborted) return;
    renderOdds(table);
    offerCareful(table);
  } catch (error) {
    if (error.name === "AbortError" || controller.signal.aborted) return;
    words.textContent = `No odds for these choices: ${problemText(error)}`;
    $("odds-table").tBodies[0].replaceChildren();
  } finally {
    if (!controller.signal.aborted) oddsIdle();
  }
}

function methodName(method) {
  return method === "perfect" ? "Perfect play" : `A bot (“${method}”)`;
}

function renderOdds(table) {
  const cells = Array.isArray(table?.cells) ? table.cells : [];
  const body = $("odds-table").tBodies[0];
  body.replaceChildren();
  const rows = [];
  let observed = null;
  const shown = new Set(); // cells come one per method; each carries its parameters' profiles
  for (const cell of cells) {
    if (Array.isArray(cell.profiles)) {
      const key = canonicalJson(cell.params ?? null);
      if (shown.has(key)) continue;
      shown.add(key);
      for (const p of cell.profiles) {
        rows.push({ who: p.name, rate: p.rate, low: p.low, high: p.high, deals: p.deals, words: p.words });
      }
      observed = cell.observed || observed;
    } else {
      rows.push({
        who: methodName(cell.method),
        rate: cell.rate,
        low: cell.ci95_low,
        high: cell.ci95_high,
        deals: cell.trials,
        method: cell.method,
      });
    }
  }
  for (const row of rows) {
    body.append(
      el(
        "tr",
        {},
        el("th", { scope: "row", text: row.who }),
        el("td", { text: row.words ? `${percent(row.rate)} (${row.words})` : percent(row.rate) }),
        el("td", { text: `${percent(row.low)} to ${percent(row.high)}` }),
        el("td", { text: String(row.deals ?? "—") }),
      ),
    );
  }
  const words = $("odds-words");
  if (typeof table?.summary === "string" && table.summary) {
    words.textContent = table.summary.replace(/ %/g, "\u00a0%");
  } else if (rows.length) {
    const bots = rows.filter((r) => r.method && r.method !== "perfect");
    const perfect = rows.find((r) => r.method === "perfect");
    const parts = [];
    if (bots.length) parts.push(`a bot player won ${percent(bots[0].rate)}`);
    if (perfect) parts.push(`perfect play won ${percent(perfect.rate)}`);
    words.textContent = `In ${rows[0].deals} test deals, ${parts.join(" and ")}.`;
  } else {
    words.textContent = "The server sent no odds for these choices.";
  }
  const seen = $("odds-observed");
  if (observed && observed.checks) {
    seen.textContent =
      `Observed here: ${observed.successes} of ${observed.checks} finished checks with these ` +
      `parameters succeeded (${percent(observed.rate)}).`;
  } else {
    seen.textContent = observed ? "No finished checks with these parameters on this server yet." : "";
  }
  $("odds-method").textContent =
    "Each row is the share of test deals won, with the range it very likely lies in (95 %).";
}

/** The careful player's method for this game when the answer lacks it (null otherwise). */
function missingCareful(table) {
  const method = state.details.get(state.game)?.profiles?.careful;
  if (!method) return null;
  const cells = Array.isArray(table?.cells) ? table.cells : [];
  const has = cells.some((c) => (c.profiles || []).some((p) => p.profile === "careful"));
  return has ? null : method;
}

function offerCareful(table) {
  state.lastOdds = table;
  $("careful-line").hidden = !missingCareful(table);
}

/** Asks the server to play the careful player (GM key; a few minutes), then adds its row. */
async function runCareful() {
  const table = state.lastOdds;
  const method = missingCareful(table);
  if (!method || !state.oddsQuery) return;
  const controller = new AbortController();
  state.careful = controller;
  const query = new URLSearchParams(state.oddsQuery);
  query.append("bot", method);
  const button = $("careful-run");
  button.disabled = true;
  $("odds").setAttribute("aria-busy", "true");
  try {
    const careful = await computed(`/v1/odds?${query}`, controller.signal, oddsProgress);
    if (controller.signal.aborted || state.lastOdds !== table) return;
    const profiles = careful.cells?.[0]?.profiles?.filter((p) => p.profile === "careful") || [];
    const merged = structuredClone(table);
    for (const cell of merged.cells || []) {
      if (Array.isArray(cell.profiles)) cell.profiles = [...profiles, ...cell.profiles];
    }
    renderOdds(merged);
    const row = profiles[0];
    if (row) announce(`A careful player: ${percent(row.rate)} (${row.words}).`);
    offerCareful(merged);
  } catch (error) {
    if (error.name === "AbortError" || controller.signal.aborted) return;
    $("odds-words").textContent = `No odds for a careful player: ${problemText(error)}`;
  } finally {
    button.disabled = false;
    // (stopped by newer choices, whose odds are on their way: their progress stays)
    if (!controller.signal.aborted) oddsIdle();
  }
}

/** Learns once whether the server calibrates: the API's index (GET /v1) links
 *  /v1/calibrate when it does (asked, not probed with an incomplete request, which a browser
 *  would log as an error). The answer is kept for showCalibrate. */
function serverCalibrates() {
  state.calibrating ||= call("GET", "/v1")
    .then(({ response, data }) => response.ok && Boolean(data?.links?.calibrate))
    .catch(() => false)
    .then((offered) => {
      state.calibrates = offered;
      return offered;
    });
  return state.calibrating;
}

/** A calibration's answer no longer fits once the GM changes the check (another game, another
 *  parameter): it is cleared, and one still on its way is dropped when it comes. */
function forgetCalibration() {
  state.calibration = null;
  $("calibrate-result").textContent = "";
}

/** The calibration box, for a game the server calibrates: one whose odds have player profiles
 *  (the box asks for a profile's chance). */
function showCalibrate(name) {
  const profiles = state.details.get(name)?.profiles || {};
  $("calibrate").hidden = !(state.calibrates && state.game === name && Object.keys(profiles).length);
}

async function calibrate() {
  const out = $("calibrate-result");
  const read = readParams();
  if (read.error) {
    out.textContent = read.error;
    return;
  }
  const flat = { ...read.flat };
  // the option calibrating chooses (the odds answer names it for these choices) is left out
  const chosen = state.lastOdds?.difficulty;
  if (chosen && state.oddsQuery?.toString() === new URLSearchParams({ game: state.game, ...read.flat }).toString()) {
    delete flat[chosen];
  }
  const target = $("calibrate-target").value;
  const asked = (state.calibration = {}); // this request; another, or a change of the form, replaces it
  out.textContent = "Looking for the difficulty that gives that chance…";
  for (let attempt = 0; attempt < 4; attempt++) {
    const query = new URLSearchParams({ game: state.game, target, profile: "casual", ...flat });
    try {
      const answer = await computed(`/v1/calibrate?${query}`, undefined, (text) => {
        if (state.calibration === asked) out.textContent = text;
      });
      if (state.calibration !== asked) return; // the GM changed the check meanwhile: stale
      const spec = state.details.get(state.game).parameters.find((p) => p.name === answer.parameter);
      if (spec && answer.best !== undefined && answer.best !== null) {
        const control = $(`param-${spec.name}`);
        if (control) control.value = String(answer.best);
        scheduleOdds();
      }
      const choices = (answer.choices || [])
        .map((c) => `${humanName(answer.parameter)} ${c.value}: ${percent(c.rate)}${c.words ? ` (${c.words})` : ""}`)
        .join("; ");
      // the closest value may still be far from the chance asked for: say so, not "set it"
      const best = (answer.choices || []).find((c) => c.value === answer.best);
      const wanted = Number(target);
      const far = best && Math.abs(best.rate - wanted) > 0.1;
      out.textContent =
        (far
          ? `No ${humanName(answer.parameter).toLowerCase()} gives ${percent(wanted)}: the closest is ` +
            `${answer.best} (${percent(best.rate)}), now filled in.`
          : `Set ${humanName(answer.parameter)} to ${answer.best} (now filled in).`) +
        (choices ? ` Nearby: ${choices}.` : "");
      return;
    } catch (error) {
      if (state.calibration !== asked) return;
      const field = error instanceof ApiError ? error.problem?.field : null;
      if (field && field in flat) {
        delete flat[field]; // (odds not in yet) the parameter being calibrated: the server chooses it
        continue;
      }
      out.textContent = `Cannot calibrate: ${problemText(error)}`;
      return;
    }
  }
}

// ---- creating a check ------------------------------------------------------------------------

async function createCheck(event) {
  event.preventDefault();
  if (!canCreate()) return; // (the button is disabled meanwhile)
  const problem = $("create-problem");
  problem.textContent = "";
  markField(null);
  const read = readParams();
  if (read.error) {
    problem.textContent = read.error;
    markField(read.spec.name)?.focus();
    return;
  }
  const body = { game: state.game, params: read.params };
  const label = $("check-label").value.trim();
  const character = $("character").value.trim();
  if (label) body.label = label;
  if (character) body.character = character;
  if ($("allow-hints").checked) body.hints = true;
  state.creating = true;
  updateCreate();
  try {
    const created = await api("POST", "/v1/checks", { body });
    remember(created.check_id, {
      player: created.player_token,
      spectator: created.spectator_token,
      commitment: created.commitment,
    });
    // The live list may have shown the check before this answer came, without its links: its
    // entry then offered to replace the spectators' link the GM had just been given.
    if (!upsert(summaryOfView(created.view))) refreshLinks(created.check_id);
    showCreated(created);
    // what this check was is not what the next one is: a label kept would mislabel it
    $("check-label").value = "";
  } catch (error) {
    problem.textContent = `The check was not created: ${problemText(error)}`;
    const field = error instanceof ApiError ? error.problem?.field : null;
    const name = field ? String(field).split(".").pop() : null;
    markField(name)?.focus();
  } finally {
    state.creating = false;
    updateCreate();
  }
}

function summaryOfView(view) {
  const keys = ["check_id", "game", "params", "label", "character", "status", "version",
    "moves_made", "degree", "tier", "tier_text", "created_at", "updated_at", "hints_used"];
  return Object.fromEntries(keys.map((k) => [k, view[k] ?? null]));
}

function showCreated(created) {
  const view = created.view;
  const panel = $("created");
  const what = view.label ? `“${view.label}”` : "The check";
  $("created-what").textContent =
    `${what}${view.character ? ` for ${view.character}` : ""} is ready. ` +
    "Give the player their link; anyone with the spectators' link can watch.";
  $("created-links").replaceChildren(
    linkBlock(created.check_id, view.game, "player", "created"),
    linkBlock(created.check_id, view.game, "spectator", "created"),
  );
  panel.hidden = false;
  panel.focus();
  announce(`${what} is ready. Its links are below.`);
}

// ---- links: copy, QR code, re-issue ----------------------------------------------------------

const ROLE_WORDS = {
  player: { title: "Player's link", hint: "Only the player should have it: it lets them play." },
  spectator: { title: "Spectators' link", hint: "Anyone with it can watch, not play." },
};

function linkBlock(checkId, game, role, where) {
  const id = `${where}-${role}-${checkId}`;
  const known = links()[checkId]?.[role];
  const box = el("div", { class: "link", "data-role": role });
  const input = el("input", { id: `${id}-url`, readonly: true, class: "link-url", "aria-describedby": `${id}-hint` });
  const status = el("p", { class: "hint link-status", role: "status" });
  const copy = el("button", { type: "button", class: "small copy", text: "Copy" });
  const qr = el("button", { type: "button", class: "small show-qr", "aria-expanded": "false", "aria-controls": `${id}-qr`, text: "QR code" });
  const renew = el("button", { type: "button", class: "small renew", text: "New link" });
  const figure = el("figure", { id: `${id}-qr`, class: "qr-box", hidden: true });
  const show = (token) => {
    input.value = token ? playLink(checkId, game, token) : "";
    input.placeholder = token ? "" : "Not known on this page: make a new link";
    copy.hidden = qr.hidden = !token;
    figure.hidden = true;
    qr.setAttribute("aria-expanded", "false");
  };
  show(known);
  copy.addEventListener("click", async () => {
    const text = input.value;
    let done = false;
    try {
      await navigator.clipboard.writeText(text);
      done = true;
    } catch {
      input.select();
      done = document.execCommand?.("copy") ?? false;
    }
    status.textContent = done ? "Copied." : "Select the link and copy it.";
  });
  qr.addEventListener("click", () => {
    const open = figure.hidden;
    figure.hidden = !open;
    qr.setAttribute("aria-expanded", String(open));
    if (open) {
      figure.replaceChildren(
        qrSvg(input.value, `QR code of the ${ROLE_WORDS[role].title.toLowerCase()}`),
        el("figcaption", { text: `Scan it with a phone to open the ${role === "player" ? "player's page" : "view"}.` }),
      );
    }
  });
  renew.addEventListener("click", async () => {
    const really = window.confirm(
      `Make a new ${ROLE_WORDS[role].title.toLowerCase()}? The old one stops working at once.`,
    );
    if (!really) return;
    try {
      const answer = await api("POST", `/v1/checks/${encodeURIComponent(checkId)}/tokens/${role}`);
      remember(checkId, { [role]: answer.token });
      show(answer.token);
      refreshLinks(checkId);
      status.textContent = "New link made: the old one no longer works.";
    } catch (error) {
      status.textContent = `No new link: ${problemText(error)}`;
    }
  });
  box.append(
    el("label", { for: `${id}-url`, text: ROLE_WORDS[role].title }),
    el("div", { class: "link-row" }, input, copy, qr, renew),
    el("p", { id: `${id}-hint`, class: "hint", text: ROLE_WORDS[role].hint }),
    status,
    figure,
  );
  box.refresh = () => show(links()[checkId]?.[role]);
  return box;
}

/** After a re-issue: every other link block of the check shows the new link. */
function refreshLinks(checkId) {
  for (const box of document.querySelectorAll(".link")) {
    if (box.closest(`[data-check="${CSS.escape(checkId)}"]`) || box.closest("#created")) {
      box.refresh?.();
    }
  }
  state.checks.get(checkId)?.update();
}

// ---- the list of checks ----------------------------------------------------------------------

function filters() {
  return { status: $("filter-status").value, label: $("filter-label").value.trim() };
}

function matches(summary) {
  const { status, label } = filters();
  if (status && summary.status !== status) return false;
  if (label) {
    const text = `${summary.label || ""}\n${summary.character || ""}`.toLowerCase();
    if (!text.includes(label.toLowerCase())) return false;
  }
  return true;
}

async function loadChecks({ more = false } = {}) {
  const { status, label } = filters();
  const query = new URLSearchParams({ limit: String(PAGE_SIZE) });
  if (status) query.set("status", status);
  if (label) query.set("label", label);
  if (more && state.cursor) query.set("cursor", state.cursor);
  $("list-problem").textContent = "";
  $("check-list").setAttribute("aria-busy", "true"); // (until the server's page is in)
  try {
    const page = await api("GET", `/v1/checks?${query}`);
    // What the live list brought while the page was on its way may be newer than the page.
    const before = more ? new Map() : new Map(state.checks);
    if (!more) {
      state.checks.clear();
      $("check-list").replaceChildren();
    }
    for (const summary of page.checks) {
      const live = before.get(summary.check_id)?.summary;
      upsert(live && live.version > summary.version ? live : summary, { append: true });
      before.delete(summary.check_id);
    }
    const oldest = page.checks[page.checks.length - 1]?.created_at || "";
    for (const { summary } of before.values()) {
      if (!page.next_cursor || summary.created_at >= oldest) upsert(summary);
    }
    state.cursor = page.next_cursor;
    $("more").hidden = !page.next_cursor;
  } catch (error) {
    if (error instanceof ApiError && (error.status === 401 || error.status === 403)) {
      signOut();
      return;
    }
    $("list-problem").textContent = `Cannot list your checks: ${problemText(error)}`;
  }
  $("check-list").setAttribute("aria-busy", "false");
  $("list-empty").hidden = state.checks.size > 0;
}

/** Show a summary (newer versions replace older ones). */
function upsert(summary, { append = false } = {}) {
  const known = state.checks.get(summary.check_id);
  if (known && known.summary.version >= summary.version) return false;
  if (!matches(summary)) {
    if (known) {
      known.item.remove();
      state.checks.delete(summary.check_id);
    }
    return false;
  }
  if (known) {
    known.summary = summary;
    known.update();
    return true;
  }
  const entry = checkItem(summary);
  state.checks.set(summary.check_id, entry);
  const list = $("check-list");
  if (append) list.append(entry.item);
  else {
    const later = [...list.children].find(
      (li) => (state.checks.get(li.dataset.check)?.summary.created_at || "") < summary.created_at,
    );
    list.insertBefore(entry.item, later || null);
  }
  $("list-empty").hidden = true;
  return true;
}

function resultWords(s) {
  if (s.status === "in_progress") return null;
  if (s.status === "cancelled") return "no result";
  const tier = s.tier_text || (s.status === "won" ? "Success" : "Failure");
  return s.degree === null || s.degree === undefined ? tier : `${tier} (degree ${s.degree > 0 ? "+" : ""}${s.degree})`;
}

function checkItem(summary) {
  const id = summary.check_id;
  const entry = { summary };
  const title = el("h3", { class: "check-title" });
  const status = el("span", { class: "status" });
  const moves = el("span", { class: "moves" });
  const result = el("span", { class: "result-words" });
  const game = el("p", { class: "hint check-game" });
  const linksButton = el("button", { type: "button", class: "small", "aria-expanded": "false", text: "Links" });
  const watch = el("a", { class: "button small watch", target: "_blank", rel: "noopener noreferrer", text: "Watch" });
  const watchNew = el("button", { type: "button", class: "small watch-new", text: "Watch" });
  const cancel = el("button", { type: "button", class: "small danger cancel", text: "Cancel…" });
  const recordButton = el("button", { type: "button", class: "small record-button", "aria-expanded": "false", text: "Record" });
  const linksPanel = el("div", { class: "links-panel", hidden: true });
  const recordPanel = el("div", { class: "record-panel", hidden: true, "aria-live": "polite" });
  const item = el(
    "li",
    { class: "check", "data-check": id },
    title,
    el("p", { class: "check-state" }, status, moves, result),
    game,
    el("div", { class: "actions" }, linksButton, watch, watchNew, cancel, recordButton),
    linksPanel,
    recordPanel,
  );
  entry.item = item;
  entry.update = () => {
    const s = entry.summary;
    item.dataset.state = s.status;
    title.textContent = s.label || "A check";
    if (s.character) title.append(el("span", { class: "character", text: ` · ${s.character}` }));
    status.textContent = STATUS_WORDS[s.status] || s.status;
    status.dataset.status = s.status;
    const hints = s.hints_used ? `, ${s.hints_used} ${s.hints_used === 1 ? "hint" : "hints"}` : "";
    moves.textContent = ` · ${s.moves_made} ${s.moves_made === 1 ? "move" : "moves"}${hints}`;
    const words = resultWords(s);
    result.textContent = words ? ` · ${words}` : "";
    result.dataset.tier = s.tier || "";
    const when = new Date(s.created_at);
    game.textContent = `${state.games.get(s.game)?.title || s.game} · made ${when.toLocaleString()}`;
    const spectator = links()[id]?.spectator;
    watch.hidden = !spectator;
    watchNew.hidden = Boolean(spectator);
    if (spectator) watch.href = playLink(id, s.game, spectator);
    watch.setAttribute("aria-label", `Watch ${s.label || "the check"} (opens a new tab)`);
    cancel.hidden = s.status !== "in_progress";
    recordButton.hidden = s.status === "in_progress";
    if (s.status !== "in_progress" && !recordPanel.hidden && !recordPanel.dataset.loaded) showRecord();
  };
  linksButton.addEventListener("click", () => {
    const open = linksPanel.hidden;
    linksPanel.hidden = !open;
    linksButton.setAttribute("aria-expanded", String(open));
    if (open && !linksPanel.childElementCount) {
      linksPanel.append(linkBlock(id, entry.summary.game, "player", "list"), linkBlock(id, entry.summary.game, "spectator", "list"));
    }
  });
  watchNew.addEventListener("click", async () => {
    const really = window.confirm(
      "This page does not know the spectators' link of this check. Make a new one and open it? " +
        "An older spectators' link stops working.",
    );
    if (!really) return;
    const opened = window.open("about:blank", "_blank");
    try {
      const answer = await api("POST", `/v1/checks/${encodeURIComponent(id)}/tokens/spectator`);
      remember(id, { spectator: answer.token });
      refreshLinks(id);
      if (opened) {
        opened.opener = null;
        opened.location.href = playLink(id, entry.summary.game, answer.token);
      }
    } catch (error) {
      opened?.close();
      announce(`No spectators' link: ${problemText(error)}`);
    }
  });
  cancel.addEventListener("click", () => askCancel(entry));
  async function showRecord() {
    recordPanel.dataset.loaded = "1";
    recordPanel.replaceChildren(el("p", { text: "Loading the record…" }));
    try {
      const record = await api("GET", `/v1/checks/${encodeURIComponent(id)}/record`);
      recordPanel.replaceChildren(await recordView(record, links()[id]?.commitment));
    } catch (error) {
      delete recordPanel.dataset.loaded;
      recordPanel.replaceChildren(el("p", { class: "problem-text", text: `No record: ${problemText(error)}` }));
    }
  }
  recordButton.addEventListener("click", () => {
    const open = recordPanel.hidden;
    recordPanel.hidden = !open;
    recordButton.setAttribute("aria-expanded", String(open));
    if (open && !recordPanel.dataset.loaded) showRecord();
  });
  entry.update();
  return entry;
}

// ---- the revealed record and its commitment --------------------------------------------------

/** Canonical JSON (docs/sessions.md#the-commitment): keys sorted at every level, no spaces. */
export function canonicalJson(value) {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(",")}}`;
}

async function sha256Hex(text) {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

async function recordView(record, published) {
  const game = record.record;
  const box = el("div", { class: "record-view" });
  const verdict = el("p", { class: "verdict", role: "status" });
  if (!crypto.subtle) {
    verdict.textContent =
      "This page cannot check the commitment here (the browser allows it only over HTTPS). " +
      "Use skillcheck verify on the downloaded record.";
  } else {
    const committed = { game: game.game, params: game.params, seed: game.seed, salt: record.salt };
    if (record.seed_chosen === true) committed.seed_chosen = true; // docs/sessions.md: bound only when chosen
    const preimage = canonicalJson(committed);
    const actual = await sha256Hex(preimage);
    const same = actual === String(record.commitment).toLowerCase();
    const asPublished = published === undefined || published === record.commitment;
    if (same && asPublished) {
      verdict.textContent =
        "Commitment verified: this deal is the one fixed when the check was made." +
        (published ? " It matches the commitment this page saw at creation." : "") +
        (record.seed_chosen === true ? " You chose this deal's seed, and the record says so." : "");
      verdict.dataset.verified = "true";
    } else {
      verdict.textContent = same
        ? "Does not match: the record is not the one whose commitment this page saw at creation."
        : "Does not match: the revealed deal does not hash to the commitment.";
      verdict.dataset.verified = "false";
    }
  }
  const download = el("a", { download: `record-${record.check_id}.json`, text: "Download the record (JSON)" });
  download.href = URL.createObjectURL(new Blob([JSON.stringify(record, null, 2)], { type: "application/json" }));
  const outcome = game.outcome ? game.outcome.summary : "No outcome: the check was cancelled.";
  box.append(
    verdict,
    el("p", { text: outcome }),
    el(
      "details",
      {},
      el("summary", { text: "Details" }),
      el(
        "dl",
        { class: "facts" },
        el("div", {}, el("dt", { text: "Seed" }), el("dd", { text: String(game.seed) })),
        el("div", {}, el("dt", { text: "Salt" }), el("dd", {}, el("code", { text: record.salt }))),
        el("div", { class: "wide" }, el("dt", { text: "Commitment" }), el("dd", {}, el("code", { text: record.commitment }))),
        el("div", {}, el("dt", { text: "Moves" }), el("dd", { text: (game.moves || []).join(" ") || "none" })),
        record.cancel_reason
          ? el("div", {}, el("dt", { text: "Why cancelled" }), el("dd", { text: record.cancel_reason }))
          : null,
      ),
      el("p", {}, download, document.createTextNode(" — check it yourself with "), el("code", { text: "skillcheck verify" }), document.createTextNode(".")),
    ),
  );
  return box;
}

// ---- cancelling ------------------------------------------------------------------------------

function askCancel(entry) {
  const dialog = $("cancel-dialog");
  $("cancel-what").textContent = entry.summary.label ? `“${entry.summary.label}”` : "";
  $("cancel-reason").value = "";
  dialog.returnValue = "";
  dialog.onclose = async () => {
    if (dialog.returnValue !== "cancel") return;
    const reason = $("cancel-reason").value.trim();
    try {
      const view = await api("POST", `/v1/checks/${encodeURIComponent(entry.summary.check_id)}/cancel`, {
        body: reason ? { reason } : {},
      });
      upsert(summaryOfView(view));
      announce(`${entry.summary.label || "The check"} is cancelled.`);
    } catch (error) {
      announce(`Not cancelled: ${problemText(error)}`);
      $("list-problem").textContent = `Not cancelled: ${problemText(error)}`;
    }
    entry.item.querySelector(".record-button")?.focus();
  };
  dialog.showModal();
}

// ---- the live list ---------------------------------------------------------------------------

class ListFeed {
  constructor(onSummary, onMode) {
    this.onSummary = onSummary;
    this.onMode = onMode;
    this.lastId = null;
    this.controller = new AbortController();
    this.stopped = false;
  }

  stop() {
    this.stopped = true;
    this.controller.abort();
  }

  async run() {
    let failures = 0;
    while (!this.stopped) {
      const result = await this.once();
      if (this.stopped) return;
      if (result === "refused") {
        this.onMode("stopped");
        return;
      }
      failures = result === "failed" ? failures + 1 : 0;
      this.onMode("retrying");
      await sleep(Math.min(1000 * 2 ** failures, 15000), this.controller.signal);
    }
  }

  async once() {
    const headers = { Accept: "text/event-stream", Authorization: `Bearer ${state.key}` };
    if (this.lastId) headers["Last-Event-ID"] = this.lastId;
    let response;
    try {
      response = await fetch(`${root}/v1/checks/stream`, {
        headers,
        cache: "no-store",
        credentials: "omit",
        referrerPolicy: "no-referrer",
        signal: this.controller.signal,
      });
    } catch {
      return "failed";
    }
    if ([401, 403].includes(response.status)) return "refused";
    const type = response.headers.get("content-type") || "";
    if (!response.ok || !type.includes("text/event-stream") || !response.body) {
      await response.body?.cancel().catch(() => {});
      return "failed";
    }
    this.onMode("live");
    const parser = new SseParser((message) => {
      let summary;
      try {
        summary = JSON.parse(message.data);
      } catch {
        return;
      }
      if (message.id) this.lastId = message.id;
      this.onSummary(message.event, summary);
    });
    await readStream(response, parser); // dropped: reconnect with Last-Event-ID
    return "ended";
  }
}

function startFeed() {
  state.feed?.stop();
  const live = $("live");
  state.feed = new ListFeed(
    (kind, summary) => {
      if (!summary || typeof summary.check_id !== "string") return;
      upsert(summary);
      const over = kind === "ended" || kind === "cancelled";
      if (over && state.checks.has(summary.check_id) && !state.announced.has(summary.check_id)) {
        state.announced.add(summary.check_id);
        const words = resultWords(summary);
        announce(`${summary.label || "A check"}: ${STATUS_WORDS[summary.status]}${words ? `, ${words}` : ""}.`);
      }
    },
    (mode) => {
      live.dataset.mode = mode;
      live.textContent =
        mode === "live" ? "Live: the list updates by itself" : mode === "retrying" ? "Reconnecting…" : "Not live";
    },
  );
  state.feed.run();
}

// ---- wiring ----------------------------------------------------------------------------------

function main() {
  $("signin-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const key = $("gm-key").value.trim();
    if (!key) {
      $("signin-problem").textContent = "Enter your GM key.";
      return;
    }
    // A header carries printable ASCII only: the browser would refuse to send anything else,
    // which fetch reports like a network failure. No GM key holds such a character.
    if (!/^[\x21-\x7e]+$/.test(key)) {
      $("signin-problem").textContent =
        "That is not a GM key of this server: a GM key has no spaces, accents or symbols " +
        "beyond plain ASCII. Check it and try again.";
      return;
    }
    signIn(key);
  });
  $("sign-out").addEventListener("click", signOut);
  $("game").addEventListener("change", () => chooseGame($("game").value));
  $("param-fields").addEventListener("input", () => {
    forgetCalibration();
    scheduleOdds();
  });
  $("param-fields").addEventListener("change", () => {
    forgetCalibration();
    showApplicable();
    scheduleOdds();
  });
  $("create-form").addEventListener("submit", createCheck);
  $("calibrate-run").addEventListener("click", calibrate);
  $("careful-run").addEventListener("click", runCareful);
  holdOddsRoom();
  let filterTimer = null;
  const refilter = () => {
    clearTimeout(filterTimer);
    filterTimer = setTimeout(() => loadChecks(), 300);
  };
  $("filter-status").addEventListener("change", refilter);
  $("filter-label").addEventListener("input", refilter);
  $("filter-form").addEventListener("submit", (event) => {
    event.preventDefault();
    loadChecks();
  });
  $("more").addEventListener("click", () => loadChecks({ more: true }));
  const saved = sessionStorage.getItem(KEY_STORE);
  if (saved) signIn(saved, { quiet: true });
  else showSignIn();
}

main();
