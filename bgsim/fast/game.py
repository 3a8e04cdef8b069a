"""The game loop in Numba: ``bgsim.game.play_game`` and ``bgsim.match.play_match``, step for step.

One game writes one row of int64s (``COL_*``, the engine columns of ``bgsim.schema`` in order,
coded as there) plus an error code.  Turn order, stream use and every cube rule follow the
reference exactly: the opening roll (ties thrown again, automatic doubles), then on each later
turn the chance to double before the roll, the roll, the play.

``rules`` is int64[8]: cube, max_cube, jacoby, beaver, automatic_doubles, backgammon_as_gammon,
the variant's code (its index in ``bgsim.variants.VARIANTS``) and acey-deucey's stake doubling.
The four seats are white checker, black checker, white cube, black cube: ``codes`` int64[4],
``params`` float64[4, MAX_PARAMS] and ``offsets`` int64[4, MAX_ARRAYS], with the shared
``float64s``, ``int32s`` and ``int64s`` buffers of bot arrays (``bgsim/layouts.py``).

A money game may start from a given position instead of the opening (``start``, int8[26] from
white, white on roll before its roll; empty for the opening), with its first rolls given and its
stream's dice mirrored (``setup``: mirror, number of given rolls, then their dice; see
``bgsim.game.play_game``).  With ``stop_bearoff`` a game stops as soon as the side on roll
faces a pure bear-off (``RESULT_STOPPED``, the board from the side on roll in ``final``), for
rollouts that take the exact bear-off value from there.

The variants (``bgsim.variants``) play on the same loop compiled with ``VARIANT_GAMES`` on:
their starts, their moves (``bgsim.fast.variants``), the boards their bots are shown,
acey-deucey's opening and chained 1-2 turns, and their score.  With it off every variant branch
is left out of the kernels.

**This loop is compiled several ways, never as it stands.**  ``_variant_choose``, ``play_one``,
``play_number`` (inlined into each entry) and the entries ``play_batch``, ``trace_number`` and
``profile_batch`` are templates: they read the slots below (the dispatches they ask, the flags
of the features), and each family of ``bgsim/fast/families.py`` compiles a copy of them with the
slots filled in, under its own names.  The families that compile this loop (``FAMILIES`` there, one row each):
every_bot, every_bot_with_exact, run, run_variants, custom, custom_variants, profiled.  An edit here is an edit of all of them; the
engine tests play each against the reference engine.
"""

from __future__ import annotations

import numpy as np

from .compile import Slot, inline_jit, jit, stack_empty
from .cube import BEAVER, DOUBLE, DROP
from .dispatch import NO_KERNEL
from .match_cube import (
    VIEW_AWAY, VIEW_BEAVER, VIEW_CENTRED, VIEW_JACOBY, VIEW_MATCH_TO, VIEW_MAX, VIEW_OPP_AWAY,
    VIEW_POST_CRAWFORD, VIEW_SIZE, VIEW_VALUE,
)
from .bearoff import is_pure_bearoff
from .clock import (
    PHASE_BOOKKEEPING, PHASE_CHOOSE, PHASE_CUBE, PHASE_DICE, PHASE_GENERATE, PHASE_ROW,
    PHASE_SETUP, cycles, lap,
)
from .dice import die, open_stream
from ..variants import (CUBE_BYTE, CUBE_CENTRED, CUBE_CENTRED_JACOBY, CUBE_DEAD, CUBE_OWNED, CUBE_THEIRS,
                        VARIANT_BYTE)
from .moves import BOARD_BYTES, generate, new_buffers, play_before
from .variants import (
    ACEY, CHECKERS, HAND, HAND_FIRST, MOVES_DIFFER, NO_HIT, OPPONENT_HAND, OPPONENT_NO_HIT,
    add_state_keys, generate_variant, has_hand, needs_variant_moves, plays_as_standard,
    standard_view, start_board,
)

