// The module against a real skillcheck server (tests/test_foundry_module.py starts one and sets
// SKILLCHECK_URL, SKILLCHECK_GM_KEY, FOUNDRY_ORIGIN, SKILLCHECK_SEED and SKILLCHECK_LINE, a
// winning seed of PARAMS and the solver's moves). Every simulated browser is a worker running
// the module's own scripts over the Foundry stand-in, with fetch held to a browser's CORS rules
// for FOUNDRY_ORIGIN.
//
//   node --test examples/foundry/tests/

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Table, until } from "./table.mjs";

const API = process.env.SKILLCHECK_URL;
const GM_KEY = process.env.SKILLCHECK_GM_KEY;
const ORIGIN = process.env.FOUNDRY_ORIGIN;
const SEED = Number(process.env.SKILLCHECK_SEED);
const LINE = (process.env.SKILLCHECK_LINE ?? "").split(",").filter(Boolean);
const PARAMS = { level: 6, variant: { kind: "quota", suit: "moons", skill: 3, quota: 3 } };
const USERS = [
  { id: "gm", name: "Gamemaster", isGM: true },
  { id: "gm2", name: "Assistant GM", isGM: true },
  { id: "mira", name: "Ana (plays Mira)", isGM: false },
  { id: "bo", name: "Bo", isGM: false },
];
const ACTORS = [{ id: "mira-actor", name: "Mira", ownership: { mira: 3 } }];

if (!API || !GM_KEY || !ORIGIN || !Number.isInteger(SEED) || !LINE.length) {
  throw new Error("set SKILLCHECK_URL, SKILLCHECK_GM_KEY, FOUNDRY_ORIGIN, SKILLCHECK_SEED and SKILLCHECK_LINE (tests/test_foundry_module.py does)");
}

async function http(method, path, token, { body, headers = {} } = {}) {
  const response = await fetch(API + path, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(body ? { "Content-Type": "application/json" } : {}), ...headers },
    body: body ? JSON.stringify(body) : undefined,
  });
  const data = await response.json();
  assert.ok(response.ok, `${method} ${path}: ${response.status} ${JSON.stringify(data)}`);
  return data;
}

/** The player's token, read from the iframe of the window the player's client opened. */
async function playerWindow(client, checkId) {
  const win = await until(async () => (await client.call("windows")).find((w) => w.id === `skillcheck-play-${checkId}`), 8000, "the player's window");
  const src = win.html.match(/<iframe[^>]* src="([^"]+)"/)[1].replace(/&#38;/g, "&");
  const url = new URL(src);
  assert.equal(`${url.origin}${url.pathname}`, `${API}/play/${checkId}`);
  assert.match(win.html, /allow="clipboard-write; fullscreen"/);
  return url.hash.replace(/^#token=/, "");
}

/** Play the solver's line through the HTTP API, as the player's page would. */
async function win(checkId, token) {
  let view = await http("GET", `/v1/checks/${checkId}`, token);
  for (const move of LINE) {
    view = await http("POST", `/v1/checks/${checkId}/moves`, token, {
      body: { move }, headers: { "If-Match": `"${view.version}"`, "Idempotency-Key": `${checkId}-${view.version}` },
    });
  }
  assert.equal(view.status, "won");
  return view;
}

const resultsOf = (table, checkId) => table.stored(checkId, "result");

