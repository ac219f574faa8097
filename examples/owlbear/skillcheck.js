// The extension's logic, without the DOM and without the Owlbear Rodeo SDK: the skillcheck API
// (games, checks, the GM's live list), the check form read from a game's parameters, the private
// delivery of a player's link, the room's result list and the result announcement.
// popover.js and background.js import it in the browser; tests/test_api_examples.py imports it
// under Node 20 (fetch, Web Crypto and ReadableStream are globals there) against a real server.
//
// Owlbear Rodeo facts are cited with the tags of docs/vtt-owlbear.md ("Sources"), e.g. [O4].

/** Prefix of every key and channel we use: other extensions share the room's metadata [O7]. */
export const NS = "org.skillcheck.owlbear";
/** Room metadata: the room's latest checks and their results (everyone reads it) [O6]. */
export const ROOM_KEY = `${NS}/checks`;
/** Player metadata: the player's public key, so the GM can seal a link only they can open. */
export const PLAYER_KEY = `${NS}/public-key`;
/** Broadcast channels [O4]: a sealed player link; a finished check's result. */
export const LINK_CHANNEL = `${NS}/link`;
export const RESULT_CHANNEL = `${NS}/result`;
/** Room metadata holds under 16 kB for ALL extensions together [O6]: we take at most this. */
export const ROOM_BUDGET_BYTES = 4096;
/** How many checks the room list keeps at most (fewer when the budget is reached first). */
export const ROOM_LIST_MAX = 12;

// ---- the server's address --------------------------------------------------------------------

/**
 * The server's base URL as the GM typed it, cleaned ("https://checks.example.org"), or an Error
 * in plain words. HTTPS is required except on this machine (loopback), because Owlbear Rodeo is
 * served over HTTPS and the browser blocks http:// requests and frames from it (mixed content).
 */
