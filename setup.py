"""The optional C accelerators and the Foundry module's files; all metadata is in pyproject.toml.

Every ``skillcheck/games/<game>/_<name>.c`` is built as the extension module
``skillcheck.games.<game>._<name>``, so a game brings its own accelerator without an edit here.
``optional=True``: without a C compiler the install still succeeds and each game uses its
pure-Python code instead.

The Foundry VTT module (``examples/foundry/skillcheck/``) is copied into the built ``api``
package as ``api/foundry_module/``, so an installed server serves it at /foundry/module.json
(api/foundry.py); an editable install reads it from the checkout.
"""

import shutil
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).parent
FOUNDRY_MODULE = ROOT / "examples" / "foundry" / "skillcheck"


class BuildWithFoundryModule(build_py):
    def run(self) -> None:
        super().run()
        if FOUNDRY_MODULE.is_dir():
            target = Path(self.build_lib) / "api" / "foundry_module"
            shutil.copytree(FOUNDRY_MODULE, target, dirs_exist_ok=True)


def _game_extensions() -> list[Extension]:
    sources = sorted((ROOT / "skillcheck" / "games").glob("*/_*.c"))
    return [
        Extension(
            ".".join(source.relative_to(ROOT).with_suffix("").parts),
            [source.relative_to(ROOT).as_posix()],
            optional=True,
            extra_compile_args=["-O2"],
        )
        for source in sources
    ]


setup(ext_modules=_game_extensions(), cmdclass={"build_py": BuildWithFoundryModule})
