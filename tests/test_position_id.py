"""GNU Backgammon position IDs: bgsim's encoder and decoder against the ``gnubg`` package's own."""

from __future__ import annotations

import base64
import random

import gnubg
import gnubg_nn
import pytest

from bgsim import Position, PositionError, PositionIdError
from bgsim.position_id import from_gnubg_board, to_gnubg_board

RANDOM_POSITIONS = 5_000
START_ID = "4HPwATDgc/ABMA"


def random_position(rng: random.Random) -> Position:
    """Any legal placement: 0..15 checkers a side, bars included, never two sides on a point."""
    board = [0] * 26
    for sign in (1, -1):
        for _ in range(rng.choice((rng.randint(0, 15), 15, 15))):
            slot = rng.choice([s for s in range(1, 25) if board[s] * sign >= 0] + ["bar"] * 2)
            if slot == "bar":
                slot = 25 if sign > 0 else 0
            board[slot] += sign
    if not any(board):
        board[25] = 1  # no game has both sides borne off
    return Position(tuple(board))


def id_from_bits(bits: str) -> str:
    """A 14-character ID from a string of 0/1 bits written in GNU Backgammon's order."""
    bits = bits.ljust(80, "0")
    data = bytearray(10)
    for index, bit in enumerate(bits):
        if bit == "1":
            data[index // 8] |= 1 << (index % 8)
    return base64.b64encode(bytes(data)).decode("ascii")[:14]


def slots(*counts: int) -> str:
    """Bits for consecutive slots with the given checker counts."""
    return "".join("1" * count + "0" for count in counts)


# --- agreement with GNU Backgammon ---------------------------------------------------------


def test_starting_position_id_is_gnubgs():
    assert Position.start().position_id == START_ID
    assert Position.from_position_id(START_ID) == Position.start()
    assert gnubg.position_id(to_gnubg_board(Position.start())) == START_ID


@pytest.mark.parametrize("count", [RANDOM_POSITIONS], ids=lambda n: f"{n}_positions")
def test_encode_equals_gnubg_encoder_on_random_positions(count):
    rng = random.Random(11)
    on_bar = 0
    for _ in range(count):
        position = random_position(rng)
        on_bar += position.board[25] > 0 or position.board[0] < 0
        assert position.position_id == gnubg.position_id(to_gnubg_board(position)), position.board
    assert on_bar > count // 4  # the bars are exercised, not just the points


@pytest.mark.parametrize("count", [RANDOM_POSITIONS], ids=lambda n: f"{n}_positions")
def test_decode_equals_gnubg_decoder_on_random_positions(count):
    rng = random.Random(12)
    for _ in range(count):
        text = gnubg.position_id(to_gnubg_board(random_position(rng)))
        decoded = Position.from_position_id(text)
        opponent, on_roll = gnubg.position_from_id(text)
        assert to_gnubg_board(decoded) == (list(opponent), list(on_roll)), text
        assert decoded.position_id == text


def test_the_second_gnubg_array_is_the_side_on_roll():
    # One of ours on the bar against an empty board: GNU Backgammon's move generator must enter
    # that checker, which only holds if bgsim and gnubg agree on who is on roll.
    position = Position.from_points({"bar": 1, 6: 14}, {1: 15})
    text = position.position_id
    results = gnubg_nn.moves(gnubg.position_from_id(text), 6, 5)
    entered = [gnubg_nn.board_from_position_key(key) for key in results]
    assert entered and all(on_roll[24] == 0 for _, on_roll in entered)
    assert Position.from_position_id(text).board[25] == 1


def test_turned_position_swaps_gnubgs_arrays():
    rng = random.Random(13)
    for _ in range(500):
        position = random_position(rng)
        opponent, on_roll = to_gnubg_board(position)
        assert to_gnubg_board(position.turned()) == (on_roll, opponent)


def test_gnubg_board_round_trip():
    rng = random.Random(14)
    for _ in range(500):
        position = random_position(rng)
        assert Position(from_gnubg_board(*to_gnubg_board(position))) == position


def test_hand_built_id_bits_mean_what_gnubg_says():
    # opponent: 2 on its 24-point (our ace point); side on roll: 1 on its 2-point, 3 on the bar
    text = id_from_bits(slots(*([0] * 23), 2, 0) + slots(0, 1, *([0] * 22), 3))
    position = Position.from_position_id(text)
    assert position == Position.from_points({2: 1, "bar": 3}, {1: 2})
    opponent, on_roll = gnubg.position_from_id(text)
    assert opponent[23] == 2 and on_roll[1] == 1 and on_roll[24] == 3


# --- malformed IDs ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, problem",
    [
        ("4HPwATDgc/ABM", "14 characters, got 13"),
        ("4HPwATDgc/ABMAA", "14 characters, got 15"),
        ("", "14 characters, got 0"),
        ("4HPwATDgc/ABMA==", "14 characters, got 16"),
        ("4HPwATDgc-ABMA", "'-' is not one of"),
        ("4HPwATDgc ABMA", "' ' is not one of"),
        ("4HPwATDgc/ABM=", "'=' is not one of"),
        ("4HPwATDgc/ABMé", "'é' is not one of"),
    ],
)
def test_malformed_id_text_is_rejected_naming_the_problem(text, problem):
    with pytest.raises(PositionIdError, match=problem):
        Position.from_position_id(text)


