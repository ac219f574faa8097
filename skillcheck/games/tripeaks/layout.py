"""The Tri Peaks tableau: 28 positions in four rows drawn as three overlapping peaks.

Positions are numbered as every engine checked numbers them (PySolFC, GNOME Aisleriot;
/work/shared/reference/tripeaks-layout.md): left to right within a row, the peak tips first::

    row 0 (peak tips):           0           1           2
    row 1:                     3   4       5   6       7   8
    row 2:                   9  10  11  12  13  14  15  16  17
    row 3 (bottom, face up): 18  19  20  21  22  23  24  25  26  27

A card is covered by the two cards of the row below that overlap it (:data:`COVERED_BY`); it is
free when both are gone. On the page's slot grid (half-card steps, a slot covers columns x, x+1
and rows y, y+1) each card lies over the lower halves of the two cards it covers (:data:`SLOTS`).
"""

from __future__ import annotations

from itertools import combinations

__all__ = [
    "BOTTOM",
    "CONES",
    "COVERED_BY",
    "COVERS",
    "POSITIONS",
    "ROWS",
    "SLOTS",
    "TIPS",
    "cards_needed",
    "peaks_of",
    "place_words",
    "row_of",
]

#: The number of tableau positions.
POSITIONS = 28
#: The positions of each row, the tips (row 0) first.
ROWS: tuple[tuple[int, ...], ...] = (
    (0, 1, 2),
    (3, 4, 5, 6, 7, 8),
    tuple(range(9, 18)),
    tuple(range(18, 28)),
)
#: The peak tips: a peak is cleared when its tip is gone.
TIPS = (0, 1, 2)
#: The bottom row: always face up, covered by nothing.
BOTTOM = ROWS[3]

#: The two cards covering each position (none for the bottom row): the reference's cover table.
COVERED_BY: tuple[tuple[int, ...], ...] = (
    (3, 4), (5, 6), (7, 8),
    (9, 10), (10, 11), (12, 13), (13, 14), (15, 16), (16, 17),
    *((i + 9, i + 10) for i in range(9, 18)),
    *(() for _ in range(18, 28)),
)  # fmt: skip

#: The cards each position covers (the inverse of :data:`COVERED_BY`).
COVERS: tuple[tuple[int, ...], ...] = tuple(
    tuple(j for j in range(POSITIONS) if i in COVERED_BY[j]) for i in range(POSITIONS)
)

#: The slot (x, y) of each position on the half-card grid: row 3 at x = 0, 2, .., 18; row 2 at
#: x = 1, 3, .., 17; row 1 at x = 2, 4 / 8, 10 / 14, 16; the tips at x = 3, 9, 15.
SLOTS: tuple[tuple[int, int], ...] = (
    (3, 0), (9, 0), (15, 0),
    (2, 1), (4, 1), (8, 1), (10, 1), (14, 1), (16, 1),
    *((1 + 2 * k, 2) for k in range(9)),
    *((2 * k, 3) for k in range(10)),
)  # fmt: skip


def row_of(position: int) -> int:
    """The row (0 the tips .. 3 the bottom) of a position."""
    for number, row in enumerate(ROWS):
        if position in row:
            return number
    raise ValueError(f"there is no position {position}: positions are 0 to 27")


def _cone(tip: int) -> frozenset[int]:
    found = {tip}
    todo = [tip]
    while todo:
        for below in COVERED_BY[todo.pop()]:
            if below not in found:
                found.add(below)
                todo.append(below)
    return frozenset(found)


#: The rows in words, the tips first.
ROW_WORDS = ("tip", "second row", "third row", "bottom row")


def place_words(position: int) -> str:
    """Where a position lies, as a player would say it: ``the middle peak's tip``, ``the
    bottom row, 3rd of 10 from the left``."""
    row = row_of(position)
    if row == 0:
        return f"the {('left', 'middle', 'right')[position]} peak's tip"
    index = ROWS[row].index(position) + 1
    return f"the {ROW_WORDS[row]}, {_ordinal(index)} of {len(ROWS[row])} from the left"


def _ordinal(number: int) -> str:
    ends = {1: "st", 2: "nd", 3: "rd"}
    suffix = "th" if 10 <= number % 100 <= 20 else ends.get(number % 10, "th")
    return f"{number}{suffix}"


#: For each peak (by its tip), the ten positions that must be gone before its tip is gone: the
#: tip, the two and three cards below it and four cards of the bottom row. Peaks share bottom
#: cards 21 and 24; the three cones together are the whole tableau.
CONES: tuple[frozenset[int], ...] = tuple(_cone(tip) for tip in TIPS)


def peaks_of(position: int) -> tuple[int, ...]:
    """The peaks (0, 1, 2: left, middle, right) whose cone holds ``position``."""
    return tuple(peak for peak, cone in enumerate(CONES) if position in cone)


def cards_needed(present: frozenset[int] | set[int], peaks: int) -> int:
    """The fewest tableau cards still to remove so that ``peaks`` peaks are cleared, with the
    positions ``present`` still on the table (for ``peaks`` 3: every card left)."""
    return min(
        len(set().union(*(CONES[p] & present for p in chosen)))
        for chosen in combinations(range(3), peaks)
    )
