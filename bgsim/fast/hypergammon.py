"""Numba kernels that solve hypergammon (``bgsim.hypergammon`` keeps and reads the solution).

A side's position is where its ``checkers`` (1 to 3) stand: on points 1..24 or the bar, the
rest off.  Positions are numbered as GNU Backgammon numbers them (``PositionBearoff(board, 25,
checkers)`` in its positionid.c, the numbering of its ``makehyper`` files): ``counts[0..23]``
for points 1..24, ``counts[24]`` for the bar, and every position of up to ``k`` checkers below
``C(25 + k, k)``; position 0 has every checker off.  A *state* is the side on roll's position
``u`` and its opponent's ``t`` (each in its own numbering), number ``u * positions + t``.

The values of a state, from the side on roll, per unit of the cube, in :data:`VALUES` order:

* ``win``, ``win_gammon``, ``win_backgammon``, ``lose_gammon``, ``lose_backgammon``: the
  cubeless chances (gammons include backgammons), each roll played for the cubeless money
  equity, the first such play in canonical order on a tie (within :data:`TIE`);
* ``centred``, ``owned``, ``opponent``, ``jacoby``: the money equities of not doubling with the
  cube centred, of not doubling with the cube owned by the side on roll, of rolling with the
  cube owned by the opponent (no cube decision), and of not doubling with the cube centred under
  the Jacoby rule (a gammon counts single until the cube is turned).  Each plays its own best
  play.  After the best cube action the side on roll has ``max(ND, min(1, 2 * opponent))``,
  ``ND`` the no-double value of its cube: a double is taken at twice the value with the cube the
  taker's, or passed for 1.  No limit on the cube.

The recursion (one *sweep*): a state's values are the mean over the 21 rolls (in 36ths) of the
best play's, each play's read from the state it leaves with the opponent on roll (negated, the
chances turned: our win is their loss); a play that bears off the last checker scores 1, 2 or 3
(gammon: the loser has borne off none; backgammon: and has a checker on the bar or in the
winner's home board; 1 for ``jacoby``); a roll with no legal play passes the turn, and the
opponent gets its own cube decision.  The plays are ``bgsim.fast.moves.generate``'s, the game
loop's own, generated once per build: a *successor table* (``successor_table``) keeps every
state's plays as the states they reach, in canonical order, and each sweep reads them from it
(``sweep_level``; ``state_values`` generates them for a single state, the same numbers).  States
are swept by increasing total pip count: a play that hits nothing lowers the
total, so it reads a state already updated in this sweep (Gauss-Seidel); the states of one total
are computed from the values before the sweep and written together (Jacobi within a level), so
that a sweep's result does not depend on how its levels are split among threads.  A race (no
contact) is exact after one sweep; hits make the rest converge geometrically.

``gnubg_dance``: the convention of GNU Backgammon's makehyper (1.07) for a roll with no legal
play, kept to check its files: it takes the state with the opponent on roll as it is, negated
value by value (no cube decision for the opponent, and the owned and opponent-owned values
swapped back unchanged).  The true recursion is the default.

The database files carry a hash of this file (``bgsim.hypergammon.database.code_hash``): a
solution computed by other code is rebuilt.
"""

from __future__ import annotations

import numpy as np

from .compile import alloc_jit, jit, stack_empty
from .moves import BOARD_BYTES, MAX_PLAYS, canonical_order, generate, new_buffers, play_before

POINTS = 25  # points 1..24 and the bar
BAR = 24  # its index in a side's counts
MAX_CHECKERS = 3
LOCATIONS = 26  # off, points 1..24, bar: a checker's place in a key (0 = off, 25 = bar)
VALUES = ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon",
          "centred", "owned", "opponent", "jacoby")
NVALUES = 9
WIN, WIN_GAMMON, WIN_BACKGAMMON, LOSE_GAMMON, LOSE_BACKGAMMON = 0, 1, 2, 3, 4
CENTRED, OWNED, OPPONENT, JACOBY = 5, 6, 7, 8
PROBABILITIES = 5
# Plays whose cubeless equities differ by at most this are tied: the chances are the first one's
# in canonical order.  Equal plays often differ in their chances (a win for a gammon), and their
# equities, equal on paper, come out of float64 arithmetic a rounding apart either way.
TIE = 1e-12

