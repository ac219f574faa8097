// Words: every text the module shows lives in languages/<lang>.json under "SKILLCHECK".
// The pure modules take a `t(key, data)` function; in Foundry it is game.i18n.format/localize
// (main.mjs), under Node and in the test harness `translator(dictionary)` does the same lookup
// and the same `{name}` substitution as Foundry's Localization#format.

/** A `t(key, data)` over a parsed languages/<lang>.json (keys without the "SKILLCHECK." prefix). */
export function translator(dictionary) {
  return (key, data = {}) => {
    let node = dictionary.SKILLCHECK;
    for (const part of key.split(".")) node = node?.[part];
    if (typeof node !== "string") return `SKILLCHECK.${key}`; // Foundry shows a missing key so too
    return node.replace(/\{(\w+)\}/g, (whole, name) => (name in data ? String(data[name]) : whole));
  };
}

/** Escape text for HTML content and attribute values. */
export function escapeHtml(text) {
  return String(text ?? "").replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
