"""The conformance suite every registered game passes, for every one of its example parameter sets.

It uses only the generic interface (the registry, :class:`~skillcheck.engine.Game`,
:class:`~skillcheck.engine.State`, observations, boards and move views, decks by name, records,
solvers, bots and the session service), so a new game that registers itself is checked for the
contract every front end (CLI, API, pages, bots) relies on. Cases are ``(name, params)`` for every
game and every entry of its ``examples()`` (ids ``three-towers-0``, ...). Hypothesis draws seeds
and lines of play (a line is a list of picks: legal move ``pick % n``, or a take-back).

- **Hidden information**: two deals that agree on every card the player has seen (the cards never
  seen, by ``hidden_codes()`` at every step, are permuted among their places) give equal
  observations, boards, move views and session views after every action of the same line; nothing
  a player receives (session views and events, board, observation code, move views, an unfinished
  record) names a hidden card by code or by name; an unfinished record has no seed and no deal.
- **Refusals**: codes near the legal ones that parse but are not legal are refused and change
  nothing; malformed codes raise ParseError, nothing else.
- **Codes and records**: move codes are short, unreserved, without whitespace and round-trip;
  position codes round-trip; records round-trip through JSON and verify (won, lost, conceded,
  with take-backs).
- **Board and moves**: move views name zones of the board, match the legal moves in order; zones
  show only cards of the game's deck.
- **Solver**: certificates replay to a win; no "loss" for a deal (or a position of a line) a bot
  wins; an "unwinnable" ending is proved, no bot wins from it, and its record verifies; claimed
  minimum lines are checked by brute force (breadth-first search over the rules).
- **Undo** restores everything; **determinism** of deals and states.
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

import pytest
from conformance_support import (
    UNDO_PICK,
    BudgetExceeded,
    CardScanner,
    Session,
    apply_action,
    build,
    cases,
    dealing,
    illegal_candidates,
    permute_positions,
    play,
    seen_by_player,
    shortest_win,
    view_data,
    without_keys,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skillcheck import (
    GAMES,
    MAX_SEED,
    GameOverError,
    ParseError,
    RecordError,
    RuleError,
    SkillcheckError,
    State,
    Status,
    UndoError,
    game_class,
)
from skillcheck.board import LAYOUTS
from skillcheck.cards import deck_named
from skillcheck.engine import (
    MAX_MOVE_CODE,
    RESERVED_WORDS,
    UNDO,
    EndReason,
    Game,
    Tier,
    Tiers,
    UndoPolicy,
)
from skillcheck.errors import NotAMoveError, ParameterError
from skillcheck.records import GameRecord, verify
from skillcheck.serialization import game_from_params, game_params
from skillcheck.sessions import HINT_BOT, SessionService
from skillcheck.solving import autoplay
from skillcheck.terminal import item_code

CASES = cases()
NAMES = list(GAMES)

CONFORMANCE = settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
SLOW = settings(CONFORMANCE, max_examples=120)

seeds = st.integers(min_value=0, max_value=MAX_SEED)
#: A line of play: legal move ``pick % n``, or a take-back for UNDO_PICK.
picks = st.lists(st.integers(min_value=UNDO_PICK, max_value=10_000), max_size=60)

#: The fixed seeds of the checks that are not property-based.
FIXED_SEEDS = (0, 1, 2, 3)
#: The solver's budget per position in the soundness checks.
SOLVER_STATES = 100_000
SOLVER_SECONDS = 5.0
#: Brute force checks of claimed minimum lines: lines up to BRUTE_WHOLE_DEPTH moves are searched
#: from the start, longer ones (or too many positions) from BRUTE_DEPTH moves before their end.
BRUTE_WHOLE_DEPTH = 60
BRUTE_DEPTH = 8
BRUTE_NODES = 200_000
#: How many positions along a claimed shortest line the solver is asked again.
CLAIMS_ALONG = 20
#: Bots that play quickly enough for the soundness check (the others run in the slow suite).
QUICK_BOTS = ("random", "fast")
#: Positions along a line at which ``finishing_line`` is asked.
FINISH_CHECKS = 40

# ---- the registry and the examples ---------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_registry_parameters_and_examples(name: str) -> None:
    cls = game_class(name)
    assert cls.name == name and cls.title
    assert cls.deck_name and deck_named(cls.deck_name).cards
    specs = cls.parameters()
    assert specs and all(spec.help for spec in specs)
    assert len({spec.name for spec in specs}) == len(specs)
    examples = cls.examples()
    assert examples, f"{name} has no examples"
    texts = [json.dumps(params, sort_keys=True) for params in examples]
    assert len(set(texts)) == len(texts), f"{name} repeats an example"
    default = cls()
    assert game_from_params(name, game_params(default)) == default
    assert repr(default).startswith(cls.__name__ + "(")
    assert "random" in default.bots()


def _with(params: Any, where: tuple[str, ...], value: Any) -> Any:
    changed = json.loads(json.dumps(params))
    inner = changed
    for key in where[:-1]:
        inner = inner[key]
    inner[where[-1]] = value
    return changed


def _given(params: Any, where: tuple[str, ...]) -> Any:
    for key in where:
        if not isinstance(params, dict) or key not in params:
            return None
        params = params[key]
    return params


@pytest.mark.parametrize("name", NAMES)
def test_a_parameter_that_applies_only_with_some_values_is_refused_with_the_others(
    name: str,
) -> None:
    """A parameter declared ``applies_if=(other, values)`` is what a form hides while
    ``other`` has another value: the game must then refuse it, naming it, or the form would
    hide a parameter that counts (or the declaration would name too few values)."""
    cls = game_class(name)
    specs = {spec.name: spec for spec in cls.parameters()}
    defaults = game_params(cls())
    for spec in specs.values():
        if spec.applies_if is None:
            continue
        other, values = spec.applies_if
        assert other in specs and specs[other].kind == "choice", (spec.name, other)
        choices = specs[other].choices or ()
        assert values and set(values) <= set(choices), (spec.name, values, choices)
        if spec.kind == "choice":
            sample: Any = (spec.choices or ("",))[0]
        elif spec.kind == "int":
            sample = spec.minimum if spec.minimum is not None else 1
        elif spec.kind == "bool":
            sample = True
        else:
            sample = [item_code(deck_named(spec.deck or cls.deck_name).cards[0])]
        for choice in set(choices) - set(values):
            params = _with(_with(defaults, specs[other].where, choice), spec.where, sample)
            with pytest.raises(ParameterError) as refused:
                game_from_params(name, params)
            assert refused.value.parameter == spec.name, (spec.name, choice, refused.value)


@pytest.mark.parametrize(("name", "params"), CASES)
def test_the_deal_is_revealed_on_the_table_only_once_the_game_is_over(
    name: str, params: dict[str, Any]
) -> None:
    """While a game goes on, its revealed observation is the player's (nothing hidden shows);
    once it is over, the last table shows no card face down (Tri Peaks' peaks stayed face down
    after the end, though the deal is public then)."""
    game = game_from_params(name, params)
    for seed in range(4):
        state = game.new_state(seed)
        assert state.revealed_observation() == state.observation()
        ended = autoplay(game, "fast", seed)
        assert ended.is_terminal()
        board = game.board(ended.revealed_observation())
        for zone in board.zones:
            assert None not in zone.cards, (seed, zone.id)


@pytest.mark.parametrize("name", NAMES)
def test_a_sessions_last_table_shows_the_revealed_deal(name: str) -> None:
    """The check's view draws its board from the revealed observation once the check is over
    (and from the player's before): what a page shows at the end."""
    service = SessionService()
    created = service.create(name, game_params(game_class(name)()), seed=FIXED_SEEDS[0])
    state = game_class(name)().new_state(FIXED_SEEDS[0])
    assert created.view.board == state.board().to_dict()
    over = service.concede(created.check_id)
    state.concede()
    assert over.board == state.game.board(state.revealed_observation()).to_dict()
    assert all(None not in zone["cards"] for zone in over.board["zones"])


@pytest.mark.parametrize(("name", "params"), CASES)
def test_parameters_of_the_wrong_type_are_refused_not_coerced(
    name: str, params: dict[str, Any]
) -> None:
    """Strict types at the edge: a whole number given as text ("5"), as true or as 5.0, and
    a switch given as 1, are refused with the parameter's name (cattrs alone would build the
    game with int("5") and int(True))."""
    cls = game_class(name)
    for spec in cls.parameters():
        given = _given(params, spec.where)
        if spec.kind == "int" and type(given) is int:
            wrong: list[Any] = [str(given), True, float(given)]
        elif spec.kind == "bool" and type(given) is bool:
            wrong = [int(given), "true"]
        else:
            continue
        for value in wrong:
            with pytest.raises(SkillcheckError) as caught:
                game_from_params(name, _with(params, spec.where, value))
            assert spec.where[-1] in caught.value.message, (spec.name, value, caught.value)


@pytest.mark.parametrize(("name", "params"), CASES)
def test_a_deal_holding_a_card_twice_is_refused_naming_the_card(
    name: str, params: dict[str, Any]
) -> None:
    """A deal typed by a person (solve --deal) with one card written twice: the refusal says
    which card, not only "a card twice"."""
    game = game_from_params(name, params)
    cards = list(game.deal(3))
    cards[1] = cards[0]
    text = " ".join(item_code(c) for c in cards)
    with pytest.raises(SkillcheckError) as refused:
        game.state_from_deal(game.parse_deal(text))
    said = refused.value.message
    assert "twice" in said and (item_code(cards[0]) in said or cards[0].label in said), said


@pytest.mark.parametrize(("name", "params"), CASES)
def test_example_parameters_round_trip(name: str, params: dict[str, Any]) -> None:
    game = build(name, params)
    assert type(game) is game_class(name)
    written = game_params(game)
    assert json.loads(json.dumps(written)) == written
    assert game_from_params(name, written) == game
    assert game_params(game_from_params(name, written)) == written
    assert game.describe() and game.goal_text()
    assert game.evolve() == game
    assert isinstance(game.undo, UndoPolicy) and game.undo_policy is game.undo


# ---- determinism ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "params"), CASES)
@CONFORMANCE
@given(seed=seeds)
def test_deals_and_states_are_deterministic(name: str, params: dict[str, Any], seed: int) -> None:
    game = build(name, params)
    deal = game.deal(seed)
    assert game.deal(seed) == deal
    assert build(name, params).deal(seed) == deal  # an equal game deals the same
    first, second = game.new_state(seed), game.new_state(seed)
    assert first.code() == second.code()
    assert first.observation() == second.observation()
    assert first.seed == seed and tuple(first.deal or ()) == deal
    assert game.state_from_deal(deal, seed=seed).code() == first.code()
    # The deal is cards of the game's deck, each once, written by their codes.
    deck = deck_named(game.deck_name)
    codes = [card.code for card in deal]
    assert len(set(codes)) == len(codes), f"the deal of seed {seed} holds a card twice"
    assert all(deck.parse(code) == card for code, card in zip(codes, deal, strict=True))
    assert game.parse_deal(" ".join(codes)) == deal
    assert first.hidden_codes() <= set(codes)


# ---- codes, observations, boards and move views along a line ------------------------------------


def check_position(state: State[Any], scanner: CardScanner) -> None:
    """Everything that must hold of any position of a play."""
    game = state.game
    legal = list(state.legal_moves)
    # the legal-move view is consistent: len, iteration, truth and ``in`` agree
    assert len(state.legal_moves) == len(legal)
    assert bool(state.legal_moves) == bool(legal)
    assert all(move in state.legal_moves for move in legal)
    assert len({m.code for m in legal}) == len(legal), "two legal moves share a code"
    if state.is_terminal():
        assert not legal
    for move in legal:
        code = move.code
        assert isinstance(code, str) and code
        assert code not in RESERVED_WORDS, f"move code {code!r} is a reserved word"
        assert code.lower() not in RESERVED_WORDS, f"move code {code!r} is a reserved word"
        assert len(code) <= MAX_MOVE_CODE, f"move code {code!r} is over {MAX_MOVE_CODE} long"
        assert not re.search(r"\s", code), f"move code {code!r} holds whitespace"
        parsed = game.parse_move(code)
        assert parsed.code == code and parsed == move
    # position codes round-trip
    code = state.code()
    restored = game.state_from_code(code)
    assert restored.code() == code
    # the observation, its code and its legal moves
    observation = state.observation()
    assert observation == state.observation()
    assert observation.code() == observation.code() == state.copy().observation().code()
    if not state.is_terminal():
        assert restored.observation().code() == observation.code()
    assert [m.code for m in observation.legal_moves()] == [m.code for m in legal], (
        "the observation's legal moves are not the state's"
    )
    # the board and the move views
    board = game.board(observation)
    assert board == state.board() == game.board(observation)
    data = board.to_dict()
    assert json.loads(json.dumps(data)) == data
    assert board.layout in LAYOUTS or game.page_module is not None
    zones = {zone.id: zone for zone in board.zones}
    for zone in board.zones:
        assert zone.count >= len(zone.cards)
        for card in zone.cards:
            assert card is None or card in scanner.codes, f"zone {zone.id} shows {card!r}"
            if card is not None:
                assert scanner.deck.parse(card).code == card
    meter_ids = [meter.id for meter in board.meters]
    assert len(set(meter_ids)) == len(meter_ids)
    views = state.move_views()
    assert [view.code for view in views] == [m.code for m in legal]
    for view in views:
        assert view.source in zones, f"move {view.code} comes from no zone ({view.source!r})"
        if view.target is not None:
            assert view.target in zones, f"move {view.code} goes to no zone ({view.target!r})"
            assert zones[view.target].accepts, f"move {view.code} ends on zone {view.target}"
        assert view.text
    # nothing shown names a card the player has not seen
    hidden = state.hidden_codes()
    assert hidden <= scanner.codes
    shown = [observation.code(), data, [view.to_dict() for view in views]]
    leaked = scanner.hidden_in(shown, hidden)
    assert not leaked, f"hidden cards {sorted(leaked)} shown at {code!r}"


@pytest.mark.parametrize(("name", "params"), CASES)
@CONFORMANCE
@given(seed=seeds, line=picks)
def test_codes_observations_boards_and_move_views(
    name: str, params: dict[str, Any], seed: int, line: list[int]
) -> None:
    game = build(name, params)
    scanner = CardScanner(game)
    state = game.new_state(seed)
    play(state, line, lambda s, _: check_position(s, scanner))


@pytest.mark.parametrize(("name", "params"), CASES)
def test_malformed_and_reserved_codes_raise_parse_errors(name: str, params: dict[str, Any]) -> None:
    game = build(name, params)
    junk = ["", " ", "\n", "x" * 200, "??", "∞", "0" * 40, "\x00", *RESERVED_WORDS]
    for text in junk:
        try:
            move = game.parse_move(text)
        except ParseError:
            continue
        assert move.code not in RESERVED_WORDS, f"{text!r} parses to a reserved move code"
    state = game.new_state(0)
    for word in RESERVED_WORDS:
        before = state.code()
        with pytest.raises((ParseError, RuleError)):
            state.push_code(word)
        assert state.code() == before and state.history == ()


@pytest.mark.parametrize(("name", "params"), CASES)
def test_push_takes_a_move_of_its_game(name: str, params: dict[str, Any]) -> None:
    """As in python-chess, ``push`` takes a move and ``push_code`` text: a legal move's code,
    another game's move, None or a number given to ``push`` (or ``is_legal``) raise
    NotAMoveError, a TypeError and neither a RuleError nor a ParseError, saying what was given
    in plain words (text is pointed to push_code), and change nothing."""
    game = build(name, params)
    state = game.new_state(0)
    legal = next(iter(state.legal_moves))
    others = [
        next(iter(game_class(other)().new_state(0).legal_moves)) for other in NAMES if other != name
    ]
    before = (state.code(), state.history, state.observation())
    for wrong in [legal.code, None, 3, ["d1"], object(), *others]:
        for action in (state.push, state.is_legal):
            with pytest.raises(NotAMoveError) as refused:
                action(wrong)
            error = refused.value
            assert isinstance(error, TypeError) and isinstance(error, SkillcheckError)
            assert not isinstance(error, RuleError | ParseError)
            message = error.message
            takes = rf"{action.__name__} takes an? {re.escape(game.title)} move\b"
            assert re.match(takes, message), message
            assert not re.search(r"\b(None|object at)\b|'|\w+Move\b", message), message
        assert (wrong not in state.legal_moves) is not isinstance(wrong, str)  # a code is in
        assert (state.code(), state.history, state.observation()) == before
    # membership reads a move's code too: "d1" in state.legal_moves (it used to be False)
    assert legal.code in state.legal_moves and "no such move" not in state.legal_moves
    assert all((m.code in state.legal_moves) for m in state.legal_moves)
    for wrong in [None, 3, legal]:  # push_code takes text: anything else is the wrong kind
        with pytest.raises(NotAMoveError, match="push_code takes a move's code as text, not"):
            state.push_code(wrong)  # type: ignore[arg-type]
    with pytest.raises(NotAMoveError) as text:
        state.push(legal.code)
    assert f'push_code("{legal.code}")' in text.value.message, text.value.message
    for other in others:
        with pytest.raises(NotAMoveError) as foreign:
            state.push(other)
        owner = next(
            GAMES[n].title for n in NAMES if n != name and isinstance(other, GAMES[n].move_type())
        )
        assert re.search(rf"not an? {re.escape(owner)} move", foreign.value.message), (
            foreign.value.message
        )
    state.push(legal)  # a move of the game is still taken
    assert state.history == (legal.code,)


# ---- refusals ------------------------------------------------------------------------------------


def check_refusals(state: State[Any]) -> int:
    """Every illegal move near the legal codes is refused and changes nothing; returns how many
    were tried."""
    illegal, wrong = illegal_candidates(state)
    assert not wrong, f"malformed codes raised other errors than ParseError: {wrong[:5]}"
    assert illegal, f"no illegal candidate near the legal codes at {state.code()!r}"
    code, history, observation = state.code(), state.history, state.observation()
    legal = [m.code for m in state.legal_moves]
    for text, move in illegal.items():
        with pytest.raises(RuleError):
            state.push(move)
        with pytest.raises((RuleError, ParseError)):
            state.push_code(text)
        assert not state.is_legal(move) and move not in state.legal_moves
        assert state.code() == code, f"refusing {text!r} changed the position"
        assert state.history == history and state.observation() == observation
        assert [m.code for m in state.legal_moves] == legal
    return len(illegal)


@pytest.mark.parametrize(("name", "params"), CASES)
@CONFORMANCE
@given(seed=seeds, line=picks)
def test_illegal_moves_are_refused_and_change_nothing(
    name: str, params: dict[str, Any], seed: int, line: list[int]
) -> None:
    game = build(name, params)
    state = game.new_state(seed)
    check_refusals(state)  # the start
    play(state, line)
    if state.is_terminal():
        # after the end every move is refused
        with pytest.raises(GameOverError):
            state.push(game.parse_move(_some_code(game)))
        assert not list(state.legal_moves) and not state.move_views()
    else:
        check_refusals(state)


def _some_code(game: Any) -> str:
    """A code that parses for ``game`` (a legal code of some start position)."""
    for seed in FIXED_SEEDS:
        for move in game.new_state(seed).legal_moves:
            return str(move.code)
    raise AssertionError("no start position has a legal move")


# ---- hidden information --------------------------------------------------------------------------


def hidden_leak_check(
    name: str, params: dict[str, Any], seed: int, line: list[int], shuffle: int
) -> None:
    """Play ``line`` on the seed's deal, then replay it on a deal whose never-seen cards are
    permuted among their places: everything the player sees must be equal after every action,
    in the engine and through the session service."""
    game = build(name, params)
    first = game.new_state(seed)
    deal = tuple(first.deal or ())
    never_seen = set(first.hidden_codes())

    def track(state: State[Any], _action: str | None) -> None:
        never_seen.intersection_update(state.hidden_codes())

    actions = play(first, line, track)
    positions = [i for i, card in enumerate(deal) if card.code in never_seen]
    other = permute_positions(deal, positions, random.Random(shuffle))
    assert sorted(c.code for c in other) == sorted(c.code for c in deal)
    kept = set(range(len(deal))) - set(positions)
    assert all(other[i] == deal[i] for i in kept)

    one, two = game.new_state(seed), game.state_from_deal(other)
    session_one = Session(game, seed)
    with dealing(game, seed, other):  # the service deals ``other`` for the seed
        session_two = Session(game, seed)
        for number, action in enumerate([None, *actions]):
            if action is None:
                where = f"the start, seed {seed}"
                view_one, view_two = session_one.views[0], session_two.views[0]
            else:
                where = f"action {number} ({action}) of {actions}, seed {seed}"
                apply_action(one, action)
                try:
                    apply_action(two, action)
                except RuleError as exc:
                    raise AssertionError(
                        f"{where}: legal on one deal, refused on another that differs only in "
                        f"cards never seen: {exc}"
                    ) from None
                view_one, view_two = session_one.act(action), session_two.act(action)
            assert one.hidden_codes() == two.hidden_codes(), where
            seen_one, seen_two = seen_by_player(one), seen_by_player(two)
            for key in seen_one:
                assert seen_one[key] == seen_two[key], f"{key} differs at {where}"
            assert one.observation() == two.observation(), where
            data_one, data_two = view_data(view_one), view_data(view_two)
            if one.is_terminal():  # the deal is public: the last table shows it
                for data, state in ((data_one, one), (data_two, two)):
                    revealed = state.game.board(state.revealed_observation()).to_dict()
                    assert data.pop("board") == json.loads(json.dumps(revealed)), where
                seen_one = {k: v for k, v in seen_one.items() if k != "board"}
            assert data_one == data_two, f"session views differ at {where}"
            # the session shows what the engine shows
            for key in ("board", "moves", "legal_moves", "observation_code", "observation"):
                if key in seen_one:
                    assert data_one[key] == seen_one[key], f"the session's {key} at {where}"
    assert one.code() == first.code()


@pytest.mark.quick_twin_of("test_the_order_of_hidden_cards_never_shows_long")
@pytest.mark.parametrize(("name", "params"), CASES)
@CONFORMANCE
@given(seed=seeds, line=picks, shuffle=st.integers(0, 2**32))
def test_the_order_of_hidden_cards_never_shows(
    name: str, params: dict[str, Any], seed: int, line: list[int], shuffle: int
) -> None:
    hidden_leak_check(name, params, seed, line, shuffle)


@pytest.mark.slow
@pytest.mark.parametrize(("name", "params"), CASES)
@SLOW
@given(seed=seeds, line=picks, shuffle=st.integers(0, 2**32))
def test_the_order_of_hidden_cards_never_shows_long(
    name: str, params: dict[str, Any], seed: int, line: list[int], shuffle: int
) -> None:
    hidden_leak_check(name, params, seed, line, shuffle)


@pytest.mark.parametrize(("name", "params"), CASES)
def test_the_scanner_finds_a_card_by_code_and_by_name(name: str, params: dict[str, Any]) -> None:
    """The leak checks below are only as good as the scanner: it finds a card by its code
    (alone or run together with others, as position codes do) and by its name in any case, in
    keys and values at any depth, and takes no code inside a longer word for a card."""
    game = build(name, params)
    scanner = CardScanner(game)
    deck = scanner.deck
    first, second = deck.cards[0], deck.cards[-1]
    named = str(deck.card_json(first)["name"])
    everything = {c.code for c in deck.cards}
    assert scanner.hidden_in({"zones": [{"card": first.code}]}, everything) == {first.code}
    together = [f"{first.code}{second.code}"]
    assert scanner.hidden_in(together, everything) == {first.code, second.code}
    assert scanner.hidden_in({f"x {named.upper()}.": 1}, everything) >= {first.code}
    assert scanner.hidden_in(["played", [{"text": f"…onto {named}"}]], {first.code}) == {first.code}
    other = str(deck.card_json(second)["name"])
    if other.lower() not in named.lower():  # a card not named is not found
        assert scanner.hidden_in({"text": f"onto {named}"}, {second.code}) == set()
    assert scanner.hidden_in([f"{named}s", f"x{first.code}x"], {first.code}) == set()


#: Parts of views and events that are public parameters or ids, not the state: the GM's params
#: may name cards (a quota check's chosen suited cards), which are no secret of the position.
NOT_STATE = frozenset({"params", "check_id", "commitment", "created_at", "updated_at", "at"})


def hidden_scan(name: str, params: dict[str, Any], seed: int, line: list[int]) -> None:
    """Play ``line`` through the session service; before the end, scan every view, event,
    board, observation code, move view and record the player receives for hidden cards: the
    state's present ones, and for the events (a log) the cards never seen so far (a card seen
    and put back by a take-back is no secret)."""
    game = build(name, params)
    scanner = CardScanner(game)
    actions = play(game.new_state(seed), line)
    state = game.new_state(seed)
    never_seen = set(state.hidden_codes())
    # the scan would catch a card that is shown: the revealed deal names every hidden card
    revealed = state.record(reveal=True).to_dict()
    assert scanner.hidden_in(revealed["deal"], never_seen) == never_seen
    session = Session(game, seed)
    for number, action in enumerate([None, *actions]):
        if action is None:
            where, view = f"the start, seed {seed}", session.views[0]
        else:
            where = f"action {number} ({action}) of {actions}, seed {seed}"
            apply_action(state, action)
            view = session.act(action)
        hidden = state.hidden_codes()
        never_seen &= hidden
        if state.is_terminal():
            break  # the end reveals the deal
        data = without_keys(view_data(view), NOT_STATE)
        leaked = scanner.hidden_in(data, hidden)
        assert not leaked, f"the session view names hidden cards {sorted(leaked)} at {where}"
        text = json.dumps(view.to_dict())
        assert '"seed"' not in text and '"deal"' not in text and '"salt"' not in text, where
        events = without_keys(session.new_events(), NOT_STATE)
        leaked = scanner.hidden_in(events, never_seen)
        assert not leaked, f"an event names never-seen cards {sorted(leaked)} at {where}"
        record = state.record()
        assert record.seed is None and record.deal is None and record.start is None, where
        assert not record.revealed, where
        assert GameRecord.from_json(record.to_json()) == record
        leaked = scanner.hidden_in(without_keys(record.to_dict(), NOT_STATE), hidden)
        assert not leaked, f"an unfinished record names hidden cards {sorted(leaked)} at {where}"
        observation = state.observation()
        shown = [observation.code(), game.board(observation).to_dict()]
        shown.append([v.to_dict() for v in state.move_views()])
        leaked = scanner.hidden_in(shown, hidden)
        assert not leaked, f"hidden cards {sorted(leaked)} shown at {where}"


@pytest.mark.quick_twin_of("test_nothing_the_player_receives_names_a_hidden_card_long")
@pytest.mark.parametrize(("name", "params"), CASES)
@CONFORMANCE
@given(seed=seeds, line=picks)
def test_nothing_the_player_receives_names_a_hidden_card(
    name: str, params: dict[str, Any], seed: int, line: list[int]
) -> None:
    hidden_scan(name, params, seed, line)


@pytest.mark.slow
@pytest.mark.parametrize(("name", "params"), CASES)
@SLOW
@given(seed=seeds, line=picks)
def test_nothing_the_player_receives_names_a_hidden_card_long(
    name: str, params: dict[str, Any], seed: int, line: list[int]
) -> None:
    hidden_scan(name, params, seed, line)


# ---- records -------------------------------------------------------------------------------------


def check_record(state: State[Any]) -> None:
    """``state`` has ended: its record round-trips through JSON and verifies."""
    assert state.is_terminal() and state.outcome is not None
    record = state.record()
    assert record.revealed and record.outcome == state.outcome
    again = GameRecord.from_json(record.to_json())
    assert again == record
    replayed = verify(again)
    assert replayed.code() == state.code() and replayed.outcome == state.outcome
    assert replayed.history == state.history


@pytest.mark.parametrize("seed", FIXED_SEEDS)
@pytest.mark.parametrize(("name", "params"), CASES)
def test_records_round_trip_and_verify(name: str, params: dict[str, Any], seed: int) -> None:
    game = build(name, params)
    # played to the end by the random bot
    state = autoplay(game, "random", seed)
    check_record(state)
    assert state.outcome is not None and state.outcome.reason is not EndReason.UNWINNABLE
    # after the end, nothing more is accepted and nothing is offered
    assert not list(state.legal_moves) and not state.move_views()
    for act in (state.concede, state.undo):
        with pytest.raises((GameOverError, UndoError)):
            act()
    with pytest.raises(GameOverError):
        state.push(game.parse_move(_some_code(game)))
    # conceded midway, with take-backs when undo is on
    rng = random.Random(seed)
    state = game.new_state(seed)
    line = [rng.randrange(10_000) for _ in range(12)]
    if game.undo:
        line[3:3] = [UNDO_PICK]
        line[8:8] = [UNDO_PICK, UNDO_PICK]
    play(state, line)
    if not state.is_terminal():
        record = state.record()
        assert record.seed is None and record.deal is None and not record.revealed
        with pytest.raises(RecordError, match="hides its deal"):
            record.replay()
        state.concede()
        assert state.outcome is not None and state.outcome.reason is EndReason.CONCEDED
        assert state.status is Status.LOST
    check_record(state)
    if game.undo and UNDO in state.history:
        assert state.undo_count == state.history.count(UNDO)


# ---- undo ----------------------------------------------------------------------------------------


def _snapshot(state: State[Any]) -> tuple[Any, ...]:
    return (
        state.code(),
        state.observation(),
        state.observation().code(),
        [m.code for m in state.legal_moves],
        state.moves,
        state.moves_made,
        state.status,
        state.hidden_codes(),
    )


@pytest.mark.parametrize(("name", "params"), CASES)
@CONFORMANCE
@given(seed=seeds, line=picks, tries=st.lists(st.integers(0, 10_000), max_size=8))
def test_push_then_undo_restores_everything(
    name: str, params: dict[str, Any], seed: int, line: list[int], tries: list[int]
) -> None:
    game = build(name, params)
    if game.undo:  # the restoring itself; which moves each policy takes back is tested below
        game = game.evolve(undo=UndoPolicy.FULL)
    state = game.new_state(seed)
    start = _snapshot(state)
    with pytest.raises(UndoError):  # nothing to take back, or undo is off
        state.undo()
    assert _snapshot(state) == start and state.history == ()
    play(state, line)
    if state.is_terminal():
        return
    before = _snapshot(state)
    history: tuple[str, ...] = state.history
    if not game.undo:
        with pytest.raises(UndoError):
            state.undo()
        assert _snapshot(state) == before and state.history == history
        return
    legal = list(state.legal_moves)
    for pick in tries:
        move = legal[pick % len(legal)]
        probe = state.copy()
        probe.push(move)
        assert _snapshot(state) == before, "pushing on a copy changed the original"
        if probe.is_terminal():
            continue  # a finished check takes nothing back
        state.push(move)
        assert state.undo() == move
        assert _snapshot(state) == before, f"push {move.code} + undo did not restore the position"
        history = (*history, move.code, UNDO)
        assert state.history == history
    # several pushes, then as many take-backs
    pushed = 0
    for pick in tries:
        moves = list(state.legal_moves)
        move = moves[pick % len(moves)]
        probe = state.copy()
        probe.push(move)
        if probe.is_terminal():
            break
        state.push(move)
        pushed += 1
    for _ in range(pushed):
        state.undo()
    assert _snapshot(state) == before


@pytest.mark.parametrize("policy", list(UndoPolicy))
@pytest.mark.parametrize(("name", "params"), CASES)
@CONFORMANCE
@given(seed=seeds, line=picks)
def test_each_undo_policy_takes_back_what_it_promises(
    name: str, params: dict[str, Any], policy: UndoPolicy, seed: int, line: list[int]
) -> None:
    """Under every policy ``can_undo`` says whether ``undo()`` is accepted; off takes nothing
    back, full any move, and safe exactly the moves that left every hidden card hidden (an
    accepted take-back never hides a card the player was shown)."""
    game = build(name, params).evolve(undo=policy)
    state = game.new_state(seed)
    for pick in line:
        if state.is_terminal():
            break
        if pick >= 0:
            moves = list(state.legal_moves)
            state.push(moves[pick % len(moves)])
            continue
        revealed = state.last_move_revealed()
        expected = bool(state.moves) and (
            policy is UndoPolicy.FULL or (policy is UndoPolicy.SAFE and not revealed)
        )
        assert state.can_undo is expected
        before, hidden = _snapshot(state), state.hidden_codes()
        if not expected:
            with pytest.raises(UndoError) as refused:
                state.undo()
            assert str(refused.value) == state.undo_refusal()
            assert _snapshot(state) == before
            if policy is UndoPolicy.SAFE and state.moves:
                assert "turned up a hidden card" in str(refused.value)
            continue
        state.undo()
        if policy is UndoPolicy.SAFE:
            assert state.hidden_codes() <= hidden, "a take-back hid a card the player had seen"


# ---- tiers ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_every_game_declares_tier_thresholds_and_a_safe_undo_default(name: str) -> None:
    cls = game_class(name)
    assert cls.default_tiers is not Game.default_tiers
    for params in cls.examples():
        tiers = build(name, params).default_tiers()
        assert isinstance(tiers, Tiers) and tiers.critical_success > tiers.critical_failure
    # Checks created without an undo parameter (the API, the GM page) are safe.
    assert cls().undo_policy is UndoPolicy.SAFE
    (spec,) = [s for s in cls.parameters() if s.name == "undo"]
    assert spec.kind == "choice" and spec.default == "safe"
    assert set(spec.choices or ()) == {p.value for p in UndoPolicy}


@pytest.mark.parametrize(("name", "params"), CASES)
@CONFORMANCE
@given(seed=seeds, line=picks, concede=st.booleans())
def test_every_outcome_maps_to_exactly_one_tier(
    name: str, params: dict[str, Any], seed: int, line: list[int], concede: bool
) -> None:
    game = build(name, params)
    state = game.new_state(seed)
    play(state, line)
    assert state.is_terminal() or state.tier is None  # no tier while the check goes on
    if not state.is_terminal():
        if not concede:
            # played out by the fair fast bot, which every game has (the random bot wanders
            # thousands of moves through a Three Towers deal before it ends)
            state = autoplay(game, HINT_BOT, seed)
        else:
            state.concede()
    outcome = state.outcome
    assert outcome is not None
    tiers = game.default_tiers()
    won, degree = outcome.status is Status.WON, outcome.degree
    holds = {
        Tier.CRITICAL_SUCCESS: won and degree >= tiers.critical_success,
        Tier.SUCCESS: won and degree < tiers.critical_success,
        Tier.FAILURE: not won and degree > tiers.critical_failure,
        Tier.CRITICAL_FAILURE: not won and degree <= tiers.critical_failure,
    }
    assert sum(holds.values()) == 1
    tier = game.tier(outcome)
    assert holds[tier]
    record = state.record()
    assert record.tier is tier and record.tiers == tiers and state.tier is tier
    assert verify(GameRecord.from_json(record.to_json())).outcome == outcome


# ---- the solver ----------------------------------------------------------------------------------


def replays_to_a_win(state: State[Any], moves: tuple[Any, ...]) -> State[Any]:
    """Push the solver's line on a copy of ``state``; the line must end in a win (and not
    before its last move). A game's solver may ignore the move limit (Three Towers documents it,
    docs/solver.md): a line longer than the moves left is replayed without the limit."""
    game = state.game
    probe = state.copy()
    limit = game.move_limit
    if limit is not None and state.moves_made + len(moves) >= limit:
        probe = game.evolve(move_limit=None).state_from_deal(state.deal or (), seed=state.seed)
        for action in state.history:
            apply_action(probe, action)
    for number, move in enumerate(moves, 1):
        assert not probe.is_terminal(), f"the line ends the check at move {number - 1}"
        assert move in probe.legal_moves, f"move {number} ({move.code}) of the line is illegal"
        probe.push(move)
    assert probe.status is Status.WON, f"the solver's line ends {probe.status.value}"
    return probe


@pytest.mark.parametrize("seed", FIXED_SEEDS)
@pytest.mark.parametrize(("name", "params"), CASES)
def test_the_solver_is_sound(name: str, params: dict[str, Any], seed: int) -> None:
    game = build(name, params)
    solver = game.solver()
    if solver is None:
        pytest.skip(f"{name} has no solver")
    state = game.new_state(seed)
    before = (state.code(), state.history)
    solution = solver.solve(state, max_states=SOLVER_STATES, max_seconds=SOLVER_SECONDS)
    assert (state.code(), state.history) == before, "solving changed the state"
    assert solution.result in ("win", "loss", "unknown")
    if solution.result == "win":
        replays_to_a_win(state, tuple(solution.moves))
    else:
        assert not solution.moves and not solution.minimum
    # a bot that wins the deal proves it is no loss, from the start and from the bot's own line
    for bot in QUICK_BOTS:
        if bot not in game.bots():
            continue
        played = autoplay(game, bot, seed)
        if not (played.outcome is not None and played.outcome.success):
            continue
        assert solution.result != "loss", f"the {bot} bot wins seed {seed}, the solver says loss"
        midway = game.new_state(seed)
        for move in played.moves[: len(played.moves) // 2]:
            midway.push(move)
        again = solver.solve(midway, max_states=SOLVER_STATES, max_seconds=SOLVER_SECONDS)
        assert again.result != "loss", (
            f"the {bot} bot wins seed {seed} from move {len(midway.moves)}; the solver says loss"
        )
        if again.result == "win":
            replays_to_a_win(midway, tuple(again.moves))


@pytest.mark.quick_twin_of("test_unwinnable_endings_are_proved_and_verify_long")
@pytest.mark.parametrize("seed", FIXED_SEEDS[:2])
@pytest.mark.parametrize(("name", "params"), CASES)
def test_unwinnable_endings_are_proved_and_verify(
    name: str, params: dict[str, Any], seed: int
) -> None:
    unwinnable_endings_check(name, params, seed)


@pytest.mark.slow
@pytest.mark.parametrize("seed", FIXED_SEEDS)
@pytest.mark.parametrize(("name", "params"), CASES)
def test_unwinnable_endings_are_proved_and_verify_long(
    name: str, params: dict[str, Any], seed: int
) -> None:
    unwinnable_endings_check(name, params, seed)


def unwinnable_endings_check(name: str, params: dict[str, Any], seed: int) -> None:
    """Positions shortly before a random play's end: a check ended as unwinnable is one the
    solver proves lost, no bot wins from there, and its record verifies (re-proving it)."""
    game = build(name, params)
    if game.solver() is None:
        pytest.skip(f"{name} has no solver")
    played = autoplay(game, "random", seed)
    for back in (1, 2, 4, 8):
        if back > len(played.moves):
            break
        state = game.new_state(seed)
        for move in played.moves[: len(played.moves) - back]:
            state.push(move)
        if state.is_terminal():
            continue
        probe = state.copy()
        if not probe.end_if_unwinnable(max_states=SOLVER_STATES):
            assert probe.outcome is None and probe.code() == state.code()
            continue
        assert probe.outcome is not None and probe.outcome.reason is EndReason.UNWINNABLE
        assert probe.status is Status.LOST and probe.code() == state.code()
        assert game.can_win(state, max_states=SOLVER_STATES) is False
        for bot in QUICK_BOTS:
            if bot in game.bots():
                follow = state.copy()
                player = game.bots()[bot]()
                while not follow.is_terminal():
                    move = player.choose(game, follow.observation())
                    if move is None or len(follow.moves) > 2_000:
                        break
                    follow.push(move)
                assert follow.status is not Status.WON, f"{bot} wins an 'unwinnable' position"
        check_record(probe)


@pytest.mark.slow
@pytest.mark.parametrize(("name", "params"), CASES)
def test_the_solver_never_calls_a_deal_any_bot_wins_a_loss(
    name: str, params: dict[str, Any]
) -> None:
    game = build(name, params)
    solver = game.solver()
    if solver is None:
        pytest.skip(f"{name} has no solver")
    every_bot = True  # on the first deal the solver calls lost; the quick bots on all of them
    for seed in range(4, 8):  # FIXED_SEEDS are checked with the quick bots
        state = game.new_state(seed)
        solution = solver.solve(state, max_states=SOLVER_STATES, max_seconds=SOLVER_SECONDS)
        if solution.result != "loss":
            continue  # (no bot's win can contradict it: the strong bot's minutes go to losses)
        # (A strong bot searching with the game's own solver spends seconds per lost deal, as
        # long as a whole case's other checks, and it is the least independent witness.)
        bots = game.bots() if every_bot else [b for b in game.bots() if b in QUICK_BOTS]
        every_bot = False
        for bot in bots:
            played = autoplay(game, bot, seed)
            if played.outcome is not None and played.outcome.success:
                raise AssertionError(f"{bot} wins seed {seed}; the solver: loss")


@pytest.mark.slow  # brute force, up to 20 s a game
@pytest.mark.parametrize("name", NAMES)
def test_claimed_minimum_lines_are_shortest_by_brute_force(name: str) -> None:
    """Every minimum the solver claims is checked. The line wins; the solver's claims along it
    agree (from the position after ``i`` moves it claims exactly ``len(line) - i``); and a
    breadth-first search over the rules finds no shorter win: from the start when the line is
    short enough to search, else from the position :data:`BRUTE_DEPTH` moves before its end (the
    rest of a shortest line is a shortest line from there). At least one claim of the game must
    be searched from the start."""
    cls = game_class(name)
    if cls().solver() is None:
        pytest.skip(f"{name} has no solver")
    claims = whole = 0
    for number, params in enumerate(cls.examples()):
        game = build(name, params)
        solver = game.solver()
        assert solver is not None
        for seed in FIXED_SEEDS:
            state = game.new_state(seed)
            solution = solver.solve(state, max_states=SOLVER_STATES, max_seconds=SOLVER_SECONDS)
            if not solution.minimum:
                continue
            claims += 1
            where = f"{name}-{number} ({params}) seed {seed}"
            assert solution.result == "win", f"{where}: a minimum claimed for a {solution.result}"
            line = tuple(solution.moves)
            replays_to_a_win(state, line)
            check_claims_along(state, line, where)
            if len(line) <= BRUTE_WHOLE_DEPTH:
                try:
                    shortest = shortest_win(state, len(line), BRUTE_NODES)
                except BudgetExceeded:
                    pass
                else:
                    assert shortest == len(line), (
                        f"{where}: the solver claims {len(line)} moves at least; brute force "
                        f"wins in {shortest}"
                    )
                    whole += 1
                    continue
            rest = min(len(line), BRUTE_DEPTH)
            near = state.copy()
            for move in line[: len(line) - rest]:
                near.push(move)
            shortest = shortest_win(near, rest, BRUTE_NODES)
            assert shortest == rest, (
                f"{where}: the solver claims {len(line)} moves at least, but from move "
                f"{len(line) - rest} brute force wins in {shortest} moves, not {rest}"
            )
    if not claims:
        pytest.skip(f"{name}'s solver claims no minimum line on these deals")
    assert whole, f"{name}: {claims} minimum claims, none small enough to search from the start"


def check_claims_along(state: State[Any], line: tuple[Any, ...], where: str) -> None:
    """The solver's claims from positions along its own shortest ``line`` (at most
    :data:`CLAIMS_ALONG` of them, spread out) are the rest of the line: no more, no less."""
    solver = state.game.solver()
    assert solver is not None
    step = max(1, len(line) // CLAIMS_ALONG)
    probe = state.copy()
    for index, move in enumerate(line, 1):
        probe.push(move)
        if index % step and index != len(line):
            continue
        answer = solver.solve(probe, max_states=SOLVER_STATES, max_seconds=SOLVER_SECONDS)
        if answer.result == "unknown":
            continue
        assert answer.result == "win", f"{where}: after move {index} of its line: {answer.result}"
        if answer.minimum:
            assert len(answer.moves) == len(line) - index, (
                f"{where}: shortest from the start is {len(line)} moves, but after move {index} "
                f"of that line the solver claims {len(answer.moves)}, not {len(line) - index}"
            )


# ---- hints and finishing a won check -------------------------------------------------------------


@pytest.mark.parametrize(("name", "params"), CASES)
def test_every_game_gives_hints_from_its_fair_fast_bot(name: str, params: dict[str, Any]) -> None:
    game = build(name, params)
    assert HINT_BOT in game.bots(), f"{name} has no {HINT_BOT!r} bot: hints need one"
    service = SessionService()
    created = service.create(name, game_params(game), seed=FIXED_SEEDS[0], hints=True)
    hint, view = service.hint(created.check_id)
    assert hint.to_dict() in [dict(m) for m in view.moves]
    assert view.hints_used == 1 and view.moves_made == 0


@pytest.mark.parametrize("seed", FIXED_SEEDS)
@pytest.mark.parametrize(("name", "params"), CASES)
def test_a_check_is_finished_for_the_player_only_in_plain_sight_and_only_to_a_win(
    name: str, params: dict[str, Any], seed: int
) -> None:
    """``finishing_line`` is None while a card is hidden, always in a game that hides nothing
    at the start, and otherwise a line the rules replay to a win."""
    game = build(name, params)
    state = game.new_state(seed)
    hid_something = bool(state.hidden_codes())
    solver = game.solver()
    solution = None if solver is None else solver.solve(state, max_states=SOLVER_STATES)
    if solution is not None and solution.result == "win":
        line = list(solution.moves)
    else:
        line = list(autoplay(game, QUICK_BOTS[-1], seed).moves)
    offered = 0
    # a solver's certificate may shuffle cards for thousands of moves once all is seen: ask at
    # FINISH_CHECKS positions spread over the line, and at every position before that
    step = max(1, len(line) // FINISH_CHECKS)
    for number, move in enumerate([*line, None]):
        if number % step == 0 or move is None:
            finish = state.finishing_line()
            if state.hidden_codes() or not hid_something or state.is_terminal():
                assert finish is None
            elif finish is not None:
                offered += 1
                replays_to_a_win(state, finish)
        if move is None or state.is_terminal():
            break
        state.push(move)
    if solution is not None and solution.result == "win" and not hid_something:
        assert offered == 0
