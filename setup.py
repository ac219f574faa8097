"""Only the optional C accelerators; all metadata is in pyproject.toml.

Every ``skillcheck/games/<game>/_<name>.c`` is built as the extension module
``skillcheck.games.<game>._<name>``, so a game brings its own accelerator without an edit here.
``optional=True``: without a C compiler the install still succeeds and each game uses its
pure-Python code instead.
"""

from pathlib import Path

from setuptools import Extension, setup


def _game_extensions() -> list[Extension]:
    root = Path(__file__).parent
    sources = sorted((root / "skillcheck" / "games").glob("*/_*.c"))
    return [
        Extension(
            ".".join(source.relative_to(root).with_suffix("").parts),
            [source.relative_to(root).as_posix()],
            optional=True,
            extra_compile_args=["-O2"],
        )
        for source in sources
    ]


setup(ext_modules=_game_extensions())
