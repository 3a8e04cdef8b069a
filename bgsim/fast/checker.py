"""Checker-bot kernels: each mirrors a built-in bot of ``bots/`` operation for operation.

A bot kernel gets the plays a generation left in the buffers (in table order, not canonical)
and returns the index of its choice.  Evaluation bots score every play's resulting board, seen
from the mover and not turned, with the same float64 operations in the same order as the
Python bot; the highest score wins and a tie goes to the play first in canonical order
(``best_scoring``), which is exactly what the reference's strict ``>`` scan over the canonical
list picks.

Each bot's kernel is ``<prefix>_choose``, named by its layout in ``bgsim/layouts.py``
(``kernel="checker.<prefix>"``), and takes exactly the arguments of ``choose``, the dispatch
generated from that table (``bgsim.fast.dispatch``; docs/ARCHITECTURE.md, adding a bot, gives
every signature), whether it uses them or not, so that adding a bot never changes a signature.
What a bot's capabilities put in front of its kernel is the contract of ``bgsim/layouts.py``
(``bearoff_first`` here).
"""

from __future__ import annotations

import numpy as np

from .. import layouts
from .board import is_race, shots, survey
from .bearoff import BINOMIALS, MAX_ROLLS, POINTS, bearoff_choose
from .compile import inline_jit, jit
from .dice import below
from .moves import kth_play, play_before
from .nn import nn_choose_ahead
from .nn import nn_choose as net_choose
from .variants import best_double, nn_play_value

RACER_HIT = layouts.RACER.param("hit")
RACER_BLOT = layouts.RACER.param("blot")
(HEURISTIC_RACE, HEURISTIC_OFF, HEURISTIC_HIT, HEURISTIC_BLOT, HEURISTIC_SHOT, HEURISTIC_HOME,
 HEURISTIC_OUTER, HEURISTIC_ANCHOR, HEURISTIC_PRIME, HEURISTIC_STACK, HEURISTIC_BACK) = (
    layouts.HEURISTIC.param(feature) for feature in (
        "race", "off", "hit", "blot", "shot", "home", "outer", "anchor", "prime", "stack", "back"))
PUBEVAL_RACE_WEIGHTS = layouts.PUBEVAL.array("race_weights")
PUBEVAL_CONTACT_WEIGHTS = layouts.PUBEVAL.array("contact_weights")

ONE_SIDED_SIZE = int(BINOMIALS[15 + POINTS, POINTS]) * MAX_ROLLS

ALL_OFF = 99999999.0  # pubeval's score for bearing off the last checker


# Every evaluation takes (code, plays, row, params, offsets, float64s, race), used or not, so that
# best_scoring can call any of them: ``race`` is whether the position before the play is a race.


@jit
def racer_score(code, plays, row, params, offsets, float64s, race):
    """bots.checker.racer_score."""
    own, opponent, _, _, behind = survey(plays, row)
    exposed, _ = shots(plays, row, behind)
    return (float(opponent - own) + params[RACER_HIT] * float(-plays[row, 0])
            - params[RACER_BLOT] * float(exposed))


@jit
def heuristic_score(code, plays, row, params, offsets, float64s, race):
    """bots.heuristic.heuristic_score: the eleven weighted features, summed in order."""
    own_pips, opponent_pips, on_board, contact, behind = survey(plays, row)
    race = opponent_pips - own_pips
    off = 15 - on_board
    if not contact:
        # the reference adds every weight times its feature, the contact ones being 0 here
        score = 0.0
        score += params[HEURISTIC_RACE] * float(race)
        score += params[HEURISTIC_OFF] * float(off)
        score += params[HEURISTIC_HIT] * 0.0
        score += params[HEURISTIC_BLOT] * 0.0
        score += params[HEURISTIC_SHOT] * 0.0
        score += params[HEURISTIC_HOME] * 0.0
        score += params[HEURISTIC_OUTER] * 0.0
        score += params[HEURISTIC_ANCHOR] * 0.0
        score += params[HEURISTIC_PRIME] * 0.0
        score += params[HEURISTIC_STACK] * 0.0
        score += params[HEURISTIC_BACK] * 0.0
        return score
    hit = -plays[row, 0]
    blot, shot = shots(plays, row, behind)
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
    score += params[HEURISTIC_RACE] * float(race)
    score += params[HEURISTIC_OFF] * float(off)
    score += params[HEURISTIC_HIT] * float(hit)
    score += params[HEURISTIC_BLOT] * float(blot)
    score += params[HEURISTIC_SHOT] * float(shot)
    score += params[HEURISTIC_HOME] * float(home)
    score += params[HEURISTIC_OUTER] * float(outer)
    score += params[HEURISTIC_ANCHOR] * float(anchor)
    score += params[HEURISTIC_PRIME] * float(prime)
    score += params[HEURISTIC_STACK] * float(stack)
    score += params[HEURISTIC_BACK] * float(back)
    return score


