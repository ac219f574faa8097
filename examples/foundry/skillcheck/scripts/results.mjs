// Results reach the chat exactly once, even when the GM reloaded or was offline when a check
// ended. Only the active GM's client does this [F25]:
//  1. it opens the GM's live list (GET /v1/checks/stream, read with fetch since EventSource
//     cannot send Authorization) and, once it is open, catches up from the GM's list
//     (GET /v1/checks?status=won|lost|cancelled, cursor paging, newest first, back to the
//     "look back" setting): the stream has no replay without Last-Event-ID, so open it first,
//     then list, and merge (docs/api.md);
//  2. for each finished check it reads the view (GET /v1/checks/{id}): only checks whose
//     metadata names this world are posted (a GM key may serve several worlds);
//  3. before posting it looks in game.messages for a result message with this check's
//     flags.skillcheck.checkId [F25][F30] and in the world's list of posted checks (so a card
//     deleted from the chat does not come back), and it posts only while it is still the
//     active GM.
//     The lookup alone would race between clients; one poster is what prevents duplicates, and
//     one chain per check id within this client does the rest.

import { KIND, MODULE_ID, resultCard } from "./cards.mjs";
import { ApiError, commitmentMatches } from "./client.mjs";
import { readEvents } from "./sse.mjs";
import { games, gameTitle } from "./checks.mjs";
import { explain, findMessage, isActiveGM, notify, serverApi, t } from "./context.mjs";

const FINISHED = ["won", "lost", "cancelled"];
const DAY = 86_400_000;
const OTHER_WORLD_CAP = 2000;
const POSTED_CAP = 5000; // more than any look-back window holds

const sleep = (ms, signal) => new Promise((resolve) => {
  const timer = setTimeout(resolve, ms);
  signal?.addEventListener("abort", () => { clearTimeout(timer); resolve(); }, { once: true });
});

export class ResultWatcher {
  constructor({ now = () => Date.now(), retryMs = 1000 } = {}) {
    this.now = now;
    this.retryMs = retryMs;
    this.running = false;
    this.chains = new Map(); // check id -> the promise of its settling
    this.lastEventId = null;
    this.abort = null;
    this.posted = 0;
    this.warned = false;
  }

  /** Start or stop as this client becomes, or stops being, the active GM (ready hook, and
   * whenever a user connects or leaves). */
  async reconsider() {
    if (isActiveGM() && !this.running) await this.start();
    else if (!isActiveGM() && this.running) this.stop();
  }

  async start() {
    let api;
    try {
      api = serverApi();
    } catch (error) {
      notify("warn", explain(error));
      return;
    }
    this.api = api;
    this.running = true;
    this.abort = new AbortController();
    let opened;
    const open = new Promise((resolve) => { opened = resolve; });
    this.following = this.follow(opened);
    await Promise.race([open, sleep(5000, this.abort.signal)]);
    await this.catchUp().catch((error) => this.report(error));
  }

  stop() {
    this.running = false;
    this.abort?.abort();
  }

  report(error) {
    if (error?.name === "AbortError") return;
    console.error("skillcheck |", error);
    notify("error", explain(error, this.api?.base));
  }

  /** Every finished check of the look-back window that this world has no result card of. */
  async catchUp() {
    const days = Number(game.settings.get(MODULE_ID, "catchUpDays")) || 14;
    const since = this.now() - days * DAY;
    const found = [];
    for (const status of FINISHED) {
      let cursor = null;
      do {
        const page = await this.api.listChecks({ status, cursor, limit: 100 });
        cursor = page.next_cursor;
        for (const summary of page.checks) {
          if (Date.parse(summary.created_at) < since) { cursor = null; break; } // newest first
          found.push(summary);
        }
      } while (cursor && this.running);
    }
    found.sort((a, b) => Date.parse(a.updated_at) - Date.parse(b.updated_at)); // oldest end first
    for (const summary of found) {
      if (!this.running) return;
      await this.settle(summary.check_id);
    }
  }

