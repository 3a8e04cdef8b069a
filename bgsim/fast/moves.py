"""Legal-play generation in Numba: the same set of plays as ``bgsim.rules.legal_plays``.

The reference tries every die on every checker and keeps the longest sequences.  Here:

* a non-double tries both orders of the dice on every pair of sources; if no order plays both
  dice, the single moves of the larger die are the plays, or failing those, of the smaller;
* a double walks sources in non-increasing order only (bar, 24, ..., 1).  Any legal sequence
  of one die size can be reordered that way with the same result: a move from a higher point
  never depends on a lower one (hits only open points, and bearing off from a point needs
  nothing above it), so nothing is lost and far fewer sequences are walked;
* results are deduplicated on the fly in an open-addressing table keyed on the Zobrist key of
  ``bgsim.board`` (kept up to date move by move), with a full board compare on a key match.

The canonical order (ascending ``(key, board)``) is not built unless a caller needs it:
``kth_play`` sorts for the random bot, evaluation bots compare keys only on ties.
"""

from __future__ import annotations

import numpy as np

from ..board import ZOBRIST as _ZOBRIST
from .compile import jit

ZOBRIST = np.array(_ZOBRIST, dtype=np.uint64)  # [slot, count + 15]
MAX_PLAYS = 4096  # GNU Backgammon's bound on distinct plays is 3060
TABLE_SIZE = 8192  # a power of two, at least twice MAX_PLAYS
TABLE_MASK = TABLE_SIZE - 1


@jit
def new_buffers():
    plays = np.empty((MAX_PLAYS, 26), dtype=np.int8)
    keys = np.empty(MAX_PLAYS, dtype=np.uint64)
    slots = np.empty(MAX_PLAYS, dtype=np.int64)
    table = np.full(TABLE_SIZE, -1, dtype=np.int64)
    order = np.empty(MAX_PLAYS, dtype=np.int64)
    return plays, keys, slots, table, order


@jit
def board_key(board):
    key = np.uint64(0)
    for slot in range(26):
        key ^= ZOBRIST[slot, board[slot] + 15]
    return key


@jit
def _outside(board):
    """Own checkers not yet home (points 7..24 and the bar): bearing off needs none."""
    count = 0
    for slot in range(7, 26):
        if board[slot] > 0:
            count += board[slot]
    return count


@jit
def _can_move(board, source, die, outside):
    target = source - die
    if target >= 1:
        return board[target] >= -1
    if outside > 0:
        return False
    if target == 0:
        return True
    for point in range(source + 1, 7):  # bearing off from below the highest point needs an exact die
        if board[point] > 0:
            return False
    return True


@jit
def _set(board, slot, count, key):
    key ^= ZOBRIST[slot, board[slot] + 15] ^ ZOBRIST[slot, count + 15]
    board[slot] = count
    return key


@jit
def _move(board, source, die, key):
    """Play one checker from ``source`` by ``die``; returns (new key, hit)."""
    target = source - die
    key = _set(board, source, board[source] - 1, key)
    hit = False
    if target >= 1:
        if board[target] == -1:
            hit = True
            key = _set(board, target, 0, key)
            key = _set(board, 0, board[0] - 1, key)
        key = _set(board, target, board[target] + 1, key)
    return key, hit


@jit
def _unmove(board, source, die, key, hit):
    target = source - die
    if target >= 1:
        key = _set(board, target, board[target] - 1, key)
        if hit:
            key = _set(board, target, -1, key)
            key = _set(board, 0, board[0] + 1, key)
    key = _set(board, source, board[source] + 1, key)
    return key


@jit
def _leaves_home(source, die):
    return source >= 7 and source - die < 7


@jit
def _insert(board, key, plays, keys, slots, table, count):
    """Add ``board`` unless already there; returns the new count."""
    slot = np.int64(key & np.uint64(TABLE_MASK))
    while True:
        index = table[slot]
        if index < 0:
            break
        if keys[index] == key:
            same = True
            for i in range(26):
                if plays[index, i] != board[i]:
                    same = False
                    break
            if same:
                return count
        slot = (slot + 1) & TABLE_MASK
    table[slot] = count
    slots[count] = slot
    keys[count] = key
    for i in range(26):
        plays[count, i] = board[i]
    return count + 1


@jit
def _clear(table, slots, count):
    for i in range(count):
        table[slots[i]] = -1


@jit
def _single_die(board, die, key, outside, plays, keys, slots, table, count):
    for source in range(25, 0, -1):
        if board[source] <= 0 or (board[25] > 0 and source != 25):
            continue
        if _can_move(board, source, die, outside):
            key, hit = _move(board, source, die, key)
            count = _insert(board, key, plays, keys, slots, table, count)
            key = _unmove(board, source, die, key, hit)
    return count


