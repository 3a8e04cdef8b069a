"""Cube-bot kernels: each mirrors a cube bot of ``bots/cube.py`` or ``bots/nn.py`` operation for
operation, and the answers every cube kernel gives.

Both questions see the board from the doubler (on roll, before rolling), as the game loop
asks them.  ``view`` is the CubeView as int64s: see ``VIEW_*`` in ``bgsim.fast.match_cube``.
Each bot's kernels are ``<prefix>_offers`` (True: double) and ``<prefix>_answer`` (``TAKE``,
``DROP`` or ``BEAVER``), named by its layout in ``bgsim/layouts.py`` and called by
``offer_double`` and ``respond``, the dispatch generated from that table
(``bgsim.fast.dispatch``), with exactly its arguments (docs/ARCHITECTURE.md, adding a bot).
What a bot's capabilities put in front of ``<prefix>_offers`` is the contract of
``bgsim/layouts.py`` (``bgsim.fast.match_cube.forced_at_score``).
"""

from __future__ import annotations

import numpy as np

from .. import layouts
from .board import is_race, pip_counts
from .compile import inline_jit, jit, stack_empty
from .match_cube import (
    VIEW_AWAY, VIEW_BEAVER, VIEW_CENTRED, VIEW_JACOBY, VIEW_MATCH_TO, VIEW_OPP_AWAY, VIEW_POST_CRAWFORD,
    VIEW_VALUE, match_equities, race_chance, score_in_table, shift,
)
from .nn import CUBE_HIDDEN, CUBE_X, OUTPUTS, UNIT, _net, evaluate, nn_cube_equities

KEITH = layouts.KEITH.code

NO_DOUBLE, DOUBLE = 0, 1  # offer_double's answers
TAKE, DROP, BEAVER = 0, 1, 2  # respond's answers

PIPDIFF_DOUBLE = layouts.PIPDIFF.param("double")
PIPDIFF_DOUBLE_PERCENT = layouts.PIPDIFF.param("double_percent")
PIPDIFF_REDOUBLE = layouts.PIPDIFF.param("redouble")
PIPDIFF_REDOUBLE_PERCENT = layouts.PIPDIFF.param("redouble_percent")
PIPDIFF_TAKE = layouts.PIPDIFF.param("take")
PIPDIFF_TAKE_PERCENT = layouts.PIPDIFF.param("take_percent")
PIPDIFF_RACE_ONLY = layouts.PIPDIFF.param("race_only")
PIPDIFF_BEAVER = layouts.PIPDIFF.param("beaver")
PIPDIFF_BEAVER_PERCENT = layouts.PIPDIFF.param("beaver_percent")
PIPDIFF_BEAVER_ON = layouts.PIPDIFF.param("beaver_on")
PIPDIFF_SCORE_AWARE = layouts.PIPDIFF.param("score_aware")
# the three pip rules read the match equity table at the same places of one layout of arrays
MET_PRE = layouts.PIPDIFF.array("met_pre")
MET_POST = layouts.PIPDIFF.array("met_post")
assert layouts.PIPDIFF.arrays == layouts.KEITH.arrays == layouts.THORP.arrays
# keith and thorp share the kernel of a race count and so the layout
COUNT_DOUBLE = layouts.KEITH.param("double")
COUNT_REDOUBLE = layouts.KEITH.param("redouble")
COUNT_TAKE = layouts.KEITH.param("take")
COUNT_SCORE_AWARE = layouts.KEITH.param("score_aware")
NN_SCORE_AWARE = layouts.NN_CUBE.param("score_aware")
NN_MET_PRE = layouts.NN_CUBE.array("met_pre")
NN_MET_POST = layouts.NN_CUBE.array("met_post")
assert layouts.KEITH.params == layouts.THORP.params


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
def _counts(code, board):
    """(the doubler's count, the taker's) of keith or thorp."""
    if code == KEITH:
        return keith_count(board, False), keith_count(board, True)
    return thorp_count(board, False), thorp_count(board, True)


