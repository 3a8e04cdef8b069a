"""Checker-bot kernels: each mirrors a built-in bot of ``bots/`` operation for operation.

A bot kernel gets the plays a generation left in the buffers (in table order, not canonical)
and returns the index of its choice.  Evaluation bots score every play's resulting board, seen
from the mover and not turned, with the same float64 operations in the same order as the
Python bot; the highest score wins and a tie goes to the play first in canonical order, which
is exactly what the reference's strict ``>`` scan over the canonical list picks.

Codes (``CHECKER_CODES``) are what ``bgsim.fast`` maps a bot's ``fast_name`` to; parameter
layouts are the bots' ``fast_params()``.
"""

from __future__ import annotations

import numpy as np

from .compile import inline_jit, jit
from .dice import below
from .moves import kth_play, play_before

RANDOM, RACER, HEURISTIC, PUBEVAL = 0, 1, 2, 3
CHECKER_CODES = {"random": RANDOM, "racer": RACER, "heuristic": HEURISTIC, "pubeval": PUBEVAL}

ALL_OFF = 99999999.0  # pubeval's score for bearing off the last checker

# Tesauro's published pubeval weights (WT.race and WT.cntc), as in bots/pubeval.py; a test
# checks the two copies agree.  bgsim may not import bots, so the facts are repeated here.
RACE_WEIGHTS = np.array([
    0.0, -0.1716, 0.2701, 0.29906, -0.08471, 0.0, -1.40375,
    -1.05121, 0.07217, -0.01351, 0.0, -1.29506, -2.16183, 0.13246,
    -1.03508, 0.0, -2.29847, -2.34631, 0.17253, 0.08302, 0.0,
    -1.27266, -2.87401, -0.07456, -0.3424, 0.0, -1.3464, -2.46556,
    -0.13022, -0.01591, 0.0, 0.27448, 0.60015, 0.48302, 0.25236,
    0.0, 0.39521, 0.68178, 0.05281, 0.09266, 0.0, 0.24855,
    -0.06844, -0.37646, 0.05685, 0.0, 0.17405, 0.0043, 0.74427,
    0.00576, 0.0, 0.12392, 0.31202, -0.91035, -0.1627, 0.0,
    0.01418, -0.10839, -0.02781, -0.88035, 0.0, 1.07274, 2.00366,
    1.16242, 0.2252, 0.0, 0.85631, 1.06349, 1.49549, 0.18966,
    0.0, 0.37183, -0.50352, -0.14818, 0.12039, 0.0, 0.13681,
    0.13978, 1.11245, -0.12707, 0.0, -0.22082, 0.20178, -0.06285,
    -0.52728, 0.0, -0.13597, -0.19412, -0.09308, -1.26062, 0.0,
    3.05454, 5.16874, 1.5068, 5.35, 0.0, 2.19605, 3.8539,
    0.88296, 2.30052, 0.0, 0.92321, 1.08744, -0.11696, -0.7856,
    0.0, -0.09795, -0.8305, -1.09167, -4.94251, 0.0, -1.00316,
    -3.66465, -2.56906, -9.67677, 0.0, -2.77982, -7.26713, -3.40177,
    -12.32252, 0.0, 3.4204,
])

CONTACT_WEIGHTS = np.array([
    0.25696, -0.66937, -1.66135, -2.02487, -2.53398, -0.16092, -1.11725,
    -1.06654, -0.9283, -1.99558, -1.10388, -0.80802, 0.09856, -0.62086,
    -1.27999, -0.5922, -0.73667, 0.89032, -0.38933, -1.59847, -1.50197,
    -0.60966, 1.56166, -0.47389, -1.8039, -0.83425, -0.97741, -1.41371,
    0.245, 0.1097, -1.36476, -1.05572, 1.1542, 0.11069, -0.38319,
    -0.74816, -0.59244, 0.81116, -0.39511, 0.11424, -0.73169, -0.56074,
    1.09792, 0.15977, 0.13786, -1.18435, -0.43363, 1.06169, -0.21329,
    0.04798, -0.94373, -0.22982, 1.22737, -0.13099, -0.06295, -0.75882,
    -0.13658, 1.78389, 0.30416, 0.36797, -0.69851, 0.13003, 1.2307,
    0.40868, -0.21081, -0.64073, 0.31061, 1.59554, 0.65718, 0.25429,
    -0.80789, 0.0824, 1.78964, 0.54304, 0.41174, -1.06161, 0.07851,
    2.01451, 0.49786, 0.91936, -0.9075, 0.05941, 1.8312, 0.58722,
    1.28777, -0.83711, -0.33248, 2.64983, 0.52698, 0.82132, -0.58897,
    -1.18223, 3.35809, 0.62017, 0.57353, -0.07276, -0.36214, 4.37655,
    0.45481, 0.21746, 0.10504, -0.61977, 3.54001, 0.04612, -0.18108,
    0.63211, -0.87046, 2.47673, -0.48016, -1.27157, 0.86505, -1.11342,
    1.24612, -0.82385, -2.77082, 1.23606, -1.59529, 0.10438, -1.30206,
    -4.1152, 5.62596, -2.758,
])


