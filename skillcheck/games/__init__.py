"""The games: one module or package per game, each registering itself in the game registry.

Importing this package registers the built-in games (every module or package in this folder),
then any game another distribution declares in the ``skillcheck.games`` entry-point group
(``name = "package.module"``: importing the module registers it). Nothing outside
``skillcheck/games/`` names a particular game; front ends read the registry
(:data:`skillcheck.engine.GAMES`).
"""

from __future__ import annotations

import importlib
import importlib.metadata
import pkgutil

#: The order front ends list the built-in games in (the first one's first example is the demo);
#: every other module or package in this folder is found and registered after them, in name
#: order, so adding a game here needs no edit to this file.
FIRST = ("three_towers", "hanoy")


def _builtin_modules() -> list[str]:
    found = sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_"))
    ordered = [name for name in FIRST if name in found]
    ordered += [name for name in found if name not in FIRST]
    return [f"{__name__}.{name}" for name in ordered]


#: The built-in games' modules, in the order front ends list them.
BUILTIN = tuple(_builtin_modules())

for _module in BUILTIN:
    importlib.import_module(_module)


def _load_plugins() -> None:
    for entry in importlib.metadata.entry_points(group="skillcheck.games"):
        entry.load()


_load_plugins()
