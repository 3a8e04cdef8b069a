"""The nn net's contact inputs (bgsim.net_format.CONTACT_INPUTS): the plain reference of
bots/features.py worked by hand, and the fast engine's bit-mask count equal to it."""

from __future__ import annotations

import numpy as np
import pytest

from bgsim.board import Position
from bgsim.net_format import CONTACT, CONTACT_MAX, escape_table
from bots.features import contact_inputs, escapes, longest_prime, turned
from experiments.studies.training.net import contact_values, init_params, quantize
from experiments.studies.training.selfplay import PUBEVAL, play_positions


def _board(own: dict, opponent: dict) -> tuple[int, ...]:
    return Position.from_points(own, opponent).board


def test_the_start_position_has_no_blots_no_prime_and_24_escapes_each_side():
    # the rear checkers on 24 are blocked by sums of 5, 7 and 12 and by 5-5 (both dice on 19)
    assert contact_inputs(Position.start().board) == (0, 0, 1, 24) * 2


def test_a_blot_six_pips_in_front_of_an_opponent_checker_is_hit_by_17_rolls():
    # 11 rolls with a six, 1-5 and 2-4 both ways, 3-3 and 2-2: blocks are ignored
    board = _board({10: 1, 6: 14}, {4: 1, 19: 14})
    values = contact_inputs(board)
    assert values[:2] == (1, 17)


def test_a_blot_with_no_opponent_checker_behind_it_is_not_counted():
    board = _board({3: 1, 6: 14}, {10: 15})
    assert contact_inputs(board)[:2] == (0, 0)


def test_the_prime_is_the_longest_run_of_made_points():
    board = _board({4: 2, 5: 2, 6: 2, 7: 2, 8: 2, 10: 2, 11: 3}, {24: 15})
    assert longest_prime(board) == 5
    # the opponent's side: its points made seen from its own numbering
    assert contact_inputs(board)[CONTACT // 2 + 2] == 1


def test_a_full_prime_in_front_leaves_no_escape_for_a_checker_behind_it():
    # the opponent holds our 13..18: six in a row directly in front of our checker on 19
    board = _board({19: 1, 6: 14}, {13: 2, 14: 2, 15: 2, 16: 2, 17: 2, 18: 2, 1: 3})
    assert escapes(board) == 0
    assert escapes(_board({6: 15}, {24: 15})) == 36  # nothing held in front
    assert escapes(_board({6: 15}, {1: 15})) == 31  # 5 pips ahead held: sums of 5 and 5-5


def test_escapes_count_the_whole_move_and_its_steps_as_the_table_does():
    table = escape_table()
    assert table[0] == 36 and table[4095] == 0
    # only the point 1 pip in front held: no whole move lands there, and a roll with one 1
    # steps over it on its other die first; 1-1 alone has both dice stop on it
    assert table[1] == 35


def test_each_side_is_the_other_turned():
    board = _board({10: 1, 6: 5, 8: 3, 13: 4, 24: 2}, {3: 1, 19: 5, 17: 3, 12: 4, 1: 2})
    values = contact_inputs(board)
    assert contact_inputs(turned(board)) == values[CONTACT // 2:] + values[:CONTACT // 2]


def _boards():
    """Boards of noisy and random self-play: openings, contact, bar, bear-off with contact."""
    net = quantize(init_params(8, 1))
    for array in (net.tables, net.bias, net.race, net.weights2):
        array[...] = 0
    out = np.zeros((4000, 26), dtype=np.int8)
    written = play_positions(21, 40, PUBEVAL, 0.3, 0.5, *net.arrays(), out[:2000])
    written2 = play_positions(22, 40, PUBEVAL, 1.0, 0.5, *net.arrays(), out[2000:])
    return np.concatenate([out[:written], out[2000:2000 + written2]])


def test_the_fast_engine_counts_the_reference_contact_inputs():
    boards = _boards()
    assert len(boards) > 2500
    fast = contact_values(boards)
    reference = np.array([contact_inputs(tuple(int(v) for v in row)) for row in boards])
    mismatched = np.flatnonzero((fast != reference).any(axis=1))
    assert mismatched.size == 0, (boards[mismatched[0]], fast[mismatched[0]], reference[mismatched[0]])
    assert (fast <= np.array(CONTACT_MAX)).all() and (fast >= 0).all()
    # the cases are varied: blots hit and not, primes long and short, escapes from none to all
    assert {0, 36} <= set(fast[:, 3]) and fast[:, 1].max() > 20 and fast[:, 2].max() >= 5
    assert len(set(fast[:, 3])) > 15


@pytest.mark.parametrize("board", [
    (0,) * 26,  # nobody on the board (a finished game is never evaluated, but it must not trip)
    (0,) * 25 + (15,),  # all ours on the bar, none of theirs left
    (-15,) + (0,) * 24 + (15,),  # both sides all on the bar
])
def test_empty_and_bar_only_boards(board):
    reference = np.array(contact_inputs(board))
    assert np.array_equal(contact_values(np.array([board]))[0], reference)
