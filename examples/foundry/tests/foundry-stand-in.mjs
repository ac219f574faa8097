// The smallest stand-in for the Foundry VTT globals the module touches, so its Foundry-facing
// code runs unchanged under Node (in a worker thread per simulated browser) and in the test
// harness page (Chromium). Each member's shape comes from Foundry's documented API; the tags
// name the sources listed in docs/vtt-foundry.md ("Sources"). Nothing here
// decides anything for the module: it stores, relays and renders.
//
// What it models of Foundry's server (the `transport`): chat messages are stored once and sent
// to the clients that may see them (a whisper to its recipients and the GMs [F28]); world
// settings are one value for everyone, and only GMs may write them [F16]; client settings stay
// in one browser [F17]; a socket emit reaches every other connected client, not the emitter
// [F31][F32]; and which users are connected decides game.users.activeGM [F25].

const HAS_DOM = typeof globalThis.document !== "undefined";

/** foundry.utils.mergeObject, as far as DEFAULT_OPTIONS merging needs it [F22]. */
function merge(base, extra) {
  const out = { ...base };
  for (const [k, v] of Object.entries(extra ?? {})) {
    out[k] = v && typeof v === "object" && !Array.isArray(v) && base?.[k] && typeof base[k] === "object"
      ? merge(base[k], v) : v;
  }
  return out;
}

function dig(object, key) {
  let node = object;
  for (const part of key.split(".")) node = node?.[part];
  return node;
}

/** A Collection: a Map with find/filter/contents, like Foundry's collections [F25]. */
class Collection extends Map {
  find(fn) { for (const v of this.values()) if (fn(v)) return v; return undefined; }
  filter(fn) { return [...this.values()].filter(fn); }
  map(fn) { return [...this.values()].map(fn); }
  get contents() { return [...this.values()]; }
}

/** The User document: id, name, isGM (BaseUser getter), active, character [F25]. */
class User {
  constructor(data) { Object.assign(this, { active: false, character: null, ...data }); }
}

/** game.users: the Users collection; activeGM is "one User who is an active Gamemaster
 * (non-assistant if possible), or null" [F25]. */
class Users extends Collection {
  get activeGM() {
    const gms = this.filter((u) => u.isGM && u.active).sort((a, b) => a.id.localeCompare(b.id));
    return gms[0] ?? null;
  }
}

/** A ChatMessage: its data fields (content, speaker, whisper, flags [F28]) and getFlag(scope,
 * key) [F30]. `create(data)` goes through the server and resolves once the document exists on
 * this client [F28]; flags of a scope other than "core" or an installed package are refused,
 * as core rejects them [F35]. */
function chatMessageClass(ctx) {
  return class ChatMessage {
    constructor(data) { Object.assign(this, { whisper: [], flags: {}, ...structuredClone(data) }); this.id = data._id; }
    getFlag(scope, key) { return dig(this.flags?.[scope], key); }
    get visible() { return !this.whisper.length || this.whisper.includes(ctx.userId) || ctx.game.user.isGM; }
    static getSpeaker({ actor, alias } = {}) { // [F29]
      return { scene: null, actor: actor?.id ?? null, token: null, alias: alias ?? actor?.name ?? null };
    }
    static async create(data) {
      for (const scope of Object.keys(data.flags ?? {})) {
        if (scope !== "core" && !ctx.game.modules.has(scope)) throw new Error(`Flag scope "${scope}" is not valid`);
      }
      const id = await ctx.transport.request("createMessage", { data: structuredClone(data), user: ctx.userId });
      for (let i = 0; !ctx.game.messages.has(id) && i < 200; i++) await new Promise((r) => setTimeout(r, 5));
      return ctx.game.messages.get(id);
    }
  };
}

/** game.settings: register(namespace, key, data) with scope world|client, registerMenu, get,
 * set [F13][F17]. */
