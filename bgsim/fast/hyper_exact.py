"""The ``exact`` bots in hypergammon (``bots/exact.py``), in Numba: the same choices from the same
numbers.

Both read the decision table of the hypergammon being played (``bgsim.hypergammon.decision_table``:
per state the no-double equities of the centred and the owned cube, the equity with the cube
the opponent's, the centred no-double equity under the Jacoby rule, the cubeless equity), handed
over as array data when the engine packs the players for that game (``bgsim.layouts.packing_variant``),
with its checkers as a parameter.  The game loop of the variants tells them the variant and the
cube of the turn in board bytes 31 and 30 (``bgsim.variants``, ``bgsim.fast.game``).

* checker play (``exact_choose``, ``bots.exact.ExactChecker``): in the hypergammon of its table,
  the play with the highest equity in the turn's cube state (``bots.exact.play_value``), the first
  in canonical order on a tie; in any other game the perfect bear-off player's play of a pure
  bear-off, else ``nn``'s;
* the cube (``hyper_cube``, asked by ``bgsim.fast.exact``'s kernels in money play): no double,
  double/take and the answer as ``bots.exact.Exact`` decides them from ``hypergammon_equities``.
"""

from __future__ import annotations

import numpy as np

from .. import layouts
from ..variants import (CUBE_BYTE, CUBE_CENTRED_JACOBY, CUBE_DEAD, CUBE_OWNED, CUBE_THEIRS, DEFINITIONS, VARIANT_BYTE,
                        VARIANTS)
from .checker import bearoff_first
from .compile import jit, stack_empty
from .hypergammon import BAR, BINOMIALS, POINTS, _points, rank
from .moves import play_before
from .nn import nn_choose as net_choose

EXACT_CHECKER = layouts.EXACT_CHECKER
PERFECT_BEAROFF = EXACT_CHECKER.param("perfect_bearoff")
BEAROFF_SIZE = EXACT_CHECKER.param("bearoff_size")
HYPER_CHECKERS = EXACT_CHECKER.param("hyper_checkers")
ONE_SIDED = EXACT_CHECKER.array("one_sided")
TWO_SIDED_WIN = EXACT_CHECKER.array("two_sided_win")
HYPER_VALUES = EXACT_CHECKER.array("hyper_values")
DECISIONS = 5  # bgsim.hypergammon.DECISION_VALUES: centred, owned, opponent, jacoby, cubeless
# the checkers of each variant's code if it is hypergammon, else 0
HYPERGAMMON_CHECKERS = np.array([DEFINITIONS[name].checkers if name.startswith("hypergammon") else 0
                                 for name in VARIANTS], dtype=np.int64)


@jit
def playing(board, checkers):
    """Whether the game on ``board`` is the hypergammon of a table of ``checkers`` (0: no table)."""
    return checkers > 0 and HYPERGAMMON_CHECKERS[board[VARIANT_BYTE]] == checkers


@jit
def state_after(plays, play, checkers):
    """The state ``play`` leaves with the opponent on roll: its position's number times the
    positions of a side, plus the mover's (``bgsim.hypergammon.state_of`` of the result turned)."""
    own = stack_empty(POINTS, np.int64)
    theirs = stack_empty(POINTS, np.int64)
    for point in range(POINTS):
        own[point] = 0
        theirs[point] = 0
    own[BAR] = plays[play, 25]
    theirs[BAR] = -plays[play, 0]
    for slot in range(1, 25):
        count = plays[play, slot]
        if count > 0:
            own[slot - 1] = count
        elif count < 0:
            theirs[24 - slot] = -count
    positions = BINOMIALS[POINTS + checkers, checkers]
    return rank(theirs, checkers, BINOMIALS) * positions + rank(own, checkers, BINOMIALS)


@jit
def play_value(table, plays, play, checkers, state):
    """bots.exact.play_value: the equity of ``play`` in the cube state ``state``."""
    on = 0
    for slot in range(1, 26):
        if plays[play, slot] > 0:
            on += plays[play, slot]
    if on == 0:
        if state == CUBE_CENTRED_JACOBY:
            return 1.0
        return _points(plays, play, checkers)
    row = state_after(plays, play, checkers) * DECISIONS
    centred = table[row]
    owned = table[row + 1]
    theirs = table[row + 2]
    jacoby = table[row + 3]
    cubeless = table[row + 4]
    cash = min(1.0, 2.0 * theirs)
    if state == CUBE_DEAD:
        return -cubeless
    if state == CUBE_CENTRED_JACOBY:
        return -max(jacoby, cash)
    if state == CUBE_OWNED:
        return -theirs
    if state == CUBE_THEIRS:
        return -max(owned, cash)
    return -max(centred, cash)


@jit
def exact_choose(code, params, offsets, float64s, int32s, int64s, board, plays, keys, count, order,
                 streams, row):
    """bots.exact.ExactChecker.choose."""
    checkers = np.int64(params[HYPER_CHECKERS])
    if playing(board, checkers):
        size = position_count_of(checkers)
        start = offsets[HYPER_VALUES]
        table = float64s[start:start + size * size * DECISIONS]
        state = board[CUBE_BYTE]
        best = -1
        best_value = 0.0
        for index in range(count):
            value = play_value(table, plays, index, checkers, state)
            if best < 0 or value > best_value or (value == best_value and play_before(plays, keys, index, best)):
                best = index
                best_value = value
        return best
    perfect = bearoff_first(PERFECT_BEAROFF, BEAROFF_SIZE, ONE_SIDED, TWO_SIDED_WIN, params, offsets, float64s,
                            board, plays, keys, count)
    if perfect >= 0:
        return perfect
    return net_choose(params, offsets, int32s, int64s, board, plays, keys, count, order)


@jit
def position_count_of(checkers):
    return BINOMIALS[POINTS + checkers, checkers]


@jit
def hyper_cube(params, offsets, float64s, board, checkers_at, values_at, jacoby_centred):
    """``(covered, no double centred, no double owned, double/take)`` of ``board`` (the side on
    roll) from the hypergammon table at the places ``checkers_at`` (parameter) and ``values_at``
    (array) of the bot's layout, as ``bots.exact.hypergammon_equities``; ``covered`` False when the
    game is not that table's."""
    checkers = np.int64(params[checkers_at])
    if not playing(board, checkers):
        return False, 0.0, 0.0, 0.0
    own = stack_empty(POINTS, np.int64)
    theirs = stack_empty(POINTS, np.int64)
    for point in range(POINTS):
        own[point] = 0
        theirs[point] = 0
    own[BAR] = board[25]
    theirs[BAR] = -board[0]
    for slot in range(1, 25):
        if board[slot] > 0:
            own[slot - 1] = board[slot]
        elif board[slot] < 0:
            theirs[24 - slot] = -board[slot]
    size = position_count_of(checkers)
    row = (rank(own, checkers, BINOMIALS) * size + rank(theirs, checkers, BINOMIALS)) * DECISIONS
    start = offsets[values_at]
    centred = float64s[start + row + (3 if jacoby_centred else 0)]
    return True, centred, float64s[start + row + 1], 2.0 * float64s[start + row + 2]
