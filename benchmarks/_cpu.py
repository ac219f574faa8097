"""A CPU slow-down calibrated to a class of phone, as Chrome DevTools calibrates its "Mid-tier
mobile" and "Low-tier mobile" throttling (front_end/panels/mobile_throttling/
CalibrationController.ts, chrome-devtools-frontend 1.0.1705227).

A fixed factor ("4x slower") emulates a different phone on every host: Lighthouse's 4x is meant
to bring a high-end desktop into its mid-tier mobile bracket (Lighthouse docs/throttling.md,
"Calibrating the CPU slowdown"). Here, as in DevTools, the host is scored with Lighthouse's
BenchmarkIndex (lighthouse core/lib/page-functions.js, ``computeBenchmarkIndex``: a GC-heavy
string loop and an array copy, each run for half the time, their rates averaged), and the
throttling rate is bisected until the throttled page scores the target device's score:

- ``mid-tier``: 1000, "a mid-tier device (like a Pixel 5)";
- ``low-tier``: 264, "a low-tier device (like a Moto G Power 2022)".

DevTools scores one run of 250 ms per rate; a shared 2-core host is noisier (its unthrottled
score moved between 1,300 and 2,800 within minutes here), so each rate is scored here by the
median of 5 runs of 500 ms, Lighthouse's own length.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Any

#: The score of each device class DevTools calibrates to.
DEVICE_SCORES = {"mid-tier": 1000.0, "low-tier": 264.0}
#: What each class is like, in DevTools' own words.
DEVICE_EXAMPLES = {"mid-tier": "a Pixel 5", "low-tier": "a Moto G Power 2022"}

#: Lighthouse's BenchmarkIndex, run for ``duration`` ms (in the page; returns the score).
BENCHMARK = """(duration) => {
  const half = duration / 2;
  // many strings of 10,000 characters, built one character at a time (garbage to collect)
  const strings = () => {
    const start = Date.now();
    let made = 0;
    while (Date.now() - start < half) {
      let s = "";
      for (let j = 0; j < 10000; j++) s += "a";
      if (s.length === 1) throw new Error("never");
      made++;
    }
    return Math.round(made / 10 / ((Date.now() - start) / 1000));
  };
  // an array of 100,000 integers copied back and forth (no garbage)
  const copies = () => {
    const a = [];
    const b = [];
    for (let i = 0; i < 100000; i++) a[i] = b[i] = i;
    const start = Date.now();
    let made = 0;
    while (made % 10 !== 0 || Date.now() - start < half) {
      const [from, to] = made % 2 === 0 ? [a, b] : [b, a];
      for (let j = 0; j < from.length; j++) to[j] = from[j];
      made++;
    }
    return Math.round(made / 10 / ((Date.now() - start) / 1000));
  };
  return (strings() + copies()) / 2;
}"""


@dataclass(frozen=True)
class Calibration:
    """The host's score unthrottled, the device class aimed at, the rate found and its score."""

    host_score: float
    device: str
    rate: float
    score: float

    def words(self) -> str:
        return (
            f"{self.device} phone ({DEVICE_EXAMPLES[self.device]}, BenchmarkIndex "
            f"{DEVICE_SCORES[self.device]:g}): CPU {self.rate:g}x slower, scored {self.score:.0f}"
            f"; host unthrottled {self.host_score:.0f}"
        )


def score(page: Any, cdp: Any, rate: float, runs: int, duration: float) -> float:
    """The median BenchmarkIndex of ``runs`` runs of ``page`` with the CPU ``rate`` times slower."""
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": max(1.0, rate)})
    return statistics.median(page.evaluate(BENCHMARK, duration) for _ in range(runs))


def calibrate(
    browser: Any, device: str, runs: int = 5, duration: float = 500, iterations: int = 8
) -> Calibration:
    """The throttling rate at which a page of ``browser`` scores ``device``'s BenchmarkIndex:
    a bisection between 1x and 1.5 times the rate that a linear slow-down would need, stopped
    within 10 points of the target (DevTools' bounds, tolerance and iteration count); the rate
    tried that scored nearest the target is kept. A host
    that scores below the target unthrottled cannot emulate the device: ``ValueError``."""
    target = DEVICE_SCORES[device]
    context = browser.new_context()
    try:
        page = context.new_page()
        cdp = context.new_cdp_session(page)
        page.evaluate(BENCHMARK, duration)  # warm up: let V8 optimise the loops
        host = score(page, cdp, 1, runs, duration)
        if host < target:
            raise ValueError(
                f"this host scores {host:.0f}, below the {target:g} of a {device} phone: "
                "it cannot be slowed down to one"
            )
        lower, upper = 1.0, round(host / target * 1.5, 2)
        best = (abs(host - target), 1.0, host)
        for _ in range(iterations):
            rate = round((lower + upper) / 2, 2)  # (Chromium keeps rates to the hundredth)
            found = score(page, cdp, rate, runs, duration)
            best = min(best, (abs(found - target), rate, found))
            if abs(found - target) < 10:
                break
            if found < target:
                upper = rate
            else:
                lower = rate
        # the rate that scored nearest the target (DevTools keeps the last one tried, which a
        # noisy host can leave far off when the bisection runs out of iterations)
        _, rate, found = best
        return Calibration(host, device, rate, found)
    finally:
        context.close()
