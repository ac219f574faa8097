"""Hints and finishing a won check, in the library (docs/sessions.md, "Hints" and "Finishing
a won check"): a hint is the fair fast bot's move, allowed only when the GM said so, logged and
counted in the view and the revealed record; a check is finished for the player only once every
card is seen and the solver proves the win, and never in a game that hides nothing."""

from __future__ import annotations

from typing import Any

import pytest

from skillcheck import CannotFinishError, HintsNotAllowedError, make_game
from skillcheck.errors import CheckEndedError, NoHintError, ParameterError
from skillcheck.sessions import (
    HINT,
    HINT_BOT,
    CheckStatus,
    EventKind,
    RevealedRecord,
    SessionService,
)
from skillcheck.solving import make_bot

GAME = "three-towers"


def winning_line(name: str = GAME, seed: int = 1, **params: Any) -> list[Any]:
    game = make_game(name, **params)
    solution = game.solver().solve(game.new_state(seed))
    assert solution.result == "win"
    return list(solution.moves)


def test_a_hint_is_the_fast_bots_move_and_is_counted() -> None:
    service = SessionService()
    created = service.create(GAME, {}, seed=3, hints=True)
    assert created.view.hints is True and created.view.hints_used == 0
    game = make_game(GAME)
    expected = make_bot(game, HINT_BOT).choose(game, game.new_state(3).observation())
    hint, view = service.hint(created.check_id, expected_version=0)
    assert hint.code == expected.code
    assert hint.to_dict() in [dict(m) for m in view.moves]  # one of the moves the view offers
    assert view.version == 1 and view.hints_used == 1
    assert view.moves_made == 0 and view.board == created.view.board  # the position is the same
    again, view = service.hint(created.check_id)
    assert again == hint and view.hints_used == 2 and view.version == 2
    kinds = [e.kind for e in service.events(created.check_id)]
    assert kinds == [EventKind.CREATED, EventKind.HINT, EventKind.HINT]
    assert service.events(created.check_id)[-1].payload["move"] == hint.code
    view = service.move(created.check_id, hint.code)
    assert view.hints_used == 2 and view.moves_made == 1
    ended = service.concede(created.check_id)
    assert ended.hints_used == 2
    record = service.record(created.check_id)
    assert record.hints_used == 2 and record.to_dict()["hints_used"] == 2
    # the hints are not game moves: the game record replays as before and verifies
    assert HINT not in record.record.moves
    again_record = RevealedRecord.from_dict(record.to_dict())
    assert again_record.hints_used == 2
    again_record.verify()


def test_hints_are_refused_unless_the_gm_allowed_them_and_change_nothing() -> None:
    service = SessionService()
    created = service.create(GAME, {}, seed=3)
    assert created.view.hints is False
    with pytest.raises(HintsNotAllowedError, match="did not allow hints"):
        service.hint(created.check_id)
    view = service.view(created.check_id)
    assert view.version == 0 and view.hints_used == 0
    assert [e.kind for e in service.events(created.check_id)] == [EventKind.CREATED]


def test_hints_is_a_strict_boolean() -> None:
    with pytest.raises(ParameterError, match="hints is true or false"):
        SessionService().create(GAME, {}, hints="yes")  # type: ignore[arg-type]


def test_no_hint_after_the_end() -> None:
    service = SessionService()
    created = service.create(GAME, {}, seed=3, hints=True)
    service.concede(created.check_id)
    with pytest.raises(CheckEndedError):
        service.hint(created.check_id)


def test_no_hint_when_the_bot_has_nothing_to_suggest() -> None:
    class Conceding:
        name = "fast"

        def choose(self, game: Any, observation: Any) -> None:
            return None

    service = SessionService()
    created = service.create(GAME, {}, seed=3, hints=True)
    game = make_game(GAME)
    original = type(game).bots
    try:
        type(game).bots = lambda self: {"fast": Conceding}  # type: ignore[method-assign]
        with pytest.raises(NoHintError):
            service.hint(created.check_id)
    finally:
        type(game).bots = original  # type: ignore[method-assign]
    assert service.view(created.check_id).version == 0


def test_hints_survive_a_restart_of_the_service() -> None:
    service = SessionService()
    created = service.create(GAME, {}, seed=3, hints=True)
    service.hint(created.check_id)
    fresh = SessionService(store=service.store)
    assert fresh.view(created.check_id).hints_used == 1


def test_a_check_is_finished_once_every_card_is_seen_and_the_win_is_proved() -> None:
    service = SessionService()
    created = service.create(GAME, {}, seed=1)
    assert created.view.can_finish is False
    with pytest.raises(CannotFinishError, match="every card is seen"):
        service.finish(created.check_id)
    assert service.view(created.check_id).version == 0
    view = created.view
    line = winning_line()
    for count, move in enumerate(line, 1):
        state = make_game(GAME).new_state(1)
        for earlier in line[:count]:
            state.push(earlier)
        view = service.move(created.check_id, move.code)
        # offered exactly when nothing is hidden any more (the solver proves these deals)
        assert view.can_finish == (not state.hidden_codes() and not state.is_terminal())
        if view.can_finish:
            break
    assert view.can_finish, "the winning line never reached a position with every card seen"
    before = view.moves_made
    finished = service.finish(created.check_id, expected_version=view.version)
    assert finished.status is CheckStatus.WON and finished.moves_made > before
    assert finished.can_finish is False
    events = service.events(created.check_id)
    assert events[-1].kind is EventKind.ENDED
    record = service.record(created.check_id)
    record.verify()  # the finishing moves are ordinary moves of the record
    stored = service.store.load(created.check_id)
    assert {a.note for a in stored.actions[before:]} == {"finish"}