  /** Follow the GM's live list; reconnect with Last-Event-ID after a drop or the server's
   * 30-minute close. A refused key stops it (reconnecting will not help). */
  async follow(opened) {
    let failures = 0;
    const { abort, api } = this; // this loop's own: a restart makes a new one
    const mine = () => this.running && this.abort === abort;
    while (mine()) {
      try {
        const response = await api.checksStream({ lastEventId: this.lastEventId, signal: abort.signal });
        opened();
        failures = 0;
        this.warned = false;
        await readEvents(response, (message) => {
          if (message.id) this.lastEventId = message.id;
          let summary;
          try {
            summary = JSON.parse(message.data);
          } catch {
            return;
          }
          if (FINISHED.includes(summary?.status) && typeof summary.check_id === "string") {
            this.settle(summary.check_id).catch((error) => this.report(error));
          }
        });
      } catch (error) {
        if (!mine() || error?.name === "AbortError") return;
        if (error instanceof ApiError && [400, 401, 403].includes(error.status)) {
          this.report(error);
          if (mine()) this.stop();
          return;
        }
        failures += 1;
        if (!this.warned) {
          this.warned = true;
          this.report(error);
        }
      }
      if (mine()) await sleep(Math.min(30_000, this.retryMs * 2 ** failures), abort.signal);
    }
  }

  /** Post the check's result unless it is not finished, not this world's, or posted already.
   * Calls for one check id run one after another. Resolves to what happened. */
  settle(checkId) {
    const previous = this.chains.get(checkId) ?? Promise.resolve();
    const next = previous.catch(() => {}).then(() => this.settleOnce(checkId));
    this.chains.set(checkId, next);
    return next;
  }

  async settleOnce(checkId) {
    if (!isActiveGM()) return "not-the-poster";
    if (findMessage(checkId, KIND.result) || this.postedBefore(checkId)) return "posted-before";
    const others = game.settings.get(MODULE_ID, "otherWorldChecks") ?? [];
    if (others.includes(checkId)) return "other-world";
    const view = await this.api.check(checkId);
    if (view.metadata?.foundry?.world !== game.world.id) {
      await game.settings.set(MODULE_ID, "otherWorldChecks", [...others, checkId].slice(-OTHER_WORLD_CAP));
      return "other-world";
    }
    if (!FINISHED.includes(view.status)) return "not-finished";
    await games(this.api);
    const started = findMessage(checkId, KIND.started);
    // The spectators' link shows the end and the revealed record. It was on the "begun" card;
    // if that card is gone, a new spectators' token is issued (the old one stops working).
    let watchUrl = started?.getFlag(MODULE_ID, "watchUrl");
    if (!watchUrl) {
      const issued = await this.api.reissue(checkId, "spectator");
      watchUrl = this.api.pageUrl(checkId, view.game, issued.token);
    }
    const published = started?.getFlag(MODULE_ID, "commitment") ?? view.commitment;
    const revealed = await this.api.record(checkId);
    const honest = await commitmentMatches(revealed, published);
    // Another client or an earlier call may have posted while we waited on the server.
    if (!isActiveGM() || findMessage(checkId, KIND.result) || this.postedBefore(checkId)) return "posted-before";
    const actorId = view.metadata?.foundry?.actor ?? null;
    await ChatMessage.create({
      content: resultCard(view, gameTitle(view.game), t, { honest, seedChosen: revealed.seed_chosen === true }),
      speaker: { scene: null, actor: null, token: null, alias: view.character ?? gameTitle(view.game) },
      flags: {
        [MODULE_ID]: {
          kind: KIND.result, checkId, watchUrl, label: view.label ?? null, actor: actorId,
          status: view.status, tier: view.tier ?? null, degree: view.degree ?? null,
        },
      },
    });
    const posted = game.settings.get(MODULE_ID, "postedChecks") ?? [];
    await game.settings.set(MODULE_ID, "postedChecks", [...posted, checkId].slice(-POSTED_CAP));
    this.posted += 1;
    return "posted";
  }

  /** Posted by this world before, even if its card has since left the chat. */
  postedBefore(checkId) {
    return (game.settings.get(MODULE_ID, "postedChecks") ?? []).includes(checkId);
  }

  /** Wait until every settling started so far is done (tests and shutdown). */
  async idle() {
    await Promise.allSettled([...this.chains.values()]);
  }
}
