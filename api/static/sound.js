//# allFunctionsCalledOnLoad
// Optional sound on the player's page (docs/play-page.md, "Playing by hand"): off by default,
// switched on by the player, remembered in this browser's local storage under
// "skillcheck.sound". Every sound is synthesised with WebAudio: no audio files.

const KEY = "skillcheck.sound";

/** Local storage may be missing or refuse (a sandboxed frame, storage blocked): then the choice
 *  lasts as long as the page. */
function stored() {
  try {
    return window.localStorage.getItem(KEY) === "on";
  } catch {
    return false;
  }
}

function store(on) {
  try {
    if (on) window.localStorage.setItem(KEY, "on");
    else window.localStorage.removeItem(KEY);
  } catch {
    // not remembered; the switch still works on this page
  }
}

// Each sound: notes of [frequency in Hz, start in s, length in s, waveform, loudness 0..1].
const SOUNDS = {
  move: [[660, 0, 0.06, "triangle", 0.35], [990, 0.03, 0.05, "sine", 0.2]],
  refusal: [[220, 0, 0.09, "square", 0.18], [165, 0.1, 0.14, "square", 0.18]],
  win: [
    [523.25, 0, 0.12, "triangle", 0.35],
    [659.25, 0.1, 0.12, "triangle", 0.35],
    [783.99, 0.2, 0.12, "triangle", 0.35],
    [1046.5, 0.3, 0.3, "triangle", 0.35],
  ],
  loss: [
    [392, 0, 0.16, "sine", 0.3],
    [311.13, 0.16, 0.16, "sine", 0.3],
    [261.63, 0.32, 0.35, "sine", 0.3],
  ],
};

export class Sound {
  constructor() {
    this.on = stored();
    this.context = null;
  }

  /** Switches sound on or off and remembers the choice (call it from the player's click, so
   *  the browser lets the page start audio). */
  set(on) {
    this.on = Boolean(on);
    store(this.on);
    if (this.on) this.audio()?.resume?.();
  }

  audio() {
    if (this.context) return this.context;
    const Context = window.AudioContext || window.webkitAudioContext;
    if (!Context) return null;
    try {
      this.context = new Context();
    } catch {
      this.context = null;
    }
    return this.context;
  }

  /** Plays "move", "refusal", "win" or "loss" if sound is on; never throws. */
  play(name) {
    if (!this.on || !SOUNDS[name]) return;
    const context = this.audio();
    if (!context) return;
    try {
      if (context.state === "suspended") context.resume();
      const now = context.currentTime + 0.01;
      for (const [frequency, start, length, wave, loudness] of SOUNDS[name]) {
        const tone = context.createOscillator();
        const gain = context.createGain();
        tone.type = wave;
        tone.frequency.value = frequency;
        // A quick rise and an exponential fall: a struck note, without clicks.
        gain.gain.setValueAtTime(0.0001, now + start);
        gain.gain.exponentialRampToValueAtTime(loudness, now + start + 0.01);
        gain.gain.exponentialRampToValueAtTime(0.0001, now + start + length);
        tone.connect(gain).connect(context.destination);
        tone.start(now + start);
        tone.stop(now + start + length + 0.02);
      }
    } catch {
      // a sound that cannot play is not worth an error on the page
    }
  }
}
