// One user's page in the harness: the Foundry stand-in's globals, the module's scripts loaded
// as Foundry loads them (init → i18nInit → setup → ready [F12]), a chat log that shows the
// messages this user may see, and notifications.

import { installFoundry } from "../tests/foundry-stand-in.mjs";

const table = parent.table;
const userId = new URLSearchParams(location.search).get("user");
const clientId = `page-${userId}`;
const translations = await (await fetch("../skillcheck/languages/en.json")).json();
const stored = JSON.parse(localStorage.getItem(`browser-${userId}`) ?? "[]");
const clientSettings = new Map(stored);
const ctx = installFoundry({
  userId, users: table.users.map((u) => ({ ...u, active: true })), world: "the-sunken-keep",
  system: { id: "dnd5e", title: "D&D Fifth Edition" }, messages: table.server.visibleTo(userId),
  worldSettings: table.server.worldSettings, clientSettings, translations, config: table.config,
  transport: { request: async (method, args) => table.server.handle(clientId, method, args) },
});
const persist = () => localStorage.setItem(`browser-${userId}`, JSON.stringify([...clientSettings]));
const set = clientSettings.set.bind(clientSettings);
clientSettings.set = (k, v) => { const r = set(k, v); persist(); return r; };

const user = game.users.get(userId);
document.querySelector(".sidebar-title").textContent = `Chat: ${user.name}${user.isGM ? " (GM)" : ""}`;

ctx.showNotification = (level, text) => {
  const li = document.createElement("li");
  li.className = `notification ${level}`;
  li.textContent = text;
  document.getElementById("notifications").append(li);
  setTimeout(() => li.remove(), 3000); // Foundry's notifications fade after a few seconds too
};

function renderChat() {
  const log = document.getElementById("chat-log");
  log.replaceChildren(...game.messages.contents.map((m) => {
    const li = document.createElement("li");
    li.className = `chat-message message${m.whisper.length ? " whisper" : ""}`;
    li.dataset.messageId = m.id;
    const head = document.createElement("header");
    head.className = "message-header";
    const to = m.whisper.length ? ` → ${m.whisper.map((id) => game.users.get(id)?.name ?? id).join(", ")}` : "";
    head.textContent = `${m.speaker?.alias ?? game.users.get(m.author)?.name ?? ""}${to}`;
    const body = document.createElement("div");
    body.className = "message-content";
    body.innerHTML = m.content;
    li.append(head, body);
    return li;
  }));
  log.scrollTop = log.scrollHeight;
}
Hooks.on("createChatMessage", renderChat);

table.connect(clientId, userId, ctx);
await import("../skillcheck/scripts/main.mjs");
for (const hook of ["init", "i18nInit", "setup", "ready"]) await Hooks.callAll(hook);
renderChat();
window.harness = {
  ctx,
  actor(id) {
    const a = table.actors.find((x) => x.id === id);
    return { ...a, uuid: `Actor.${a.id}`, testUserPermission: (u, level) => level === "OWNER" && (u.isGM || (a.ownership?.[u.id] ?? 0) >= 3) };
  },
  api: () => game.modules.get("skillcheck").api,
  ready: true,
};
