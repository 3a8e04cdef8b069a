"""Kernels for ``bgsim bench``: legal-play generations per second, and the profile of the game loop.

Numba has no profiler, so ``bgsim bench --profile`` takes the loop apart two ways:

* **laps**: the ``profiled`` family of the game loop (``bgsim/fast/families.py``: the players'
  bots, ``PROFILE`` on) reads the cycle counter between its phases (``bgsim.fast.clock``) while
  it plays real games; the cost of a read is calibrated and taken off, and the copy's total is
  set beside the kernel the engine plays the same games on (a run's family, as ``bgsim play``'s),
  so what the laps add is on the record;
* **stripped kernels**, for what laps cannot split without drowning it: the plays of the same
  games' positions and rolls generated with and without duplicate removal (``moves.DEDUPE``
  off: every leaf kept), and the ``nn`` choice with and without its output layer.

Every copy is compiled from the engine's own source (``rebind``), so no phase is timed on
code the engine does not run.
"""

from __future__ import annotations

import time

import numpy as np

from .. import layouts
from ..starts import OPENING
from . import CUSTOM, game, nn
from .clock import N_PHASES, PHASES, cycles, lap_cost
from .compile import alloc_jit, inline_jit, jit, rebind
from .moves import BOARD_BYTES, generate, new_buffers
from .nn import nn_choose

WHITE_CHECKER = 0  # the seat of white's checker bot in the packed players (bgsim.fast.Seats)

# --- move generation -----------------------------------------------------------------------


@alloc_jit
def generate_every_roll(boards, repeats):
    """Generate the plays of all 36 rolls from every board, ``repeats`` times; total plays."""
    plays, keys, slots, table, order = new_buffers()
    board = np.zeros(BOARD_BYTES, dtype=np.int8)
    total = 0
    for _ in range(repeats):
        for index in range(boards.shape[0]):
            board[:26] = boards[index, :26]
            for die1 in range(1, 7):
                for die2 in range(1, 7):
                    total += generate(board, die1, die2, plays, keys, slots, table, order)
    return total


@inline_jit
def _generate_at(generator, boards, dice, index, board, plays, keys, slots, table, order):
    """The plays of position ``index`` with its roll, by ``generator``, into the buffers: how many."""
    for j in range(26):
        board[j] = boards[index, j]
    return generator(board, dice[index, 0], dice[index, 1], plays, keys, slots, table, order)


@alloc_jit
def generate_rolls(boards, dice, repeats):
    """Generate the plays of each (board, roll) pair ``repeats`` times: (cycles, total plays)."""
    plays, keys, slots, table, order = new_buffers()
    board = np.zeros(BOARD_BYTES, dtype=np.int8)
    total = 0
    started = cycles()
    for _ in range(repeats):
        for index in range(boards.shape[0]):
            total += _generate_at(generate, boards, dice, index, board, plays, keys, slots, table, order)
    return cycles() - started, total


generate_without_dedupe = jit(rebind(generate, "generate_without_dedupe", DEDUPE=False))
generate_rolls_without_dedupe = alloc_jit(rebind(generate_rolls, "generate_rolls_without_dedupe",
                                           generate=generate_without_dedupe))


# --- the nn choice -------------------------------------------------------------------------


@alloc_jit
def nn_choose_rolls(boards, dice, params, offsets, int32s, int64s, repeats):
    """Generate, then choose with ``nn`` (the first seat's net), for each (board, roll):
    (cycles of the choices, cycles of the whole, plays judged)."""
    plays, keys, slots, table, order = new_buffers()
    board = np.zeros(BOARD_BYTES, dtype=np.int8)
    spent = 0
    judged = 0
    started = cycles()
    for _ in range(repeats):
        for index in range(boards.shape[0]):
            count = _generate_at(generate, boards, dice, index, board, plays, keys, slots, table, order)
            if count > 1:
                mark = cycles()
                nn_choose(params, offsets, int32s, int64s, board, plays, keys, count, order)
                spent += cycles() - mark
                judged += count
    return spent, cycles() - started, judged


_choose_first_layer = jit(rebind(nn.choose, "choose_first_layer_only", OUTPUT_LAYER=False))
_nn_choose_first_layer = jit(rebind(nn_choose, "nn_choose_first_layer_only", choose=_choose_first_layer))
nn_choose_rolls_first_layer = alloc_jit(rebind(nn_choose_rolls, "nn_choose_rolls_first_layer_only",
                                         nn_choose=_nn_choose_first_layer))


# --- the game loop, lap by lap -------------------------------------------------------------


@jit
def cycles_now():
    return cycles()


def _positions_and_rolls(white, black, seed, games):
    """The (board before the roll, roll) of every play in games 0 .. games-1 (from traces)."""
    from . import trace_game

    boards, dice = [], []
    for number in range(games):
        _, trace = trace_game(white, black, seed, number)
        played = trace[trace[:, 4] > 0]  # plies with a roll (not a drop)
        boards.append(played[:, game.TRACE_HEAD:game.TRACE_HEAD + 26].astype(np.int8))
        dice.append(played[:, 4:6])
    return np.concatenate(boards), np.ascontiguousarray(np.concatenate(dice), dtype=np.int64)


def _least_cpu(run, rounds):
    """(least CPU seconds of ``rounds`` calls of ``run``, the result of that call).  CPU time,
    not wall time: on a shared machine the other processes' share of a core does not count."""
    best, result = np.inf, None
    for _ in range(rounds):
        started = time.process_time()
        value = run()
        spent = time.process_time() - started
        if spent < best:
            best, result = spent, value
    return best, result