# The 21 distinct rolls and their weights in 36ths (bgsim.fast.bearoff's order).
ROLLS = np.array([(d1, d2) for d1 in range(1, 7) for d2 in range(1, d1 + 1)], dtype=np.int64)
ROLL_WEIGHTS = np.array([1.0 if d1 == d2 else 2.0 for d1, d2 in ROLLS], dtype=np.float64)


def _binomials() -> np.ndarray:
    size = POINTS + MAX_CHECKERS + 1
    table = np.zeros((size, size), dtype=np.int64)
    for n in range(size):
        table[n, 0] = 1
        for r in range(1, n + 1):
            table[n, r] = table[n - 1, r - 1] + table[n - 1, r]
    return table


BINOMIALS = _binomials()


def position_count(checkers: int) -> int:
    """Positions of a side with up to ``checkers`` checkers on points 1..24 and the bar."""
    return int(BINOMIALS[POINTS + checkers, checkers])


@jit
def rank(counts, checkers, binomials):
    """GNU Backgammon's number of a side's position (``PositionBearoff(counts, 25, checkers)``):
    the position as a row of bits, for each point its checkers as 0s and a 1 that closes it, and
    the number that bit pattern's index among all patterns with 25 ones."""
    j = POINTS - 1
    for point in range(POINTS):
        j += counts[point]
    bits = np.int64(1) << j
    for point in range(POINTS - 1):
        j -= counts[point] + 1
        bits |= np.int64(1) << j
    n = checkers + POINTS
    r = POINTS
    number = 0
    while n > r:
        if bits & (np.int64(1) << (n - 1)):
            number += binomials[n - 1, r]
            r -= 1
        n -= 1
    return number


@alloc_jit
def side_positions(checkers, binomials):
    """``(counts, keys)``: ``counts[number]``, the 25 counts of every position of up to
    ``checkers`` checkers, and ``keys[key]``, the number of the position whose checkers stand at
    the locations of ``key`` (:func:`location_key`), -1 for a key of no position."""
    total = binomials[POINTS + checkers, checkers]
    counts = np.zeros((total, POINTS), dtype=np.int8)
    keys = np.full(LOCATIONS ** checkers, -1, dtype=np.int32)
    work = np.zeros(POINTS, dtype=np.int64)
    places = np.zeros(checkers, dtype=np.int64)  # each checker's location, non-increasing
    filled = 0
    while True:
        for point in range(POINTS):
            work[point] = 0
        key = 0
        weight = 1
        for c in range(checkers):
            if places[c] > 0:
                work[places[c] - 1] += 1
            key += places[c] * weight
            weight *= LOCATIONS
        number = rank(work, checkers, binomials)
        for point in range(POINTS):
            counts[number, point] = work[point]
        keys[key] = number
        filled += 1
        # the next non-increasing sequence of locations, as an odometer
        c = checkers - 1
        while c >= 0 and places[c] == (places[c - 1] if c > 0 else LOCATIONS - 1):
            c -= 1
        if c < 0:
            break
        places[c] += 1
        for later in range(c + 1, checkers):
            places[later] = 0
    if filled != total:
        raise ValueError("hypergammon numbering is not a bijection")
    return counts, keys


@jit
def own_key(board):
    """The location key of the side on roll's checkers on ``board`` (slots as ``bgsim.board``):
    the locations taken highest first, each a digit of base 26 from the lowest (off: 0)."""
    key = 0
    weight = 1
    for slot in range(25, 0, -1):
        for _ in range(board[slot]):  # nothing where the count is 0 or the opponent's
            key += slot * weight
            weight *= LOCATIONS
    return key


@jit
def opponent_key(board):
    """The same for the opponent's checkers, in its own numbering (our slot s is its point
    25 - s, our slot 0 its bar, 25)."""
    key = 0
    weight = 1
    for slot in range(0, 25):
        for _ in range(-board[slot]):
            key += (25 - slot) * weight
            weight *= LOCATIONS
    return key


@jit
def fill_board(board, counts, own, opponent):
    """``board`` (int8[32], padding left alone) of the state: ``own`` on roll, ``opponent``."""
    board[0] = -counts[opponent, BAR]
    board[25] = counts[own, BAR]
    for slot in range(1, 25):
        board[slot] = counts[own, slot - 1] - counts[opponent, 24 - slot]


