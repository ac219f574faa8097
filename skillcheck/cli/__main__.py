"""``python -m skillcheck.cli``: the same as the ``skillcheck`` command."""

from skillcheck.cli import main

main()
