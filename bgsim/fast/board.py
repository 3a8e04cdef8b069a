"""Small facts of a board that several kernels need: pip counts, checkers on, the race test, shots.

The one fast home of these facts (the reference's are in ``bgsim/board.py`` and
``bots/heuristic.py``).  ``board`` is int8[26] from the side on roll; the ``(plays, row)``
forms read row ``row`` of the play buffer in place, because making a row view for every play an
evaluation bot scores costs more than the fact itself.
"""

from __future__ import annotations

from .compile import inline_jit, jit


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
