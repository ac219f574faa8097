"""An RPG engine embedding skillcheck: resolve a character's quota check.

The engine owns the state; the player (here a simple scripted policy standing in for a UI) sees
only the observation and the legal moves, never the deck's hidden order. Run:

    python3 examples/embed_check.py
"""

from __future__ import annotations

from skillcheck import ThreeTowers, ThreeTowersObservation, TowerMove


def choose_move(observation: ThreeTowersObservation, legal: list[TowerMove]) -> TowerMove | None:
    """A stand-in for a player: prefer placing the deck card on a tower, else give up."""
    deck_moves = [m for m in legal if m.source == 0]
    occupied = [m for m in deck_moves if observation.towers[m.target - 1]]
    if occupied:
        return occupied[0]
    return deck_moves[0] if deck_moves else None


def resolve_check(character: str, suit: str, skill: int, quota: int, seed: int) -> None:
    game = ThreeTowers.quota_check(suit, skill=skill, quota=quota, undo="off", move_limit=200)
    state = game.new_state(seed=seed)
    while not state.is_terminal():
        move = choose_move(state.observation(), list(state.legal_moves))
        if move is None:
            state.concede()
        else:
            state.push(move)
    outcome = state.outcome
    assert outcome is not None
    verdict = "succeeds" if outcome.success else "fails"
    print(f"{character} {verdict} (degree {outcome.degree:+d}): {outcome.summary}")
    # The record is what the engine stores; anyone can replay it with `skillcheck verify`.
    print(state.record().to_json(indent=None)[:120] + " ...")


if __name__ == "__main__":
    resolve_check("Aldric the bard", suit="suns", skill=6, quota=3, seed=2026)
    resolve_check("Mira the scout", suit="leaves", skill=3, quota=3, seed=7)
