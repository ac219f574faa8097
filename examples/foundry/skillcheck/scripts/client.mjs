// The skillcheck HTTP API as the GM's Foundry client calls it (docs/api.md). No Foundry globals
// here: tested directly under Node against a real server. Every request is a plain `fetch` from
// the Foundry page's origin, so the server must answer CORS for that origin [F42][F43]; the GM
// key travels only in the Authorization header, never in a URL.

/** An answer that is not 2xx, with the RFC 9457 problem the server sent. */
export class ApiError extends Error {
  constructor(status, problem) {
    const body = problem && typeof problem === "object" ? problem : {};
    super(`${status} ${body.code ?? ""}: ${body.detail ?? body.title ?? ""}`.trim());
    this.name = "ApiError";
    this.status = status;
    this.problem = body;
    this.code = body.code ?? null;
    this.field = body.field ?? null;
  }
}

/** fetch itself failed: no answer the page may read (server down, CORS refused, mixed content,
 * a certificate error). Browsers give scripts only "TypeError: Failed to fetch" [F42]. */
export class NetworkError extends Error {
  constructor(url, cause) {
    super(`could not reach ${url}: ${cause?.message ?? cause}`);
    this.name = "NetworkError";
    this.url = url;
    this.cause = cause;
  }
}

/** Loopback hosts count as potentially trustworthy: no mixed-content block for them [W2]. */
export function isLoopback(hostname) {
  const host = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  return host === "localhost" || host.endsWith(".localhost") || host === "::1" || /^127\./.test(host);
}

/** Check the server address the GM typed: `{url}` (normalised, no trailing slash) or
 * `{problem}` ("NoUrl", "BadUrl", "MixedContent") naming the en.json Notify key. An https://
 * Foundry can only call an https:// API [W1][F46]; we ask for https:// everywhere except a
 * server on this machine. */
