// Starting a check: the dialog (DialogV2 [F18]), the check created through the API by the
// active GM's client only, the public "check begun" card, and the player's link whispered to
// that player (and the GMs) with a button that opens it in a Foundry window.

import { KIND, MODULE_ID, inviteCard, startedCard } from "./cards.mjs";
import { escapeHtml } from "./i18n.mjs";
import { applies, gameFieldsetHtml, readParams } from "./params.mjs";
import { openCheckWindow } from "./play-window.mjs";
import { skillParameter, systemSkills } from "./skills.mjs";
import {
  SOCKET, SkillcheckProblem, explain, findMessage, isActiveGM, notify, serverApi, t,
} from "./context.mjs";

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// ---- the games, fetched once per session (GET /v1/games, GET /v1/games/{name}) --------------

let catalogue = null;

/** `{games: [detail...]}` with every game's parameters and examples. */
export async function games(api) {
  if (catalogue) return catalogue;
  const list = await api.games();
  const details = await Promise.all(list.games.map((g) => api.game(g.name)));
  catalogue = { games: details };
  return catalogue;
}

export function gameTitle(name) {
  return catalogue?.games.find((g) => g.name === name)?.title ?? name;
}

// ---- who plays ------------------------------------------------------------------------------

/** The players who own the actor (testUserPermission on the Document [F30]); GMs left out. */
export function playersOf(actor) {
  if (!actor) return [];
  return game.users.filter((u) => !u.isGM && actor.testUserPermission(u, "OWNER"));
}

function gmIds() {
  return game.users.filter((u) => u.isGM).map((u) => u.id);
}

function mayStart() {
  if (!game.user.isGM) throw new SkillcheckProblem(t("Notify.OnlyGM"));
  if (!isActiveGM()) {
    throw new SkillcheckProblem(t("Notify.OnlyActiveGM", { name: game.users.activeGM?.name ?? "?" }));
  }
}

// ---- creating a check -----------------------------------------------------------------------

/** Create the check and hand out its links. `actor` may be null; `playerId` null means the GM
 * plays it. `seed` (scripts and tests only) deals a chosen deal, which the player's page then
 * says. Returns `{checkId, view}`. */
export async function startCheck({ actor = null, game: name, params = {}, label = "", character = null, playerId = null, seed }) {
  mayStart();
  const api = serverApi();
  try {
    return await createAndShare(api, { actor, name, params, label, character, playerId, seed });
  } catch (error) {
    if (error instanceof SkillcheckProblem) throw error;
    const problem = new SkillcheckProblem(explain(error, api.base));
    problem.cause = error;
    problem.field = error.field ?? null;
    throw problem;
  }
}

async function createAndShare(api, { actor, name, params, label, character, playerId, seed }) {
  await games(api);
  const body = {
    game: name,
    params,
    // Tag the check with this world: the GM's list (GET /v1/checks) holds every check of the
    // key, and the result watcher posts only this world's (results.mjs).
    metadata: { foundry: { world: game.world.id, actor: actor?.uuid ?? null, user: playerId } },
  };
  if (label) body.label = label;
  const who = character || actor?.name || null;
  if (who) body.character = who;
  if (seed !== undefined) body.seed = seed;
  const created = await api.createCheck(body);
  const view = created.view;
  const title = gameTitle(name);
  const speaker = ChatMessage.getSpeaker(actor ? { actor } : { alias: who ?? t("Title") }); // [F29]
  const watchUrl = api.pageUrl(created.check_id, view.game, created.spectator_token);
  const playUrl = api.pageUrl(created.check_id, view.game, created.player_token);

  // Everyone: the check has begun, with the spectators' link (read-only, may be public).
  await ChatMessage.create({
    content: startedCard(view, title, t),
    speaker,
    flags: { [MODULE_ID]: { kind: KIND.started, checkId: created.check_id, watchUrl, commitment: created.commitment, game: name, label: label || null } },
  });
  // The player and the GMs only: the player's link, in a whisper [F28]. It is in the flags,
  // not in the card's HTML, and the socket nudge below carries no token at all.
  const whisper = [...new Set([...(playerId ? [playerId] : []), ...gmIds()])];
  await ChatMessage.create({
    content: inviteCard(view, title, t),
    speaker,
    whisper,
    flags: { [MODULE_ID]: { kind: KIND.invite, checkId: created.check_id, playUrl, userId: playerId, label: label || null } },
  });
  if (playerId && playerId !== game.user.id) {
    // "Open it now" for the player's client; the emitter does not receive it [F31][F32].
    game.socket.emit(SOCKET, { type: "open", checkId: created.check_id, userId: playerId });
    notify("info", t("Notify.Sent", { player: game.users.get(playerId)?.name ?? playerId }));
  } else {
    if (!playerId && actor) notify("warn", t("Notify.NoPlayer"));
    await openInvite(created.check_id);
  }
  return { checkId: created.check_id, view };
}

// ---- opening a check's window ---------------------------------------------------------------

