"""The chouette in Numba: ``bgsim.chouette`` game for game, session for session.

``bgsim/chouette.py``'s docstring is the contract, and this module follows it step for step:
the streams (dice stream 0 of (seed, game), the box throwing white's die; player i's choices
stream ``1 + i``; the seating throws are the reference's, done in Python before the kernel
runs), the opening roll and its automatic doubles, every cube question in its order (``team``
and ``individual`` regimes), who moves the team's checkers, the score of every member's cube
and the rotation after each game.

A session is sequential: the seats of a game depend on who won the one before, so a session
runs on one thread (``play_session``); independent sessions can run side by side.

Kernel arguments.  ``count`` players; ``seating`` int64[count], the player numbers of the box,
the captain and the team in order (rotated in place by ``play_session``).  The bot halves are
packed by ``bgsim.fast.pack_halves``, player i's checker bot at index i and its cube bot at
``count + i`` of ``codes``, ``params`` and ``offsets``.  ``regime`` is the index of
``bgsim.chouette.CUBE_REGIMES`` (0 team, 1 individual); ``rules`` is ``bgsim.fast.game``'s
int64[6].  One game writes ``count`` rows of int64s (``COL_*``, the engine columns of
``bgsim.schema.CHOUETTE_ENGINE_COLUMNS`` coded as there, plus an error code in the box's row),
in seat order.

A traced game also writes one row per ply (``TRACE_*``: the ply, the side on roll, the player
who moved, the dice, the number of legal plays, the canonical index of the chosen play, where
its cube answers start in ``events`` and how many there are, then the board before the roll and
after the play, both from the side on roll) and one row per cube answer (``EVENT_*``: player,
action, the cube's value before the double).

**This loop is compiled several ways, never as it stands.**  ``play_game`` and the entries
``play_session`` and ``trace_one`` are templates reading the dispatch slots below; each family of
``bgsim/fast/families.py`` compiles a copy with them filled in.  The families that compile this
loop (``FAMILIES`` there): chouette, chouette_with_exact.
"""

from __future__ import annotations

import numpy as np

from .compile import Slot, inline_jit, jit, stack_empty
from .cube import BEAVER, DOUBLE, DROP
from .dice import die, open_stream
from .match_cube import VIEW_BEAVER, VIEW_CENTRED, VIEW_JACOBY, VIEW_MAX, VIEW_SIZE, VIEW_VALUE
from .moves import BOARD_BYTES, generate, new_buffers, play_before

from .game import (
    ERROR_BAD_BEAVER, ERROR_NO_CHECKER_KERNEL, ERROR_NO_CUBE_KERNEL, ERROR_NONE, ERROR_TOO_LONG,
    MAX_PLIES, NO_KERNEL, RESULT_DROP, RULE_AUTOMATIC, RULE_BEAVER, RULE_CUBE, RULE_JACOBY,
    RULE_MAX_CUBE, SINGLE, _result_of, _start, _turn, points_for,
)

ENGINE_COLUMNS = (
    "game", "player", "seat", "place", "winner", "result", "cube_value", "cube_owner", "left_ply",
    "dropped", "doubles_offered", "doubles_accepted", "doubles_received", "doubles_taken", "beavers",
    "doubles_blocked", "plies_moved", "points", "plies", "automatic_doubles",
)
(COL_GAME, COL_PLAYER, COL_SEAT, COL_PLACE, COL_WINNER, COL_RESULT, COL_CUBE_VALUE, COL_CUBE_OWNER,
 COL_LEFT_PLY, COL_DROPPED, COL_OFFERED, COL_ACCEPTED, COL_RECEIVED, COL_TAKEN, COL_BEAVERS,
 COL_BLOCKED, COL_PLIES_MOVED, COL_POINTS, COL_PLIES, COL_AUTOMATIC, COL_ERROR) = range(21)
ROW_SIZE = 21

