// A Foundry table for the tests: the FoundryServer stand-in in this thread and one worker per
// connected browser (client-worker.mjs). A browser keeps its client settings across reloads,
// as a real browser's storage does [F17]; a reload is a new worker that is sent the messages
// this user may see, as Foundry sends the world's data on load.

import { Worker } from "node:worker_threads";
import { readFileSync } from "node:fs";
import { FoundryServer } from "./foundry-stand-in.mjs";

const HERE = new URL(".", import.meta.url);
export const TRANSLATIONS = JSON.parse(readFileSync(new URL("../skillcheck/languages/en.json", HERE), "utf8"));

export class Table {
  constructor({ users, world = "the-lost-mine", system = { id: "dnd5e", title: "D&D Fifth Edition" }, worldSettings, actors = [], config = {}, origin }) {
    this.server = new FoundryServer({ users, worldSettings });
    this.options = { users, world, system, actors, config, origin };
    this.browsers = new Map(); // browser name -> client settings entries
    this.clients = new Map(); // client id -> {worker, calls}
    this.delivered = new Map(); // client id -> every event sent to it, as JSON text
    this.count = 0;
    this.server.deliver = (clientId, event) => {
      const client = this.clients.get(clientId);
      if (!client) return;
      this.delivered.get(clientId).push(JSON.stringify(event));
      client.worker.postMessage({ type: "event", event });
    };
  }

  /** Open Foundry as `userId` in browser `browser` (default: the user's own). */
  async open(userId, { browser = userId, origin = this.options.origin } = {}) {
    const clientId = `client-${++this.count}`;
    this.delivered.set(clientId, []);
    const users = this.options.users.map((u) => ({ ...u, active: u.id === userId || [...this.server.clients.values()].includes(u.id) }));
    const worker = new Worker(new URL("./client-worker.mjs", HERE), {
      workerData: {
        userId, users, world: this.options.world, system: this.options.system, actors: this.options.actors,
        config: this.options.config, origin, translations: TRANSLATIONS,
        messages: this.server.visibleTo(userId), worldSettings: this.server.worldSettings,
        clientSettings: this.browsers.get(browser) ?? [],
      },
    });
    const client = { id: clientId, userId, browser, worker, calls: new Map(), next: 0 };
    this.clients.set(clientId, client);
    const loaded = new Promise((resolve, reject) => {
      worker.on("error", reject);
      worker.on("message", (message) => {
        if (message.type === "loaded") resolve();
        else if (message.type === "request") {
          let reply;
          try {
            reply = { type: "response", id: message.id, result: this.server.handle(clientId, message.method, message.args) };
          } catch (error) {
            reply = { type: "response", id: message.id, error: error.message };
          }
          worker.postMessage(reply);
        } else if (message.type === "result") {
          const call = client.calls.get(message.id);
          client.calls.delete(message.id);
          if (message.error) call.reject(new Error(message.error)); else call.resolve(message.result);
        }
      });
    });
    this.server.connect(clientId, userId);
    await loaded;
    client.call = (method, ...args) => new Promise((resolve, reject) => {
      const id = ++client.next;
      client.calls.set(id, { resolve, reject });
      worker.postMessage({ type: "call", id, method, args });
    });
    client.close = () => this.close(client);
    return client;
  }

  /** Close the tab: the browser keeps its client settings; the user goes offline. */
  async close(client) {
    this.browsers.set(client.browser, await client.call("clientSettings"));
    await client.call("stop");
    await client.worker.terminate();
    this.clients.delete(client.id);
    this.server.disconnect(client.id);
  }

  async closeAll() {
    for (const client of [...this.clients.values()]) await this.close(client);
  }

  /** The stored messages of one kind (flags.skillcheck.kind) for a check. */
  stored(checkId, kind) {
    return this.server.messages.filter((m) => m.flags?.skillcheck?.checkId === checkId && (!kind || m.flags.skillcheck.kind === kind));
  }

  /** Everything sent to a client so far, as one string. */
  seenBy(client) {
    return this.delivered.get(client.id).join("\n");
  }
}

/** Wait until `probe()` is truthy (polling), or fail after `ms`. */
export async function until(probe, ms = 10000, what = "the condition") {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
