// A minimal stand-in for Owlbear Rodeo's side of the extension SDK (@owlbear-rodeo/sdk 3.1.0),
// for development and tests. It is NOT Owlbear Rodeo: it answers only the messages the
// skillcheck extension sends, each as the SDK's source expects (file named beside each answer;
// paths are those of github.com/owlbear-rodeo/sdk, src/...). Shared room state (players,
// metadata, broadcasts) lives in serve.py's Room, which Owlbear Rodeo's servers are in reality.
//
// The protocol (src/messages/MessageBus.ts, src/common/getDetails.ts):
// - the host loads each extension page in an iframe with ?obrref=<base64 "<host origin> <room id>">;
//   the SDK then talks only to that origin;
// - the host sends {id: "OBR_READY", data: {ref, userId}}; the SDK keeps `ref` and puts it on
//   every message it sends: {id, data, ref, nonce};
// - a request with a nonce is answered {id: `${id}_RESPONSE${nonce}`, data} (or `_ERROR`), which
//   the SDK waits for up to 5 s; a message without a nonce (subscriptions) gets no answer;
// - events are sent as {id: <event id>, data}.
// When the real Owlbear Rodeo sends OBR_READY is not documented; this host sends it on the
// iframe's load event (the SDK only listens for it).

const params = new URLSearchParams(location.search);
const EXTENSION = new URL(params.get("extension")).origin;
const ME = { id: params.get("id"), name: params.get("name"), role: params.get("role") };
const CONN = `conn-${crypto.randomUUID()}`;
const $ = (id) => document.getElementById(id);

const room = { id: null, me: null, party: [], metadata: {}, items: [], seq: 0 };
const frames = new Map(); // iframe window -> { ref, iframe, subscriptions: Set, channels: Set }
const menus = new Map(); // context menu id -> { frame, icons }
const notifications = [];
let manifest = null;

function api(path, body) {
  return fetch(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) })
    .then((r) => r.json());
}

const act = (op, data) => api("/room/act", { conn: CONN, op, data });

function post(frame, id, data) {
  frame.iframe.contentWindow?.postMessage({ id, data }, EXTENSION);
}

function emit(subscription, id, data) {
  for (const frame of frames.values()) if (frame.subscriptions.has(subscription)) post(frame, id, data);
}

// ---- the answers, by message id ------------------------------------------------------------------

const HANDLERS = {
  // src/api/PlayerApi.ts
  OBR_PLAYER_GET_ID: () => ({ id: room.me.id }),
  OBR_PLAYER_GET_ROLE: () => ({ role: room.me.role }),
  OBR_PLAYER_GET_NAME: () => ({ name: room.me.name }),
  OBR_PLAYER_GET_CONNECTION_ID: () => ({ connectionId: room.me.connectionId }),
  OBR_PLAYER_GET_SELECTION: () => ({ selection: room.me.selection ?? undefined }),
  OBR_PLAYER_GET_METADATA: () => ({ metadata: room.me.metadata }),
  OBR_PLAYER_SET_METADATA: async ({ update }) => {
    await act("player-metadata", { update });
    return {};
  },
  OBR_PLAYER_SUBSCRIBE: (_, frame) => frame.subscriptions.add("player"), // -> OBR_PLAYER_EVENT_CHANGE {player}
  // src/api/PartyApi.ts
  OBR_PARTY_GET_PLAYERS: () => ({ players: room.party }),
  OBR_PARTY_SUBSCRIBE: (_, frame) => frame.subscriptions.add("party"), // -> OBR_PARTY_EVENT_CHANGE {players}
  // src/api/RoomApi.ts (the room id itself comes from obrref)
  OBR_ROOM_GET_METADATA: () => ({ metadata: room.metadata }),
  OBR_ROOM_SET_METADATA: async ({ update }) => {
    await act("room-metadata", { update });
    return {};
  },
  OBR_ROOM_METADATA_SUBSCRIBE: (_, frame) => frame.subscriptions.add("room-metadata"), // -> OBR_ROOM_METADATA_EVENT_CHANGE {metadata}
  // src/api/BroadcastApi.ts: destination REMOTE (default), LOCAL or ALL
  OBR_BROADCAST_SEND_MESSAGE: async ({ channel, data, options }) => {
    await act("broadcast", { channel, data, options: options ?? null });
    return {};
  },
  OBR_BROADCAST_SUBSCRIBE: ({ channel }, frame) => frame.channels.add(channel), // -> OBR_BROADCAST_MESSAGE_<channel> {data, connectionId}
  // src/api/NotificationApi.ts
  OBR_NOTIFICATION_SHOW: ({ message, variant }) => {
    const id = `note-${notifications.length + 1}`;
    notifications.push({ id, message, variant: variant ?? "DEFAULT" });
    const item = document.createElement("li");
    item.dataset.variant = variant ?? "DEFAULT";
    item.textContent = message;
    $("notifications").append(item);
    return { id };
  },
  // src/api/ContextMenuApi.ts: icons' paths made absolute by src/common/normalize.ts
  OBR_CONTEXT_MENU_CREATE: ({ id, icons }, frame) => {
    menus.set(id, { frame, icons });
    return {};
  },
  // src/api/scene/SceneApi.ts, src/api/scene/SceneItemsApi.ts
  OBR_SCENE_IS_READY: () => ({ ready: true }),
  OBR_SCENE_ITEMS_GET_ITEMS: ({ ids }) => ({ items: room.items.filter((item) => ids.includes(item.id)) }),
  // src/api/ActionApi.ts
  OBR_ACTION_OPEN: () => {
    openAction(true);
    return {};
  },
  // src/api/ThemeApi.ts (src/types/Theme.ts): Owlbear Rodeo's dark theme colours
  OBR_THEME_GET_THEME: () => ({
    theme: {
      mode: "DARK",
      primary: { light: "#d6c6ff", main: "#bb99ff", dark: "#8d6fd6", contrastText: "#222639" },
      secondary: { light: "#f3c2ff", main: "#ee99ff", dark: "#b86fcc", contrastText: "#222639" },
      background: { default: "#222639", paper: "#3d4051" },
      text: { primary: "#ffffff", secondary: "rgba(255, 255, 255, 0.7)", disabled: "rgba(255, 255, 255, 0.5)" },
    },
  }),
};

