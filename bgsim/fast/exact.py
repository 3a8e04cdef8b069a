"""The ``exact`` cube bot (``bots/exact.py``) in Numba: the same decisions from the same numbers.

Money: hypergammon's solution in its games (``bgsim.fast.hyper_exact``), the two-sided bear-off
tables' cubeful equities where they hold the position, else the one-sided database's chances (or
the ``nn`` net's) through Janowski's formulas.  The tables
reach the kernels as array data (``bgsim.layouts.EXACT``): only those the bot's parameters make
it read, the one-sided and cubeless win tables the very objects the bear-off player hands over.

Match play: the exact match tables of ``bgsim.bearoff.match`` hold hundreds of MB per score,
too much to hand over.  So the kernel computes what one decision reads, on demand: the value
of a pair (side on roll ``a``, opponent ``b``) depends only on the pairs reachable from it, so
:func:`match_cube_values` runs ``bgsim.fast.bearoff.match_two_sided``'s recursion restricted to
``desc(A) x desc(B)`` (the decision side on roll) and ``desc(B) x desc(A)`` (its opponent on
roll), cube levels from the dead one down to the decision's, pairs by increasing total pips.
Each pair gets the same arithmetic from the same inputs as in the full table (the same rolls in
the same order, the same plays in the same order, the same win and lose values from the match
equity table), so its value is the full table's, bit for bit.
"""

from __future__ import annotations

import numpy as np

from .. import layouts
from .bearoff import (
    BINOMIALS, MAX_CHECKERS, MAX_ROLLS, OPPONENT_OWNS, POINTS, ROLL_WEIGHTS, _home_number, is_pure_bearoff,
    match_pair,
)
from .bearoff import CENTRED as CENTRED_STATE
from .bearoff import OWNED as OWNED_STATE
from .board import checkers_on, is_race, pip_counts
from .compile import alloc_jit, jit
from .cube import BEAVER, DROP, TAKE
from .hyper_exact import hyper_cube
from .match_cube import (
    VIEW_AWAY, VIEW_BEAVER, VIEW_CENTRED, VIEW_JACOBY, VIEW_OPP_AWAY, VIEW_POST_CRAWFORD, VIEW_VALUE, equity,
    match_equities, score_in_table,
)
from .nn import OUTPUTS, UNIT, _net, evaluate, janowski

EXACT = layouts.EXACT
HIDDEN = EXACT.param("hidden")
TABLES = EXACT.param("tables")
ESTIMATE_NN = EXACT.param("estimate_nn")
SCORE_AWARE = EXACT.param("score_aware")
BEAROFF_CHECKERS = EXACT.param("bearoff_checkers")
MATCH_CHECKERS = EXACT.param("match_checkers")
MET_PRE = EXACT.array("met_pre")
MET_POST = EXACT.array("met_post")
ONE_SIDED = EXACT.array("bearoff_one_sided")
WIN = EXACT.array("bearoff_win")
ROLLS_CENTRED = EXACT.array("rolls_centred")
ROLLS_OWNED = EXACT.array("rolls_owned")
THEIRS = EXACT.array("opponent_owns")
MATCH_WIN = EXACT.array("match_win")
MATCH_STARTS = EXACT.array("match_starts")
MATCH_TARGETS = EXACT.array("match_targets")
MATCH_PIPS = EXACT.array("match_pips")
HYPER_CHECKERS = EXACT.param("hyper_checkers")
HYPER_VALUES = EXACT.array("hyper_values")
# the net first, in the nn bots' order, so that bgsim.fast.nn._net reads it
assert EXACT.arrays[:len(layouts.NN_ARRAYS)] == layouts.NN_ARRAYS

ONE_SIDED_POSITIONS = int(BINOMIALS[MAX_CHECKERS + POINTS, POINTS])
ONE_SIDED_EFFICIENCY = 0.6  # bots.exact.ONE_SIDED_EFFICIENCY
TWO_SIDED_EFFICIENCY = 0.6  # bots.exact.TWO_SIDED_EFFICIENCY
CONTACT_EFFICIENCY = 0.68  # bots.gnubg_bots.cube_efficiency
NROLLS = 21


