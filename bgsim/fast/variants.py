"""The variants' kernels (``bgsim.variants``, whose docstring is their contract): starts, moves
with checkers in hand or Dutch's bar on hitting, the boards bots are shown, acey-deucey's double.

The game loop of ``bgsim.fast.game`` calls these only in its variant families of kernels
(``VARIANT_GAMES`` on, ``bgsim/fast/families.py``), so that the standard game's kernels hold not
one instruction of them.

* **State bytes**: board bytes 26..29 (:data:`HAND` .. :data:`OPPONENT_NO_HIT`), 0 in the
  standard game.  :data:`STATE_ZOBRIST` holds ``bgsim.board.STATE_ZOBRIST`` with the column
  of the value 0 set to 0, so a key takes a state byte in or out by XOR like any slot, and a
  zero byte adds nothing (no standard key changes).
* **Moves** (:func:`generate_variant`): the reference's search (``bgsim.rules``) written as an
  explicit depth-first walk: both orders of a non-double's dice, every source at every depth,
  every result kept once (the hash table of ``bgsim.fast.moves``), the sequences of most dice,
  and the larger die when only one can be played.  A double walks its sources in
  non-increasing order (bar, hand, 24 .. 1) as ``bgsim.fast.moves.generate`` does, except while
  the side on roll may not hit yet: a move that reaches home first may then open a hit to a move
  from higher up, so every order is walked.  Only positions whose moves read the state need it
  (a checker of the side on roll in hand, or its bar on hitting); the game loop generates every
  other position with the standard generator and takes the opponent's state bytes into the keys.
* **What bots see** (``bgsim.board.Position.as_standard``): checkers in hand on the bar, which
  is all a bot kernel reads (slots 0..25); the state bytes stay for the canonical order.
* **Acey-deucey's double**: each checker bot's ``<prefix>_double`` kernel, asked through the
  generated ``choose_double`` (``bgsim.fast.dispatch``): ``random`` draws ``1 + below(6)``; an
  evaluation bot scores the best play of each double (:func:`best_double`, as
  ``bots.checker.best_double``).
"""

from __future__ import annotations

import numpy as np

from ..board import HAND, NO_HIT, OPPONENT_HAND, OPPONENT_NO_HIT, Position
from ..board import STATE_ZOBRIST as _STATE_ZOBRIST
from ..variants import ACEY_DEUCEY, DEFINITIONS, VARIANTS
from .compile import alloc_jit, inline_jit, jit, stack_empty
from .moves import BOARD_BYTES, DEPTHS, TABLE_MASK, ZOBRIST, canonical_order, new_buffers
from .nn import NN_HIDDEN, OUTPUTS, _equity, _net, evaluate

STATE_ZOBRIST = np.array(_STATE_ZOBRIST, dtype=np.uint64)  # [state byte - 26, value + 15]
STATE_ZOBRIST[:, 15] = 0  # a zero state byte adds nothing to a key
STATE_BYTES = 4  # 26 .. 29
SEARCH_SLOTS = 26 + STATE_BYTES

# Each variant by its code (its index in bgsim.variants.VARIANTS), from its one declaration.
STARTS = np.zeros((len(VARIANTS), BOARD_BYTES), dtype=np.int8)
for _code, _name in enumerate(VARIANTS):
    STARTS[_code, :SEARCH_SLOTS] = Position.start(_name).search_slots
CHECKERS = np.array([DEFINITIONS[name].checkers for name in VARIANTS], dtype=np.int64)
HAND_FIRST = np.array([DEFINITIONS[name].hand_enters_first for name in VARIANTS], dtype=np.bool_)
MOVES_DIFFER = np.array([DEFINITIONS[name].moves_differ for name in VARIANTS], dtype=np.bool_)
ACEY = VARIANTS.index(ACEY_DEUCEY)

BAR_POSITION = 27  # the walk's order of sources: the bar, the hand, points 24 .. 1
HAND_POSITION = 26


@inline_jit
def state_key(board):
    """What the state bytes add to a board's key."""
    return (STATE_ZOBRIST[0, board[HAND] + 15] ^ STATE_ZOBRIST[1, board[OPPONENT_HAND] + 15]
            ^ STATE_ZOBRIST[2, board[NO_HIT] + 15] ^ STATE_ZOBRIST[3, board[OPPONENT_NO_HIT] + 15])


@jit
def start_board(board, variant):
    """The variant's start, both sides alike, into ``board`` (32 bytes)."""
    for j in range(BOARD_BYTES):
        board[j] = STARTS[variant, j]


@inline_jit
def needs_variant_moves(board):
    """Whether the side on roll's moves read the state: a checker in hand, or a bar on hitting."""
    return board[HAND] != 0 or board[NO_HIT] != 0


