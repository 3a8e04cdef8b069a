"""The perfect bear-off player: checker play from the databases where they cover the position.

The reference for ``bgsim.fast.bearoff.bearoff_choose`` (same tables, same float64 operations,
same ties), so that a bot which consults it plays the same in both engines.  A position is
covered when every checker of both sides is in its home board:

* both sides with at most ``checkers`` (the two-sided table's size): the play that leaves the
  opponent, now on roll, the smallest chance to win -- exact perfect cubeless play;
* otherwise: the play with the fewest expected rolls to bear off, the rule the one-sided
  database itself is built with (GNU Backgammon's).  It ignores the opponent, so it is not
  always perfect: it does not play to save a gammon or to roll for the few winning sequences.

Bearing off the last checker wins and beats every other play.  Ties go to the first play in
the canonical order of ``bgsim.legal_plays``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

import numpy as np

from ..board import Position
from ..rules import Play
from . import database

WINS = 2.0  # the score of bearing off the last checker: above any chance (<= 1) or -mean (<= 0)


@dataclass(frozen=True)
class PlayerTables:
    """What the player reads: one-sided expected rolls and the flattened two-sided win table."""

    mean: np.ndarray
    win: np.ndarray  # float64[size * size], row = side on roll
    checkers: int


def player_tables(checkers: int | None = None) -> PlayerTables:
    """The tables of the player, read once per process, folder and size: the same array
    objects on every call (the fast engine then stores them once per run)."""
    return _player_tables(database.store.cache_dir(), checkers or database.default_two_sided_checkers())


@lru_cache(maxsize=None)
def _player_tables(folder, checkers: int) -> PlayerTables:
    one = database.one_sided(folder)
    two = database.two_sided(checkers, folder)
    return PlayerTables(np.ascontiguousarray(one.mean), np.ascontiguousarray(two.win).reshape(-1), two.checkers)


def is_pure_bearoff(board) -> bool:
    return all(board[slot] <= 0 for slot in range(7, 26)) and all(board[slot] >= 0 for slot in range(0, 19))


def _own_number(board) -> int:
    return database.position_number([max(board[point], 0) for point in range(1, 7)])


def _opponent_number(board) -> int:
    return database.position_number([max(-board[25 - point], 0) for point in range(1, 7)])


def bearoff_choice(position: Position, plays: Sequence[Play], tables: PlayerTables) -> Play | None:
    """The play the perfect bear-off player picks from ``plays`` (canonical order), or None
    when ``position`` is not a pure bear-off of both sides."""
    board = position.board
    if not plays or not is_pure_bearoff(board):
        return None
    own_on = sum(count for count in board if count > 0)
    opponent_on = -sum(count for count in board if count < 0)
    two = own_on <= tables.checkers and opponent_on <= tables.checkers
    size = database.kernels.position_count(tables.checkers)
    opponent = _opponent_number(board)
    best, best_score = None, 0.0
    for play in plays:
        after = _own_number(play.result.board)
        if after == 0:
            score = WINS
        elif two:
            score = 1.0 - float(tables.win[opponent * size + after])
        else:
            score = -float(tables.mean[after])
        if best is None or score > best_score:  # strictly greater: ties keep the earlier play
            best, best_score = play, score
    return best