@jit
def pubeval_score(code, plays, row, params, offsets, float64s, race):
    """bots.pubeval.pubeval_score; ``race`` is decided on the board before the play.

    The 122 weights are the bot's arrays, found at ``offsets`` in ``float64s``.
    """
    on_board = 0
    for slot in range(1, 26):
        if plays[row, slot] > 0:
            on_board += plays[row, slot]
    off = 15 - on_board
    if off == 15:
        return ALL_OFF
    start = offsets[PUBEVAL_RACE_WEIGHTS] if race else offsets[PUBEVAL_CONTACT_WEIGHTS]
    weights = float64s[start:start + 122]
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


@inline_jit
def bearoff_first(flag, size_at, one_at, win_at, params, offsets, float64s, board, plays, keys, count):
    """The perfect bear-off player's choice when the bot's ``bearoff`` switch (its parameter
    ``flag``) is on and the position is a pure bear-off (bots.checker.CheckerBot.choose); -1
    otherwise.  ``size_at``, ``one_at``, ``win_at``: where the bot's layout keeps the table size
    and the one- and two-sided tables (the capability's parameters and arrays)."""
    if params[flag] == 0.0:
        return -1
    checkers = int(params[size_at])
    size = BINOMIALS[checkers + POINTS, POINTS]
    # the one-sided array is rolls_off then first_off (bgsim.bearoff.player.PlayerTables)
    rolls = float64s[offsets[one_at]:offsets[one_at] + ONE_SIDED_SIZE]
    first = float64s[offsets[one_at] + ONE_SIDED_SIZE:offsets[one_at] + 2 * ONE_SIDED_SIZE]
    win = float64s[offsets[win_at]:offsets[win_at] + size * size]
    return bearoff_choose(board, plays, keys, count, rolls, first, win, checkers)


@inline_jit
def best_scoring(score, code, plays, keys, count, params, offsets, float64s, race):
    """The play an evaluation bot picks: the highest ``score`` (one of the evaluations above, or
    a new bot's), a tie going to the play first in canonical order."""
    best = -1
    best_score = 0.0
    for index in range(count):
        value = score(code, plays, index, params, offsets, float64s, race)
        if best < 0 or value > best_score or (value == best_score and play_before(plays, keys, index, best)):
            best = index
            best_score = value
    return best


# --- the kernels named by the layouts -------------------------------------------------------
# Inlined into the dispatch, as they were when it was written by hand (a kernel compiled as a
# function of its own adds to the cold compile).


@inline_jit
def random_choose(code, params, offsets, float64s, int32s, int64s, board, plays, keys, count, order,
                  streams, row):
    """bots.checker.RandomBot: the play ``below(count)`` of the seat's stream, in canonical order."""
    return kth_play(plays, keys, count, below(streams, row, count), order)


# A kernel and a loop of its own for each of racer, heuristic and pubeval, so that a run of one
# compiles none of the others (bgsim.fast.families); the game kernels of every bot compile the three.


@inline_jit
def racer_choose(code, params, offsets, float64s, int32s, int64s, board, plays, keys, count, order,
                 streams, row):
    return best_scoring(racer_score, code, plays, keys, count, params, offsets, float64s, False)


@inline_jit
def heuristic_choose(code, params, offsets, float64s, int32s, int64s, board, plays, keys, count, order,
                     streams, row):
    return best_scoring(heuristic_score, code, plays, keys, count, params, offsets, float64s, False)


