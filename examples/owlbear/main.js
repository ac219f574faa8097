// skillcheck for Owlbear Rodeo: a minimal extension (docs/api.md, "Owlbear Rodeo extension").
//
// The GM fills in a quota check and picks a player; the extension creates the check on the
// skillcheck server, sends the player's link to that player (OBR broadcast) and lists a
// spectator link for the whole room (OBR room metadata). The player's popover then shows the
// server's player page (/play/<check>#token=...) in an iframe.
//
// No build step: index.html maps "@owlbear-rodeo/sdk" to ./vendor/owlbear-rodeo-sdk.js (see
// README.md). Everything above `boot()` takes the OBR object as an argument and never touches the
// DOM, so it runs under Node with a stand-in for OBR (tests/test_api_examples.py does that).

export const NAMESPACE = "org.skillcheck.example"; // prefix of our metadata keys and channels
export const ROOM_KEY = `${NAMESPACE}/checks`; // room metadata: the latest checks, spectator links
export const CHANNEL = `${NAMESPACE}/play`; // broadcast: a player's link, for that player
export const KEEP_CHECKS = 10; // room metadata is small (16 kB for all extensions): keep it so

/** The parameters of a quota check, as GET /v1/games describes them. */
export function quotaParams({ suit, skill, quota, level = 9 }) {
  return {
    level: Number(level),
    variant: { kind: "quota", suit, skill: Number(skill), quota: Number(quota) },
  };
}

/** The player's (or a spectator's) page; the token rides in the fragment, never sent to a server. */
export function playUrl(api, checkId, token) {
  return `${api.replace(/\/+$/, "")}/play/${encodeURIComponent(checkId)}#token=${token}`;
}

/** POST /v1/checks with the GM key; resolves to the server's answer, rejects with its problem. */
export async function createCheck({ api, gmKey, params, label, metadata = {}, fetchImpl = fetch }) {
  const response = await fetchImpl(`${api.replace(/\/+$/, "")}/v1/checks`, {
    method: "POST",
    headers: { Authorization: `Bearer ${gmKey}`, "Content-Type": "application/json" },
    body: JSON.stringify({ game: "three-towers", params, label, metadata }),
  });
  const body = await response.json().catch(() => ({}));
  if (!response.ok) {
    const error = new Error(`${response.status} ${body.title ?? ""}: ${body.detail ?? response.statusText}`);
    error.problem = body;
    throw error;
  }
  return body;
}

/**
 * Tell the room about a new check: a spectator link in the room metadata (everyone may watch) and
 * the player's link by broadcast to the chosen player. Broadcasts reach every connected client of
 * the room; only the addressee's extension shows it (see README.md about what that protects).
 */
export async function shareCheck(obr, { api, created, playerId, playerName, label }) {
  const entry = {
    check_id: created.check_id,
    label,
    player_id: playerId,
    player_name: playerName,
    spectator_url: playUrl(api, created.check_id, created.spectator_token),
    commitment: created.commitment,
  };
  const metadata = await obr.room.getMetadata();
  const checks = [entry, ...(metadata[ROOM_KEY] ?? [])].slice(0, KEEP_CHECKS);
  await obr.room.setMetadata({ [ROOM_KEY]: checks });
  await obr.broadcast.sendMessage(CHANNEL, {
    player_id: playerId,
    check_id: created.check_id,
    label,
    url: playUrl(api, created.check_id, created.player_token),
  });
  return entry;
}

/** Call `callback(message)` with every player link addressed to `myPlayerId`; returns unsubscribe. */
export function onPlayerLink(obr, myPlayerId, callback) {
  return obr.broadcast.onMessage(CHANNEL, (event) => {
    const message = event.data;
    if (message && message.player_id === myPlayerId && typeof message.url === "string") {
      callback(message);
    }
  });
}

/** The checks listed in the room metadata, newest first (spectator links only). */
export async function roomChecks(obr) {
  const metadata = await obr.room.getMetadata();
  return metadata[ROOM_KEY] ?? [];
}

