"""How bear-off positions are numbered and what the tables' axes mean, plain Python.

A bear-off position is the checkers of one side on its six home points, ``counts[0..5]`` for
points 1..6.  Positions are numbered as GNU Backgammon numbers them (``PositionBearoff`` in its
positionid.c): every position of up to ``k`` checkers has a number below ``C(k + 6, 6)``, so a
database of up to ``k`` checkers is the first ``C(k + 6, 6)`` numbers of any larger one, and
position 0 is "all off".

Both sides read this module: the readers of ``bgsim/bearoff/`` (the reference, which never
loads Numba) and the kernels that build the tables (``bgsim/fast/bearoff.py``, which take their
constants from here and have their own ``rank`` for their loops; ``tests/test_bearoff.py``
holds the two numberings equal).  It sits beside the package, not in it, so that the fast
engine reads it without loading the readers.
"""

from __future__ import annotations

import numpy as np

POINTS = 6
MAX_CHECKERS = 15
# Slots of a roll-count distribution (0..31 rolls).  The longest bear-off needs 30 rolls and the
# first checker off at most 10; the tests check that the last slot stays empty.
MAX_ROLLS = 32

# The 21 distinct rolls and their chances in 36ths.  Sums are taken in 36ths and divided once,
# so that a sure thing comes out as exactly 1 (a cube decision compares equities with 1).
ROLLS = np.array([(d1, d2) for d1 in range(1, 7) for d2 in range(1, d1 + 1)], dtype=np.int64)
ROLL_WEIGHTS = np.array([1.0 if d1 == d2 else 2.0 for d1, d2 in ROLLS], dtype=np.float64)

# The cube's place, the second axis of the match tables (``values[k, state, o, a, b]``).
CENTRED, OWNED, OPPONENT_OWNS = 0, 1, 2


def _binomials() -> np.ndarray:
    table = np.zeros((MAX_CHECKERS + POINTS + 1, POINTS + 2), dtype=np.int64)
    for n in range(table.shape[0]):
        table[n, 0] = 1
        for r in range(1, min(n, POINTS + 1) + 1):
            table[n, r] = table[n - 1, r - 1] + (table[n - 1, r] if r <= n - 1 else 0)
    return table


BINOMIALS = _binomials()


def position_count(checkers: int) -> int:
    """How many positions have up to ``checkers`` checkers on the six home points."""
    return int(BINOMIALS[checkers + POINTS, POINTS])


def _bits(counts) -> int:
    """The position as a row of bits: for each point its checkers as 0s and a 1 that closes it."""
    j = POINTS - 1 + sum(counts)
    bits = 1 << j
    for point in range(POINTS - 1):
        j -= counts[point] + 1
        bits |= 1 << j
    return bits


def rank(counts) -> int:
    """GNU Backgammon's bear-off number of six home-point counts (PositionBearoff with 15
    checkers): the index of the position's bit pattern among all patterns with six 1s."""
    bits = _bits([int(count) for count in counts])
    n, r, number = MAX_CHECKERS + POINTS, POINTS, 0
    while n > r:
        if bits & (1 << (n - 1)):
            number += int(BINOMIALS[n - 1, r])
            r -= 1
        n -= 1
    return number


def all_positions(checkers: int = MAX_CHECKERS) -> np.ndarray:
    """``positions[number]`` = the six counts (int8) of every position of up to ``checkers``."""
    found = np.zeros((1, POINTS), dtype=np.int64)
    for point in range(POINTS):  # every composition of at most ``checkers`` over the six points
        room = checkers - found.sum(axis=1)
        repeats = room + 1
        grown = np.repeat(found, repeats, axis=0)
        grown[:, point] = np.arange(len(grown)) - np.repeat(np.cumsum(repeats) - repeats, repeats)
        found = grown
    positions = np.zeros((position_count(checkers), POINTS), dtype=np.int8)
    positions[ranks(found)] = found
    return positions


def ranks(counts: np.ndarray) -> np.ndarray:
    """:func:`rank` of each row of ``counts`` (an array of shape (n, 6)), in numpy."""
    counts = np.asarray(counts, dtype=np.int64)
    j = POINTS - 1 + counts.sum(axis=1)
    bits = np.left_shift(1, j)
    for point in range(POINTS - 1):
        j = j - counts[:, point] - 1
        bits |= np.left_shift(1, j)
    number = np.zeros(len(counts), dtype=np.int64)
    r = np.full(len(counts), POINTS, dtype=np.int64)
    for n in range(MAX_CHECKERS + POINTS, 0, -1):
        take = ((bits >> (n - 1)) & 1).astype(bool) & (n > r)
        number[take] += BINOMIALS[n - 1, r[take]]
        r[take] -= 1
    return number
