"""The pieces of the fast engine's profile and its compile modes: no timings are asserted
(those live in ``bgsim bench``), only that each piece measures the engine's own work."""

from __future__ import annotations

import numpy as np
import pytest
from numba.core.errors import TypingError

from bgsim import legal_plays
from bgsim.fast.clock import PHASES
from bgsim.fast.compile import jit, stack_empty
from bgsim.fast.moves import BOARD_BYTES, generate, new_buffers
from bgsim.fast.sameness import FastRandomPlayer, random_positions
from bgsim.fast.timing import generate_without_dedupe, profile
from bgsim.rules import check_roll
from bgsim.series import play_games

DOUBLES = [(die, die) for die in range(1, 7)]


@jit
def _squares_on_the_stack(n):
    scratch = stack_empty((2, 8), np.int64)
    total = 0
    for i in range(n):
        scratch[i % 2, i % 8] = i * i
        total += scratch[i % 2, i % 8]
    return total


def test_a_kernel_without_reference_counts_takes_scratch_from_the_stack():
    assert _squares_on_the_stack(8) == 0 + 1 + 4 + 9 + 16 + 25 + 36 + 49


def test_stack_empty_refuses_a_shape_that_is_not_a_constant():
    @jit
    def sized_at_run_time(n):
        scratch = stack_empty(n, np.int64)
        scratch[0] = n
        return scratch[0]

    with pytest.raises(TypingError, match="constant shape"):
        sized_at_run_time(3)


def _count(generator, position, roll):
    plays, keys, slots, table, order = new_buffers()
    board = np.zeros(BOARD_BYTES, dtype=np.int8)
    board[:26] = position.board
    count = generator(board, roll[0], roll[1], plays, keys, slots, table, order)
    assert tuple(int(v) for v in board[:26]) == position.board  # the walk only reads the board
    return count


def test_a_double_never_reaches_one_result_twice():
    # the move generator keeps no duplicate table for doubles (moves.py's proof): the copy that
    # keeps every leaf must already find exactly the reference engine's distinct plays
    for position in random_positions(80, seed=13):
        for roll in DOUBLES:
            assert _count(generate_without_dedupe, position, roll) == len(legal_plays(position, roll)), (
                position.position_id, roll)


def test_without_duplicate_removal_a_non_double_keeps_at_least_every_play():
    seen_more = False
    for position in random_positions(40, seed=17):
        for roll in [(2, 1), (4, 3), (6, 1), (5, 2), (6, 5)]:
            check_roll(roll)
            plays = len(legal_plays(position, roll))
            assert _count(generate, position, roll) == plays
            leaves = _count(generate_without_dedupe, position, roll)
            assert leaves >= plays
            seen_more |= leaves > plays
    assert seen_more  # the stripped copy does leave duplicates in, so it measures their removal


def test_the_profile_plays_the_engines_own_games_and_names_every_phase():
    player = FastRandomPlayer()
    out = profile(player, player, seed=3, games=12, position_games=2, rounds=1)
    assert list(out["ns_per_ply"]) == list(PHASES)
    # the lapped family played the engine's games (profile checks them row for row), which are the
    # reference engine's
    assert out["lapped_family"] == "profiled_random___always_take"
    assert out["plies"] == int(play_games(player, player, 3, 12, engine="reference")["plies"].sum())
    assert out["laps"] > 0
    generation = out["generation"]
    assert generation["leaves_per_generation"] >= generation["plays_per_generation"] > 0
    assert "nn" not in out  # only the nn player's profile takes its choice apart
