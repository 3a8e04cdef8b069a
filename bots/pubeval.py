"""Tesauro's public evaluation function (pubeval, 1993), the standard benchmark opponent.

A linear score ``W . X`` of the position after the play, with one weight vector for races and
one for contact; the weights below are the published ones (Tesauro's ``WT.race`` and
``WT.cntc``, as distributed with GNU Backgammon).  Which vector applies is decided on the
position *before* the play, as the original specifies.

Our board layout is pubeval's own ``pos[0..25]`` (own checkers positive, moving 24 -> 1, own
bar at 25, minus the opponent's bar at 0); pubeval's ``pos[26]`` is our checkers off.
"""

from __future__ import annotations

import numpy as np

from bgsim.board import is_race

from .checker import BEAROFF, EvaluationBot

RACE_WEIGHTS = (
    0.00000, -0.17160, 0.27010, 0.29906, -0.08471, 0.00000, -1.40375,
    -1.05121, 0.07217, -0.01351, 0.00000, -1.29506, -2.16183, 0.13246,
    -1.03508, 0.00000, -2.29847, -2.34631, 0.17253, 0.08302, 0.00000,
    -1.27266, -2.87401, -0.07456, -0.34240, 0.00000, -1.34640, -2.46556,
    -0.13022, -0.01591, 0.00000, 0.27448, 0.60015, 0.48302, 0.25236, 0.00000,
    0.39521, 0.68178, 0.05281, 0.09266, 0.00000, 0.24855, -0.06844, -0.37646,
    0.05685, 0.00000, 0.17405, 0.00430, 0.74427, 0.00576, 0.00000, 0.12392,
    0.31202, -0.91035, -0.16270, 0.00000, 0.01418, -0.10839, -0.02781, -0.88035,
    0.00000, 1.07274, 2.00366, 1.16242, 0.22520, 0.00000, 0.85631, 1.06349,
    1.49549, 0.18966, 0.00000, 0.37183, -0.50352, -0.14818, 0.12039, 0.00000,
    0.13681, 0.13978, 1.11245, -0.12707, 0.00000, -0.22082, 0.20178, -0.06285,
    -0.52728, 0.00000, -0.13597, -0.19412, -0.09308, -1.26062, 0.00000, 3.05454,
    5.16874, 1.50680, 5.35000, 0.00000, 2.19605, 3.85390, 0.88296, 2.30052,
    0.00000, 0.92321, 1.08744, -0.11696, -0.78560, 0.00000, -0.09795, -0.83050,
    -1.09167, -4.94251, 0.00000, -1.00316, -3.66465, -2.56906, -9.67677,
    0.00000, -2.77982, -7.26713, -3.40177, -12.32252, 0.00000, 3.42040,
)

CONTACT_WEIGHTS = (
    0.25696, -0.66937, -1.66135, -2.02487, -2.53398, -0.16092, -1.11725,
    -1.06654, -0.92830, -1.99558, -1.10388, -0.80802, 0.09856, -0.62086,
    -1.27999, -0.59220, -0.73667, 0.89032, -0.38933, -1.59847, -1.50197,
    -0.60966, 1.56166, -0.47389, -1.80390, -0.83425, -0.97741, -1.41371,
    0.24500, 0.10970, -1.36476, -1.05572, 1.15420, 0.11069, -0.38319, -0.74816,
    -0.59244, 0.81116, -0.39511, 0.11424, -0.73169, -0.56074, 1.09792, 0.15977,
    0.13786, -1.18435, -0.43363, 1.06169, -0.21329, 0.04798, -0.94373, -0.22982,
    1.22737, -0.13099, -0.06295, -0.75882, -0.13658, 1.78389, 0.30416, 0.36797,
    -0.69851, 0.13003, 1.23070, 0.40868, -0.21081, -0.64073, 0.31061, 1.59554,
    0.65718, 0.25429, -0.80789, 0.08240, 1.78964, 0.54304, 0.41174, -1.06161,
    0.07851, 2.01451, 0.49786, 0.91936, -0.90750, 0.05941, 1.83120, 0.58722,
    1.28777, -0.83711, -0.33248, 2.64983, 0.52698, 0.82132, -0.58897, -1.18223,
    3.35809, 0.62017, 0.57353, -0.07276, -0.36214, 4.37655, 0.45481, 0.21746,
    0.10504, -0.61977, 3.54001, 0.04612, -0.18108, 0.63211, -0.87046, 2.47673,
    -0.48016, -1.27157, 0.86505, -1.11342, 1.24612, -0.82385, -2.77082,
    1.23606, -1.59529, 0.10438, -1.30206, -4.11520, 5.62596, -2.75800,
)