@alloc_jit
def _levels(counts, pips, masks, mirrored, highest, race, checkers):
    """The states of one kind (races, or contact positions) by increasing total pips.  A race:
    the side on roll's farthest checker (at its place ``highest``) is nearer home than the
    opponent's farthest, which stands on our ``25 - highest`` point."""
    total = counts.shape[0]
    sizes = np.zeros(2 * POINTS * checkers + 2, dtype=np.int64)
    for t in range(1, total):
        for u in range(1, total):
            if masks[u] & mirrored[t] == 0 and (highest[u] + highest[t] < 25) == race:
                sizes[pips[u] + pips[t] + 1] += 1
    level_starts = np.cumsum(sizes)
    states = np.empty(level_starts[-1], dtype=np.int64)
    place = level_starts.copy()
    for t in range(1, total):  # a level's states with one opponent position together: most of
        for u in range(1, total):  # their plays leave it as it is and read the same row of values
            if masks[u] & mirrored[t] == 0 and (highest[u] + highest[t] < 25) == race:
                level = pips[u] + pips[t]
                states[place[level]] = u * total + t
                place[level] += 1
    return states, level_starts


@alloc_jit
def states_by_level(counts, checkers):
    """The states to solve: every state where both sides have a checker left and no point holds
    both sides' checkers, races and contact positions apart, each by increasing total pips:
    ``(races, race_starts, contact, contact_starts)``, the states of total ``k`` of a kind at
    ``states[starts[k]:starts[k + 1]]``.  A race (every checker of the side on roll past every
    opponent checker, ``bgsim.board.is_race``) leads only to races, and in a race every roll has a
    play that lowers the total, so one pass by increasing totals solves the races exactly."""
    total = counts.shape[0]
    pips = np.zeros(total, dtype=np.int64)
    masks = np.zeros(total, dtype=np.int64)  # points 1..24 a position holds, in its own numbering
    mirrored = np.zeros(total, dtype=np.int64)  # the same in the opponent's numbering
    highest = np.zeros(total, dtype=np.int64)  # the farthest checker's place (25: the bar)
    for p in range(total):
        for point in range(POINTS):
            if counts[p, point] > 0:
                pips[p] += (point + 1) * counts[p, point]
                highest[p] = max(highest[p], point + 1)
                if point < BAR:
                    masks[p] |= np.int64(1) << point
                    mirrored[p] |= np.int64(1) << (23 - point)
    races, race_starts = _levels(counts, pips, masks, mirrored, highest, True, checkers)
    contact, contact_starts = _levels(counts, pips, masks, mirrored, highest, False, checkers)
    return races, race_starts, contact, contact_starts


@jit
def _opponent_equities(values, state, out):
    """The opponent's equities after its best cube action, on roll at ``state``: centred,
    owned by it, owned by us (its ``opponent``), centred under the Jacoby rule."""
    double_take = 2.0 * values[state, OPPONENT]
    cash = min(1.0, double_take)
    out[0] = max(values[state, CENTRED], cash)
    out[1] = max(values[state, OWNED], cash)
    out[2] = values[state, OPPONENT]
    out[3] = max(values[state, JACOBY], cash)


@jit
def _points(plays, play, checkers):
    """What the game scores when ``play`` has borne off the mover's last checker: 2 when the
    loser has borne off none of its ``checkers`` (a gammon), 3 when it also has one on the bar or
    in the winner's home board (a backgammon), else 1."""
    on = 0
    back_game = False
    for slot in range(26):
        if plays[play, slot] < 0:
            on -= plays[play, slot]
            if slot <= 6:
                back_game = True
    if on < checkers:
        return 1.0
    return 3.0 if back_game else 2.0


@jit
def _equity_after(values, after):
    """The cubeless equity, for the side that moved, of the state ``after`` (opponent on roll):
    ``bgsim.hypergammon.reference.cubeless_equity`` of its chances turned, term by term."""
    win = 1.0 - values[after, WIN]
    return (2.0 * win - 1.0 + values[after, LOSE_GAMMON] - values[after, WIN_GAMMON]
            + values[after, LOSE_BACKGAMMON] - values[after, WIN_BACKGAMMON])


# The most plays a roll has in 3-checker hypergammon is far below this (a uint8 counts them).
MAX_ROLL_PLAYS = 255
MAX_STATE_PLAYS = 21 * MAX_ROLL_PLAYS


