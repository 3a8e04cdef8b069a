"""The doubling cube on its own: who may double, take, drop, beaver, automatic doubles, options."""

from __future__ import annotations

import pytest

from bgsim.cube import CENTRE, Cube, Response, Rules, RulesError


def test_the_cube_starts_in_the_centre_on_1():
    cube = Cube()
    assert (cube.value, cube.owner) == (1, CENTRE)


def test_either_side_may_double_a_centred_cube():
    assert Cube().may_double("white", Rules())
    assert Cube().may_double("black", Rules())


def test_only_the_owner_may_redouble():
    cube = Cube()
    cube.take("black")
    assert (cube.value, cube.owner) == (2, "black")
    assert cube.may_double("black", Rules())
    assert not cube.may_double("white", Rules())


def test_a_double_may_not_exceed_the_maximum():
    rules = Rules(max_cube=4)
    cube = Cube(value=2, owner="white")
    assert cube.may_double("white", rules)  # 2 -> 4 is the maximum itself
    cube.take("black")
    assert cube.value == 4
    assert not cube.may_double("black", rules)  # 4 -> 8 would exceed it


def test_the_default_maximum_is_64():
    assert Rules().max_cube == 64
    assert Cube(value=32, owner="white").may_double("white", Rules())
    assert not Cube(value=64, owner="white").may_double("white", Rules())


def test_a_maximum_of_1_means_no_doubles():
    assert not Cube().may_double("white", Rules(max_cube=1))


def test_no_doubles_with_the_cube_switched_off():
    assert not Cube().may_double("white", Rules(cube=False))


def test_no_doubles_in_the_crawford_game():
    assert not Cube().may_double("white", Rules(), crawford=True)


def test_a_take_doubles_the_value_and_hands_over_the_cube():
    cube = Cube()
    cube.take("white")
    cube.take("black")
    assert (cube.value, cube.owner) == (4, "black")


def test_a_beaver_quadruples_and_the_taker_keeps_the_cube():
    cube = Cube(value=2, owner="white")
    cube.beaver("black")
    assert (cube.value, cube.owner) == (8, "black")


def test_beavers_only_when_switched_on_in_money_play_and_within_the_maximum():
    assert not Cube().may_beaver(Rules(), match=False)
    assert Cube().may_beaver(Rules(beaver=True), match=False)
    assert not Cube().may_beaver(Rules(beaver=True), match=True)
    assert not Cube(value=32).may_beaver(Rules(beaver=True), match=False)  # 32 -> 128 > 64
    assert Cube(value=16).may_beaver(Rules(beaver=True), match=False)  # 16 -> 64


def test_automatic_doubles_keep_to_the_per_game_limit():
    cube = Cube()
    rules = Rules(automatic_doubles=2)
    assert cube.automatic_double(rules, done=0)
    assert cube.automatic_double(rules, done=1)
    assert not cube.automatic_double(rules, done=2)
    assert (cube.value, cube.owner) == (4, CENTRE)


def test_automatic_doubles_stop_at_the_maximum():
    cube = Cube()
    rules = Rules(automatic_doubles=5, max_cube=2)
    assert cube.automatic_double(rules, done=0)
    assert not cube.automatic_double(rules, done=1)
    assert cube.value == 2


def test_automatic_doubles_are_off_by_default():
    assert not Cube().automatic_double(Rules(), done=0)


def test_money_conventions_are_all_off_by_default():
    rules = Rules()
    assert rules.cube is True
    assert (rules.jacoby, rules.beaver, rules.automatic_doubles, rules.backgammon_as_gammon) == (
        False, False, 0, False)


def test_responses_read_from_their_names():
    assert Response("take") is Response.TAKE
    assert Response("drop") is Response.DROP
    assert Response("beaver") is Response.BEAVER


# --- invalid options ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "options, problem",
    [
        ({"max_cube": 0}, "power of two"),
        ({"max_cube": 48}, "power of two"),
        ({"max_cube": -4}, "power of two"),
        ({"max_cube": 2**31}, "at most 2\\*\\*30"),
        ({"max_cube": 64.0}, "whole number"),
        ({"max_cube": True}, "whole number"),
        ({"automatic_doubles": -1}, "limit per game"),
        ({"automatic_doubles": True}, "whole number"),
        ({"jacoby": 1}, "on or off"),
        ({"cube": "yes"}, "on or off"),
        ({"beaver": None}, "on or off"),
        ({"backgammon_as_gammon": 0}, "on or off"),
        ({"cube": False, "jacoby": True}, "jacoby needs the cube"),
        ({"cube": False, "beaver": True}, "beaver needs the cube"),
        ({"cube": False, "automatic_doubles": 1}, "automatic doubles need the cube"),
    ],
)
def test_invalid_options_are_rejected(options, problem):
    with pytest.raises(RulesError, match=problem):
        Rules(**options)


def test_cube_off_with_backgammon_as_gammon_is_fine():
    # a scoring option, not a cube convention: kept with the cube off, and a backgammon won in
    # one roll (the loser still on the bar) scores 2 with it, 3 without
    from bgsim.board import Position
    from bgsim.decisions import RandomPlayer
    from bgsim.game import play_game

    rules = Rules(cube=False, backgammon_as_gammon=True)
    assert (rules.cube, rules.backgammon_as_gammon) == (False, True)
    assert not Cube().may_double("white", rules)
    start = Position.from_points({1: 1}, {"bar": 1, 19: 14})
    for option, points in ((rules, 2), (Rules(cube=False), 3)):
        record = play_game(RandomPlayer(), RandomPlayer(), 1, 0, option, start=start, rolls=[(2, 1)])
        assert (record.winner, record.result, record.points, record.doubles) == ("white", "backgammon", points, 0)


@pytest.mark.parametrize(
    "options, problem",
    [
        ({"jacoby": True}, "jacoby is a money-game convention"),
        ({"beaver": True}, "beaver is a money-game convention"),
        ({"automatic_doubles": 1}, "automatic doubles are a money-game convention"),
    ],
)
def test_money_conventions_are_rejected_for_match_play(options, problem):
    with pytest.raises(RulesError, match=problem):
        Rules(**options).check_for_match()


@pytest.mark.parametrize("plain", [Rules(), Rules(backgammon_as_gammon=True, max_cube=16), Rules(cube=True, max_cube=2)])
@pytest.mark.parametrize("convention, problem", [
    ({"jacoby": True}, "jacoby"), ({"beaver": True}, "beaver"), ({"automatic_doubles": 1}, "automatic doubles"),
])
def test_match_play_accepts_the_plain_options_and_refuses_each_convention_added(plain, convention, problem):
    from dataclasses import replace

    assert plain.check_for_match() is None
    assert Rules(cube=False).check_for_match() is None
    # the same options with one money convention more: the check reads the convention, not
    # the other options
    with pytest.raises(RulesError, match=problem):
        replace(plain, **convention).check_for_match()


def test_rules_error_is_a_value_error():
    assert issubclass(RulesError, ValueError)
