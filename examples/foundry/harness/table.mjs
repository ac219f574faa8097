// The harness's "Foundry server": one FoundryServer stand-in for the users' pages, each an
// iframe of client.html (same origin, so they reach `parent.table` directly). The test opens
// table.html?api=<server>&users=gm,mira and drives the clients through Playwright.

import { FoundryServer } from "../tests/foundry-stand-in.mjs";

const query = new URLSearchParams(location.search);
const USERS = [
  { id: "gm", name: "Gamemaster", isGM: true },
  { id: "mira", name: "Ana (plays Mira)", isGM: false },
  { id: "bo", name: "Bo", isGM: false },
];
const server = new FoundryServer({ users: USERS, worldSettings: { "skillcheck.apiUrl": query.get("api") ?? "" } });
const clients = new Map(); // client id -> client page context
server.deliver = (clientId, event) => queueMicrotask(() => clients.get(clientId)?.receive(event));

window.table = {
  server,
  users: USERS,
  actors: [{
    id: "mira-actor", name: "Mira", ownership: { mira: 3 },
    system: { skills: { slt: { total: 3 }, ath: { total: 1 }, prc: { total: 5 } } },
  }],
  config: { DND5E: { skills: { slt: { label: "Sleight of Hand" }, ath: { label: "Athletics" }, prc: { label: "Perception" } } } },
  connect(clientId, userId, context) {
    clients.set(clientId, context);
    server.connect(clientId, userId);
  },
};

for (const user of (query.get("users") ?? "gm,mira").split(",")) {
  const frame = document.createElement("iframe");
  frame.id = `client-${user}`;
  frame.title = `${user}'s Foundry`;
  frame.src = `./client.html?user=${encodeURIComponent(user)}`;
  document.getElementById("clients").append(frame);
}
