"""The fast engine's table of bots against the registries of ``bots/``: every registered bot that
claims a fast kernel has a declared layout, hands over exactly the declared values, and has a
kernel; every declared kernel has a registered bot; an unknown code is an engine error.

Nothing here names a bot: a new one is checked as soon as it is registered.
"""

from __future__ import annotations

import re
from pathlib import Path

import numba
import numpy as np
import pytest

import bgsim.fast
from bgsim import Position, layouts
from bgsim.fast import OPENING, fast_half, seats
from bgsim.fast.dispatch import NO_KERNEL, choose
from bgsim.fast.match_cube import VIEW_CENTRED, VIEW_MAX, VIEW_SIZE, VIEW_VALUE
# the dispatch with every cube bot, exact's in front (the every_bot families of bgsim/fast/families.py)
from bgsim.fast.dispatch import offer_double_with_exact as offer_double
from bgsim.fast.dispatch import respond_with_exact as respond
from bgsim.fast.dice import open_stream
from bgsim.fast.families import family
from bgsim.fast.game import (
    COL_ERROR, ERROR_NO_CHECKER_KERNEL, ERROR_NO_CUBE_KERNEL, ROW_SIZE, TRACE_SIZE,
)
from bgsim.fast.moves import BOARD_BYTES, generate, new_buffers
from bgsim.met import kernel_arrays
from bots import checker_bots, cube_bots, make_player
from bots.pubeval import CONTACT_WEIGHTS, RACE_WEIGHTS

ROLES = {layouts.CHECKER: checker_bots, layouts.CUBE: cube_bots}
REGISTERED = [(role, name) for role, registry in ROLES.items() for name in registry()]
FAST = [(role, name) for role, name in REGISTERED if ROLES[role]()[name].fast_name]
REFERENCE_ONLY = [(role, name) for role, name in REGISTERED if not ROLES[role]()[name].fast_name]


def _bot(role, name):
    return ROLES[role]()[name]()


@pytest.mark.parametrize("role, name", FAST, ids=[f"{role}-{name}" for role, name in FAST])
def test_a_registered_fast_bot_hands_over_exactly_its_declared_layout(role, name):
    bot = _bot(role, name)
    declared = layouts.fast_bots(role)
    assert bot.fast_name in declared, f"{name}: fast_name {bot.fast_name!r} is not declared in bgsim/layouts.py"
    layout = declared[bot.fast_name]
    # its own values; those of its capabilities come from its switches (bgsim.fast.capability_values)
    assert list(bot.fast_params()) == list(layout.own_params)
    assert all(isinstance(value, float) for value in bot.fast_params().values())
    assert set(bot.fast_arrays()) == {key for key, _ in layout.own_arrays}
    half = fast_half(bot, role)
    assert half.code == layout.code and len(half.params) == len(layout.params)


@pytest.mark.parametrize("role, name", REFERENCE_ONLY, ids=[f"{role}-{name}" for role, name in REFERENCE_ONLY])
def test_a_reference_only_bot_is_refused_by_the_fast_engine(role, name):
    with pytest.raises(ValueError, match="cannot run in the fast engine"):
        fast_half(_bot(role, name), role)


@pytest.mark.parametrize("layout", layouts.FAST_BOTS, ids=lambda layout: f"{layout.role}-{layout.name}")
def test_every_declared_kernel_has_a_registered_bot(layout):
    claimed = {name for bot in ROLES[layout.role]().values() for name in (bot.fast_name, *bot.fast_alternatives)}
    assert layout.name in claimed, f"kernel {layout.name!r} ({layout.role}) has no registered bot"


def _positions():
    start = Position.start()
    race = Position.from_points({6: 3, 5: 3, 4: 3, 3: 3, 2: 3}, {19: 4, 20: 4, 21: 4, 22: 3})
    contact = Position.from_points({24: 2, 13: 5, 8: 3, 6: 4, 5: 1}, {1: 2, 12: 5, 17: 3, 19: 5})
    return [start, race, contact]