/** Messages the extension sent that this host does not answer (a test fails on any). */
window.unanswered = [];

window.addEventListener("message", async (event) => {
  const frame = frames.get(event.source);
  const message = event.data;
  if (!frame || event.origin !== EXTENSION || typeof message?.id !== "string" || message.ref !== frame.ref) return;
  const handler = HANDLERS[message.id];
  if (!handler) {
    window.unanswered.push(message.id);
    if (message.nonce !== undefined) post(frame, `${message.id}_ERROR${message.nonce}`, { name: "Unsupported", message: `${message.id} is not supported by the stand-in host` });
    return;
  }
  try {
    const answer = await handler(message.data ?? {}, frame);
    if (message.nonce !== undefined) post(frame, `${message.id}_RESPONSE${message.nonce}`, answer ?? {});
  } catch (error) {
    if (message.nonce !== undefined) post(frame, `${message.id}_ERROR${message.nonce}`, { name: "Error", message: String(error) });
  }
});

// ---- the frames ----------------------------------------------------------------------------------

function embed(path, { width, height, title }) {
  const url = new URL(path, EXTENSION);
  url.searchParams.set("obrref", btoa(`${location.origin} ${room.id}`)); // src/common/getDetails.ts
  const iframe = document.createElement("iframe");
  iframe.title = title;
  if (width) iframe.width = width;
  if (height) iframe.height = height;
  const frame = { ref: crypto.randomUUID(), iframe, subscriptions: new Set(), channels: new Set() };
  iframe.addEventListener("load", () => {
    frames.set(iframe.contentWindow, frame);
    post(frame, "OBR_READY", { ref: frame.ref, userId: room.me.id }); // src/messages/MessageBus.ts
  });
  iframe.src = url.href;
  return iframe;
}

function openAction(open) {
  const popover = $("popover");
  if (open && !popover.firstChild) {
    const { popover: path, width, height, title } = manifest.action;
    popover.append(embed(path, { width, height, title }));
  }
  popover.hidden = !open;
  $("action").setAttribute("aria-expanded", String(open));
}

// ---- the map: selection and the context menu -----------------------------------------------------

function keyValue(item, key) {
  return (Array.isArray(key) ? key : [key]).reduce((value, part) => value?.[part], item);
}

/** src/types/ContextMenu.ts ContextMenuIconFilter, src/types/KeyFilter.ts (== and != only). */
function matches(filter, items) {
  if (!filter) return true;
  if (filter.roles && !filter.roles.includes(room.me.role)) return false;
  if (filter.min !== undefined && items.length < filter.min) return false;
  if (filter.max !== undefined && items.length > filter.max) return false;
  const test = (item, f) => (f.operator === "!=" ? keyValue(item, f.key) !== f.value : keyValue(item, f.key) === f.value);
  if (filter.every && !items.every((item) => filter.every.every((f) => test(item, f)))) return false;
  if (filter.some && !items.some((item) => filter.some.some((f) => test(item, f)))) return false;
  return true;
}

