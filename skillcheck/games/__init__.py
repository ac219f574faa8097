"""The games: one module or package per game, each registering itself in the game registry.

Importing this package registers the built-in games, then any game another distribution
declares in the ``skillcheck.games`` entry-point group (``name = "package.module"``: importing
the module registers it). Nothing outside ``skillcheck/games/`` names a particular game; front
ends read the registry (:data:`skillcheck.engine.GAMES`).
"""

from __future__ import annotations

import importlib
import importlib.metadata

#: The built-in games' modules, in the order front ends list them.
BUILTIN = ("skillcheck.games.three_towers", "skillcheck.games.hanoy")

for _module in BUILTIN:
    importlib.import_module(_module)


def _load_plugins() -> None:
    for entry in importlib.metadata.entry_points(group="skillcheck.games"):
        entry.load()


_load_plugins()
