"""The analysis commands: ``solve``, ``autoplay`` and ``odds``, for any game of the registry.

``solve`` asks the game's exact solver (:meth:`Game.solver <skillcheck.engine.Game.solver>`),
``autoplay`` one of its fair bots (:meth:`Game.bots <skillcheck.engine.Game.bots>`), and
``odds`` plays seeded deals through the generic harness (:func:`skillcheck.odds.odds`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

import click
from rich.table import Table
from rich.text import Text

from skillcheck.engine import GAMES, Game
from skillcheck.errors import ParameterError, ParseError, SkillcheckError, quoted
from skillcheck.odds import (
    PERFECT,
    PERFECT_PLAY_STATES,
    OddsTable,
    game_from_options,
    methods_of,
    pyplot,
)
from skillcheck.odds import odds as odds_table
from skillcheck.rng import draw_seed, validate_seed
from skillcheck.serialization import game_params
from skillcheck.solving import autoplay as run_bot
from skillcheck.solving import make_bot
from skillcheck.terminal import frontend_for, item_code
from skillcheck.words import counted, possessive

from .commands import first_examples, option_names
from .common import (
    OutputFile,
    fail,
    library_errors,
    outcome_panel,
    print_json,
    progress_bar,
    stderr,
    stdout,
    write_file,
)
from .options import (
    GameCommand,
    GameGroup,
    build_game,
    click_options,
    default_game,
    example_commands,
    example_options,
    game_options,
    read_options,
    read_values,
    to_flags,
)

__all__ = ["autoplay", "calibrate_group", "odds", "odds_tables", "plot_odds", "solve"]

#: A picture of an odds table shows at most this many varying parameters (a heatmap).
MAX_PLOT_AXES = 2


# ---- solve ---------------------------------------------------------------------------------------


def _solve_command(cls: type[Game[Any]]) -> click.Command:
    own: list[click.Parameter] = [
        click.Option(
            ["--deal", "deal_text"],
            metavar="CARDS",
            help=f"The deal to solve, in the game's dealing order ({cls.deal_order}): card names "
            "or codes separated by commas.",
        ),
        click.Option(["--seed"], type=int, help="Solve the deal of this seed (with the options)."),
        click.Option(
            ["--max-states"],
            type=click.IntRange(min=1),
            default=2_000_000,
            show_default=True,
            help="Give up (result unknown) after this many positions.",
        ),
        click.Option(
            ["--max-seconds"],
            type=click.FloatRange(min=0, min_open=True),
            help="Give up (result unknown) after this long.",
        ),
        click.Option(
            ["--shorten/--no-shorten"],
            default=True,
            show_default=True,
            help="Let the game tidy the winning line before it is printed (a search's own path "
            "may hold detours).",
        ),
        click.Option(["--json", "as_json"], is_flag=True, help="Print JSON."),
    ]
    options = game_options(cls, option_names(own))

    def run(
        deal_text: str | None, seed: int | None, max_states: int, max_seconds: float | None,
        shorten: bool, as_json: bool, **kwargs: Any,
    ) -> None:  # fmt: skip
        frontend = frontend_for(cls)
        with library_errors():
            flat = read_options(options, kwargs)
            if deal_text is not None:
                if seed is not None:
                    raise ParseError("give either --deal or --seed, not both")
                game, dealt = frontend.game_for_deal(cls, flat, deal_text)
                cards = tuple(dealt)
                start = game.state_from_deal(cards)
            else:
                game = build_game(cls, flat)
                seed = draw_seed() if seed is None else validate_seed(seed)
                start = game.new_state(seed)
                cards = tuple(start.deal or ())
            solver = game.solver()
            if solver is None:
                raise ParameterError(
                    "solver",
                    f"{game.title} has no solver: `skillcheck autoplay {cls.name}` lets one of "
                    "its bots play instead",
                )
            solution = solver.solve(start, max_states=max_states, max_seconds=max_seconds)
            details = getattr(solver, "details", None)
            if callable(details):  # what one deal's reader wants beyond the answer (a best score)
                solution = details(
                    start.copy(), solution, max_states=max_states, max_seconds=max_seconds
                )
            if shorten:
                solution = frontend.refine_solution(game, start.copy(), solution)
        if as_json:
            data: dict[str, Any] = {
                "result": solution.result,
                "moves": [game.move_json(m) for m in solution.moves],
                "codes": [m.code for m in solution.moves],
                "states": solution.states,
                "seconds": round(solution.seconds, 4),
                "game": cls.name, "params": game_params(game), "seed": seed,
                "deal": [item_code(c) for c in cards],
            }  # fmt: skip
            if solution.minimum and solution.result == "win":
                data["min_moves"] = len(solution.moves)
            for key, value in solution.extras.items():
                data.setdefault(key, value)
            print_json(data)
            return
        console = stdout()
        console.print(Text(game.describe(), style="bold"))
        if seed is not None:
            console.print(f"seed {seed}")
        style = {"win": "bold green", "loss": "bold red", "unknown": "bold yellow"}[solution.result]
        searched = f"{solution.states:,} position{'' if solution.states == 1 else 's'}"
        console.print(
            Text.assemble(
                ("Result ", "bold"),
                (solution.result.upper(), style),
                f"  ({searched}, {solution.seconds:.2f} s)",
            )
        )
        for key, value in solution.extras.items():
            console.print(f"{key.replace('_', ' ').capitalize()}: {value}")
        if solution.result == "loss":
            console.print(
                "No sequence of legal moves wins this deal (every position was searched)."
            )
        elif solution.result == "unknown":
            console.print("The budget ran out first: raise --max-states or --max-seconds.")
        else:
            state = game.state_from_deal(cards)
            shortest = " (the shortest there is)" if solution.minimum else ""
            console.print(f"A winning line of {counted(len(solution.moves), 'move')}{shortest}:")
            for number, move in enumerate(solution.moves, 1):
                description = frontend.describe_move(game, state.observation(), move)
                state.push(move)
                console.print(
                    Text.assemble(f"{number:4d}. ", (move.code, "bold"), "  ", description)
                )

    text = (
        f"Solve a deal of {cls.title} with perfect information: win (with a winning line that "
        "replays through the rules), loss (a proof that no line wins) or unknown (the budget ran "
        "out). Give the deal with --deal, or a seed with --seed and the game options."
    )
    return GameCommand(
        cls.name,
        params=[*click_options(options), *own],
        callback=run,
        help=text,
        examples=lambda: example_commands(cls, "solve", limit=2, extra=["--seed", "7"]),
        short_help=cls.summary or cls.title,
    )


solve = GameGroup(
    "solve",
    _solve_command,
    help="Solve a deal of GAME with perfect information (win with a line, proven loss, or "
    "unknown). `skillcheck solve GAME --help` lists its options.",
    examples=first_examples("solve", ["--seed", "7", "--json"]),
    short_help="Solve a deal of GAME with perfect information.",
)


# ---- autoplay ------------------------------------------------------------------------------------


def _bots_help(cls: type[Game[Any]]) -> str:
    game = default_game(cls)
    bots = list(game.bots()) if game is not None else []
    if not bots:
        return "A fair bot of the game (it sees only what a player sees)."
    return f"A fair bot of the game: {', '.join(bots)} (default: {bots[0]})."


def _autoplay_command(cls: type[Game[Any]]) -> click.Command:
    own: list[click.Parameter] = [
        click.Option(["--seed"], type=int, help="Deal from this seed (default: a fresh one)."),
        click.Option(["--bot"], metavar="NAME", help=_bots_help(cls)),
        click.Option(
            ["--record"],
            type=OutputFile(),
            help="Write the game record (JSON) to this file.",
        ),
        click.Option(["--json", "as_json"], is_flag=True, help="Print the game record as JSON."),
    ]
    options = game_options(cls, option_names(own))

    def run(
        seed: int | None, bot: str | None, record: Path | None, as_json: bool, **kwargs: Any
    ) -> None:
        with library_errors():
            flat = read_options(options, kwargs)
            game = build_game(cls, flat)
            name = bot if bot is not None else next(iter(game.bots()))
            player = make_bot(game, name)
            seed = draw_seed() if seed is None else validate_seed(seed)
            state = run_bot(game, player, seed)
        if record is not None:
            write_file(record, state.record().to_json() + "\n")
        if as_json:
            click.echo(state.record().to_json())
            return
        console = stdout()
        console.print(Text(f"{name} bot · seed {seed}", style="bold"))
        console.print(frontend_for(cls).render(game, state.observation(), None, False))
        assert state.outcome is not None
        console.print(outcome_panel(state.outcome, state))

    text = (
        f"Let a fair bot play a check of {cls.title} (it sees only what a player sees): an "
        "NPC's check. The outcome, its degree and the record are the same as a person's."
    )
    return GameCommand(
        cls.name,
        params=[*click_options(options), *own],
        callback=run,
        help=text,
        examples=lambda: example_commands(cls, "autoplay", limit=2),
        short_help=cls.summary or cls.title,
    )


autoplay = GameGroup(
    "autoplay",
    _autoplay_command,
    help="Let a fair bot play a check of GAME (it sees only what a player sees): an NPC's check.",
    examples=first_examples("autoplay"),
    short_help="Let a fair bot play a check of GAME.",
)


# ---- odds ----------------------------------------------------------------------------------------


def _check_cells(name: str, fixed: Mapping[str, Any], axes: Mapping[str, Sequence[Any]]) -> None:
    """Refuse a table with a value that no cell can use (``--level 6..12`` where levels stop at
    9), with the game's own message; combinations the game refuses (a quota above the skill)
    are only left out."""
    usable: set[tuple[str, str]] = set()
    errors: dict[tuple[str, str], SkillcheckError] = {}
    for values in itertools.product(*axes.values()):
        keys = [(axis, repr(v)) for axis, v in zip(axes, values, strict=True)]
        try:
            game_from_options(name, {**fixed, **dict(zip(axes, values, strict=True))})
        except SkillcheckError as exc:
            for key in keys:
                errors.setdefault(key, exc)
            if not axes:
                raise
            continue
        usable.update(keys)
    for axis, axis_values in axes.items():
        for value in axis_values:
            key = (axis, repr(value))
            if key not in usable:
                error = errors[key]
                if getattr(error, "parameter", axis) == axis:
                    raise error  # its message names the value already ("level 12 is not ...")
                raise ParameterError(
                    axis,
                    f"{axis} {quoted(_cell_value(value))} leaves no cell of the table (drop it "
                    f"from the list): {error.message}",
                )


def _cell_value(value: Any) -> str:
    if isinstance(value, list | tuple):
        return ",".join(item_code(v) for v in value)
    return str(value)


def _title(cls: type[Game[Any]], table: OddsTable) -> str:
    fixed = [f"{k} {_cell_value(v)}" for k, v in table.fixed.items() if k not in table.axes]
    return " · ".join([cls.title, *fixed])


def print_odds(cls: type[Game[Any]], table: OddsTable) -> None:
    """The table in plain words: one row per combination, one column per method."""
    console = stdout()
    caption = f"{table.deals} deals per cell · seed {table.seed}"
    out = Table(title=_title(cls, table), title_justify="left", caption=caption,
                caption_justify="left")  # fmt: skip
    for axis in table.axes:
        out.add_column(axis, justify="right")
    for method in table.methods:
        out.add_column(f"{method}\nrate [95 % CI]", justify="right")
    combos: list[dict[str, Any]] = []
    for cell in table.cells:
        if cell.params not in combos:
            combos.append(cell.params)
    undecided = 0
    for params in combos:
        row = [_cell_value(params.get(axis)) for axis in table.axes]
        for method in table.methods:
            found = next(
                (c for c in table.cells if c.method == method and c.params == params), None
            )
            if found is None:
                row.append("")
                continue
            low, high = found.interval
            undecided += found.undecided
            row.append(f"{100 * found.rate:5.1f} % [{100 * low:.0f}–{100 * high:.0f}]")
        out.add_row(*row)
    console.print(out)
    if undecided:
        console.print(Text(
            f"{undecided} perfect-play games were undecided within the solver budget and count as "
            "failures: the perfect rates are lower bounds (raise --solver-states).", style="yellow",
        ))  # fmt: skip


def plot_odds(table: OddsTable, path: Path, title: str) -> None:
    """A PNG of the table: a heatmap per method when two parameters vary, else the rates with
    their intervals along the one varying parameter (or one bar per method)."""
    plt = pyplot()
    axes = list(table.axes)
    if len(axes) == MAX_PLOT_AXES:
        rows, cols = table.axes[axes[0]], table.axes[axes[1]]
        fig, panels = plt.subplots(
            1, len(table.methods), figsize=(4.2 * len(table.methods), 4.0), squeeze=False,
            layout="constrained",
        )  # fmt: skip
        image = None
        for ax, method in zip(panels[0], table.methods, strict=True):
            grid = [[math.nan] * len(cols) for _ in rows]
            for c in table.cells:
                if c.method == method:
                    grid[rows.index(c.params[axes[0]])][cols.index(c.params[axes[1]])] = c.rate
            image = ax.imshow(grid, vmin=0, vmax=1, cmap="viridis", origin="lower", aspect="auto")
            ax.set_xticks(range(len(cols)), [str(v) for v in cols])
            ax.set_yticks(range(len(rows)), [str(v) for v in rows])
            ax.set_xlabel(axes[1])
            ax.set_ylabel(axes[0])
            ax.set_title(method)
            for i, line in enumerate(grid):
                for j, value in enumerate(line):
                    if not math.isnan(value):
                        ax.text(j, i, f"{100 * value:.0f}", ha="center", va="center",
                                color="black" if value > 0.6 else "white", fontsize=8)  # fmt: skip
        if image is not None:
            fig.colorbar(image, ax=panels[0].tolist(), label="success rate")
    else:
        fig, ax = plt.subplots(figsize=(6, 4), layout="constrained")
        values = table.axes[axes[0]] if axes else ("",)
        for method in table.methods:
            cells = [c for c in table.cells if c.method == method]
            if axes:
                cells.sort(key=lambda c: values.index(c.params[axes[0]]))
            rates = [c.rate for c in cells]
            low = [c.rate - c.interval[0] for c in cells]
            high = [c.interval[1] - c.rate for c in cells]
            ax.errorbar(range(len(cells)), rates, yerr=[low, high], marker="o", capsize=4,
                        label=method)  # fmt: skip
        ax.set_xticks(range(len(values)), [str(v) for v in values])
        ax.set_xlabel(axes[0] if axes else "")
        ax.set_ylabel("success rate (95 % CI)")
        ax.set_ylim(0, 1)
        ax.legend()
    fig.suptitle(f"{title}, {table.deals} deals per cell")
    try:
        fig.savefig(path, dpi=110)
    except OSError as exc:
        fail(f"cannot write {path}: {exc.strerror or exc}")
    finally:
        plt.close(fig)


def _write(path: Path | None, text: str) -> bool:
    """Write ``text`` to ``path`` (``-`` is stdout); True if it went to stdout."""
    if path is None:
        return False
    if str(path) == "-":
        click.echo(text.rstrip("\n"))
        return True
    write_file(path, text if text.endswith("\n") else text + "\n")
    return False


def _presets_help(cls: type[Game[Any]]) -> str:
    game = default_game(cls)
    presets = list(game.odds_presets()) if game is not None else []
    if not presets:
        return "A named table of the game (this game has none)."
    return f"A named table of the game: {', '.join(presets)} (options given replace its values)."


def _methods_help(cls: type[Game[Any]]) -> str:
    game = default_game(cls)
    methods = list(methods_of(game)) if game is not None else [PERFECT]
    return (
        f"Methods to compare (repeat the option): {', '.join(methods)}; default: the first two. "
        f"{PERFECT} is the exact solver with the true cards (an upper bound), the others are "
        "fair bots."
    )


def _odds_command(cls: type[Game[Any]]) -> click.Command:
    path = OutputFile(dash=True)
    own: list[click.Parameter] = [
        click.Option(["--preset"], metavar="NAME", help=_presets_help(cls)),
        click.Option(["--deals"], type=int, help="Deals per cell (default: the preset's, or 200)."),
        click.Option(["--bot", "bots"], multiple=True, metavar="METHOD", help=_methods_help(cls)),
        click.Option(
            ["--seed"],
            type=int,
            default=0,
            show_default=True,
            help="Master seed: the same seed gives the same table.",
        ),
        click.Option(["--workers"], type=int, help="Worker processes (default: one per core)."),
        click.Option(
            ["--solver-states"],
            type=click.IntRange(min=1),
            default=PERFECT_PLAY_STATES,
            show_default=True,
            help="Perfect play: positions per deal before a deal counts as undecided.",
        ),
        click.Option(
            ["--csv", "csv_path"], type=path, help="Write the table as CSV (- for stdout)."
        ),
        click.Option(
            ["--json", "json_path"], type=path, help="Write the table as JSON (- for stdout)."
        ),
        click.Option(
            ["--png", "png_path"],
            type=OutputFile(),
            help="Draw the table (a heatmap when two parameters vary; needs matplotlib).",
        ),
    ]
    options = game_options(cls, option_names(own))

    def run(
        preset: str | None, deals: int | None, bots: tuple[str, ...], seed: int,
        workers: int | None, solver_states: int, csv_path: Path | None, json_path: Path | None,
        png_path: Path | None, **kwargs: Any,
    ) -> None:  # fmt: skip
        from concurrent.futures import ProcessPoolExecutor


        with library_errors():
            given_fixed, given_axes = read_values(options, kwargs)
            validate_seed(seed)
            if workers is not None and workers < 1:
                raise ParseError(f"workers {workers} is not allowed: give at least 1")
            fixed: dict[str, Any] = {}
            axes: dict[str, list[Any]] = {}
            methods: list[str] | None = list(bots) or None
            if preset is not None:
                chosen = _preset(cls, preset)
                fixed.update(chosen.get("params", {}))
                axes.update({k: list(v) for k, v in chosen.get("axes", {}).items()})
                methods = methods or list(chosen.get("methods") or []) or None
                deals = deals if deals is not None else chosen.get("deals")
            for key in given_fixed:
                axes.pop(key, None)
            for key in given_axes:
                fixed.pop(key, None)
            fixed.update(given_fixed)
            axes.update(given_axes)
            if png_path is not None:
                if len(axes) > MAX_PLOT_AXES:
                    raise ParameterError(
                        "png", f"a picture shows at most {MAX_PLOT_AXES} varying parameters; this "
                        f"table varies {', '.join(axes)}",
                    )  # fmt: skip
                pyplot()
            _check_cells(cls.name, fixed, axes)
            with progress_bar("playing deals") as update, ProcessPoolExecutor(workers) as pool:
                table = odds_table(
                    cls.name, fixed, axes, methods=methods,
                    deals=deals if deals is not None else 200, seed=seed, executor=pool,
                    progress=update, solver_states=solver_states, skip_invalid=True,
                )  # fmt: skip
            printed = _write(csv_path, table.to_csv())
            printed = _write(json_path, table.to_json()) or printed
            if png_path is not None:
                plot_odds(table, png_path, _title(cls, table))
        if not printed:
            print_odds(cls, table)

    text = (
        f"Success rates of {cls.title} checks with 95 % confidence intervals (Wilson), perfect "
        "play beside the fair bots, over seeded deals on every core (progress on stderr).\n\n"
        "Each game option takes one value, or several (a range 2..5 or a list 1,3 for numbers, "
        "a list a,b for names): every combination of the varying options is a cell, and "
        "combinations the game refuses are left out. Every cell plays the same deals."
    )
    return GameCommand(
        cls.name,
        params=[*click_options(options, ranges=True), *own],
        callback=run,
        help=text,
        examples=lambda: [
            *example_commands(cls, "odds", limit=1, extra=["--deals", "100"]),
            *[f"skillcheck odds {cls.name} --preset {name}" for name in _preset_names(cls)],
        ],
        short_help=cls.summary or cls.title,
    )


def _preset_names(cls: type[Game[Any]]) -> list[str]:
    game = default_game(cls)
    return list(game.odds_presets()) if game is not None else []


def _preset(cls: type[Game[Any]], name: str) -> Mapping[str, Any]:
    game = default_game(cls)
    presets = game.odds_presets() if game is not None else {}
    if name not in presets:
        known = f"the presets are {', '.join(presets)}" if presets else "it has none"
        raise ParameterError("preset", f"unknown preset {quoted(name)} for {cls.title}: {known}")
    return presets[name]


odds = GameGroup(
    "odds",
    _odds_command,
    help="Success probabilities of GAME's checks with confidence intervals, perfect play beside "
    "the fair bots. `skillcheck odds GAME --help` lists its options.",
    examples=first_examples("odds", ["--deals", "100"]),
    short_help="Success probabilities with confidence intervals.",
)


# ---- odds-tables ---------------------------------------------------------------------------------


def _profile_deals(values: Sequence[str]) -> dict[str, int]:
    """``--deals casual=200 --deals careful=20`` as {profile: deals}."""
    from skillcheck.profiles import PROFILE_KEYS

    found: dict[str, int] = {}
    for text in values:
        profile, _, count = text.partition("=")
        profile, count = profile.strip(), count.strip()
        if profile not in PROFILE_KEYS or not (count.isascii() and count.isdigit()):
            raise ParseError(
                f"--deals {quoted(text)} is not allowed: give PROFILE=N with PROFILE one of "
                f"{', '.join(PROFILE_KEYS)} and N a whole number (0 leaves the profile out)"
            )
        found[profile] = int(count)
    return found


@click.command("odds-tables")
@click.option("--regenerate", is_flag=True, help="Recompute the tables (else list them).")
@click.option(
    "--game", "names", multiple=True, metavar="GAME",
    help="Only this game (repeat the option); default: every game that ships tables.",
)  # fmt: skip
@click.option(
    "--deals", "deals", multiple=True, metavar="PROFILE=N",
    help="Deals per cell for a profile (careful, casual, ceiling), replacing every grid's "
    "declared number: more deals make a finer table. 0 leaves the profile out.",
)  # fmt: skip
@click.option("--workers", type=int, help="Worker processes (default: one per core).")
@click.option(
    "--out", type=click.Path(file_okay=False, path_type=Path),
    help="Write the tables into this directory, as <game>.json (default: each game's own "
    "file in its folder).",
)  # fmt: skip
@click.option(
    "--extend", is_flag=True,
    help="Keep the deals already in the files and play only those they lack (resume a long "
    "run, or make a table finer with --deals).",
)  # fmt: skip
@click.option(
    "--log", "log_path", type=click.Path(dir_okay=False, path_type=Path),
    help="Also append progress lines (time, grid, done/total) to this file.",
)  # fmt: skip
def odds_tables(
    regenerate: bool, names: tuple[str, ...], deals: tuple[str, ...], workers: int | None,
    out: Path | None, extend: bool, log_path: Path | None,
) -> None:  # fmt: skip
    """The odds tables shipped with the package: list them, or recompute them (--regenerate).

    Each game declares its grids in its odds.py; every profile of a grid plays the first N of
    the same seeded deals, so a cell recomputed by `skillcheck odds` with that seed and those
    deals gives the same numbers."""
    import time
    from concurrent.futures import ProcessPoolExecutor

    from skillcheck.engine import GAMES
    from skillcheck.profiles import gm_odds_of
    from skillcheck.tables import generate, grid_cells, table_file

    with library_errors():
        for name in names:
            if name not in GAMES:
                raise ParameterError(
                    "game", f"unknown game {quoted(name)}: the games are {', '.join(GAMES)}"
                )
        chosen = [n for n in (names or GAMES) if gm_odds_of(n).grids]
        override = _profile_deals(deals)
        if workers is not None and workers < 1:
            raise ParseError(f"workers {workers} is not allowed: give at least 1")
        if not regenerate:
            files = {name: table_file(name, out) for name in chosen}
            listing = Table(title="Shipped odds tables", title_justify="left")
            listing.add_column("game", no_wrap=True)
            listing.add_column("grid", no_wrap=True)  # a grid's name is what a reader tells apart
            listing.add_column("cells", justify="right")
            listing.add_column("deals per profile")
            for name in chosen:
                file = files[name]
                missing = file is None or not file.exists()
                for grid in gm_odds_of(name).grids:
                    per_profile = ", ".join(
                        f"{p} {n}" for p, n in {**grid.deals, **override}.items() if n
                    )
                    cells = str(len(grid_cells(name, grid)))
                    shown = per_profile + " (not generated)" * missing
                    listing.add_row(name, grid.name, cells, shown)
            console = stdout()
            console.print(listing)
            for name, file in files.items():  # whole, however long: a reader copies the path
                console.print(f"{name}'s tables: {file}", soft_wrap=True)
            return
        started = time.monotonic()
        last_logged = [0.0]

        def log(line: str) -> None:
            if log_path is not None:
                with log_path.open("a", encoding="utf-8") as handle:
                    handle.write(f"{time.strftime('%H:%M:%S')} {line}\n")

        with ProcessPoolExecutor(max_workers=workers) as pool:
            for name in chosen:
                with progress_bar(name) as show:

                    def update(grid: str, done: int, total: int, show: Any = show) -> None:
                        show(done, total, description=grid)
                        now = time.monotonic()
                        if done == total or now - last_logged[0] >= 30:
                            last_logged[0] = now
                            log(f"{grid} {done}/{total} ({now - started:.0f} s)")

                    log(f"{name}: start")
                    generate(
                        name, deals=override, executor=pool, progress=update, out=out,
                        extend=extend,
                    )  # fmt: skip
                log(f"{name}: written ({time.monotonic() - started:.0f} s)")
                stderr().print(f"{name}: written")


# ---- calibrate -----------------------------------------------------------------------------------


def print_calibration(cls: type[Game[Any]], result: Any, fixed: Mapping[str, Any]) -> None:
    """The calibration as a table: every value's odds, the closest marked."""
    from skillcheck.profiles import PROFILE_NAMES, percent

    console = stdout()
    shown = [f"{k} {_cell_value(v)}" for k, v in fixed.items()]
    deals = sorted({c.deals for c in result.choices})
    source = "the shipped tables" if result.source == "shipped" else "computed"
    out = Table(
        title=" · ".join([cls.title, *shown, PROFILE_NAMES[result.profile]]),
        title_justify="left",
        caption=f"{'/'.join(map(str, deals))} deals per value · {source}",
        caption_justify="left",
    )
    out.add_column(result.parameter, justify="right")
    out.add_column("chance [95 % CI]", justify="right")
    out.add_column("in words")
    out.add_column("")
    for choice in result.choices:
        data = choice.to_dict()
        mark = f"◀ closest to {percent(result.target)}" if choice.value == result.best else ""
        out.add_row(
            _cell_value(choice.value),
            f"{100 * data['rate']:5.1f} % [{100 * data['low']:.0f}–{100 * data['high']:.0f}]",
            data["words"],
            mark,
            style="bold" if mark else None,
        )
    console.print(out)
    console.print(result.summary)