ENGINE_COLUMNS = (
    "game", "winner", "result", "cube_value", "cube_owner", "doubles", "beavers",
    "automatic_doubles", "first_double_ply", "first_doubler", "points", "plies",
    "white_pips", "black_pips", "white_off", "black_off",
    "match_to", "game_in_match", "white_score", "black_score", "crawford",
)
(COL_GAME, COL_WINNER, COL_RESULT, COL_CUBE_VALUE, COL_CUBE_OWNER, COL_DOUBLES, COL_BEAVERS,
 COL_AUTOMATIC, COL_FIRST_DOUBLE_PLY, COL_FIRST_DOUBLER, COL_POINTS, COL_PLIES, COL_WHITE_PIPS,
 COL_BLACK_PIPS, COL_WHITE_OFF, COL_BLACK_OFF, COL_MATCH_TO, COL_GAME_IN_MATCH, COL_WHITE_SCORE,
 COL_BLACK_SCORE, COL_CRAWFORD, COL_ERROR) = range(22)
ROW_SIZE = 22

(RULE_CUBE, RULE_MAX_CUBE, RULE_JACOBY, RULE_BEAVER, RULE_AUTOMATIC, RULE_BG_AS_GAMMON, RULE_VARIANT,
 RULE_STAKE_DOUBLING) = range(8)

WHITE, BLACK = 0, 1
SINGLE, GAMMON, BACKGAMMON, RESULT_DROP = 0, 1, 2, 3  # schema.RESULT_CODES
RESULT_STOPPED = 4  # only with stop_bearoff: not a finished game, never in a DataFrame
SETUP_MIRROR, SETUP_ROLLS, SETUP_DICE = 0, 1, 2  # a game's setup row: mirror, given rolls, dice
CENTRE = 0  # schema.OWNER_CODES: 0 centre, 1 white, 2 black (side + 1)
MAX_PLIES = 100_000
(ERROR_NONE, ERROR_TOO_LONG, ERROR_BAD_BEAVER, ERROR_NO_CHECKER_KERNEL, ERROR_NO_CUBE_KERNEL,
 ERROR_NO_DOUBLE_KERNEL) = range(6)
STANDARD_CHECKERS = 15

# one traced ply: game_in_match, ply, side, cube action (0 none, 1 take, 2 beaver, 3 drop),
# die1, die2, number of plays, canonical index of the chosen play (-1 for none), then the
# board before the roll (26, from the side on roll) and after the play (26, same side), then
# a variant's state bytes 26..29 of each (before, after; 0 in the standard game) and 1 when the
# ply is acey-deucey's chosen double after a 1-2 (its ply number is the 1-2's)
TRACE_HEAD = 8
TRACE_STATE = TRACE_HEAD + 52
TRACE_CHOSEN_DOUBLE = TRACE_STATE + 8
TRACE_SIZE = TRACE_CHOSEN_DOUBLE + 1
CUBE_ACTION_TAKE, CUBE_ACTION_BEAVER, CUBE_ACTION_DROP = 1, 2, 3

# --- the slots every family fills in (bgsim/fast/families.py) -------------------------------
# The dispatches of the family's bots (bgsim.fast.dispatch): a checker bot's play, acey-deucey's
# double after a 1-2, a cube bot's offer and its answer.
choose = Slot("the checker dispatch")
choose_double = Slot("the checker dispatch's acey-deucey double")
offer_double = Slot("the cube dispatch's offer")
respond = Slot("the cube dispatch's answer")
# The variants' rules (``rules[RULE_VARIANT]``); off, not one variant instruction is compiled.
VARIANT_GAMES = Slot("the variants feature")
# The trace code: on, ``play_one`` records plies when its ``tracing`` argument says so (one copy
# for play and traces); off, it has none (a run's copy for play, its traces on another copy).
TRACING = Slot("the trace feature")
# The cycle counter's laps between phases, charged to ``clock`` (``bgsim.fast.timing``).
PROFILE = Slot("the timing feature")


@jit
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


@inline_jit
def _turn(board):
    for slot in range(13):
        other = board[25 - slot]
        board[25 - slot] = -board[slot]
        board[slot] = -other


