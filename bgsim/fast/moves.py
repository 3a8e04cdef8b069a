"""Legal-play generation in Numba: the same plays as ``bgsim.rules.legal_plays``.

The reference tries every die on every checker and keeps the longest sequences.  Here:

* a non-double tries both orders of the dice (larger die first, then smaller first); when no
  order plays both dice, the single moves of the larger die are the plays if there are any;
* a double walks sources in non-increasing order only (bar, 24, ..., 1).  Any legal sequence
  of one die size can be reordered that way with the same result: a move from a higher point
  never depends on a lower one (hits only open points, and bearing off from a point needs
  nothing above it), so nothing is lost and far fewer sequences are walked;
* the second order (smaller die first) moves, as its second move, only the checker the first
  move moved or a checker bearing off, unless the first move entered from the bar.  Every
  other second move repeats a result of the first order (below);
* the legal sources of a die are computed as a bit mask of points (held, not moving onto an
  opponent point, bearing off only when allowed) and taken highest first;
* results of a non-double are deduplicated on the fly in an open-addressing table keyed on the
  Zobrist key of ``bgsim.board`` (kept up to date move by move), with a full board compare on a
  key match.  A double needs no table: its walk never reaches one result twice (below).

Why the second order may skip those moves.  Let the smaller die ``l`` move a checker from ``s``
(not the bar) and then the larger die ``h`` move a checker from ``t`` to ``t - h >= 1``, with
``t != s - l`` (another checker, or a second one from ``s``).  Then ``h`` from ``t`` and ``l``
from ``s`` in that order is legal too, and the two moves commute to the same board (a blot
on a shared target is hit once either way), so the first order has found the result:

* ``t`` held a checker before (the first move only added one at ``s - l``), two if ``t == s``;
* the bar was empty (else the first move would have had to enter);
* ``t - h`` was not an opponent point: a move only adds own checkers or removes a blot;
* ``l`` from ``s`` afterwards: the move from ``t`` only added a checker at ``t - h``.  If it
  bears off, all checkers were home already and stay home; bearing off with a larger die
  needed no checker above ``s``, so ``t <= s`` and ``t - h`` is below ``s`` too.

So every result left out is one the first order reached with both dice, which makes two dice
the maximum: results with one die are then not plays, and the leaf and maximum-dice logic
sees no difference.  Order matters only for bar entry and for bearing off (a first move can
bring the last checker home or clear the points above), and those are still walked.

Why a double's walk reaches every result once.  It walks each multiset of sources once (in
non-increasing order), and two different multisets ``A`` and ``B`` of moves of one die ``d``
leave different boards.  Let ``p`` be the highest source that ``A`` and ``B`` use a different
number of times, ``n_A(p) != n_B(p)``.  The side on roll has checkers on ``p`` before the roll,
so no opponent checker is there before or after, and slot ``p`` ends up holding that side's
``own(p) - n(p) + n(p + d)`` checkers (no landing term from above the bar, and a checker that
bears off lands nowhere).  ``n(p + d)`` is the same for both, ``n(p)`` is not, so slot ``p``
differs.  Only the deepest leaves are kept, and two of them at one depth are two multisets.

The canonical order (ascending ``(key, board)``) is not built unless a caller needs it:
``kth_play`` selects for the random bot, evaluation bots compare keys only on ties.
"""

from __future__ import annotations

import numpy as np

# Numba's count-leading-zeros intrinsic (one instruction): the highest set bit of a mask.
from numba.cpython.unsafe.numbers import leading_zeros

from ..board import ZOBRIST as _ZOBRIST
from .compile import alloc_jit, inline_jit, jit, stack_empty

