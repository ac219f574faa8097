"""How often each tier comes up under a game's default thresholds (docs/rules.md, "Tiers").

    python3 benchmarks/tier_spread.py [--deals 200] [--bot fast]

Plays ``--deals`` deals (seeds 0..N-1) of each parameter set below with a fair bot, grades
every outcome with the game's ``default_tiers()`` and prints the share of each tier. Not a speed
measurement: it is the evidence for the default thresholds documented in docs/rules.md and
docs/games/*.md. Nothing here is a test (the tests check the grading itself).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from skillcheck.engine import Tier
from skillcheck.serialization import game_from_params
from skillcheck.solving import autoplay

CASES = [
    ("three-towers", {"variant": {"kind": "quota", "suit": "moons", "skill": 5, "quota": 4}}),
    ("three-towers", {"variant": {"kind": "quota", "suit": "moons", "skill": 5, "quota": 2}}),
    ("three-towers", {"variant": {"kind": "quota", "suit": "moons", "skill": 8, "quota": 6}}),
    ("three-towers", {"level": 6, "variant": {"kind": "quota", "suit": "knots", "skill": 3,
                                               "quota": 2}}),
    ("three-towers", {"level": 6, "variant": {"kind": "quota", "suit": "knots", "skill": 5,
                                               "quota": 4}}),
    ("three-towers", {"level": 6}),
    ("hanoy", {"cards": 5, "skill": 2}),
    ("hanoy", {"cards": 7, "skill": 16}),
    ("hanoy", {"cards": 9, "skill": 64}),
    ("tripeaks", {}),
    ("tripeaks", {"peaks": 2}),
    ("tripeaks", {"peaks": 1}),
    ("tripeaks", {"wrap": True}),
    ("tripeaks", {"rules": "tritowers"}),
    ("tripeaks", {"rules": "tritowers", "target": 60}),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--bot", default="fast")
    args = parser.parse_args()
    order = [Tier.CRITICAL_SUCCESS, Tier.SUCCESS, Tier.FAILURE, Tier.CRITICAL_FAILURE]
    print(f"{'game':<13} {'params':<70} " + " ".join(f"{t.text:>16}" for t in order))
    for name, params in CASES:
        game = game_from_params(name, params)
        tiers = Counter(
            game.tier(autoplay(game, args.bot, seed).outcome) for seed in range(args.deals)
        )
        thresholds = game.default_tiers()
        shares = " ".join(f"{100 * tiers[t] / args.deals:>15.1f}%" for t in order)
        label = f"{params} cs>={thresholds.critical_success} cf<={thresholds.critical_failure}"
        print(f"{name:<13} {label:<70} {shares}", flush=True)


if __name__ == "__main__":
    main()
