"""Small facts of a board that several kernels need: pip counts, checkers on, the race test, shots.

The one fast home of these facts (the reference's are in ``bgsim/board.py`` and
``bots/heuristic.py``).  ``board`` is int8[26] from the side on roll; the ``(plays, row)``
forms read row ``row`` of the play buffer in place, because making a row view for every play an
evaluation bot scores costs more than the fact itself.
"""

from __future__ import annotations

import numpy as np

from ..net_format import CONTACT_INPUTS, escape_table
from .compile import inline_jit, jit

_ESCAPES = escape_table()
_SIDE = len(CONTACT_INPUTS)


def _roll_masks():
    """(distance mask, weight) of each of the 21 rolls: the distances the roll moves one
    checker (bots.features.shots_at's), and 1 for a double, 2 for the others."""
    masks, weights = [], []
    for first in range(1, 7):
        for second in range(first, 7):
            if first == second:
                mask = sum(1 << (first * steps) for steps in range(1, 5) if first * steps <= 24)
            else:
                mask = (1 << first) | (1 << second) | (1 << (first + second))
            masks.append(mask)
            weights.append(1 if first == second else 2)
    return np.array(masks, dtype=np.int64), np.array(weights, dtype=np.int64)


_ROLL_MASKS, _ROLL_WEIGHTS = _roll_masks()


@inline_jit
def pip_counts(board):
    """(own pips, opponent pips), as ``bgsim.board.pip_counts``."""
    own = 0
    opponent = 0
    for slot in range(26):
        count = board[slot]
        if count > 0:
            own += slot * count
        elif count < 0:
            opponent += (25 - slot) * -count
    return own, opponent


@inline_jit
def checkers_on(board):
    """(own checkers, opponent checkers) still on the board (bar included)."""
    own = 0
    opponent = 0
    for slot in range(26):
        if board[slot] > 0:
            own += board[slot]
        elif board[slot] < 0:
            opponent -= board[slot]
    return own, opponent


@jit
def is_race(board):
    """``bgsim.board.is_race``: every own checker past every opponent checker (or a side has none)."""
    highest_own = 0
    for slot in range(1, 26):
        if board[slot] > 0:
            highest_own = slot
    lowest_opponent = 99
    for slot in range(24, -1, -1):
        if board[slot] < 0:
            lowest_opponent = slot
    if highest_own == 0 or lowest_opponent == 99:
        return True
    return highest_own < lowest_opponent


@inline_jit
def survey(plays, row):
    """One pass over a play's board: (own pips, opponent pips, own on board, contact, behind).

    ``behind`` has bit q set for an opponent checker on point q (0 is its bar), for ``shots``.
    """
    own = 0
    opponent = 0
    on_board = 0
    highest_own = 0
    lowest_opponent = 25
    behind = 0
    for slot in range(26):
        count = plays[row, slot]
        if count > 0:
            own += slot * count
            on_board += count
            highest_own = slot
        elif count < 0:
            opponent += (25 - slot) * -count
            if lowest_opponent == 25 and slot < 25:
                lowest_opponent = slot
            behind |= 1 << slot
    return own, opponent, on_board, highest_own >= lowest_opponent, behind


@inline_jit
def shots(plays, row, behind):
    """(exposed blots, hitting rolls of 36), as ``bots.features.shots_at``, with bit masks.

    Bit q of ``behind`` marks an opponent checker on point q (0 is its bar); bit d of ``reach``
    marks a distance d from some opponent checker up to some own blot.  No array is allocated:
    this runs for every play an evaluation bot scores.
    """
    reach = 0
    exposed = 0
    for point in range(1, 25):
        if plays[row, point] == 1:
            below = behind & ((1 << point) - 1)
            if below != 0:
                exposed += 1
                for source in range(0, point):
                    if (below >> source) & 1:
                        reach |= 1 << (point - source)
    if exposed == 0:
        return 0, 0
    hits = 0
    for first in range(1, 7):
        for second in range(1, 7):
            if first == second:
                hit = False
                for steps in range(1, 5):
                    if first * steps <= 24 and (reach >> (first * steps)) & 1:
                        hit = True
            else:
                hit = (((reach >> first) & 1) != 0 or ((reach >> second) & 1) != 0
                       or ((reach >> (first + second)) & 1) != 0)
            if hit:
                hits += 1
    return exposed, hits


@inline_jit
def _shots(reach):
    """Rolls of 36 that move some checker one of ``reach``'s distances (bit d: d pips)."""
    shots = 0
    for roll in range(21):
        shots += _ROLL_WEIGHTS[roll] * ((reach & _ROLL_MASKS[roll]) != 0)
    return shots