export function checkServerUrl(text, pageProtocol = "https:") {
  const raw = String(text ?? "").trim();
  if (!raw) return { problem: "NoUrl" };
  let url;
  try {
    url = new URL(raw);
  } catch {
    return { problem: "BadUrl" };
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return { problem: "BadUrl" };
  if (url.search || url.hash || url.username) return { problem: "BadUrl" };
  const loopback = isLoopback(url.hostname);
  if (url.protocol === "http:" && !loopback) {
    return { problem: pageProtocol === "https:" ? "MixedContent" : "BadUrl" };
  }
  return { url: `${url.origin}${url.pathname}`.replace(/\/+$/, "") };
}

/** The sentence a GM sees for a failure (ui.notifications), with the en.json words `t`. */
export function failureText(error, { apiUrl, pageOrigin, pageProtocol }, t) {
  if (error instanceof NetworkError) {
    if (pageProtocol === "https:" && apiUrl.startsWith("http:")) {
      const host = new URL(apiUrl).hostname;
      if (!isLoopback(host)) return t("Notify.MixedContent", { url: apiUrl });
    }
    return t("Notify.Unreachable", { url: apiUrl, origin: pageOrigin });
  }
  if (error instanceof ApiError) {
    // 401: a token that is nobody's (a mistyped GM key); 403: a check's token, not a GM key
    // (docs/api.md).
    if (error.status === 401 || error.status === 403) return t("Notify.Unauthorized");
    return t("Notify.Server", { detail: error.problem.detail ?? error.problem.title ?? error.status });
  }
  return String(error?.message ?? error);
}

export class SkillcheckApi {
  /** base: the server's address (checkServerUrl's url); key: the GM key; fetchImpl: fetch. */
  constructor(base, key, fetchImpl = globalThis.fetch.bind(globalThis)) {
    this.base = base.replace(/\/+$/, "");
    this.key = key;
    this.fetch = fetchImpl;
  }

  async request(method, path, { body, headers = {}, auth = true, signal, raw = false } = {}) {
    const all = { Accept: raw ? "text/event-stream" : "application/json", ...headers };
    if (auth) all.Authorization = `Bearer ${this.key}`;
    if (body !== undefined) all["Content-Type"] = "application/json";
    const url = this.base + path;
    let response;
    try {
      response = await this.fetch(url, {
        method,
        headers: all,
        body: body === undefined ? undefined : JSON.stringify(body),
        cache: "no-store",
        credentials: "omit", // a bearer token, no cookies: CORS needs no credentials mode
        referrerPolicy: "no-referrer",
        signal,
      });
    } catch (error) {
      if (error?.name === "AbortError") throw error;
      throw new NetworkError(url, error);
    }
    if (!response.ok) {
      const problem = await response.json().catch(() => ({ detail: response.statusText }));
      throw new ApiError(response.status, problem);
    }
    return raw ? response : response.json();
  }

  /** GET /v1/games: every game with its parameters (public: no token, so no preflight). */
  games() {
    return this.request("GET", "/v1/games", { auth: false });
  }

  /** GET /v1/games/{name}: the parameters, their schema and example parameter sets. */
  game(name) {
    return this.request("GET", `/v1/games/${encodeURIComponent(name)}`, { auth: false });
  }

  /** POST /v1/checks (GM): 201 with check_id, player_token, spectator_token, commitment, view. */
  createCheck(body) {
    return this.request("POST", "/v1/checks", { body });
  }

  /** GET /v1/checks (GM): one page of the GM's own checks, newest first. */
  listChecks({ status, cursor, limit = 100 } = {}) {
    const query = new URLSearchParams({ limit: String(limit) });
    if (status) query.set("status", status);
    if (cursor) query.set("cursor", cursor);
    return this.request("GET", `/v1/checks?${query}`);
  }

  /** GET /v1/checks/{id}: the view (status, outcome, tier, metadata...). */
  check(checkId) {
    return this.request("GET", `/v1/checks/${encodeURIComponent(checkId)}`);
  }

  /** GET /v1/checks/{id}/record: the revealed record (after the end). */
  record(checkId) {
    return this.request("GET", `/v1/checks/${encodeURIComponent(checkId)}/record`);
  }

  /** POST /v1/checks/{id}/tokens/{role} (GM): a new token; the old one stops working. */
  reissue(checkId, role) {
    return this.request("POST", `/v1/checks/${encodeURIComponent(checkId)}/tokens/${role}`);
  }

  /** GET /v1/checks/stream (GM): the Response of the GM's live list (text/event-stream). */
  checksStream({ lastEventId = null, signal } = {}) {
    const headers = lastEventId ? { "Last-Event-ID": String(lastEventId) } : {};
    return this.request("GET", "/v1/checks/stream", { headers, signal, raw: true });
  }

  /** The page link of a check for a token: the token rides in the fragment, which browsers never
   * send to a server; the game in the query, a hint the page prepares that game's table from
   * while the check loads (docs/play-page.md). */
  pageUrl(checkId, game, token) {
    return `${this.base}/play/${encodeURIComponent(checkId)}?game=${encodeURIComponent(game)}#token=${token}`;
  }
}

// ---- the commitment: SHA-256 of the canonical JSON of {game, params, seed, salt} ------------
// (docs/api.md "The revealed record"; the same code as the macro and the GM's page.)

export function canonicalJson(value) {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** true/false: does the revealed record hash to `published`? null: no Web Crypto here (a
 * Foundry on plain http over a LAN is not a secure context [F45]). */
export async function commitmentMatches(revealed, published) {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) return null;
  const { game, params, seed } = revealed.record;
  const committed = { game, params, seed, salt: revealed.salt };
  if (revealed.seed_chosen === true) committed.seed_chosen = true; // bound only when chosen (docs/sessions.md)
  const bytes = new TextEncoder().encode(canonicalJson(committed));
  const digest = new Uint8Array(await subtle.digest("SHA-256", bytes));
  const hex = [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
  return hex === published && revealed.commitment === published;
}