class ClientSettings {
  constructor(ctx) { this.ctx = ctx; this.settings = new Map(); this.menus = new Map(); }
  register(namespace, key, data) { this.settings.set(`${namespace}.${key}`, { scope: "client", ...data, namespace, key }); }
  registerMenu(namespace, key, data) { this.menus.set(`${namespace}.${key}`, { ...data, namespace, key }); }
  get(namespace, key) {
    const id = `${namespace}.${key}`;
    const setting = this.settings.get(id);
    if (!setting) throw new Error(`"${id}" is not a registered game setting`);
    const store = setting.scope === "world" ? this.ctx.worldSettings : this.ctx.clientSettings;
    return store.has(id) ? structuredClone(store.get(id)) : structuredClone(setting.default);
  }
  async set(namespace, key, value) {
    const id = `${namespace}.${key}`;
    const setting = this.settings.get(id);
    if (!setting) throw new Error(`"${id}" is not a registered game setting`);
    if (setting.scope === "world") {
      if (!this.ctx.game.user.isGM) throw new Error("only a GM may change a world setting"); // [F16]
      await this.ctx.transport.request("setWorldSetting", { id, value });
    } else this.ctx.clientSettings.set(id, structuredClone(value));
    setting.onChange?.(value);
    return value;
  }
}

/** Hooks: on, once, callAll [F25 hooks.d.mts][F12]. */
class HooksStandIn {
  constructor() { this.events = new Map(); }
  on(name, fn) { this.events.set(name, [...(this.events.get(name) ?? []), { fn, once: false }]); }
  once(name, fn) { this.events.set(name, [...(this.events.get(name) ?? []), { fn, once: true }]); }
  async callAll(name, ...args) {
    const list = this.events.get(name) ?? [];
    this.events.set(name, list.filter((h) => !h.once));
    for (const h of list) await h.fn(...args);
  }
}

/** ApplicationV2 [F22]: static DEFAULT_OPTIONS merged with the constructor's options; render
 * ({force}) calls _prepareContext, _renderHTML(context, options) and _replaceHTML(result,
 * content, options); close() and _onClose; id, rendered, element. */
function applicationClass(ctx) {
  return class ApplicationV2 {
    static DEFAULT_OPTIONS = {};
    constructor(options = {}) {
      let chain = {};
      const classes = [];
      for (let c = this.constructor; c && c !== Object; c = Object.getPrototypeOf(c)) classes.unshift(c);
      for (const c of classes) if (Object.hasOwn(c, "DEFAULT_OPTIONS")) chain = merge(chain, c.DEFAULT_OPTIONS);
      this.options = merge(chain, options);
      this.id = this.options.id ?? `app-${++ctx.appCount}`;
      this.rendered = false;
      this.element = null;
    }
    get title() { return ctx.game.i18n.localize(this.options.window?.title ?? ""); }
    async _prepareContext() { return {}; }
    async render(options = {}) {
      const force = options === true || options?.force;
      if (!this.rendered && !force) return this;
      const context = await this._prepareContext(options);
      const result = await this._renderHTML(context, options);
      if (!this.element) this.element = ctx.frameWindow(this);
      this._replaceHTML(result, this.element.content, options);
      this.rendered = true;
      ctx.windows.set(this.id, this);
      return this;
    }
    bringToFront() { ctx.focused = this.id; }
    async _onClose() {}
    async close() {
      await this._onClose({});
      this.rendered = false;
      this.element?.remove?.();
      this.element = null;
      ctx.windows.delete(this.id);
      return this;
    }
  };
}

/** DialogV2.wait({window, content, buttons: [{action, label, default, callback(event, button,
 * dialog)}], render, rejectClose}) [F18][F19][F20]: resolves to the pressed button's callback
 * result (or its action), or null when closed with rejectClose false. Drawn only where there is
 * a DOM (the harness page); under Node a dialog cannot be filled in, and the tests call the
 * function the dialog's button calls. */