ZOBRIST = np.array(_ZOBRIST, dtype=np.uint64)  # [slot, count + 15]
MAX_PLAYS = 4096  # GNU Backgammon's bound on distinct plays is 3060
# A board is 26 int8 slots padded with zeros to 32 bytes, so that the search compares and
# copies a board as four 64-bit words.  Every board the kernels handle has this padding.
BOARD_BYTES = 32
TABLE_SIZE = 8192  # a power of two, at least twice MAX_PLAYS
TABLE_MASK = TABLE_SIZE - 1
MAX_DEPTH = 4  # moves in a play
DEPTHS = MAX_DEPTH + 1  # the walk's stack: the board before the roll and after each move
# Off only in a copy that ``bgsim bench --profile`` times (``bgsim.fast.timing``): every leaf kept,
# duplicates too, so that the difference is what duplicate removal costs.
DEDUPE = True


@alloc_jit
def new_buffers():
    plays = np.zeros((MAX_PLAYS, BOARD_BYTES), dtype=np.int8)
    keys = np.empty(MAX_PLAYS, dtype=np.uint64)
    slots = np.empty(MAX_PLAYS, dtype=np.int64)
    # int16 (play indices stay below MAX_PLAYS): 16 KiB, so the table stays in the L1 cache
    table = np.full(TABLE_SIZE, -1, dtype=np.int16)
    order = np.empty(MAX_PLAYS, dtype=np.int64)
    return plays, keys, slots, table, order


@jit
def board_key(board):
    key = np.uint64(0)
    for slot in range(26):
        key ^= ZOBRIST[slot, board[slot] + 15]
    return key