/** Open the player's window from the invite this user can see. The socket nudge may arrive
 * before the whispered message does, so wait for it a little. */
export async function openInvite(checkId, { wait = 5000 } = {}) {
  let message = findMessage(checkId, KIND.invite);
  for (let waited = 0; !message && waited < wait; waited += 100) {
    await sleep(100);
    message = findMessage(checkId, KIND.invite);
  }
  if (!message) {
    notify("warn", t("Notify.LinkGone"));
    return null;
  }
  const label = message.getFlag(MODULE_ID, "label") ?? t("Title");
  return openCheckWindow({
    checkId, role: "play", url: message.getFlag(MODULE_ID, "playUrl"), title: t("Window.Title", { label }),
  });
}

/** Open the spectators' window (the result card's "see the whole deal" too). */
export async function openWatch(checkId) {
  const message = findMessage(checkId, KIND.result) ?? findMessage(checkId, KIND.started);
  const url = message?.getFlag(MODULE_ID, "watchUrl");
  if (!url) {
    notify("warn", t("Notify.LinkGone"));
    return null;
  }
  const label = message.getFlag(MODULE_ID, "label") ?? t("Title");
  return openCheckWindow({ checkId, role: "watch", url, title: t("Window.TitleWatch", { label }) });
}

/** The socket handler: open the window when the GM's client says this user's check is ready. */
export function onSocket(data) {
  if (data?.type === "open" && data.userId === game.user.id && typeof data.checkId === "string") {
    openInvite(data.checkId);
  }
}

// ---- the dialog ------------------------------------------------------------------------------

let dialogs = 0;

/** The dialog's HTML: game, label, character, who plays, the character's skill (where the
 * system has skills), and one fieldset of parameters per game (the chosen one shown). */
export function dialogHtml({ details, chosen, actor, values, skills, skillKey, players, playerId, error }) {
  const prefix = `skillcheck-${++dialogs}`;
  const options = details.map((d) => `<option value="${escapeHtml(d.name)}"${d.name === chosen ? " selected" : ""}>${escapeHtml(d.title)}</option>`).join("");
  const skill = skills.find((s) => s.key === skillKey);
  const fieldsets = details.map((d) => {
    const spec = d.parameters.find((p) => p.name === "skill");
    const overrides = {};
    for (const p of d.parameters) {
      const v = values?.[`param.${d.name}.${p.name}`];
      if (v !== undefined) overrides[p.name] = p.kind === "cards" ? String(v).split(/\s+/).filter(Boolean) : v;
      else if (values && d.name === chosen && p.kind === "bool" && !p.optional) overrides[p.name] = false; // unchecked
    }
    if (skill && spec && !(`param.${d.name}.skill` in (values ?? {}))) overrides.skill = skillParameter(skill.total, spec);
    return gameFieldsetHtml(d, { initial: d.examples?.[0]?.params ?? {}, overrides, hidden: d.name !== chosen, t, idPrefix: prefix });
  }).join("");
  const skillField = skills.length
    ? `<div class="form-group"><label for="${prefix}-sysskill">${escapeHtml(t("Dialog.SystemSkill"))}</label>
       <div class="form-fields"><select id="${prefix}-sysskill" name="systemSkill">
       <option value="">${escapeHtml(t("Dialog.SystemSkillNone"))}</option>
       ${skills.map((s) => `<option value="${escapeHtml(s.key)}" data-total="${s.total}"${s.key === skillKey ? " selected" : ""}>${escapeHtml(`${s.label} (${s.total >= 0 ? "+" : ""}${s.total})`)}</option>`).join("")}
       </select></div><p class="hint">${escapeHtml(t("Dialog.SystemSkillHint", { system: game.system.title ?? game.system.id }))}</p></div>`
    : "";
  const playerOptions = players.map((u) => `<option value="${escapeHtml(u.id)}"${u.id === playerId ? " selected" : ""}>${escapeHtml(u.name)}${u.active ? "" : " (offline)"}</option>`).join("")
    + `<option value=""${playerId ? "" : " selected"}>${escapeHtml(t("Dialog.PlayerGM"))}</option>`;
  const label = values?.label ?? (skill ? `${skill.label}` : "");
  const character = values?.character ?? actor?.name ?? "";
  return `<div class="skillcheck-dialog">
    ${error ? `<p class="skillcheck-error" role="alert">${escapeHtml(error)}</p>` : ""}
    <div class="form-group"><label for="${prefix}-game">${escapeHtml(t("Dialog.Game"))}</label>
      <div class="form-fields"><select id="${prefix}-game" name="game">${options}</select></div></div>
    <div class="form-group"><label for="${prefix}-label">${escapeHtml(t("Dialog.Label"))}</label>
      <div class="form-fields"><input id="${prefix}-label" name="label" type="text" maxlength="200"
        value="${escapeHtml(label)}" placeholder="${escapeHtml(t("Dialog.LabelPlaceholder"))}"></div></div>
    <div class="form-group"><label for="${prefix}-character">${escapeHtml(t("Dialog.Character"))}</label>
      <div class="form-fields"><input id="${prefix}-character" name="character" type="text" maxlength="200"
        value="${escapeHtml(character)}"></div></div>
    <div class="form-group"><label for="${prefix}-player">${escapeHtml(t("Dialog.Player"))}</label>
      <div class="form-fields"><select id="${prefix}-player" name="player">${playerOptions}</select></div></div>
    ${skillField}
    ${fieldsets}
  </div>`;
}