@inline_jit
def points_for(result, value, rules, cube_turned, in_match):
    """``bgsim.scoring.points_for``: what the winner scores; a drop scores the value before the
    refused double.  The chouette scores every member's cube with it (``bgsim.fast.chouette``)."""
    if result == RESULT_DROP:
        return value
    scored = result
    if scored == BACKGAMMON and rules[RULE_BG_AS_GAMMON] != 0:
        scored = GAMMON
    if rules[RULE_JACOBY] != 0 and not in_match and not cube_turned:
        scored = SINGLE
    return (scored + 1) * value


@inline_jit
def _turn_state(board):
    """A variant's state bytes turned with the board: the two hands, the two bars on hitting."""
    hand = board[HAND]
    board[HAND] = board[OPPONENT_HAND]
    board[OPPONENT_HAND] = hand
    no_hit = board[NO_HIT]
    board[NO_HIT] = board[OPPONENT_NO_HIT]
    board[OPPONENT_NO_HIT] = no_hit


@inline_jit
def _cube_code(rules, crawford, in_match, value, owner, side):
    """``bgsim.cube.TurnCube.code`` of the cube ``bgsim.game.tell_cube`` tells the side on roll."""
    if rules[RULE_CUBE] == 0 or crawford or value * 2 > rules[RULE_MAX_CUBE]:
        return CUBE_DEAD
    if owner == CENTRE:
        return CUBE_CENTRED_JACOBY if rules[RULE_JACOBY] != 0 and not in_match else CUBE_CENTRED
    return CUBE_OWNED if owner == side + 1 else CUBE_THEIRS


def _variant_choose(code, params, offsets, float64s, int32s, int64s, board, seen, plays, keys, count,
                    order, streams, row):
    """``choose`` in a variant: with checkers in hand on either side the bot is shown the board and
    the plays as standard ones (``Position.as_standard``), and the plays are given back after."""
    if not has_hand(board):
        return choose(code, params, offsets, float64s, int32s, int64s, board, plays, keys, count, order,
                      streams, row)
    standard_view(board, seen)
    plays_as_standard(plays, count, True)
    index = choose(code, params, offsets, float64s, int32s, int64s, seen, plays, keys, count, order,
                   streams, row)
    plays_as_standard(plays, count, False)
    return index


@jit
def _finish(row, winner, result, value, owner, doubles, beavers, automatic, first_ply,
            first_doubler, plies, board, rules, in_match, checkers):
    """Score the game; ``board`` is seen from the winner, ``checkers`` a side (15, or a
    hypergammon's).  A checker in hand counts 25 pips and is not off; acey-deucey's loser pays
    the stake per checker not borne off."""
    own_pips = 25 * np.int64(board[26])
    opp_pips = 25 * np.int64(board[27])
    own_on = np.int64(board[26])
    opp_on = np.int64(board[27])
    for slot in range(26):
        count = board[slot]
        if count > 0:
            own_pips += slot * count
            own_on += count
        elif count < 0:
            opp_pips += (25 - slot) * -count
            opp_on -= count
    if rules[RULE_VARIANT] == ACEY and result != RESULT_DROP:
        points = value * opp_on
    else:
        points = points_for(result, value, rules, doubles > 0, in_match)
    row[COL_WINNER] = winner
    row[COL_RESULT] = result
    row[COL_CUBE_VALUE] = value
    row[COL_CUBE_OWNER] = owner
    row[COL_DOUBLES] = doubles
    row[COL_BEAVERS] = beavers
    row[COL_AUTOMATIC] = automatic
    row[COL_FIRST_DOUBLE_PLY] = first_ply
    row[COL_FIRST_DOUBLER] = first_doubler
    row[COL_POINTS] = points
    row[COL_PLIES] = plies
    if winner == WHITE:
        row[COL_WHITE_PIPS] = own_pips
        row[COL_BLACK_PIPS] = opp_pips
        row[COL_WHITE_OFF] = checkers - own_on
        row[COL_BLACK_OFF] = checkers - opp_on
    else:
        row[COL_WHITE_PIPS] = opp_pips
        row[COL_BLACK_PIPS] = own_pips
        row[COL_WHITE_OFF] = checkers - opp_on
        row[COL_BLACK_OFF] = checkers - own_on


