// The background page (manifest background_url): Owlbear Rodeo keeps it loaded for the whole
// session, popover open or not [O3]. For everyone it publishes this player's public key, opens
// the player links sealed for this player and shows each result as a notification. For the GM it
// adds "Skill check" to the context menu of character tokens, follows the GM's checks on the
// server and, when one of this room's checks ends, puts the result in the room's list and
// broadcasts it to the whole room. SDK calls wait for OBR.onReady [O1].

import OBR from "./vendor/owlbear-rodeo-sdk.js";
import * as sc from "./skillcheck.js";
import * as store from "./store.js";

const MENU_ID = `${sc.NS}/skill-check`;
// A full URL: the SDK resolves a bare path against the origin only, which breaks sub-path hosting [O1].
const ICON = new URL("./icon.svg", import.meta.url).href;

const me = { id: null, role: null, connection: null, room: null, keys: null };
let follower = null;
let roomWrites = Promise.resolve();

function report(error) {
  console.warn("skillcheck:", error);
}

/** Our key pair on this device, and its public half in our player metadata (the GM reads it). */
async function publishKey() {
  let keys = store.keyPair(me.id);
  if (!keys) {
    keys = await sc.makeKeyPair();
    store.saveKeyPair(me.id, keys);
  }
  const published = (await OBR.player.getMetadata())[sc.PLAYER_KEY];
  if (published?.id !== keys.id) {
    await OBR.player.setMetadata({ [sc.PLAYER_KEY]: { id: keys.id, jwk: keys.publicJwk } });
  }
  return keys;
}

/** Anyone in the room can broadcast: take links and results only from a GM's connection. */
async function fromGm(connectionId) {
  if (connectionId === me.connection) return me.role === "GM";
  const players = await OBR.party.getPlayers();
  return players.some((p) => p.connectionId === connectionId && p.role === "GM");
}

async function onLink({ data, connectionId }) {
  if (!data || data.to !== me.id || !(await fromGm(connectionId))) return;
  const link = await sc.openLink(data, me.id, me.keys);
  if (!link) return;
  store.addMyCheck(me.room, { ...link, at: new Date().toISOString() });
  const what = link.label ? `: ${link.label}` : "";
  await OBR.notification.show(`The GM sent you a skill check${what}. Play it in the skillcheck popover.`, "INFO");
  await OBR.action.open();
}

const VARIANTS = { won: "SUCCESS", lost: "WARNING", cancelled: "INFO" };

async function onResult({ data, connectionId }) {
  if (!data || typeof data.result !== "string" || !(await fromGm(connectionId))) return;
  await OBR.notification.show(sc.resultText(data), VARIANTS[data.status] || "DEFAULT");
}

// ---- the GM's side ---------------------------------------------------------------------------

/** The room's list from this GM's checks (one writer per GM device: this page). */
function syncRoom() {
  roomWrites = roomWrites
    .then(async () => {
      const entries = Object.values(store.gmChecks(me.room)).map((c) => sc.roomEntry(c, c.result || null));
      const metadata = await OBR.room.getMetadata();
      const list = sc.mergeRoomList(metadata[sc.ROOM_KEY], entries);
      if (JSON.stringify(list) !== JSON.stringify(metadata[sc.ROOM_KEY] ?? null)) {
        await OBR.room.setMetadata({ [sc.ROOM_KEY]: list });
      }
    })
    .catch(report);
  return roomWrites;
}

async function announce(summary) {
  const mine = store.gmChecks(me.room)[summary.check_id];
  if (!mine || mine.result) return; // another room's or GM's check, or announced already
  const result = sc.resultOf(summary);
  store.updateGmCheck(me.room, summary.check_id, { result });
  await syncRoom();
  // ALL: every other client and this one [O4], whose onResult shows the GM the notification.
  await OBR.broadcast.sendMessage(sc.RESULT_CHANNEL, result, { destination: "ALL" });
}

function follow() {
  follower?.stop();
  follower = null;
  const { server, key } = store.settings();
  if (!server || !key) return;
  follower = new sc.ResultFollower(new sc.Api(server, key), {
    onEnd: (summary) => announce(summary).catch(report),
  });
  follower.run();
}

async function startGm() {
  await OBR.contextMenu.create({
    id: MENU_ID,
    icons: [
      {
        icon: ICON,
        label: "Skill check",
        // One character token, for the GM only [O9][O10].
        filter: { roles: ["GM"], max: 1, every: [{ key: "layer", value: "CHARACTER" }] },
      },
    ],
    onClick(context) {
      const item = context.items[0];
      if (!item) return;
      store.setTarget({ id: item.id, name: sc.tokenName(item), createdUserId: item.createdUserId, at: Date.now() });
      OBR.action.open().catch(report);
    },
  });
  store.onStored((key) => {
    if (key === store.SETTINGS_KEY) follow();
    if (key === store.gmChecksKey(me.room)) syncRoom();
  });
  follow();
  await syncRoom();
}

OBR.onReady(async () => {
  try {
    me.id = await OBR.player.getId();
    me.role = await OBR.player.getRole();
    me.connection = await OBR.player.getConnectionId();
    me.room = OBR.room.id;
    me.keys = await publishKey();
    OBR.broadcast.onMessage(sc.LINK_CHANNEL, (event) => onLink(event).catch(report));
    OBR.broadcast.onMessage(sc.RESULT_CHANNEL, (event) => onResult(event).catch(report));
    OBR.player.onChange((player) => {
      if (player.role !== me.role) location.reload(); // made GM, or no longer: start again
    });
    if (me.role === "GM") await startGm();
  } catch (error) {
    report(error);
  }
});
