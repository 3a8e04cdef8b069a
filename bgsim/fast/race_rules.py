"""Fast kernels of the race rules of ``bots/race_rules.py`` (rule62, kleinman, isight, epc),
each mirroring its bot operation for operation.

The board is seen from the doubler (on roll, before rolling), as in ``bgsim/fast/cube.py``.  The
four rules share one layout of parameters (double, redouble, take, score_aware) and one pair of
kernels, ``race_rule_offers`` and ``race_rule_answer`` (the layouts' ``race_rules.race_rule``);
``epc`` also reads the effective pip count of every one-sided bear-off position (array ``epc``,
before the match equity table).  What the match score decides alone is the dispatch's
(``bgsim.fast.match_cube.forced_at_score``), asked before ``race_rule_offers``.
"""

from __future__ import annotations

import math

import numpy as np

from .. import layouts
from .bearoff import BINOMIALS, POINTS, rank
from .board import is_race, pip_counts
from .compile import jit, stack_empty
from .cube import DROP, TAKE
from .match_cube import (
    VIEW_AWAY, VIEW_CENTRED, VIEW_MATCH_TO, VIEW_OPP_AWAY, VIEW_POST_CRAWFORD, VIEW_VALUE, kleinman_half,
    race_chance, shift,
)

RULE62 = layouts.RULE62.code
KLEINMAN = layouts.KLEINMAN.code
ISIGHT = layouts.ISIGHT.code
EPC = layouts.EPC.code

assert layouts.RULE62.params == layouts.KLEINMAN.params == layouts.ISIGHT.params == layouts.EPC.params
RULE_DOUBLE = layouts.RULE62.param("double")
RULE_REDOUBLE = layouts.RULE62.param("redouble")
RULE_TAKE = layouts.RULE62.param("take")
RULE_SCORE_AWARE = layouts.RULE62.param("score_aware")
assert layouts.RULE62.arrays == layouts.KLEINMAN.arrays == layouts.ISIGHT.arrays
RULE_MET_PRE = layouts.RULE62.array("met_pre")
RULE_MET_POST = layouts.RULE62.array("met_post")
EPC_MET_PRE = layouts.EPC.array("met_pre")
EPC_MET_POST = layouts.EPC.array("met_post")
EPC_TABLE = layouts.EPC.array("epc")

QUESTION_DOUBLE, QUESTION_REDOUBLE, QUESTION_TAKE = 0, 1, 2


@jit
def point_of_last_take(leader):
    """bots.race_rules.point_of_last_take."""
    if leader >= 62.0:
        return float(math.ceil((leader + 20.0) / 10.0))
    return float(math.ceil((leader - 5.0) / 7.0))


@jit
def _effective_pips(board, turned, float64s, start):
    """bots.race_rules.effective_pips of the side on roll, or of its opponent when ``turned``."""
    sign = -1 if turned else 1
    counts = stack_empty(POINTS, np.int64)
    for point in range(1, 7):  # every count set here
        counts[point - 1] = max(sign * board[25 - point if turned else point], 0)
    outside = 0
    total = 0
    for point in range(7, 26):
        n = sign * board[25 - point if turned else point]
        if n > 0:
            counts[5] += n
            outside += (point - 6) * n
    for point in range(POINTS):
        total += counts[point]
    if total == 0:
        return 0.0
    return float64s[start + rank(counts, BINOMIALS)] + outside


