"""Only the optional C accelerator; all metadata is in pyproject.toml.

``optional=True``: without a C compiler the install still succeeds and skillcheck uses its
pure-Python code instead of ``skillcheck.games.three_towers._planner``.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "skillcheck.games.three_towers._planner",
            ["skillcheck/games/three_towers/_planner.c"],
            optional=True,
            extra_compile_args=["-O2"],
        )
    ]
)
