// skillcheck for Foundry VTT v12/v13: card-game skill checks from a skillcheck server.
// The hooks: init registers the settings and the macro API, ready starts the active GM's result
// watcher and the socket handler [F12]. Everything else lives in the modules it imports.

import { MODULE_ID } from "./cards.mjs";
import { SOCKET, isActiveGM, t } from "./context.mjs";
import { onSocket, openCheckDialog, openInvite, openWatch, startCheck } from "./checks.mjs";
import { ResultWatcher } from "./results.mjs";
import { openKeyForm, registerSettings, saveKey, testConnection } from "./settings.mjs";

let watcher = null;

Hooks.once("init", () => {
  registerSettings();
  // The macro API: game.modules.get("skillcheck").api.openCheckDialog(actor).
  game.modules.get(MODULE_ID).api = {
    openCheckDialog, startCheck, openInvite, openWatch, openKeyForm, saveKey, testConnection,
    get watcher() { return watcher; },
  };
});

Hooks.once("ready", async () => {
  // Settings are read from ready on, which is safe on both versions [F12].
  game.socket.on(SOCKET, onSocket);
  globalThis.document?.addEventListener("click", onChatClick);
  watcher = new ResultWatcher();
  // Any user connecting or leaving may change who the active GM is.
  Hooks.on("userConnected", () => watcher.reconsider());
  // A new address or key: follow the server again with it.
  Hooks.on("skillcheckServerChanged", async () => {
    watcher.stop();
    await watcher.reconsider();
  });
  await watcher.reconsider();
});

/** The chat cards' buttons, in v12 and v13 alike: one listener on the document instead of a
 * render hook, whose arguments changed from jQuery to HTMLElement in v13 [F36][F52]. */
function onChatClick(event) {
  const button = event.target?.closest?.("[data-skillcheck-action]");
  if (!button) return;
  event.preventDefault();
  const checkId = button.dataset.checkId;
  if (button.dataset.skillcheckAction === "play") openInvite(checkId, { wait: 0 });
  else if (button.dataset.skillcheckAction === "watch") openWatch(checkId);
}

/** The actor a GM most likely means: the controlled token's [F25], else the user's character. */
function currentActor() {
  return globalThis.canvas?.tokens?.controlled?.[0]?.actor ?? game.user.character ?? null;
}

// A button in the token HUD (GMs): v12 passes jQuery, v13 an HTMLElement.
Hooks.on("renderTokenHUD", (hud, html) => {
  if (!isActiveGM()) return;
  const root = html instanceof HTMLElement ? html : html?.[0];
  const column = root?.querySelector(".col.right");
  if (!column || column.querySelector("[data-skillcheck]")) return;
  const button = document.createElement("button");
  button.type = "button";
  button.className = "control-icon";
  button.dataset.skillcheck = "open";
  button.title = t("Controls.Open");
  button.setAttribute("aria-label", t("Controls.Open"));
  button.innerHTML = '<i class="fa-solid fa-layer-group" inert></i>';
  button.addEventListener("click", (event) => {
    event.preventDefault();
    event.stopPropagation();
    openCheckDialog(hud.object?.actor ?? null);
  });
  column.append(button);
});

// A tool in the token controls (GMs): v12 gives an array of controls with tool arrays, v13 a
// record of controls with tool records.
Hooks.on("getSceneControlButtons", (controls) => {
  if (!game.user?.isGM) return;
  const tool = { name: MODULE_ID, title: t("Controls.Open"), icon: "fa-solid fa-layer-group", button: true, visible: true };
  const open = () => openCheckDialog(currentActor());
  if (Array.isArray(controls)) {
    controls.find((c) => c.name === "token")?.tools.push({ ...tool, onClick: open });
  } else if (controls?.tokens?.tools) {
    controls.tokens.tools[MODULE_ID] = { ...tool, order: Object.keys(controls.tokens.tools).length, onChange: open };
  }
});
