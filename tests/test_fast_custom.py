"""A user's @njit evaluation function plays the same games in both engines."""

from __future__ import annotations

import numba
import pandas as pd
import pytest

from bgsim.fast import family_of, supports
from bgsim.fast.custom import EvalPlayer
from bgsim.series import play_games
from bots import make_player


@numba.njit
def _prefer_points(board):
    score = 0.0
    for point in range(1, 25):
        if board[point] >= 2:
            score += 1.0 if point <= 6 else 0.5
        elif board[point] == 1:
            score -= 0.25
    return score - 0.01 * board[25]


def test_a_custom_evaluation_plays_identically_in_both_engines():
    player = EvalPlayer(_prefer_points, name="points", cube=make_player("heuristic+pipdiff").cube)
    assert supports(player)
    opponent = make_player("random+keith")
    reference = play_games(player, opponent, 6, 8, engine="reference")
    fast = play_games(player, opponent, 6, 8, engine="fast")
    pd.testing.assert_frame_equal(reference, fast)
    # the custom family: the function in front of the dispatch of the two players' bots alone
    chosen = family_of((player, opponent))
    assert chosen.declared.name == "custom"
    assert {bot.name for bot in chosen.bots} == {"random", "pipdiff", "keith", "thorp"}
    assert fast["white"].iloc[0] == "points+pipdiff"


def test_a_custom_bot_needs_a_compiled_function():
    with pytest.raises(TypeError, match="njit"):
        EvalPlayer(lambda board: 0.0)