@pytest.mark.parametrize("role, name", FAST, ids=[f"{role}-{name}" for role, name in FAST])
def test_a_registered_fast_bot_has_a_kernel(role, name):
    # A branch missing from the dispatch answers NO_KERNEL here (and an engine error in games).
    bot = _bot(role, name)
    holder = type("Holder", (), {})()
    holder.checker, holder.cube, holder.name = bot, None, name
    if role == layouts.CUBE:
        holder.checker, holder.cube = make_player("random").checker, bot
    packed = seats(holder, holder)
    seat = 0 if role == layouts.CHECKER else 2
    args = (packed.codes[seat], packed.params[seat], packed.offsets[seat], packed.float64s,
            packed.int32s, packed.int64s)
    plays, keys, slots, table, order = new_buffers()
    streams = np.zeros((3, 2), dtype=np.uint64)
    for stream in range(3):
        open_stream(streams, stream, 1, 0, stream)
    view = np.zeros(VIEW_SIZE, dtype=np.int64)
    view[VIEW_VALUE], view[VIEW_CENTRED], view[VIEW_MAX] = 1, 1, 64
    for position in _positions():
        board = np.zeros(BOARD_BYTES, dtype=np.int8)  # padded, as the game loop keeps it
        board[:26] = position.board
        if role == layouts.CHECKER:
            count = generate(board, 3, 1, plays, keys, slots, table, order)
            assert 0 <= choose(*args, board, plays, keys, count, order, streams, 1) < count
        else:
            assert offer_double(*args, board, view) != NO_KERNEL
            assert respond(*args, board, view) != NO_KERNEL


def _batch(codes, cube=1):
    packed = seats(make_player("random"), make_player("random"))
    rows = np.zeros((1, ROW_SIZE), dtype=np.int64)
    rules = np.array([cube, 64, 0, 0, 0, 0, 0, 0], dtype=np.int64)  # bgsim.fast._rule_array's eight
    family("every_bot").play_batch(1, np.zeros(1, dtype=np.int64), 0, rules, np.array(codes, dtype=np.int64),
                                   *packed.args[1:], rows, np.zeros(1, dtype=np.int64), OPENING.boards,
                                   OPENING.setups, np.int64(0), OPENING.boards)
    return rows


def test_an_unknown_code_is_an_engine_error_not_a_default():
    assert _batch([99, 0, 0, 0])[0, COL_ERROR] == ERROR_NO_CHECKER_KERNEL
    assert _batch([0, 99, 0, 0])[0, COL_ERROR] == ERROR_NO_CHECKER_KERNEL
    assert _batch([0, 0, 99, 0])[0, COL_ERROR] == ERROR_NO_CUBE_KERNEL  # asked on white's 2nd turn
    assert _batch([0, 0, 0, 0])[0, COL_ERROR] == 0
    rows = _batch([0, 0, 99, 0])
    with pytest.raises(RuntimeError, match="no cube kernel for code 99"):
        bgsim.fast._raise_errors(rows, 1, np.array([0, 0, 99, 0]))


class _Checker:
    fast_name = "racer"
    name = "racer"
    bearoff = False  # racer's bear-off switch (bots.checker.BEAROFF)

    def __init__(self, params):
        self.params = params

    def fast_params(self):
        return self.params


@pytest.mark.parametrize("params, words", [
    ({"hit": 2.0}, "missing: blot"),
    ({"hit": 2.0, "blot": 5.0, "speed": 1.0}, "not declared: speed"),
    # a capability's values come from the switch, never from the bot
    ({"hit": 2.0, "blot": 5.0, "bearoff": 1.0}, "not declared: bearoff"),
    ((2.0, 5.0), "must return a mapping"),
    ({"hit": 2.0, "blot": float("nan")}, "blot must be a finite number"),
])
def test_parameters_are_handed_over_by_their_declared_names(params, words):
    with pytest.raises(ValueError, match=re.escape(words)):
        fast_half(_Checker(params), layouts.CHECKER)


def test_pubevals_weights_reach_the_kernel_once_as_array_data():
    packed = seats(make_player("pubeval"), make_player("pubeval+pipdiff"))
    # four uses of two arrays, stored once each, and the one-number stand-in for the bear-off
    # tables of a bot with bearoff off (bots.checker); pipdiff's match equity table beside them
    met_size = sum(array.size for array in kernel_arrays().values())
    assert packed.float64s.size == 2 * 122 + 1 + met_size
    race = layouts.PUBEVAL.array("race_weights")
    contact = layouts.PUBEVAL.array("contact_weights")
    for seat in (0, 1):
        start = packed.offsets[seat, race]
        assert packed.float64s[start:start + 122].tolist() == list(RACE_WEIGHTS)
        start = packed.offsets[seat, contact]
        assert packed.float64s[start:start + 122].tolist() == list(CONTACT_WEIGHTS)


