"""Portable seeded randomness: PCG32, unbiased bounded integers and Fisher–Yates.

Python's :mod:`random` is not used for deals: its shuffle is not guaranteed to stay the same
across Python versions, and it cannot be reproduced by a JavaScript VTT module. This module
implements the published PCG32 generator (PCG-XSH-RR 64/32, M. E. O'Neill, 2014) exactly as the
reference ``pcg32_srandom_r`` / ``pcg32_random_r`` / ``pcg32_boundedrand_r`` in pcg-c-basic do,
so the reference demo's output is a test vector (see docs/rng.md).
"""

from __future__ import annotations

import secrets
from collections.abc import MutableSequence
from typing import TypeVar

from skillcheck.errors import ParameterError, quoted

__all__ = [
    "MAX_SEED",
    "STREAM",
    "Pcg32",
    "draw_seed",
    "validate_seed",
]

_MASK64 = (1 << 64) - 1
_MASK32 = (1 << 32) - 1
_MULTIPLIER = 6364136223846793005

#: Seeds are integers 0 <= seed <= MAX_SEED, so a JavaScript ``Number`` holds any seed exactly.
MAX_SEED = (1 << 53) - 1
#: The PCG32 stream selector (``initseq``) every deal uses.
STREAM = 54

T = TypeVar("T")


class Pcg32:
    """The PCG32 generator with 64-bit state and a 63-bit stream selector."""

    __slots__ = ("_inc", "_state")

    def __init__(self, initstate: int, initseq: int = STREAM) -> None:
        # pcg32_srandom_r: state = 0; inc = (initseq << 1) | 1; step; state += initstate; step.
        self._state = 0
        self._inc = ((initseq << 1) | 1) & _MASK64
        self.next_u32()
        self._state = (self._state + initstate) & _MASK64
        self.next_u32()

    def __repr__(self) -> str:
        return f"<Pcg32 state=0x{self._state:016x} inc=0x{self._inc:016x}>"

    def next_u32(self) -> int:
        """The next 32-bit output (pcg32_random_r)."""
        old = self._state
        self._state = (old * _MULTIPLIER + self._inc) & _MASK64
        xorshifted = (((old >> 18) ^ old) >> 27) & _MASK32
        rot = old >> 59
        return ((xorshifted >> rot) | (xorshifted << ((-rot) & 31))) & _MASK32

    def bounded(self, bound: int) -> int:
        """A uniform integer in ``0 <= r < bound`` without modulo bias (pcg32_boundedrand_r)."""
        if isinstance(bound, bool) or not isinstance(bound, int) or not 1 <= bound <= _MASK32:
            raise ValueError(f"bound must be a whole number from 1 to 2**32 - 1, got {bound!r}")
        threshold = ((1 << 32) - bound) % bound
        while True:
            r = self.next_u32()
            if r >= threshold:
                return r % bound

    def shuffle(self, items: MutableSequence[T]) -> None:
        """Shuffle in place: for i = n-1 down to 1, swap items[i] with items[bounded(i + 1)]."""
        for i in range(len(items) - 1, 0, -1):
            j = self.bounded(i + 1)
            items[i], items[j] = items[j], items[i]


def validate_seed(seed: object) -> int:
    """Return ``seed`` if it is a valid seed, else raise :class:`ParameterError`."""
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise ParameterError(
            "seed",
            f"seed {quoted(seed)} is not allowed: a seed is a whole number from 0 to {MAX_SEED}",
        )
    return seed


def draw_seed() -> int:
    """A fresh seed from the operating system's entropy source."""
    return secrets.randbelow(MAX_SEED + 1)
