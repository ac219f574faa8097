// The player's page inside Foundry: an ApplicationV2 window [F22] whose content is an <iframe>
// of /play/<id>#token=... We render our own frame (not core's FrameViewer [F24]) so that we set
// its `allow` attribute: the page copies links to the clipboard, which a cross-origin frame may
// only do when the embedder delegates `clipboard-write` [W4]. The server must list Foundry's
// origin in SKILLCHECK_FRAME_ANCESTORS (docs/play-page.md), and an https:// Foundry can only
// frame an https:// server [W1][F46].

import { escapeHtml } from "./i18n.mjs";

const windows = new Map(); // application id -> the open window
let PlayWindow = null;

/** The class, made on first use: foundry.applications.api.ApplicationV2 is core's (v12+). */
function playWindowClass() {
  if (PlayWindow) return PlayWindow;
  const { ApplicationV2 } = foundry.applications.api;
  PlayWindow = class SkillcheckPlayWindow extends ApplicationV2 {
    // DEFAULT_OPTIONS: classes, window {title, icon, resizable}, position {width, height} [F22].
    static DEFAULT_OPTIONS = {
      classes: ["skillcheck-window"],
      tag: "div",
      window: { title: "Skill check", icon: "fa-solid fa-layer-group", resizable: true, minimizable: true },
      position: { width: 480, height: 780 },
    };

    constructor(options = {}, frame = {}) {
      super(options);
      this.frameUrl = frame.url;
      this.frameTitle = frame.title ?? "Skill check";
    }

    /** The frame's HTML (a string: _replaceHTML inserts it) [F22]. */
    async _renderHTML(_context, _options) {
      return `<iframe class="skillcheck-frame" src="${escapeHtml(this.frameUrl)}" `
        + `title="${escapeHtml(this.frameTitle)}" allow="clipboard-write; fullscreen" `
        + `referrerpolicy="no-referrer"></iframe>`;
    }

    /** Insert the frame once; a re-render (the window resized or re-focused) keeps the page
     * and its game where they are instead of reloading it [F22]. */
    _replaceHTML(result, content, _options) {
      if (content.dataset?.frameUrl === this.frameUrl) return;
      content.innerHTML = result;
      if (content.dataset) content.dataset.frameUrl = this.frameUrl;
    }

    async _onClose(options) {
      windows.delete(this.id);
      return super._onClose?.(options);
    }
  };
  return PlayWindow;
}

/** Open (or bring forward) the window of a check: role "play" with the player's link, "watch"
 * with the spectators' link. */
export async function openCheckWindow({ checkId, role, url, title }) {
  const id = `skillcheck-${role}-${checkId}`;
  const open = windows.get(id);
  if (open?.rendered) {
    open.bringToFront?.();
    return open;
  }
  const Window = playWindowClass();
  const app = new Window({ id, window: { title } }, { url, title });
  windows.set(id, app);
  await app.render({ force: true }); // render({force: true}) opens the window [F22]
  return app;
}

/** The module's open windows (for tests and for closing them). */
export function openWindows() {
  return [...windows.values()];
}