def match_successors(checkers: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(starts, targets, pips)`` of every position of up to ``checkers`` checkers:
    ``bgsim.bearoff.match.successors``, the lists the match tables are built from."""
    from ..bearoff import match

    return match.successors(checkers)


# --- money and the estimates: bots.exact.cube_equities ------------------------------------

@alloc_jit
def one_sided_probabilities(one_sided, own, opponent):
    """bgsim.bearoff.OneSided.probabilities, in numpy's order: the tails are cumulative sums
    from the last slot, and each dot product sums from slot 0 up (numpy's dot of a reversed
    view is a plain sequential loop).  ``one_sided``: rolls_off then first_off, flattened."""
    rolls = one_sided[:ONE_SIDED_POSITIONS * MAX_ROLLS]
    first = one_sided[ONE_SIDED_POSITIONS * MAX_ROLLS:]
    mine = own * MAX_ROLLS
    theirs = opponent * MAX_ROLLS
    theirs_at_least = np.empty(MAX_ROLLS)
    their_first_at_least = np.empty(MAX_ROLLS)
    my_first_at_least = np.empty(MAX_ROLLS)
    a = 0.0
    b = 0.0
    c = 0.0
    for n in range(MAX_ROLLS - 1, -1, -1):
        a += rolls[theirs + n]
        b += first[theirs + n]
        c += first[mine + n]
        theirs_at_least[n] = a
        their_first_at_least[n] = b
        my_first_at_least[n] = c
    win = 0.0
    for n in range(MAX_ROLLS):
        win += rolls[mine + n] * theirs_at_least[n]
    win_gammon = 0.0
    for n in range(MAX_ROLLS):
        win_gammon += rolls[mine + n] * their_first_at_least[n]
    lose_gammon = 0.0
    for n in range(MAX_ROLLS - 1):
        lose_gammon += rolls[theirs + n] * my_first_at_least[n + 1]
    probabilities = np.zeros(OUTPUTS)
    probabilities[0] = min(win, 1.0)
    probabilities[1] = win_gammon
    probabilities[3] = lose_gammon
    return probabilities


@alloc_jit
def cube_equities(params, offsets, float64s, int32s, int64s, board, jacoby_centred, at_score):
    """bots.exact.cube_equities: (centred, owned, double/take, probabilities, efficiency).
    The two-sided table's cubeless win is read only ``at_score`` (only match play asks it, and
    only a score-aware bot hands the table over)."""
    probabilities = np.zeros(OUTPUTS)
    if params[TABLES] != 0.0 and not at_score:  # hypergammon's solution (money play)
        covered, centred, owned, double_take = hyper_cube(params, offsets, float64s, board, HYPER_CHECKERS,
                                                          HYPER_VALUES, jacoby_centred)
        if covered:
            return centred, owned, double_take, probabilities, TWO_SIDED_EFFICIENCY
    estimate_nn = params[ESTIMATE_NN] != 0.0
    use_net = True
    efficiency = 0.0
    if is_pure_bearoff(board):
        own_on, opponent_on = checkers_on(board)
        own = _home_number(board, True, BINOMIALS)
        opponent = _home_number(board, False, BINOMIALS)
        checkers = np.int64(params[BEAROFF_CHECKERS])
        if params[TABLES] != 0.0 and own_on <= checkers and opponent_on <= checkers:
            index = own * BINOMIALS[checkers + POINTS, POINTS] + opponent
            if at_score:
                probabilities[0] = float64s[offsets[WIN] + index]
            return (float64s[offsets[ROLLS_CENTRED] + index], float64s[offsets[ROLLS_OWNED] + index],
                    2.0 * float64s[offsets[THEIRS] + index], probabilities, TWO_SIDED_EFFICIENCY)
        if not estimate_nn:
            start = offsets[ONE_SIDED]
            probabilities = one_sided_probabilities(
                float64s[start:start + 2 * ONE_SIDED_POSITIONS * MAX_ROLLS], own, opponent)
            efficiency = ONE_SIDED_EFFICIENCY
            use_net = False
    if use_net:
        hidden = np.int64(params[HIDDEN])
        tables, bias, race, weights2, bias2, sigmoid, contact = _net(hidden, offsets, int32s, int64s)
        raw = np.empty(OUTPUTS, dtype=np.int64)
        evaluate(board, tables, bias, race, weights2, bias2, sigmoid, contact, raw)
        for k in range(OUTPUTS):
            probabilities[k] = raw[k] / float(UNIT)
        if not is_race(board):
            efficiency = CONTACT_EFFICIENCY
        else:
            efficiency = min(0.7, max(0.6, 0.55 + 0.00125 * pip_counts(board)[0]))
    centred, owned, theirs = janowski(probabilities[0], probabilities[1], probabilities[2],
                                      probabilities[3], probabilities[4], efficiency, jacoby_centred)
    return centred, owned, 2.0 * theirs, probabilities, efficiency


# --- match play: bgsim.bearoff.match.match_cube, on demand ----------------------------------

@jit
def dead_level(away, opponent_away):
    """bgsim.bearoff.match.dead_level."""
    level = 0
    highest = max(away, opponent_away)
    while (1 << level) < highest:
        level += 1
    return level


@alloc_jit
def _descendants(start, starts, targets, size):
    """Position ``start`` and every position its plays can reach (not 0, all off): a mask."""
    seen = np.zeros(size, dtype=np.bool_)
    stack = np.empty(size, dtype=np.int64)
    seen[start] = True
    stack[0] = start
    top = 1
    while top > 0:
        top -= 1
        position = stack[top]
        for t in range(starts[position * NROLLS], starts[(position + 1) * NROLLS]):
            after = targets[t]
            if after != 0 and not seen[after]:
                seen[after] = True
                stack[top] = after
                top += 1
    return seen


@alloc_jit
def _by_pips(seen, pips):
    """The positions of a mask sorted by pips, ``first[p]`` the first with ``p`` pips or more,
    and each position's place in that list (-1 when not in it)."""
    size = seen.shape[0]
    most = 0
    count = 0
    for position in range(size):
        if seen[position]:
            count += 1
            most = max(most, pips[position])
    ordered = np.empty(count, dtype=np.int64)
    first = np.zeros(most + 2, dtype=np.int64)
    place = np.full(size, -1, dtype=np.int64)
    i = 0
    for p in range(most + 1):
        first[p] = i
        for position in range(size):
            if seen[position] and pips[position] == p:
                ordered[i] = position
                place[position] = i
                i += 1
    first[most + 1] = i
    return ordered, first, place


