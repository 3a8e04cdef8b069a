"""``bgsim show`` and ``bgsim moves``: output, JSON, and one clean error line for bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import gnubg_nn
import pytest

from bgsim import Position
from bgsim.position_id import from_gnubg_board, to_gnubg_board
from experiments.cli import main

START_ID = "4HPwATDgc/ABMA"
# ours: 2 on the bar, 7 on the 6, 6 on the 1; theirs: 1 on the bar, 3 on our 19, 2 on our 20,
# 1 on our 7 (8 borne off)
BAR_POSITION = Position.from_points({"bar": 2, 6: 7, 1: 6}, {"bar": 1, 19: 3, 20: 2, 7: 1})


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def gnubg_results(position_id: str, d1: int, d2: int) -> set[str]:
    """GNU Backgammon's own results of the roll, as position IDs (seen from the mover)."""
    board = to_gnubg_board(Position.from_position_id(position_id))
    return {Position(from_gnubg_board(*gnubg_nn.board_from_position_key(key))).position_id
            for key in gnubg_nn.moves(board, d1, d2)}


# --- show ------------------------------------------------------------------------------------


def test_show_draws_the_start_with_both_pip_counts_and_who_is_on_roll(capsys):
    code, out, err = run(capsys, "show", START_ID)
    assert code == 0 and err == ""
    assert "X is on roll" in out
    assert "X (on roll): pips 167" in out
    assert "O          : pips 167" in out
    assert START_ID in out
    # the diagram: 5 X on the 13 and 2 X on the 24 top left and right, 5 O on our 12 bottom left
    lines = out.splitlines()
    numbers_top = next(line for line in lines if "13" in line and "24" in line)
    first_row = lines[lines.index(numbers_top) + 1]
    assert first_row.split()[0] == "X"  # our 13-point
    assert first_row.split()[-1] == "X"  # our 24-point


def test_show_counts_pips_with_bar_checkers_at_25(capsys):
    code, out, _ = run(capsys, "show", BAR_POSITION.position_id)
    assert code == 0
    own_pips = 2 * 25 + 7 * 6 + 6 * 1
    their_pips = 25 + 3 * (25 - 19) + 2 * (25 - 20) + (25 - 7)
    assert f"X (on roll): pips {own_pips:>3}, on the bar  2, borne off  0" in out
    assert f"O          : pips {their_pips:>3}, on the bar  1, borne off  8" in out


def test_show_draws_a_tall_stack_with_its_count(capsys):
    position = Position.from_points({6: 11, 5: 4}, {19: 15})
    _, out, _ = run(capsys, "show", position.position_id)
    assert "11" in out.split("|BAR|")[1]


# --- moves -----------------------------------------------------------------------------------


def test_moves_lists_the_sixteen_opening_3_1_plays(capsys):
    code, out, err = run(capsys, "moves", START_ID, "3", "1")
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].startswith("16 legal plays for 3-1")
    plays = [line.split() for line in lines[1:]]
    assert len(plays) == 16
    notations = {" ".join(parts[:-1]) for parts in plays}
    ids = {parts[-1] for parts in plays}
    assert "8/5 6/5" in notations and "24/23 13/10" in notations
    assert ids == gnubg_results(START_ID, 3, 1)


def test_moves_with_the_dice_either_way_round(capsys):
    _, forward, _ = run(capsys, "moves", START_ID, "3", "1")
    _, backward, _ = run(capsys, "moves", START_ID, "1", "3")
    assert forward.splitlines()[1:] == backward.splitlines()[1:]