@inline_jit
def _result_of(board):
    """single, gammon or backgammon; ``board`` seen from the winner (all 15 off).  The standard
    game's is the variants' rule with 15 checkers and none in hand (bytes 26..31 stay zero)."""
    return _variant_result_of(board, 15, False)


@jit
def _variant_result_of(board, checkers, acey):
    """``bgsim.game._result``: acey-deucey's games are singles; otherwise a gammon when the
    loser has borne off none of its ``checkers`` (those in hand are not off), a backgammon when
    one is still in hand, on the bar or in the winner's home board."""
    if acey:
        return SINGLE
    opp_on = np.int64(board[27])
    for slot in range(26):
        if board[slot] < 0:
            opp_on -= board[slot]
    if opp_on < checkers:
        return SINGLE
    if board[27] > 0:
        return BACKGAMMON
    for slot in range(0, 7):
        if board[slot] < 0:
            return BACKGAMMON
    return GAMMON


@jit
def _trace_ply(trace, tcount, game_in_match, ply, side, action, d1, d2, nplays, rank, before, after,
               chosen_double):
    t = tcount[0]
    if t >= trace.shape[0]:
        return
    trace[t, 0] = game_in_match
    trace[t, 1] = ply
    trace[t, 2] = side
    trace[t, 3] = action
    trace[t, 4] = d1
    trace[t, 5] = d2
    trace[t, 6] = nplays
    trace[t, 7] = rank
    for i in range(26):
        trace[t, TRACE_HEAD + i] = before[i]
        trace[t, TRACE_HEAD + 26 + i] = after[i]
    for i in range(4):
        trace[t, TRACE_STATE + i] = before[26 + i]
        trace[t, TRACE_STATE + 4 + i] = after[26 + i]
    trace[t, TRACE_CHOSEN_DOUBLE] = 1 if chosen_double else 0
    tcount[0] = t + 1


@inline_jit
def _die(streams, mirror):
    value = die(streams, 0)
    return 7 - value if mirror else value


