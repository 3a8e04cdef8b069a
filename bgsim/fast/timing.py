"""A kernel for ``bgsim bench``: legal-play generations per second, nothing else timed."""

from __future__ import annotations

import numpy as np

from .compile import alloc_jit
from .moves import BOARD_BYTES, generate, new_buffers


@alloc_jit
def generate_every_roll(boards, repeats):
    """Generate the plays of all 36 rolls from every board, ``repeats`` times; total plays."""
    plays, keys, slots, table, order = new_buffers()
    board = np.zeros(BOARD_BYTES, dtype=np.int8)
    total = 0
    for _ in range(repeats):
        for index in range(boards.shape[0]):
            board[:26] = boards[index, :26]
            for die1 in range(1, 7):
                for die2 in range(1, 7):
                    total += generate(board, die1, die2, plays, keys, slots, table, order)
    return total
