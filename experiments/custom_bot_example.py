"""Bring your own checker bot to the fast engine: an ``@njit`` evaluation function of a board.

Run it:  python -m experiments.custom_bot_example [GAMES]

The function gets the board *after* a play, seen from the side that moved (``bgsim.board``:
``board[1..24]`` points, own checkers positive, ``board[25]`` own bar, ``board[0]`` minus the
opponent's bar; an int8 array of 26) and returns a float.  The bot plays the highest-scoring
play; ties go to the play first in canonical order.  ``EvalPlayer`` makes a player of it that
both engines can run, so the script also checks a few games against the reference engine.
"""

from __future__ import annotations

import sys
import time

import numba

from bgsim.fast.custom import EvalPlayer
from bgsim.fast.sameness import compare_frames
from bgsim.series import play_games
from bots import make_player


@numba.njit(cache=True)
def safe_builder(board):
    """Race ahead, make points, leave no blot an opponent checker could hit (roughly)."""
    own_pips = 0
    opponent_pips = 0
    for slot in range(26):
        if board[slot] > 0:
            own_pips += slot * board[slot]
        elif board[slot] < 0:
            opponent_pips += (25 - slot) * -board[slot]
    score = 0.01 * (opponent_pips - own_pips)
    lowest_opponent = 25
    for slot in range(0, 25):
        if board[slot] < 0:
            lowest_opponent = slot
            break
    for point in range(1, 25):
        if board[point] >= 2:
            score += 0.1 if point <= 6 else 0.05
        elif board[point] == 1 and point > lowest_opponent:
            score -= 0.15
    score += 0.2 * -board[0]  # opponent checkers on the bar
    return score


def main(argv: list[str]) -> int:
    games = int(argv[0]) if argv else 2000
    mine = EvalPlayer(safe_builder, name="safe-builder", cube=make_player("heuristic+pipdiff").cube)
    opponent = make_player("pubeval+pipdiff")

    started = time.perf_counter()
    frame = play_games(mine, opponent, 2024, games, engine="fast")
    seconds = time.perf_counter() - started
    print(f"{games} games in {seconds:.1f}s (compile included): "
          f"{mine.name} scores {frame['white_points'].mean():+.3f} points per game against {opponent.name}")

    few = 20
    reference = play_games(mine, opponent, 2024, few, engine="reference")
    mismatch = compare_frames(reference, frame.iloc[:few].reset_index(drop=True))
    print(f"first {few} games identical in the reference engine: {mismatch is None}")
    return 0 if mismatch is None else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
