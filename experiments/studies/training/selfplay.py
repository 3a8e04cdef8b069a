"""Positions for training, from games the fast engine's move generator plays at full speed.

A game is played by ``pubeval`` or by a net (``bgsim.fast.nn.choose``), each play replaced by
a uniformly random legal one with probability ``noise`` so that the positions cover more than
one player's habits.  Every position a side is on roll in (before its roll) is kept; with
probability ``alternatives`` a ply also keeps one random legal result that was *not* played,
turned to the opponent's side: the net must rank the plays it rejects too.

The game loop here is simplified, not bgsim's rules: the first roll may be a double, the same
side always moves first, and a game stops quietly after 2,000 plies.  That is harmless because
these games only choose WHICH positions get GNU Backgammon's labels; nothing is scored from
them.  It stays as it is so that ``bgsim train --seed 1`` still reproduces the shipped net
(``bots/data/nn.npz``).  The learning curve is measured elsewhere, with bgsim's own engine
(``experiments.studies.training.train.duel_points``).
"""

from __future__ import annotations

import numpy as np
import numba

from bgsim.fast.moves import BOARD_BYTES, generate, new_buffers
from bgsim.fast.board import is_race
from bgsim.fast.nn import choose as nn_choose
from bots.pubeval import CONTACT_WEIGHTS, RACE_WEIGHTS

_RACE = np.array(RACE_WEIGHTS)
_CONTACT = np.array(CONTACT_WEIGHTS)

PUBEVAL, NET = 0, 1


@numba.njit(cache=True, nogil=True)
def _turn(board):
    for slot in range(13):
        other = board[25 - slot]
        board[25 - slot] = -board[slot]
        board[slot] = -other


@numba.njit(cache=True, nogil=True)
def _start(board):
    board[:] = 0
    board[24] = 2
    board[13] = 5
    board[8] = 3
    board[6] = 5
    board[1] = -2
    board[12] = -5
    board[17] = -3
    board[19] = -5


@numba.njit(cache=True, nogil=True)
def play_positions(seed, games, policy, noise, alternatives, tables, bias, race, weights2, bias2,
                   sigmoid, contact, out):
    """Fill ``out`` (int8, (capacity, 26)) with positions; returns how many were written."""
    np.random.seed(seed)
    plays, keys, slots, table, order = new_buffers()
    parent = np.zeros(bias.shape[0], dtype=np.int64)
    hidden_sum = np.zeros(bias.shape[0], dtype=np.int64)
    probabilities = np.zeros(5, dtype=np.int64)
    board = np.zeros(BOARD_BYTES, dtype=np.int8)
    written = 0
    capacity = out.shape[0]
    for _game in range(games):
        _start(board)
        for _ply in range(2000):
            if written >= capacity:
                return written
            for j in range(26):
                out[written, j] = board[j]
            written += 1
            d1 = np.random.randint(1, 7)
            d2 = np.random.randint(1, 7)
            count = generate(board, d1, d2, plays, keys, slots, table, order)
            if count > 0:
                if np.random.random() < noise:
                    index = np.random.randint(0, count)
                elif policy == PUBEVAL:
                    index = _pubeval_index(board, plays, count)
                else:
                    index = nn_choose(board, plays, keys, count, tables, bias, race, weights2,
                                      bias2, sigmoid, contact, parent, hidden_sum, probabilities)
                if count > 1 and written < capacity and np.random.random() < alternatives:
                    other = np.random.randint(0, count - 1)
                    if other >= index:
                        other += 1
                    own = 0
                    for j in range(1, 26):
                        if plays[other, j] > 0:
                            own += plays[other, j]
                    if own > 0:
                        for j in range(26):
                            out[written, j] = -plays[other, 25 - j]
                        written += 1
                for j in range(BOARD_BYTES):
                    board[j] = plays[index, j]
            own = 0
            for j in range(1, 26):
                if board[j] > 0:
                    own += board[j]
            if own == 0:
                break
            _turn(board)
    return written


# A Numba copy of bots.pubeval's evaluation, kept because round 0's positions come from pubeval
# self-play inside this kernel (the bot itself cannot be called from here); it is not used to
# measure anything.
@numba.njit(cache=True, nogil=True)
def _pubeval(plays, row, weights):
    """bots.pubeval.pubeval_score of a play's result (the training's own opponent and
    teacher of round 0; ties and all-off do not matter here: only the best play is used)."""
    on_board = 0
    for slot in range(1, 26):
        if plays[row, slot] > 0:
            on_board += plays[row, slot]
    if on_board == 0:
        return 99999999.0
    score = 0.0
    for j in range(1, 25):
        n = plays[row, 25 - j]
        base = 5 * (j - 1)
        if n == -1:
            score += weights[base]
        if n == 1:
            score += weights[base + 1]
        if n >= 2:
            score += weights[base + 2]
        if n == 3:
            score += weights[base + 3]
        if n >= 4:
            score += weights[base + 4] * ((n - 3) / 2.0)
    score += weights[120] * (-plays[row, 0] / 2.0)
    score += weights[121] * ((15 - on_board) / 15.0)
    return score


@numba.njit(cache=True, nogil=True)
def _pubeval_index(board, plays, count):
    weights = _RACE if is_race(board) else _CONTACT
    index = 0
    best = _pubeval(plays, 0, weights)
    for i in range(1, count):
        value = _pubeval(plays, i, weights)
        if value > best:
            index = i
            best = value
    return index
