"""The interface every check game implements, and the registry of games.

As in OpenSpiel, a :class:`Game` holds the rules and parameters (a frozen attrs value) and a
:class:`State` is one position of one play. Chance is explicit: the shuffle is ``Game.deal(seed)``,
a pure function of the game's parameters and the seed, and the state starts from that deal. What
the player may see is :meth:`State.observation`, never the state itself.

Subclasses implement the rules through a handful of hooks (``_move_error``, ``_apply``,
``_generate_moves``, ``_goal_outcome``, ``_loss_outcome``, ``_snapshot``/``_restore``); the base
class owns the move stack, undo snapshots, concession, the move limit and terminal detection, so
no game repeats that logic.
"""

from __future__ import annotations

import difflib
import functools
import typing
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Self, TypeVar

import attrs
from attrs import frozen

from skillcheck.board import Board, MoveView
from skillcheck.errors import (
    GameOverError,
    IllegalMoveError,
    NotAMoveError,
    ParameterError,
    ParseError,
    UndoError,
    quoted,
)
from skillcheck.outcome import (
    MAX_MOVE_CODE,
    RESERVED_WORDS,
    UNDO,
    EndReason,
    Outcome,
    Status,
    Tier,
    Tiers,
    UndoPolicy,
)
from skillcheck.registry import GAMES, analysis_of, game_class, make_game, register_game
from skillcheck.rng import draw_seed, validate_seed
from skillcheck.solving import Bot, RandomBot, Solver
from skillcheck.words import counted

if TYPE_CHECKING:
    from skillcheck.records import GameRecord

__all__ = [
    "FINISH_MAX_STATES",
    "GAMES",
    "MAX_MOVE_CODE",
    "PARAMETER_KINDS",
    "RESERVED_WORDS",
    "UNDO",
    "EndReason",
    "Game",
    "LegalMoves",
    "Move",
    "Observation",
    "Outcome",
    "ParameterSpec",
    "State",
    "Status",
    "Tier",
    "Tiers",
    "UndoPolicy",
    "game_class",
    "make_game",
    "register_game",
    "undo_policy",
    "undo_spec",
]


#: The solver budget (positions) of :meth:`State.finishing_line`: a seen position is small.
FINISH_MAX_STATES = 50_000


class Move(ABC):
    """A move of some game; each game's move type has a compact text ``code``."""

    @property
    @abstractmethod
    def code(self) -> str: ...


MoveT = TypeVar("MoveT", bound=Move)
GameT = TypeVar("GameT", bound="Game[Any]")


#: The kinds of parameter: a whole number in a range, true or false, one of named choices, or
#: cards of a deck (``deck`` names it).
PARAMETER_KINDS = ("int", "bool", "choice", "cards")


@frozen
class ParameterSpec:
    """One game parameter as a CLI, a form or a JSON Schema presents it.

    ``path`` says where the value sits in the game's parameters as records and the API write
    them (``("variant", "suit")``); by default at the top level under ``name``. ``optional``
    parameters may be left out (``None``). ``applies_if`` is ``(other, values)`` for a
    parameter the game takes only while the parameter named ``other`` has one of ``values``
    (a quota check's quota): a form shows it only then, and the game refuses it otherwise
    (the conformance suite checks that it does)."""

    name: str
    kind: str
    default: Any
    help: str
    minimum: int | None = None
    maximum: int | None = None
    choices: tuple[str, ...] | None = None
    optional: bool = False
    deck: str | None = None
    path: tuple[str, ...] | None = None
    applies_if: tuple[str, tuple[str, ...]] | None = None

    def __attrs_post_init__(self) -> None:
        if self.kind not in PARAMETER_KINDS:
            raise ValueError(
                f"parameter kind {quoted(self.kind)}: the kinds are {', '.join(PARAMETER_KINDS)}"
            )
        if self.kind == "choice" and not self.choices:
            raise ValueError(f"choice parameter {quoted(self.name)} needs its choices")
        if self.kind == "cards" and self.deck is None:
            raise ValueError(f"cards parameter {quoted(self.name)} needs the deck it names")

    @property
    def where(self) -> tuple[str, ...]:
        return self.path if self.path is not None else (self.name,)


