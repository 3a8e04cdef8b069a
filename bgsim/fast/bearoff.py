"""Numba kernels that build the bear-off databases (``bgsim.bearoff`` reads and keeps them).

Positions are numbered as ``bgsim/bearoff_numbering.py`` says (GNU Backgammon's numbering); its
constants are the kernels' too.  The kernels live in ``bgsim/fast`` so that the stale-cache
guard of ``compile.py`` covers them.  The database files carry a hash of this file and of the
numbering: a table built by other code is rebuilt (``bgsim/bearoff/store.py``).
"""

from __future__ import annotations

import numpy as np
from numba import prange

from ..bearoff_numbering import (  # noqa: F401 (the kernels' constants, re-exported)
    BINOMIALS, CENTRED, MAX_CHECKERS, MAX_ROLLS, OPPONENT_OWNS, OWNED, POINTS, ROLL_WEIGHTS, ROLLS,
    position_count,
)
from .board import checkers_on
from .compile import alloc_jit, jit, parallel_jit, stack_empty
from .moves import BOARD_BYTES, generate, new_buffers, play_before


@jit
def rank(counts, binomials):
    """GNU Backgammon's bear-off number of a position (PositionBearoff with 15 checkers): the
    kernels' own ``bgsim.bearoff_numbering.rank``.

    The position is written as a row of bits: for each point its checkers as 0s and a 1 that
    closes it; the number is that bit pattern's index among all patterns with six 1s."""
    j = POINTS - 1
    for point in range(POINTS):
        j += counts[point]
    bits = np.int64(1) << j
    for point in range(POINTS - 1):
        j -= counts[point] + 1
        bits |= np.int64(1) << j
    n = MAX_CHECKERS + POINTS
    r = POINTS
    number = 0
    while n > r:
        if bits & (np.int64(1) << (n - 1)):
            number += binomials[n - 1, r]
            r -= 1
        n -= 1
    return number


@alloc_jit
def all_positions(checkers, binomials):
    """``positions[number]`` = the six counts of every position of up to ``checkers`` checkers."""
    total = binomials[checkers + POINTS, POINTS]
    positions = np.zeros((total, POINTS), dtype=np.int8)
    counts = np.zeros(POINTS, dtype=np.int64)
    filled = 0
    # odometer over counts[0..5] with sum <= checkers
    while True:
        number = rank(counts, binomials)
        for point in range(POINTS):
            positions[number, point] = counts[point]
        filled += 1
        point = 0
        while point < POINTS:
            counts[point] += 1
            used = 0
            for p in range(POINTS):
                used += counts[p]
            if used <= checkers:
                break
            counts[point] = 0
            point += 1
        if point == POINTS:
            break
    if filled != total:
        raise ValueError("bear-off numbering is not a bijection")
    return positions


@jit
def _can_move(counts, point, die):
    """Whether a checker on ``point`` (1..6) may move ``die`` pips: inside the home board, or
    off exactly, or off from the highest occupied point with a larger die.  Every checker is
    home, so bearing off is always allowed."""
    if counts[point - 1] == 0:
        return False
    if point >= die:
        return True
    for higher in range(point + 1, POINTS + 1):
        if counts[higher - 1] > 0:
            return False
    return True


@jit
def _move(counts, point, die):
    counts[point - 1] -= 1
    if point > die:
        counts[point - die - 1] += 1


@jit
def _is_empty(counts):
    for point in range(POINTS):
        if counts[point] != 0:
            return False
    return True


@jit
def _record(counts, binomials, seen, stamp, out, found):
    number = rank(counts, binomials)
    if seen[number] != stamp:
        seen[number] = stamp
        out[found] = number
        found += 1
    return found


