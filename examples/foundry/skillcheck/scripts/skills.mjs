// Skills from the character sheet, where the game system provides them. No Foundry globals:
// main.mjs passes the actor, the system id and the system's CONFIG (tested under Node).
//
// dnd5e: `actor.system.skills` is a record keyed by skill id (acr, ath, slt, ...) [F26]; during
// data preparation the system derives each skill's `total` (the check modifier: ability
// modifier + proficiency + bonuses) and `mod` [F26]; the skill names are
// `CONFIG.DND5E.skills[key].label` [F27] (a localisation key the system translates).
// A game's `skill` parameter takes that total, limited to the range the game allows (its
// minimum and maximum in GET /v1/games): a +5 Sleight of Hand deals a Three Towers quota check
// with 5 suited cards, a Tri Peaks stock of skill 5. Other systems: the GM types the skill
// (pf2e's skill data is unconfirmed against current releases [F27]).

/** `[{key, label, total}]` for the actor's skills, or [] where the system has none we read. */
export function systemSkills(actor, systemId, systemConfig, localize = (s) => s) {
  if (systemId !== "dnd5e") return [];
  const skills = actor?.system?.skills;
  if (!skills || typeof skills !== "object") return [];
  const names = systemConfig?.skills ?? {};
  return Object.entries(skills)
    .map(([key, data]) => {
      const total = Number.isFinite(data?.total) ? data.total : Number.isFinite(data?.mod) ? data.mod : null;
      const rawLabel = names[key]?.label ?? key;
      return { key, label: localize(rawLabel), total };
    })
    .filter((skill) => skill.total !== null)
    .sort((a, b) => a.label.localeCompare(b.label));
}

/** A skill total as the game's `skill` parameter: a whole number within [minimum, maximum]. */
export function skillParameter(total, spec) {
  let value = Math.round(total);
  if (spec?.minimum !== null && spec?.minimum !== undefined) value = Math.max(spec.minimum, value);
  if (spec?.maximum !== null && spec?.maximum !== undefined) value = Math.min(spec.maximum, value);
  return value;
}