class Observation(ABC):
    """What the player may see of a position. Each game's observation is a frozen attrs class;
    it never holds a card the player has not seen, and writes itself as a compact code."""

    @abstractmethod
    def code(self) -> str:
        """The observation code (docs/notation.md)."""


class Game(ABC, Generic[MoveT]):
    """Rules and parameters of one check game. Subclasses are frozen attrs classes.

    Besides the rules, a game answers everything a front end asks (docs/adding-a-game.md): its
    deck, example parameter sets, the goal and the board in plain words, each move as a
    :class:`~skillcheck.board.MoveView`, its solver and its bots. Front ends read these hooks and
    the registry; none of them names a game.
    """

    name: ClassVar[str]
    title: ClassVar[str]
    #: One sentence for a list of games.
    summary: ClassVar[str] = ""
    #: The registry name of the deck the game deals from (:data:`skillcheck.cards.DECKS`).
    deck_name: ClassVar[str]
    #: How ``deal(seed)`` lists the cards, in words (``skillcheck deal --json`` keeps this order).
    deal_order: ClassVar[str] = "the order of the shuffled deck, top card first"
    #: The name of the game's own page module (``api/static/games/<name>.js``), if it has one.
    page_module: ClassVar[str | None] = None
    #: Every game has these two parameters (attrs fields on the subclass): the undo policy,
    #: ``field(default=UndoPolicy.SAFE, converter=undo_policy)`` with :func:`undo_spec` (the
    #: converter reads ``True``/``False`` of old records as full/off), and the move limit.
    undo: UndoPolicy
    move_limit: int | None

    def __new__(cls, *args: Any, **kwargs: Any) -> Self:
        """Refuse keyword parameters the game does not take (``make_game("hanoy", colour=1)``,
        ``game.evolve(foo=1)``, ``ThreeTowers.quota_check(..., colour=1)``) with a
        :class:`ParameterError` naming them and the game's parameters, before the attrs
        ``__init__`` would raise a bare ``TypeError``."""
        names = _init_names(cls)
        if names is not None and not set(kwargs) <= set(names):
            nested = {s.name: s.where[0] for s in cls.parameters() if len(s.where) > 1}
            _refuse_unknown(cls.name, kwargs, names, "parameter", nested)
        return super().__new__(cls)

    @classmethod
    def move_type(cls) -> type[Move]:
        """The class of this game's moves: the argument of the ``Game[...]`` it subclasses
        (:meth:`State.push` refuses anything else)."""
        return _move_type(cls)

    @abstractmethod
    def deal(self, seed: int) -> tuple[Any, ...]:
        """The chance event: the shuffled cards for ``seed``. Pure and stable forever."""

    @abstractmethod
    def state_from_deal(self, deal: Sequence[Any], seed: int | None = None) -> State[MoveT]:
        """The initial state for an explicit deal (``seed`` is recorded if it came from one)."""

    @abstractmethod
    def parse_move(self, code: str) -> MoveT:
        """A move from its code; raises :class:`~skillcheck.errors.ParseError` if malformed."""

    @abstractmethod
    def state_from_code(self, code: str) -> State[MoveT]:
        """A state from a full position code (as :meth:`State.code` writes it)."""

    def can_win(self, state: State[MoveT], *, max_states: int = 200_000) -> bool | None:
        """Whether ``state`` can still be won with its true (hidden) cards: True, False (a
        proof), or None when unknown within the budget (or when the game has no solver)."""
        solver = self.solver()
        if solver is None:
            return None
        result = solver.solve(state, max_states=max_states).result
        return None if result == "unknown" else result == "win"

    @abstractmethod
    def default_tiers(self) -> Tiers:
        """The thresholds on this game's degree of success that grade a result into the four
        tiers (critical success, success, failure, critical failure) when the GM sets none.
        They may depend on the parameters (a quota, an allowance); each game documents them."""

    def tier(self, outcome: Outcome, tiers: Tiers | None = None) -> Tier:
        """The tier of ``outcome`` under ``tiers`` (the GM's), else :meth:`default_tiers`."""
        return (self.default_tiers() if tiers is None else tiers).tier(outcome)

    @property
    def undo_policy(self) -> UndoPolicy:
        """The ``undo`` parameter as a policy (a game that still takes a switch: on is full)."""
        return UndoPolicy.of(self.undo)

    @classmethod
    @abstractmethod
    def parameters(cls) -> tuple[ParameterSpec, ...]:
        """The parameters, their defaults and allowed values."""

    @classmethod
    @abstractmethod
    def examples(cls) -> tuple[dict[str, Any], ...]:
        """Parameter sets (as records write them) that cover every variant of the game: the
        first is the demo and the CLI's example; the conformance suite runs them all."""

    @classmethod
    def refuse_unknown_options(cls, options: Mapping[str, Any]) -> None:
        """Raise :class:`ParameterError` if ``options`` names an option that is none of the
        game's parameters (``{"card": 5}`` for ``cards``), naming it and the options."""
        _refuse_unknown(cls.name, options, [spec.name for spec in cls.parameters()], "option")

    @classmethod
    def params_from_options(cls, options: Mapping[str, Any]) -> dict[str, Any]:
        """The game's parameters from flat options as a CLI or a form gives them (one entry per
        :class:`ParameterSpec`, ``None`` for an option not given): each value is placed at its
        spec's ``path``. An option that is no parameter of the game is refused
        (:meth:`refuse_unknown_options`). Games whose parameters depend on each other override
        this."""
        cls.refuse_unknown_options(options)
        params: dict[str, Any] = {}
        for spec in cls.parameters():
            value = options.get(spec.name)
            if value is None:
                continue
            target = params
            for key in spec.where[:-1]:
                target = target.setdefault(key, {})
            target[spec.where[-1]] = value
        return params

    def describe(self) -> str:
        """This game and its parameters in a short line of plain words."""
        return self.title

    @abstractmethod
    def goal_text(self) -> str:
        """What the player must do to succeed, in one plain sentence."""

    @abstractmethod
    def board(self, observation: Any) -> Board:
        """The table as a front end draws it, from what the player sees (never more)."""

    @abstractmethod
    def move_view(self, observation: Any, move: MoveT) -> MoveView:
        """``move`` as a front end offers it: zones it goes from and to, and a sentence."""

    def solver(self) -> Solver[MoveT] | None:
        """The game's exact solver (it knows the hidden cards), or None if it has none: by
        default the one its solver module registered (``registry.register_analysis``)."""
        factory = analysis_of(self.name).solver
        solver: Solver[MoveT] | None = None if factory is None else factory()
        return solver

    def bots(self) -> Mapping[str, Callable[[], Bot]]:
        """The fair bots by name (they see only observations): those the game's bot module
        registered, then ``random``, which every game has."""
        return {**analysis_of(self.name).bots, "random": RandomBot}

    def parse_deal(self, text: str) -> tuple[Any, ...]:
        """A deal written by a person (``skillcheck solve GAME --deal TEXT``), in the order of
        :attr:`deal_order`; by default card codes of the game's deck separated by spaces or
        commas. Raises :class:`~skillcheck.errors.ParseError` naming what was wrong."""
        from skillcheck.cards import deck_named

        return deck_named(self.deck_name).parse_all(text)

    def move_json(self, move: MoveT) -> Any:
        """A move as JSON for scripts (``skillcheck solve --json``); by default its code."""
        return move.code

    @classmethod
    def commands(cls) -> Sequence[Any]:
        """Extra ``click`` commands of this game, mounted as ``skillcheck GAME COMMAND``: by
        default those its command module registered."""
        return tuple(analysis_of(cls.name).commands)

    def odds_presets(self) -> Mapping[str, Mapping[str, Any]]:
        """Named odds tables a GM reads (``skillcheck odds GAME --preset NAME``): each maps
        ``params`` (fixed parameters), ``axes`` (parameter → values to vary), ``methods`` and
        ``deals``. By default those the game's odds module registered."""
        return dict(analysis_of(self.name).odds_presets)

    def new_state(self, seed: int | None = None) -> State[MoveT]:
        """A new play; a seed is drawn from OS entropy when none is given, and always recorded."""
        seed = draw_seed() if seed is None else validate_seed(seed)
        return self.state_from_deal(self.deal(seed), seed=seed)

    def evolve(self: GameT, **changes: Any) -> GameT:
        return attrs.evolve(self, **changes)  # type: ignore[misc]


