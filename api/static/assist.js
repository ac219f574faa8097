//# allFunctionsCalledOnLoad
// Hints, "Finish for me" and the sound switch on the player's page (docs/play-page.md, "Playing by
// hand"). The section #assist of play.html holds their controls.
//
// - Hint: offered only when the check's view says `hints` (the GM allowed them). It asks the
//   server (POST /v1/checks/{id}/hint), which answers with the fair fast bot's move (it sees only
//   what the player sees) and counts the hint in the record. The page lights the move's two places
//   and says it in words until the table changes.
// - Finish for me: offered when the view says `can_finish` (the game is won in substance); the
//   server plays out the win (POST /v1/checks/{id}/finish).
// - Sound: off until switched on; the choice is remembered in this browser (sound.js).

const $ = (id) => document.getElementById(id);

/**
 * hooks (from the page):
 *   view(), playing(), busy()
 *   act(doing, request)  runs one action against the server (busy, refusals, conflicts), where
 *                        request(version) returns the new view
 *   client()             the CheckClient (request(method, path, body))
 *   zoneLabel(id)
 *   sound                the page's Sound
 */
export class Assist {
  constructor(board, hooks) {
    this.board = board;
    this.hooks = hooks;
    this.hint = null; // {move: {code, from, to, text}, version} while it still applies
    $("hint").addEventListener("click", () => this.askHint());
    $("finish").addEventListener("click", () => this.finish());
    $("sound").addEventListener("click", () => {
      hooks.sound.set(!hooks.sound.on);
      this.showSound();
      hooks.sound.play("move");
    });
    // The table is redrawn on every change (a tap, a busy spell): light the hint again each time.
    new MutationObserver(() => {
      this.decorate();
      $("hint").disabled = $("finish").disabled = this.hooks.busy();
    }).observe(board, { childList: true, subtree: true });
    this.showSound();
  }

  showSound() {
    const on = this.hooks.sound.on;
    const button = $("sound");
    button.setAttribute("aria-pressed", String(on));
    button.textContent = on ? "Sound: on" : "Sound: off";
  }

  /** After each view: which controls apply, how many hints were taken, whether the hint shown
   *  still fits the table. */
  update(view) {
    const playing = this.hooks.playing();
    const busy = this.hooks.busy();
    // Nothing here applies once the check is over.
    $("assist").hidden = view.status !== "in_progress";
    $("hint").hidden = !(view.hints && playing);
    $("hint").disabled = busy;
    $("finish").hidden = !(view.can_finish && playing);
    $("finish").disabled = busy;
    $("finish-note").hidden = $("finish").hidden;
    const used = Number(view.hints_used || 0);
    $("hints-used").hidden = !view.hints && !used;
    $("hints-used").textContent = `Hints used: ${used}`;
    if (this.hint && (this.hint.version !== view.version || !playing)) this.clearHint();
    this.decorate();
  }

  clearHint() {
    this.hint = null;
    $("hint-text").hidden = true;
    $("hint-text").textContent = "";
    this.decorate();
  }

  decorate() {
    const hint = this.hint;
    for (const zone of this.board.querySelectorAll(".hint-from, .hint-to")) {
      const id = zone.dataset.zone;
      if (!hint || id !== hint.move.from) zone.classList.remove("hint-from");
      if (!hint || id !== hint.move.to) zone.classList.remove("hint-to");
    }
    if (!hint) return;
    for (const [id, name] of [[hint.move.from, "hint-from"], [hint.move.to, "hint-to"]]) {
      if (id === null || id === undefined) continue;
      for (const zone of this.board.querySelectorAll(`[data-zone="${CSS.escape(id)}"]`)) {
        if (!zone.classList.contains(name)) zone.classList.add(name);
      }
    }
  }

  async askHint() {
    const focused = document.activeElement === $("hint");
    let move = null;
    await this.hooks.act("", async (version) => {
      const answer = await this.hooks.client().request("POST", "/hint", { expected_version: version });
      move = answer.hint;
      return answer.view;
    });
    if (!move) return;
    const view = this.hooks.view();
    this.hint = { move, version: view.version };
    const text = $("hint-text");
    const where =
      move.to === null || move.to === undefined
        ? ` (${this.hooks.zoneLabel(move.from)} is lit)`
        : ` (${this.hooks.zoneLabel(move.from)} and ${this.hooks.zoneLabel(move.to)} are lit)`;
    text.textContent = `Hint: ${move.text}${/[.!?]$/.test(move.text) ? "" : "."}${where}`;
    text.hidden = false;
    this.update(view);
    if (focused && !$("hint").hidden) $("hint").focus({ preventScroll: true });
  }

  finish() {
    return this.hooks.act("The rest of the game was played for you.", (version) =>
      this.hooks.client().request("POST", "/finish", { expected_version: version }),
    );
  }
}