BOX, TEAM = 0, 1  # the sides, as schema.CHOUETTE_SIDE_CODES
REGIMES = ("team", "individual")  # bgsim.chouette.CUBE_REGIMES (tests hold them equal)
TEAM_CUBES, INDIVIDUAL_CUBES = 0, 1
CENTRE = 1  # schema.CHOUETTE_OWNER_CODES: 0 none (the box's row), 1 centre, 2 box, 3 team (2 + side)
MAX_PLAYERS = 10
STREAMS = 1 + MAX_PLAYERS  # the dice, then player i's choices at row 1 + i (stream 1 + i)

# a cube answer in a trace, as bgsim.chouette.CubeEvent's actions
ACTIONS = ("no double", "double", "take", "drop", "beaver")
ACTION_NO_DOUBLE, ACTION_DOUBLE, ACTION_TAKE, ACTION_DROP, ACTION_BEAVER = range(5)
EVENT_PLAYER, EVENT_ACTION, EVENT_VALUE = range(3)
EVENT_SIZE = 3
(TRACE_PLY, TRACE_SIDE, TRACE_MOVER, TRACE_DIE1, TRACE_DIE2, TRACE_PLAYS, TRACE_RANK,
 TRACE_FIRST_EVENT, TRACE_EVENTS) = range(9)
TRACE_HEAD = 9
TRACE_SIZE = TRACE_HEAD + 52


# --- the slots every family fills in (bgsim/fast/families.py): the dispatches of its bots ----
choose = Slot("the checker dispatch")
offer_double = Slot("the cube dispatch's offer")
respond = Slot("the cube dispatch's answer")


@inline_jit
def _may_double(owner, value, side, rules):
    """``bgsim.cube.Cube.may_double`` of a member's cube for ``side`` (money play)."""
    return (rules[RULE_CUBE] != 0 and (owner == CENTRE or owner == 2 + side)
            and value * 2 <= rules[RULE_MAX_CUBE])


@inline_jit
def _fill_view(view, value, owner, rules, beaver_allowed):
    """``bgsim.game.cube_view`` of a money cube, beavers as the caller allows them."""
    view[VIEW_VALUE] = value
    view[VIEW_CENTRED] = 1 if owner == CENTRE else 0
    view[VIEW_MAX] = rules[RULE_MAX_CUBE]
    view[VIEW_BEAVER] = 1 if beaver_allowed else 0
    view[VIEW_JACOBY] = 1 if rules[RULE_JACOBY] != 0 else 0
    for j in range(VIEW_JACOBY + 1, VIEW_SIZE):  # match_to, away, opponent's away, post-Crawford
        view[j] = 0


@inline_jit
def _beaver_allowed(value, rules):
    """``bgsim.cube.Cube.may_beaver`` in a money game."""
    return rules[RULE_BEAVER] != 0 and value * 4 <= rules[RULE_MAX_CUBE]


@jit
def _event(events, ecount, tracing, player, action, value):
    if not tracing:
        return
    e = ecount[0]
    if e >= events.shape[0]:
        return
    events[e, EVENT_PLAYER] = player
    events[e, EVENT_ACTION] = action
    events[e, EVENT_VALUE] = value
    ecount[0] = e + 1


@inline_jit
def _answer_action(answer):
    if answer == DROP:
        return ACTION_DROP
    if answer == BEAVER:
        return ACTION_BEAVER
    return ACTION_TAKE


@jit
def _settle(rows, member, doubler_side, answer, view_value, values, owners, turned, in_game, ply):
    """The answer to a double of ``member``'s cube offered by ``doubler_side``
    (``bgsim.chouette._Game.settle``); ``rows`` are the game's, the box's first."""
    member_row = member + 1
    doubler_row = 0 if doubler_side == BOX else member_row
    taker_row = member_row if doubler_side == BOX else 0
    rows[doubler_row, COL_OFFERED] += 1
    rows[taker_row, COL_RECEIVED] += 1
    if answer == DROP:
        rows[taker_row, COL_DROPPED] = 1
        in_game[member] = 0
        rows[member_row, COL_LEFT_PLY] = ply
        rows[member_row, COL_RESULT] = RESULT_DROP
        rows[member_row, COL_POINTS] = view_value if doubler_side == TEAM else -view_value
        return
    if answer == BEAVER:
        values[member] *= 4
        rows[taker_row, COL_BEAVERS] += 1
    else:
        values[member] *= 2
    owners[member] = 2 + (1 - doubler_side)
    rows[taker_row, COL_TAKEN] += 1
    rows[doubler_row, COL_ACCEPTED] += 1
    turned[member] = 1


