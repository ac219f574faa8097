// The module's Foundry-free parts, tested directly: the SSE parser, the server address and
// failure words, the dialog's fields and the params read back, skills, cards, and the words
// file (every key the scripts use exists). `node --test examples/foundry/tests/`
// (live.test.mjs needs a server: tests/test_foundry_module.py runs both).

import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { test } from "node:test";
import { ApiError, NetworkError, canonicalJson, checkServerUrl, failureText } from "../skillcheck/scripts/client.mjs";
import { resultCard, signed, startedCard, inviteCard } from "../skillcheck/scripts/cards.mjs";
import { escapeHtml, translator } from "../skillcheck/scripts/i18n.mjs";
import { fieldName, gameFieldsetHtml, readParams } from "../skillcheck/scripts/params.mjs";
import { skillParameter, systemSkills } from "../skillcheck/scripts/skills.mjs";
import { SseParser } from "../skillcheck/scripts/sse.mjs";

const SCRIPTS = new URL("../skillcheck/scripts/", import.meta.url);
const WORDS = JSON.parse(readFileSync(new URL("../skillcheck/languages/en.json", import.meta.url), "utf8"));
const t = translator(WORDS);

test("the SSE parser joins data lines, keeps ids, drops comments and survives split chunks", () => {
  const parser = new SseParser();
  assert.deepEqual(parser.push(": keepalive\r\n\r\nid: 17\r\nevent: ended\r\ndata: {\"a\":"), []);
  assert.deepEqual(parser.push("1}\r"), []);
  assert.deepEqual(parser.push("\n\r\n"), [{ id: "17", event: "ended", data: '{"a":1}' }]);
  assert.deepEqual(parser.push("data: x\ndata: y\n\n"), [{ id: null, event: null, data: "x\ny" }]);
});

test("the server address must be https, except a server on this machine", () => {
  assert.deepEqual(checkServerUrl("https://checks.example.org/"), { url: "https://checks.example.org" });
  assert.deepEqual(checkServerUrl(" https://example.org/sc/ "), { url: "https://example.org/sc" });
  assert.deepEqual(checkServerUrl("http://localhost:8000"), { url: "http://localhost:8000" });
  assert.deepEqual(checkServerUrl("http://127.0.0.1:8000"), { url: "http://127.0.0.1:8000" });
  assert.deepEqual(checkServerUrl("http://192.168.1.5:8000", "https:"), { problem: "MixedContent" });
  assert.deepEqual(checkServerUrl("http://192.168.1.5:8000", "http:"), { problem: "BadUrl" });
  assert.deepEqual(checkServerUrl("checks.example.org"), { problem: "BadUrl" });
  assert.deepEqual(checkServerUrl("https://x.org/?key=1"), { problem: "BadUrl" });
  assert.deepEqual(checkServerUrl(""), { problem: "NoUrl" });
});

test("failures are told in plain words: CORS, mixed content, a refused key, the server's reason", () => {
  const where = { apiUrl: "https://checks.example.org", pageOrigin: "https://foundry.example.org", pageProtocol: "https:" };
  const cors = failureText(new NetworkError("u", new TypeError("Failed to fetch")), where, t);
  assert.match(cors, /could not be reached.*add https:\/\/foundry\.example\.org to SKILLCHECK_CORS_ORIGINS/);
  const mixed = failureText(new NetworkError("u", new TypeError("Failed to fetch")), { ...where, apiUrl: "http://10.0.0.2:8000" }, t);
  assert.match(mixed, /HTTPS.*plain HTTP.*block/);
  assert.match(failureText(new ApiError(401, { code: "unauthorized" }), where, t), /did not accept the GM key/);
  assert.match(failureText(new ApiError(403, { code: "forbidden" }), where, t), /did not accept the GM key/);
  assert.equal(
    failureText(new ApiError(422, { detail: "quota 5 is more than the skill 3" }), where, t),
    "The skill check server refused: quota 5 is more than the skill 3",
  );
});