def play_one(seed, number, game_in_match, match_to, white_score, black_score, crawford,
             post_crawford, rules, codes, params, offsets, float64s, int32s, int64s, row, plays,
             keys, slots, table, order, trace, tcount, tracing, start, setup, stop_bearoff, final,
             clock):
    """Play one game into ``row`` (see ``bgsim.game.play_game``)."""
    mark = cycles() if PROFILE else 0
    in_match = match_to > 0
    row[COL_GAME] = number
    row[COL_MATCH_TO] = match_to
    row[COL_GAME_IN_MATCH] = game_in_match
    row[COL_WHITE_SCORE] = white_score
    row[COL_BLACK_SCORE] = black_score
    row[COL_CRAWFORD] = 1 if crawford else 0
    row[COL_ERROR] = ERROR_NONE

    base = 4 * game_in_match
    streams = stack_empty((3, 2), np.uint64)  # dice, white's choices, black's choices
    open_stream(streams, 0, seed, number, base)
    open_stream(streams, 1, seed, number, base + 1)
    open_stream(streams, 2, seed, number, base + 2)

    mirror = setup.shape[0] > 0 and setup[SETUP_MIRROR] != 0
    given = setup[SETUP_ROLLS] if setup.shape[0] > 0 else 0
    value = 1
    owner = CENTRE
    automatic = 0
    board = stack_empty(BOARD_BYTES, np.int8)
    before = stack_empty(BOARD_BYTES, np.int8)
    for j in range(BOARD_BYTES):  # the padding stays 0
        board[j] = 0
        before[j] = 0
    side = WHITE
    opening = False
    d1 = 0
    d2 = 0
    checkers = STANDARD_CHECKERS
    variant = 0
    acey = False
    hand_first = False
    moves_differ = False
    stake_doubling = False
    if VARIANT_GAMES:
        variant = rules[RULE_VARIANT]
        checkers = CHECKERS[variant]
        acey = variant == ACEY
        hand_first = HAND_FIRST[variant]
        moves_differ = MOVES_DIFFER[variant]
        stake_doubling = rules[RULE_STAKE_DOUBLING] != 0
    seen = board  # what the bots are shown: the board itself, or its standard view (variants)
    if VARIANT_GAMES:
        seen = stack_empty(BOARD_BYTES, np.int8)
    if PROFILE:
        mark = lap(clock, PHASE_SETUP, mark)
    if start.shape[0] == 0:
        while True:
            white_die = _die(streams, mirror)
            black_die = _die(streams, mirror)
            if white_die != black_die:
                break
            if (rules[RULE_CUBE] != 0 and not crawford and not in_match
                    and automatic < rules[RULE_AUTOMATIC] and value * 2 <= rules[RULE_MAX_CUBE]):
                value *= 2
                automatic += 1
        side = WHITE if white_die > black_die else BLACK
        opening = True
        d1 = white_die if side == WHITE else black_die
        d2 = black_die if side == WHITE else white_die
        if VARIANT_GAMES:
            start_board(board, variant)
            if acey:
                opening = False  # the throw only decides who starts: that side rolls afresh
        else:
            _start(board)
    else:
        for j in range(26):  # element by element: see ``before`` below; the padding stays 0
            board[j] = start[j]
        if VARIANT_GAMES:
            for j in range(26, start.shape[0]):  # a variant's state bytes, when given
                board[j] = start[j]
    view = stack_empty(VIEW_SIZE, np.int64)
    for j in range(VIEW_SIZE):
        view[j] = 0
    if PROFILE:
        mark = lap(clock, PHASE_DICE, mark)  # the opening roll
    plies = 0
    doubles = 0
    beavers = 0
    first_ply = 0
    first_doubler = 0
    cube_on = rules[RULE_CUBE] != 0 and not crawford
    winner = -1  # set when the game ends: a drop or the last checker off
    result = SINGLE
    while plies < MAX_PLIES:
        if PROFILE:
            mark = lap(clock, PHASE_BOOKKEEPING, mark)
        action = 0
        if VARIANT_GAMES:
            board[VARIANT_BYTE] = variant  # the turn's bots are told the game (bgsim.variants)
        if stop_bearoff != 0 and is_pure_bearoff(board):
            for j in range(26):  # ``final`` has no padding
                final[j] = board[j]
            winner = side
            result = RESULT_STOPPED
            break
        if TRACING and tracing:
            # element by element: a slice assignment of arrays compiles a shape-mismatch error
            # path with string formatting (seconds of cold compile) for a case that cannot occur
            for j in range(BOARD_BYTES):
                before[j] = board[j]
        if not opening:
            if cube_on and (owner == CENTRE or owner == side + 1) and value * 2 <= rules[RULE_MAX_CUBE]:
                view[VIEW_VALUE] = value
                view[VIEW_CENTRED] = 1 if owner == CENTRE else 0
                view[VIEW_MAX] = rules[RULE_MAX_CUBE]
                view[VIEW_BEAVER] = 1 if (rules[RULE_BEAVER] != 0 and not in_match
                                          and value * 4 <= rules[RULE_MAX_CUBE]) else 0
                view[VIEW_JACOBY] = 1 if (rules[RULE_JACOBY] != 0 and not in_match) else 0
                view[VIEW_MATCH_TO] = match_to
                own_score = white_score if side == WHITE else black_score
                opp_score = black_score if side == WHITE else white_score
                view[VIEW_AWAY] = match_to - own_score if in_match else 0
                view[VIEW_OPP_AWAY] = match_to - opp_score if in_match else 0
                view[VIEW_POST_CRAWFORD] = 1 if (in_match and post_crawford) else 0
                shown = board
                if VARIANT_GAMES:
                    if has_hand(board):
                        standard_view(board, seen)
                        shown = seen
                offer = offer_double(codes[2 + side], params[2 + side], offsets[2 + side], float64s,
                                     int32s, int64s, shown, view)
                if offer == NO_KERNEL:
                    row[COL_ERROR] = ERROR_NO_CUBE_KERNEL
                    return
                if offer == DOUBLE:
                    if first_ply == 0:
                        first_ply = plies + 1
                        first_doubler = side + 1
                    other = 1 - side
                    answer = respond(codes[2 + other], params[2 + other], offsets[2 + other], float64s,
                                     int32s, int64s, shown, view)
                    if answer == NO_KERNEL:
                        row[COL_ERROR] = ERROR_NO_CUBE_KERNEL
                        return
                    if answer == DROP:
                        if TRACING and tracing:
                            _trace_ply(trace, tcount, game_in_match, plies + 1, side,
                                       CUBE_ACTION_DROP, 0, 0, 0, -1, before, board, False)
                        winner = side
                        result = RESULT_DROP
                        break
                    if answer == BEAVER:
                        if view[VIEW_BEAVER] == 0:
                            row[COL_ERROR] = ERROR_BAD_BEAVER
                            return
                        value *= 4
                        owner = other + 1
                        beavers += 1
                        doubles += 2
                        action = CUBE_ACTION_BEAVER
                    else:
                        value *= 2
                        owner = other + 1
                        doubles += 1
                        action = CUBE_ACTION_TAKE
            if PROFILE:
                mark = lap(clock, PHASE_CUBE, mark)
            if plies < given:
                d1 = setup[SETUP_DICE + 2 * plies]
                d2 = setup[SETUP_DICE + 2 * plies + 1]
            else:
                d1 = _die(streams, mirror)
                d2 = _die(streams, mirror)
            if PROFILE:
                mark = lap(clock, PHASE_DICE, mark)
        opening = False
        plies += 1
        one_two = False
        if VARIANT_GAMES:
            one_two = acey and ((d1 == 1 and d2 == 2) or (d1 == 2 and d2 == 1))
            if one_two and stake_doubling:
                value *= 2  # at every 1-2 rolled, whatever comes of it
            # and the cube as it stands for the play (bgsim.game.tell_cube)
            board[CUBE_BYTE] = _cube_code(rules, crawford, in_match, value, owner, side)
        dice_played = 0
        if VARIANT_GAMES and (one_two or (moves_differ and needs_variant_moves(board))):
            count, dice_played = generate_variant(board, d1, d2, hand_first, plays, keys, slots, table)
        else:
            count = generate(board, d1, d2, plays, keys, slots, table, order)
            if VARIANT_GAMES and moves_differ:
                add_state_keys(board, keys, count)
        if PROFILE:
            mark = lap(clock, PHASE_GENERATE, mark)
        rank = -1
        if count > 0:
            if VARIANT_GAMES:
                index = _variant_choose(codes[side], params[side], offsets[side], float64s, int32s, int64s,
                                        board, seen, plays, keys, count, order, streams, 1 + side)
            else:
                index = choose(codes[side], params[side], offsets[side], float64s, int32s, int64s, board,
                               plays, keys, count, order, streams, 1 + side)
            if PROFILE:
                mark = lap(clock, PHASE_CHOOSE, mark)
            if index < 0:
                row[COL_ERROR] = ERROR_NO_CHECKER_KERNEL
                return
            if TRACING and tracing:
                rank = 0
                for i in range(count):
                    if play_before(plays, keys, i, index):
                        rank += 1
            for j in range(BOARD_BYTES):  # not board[:] = plays[index]: see ``before`` above
                board[j] = plays[index, j]
        if TRACING and tracing:
            _trace_ply(trace, tcount, game_in_match, plies, side, action, d1, d2, count, rank,
                       before, board, False)
        all_off = True
        for slot in range(1, 26):
            if board[slot] > 0:
                all_off = False
                break
        if VARIANT_GAMES:
            if board[HAND] != 0:
                all_off = False
            if not all_off and one_two and count > 0 and dice_played == 2:
                # acey-deucey: the 1 and the 2 both played, so a double of the player's choice
                if TRACING and tracing:
                    for j in range(BOARD_BYTES):
                        before[j] = board[j]
                double = choose_double(codes[side], params[side], offsets[side], float64s, int32s, int64s,
                                       board, plays, keys, slots, table, order, streams, 1 + side)
                if double < 0:
                    row[COL_ERROR] = ERROR_NO_DOUBLE_KERNEL
                    return
                count, dice_played = generate_variant(board, double, double, np.bool_(False), plays, keys, slots,
                                                      table)
                rank = -1
                if count > 0:
                    index = _variant_choose(codes[side], params[side], offsets[side], float64s, int32s,
                                            int64s, board, seen, plays, keys, count, order, streams, 1 + side)
                    if index < 0:
                        row[COL_ERROR] = ERROR_NO_CHECKER_KERNEL
                        return
                    if TRACING and tracing:
                        rank = 0
                        for i in range(count):
                            if play_before(plays, keys, i, index):
                                rank += 1
                    for j in range(BOARD_BYTES):
                        board[j] = plays[index, j]
                if TRACING and tracing:
                    _trace_ply(trace, tcount, game_in_match, plies, side, 0, double, double, count, rank,
                               before, board, True)
                all_off = board[HAND] == 0
                for slot in range(1, 26):
                    if board[slot] > 0:
                        all_off = False
                        break
                if not all_off and dice_played == 4:
                    continue  # the double played in full: the same side rolls again
        if all_off:
            winner = side
            if VARIANT_GAMES:
                result = _variant_result_of(board, checkers, acey)
            else:
                result = _result_of(board)
            break
        if VARIANT_GAMES:
            board[CUBE_BYTE] = 0
            board[VARIANT_BYTE] = 0
        _turn(board)
        if VARIANT_GAMES:
            _turn_state(board)
        side = 1 - side
    if PROFILE:
        mark = lap(clock, PHASE_BOOKKEEPING, mark)
    if winner < 0:
        row[COL_ERROR] = ERROR_TOO_LONG
        return
    # One call site with variable arguments: each call with different constant arguments would
    # compile another copy of _finish (cold compile time).
    _finish(row, winner, result, value, owner, doubles, beavers, automatic, first_ply,
            first_doubler, plies, board, rules, in_match, checkers)
    if result == RESULT_STOPPED:
        row[COL_POINTS] = 0
    if PROFILE:
        lap(clock, PHASE_ROW, mark)