@jit
def _trace_ply(trace, tcount, ply, side, mover, d1, d2, nplays, rank, first_event, events_now,
               before, after):
    t = tcount[0]
    if t >= trace.shape[0]:
        return
    trace[t, TRACE_PLY] = ply
    trace[t, TRACE_SIDE] = side
    trace[t, TRACE_MOVER] = mover
    trace[t, TRACE_DIE1] = d1
    trace[t, TRACE_DIE2] = d2
    trace[t, TRACE_PLAYS] = nplays
    trace[t, TRACE_RANK] = rank
    trace[t, TRACE_FIRST_EVENT] = first_event
    trace[t, TRACE_EVENTS] = events_now - first_event
    for i in range(26):
        trace[t, TRACE_HEAD + i] = before[i]
        trace[t, TRACE_HEAD + 26 + i] = after[i]
    tcount[0] = t + 1


@inline_jit
def _error(rows, code):
    rows[0, COL_ERROR] = code
    return -1


def play_game(seed, number, count, seating, rules, regime, codes, params, offsets, float64s, int32s,
              int64s, rows, plays, keys, slots, table, order, trace, tcount, events, ecount, tracing):
    """Game ``number`` with the seats ``seating`` into ``rows`` (``count`` rows, seat order);
    ``bgsim.chouette._Game.play``.  Returns the winner (BOX or TEAM), or -1 with an error code
    in the box's row."""
    members = count - 1
    for place in range(count):
        for j in range(ROW_SIZE):
            rows[place, j] = 0
        rows[place, COL_GAME] = number
        rows[place, COL_PLAYER] = seating[place]
        rows[place, COL_SEAT] = min(place, 2)
        rows[place, COL_PLACE] = place
    streams = stack_empty((STREAMS, 2), np.uint64)
    open_stream(streams, 0, seed, number, 0)
    for place in range(count):
        open_stream(streams, 1 + seating[place], seed, number, 1 + seating[place])
    box = seating[0]

    # the members' cubes (member m sits at place m + 1)
    values = stack_empty(MAX_PLAYERS, np.int64)
    owners = stack_empty(MAX_PLAYERS, np.int64)
    turned = stack_empty(MAX_PLAYERS, np.int64)
    in_game = stack_empty(MAX_PLAYERS, np.int64)
    wants = stack_empty(MAX_PLAYERS, np.int64)
    view = stack_empty(VIEW_SIZE, np.int64)
    board = stack_empty(BOARD_BYTES, np.int8)
    before = stack_empty(BOARD_BYTES, np.int8)
    for j in range(BOARD_BYTES):  # the padding stays 0
        board[j] = 0
        before[j] = 0

    start_value = 1
    automatic = 0
    while True:  # the box throws white's die, the team black's
        box_die = die(streams, 0)
        team_die = die(streams, 0)
        if box_die != team_die:
            break
        if (rules[RULE_CUBE] != 0 and automatic < rules[RULE_AUTOMATIC]
                and start_value * 2 <= rules[RULE_MAX_CUBE]):
            start_value *= 2
            automatic += 1
    side = BOX if box_die > team_die else TEAM
    d1 = box_die if side == BOX else team_die
    d2 = team_die if side == BOX else box_die
    for m in range(members):
        values[m] = start_value
        owners[m] = CENTRE
        turned[m] = 0
        in_game[m] = 1
    _start(board)

    plies = 0
    opening = True
    winner = -1
    result = SINGLE
    while plies < MAX_PLIES:
        first_event = ecount[0]
        if tracing:
            for j in range(BOARD_BYTES):  # element by element: see bgsim.fast.game.play_one
                before[j] = board[j]
        if not opening:
            # --- the cube questions of this turn, in the reference's order ---
            if regime == TEAM_CUBES:
                first = -1
                for m in range(members):
                    if in_game[m]:
                        first = m
                        break
                if first >= 0 and _may_double(owners[first], values[first], side, rules):
                    value = values[first]  # every member still in holds the same cube
                    if side == BOX:
                        _fill_view(view, value, owners[first], rules, False)
                        offer = offer_double(codes[count + box], params[count + box], offsets[count + box],
                                             float64s, int32s, int64s, board, view)
                        if offer == NO_KERNEL:
                            return _error(rows, ERROR_NO_CUBE_KERNEL)
                        _event(events, ecount, tracing, box,
                               ACTION_DOUBLE if offer == DOUBLE else ACTION_NO_DOUBLE, value)
                        if offer == DOUBLE:
                            for m in range(members):
                                if not in_game[m]:
                                    continue
                                player = seating[m + 1]
                                answer = respond(codes[count + player], params[count + player],
                                                 offsets[count + player], float64s, int32s, int64s, board, view)
                                if answer == NO_KERNEL:
                                    return _error(rows, ERROR_NO_CUBE_KERNEL)
                                if answer == BEAVER:  # the box's double is never beavered here
                                    return _error(rows, ERROR_BAD_BEAVER)
                                _event(events, ecount, tracing, player, _answer_action(answer), value)
                                _settle(rows, m, np.int64(BOX), answer, value, values, owners, turned, in_game, plies + 1)
                    else:
                        _fill_view(view, value, owners[first], rules, _beaver_allowed(value, rules))
                        asked = 0
                        wanting = 0
                        for m in range(members):
                            if not in_game[m]:
                                continue
                            player = seating[m + 1]
                            offer = offer_double(codes[count + player], params[count + player],
                                                 offsets[count + player], float64s, int32s, int64s, board, view)
                            if offer == NO_KERNEL:
                                return _error(rows, ERROR_NO_CUBE_KERNEL)
                            _event(events, ecount, tracing, player,
                                   ACTION_DOUBLE if offer == DOUBLE else ACTION_NO_DOUBLE, value)
                            wants[m] = 1 if offer == DOUBLE else 0
                            wanting += wants[m]
                            asked += 1
                        if wanting < asked:  # not unanimous: the team does not double
                            for m in range(members):
                                if in_game[m] and wants[m]:
                                    rows[m + 1, COL_BLOCKED] += 1
                        else:
                            answer = respond(codes[count + box], params[count + box], offsets[count + box],
                                             float64s, int32s, int64s, board, view)
                            if answer == NO_KERNEL:
                                return _error(rows, ERROR_NO_CUBE_KERNEL)
                            if answer == BEAVER and view[VIEW_BEAVER] == 0:
                                return _error(rows, ERROR_BAD_BEAVER)
                            _event(events, ecount, tracing, box, _answer_action(answer), value)
                            for m in range(members):
                                if in_game[m]:
                                    _settle(rows, m, np.int64(TEAM), answer, value, values, owners, turned, in_game,
                                            plies + 1)
            else:  # every member's own cube, one after the other
                for m in range(members):
                    if not in_game[m] or not _may_double(owners[m], values[m], side, rules):
                        continue
                    value = values[m]
                    player = seating[m + 1]
                    doubler = box if side == BOX else player
                    taker = player if side == BOX else box
                    _fill_view(view, value, owners[m], rules, _beaver_allowed(value, rules))
                    offer = offer_double(codes[count + doubler], params[count + doubler],
                                         offsets[count + doubler], float64s, int32s, int64s, board, view)
                    if offer == NO_KERNEL:
                        return _error(rows, ERROR_NO_CUBE_KERNEL)
                    _event(events, ecount, tracing, doubler,
                           ACTION_DOUBLE if offer == DOUBLE else ACTION_NO_DOUBLE, value)
                    if offer != DOUBLE:
                        continue
                    answer = respond(codes[count + taker], params[count + taker], offsets[count + taker],
                                     float64s, int32s, int64s, board, view)
                    if answer == NO_KERNEL:
                        return _error(rows, ERROR_NO_CUBE_KERNEL)
                    if answer == BEAVER and view[VIEW_BEAVER] == 0:
                        return _error(rows, ERROR_BAD_BEAVER)
                    _event(events, ecount, tracing, taker, _answer_action(answer), value)
                    _settle(rows, m, side, answer, value, values, owners, turned, in_game, plies + 1)
            anyone = False
            for m in range(members):
                if in_game[m]:
                    anyone = True
                    break
            if not anyone:  # every member left: the side on roll doubled them all out
                if tracing:
                    none = np.int64(0)
                    _trace_ply(trace, tcount, plies + 1, side, np.int64(-1), none, none, none, np.int64(-1),
                               first_event, ecount[0], before, board)
                winner = side
                result = RESULT_DROP
                break
            d1 = die(streams, 0)
            d2 = die(streams, 0)
        opening = False
        plies += 1
        mover_place = 0
        if side == TEAM:  # the first member still in moves the team's checkers
            for m in range(members):
                if in_game[m]:
                    mover_place = m + 1
                    break
        mover = seating[mover_place]
        nplays = generate(board, d1, d2, plays, keys, slots, table, order)
        rank = -1
        if nplays > 0:
            index = choose(codes[mover], params[mover], offsets[mover], float64s, int32s, int64s, board,
                           plays, keys, nplays, order, streams, 1 + mover)
            if index < 0:
                return _error(rows, ERROR_NO_CHECKER_KERNEL)
            if tracing:
                rank = 0
                for i in range(nplays):
                    if play_before(plays, keys, i, index):
                        rank += 1
            for j in range(BOARD_BYTES):
                board[j] = plays[index, j]
        rows[mover_place, COL_PLIES_MOVED] += 1
        if tracing:
            _trace_ply(trace, tcount, plies, side, mover, d1, d2, nplays, rank, first_event, ecount[0],
                       before, board)
        all_off = True
        for slot in range(1, 26):
            if board[slot] > 0:
                all_off = False
                break
        if all_off:
            winner = side
            result = _result_of(board)
            break
        _turn(board)
        side = 1 - side
    if winner < 0:
        return _error(rows, ERROR_TOO_LONG)

    box_points = 0
    for m in range(members):
        if in_game[m]:
            points = points_for(result, values[m], rules, turned[m] != 0, False)
            rows[m + 1, COL_POINTS] = points if winner == TEAM else -points
            rows[m + 1, COL_RESULT] = result
        rows[m + 1, COL_CUBE_VALUE] = values[m]
        rows[m + 1, COL_CUBE_OWNER] = owners[m]
        box_points -= rows[m + 1, COL_POINTS]
    rows[0, COL_RESULT] = result
    rows[0, COL_POINTS] = box_points
    for place in range(count):
        rows[place, COL_WINNER] = winner
        rows[place, COL_PLIES] = plies
        rows[place, COL_AUTOMATIC] = automatic
    rows[0, COL_ERROR] = ERROR_NONE
    return winner


