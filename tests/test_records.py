"""Game records: JSON round trip, replay, verification, and hiding the deal of a running check."""

from __future__ import annotations

import json
from collections.abc import Callable

import attrs
import pytest

from skillcheck import (
    EndReason,
    Outcome,
    ParseError,
    RecordError,
    SkillcheckError,
    Status,
    ThreeTowers,
    ThreeTowersState,
    TowerMove,
)
from skillcheck.records import RECORD_FORMAT, GameRecord, verify
from skillcheck.sessions import RevealedRecord, SessionService

Solver = Callable[[ThreeTowersState], list[TowerMove] | None]  # the ``solve`` fixture


def played(game: ThreeTowers, seed: int, moves: int) -> ThreeTowersState:
    """A check after ``moves`` moves, each the first legal move that does not end the check."""
    state = game.new_state(seed)
    for _ in range(moves):
        for move in state.legal_moves:
            probe = state.copy()
            probe.push(move)
            if not probe.is_terminal():
                state.push(move)
                break
    return state


def won_state(solve: Solver, level: int = 4, seed: int = 0) -> ThreeTowersState:
    game = ThreeTowers(level=level)
    line = solve(game.new_state(seed))
    assert line is not None
    state = game.new_state(seed)
    for move in line:
        state.push(move)
    assert state.status is Status.WON
    return state


GAMES = [
    ThreeTowers(),
    ThreeTowers(level=5, spaces=3, undo=False, move_limit=200),
    ThreeTowers.ivory("wyrms", level=7, spaces=8),
    ThreeTowers.quota_check("moons", skill=4, quota=3),
    ThreeTowers.quota_check(
        "knots", skill=3, quota=2, level=6, suited_cards=["2MK", "Market", "4YK"]
    ),
]


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.describe())
def test_record_json_round_trip(game: ThreeTowers) -> None:
    state = played(game, 12, 6)
    state.concede()
    record = state.record()
    text = record.to_json()
    data = json.loads(text)
    assert data["format"] == RECORD_FORMAT
    assert data["game"] == "three-towers"
    assert data["moves"] == [m.code for m in state.moves]
    assert data["seed"] == 12
    assert data["deal"] == [c.code for c in game.deal(12)]
    back = GameRecord.from_json(text)
    assert back == record
    assert back.build_game() == game
    assert GameRecord.from_json(record.to_json(indent=None)) == record


def test_verify_accepts_an_honest_win(solve: Solver) -> None:
    state = won_state(solve)
    record = GameRecord.from_json(state.record().to_json())
    assert record.outcome is not None and record.outcome.status is Status.WON
    final = verify(record)
    assert final.code() == state.code()
    assert final.outcome == state.outcome


def test_verify_accepts_an_honest_concession() -> None:
    state = played(ThreeTowers(), 5, 7)
    state.concede()
    record = GameRecord.from_json(state.record().to_json())
    assert record.outcome is not None and record.outcome.reason is EndReason.CONCEDED
    final = verify(record)
    assert final.code() == state.code()
    assert final.outcome == state.outcome


def test_verify_accepts_an_honest_loss_by_move_limit() -> None:
    state = ThreeTowers(move_limit=4).new_state(5)
    for code in ("d1", "d2", "d3", "d4"):
        state.push_code(code)
    assert state.outcome is not None and state.outcome.reason is EndReason.MOVE_LIMIT
    assert verify(state.record()).outcome == state.outcome


def test_verify_rejects_a_tampered_move_and_names_it() -> None:
    state = played(ThreeTowers(), 8, 6)
    state.concede()
    record = state.record()
    moves = list(record.moves)
    moves[2] = "d9"  # there is no tower 9
    with pytest.raises(RecordError) as info:
        verify(attrs.evolve(record, moves=moves))
    assert "move 3" in str(info.value)
    moves[2] = "zz"  # not a move at all
    with pytest.raises(RecordError) as info:
        verify(attrs.evolve(record, moves=moves))
    assert "move 3" in str(info.value)


def test_verify_rejects_a_tampered_legal_looking_move() -> None:
    state = played(ThreeTowers(), 8, 6)
    state.concede()
    record = state.record()
    # a well-formed tower-to-tower move that the rules forbid at move 4
    replay = ThreeTowers().new_state(8)
    for code in record.moves[:3]:
        replay.push_code(code)
    illegal = next(
        f"{s}{t}"
        for s in range(1, 6)
        for t in range(1, 6)
        if s != t and TowerMove(s, t) not in replay.legal_moves
    )
    moves = [*record.moves[:3], illegal, *record.moves[4:]]
    with pytest.raises(RecordError) as info:
        verify(attrs.evolve(record, moves=moves))
    assert "move 4" in str(info.value)