def play_number(seed, number, match_to, rules, codes, params, offsets, float64s, int32s, int64s,
                rows, first_row, plays, keys, slots, table, order, trace, tcount, tracing, start,
                setup, stop_bearoff, final, clock):
    """Game ``number`` (money) or match ``number`` (``match_to`` > 0) into ``rows[first_row:]``.

    Returns how many rows (games) it wrote.  Follows ``bgsim.match.play_match``.
    """
    # A money game is a "match" of one game.  One call site, and no argument of it typed as a
    # constant: Numba compiles a separate copy of play_one for every combination of constant
    # argument types it meets (a plain ``games = 0`` is one while types are still being worked
    # out), several seconds of cold compile each.  np.int64(0) and np.bool_(False) are not.
    white_score = np.int64(0)
    black_score = np.int64(0)
    crawford_next = np.bool_(False)
    crawford_done = np.bool_(False)
    games = np.int64(0)
    while True:
        crawford = crawford_next
        crawford_next = False
        row = rows[first_row + games]
        play_one(seed, number, games, match_to, white_score, black_score, crawford,
                 crawford_done and not crawford, rules, codes, params, offsets, float64s, int32s,
                 int64s, row, plays, keys, slots, table, order, trace, tcount, tracing, start, setup,
                 stop_bearoff, final, clock)
        games += 1
        if match_to == 0 or row[COL_ERROR] != ERROR_NONE:
            return games
        if row[COL_WINNER] == WHITE:
            white_score += row[COL_POINTS]
            new_score = white_score
        else:
            black_score += row[COL_POINTS]
            new_score = black_score
        if new_score >= match_to:
            return games
        if not crawford_done and new_score == match_to - 1:
            crawford_next = True
            crawford_done = True


