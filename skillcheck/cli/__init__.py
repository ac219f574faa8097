"""The command line: ``skillcheck play | deal | deck | games | verify | solve | autoplay | odds``.

Nothing here names a game: every command that takes a game reads the registry
(:data:`skillcheck.engine.GAMES`) and has one subcommand per registered game, whose options are
generated from the game's :class:`~skillcheck.engine.ParameterSpec` (:mod:`.options`). The game
is built through the library (``Game.params_from_options`` and
``serialization.game_from_params``), so the messages a person sees for bad parameters are the
library's. Library errors are printed in red on stderr and exit with status 2 (``verify`` exits
1 for a record that does not check out).

A position is drawn by the game's terminal front end (:mod:`skillcheck.terminal`): its own,
found through the ``terminal_frontend`` hook, or the generic one that draws the game's board.
Each game's own commands (``Game.commands()``) are mounted as ``skillcheck GAME COMMAND``, and
installed packages add commands through the entry-point group ``skillcheck.commands`` (the API
adds ``serve``).
"""

from __future__ import annotations

import importlib.metadata
from typing import Any

import click

from skillcheck import __version__
from skillcheck.engine import GAMES, Game
from skillcheck.words import possessive

from .analysis import autoplay, calibrate_group, odds, odds_tables, solve
from .commands import deal, deck, games, play, verify_command
from .prompt import read_command

__all__ = ["PLUGIN_GROUP", "main", "read_command"]

PLUGIN_GROUP = "skillcheck.commands"


def _game_group(cls: type[Game[Any]]) -> click.Group | None:
    """The game's own commands as ``skillcheck GAME COMMAND``, or None when it has none."""
    commands = [c for c in cls.commands() if isinstance(c, click.Command)]
    if not commands:
        return None
    return click.Group(
        cls.name,
        commands=commands,
        help=f"{cls.title}: the game's own commands.",
        short_help=f"{possessive(cls.title)} own commands.",
    )


class _CommandsWithPlugins(click.Group):
    """The built-in commands, each game's own commands (``skillcheck GAME COMMAND``), and those
    installed packages add through the entry-point group ``skillcheck.commands`` (the API adds
    ``serve``), loaded only when used, so the library never imports them."""

    def _plugins(self) -> dict[str, importlib.metadata.EntryPoint]:
        found = importlib.metadata.entry_points(group=PLUGIN_GROUP)
        return {ep.name: ep for ep in found}

    def _game_names(self) -> list[str]:
        return [
            name
            for name, cls in GAMES.items()
            if name not in self.commands and any(True for _ in cls.commands())
        ]

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self._plugins(), *self._game_names()})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        command = super().get_command(ctx, cmd_name)
        if command is not None:
            return command
        cls = GAMES.get(cmd_name)
        if cls is not None:
            group = _game_group(cls)
            if group is not None:
                return group
        entry = self._plugins().get(cmd_name)
        if entry is None:
            return None
        try:
            loaded = entry.load()
        except ImportError as exc:
            return _missing_extra(cmd_name, entry.value, exc)
        if not isinstance(loaded, click.Command):
            raise click.ClickException(f"{entry.value} is not a click command")
        return loaded


def _missing_extra(name: str, target: str, exc: ImportError) -> click.Command:
    @click.command(name, context_settings={"ignore_unknown_options": True})
    @click.argument("args", nargs=-1, type=click.UNPROCESSED)
    def unavailable(args: tuple[str, ...]) -> None:
        """Needs the API extra: pip install 'skillcheck[api]'."""
        raise click.ClickException(
            f"`skillcheck {name}` ({target}) needs packages that are not installed "
            f"({exc.name or exc}): install them with  pip install 'skillcheck[api]'  "
            f"(from a checkout:  pip install '.[api]')"
        )

    return unavailable


@click.group(cls=_CommandsWithPlugins, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "-V", "--version", prog_name="skillcheck")
def main() -> None:
    """Card mini-games as RPG skill checks: `skillcheck games` lists them."""


for _command in (
    play,
    deal,
    deck,
    games,
    verify_command,
    solve,
    autoplay,
    odds,
    odds_tables,
    calibrate_group,
):
    main.add_command(_command)