@alloc_jit
def plays(counts, die1, die2, binomials, seen, stamp, out):
    """The distinct positions a roll can leave, as numbers in ``out``; returns how many.

    In a pure bear-off every die can be played while a checker is left (a die either bears a
    checker off or moves one down), so a play uses all the dice unless the side is off first.
    Doubles walk sources in non-increasing order (a move from a higher point never depends on
    one from a lower point, so every result is still reached); other rolls try both orders.
    ``seen`` marks numbers already found in this call (``stamp`` is unique per call)."""
    found = 0
    work = np.empty(POINTS, dtype=np.int64)
    after = np.empty(POINTS, dtype=np.int64)
    if die1 == die2:
        # explicit stack of sources for up to four moves of one die
        sources = np.zeros(4, dtype=np.int64)
        saved = np.zeros((5, POINTS), dtype=np.int64)
        for p in range(POINTS):
            saved[0, p] = counts[p]
        depth = 0
        sources[0] = POINTS + 1
        while depth >= 0:
            sources[depth] -= 1
            source = sources[depth]
            if source < 1:
                depth -= 1
                continue
            for p in range(POINTS):
                work[p] = saved[depth, p]
            if not _can_move(work, source, die1):
                continue
            _move(work, source, die1)
            if depth == 3 or _is_empty(work):
                found = _record(work, binomials, seen, stamp, out, found)
                continue
            for p in range(POINTS):
                saved[depth + 1, p] = work[p]
            depth += 1
            sources[depth] = source + 1  # the next move starts at the same source or below
        return found
    for order in range(2):
        first = die1 if order == 0 else die2
        second = die2 if order == 0 else die1
        for source1 in range(1, POINTS + 1):
            for p in range(POINTS):
                work[p] = counts[p]
            if not _can_move(work, source1, first):
                continue
            _move(work, source1, first)
            if _is_empty(work):
                found = _record(work, binomials, seen, stamp, out, found)
                continue
            for source2 in range(1, POINTS + 1):
                if not _can_move(work, source2, second):
                    continue
                for p in range(POINTS):
                    after[p] = work[p]
                _move(after, source2, second)
                found = _record(after, binomials, seen, stamp, out, found)
    return found


@alloc_jit
def successors(positions, rolls, binomials):
    """Every position's plays for each of the 21 rolls, packed: with ``k = position * 21 +
    roll``, the plays are ``targets[starts[k]:starts[k + 1]]`` (none for position 0)."""
    total = positions.shape[0]
    nrolls = rolls.shape[0]
    seen = np.full(binomials[MAX_CHECKERS + POINTS, POINTS], -1, dtype=np.int64)
    out = np.empty(4096, dtype=np.int64)
    counts = np.empty(POINTS, dtype=np.int64)
    sizes = np.zeros(total * nrolls, dtype=np.int64)
    stamp = 0
    for position in range(1, total):
        for p in range(POINTS):
            counts[p] = positions[position, p]
        for roll in range(nrolls):
            sizes[position * nrolls + roll] = plays(counts, rolls[roll, 0], rolls[roll, 1], binomials, seen, stamp, out)
            stamp += 1
    starts = np.zeros(total * nrolls + 1, dtype=np.int64)
    for k in range(total * nrolls):
        starts[k + 1] = starts[k] + sizes[k]
    targets = np.empty(starts[-1], dtype=np.int32)
    for position in range(1, total):
        for p in range(POINTS):
            counts[p] = positions[position, p]
        for roll in range(nrolls):
            k = position * nrolls + roll
            found = plays(counts, rolls[roll, 0], rolls[roll, 1], binomials, seen, stamp, out)
            stamp += 1
            for i in range(found):
                targets[starts[k] + i] = out[i]
    return starts, targets


@alloc_jit
def pips_of(positions):
    pips = np.zeros(positions.shape[0], dtype=np.int64)
    for position in range(positions.shape[0]):
        for p in range(POINTS):
            pips[position] += (p + 1) * positions[position, p]
    return pips