@jit
def generate_variant(board, die1, die2, hand_first, plays, keys, slots, table):
    """Fill ``plays``/``keys`` with the distinct legal plays (30 slots and padding) of the roll
    from ``board`` under the variant's moves: (how many, dice each play uses).

    ``hand_first``: checkers in hand enter before anything else moves (Dutch).  ``board`` is
    only read; the table is left empty.  See the module docstring for the walk.
    """
    plays64 = plays.view(np.uint64)
    board64 = board.view(np.uint64)
    words = stack_empty((DEPTHS, 4), np.uint64)  # the board at each depth
    boards = words.view(np.int8)
    key_at = stack_empty(DEPTHS, np.uint64)
    outside_at = stack_empty(DEPTHS, np.int64)  # checkers in hand, on the bar or on 7..24
    next_at = stack_empty(DEPTHS, np.int64)  # the next source position to try (27 bar, 26 hand, points)
    deep_at = stack_empty(DEPTHS, np.bool_)  # whether the depth found a move
    key = state_key(board)
    outside = board[HAND]
    for slot in range(26):
        key ^= ZOBRIST[slot, board[slot] + 15]
        if slot >= 7 and board[slot] > 0:
            outside += board[slot]
    for word in range(4):
        words[0, word] = board64[word]
    key_at[0] = key
    outside_at[0] = outside
    doubles = die1 == die2
    # a double's sources in non-increasing order, unless a move home may open a hit above it
    monotone = doubles and board[NO_HIT] == 0
    high = max(die1, die2)
    low = min(die1, die2)
    ndice = 4 if doubles else 2
    passes = 1 if doubles else 2
    count = 0
    best = 0
    high_count = 0
    high_best = 0
    for pass_ in range(passes):
        first = high if pass_ == 0 else low
        second = first if doubles else (low if pass_ == 0 else high)
        depth = 0
        next_at[0] = BAR_POSITION
        deep_at[0] = False
        while True:
            die = first if depth == 0 else second
            out = outside_at[depth]
            # sources: the bar alone while it holds a checker; then, in Dutch, the hand alone
            if boards[depth, 25] > 0:
                lowest = BAR_POSITION
            elif boards[depth, HAND] > 0 and hand_first:
                lowest = HAND_POSITION
            else:
                lowest = 1
            lowest_open = 0 if boards[depth, NO_HIT] != 0 else -1  # a blot is closed while it may not hit
            found = 0
            target = 0
            position = next_at[depth]
            while position >= lowest:
                if position == BAR_POSITION:
                    held = boards[depth, 25] > 0
                elif position == HAND_POSITION:
                    held = boards[depth, HAND] > 0
                else:
                    held = position != 25 and boards[depth, position] > 0
                if held:
                    start = 25 if position >= 25 else position
                    target = start - die
                    if target >= 1:
                        if boards[depth, target] >= lowest_open:
                            found = position
                            break
                    elif out == 0:  # all home: bearing off, exactly or from the highest point
                        higher = False
                        for point in range(start + 1, 7):
                            if boards[depth, point] > 0:
                                higher = True
                        if target == 0 or not higher:
                            found = position
                            target = 0
                            break
                position -= 1
            leaf = False
            if found > 0:
                deep_at[depth] = True
                next_at[depth] = found - 1
                below_ = depth + 1
                for word in range(4):
                    words[below_, word] = words[depth, word]
                key = key_at[depth]
                if found == HAND_POSITION:
                    held = boards[below_, HAND]
                    key ^= STATE_ZOBRIST[0, held + 15] ^ STATE_ZOBRIST[0, held + 14]
                    boards[below_, HAND] = held - 1
                else:
                    source = 25 if found == BAR_POSITION else found
                    held = boards[below_, source]
                    key ^= ZOBRIST[source, held + 15] ^ ZOBRIST[source, held + 14]
                    boards[below_, source] = held - 1
                start = 25 if found >= 25 else found
                if target >= 1:
                    held = boards[below_, target]
                    if held == -1:  # a hit: the blot goes to the opponent's bar (slot 0)
                        bar = boards[below_, 0]
                        key ^= ZOBRIST[0, bar + 15] ^ ZOBRIST[0, bar + 14]
                        boards[below_, 0] = bar - 1
                        key ^= ZOBRIST[target, 14] ^ ZOBRIST[target, 15]
                        held = 0
                    key ^= ZOBRIST[target, held + 15] ^ ZOBRIST[target, held + 16]
                    boards[below_, target] = held + 1
                    if target <= 6 and boards[below_, NO_HIT] != 0:
                        # home reached: hits are allowed from the next die on
                        key ^= STATE_ZOBRIST[2, boards[below_, NO_HIT] + 15]
                        boards[below_, NO_HIT] = 0
                key_at[below_] = key
                outside_at[below_] = out - 1 if (start >= 7 and target < 7) else out
                depth = below_
                if depth < ndice:
                    next_at[depth] = found if monotone else BAR_POSITION
                    deep_at[depth] = False
                    continue
                leaf = True
            else:
                leaf = depth > 0 and not deep_at[depth]
            if leaf and depth >= best:
                if depth > best:
                    for j in range(count):
                        table[slots[j]] = -1
                    count = 0
                    best = depth
                key = key_at[depth]
                slot = np.int64(key & np.uint64(TABLE_MASK))
                duplicate = False
                while True:
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
                    table[slot] = count
                    slots[count] = slot
                    keys[count] = key
                    for word in range(4):
                        plays64[count, word] = words[depth, word]
                    count += 1
            if depth == 0:
                break
            depth -= 1  # back up: that depth's copy of the board is as it was
        if pass_ == 0:
            high_count = count
            high_best = best
    if not doubles and best == 1 and high_best == 1:
        # only one die can be played and the larger one can: its moves are the only plays
        for j in range(high_count, count):
            table[slots[j]] = -1
        count = high_count
    for j in range(count):
        table[slots[j]] = -1
    return count, best