class LegalMoves(Generic[MoveT]):
    """A lazy view of the legal moves: supports ``in`` (a move, or its code as text),
    iteration, ``len`` and truth."""

    __slots__ = ("_state",)

    def __init__(self, state: State[MoveT]) -> None:
        self._state = state

    def __iter__(self) -> Iterator[MoveT]:
        if self._state.outcome is not None:
            return iter(())
        return self._state._generate_moves()

    def __contains__(self, move: object) -> bool:
        state = self._state
        if isinstance(move, str):  # "d1" in state.legal_moves: the code of a legal move
            try:
                move = state.game.parse_move(move)
            except ParseError:
                return False
        return isinstance(move, state.game.move_type()) and state.is_legal(move)  # type: ignore[arg-type]

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __bool__(self) -> bool:
        return any(True for _ in self)

    def count(self) -> int:
        return len(self)

    def __repr__(self) -> str:
        return f"<LegalMoves ({', '.join(m.code for m in self)})>"


class State(ABC, Generic[MoveT]):
    """One position of one play, with its move stack and undo snapshots."""

    def __init__(self, game: Game[MoveT], seed: int | None, deal: tuple[Any, ...] | None) -> None:
        self.game = game
        self.seed = seed
        self.deal = deal
        self._moves: list[MoveT] = []
        #: Every action in order: move codes and UNDO; records store this, so undo use shows.
        self._history: list[str] = []
        self._snapshots: list[Any] = []
        self._outcome: Outcome | None = None
        self._offset = 0  # moves made before this state (a position code says how many)

    # ---- hooks each game implements ---------------------------------------------------------
    @abstractmethod
    def _move_error(self, move: MoveT) -> str | None:
        """Why ``move`` is illegal here, or None if it is legal (the game is in progress)."""

    @abstractmethod
    def _apply(self, move: MoveT) -> None: ...

    @abstractmethod
    def _generate_moves(self) -> Iterator[MoveT]: ...

    @abstractmethod
    def _goal_outcome(self) -> Outcome | None:
        """The winning outcome if the goal has been reached, else None."""

    @abstractmethod
    def _loss_outcome(self, reason: EndReason) -> Outcome: ...

    @abstractmethod
    def _snapshot(self) -> Any: ...

    @abstractmethod
    def _restore(self, snapshot: Any) -> None: ...

    @abstractmethod
    def observation(self) -> Any:
        """What the player may see: never the order of hidden cards."""

    @abstractmethod
    def hidden_codes(self) -> frozenset[str]:
        """The codes of the deal's cards whose identity the player has not seen here (for
        conformance and leak checks: none of them may appear in anything a player receives)."""

    def revealed_observation(self) -> Any:
        """The observation once the check is over and its deal is revealed: a game that
        leaves cards face down in place (Tri Peaks' peaks) turns them up here, so the last
        table shows what lay under them. While the game goes on it must be
        :meth:`observation` (the conformance suite checks it); by default it always is."""
        return self.observation()

    def board(self) -> Board:
        """The board of this position as the player sees it."""
        return self.game.board(self.observation())

    def move_views(self) -> list[MoveView]:
        """The legal moves as front ends offer them."""
        observation = self.observation()
        return [self.game.move_view(observation, m) for m in self.legal_moves]

    @abstractmethod
    def code(self) -> str:
        """The full position code (includes hidden cards: for the server and solvers only)."""

    @abstractmethod
    def _copy_position(self) -> State[MoveT]:
        """A new state object with this position (moves and snapshots are copied by the base)."""

    # ---- the shared machinery ---------------------------------------------------------------
    @property
    def legal_moves(self) -> LegalMoves[MoveT]:
        return LegalMoves(self)

    @property
    def moves(self) -> tuple[MoveT, ...]:
        """The moves made so far, oldest first."""
        return tuple(self._moves)

    @property
    def moves_made(self) -> int:
        """Moves made in this play, counting those made before a position code was loaded."""
        return self._offset + len(self._moves)

    @property
    def history(self) -> tuple[str, ...]:
        """Every action taken, oldest first: move codes, and ``"undo"`` for each take-back."""
        return tuple(self._history)

    @property
    def undo_count(self) -> int:
        return self._history.count(UNDO)

    @property
    def outcome(self) -> Outcome | None:
        return self._outcome

    @property
    def tier(self) -> Tier | None:
        """The result's tier under the game's default thresholds (critical success, success,
        failure, critical failure), or None while the check is in progress; a GM's own
        thresholds: ``game.tier(state.outcome, tiers)``."""
        return None if self._outcome is None else self.game.tier(self._outcome)

    @property
    def status(self) -> Status:
        return Status.IN_PROGRESS if self._outcome is None else self._outcome.status

    def is_terminal(self) -> bool:
        return self._outcome is not None

    def is_legal(self, move: MoveT) -> bool:
        """Whether ``move`` (a move of this game) may be made now; anything that is not a move
        of this game raises :class:`NotAMoveError`, as :meth:`push` does."""
        self._require_move(move, "is_legal")
        return self._outcome is None and self._move_error(move) is None

    def _require_move(self, move: object, action: str) -> None:
        """Raise :class:`NotAMoveError` unless ``move`` is a move of this game."""
        game = self.game
        if isinstance(move, game.move_type()):
            return
        wanted = f"{action} takes {_a(game.title)} move"
        if isinstance(move, str):
            written = quoted(move)
            hint = (
                f"play a move written as text with push_code({written})"
                if action == "push"
                else f"read it first with game.parse_move({written})"
            )
            message = f"{wanted}, not the text {written}: {hint}"
        elif isinstance(move, Move):
            owner = next(
                (f"{_a(cls.title)} move" for cls in GAMES.values()
                 if isinstance(move, cls.move_type())),
                "a move of another game",
            )  # fmt: skip
            message = f"{wanted}, not {owner} ({quoted(move.code)})"
        else:
            message = (
                f"{wanted} (one of state.legal_moves, or game.parse_move(code)), not {_given(move)}"
            )
        raise NotAMoveError(move, message)

    def _require_in_progress(self, action: str) -> None:
        if self._outcome is not None:
            raise GameOverError(f"cannot {action}: the check is over ({self._outcome.summary})")

    def push(self, move: MoveT) -> None:
        """Make a move; an illegal move raises :class:`IllegalMoveError` and changes nothing.

        ``move`` is a move of this game (from :attr:`legal_moves` or ``game.parse_move``), as
        in python-chess: text goes to :meth:`push_code`. Text, another game's move or any
        other value raises :class:`NotAMoveError` (a ``TypeError``) and changes nothing."""
        self._require_move(move, "push")
        self._require_in_progress("move")
        error = self._move_error(move)
        if error is not None:
            raise IllegalMoveError(move, error)
        self._snapshots.append(self._snapshot())
        self._apply(move)
        self._moves.append(move)
        self._history.append(move.code)
        self._outcome = self._evaluate()

    def push_code(self, code: str) -> MoveT:
        """Parse a move code and make the move; returns the move. Text that is no move is a
        :class:`ParseError`; anything but text is :class:`NotAMoveError`, as for :meth:`push`."""
        if not isinstance(code, str):
            given = (
                f"a move ({quoted(code.code)}): push takes a move"
                if isinstance(code, Move)
                else _given(code)
            )
            raise NotAMoveError(code, f"push_code takes a move's code as text, not {given}")
        move = self.game.parse_move(code)
        self.push(move)
        return move

    def undo(self) -> MoveT:
        """Take back the last move, restoring the position exactly, if the game's undo policy
        allows it (else :class:`UndoError` saying why; :class:`GameOverError` once ended)."""
        policy = self.game.undo_policy
        if policy is UndoPolicy.OFF:
            raise UndoError(UNDO_OFF)
        self._require_in_progress("undo")
        refusal = self.undo_refusal()
        if refusal is not None:
            raise UndoError(refusal)
        self._restore(self._snapshots.pop())
        self._history.append(UNDO)
        return self._moves.pop()

    def undo_refusal(self) -> str | None:
        """Why :meth:`undo` would be refused now, in words, or None if it would be accepted."""
        policy = self.game.undo_policy
        if policy is UndoPolicy.OFF:
            return UNDO_OFF
        if self._outcome is not None:
            return f"cannot undo: the check is over ({self._outcome.summary})"
        if not self._moves:
            if self._history:  # every move made so far has been taken back
                return "nothing to undo: every move made has been taken back"
            return "nothing to undo: no move has been made yet"
        if policy is UndoPolicy.SAFE and self.last_move_revealed():
            return UNDO_REVEALED
        return None

    @property
    def can_undo(self) -> bool:
        """Whether :meth:`undo` would be accepted now (the check's policy, its status, a move
        to take back, and under ``safe`` a last move that turned up no hidden card)."""
        return self.undo_refusal() is None

    def last_move_revealed(self) -> bool:
        """Whether the last move turned up a card the player had not seen: some card hidden
        before it (:meth:`hidden_codes`) is not hidden after it. False with no move (or one
        made before a position code was loaded). Generic: no game says which moves reveal."""
        if not self._snapshots:
            return False
        before = self._copy_position()
        before._offset = self._offset
        before._restore(self._snapshots[-1])
        return not before.hidden_codes() <= self.hidden_codes()

    def concede(self) -> Outcome:
        """Give up: the check ends as lost."""
        self._require_in_progress("concede")
        self._outcome = self._loss_outcome(EndReason.CONCEDED)
        return self._outcome

    def end_if_unwinnable(self, *, max_states: int = 200_000) -> bool:
        """End the check as lost if the game proves no winning line remains (within the budget).

        Returns True if the check was ended. Deterministic: the budget is in states, not time.
        """
        self._require_in_progress("check for a dead position")
        if self.game.can_win(self, max_states=max_states) is False:
            self._outcome = self._loss_outcome(EndReason.UNWINNABLE)
            return True
        return False

    def finishing_line(self, *, max_states: int = FINISH_MAX_STATES) -> tuple[MoveT, ...] | None:
        """The moves that win from here when the check is won in substance, else None.

        Won in substance: the deal hid cards, all of them are now seen (so finding the line
        needs nothing the player lacks: the chance is over), and the solver proves a win within
        ``max_states`` positions, by a line that fits the move limit. A game without hidden
        cards (a puzzle such as Tower of Hanoy) is never finished for the player: the finding is
        the check. Generic, so no game restates a rule for it; deterministic, since the budget
        is in positions. :meth:`finish_refusal` says why there is no line, in words."""
        return self._finish(max_states)[0]

    def finish_refusal(self, *, max_states: int = FINISH_MAX_STATES) -> str | None:
        """Why the check cannot be finished for the player now, in words, or None if
        :meth:`finishing_line` has a line."""
        return self._finish(max_states)[1]

    @property
    def finish_offered(self) -> bool:
        """Whether this check can ever be finished for the player: its deal hid cards and the
        game has a solver to prove the win (front ends offer "finish" only then)."""
        return bool(self.initial_position().hidden_codes()) and self.game.solver() is not None

    def _finish(self, max_states: int) -> tuple[tuple[MoveT, ...] | None, str | None]:
        """:meth:`finishing_line` and, without a line, :meth:`finish_refusal`'s reason."""
        if self._outcome is not None:
            return None, f"cannot finish: the check is over ({self._outcome.summary})"
        if not self.finish_offered:
            return None, (
                "nothing to finish: no card of this check was hidden, so finding the way is the "
                "check itself; it is never finished for you"
                if not self.initial_position().hidden_codes()
                else f"nothing to finish: {self.game.title} has no solver to prove a win"
            )
        if self.hidden_codes():
            return None, (
                "nothing to finish yet: some cards are still face down; a check is finished for "
                "you only once every card is seen and the win is certain"
            )
        solver = self.game.solver()
        assert solver is not None  # finish_offered
        solution = solver.solve(self, max_states=max_states)
        if solution.result != "win":
            return None, (
                "nothing to finish: every card is seen, but no certain win was found from here; "
                "play on"
            )
        limit = self.game.move_limit
        if limit is not None and self.moves_made + len(solution.moves) > limit:
            left = limit - self.moves_made
            return None, (  # the player plays on: a shorter line may still exist
                f"nothing to finish: the win found takes {counted(len(solution.moves), 'move')}, "
                f"more than the {counted(left, 'move')} left; play on"
            )
        return tuple(solution.moves), None

    def _evaluate(self) -> Outcome | None:
        goal = self._goal_outcome()
        if goal is not None:
            return goal
        limit = self.game.move_limit
        if limit is not None and self.moves_made >= limit:
            return self._loss_outcome(EndReason.MOVE_LIMIT)
        if not any(True for _ in self._generate_moves()):
            return self._loss_outcome(EndReason.NO_LEGAL_MOVES)
        return None

    def copy(self) -> State[MoveT]:
        """An independent copy, with the same move stack and undo history."""
        other = self._copy_position()
        other.seed, other.deal = self.seed, self.deal
        other._moves = list(self._moves)
        other._history = list(self._history)
        other._snapshots = list(self._snapshots)
        other._outcome = self._outcome
        other._offset = self._offset
        return other

    def initial_position(self) -> State[MoveT]:
        """A new state at the position this play started from (no move history)."""
        first = self._copy_position()
        first._offset = self._offset
        if self._snapshots:
            first._restore(self._snapshots[0])
        return first

    def record(self, *, reveal: bool | None = None, tiers: Tiers | None = None) -> GameRecord:
        """The game record. Hidden information (seed, deal) is included only once the check has
        ended, unless ``reveal=True`` is given explicitly (server-side storage). Its tier is
        graded by ``tiers`` (the GM's), else by the game's default thresholds."""
        from skillcheck.records import GameRecord

        shown = self.is_terminal() if reveal is None else reveal
        return GameRecord.from_state(self, reveal=shown, tiers=tiers)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.code()!r}>"