@jit
def rotate(seating, count, winner):
    """``bgsim.chouette.Seating.after``, in place."""
    box = seating[0]
    captain = seating[1]
    for place in range(1, count - 1):
        seating[place] = seating[place + 1]
    seating[0] = captain if winner == TEAM else box
    seating[count - 1] = box if winner == TEAM else captain


def play_session(seed, numbers, count, seating, rules, regime, codes, params, offsets, float64s,
                 int32s, int64s, rows):
    """The games ``numbers`` one after the other into ``rows`` (``count`` rows a game), the seats
    rotating in ``seating``.  Returns how many games it finished (fewer: an error in the next
    game's box row)."""
    plays, keys, slots, table, order = new_buffers()
    trace = np.zeros((1, TRACE_SIZE), dtype=np.int64)
    tcount = np.zeros(1, dtype=np.int64)
    events = np.zeros((1, EVENT_SIZE), dtype=np.int64)
    ecount = np.zeros(1, dtype=np.int64)
    for i in range(numbers.shape[0]):
        winner = play_game(seed, numbers[i], count, seating, rules, regime, codes, params, offsets,
                           float64s, int32s, int64s, rows[i * count:(i + 1) * count], plays, keys, slots,
                           table, order, trace, tcount, events, ecount, np.bool_(False))
        if winner < 0:
            return i
        rotate(seating, count, winner)
    return numbers.shape[0]