function dialogClass(ctx, ApplicationV2) {
  return class DialogV2 extends ApplicationV2 {
    async _renderHTML() {
      return `<form class="dialog-form">${this.options.content ?? ""}<footer class="form-footer">${(this.options.buttons ?? [])
        .map((b) => `<button type="${b.default ? "submit" : "button"}" data-action="${b.action}"${b.default ? " autofocus" : ""}>`
          + `${b.icon ? `<i class="${b.icon}"></i> ` : ""}${b.label}</button>`).join("")}</footer></form>`;
    }
    _replaceHTML(result, content) { content.innerHTML = result; }
    static async wait(options) {
      if (!HAS_DOM) throw new Error("DialogV2 needs a DOM in this stand-in");
      const dialog = new this({ ...options, window: options.window });
      await dialog.render({ force: true });
      options.render?.(new Event("render"), dialog);
      return new Promise((resolve, reject) => {
        const form = dialog.element.querySelector("form");
        const finish = async (event, button) => {
          event.preventDefault();
          const spec = options.buttons.find((b) => b.action === button.dataset.action);
          const result = spec.callback ? await spec.callback(event, button, dialog) : spec.action;
          await dialog.close();
          resolve(spec.action === "cancel" && !spec.callback ? null : result);
        };
        form.addEventListener("submit", (event) => finish(event, form.querySelector("button[type=submit]")));
        for (const b of form.querySelectorAll("button[type=button]")) b.addEventListener("click", (event) => finish(event, b));
        dialog.element.querySelector(".header-close")?.addEventListener("click", async () => {
          await dialog.close();
          if (options.rejectClose) reject(new Error("closed")); else resolve(null);
        });
      });
    }
  };
}

/** A window frame: a <section class="application"> with a header and .window-content in the
 * harness page; a detached object with `content.innerHTML` under Node. */
function frameWindow(ctx) {
  return (app) => {
    if (!HAS_DOM) {
      const content = { innerHTML: "", dataset: {} };
      return { content, remove() {} };
    }
    // ApplicationV2's root is options.tag ("form" makes the window a form) [F22].
    const section = document.createElement(app.options.tag === "form" ? "form" : "section");
    section.className = ["application", ...(app.options.classes ?? [])].join(" ");
    section.id = app.id;
    const width = app.options.position?.width;
    const height = app.options.position?.height;
    if (width) section.style.width = `${width}px`;
    if (height) section.style.height = `${height}px`;
    section.innerHTML = `<header class="window-header"><i class="${app.options.window?.icon ?? ""}"></i>`
      + `<h1 class="window-title"></h1><button type="button" class="header-close" aria-label="Close">✕</button></header>`
      + `<div class="window-content"></div>`;
    section.querySelector(".window-title").textContent = app.title;
    section.querySelector(".header-close").addEventListener("click", () => app.close());
    section.content = section.querySelector(".window-content");
    // Buttons with data-action call options.actions[action] with `this` the app [F22][F54];
    // a form window calls options.form.handler(event, form, formData) on submit [F22].
    section.addEventListener("click", (event) => {
      const target = event.target.closest("[data-action]");
      const action = target && app.options.actions?.[target.dataset.action];
      if (!action || target.closest(".dialog-form")) return;
      event.preventDefault();
      action.call(app, event, target);
    });
    if (section.tagName === "FORM") {
      section.addEventListener("submit", async (event) => {
        event.preventDefault();
        await app.options.form?.handler?.call(app, event, section, { object: Object.fromEntries(new FormData(section)) });
        if (app.options.form?.closeOnSubmit) await app.close();
      });
    }
    (document.getElementById("windows") ?? document.body).append(section);
    return section;
  };
}

/** Install the globals for one client (one user's browser). Returns the context, whose
 * `receive(event)` the transport calls with what the server sends. */