def profile(white, black, seed: int, games: int, position_games: int = 200, rounds: int = 5) -> dict:
    """Where one thread's time goes in ``games`` money games (cube rules as ``Rules()``).

    Every time is the least CPU time of ``rounds`` runs (other work on the machine only adds).
    ``ns_per_ply``: the engine kernel's time per ply shared out by phase in proportion to the
    cycles the lapped copy charged to each over all rounds (a counter read's cost taken off
    every lap, a lap that held a wait for the core left out); the lapped copy's own time
    beside it says what the laps add.  ``python_ns_per_ply``: what ``play_games`` spends
    around the kernel (packing the players, building the DataFrame).  ``generation``: the same
    games' positions and rolls generated with and without duplicate removal; ``nn``: the
    choices with and without the output layer.
    """
    from ..cube import Rules
    from . import _check, _kernels, compile_only_for, layouts_of, play_games
    from .families import family

    numbers, rule_array, packed = _check(white, black, seed, games, Rules(), 0)
    if CUSTOM in packed.codes[:2]:
        raise ValueError("the profile takes the built-in bots only (no custom evaluation)")
    with compile_only_for([white, black]):  # the kernels bgsim play plays these players on
        play_batch, _ = _kernels(white, black)
    lapped_family = family("profiled", layouts_of([white, black]))
    lapped_batch = lapped_family.profile_batch
    rows = np.zeros((len(numbers), game.ROW_SIZE), dtype=np.int64)
    counts = np.zeros(len(numbers), dtype=np.int64)
    kernel_args = (seed, numbers, 0, rule_array, *packed.args, rows, counts, OPENING.boards,
                   OPENING.setups, np.int64(0), OPENING.boards)
    lapped_rows = np.zeros_like(rows)

    clock = np.zeros((3, N_PHASES), dtype=np.int64)  # every round's laps, summed

    def lapped():
        lapped_batch(seed, numbers, rule_array, *packed.args, lapped_rows, clock)

    def public():
        with compile_only_for([white, black]):
            play_games(white, black, seed, games, threads=1)

    play_batch(*kernel_args)  # compiled, and the caches warm, before timing (a call is one thread)
    lapped()
    if not np.array_equal(lapped_rows, rows):
        raise RuntimeError("the lapped copy of the game loop played other games than the engine")
    clock[:] = 0
    kernel_s, _ = _least_cpu(lambda: play_batch(*kernel_args), rounds)
    lapped_s, _ = _least_cpu(lapped, rounds)
    public_s, _ = _least_cpu(public, rounds)
    plies = int(rows[:, game.COL_PLIES].sum())
    per_lap = lap_cost(1000, 200)
    spent = np.maximum(0.0, clock[0] - per_lap * clock[1])
    kernel_ns = kernel_s * 1e9 / plies
    out = {
        "games": games, "plies": plies, "lapped_family": lapped_family.key, "lap_cost_cycles": round(per_lap, 1),
        "kernel_ns_per_ply": round(kernel_ns, 1),
        "ns_per_ply": {name: round(kernel_ns * spent[phase] / spent.sum(), 1)
                       for phase, name in enumerate(PHASES)},
        "lapped_ns_per_ply": round(lapped_s * 1e9 / plies, 1),
        "laps_left_out": int(clock[2].sum()), "laps": int(clock[1].sum()),
        "python_ns_per_ply": round(max(0.0, public_s - kernel_s) * 1e9 / plies, 1),
    }
    # the stripped kernels, on the positions and rolls of the first games
    boards, dice = _positions_and_rolls(white, black, seed, min(games, position_games))
    repeats = max(1, 50_000 // len(boards))
    generations = repeats * len(boards)
    generate_rolls(boards[:10], dice[:10], 1)
    generate_rolls_without_dedupe(boards[:10], dice[:10], 1)
    full, (_, total) = _least_cpu(lambda: generate_rolls(boards, dice, repeats), rounds)
    stripped, (_, leaves) = _least_cpu(lambda: generate_rolls_without_dedupe(boards, dice, repeats), rounds)
    out["generation"] = {
        "positions": len(boards), "plays_per_generation": round(total / generations, 2),
        "leaves_per_generation": round(leaves / generations, 2),
        "ns_per_generation": round(full * 1e9 / generations, 1),
        "ns_without_dedupe": round(stripped * 1e9 / generations, 1),
        "dedupe_share": round(max(0.0, full - stripped) / full, 3),
    }
    if packed.codes[WHITE_CHECKER] == layouts.NN.code:
        args = (packed.params[WHITE_CHECKER], packed.offsets[WHITE_CHECKER], packed.int32s, packed.int64s)
        nn_repeats = max(1, 5_000 // len(boards))
        nn_choose_rolls(boards[:10], dice[:10], *args, 1)
        nn_choose_rolls_first_layer(boards[:10], dice[:10], *args, 1)
        full, (choosing, whole, judged) = _least_cpu(lambda: nn_choose_rolls(boards, dice, *args, nn_repeats), rounds)
        first, (choosing_first, whole_first, _) = _least_cpu(
            lambda: nn_choose_rolls_first_layer(boards, dice, *args, nn_repeats), rounds)
        play_ns = full * choosing / whole * 1e9 / judged
        first_ns = first * choosing_first / whole_first * 1e9 / judged
        out["nn"] = {
            "hidden": int(packed.params[WHITE_CHECKER, nn.NN_HIDDEN]),
            "ns_per_play_judged": round(play_ns, 1),
            "without_output_layer_ns_per_play": round(first_ns, 1),
            "output_layer_share": round(max(0.0, play_ns - first_ns) / play_ns, 3),
        }
    return out
