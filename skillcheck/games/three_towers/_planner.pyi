"""Type stub of the compiled planner (_planner.c beside it); see ``solver._Planner``."""

from collections.abc import Callable, Sequence

MAX_CARDS: int
MAX_SPACES: int

class Planner:
    def __init__(
        self,
        *,
        deck: Sequence[int],
        onto: Sequence[int],
        parent: Sequence[int],
        anc: Sequence[int],
        chain: Sequence[int],
        needed: int,
        pure_target: bool,
        suit_bits: int,
        quota: int,
        weights: Sequence[int],
        packed_base: Sequence[Sequence[int]],
        start: Sequence[int],
        start_key: int,
        first: int,
        won: Callable[[tuple[int, ...], int], bool],
    ) -> None: ...
    @property
    def counter(self) -> int: ...
    @property
    def stored(self) -> int: ...
    @property
    def exhausted(self) -> bool: ...
    def run(
        self, limit: int, states: int, stop: int, tick: Callable[[int], int]
    ) -> tuple[list[tuple[int, int, int]] | None, bool, int]: ...