@jit
def _crossovers(points):
    total = 0
    for point in range(7, 26):
        total += ((point - 1) // 6) * points[point]
    return total


@jit
def isight_counts(board):
    """bots.race_rules.isight_counts."""
    mine = stack_empty(26, np.int64)
    theirs = stack_empty(26, np.int64)
    mine[0] = 0
    theirs[0] = 0
    for point in range(1, 26):
        mine[point] = max(board[point], 0)
        theirs[point] = max(-board[25 - point], 0)
    return _isight_count(mine, theirs), _isight_count(theirs, mine)


@jit
def _isight_count(me, them):
    count = 0
    mine = 0
    other = 0
    for point in range(1, 26):
        count += point * me[point]
        mine += me[point]
        other += them[point]
    count += max(mine - other, 0)
    count += 2 * max(me[1] - 2, 0) + max(me[2] - 2, 0) + max(me[3] - 3, 0)
    for point in range(4, 7):
        if me[point] == 0 and them[point] > 0:
            count += 1
    count += max(_crossovers(me) - _crossovers(them), 0)
    return count


@jit
def _counts(code, offsets, float64s, board):
    """(the doubler's count, the taker's) as floats."""
    if code == ISIGHT:
        own, other = isight_counts(board)
        return float(own), float(other)
    if code == EPC:
        start = offsets[EPC_TABLE]
        return _effective_pips(board, False, float64s, start), _effective_pips(board, True, float64s, start)
    own, other = pip_counts(board)
    return float(own), float(other)


@jit
def _value(params, question):
    if question == QUESTION_DOUBLE:
        return params[RULE_DOUBLE]
    if question == QUESTION_REDOUBLE:
        return params[RULE_REDOUBLE]
    return params[RULE_TAKE]


@jit
def _threshold(code, params, own, question):
    """The taker's count at which the rule just offers or just still takes (rule62, epc, isight)."""
    if code == ISIGHT:
        return own + (_value(params, question) - 80.0 + own / 3.0) / 2.0
    last = own + point_of_last_take(own)
    if question == QUESTION_DOUBLE:
        return last - params[RULE_DOUBLE]
    if question == QUESTION_REDOUBLE:
        return last - params[RULE_REDOUBLE]
    return last + params[RULE_TAKE]


@jit
def _threshold_chance(code, params, own, question):
    if code == KLEINMAN:
        return 0.5 + kleinman_half(_value(params, question))
    return race_chance(own, _threshold(code, params, own, question))


@jit
def _edge(code, params, own, other, question):
    """How far the doubler is past the question's threshold (>= 0: reached), money rule."""
    if code == KLEINMAN:
        return race_chance(own, other) - (0.5 + kleinman_half(_value(params, question)))
    if code == ISIGHT:
        return 240.0 - own + 6.0 * (other - own) - 3.0 * _value(params, question)
    return other - _threshold(code, params, own, question)


@jit
def _shift(code, offsets, float64s, view):
    pre = offsets[EPC_MET_PRE] if code == EPC else offsets[RULE_MET_PRE]
    post = offsets[EPC_MET_POST] if code == EPC else offsets[RULE_MET_POST]
    return shift(float64s, pre, post, view[VIEW_MATCH_TO], view[VIEW_VALUE], view[VIEW_AWAY], view[VIEW_OPP_AWAY],
                 view[VIEW_POST_CRAWFORD] != 0)


@jit
def race_rule_offers(code, params, offsets, float64s, int32s, int64s, board, view):
    """bots.race_rules._RaceRule.wants_double."""
    aware = params[RULE_SCORE_AWARE] != 0.0 and view[VIEW_MATCH_TO] != 0
    if not is_race(board):
        return False
    question = QUESTION_DOUBLE if view[VIEW_CENTRED] != 0 else QUESTION_REDOUBLE
    own, other = _counts(code, offsets, float64s, board)
    if aware:
        return race_chance(own, other) >= _threshold_chance(code, params, own, question) \
            + _shift(code, offsets, float64s, view)
    return _edge(code, params, own, other, question) >= 0.0


@jit
def race_rule_answer(code, params, offsets, float64s, int32s, int64s, board, view):
    """bots.race_rules._RaceRule.respond."""
    if not is_race(board):
        return TAKE
    own, other = _counts(code, offsets, float64s, board)
    if params[RULE_SCORE_AWARE] != 0.0 and view[VIEW_MATCH_TO] != 0:
        dropped = race_chance(own, other) > _threshold_chance(code, params, own, QUESTION_TAKE) \
            + _shift(code, offsets, float64s, view)
    else:
        dropped = _edge(code, params, own, other, QUESTION_TAKE) > 0.0
    return DROP if dropped else TAKE