@inline_jit
def pubeval_choose(code, params, offsets, float64s, int32s, int64s, board, plays, keys, count, order,
                   streams, row):
    race = is_race(board)  # pubeval's weights: the position before the play
    return best_scoring(pubeval_score, code, plays, keys, count, params, offsets, float64s, race)


@inline_jit
def nn_choose(code, params, offsets, float64s, int32s, int64s, board, plays, keys, count, order,
              streams, row):
    """bots.nn.NNChecker: judges all plays at once (first layer shared with the parent position);
    ``order`` is free scratch once the plays are generated."""
    return net_choose(params, offsets, int32s, int64s, board, plays, keys, count, order)


@inline_jit
def nn_ahead_choose(code, params, offsets, float64s, int32s, int64s, board, plays, keys, count, order,
                    streams, row):
    """bots.nn.NNChecker with ``plies=1``: the 1-ply search (``bgsim.fast.nn.choose_ahead``)."""
    return nn_choose_ahead(params, offsets, int32s, int64s, board, plays, keys, count, order)


# --- acey-deucey's double after a 1-2 (``<prefix>_double``, bots.checker.CheckerBot.choose_double) ---
# Compiled only into the variants' game kernels (the variant families of bgsim/fast/families.py).


@inline_jit
def random_double(code, params, offsets, float64s, int32s, int64s, board, plays, keys, slots, table, order,
                  streams, row):
    """bots.checker.RandomBot: ``1 + below(6)`` of the seat's stream, playable or not."""
    return 1 + below(streams, row, 6)


@inline_jit
def highest_score(score, code, plays, count, params, offsets, float64s, race):
    """The highest ``score`` an evaluation bot gives one of the plays."""
    best = 0.0
    for index in range(count):
        value = score(code, plays, index, params, offsets, float64s, race)
        if index == 0 or value > best:
            best = value
    return best


@jit
def _racer_best(code, params, offsets, float64s, int32s, int64s, seen, plays, keys, count, order):
    return highest_score(racer_score, code, plays, count, params, offsets, float64s, False)


@jit
def _heuristic_best(code, params, offsets, float64s, int32s, int64s, seen, plays, keys, count, order):
    return highest_score(heuristic_score, code, plays, count, params, offsets, float64s, False)


@jit
def _pubeval_best(code, params, offsets, float64s, int32s, int64s, seen, plays, keys, count, order):
    return highest_score(pubeval_score, code, plays, count, params, offsets, float64s, is_race(seen))


# bots.checker.EvaluationBot: the double whose best play scores highest (``seen``: the board before them)


@inline_jit
def racer_double(code, params, offsets, float64s, int32s, int64s, board, plays, keys, slots, table, order,
                 streams, row):
    return best_double(_racer_best, code, params, offsets, float64s, int32s, int64s, board, plays, keys,
                       slots, table, order)


@inline_jit
def heuristic_double(code, params, offsets, float64s, int32s, int64s, board, plays, keys, slots, table, order,
                     streams, row):
    return best_double(_heuristic_best, code, params, offsets, float64s, int32s, int64s, board, plays, keys,
                       slots, table, order)


@inline_jit
def pubeval_double(code, params, offsets, float64s, int32s, int64s, board, plays, keys, slots, table, order,
                   streams, row):
    return best_double(_pubeval_best, code, params, offsets, float64s, int32s, int64s, board, plays, keys,
                       slots, table, order)


@jit
def _nn_best(code, params, offsets, float64s, int32s, int64s, seen, plays, keys, count, order):
    """The value (``bots.nn.play_value``) of the play nn picks: the highest of all."""
    index = net_choose(params, offsets, int32s, int64s, seen, plays, keys, count, order)
    return float(nn_play_value(params, offsets, int32s, int64s, plays, index))


@inline_jit
def nn_double(code, params, offsets, float64s, int32s, int64s, board, plays, keys, slots, table, order,
              streams, row):
    """bots.nn.NNChecker: the double whose best play has the highest value."""
    return best_double(_nn_best, code, params, offsets, float64s, int32s, int64s, board, plays, keys,
                       slots, table, order)