#: Why an undo is refused, in the words the player sees (docs/rules.md, "Undo").
UNDO_OFF = "undo is switched off for this check"
UNDO_REVEALED = (
    "the last move turned up a hidden card; this check allows undo only for moves that reveal "
    "nothing"
)
#: The ``undo`` parameter in words, for every game's :func:`undo_spec`.
UNDO_HELP = (
    "which moves the player may take back: off (none), safe (only moves that turned up no "
    "hidden card) or full (any move)"
)


def undo_policy(value: Any) -> UndoPolicy:
    """The converter of every game's ``undo`` field (:meth:`UndoPolicy.of`)."""
    return UndoPolicy.of(value)


def undo_spec(default: UndoPolicy = UndoPolicy.SAFE) -> ParameterSpec:
    """Every game's ``undo`` parameter: a choice of ``off``, ``safe`` and ``full``."""
    return ParameterSpec(
        "undo", "choice", default.value, UNDO_HELP, choices=tuple(p.value for p in UndoPolicy)
    )


Validator = Callable[[Any, Any, Any], None]


def int_in_range(name: str, low: int, high: int, *, optional: bool = False) -> Validator:
    """An attrs validator that raises :class:`ParameterError` naming the allowed range, and
    saying that a whole number is needed when given something else (``9.0``, ``"9"``,
    ``true``)."""

    def check(_instance: Any, _attribute: Any, value: Any) -> None:
        if optional and value is None:
            return
        if isinstance(value, bool) or not isinstance(value, int):
            left_out = " or left out" if optional else ""
            raise ParameterError(
                name,
                f"{name} {quoted(value)} is not allowed: {name} must be a whole number from "
                f"{low} to {high}{left_out}{_not_whole(value)}",
            )
        if not low <= value <= high:
            raise ParameterError(
                name,
                f"{name} {quoted(value)} is not allowed: {name} must be from {low} to {high}",
            )

    return check


