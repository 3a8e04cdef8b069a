"""Cube-bot kernels: each mirrors a cube bot of ``bots/cube.py`` operation for operation.

Both questions see the board from the doubler (on roll, before rolling), as the game loop
asks them.  ``view`` is the CubeView as int64s: see ``VIEW_*``.
"""

from __future__ import annotations

from .checker import _pips, is_race
from .compile import jit

NONE, ALWAYS_TAKE, NEVER_TAKE, PIPDIFF, KEITH, THORP = 0, 1, 2, 3, 4, 5
CUBE_CODES = {
    "none": NONE, "always-take": ALWAYS_TAKE, "never-take": NEVER_TAKE,
    "pipdiff": PIPDIFF, "keith": KEITH, "thorp": THORP,
}
TAKE, DROP, BEAVER = 0, 1, 2

VIEW_VALUE, VIEW_CENTRED, VIEW_MAX, VIEW_BEAVER, VIEW_JACOBY, VIEW_MATCH_TO, VIEW_AWAY, VIEW_OPP_AWAY, VIEW_POST_CRAWFORD = range(9)
VIEW_SIZE = 9


@jit
def _reached(value, percent, amount, pips):
    if percent != 0.0:
        return 100.0 * amount >= value * pips
    return amount >= value


@jit
def _within(value, percent, amount, pips):
    if percent != 0.0:
        return 100.0 * amount <= value * pips
    return amount <= value


@jit
def keith_count(board, turned):
    """Keith count of the side on roll, or of its opponent when ``turned``."""
    sign = -1 if turned else 1
    count = 0
    for point in range(1, 26):
        n = sign * board[25 - point if turned else point]
        if n > 0:
            count += point * n
    p1 = sign * board[24 if turned else 1]
    p2 = sign * board[23 if turned else 2]
    p3 = sign * board[22 if turned else 3]
    count += 2 * max(p1 - 1, 0)
    count += max(p2 - 1, 0)
    count += max(p3 - 3, 0)
    for point in range(4, 7):
        if sign * board[25 - point if turned else point] <= 0:
            count += 1
    return count


@jit
def thorp_count(board, turned):
    sign = -1 if turned else 1
    pips = 0
    on_board = 0
    for point in range(1, 26):
        n = sign * board[25 - point if turned else point]
        if n > 0:
            pips += point * n
            on_board += n
    occupied = 0
    for point in range(1, 7):
        if sign * board[25 - point if turned else point] > 0:
            occupied += 1
    return pips + 2 * on_board + max(sign * board[24 if turned else 1], 0) - occupied


@jit
def _excess_at_most(code, board, margin):
    if code == KEITH:
        return 8.0 * keith_count(board, False) - 7.0 * keith_count(board, True) <= 7.0 * margin
    leader = thorp_count(board, False)
    trailer = thorp_count(board, True)
    if leader > 30:
        return 11.0 * leader - 10.0 * trailer <= 10.0 * margin
    return float(leader - trailer) <= margin


@jit
def _excess_at_least(code, board, margin):
    if code == KEITH:
        return 8.0 * keith_count(board, False) - 7.0 * keith_count(board, True) >= 7.0 * margin
    leader = thorp_count(board, False)
    trailer = thorp_count(board, True)
    if leader > 30:
        return 11.0 * leader - 10.0 * trailer >= 10.0 * margin
    return float(leader - trailer) >= margin


@jit
def offer_double(code, params, board, view):
    if code == PIPDIFF:
        if params[6] != 0.0 and not is_race(board):
            return False
        own, opponent = _pips(board)
        lead = opponent - own
        if view[VIEW_CENTRED] != 0:
            return _reached(params[0], params[1], lead, own)
        return _reached(params[2], params[3], lead, own)
    if code == KEITH or code == THORP:
        if not is_race(board):
            return False
        return _excess_at_most(code, board, params[0] if view[VIEW_CENTRED] != 0 else params[1])
    return False


@jit
def respond(code, params, board, view):
    """TAKE, DROP or BEAVER; ``board`` is seen from the doubler."""
    if code == NEVER_TAKE:
        return DROP
    if code == PIPDIFF:
        if params[6] != 0.0 and not is_race(board):
            return TAKE
        own, opponent = _pips(board)
        lead = opponent - own
        if not _within(params[4], params[5], lead, own):
            return DROP
        # params[9] is beaver_on: params[7] alone cannot say off, 0 pips is a real threshold
        if params[9] != 0.0 and view[VIEW_BEAVER] != 0 and _within(params[7], params[8], lead, own):
            return BEAVER
        return TAKE
    if code == KEITH or code == THORP:
        if not is_race(board):
            return TAKE
        return TAKE if _excess_at_least(code, board, params[2]) else DROP
    return TAKE
