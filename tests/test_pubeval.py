"""Our pubeval against GNU Backgammon's (``gnubg_nn.pub_best_move``) on thousands of positions."""

from __future__ import annotations

import random

import gnubg_nn
import pytest

from bgsim import Position, legal_plays
from bgsim.position_id import to_gnubg_board
from bots import make_player
from bots.gnubg_bots import apply_gnubg_moves
from bgsim.board import is_race
from bots.pubeval import CONTACT_WEIGHTS, RACE_WEIGHTS, pubeval_inputs, pubeval_score


def gnubg_pubeval_result(position: Position, roll) -> tuple[int, ...]:
    flat = gnubg_nn.pub_best_move([list(side) for side in to_gnubg_board(position)], *roll)
    # pub_best_move answers 0-based (from, to) pairs, -1 for off; our helper takes 1-based
    moves = [(flat[index] + 1, flat[index + 1] + 1) for index in range(0, len(flat), 2)]
    return apply_gnubg_moves(position.board, moves)


@pytest.mark.bot_rule("checker", "pubeval")
def test_same_play_as_gnubg_on_thousands_of_positions():
    rng = random.Random(20240601)
    bot = make_player("pubeval")
    compared = ties = races = 0
    while compared < 3000:
        position = Position.start()
        for _ in range(300):
            roll = (rng.randint(1, 6), rng.randint(1, 6))
            plays = legal_plays(position, roll)
            if len(plays) > 1:
                mine = bot.choose_play(position, roll, plays, None).result.board
                theirs = gnubg_pubeval_result(position, roll)
                compared += 1
                race = is_race(position.board)
                races += race
                if mine != theirs:
                    # GNU Backgammon sums in float32: only a near-exact tie may go the other way
                    assert theirs in {play.result.board for play in plays}
                    gap = pubeval_score(mine, race) - pubeval_score(theirs, race)
                    assert 0 <= gap < 1e-5, (position.position_id, roll)
                    ties += 1
            if plays:
                position = rng.choice(plays).result  # wander: a random game visits odd places
            if position.checkers_off == 15:
                break
            position = position.turned()
    assert races > 200  # both weight vectors were exercised
    assert ties <= compared // 100


def test_inputs_follow_tesauro_encoding():
    board = [0] * 26
    board[24], board[23], board[22], board[21], board[20] = 1, 2, 3, 5, -1
    board[0], board[25] = -2, 0
    inputs = pubeval_inputs(board)
    assert inputs[0:5] == [0, 1, 0, 0, 0]          # point 24: one own checker
    assert inputs[5:10] == [0, 0, 1, 0, 0]         # point 23: two
    assert inputs[10:15] == [0, 0, 1, 1, 0]        # point 22: three
    assert inputs[15:20] == [0, 0, 1, 0, 1.0]      # point 21: five -> (5 - 3) / 2
    assert inputs[20:25] == [1, 0, 0, 0, 0]        # point 20: an opponent blot
    assert inputs[120] == 1.0                      # two on the opponent's bar
    assert inputs[121] == 4 / 15                   # 11 on the board: 4 off


def test_all_off_scores_highest_and_weights_are_complete():
    assert pubeval_score([0] * 26, race=True) == 99999999.0
    assert len(RACE_WEIGHTS) == len(CONTACT_WEIGHTS) == 122
    assert RACE_WEIGHTS[121] == 3.42040 and CONTACT_WEIGHTS[0] == 0.25696