@jit
def state_successors(own, opponent, counts, keys, positions, checkers, targets, at, roll_counts,
                     board, plays, play_keys, slots, table, order):
    """What each roll's plays of the state (``own`` on roll, ``opponent``) reach: for each of the
    21 rolls its number of distinct plays into ``roll_counts[roll]``, and from ``targets[at]`` on
    each play's state with the opponent on roll, in canonical order, or minus the points it scores
    when it bears off the last checker (1, 2 or 3).  The plays are the game loop's own
    (``bgsim.fast.moves.generate``); returns the index after the last target written."""
    fill_board(board, counts, own, opponent)
    ranked = stack_empty(MAX_PLAYS, np.int64)
    for roll in range(ROLLS.shape[0]):
        count = generate(board, ROLLS[roll, 0], ROLLS[roll, 1], plays, play_keys, slots, table, order)
        if count > MAX_ROLL_PLAYS:
            raise ValueError("a hypergammon roll has more plays than a successor table counts")
        roll_counts[roll] = count
        canonical_order(plays, play_keys, count, ranked)
        for j in range(count):
            play = ranked[j]
            mine = keys[own_key(plays[play])]
            if mine == 0:  # the last checker off: a win of 1, 2 or 3 points
                targets[at] = -np.int64(_points(plays, play, checkers))
            else:
                theirs_now = opponent
                if plays[play, 0] != board[0]:  # a hit: the opponent has another checker on the bar
                    theirs_now = keys[opponent_key(plays[play])]
                targets[at] = theirs_now * positions + mine
            at += 1
    return at


@jit
def values_from(own, opponent, values, targets, at, roll_counts, positions, gnubg_dance, out):
    """The nine values of the state (``own`` on roll, ``opponent``) from ``values`` by one step
    of the recursion (module doc), into ``out``, its plays' states read from ``targets[at:]`` and
    ``roll_counts`` as :func:`state_successors` wrote them."""
    for k in range(NVALUES):
        out[k] = 0.0
    theirs = stack_empty(4, np.float64)  # the opponent's cube equities after a play
    best = stack_empty(NVALUES, np.float64)
    for roll in range(ROLLS.shape[0]):
        weight = ROLL_WEIGHTS[roll]
        count = np.int64(roll_counts[roll])
        if count == 0:  # the roll passes the turn: the opponent on roll at the same positions
            back = opponent * positions + own
            best[WIN] = 1.0 - values[back, WIN]
            best[WIN_GAMMON] = values[back, LOSE_GAMMON]
            best[WIN_BACKGAMMON] = values[back, LOSE_BACKGAMMON]
            best[LOSE_GAMMON] = values[back, WIN_GAMMON]
            best[LOSE_BACKGAMMON] = values[back, WIN_BACKGAMMON]
            if gnubg_dance:
                best[CENTRED] = -values[back, CENTRED]
                best[OWNED] = -values[back, OWNED]
                best[OPPONENT] = -values[back, OPPONENT]
                best[JACOBY] = -values[back, JACOBY]
            else:
                _opponent_equities(values, back, theirs)
                best[CENTRED] = -theirs[0]
                best[OWNED] = -theirs[2]
                best[OPPONENT] = -theirs[1]
                best[JACOBY] = -theirs[3]
        else:
            best_equity = -np.inf
            for k in range(PROBABILITIES, NVALUES):
                best[k] = -np.inf
            for j in range(count):
                after = np.int64(targets[at + j])
                if after < 0:  # the last checker off: a win of 1, 2 or 3 points
                    points = np.float64(-after)
                    equity = points
                    best[CENTRED] = max(best[CENTRED], points)
                    best[OWNED] = max(best[OWNED], points)
                    best[OPPONENT] = max(best[OPPONENT], points)
                    best[JACOBY] = max(best[JACOBY], 1.0)
                else:
                    equity = _equity_after(values, after)
                    _opponent_equities(values, after, theirs)
                    best[CENTRED] = max(best[CENTRED], -theirs[0])
                    best[OWNED] = max(best[OWNED], -theirs[2])  # ours: theirs is owned by the other side
                    best[OPPONENT] = max(best[OPPONENT], -theirs[1])
                    best[JACOBY] = max(best[JACOBY], -theirs[3])
                best_equity = max(best_equity, equity)
            # the chances of the first play in canonical order (the targets' order) within TIE
            # of the best equity
            after = np.int64(-1)
            for j in range(count):
                after = np.int64(targets[at + j])
                equity = np.float64(-after) if after < 0 else _equity_after(values, after)
                if equity >= best_equity - TIE:
                    break
            if after < 0:
                points = -after
                best[WIN] = 1.0
                best[WIN_GAMMON] = 1.0 if points >= 2 else 0.0
                best[WIN_BACKGAMMON] = 1.0 if points == 3 else 0.0
                best[LOSE_GAMMON] = 0.0
                best[LOSE_BACKGAMMON] = 0.0
            else:
                best[WIN] = 1.0 - values[after, WIN]
                best[WIN_GAMMON] = values[after, LOSE_GAMMON]
                best[WIN_BACKGAMMON] = values[after, LOSE_BACKGAMMON]
                best[LOSE_GAMMON] = values[after, WIN_GAMMON]
                best[LOSE_BACKGAMMON] = values[after, WIN_BACKGAMMON]
            at += count
        for k in range(NVALUES):
            out[k] += weight * best[k]
    for k in range(NVALUES):
        out[k] /= 36.0