@inline_jit
def _longest_run(bits):
    """The longest run of consecutive set bits."""
    run = 0
    while bits != 0:  # each step shortens every run by one
        bits &= bits >> 1
        run += 1
    return run


@inline_jit
def _bit_index(bit):
    """The index of a single set bit (a population count of the bits below it)."""
    below = bit - 1
    below = below - ((below >> 1) & 0x5555555555555555)
    below = (below & 0x3333333333333333) + ((below >> 2) & 0x3333333333333333)
    below = (below + (below >> 4)) & 0x0F0F0F0F0F0F0F0F
    return ((below * 0x0101010101010101) & 0x7FFFFFFFFFFFFFFF) >> 56


@inline_jit
def contact_inputs(board, out):
    """The ``nn`` net's contact inputs (``bgsim.net_format.CONTACT_INPUTS``) of ``board`` (side
    on roll), own then the opponent's, into ``out[:CONTACT]`` (int64), as
    ``bots.features.contact_inputs``.  One pass without branches builds bit masks of both sides
    in our numbering; a shift then gives each blot's distances to the checkers behind it (the
    evaluation asks this of every play, so branches a board's counts decide are avoided)."""
    own = 0  # bit p: an own checker on p (25 is our bar)
    made = 0  # bit p: two or more own checkers on point p
    held = 0  # bit p: two or more opponent checkers on point p
    held_mirrored = 0  # bit 25 - p: the same, mirrored
    opponent = 0  # bit q: an opponent checker on q (0 is its bar)
    opponent_mirrored = 0  # bit 24 - q: the same, mirrored
    own_blots = 0
    opponent_blots = 0
    for slot in range(26):
        count = np.int64(board[slot])
        own |= np.int64(count > 0) << slot
        made |= np.int64(count >= 2) << slot
        own_blots |= np.int64(count == 1) << slot
        opponent |= np.int64(count < 0) << slot
        opponent_mirrored |= np.int64(count < 0) << (24 - slot if slot <= 24 else 0)
        opponent_blots |= np.int64(count == -1) << slot
        held |= np.int64(count <= -2) << slot
        held_mirrored |= np.int64(count <= -2) << (25 - slot)
    points = (1 << 25) - 2  # points 1..24
    made &= points
    own_blots &= points
    held &= points
    held_mirrored &= points  # bit 25 - p lies in 1..24 exactly when p does
    opponent &= (1 << 25) - 1  # slots 0..24 (slot 25, our bar, never holds one of theirs)
    opponent_mirrored &= (1 << 25) - 1
    opponent_blots &= points
    # our rearmost checker (0: none) and theirs (25: none), in our numbering
    rear = _bit_index(_highest_bit(own)) if own != 0 else 0
    opponent_rear = _bit_index(opponent & -opponent) if opponent != 0 else 25
    exposed = 0
    reach = 0  # bit d: some opponent checker is d pips below some own blot
    blots = own_blots & ~((np.int64(2) << opponent_rear) - 1)  # those with one behind them
    while blots != 0:
        bit = blots & -blots
        reach |= opponent_mirrored >> (24 - _bit_index(bit))
        exposed += 1
        blots ^= bit
    opponent_exposed = 0
    opponent_reach = 0  # bit d: some own checker is d pips above some opponent blot
    blots = opponent_blots & ((np.int64(1) << rear) - 1)
    while blots != 0:
        bit = blots & -blots
        opponent_reach |= own >> _bit_index(bit)
        opponent_exposed += 1
        blots ^= bit
    out[0] = exposed
    out[1] = _shots(reach)
    out[2] = _longest_run(made)
    # the 12 points in front of the rearmost checker, bit d - 1 for d pips ahead
    out[3] = _ESCAPES[(held_mirrored >> (26 - rear)) & 4095] if rear >= 1 else 36
    out[_SIDE] = opponent_exposed
    out[_SIDE + 1] = _shots(opponent_reach)
    out[_SIDE + 2] = _longest_run(held)
    out[_SIDE + 3] = _ESCAPES[(made >> (opponent_rear + 1)) & 4095] if opponent_rear <= 24 else 36


@inline_jit
def _highest_bit(bits):
    """The highest set bit of ``bits`` > 0, alone."""
    bits |= bits >> 1
    bits |= bits >> 2
    bits |= bits >> 4
    bits |= bits >> 8
    bits |= bits >> 16
    bits |= bits >> 32
    return bits - (bits >> 1)