export function installFoundry({ userId, users, world, system, messages = [], worldSettings = {}, clientSettings = new Map(), translations, transport, config = {} }) {
  const ctx = { userId, transport, appCount: 0, windows: new Map(), notifications: [], clientSettings, worldSettings: new Map(Object.entries(worldSettings)) };
  ctx.frameWindow = frameWindow(ctx);
  const ChatMessage = chatMessageClass(ctx);
  const ApplicationV2 = applicationClass(ctx);
  const DialogV2 = dialogClass(ctx, ApplicationV2);
  const Hooks = new HooksStandIn();
  const userList = new Users(users.map((u) => [u.id, new User(u)]));
  const socketHandlers = new Map();
  const modules = new Map([["skillcheck", { id: "skillcheck", active: true, api: undefined }]]);
  const format = (key, data = {}) => {
    const text = dig(translations, key);
    if (typeof text !== "string") return key;
    return text.replace(/\{(\w+)\}/g, (w, name) => (name in data ? String(data[name]) : w));
  };
  const game = {
    user: userList.get(userId), // [F25]
    users: userList, // [F25]
    world: { id: world }, // game.world.id [F25 game.d.mts]
    system: { id: system.id, title: system.title }, // game.system [F25 game.d.mts]
    messages: new Collection(), // the ChatMessage collection [F25]
    settings: null,
    modules: { get: (id) => modules.get(id), has: (id) => modules.has(id) }, // game.modules [F25]
    i18n: { localize: (key) => format(key), format }, // [F25 game.d.mts]
    socket: { // the socket.io client; event "module.<id>"; JSON payloads [F31]
      on: (event, fn) => socketHandlers.set(event, [...(socketHandlers.get(event) ?? []), fn]),
      emit: (event, data) => transport.request("socketEmit", { event, data: JSON.parse(JSON.stringify(data)), user: userId }),
    },
  };
  ctx.game = game;
  game.settings = new ClientSettings(ctx);
  for (const m of messages) game.messages.set(m._id, new ChatMessage(m));
  const notify = (level) => (text) => { ctx.notifications.push({ level, text }); if (HAS_DOM) ctx.showNotification?.(level, text); };
  Object.assign(globalThis, {
    game,
    Hooks,
    ChatMessage,
    ui: { notifications: { info: notify("info"), warn: notify("warn"), error: notify("error") } },
    foundry: { applications: { api: { ApplicationV2, DialogV2 } } }, // [F18][F21][F22]
    CONFIG: { ...config }, // CONFIG.DND5E.skills [F27]
  });
  ctx.receive = async (event) => {
    if (event.type === "messageCreated") {
      game.messages.set(event.message._id, new ChatMessage(event.message));
      await Hooks.callAll("createChatMessage", game.messages.get(event.message._id));
    } else if (event.type === "socket") {
      for (const fn of socketHandlers.get(event.event) ?? []) fn(event.data);
    } else if (event.type === "worldSetting") {
      ctx.worldSettings.set(event.id, event.value);
    } else if (event.type === "users") {
      for (const [id, active] of Object.entries(event.active)) if (userList.has(id)) userList.get(id).active = active;
      await Hooks.callAll("userConnected", game.user, true);
    }
  };
  return ctx;
}

/** Foundry's server for the simulated browsers: one message store, world settings, who is
 * connected, and the relay. `deliver(clientId, event)` sends to one client. */
export class FoundryServer {
  constructor({ users, worldSettings = {} }) {
    this.users = users;
    this.worldSettings = { ...worldSettings };
    this.messages = [];
    this.clients = new Map(); // client id -> user id
    this.next = 0;
  }
  isGM(userId) { return this.users.find((u) => u.id === userId)?.isGM ?? false; }
  maySee(userId, message) { return !message.whisper?.length || message.whisper.includes(userId) || this.isGM(userId); }
  visibleTo(userId) { return this.messages.filter((m) => this.maySee(userId, m)); }
  active() {
    const connected = new Set(this.clients.values());
    return Object.fromEntries(this.users.map((u) => [u.id, connected.has(u.id)]));
  }
  connect(clientId, userId) { this.clients.set(clientId, userId); this.broadcastUsers(); }
  disconnect(clientId) { this.clients.delete(clientId); this.broadcastUsers(); }
  broadcastUsers() { for (const id of this.clients.keys()) this.deliver(id, { type: "users", active: this.active() }); }
  handle(clientId, method, args) {
    if (method === "createMessage") {
      const message = { ...args.data, _id: `msg${String(++this.next).padStart(4, "0")}`, author: args.user, whisper: args.data.whisper ?? [] };
      this.messages.push(message);
      for (const [id, userId] of this.clients) {
        if (this.maySee(userId, message)) this.deliver(id, { type: "messageCreated", message });
      }
      return message._id;
    }
    if (method === "setWorldSetting") {
      this.worldSettings[args.id] = args.value;
      for (const id of this.clients.keys()) this.deliver(id, { type: "worldSetting", id: args.id, value: args.value });
      return true;
    }
    if (method === "socketEmit") {
      for (const id of this.clients.keys()) if (id !== clientId) this.deliver(id, { type: "socket", event: args.event, data: args.data });
      return true;
    }
    throw new Error(`unknown server method ${method}`);
  }
}