def test_verify_rejects_a_tampered_outcome(solve: Solver) -> None:
    state = played(ThreeTowers(), 3, 5)
    state.concede()
    record = state.record()
    assert record.outcome is not None
    claimed_win = Outcome(Status.WON, EndReason.GOAL, 24, "success: three towers")
    with pytest.raises(RecordError):
        verify(attrs.evolve(record, outcome=claimed_win))
    better = attrs.evolve(record.outcome, degree=record.outcome.degree + 3)
    with pytest.raises(RecordError):
        verify(attrs.evolve(record, outcome=better))
    # a won check that claims to be still running, or to have been conceded
    won = won_state(solve).record()
    assert won.outcome is not None
    with pytest.raises(RecordError):
        verify(attrs.evolve(won, outcome=None))
    conceded = Outcome(Status.LOST, EndReason.CONCEDED, 0, "failure: the player conceded")
    with pytest.raises(RecordError):
        verify(attrs.evolve(won, outcome=conceded))


def test_verify_rejects_a_deal_that_is_not_the_seeds() -> None:
    game = ThreeTowers()
    state = played(game, 10, 3)
    state.concede()
    record = state.record()
    other = tuple(c.code for c in game.deal(11))
    with pytest.raises(RecordError):
        verify(attrs.evolve(record, deal=other))
    with pytest.raises(RecordError):
        verify(attrs.evolve(record, seed=11))
    swapped = list(record.deal or ())
    swapped[5], swapped[6] = swapped[6], swapped[5]
    with pytest.raises(RecordError):
        verify(attrs.evolve(record, deal=tuple(swapped)))


def test_verify_rejects_moves_after_the_end() -> None:
    state = ThreeTowers(move_limit=3).new_state(4)
    for code in ("d1", "d2", "d3"):
        state.push_code(code)
    assert state.is_terminal()
    record = state.record()
    with pytest.raises(RecordError) as info:
        verify(attrs.evolve(record, moves=[*record.moves, "d5"]))
    assert "move 4" in str(info.value)


def test_an_unfinished_record_hides_the_seed_and_deal() -> None:
    game = ThreeTowers()
    state = played(game, 77, 5)
    record = state.record()
    assert record.seed is None
    assert record.deal is None
    assert record.start is None
    assert not record.revealed
    text = record.to_json()
    for hidden in state.remaining_deck[1:]:
        assert hidden.code not in text
    with pytest.raises(RecordError):
        record.replay()
    with pytest.raises(RecordError):
        verify(GameRecord.from_json(text))


def test_a_revealed_unfinished_record_replays() -> None:
    game = ThreeTowers(level=8, spaces=4)
    state = played(game, 77, 9)
    record = state.record(reveal=True)
    assert record.seed == 77
    assert record.deal == tuple(c.code for c in game.deal(77))
    replayed = GameRecord.from_json(record.to_json()).replay()
    assert replayed.code() == state.code()
    assert replayed.outcome is None
    assert verify(record).code() == state.code()


def test_a_finished_record_reveals_by_default_and_can_be_hidden() -> None:
    state = played(ThreeTowers(), 6, 2)
    state.concede()
    assert state.record().seed == 6
    hidden = state.record(reveal=False)
    assert hidden.seed is None and hidden.deal is None
    with pytest.raises(RecordError):
        hidden.replay()


def test_a_record_of_a_play_from_a_position_code_replays_to_the_same_position() -> None:
    game = ThreeTowers(level=3, spaces=3)
    state = game.state_from_code("3MW2MK/3SK2SY/- 2WL3LY 4")
    state.push_code("d3")
    assert state.status is Status.LOST
    record = state.record()
    final = verify(GameRecord.from_json(record.to_json()))
    assert final.code() == state.code()
    assert final.moves_made == state.moves_made == 5


