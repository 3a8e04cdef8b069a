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
