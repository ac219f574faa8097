// One simulated browser running the module: a worker thread with its own globals (the
// stand-in), talking to the FoundryServer in the test's main thread. The test drives it with
// `call` messages naming an action below.

import { parentPort, workerData } from "node:worker_threads";
import { browserFetch } from "./browser-fetch.mjs";
import { installFoundry } from "./foundry-stand-in.mjs";

const waiting = new Map();
let sequence = 0;
const transport = {
  request(method, args) {
    const id = ++sequence;
    parentPort.postMessage({ type: "request", id, method, args });
    return new Promise((resolve, reject) => waiting.set(id, { resolve, reject }));
  },
};

// The page's origin, and fetch with a browser's CORS rules for it.
globalThis.location = { origin: workerData.origin, protocol: new URL(workerData.origin).protocol };
const requests = [];
globalThis.fetch = browserFetch(workerData.origin, requests);

const ctx = installFoundry({ ...workerData, clientSettings: new Map(workerData.clientSettings), transport });

/** A character: an Actor with ownership levels (OWNER = 3) and testUserPermission [F30]. */
const actors = Object.fromEntries((workerData.actors ?? []).map((a) => [a.id, {
  ...a,
  uuid: `Actor.${a.id}`,
  testUserPermission: (user, level) => level === "OWNER" && (user.isGM || (a.ownership?.[user.id] ?? 0) >= 3),
}]));

const api = () => game.modules.get("skillcheck").api;
const plain = (m) => ({ _id: m._id, content: m.content, whisper: m.whisper, flags: m.flags, speaker: m.speaker, author: m.author });

const actions = {
  startCheck: (options) => api().startCheck({ ...options, actor: options.actorId ? actors[options.actorId] : null })
    .then((r) => ({ checkId: r.checkId })),
  saveKey: (key) => api().saveKey(key).then(() => true),
  reconsider: () => api().watcher.reconsider().then(() => api().watcher.running),
  idle: async () => { await api().watcher.idle(); return api().watcher.posted; },
  openInvite: (checkId) => api().openInvite(checkId).then((w) => w?.id ?? null),
  openWatch: (checkId) => api().openWatch(checkId).then((w) => w?.id ?? null),
  messages: () => game.messages.contents.map(plain),
  windows: () => [...ctx.windows.values()].map((w) => ({ id: w.id, title: w.title, html: w.element.content.innerHTML })),
  notifications: () => ctx.notifications,
  clientSettings: () => [...ctx.clientSettings],
  registered: () => [...game.settings.settings.values()].map(({ namespace, key, scope, config }) => ({ namespace, key, scope, config })),
  menus: () => [...game.settings.menus.values()].map(({ key, restricted }) => ({ key, restricted })),
  requests: () => requests,
  running: () => Boolean(api().watcher?.running),
  stop: () => { api().watcher?.stop(); return true; },
};

parentPort.on("message", async (message) => {
  if (message.type === "response") {
    const w = waiting.get(message.id);
    waiting.delete(message.id);
    if (message.error) w.reject(new Error(message.error)); else w.resolve(message.result);
  } else if (message.type === "event") {
    await ctx.receive(message.event);
  } else if (message.type === "call") {
    try {
      const result = await actions[message.method](...message.args);
      parentPort.postMessage({ type: "result", id: message.id, result });
    } catch (error) {
      parentPort.postMessage({ type: "result", id: message.id, error: `${error.name}: ${error.message}` });
    }
  }
});

// A Foundry page load: the module's scripts, then init → i18nInit → setup → ready [F12].
await import("../skillcheck/scripts/main.mjs");
for (const hook of ["init", "i18nInit", "setup", "ready"]) await Hooks.callAll(hook);
parentPort.postMessage({ type: "loaded" });