# --- array data of every dtype, shared by a checker bot and a cube bot (as a net's would be) ---

NET_CHECKER = layouts.FastBot("test-net", layouts.CHECKER, 90, params=("hidden",),
                              arrays=(("tables", layouts.INT32), ("bias", layouts.INT64), ("scale", layouts.FLOAT64)))
NET_CUBE = layouts.FastBot("test-net", layouts.CUBE, 90, params=("hidden",),
                           arrays=(("tables", layouts.INT32), ("bias", layouts.INT64)))


class _Net:
    def __init__(self, hidden, seed):
        rng = np.random.default_rng(seed)
        self.hidden = hidden
        self.tables = rng.integers(-2**31, 2**31, size=(26, 31, hidden), dtype=np.int64)  # fits int32
        self.bias = rng.integers(-2**40, 2**40, size=5, dtype=np.int64)
        self.scale = rng.random(3)


class _NetBot:
    fast_name = "test-net"
    name = "test-net"

    def __init__(self, net, cube=False):
        self.net, self.cube = net, cube

    def fast_params(self):
        return {"hidden": float(self.net.hidden)}

    def fast_arrays(self):
        arrays = {"tables": self.net.tables, "bias": self.net.bias}
        if not self.cube:
            arrays["scale"] = self.net.scale
        return arrays


class _NetPlayer:
    def __init__(self, net, name):
        self.name, self.checker, self.cube = name, _NetBot(net), _NetBot(net, cube=True)


@numba.njit
def _read_back(params, offsets, float64s, int32s, int64s):
    """What a kernel does: views of its arrays from the shared buffers, by their offsets."""
    hidden = int(params[0])
    tables = int32s[offsets[0]:offsets[0] + 26 * 31 * hidden].reshape((26, 31, hidden))
    bias = int64s[offsets[1]:offsets[1] + 5]
    return np.int64(tables[25, 30, hidden - 1]) + np.int64(tables[3, 0, 0]) + bias[4]


def test_array_data_of_every_dtype_is_packed_once_and_read_back_by_a_kernel(monkeypatch):
    monkeypatch.setattr(layouts, "FAST_BOTS", layouts.FAST_BOTS + (NET_CHECKER, NET_CUBE))
    white_net, black_net = _Net(8, 1), _Net(4, 2)
    packed = seats(_NetPlayer(white_net, "white"), _NetPlayer(black_net, "black"))
    assert packed.codes.tolist() == [90, 90, 90, 90]
    # each net's arrays once, although its checker bot and its cube bot both hand them over
    assert packed.int32s.size == 26 * 31 * (8 + 4) and packed.int64s.size == 2 * 5
    assert packed.float64s.size == 2 * 3
    assert (packed.offsets[0, :2] == packed.offsets[2, :2]).all()
    for seat, net in ((0, white_net), (1, black_net), (2, white_net), (3, black_net)):
        expected = int(net.tables[25, 30, -1]) + int(net.tables[3, 0, 0]) + int(net.bias[4])
        got = _read_back(packed.params[seat], packed.offsets[seat], packed.float64s, packed.int32s,
                         packed.int64s)
        assert got == expected


def test_an_array_that_does_not_fit_its_declared_dtype_is_refused(monkeypatch):
    monkeypatch.setattr(layouts, "FAST_BOTS", layouts.FAST_BOTS + (NET_CHECKER,))
    net = _Net(2, 3)
    net.tables = net.tables * 4  # beyond int32
    with pytest.raises(ValueError, match="array tables holds int64, which does not fit the declared int32"):
        fast_half(_NetBot(net), layouts.CHECKER)
    net = _Net(2, 3)
    net.bias = net.bias.astype(np.float64)
    with pytest.raises(ValueError, match="array bias holds float64"):
        fast_half(_NetBot(net), layouts.CHECKER)


def test_kernels_read_parameters_by_name_not_by_position():
    # params[6] says nothing and breaks silently when a layout changes; constants from
    # bgsim/layouts.py say which parameter is meant.
    fast = Path(bgsim.fast.__file__).parent
    for source in sorted(fast.glob("*.py")):
        bare = re.findall(r"\bparams\[\s*\d+\s*\]", source.read_text())
        assert not bare, f"{source.name} reads params by a bare index"
