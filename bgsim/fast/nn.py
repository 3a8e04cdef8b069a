"""The ``nn`` checker bot's network in Numba: the very integers of ``bots/nn.py``'s numpy one.

The net is quantized (as chess engines' NNUE nets are), so both engines agree exactly:

* first layer: one int32 row per (slot, checker count) of the board seen from the side on roll
  (``tables[slot, count + 15]``, the zero-count row all zeros), plus ``bias`` and, when the
  position is a race, ``race``.  Every input the net was trained on is either linear in the
  counts of single slots (point encodings, pips, checkers off), which the training folds into
  these rows, or the race flag;
* hidden units: the sum clamped to ``0 .. ONE`` (a clipped ReLU at scale ``ONE``);
* outputs: five int64 logits ``bias2 + weights2 . hidden`` at scale ``ONE * ONE``, turned into
  probabilities (units of 1/65536) by one lookup table, ``sigmoid[logit >> SHIFT]``;
* then made consistent: backgammons <= gammons <= wins (or losses).

Sums of integers do not depend on their order, so the kernel may update the first layer from
the parent position (only the slots a play changed) and still equal a full recomputation.
``check_net`` bounds every first-layer sum below 2**31, so the kernel's int32 sums cannot
overflow and equal the reference's int64 ones.

A play is judged by the position after it, seen by the opponent (then on roll): the play
whose result gives the opponent the lowest cubeless equity wins, a tie going to the play first
in canonical order.  A play that bears off our last checker wins 1, 2 or 3 points outright.
"""

from __future__ import annotations

import numpy as np

from .compile import inline_jit, jit
from .moves import play_before

ONE = 4096  # scale of first-layer weights and of a fully active hidden unit
SHIFT = 14  # logits (scale ONE * ONE) >> SHIFT index the sigmoid table (steps of 1/1024)
LIMIT = 16 * 1024  # the table covers logits -16 .. +16
UNIT = 65536  # probabilities are integers in units of 1/65536
OUTPUTS = 5  # win, win gammon, win backgammon, lose gammon, lose backgammon
COUNTS = 31  # checker counts -15 .. 15 per slot


def sigmoid_table() -> np.ndarray:
    """round(UNIT * sigmoid(i / 1024)) for i = -LIMIT .. LIMIT, as int64 (stored in the net file)."""
    steps = np.arange(-LIMIT, LIMIT + 1, dtype=np.float64) / 1024.0
    return np.round(UNIT / (1.0 + np.exp(-steps))).astype(np.int64)


@inline_jit
def _outputs(hidden_sum, weights2, bias2, sigmoid, probabilities):
    """Five consistent probabilities (units 1/UNIT) of the side on roll from first-layer sums."""
    size = hidden_sum.shape[0]
    for k in range(OUTPUTS):
        logit = bias2[k]
        for j in range(size):
            h = hidden_sum[j]
            if h > 0:
                if h > ONE:
                    h = ONE
                logit += np.int64(weights2[k, j]) * h
        index = logit >> SHIFT
        if index < -LIMIT:
            index = -LIMIT
        elif index > LIMIT:
            index = LIMIT
        probabilities[k] = sigmoid[index + LIMIT]
    win = probabilities[0]
    if probabilities[1] > win:
        probabilities[1] = win
    if probabilities[2] > probabilities[1]:
        probabilities[2] = probabilities[1]
    if probabilities[3] > UNIT - win:
        probabilities[3] = UNIT - win
    if probabilities[4] > probabilities[3]:
        probabilities[4] = probabilities[3]


@inline_jit
def _equity(probabilities):
    """Cubeless equity in units of 1/UNIT: 2 win - 1 + gammons and backgammons won - lost."""
    return (2 * probabilities[0] - UNIT + probabilities[1] - probabilities[3]
            + probabilities[2] - probabilities[4])


@inline_jit
def _race(board):
    """bgsim.board.is_race on a (padded) board: every own checker below every opponent one."""
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


