"""Beavers in the fast engine against the reference: the pipdiff kernel's beaver rule and the
game loop's beaver branch (cube x4, owner the beaverer, doubles += 2, beavers += 1, allowed only
in money games while value * 4 <= max_cube).

Every comparison asserts that beavers really happened, so a kernel that never beavers fails.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from bgsim import Position
from bgsim.cube import CubeView, Response, Rules
from bgsim.fast import seats, trace_game
from bgsim.fast.cube import BEAVER, DROP, TAKE
from bgsim.fast.dispatch import respond
from bgsim.fast.match_cube import VIEW_BEAVER, VIEW_CENTRED, VIEW_SIZE, VIEW_VALUE
from bgsim.fast.sameness import compare_frames, explain_game, random_positions
from bgsim.series import play_games
from bots import make_player
from experiments.studies.validation import default_cases

# White doubles on a 2-pip lead, so doubles small enough to beaver come often; both sides beaver.
BEAVERER = "racer+pipdiff(double=2,redouble=3,take=20,beaver=5)"
OPPONENT = "heuristic+pipdiff(double=4%,redouble=5%,take=25%,beaver=8%)"
CODES = {TAKE: Response.TAKE, DROP: Response.DROP, BEAVER: Response.BEAVER}


def _both(white_spec, black_spec, rules, games, seed=11):
    white, black = make_player(white_spec), make_player(black_spec)
    reference = play_games(white, black, seed, games, rules, engine="reference")
    fast = play_games(white, black, seed, games, rules, engine="fast")
    mismatch = compare_frames(reference, fast)
    assert mismatch is None, mismatch
    pd.testing.assert_frame_equal(reference, fast)
    return reference


@pytest.mark.parametrize("rules", [
    Rules(beaver=True),
    Rules(beaver=True, max_cube=8),  # from a cube on 2 a beaver would pass 8: refused, taken
    Rules(beaver=True, jacoby=True, automatic_doubles=1, max_cube=16),
], ids=["beaver", "beaver-max8", "beaver-jacoby-automatic-max16"])
def test_beavering_games_are_the_reference_games(rules):
    rows = _both(BEAVERER, OPPONENT, rules, 40)
    beavered = rows[rows["beavers"] > 0]
    assert len(beavered) >= 3, "the pairing should beaver in a few of 40 games"
    assert (rows["doubles"] >= 2 * rows["beavers"]).all()
    assert (rows["cube_value"] <= rules.max_cube).all()
    assert (beavered.loc[beavered["result"] != "drop", "cube_value"] >= 4).all()


def test_a_small_max_cube_refuses_beavers_that_would_pass_it():
    # max_cube=4: a beaver only from the centred cube on 1 (1 * 4 <= 4); with an automatic double
    # the cube starts on 2 and every beaver is refused, so those games are takes only
    rules = Rules(beaver=True, max_cube=4, automatic_doubles=1)
    rows = _both(BEAVERER, OPPONENT, rules, 40)
    assert rows["beavers"].sum() > 0
    assert (rows["beavers"] <= 1).all() and (rows["cube_value"] <= 4).all()
    assert (rows.loc[rows["automatic_doubles"] > 0, "beavers"] == 0).all()


def test_beavers_are_not_allowed_without_the_rule_and_the_same_players_only_take():
    rows = _both(BEAVERER, OPPONENT, Rules(), 20)
    assert rows["beavers"].sum() == 0 and rows["doubles"].sum() > 0


def test_a_beavered_game_agrees_ply_for_ply():
    white, black = make_player(BEAVERER), make_player(OPPONENT)
    rules = Rules(beaver=True)
    rows = play_games(white, black, 11, 40, rules, engine="fast")
    games = rows.loc[rows["beavers"] > 0, "game"].head(3).tolist()
    assert games
    for number in games:
        assert explain_game(white, black, 11, int(number), rules) is None
        _, trace = trace_game(white, black, 11, int(number), rules)
        assert (trace[:, 3] == 2).any()  # the trace records the beaver as cube action 2


@pytest.mark.parametrize("spec", [
    "racer+pipdiff(beaver=-2%)", "racer+pipdiff(beaver=3%)", "racer+pipdiff(double=10,take=15,beaver=5)",
    "racer+pipdiff(double=2,take=6,beaver=-4)", "racer+pipdiff(beaver=0%,race_only=true)", "racer+pipdiff",
])
def test_the_kernel_answers_as_the_bot_on_random_positions(spec):
    player = make_player(spec)
    packed = seats(player, player)
    cube_seat = (packed.codes[2], packed.params[2], packed.offsets[2], packed.float64s, packed.int32s,
                 packed.int64s)
    answers = set()
    for position in random_positions(300, seed=3):
        for beaver_allowed in (False, True):
            cube = CubeView(value=1, centred=True, max_cube=64, beaver_allowed=beaver_allowed, jacoby=False)
            view = np.zeros(VIEW_SIZE, dtype=np.int64)
            view[VIEW_VALUE], view[VIEW_CENTRED], view[VIEW_BEAVER] = 1, 1, int(beaver_allowed)
            board = np.array(position.board, dtype=np.int8)
            expected = player.respond_to_double(position, cube)
            assert CODES[respond(*cube_seat, board, view)] is expected, position.position_id
            answers.add(expected)
    assert Response.BEAVER in answers or "beaver" not in spec


def _race(own_pips: int, opponent_pips: int) -> Position:
    """A race with exactly these counts: own checkers on 1..12, the opponent's beyond."""
    def spread(pips):
        points = {12: pips // 12} if pips >= 12 else {}
        if pips % 12:
            points[pips % 12] = points.get(pips % 12, 0) + 1
        return points

    position = Position.from_points(spread(own_pips), {25 - p: n for p, n in spread(opponent_pips).items()})
    assert (position.pip_count, position.opponent_pip_count) == (own_pips, opponent_pips)
    assert position.is_race
    return position


@pytest.mark.parametrize("lead", range(-2, 21))
def test_the_kernel_beavers_takes_and_drops_at_the_thresholds_exactly(lead):
    # the doubler has 150 pips: 4% is 6 pips (beaver up to a 6-pip lead), 12% is 18 (take up to 18)
    player = make_player("racer+pipdiff(beaver=4%)")
    packed = seats(player, player)
    cube_seat = (packed.codes[2], packed.params[2], packed.offsets[2], packed.float64s, packed.int32s,
                 packed.int64s)
    position = _race(150, 150 + lead)
    view = np.zeros(VIEW_SIZE, dtype=np.int64)
    view[VIEW_VALUE], view[VIEW_CENTRED], view[VIEW_BEAVER] = 1, 1, 1
    answer = CODES[respond(*cube_seat, np.array(position.board, dtype=np.int8), view)]
    cube = CubeView(value=1, centred=True, max_cube=64, beaver_allowed=True, jacoby=False)
    assert answer is player.respond_to_double(position, cube)
    assert answer is (Response.BEAVER if lead <= 6 else Response.TAKE if lead <= 18 else Response.DROP)


def test_validate_plays_a_beavering_pairing():
    beavering = [case for case in default_cases() if case[2].beaver
                 and any("beaver=" in spec for spec in case[:2])]
    assert beavering
    white, black, rules, _ = beavering[0]
    rows = play_games(make_player(white), make_player(black), 1, 100, rules, engine="fast")
    assert rows["beavers"].sum() > 0


def test_the_money_conventions_experiment_has_a_player_that_beavers():
    from pathlib import Path

    from experiments.running.config import load_experiment

    experiment = load_experiment(Path(__file__).resolve().parent.parent / "experiments" / "money_conventions.toml")
    rules = dict(experiment.conditions)["beaver"]
    beaverers = [spec for spec in experiment.players if "beaver=" in spec]
    assert rules.beaver and beaverers
    others = [spec for spec in experiment.players if spec not in beaverers]
    rows = play_games(make_player(beaverers[0]), make_player(others[0]), 1, 300, rules, engine="fast")
    assert rows["beavers"].sum() > 0