@alloc_jit
def one_sided(positions, starts, targets, weights, full):
    """Distributions of the number of rolls to bear off, for every position.

    ``rolls_off[n, k]``: the chance that position ``n`` needs exactly ``k`` rolls to bear off
    all its checkers, playing each roll to minimise the expected number of rolls (GNU
    Backgammon's one-sided rule).  ``first_off[n, k]``: the same for bearing off the first
    checker, playing to minimise its expected number; 0 rolls for positions with fewer than
    ``full`` checkers (one is off already).  Ties between plays go to the first found."""
    total = positions.shape[0]
    nrolls = weights.shape[0]
    pips = pips_of(positions)
    order = np.argsort(pips, kind="mergesort")  # every play lowers the pip count
    rolls_off = np.zeros((total, MAX_ROLLS), dtype=np.float64)
    first_off = np.zeros((total, MAX_ROLLS), dtype=np.float64)
    mean = np.zeros(total, dtype=np.float64)
    first_mean = np.zeros(total, dtype=np.float64)
    rolls_off[0, 0] = 1.0
    for position in range(total):
        on_board = 0
        for p in range(POINTS):
            on_board += positions[position, p]
        if on_board < full:
            first_off[position, 0] = 1.0
    for i in range(1, total):
        position = order[i]
        on_board = 0
        for p in range(POINTS):
            on_board += positions[position, p]
        gammon = on_board == full
        for roll in range(nrolls):
            k = position * nrolls + roll
            best = -1
            best_first = -1
            for t in range(starts[k], starts[k + 1]):
                target = targets[t]
                if best < 0 or mean[target] < mean[best]:
                    best = target
                if gammon and (best_first < 0 or first_mean[target] < first_mean[best_first]):
                    best_first = target
            w = weights[roll]
            mean[position] += w * (1.0 + mean[best])
            for r in range(MAX_ROLLS - 1):
                rolls_off[position, r + 1] += w * rolls_off[best, r]
            if gammon:
                first_mean[position] += w * (1.0 + first_mean[best_first])
                for r in range(MAX_ROLLS - 1):
                    first_off[position, r + 1] += w * first_off[best_first, r]
        mean[position] /= 36.0
        for r in range(MAX_ROLLS):
            rolls_off[position, r] /= 36.0
        if gammon:
            first_mean[position] /= 36.0
            for r in range(MAX_ROLLS):
                first_off[position, r] /= 36.0
    return rolls_off, first_off, mean


@alloc_jit
def by_pips(positions):
    """The positions ordered by pip count, for filling pairs by increasing total pips:
    ``(pips, order, first_with, most)`` with ``first_with[p]`` the first index in ``order`` with
    at least ``p`` pips and ``most`` the largest pip count."""
    total = positions.shape[0]
    pips = pips_of(positions)
    order = np.argsort(pips, kind="mergesort")
    sorted_pips = pips[order]
    most = sorted_pips[-1]
    first_with = np.zeros(most + 2, dtype=np.int64)
    for p in range(most + 2):
        i = 0
        while i < total and sorted_pips[i] < p:
            i += 1
        first_with[p] = i
    return pips, order, first_with, most