const THREE_TOWERS = {
  name: "three-towers", title: "Three Towers",
  parameters: [
    { name: "level", kind: "int", default: 9, minimum: 2, maximum: 9, optional: false, path: ["level"], help: "highest rank" },
    { name: "variant", kind: "choice", default: "standard", choices: ["standard", "ivory", "quota"], optional: false, path: ["variant", "kind"], help: "goal" },
    { name: "suit", kind: "choice", default: null, choices: ["moons", "suns"], optional: true, path: ["variant", "suit"], help: "suit",
      applies_if: { parameter: "variant", values: ["ivory", "quota"] } },
    { name: "skill", kind: "int", default: null, minimum: 1, maximum: 8, optional: true, path: ["variant", "skill"], help: "skill",
      applies_if: { parameter: "variant", values: ["quota"] } },
    { name: "suited_cards", kind: "cards", default: null, optional: true, path: ["variant", "suited_cards"], help: "cards",
      applies_if: { parameter: "variant", values: ["quota"] } },
    { name: "empty_waste", kind: "bool", default: false, optional: false, path: ["empty_waste"], help: "flag" },
    { name: "wrap", kind: "bool", default: null, optional: true, path: ["wrap"], help: "maybe" },
  ],
  examples: [{ params: { variant: { kind: "quota", suit: "moons", skill: 5 } } }],
};