assert len(RACE_WEIGHTS) == len(CONTACT_WEIGHTS) == 122

ALL_OFF = 99999999.0  # pubeval's score for a play that bears off the last checker

# The same weights as the fast kernel's arrays (the layout's race_weights, contact_weights):
# one array object each, so the engine stores them once however many seats play pubeval.
_FAST_ARRAYS = {
    "race_weights": np.array(RACE_WEIGHTS, dtype=np.float64),
    "contact_weights": np.array(CONTACT_WEIGHTS, dtype=np.float64),
}
for _array in _FAST_ARRAYS.values():
    _array.flags.writeable = False


def pubeval_inputs(board) -> list[float]:
    """Tesauro's 122 inputs of a board (26 ints, seen from the mover).

    For j = 1..24 the five inputs ``5*(j-1) .. 5*(j-1)+4`` describe point ``25 - j`` (so the
    mover's 24-point comes first): an opponent blot; exactly one own checker; two or more own;
    exactly three own; ``(n - 3) / 2`` for ``n >= 4`` own.  Input 120 is the opponent's bar
    count / 2, input 121 the mover's checkers off / 15.
    """
    inputs = [0.0] * 122
    for j in range(1, 25):
        n = board[25 - j]
        base = 5 * (j - 1)
        if n == -1:
            inputs[base] = 1.0
        if n == 1:
            inputs[base + 1] = 1.0
        if n >= 2:
            inputs[base + 2] = 1.0
        if n == 3:
            inputs[base + 3] = 1.0
        if n >= 4:
            inputs[base + 4] = (n - 3) / 2.0
    inputs[120] = -board[0] / 2.0
    inputs[121] = checkers_off(board) / 15.0
    return inputs


def checkers_off(board) -> int:
    on_board = 0
    for slot in range(1, 26):
        if board[slot] > 0:
            on_board += board[slot]
    return 15 - on_board


def pubeval_score(board, race: bool) -> float:
    """pubeval of the board after a play; ``race`` is decided on the board *before* it.

    The sum runs over the inputs in index order 0..121 in float64, ``score += w[i] * x[i]``
    (terms whose input is zero add nothing and may be skipped).  A board with all 15 checkers
    off scores :data:`ALL_OFF`.
    """
    if checkers_off(board) == 15:
        return ALL_OFF
    weights = RACE_WEIGHTS if race else CONTACT_WEIGHTS
    score = 0.0
    for index, value in enumerate(pubeval_inputs(board)):
        if value != 0.0:
            score += weights[index] * value
    return score


class PubevalBot(EvaluationBot):
    """Tesauro's pubeval: :func:`pubeval_score` of each play, race weights when the position
    before the play is a race (:func:`is_race`).

    The fast kernel gets :data:`RACE_WEIGHTS` and :data:`CONTACT_WEIGHTS` as its arrays.
    """

    name = "pubeval"
    fast_name = "pubeval"
    description = "Tesauro's public evaluation function (linear, race and contact weights)"
    variant_note = "fitted to the standard game; in a variant it sees checkers in hand as on the bar"
    PARAMS = (BEAROFF,)

    def pick(self, position, roll, plays, random):
        race = is_race(position.board)
        best = plays[0]
        best_score = pubeval_score(best.result.board, race)
        for play in plays[1:]:
            value = pubeval_score(play.result.board, race)
            if value > best_score:
                best, best_score = play, value
        return best

    def score(self, board, before):
        return pubeval_score(board, is_race(before.board))

    def fast_arrays(self):
        return _FAST_ARRAYS


BOTS = (PubevalBot,)