@parallel_jit
def two_sided(positions, starts, targets, weights):
    """Exact values of every pair (side on roll, opponent) of positions, both not empty.

    Four tables, from the side on roll, in units of the current cube (no gammons: both sides
    have borne off a checker):

    * ``win``: the chance to win, each roll played to maximise it (no cube);
    * ``rolls_centred``: money equity of rolling now (not doubling) with the cube centred;
    * ``rolls_owned``: the same with the cube owned by the side on roll;
    * ``opponent_owns``: money equity with the cube owned by the opponent (no cube decision).

    The equity with the cube centred is ``max(rolls_centred, min(1, 2 * opponent_owns))``: a
    double is taken at twice the value with the cube turned to the taker, or passed for 1; the
    same with ``rolls_owned`` when the side on roll owns the cube.  Each cube state plays its
    own best play.  Every play lowers the pips of the side that moves, so the pairs are filled
    by increasing total pips, and pairs with the same total are independent."""
    total = positions.shape[0]
    nrolls = weights.shape[0]
    pips, order, first_with, top = by_pips(positions)
    win = np.zeros((total, total), dtype=np.float64)
    rolls_centred = np.zeros((total, total), dtype=np.float64)
    rolls_owned = np.zeros((total, total), dtype=np.float64)
    opponent_owns = np.zeros((total, total), dtype=np.float64)
    # an empty side has won: the pairs (n, 0) are the opponent's win, never looked up
    for level in range(2, 2 * top + 1):
        for i in prange(1, total):
            a = order[i]
            rest = level - pips[a]
            if rest < 1 or rest > top:
                continue
            for j in range(first_with[rest], first_with[rest + 1]):
                b = order[j]
                w_sum = 0.0
                c_sum = 0.0
                o_sum = 0.0
                x_sum = 0.0
                for roll in range(nrolls):
                    k = a * nrolls + roll
                    best_w = -2.0
                    best_c = -2.0
                    best_o = -2.0
                    best_x = -2.0
                    for t in range(starts[k], starts[k + 1]):
                        after = targets[t]
                        if after == 0:
                            w = 1.0
                            c = 1.0
                            o = 1.0
                            x = 1.0
                        else:
                            w = 1.0 - win[b, after]
                            their_x = opponent_owns[b, after]
                            # the opponent's equities, on roll: centred, owned by them
                            their_c = max(rolls_centred[b, after], min(1.0, 2.0 * their_x))
                            their_o = max(rolls_owned[b, after], min(1.0, 2.0 * their_x))
                            c = -their_c
                            o = -their_x  # we own it: they are on roll with the cube ours
                            x = -their_o  # they own it and are on roll
                        if w > best_w:
                            best_w = w
                        if c > best_c:
                            best_c = c
                        if o > best_o:
                            best_o = o
                        if x > best_x:
                            best_x = x
                    wt = weights[roll]
                    w_sum += wt * best_w
                    c_sum += wt * best_c
                    o_sum += wt * best_o
                    x_sum += wt * best_x
                win[a, b] = w_sum / 36.0
                rolls_centred[a, b] = c_sum / 36.0
                rolls_owned[a, b] = o_sum / 36.0
                opponent_owns[a, b] = x_sum / 36.0
    return win, rolls_centred, rolls_owned, opponent_owns


# --- the perfect bear-off player -------------------------------------------------------------
# bgsim.bearoff.player is the reference; these kernels make the same choice from the same
# tables with the same float64 operations in the same order.  ``rolls`` and ``first`` are the
# one-sided ``rolls_off`` and ``first_off`` tables flattened (MAX_ROLLS per position), ``win``
# the two-sided win table of up to ``checkers`` a side, flattened (row: side on roll).

WINS = 3.0  # bearing off the last checker: above every other play's score (at most 2)


@jit
def _home_number(board, own, binomials):
    """Bear-off number of one side's home board of a 26-slot board (``own``: the side on roll,
    points 1..6; else the opponent, points 24..19)."""
    counts = stack_empty(POINTS, np.int64)  # every count set below
    for point in range(1, POINTS + 1):
        if own:
            counts[point - 1] = max(board[point], 0)
        else:
            counts[point - 1] = max(-board[25 - point], 0)
    return rank(counts, binomials)


@jit
def is_pure_bearoff(board):
    """Every checker of both sides in its home board (or off): no own checker on 7..25, no
    opponent checker on 0..18."""
    for slot in range(7, 26):
        if board[slot] > 0:
            return False
    for slot in range(0, 19):
        if board[slot] < 0:
            return False
    return True


