"""The one board encoding: construction, validation, turning, pip counts and the Zobrist key."""

from __future__ import annotations

import pytest

from bgsim import Position, PositionError
from bgsim.board import ZOBRIST

# The starting position in the rulebook's words, for the side on roll: 2 on the 24, 5 on the 13,
# 3 on the 8, 5 on the 6; the opponent's in our numbering: 5 on 19, 3 on 17, 5 on 12, 2 on 1.
START_OWN = {24: 2, 13: 5, 8: 3, 6: 5}
START_OPPONENT = {19: 5, 17: 3, 12: 5, 1: 2}


def test_start_is_the_rulebook_starting_position():
    board = Position.start().board
    assert {p: board[p] for p in range(1, 25) if board[p] > 0} == START_OWN
    assert {p: -board[p] for p in range(1, 25) if board[p] < 0} == START_OPPONENT
    assert board[25] == 0 and board[0] == 0


def test_start_looks_the_same_from_both_sides():
    assert Position.start().turned() == Position.start()


def test_from_points_puts_checkers_where_the_literal_says():
    position = Position.from_points({"bar": 1, 6: 3, 1: 2}, {"bar": 2, 7: 1, 24: 4})
    board = position.board
    assert board[25] == 1 and board[6] == 3 and board[1] == 2
    assert board[0] == -2 and board[7] == -1 and board[24] == -4
    assert sum(abs(count) for count in board) == 1 + 3 + 2 + 2 + 1 + 4


def test_checkers_not_placed_are_off():
    position = Position.from_points({6: 3}, {19: 10})
    assert position.checkers_off == 12
    assert position.opponent_checkers_off == 5


def test_turning_maps_point_p_to_25_minus_p_and_swaps_the_bars():
    position = Position.from_points({"bar": 1, 3: 2, 20: 1}, {"bar": 3, 7: 2})
    turned = position.turned()
    assert turned == Position.from_points({"bar": 3, 18: 2}, {"bar": 1, 22: 2, 5: 1})


def test_turning_twice_is_the_same_position():
    position = Position.from_points({"bar": 2, 5: 4, 13: 1}, {"bar": 1, 2: 2, 18: 7})
    assert position.turned().turned() == position


def test_pip_counts_count_a_bar_checker_as_25():
    position = Position.from_points({"bar": 1, 6: 2, 1: 1}, {"bar": 2, 20: 1})
    assert position.pip_count == 25 + 12 + 1
    assert position.opponent_pip_count == 50 + 5  # our 20 is its 5


def test_pip_counts_swap_when_turned():
    position = Position.from_points({"bar": 1, 9: 2}, {3: 4, 24: 1})
    assert position.turned().pip_count == position.opponent_pip_count
    assert position.turned().opponent_pip_count == position.pip_count


def test_all_home_needs_every_checker_on_1_to_6_or_off():
    assert Position.from_points({1: 3, 6: 2}, {7: 2}).all_home
    assert not Position.from_points({1: 3, 7: 1}, {}).all_home
    assert not Position.from_points({1: 3, "bar": 1}, {}).all_home


def test_race_means_no_contact_left():
    assert Position.from_points({5: 2}, {6: 2}).is_race
    assert not Position.from_points({7: 2}, {6: 2}).is_race
    assert not Position.from_points({"bar": 1, 1: 1}, {24: 1}).is_race  # must still pass it
    assert not Position.from_points({3: 1}, {"bar": 1}).is_race  # it enters on our home board
    assert not Position.start().is_race


def test_key_depends_only_on_the_board():
    one = Position.from_points({6: 5, 8: 3}, {19: 2})
    again = Position.from_points({8: 3, 6: 5}, {19: 2})
    other = Position.from_points({6: 4, 8: 4}, {19: 2})
    assert one.key == again.key
    assert one.key != other.key
    assert 0 <= one.key < 2**64


def test_zobrist_table_has_one_number_per_slot_and_count():
    assert len(ZOBRIST) == 26
    assert all(len(row) == 31 for row in ZOBRIST)
    numbers = [number for row in ZOBRIST for number in row]
    assert len(set(numbers)) == len(numbers)


def test_a_list_board_is_accepted_as_a_tuple():
    board = list(Position.start().board)
    position = Position(board)
    assert position.board == tuple(board) and position == Position.start()


# --- impossible positions ------------------------------------------------------------------


def test_sixteen_checkers_for_the_side_on_roll_is_rejected():
    with pytest.raises(PositionError, match="16 checkers, more than 15"):
        Position.from_points({6: 10, "bar": 6}, {})


def test_sixteen_checkers_for_the_opponent_is_rejected():
    with pytest.raises(PositionError, match="opponent has 16 checkers"):
        Position.from_points({}, {19: 15, "bar": 1})


def test_both_sides_on_one_point_is_rejected():
    with pytest.raises(PositionError, match="both sides have checkers on point 7"):
        Position.from_points({7: 1}, {7: 2})


@pytest.mark.parametrize("count", [-1, 1.5, "2", None, True])
def test_a_count_that_is_not_a_count_is_rejected(count):
    with pytest.raises(PositionError, match="is not a count"):
        Position.from_points({6: count}, {})


@pytest.mark.parametrize("where", [0, 25, -3, "off", "Bar", 6.0, True])
def test_a_place_that_is_not_a_point_or_the_bar_is_rejected(where):
    with pytest.raises(PositionError, match="is not a point"):
        Position.from_points({where: 1}, {})


def test_negative_bar_counts_are_rejected():
    board = [0] * 26
    board[25] = -1
    with pytest.raises(PositionError, match="on the bar"):
        Position(tuple(board))
    board = [0] * 26
    board[0] = 2
    with pytest.raises(PositionError, match="opponent's bar"):
        Position(tuple(board))


@pytest.mark.parametrize("size", [0, 25, 27])
def test_a_board_of_the_wrong_size_is_rejected(size):
    with pytest.raises(PositionError, match="26 slots"):
        Position(tuple([0] * size))


@pytest.mark.parametrize("value", [1.0, "1", None, False])
def test_a_slot_that_is_not_a_whole_number_is_rejected(value):
    board = [0] * 26
    board[6] = value
    with pytest.raises(PositionError, match="slot 6"):
        Position(tuple(board))


def test_position_error_is_a_value_error():
    assert issubclass(PositionError, ValueError)