@jit
def _two_dice(board, first, second, key, outside, plays, keys, slots, table, count):
    for source in range(25, 0, -1):
        if board[source] <= 0 or (board[25] > 0 and source != 25):
            continue
        if not _can_move(board, source, first, outside):
            continue
        key, hit = _move(board, source, first, key)
        out1 = outside - 1 if _leaves_home(source, first) else outside
        for source2 in range(25, 0, -1):
            if board[source2] <= 0 or (board[25] > 0 and source2 != 25):
                continue
            if _can_move(board, source2, second, out1):
                key, hit2 = _move(board, source2, second, key)
                count = _insert(board, key, plays, keys, slots, table, count)
                key = _unmove(board, source2, second, key, hit2)
        key = _unmove(board, source, first, key, hit)
    return count


@jit
def _movable(board, source, die, outside):
    return board[source] > 0 and (board[25] == 0 or source == 25) and _can_move(board, source, die, outside)


@jit
def _leaf(board, key, depth, best, plays, keys, slots, table, count):
    """Record a sequence that stops at ``depth`` moves; only the deepest ones are plays."""
    if depth < best:
        return count, best
    if depth > best:
        _clear(table, slots, count)
        count = 0
        best = depth
    return _insert(board, key, plays, keys, slots, table, count), best


@jit
def _doubles(board, die, key, outside, plays, keys, slots, table):
    """Up to four moves of ``die``, sources non-increasing; keeps the deepest sequences."""
    count = 0
    best = 0
    for s1 in range(25, 0, -1):
        if not _movable(board, s1, die, outside):
            continue
        k1, h1 = _move(board, s1, die, key)
        o1 = outside - 1 if _leaves_home(s1, die) else outside
        deeper1 = False
        for s2 in range(s1, 0, -1):
            if not _movable(board, s2, die, o1):
                continue
            deeper1 = True
            k2, h2 = _move(board, s2, die, k1)
            o2 = o1 - 1 if _leaves_home(s2, die) else o1
            deeper2 = False
            for s3 in range(s2, 0, -1):
                if not _movable(board, s3, die, o2):
                    continue
                deeper2 = True
                k3, h3 = _move(board, s3, die, k2)
                o3 = o2 - 1 if _leaves_home(s3, die) else o2
                deeper3 = False
                for s4 in range(s3, 0, -1):
                    if not _movable(board, s4, die, o3):
                        continue
                    deeper3 = True
                    k4, h4 = _move(board, s4, die, k3)
                    count, best = _leaf(board, k4, 4, best, plays, keys, slots, table, count)
                    _unmove(board, s4, die, k4, h4)
                if not deeper3:
                    count, best = _leaf(board, k3, 3, best, plays, keys, slots, table, count)
                _unmove(board, s3, die, k3, h3)
            if not deeper2:
                count, best = _leaf(board, k2, 2, best, plays, keys, slots, table, count)
            _unmove(board, s2, die, k2, h2)
        if not deeper1:
            count, best = _leaf(board, k1, 1, best, plays, keys, slots, table, count)
        _unmove(board, s1, die, k1, h1)
    return count


@jit
def generate(board, die1, die2, plays, keys, slots, table):
    """Fill ``plays``/``keys`` with the distinct legal plays of the roll; returns how many.

    ``board`` (int8[26], side on roll) is restored before returning.  The table is left empty
    for the next call.
    """
    key = board_key(board)
    outside = _outside(board)
    if die1 == die2:
        count = _doubles(board, die1, key, outside, plays, keys, slots, table)
    else:
        count = _two_dice(board, die1, die2, key, outside, plays, keys, slots, table, 0)
        count = _two_dice(board, die2, die1, key, outside, plays, keys, slots, table, count)
        if count == 0:
            high = max(die1, die2)
            low = min(die1, die2)
            count = _single_die(board, high, key, outside, plays, keys, slots, table, 0)
            if count == 0:
                count = _single_die(board, low, key, outside, plays, keys, slots, table, 0)
    _clear(table, slots, count)
    return count


@jit
def play_before(plays, keys, a, b):
    """Whether play ``a`` comes before play ``b`` in canonical order (key, then board)."""
    if keys[a] != keys[b]:
        return keys[a] < keys[b]
    for i in range(26):
        if plays[a, i] != plays[b, i]:
            return plays[a, i] < plays[b, i]
    return False


@jit
def canonical_order(plays, keys, count, order):
    """Fill ``order[:count]`` with play indices in canonical order (insertion sort: counts are small)."""
    for i in range(count):
        j = i
        while j > 0 and play_before(plays, keys, i, order[j - 1]):
            order[j] = order[j - 1]
            j -= 1
        order[j] = i


@jit
def kth_play(plays, keys, count, k, order):
    """Index of the k-th play (from 0) in canonical order."""
    canonical_order(plays, keys, count, order)
    return order[k]


@jit
def legal_results(board, die1, die2):
    """All distinct results in canonical order, as a fresh (n, 26) int8 array."""
    plays, keys, slots, table, order = new_buffers()
    work = board.copy()
    count = generate(work, die1, die2, plays, keys, slots, table)
    canonical_order(plays, keys, count, order)
    out = np.empty((count, 26), dtype=np.int8)
    for i in range(count):
        out[i, :] = plays[order[i], :]
    return out