@inline_jit
def _pips(board):
    own = 0
    opponent = 0
    for slot in range(26):
        count = board[slot]
        if count > 0:
            own += slot * count
        elif count < 0:
            opponent += (25 - slot) * -count
    return own, opponent


@jit
def is_race(board):
    """``Position.is_race``: every own checker past every opponent checker (or a side has none)."""
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
def _shots(plays, row, behind):
    """(exposed blots, hitting rolls of 36), as bots.heuristic.shots_at, with bit masks.

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
    shots = 0
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
                shots += 1
    return exposed, shots


@inline_jit
def _survey(plays, row):
    """One pass over a play's board: (own pips, opponent pips, own on board, contact, behind)."""
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


@jit
def racer_score(plays, row, params):
    """bots.checker.racer_score: params are (hit, blot)."""
    own, opponent, _, _, behind = _survey(plays, row)
    exposed, _ = _shots(plays, row, behind)
    return float(opponent - own) + params[0] * float(-plays[row, 0]) - params[1] * float(exposed)


@jit
def heuristic_score(plays, row, weights):
    """bots.heuristic.heuristic_score: the eleven weighted features, summed in order."""
    own_pips, opponent_pips, on_board, contact, behind = _survey(plays, row)
    race = opponent_pips - own_pips
    off = 15 - on_board
    if not contact:
        score = 0.0
        score += weights[0] * float(race)
        score += weights[1] * float(off)
        for index in range(2, 11):
            score += weights[index] * 0.0
        return score
    hit = -plays[row, 0]
    blot, shot = _shots(plays, row, behind)
    home = 0
    outer = 0
    anchor = 0
    prime = 0
    run = 0
    stack = 0
    back = np.int64(plays[row, 25])
    for point in range(1, 25):
        count = plays[row, point]
        if count >= 2:
            if point <= 6:
                home += 1
            elif point <= 18:
                outer += 1
            else:
                anchor += 1
            run += 1
            if run > prime:
                prime = run
        else:
            run = 0
        if count > 3:
            stack += count - 3
        if point >= 19 and count > 0:
            back += count
    score = 0.0
    score += weights[0] * float(race)
    score += weights[1] * float(off)
    score += weights[2] * float(hit)
    score += weights[3] * float(blot)
    score += weights[4] * float(shot)
    score += weights[5] * float(home)
    score += weights[6] * float(outer)
    score += weights[7] * float(anchor)
    score += weights[8] * float(prime)
    score += weights[9] * float(stack)
    score += weights[10] * float(back)
    return score


@jit
def pubeval_score(plays, row, race):
    """bots.pubeval.pubeval_score; ``race`` is decided on the board before the play."""
    on_board = 0
    for slot in range(1, 26):
        if plays[row, slot] > 0:
            on_board += plays[row, slot]
    off = 15 - on_board
    if off == 15:
        return ALL_OFF
    weights = RACE_WEIGHTS if race else CONTACT_WEIGHTS
    score = 0.0
    # inputs in index order; zero inputs add nothing, as in the reference
    for j in range(1, 25):
        n = plays[row, 25 - j]
        base = 5 * (j - 1)
        if n == -1:
            score += weights[base] * 1.0
        if n == 1:
            score += weights[base + 1] * 1.0
        if n >= 2:
            score += weights[base + 2] * 1.0
        if n == 3:
            score += weights[base + 3] * 1.0
        if n >= 4:
            score += weights[base + 4] * ((n - 3) / 2.0)
    bar = -plays[row, 0] / 2.0
    if bar != 0.0:
        score += weights[120] * bar
    offs = off / 15.0
    if offs != 0.0:
        score += weights[121] * offs
    return score


@jit
def choose(code, params, board, plays, keys, count, order, streams, row):
    """Index (into the buffers) of the play the bot ``code`` picks; ``count`` >= 1.

    Evaluation bots: the highest score, a tie going to the play first in canonical order.
    """
    if code == RANDOM:
        return kth_play(plays, keys, count, below(streams, row, count), order)
    race = is_race(board)  # pubeval picks its weights on the position before the play
    best = -1
    best_score = 0.0
    for index in range(count):
        if code == RACER:
            value = racer_score(plays, index, params)
        elif code == HEURISTIC:
            value = heuristic_score(plays, index, params)
        else:
            value = pubeval_score(plays, index, race)
        if best < 0 or value > best_score or (value == best_score and play_before(plays, keys, index, best)):
            best = index
            best_score = value
    return best