def _not_whole(value: Any) -> str:
    """What a value given for a whole number is instead, in words (``, not text``)."""
    if isinstance(value, bool):
        return ", not true or false"
    if isinstance(value, str):
        return ", not text"
    if isinstance(value, float) and value.is_integer():
        return ", written without a decimal point"
    return ""


def _a(name: str) -> str:
    """``a Three Towers``, ``an Ivory Tower``: a name with its article."""
    return f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name}"


def _given(value: object) -> str:
    """A value a caller gave, as a message says it: in JSON's spelling when it is plain data,
    else in words (never a Python class name)."""
    if value is None or isinstance(value, bool | int | float | str | list | tuple | dict):
        return quoted(value)
    return "a value of another kind"


def _refuse_unknown(
    game: str,
    given: Iterable[str],
    known: Sequence[str],
    what: str,
    nested: Mapping[str, str] | None = None,
) -> None:
    """Raise :class:`ParameterError` if ``given`` holds names that are not ``known``: ``unknown
    option "card": the options of hanoy are cards, ... (did you mean "cards"?)``. ``nested``
    maps a name that belongs inside another parameter to that parameter's name."""
    unknown = [str(name) for name in given if name not in known]
    if not unknown:
        return
    names = [quoted(name) for name in unknown]
    listed = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
    notes = []
    for name in unknown:
        inside = (nested or {}).get(name)
        near = difflib.get_close_matches(name, known, n=1)
        if inside is not None:
            notes.append(f"{quoted(name)} goes inside {inside}")
        elif near:
            whose = "" if len(unknown) == 1 else f" for {quoted(name)}"
            notes.append(f"did you mean {quoted(near[0])}{whose}?")
    note = f" ({'; '.join(notes)})" if notes else ""
    plural = what if len(unknown) == 1 else f"{what}s"
    raise ParameterError(
        unknown[0],
        f"unknown {plural} {listed}: the {what}s of {game} are {', '.join(known)}{note}",
    )


@functools.cache
def _init_names(cls: type) -> tuple[str, ...] | None:
    """The keyword parameters an attrs class's ``__init__`` takes, in order (None if the class
    is not an attrs class: nothing is refused then)."""
    if not attrs.has(cls):
        return None
    return tuple(f.alias for f in attrs.fields(cls) if f.init)


@functools.cache
def _move_type(cls: type) -> type[Move]:
    for klass in cls.__mro__:
        for base in getattr(klass, "__orig_bases__", ()):
            if typing.get_origin(base) is Game:
                (argument,) = typing.get_args(base)
                if isinstance(argument, type) and issubclass(argument, Move):
                    return argument
    return Move


def is_bool(name: str) -> Validator:
    def check(_instance: Any, _attribute: Any, value: Any) -> None:
        if not isinstance(value, bool):
            raise ParameterError(
                name, f"{name} {quoted(value)} is not allowed: {name} is true or false"
            )

    return check