def play_batch(seed, numbers, match_to, rules, codes, params, offsets, float64s, int32s, int64s,
               rows, counts, starts, setups, stop_bearoff, finals):
    """Every number in ``numbers``, on the calling thread, on one set of buffers.  Threads each
    call it on their own slice of the arrays (``bgsim.fast.on_threads``: it holds no GIL), which
    Numba compiles in a fraction of a parallel loop's time.

    A game's result depends only on (seed, number) and its own row of ``starts``, ``setups``
    (each with a row per number, or none at all for opening games).  ``finals`` (a row per
    number, or none) receives the board where a game stopped.
    """
    per = 1 if match_to == 0 else 2 * match_to - 1
    # np.bool_(False), not False, for ``tracing`` (and np.bool_(True) in trace_number): Numba
    # compiles a callee once for each constant it is passed as a literal, so ``False`` and
    # ``True`` would make two copies of play_number and of play_one where one serves both
    plays, keys, slots, table, order = new_buffers()
    trace = np.zeros((1, TRACE_SIZE), dtype=np.int64)
    tcount = np.zeros(1, dtype=np.int64)
    opening = np.zeros(0, dtype=np.int8)
    no_setup = np.zeros(0, dtype=np.int64)
    clock = np.zeros((2, 0), dtype=np.int64)  # the engine's kernels do not profile
    for i in range(numbers.shape[0]):
        start = starts[i] if starts.shape[0] > 0 else opening
        setup = setups[i] if setups.shape[0] > 0 else no_setup
        final = finals[i] if finals.shape[0] > 0 else opening
        counts[i] = play_number(seed, numbers[i], match_to, rules, codes, params, offsets, float64s, int32s,
                                int64s, rows, i * per, plays, keys, slots, table, order, trace, tcount,
                                np.bool_(False), start, setup, stop_bearoff, final, clock)