def test_verify_rejects_a_quota_record_dealt_from_a_short_deck() -> None:
    """A quota check's deck is the numerals without the suit plus ``skill`` of the suit; a record
    may not bring its own three-card deal and claim an instant success."""
    game = ThreeTowers.quota_check("moons", skill=2, quota=2)
    forged = GameRecord(
        game="three-towers",
        params=game.new_state(1).record(reveal=False).params,
        moves=("d1", "d1"),
        outcome=Outcome(
            Status.WON,
            EndReason.GOAL,
            1,
            "success: a tower of 2 moons reached the quota of 2 with 1 card to spare",
        ),
        deal=("9MS", "8MS", "7ML"),
    )
    with pytest.raises(SkillcheckError):
        verify(forged)


@pytest.mark.parametrize(
    "text",
    [
        "not json",
        "[]",
        json.dumps({"format": "something-else/9", "game": "three-towers"}),
        json.dumps({"format": RECORD_FORMAT, "game": "three-towers"}),
    ],
)
def test_unreadable_records_are_parse_errors(text: str) -> None:
    with pytest.raises(ParseError):
        GameRecord.from_json(text)


def test_a_record_with_an_unknown_key_is_refused() -> None:
    state = played(ThreeTowers(), 1, 1)
    state.concede()
    data = state.record().to_dict()
    data["cheat"] = True
    with pytest.raises(ParseError):
        GameRecord.from_dict(data)


def test_a_record_keeps_take_backs_and_replays_them() -> None:
    state = ThreeTowers.quota_check("moons", 4, 3, level=6, undo="full").new_state(1234)
    state.push_code("d1")
    state.undo()
    state.push_code("d2")
    state.concede()
    record = state.record()
    assert record.moves == ("d1", "undo", "d2")
    replayed = verify(GameRecord.from_json(record.to_json()))
    assert replayed.code() == state.code()
    assert replayed.undo_count == 1


def test_verify_names_a_tampered_degree_even_when_summaries_match() -> None:
    state = ThreeTowers.quota_check("moons", 4, 3, level=6).new_state(1234)
    state.push_code("d1")
    state.concede()
    data = state.record().to_dict()
    data["outcome"]["degree"] = 5
    with pytest.raises(RecordError, match=r"degree 5.*degree -3"):
        verify(GameRecord.from_dict(data))


def test_moves_given_as_one_string_are_refused() -> None:
    state = ThreeTowers(level=4).new_state(3)
    state.push_code("d1")
    state.concede()
    data = state.record().to_dict()
    data["moves"] = "d1"
    with pytest.raises(ParseError, match="list of move codes"):
        GameRecord.from_dict(data)


@pytest.mark.parametrize(
    ("data", "said"),
    [
        ({"game": "three-towers"}, "params is missing; moves is missing"),
        ({"game": "three-towers", "params": {}, "moves": [], "seed": "7"},
         "seed must be a whole number or null"),
        ({"game": "three-towers", "params": {}, "moves": [], "bogus": 1},
         "the record has members it does not take: bogus"),
    ],
)  # fmt: skip
def test_a_malformed_record_names_its_members_in_words(data: dict[str, object], said: str) -> None:
    """Not cattrs' "While structuring GameRecord (2 sub-exceptions)": each wrong member by
    name, and what a record has."""
    with pytest.raises(ParseError) as caught:
        GameRecord.from_dict({"format": RECORD_FORMAT, **data})
    message = caught.value.message
    assert said in message, message
    assert "a record has game, params, moves, and optionally" in message
    assert "structuring" not in message and "sub-exception" not in message


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ({"check_id": None, "salt": None}, "check_id and salt are missing"),
        ({"commitment": 5}, "a revealed record's commitment is text, not 5"),
        ({"status": "meh"}, 'status is one of in_progress, won, lost, cancelled, not "meh"'),
        ({"cancel_reason": 3}, "cancel_reason is text or null, not 3"),
    ],
)
def test_a_malformed_revealed_record_names_what_is_wrong(
    change: dict[str, object], said: str
) -> None:
    """Strict types, no silent str(): a number where text belongs is refused by name."""
    service = SessionService()
    created = service.create(ThreeTowers.quota_check("moons", skill=4, quota=2), seed=3)
    service.concede(created.check_id)
    data = service.record(created.check_id).to_dict()
    data.update({k: v for k, v in change.items() if v is not None})
    for name in [k for k, v in change.items() if v is None]:
        del data[name]
    with pytest.raises(ParseError) as caught:
        RevealedRecord.from_dict(data)
    assert said in caught.value.message, caught.value.message