@jit
def state_values(own, opponent, values, counts, keys, positions, checkers, gnubg_dance, out,
                 board, plays, play_keys, slots, table, order):
    """The nine values of the state (``own`` on roll, ``opponent``) from ``values`` by one step
    of the recursion, its plays generated now (:func:`state_successors`, :func:`values_from`);
    the rest are the move generator's buffers (``bgsim.fast.moves.new_buffers``) and a board of
    ``BOARD_BYTES``."""
    targets = stack_empty(MAX_STATE_PLAYS, np.int64)
    roll_counts = stack_empty(21, np.int64)
    state_successors(own, opponent, counts, keys, positions, checkers, targets, 0, roll_counts, board, plays,
                     play_keys, slots, table, order)
    values_from(own, opponent, values, targets, 0, roll_counts, positions, gnubg_dance, out)


@alloc_jit
def successor_table(states, first, last, counts, keys, checkers):
    """The successor table of ``states[first:last]`` (row ``i - first`` for state ``states[i]``):
    ``(starts, roll_counts, targets)``, the state's targets (:func:`state_successors`) from
    ``targets[starts[row]]``, its rolls' play counts in ``roll_counts[row]``.  A sweep then reads
    a state's plays from memory instead of generating 21 rolls' plays again (``sweep_level``)."""
    plays, play_keys, slots, table, order = new_buffers()
    board = np.zeros(BOARD_BYTES, dtype=np.int8)
    positions = counts.shape[0]
    rows = last - first
    starts = np.empty(rows + 1, dtype=np.int64)
    roll_counts = np.empty((rows, ROLLS.shape[0]), dtype=np.uint8)
    targets = np.empty(max(1024, rows * 16), dtype=np.int32)
    work = np.empty(MAX_STATE_PLAYS, dtype=np.int64)
    work_counts = np.empty(ROLLS.shape[0], dtype=np.int64)
    at = 0
    for row in range(rows):
        state = states[first + row]
        starts[row] = at
        count = state_successors(state // positions, state % positions, counts, keys, positions, checkers, work, 0,
                                 work_counts, board, plays, play_keys, slots, table, order)
        if at + count > targets.shape[0]:
            grown = np.empty(max(2 * targets.shape[0], at + count), dtype=np.int32)
            grown[:at] = targets[:at]
            targets = grown
        for j in range(count):
            targets[at + j] = work[j]
        for roll in range(ROLLS.shape[0]):
            roll_counts[row, roll] = work_counts[roll]
        at += count
    starts[rows] = at
    return starts, roll_counts, targets[:at].copy()


@jit
def sweep_level(values, states, first, last, base, starts, roll_counts, targets, positions, gnubg_dance, scratch):
    """One level's states ``states[first:last]`` by one step of the recursion, into ``scratch``
    (a row each, from 0), their plays read from the successor table of ``states[base:]``
    (:func:`successor_table`): nothing is written to ``values``."""
    out = stack_empty(NVALUES, np.float64)
    for i in range(first, last):
        state = states[i]
        row = i - base
        values_from(state // positions, state % positions, values, targets, starts[row], roll_counts[row],
                    positions, gnubg_dance, out)
        for k in range(NVALUES):
            scratch[i - first, k] = out[k]


@jit
def write_level(values, states, first, last, scratch):
    """Write a level's new values; the largest change of any of them."""
    delta = 0.0
    for i in range(first, last):
        state = states[i]
        for k in range(NVALUES):
            change = abs(scratch[i - first, k] - values[state, k])
            if change > delta:
                delta = change
            values[state, k] = scratch[i - first, k]
    return delta