// ---- the page (browser only) ---------------------------------------------------------------------

const GM_KEY_STORAGE = `${NAMESPACE}/gm-key`; // the GM's browser only, never the room
const API_STORAGE = `${NAMESPACE}/api`;

async function loadObr() {
  try {
    const sdk = await import("@owlbear-rodeo/sdk"); // the import map in index.html
    return sdk.default?.isAvailable ? sdk.default : null;
  } catch (error) {
    console.warn("skillcheck: the Owlbear Rodeo SDK is not available, running standalone", error);
    return null;
  }
}

function ready(obr) {
  return new Promise((resolve) => obr.onReady(resolve));
}

function show(element, visible) {
  element.hidden = !visible;
}

function openCheck(doc, url, label) {
  const frame = doc.getElementById("play-frame");
  frame.src = url;
  frame.title = `Skill check: ${label}`;
  doc.getElementById("play-label").textContent = label;
  doc.getElementById("play-open").href = url;
  show(doc.getElementById("play"), true);
}

function renderRoomChecks(doc, checks) {
  const list = doc.getElementById("room-checks");
  list.replaceChildren(
    ...checks.map((check) => {
      const item = doc.createElement("li");
      const link = doc.createElement("a");
      link.href = check.spectator_url;
      link.target = "_blank";
      link.rel = "noopener noreferrer";
      link.textContent = `${check.label} (${check.player_name ?? "player"})`;
      item.append(link);
      return item;
    }),
  );
  show(doc.getElementById("room"), checks.length > 0);
}

export async function boot(doc = document, storage = localStorage) {
  const obr = await loadObr();
  if (obr) await ready(obr);
  const status = doc.getElementById("status");
  const isGm = obr ? (await obr.player.getRole()) === "GM" : true;
  const myId = obr ? await obr.player.getId() : null;
  show(doc.getElementById("gm"), isGm);
  status.textContent = obr ? "" : "Outside Owlbear Rodeo: links are shown here to copy.";

  if (obr) {
    onPlayerLink(obr, myId, (message) => openCheck(doc, message.url, message.label));
    renderRoomChecks(doc, await roomChecks(obr));
    obr.room.onMetadataChange((metadata) => renderRoomChecks(doc, metadata[ROOM_KEY] ?? []));
  }
  if (!isGm) return;

  const form = doc.getElementById("gm-form");
  form.elements.api.value = storage.getItem(API_STORAGE) ?? "";
  form.elements.key.value = storage.getItem(GM_KEY_STORAGE) ?? "";
  const players = obr ? await obr.party.getPlayers() : [];
  const select = form.elements.player;
  select.replaceChildren(
    ...players.map((p) => new Option(p.name, p.id)),
    ...(players.length ? [] : [new Option("(copy the link yourself)", "")]),
  );

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const f = form.elements;
    const api = f.api.value.trim().replace(/\/+$/, "");
    storage.setItem(API_STORAGE, api);
    storage.setItem(GM_KEY_STORAGE, f.key.value.trim());
    const label = f.label.value.trim() || "Skill check";
    status.textContent = "Creating the check…";
    try {
      const created = await createCheck({
        api, gmKey: f.key.value.trim(), label,
        params: quotaParams({
          suit: f.suit.value, skill: f.skill.value, quota: f.quota.value, level: f.level.value,
        }),
      });
      const player = players.find((p) => p.id === select.value);
      if (obr && player) {
        await shareCheck(obr, { api, created, playerId: player.id, playerName: player.name, label });
        status.textContent = `Sent to ${player.name}.`;
      } else {
        const link = playUrl(api, created.check_id, created.player_token);
        status.textContent = `Player link (send it privately): ${link}`;
      }
    } catch (error) {
      status.textContent = `Could not create the check: ${error.message}`;
    }
  });
}

if (typeof document !== "undefined" && typeof window !== "undefined") {
  boot().catch((error) => console.error("skillcheck:", error));
}