def trace_one(seed, number, count, seating, rules, regime, codes, params, offsets, float64s, int32s,
              int64s, rows, trace, tcount, events, ecount):
    """One game, recording every ply and cube answer (rows beyond the buffers' sizes are dropped)."""
    plays, keys, slots, table, order = new_buffers()
    return play_game(seed, number, count, seating, rules, regime, codes, params, offsets, float64s,
                     int32s, int64s, rows, plays, keys, slots, table, order, trace, tcount, events,
                     ecount, np.bool_(True))  # not True: see bgsim.fast.game.play_batch


# --- from Python ------------------------------------------------------------------------------

CHUNK_GAMES = 10_000  # games per kernel call of a long session: bounds the int64 rows held at once


class Table:
    """Players seated for the kernels once (packed), under one set of rules and one cube regime:
    sessions played and games traced without packing them again.

    ``bgsim.chouette`` checks a session's players, seats and games before it gets here (this
    module never imports it: it is the engine below it).  ValueError (one line) for a player the
    fast engine cannot run: a bot without a kernel names itself (``bgsim.fast.player_halves``),
    and a user's evaluation function plays chouettes only in the reference engine.
    """

    def __init__(self, players, rules, chouette_cubes: str) -> None:
        from ..cube import Rules
        from . import CUSTOM, _rule_array, pack_halves, player_halves

        self.players = list(players)
        if not 3 <= len(self.players) <= MAX_PLAYERS:
            raise ValueError(f"a chouette has 3 to {MAX_PLAYERS} players, got {len(self.players)}")
        if not isinstance(rules, Rules):
            raise TypeError(f"rules must be a bgsim.cube.Rules, got {type(rules).__name__}")
        if rules.variant != "standard":
            raise ValueError(f"a chouette is a game of standard backgammon, not {rules.variant}")
        if chouette_cubes not in REGIMES:
            raise ValueError(f"unknown chouette cube regime {chouette_cubes!r}: choose from {', '.join(REGIMES)}")
        self.rules = rules
        self.regime = REGIMES.index(chouette_cubes)
        checkers, cubes = [], []
        for number, player in enumerate(self.players):
            checker, cube = player_halves(player)
            if checker.code == CUSTOM:
                raise ValueError(f"player {number} ({player.name}): a custom evaluation function plays "
                                 "chouettes in the reference engine only")
            _check_seat(number, player)
            checkers.append((checker.code, checker))
            cubes.append((cube.code, cube))
        self.packed = pack_halves(checkers + cubes)
        self.rule_array = _rule_array(rules)
        kernels = family_of(self.players)
        self._play = kernels.play_session
        self._trace = kernels.trace_one

    @property
    def count(self) -> int:
        return len(self.players)

    def _order(self, seating) -> np.ndarray:
        order = np.array(seating, dtype=np.int64)
        if sorted(order.tolist()) != list(range(self.count)):
            raise ValueError(f"a seating is every player number 0..{self.count - 1} once, got {tuple(seating)}")
        return order

    def play(self, seed: int, numbers: range, seating):
        """The engine columns (``ENGINE_COLUMNS``, in the schema's dtypes, codes as integers) of
        the games ``numbers`` (consecutive game numbers) of session ``seed``, the first of them
        seated as ``seating`` (player numbers: the box, the captain, the team), and the seating
        of the game after the last."""
        from ..dice import check_seed
        from ..schema import CHOUETTE_CODED, CHOUETTE_COLUMNS

        check_seed(seed)
        if not isinstance(numbers, range) or numbers.step != 1:
            raise ValueError("the games of a session follow each other: a range of game numbers with step 1")
        order = self._order(seating)
        parts = []
        for first in range(numbers.start, numbers.stop, CHUNK_GAMES):
            chunk = np.arange(first, min(first + CHUNK_GAMES, numbers.stop), dtype=np.int64)
            rows = np.zeros((len(chunk) * self.count, ROW_SIZE), dtype=np.int64)
            done = self._play(seed, chunk, self.count, order, self.rule_array, self.regime,
                              *self.packed.args, rows)
            if done < len(chunk):
                self._raise(rows[done * self.count], seed)
            parts.append({name: rows[:, index].astype(np.int64 if name in CHOUETTE_CODED
                                                       else CHOUETTE_COLUMNS[name][0])
                          for index, name in enumerate(ENGINE_COLUMNS)})
        if not parts:
            columns = {name: np.zeros(0, dtype=np.int64) for name in ENGINE_COLUMNS}
        else:
            columns = {name: np.concatenate([part[name] for part in parts]) for name in ENGINE_COLUMNS}
        return columns, tuple(int(number) for number in order)

    def trace(self, seed: int, number: int, seating, max_plies: int = 20_000, max_events: int = 100_000):
        """Game ``number`` of session ``seed`` seated as ``seating``, traced: (rows, trace,
        events) as int64 arrays (see the module docstring)."""
        from ..dice import check_seed

        check_seed(seed)
        check_seed(number, "game number")
        order = self._order(seating)
        rows = np.zeros((self.count, ROW_SIZE), dtype=np.int64)
        trace = np.zeros((max_plies, TRACE_SIZE), dtype=np.int64)
        events = np.zeros((max_events, EVENT_SIZE), dtype=np.int64)
        tcount = np.zeros(1, dtype=np.int64)
        ecount = np.zeros(1, dtype=np.int64)
        winner = self._trace(seed, number, self.count, order, self.rule_array, self.regime,
                             *self.packed.args, rows, trace, tcount, events, ecount)
        if winner < 0:
            self._raise(rows[0], seed)
        return rows, trace[:tcount[0]], events[:ecount[0]]

    def _raise(self, row: np.ndarray, seed: int) -> None:
        from ..decisions import DecisionError

        error, game = int(row[COL_ERROR]), int(row[COL_GAME])
        if error == ERROR_TOO_LONG:
            raise RuntimeError(f"chouette game {game} of seed {seed} did not end within {MAX_PLIES} plies")
        if error == ERROR_BAD_BEAVER:
            raise DecisionError(f"chouette game {game} of seed {seed}: a cube bot beavered where "
                                "beavers are not allowed")
        if error == ERROR_NO_CHECKER_KERNEL:
            raise RuntimeError(f"fast engine error: no checker kernel for a code of {self.packed.codes[:self.count]}")
        if error == ERROR_NO_CUBE_KERNEL:
            raise RuntimeError(f"fast engine error: no cube kernel for a code of {self.packed.codes[self.count:]}")
        raise RuntimeError(f"chouette game {game} of seed {seed}: engine error {error}")


