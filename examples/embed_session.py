"""An RPG engine embedding the check session service, without HTTP.

The engine runs a character's quota check through :class:`skillcheck.sessions.SessionService`,
the same service the web API wraps: it publishes the commitment before the first card is seen,
feeds the player's moves in with the check's version (a stale or repeated request cannot act
twice), listens to the check's events the way a VTT chat or a webhook would, prints the result
with its degree, and finally checks the revealed record against the commitment as a suspicious
player would. Run:

    python3 examples/embed_session.py                  # a scripted player, fresh entropy
    python3 examples/embed_session.py --seed 2026      # the same deal every time
    python3 examples/embed_session.py --moves d1,d2,12 # the player's moves from a list
    python3 examples/embed_session.py --stdin          # type the moves yourself
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator

from skillcheck import SkillcheckError, ThreeTowers
from skillcheck.sessions import (
    CheckEvent,
    CheckView,
    SessionService,
    VersionConflictError,
    seed_provenance,
    verify_commitment,
)

#: A player: given what they see, a move code, or None to concede.
Player = Callable[[CheckView], str | None]


def scripted_player(suit_letter: str) -> Player:
    """A stand-in for a UI, seeing only the view: grow the tallest tower made only of the check's
    suit, park other cards on the other towers, and concede when nothing sensible is left."""

    def card_moved(view: CheckView, code: str) -> str:
        towers = view.observation["towers"]
        return str(view.observation["top_card"] if code[0] == "d" else towers[int(code[0]) - 1][-1])

    def score(view: CheckView, code: str) -> int:
        towers = view.observation["towers"]
        card, target = card_moved(view, code), towers[int(code[1]) - 1]
        suited = suit_letter in card[1:]
        pure = all(suit_letter in c[1:] for c in target)
        if code[0] == "d":
            if suited:
                return 10 + len(target) if target and pure else 5 if not target else 2
            return 3 if target and not pure else 1 if not target else 0
        source = towers[int(code[0]) - 1]
        height = len(source) if all(suit_letter in c[1:] for c in source) else 1
        # Between towers, only a move that makes a taller pure tower is worth it.
        return 8 if suited and target and pure and len(target) + 1 > height else -1

    def play(view: CheckView) -> str | None:
        scored = sorted(view.legal_moves, key=lambda code: -score(view, code))
        return scored[0] if scored and score(view, scored[0]) >= 0 else None

    return play


def list_player(moves: list[str]) -> Player:
    """The moves of a list, in order; concede when they run out."""
    queue: Iterator[str] = iter(moves)
    return lambda view: next(queue, None)


def stdin_player(view: CheckView) -> str | None:
    print(f"  you see {view.observation_code}; legal: {' '.join(view.legal_moves)}")
    line = sys.stdin.readline()
    text = line.strip()
    return None if not line or text in ("", "concede", "q") else text


class Engine:
    """A toy RPG engine: it owns the check service and tells the table what happens."""

    def __init__(self) -> None:
        self.checks = SessionService()  # in-memory store; an engine may pass its own CheckStore
        self.checks.subscribe(self.on_event)

    def on_event(self, event: CheckEvent) -> None:
        """A listener: called after each commit. A real engine would post to its chat or VTT."""
        view = event.payload["view"]
        if event.kind.value == "moved":
            print(f"  [event {event.sequence}] moved {event.payload['move']}: "
                  f"{view['observation_code']}")  # fmt: skip
        elif event.terminal:
            print(f"  [event {event.sequence}] {event.kind.value}: {view['status']}")
        else:
            print(f"  [event {event.sequence}] {event.kind.value}")

    def quota_check(
        self, character: str, suit: str, skill: int, quota: int, player: Player, seed: int | None
    ) -> None:
        game = ThreeTowers.quota_check(suit, skill=skill, quota=quota, move_limit=120)
        print(f"{character} attempts a {suit} check (skill {skill}, quota {quota}).")
        created = self.checks.create(
            game, seed=seed, label=f"{character}: {suit} check", metadata={"character": character}
        )
        print(f"  commitment, published before any card is seen: {created.commitment}")
        check = created.check_id
        turn = 0
        while not (view := self.checks.view(check)).is_over:
            code = player(view)
            turn += 1
            try:
                if code is None:
                    self.checks.concede(check, expected_version=view.version)
                elif code == "undo":
                    self.checks.undo(check, expected_version=view.version)
                else:
                    # The version makes a stale request a conflict; the key makes a retry safe.
                    self.checks.move(
                        check, code, expected_version=view.version, idempotency_key=f"turn-{turn}"
                    )
            except SkillcheckError as exc:  # an illegal move: nothing changed, ask again
                print(f"  rejected {code!r}: {exc}")
        verdict = "succeeds" if view.success else "fails"
        assert view.outcome is not None
        print(f"{character} {verdict} (degree {view.degree:+d}): {view.outcome.summary}")

        # After the end the record is revealed: seed, deal, every action, salt, commitment.
        revealed = self.checks.record(check)
        published = json.loads(revealed.to_json())  # what a player would download
        # The whole revealed record: it carries the salt and whether the GM chose the seed,
        # both bound into the commitment (its inner game record alone lacks the second).
        verify_commitment(published, commitment=created.commitment)
        revealed.verify()  # the commitment again, then a replay through the rules
        print(
            f"  seed {revealed.record.seed} ({seed_provenance(revealed.seed_chosen)}): "
            "record verified against the commitment"
        )

    def interrupted_check(self, character: str) -> None:
        """Two clicks on the same stale view, then the GM calls the check off."""
        game = ThreeTowers.quota_check("knots", skill=4, quota=3, level=6)
        print(f"{character} attempts a knots check; the scene is interrupted.")
        check = self.checks.create(game, label=f"{character}: knots check").check_id
        view = self.checks.view(check)
        self.checks.move(check, view.legal_moves[0], expected_version=view.version)
        try:  # a second click made on the same (now stale) view
            self.checks.move(check, view.legal_moves[0], expected_version=view.version)
        except VersionConflictError as exc:
            print(f"  conflict: {exc.message}")
        ended = self.checks.cancel(check, "the ogre kicked the table over")
        print(f"  status {ended.status.value} ({ended.cancel_reason}); no degree: {ended.degree}")
        self.checks.record(check).verify()
        print("  cancelled record verified against the commitment")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--moves", help="comma-separated move codes, e.g. d1,d2,12")
    parser.add_argument("--stdin", action="store_true", help="read moves from standard input")
    args = parser.parse_args()
    player: Player = scripted_player("L")  # the check below is of Leaves
    if args.stdin:
        player = stdin_player
    elif args.moves:
        player = list_player([m.strip() for m in args.moves.split(",") if m.strip()])
    engine = Engine()
    try:
        engine.quota_check(
            "Mira the scout", "leaves", skill=6, quota=3, player=player, seed=args.seed
        )
        if not (args.stdin or args.moves):
            engine.interrupted_check("Aldric the bard")
    except SkillcheckError as exc:  # a bad seed, say: the library's message says what is allowed
        sys.exit(f"{parser.prog}: {exc}")


if __name__ == "__main__":
    main()