@jit
def one_sided_equity(rolls, first, on_roll, other):
    """Cubeless equity of position ``on_roll`` (on roll) against ``other`` by the one-sided
    convolution (``OneSided.probabilities``), summed in one fixed order: win when the other
    side needs at least as many rolls, a gammon when it has not borne off its first checker
    by then; gammoned when ours is still on after the other side's last roll."""
    mine = on_roll * MAX_ROLLS
    theirs = other * MAX_ROLLS
    their_at_least = 0.0  # P(other needs >= n rolls), n falling
    their_first_at_least = 0.0
    my_first_beyond = 0.0  # P(our first checker needs > n rolls)
    win = 0.0
    win_gammon = 0.0
    lose_gammon = 0.0
    for n in range(MAX_ROLLS - 1, -1, -1):
        their_at_least += rolls[theirs + n]
        their_first_at_least += first[theirs + n]
        win += rolls[mine + n] * their_at_least
        win_gammon += rolls[mine + n] * their_first_at_least
        lose_gammon += rolls[theirs + n] * my_first_beyond
        my_first_beyond += first[mine + n]
    return 2.0 * win - 1.0 + win_gammon - lose_gammon


@jit
def bearoff_choose(board, plays, keys, count, rolls, first, win, checkers):
    """Index of the play the perfect bear-off player picks from the buffers, or -1 when the
    position (before the play) is not a pure bear-off of both sides.

    Both sides with at most ``checkers``: the play that leaves the opponent the smallest
    two-sided chance to win, exact perfect cubeless play; otherwise the play that leaves the
    opponent the lowest one-sided cubeless equity (gammons included).  Bearing off the last
    checker beats everything.  Ties: canonical order."""
    if not is_pure_bearoff(board):
        return -1
    own_on, opponent_on = checkers_on(board)
    two = own_on <= checkers and opponent_on <= checkers
    size = BINOMIALS[checkers + POINTS, POINTS]
    opponent = _home_number(board, False, BINOMIALS)
    best = -1
    best_score = 0.0
    for index in range(count):
        after = _home_number(plays[index], True, BINOMIALS)
        if after == 0:
            score = WINS
        elif two:
            score = 1.0 - win[opponent * size + after]
        else:
            score = -one_sided_equity(rolls, first, opponent, after)
        if best < 0 or score > best_score or (score == best_score and play_before(plays, keys, index, best)):
            best = index
            best_score = score
    return best


@alloc_jit
def bearoff_pick(board, die1, die2, rolls, first, win, checkers):
    """The board ``bearoff_choose`` leaves after a roll, through the engine's own move
    generator (plays in table order, not canonical); for the tests that hold the two players
    to the same choices.  Empty when the position is not covered."""
    plays, keys, slots, table, order = new_buffers()
    work = np.zeros(BOARD_BYTES, dtype=np.int8)
    for slot in range(26):
        work[slot] = board[slot]
    count = generate(work, die1, die2, plays, keys, slots, table, order)
    index = bearoff_choose(work, plays, keys, count, rolls, first, win, checkers)
    if index < 0:
        return np.zeros(0, dtype=np.int8)
    return plays[index, :26].copy()


# --- match play: the two-sided database at a match score ------------------------------------
# ``bgsim.bearoff.match`` reads these tables.  Values are match-winning chances (MWC) of the
# side on roll, not points: a cube of c ends the game with c points to the winner, and the
# score after it is read from the match equity table (``win_values``/``lose_values``).