def test_id_with_a_trailing_newline_is_rejected():
    with pytest.raises(PositionIdError, match="14 characters, got 15"):
        Position.from_position_id(START_ID + "\n")


@pytest.mark.parametrize("value", [None, 42, b"4HPwATDgc/ABMA", ["4HPwATDgc/ABMA"]])
def test_id_of_the_wrong_type_is_rejected(value):
    with pytest.raises(PositionIdError, match="a position ID is a string"):
        Position.from_position_id(value)


def test_id_giving_a_side_sixteen_checkers_is_rejected():
    text = id_from_bits(slots(16, *([0] * 24)) + slots(*([0] * 25)))
    with pytest.raises(PositionIdError, match="16 checkers"):
        Position.from_position_id(text)


def test_id_giving_the_side_on_roll_sixteen_checkers_is_rejected():
    text = id_from_bits(slots(*([0] * 25)) + slots(*([0] * 5), 16, *([0] * 19)))
    with pytest.raises(PositionIdError, match="16 checkers"):
        Position.from_position_id(text)


def test_id_with_both_sides_on_one_point_is_rejected():
    # the opponent's 1-point is our 24-point: one checker each there
    text = id_from_bits(slots(1, *([0] * 24)) + slots(*([0] * 23), 1, 0))
    with pytest.raises(PositionIdError, match="both sides have checkers on point 24"):
        Position.from_position_id(text)


def test_id_with_stray_bits_after_the_last_slot_is_rejected():
    text = id_from_bits(slots(*([0] * 50)) + "1")
    with pytest.raises(PositionIdError, match="stray bits"):
        Position.from_position_id(text)


def test_id_with_stray_padding_bits_is_rejected():
    # the last character carries 2 data bits and 4 padding bits; "B" sets a padding bit
    assert START_ID.endswith("A")
    with pytest.raises(PositionIdError, match="stray bits"):
        Position.from_position_id(START_ID[:-1] + "B")


def test_id_that_runs_out_of_slots_is_rejected():
    with pytest.raises(PositionIdError, match="50 slots"):
        Position.from_position_id("/////////////w")  # 80 one bits: no slot ever closes


def test_gnubg_board_with_a_negative_count_is_rejected():
    opponent, on_roll = [0] * 25, [0] * 25
    on_roll[5], opponent[18] = -1, 2  # our 6-point is the opponent's 19-point
    with pytest.raises(PositionError, match="negative checker count on point 6"):
        from_gnubg_board(opponent, on_roll)
    with pytest.raises(PositionError, match="two arrays of 25"):
        from_gnubg_board([0] * 24, on_roll)


def test_position_id_error_is_a_value_error():
    assert issubclass(PositionIdError, ValueError)
    assert issubclass(PositionIdError, PositionError)
