// The check dialog's fields, generated from a game's parameters as GET /v1/games lists them
// (name, kind int|bool|choice|cards, default, help, minimum, maximum, choices, optional, path,
// applies_if),
// the same way the GM's page builds its form (api/static/gm.js), and the POST /v1/checks
// `params` read back from the form. No Foundry globals here: tested directly under Node.

import { escapeHtml } from "./i18n.mjs";

/** "move_limit" -> "Move limit" (parameter and choice names as people read them). */
export function humanName(name) {
  const words = String(name).replace(/_/g, " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The value at `path` in a nested params object (an example's), or undefined. */
export function valueAt(object, path) {
  let value = object;
  for (const part of path) {
    if (value === null || typeof value !== "object" || !(part in value)) return undefined;
    value = value[part];
  }
  return value;
}

/** The form field name of a game's parameter: one fieldset per game lives in the dialog. */
export function fieldName(game, spec) {
  return `param.${game}.${spec.name}`;
}

const attr = (name, value) => (value === null || value === undefined ? "" : ` ${name}="${escapeHtml(value)}"`);

/** One parameter as a Foundry form group (`.form-group`, `.form-fields`, `.hint`: the classes
 * of Foundry's own settings forms). `initial` overrides the default (an example's value). */
export function fieldHtml(game, spec, initial, t, idPrefix) {
  const name = fieldName(game, spec);
  const id = `${idPrefix}-${game}-${spec.name}`;
  const start = initial ?? spec.default;
  const label = `<label for="${escapeHtml(id)}">${escapeHtml(humanName(spec.name))}</label>`;
  const hint = spec.help ? `<p class="hint">${escapeHtml(spec.help)}</p>` : "";
  let control;
  if (spec.kind === "bool" && !spec.optional) {
    control = `<input type="checkbox" id="${escapeHtml(id)}" name="${escapeHtml(name)}"${start ? " checked" : ""}>`;
  } else if (spec.kind === "bool") {
    const chosen = start === true ? "true" : start === false ? "false" : "";
    const options = [["", t("Dialog.Default")], ["true", t("Dialog.Yes")], ["false", t("Dialog.No")]];
    control = `<select id="${escapeHtml(id)}" name="${escapeHtml(name)}">${options
      .map(([v, text]) => `<option value="${v}"${v === chosen ? " selected" : ""}>${escapeHtml(text)}</option>`)
      .join("")}</select>`;
  } else if (spec.kind === "choice") {
    const chosen = start === null || start === undefined ? "" : String(start);
    const options = (spec.optional ? [["", t("Dialog.None")]] : []).concat(
      (spec.choices ?? []).map((c) => [String(c), humanName(c)]),
    );
    control = `<select id="${escapeHtml(id)}" name="${escapeHtml(name)}">${options
      .map(([v, text]) => `<option value="${escapeHtml(v)}"${v === chosen ? " selected" : ""}>${escapeHtml(text)}</option>`)
      .join("")}</select>`;
  } else if (spec.kind === "int") {
    control = `<input type="number" id="${escapeHtml(id)}" name="${escapeHtml(name)}" step="1" inputmode="numeric"`
      + `${attr("min", spec.minimum)}${attr("max", spec.maximum)}`
      + `${attr("value", start === null || start === undefined ? "" : String(start))}`
      + `${spec.optional ? attr("placeholder", t("Dialog.None")) : ""}>`;
  } else {
    const text = Array.isArray(start) ? start.join(" ") : "";
    control = `<input type="text" id="${escapeHtml(id)}" name="${escapeHtml(name)}" autocomplete="off" spellcheck="false"`
      + `${attr("value", text)}${attr("placeholder", t("Dialog.CardCodes"))}>`;
  }
  return `<div class="form-group" data-param="${escapeHtml(spec.name)}">${label}`
    + `<div class="form-fields">${control}</div>${hint}</div>`;
}

/** A game's fieldset: every parameter, pre-filled from `initial` (nested params, e.g. the
 * game's first example) and `overrides` (flat, by parameter name: the actor's skill). */
export function gameFieldsetHtml(detail, { initial = {}, overrides = {}, hidden = false, t, idPrefix }) {
  const field = (spec) =>
    fieldHtml(detail.name, spec, spec.name in overrides ? overrides[spec.name] : valueAt(initial, spec.path), t, idPrefix);
  const main = detail.parameters.filter((spec) => !isRare(spec)).map(field).join("");
  const rare = detail.parameters.filter(isRare).map(field).join("");
  // Closed <details> still submit their fields: the rare ones keep their defaults unless opened.
  const more = rare ? `<details class="skillcheck-more"><summary>${escapeHtml(t("Dialog.More"))}</summary>${rare}</details>` : "";
  return `<fieldset class="skillcheck-params" data-game="${escapeHtml(detail.name)}"${hidden ? " hidden" : ""}>`
    + `<legend>${escapeHtml(t("Dialog.Parameters"))}: ${escapeHtml(detail.title)}</legend>${main}${more}</fieldset>`;
}

/** Settings every game shares and a check rarely changes (undo, a move limit) and a GM's own
 * choice of cards: behind "More settings", so the dialog shows the check itself first. */
export function isRare(spec) {
  return spec.name === "undo" || spec.name === "move_limit" || spec.kind === "cards";
}

/** Whether `spec` goes with the form's values: a parameter with `applies_if` (a quota check's
 * quota) only while the parameter it names has one of its values. The dialog hides the others
 * and leaves them out of the check, as the GM's page does. */
export function applies(detail, spec, values) {
  const condition = spec.applies_if;
  if (!condition) return true;
  const other = detail.parameters.find((p) => p.name === condition.parameter);
  const chosen = other ? values[fieldName(detail.name, other)] : undefined;
  return typeof chosen === "string" && condition.values.includes(chosen);
}

/** The `params` of POST /v1/checks from the form's values (`values`: name -> string, as
 * FormData gives them; an unchecked checkbox is absent). Returns `{params}`, or `{error,
 * field}` for a value that cannot be sent; what only the game can judge (a quota above the
 * skill) the server answers with 422 naming the field. */
export function readParams(detail, values) {
  const params = {};
  for (const spec of detail.parameters) {
    if (!applies(detail, spec, values)) continue; // (hidden: another variant's option)
    const raw = values[fieldName(detail.name, spec)];
    const text = typeof raw === "string" ? raw.trim() : "";
    let value;
    if (spec.kind === "bool" && !spec.optional) value = raw !== undefined && raw !== "" && raw !== "false";
    else if (spec.kind === "bool") value = text === "" ? null : text === "true";
    else if (spec.kind === "int") {
      if (text === "") value = null;
      else if (!/^-?\d+$/.test(text)) return { error: `${humanName(spec.name)}: a whole number`, field: spec.name };
      else value = Number.parseInt(text, 10);
      if (value === null && !spec.optional) return { error: `${humanName(spec.name)}: needed`, field: spec.name };
    } else if (spec.kind === "cards") {
      const codes = text.replace(/,/g, " ").split(/\s+/).filter(Boolean);
      value = codes.length ? codes : null;
    } else value = text === "" ? null : text;
    if (value === null) continue;
    let target = params;
    for (const part of spec.path.slice(0, -1)) {
      target[part] = target[part] && typeof target[part] === "object" ? target[part] : {};
      target = target[part];
    }
    target[spec.path[spec.path.length - 1]] = value;
  }
  return { params };
}