def family_of(players):
    """The family of the chouette's loop that ``players`` sit at (``bgsim/fast/families.py``),
    chosen where every family is, ``bgsim.fast.family_of``."""
    from . import family_of as chosen

    return chosen(players, chouette=True)


def _check_seat(number: int, player) -> None:
    """ValueError (one line) when a bot of ``player`` does not say in ``bgsim/layouts.py`` that it
    can sit in a chouette (its layout's ``chouette``)."""
    from .. import layouts

    for role, bot in ((layouts.CHECKER, getattr(player, "checker", None)), (layouts.CUBE, getattr(player, "cube", None))):
        name = getattr(bot, "fast_name", "") or layouts.NO_CUBE.name
        if not layouts.fast_bots(role)[name].chouette:
            raise ValueError(f"player {number} ({player.name}): {role} bot {name!r} cannot sit in a chouette "
                             "in the fast engine (bgsim/layouts.py); use the reference engine")


def supports(player) -> bool:
    """Whether the fast engine can seat ``player`` at a chouette (both bots have kernels that say
    they can sit in one, and its checker bot is not a user's evaluation function)."""
    from . import CUSTOM, player_halves

    try:
        if player_halves(player)[0].code == CUSTOM:
            return False
        _check_seat(0, player)
    except ValueError:
        return False
    return True