test("the dialog's fields come from the game's parameters, pre-filled from the example and the skill", () => {
  const html = gameFieldsetHtml(THREE_TOWERS, { initial: THREE_TOWERS.examples[0].params, overrides: { skill: 4 }, t, idPrefix: "d1" });
  assert.match(html, /<input type="number" id="d1-three-towers-level" name="param\.three-towers\.level" step="1" inputmode="numeric" min="2" max="9" value="9">/);
  assert.match(html, /<option value="quota" selected>Quota<\/option>/);
  assert.match(html, /<option value="moons" selected>Moons<\/option>/);
  assert.match(html, /name="param\.three-towers\.skill"[^>]*value="4"/);
  assert.match(html, /<label for="d1-three-towers-suited_cards">Suited cards<\/label>/);
  assert.match(html, /<option value="" selected>The game&#39;s default<\/option>/);
  assert.ok(!/<script|on\w+=/i.test(html));
  // Undo, the move limit and chosen cards sit behind "More settings".
  assert.match(html, /<details class="skillcheck-more"><summary>More settings[^<]*<\/summary><div class="form-group" data-param="suited_cards">/);
});

test("the form's values become POST /v1/checks params, nested by path, typed, blanks left out", () => {
  const f = (name) => fieldName("three-towers", { name });
  const read = readParams(THREE_TOWERS, {
    [f("level")]: "6", [f("variant")]: "quota", [f("suit")]: "moons", [f("skill")]: "3",
    [f("suited_cards")]: "2MS, 3ML", [f("empty_waste")]: "on", [f("wrap")]: "",
  });
  assert.deepEqual(read, { params: {
    level: 6, variant: { kind: "quota", suit: "moons", skill: 3, suited_cards: ["2MS", "3ML"] }, empty_waste: true,
  } });
  assert.deepEqual(readParams(THREE_TOWERS, { [f("level")]: "6.5", [f("variant")]: "standard" }), { error: "Level: a whole number", field: "level" });
  assert.deepEqual(readParams(THREE_TOWERS, { [f("level")]: "", [f("variant")]: "standard" }), { error: "Level: needed", field: "level" });
  assert.deepEqual(readParams(THREE_TOWERS, { [f("level")]: "5", [f("variant")]: "standard", [f("wrap")]: "false" }).params,
    { level: 5, variant: { kind: "standard" }, empty_waste: false, wrap: false });
  // a quota check's options left filled in when the GM goes back to the standard game or to
  // ivory are another variant's (applies_if): left out, not sent to be refused
  const filled = { [f("level")]: "6", [f("suit")]: "moons", [f("skill")]: "3", [f("suited_cards")]: "2MS" };
  assert.deepEqual(readParams(THREE_TOWERS, { ...filled, [f("variant")]: "standard" }).params,
    { level: 6, variant: { kind: "standard" }, empty_waste: false });
  assert.deepEqual(readParams(THREE_TOWERS, { ...filled, [f("variant")]: "ivory" }).params,
    { level: 6, variant: { kind: "ivory", suit: "moons" }, empty_waste: false });
});

test("dnd5e skills: the skill's total, limited to the game's range; other systems have none", () => {
  const actor = { system: { skills: { slt: { total: 5, mod: 3 }, ath: { total: -1 }, prc: { mod: 12 } } } };
  const config = { skills: { slt: { label: "DND5E.SkillSlt" }, ath: { label: "DND5E.SkillAth" }, prc: { label: "DND5E.SkillPrc" } } };
  const names = { "DND5E.SkillSlt": "Sleight of Hand", "DND5E.SkillAth": "Athletics", "DND5E.SkillPrc": "Perception" };
  const skills = systemSkills(actor, "dnd5e", config, (k) => names[k]);
  assert.deepEqual(skills, [
    { key: "ath", label: "Athletics", total: -1 }, { key: "prc", label: "Perception", total: 12 },
    { key: "slt", label: "Sleight of Hand", total: 5 },
  ]);
  const spec = THREE_TOWERS.parameters.find((p) => p.name === "skill");
  assert.deepEqual(skills.map((s) => skillParameter(s.total, spec)), [1, 8, 5]);
  assert.deepEqual(systemSkills(actor, "pf2e", config), []);
  assert.deepEqual(systemSkills({}, "dnd5e", config), []);
});

const VIEW = {
  check_id: "c-1", game: "three-towers", label: "Picks <the> lock", character: "Mira", status: "won", degree: 2,
  tier: "critical_success", tier_text: "Critical success", outcome: { summary: "Success: a tower of 3 moons." },
  commitment: "ab".repeat(32), cancel_reason: null,
};

test("cards: result, tier, degree and the deal's link; text escaped; tiers told apart by words", () => {
  const card = resultCard(VIEW, "Three Towers", t, { honest: true });
  assert.match(card, /class="skillcheck-card skillcheck-result tier-critical-success"/);
  assert.match(card, /<p class="skillcheck-verdict">Critical success<\/p>/);
  assert.match(card, /Degree of success: \+2/);
  assert.match(card, /Picks &#60;the&#62; lock/);
  assert.match(card, /data-skillcheck-action="watch" data-check-id="c-1"/);
  assert.match(card, /matches the commitment/);
  assert.match(card, /<p class="skillcheck-summary">A tower of 3 moons\.<\/p>/); // no "Success:" twice
  const lost = resultCard({ ...VIEW, status: "lost", degree: -3, tier: null, tier_text: null }, "Three Towers", t, { honest: false });
  assert.match(lost, /Failure<\/p>/);
  assert.match(lost, /Degree of success: −3/);
  assert.match(lost, /does NOT match/);
  const off = resultCard({ ...VIEW, status: "cancelled", degree: null, tier: null, tier_text: null, cancel_reason: "rain" }, "X", t);
  assert.match(off, /Called off<\/p>.*called the check off: rain/);
  assert.ok(!off.includes("Degree"));
  assert.equal(signed(0), "0");
  const invite = inviteCard(VIEW, "Three Towers", t);
  assert.ok(!invite.includes("sc_play_") && invite.includes('data-skillcheck-action="play"'));
  assert.match(startedCard(VIEW, "Three Towers", t), /Mira is making a skill check/);
  assert.equal(escapeHtml(`"'&`), "&#34;&#39;&#38;");
});

test("the commitment's canonical JSON sorts keys and has no spaces (docs/sessions.md)", () => {
  assert.equal(canonicalJson({ b: [1, { d: "é", c: null }], a: true }), '{"a":true,"b":[1,{"c":null,"d":"é"}]}');
});

test("every word the scripts ask for is in languages/en.json", () => {
  const used = new Set();
  for (const file of readdirSync(SCRIPTS)) {
    const text = readFileSync(new URL(file, SCRIPTS), "utf8");
    for (const m of text.matchAll(/\bt\(\s*[`"]([A-Z][\w.]+)[`"]/g)) used.add(m[1]);
    for (const m of text.matchAll(/"SKILLCHECK\.([\w.]+)"/g)) used.add(m[1]);
    for (const m of text.matchAll(/t\(`Notify\.\$\{[^}]+\}`/g)) used.add(m[0]);
  }
  const missing = [...used].filter((key) => !key.startsWith("t(") && t(key) === `SKILLCHECK.${key}`);
  assert.deepEqual(missing, []);
  for (const problem of ["NoUrl", "BadUrl", "MixedContent"]) assert.notEqual(t(`Notify.${problem}`), `SKILLCHECK.Notify.${problem}`);
  assert.ok(used.size > 40, `only ${used.size} keys found: the scan is broken`);
});