function select(ids) {
  room.me.selection = ids.length ? ids : null;
  for (const token of document.querySelectorAll(".token")) token.setAttribute("aria-pressed", String(ids.includes(token.dataset.item)));
  act("selection", { selection: ids });
}

function contextMenu(item, x, y) {
  const list = $("context-menu");
  const items = [item];
  const entries = [];
  for (const [id, menu] of menus) {
    const icon = menu.icons.find((i) => matches(i.filter, items)); // the first icon whose filter matches
    if (!icon) continue;
    const button = document.createElement("button");
    button.type = "button";
    button.setAttribute("role", "menuitem");
    const image = document.createElement("img");
    image.src = icon.icon;
    image.alt = "";
    button.append(image, icon.label);
    button.addEventListener("click", () => {
      list.hidden = true;
      const context = { items, selectionBounds: { min: item.position, max: item.position, width: 0, height: 0, center: item.position } };
      post(menu.frame, "OBR_CONTEXT_MENU_EVENT_CLICK", { id, context, elementId: `menu-${id}` });
    });
    const li = document.createElement("li");
    li.append(button);
    entries.push(li);
  }
  list.replaceChildren(...entries);
  list.style.left = `${x}px`;
  list.style.top = `${y}px`;
  list.hidden = entries.length === 0;
}

function drawMap() {
  $("map").replaceChildren(
    ...room.items.map((item) => {
      const token = document.createElement("button");
      token.type = "button";
      token.className = `token${item.layer === "CHARACTER" ? "" : " prop"}`;
      token.dataset.item = item.id;
      token.setAttribute("aria-pressed", "false");
      token.style.left = `${item.position.x}px`;
      token.style.top = `${item.position.y}px`;
      const name = document.createElement("span");
      name.textContent = item.name;
      token.append(name);
      token.addEventListener("click", () => select([item.id]));
      token.addEventListener("contextmenu", (event) => {
        event.preventDefault();
        select([item.id]);
        const stage = $("map").getBoundingClientRect();
        contextMenu(item, event.clientX - stage.left, event.clientY - stage.top);
      });
      return token;
    }),
  );
  document.addEventListener("click", (event) => {
    if (!event.target.closest("#context-menu")) $("context-menu").hidden = true;
  });
}

// ---- the room's events ---------------------------------------------------------------------------

function apply(event) {
  if (event.kind === "party") {
    room.party = event.payload;
    emit("party", "OBR_PARTY_EVENT_CHANGE", { players: room.party });
  } else if (event.kind === "player") {
    room.me = event.payload;
    emit("player", "OBR_PLAYER_EVENT_CHANGE", { player: room.me });
  } else if (event.kind === "room-metadata") {
    room.metadata = event.payload;
    emit("room-metadata", "OBR_ROOM_METADATA_EVENT_CHANGE", { metadata: room.metadata });
  } else if (event.kind === "broadcast") {
    const { channel, data, connectionId } = event.payload;
    for (const frame of frames.values()) {
      if (frame.channels.has(channel)) post(frame, `OBR_BROADCAST_MESSAGE_${channel}`, { data, connectionId });
    }
  }
}

async function pollForever() {
  for (;;) {
    try {
      const answer = await fetch(`/room/poll?conn=${CONN}&after=${room.seq}`, { cache: "no-store" }).then((r) => r.json());
      for (const event of answer.events) apply(event);
      room.seq = answer.seq;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}

async function main() {
  manifest = await fetch(new URL("/manifest.json", EXTENSION)).then((r) => r.json());
  const joined = await api("/room/join", { conn: CONN, ...ME });
  Object.assign(room, { id: joined.room, me: joined.me, party: joined.party, metadata: joined.metadata, items: joined.items, seq: joined.seq });
  $("me").textContent = `${room.me.name} (${room.me.role === "GM" ? "GM" : "player"})`;
  drawMap();
  $("action-icon").src = new URL(manifest.action.icon, EXTENSION).href;
  $("action-title").textContent = manifest.action.title;
  $("action").hidden = false;
  $("action").addEventListener("click", () => openAction($("popover").hidden));
  if (manifest.background_url) {
    $("background").append(embed(manifest.background_url, { title: "background" }));
  }
  pollForever();
  document.body.dataset.ready = "true";
}

main();
