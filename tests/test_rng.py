"""skillcheck.rng: PCG32 against the published reference, unbiased bounded integers, Fisher–Yates,
and the seed range (docs/rng.md)."""

from __future__ import annotations

import itertools
import secrets
from collections import Counter
from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from skillcheck.errors import ParameterError
from skillcheck.rng import MAX_SEED, STREAM, Pcg32, draw_seed, validate_seed

# ---- the published reference: pcg32-demo of pcg-c-basic, first round, seed 42 on stream 54 ------

REFERENCE_U32 = [0xA15C02B7, 0x7B47F409, 0xBA1D3330, 0x83D2F293, 0xBFA4784B, 0xCBED606E]
REFERENCE_COINS = "HHTTTHTHHHTHTTTHHHHHTTTHHHTHTHTHTTHTTTHHHHHHTTTTHHTTTTTHTTTTTTTHT"
REFERENCE_ROLLS = "3 4 1 1 2 2 3 2 4 3 2 4 3 3 5 2 3 1 3 1 5 1 4 1 5 6 4 6 6 2 6 3 3"
REFERENCE_CARDS = (
    "Qd Ks 6d 3s 3d 4c 3h Td Kc 5c Jh Kd Jd As 4s 4h Ad Th Ac Jc 7s Qs 2s 7h Kh 2d 6c Ah 4d Qh "
    "9h 6s 5s 2c 9c Ts 8d 9s 3c 8c Js 5d 2h 6h 7d 8s 9d 5h 8h Qc 7c Tc"
)

MASK32 = (1 << 32) - 1
MASK64 = (1 << 64) - 1


