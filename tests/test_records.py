"""The rows bots produce: consistent scores under every rule option, and random play that looks
like uniform-random play under GNU Backgammon's own move generator."""

from __future__ import annotations

import math
import random

import gnubg_nn
import numpy as np
import pytest

from bgsim.cube import Rules
from bgsim.series import play_games as play_any_engine
from bots import make_player



def play_games(*args, **kwargs):
    """The reference engine: these tests are about the bots and the records, not engine speed."""
    return play_any_engine(*args, engine="reference", **kwargs)


MULTIPLIER = {"single": 1, "gammon": 2, "backgammon": 3}
AGGRESSIVE = "racer+pipdiff(double=0,redouble=0,take=15)"  # doubles every turn it may


def expected_points(row) -> int:
    if row.result == "drop":
        return row.cube_value
    result = row.result
    if result == "backgammon" and row.rule_backgammon_as_gammon:
        result = "gammon"
    if row.rule_jacoby and row.doubles == 0 and row.match_to == 0:
        result = "single"
    return MULTIPLIER[result] * row.cube_value


RULES = {
    "default": Rules(),
    "jacoby": Rules(jacoby=True),
    "beaver": Rules(beaver=True),
    "automatic": Rules(automatic_doubles=1),
    "bg-as-gammon, max 8": Rules(backgammon_as_gammon=True, max_cube=8),
}


@pytest.mark.parametrize("rules", RULES.values(), ids=RULES.keys())
def test_points_follow_result_and_cube(rules):
    frame = play_games(make_player(AGGRESSIVE), make_player("pubeval+pipdiff"), 7, 40, rules)
    for row in frame.itertuples():
        assert row.points == expected_points(row), row
        assert row.white_points == (row.points if row.winner == "white" else -row.points)
        assert row.cube_value <= rules.max_cube
    assert frame["doubles"].sum() > 0  # the cube was really in play
    black_points = np.where(frame["winner"] == "black", frame["points"], -frame["points"])
    assert (frame["white_points"] + black_points == 0).all()


def test_jacoby_scores_gammons_as_singles_until_the_cube_turns():
    frame = play_games(make_player("pubeval"), make_player("random"), 3, 40, Rules(jacoby=True))
    assert (frame["doubles"] == 0).all()
    assert (frame["points"] == frame["cube_value"]).all()
    assert frame["result"].isin(["gammon", "backgammon"]).any()  # the results are still recorded


def test_a_drop_scores_the_cube_before_the_double_and_is_never_a_gammon():
    frame = play_games(make_player(AGGRESSIVE), make_player("random+never-take"), 5, 30)
    assert (frame["result"] == "drop").all()
    assert (frame["points"] == 1).all() and (frame["cube_value"] == 1).all()
    assert frame["dropped"].all()
    taken_then_dropped = play_games(
        make_player(AGGRESSIVE), make_player("pubeval+pipdiff(double=0,redouble=0,take=0)"), 5, 30
    )
    drops = taken_then_dropped[taken_then_dropped["result"] == "drop"]
    assert len(drops) > 0
    assert (drops["points"] == drops["cube_value"]).all()


def test_cubeless_games_end_with_cube_one_in_the_centre():
    frame = play_games(make_player(AGGRESSIVE), make_player(AGGRESSIVE), 2, 30, Rules(cube=False))
    assert (frame["cube_value"] == 1).all()
    assert (frame["cube_owner"] == "centre").all()
    assert (frame["doubles"] == 0).all() and frame["first_double_ply"].isna().all()
    assert (frame["points"] == frame["result"].map(MULTIPLIER)).all()


def test_match_rows_keep_score_and_crawford():
    frame = play_games(make_player(AGGRESSIVE), make_player("pubeval+pipdiff"), 4, 6, match_to=5)
    for _, games in frame.groupby("game"):
        games = games.sort_values("game_in_match")
        white = black = 0
        crawford_seen = False
        for row in games.itertuples():
            assert (row.white_score, row.black_score) == (white, black)
            if row.crawford:
                assert not crawford_seen and row.doubles == 0 and row.result != "drop"
                crawford_seen = True
            white += max(row.white_points, 0)
            black += max(-row.white_points, 0)
        assert max(white, black) >= 5