def calibrate_examples(cls: type[Game[Any]], taken: Collection[str] = ()) -> list[str]:
    """``skillcheck calibrate`` on the game's first example, less its difficulty parameter."""
    import shlex

    from skillcheck.profiles import gm_odds_of

    declared = gm_odds_of(cls.name).difficulty
    examples = cls.examples()
    flat = example_options(cls, examples[0]) if examples and declared is not None else None
    if flat is None or declared is None:
        return []
    try:
        parameter = declared(flat).parameter
    except SkillcheckError:
        return []
    flat = {k: v for k, v in flat.items() if k != parameter}
    flags = to_flags(game_options(cls, taken), flat)
    line = ["skillcheck", "calibrate", cls.name, *flags, "--target", "0.6"]
    return [shlex.join(line), shlex.join([*line, "--profile", "ceiling"])]


def _calibrate_command(cls: type[Game[Any]]) -> click.Command:
    from skillcheck.profiles import PROFILE_KEYS

    own: list[click.Parameter] = [
        click.Option(
            ["--target"],
            type=float,
            required=True,
            help="The wanted chance of success, from 0 to 1 (0.6 is 60 %).",
        ),
        click.Option(
            ["--profile"],
            type=click.Choice(PROFILE_KEYS),
            default="casual",
            show_default=True,
            help="Who plays: careful (the game's strong fair bot), casual (its fast fair bot) "
            "or ceiling (perfect play).",
        ),
        click.Option(
            ["--deals"],
            type=int,
            help="Play this many deals per value (default: the shipped tables when they hold "
            "every value, else 200).",
        ),
        click.Option(
            ["--seed"],
            type=int,
            default=0,
            show_default=True,
            help="Master seed of the deals played (not of the shipped tables).",
        ),
        click.Option(["--workers"], type=int, help="Worker processes (default: one per core)."),
        click.Option(["--json", "as_json"], is_flag=True, help="Print the answer as JSON."),
    ]
    options = game_options(cls, option_names(own))

    def run(
        target: float, profile: str, deals: int | None, seed: int, workers: int | None,
        as_json: bool, **kwargs: Any,
    ) -> None:  # fmt: skip
        from concurrent.futures import ProcessPoolExecutor

        from skillcheck.calibrate import calibrate, plan, shipped_choices

        with library_errors():
            fixed = read_options(options, kwargs)
            validate_seed(seed)
            if deals is not None and deals < 1:
                raise ParseError(f"deals {deals} is not allowed: give at least 1")
            if workers is not None and workers < 1:
                raise ParseError(f"workers {workers} is not allowed: give at least 1")
            chosen = plan(cls.name, target, profile, fixed)
            if deals is None and shipped_choices(chosen) is not None:
                result = calibrate(cls.name, target, profile, fixed)
            else:
                with progress_bar("playing deals") as update, ProcessPoolExecutor(workers) as pool:
                    result = calibrate(
                        cls.name, target, profile, fixed, deals=deals or 200, seed=seed,
                        executor=pool, progress=update,
                    )  # fmt: skip
        if as_json:
            print_json(result.to_dict())
            return
        print_calibration(cls, result, fixed)

    text = (
        f"Which value of {possessive(cls.title)} difficulty parameter gives the wanted chance "
        "(--target) for a player (--profile), the other options fixed: every value's odds in "
        "plain words, the closest marked. The shipped tables answer at once; other options "
        "are played (progress on stderr)."
    )
    return GameCommand(
        cls.name,
        params=[*click_options(options), *own],
        callback=run,
        help=text,
        examples=lambda: calibrate_examples(cls, option_names(own)),
        short_help=cls.summary or cls.title,
    )


calibrate_group = GameGroup(
    "calibrate",
    _calibrate_command,
    help="Which difficulty (a quota, a level...) of GAME gives the wanted chance for a player. "
    "`skillcheck calibrate GAME --help` lists its options.",
    examples=lambda: [line for cls in GAMES.values() for line in calibrate_examples(cls)[:1]],
    short_help="Which difficulty gives the wanted chance.",
)