def trace_number(seed, number, match_to, rules, codes, params, offsets, float64s, int32s, int64s,
                 rows, trace, tcount, start, setup):
    """One game or match, recording every ply into ``trace`` (rows beyond its size are dropped)."""
    plays, keys, slots, table, order = new_buffers()
    final = np.zeros(0, dtype=np.int8)
    clock = np.zeros((2, 0), dtype=np.int64)
    return play_number(seed, number, match_to, rules, codes, params, offsets, float64s, int32s,
                       int64s, rows, 0, plays, keys, slots, table, order, trace, tcount, np.bool_(True), start,
                       setup, np.int64(0), final, clock)


def profile_batch(seed, numbers, rules, codes, params, offsets, float64s, int32s, int64s, rows, clock):
    """Money games from the opening on one thread, as ``play_batch`` plays them, each phase's
    cycles charged to ``clock`` (with ``PROFILE`` on: ``bgsim.fast.timing``); returns the cycles
    of the whole."""
    plays, keys, slots, table, order = new_buffers()
    trace = np.zeros((1, TRACE_SIZE), dtype=np.int64)
    tcount = np.zeros(1, dtype=np.int64)
    opening = np.zeros(0, dtype=np.int8)
    no_setup = np.zeros(0, dtype=np.int64)
    started = cycles()
    for i in range(numbers.shape[0]):
        play_number(seed, numbers[i], np.int64(0), rules, codes, params, offsets, float64s, int32s, int64s,
                    rows, i, plays, keys, slots, table, order, trace, tcount, np.bool_(False), opening,
                    no_setup, np.int64(0), opening, clock)
    return cycles() - started