@jit
def evaluate(board, tables, bias, race, weights2, bias2, sigmoid, probabilities):
    """The five probabilities (units of 1/UNIT) of the side on roll of ``board`` (26 slots)."""
    own = 0
    opponent = 0
    for slot in range(26):
        if board[slot] > 0:
            own += board[slot]
        elif board[slot] < 0:
            opponent -= board[slot]
    if own == 0 or opponent == 0:
        _finished(board, own == 0, probabilities)
        return
    hidden_sum = bias.copy()
    size = bias.shape[0]
    for slot in range(26):
        count = board[slot]
        if count != 0:
            row = tables[slot, count + 15]
            for j in range(size):
                hidden_sum[j] += row[j]
    if _race(board):
        for j in range(size):
            hidden_sum[j] += race[j]
    _outputs(hidden_sum, weights2, bias2, sigmoid, probabilities)


@inline_jit
def _finished(board, won, probabilities):
    """A finished game from the side on roll: won (all its checkers off) or lost."""
    loser_sign = -1 if won else 1  # the loser's checkers have this sign on the board
    loser_on = 0
    in_home = False
    for slot in range(26):
        count = board[slot] * loser_sign
        if count > 0:
            loser_on += count
            # the winner's home board and the bar, in the winner's numbering
            if (won and slot <= 6) or (not won and slot >= 19):
                in_home = True
    gammon = UNIT if loser_on == 15 else 0
    backgammon = UNIT if (loser_on == 15 and in_home) else 0
    if won:
        probabilities[0] = UNIT
        probabilities[1] = gammon
        probabilities[2] = backgammon
        probabilities[3] = 0
        probabilities[4] = 0
    else:
        probabilities[0] = 0
        probabilities[1] = 0
        probabilities[2] = 0
        probabilities[3] = gammon
        probabilities[4] = backgammon


@jit
def choose(board, plays, keys, count, tables, bias, race, weights2, bias2, sigmoid, scratch,
           probabilities):
    """Index of the play with the highest cubeless equity for the mover; ties: canonical order.

    ``board`` is the position before the play (mover on roll), ``plays[:count]`` the results.
    Each result is judged turned, from the opponent's side: its first-layer sums start from
    those of the turned parent and change only where the play changed a slot (slot ``s`` of a
    mover's board is slot ``25 - s``, count negated, of the turned one).  ``scratch`` is an
    int32 array (2, hidden) reused across calls: no allocation per ply.
    """
    parent = scratch[0]
    hidden_sum = scratch[1]
    size = bias.shape[0]
    for j in range(size):
        parent[j] = bias[j]
    for slot in range(26):
        count_here = board[slot]
        if count_here != 0:
            row = tables[25 - slot, 15 - count_here]
            for j in range(size):
                parent[j] += row[j]
    best = -1
    best_value = np.int64(0)
    for index in range(count):
        own = 0
        for slot in range(26):
            if plays[index, slot] > 0:
                own += plays[index, slot]
        if own == 0:
            # our last checker is off: the opponent, on roll, has lost
            _finished_turned(plays, index, probabilities)
        else:
            for j in range(size):
                hidden_sum[j] = parent[j]
            for slot in range(26):
                before = board[slot]
                after = plays[index, slot]
                if after != before:
                    if before != 0:
                        row = tables[25 - slot, 15 - before]
                        for j in range(size):
                            hidden_sum[j] -= row[j]
                    if after != 0:
                        row = tables[25 - slot, 15 - after]
                        for j in range(size):
                            hidden_sum[j] += row[j]
            if _race(plays[index]):
                for j in range(size):
                    hidden_sum[j] += race[j]
            _outputs(hidden_sum, weights2, bias2, sigmoid, probabilities)
        value = -_equity(probabilities)  # the opponent's equity, from our side
        if best < 0 or value > best_value or (value == best_value and play_before(plays, keys, index, best)):
            best = index
            best_value = value
    return best


@inline_jit
def _finished_turned(plays, index, probabilities):
    """The opponent's probabilities when our play bore off our last checker (a loss for it)."""
    loser_on = 0
    in_home = False
    for slot in range(26):
        count = -plays[index, slot]
        if count > 0:
            loser_on += count
            if slot <= 6:
                in_home = True
    probabilities[0] = 0
    probabilities[1] = 0
    probabilities[2] = 0
    probabilities[3] = UNIT if loser_on == 15 else 0
    probabilities[4] = UNIT if (loser_on == 15 and in_home) else 0
