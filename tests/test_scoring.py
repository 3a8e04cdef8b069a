"""Scoring a finished game: single, gammon, backgammon times the cube, and the options."""

from __future__ import annotations

import pytest

from bgsim import Position
from bgsim.cube import Rules
from bgsim.scoring import BACKGAMMON, DROP, GAMMON, SINGLE, points_for, result_of

# Finished positions, seen from the winner (all 15 of its checkers off).
LOSER_BORE_OFF_ONE = Position.from_points({}, {1: 2, 20: 12})
LOSER_ALL_HOME_NONE_OFF = Position.from_points({}, {19: 10, 24: 5})
LOSER_OUTSIDE_NONE_OFF = Position.from_points({}, {7: 1, 19: 14})
LOSER_IN_WINNERS_HOME = Position.from_points({}, {6: 1, 19: 14})
LOSER_ON_THE_BAR = Position.from_points({}, {"bar": 1, 19: 14})
LOSER_ON_WINNERS_ACE = Position.from_points({}, {1: 1, 19: 14})


def test_a_single_when_the_loser_has_borne_off_a_checker():
    # one of its checkers is even in our home board: it has borne one off, so it is a single
    assert result_of(LOSER_BORE_OFF_ONE) == SINGLE


def test_a_gammon_when_the_loser_has_borne_off_none():
    assert result_of(LOSER_ALL_HOME_NONE_OFF) == GAMMON
    assert result_of(LOSER_OUTSIDE_NONE_OFF) == GAMMON  # our 7 is outside our home board


@pytest.mark.parametrize("position", [LOSER_IN_WINNERS_HOME, LOSER_ON_THE_BAR, LOSER_ON_WINNERS_ACE])
def test_a_backgammon_when_a_loser_checker_is_on_the_bar_or_in_the_winners_home(position):
    assert result_of(position) == BACKGAMMON


def test_a_game_that_is_not_over_has_no_result():
    with pytest.raises(ValueError, match="not over"):
        result_of(Position.from_points({1: 1}, {19: 15}))


@pytest.mark.parametrize(
    "result, cube, points",
    [(SINGLE, 1, 1), (GAMMON, 1, 2), (BACKGAMMON, 1, 3), (SINGLE, 2, 2), (GAMMON, 2, 4),
     (BACKGAMMON, 4, 12), (SINGLE, 64, 64)],
)
def test_points_are_the_result_times_the_cube(result, cube, points):
    assert points_for(result, cube, Rules(), cube_turned=cube > 1, match=False) == points


def test_a_drop_scores_the_value_before_the_double_and_never_a_gammon():
    for rules in (Rules(), Rules(jacoby=True), Rules(backgammon_as_gammon=True)):
        assert points_for(DROP, 1, rules, cube_turned=False, match=False) == 1
        assert points_for(DROP, 2, rules, cube_turned=True, match=False) == 2
        assert points_for(DROP, 8, rules, cube_turned=True, match=True) == 8


def test_backgammon_counts_as_gammon_when_switched_on():
    rules = Rules(backgammon_as_gammon=True)
    assert points_for(BACKGAMMON, 2, rules, cube_turned=True, match=False) == 4
    assert points_for(GAMMON, 2, rules, cube_turned=True, match=False) == 4
    assert points_for(BACKGAMMON, 2, rules, cube_turned=True, match=True) == 4


def test_jacoby_scores_gammons_single_while_the_cube_was_never_turned():
    rules = Rules(jacoby=True)
    assert points_for(GAMMON, 1, rules, cube_turned=False, match=False) == 1
    assert points_for(BACKGAMMON, 1, rules, cube_turned=False, match=False) == 1
    # automatic doubles raise the value without turning the cube: still a single, times 2
    assert points_for(GAMMON, 2, rules, cube_turned=False, match=False) == 2


def test_jacoby_lets_gammons_count_once_a_double_was_accepted():
    rules = Rules(jacoby=True)
    assert points_for(GAMMON, 2, rules, cube_turned=True, match=False) == 4
    assert points_for(BACKGAMMON, 2, rules, cube_turned=True, match=False) == 6


def test_jacoby_never_applies_to_match_play():
    assert points_for(GAMMON, 1, Rules(jacoby=True), cube_turned=False, match=True) == 2


def test_jacoby_and_backgammon_as_gammon_together():
    rules = Rules(jacoby=True, backgammon_as_gammon=True)
    assert points_for(BACKGAMMON, 1, rules, cube_turned=False, match=False) == 1
    assert points_for(BACKGAMMON, 1, rules, cube_turned=True, match=False) == 2