def card_label(c: int) -> str:
    return "A23456789TJQK"[c // 4] + "hcds"[c % 4]


def test_stream_is_54() -> None:
    assert STREAM == 54


def test_reference_outputs() -> None:
    rng = Pcg32(42, 54)
    assert [rng.next_u32() for _ in range(6)] == REFERENCE_U32


def test_reference_demo_round() -> None:
    """All four lines of pcg32-demo's first round, drawn from one generator in order."""
    rng = Pcg32(42)  # the default stream is 54
    assert [rng.next_u32() for _ in range(6)] == REFERENCE_U32
    assert "".join("TH"[rng.bounded(2)] for _ in range(65)) == REFERENCE_COINS
    assert " ".join(str(rng.bounded(6) + 1) for _ in range(33)) == REFERENCE_ROLLS
    cards = list(range(52))
    rng.shuffle(cards)
    assert " ".join(card_label(c) for c in cards) == REFERENCE_CARDS


# ---- an independent transcription of pcg_basic.c, for arbitrary seeds and streams ---------------


class ReferencePcg32:
    """pcg32_srandom_r / pcg32_random_r / pcg32_boundedrand_r, written out separately."""

    def __init__(self, initstate: int, initseq: int) -> None:
        self.state = 0
        self.inc = ((initseq << 1) | 1) & MASK64
        self.step()
        self.state = (self.state + initstate) & MASK64
        self.step()

    def step(self) -> int:
        oldstate = self.state
        self.state = (oldstate * 6364136223846793005 + self.inc) & MASK64
        xorshifted = (((oldstate >> 18) ^ oldstate) >> 27) & MASK32
        rot = oldstate >> 59
        return ((xorshifted >> rot) | (xorshifted << ((32 - rot) % 32))) & MASK32

    def bounded(self, bound: int) -> int:
        threshold = (-bound % (1 << 32)) % bound  # (uint32_t)(-bound) % bound
        while True:
            r = self.step()
            if r >= threshold:
                return r % bound


@given(
    seed=st.integers(0, MAX_SEED),
    stream=st.integers(0, (1 << 63) - 1),
    bounds=st.lists(st.integers(1, MASK32), min_size=1, max_size=20),
)
def test_matches_reference_transcription(seed: int, stream: int, bounds: list[int]) -> None:
    ours, ref = Pcg32(seed, stream), ReferencePcg32(seed, stream)
    assert [ours.next_u32() for _ in range(8)] == [ref.step() for _ in range(8)]
    assert [ours.bounded(b) for b in bounds] == [ref.bounded(b) for b in bounds]


@given(seed=st.integers(0, MAX_SEED))
def test_outputs_are_32_bit_and_deterministic(seed: int) -> None:
    a, b = Pcg32(seed), Pcg32(seed)
    outputs = [a.next_u32() for _ in range(16)]
    assert outputs == [b.next_u32() for _ in range(16)]
    assert all(isinstance(r, int) and 0 <= r <= MASK32 for r in outputs)


@given(seed=st.integers(0, MAX_SEED - 1))
def test_neighbouring_seeds_differ(seed: int) -> None:
    a, b = Pcg32(seed), Pcg32(seed + 1)
    assert [a.next_u32() for _ in range(4)] != [b.next_u32() for _ in range(4)]


# ---- bounded integers ---------------------------------------------------------------------------


class Scripted(Pcg32):
    """A Pcg32 whose outputs are given, to exercise bounded()'s rejection exactly."""

    def __init__(self, outputs: list[int]) -> None:  # no seeding: next_u32 is replaced
        self.outputs: Iterator[int] = iter(outputs)
        self.drawn = 0

    def next_u32(self) -> int:
        self.drawn += 1
        return next(self.outputs)


@pytest.mark.parametrize(
    "bound", [1, 2, 3, 5, 6, 7, 10, 24, 1000, 12345, (1 << 31) - 1, 1 << 31, (1 << 31) + 1, MASK32]
)
def test_rejection_threshold(bound: int) -> None:
    """Outputs below threshold = 2**32 mod bound are rejected; the accepted range [threshold,
    2**32) holds every residue equally often, and threshold is the least rejection that does."""
    threshold = (1 << 32) % bound
    assert (MASK32 + 1 - threshold) % bound == 0
    assert threshold < bound
    # The generator's last rejected and first accepted outputs.
    if threshold:
        rng = Scripted([threshold - 1, threshold - 1, threshold, 0])
        assert rng.bounded(bound) == threshold % bound
        assert rng.drawn == 3
    rng = Scripted([MASK32, 0])
    assert rng.bounded(bound) == MASK32 % bound
    assert rng.drawn == 1


def test_rejection_with_a_real_generator_small_bounds() -> None:
    """Exhaustive over small bounds: bounded() returns r % bound for the first r >= threshold."""
    for bound in range(1, 300):
        rng, shadow = Pcg32(bound), Pcg32(bound)
        threshold = (1 << 32) % bound
        for _ in range(5):
            r = shadow.next_u32()
            while r < threshold:
                r = shadow.next_u32()
            assert rng.bounded(bound) == r % bound


def test_bounded_is_uniform_chi_square() -> None:
    rng = Pcg32(20240601)
    bound, n = 7, 70_000
    counts = Counter(rng.bounded(bound) for _ in range(n))
    assert set(counts) == set(range(bound))
    expected = n / bound
    chi2 = sum((counts[k] - expected) ** 2 / expected for k in range(bound))
    assert chi2 < 30  # df = 6: p < 1e-4 above 27.9


def test_bounded_has_no_modulo_bias() -> None:
    """With bound = 3 * 2**30, plain r % bound would give values below 2**30 half of the time;
    the rejection makes it a third."""
    bound = 3 << 30
    rng = Pcg32(7)
    n = 30_000
    low = sum(rng.bounded(bound) < (1 << 30) for _ in range(n))
    assert abs(low / n - 1 / 3) < 0.02


def test_bounded_one_still_draws() -> None:
    a, b = Pcg32(5), Pcg32(5)
    assert a.bounded(1) == 0
    b.next_u32()
    assert a.next_u32() == b.next_u32()


@pytest.mark.parametrize("bound", [0, -1, 1 << 32, (1 << 32) + 5])
def test_bounded_rejects_bad_bounds(bound: int) -> None:
    with pytest.raises(ValueError, match="bound"):
        Pcg32(1).bounded(bound)


# ---- Fisher–Yates -------------------------------------------------------------------------------


@given(seed=st.integers(0, MAX_SEED), items=st.lists(st.integers(), max_size=60))
def test_shuffle_is_a_permutation(seed: int, items: list[int]) -> None:
    shuffled = list(items)
    Pcg32(seed).shuffle(shuffled)
    assert sorted(shuffled) == sorted(items)


@given(seed=st.integers(0, MAX_SEED), n=st.integers(0, 60))
def test_shuffle_is_the_documented_loop(seed: int, n: int) -> None:
    """for i = n-1 down to 1: j = bounded(i + 1); swap items[i], items[j]."""
    items = list(range(n))
    Pcg32(seed).shuffle(items)
    expected = list(range(n))
    rng = Pcg32(seed)
    i = n - 1
    while i >= 1:
        j = rng.bounded(i + 1)
        expected[i], expected[j] = expected[j], expected[i]
        i -= 1
    assert items == expected


@pytest.mark.parametrize("n", [0, 1])
def test_shuffling_zero_or_one_item_draws_nothing(n: int) -> None:
    a, b = Pcg32(99), Pcg32(99)
    a.shuffle(list(range(n)))
    assert a.next_u32() == b.next_u32()


def test_shuffle_permutations_are_uniform() -> None:
    counts: Counter[tuple[int, ...]] = Counter()
    rng = Pcg32(3)
    n = 24_000
    for _ in range(n):
        items = [0, 1, 2, 3]
        rng.shuffle(items)
        counts[tuple(items)] += 1
    assert set(counts) == set(itertools.permutations(range(4)))
    expected = n / 24
    chi2 = sum((c - expected) ** 2 / expected for c in counts.values())
    assert chi2 < 60  # df = 23: p < 1e-4 above 53


# ---- seeds --------------------------------------------------------------------------------------


def test_max_seed_is_the_largest_safe_javascript_integer() -> None:
    assert MAX_SEED == 2**53 - 1 == 9007199254740991


@pytest.mark.parametrize("seed", [0, 1, 42, MAX_SEED])
def test_validate_seed_accepts(seed: int) -> None:
    assert validate_seed(seed) == seed


@pytest.mark.parametrize("seed", [-1, MAX_SEED + 1, 2**64, True, False, 1.5, 7.0, "7", None])
def test_validate_seed_rejects(seed: object) -> None:
    with pytest.raises(ParameterError) as info:
        validate_seed(seed)
    assert info.value.parameter == "seed"
    assert "0" in info.value.message and str(MAX_SEED) in info.value.message
    assert "whole number" in info.value.message


def test_draw_seed_is_in_range() -> None:
    seeds = {draw_seed() for _ in range(200)}
    assert all(isinstance(s, int) and validate_seed(s) == s for s in seeds)
    assert len(seeds) > 190  # 53 bits of entropy: repeats are astronomically unlikely


def test_draw_seed_uses_os_entropy_over_the_whole_range(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []

    def randbelow(n: int) -> int:
        calls.append(n)
        return n - 1

    monkeypatch.setattr(secrets, "randbelow", randbelow)  # skillcheck.rng calls it
    assert draw_seed() == MAX_SEED
    assert calls == [MAX_SEED + 1]