@jit
def add_state_keys(board, keys, count):
    """The standard generator's keys of ``board``'s plays made the variant's: the state bytes
    the plays keep from ``board`` (the opponent's, which no move of ours changes) added."""
    extra = state_key(board)
    if extra != 0:
        for i in range(count):
            keys[i] ^= extra


# --- what the bots see ------------------------------------------------------------------------


@inline_jit
def has_hand(board):
    """Checkers in hand on either side: the bots must be shown the boards as standard ones."""
    return board[HAND] != 0 or board[OPPONENT_HAND] != 0


@jit
def standard_view(board, seen):
    """``seen`` (32 bytes) := ``board`` as ``Position.as_standard`` shows it: checkers in hand on
    the bar, no variant state."""
    for j in range(BOARD_BYTES):
        seen[j] = board[j]
    seen[25] += board[HAND]
    seen[0] -= board[OPPONENT_HAND]
    for j in range(26, BOARD_BYTES):
        seen[j] = 0


@jit
def plays_as_standard(plays, count, shown):
    """Each play's checkers in hand onto its bars (``shown``) or back into its hands (not
    ``shown``); the state bytes stay, so keys and the canonical order are the variant's."""
    sign = 1 if shown else -1
    for i in range(count):
        plays[i, 25] += sign * plays[i, HAND]
        plays[i, 0] -= sign * plays[i, OPPONENT_HAND]


# --- acey-deucey's double -----------------------------------------------------------------------


@jit
def nn_play_value(params, offsets, int32s, int64s, plays, index):
    """``bots.nn.play_value``: minus the opponent's cubeless equity after the play, its board turned."""
    hidden = np.int64(params[NN_HIDDEN])
    tables, bias, race, weights2, bias2, sigmoid, contact = _net(hidden, offsets, int32s, int64s)
    turned = stack_empty(26, np.int8)
    for slot in range(26):
        turned[slot] = -plays[index, 25 - slot]
    probabilities = stack_empty(OUTPUTS, np.int64)
    evaluate(turned, tables, bias, race, weights2, bias2, sigmoid, contact, probabilities)
    return -_equity(probabilities)


@inline_jit
def best_double(best_value, code, params, offsets, float64s, int32s, int64s, board, plays, keys, slots,
                table, order):
    """``bots.checker.best_double`` for an evaluation bot's ``<prefix>_double`` kernel: the double
    (1..6) whose best play ``best_value`` scores highest from ``board`` (the position after the
    1-2), the lowest on a tie, 1 when none can be played.  ``best_value(code, params, offsets,
    float64s, int32s, int64s, seen, plays, keys, count, order)`` is the highest score the bot
    gives one of ``plays[:count]``, shown as standard boards from the standard view ``seen``.
    The buffers are left holding the last double tried."""
    seen = stack_empty(BOARD_BYTES, np.int8)
    standard_view(board, seen)
    best = 1
    best_score = 0.0
    scored = False
    for double in range(1, 7):
        count, _ = generate_variant(board, double, double, False, plays, keys, slots, table)
        if count == 0:
            continue
        plays_as_standard(plays, count, True)
        value = best_value(code, params, offsets, float64s, int32s, int64s, seen, plays, keys, count, order)
        if not scored or value > best_score:
            best = double
            best_score = value
            scored = True
    return best


@alloc_jit
def variant_results(board, die1, die2, hand_first):
    """All distinct results of :func:`generate_variant` in canonical order, as a fresh (n, 30)
    int8 array; ``board``: the 30 slots of ``Position.search_slots``."""
    plays, keys, slots, table, order = new_buffers()
    work = np.zeros(BOARD_BYTES, dtype=np.int8)
    work[:SEARCH_SLOTS] = board[:SEARCH_SLOTS]
    count, _ = generate_variant(work, die1, die2, hand_first, plays, keys, slots, table)
    canonical_order(plays, keys, count, order)
    out = np.empty((count, SEARCH_SLOTS), dtype=np.int8)
    for i in range(count):
        out[i, :] = plays[order[i], :SEARCH_SLOTS]
    return out