export function serverUrl(text) {
  let url;
  try {
    url = new URL(String(text).trim());
  } catch {
    throw new Error("The server address is not a web address (it starts with https://).");
  }
  const loopback = ["localhost", "127.0.0.1", "[::1]"].includes(url.hostname);
  if (url.protocol !== "https:" && !(url.protocol === "http:" && loopback)) {
    throw new Error("The server address must start with https:// (Owlbear Rodeo runs on HTTPS).");
  }
  if (url.search || url.hash || url.username || url.password) {
    throw new Error("The server address is only the server's address, without ?, # or a login.");
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
}

/** The player's (or a spectator's) page; the token rides in the fragment, never sent to a server,
 *  and the game in the query, a hint the page prepares that game's table from. */
export function playUrl(server, checkId, game, token) {
  return `${server}/play/${encodeURIComponent(checkId)}?game=${encodeURIComponent(game)}#token=${token}`;
}

/** Whether `url` is a page of a check on a skillcheck server with a player's token. */
export function isPlayerLink(url) {
  try {
    const parsed = new URL(url);
    const loopback = ["localhost", "127.0.0.1", "[::1]"].includes(parsed.hostname);
    const secure = parsed.protocol === "https:" || (parsed.protocol === "http:" && loopback);
    return (
      secure &&
      /\/play\/[^/]+$/.test(parsed.pathname) &&
      /^(\?game=[\w-]+)?$/.test(parsed.search) &&
      /^#token=sc_play_[\w-]+$/.test(parsed.hash)
    );
  } catch {
    return false;
  }
}

// ---- the API ---------------------------------------------------------------------------------

/** An answer that is not 2xx, with the problem the server sent (RFC 9457: title, detail, code). */
export class ApiError extends Error {
  constructor(status, problem) {
    const body = problem && typeof problem === "object" ? problem : {};
    super(body.detail || body.title || (status ? `the server answered HTTP ${status}` : "no answer"));
    this.name = "ApiError";
    this.status = status;
    this.problem = body;
    this.code = body.code || null;
    this.field = body.field || null;
  }
}

export class Api {
  /** server: from serverUrl(); key: the GM key (or a check's token); fetchImpl for tests. */
  constructor(server, key, fetchImpl = (...args) => globalThis.fetch(...args)) {
    this.server = server;
    this.key = key;
    this.fetch = fetchImpl; // a bare `fetch` called as a method would throw "Illegal invocation"
  }

  async request(method, path, body, signal) {
    const headers = { Accept: "application/json" };
    if (this.key) headers.Authorization = `Bearer ${this.key}`;
    const init = { method, headers, cache: "no-store", credentials: "omit", referrerPolicy: "no-referrer", signal };
    if (body !== undefined) {
      headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    let response;
    try {
      response = await this.fetch(`${this.server}${path}`, init);
    } catch (error) {
      if (error.name === "AbortError") throw error;
      // A CORS refusal, a wrong address, mixed content or a server that is down all look alike.
      throw new ApiError(0, {
        title: "No connection",
        detail:
          "The server could not be reached. Check its address, that it runs on HTTPS, and that " +
          "it lets this extension in (SKILLCHECK_CORS_ORIGINS).",
      });
    }
    const text = await response.text();
    let data = null;
    try {
      data = text ? JSON.parse(text) : null;
    } catch {
      data = null;
    }
    if (!response.ok) throw new ApiError(response.status, data);
    return data;
  }

  games() {
    return this.request("GET", "/v1/games");
  }

  game(name) {
    return this.request("GET", `/v1/games/${encodeURIComponent(name)}`);
  }

  /** Checks this GM key made, newest first (GET /v1/checks). */
  checks(limit = 50) {
    return this.request("GET", `/v1/checks?limit=${limit}`);
  }

  create(body) {
    return this.request("POST", "/v1/checks", body);
  }
}

// ---- the check form --------------------------------------------------------------------------

/** "move_limit" -> "Move limit" (parameter names are the game's own words). */
export function humanName(name) {
  const words = String(name).replace(/_/g, " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function valueAt(object, path) {
  let value = object;
  for (const part of path) {
    if (value === null || typeof value !== "object" || !(part in value)) return undefined;
    value = value[part];
  }
  return value;
}

/** Each parameter's starting value: the game's first example (its demo), else its default. */
export function startValues(detail) {
  const example = detail.examples?.[0]?.params || {};
  return Object.fromEntries(
    detail.parameters.map((spec) => {
      const value = valueAt(example, spec.path);
      return [spec.name, value === undefined ? spec.default : value];
    }),
  );
}

/**
 * Whether `spec` goes with the form's raw values: a parameter with `applies_if` (a quota
 * check's quota) only while the parameter it names has one of its values; the form hides the
 * others and leaves them out, as the GM's page does.
 */
export function applies(spec, raw) {
  const condition = spec.applies_if;
  return !condition || condition.values.includes(String(raw[condition.parameter] ?? ""));
}

/**
 * The nested `params` of POST /v1/checks from the form's raw values (`raw[name]`: the text of a
 * field, or a boolean for a checkbox), following the game's parameters (GET /v1/games/{name}),
 * as the GM's page does: { params } or { error, field } in plain words.
 */
export function readParams(parameters, raw) {
  const params = {};
  for (const spec of parameters) {
    if (!applies(spec, raw)) continue; // (hidden: another variant's option)
    const given = raw[spec.name];
    let value;
    if (spec.kind === "bool" && !spec.optional) value = Boolean(given);
    else if (spec.kind === "bool") value = given === "" || given == null ? null : given === "true";
    else if (spec.kind === "int") {
      const text = String(given ?? "").trim();
      if (text === "") {
        if (!spec.optional) return { error: `${humanName(spec.name)} is needed.`, field: spec.name };
        value = null;
      } else if (!/^-?\d+$/.test(text)) {
        return { error: `${humanName(spec.name)} must be a whole number.`, field: spec.name };
      } else value = Number.parseInt(text, 10);
    } else if (spec.kind === "cards") {
      const codes = String(given ?? "").replace(/,/g, " ").split(/\s+/).filter(Boolean);
      value = codes.length ? codes : null;
    } else value = given === "" || given == null ? null : String(given);
    if (value === null) continue;
    let target = params;
    for (const part of spec.path.slice(0, -1)) {
      target[part] = target[part] && typeof target[part] === "object" ? target[part] : {};
      target = target[part];
    }
    target[spec.path[spec.path.length - 1]] = value;
  }
  return { params };
}

/** The token's name as the map shows it: its label text, else the item's name [O10]. */
export function tokenName(item) {
  const label = item?.text?.plainText?.trim();
  return label || String(item?.name ?? "").trim();
}

/**
 * The player a token most likely belongs to: the one the GM chose for this token last time,
 * else the player who put it on the map, else the one whose name is the token's name.
 */
export function playerForToken(item, players, remembered = {}) {
  const playing = players.filter((p) => p.role === "PLAYER");
  const byId = (id) => playing.find((p) => p.id === id);
  const name = tokenName(item).toLowerCase();
  return (
    byId(remembered[item.id]) ||
    byId(item.createdUserId) ||
    playing.find((p) => p.name.trim().toLowerCase() === name) ||
    null
  );
}

/** The body of POST /v1/checks. `hints` is sent only when the GM allows hints. */
export function checkBody({ game, params, label, character, hints = false, metadata = {} }) {
  const body = { game, params, metadata };
  if (label) body.label = label;
  if (character) body.character = character;
  if (hints) body.hints = true;
  return body;
}

// ---- the player's link, sealed for that player only -------------------------------------------
//
// A broadcast reaches every client of the room [O4]: a player could read another's link in the
// browser's developer tools. So each player's extension keeps an ECDH key pair on its device and
// publishes the public half in its player metadata; the GM seals the link with it (ECDH P-256 →
// AES-256-GCM, a fresh key pair per link) and only the addressee's extension can open it.

const ECDH = { name: "ECDH", namedCurve: "P-256" };

function b64(bytes) {
  let text = "";
  for (const byte of new Uint8Array(bytes)) text += String.fromCharCode(byte);
  return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function unb64(text) {
  const plain = atob(String(text).replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(plain, (c) => c.charCodeAt(0));
}

/** A new key pair as JWKs: { publicJwk, privateJwk, id } (id: a short name of the public key). */
export async function makeKeyPair() {
  const pair = await crypto.subtle.generateKey(ECDH, true, ["deriveKey"]);
  const publicJwk = await crypto.subtle.exportKey("jwk", pair.publicKey);
  const privateJwk = await crypto.subtle.exportKey("jwk", pair.privateKey);
  return { publicJwk: { kty: publicJwk.kty, crv: publicJwk.crv, x: publicJwk.x, y: publicJwk.y }, privateJwk, id: await keyId(publicJwk) };
}

/** A short fingerprint of a public key (the GM's popover shows nothing of it; it tells keys apart). */
export async function keyId(publicJwk) {
  const text = `${publicJwk.crv}:${publicJwk.x}:${publicJwk.y}`;
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return b64(digest).slice(0, 16);
}

async function sharedKey(privateKey, publicKey, usage) {
  return crypto.subtle.deriveKey({ name: "ECDH", public: publicKey }, privateKey, { name: "AES-GCM", length: 256 }, false, [usage]);
}

/** Seal `payload` (JSON) for the holder of `publicJwk`: { epk, iv, ct }, all text. */
export async function seal(publicJwk, payload) {
  const theirs = await crypto.subtle.importKey("jwk", { ...publicJwk, ext: true }, ECDH, false, []);
  const mine = await crypto.subtle.generateKey(ECDH, true, ["deriveKey"]);
  const key = await sharedKey(mine.privateKey, theirs, "encrypt");
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const plain = new TextEncoder().encode(JSON.stringify(payload));
  const ct = await crypto.subtle.encrypt({ name: "AES-GCM", iv }, key, plain);
  const epk = await crypto.subtle.exportKey("jwk", mine.publicKey);
  return { epk: { kty: epk.kty, crv: epk.crv, x: epk.x, y: epk.y }, iv: b64(iv), ct: b64(ct) };
}

/** Open what seal() made for our key pair; throws if it was not sealed for us or was altered. */
export async function unseal(privateJwk, sealed) {
  const mine = await crypto.subtle.importKey("jwk", privateJwk, ECDH, false, ["deriveKey"]);
  const theirs = await crypto.subtle.importKey("jwk", { ...sealed.epk, ext: true }, ECDH, false, []);
  const key = await sharedKey(mine, theirs, "decrypt");
  const plain = await crypto.subtle.decrypt({ name: "AES-GCM", iv: unb64(sealed.iv) }, key, unb64(sealed.ct));
  return JSON.parse(new TextDecoder().decode(plain));
}

/**
 * The broadcast that carries a player's link: { to, key, sealed } where only `to` (a player id)
 * and the key's fingerprint are readable. `player` is an entry of OBR.party.getPlayers() [O1];
 * null when that player's extension has published no key (then send the link another way).
 */
export async function linkMessage(player, { checkId, url, label, character }) {
  const published = player?.metadata?.[PLAYER_KEY];
  if (!published?.jwk || !published?.id) return null;
  const sealed = await seal(published.jwk, { check_id: checkId, url, label, character });
  return { to: player.id, key: published.id, sealed };
}

/** The link in a message from linkMessage(), if it is for `me` and opens with our key pair. */
export async function openLink(message, me, keys) {
  if (!message || message.to !== me || message.key !== keys.id || !message.sealed) return null;
  let link;
  try {
    link = await unseal(keys.privateJwk, message.sealed);
  } catch {
    return null; // not sealed with our key, or altered on the way
  }
  if (!link || typeof link.check_id !== "string" || !isPlayerLink(link.url)) return null;
  return {
    check_id: link.check_id,
    url: link.url,
    label: typeof link.label === "string" ? link.label : "",
    character: typeof link.character === "string" ? link.character : "",
  };
}

// ---- results and the room's list ---------------------------------------------------------------

const STATUS_WORDS = { in_progress: "playing", won: "success", lost: "failure", cancelled: "called off" };

/**
 * What the room learns when a check ends, from the check's summary (GET /v1/checks and its
 * stream): { check_id, label, character, status, result, tier, tier_text, degree }.
 * `result` is the plain word: "Critical success", "Success", "Failure", "Critical failure",
 * "Called off".
 */
export function resultOf(summary) {
  const cancelled = summary.status === "cancelled";
  const won = summary.status === "won";
  return {
    check_id: summary.check_id,
    label: summary.label ?? "",
    character: summary.character ?? "",
    status: summary.status,
    result: cancelled ? "Called off" : summary.tier_text || (won ? "Success" : "Failure"),
    tier: summary.tier ?? null,
    tier_text: summary.tier_text ?? null,
    degree: summary.degree ?? null,
  };
}

/** One line for a notification: "Mira — Pick the lock: Critical success". */
export function resultText(result) {
  const who = result.character || "A character";
  const what = result.label ? ` — ${result.label}` : "";
  return `${who}${what}: ${result.result}`;
}

/** An entry of the room's list, the little the whole room may read (no token but a watch link). */
export function roomEntry({ check_id, label, character, watch = null, created_at }, result = null) {
  return {
    check_id,
    label: String(label ?? "").slice(0, 80),
    character: String(character ?? "").slice(0, 60),
    status: result ? result.status : "in_progress",
    result: result ? result.result : null,
    degree: result ? result.degree : null,
    watch,
    at: created_at,
  };
}

/** Words for an entry's state: "playing", "Success"... */
export function entryWords(entry) {
  return entry.result || STATUS_WORDS[entry.status] || entry.status;
}

/** JSON size of a value in bytes (what Owlbear Rodeo counts against the 16 kB [O6]). */
export function jsonBytes(value) {
  return new TextEncoder().encode(JSON.stringify(value)).length;
}

/** The list with `entries` put in (replacing the same check), newest first, within the budget. */
export function mergeRoomList(list, entries, budget = ROOM_BUDGET_BYTES) {
  const byId = new Map((Array.isArray(list) ? list : []).filter((e) => e && e.check_id).map((e) => [e.check_id, e]));
  for (const entry of entries) byId.set(entry.check_id, { ...byId.get(entry.check_id), ...entry });
  const merged = [...byId.values()].sort((a, b) => String(b.at ?? "").localeCompare(String(a.at ?? "")));
  const kept = merged.slice(0, ROOM_LIST_MAX);
  while (kept.length && jsonBytes(kept) > budget) kept.pop();
  return kept;
}

// ---- following the GM's checks ------------------------------------------------------------------

/** Reads Server-Sent Events from text chunks (the WHATWG event stream format). */
export class SseParser {
  constructor(onMessage) {
    this.onMessage = onMessage;
    this.buffer = "";
    this.data = [];
    this.event = "";
    this.id = null;
  }

  push(chunk) {
    this.buffer += chunk;
    const cut = this.buffer.endsWith("\r") ? this.buffer.length - 1 : this.buffer.length;
    const lines = this.buffer.slice(0, cut).split(/\r\n|\r|\n/);
    this.buffer = lines.pop() + this.buffer.slice(cut);
    for (const line of lines) this.line(line);
  }

  line(line) {
    if (line === "") {
      if (this.data.length) this.onMessage({ id: this.id, event: this.event || "message", data: this.data.join("\n") });
      this.data = [];
      this.event = "";
      return;
    }
    if (line.startsWith(":")) return; // keep-alive
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") this.data.push(value);
    else if (field === "event") this.event = value;
    else if (field === "id") this.id = value;
  }
}

const sleep = (ms, signal) =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    });
  });

/**
 * Follows the GM's checks (GET /v1/checks/stream with the GM key, read with fetch because
 * EventSource cannot send Authorization) and calls onEnd(summary) for each check that ended or
 * was cancelled. After (re)connecting it also reads GET /v1/checks, so a check that ended while
 * the GM's browser was closed is reported too; the caller keeps which ones it announced.
 * onMode gets "live", "retrying" or "stopped" (the key was refused).
 */
export class ResultFollower {
  constructor(api, { onEnd, onMode = () => {} }) {
    this.api = api;
    this.onEnd = onEnd;
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

  deliver(summary) {
    if (summary && typeof summary.check_id === "string" && ["won", "lost", "cancelled"].includes(summary.status)) {
      this.onEnd(summary);
    }
  }

  async catchUp() {
    const page = await this.api.checks(50);
    for (const summary of page.checks) this.deliver(summary);
  }

  async once() {
    const headers = { Accept: "text/event-stream", Authorization: `Bearer ${this.api.key}` };
    if (this.lastId) headers["Last-Event-ID"] = this.lastId;
    let response;
    try {
      response = await this.api.fetch(`${this.api.server}/v1/checks/stream`, {
        headers, cache: "no-store", credentials: "omit", referrerPolicy: "no-referrer", signal: this.controller.signal,
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
    // The stream replays nothing without Last-Event-ID: open it, then read the list (docs/api.md).
    if (!this.lastId) {
      try {
        await this.catchUp();
      } catch {
        // the stream still reports what ends from now on; the next reconnection catches up
      }
    }
    const parser = new SseParser((message) => {
      if (message.id) this.lastId = message.id;
      let summary;
      try {
        summary = JSON.parse(message.data);
      } catch {
        return;
      }
      if (message.event === "ended" || message.event === "cancelled" || message.event === "changed") this.deliver(summary);
    });
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        parser.push(value);
      }
    } catch {
      // dropped: reconnect with Last-Event-ID
    }
    return "ended";
  }
}
