"""Game records: the deal (as a seed and/or the deck order), the moves, and the outcome.

A record is replayed through the rules engine, so a record that claims an outcome the moves do
not produce is caught (``skillcheck verify RECORD``), and so is a tier that the outcome and the
recorded thresholds do not give. Before a check ends, a record hides its
seed and deal: everything that may reach a player is built from what the player may see.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import attrs
from attrs import field, frozen

from skillcheck.errors import ParseError, RecordError, SkillcheckError, quoted
from skillcheck.outcome import UNDO, EndReason, Outcome, Tier, Tiers

__all__ = ["RECORD_FORMAT", "GameRecord", "verify"]

RECORD_FORMAT = "skillcheck-record/1"
#: The longest outcome summary a mismatch message quotes whole (summaries are a sentence).
SUMMARY_QUOTE_LIMIT = 300
#: The search budget verify() spends re-proving an "unwinnable" ending.
UNWINNABLE_PROOF_STATES = 5_000_000


def _moves(value: Iterable[str]) -> tuple[str, ...]:
    if isinstance(value, str) or not all(isinstance(v, str) for v in value):
        raise ParseError('a record\'s moves are a list of move codes, e.g. ["d1", "12"]')
    return tuple(value)


def read_json_object(text: str, what: str) -> dict[str, Any]:
    """Parse ``text`` as a JSON object; otherwise a :class:`ParseError` naming ``what`` it is."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ParseError(f"{what} is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        kinds = {list: "an array", str: "a string", int: "a number", float: "a number",
                 bool: "true or false", type(None): "null"}  # fmt: skip
        raise ParseError(f"{what} is a JSON object, not {kinds.get(type(data), 'that')}")
    return data


def _members_text(cls: type) -> str:
    fields = attrs.fields(cls)
    needed = [f.name for f in fields if f.default is attrs.NOTHING]
    optional = [f.name for f in fields if f.default is not attrs.NOTHING]
    return f"{', '.join(needed)}, and optionally {', '.join(optional)}"