@jit
def match_pair(mine, theirs, k, i, j, a, their_place, own_win, their_cash, starts, targets, weights):
    """One pair of the match tables at cube level ``k``: ``mine[k, state, i, j]`` for the side on
    roll at position ``a`` (place ``i`` in ``mine``) against the opponent at place ``j``, from
    ``theirs[.., j, their_place[after]]``, the opponent on roll after each play ``after``.
    ``own_win``: the MWC of winning the cube now; ``their_cash``: the opponent's of a pass of its
    double.  The one arithmetic of the whole tables (``match_two_sided``) and of the values one
    decision reads (``bgsim.fast.exact``), so the two agree bit for bit."""
    c_sum = 0.0
    w_sum = 0.0
    x_sum = 0.0
    for roll in range(weights.shape[0]):
        kk = a * weights.shape[0] + roll
        best_c = -1.0
        best_w = -1.0
        best_x = -1.0
        for t in range(starts[kk], starts[kk + 1]):
            after = targets[t]
            if after == 0:
                c = own_win
                w = c
                x = c
            else:
                m = their_place[after]
                their_double = min(theirs[k + 1, OPPONENT_OWNS, j, m], their_cash)
                # the opponent on roll: cube centred, ours, or theirs
                c = 1.0 - max(theirs[k, CENTRED, j, m], their_double)
                w = 1.0 - theirs[k, OPPONENT_OWNS, j, m]
                x = 1.0 - max(theirs[k, OWNED, j, m], their_double)
            if c > best_c:
                best_c = c
            if w > best_w:
                best_w = w
            if x > best_x:
                best_x = x
        weight = weights[roll]
        c_sum += weight * best_c
        w_sum += weight * best_w
        x_sum += weight * best_x
    mine[k, CENTRED, i, j] = c_sum / 36.0
    mine[k, OWNED, i, j] = w_sum / 36.0
    mine[k, OPPONENT_OWNS, i, j] = x_sum / 36.0


@parallel_jit
def match_two_sided(positions, starts, targets, weights, win, win_values, lose_values):
    """Match-winning chances of every pair (side on roll, opponent) of positions at one score,
    for every cube level and owner, each side playing perfectly for its match.

    The score is that of the two sides ``A`` and ``B``: orientation 0 has ``A`` on roll, 1 has
    ``B``.  Cube levels ``k = 0..K`` are the cube values ``1, 2, 4, ..., 2**K``; the last level
    is dead (``2**K`` is at least what both sides need: any win ends the match).
    ``win_values[o, k]``/``lose_values[o, k]``: the MWC of the side on roll in orientation ``o``
    once it has won/lost ``2**k`` points (from the match equity table).  ``win``: the two-sided
    cubeless chance to win, which is also perfect match play when the cube is dead.

    Returns ``values[k, state, o, a, b]``: the MWC of rolling now without a cube decision with
    the cube at level ``k`` centred (state 0), owned by the side on roll (1) or by the opponent
    (2).  Before rolling, a side that may double has ``max(rolls, min(double/take, double/pass))``
    with double/take ``values[k + 1, 2, o, a, b]`` (the taker owns the doubled cube) and
    double/pass ``win_values[o, k]``; the taker takes when double/take is the smaller.  Filled
    level by level from the dead cube down, and within a level by increasing total pips (both
    orientations together: each depends on the other's smaller pairs), as ``two_sided``."""
    total = positions.shape[0]
    levels = win_values.shape[1]
    top = levels - 1
    values = np.zeros((levels, 3, 2, total, total), dtype=np.float64)
    for o in range(2):
        for a in range(1, total):
            for b in range(1, total):
                dead = win[a, b] * win_values[o, top] + (1.0 - win[a, b]) * lose_values[o, top]
                for state in range(3):
                    values[top, state, o, a, b] = dead
    pips, order, first_with, most = by_pips(positions)
    identity = np.arange(total)  # a position's place in the table: itself
    for k in range(top - 1, -1, -1):
        for level in range(2, 2 * most + 1):
            for i in prange(1, total):
                a = order[i]
                rest = level - pips[a]
                if rest < 1 or rest > most:
                    continue
                for j in range(first_with[rest], first_with[rest + 1]):
                    b = order[j]
                    for o in range(2):
                        # orientation o on roll, the opponent's (1 - o) after our play
                        match_pair(values[:, :, o], values[:, :, 1 - o], k, a, b, a, identity,
                                   win_values[o, k], win_values[1 - o, k], starts, targets, weights)
    return values