describe("the skillcheck module against a real server", () => {
  const table = new Table({
    users: USERS, actors: ACTORS, origin: ORIGIN,
    worldSettings: { "skillcheck.apiUrl": API },
    config: { DND5E: { skills: { slt: { label: "Sleight of Hand" }, ath: { label: "Athletics" } } } },
  });
  let gm;
  let mira;
  let bo;

  before(async () => {
    gm = await table.open("gm");
    mira = await table.open("mira");
    bo = await table.open("bo");
  });
  after(() => table.closeAll());

  test("the GM key is kept in the GM's browser (client scope), never in the world", async () => {
    const registered = await gm.call("registered");
    const scope = Object.fromEntries(registered.map((s) => [s.key, s]));
    assert.equal(scope.gmKey.scope, "client");
    assert.equal(scope.gmKey.config, false);
    assert.equal(scope.apiUrl.scope, "world");
    assert.deepEqual(await gm.call("menus"), [{ key: "gmKeyMenu", restricted: true }]);
    // Without a key the GM is told where to enter it, and nothing is fetched.
    const told = await gm.call("notifications");
    assert.ok(told.some((n) => n.level === "warn" && /GM key/.test(n.text)), JSON.stringify(told));
    await assert.rejects(mira.call("saveKey", GM_KEY), /Only a GM/);
    await gm.call("saveKey", GM_KEY);
    assert.equal(await gm.call("reconsider"), true);
    assert.ok(!JSON.stringify(table.server.worldSettings).includes(GM_KEY));
    assert.ok((await gm.call("clientSettings")).some(([id, v]) => id === "skillcheck.gmKey" && v === GM_KEY));
    assert.ok(!JSON.stringify(await mira.call("clientSettings")).includes(GM_KEY));
  });

  test("players cannot start checks, and only the active GM does", async () => {
    await assert.rejects(mira.call("startCheck", { game: "three-towers", params: PARAMS }), /Only the GM/);
    const gm2 = await table.open("gm2");
    await assert.rejects(gm2.call("startCheck", { game: "three-towers", params: PARAMS }), /Only the active GM \(Gamemaster\)/);
    assert.equal(await gm2.call("running"), false); // not the poster: its watcher never started
    await table.close(gm2);
  });

  let won;
  test("a check started from Mira opens in Ana's window, only Ana and the GMs get the link, and the result is posted once", async () => {
    const { checkId } = await gm.call("startCheck", {
      actorId: "mira-actor", game: "three-towers", params: PARAMS, label: "Picks the lock", playerId: "mira", seed: SEED,
    });
    won = checkId;
    const [started] = table.stored(checkId, "started");
    const [invite] = table.stored(checkId, "invite");
    assert.deepEqual(started.whisper, []);
    assert.deepEqual(invite.whisper.sort(), ["gm", "gm2", "mira"]);
    assert.match(started.flags.skillcheck.watchUrl, /#token=sc_view_/);
    assert.match(invite.flags.skillcheck.playUrl, /#token=sc_play_/);
    // The check is tagged with this world, and the server kept the module's label and character.
    const view = await http("GET", `/v1/checks/${checkId}`, GM_KEY);
    assert.deepEqual(view.metadata, { foundry: { world: "the-lost-mine", actor: "Actor.mira-actor", user: "mira" } });
    assert.equal(view.character, "Mira");

    const token = await playerWindow(mira, checkId);
    assert.match(token, /^sc_play_/);
    assert.equal(token, invite.flags.skillcheck.playUrl.split("#token=")[1]);
    // Bo's browser never received the player's token: not the whisper, not the socket nudge.
    assert.ok(!table.seenBy(bo).includes("sc_play_"));
    assert.ok(table.seenBy(bo).includes('"type":"open"')); // the nudge reached Bo's client, tokenless
    assert.deepEqual(await bo.call("windows"), []);
    assert.ok(!table.seenBy(mira).includes(GM_KEY) && !table.seenBy(bo).includes(GM_KEY));

    await win(checkId, token);
    await until(() => resultsOf(table, checkId).length, 10000, "the result card");
    await gm.call("idle");
    const [result] = resultsOf(table, checkId);
    assert.equal(resultsOf(table, checkId).length, 1);
    assert.equal(result.author, "gm");
    assert.deepEqual(result.whisper, []);
    const final = await http("GET", `/v1/checks/${checkId}`, GM_KEY);
    assert.equal(result.flags.skillcheck.status, "won");
    assert.equal(result.flags.skillcheck.tier, final.tier);
    assert.equal(result.flags.skillcheck.degree, final.degree);
    assert.ok(result.content.includes(final.tier_text), result.content);
    assert.ok(result.content.includes(`Degree of success: ${final.degree > 0 ? "+" : ""}${final.degree}`), result.content);
    const said = final.outcome.summary.replace(/^success: /, "");
    assert.ok(result.content.includes(said.charAt(0).toUpperCase() + said.slice(1)), result.content);
    assert.ok(result.content.includes("matches the commitment"));
    assert.equal(result.flags.skillcheck.watchUrl, started.flags.skillcheck.watchUrl);
    // The "see the whole deal" link is the spectators' page, which shows the revealed record.
    const watchToken = result.flags.skillcheck.watchUrl.split("#token=")[1];
    const record = await http("GET", `/v1/checks/${checkId}/record`, watchToken);
    assert.equal(record.record.seed, SEED);
    const watcher = await mira.call("openWatch", checkId);
    assert.equal(watcher, `skillcheck-watch-${checkId}`);
    // Every request the GM's client made passed the browser's CORS checks for Foundry's origin.
    const requests = await gm.call("requests");
    assert.ok(requests.some((r) => r.preflight && r.url.endsWith("/v1/checks/stream")));
    assert.ok(requests.every((r) => r.ok), JSON.stringify(requests.filter((r) => !r.ok)));
  });

  test("after the GM reloads, the result is not posted again", async () => {
    await table.close(gm);
    gm = await table.open("gm"); // same browser: the key is still there; ready catches up
    assert.equal(await gm.call("running"), true);
    assert.equal(await gm.call("idle"), 0);
    assert.equal(resultsOf(table, won).length, 1);
  });

  test("a result card deleted from the chat does not come back when the GM reloads", async () => {
    await table.close(gm);
    const before = table.server.messages.length;
    table.server.messages = table.server.messages.filter((m) => !(m.flags?.skillcheck?.checkId === won && m.flags.skillcheck.kind === "result"));
    assert.equal(table.server.messages.length, before - 1); // the GM cleared the card
    assert.ok(table.server.worldSettings["skillcheck.postedChecks"].includes(won));
    gm = await table.open("gm");
    assert.equal(await gm.call("idle"), 0);
    assert.equal(resultsOf(table, won).length, 0);
  });

  test("a check that ended while the GM was offline is posted when the GM comes back, once", async () => {
    const { checkId } = await gm.call("startCheck", {
      actorId: "mira-actor", game: "three-towers", params: PARAMS, label: "Climbs the wall", playerId: "mira",
    });
    const token = await playerWindow(mira, checkId);
    await table.close(gm); // the GM's Foundry is closed
    const conceded = await http("POST", `/v1/checks/${checkId}/concede`, token);
    assert.equal(conceded.status, "lost");
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(resultsOf(table, checkId).length, 0); // nobody posted it: no GM online
    gm = await table.open("gm"); // ready: open the live list, catch up
    await gm.call("idle");
    const results = resultsOf(table, checkId);
    assert.equal(results.length, 1);
    assert.equal(results[0].flags.skillcheck.status, "lost");
    assert.match(results[0].content, /conceded/);
    await table.close(gm);
    gm = await table.open("gm");
    await gm.call("idle");
    assert.equal(resultsOf(table, checkId).length, 1);
    assert.equal(resultsOf(table, won).length, 0); // still not re-posted
  });

  test("a check called off is posted as called off; other worlds' checks are never posted", async () => {
    const { checkId } = await gm.call("startCheck", { game: "hanoy", params: { cards: 3 }, label: "Reads the runes" });
    await http("POST", `/v1/checks/${checkId}/cancel`, GM_KEY, { body: { reason: "the guard came back" } });
    await until(() => resultsOf(table, checkId).length, 10000, "the called-off card");
    const [card] = resultsOf(table, checkId);
    assert.match(card.content, /Called off/);
    assert.match(card.content, /the guard came back/);

    // The same GM key, another world (and a check made by another tool, with no metadata).
    const other = await http("POST", "/v1/checks", GM_KEY, {
      body: { game: "three-towers", params: PARAMS, label: "elsewhere", metadata: { foundry: { world: "another-world" } } },
    });
    const bare = await http("POST", "/v1/checks", GM_KEY, { body: { game: "three-towers", params: PARAMS } });
    await http("POST", `/v1/checks/${other.check_id}/concede`, other.player_token);
    await http("POST", `/v1/checks/${bare.check_id}/concede`, bare.player_token);
    await new Promise((resolve) => setTimeout(resolve, 500));
    await gm.call("idle");
    await table.close(gm);
    gm = await table.open("gm");
    await gm.call("idle");
    assert.equal(resultsOf(table, other.check_id).length, 0);
    assert.equal(resultsOf(table, bare.check_id).length, 0);
    const remembered = new Map(await gm.call("clientSettings")).get("skillcheck.otherWorldChecks");
    assert.ok(remembered.includes(other.check_id) && remembered.includes(bare.check_id));
    assert.equal(resultsOf(table, checkId).length, 1);
  });

  test("when the active GM leaves, the next GM posts the result; the first GM back does not post it again", async () => {
    const gm2 = await table.open("gm2");
    await gm2.call("saveKey", GM_KEY); // the assistant GM's own browser has the key too
    assert.equal(await gm2.call("reconsider"), false); // Gamemaster is the active GM
    const { checkId } = await gm.call("startCheck", {
      actorId: "mira-actor", game: "three-towers", params: PARAMS, label: "Picks the lock", playerId: "mira",
    });
    const token = await playerWindow(mira, checkId);
    await table.close(gm); // the active GM leaves: the assistant GM is the active GM now
    await until(() => gm2.call("running"), 8000, "the assistant GM taking over");
    const conceded = await http("POST", `/v1/checks/${checkId}/concede`, token);
    assert.equal(conceded.status, "lost");
    await until(() => resultsOf(table, checkId).length, 10000, "the result card, from the assistant GM");
    gm = await table.open("gm"); // back: Gamemaster is the active GM again and catches up
    await until(async () => !(await gm2.call("running")), 8000, "the assistant GM handing back");
    assert.equal(await gm.call("running"), true);
    await gm.call("idle");
    await gm2.call("idle");
    const results = resultsOf(table, checkId);
    assert.equal(results.length, 1);
    assert.equal(results[0].flags.skillcheck.status, "lost");
    await table.close(gm2);
  });

  test("a wrong key and a server that refuses this origin are explained", async () => {
    await table.close(gm);
    const wrong = await table.open("gm", { browser: "laptop" });
    await wrong.call("saveKey", "not-the-key");
    await wrong.call("reconsider");
    await assert.rejects(wrong.call("startCheck", { game: "three-towers", params: PARAMS }), /did not accept the GM key/);
    const notes = await wrong.call("notifications");
    assert.ok(notes.some((n) => n.level === "error" && /did not accept the GM key/.test(n.text)), JSON.stringify(notes));
    await table.close(wrong);

    const unlisted = await table.open("gm", { origin: "https://unlisted.example.test" });
    await assert.rejects(
      unlisted.call("startCheck", { game: "three-towers", params: PARAMS }),
      /could not be reached.*add https:\/\/unlisted\.example\.test to SKILLCHECK_CORS_ORIGINS/,
    );
    await table.close(unlisted);
    gm = await table.open("gm");
  });
});