def test_moves_json(capsys):
    code, out, _ = run(capsys, "moves", START_ID, "6", "6", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["position_id"] == START_ID and data["roll"] == [6, 6]
    assert data["count"] == len(data["plays"]) == len(gnubg_results(START_ID, 6, 6))
    assert {play["position_id"] for play in data["plays"]} == gnubg_results(START_ID, 6, 6)
    assert "24/18(2) 13/7(2)" in {play["play"] for play in data["plays"]}


def test_moves_when_the_roll_cannot_be_played(capsys):
    closed = Position.from_points({"bar": 1, 6: 14}, {19: 2, 20: 2, 21: 2, 22: 2, 23: 2, 24: 2})
    code, out, _ = run(capsys, "moves", closed.position_id, "5", "2")
    assert code == 0
    assert out.splitlines() == [f"0 legal plays for 5-2 from {closed.position_id} (the roll cannot be played)"]
    code, out, _ = run(capsys, "moves", closed.position_id, "5", "2", "--json")
    assert json.loads(out)["count"] == 0 and json.loads(out)["plays"] == []


# --- bad input: one line on stderr, status 2, no traceback ----------------------------------------


@pytest.mark.parametrize(
    "argv, problem",
    [
        (["show", "4HPwATDgc/ABM"], "14 characters"),
        (["show", "4HPwATDgc-ABMA"], "'-' is not one of"),
        (["show", "/////////////w"], "50 slots"),
        (["show", "AAAAAAAAAAAAAA"], "both sides have borne off all 15"),
        (["moves", "4HPwATDgc/ABM", "3", "1"], "14 characters"),
        (["moves", START_ID, "0", "1"], "a die shows 1 to 6, got 0"),
        (["moves", START_ID, "3", "7"], "a die shows 1 to 6, got 7"),
        (["moves", START_ID, "x", "1"], "a die is a number from 1 to 6, got 'x'"),
        (["moves", START_ID, "3", "2.5"], "a die is a number from 1 to 6, got '2.5'"),
        (["moves", START_ID, "3", ""], "a die is a number from 1 to 6, got ''"),
        (["moves", "AQAAAAAAAAAAAA", "3", "1"], "the game is over"),
    ],
)
def test_bad_input_gives_one_error_line(capsys, argv, problem):
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("bgsim: error: ")
    assert problem in err
    assert "Traceback" not in err


def test_impossible_positions_give_one_error_line(capsys):
    # 16 checkers for the side on roll, then both sides on one point, written bit by bit
    def id_from_bits(bits: str) -> str:
        import base64

        data = bytearray(10)
        for index, bit in enumerate(bits.ljust(80, "0")):
            if bit == "1":
                data[index // 8] |= 1 << (index % 8)
        return base64.b64encode(bytes(data)).decode("ascii")[:14]

    sixteen = id_from_bits("0" * 25 + "1" * 16 + "0" * 25)
    both = id_from_bits("10" + "0" * 24 + "0" * 23 + "10" + "0")
    for text, problem in ((sixteen, "16 checkers"), (both, "both sides have checkers on point 24")):
        code, out, err = run(capsys, "moves", text, "3", "1")
        assert code == 2 and out == "" and err.count("\n") == 1 and problem in err


def test_installed_command_shows_and_lists_moves():
    bgsim = Path(sys.executable).with_name("bgsim")
    assert bgsim.exists(), "the bgsim console command is installed next to this python"
    shown = subprocess.run([str(bgsim), "show", START_ID], capture_output=True, text=True, timeout=60)
    assert shown.returncode == 0 and "X (on roll): pips 167" in shown.stdout
    listed = subprocess.run([str(bgsim), "moves", START_ID, "6", "1"], capture_output=True, text=True,
                            timeout=60)
    # 9 pairs of a 6 (24/18, 13/7, 8/2) and a 1 (24/23, 8/7, 6/5) plus 13/6; 24/17 and 8/1 land
    # on closed points
    assert listed.returncode == 0 and listed.stdout.startswith("10 legal plays for 6-1")
    assert len(gnubg_results(START_ID, 6, 1)) == 10
    assert "13/7 8/7" in listed.stdout


def test_installed_command_gives_one_error_line():
    bgsim = Path(sys.executable).with_name("bgsim")
    for argv in (["show", "not-an-id"], ["moves", START_ID, "9", "1"]):
        done = subprocess.run([str(bgsim), *argv], capture_output=True, text=True, timeout=60)
        assert done.returncode == 2
        assert done.stdout == ""
        assert done.stderr.count("\n") == 1 and done.stderr.startswith("bgsim: error: ")
