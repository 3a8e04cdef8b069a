"""The perfect bear-off player: checker play from the databases where they cover the position.

The reference for ``bgsim.fast.bearoff.bearoff_choose`` (same tables, same float64 operations,
same ties), so that a bot which consults it plays the same in both engines.  A position is
covered when every checker of both sides is in its home board:

* both sides with at most ``checkers`` (the two-sided table's size): the play that leaves the
  opponent, now on roll, the smallest chance to win -- exact perfect cubeless play;
* otherwise: the play that leaves the opponent the lowest cubeless equity (gammons included)
  by the one-sided convolution -- the best play for that estimate, which assumes both sides
  go on with the one-sided database's own rule (fewest expected rolls), so near the edge of
  the estimate it is not always perfect.

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
from .. import bearoff_numbering as numbering
from . import database

WINS = 3.0  # the score of bearing off the last checker: above every other score (at most 2)
MAX_ROLLS = numbering.MAX_ROLLS


@dataclass(frozen=True)
class PlayerTables:
    """What the player reads, flattened: the one-sided ``rolls_off`` and ``first_off`` tables
    (``MAX_ROLLS`` per position) one after the other in ``one_sided`` (one array for the fast
    engine, whose bots have few array slots), ``rolls`` and ``first`` its two halves, and the
    two-sided win table (row: side on roll)."""

    one_sided: np.ndarray
    win: np.ndarray
    checkers: int

    @property
    def rolls(self) -> np.ndarray:
        return self.one_sided[: len(self.one_sided) // 2]

    @property
    def first(self) -> np.ndarray:
        return self.one_sided[len(self.one_sided) // 2:]


def player_tables(checkers: int | None = None) -> PlayerTables:
    """The tables of the player, read once per process, folder and size: the same array
    objects on every call (the fast engine then stores them once per run)."""
    return _player_tables(database.store.cache_dir(), checkers or database.default_two_sided_checkers())


@lru_cache(maxsize=None)
def _player_tables(folder, checkers: int) -> PlayerTables:
    one = database.one_sided(folder)
    two = database.two_sided(checkers, folder)
    one_sided = np.concatenate([np.ravel(one.rolls_off), np.ravel(one.first_off)])
    return PlayerTables(one_sided, np.ascontiguousarray(two.win).reshape(-1), two.checkers)


def is_pure_bearoff(board) -> bool:
    return all(board[slot] <= 0 for slot in range(7, 26)) and all(board[slot] >= 0 for slot in range(0, 19))


def _own_number(board) -> int:
    return database.position_number([max(board[point], 0) for point in range(1, 7)])


def _opponent_number(board) -> int:
    return database.position_number([max(-board[25 - point], 0) for point in range(1, 7)])


def one_sided_equity(tables: PlayerTables, on_roll: int, other: int) -> float:
    """Cubeless equity of ``on_roll`` (on roll) against ``other`` by the one-sided convolution,
    in the kernel's order of operations (``bgsim.fast.bearoff.one_sided_equity``)."""
    rolls, first = tables.rolls, tables.first  # views, made once per call
    mine, theirs = on_roll * MAX_ROLLS, other * MAX_ROLLS
    their_at_least = their_first_at_least = my_first_beyond = 0.0
    win = win_gammon = lose_gammon = 0.0
    for n in range(MAX_ROLLS - 1, -1, -1):
        their_at_least += float(rolls[theirs + n])
        their_first_at_least += float(first[theirs + n])
        win += float(rolls[mine + n]) * their_at_least
        win_gammon += float(rolls[mine + n]) * their_first_at_least
        lose_gammon += float(rolls[theirs + n]) * my_first_beyond
        my_first_beyond += float(first[mine + n])
    return 2.0 * win - 1.0 + win_gammon - lose_gammon


def bearoff_choice(position: Position, plays: Sequence[Play], tables: PlayerTables) -> Play | None:
    """The play the perfect bear-off player picks from ``plays`` (canonical order), or None
    when ``position`` is not a pure bear-off of both sides."""
    board = position.board
    if not plays or not is_pure_bearoff(board):
        return None
    own_on = sum(count for count in board if count > 0)
    opponent_on = -sum(count for count in board if count < 0)
    two = own_on <= tables.checkers and opponent_on <= tables.checkers
    size = numbering.position_count(tables.checkers)
    opponent = _opponent_number(board)
    best, best_score = None, 0.0
    for play in plays:
        after = _own_number(play.result.board)
        if after == 0:
            score = WINS
        elif two:
            score = 1.0 - float(tables.win[opponent * size + after])
        else:
            score = -one_sided_equity(tables, opponent, after)
        if best is None or score > best_score:  # strictly greater: ties keep the earlier play
            best, best_score = play, score
    return best