@alloc_jit
def match_cube_values(own, opponent, cube_value, centred, away, opponent_away, post_crawford,
                      float64s, pre, post, win, starts, targets, pips):
    """bgsim.bearoff.match.match_cube for the side on roll at position ``own`` against
    ``opponent`` (bear-off numbers, both in the tables and not 0), cube ``cube_value`` centred
    or owned by the side on roll, at a score within the match equity table (``pre``/``post``
    its starts in ``float64s``).  ``win``: the cubeless win table of the match tables' size,
    flattened; ``starts``/``targets``/``pips``: ``match_successors`` of that size.

    Returns ``(may_double, no_double, double_take, double_pass)``; where the side may not
    double (a dead cube) only ``may_double`` (False) means anything."""
    first = min(away, opponent_away)
    second = max(away, opponent_away)
    post_crawford = post_crawford and (first == 1) != (second == 1)
    top = dead_level(first, second)
    level = 0
    while (1 << (level + 1)) <= cube_value:
        level += 1
    if level >= top:
        return False, 0.0, 0.0, 0.0
    # win and lose values of each side on roll per cube level (the match table's rows)
    levels = top - level + 1
    mine_win = np.empty(levels)
    mine_lose = np.empty(levels)
    their_win = np.empty(levels)
    their_lose = np.empty(levels)
    for k in range(levels):
        points = 1 << (level + k)
        mine_win[k] = equity(float64s, pre, post, away - points, opponent_away, post_crawford)
        mine_lose[k] = equity(float64s, pre, post, away, opponent_away - points, post_crawford)
        their_win[k] = equity(float64s, pre, post, opponent_away - points, away, post_crawford)
        their_lose[k] = equity(float64s, pre, post, opponent_away, away - points, post_crawford)
    size = pips.shape[0]
    ours, our_first, our_place = _by_pips(_descendants(own, starts, targets, size), pips)
    others, their_first, their_place = _by_pips(_descendants(opponent, starts, targets, size), pips)
    n_ours = ours.shape[0]
    n_others = others.shape[0]
    # values[k - level, state, on roll, opponent]: A = our side on roll, B = theirs
    values_a = np.empty((levels, 3, n_ours, n_others))
    values_b = np.empty((levels, 3, n_others, n_ours))
    dead = levels - 1
    for i in range(n_ours):
        for j in range(n_others):
            p = win[ours[i] * size + others[j]]
            value = p * mine_win[dead] + (1.0 - p) * mine_lose[dead]
            for state in range(3):
                values_a[dead, state, i, j] = value
            p = win[others[j] * size + ours[i]]
            value = p * their_win[dead] + (1.0 - p) * their_lose[dead]
            for state in range(3):
                values_b[dead, state, j, i] = value
    most_ours = our_first.shape[0] - 2
    most_others = their_first.shape[0] - 2
    for k in range(dead - 1, -1, -1):
        for total in range(2, most_ours + most_others + 1):
            for i in range(n_ours):
                rest = total - pips[ours[i]]
                if rest < 1 or rest > most_others:
                    continue
                for j in range(their_first[rest], their_first[rest + 1]):
                    match_pair(values_a, values_b, k, i, j, ours[i], our_place, mine_win[k], their_win[k],
                               starts, targets, ROLL_WEIGHTS)
                    match_pair(values_b, values_a, k, j, i, others[j], their_place, their_win[k], mine_win[k],
                               starts, targets, ROLL_WEIGHTS)
    i = our_place[own]
    j = their_place[opponent]
    state = CENTRED_STATE if centred else OWNED_STATE
    return True, values_a[0, state, i, j], values_a[1, OPPONENT_OWNS, i, j], mine_win[0]


