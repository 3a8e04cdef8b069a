"""The ``nn`` net's integer format: the constants both halves read, plain Python.

``bots/nn.py`` (the reference: numpy int64 sums) and ``bgsim/fast/nn.py`` (the kernels, whose
docstring describes the arithmetic) compute the very same integers from these scales, so they
live here, where neither half has to import the other: the reference never loads Numba.
"""

from __future__ import annotations

import numpy as np

ONE = 4096  # scale of first-layer weights and of a fully active hidden unit
SHIFT = 14  # logits (scale ONE * ONE) >> SHIFT index the sigmoid table (steps of 1/1024)
LIMIT = 16 * 1024  # the table covers logits -16 .. +16
UNIT = 65536  # probabilities are integers in units of 1/65536
OUTPUTS = 5  # win, win gammon, win backgammon, lose gammon, lose backgammon
COUNTS = 31  # checker counts -15 .. 15 per slot
# the most hidden units the kernel's work buffer holds (bgsim/fast/nn.py asserts that they fit)
MAX_HIDDEN = 1024


def sigmoid_table() -> np.ndarray:
    """round(UNIT * sigmoid(i / 1024)) for i = -LIMIT .. LIMIT, as int64 (stored in the net file)."""
    steps = np.arange(-LIMIT, LIMIT + 1, dtype=np.float64) / 1024.0
    return np.round(UNIT / (1.0 + np.exp(-steps))).astype(np.int64)


# The contact inputs (GNU Backgammon's nets have inputs of this kind): facts of the whole board,
# not of one slot, each a whole number from the side on roll's board, then the same of the
# opponent's.  Each has a row of first-layer weights multiplied by its value (``contact`` of a
# net, (CONTACT, hidden)); a net without them (``nn-v1``) has zero rows.  The reference computes
# them in ``bots/features.py`` (``contact_inputs``), the fast engine in ``bgsim/fast/board.py``.
CONTACT_INPUTS = (
    "blots",  # own blots with an opponent checker behind them (bots.features.shots_at)
    "shots",  # the opponent's rolls of 36 that hit one of them, blocks ignored (shots_at)
    "prime",  # the longest run of own points (two or more checkers) on points 1..24
    "escapes",  # GNU Backgammon's escapes of the own rearmost checker (escape_table)
)
CONTACT = 2 * len(CONTACT_INPUTS)  # own, then the opponent's
# the largest value of each input, own then the opponent's (check_net bounds the sums with them)
CONTACT_MAX = (15, 36, 24, 36) * 2


def escape_table() -> np.ndarray:
    """GNU Backgammon's escape count of each 12-bit mask (bit i: the opponent holds the point
    i + 1 pips in front of the checker): the rolls of 36 whose whole move (a double counted
    as its two dice) lands on an open point with at least one die's point open on the way."""
    table = np.zeros(4096, dtype=np.int64)
    for mask in range(4096):
        count = 0
        for low in range(6):
            for high in range(low + 1):
                landing_open = not (mask >> (low + high + 1)) & 1
                a_die_open = not ((mask >> low) & 1 and (mask >> high) & 1)
                if landing_open and a_die_open:
                    count += 1 if low == high else 2
        table[mask] = count
    return table
