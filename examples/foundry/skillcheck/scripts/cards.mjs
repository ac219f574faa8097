// Chat cards: the check begun (public, with a watch button), the player's invitation (whispered
// to that player and the GMs), the result (public). HTML strings for ChatMessage.create's
// `content` [F28]; buttons carry `data-skillcheck-action` and the check id, and main.mjs
// handles their clicks. No Foundry globals here: tested directly under Node.

import { escapeHtml } from "./i18n.mjs";

/** The flag scope must be the module id [F30][F35]. */
export const MODULE_ID = "skillcheck";

/** Kinds of the module's chat messages (flags.skillcheck.kind). */
export const KIND = { started: "started", invite: "invite", result: "result" };

const button = (action, checkId, text, icon) =>
  `<button type="button" class="skillcheck-button" data-skillcheck-action="${action}" `
  + `data-check-id="${escapeHtml(checkId)}"><i class="${icon}" inert></i> ${escapeHtml(text)}</button>`;

function heading(view, gameTitle) {
  const label = view.label ? `<strong class="skillcheck-label">${escapeHtml(view.label)}</strong>` : "";
  return `<header class="skillcheck-head">${label}<span class="skillcheck-game">${escapeHtml(gameTitle)}</span></header>`;
}

/** Public: "Mira is making a skill check", with a button that opens the spectators' view. */
export function startedCard(view, gameTitle, t) {
  const who = view.character
    ? t("Card.Started", { character: view.character })
    : t("Card.StartedNoCharacter");
  return `<div class="skillcheck-card skillcheck-started" data-check-id="${escapeHtml(view.check_id)}">`
    + `${heading(view, gameTitle)}<p class="skillcheck-line">${escapeHtml(who)}</p>`
    + `${button("watch", view.check_id, t("Card.Watch"), "fa-solid fa-eye")}`
    + `<details class="skillcheck-details"><summary>${escapeHtml(t("Card.Details"))}</summary>`
    + `<p>${escapeHtml(t("Card.Commitment", { short: String(view.commitment ?? "").slice(0, 16) }))}</p>`
    + `<p>${escapeHtml(t("Card.CheckId", { id: view.check_id }))}</p></details></div>`;
}

/** Whispered to the player: a button that opens the check in a window. The link (with the
 * player's token) is in the message's flags, not in the HTML. */
export function inviteCard(view, gameTitle, t) {
  const title = view.character ? t("Card.InviteFor", { character: view.character }) : t("Card.Invite");
  return `<div class="skillcheck-card skillcheck-invite" data-check-id="${escapeHtml(view.check_id)}">`
    + `${heading(view, gameTitle)}<p class="skillcheck-line">${escapeHtml(title)}</p>`
    + `${button("play", view.check_id, t("Card.Play"), "fa-solid fa-play")}`
    + `<p class="skillcheck-hint">${escapeHtml(t("Card.InviteHint"))}</p></div>`;
}

/** "+3", "0", "−2" (a real minus sign). */
export function signed(degree) {
  if (degree === null || degree === undefined) return "";
  return degree > 0 ? `+${degree}` : degree < 0 ? `\u2212${-degree}` : "0";
}

/** The verdict in words: the tier ("Critical success") when the server grades tiers, else
 * Success/Failure; "Called off" for a cancelled check. */
export function verdict(view, t) {
  if (view.status === "cancelled") return t("Card.Cancelled");
  if (view.tier_text) return view.tier_text;
  return view.status === "won" ? t("Card.Success") : t("Card.Failure");
}

/** Public result card. `honest`: true/false/null from commitmentMatches. */
export function resultCard(view, gameTitle, t, { honest = null, seedChosen = false } = {}) {
  const tierClass = view.status === "cancelled" ? "cancelled" : String(view.tier ?? (view.status === "won" ? "success" : "failure")).replace(/_/g, "-");
  const lines = [];
  if (view.status === "cancelled") {
    lines.push(view.cancel_reason ? t("Card.CancelledReason", { reason: view.cancel_reason }) : t("Card.CancelledBy"));
  } else {
    // The game's summary repeats the verdict as a prefix ("success: a tower of..."): the card
    // says it above, so the line starts with what happened.
    const summary = String(view.outcome?.summary ?? "").replace(/^(success|failure)\s*:\s*/i, "");
    if (summary) lines.push(summary.charAt(0).toUpperCase() + summary.slice(1));
  }
  const degree = view.status === "cancelled" || view.degree === null || view.degree === undefined
    ? "" : `<p class="skillcheck-degree">${escapeHtml(t("Card.Degree", { degree: signed(view.degree) }))}</p>`;
  const check = honest === true ? t("Card.CommitmentOk") : honest === false ? t("Card.CommitmentBad") : t("Card.CommitmentUnchecked");
  return `<div class="skillcheck-card skillcheck-result tier-${escapeHtml(tierClass)}" data-check-id="${escapeHtml(view.check_id)}">`
    + `${heading(view, gameTitle)}`
    + `<p class="skillcheck-verdict">${escapeHtml(verdict(view, t))}</p>`
    + lines.map((line) => `<p class="skillcheck-summary">${escapeHtml(line)}</p>`).join("")
    + degree
    + `${button("watch", view.check_id, t("Card.SeeDeal"), "fa-solid fa-magnifying-glass")}`
    + `<details class="skillcheck-details"><summary>${escapeHtml(t("Card.Details"))}</summary>`
    + `<p class="${honest === false ? "skillcheck-bad" : ""}">${escapeHtml(check)}</p>`
    + (seedChosen ? `<p>${escapeHtml(t("Card.SeedChosen"))}</p>` : "")
    + `<p>${escapeHtml(t("Card.CheckId", { id: view.check_id }))}</p></details></div>`;
}
