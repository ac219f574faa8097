// skillcheck: a Foundry VTT script macro that runs a skill check on a skillcheck server
// (docs/api.md, "Foundry VTT").
//
// The GM runs it with a token selected: it creates a quota check on the server, whispers the
// player's link (/play/<check>#token=...) to the owners of the selected actor, follows the
// check's live stream, and posts the result to the chat once the player is done, after checking
// the revealed deal against the commitment published at creation.
//
// Paste it into a macro of type "script" (Foundry v11 to v13). The server must list this Foundry's
// origin (https://foundry.example.org, http://localhost:30000, ...) in SKILLCHECK_CORS_ORIGINS.
// The GM key is asked for once and kept in this browser's localStorage, on the GM's machine
// only; it is never stored in the world, which every player's client receives.
//
// The same file runs under Node.js 20 (`node skillcheck-macro.js`), where the Foundry globals do
// not exist: it reads SKILLCHECK_URL, SKILLCHECK_GM_KEY and FOUNDRY_ORIGIN from the environment
// (and SKILLCHECK_SEED, a deal the GM chose, if set), plays the player's part itself (one move,
// then a concession), logs instead of chatting, and checks every response as a browser on
// FOUNDRY_ORIGIN would (CORS). The test suite runs it so.

(async () => {
  const IN_FOUNDRY = typeof game !== "undefined" && typeof ChatMessage !== "undefined";
  const env = IN_FOUNDRY ? {} : globalThis.process.env;

  // ---- settings: edit these --------------------------------------------------------------------
  const API = (IN_FOUNDRY ? "https://checks.example.org" : env.SKILLCHECK_URL ?? "http://127.0.0.1:8000")
    .replace(/\/+$/, "");
  const KEY_STORAGE = "skillcheck.gmKey"; // localStorage entry on the GM's browser
  const PARAMS = { // GET /v1/games lists every parameter with its range
    level: 6,
    variant: { kind: "quota", suit: "moons", skill: 3, quota: 3 },
  };
  // A deal of your choosing (a whole number), or null for a random one. The check then says the
  // GM chose the deal, and its commitment binds that (docs/api.md). Under Node: SKILLCHECK_SEED.
  const SEED = IN_FOUNDRY ? null : env.SKILLCHECK_SEED ? Number(env.SKILLCHECK_SEED) : null;
  // Under Node: act as the player (one move, then concede) so that the check ends by itself.
  const DEMO_PLAYER = !IN_FOUNDRY;
  // Under Node: the origin whose CORS rules every response is checked against, as a browser would.
  const BROWSER_ORIGIN = IN_FOUNDRY ? null : env.FOUNDRY_ORIGIN ?? null;

  const log = (...args) => console.log("skillcheck |", ...args);
  const notify = (level, text) => (IN_FOUNDRY ? ui.notifications[level](text) : log(`${level}: ${text}`));
  const escapeHtml = (text) => String(text ?? "").replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

  // ---- the GM key: never in the world settings (players' clients receive those) ------------------
  async function gmKey() {
    if (!IN_FOUNDRY) return env.SKILLCHECK_GM_KEY;
    const stored = globalThis.localStorage.getItem(KEY_STORAGE);
    if (stored) return stored;
    const content = '<p>The GM key of the skillcheck server (kept in this browser only).</p>'
      + '<input type="password" name="key" autocomplete="off" autofocus>';
    const V2 = globalThis.foundry?.applications?.api?.DialogV2;
    const key = V2 // v12+; v11 has only the first-generation Dialog
      ? await V2.prompt({ window: { title: "skillcheck" }, content,
          ok: { callback: (event, button) => button.form.elements.key.value } })
      : await Dialog.prompt({ title: "skillcheck", content,
          callback: (html) => html[0].querySelector("input").value });
    if (key) globalThis.localStorage.setItem(KEY_STORAGE, key.trim());
    return key?.trim();
  }

  // ---- HTTP ---------------------------------------------------------------------------------------
  class ApiError extends Error {
    constructor(status, problem) {
      super(`${status} ${problem.code ?? ""}: ${problem.detail ?? problem.title ?? ""}`);
      this.status = status;
      this.problem = problem;
    }
  }

  const preflights = new Set();
  // What a browser does before a cross-origin request with Authorization (Node does not).
  async function preflight(method, path, headers) {
    const names = Object.keys(headers).map((h) => h.toLowerCase()).sort();
    const key = `${method} ${names}`;
    if (preflights.has(key)) return;
    const response = await fetch(API + path, { method: "OPTIONS", headers: {
      Origin: BROWSER_ORIGIN, "Access-Control-Request-Method": method,
      "Access-Control-Request-Headers": names.join(",") } });
    const allowed = (response.headers.get("access-control-allow-headers") ?? "").toLowerCase();
    const methods = response.headers.get("access-control-allow-methods") ?? "";
    if (!response.ok || response.headers.get("access-control-allow-origin") !== BROWSER_ORIGIN
        || !methods.includes(method) || names.some((n) => !allowed.split(/\s*,\s*/).includes(n))) {
      throw new Error(`a browser on ${BROWSER_ORIGIN} would refuse ${method} ${path}: the preflight `
        + `answered ${response.status} (add the origin to SKILLCHECK_CORS_ORIGINS)`);
    }
    preflights.add(key);
  }

  // A request with a bearer token; a problem+json answer becomes an ApiError.
  async function api(method, path, { token, body, headers = {}, stream = false } = {}) {
    const all = { Authorization: `Bearer ${token}`, ...headers };
    if (body !== undefined) all["Content-Type"] = "application/json";
    if (BROWSER_ORIGIN) {
      await preflight(method, path, all);
      all.Origin = BROWSER_ORIGIN;
    }
    const response = await fetch(API + path, {
      method, headers: all, body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (BROWSER_ORIGIN && response.headers.get("access-control-allow-origin") !== BROWSER_ORIGIN) {
      throw new Error(`a browser on ${BROWSER_ORIGIN} could not read the answer to ${method} ${path}`);
    }
    if (!response.ok) {
      const problem = await response.json().catch(() => ({ detail: response.statusText }));
      throw new ApiError(response.status, problem);
    }
    return stream ? response : response.json();
  }

  // crypto.randomUUID and crypto.subtle exist only in secure contexts (HTTPS or localhost); a
  // Foundry served over plain http on a LAN has neither.
  const random = () => Math.random().toString(36).slice(2);
  const newKey = () => globalThis.crypto?.randomUUID?.() ?? `${Date.now().toString(36)}-${random()}${random()}`;

  // A player's action on the version it was decided on; one Idempotency-Key for all attempts.
  async function act(checkId, token, action, version, body) {
    const headers = { "If-Match": `"${version}"`, "Idempotency-Key": newKey() };
    for (let attempt = 0; ; attempt++) {
      try {
        return await api("POST", `/v1/checks/${checkId}/${action}`, { token, body, headers });
      } catch (error) {
        if (error instanceof ApiError || attempt >= 3) throw error; // network errors only
        await new Promise((resolve) => setTimeout(resolve, 500 * 2 ** attempt));
      }
    }
  }

  // ---- the live stream: fetch + ReadableStream (EventSource cannot send Authorization) ----------
  async function* events(checkId, token) {
    let last = 0;
    for (let failures = 0; failures < 10; ) {
      try {
        const response = await api("GET", `/v1/checks/${checkId}/stream`, {
          token, stream: true,
          headers: { Accept: "text/event-stream", "Last-Event-ID": String(last) },
        });
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = "";
        let message = { data: [] };
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break; // the server closed (its 30-minute cap): reconnect after `last`
          buffer += value;
          // A line ends with CRLF, LF or CR; keep a trailing CR until its LF may arrive.
          const lines = buffer.split(/\r\n|\n|\r(?!$)/);
          buffer = lines.pop();
          for (const line of lines) {
            if (line === "") {
              if (message.data.length) {
                const event = JSON.parse(message.data.join("\n"));
                last = event.sequence;
                failures = 0;
                yield event;
                if (event.kind === "ended" || event.kind === "cancelled") {
                  await reader.cancel();
                  return;
                }
              }
              message = { data: [] };
            } else if (line.startsWith("data:")) {
              message.data.push(line.slice(5).replace(/^ /, ""));
            } // "id:" and "event:" repeat what the JSON holds; ":" lines are keepalives
          }
        }
      } catch (error) {
        if (error instanceof ApiError) throw error; // 401/404: reconnecting will not help
        log(`stream interrupted (${error.message}); resuming after event ${last}`);
      }
      failures++;
      await new Promise((resolve) => setTimeout(resolve, 1000 * failures));
    }
    throw new Error("the live stream keeps failing");
  }

  // ---- the commitment: SHA-256 of the canonical JSON of {game, params, seed, salt} --------------
  // (and "seed_chosen": true when the GM chose the seed: the commitment binds that too)
  const canon = (v) => Array.isArray(v) ? `[${v.map(canon).join(",")}]`
    : v !== null && typeof v === "object"
      ? `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canon(v[k])}`).join(",")}}`
      : JSON.stringify(v);
  async function commitmentOf(revealed) {
    if (!globalThis.crypto?.subtle) return null; // not a secure context: cannot hash here
    const { game: name, params, seed } = revealed.record;
    const committed = { game: name, params, seed, salt: revealed.salt };
    if (revealed.seed_chosen === true) committed.seed_chosen = true; // docs/sessions.md
    const bytes = new TextEncoder().encode(canon(committed));
    const digest = await crypto.subtle.digest("SHA-256", bytes);
    return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
  }

  // ---- chat ---------------------------------------------------------------------------------------
  async function say(html, whisperTo = null) {
    if (!IN_FOUNDRY) return log(html.replace(/<[^>]+>/g, "").replace(/\s+/g, " ").trim());
    const data = { content: html, speaker: ChatMessage.getSpeaker() };
    if (whisperTo) data.whisper = whisperTo;
    return ChatMessage.create(data);
  }

  // ---- the macro ----------------------------------------------------------------------------------
  if (IN_FOUNDRY && !game.user.isGM) return notify("warn", "Only the GM starts skill checks.");
  const key = await gmKey();
  if (!key) return notify("error", "No GM key for the skillcheck server.");

  const actor = IN_FOUNDRY ? canvas.tokens?.controlled[0]?.actor ?? null : null;
  const label = `${actor?.name ?? "Mira"} picks the lock`;
  const created = await api("POST", "/v1/checks", {
    token: key,
    body: { game: "three-towers", params: PARAMS, label, metadata: { actor: actor?.id ?? null },
            ...(SEED === null ? {} : { seed: SEED }) },
  });
  const { check_id: checkId, player_token: playerToken, spectator_token: spectatorToken } = created;
  log(`created ${checkId} (version ${created.version}), commitment ${created.commitment}`);

  // The player's token goes to the actor's owners only; everyone else gets the spectator link.
  // (the game in the query is a hint: the page prepares that game's table while the check loads)
  const playLink = `${API}/play/${checkId}?game=three-towers#token=${playerToken}`;
  const watchLink = `${API}/play/${checkId}?game=three-towers#token=${spectatorToken}`;
  const owners = IN_FOUNDRY
    ? game.users.filter((u) => !u.isGM && actor?.testUserPermission(u, "OWNER")).map((u) => u.id)
    : [];
  if (IN_FOUNDRY && owners.length) {
    await say(`<p><b>${escapeHtml(label)}</b>: <a href="${playLink}" target="_blank"
      rel="noopener noreferrer">play your check</a></p>`, owners);
  } else if (IN_FOUNDRY) {
    notify("warn", "Select a token owned by a player; the player link is in the console (F12).");
    log("player link:", playLink);
  } else {
    log(`player link: ${playLink}`);
  }
  await say(`<p><b>${escapeHtml(label)}</b>: a skill check has begun
    (<a href="${watchLink}" target="_blank" rel="noopener noreferrer">watch</a>).</p>
    <p>Commitment <code>${created.commitment.slice(0, 16)}…</code></p>`);

  const seen = [];
  let final = null;
  for await (const event of events(checkId, spectatorToken)) {
    seen.push([event.sequence, event.kind, event.version]);
    log(`event #${event.sequence} ${event.kind} (version ${event.version})`
      + (event.payload.move ? ` ${event.payload.move}` : ""));
    const view = event.payload.view;
    if (DEMO_PLAYER && event.kind === "created") {
      await act(checkId, playerToken, "moves", view.version, { move: view.legal_moves[0] });
    } else if (DEMO_PLAYER && event.kind === "moved" && view.status === "in_progress") {
      await act(checkId, playerToken, "concede", view.version);
    }
    if (event.kind === "ended" || event.kind === "cancelled") final = event;
  }

  const view = final.payload.view;
  const revealed = await api("GET", `/v1/checks/${checkId}/record`, { token: spectatorToken });
  const recomputed = await commitmentOf(revealed);
  const honest = recomputed === null ? null
    : recomputed === created.commitment && revealed.commitment === created.commitment;
  const verdict = final.kind === "cancelled"
    ? `called off by the GM${view.cancel_reason ? `: ${escapeHtml(view.cancel_reason)}` : ""}`
    : `<b>${view.status === "won" ? "Success" : "Failure"}</b> (degree ${view.degree}): `
      + escapeHtml(view.outcome.summary);
  await say(`<p><b>${escapeHtml(label)}</b>: ${verdict}</p>
    <p>${honest === null ? "(open Foundry over HTTPS to check the commitment here)"
      : honest ? "✔ the deal matches the commitment" : "✘ the deal does NOT match the commitment"}
    (seed ${revealed.record.seed}).</p>`);
  if (!IN_FOUNDRY) {
    console.log("RESULT " + JSON.stringify({
      check_id: checkId, spectator_token: spectatorToken, status: view.status,
      degree: view.degree, reason: view.outcome?.reason ?? null, version: view.version,
      stream: seen, commitment_ok: honest, seed_chosen: revealed.seed_chosen === true,
    }));
  }
})().catch((error) => {
  console.error("skillcheck |", error);
  if (typeof ui !== "undefined") ui.notifications.error(`skillcheck: ${error.message}`);
  else globalThis.process.exitCode = 1;
});