@frozen
class GameRecord:
    game: str
    params: dict[str, Any]
    #: Every action in order: move codes, and "undo" for each take-back.
    moves: tuple[str, ...] = field(converter=_moves)
    outcome: Outcome | None = None
    #: The outcome's tier (docs/rules.md) under ``tiers``; None until the end. Records
    #: written before tiers existed have neither, and verify as before.
    tier: Tier | None = None
    #: The thresholds the tier was graded by (the GM's, or the game's defaults when written).
    tiers: Tiers | None = None
    seed: int | None = None
    #: The deck order as card codes (top first); present once revealed.
    deal: tuple[str, ...] | None = None
    #: A full position code the play started from, when it did not start from a deal.
    start: str | None = None
    format: str = RECORD_FORMAT

    @property
    def revealed(self) -> bool:
        return self.seed is not None or self.deal is not None or self.start is not None

    @classmethod
    def from_state(cls, state: Any, *, reveal: bool, tiers: Tiers | None = None) -> GameRecord:
        """The record of a :class:`~skillcheck.engine.State` (``state.record()`` calls this);
        its tier is graded by ``tiers`` (the GM's), else by the game's default thresholds."""
        from skillcheck.serialization import game_params

        start = state.initial_position().code() if state.deal is None else None
        thresholds = state.game.default_tiers() if tiers is None else tiers
        outcome = state.outcome
        return cls(
            game=state.game.name,
            params=game_params(state.game),
            moves=state.history,
            outcome=outcome,
            tier=None if outcome is None else thresholds.tier(outcome),
            tiers=thresholds,
            seed=state.seed if reveal else None,
            deal=tuple(c.code for c in state.deal) if reveal and state.deal is not None else None,
            start=start if reveal else None,
        )

    # -- JSON
    def to_dict(self) -> dict[str, Any]:
        from skillcheck.serialization import converter

        data: dict[str, Any] = converter.unstructure(self)
        return {"format": data.pop("format"), **data}

    def to_json(self, *, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)

    @classmethod
    def from_dict(cls, data: Any) -> GameRecord:
        from skillcheck.serialization import converter, first_domain_error, structure_problems

        if not isinstance(data, dict):
            raise ParseError("a game record is a JSON object")
        if isinstance(data.get("moves"), str):
            raise ParseError('a record\'s moves are a list of move codes, e.g. ["d1", "12"]')
        if data.get("format") != RECORD_FORMAT:
            raise ParseError(
                f"unknown record format {quoted(data.get('format'))}: "
                f"this library reads {quoted(RECORD_FORMAT)}"
            )
        try:
            return converter.structure(data, cls)
        except Exception as exc:  # cattrs reports structure errors as exception groups
            domain = first_domain_error(exc)
            if domain is not None:
                raise ParseError(f"cannot read the game record: {domain}") from None
            problems = structure_problems(exc, "the record")
            raise ParseError(
                f"cannot read the game record: {problems} (a record has {_members_text(cls)})"
            ) from None

    @classmethod
    def from_json(cls, text: str) -> GameRecord:
        return cls.from_dict(read_json_object(text, "a game record"))

    @classmethod
    def load(cls, path: str | Path) -> GameRecord:
        return cls.from_json(Path(path).read_text(encoding="utf-8"))

    def grade(self, state: Any) -> Tier | None:
        """The tier of ``state``'s outcome under this record's thresholds (else the game's
        defaults); None while the game is on."""
        if state.outcome is None:
            return None
        tier: Tier = state.game.tier(state.outcome, self.tiers)
        return tier

    # -- replay
    def build_game(self) -> Any:
        """The :class:`~skillcheck.engine.Game` of this record."""
        from skillcheck.serialization import game_from_params

        return game_from_params(self.game, self.params)

    def initial_state(self) -> Any:
        """The :class:`~skillcheck.engine.State` the play started from."""
        game = self.build_game()
        if self.seed is not None:
            state = game.new_state(self.seed)
            if self.deal is not None and tuple(self.deal) != tuple(
                c.code for c in state.deal or ()
            ):
                raise RecordError(
                    f"the recorded deal is not the deal of seed {self.seed} for these parameters"
                )
            return state
        if self.deal is not None:
            return game.state_from_deal(self.deal)
        if self.start is not None:
            return game.state_from_code(self.start)
        raise RecordError(
            "this record hides its deal (the check had not ended when it was written): it cannot "
            "be replayed"
        )

    def replay(self) -> Any:
        """Replay the moves; raises :class:`RecordError` if a move is illegal."""
        state = self.initial_state()
        for number, code in enumerate(self.moves, 1):
            try:
                if code == UNDO:
                    state.undo()
                else:
                    state.push_code(code)
            except SkillcheckError as exc:
                raise RecordError(f"move {number} ({code}) cannot be replayed: {exc}") from None
        reason = self.outcome.reason if self.outcome is not None else None
        if reason in (EndReason.CONCEDED, EndReason.UNWINNABLE):
            if state.is_terminal():
                raise RecordError(
                    f"the record says the check ended as {reason.value}, but it had already ended"
                )
            if reason is EndReason.CONCEDED:
                state.concede()
            elif not state.end_if_unwinnable(max_states=UNWINNABLE_PROOF_STATES):
                raise RecordError(
                    "the record says no winning line remained, but that cannot be proved: "
                    "the position may still be winnable"
                )
        return state


def verify(record: GameRecord) -> Any:
    """Replay ``record`` and check that it ends as it claims, in the tier it claims (graded
    again from the replayed outcome); returns the final state."""
    state = record.replay()
    if state.outcome != record.outcome:
        raise RecordError(
            f"the record claims {_describe(record.outcome)} but replaying it gives "
            f"{_describe(state.outcome)}"
        )
    if record.tier is not None:
        tier = record.grade(state)
        if tier is not record.tier:
            whose = "the game's" if record.tiers is None else "its"
            raise RecordError(
                f"the record claims the tier {record.tier.value} but its outcome gives "
                f"{'no tier' if tier is None else tier.value} under {whose} thresholds"
            )
    return state


def _describe(outcome: Outcome | None) -> str:
    if outcome is None:
        return "a check still in progress"
    return (
        f"{outcome.status.value} ({outcome.reason.value}, degree {outcome.degree}): "
        f"{quoted(outcome.summary, limit=SUMMARY_QUOTE_LIMIT)}"
    )
