"""Experiment deals that start from given positions or seeded random races."""

from __future__ import annotations

import pytest

from bgsim.board import Position
from experiments.running.config import ExperimentError, experiment_from_mapping
from experiments.running.plan import make_task, plan_pairings, play_chunk
from experiments.running.starts import MAX_RACE_PIPS, race_start, start_positions


def experiment(**extra):
    data = {"players": ["racer+keith", "racer+pipdiff"], "games": 6, "seed": 4, **extra}
    return experiment_from_mapping(data, "test.toml")


def test_random_races_are_races_within_their_pips_and_fixed_by_seed_and_number():
    for number in range(200):
        position = race_start(9, number, 30, 70)
        assert position.is_race
        assert 30 <= position.pip_count <= 70 and 30 <= position.opponent_pip_count <= 70
        assert position == race_start(9, number, 30, 70)
    assert len({race_start(9, number, 30, 70) for number in range(50)}) == 50
    assert race_start(9, 0, 30, 70) != race_start(10, 0, 30, 70)
    short = race_start(1, 3, 5, 5)
    assert short.pip_count == short.opponent_pip_count == 5 and short.checkers_off >= 10
    longest = race_start(1, 3, MAX_RACE_PIPS, MAX_RACE_PIPS)
    assert longest.is_race and longest.pip_count == MAX_RACE_PIPS


def test_starts_in_an_experiment_file():
    race = experiment(starts={"race": [40, 60]})
    assert race.starts == {"race": [40, 60], "seed": 4}
    assert "starts" in race.identity()
    listed = experiment(starts={"positions": ["4HPwATDgc/ABMA"]})
    assert listed.starts == {"positions": ["4HPwATDgc/ABMA"]}
    assert experiment().starts is None


@pytest.mark.parametrize("starts, message", [
    ({}, "either positions"),
    ({"race": [40, 60], "positions": ["4HPwATDgc/ABMA"]}, "either positions"),
    ({"race": [60, 40]}, "starts.race"),
    ({"race": [0, 40]}, "starts.race"),
    ({"race": [40, 200]}, "starts.race"),
    ({"positions": []}, "non-empty"),
    ({"positions": ["nonsense"]}, "starts.positions[0]"),
    ({"positions": ["4HPwATDgc/ABMA"], "seed": 3}, "starts.seed"),
    ({"race": [40, 60], "depth": 3}, "starts.depth"),
])
def test_bad_starts_are_one_error(starts, message):
    with pytest.raises(ExperimentError, match=message.replace("[", r"\[")):
        experiment(starts=starts)


def test_starts_are_money_games():
    with pytest.raises(ExperimentError, match="money games"):
        experiment(starts={"race": [40, 60]}, match_to=5)


def test_both_seatings_of_a_deal_start_from_its_position():
    # white bears off its last checker at once (or doubles out the opponent first): the first
    # player wins every leg-0 game, the second every leg-1 game
    won_at_once = Position.from_points({1: 1}, {19: 15})
    run = experiment(starts={"positions": [won_at_once.position_id]})
    pairing = plan_pairings(run)[0]
    frame = play_chunk(make_task(run, pairing, 0, threads=1))
    assert len(frame) == 12
    assert start_positions(run.starts, range(3)) == [won_at_once] * 3
    for leg, winner in ((0, "racer+keith"), (1, "racer+pipdiff")):
        games = frame[frame["leg"] == leg]
        assert games["winner"].astype(str).eq("white").all()
        assert (games["white"].astype(str) == winner).all() and (games["plies"] <= 1).all()
