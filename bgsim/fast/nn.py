"""The ``nn`` checker bot's network in Numba: the very integers of ``bots/nn.py``'s numpy one.

The net is quantized (as chess engines' NNUE nets are), so both engines agree exactly:

* first layer: one int32 row per (slot, checker count) of the board seen from the side on roll
  (``tables[slot, count + 15]``, the zero-count row all zeros), plus ``bias`` and, when the
  position is a race, ``race``; and the contact inputs (``bgsim.net_format.CONTACT_INPUTS``,
  whole-board counts: blots, shots, prime, escapes of each side) times their rows ``contact``
  (zero rows in a net without them, as ``nn-v1``, which then skips them).  Every other input
  the net was trained on is linear in the counts of single slots (point encodings, pips,
  checkers off), which the training folds into the slot rows;
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

from .. import layouts
from ..net_format import CONTACT, COUNTS, LIMIT, MAX_HIDDEN, ONE, OUTPUTS, SHIFT, UNIT, sigmoid_table  # noqa: F401
from .board import checkers_on, contact_inputs, is_race
from .compile import inline_jit, jit, prefer_wide_vectors, stack_empty
from .match_cube import janowski as _states  # the one Janowski of the fast engine
from .moves import BOARD_BYTES, MAX_PLAYS, TABLE_SIZE, generate, play_before

SCRATCH = 128  # the choice's sums live in the seat's int64 work buffer from here on (see nn_choose)
assert SCRATCH + MAX_HIDDEN + OUTPUTS <= 4096  # they fit in the seat's work buffer of 4096 int64s

NN_HIDDEN = layouts.NN.param("hidden")
AHEAD_HIDDEN = layouts.NN_AHEAD.param("hidden")
AHEAD_KEEP = layouts.NN_AHEAD.param("keep")
AHEAD_MARGIN = layouts.NN_AHEAD.param("margin")
MAX_KEEP = 32  # the most plays the 1-ply search's filter keeps (bots/nn.py bounds ``keep``)
NN_TABLES, NN_BIAS, NN_RACE, NN_WEIGHTS2, NN_BIAS2, NN_SIGMOID, NN_CONTACT = (
    layouts.NN.array(name) for name in ("tables", "bias", "race", "weights2", "bias2", "sigmoid", "contact"))
CUBE_HIDDEN = layouts.NN_CUBE.param("hidden")
CUBE_X = layouts.NN_CUBE.param("x")
# both bots' first arrays are the net, in one order (each may declare more after it)
assert (layouts.NN_CUBE.arrays[:len(layouts.NN_ARRAYS)] == layouts.NN.arrays[:len(layouts.NN_ARRAYS)]
        == layouts.NN_AHEAD.arrays[:len(layouts.NN_ARRAYS)] == layouts.NN_ARRAYS)


@inline_jit
def _squash(logit, sigmoid):
    """A logit (scale ONE * ONE) to a probability (units 1/UNIT) through the table."""
    index = logit >> SHIFT
    if index < -LIMIT:
        index = -LIMIT
    elif index > LIMIT:
        index = LIMIT
    return sigmoid[index + LIMIT]


@inline_jit
def _consistent(probabilities):
    """Backgammons <= gammons <= wins, and the same for losses."""
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
def _squash_all(logit0, logit1, logit2, logit3, logit4, sigmoid, probabilities):
    """The five logits to consistent probabilities (units 1/UNIT) in ``probabilities``."""
    probabilities[0] = _squash(logit0, sigmoid)
    probabilities[1] = _squash(logit1, sigmoid)
    probabilities[2] = _squash(logit2, sigmoid)
    probabilities[3] = _squash(logit3, sigmoid)
    probabilities[4] = _squash(logit4, sigmoid)
    _consistent(probabilities)


@inline_jit
def _equity(probabilities):
    """Cubeless equity in units of 1/UNIT: 2 win - 1 + gammons and backgammons won - lost."""
    return (2 * probabilities[0] - UNIT + probabilities[1] - probabilities[3]
            + probabilities[2] - probabilities[4])


@jit
def evaluate(board, tables, bias, race, weights2, bias2, sigmoid, contact, probabilities):
    """The five probabilities (units of 1/UNIT) of the side on roll of ``board`` (26 slots).

    One hidden unit at a time, so that nothing is allocated (the cube asks this every turn).
    """
    own, opponent = checkers_on(board)
    if own == 0 or opponent == 0:
        _finished(board, own == 0, probabilities)
        return
    in_race = is_race(board)
    values = stack_empty(CONTACT, np.int64)
    reads = _reads_contact(contact)
    if reads:
        contact_inputs(board, values)
    logit0 = bias2[0]
    logit1 = bias2[1]
    logit2 = bias2[2]
    logit3 = bias2[3]
    logit4 = bias2[4]
    for j in range(bias.shape[0]):
        h = np.int64(bias[j])
        for slot in range(26):
            count = board[slot]
            if count != 0:
                h += tables[slot, count + 15, j]
        if in_race:
            h += race[j]
        if reads:
            for k in range(CONTACT):
                h += values[k] * np.int64(contact[k, j])
        if h > 0:
            if h > ONE:
                h = ONE
            logit0 += np.int64(weights2[0, j]) * h
            logit1 += np.int64(weights2[1, j]) * h
            logit2 += np.int64(weights2[2, j]) * h
            logit3 += np.int64(weights2[3, j]) * h
            logit4 += np.int64(weights2[4, j]) * h
    _squash_all(logit0, logit1, logit2, logit3, logit4, sigmoid, probabilities)


@inline_jit
def _reads_contact(contact):
    """Whether any contact row is nonzero (a net of ``nn-v1``'s kind has none: its plays skip
    counting the inputs, which would add nothing).  Asked at every evaluation: each row is
    OR-ed whole, a loop that vectorizes, rather than element by element with an exit that
    does not (about 1 us for nn-v1's 2,048 zeros, nearly the cost of a 0-ply choice)."""
    for k in range(contact.shape[0]):
        row = contact[k]
        any_set = np.int32(0)
        for j in range(row.shape[0]):
            any_set |= row[j]
        if any_set != 0:
            return True
    return False


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


# The fused loop of ``choose`` takes up to this many changed slots of a play as rows of their own
# (a play moves at most four checkers: more slots change only with hits or four separate moves);
# the slots beyond are added to a copy of the parent's sums first.
FUSED_SLOTS = 4
# Off only in a copy that ``bgsim bench --profile`` times (``bgsim.fast.timing``): the output
# layer's multiply-adds left out, so that the difference is what they cost.
OUTPUT_LAYER = True


@jit
def choose(board, plays, keys, count, tables, bias, race, weights2, bias2, sigmoid, contact, parent,
           hidden_sum, probabilities):
    """Index of the play with the highest cubeless equity for the mover; ties: canonical order.

    ``board`` is the position before the play (mover on roll), ``plays[:count]`` the results.
    Each result is judged turned, from the opponent's side: its first-layer sums start from
    those of the turned parent and change only where the play changed a slot (slot ``s`` of a
    mover's board is slot ``25 - s``, count negated, of the turned one).  ``parent`` and
    ``hidden_sum`` (int32, hidden long) and ``probabilities`` (int64, 5) are work space.

    One pass over the hidden units per play does it all: the parent's sum, the rows of the
    changed slots (added for the count after, taken off for the count before; an empty slot's
    row is zero, ``check_net``, so a slot emptied or filled needs no case of its own, and
    unused row places hold a zero row), the race row, the clamp and the five output sums.
    Nothing is stored per hidden unit.  The contact inputs (``bgsim.fast.board.contact_inputs``)
    of the turned parent join its sums; a play whose result changes some of them first adds
    the change times their rows to a copy of the parent's sums, as it does the slots beyond
    :data:`FUSED_SLOTS`.  The first-layer sums run in int32 (``check_net`` keeps
    every sum inside int32, and a sum of int32s wrapped at every step ends where the exact sum
    does), twice as many lanes per vector instruction as int64; the output products widen to
    int64 (exact whatever the order, as integer sums are).
    """
    prefer_wide_vectors()
    size = bias.shape[0]
    for j in range(size):
        parent[j] = bias[j]
    for slot in range(26):
        count_here = board[slot]
        if count_here != 0:
            row = tables[25 - slot, 15 - count_here]
            for j in range(size):
                parent[j] += row[j]
    reads = _reads_contact(contact)
    turned = stack_empty(BOARD_BYTES, np.int8)
    parent_values = stack_empty(CONTACT, np.int64)
    values = stack_empty(CONTACT, np.int64)
    if reads:
        for slot in range(26):
            turned[slot] = -board[25 - slot]
        contact_inputs(turned, parent_values)
        for k in range(CONTACT):
            value = np.int32(parent_values[k])
            row = contact[k]
            for j in range(size):
                parent[j] = np.int32(parent[j] + value * row[j])
    zero = tables[0, 15]  # an empty slot's row
    weights0 = weights2[0]
    weights1 = weights2[1]
    weights2_ = weights2[2]
    weights3 = weights2[3]
    weights4 = weights2[4]
    # the changed slots of a play, as rows of the turned board: the count after, the count before
    after_rows = stack_empty(26, np.int64)
    before_rows = stack_empty(26, np.int64)
    best = -1
    best_value = np.int64(0)
    for index in range(count):
        own = 0
        highest_own = 0
        lowest_opponent = 99
        changed = 0
        for slot in range(26):
            after = plays[index, slot]
            if after > 0:
                own += after
                highest_own = slot
            elif after < 0 and lowest_opponent == 99 and slot < 25:
                lowest_opponent = slot
            before = board[slot]
            if after != before:
                after_rows[changed] = (25 - slot) * COUNTS + 15 - after
                before_rows[changed] = (25 - slot) * COUNTS + 15 - before
                changed += 1
        if own == 0:
            # our last checker is off: the opponent, on roll, has lost
            _finished_turned(plays, index, probabilities)
        else:
            # bgsim.board.is_race of the play's board (``highest_own`` is 0 when none is on 1..25)
            in_race = highest_own == 0 or lowest_opponent == 99 or highest_own < lowest_opponent
            moved = 0  # contact inputs the play changed
            if reads:
                _turned(plays, index, turned)
                contact_inputs(turned, values)
                for k in range(CONTACT):
                    values[k] -= parent_values[k]
                    if values[k] != 0:
                        moved += 1
            base = parent
            if changed > FUSED_SLOTS or moved > 0:
                for j in range(size):
                    hidden_sum[j] = parent[j]
                for k in range(FUSED_SLOTS, changed):
                    add = _row(tables, after_rows[k])
                    take = _row(tables, before_rows[k])
                    for j in range(size):
                        hidden_sum[j] = np.int32(np.int32(hidden_sum[j] + add[j]) - take[j])
                if moved > 0:
                    for k in range(CONTACT):
                        if values[k] != 0:
                            change = np.int32(values[k])
                            row = contact[k]
                            for j in range(size):
                                hidden_sum[j] = np.int32(hidden_sum[j] + change * row[j])
                base = hidden_sum
            add0 = _row(tables, after_rows[0]) if changed > 0 else zero
            add1 = _row(tables, after_rows[1]) if changed > 1 else zero
            add2 = _row(tables, after_rows[2]) if changed > 2 else zero
            add3 = _row(tables, after_rows[3]) if changed > 3 else zero
            take0 = _row(tables, before_rows[0]) if changed > 0 else zero
            take1 = _row(tables, before_rows[1]) if changed > 1 else zero
            take2 = _row(tables, before_rows[2]) if changed > 2 else zero
            take3 = _row(tables, before_rows[3]) if changed > 3 else zero
            extra = race if in_race else zero
            logit0 = bias2[0]
            logit1 = bias2[1]
            logit2 = bias2[2]
            logit3 = bias2[3]
            logit4 = bias2[4]
            for j in range(size):
                h = np.int32(base[j] + add0[j])
                h = np.int32(h - take0[j])
                h = np.int32(h + add1[j])
                h = np.int32(h - take1[j])
                h = np.int32(h + add2[j])
                h = np.int32(h - take2[j])
                h = np.int32(h + add3[j])
                h = np.int32(h - take3[j])
                h = np.int32(h + extra[j])
                h = max(h, np.int32(0))
                h = min(h, np.int32(ONE))
                if OUTPUT_LAYER:
                    logit0 += np.int64(weights0[j]) * np.int64(h)
                    logit1 += np.int64(weights1[j]) * np.int64(h)
                    logit2 += np.int64(weights2_[j]) * np.int64(h)
                    logit3 += np.int64(weights3[j]) * np.int64(h)
                    logit4 += np.int64(weights4[j]) * np.int64(h)
                else:
                    logit0 += np.int64(h)
            _squash_all(logit0, logit1, logit2, logit3, logit4, sigmoid, probabilities)
        value = -_equity(probabilities)  # the opponent's equity, from our side
        if best < 0 or value > best_value or (value == best_value and play_before(plays, keys, index, best)):
            best = index
            best_value = value
    return best


@inline_jit
def _row(tables, number):
    """Row ``number`` (slot * COUNTS + count index) of the first-layer tables."""
    return tables[number // COUNTS, number % COUNTS]


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


# --- the engine's entry points: the net comes as the seat's arrays (bgsim.layouts.NN) ------


@inline_jit
def _net(hidden, offsets, int32s, int64s):
    """Views of a seat's net in the shared buffers: (tables, bias, race, weights2, bias2, sigmoid,
    contact)."""
    start = offsets[NN_TABLES]
    tables = int32s[start:start + 26 * COUNTS * hidden].reshape((26, COUNTS, hidden))
    start = offsets[NN_BIAS]
    bias = int32s[start:start + hidden]
    start = offsets[NN_RACE]
    race = int32s[start:start + hidden]
    start = offsets[NN_WEIGHTS2]
    weights2 = int32s[start:start + OUTPUTS * hidden].reshape((OUTPUTS, hidden))
    start = offsets[NN_BIAS2]
    bias2 = int64s[start:start + OUTPUTS]
    start = offsets[NN_SIGMOID]
    sigmoid = int64s[start:start + 2 * LIMIT + 1]
    start = offsets[NN_CONTACT]
    contact = int32s[start:start + CONTACT * hidden].reshape((CONTACT, hidden))
    return tables, bias, race, weights2, bias2, sigmoid, contact


@jit
def nn_choose(params, offsets, int32s, int64s, board, plays, keys, count, work):
    """The ``nn`` checker bot's play (an index into the buffers).

    ``work`` is the game's int64 scratch buffer (the move generator's ``work``); the sums of
    the choice live there from ``SCRATCH`` on (as int32, two to an int64 slot), so a ply
    allocates nothing.
    """
    hidden = np.int64(params[NN_HIDDEN])
    tables, bias, race, weights2, bias2, sigmoid, contact = _net(hidden, offsets, int32s, int64s)
    sums = work[SCRATCH:SCRATCH + hidden].view(np.int32)
    parent = sums[:hidden]
    hidden_sum = sums[hidden:]
    probabilities = work[SCRATCH + hidden:SCRATCH + hidden + OUTPUTS]
    return choose(board, plays, keys, count, tables, bias, race, weights2, bias2, sigmoid, contact,
                  parent, hidden_sum, probabilities)


@jit
def nn_choose_ahead(params, offsets, int32s, int64s, board, plays, keys, count, work):
    """The ``nn`` checker bot's play at 1 ply (``plies=1``, layout ``nn-ahead``): see
    :func:`choose_ahead`."""
    hidden = np.int64(params[AHEAD_HIDDEN])
    tables, bias, race, weights2, bias2, sigmoid, contact = _net(hidden, offsets, int32s, int64s)
    return choose_ahead(board, plays, keys, count, np.int64(params[AHEAD_KEEP]), np.int64(params[AHEAD_MARGIN]),
                        tables, bias, race, weights2, bias2, sigmoid, contact, work)


@inline_jit
def _turned(source, index, out):
    """Row ``index`` of ``source`` (26 slots) seen from the other side, into ``out`` (32 bytes)."""
    for slot in range(26):
        out[slot] = -source[index, 25 - slot]
    for slot in range(26, BOARD_BYTES):
        out[slot] = 0


@jit
def choose_ahead(board, plays, keys, count, keep, margin, tables, bias, race, weights2, bias2,
                 sigmoid, contact, work):
    """bots.nn.NNChecker's 1-ply play, integer for integer.

    The filter: every play's 0-ply value (the mover's cubeless equity after it, 1/UNIT), then
    up to ``keep`` plays in order of value (ties: canonical order) among those within
    ``margin`` of the best.  Each kept play is judged by the sum over the opponent's 36 rolls
    (21 distinct, weights 1 and 2) of the mover's 0-ply equity after the opponent's reply, the
    reply chosen as the 0-ply ``nn`` would choose it (no legal reply: the position as it is);
    a play that bears off the last checker is worth 36 times its outright points.  The highest
    sum wins, ties going to the play first in canonical order.  The opponent's moves are the
    standard game's on the 26 slots, whatever the variant.  Work space on the kernel's stack.
    """
    values = stack_empty(MAX_PLAYS, np.int64)
    taken = stack_empty(MAX_PLAYS, np.bool_)
    kept = stack_empty(MAX_KEEP, np.int64)
    probabilities = stack_empty(OUTPUTS, np.int64)
    parent = stack_empty(MAX_HIDDEN, np.int32)
    hidden_sum = stack_empty(MAX_HIDDEN, np.int32)
    turned_words = stack_empty(4, np.uint64)  # 8-byte aligned, as generate reads boards
    turned = turned_words.view(np.int8)
    after_words = stack_empty(4, np.uint64)
    after = after_words.view(np.int8)
    reply_words = stack_empty((MAX_PLAYS, 4), np.uint64)
    replies = reply_words.view(np.int8)
    reply_keys = stack_empty(MAX_PLAYS, np.uint64)
    reply_slots = stack_empty(MAX_PLAYS, np.int64)
    table = stack_empty(TABLE_SIZE, np.int16)
    for i in range(TABLE_SIZE):
        table[i] = -1
    best0 = np.int64(0)
    for index in range(count):
        _turned(plays, index, turned)
        evaluate(turned, tables, bias, race, weights2, bias2, sigmoid, contact, probabilities)
        values[index] = -_equity(probabilities)
        taken[index] = False
        if index == 0 or values[index] > best0:
            best0 = values[index]
    kept_count = 0
    while kept_count < keep:
        pick = -1
        for index in range(count):
            if taken[index] or values[index] < best0 - margin:
                continue
            if (pick < 0 or values[index] > values[pick]
                    or (values[index] == values[pick] and play_before(plays, keys, index, pick))):
                pick = index
        if pick < 0:
            break
        taken[pick] = True
        kept[kept_count] = pick
        kept_count += 1
    if kept_count == 1:
        return kept[0]
    best = -1
    best_total = np.int64(0)
    for k in range(kept_count):
        index = kept[k]
        own = 0
        for slot in range(26):
            if plays[index, slot] > 0:
                own += plays[index, slot]
        if own == 0:
            total = 36 * values[index]
        else:
            _turned(plays, index, turned)
            total = np.int64(0)
            for die1 in range(1, 7):
                for die2 in range(1, die1 + 1):
                    weight = 1 if die1 == die2 else 2
                    found = generate(turned, die1, die2, replies, reply_keys, reply_slots, table, work)
                    if found == 0:
                        for slot in range(BOARD_BYTES):
                            after[slot] = plays[index, slot] if slot < 26 else 0
                    else:
                        reply = choose(turned, replies, reply_keys, found, tables, bias, race, weights2,
                                       bias2, sigmoid, contact, parent, hidden_sum, probabilities)
                        _turned(replies, reply, after)
                    evaluate(after, tables, bias, race, weights2, bias2, sigmoid, contact, probabilities)
                    total += weight * _equity(probabilities)
        if best < 0 or total > best_total or (total == best_total and play_before(plays, keys, index, best)):
            best = index
            best_total = total
    return best


@jit
def janowski(win, win_gammon, win_backgammon, lose_gammon, lose_backgammon, efficiency,
             jacoby_centred):
    """bots.gnubg_bots.janowski_equities, operation for operation in float64:
    (centred, owned, opponent owns) cubeful equities per unit of the cube."""
    p = min(max(win, 0.0), 1.0)
    w = 1.0 + (win_gammon + win_backgammon) / p if p > 1e-7 else 1.0
    l = 1.0 + (lose_gammon + lose_backgammon) / (1.0 - p) if p < 1.0 - 1e-7 else 1.0
    centred, owned, theirs = _states(p, w, l, efficiency, efficiency, efficiency)
    if jacoby_centred:
        centred = _states(p, 1.0, 1.0, efficiency, efficiency, efficiency)[0]
    return centred, owned, theirs


@jit
def nn_cube_equities(params, offsets, int32s, int64s, board, jacoby_centred):
    """The ``nn`` cube bot's (centred, owned, opponent owns) money equities of ``board``'s
    side on roll: the net's probabilities through Janowski's formulas, cube life ``x``."""
    hidden = np.int64(params[CUBE_HIDDEN])
    tables, bias, race, weights2, bias2, sigmoid, contact = _net(hidden, offsets, int32s, int64s)
    probabilities = stack_empty(OUTPUTS, np.int64)
    evaluate(board, tables, bias, race, weights2, bias2, sigmoid, contact, probabilities)
    scale = float(UNIT)
    return janowski(probabilities[0] / scale, probabilities[1] / scale, probabilities[2] / scale,
                    probabilities[3] / scale, probabilities[4] / scale, params[CUBE_X],
                    jacoby_centred)