/** The dialog's values as FormData gives them (name -> string). */
function formValues(form) {
  return Object.fromEntries(new FormData(form).entries());
}

/** Show the chosen game's fieldset; fill the skill in from the character's skill. */
function wire(element, details, skills) {
  const form = element.querySelector("form") ?? element;
  const gameSelect = form.querySelector("select[name=game]");
  const show = () => {
    for (const set of form.querySelectorAll("fieldset.skillcheck-params")) set.hidden = set.dataset.game !== gameSelect.value;
    // a parameter of another variant (applies_if) hides; readParams leaves it out
    const values = formValues(form);
    for (const d of details) {
      for (const spec of d.parameters) {
        const group = form.querySelector(`fieldset[data-game="${d.name}"] [data-param="${spec.name}"]`);
        if (group) group.hidden = !applies(d, spec, values);
      }
    }
  };
  gameSelect?.addEventListener("change", show);
  form.addEventListener("change", show);
  form.querySelector("select[name=systemSkill]")?.addEventListener("change", (event) => {
    const skill = skills.find((s) => s.key === event.target.value);
    if (!skill) return;
    for (const d of details) {
      const spec = d.parameters.find((p) => p.name === "skill");
      const input = spec && form.querySelector(`[name="param.${d.name}.skill"]`);
      if (input) input.value = String(skillParameter(skill.total, spec));
    }
    const label = form.querySelector("input[name=label]");
    if (label && !label.value) label.value = skill.label;
  });
  show();
}

/** The check dialog for an actor (or none): the macro API
 * `game.modules.get("skillcheck").api.openCheckDialog(actor)`, the token HUD button and the
 * scene control call it. Options: `game`, `skill` (a system skill key, e.g. "slt"), `label`.
 * Resolves to `{checkId, view}` or null when closed. */
export async function openCheckDialog(actor = null, options = {}) {
  let api;
  try {
    mayStart();
    api = serverApi();
    await games(api);
  } catch (error) {
    notify("error", explain(error));
    return null;
  }
  const details = catalogue.games;
  const skills = systemSkills(actor, game.system.id, CONFIG[game.system.id.toUpperCase()], (s) => game.i18n.localize(s));
  const players = playersOf(actor);
  let state = {
    details, chosen: options.game ?? details[0]?.name, actor, values: options.label ? { label: options.label } : null,
    skills, skillKey: options.skill ?? null, players,
    playerId: (players.find((u) => u.active) ?? players[0])?.id ?? null, error: null,
  };
  const { DialogV2 } = foundry.applications.api;
  for (;;) {
    const values = await DialogV2.wait({
      window: { title: actor ? t("Dialog.Title", { name: actor.name }) : t("Dialog.TitleNoActor"), icon: "fa-solid fa-layer-group" },
      classes: ["skillcheck-dialog-window"],
      position: { width: 520 },
      content: dialogHtml(state),
      buttons: [
        { action: "start", label: t("Dialog.Start"), icon: "fa-solid fa-play", default: true,
          callback: (_event, button) => formValues(button.form) },
        { action: "cancel", label: t("Dialog.Cancel"), icon: "fa-solid fa-xmark" },
      ],
      // The chosen game's fields follow the game select (a render callback of DialogV2.wait).
      render: (_event, dialogOrElement) => {
        const isElement = globalThis.HTMLElement && dialogOrElement instanceof globalThis.HTMLElement;
        const element = isElement ? dialogOrElement : dialogOrElement?.element;
        if (element) wire(element, details, skills);
      },
      rejectClose: false, // its default differs between v12 and v13: say it [F19]
    });
    if (!values || typeof values !== "object") return null; // closed or cancelled
    const detail = details.find((d) => d.name === values.game);
    const read = detail ? readParams(detail, values) : { error: "?" };
    state = { ...state, chosen: values.game, values, skillKey: values.systemSkill || null, playerId: values.player || null };
    if (read.error) {
      state.error = t("Dialog.Failed", { reason: read.error });
      continue;
    }
    try {
      const started = await startCheck({
        actor, game: values.game, params: read.params, label: values.label?.trim() ?? "",
        character: values.character?.trim() || null, playerId: values.player || null,
      });
      notify("info", t("Notify.Started", { label: values.label || gameTitle(values.game) }));
      return started;
    } catch (error) {
      // Shown again with the values kept and the reason on top (a quota above the skill...).
      state.error = t("Dialog.Failed", { reason: error.message });
    }
  }
}