@jit
def generate(board, die1, die2, plays, keys, slots, table, work):
    """Fill ``plays``/``keys`` with the distinct legal plays of the roll; returns how many.

    ``board`` (int8[32], side on roll, padded) is only read, and the table is left empty for
    the next call.  ``work`` (int64, the caller's scratch buffer) is not used by this walk.

    One flat function with an explicit stack and no calls: Numba passes each array to a helper
    as a dozen arguments, which cost 2-4x here.  A non-double runs two passes (larger die
    first, then smaller first), a double one pass of four moves in which each move starts at
    the previous move's point or lower (see the module docstring).  Only the deepest sequences
    are kept (the maximum-dice rule): a deeper leaf empties the table.

    Copy-make: each depth has its own copy of the board (four 64-bit words), its Zobrist key,
    its mask of occupied points and its count of checkers outside home, so a move writes the
    next depth's copy and going back up restores nothing.  The stack lives on the kernel's own
    stack (``stack_empty``), where the compiler knows no store to ``plays`` or ``keys`` can
    change it.  The rules of a move live in two places: the legal sources of a die (one mask
    expression) and the move itself (source down one, target up one, a blot there hit).
    """
    board64 = board.view(np.uint64)
    plays64 = plays.view(np.uint64)
    words = stack_empty((DEPTHS, 4), np.uint64)  # the board at each depth
    boards = words.view(np.int8)  # the same, slot by slot
    key_at = stack_empty(DEPTHS, np.uint64)
    occupied_at = stack_empty(DEPTHS, np.int64)
    outside_at = stack_empty(DEPTHS, np.int64)  # checkers outside home (bear-off when 0)
    top_at = stack_empty(DEPTHS, np.int64)  # the highest source still to try
    source_at = stack_empty(DEPTHS, np.int64)  # the source moved
    deep_at = stack_empty(DEPTHS, np.bool_)  # whether the depth found a move
    key = np.uint64(0)
    outside = 0
    for slot in range(26):
        key ^= ZOBRIST[slot, board[slot] + 15]
        if slot >= 7 and board[slot] > 0:
            outside += board[slot]
    doubles = die1 == die2
    high = max(die1, die2)
    low = min(die1, die2)
    # The legal sources of a die are found with bit masks, not by testing point after point
    # (every such test was a branch the processor could not predict): bit p of ``occupied``
    # marks a checker of the side on roll on point p (25: the bar), bit p of ``blocked`` an
    # opponent point there.  Our moves never make or break an opponent point (a hit only
    # takes a blot), so ``blocked`` holds for the whole search; ``occupied`` follows each move.
    occupied = np.int64(0)
    blocked = np.int64(0)
    for slot in range(1, 26):
        if board[slot] > 0:
            occupied |= np.int64(1) << slot
        elif board[slot] <= -2:
            blocked |= np.int64(1) << slot
    for word in range(4):
        words[0, word] = board64[word]
    key_at[0] = key
    occupied_at[0] = occupied
    outside_at[0] = outside
    ndice = 4 if doubles else 2
    passes = 1 if doubles else 2
    dedupe = DEDUPE and not doubles  # a double's results are all distinct (module docstring)
    count = 0
    best = 0
    high_count = 0
    high_best = 0
    for pass_ in range(passes):
        first = high if pass_ == 0 else low
        second = low if pass_ == 0 else high
        if doubles:
            second = first
        depth = 0
        top_at[0] = 25
        deep_at[0] = False
        while True:
            die = first if depth == 0 else second
            occupied = occupied_at[depth]
            out = outside_at[depth]
            sources = occupied & (np.int64(1) << 25) if boards[depth, 25] > 0 else occupied
            # moves inside the board: the source is above the die and the target not blocked
            legal = sources & ~(blocked << die) & ~((np.int64(2) << die) - 1)
            if out == 0:  # all home (so none on the bar): bearing off
                legal |= sources & (np.int64(1) << die)  # exactly
                highest = 63 - leading_zeros(sources)  # -1 when none is left
                if 1 <= highest < die:  # with a larger die: only from the highest point
                    legal |= np.int64(1) << highest
            if not doubles and pass_ == 1 and depth == 1 and source_at[0] != 25:
                # Second pass (smaller die first), second move: unless the first move entered
                # from the bar, only the checker just moved and bear-offs can give a result
                # the first pass has not found (proof in the module docstring).
                keep = (np.int64(2) << die) - 1
                follow = source_at[0] - first
                if follow >= 1:
                    keep |= np.int64(1) << follow
                legal &= keep
            legal &= (np.int64(2) << top_at[depth]) - 1
            leaf = False
            if legal != 0:
                source = 63 - leading_zeros(legal)
                deep_at[depth] = True
                top_at[depth] = source - 1  # where this depth goes on when the walk comes back
                source_at[depth] = source
                target = source - die
                below = depth + 1
                for word in range(4):
                    words[below, word] = words[depth, word]
                key = key_at[depth]
                count_here = boards[below, source]
                key ^= ZOBRIST[source, count_here + 15] ^ ZOBRIST[source, count_here + 14]
                boards[below, source] = count_here - 1
                if count_here == 1:
                    occupied &= ~(np.int64(1) << source)
                if target >= 1:
                    count_here = boards[below, target]
                    if count_here == -1:  # a hit: the blot goes to the opponent's bar (slot 0)
                        bar = boards[below, 0]
                        key ^= ZOBRIST[0, bar + 15] ^ ZOBRIST[0, bar + 14]
                        boards[below, 0] = bar - 1
                        key ^= ZOBRIST[target, 14] ^ ZOBRIST[target, 15]
                        count_here = 0
                    key ^= ZOBRIST[target, count_here + 15] ^ ZOBRIST[target, count_here + 16]
                    boards[below, target] = count_here + 1
                    occupied |= np.int64(1) << target
                key_at[below] = key
                occupied_at[below] = occupied
                outside_at[below] = out - 1 if (source >= 7 and target < 7) else out
                depth = below
                if depth < ndice:
                    top_at[depth] = source if doubles else 25
                    deep_at[depth] = False
                    continue
                leaf = True
            else:
                leaf = depth > 0 and not deep_at[depth]
            if leaf and depth >= best:
                if depth > best:
                    if dedupe:
                        for j in range(count):
                            table[slots[j]] = -1
                    count = 0
                    best = depth
                key = key_at[depth]
                slot = np.int64(key & np.uint64(TABLE_MASK))
                duplicate = False
                while dedupe:
                    index = table[slot]
                    if index < 0:
                        break
                    if (keys[index] == key and plays64[index, 0] == words[depth, 0]
                            and plays64[index, 1] == words[depth, 1]
                            and plays64[index, 2] == words[depth, 2]
                            and plays64[index, 3] == words[depth, 3]):
                        duplicate = True
                        break
                    slot = (slot + 1) & TABLE_MASK
                if not duplicate:
                    if dedupe:
                        table[slot] = count
                        slots[count] = slot
                    keys[count] = key
                    plays64[count, 0] = words[depth, 0]
                    plays64[count, 1] = words[depth, 1]
                    plays64[count, 2] = words[depth, 2]
                    plays64[count, 3] = words[depth, 3]
                    count += 1
            if depth == 0:
                break
            depth -= 1  # back up: that depth's copy of the board is as it was
        if pass_ == 0:
            high_count = count
            high_best = best
    if not doubles and best == 1 and high_best == 1:
        # only one die can be played and the larger one can: its moves are the only plays
        if dedupe:
            for j in range(high_count, count):
                table[slots[j]] = -1
        count = high_count
    if dedupe:
        for j in range(count):
            table[slots[j]] = -1
    return count