# --- random play against GNU Backgammon's move generator -----------------------------------


def gnubg_uniform_games(games: int, seed: int) -> dict[str, int]:
    """Uniform-random play with gnubg_nn.moves: outcome counts, and first-mover wins."""
    rng = random.Random(seed)
    start = [0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0]
    counts = {"single": 0, "gammon": 0, "backgammon": 0, "first_mover_wins": 0}
    for _ in range(games):
        while True:
            first, second = rng.randint(1, 6), rng.randint(1, 6)
            if first != second:
                break
        board = [list(start), list(start)]  # [side not on roll, side on roll]
        mover = 0  # 0 is the side that moved first
        roll = (first, second)
        while True:
            keys = gnubg_nn.moves(board, roll[0], roll[1])
            if keys:
                after = gnubg_nn.board_from_position_key(rng.choice(keys))
                board = [list(after[0]), list(after[1])]
            if sum(board[1]) == 0:
                loser = board[0]
                if sum(loser) < 15:
                    counts["single"] += 1
                elif any(loser[18:25]):  # in the winner's home board or on the bar
                    counts["backgammon"] += 1
                else:
                    counts["gammon"] += 1
                counts["first_mover_wins"] += mover == 0
                break
            board = [board[1], board[0]]
            mover ^= 1
            roll = (rng.randint(1, 6), rng.randint(1, 6))
    return counts


def test_random_play_matches_uniform_play_under_gnubg():
    # Many games: the fast engine where it runs (it plays the reference engine's games exactly,
    # which bgsim validate checks), else the reference engine.
    ours = play_any_engine(make_player("random"), make_player("random"), 2024, 4000, engine="auto")
    reference_games = 6000
    theirs = gnubg_uniform_games(reference_games, seed=7)
    assert theirs["single"] + theirs["gammon"] + theirs["backgammon"] == reference_games
    for outcome in ("single", "gammon", "backgammon"):
        p_ours = float((ours["result"] == outcome).mean())
        p_theirs = theirs[outcome] / reference_games
        pooled = (p_ours * len(ours) + theirs[outcome]) / (len(ours) + reference_games)
        se = math.sqrt(pooled * (1 - pooled) * (1 / len(ours) + 1 / reference_games))
        assert abs(p_ours - p_theirs) < 4 * se, (outcome, p_ours, p_theirs)
    # Neither colour is favoured; under gnubg the first mover's edge is small and we see it too.
    white_share = float((ours["winner"] == "white").mean())
    assert abs(white_share - 0.5) < 4 * math.sqrt(0.25 / len(ours))
    first_mover = theirs["first_mover_wins"] / reference_games
    assert 0.5 <= first_mover < 0.5 + 4 * math.sqrt(0.25 / reference_games) + 0.05
    # bgsim's first mover, read from each game's dice (stream 0: one die each, white's first,
    # ties thrown again): it made the last roll, so won, exactly when the plies are odd
    openers = np.array([_opener(2024, game) for game in ours["game"]])
    first_won = (ours["winner"].astype(str).to_numpy() == openers)
    assert (first_won == (ours["plies"].to_numpy() % 2 == 1)).all()
    ours_first = float(first_won.mean())
    pooled = (ours_first * len(ours) + theirs["first_mover_wins"]) / (len(ours) + reference_games)
    se = math.sqrt(pooled * (1 - pooled) * (1 / len(ours) + 1 / reference_games))
    assert abs(ours_first - first_mover) < 4 * se, (ours_first, first_mover)


def _opener(seed: int, game: int) -> str:
    """Who throws the higher die at the opening, from the rulebook and the dice streams alone
    (not ``bgsim.game.opening_roll``): an engine that lets the wrong side start fails the ply
    parity above."""
    from bgsim.dice import DICE_STREAM, RandomStream

    dice = RandomStream(seed, game, DICE_STREAM)
    while True:
        white, black = dice.die(), dice.die()
        if white != black:
            return "white" if white > black else "black"
