// Settings [F13]: the server's address for the whole world (scope "world"), the GM key in the
// GM's browser only (scope "client": kept in that browser's storage [F17]). World settings reach
// every client and any player can read them from the console [F15], so the key is never one.
// The key is typed in a menu that only a GM may open (registerMenu `restricted: true` [F13]).

import { MODULE_ID, SkillcheckProblem, explain, notify, serverApi, t } from "./context.mjs";

let KeyForm = null;

/** The GM key form: an ApplicationV2 with tag "form" and a form handler [F22]. */
function keyFormClass() {
  if (KeyForm) return KeyForm;
  const { ApplicationV2 } = foundry.applications.api;
  KeyForm = class SkillcheckKeyForm extends ApplicationV2 {
    static DEFAULT_OPTIONS = {
      id: "skillcheck-gm-key",
      tag: "form",
      classes: ["skillcheck-key-form"],
      window: { title: "SKILLCHECK.Key.Title", icon: "fa-solid fa-key" },
      position: { width: 460 },
      form: { handler: SkillcheckKeyForm.#save, closeOnSubmit: true },
      actions: { test: SkillcheckKeyForm.#test, forget: SkillcheckKeyForm.#forget },
    };

    async _renderHTML() {
      const stored = game.settings.get(MODULE_ID, "gmKey") ? "••••••••" : "";
      return `<p class="hint">${t("Key.Intro")}</p>
        <div class="form-group"><label for="skillcheck-key">${t("Key.Label")}</label>
        <div class="form-fields"><input id="skillcheck-key" name="key" type="password"
          autocomplete="off" spellcheck="false" placeholder="${stored}"></div></div>
        <p class="skillcheck-key-status" role="status"></p>
        <footer class="form-footer">
          <button type="button" data-action="test"><i class="fa-solid fa-plug" inert></i> ${t("Key.Test")}</button>
          <button type="button" data-action="forget"><i class="fa-solid fa-trash" inert></i> ${t("Key.Clear")}</button>
          <button type="submit"><i class="fa-solid fa-floppy-disk" inert></i> ${t("Key.Save")}</button>
        </footer>`;
    }

    _replaceHTML(result, content) {
      content.innerHTML = result;
    }

    static async #save(_event, form) {
      const key = form.elements.key.value.trim();
      if (key) await saveKey(key);
    }

    static async #test(_event, target) {
      const input = this.element.querySelector("input[name=key]").value.trim();
      const status = this.element.querySelector(".skillcheck-key-status");
      if (input) await saveKey(input);
      status.textContent = await testConnection();
      target.blur?.();
    }

    static async #forget() {
      await game.settings.set(MODULE_ID, "gmKey", "");
      notify("info", t("Key.Cleared"));
      this.render();
    }
  };
  return KeyForm;
}

/** Keep the GM key in this browser (the client setting). GMs only. */
export async function saveKey(key) {
  if (!game.user.isGM) throw new SkillcheckProblem(t("Key.NotGM"));
  await game.settings.set(MODULE_ID, "gmKey", key);
  notify("info", t("Key.Saved"));
}

/** Ask the server whether the key is a GM key: one page of one of the GM's checks. */
export async function testConnection() {
  try {
    await serverApi().listChecks({ limit: 1 });
    notify("info", t("Key.Works"));
    return t("Key.Works");
  } catch (error) {
    const text = explain(error);
    notify("error", text);
    return text;
  }
}

/** In the init hook: "most package registration calls should go in here" [F12]. */
export function registerSettings() {
  game.settings.register(MODULE_ID, "apiUrl", {
    name: "SKILLCHECK.Settings.ApiUrl.Name",
    hint: "SKILLCHECK.Settings.ApiUrl.Hint",
    scope: "world",
    config: true,
    type: String,
    default: "",
    onChange: () => Hooks.callAll("skillcheckServerChanged"),
  });
  game.settings.register(MODULE_ID, "catchUpDays", {
    name: "SKILLCHECK.Settings.CatchUpDays.Name",
    hint: "SKILLCHECK.Settings.CatchUpDays.Hint",
    scope: "world",
    config: true,
    type: Number,
    range: { min: 1, max: 90, step: 1 },
    default: 14,
  });
  // The key: this browser only, shown in no settings list; set through the GM-only menu.
  game.settings.register(MODULE_ID, "gmKey", {
    scope: "client",
    config: false,
    type: String,
    default: "",
    onChange: () => Hooks.callAll("skillcheckServerChanged"),
  });
  // Checks of the same GM key that belong to other worlds: looked up once, then skipped.
  game.settings.register(MODULE_ID, "otherWorldChecks", {
    scope: "client",
    config: false,
    type: Array,
    default: [],
  });
  // The checks whose result this world has posted (ids only, nothing secret): a result card
  // deleted from the chat, or a chat cleared, does not bring old results back on the next load.
  game.settings.register(MODULE_ID, "postedChecks", {
    scope: "world",
    config: false,
    type: Array,
    default: [],
  });
  game.settings.registerMenu(MODULE_ID, "gmKeyMenu", {
    name: "SKILLCHECK.Settings.KeyMenu.Name",
    label: "SKILLCHECK.Settings.KeyMenu.Label",
    hint: "SKILLCHECK.Settings.KeyMenu.Hint",
    icon: "fa-solid fa-key",
    type: keyFormClass(),
    restricted: true,
  });
}

/** Open the GM key form (the settings menu does the same). */
export function openKeyForm() {
  const Form = keyFormClass();
  return new Form().render({ force: true });
}