@inline_jit
def play_before(plays, keys, a, b):
    """Whether play ``a`` comes before play ``b`` in canonical order (key, then board, then a
    variant's state bytes 26..29, 0 in the standard game)."""
    if keys[a] != keys[b]:
        return keys[a] < keys[b]
    for i in range(30):
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
    """Index of the k-th play (from 0) in canonical order, without a full sort.

    Few plays: the play with exactly k smaller keys, counted without branches (random keys make
    every compare-and-branch a coin flip for the branch predictor).  More: quickselect on a copy
    of the keys (in ``order``, free once the plays are generated).  A key that two boards share
    (never seen, but allowed by the canonical order): quickselect on the full (key, board) order.
    """
    if count == 1:
        return 0
    # up to 128 plays the branch-free count beats quickselect's unpredictable branches
    # (measured on the plays of random games: doubles average 42 plays)
    if count <= 128:
        for i in range(count):
            key = keys[i]
            less = 0
            for j in range(count):
                less += np.int64(keys[j] < key)
            if less == k:
                shared = 0
                for j in range(count):
                    shared += np.int64(keys[j] == key)
                if shared == 1:
                    return i
                return _kth_by_board(plays, keys, count, k, order)
        return _kth_by_board(plays, keys, count, k, order)
    values = order.view(np.uint64)
    for i in range(count):
        values[i] = keys[i]
    low = 0
    high = count - 1
    while low < high:
        pivot = values[(low + high) // 2]
        i = low
        j = high
        while i <= j:
            while values[i] < pivot:
                i += 1
            while pivot < values[j]:
                j -= 1
            if i <= j:
                swap = values[i]
                values[i] = values[j]
                values[j] = swap
                i += 1
                j -= 1
        if k <= j:
            high = j
        elif k >= i:
            low = i
        else:
            break
    key = values[k]
    found = -1
    shared = 0
    for i in range(count):
        if keys[i] == key:
            found = i
            shared += 1
    if shared == 1:
        return found
    return _kth_by_board(plays, keys, count, k, order)


@jit
def _kth_by_board(plays, keys, count, k, order):
    """Quickselect on the full canonical order (key, then board)."""
    for i in range(count):
        order[i] = i
    low = 0
    high = count - 1
    while low < high:
        pivot = order[(low + high) // 2]
        i = low
        j = high
        while i <= j:
            while play_before(plays, keys, order[i], pivot):
                i += 1
            while play_before(plays, keys, pivot, order[j]):
                j -= 1
            if i <= j:
                swap = order[i]
                order[i] = order[j]
                order[j] = swap
                i += 1
                j -= 1
        if k <= j:
            high = j
        elif k >= i:
            low = i
        else:
            return order[k]
    return order[k]


@alloc_jit
def legal_results(board, die1, die2):
    """All distinct results in canonical order, as a fresh (n, 26) int8 array."""
    plays, keys, slots, table, order = new_buffers()
    work = np.zeros(BOARD_BYTES, dtype=np.int8)
    work[:26] = board[:26]
    count = generate(work, die1, die2, plays, keys, slots, table, order)
    canonical_order(plays, keys, count, order)
    out = np.empty((count, 26), dtype=np.int8)
    for i in range(count):
        out[i, :] = plays[order[i], :26]
    return out