@alloc_jit
def _exact_at_score(params, offsets, float64s, int32s, int64s, board, view):
    """bots.exact.Exact._exact_at_score: (covered, may_double, no double, double/take,
    double/pass); ``covered`` False where the match tables do not hold the position."""
    if not is_pure_bearoff(board):
        return False, False, 0.0, 0.0, 0.0
    own_on, opponent_on = checkers_on(board)
    checkers = np.int64(params[MATCH_CHECKERS])
    if own_on > checkers or opponent_on > checkers:
        return False, False, 0.0, 0.0, 0.0
    size = BINOMIALS[checkers + POINTS, POINTS]
    start = offsets[MATCH_STARTS]
    starts = int64s[start:start + size * NROLLS + 1]
    start = offsets[MATCH_TARGETS]
    targets = int32s[start:start + starts[size * NROLLS]]
    start = offsets[MATCH_PIPS]
    pips = int64s[start:start + size]
    start = offsets[MATCH_WIN]
    win = float64s[start:start + size * size]
    may_double, no_double, double_take, double_pass = match_cube_values(
        _home_number(board, True, BINOMIALS), _home_number(board, False, BINOMIALS), view[VIEW_VALUE],
        view[VIEW_CENTRED] != 0, view[VIEW_AWAY], view[VIEW_OPP_AWAY], view[VIEW_POST_CRAWFORD] != 0,
        float64s, offsets[MET_PRE], offsets[MET_POST], win, starts, targets, pips)
    return True, may_double, no_double, double_take, double_pass


@alloc_jit
def _match_equities(params, offsets, float64s, int32s, int64s, board, view):
    _, _, _, probabilities, efficiency = cube_equities(params, offsets, float64s, int32s, int64s, board,
                                                       False, True)
    return match_equities(probabilities, efficiency, float64s, offsets[MET_PRE], offsets[MET_POST],
                          view[VIEW_VALUE], view[VIEW_CENTRED] != 0, view[VIEW_AWAY], view[VIEW_OPP_AWAY],
                          view[VIEW_POST_CRAWFORD] != 0)


@alloc_jit
def exact_offers(code, params, offsets, float64s, int32s, int64s, board, view):
    """bots.exact.Exact.wants_double."""
    at_score = score_in_table(params[SCORE_AWARE], view)
    if params[TABLES] != 0.0 and at_score:
        covered, may_double, no_double, double_take, double_pass = _exact_at_score(
            params, offsets, float64s, int32s, int64s, board, view)
        if covered:
            return may_double and min(double_take, double_pass) > no_double
    if at_score:
        no_double, double_take, double_pass = _match_equities(params, offsets, float64s, int32s, int64s,
                                                              board, view)
        return min(double_take, double_pass) > no_double
    centred, owned, double_take, _, _ = cube_equities(
        params, offsets, float64s, int32s, int64s, board,
        view[VIEW_JACOBY] != 0 and view[VIEW_CENTRED] != 0, False)
    no_double = centred if view[VIEW_CENTRED] != 0 else owned
    return min(double_take, 1.0) > no_double


@alloc_jit
def exact_answer(code, params, offsets, float64s, int32s, int64s, board, view):
    """bots.exact.Exact.respond (``board`` from the doubler)."""
    at_score = score_in_table(params[SCORE_AWARE], view)
    if params[TABLES] != 0.0 and at_score:
        covered, may_double, no_double, double_take, double_pass = _exact_at_score(
            params, offsets, float64s, int32s, int64s, board, view)
        if covered:
            # a dead cube (any win already ends the match) costs the taker nothing
            return DROP if may_double and not double_take <= double_pass else TAKE
    if at_score:
        _, double_take, double_pass = _match_equities(params, offsets, float64s, int32s, int64s, board, view)
        return DROP if double_take > double_pass else TAKE
    _, _, double_take, _, _ = cube_equities(
        params, offsets, float64s, int32s, int64s, board,
        view[VIEW_JACOBY] != 0 and view[VIEW_CENTRED] != 0, False)
    if not double_take <= 1.0:
        return DROP
    if view[VIEW_BEAVER] != 0 and double_take < 0.0:
        return BEAVER
    return TAKE