@jit
def _threshold_count(code, own, margin):
    """The taker's count at which the doubler's excess is exactly ``margin`` (bots.cube)."""
    if code == KEITH:
        return float(own + own // 7) - margin
    if own > 30:
        return (11.0 * own - 10.0 * margin) / 10.0
    return own - margin


@jit
def _lead_of(value, percent, own):
    if percent != 0.0:
        return value * own / 100.0
    return value


@jit
def _shift(offsets, float64s, view):
    return shift(float64s, offsets[MET_PRE], offsets[MET_POST], view[VIEW_MATCH_TO], view[VIEW_VALUE],
                 view[VIEW_AWAY], view[VIEW_OPP_AWAY], view[VIEW_POST_CRAWFORD] != 0)


@jit
def _nn_match_equities(params, offsets, float64s, int32s, int64s, board, view):
    """bots.match_cube.match_equities on the net's probabilities (bots.nn.evaluate: k / UNIT)."""
    hidden = np.int64(params[CUBE_HIDDEN])
    tables, bias, race, weights2, bias2, sigmoid, contact = _net(hidden, offsets, int32s, int64s)
    raw = stack_empty(OUTPUTS, np.int64)
    evaluate(board, tables, bias, race, weights2, bias2, sigmoid, contact, raw)
    probabilities = stack_empty(OUTPUTS, np.float64)
    for k in range(OUTPUTS):
        probabilities[k] = raw[k] / float(UNIT)
    return match_equities(probabilities, params[CUBE_X], float64s, offsets[NN_MET_PRE], offsets[NN_MET_POST],
                          view[VIEW_VALUE], view[VIEW_CENTRED] != 0, view[VIEW_AWAY], view[VIEW_OPP_AWAY],
                          view[VIEW_POST_CRAWFORD] != 0)


@jit
def _excess_at_most(code, board, margin):
    if code == KEITH:  # the roller's count plus a seventh of it rounded down (bots.cube.Keith)
        roller = keith_count(board, False)
        return roller + roller // 7 - keith_count(board, True) <= margin
    leader = thorp_count(board, False)
    trailer = thorp_count(board, True)
    if leader > 30:
        return 11.0 * leader - 10.0 * trailer <= 10.0 * margin
    return float(leader - trailer) <= margin


@jit
def _excess_at_least(code, board, margin):
    if code == KEITH:  # the roller's count plus a seventh of it rounded down (bots.cube.Keith)
        roller = keith_count(board, False)
        return roller + roller // 7 - keith_count(board, True) >= margin
    leader = thorp_count(board, False)
    trailer = thorp_count(board, True)
    if leader > 30:
        return 11.0 * leader - 10.0 * trailer >= 10.0 * margin
    return float(leader - trailer) >= margin


# --- the kernels named by the layouts -------------------------------------------------------
# Inlined into the dispatch: compiled as functions of their own, pipdiff's two added about a
# second to the cold compile, for no speed.


@inline_jit
def always_take_offers(code, params, offsets, float64s, int32s, int64s, board, view):
    """bots.cube.AlwaysTake (and NoCube): never doubles."""
    return False


@inline_jit
def always_take_answer(code, params, offsets, float64s, int32s, int64s, board, view):
    return TAKE


never_take_offers = always_take_offers  # bots.cube.NeverTake: never doubles either


@inline_jit
def never_take_answer(code, params, offsets, float64s, int32s, int64s, board, view):
    return DROP


@inline_jit
def pipdiff_offers(code, params, offsets, float64s, int32s, int64s, board, view):
    if params[PIPDIFF_RACE_ONLY] != 0.0 and not is_race(board):
        return False
    own, opponent = pip_counts(board)
    lead = opponent - own
    if params[PIPDIFF_SCORE_AWARE] != 0.0 and view[VIEW_MATCH_TO] != 0:
        if view[VIEW_CENTRED] != 0:
            threshold = _lead_of(params[PIPDIFF_DOUBLE], params[PIPDIFF_DOUBLE_PERCENT], own)
        else:
            threshold = _lead_of(params[PIPDIFF_REDOUBLE], params[PIPDIFF_REDOUBLE_PERCENT], own)
        return race_chance(own, own + lead) >= race_chance(own, own + threshold) + _shift(offsets, float64s, view)
    if view[VIEW_CENTRED] != 0:
        return _reached(params[PIPDIFF_DOUBLE], params[PIPDIFF_DOUBLE_PERCENT], lead, own)
    return _reached(params[PIPDIFF_REDOUBLE], params[PIPDIFF_REDOUBLE_PERCENT], lead, own)


@inline_jit
def pipdiff_answer(code, params, offsets, float64s, int32s, int64s, board, view):
    if params[PIPDIFF_RACE_ONLY] != 0.0 and not is_race(board):
        return TAKE
    own, opponent = pip_counts(board)
    lead = opponent - own
    if params[PIPDIFF_SCORE_AWARE] != 0.0 and view[VIEW_MATCH_TO] != 0:  # no beaver in a match
        threshold = _lead_of(params[PIPDIFF_TAKE], params[PIPDIFF_TAKE_PERCENT], own)
        if race_chance(own, own + lead) > race_chance(own, own + threshold) + _shift(offsets, float64s, view):
            return DROP
        return TAKE
    if not _within(params[PIPDIFF_TAKE], params[PIPDIFF_TAKE_PERCENT], lead, own):
        return DROP
    # beaver_on, because the beaver threshold alone cannot say off: 0 pips is a real threshold
    if (params[PIPDIFF_BEAVER_ON] != 0.0 and view[VIEW_BEAVER] != 0
            and _within(params[PIPDIFF_BEAVER], params[PIPDIFF_BEAVER_PERCENT], lead, own)):
        return BEAVER
    return TAKE


@inline_jit
def count_offers(code, params, offsets, float64s, int32s, int64s, board, view):
    """bots.cube.Keith and bots.cube.Thorp (``code`` says which)."""
    if not is_race(board):
        return False
    margin = params[COUNT_DOUBLE] if view[VIEW_CENTRED] != 0 else params[COUNT_REDOUBLE]
    if params[COUNT_SCORE_AWARE] != 0.0 and view[VIEW_MATCH_TO] != 0:
        own, other = _counts(code, board)
        return race_chance(own, other) >= race_chance(own, _threshold_count(code, own, margin)) \
            + _shift(offsets, float64s, view)
    return _excess_at_most(code, board, margin)


@inline_jit
def count_answer(code, params, offsets, float64s, int32s, int64s, board, view):
    if not is_race(board):
        return TAKE
    if params[COUNT_SCORE_AWARE] != 0.0 and view[VIEW_MATCH_TO] != 0:
        own, other = _counts(code, board)
        dropped = race_chance(own, other) > race_chance(own, _threshold_count(code, own, params[COUNT_TAKE])) \
            + _shift(offsets, float64s, view)
        return DROP if dropped else TAKE
    return TAKE if _excess_at_least(code, board, params[COUNT_TAKE]) else DROP


@inline_jit
def nn_offers(code, params, offsets, float64s, int32s, int64s, board, view):
    """bots.nn.NNCube: double when double/take and double/pass beat no double."""
    if score_in_table(params[NN_SCORE_AWARE], view):
        no_double, double_take, double_pass = _nn_match_equities(params, offsets, float64s, int32s, int64s,
                                                                 board, view)
        return min(double_take, double_pass) > no_double
    centred, owned, theirs = nn_cube_equities(
        params, offsets, int32s, int64s, board, view[VIEW_JACOBY] != 0 and view[VIEW_CENTRED] != 0)
    no_double = centred if view[VIEW_CENTRED] != 0 else owned
    return min(2.0 * theirs, 1.0) > no_double


@inline_jit
def nn_answer(code, params, offsets, float64s, int32s, int64s, board, view):
    """bots.nn.NNCube: drop above +1 for the doubler, beaver below 0."""
    if score_in_table(params[NN_SCORE_AWARE], view):
        _, double_take, double_pass = _nn_match_equities(params, offsets, float64s, int32s, int64s, board, view)
        return DROP if double_take > double_pass else TAKE
    _, _, theirs = nn_cube_equities(
        params, offsets, int32s, int64s, board, view[VIEW_JACOBY] != 0 and view[VIEW_CENTRED] != 0)
    double_take = 2.0 * theirs
    if double_take > 1.0:
        return DROP
    if view[VIEW_BEAVER] != 0 and double_take < 0.0:
        return BEAVER
    return TAKE
