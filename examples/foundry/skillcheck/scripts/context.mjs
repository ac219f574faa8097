// What every Foundry-facing part shares: the words, who may act, the server connection from
// the settings, and the module's chat messages. Touches Foundry globals (game, ui) only.

import { MODULE_ID } from "./cards.mjs";
import { SkillcheckApi, checkServerUrl, failureText } from "./client.mjs";

export { MODULE_ID };
export const SOCKET = `module.${MODULE_ID}`; // the package's socket event name [F31]

/** The module's words: game.i18n.format with data, localize without [F25 game.d.mts]. */
export function t(key, data) {
  const full = `SKILLCHECK.${key}`;
  return data ? game.i18n.format(full, data) : game.i18n.localize(full);
}

/** This client is the one GM that acts: game.users.activeGM is "one User who is an active
 * Gamemaster ... useful for workflows which occur on all clients, but where only one user
 * should take action" [F25]. */
export function isActiveGM() {
  return Boolean(game.user?.isGM) && game.users.activeGM?.id === game.user.id;
}

/** The page's location, for explaining failures (absent under Node). */
export function page() {
  const location = globalThis.location;
  return { pageOrigin: location?.origin ?? "(this Foundry's address)", pageProtocol: location?.protocol ?? "https:" };
}

/** A failure a GM reads: its words are already in the message. */
export class SkillcheckProblem extends Error {}

/** The server client, from the world's address and this browser's GM key. Throws a
 * SkillcheckProblem saying what to set. Only the GM's browser holds a key [F15][F17]. */
export function serverApi() {
  const checked = checkServerUrl(game.settings.get(MODULE_ID, "apiUrl"), page().pageProtocol);
  if (checked.problem) {
    throw new SkillcheckProblem(t(`Notify.${checked.problem}`, { url: game.settings.get(MODULE_ID, "apiUrl") }));
  }
  const key = String(game.settings.get(MODULE_ID, "gmKey") ?? "").trim();
  if (!key) throw new SkillcheckProblem(t("Notify.NoKey"));
  return new SkillcheckApi(checked.url, key);
}

/** The words for any failure: ours as they are, the server's and the network's explained. */
export function explain(error, apiUrl) {
  if (error instanceof SkillcheckProblem) return error.message;
  return failureText(error, { apiUrl: apiUrl ?? game.settings.get(MODULE_ID, "apiUrl"), ...page() }, t);
}

/** Tell the user: ui.notifications.info/warn/error. */
export function notify(level, text) {
  ui.notifications[level](text);
}

/** The module's chat message of a check, of one kind (started, invite, result): flags are read
 * with getFlag(scope, key), the scope being the module id [F30][F35]; game.messages is the
 * ChatMessage collection [F25]. */
export function findMessage(checkId, kind) {
  return game.messages.find(
    (m) => m.getFlag(MODULE_ID, "checkId") === checkId && m.getFlag(MODULE_ID, "kind") === kind,
  ) ?? null;
}
