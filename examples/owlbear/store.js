// What the extension keeps on this device, for the popover and the background page (two frames of
// the extension's origin inside Owlbear Rodeo). Nothing here is sent to the room: the GM key and
// the server's address stay on the GM's device, the private key on each player's.
//
// Values live in memory, are saved to localStorage of the extension's origin when the browser
// allows it, and are passed to the other frames with a BroadcastChannel (same origin, same
// device only). A browser that blocks storage for embedded sites ("block third-party cookies",
// a private window) throws on localStorage in the extension's frames: then the values last as
// long as the room stays open (persistent() says which), and a frame that starts later asks the
// others for what they hold.

import { NS } from "./skillcheck.js";

const KEEP_GM_CHECKS = 50;
const KEEP_MY_CHECKS = 10;

const memory = new Map();
const listeners = [];
let disk = null;
try {
  disk = window.localStorage;
  disk.setItem(`${NS}/probe`, "1");
  disk.removeItem(`${NS}/probe`);
} catch {
  disk = null; // storage blocked for this embedded site
}
const channel = typeof BroadcastChannel === "function" ? new BroadcastChannel(`${NS}/store`) : null;

function changed(key) {
  for (const callback of listeners) callback(key);
}

if (channel) {
  channel.addEventListener("message", ({ data }) => {
    if (data?.type === "set" && typeof data.key === "string") {
      memory.set(data.key, data.value);
      changed(data.key);
    } else if (data?.type === "hello" && !disk) {
      channel.postMessage({ type: "snapshot", values: [...memory] });
    } else if (data?.type === "snapshot" && !disk && Array.isArray(data.values)) {
      for (const [key, value] of data.values) {
        if (!memory.has(key)) {
          memory.set(key, value);
          changed(key);
        }
      }
    }
  });
  if (!disk) channel.postMessage({ type: "hello" });
}
/** Whether what is kept here survives closing Owlbear Rodeo (false: storage is blocked). */
export function persistent() {
  return disk !== null;
}

function read(key, fallback) {
  if (!memory.has(key) && disk) {
    try {
      const text = disk.getItem(key);
      if (text !== null) memory.set(key, JSON.parse(text));
    } catch {
      // unreadable: as if absent
    }
  }
  return memory.has(key) ? structuredClone(memory.get(key)) : fallback;
}

function write(key, value) {
  memory.set(key, structuredClone(value));
  if (disk) {
    try {
      disk.setItem(key, JSON.stringify(value));
    } catch {
      // full or refused: memory and the other frames still have it
    }
  }
  channel?.postMessage({ type: "set", key, value });
}

export const SETTINGS_KEY = `${NS}/settings`;
export const TARGET_KEY = `${NS}/target`;
export const gmChecksKey = (room) => `${NS}/gm-checks/${room}`;
export const myChecksKey = (room) => `${NS}/my-checks/${room}`;

/** The GM's server address and GM key: { server, key } (empty strings when not set). */
export function settings() {
  const saved = read(SETTINGS_KEY, {});
  return { server: String(saved.server || ""), key: String(saved.key || "") };
}

export function saveSettings({ server, key }) {
  write(SETTINGS_KEY, { server, key });
}

/** This player's key pair on this device (see skillcheck.js, "sealed for that player only"). */
export function keyPair(playerId) {
  const keys = read(`${NS}/keys/${playerId}`, null);
  return keys && keys.id && keys.publicJwk && keys.privateJwk ? keys : null;
}

export function saveKeyPair(playerId, keys) {
  write(`${NS}/keys/${playerId}`, keys);
}

/** The checks this GM made in this room: check id -> what the GM's device knows of it. */
export function gmChecks(room) {
  const checks = read(gmChecksKey(room), {});
  return checks && typeof checks === "object" ? checks : {};
}

export function updateGmCheck(room, checkId, fields) {
  const checks = gmChecks(room);
  checks[checkId] = { ...checks[checkId], ...fields };
  const newest = Object.entries(checks)
    .sort(([, a], [, b]) => String(b.created_at ?? "").localeCompare(String(a.created_at ?? "")))
    .slice(0, KEEP_GM_CHECKS);
  write(gmChecksKey(room), Object.fromEntries(newest));
  return checks[checkId];
}

/** The player links this player received in this room, newest first. */
export function myChecks(room) {
  const list = read(myChecksKey(room), []);
  return Array.isArray(list) ? list : [];
}

export function addMyCheck(room, link) {
  const list = [link, ...myChecks(room).filter((c) => c.check_id !== link.check_id)];
  write(myChecksKey(room), list.slice(0, KEEP_MY_CHECKS));
}

/** The token the GM chose with the context menu: { id, name, createdUserId, at }. */
export function target() {
  return read(TARGET_KEY, null);
}

export function setTarget(item) {
  write(TARGET_KEY, item);
}

/** Which player the GM chose for each token last time (token id -> player id). */
export function tokenPlayers() {
  return read(`${NS}/token-players`, {});
}

export function rememberTokenPlayer(tokenId, playerId) {
  write(`${NS}/token-players`, { ...tokenPlayers(), [tokenId]: playerId });
}

/** Call `callback(key)` when another frame of the extension changes one of our keys. */
export function onStored(callback) {
  listeners.push(callback);
}