def test_a_game_that_hides_nothing_is_never_finished_for_the_player() -> None:
    game = make_game("hanoy")
    state = game.new_state(0)
    assert not state.hidden_codes()  # a puzzle in plain sight: the finding is the check
    solution = game.solver().solve(state)
    assert solution.result == "win"
    for move in solution.moves[:-1]:
        assert state.finishing_line() is None
        state.push(move)
    assert state.finishing_line() is None and not state.finish_offered
    # the refusal says why in words (it used to say "not yet: once every card is seen")
    hides_nothing = "no card of this check was hidden, so finding the way is the check itself"
    assert hides_nothing in (state.finish_refusal() or "")
    service = SessionService()
    created = service.create("hanoy", {}, seed=0)
    assert created.view.can_finish is False
    with pytest.raises(CannotFinishError, match=hides_nothing):
        service.finish(created.check_id)


def test_the_terminal_does_not_offer_finish_where_nothing_is_hidden() -> None:
    from click.testing import CliRunner

    from skillcheck.cli import main

    for name, offered in (("hanoy", False), (GAME, True)):
        result = CliRunner().invoke(main, ["play", name, "--seed", "1"], input="h\nf\n")
        assert result.exit_code == 0, result.output
        assert ("finish a won check for you" in result.output) is offered, result.output
        said = "never finished for you" if name == "hanoy" else "some cards are still face down"
        assert said in result.output.replace("\n", " "), result.output


def test_a_finish_that_would_break_the_move_limit_is_not_offered() -> None:
    """Every card is seen and the win is proved, but the proved line is longer than the moves
    the limit leaves: finishing would end the check lost at the limit, so it is not offered and
    a finish asked for anyway changes nothing (it used to be offered, then refused as "the check
    is over" while the check stayed in progress)."""
    opening = ["d2", "d3", "d3", "d5", "d2", "d1", "d1", "d4"]
    unlimited = make_game(GAME, level=4).new_state(0)
    for code in opening:
        unlimited.push_code(code)
    line = unlimited.finishing_line()
    assert line is not None and len(line) > 40 - len(opening)
    service = SessionService()
    created = service.create(GAME, {"level": 4, "move_limit": 40}, seed=0)
    view = created.view
    for code in opening:
        view = service.move(created.check_id, code)
    assert view.can_finish is False and view.status is CheckStatus.IN_PROGRESS
    with pytest.raises(CannotFinishError, match=r"more than the \d+ moves left; play on"):
        service.finish(created.check_id, expected_version=view.version)
    assert service.view(created.check_id).version == view.version
    roomy = make_game(GAME, level=4, move_limit=len(opening) + len(line)).new_state(0)
    for code in opening:
        roomy.push_code(code)
    assert roomy.finishing_line() == line  # a limit the line fits leaves it offered


def test_a_cancelled_check_cannot_be_finished() -> None:
    service = SessionService()
    created = service.create(GAME, {}, seed=1)
    for move in winning_line():
        view = service.move(created.check_id, move.code)
        if view.can_finish:
            break
    assert view.can_finish
    cancelled = service.cancel(created.check_id, "the scene moved on")
    assert cancelled.can_finish is False
    with pytest.raises(CheckEndedError):
        service.finish(created.check_id)


def test_verify_reports_the_hints_taken(tmp_path: Any) -> None:
    from click.testing import CliRunner

    from skillcheck.cli import main

    service = SessionService()
    created = service.create(GAME, {}, seed=3, hints=True)
    service.hint(created.check_id)
    service.hint(created.check_id)
    service.concede(created.check_id)
    path = tmp_path / "record.json"
    path.write_text(service.record(created.check_id).to_json())
    result = CliRunner().invoke(main, ["verify", str(path)])
    assert result.exit_code == 0, result.output
    assert "hints: the player took 2 hints" in result.output
    plain = service.create(GAME, {}, seed=3)
    service.concede(plain.check_id)
    path.write_text(service.record(plain.check_id).to_json())
    result = CliRunner().invoke(main, ["verify", str(path)])
    assert result.exit_code == 0 and "hints" not in result.output


def test_the_terminal_offers_to_finish_a_won_check() -> None:
    from click.testing import CliRunner

    from skillcheck.cli import main

    line = winning_line()
    state = make_game(GAME).new_state(1)
    typed: list[str] = []
    for move in line:
        if not state.hidden_codes():
            break
        state.push(move)
        # tower moves such as 12 are also move numbers at the prompt: write them 1-2
        typed.append(f"{move.code[0]}-{move.code[1:]}" if move.code.isdigit() else move.code)
    assert state.finishing_line()
    # "f" before every card is seen is refused in words; after, it plays the win out
    script = ["f", *typed, "f", ""]
    result = CliRunner().invoke(main, ["play", GAME, "--seed", "1"], input="\n".join(script))
    assert result.exit_code == 0, result.output
    assert "nothing to finish yet" in result.output
    assert "type f to have it played out" in result.output
    assert "Finished for you in" in result.output
    assert "SUCCESS" in result.output


def test_a_hint_retried_with_its_idempotency_key_is_the_same_hint_counted_once() -> None:
    service = SessionService()
    created = service.create(GAME, {}, seed=3, hints=True)
    first, view = service.hint(created.check_id, idempotency_key="ask-1")
    again, view_again = service.hint(created.check_id, idempotency_key="ask-1")
    assert again == first and view_again.version == view.version == 1
    assert view_again.hints_used == 1
