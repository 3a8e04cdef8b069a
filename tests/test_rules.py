"""Move legality: the ten worked examples of RULES.md, each rule on its own, and the notation.

Expected plays are written out by hand from the rulebook and turned into positions with the
small ``after`` helper below (it only moves checkers as told; it knows no rules), so a test
compares bgsim's list with an answer that bgsim did not produce.
"""

from __future__ import annotations

import pytest

from bgsim import Position, PositionError, RollError, legal_plays
from bgsim.cube import Rules
from bgsim.rules import notation, single_moves
from bgsim.scoring import BACKGAMMON, DROP, GAMMON, SINGLE, points_for, result_of

START_OWN = {24: 2, 13: 5, 8: 3, 6: 5}
START_OPPONENT = {19: 5, 17: 3, 12: 5, 1: 2}


def after(own: dict, opponent: dict, *moves: str) -> Position:
    """The position after moving checkers as written: ``"13/8"``, ``"bar/22"``, ``"6/off"``,
    ``"8/7*"`` (the ``*`` hits: the opponent's lone checker there goes to its bar)."""
    own, opponent = dict(own), dict(opponent)
    for move in moves:
        source, target = move.rstrip("*").split("/")
        source = "bar" if source == "bar" else int(source)
        own[source] -= 1
        if target != "off":
            target = int(target)
            if move.endswith("*"):
                assert opponent.pop(target) == 1, f"{move} hits a lone checker"
                opponent["bar"] = opponent.get("bar", 0) + 1
            own[target] = own.get(target, 0) + 1
    return Position.from_points(own, opponent)


def results(position: Position, roll) -> set[Position]:
    return {play.result for play in legal_plays(position, roll)}


def notations(position: Position, roll) -> set[str]:
    return {play.notation for play in legal_plays(position, roll)}


def play_to(position: Position, roll, result: Position):
    [play] = [play for play in legal_plays(position, roll) if play.result == result]
    return play


# --- the worked examples of RULES.md, in order -----------------------------------------------


def test_starting_position_pip_count_is_167_for_each_side():
    position = Position.start()
    by_hand = 2 * 24 + 5 * 13 + 3 * 8 + 5 * 6
    assert by_hand == 167
    assert position.pip_count == 167
    assert position.opponent_pip_count == 167


def test_opening_3_1_has_seven_first_checker_moves_and_sixteen_plays():
    start = Position.start()
    board = list(start.board)
    assert {(source, target) for source, target, _ in single_moves(board, 3)} == {
        (24, 21), (13, 10), (8, 5), (6, 3)}
    # 13/12 is not there: the opponent holds our 12-point with five checkers
    assert {(source, target) for source, target, _ in single_moves(board, 1)} == {
        (24, 23), (8, 7), (6, 5)}

    threes = ["24/21", "13/10", "8/5", "6/3"]
    ones = ["24/23", "8/7", "6/5"]
    by_hand = {after(START_OWN, START_OPPONENT, three, one) for three in threes for one in ones}
    by_hand |= {after(START_OWN, START_OPPONENT, path) for path in ("24/20", "13/9", "8/4", "6/2")}
    assert len(by_hand) == 16
    assert results(start, (3, 1)) == by_hand
    assert len(legal_plays(start, (3, 1))) == 16
    assert len(legal_plays(start, (1, 3))) == 16


def test_opening_3_1_can_make_the_5_point_with_8_5_6_5():
    play = play_to(Position.start(), (3, 1), after(START_OWN, START_OPPONENT, "8/5", "6/5"))
    assert play.result.board[5] == 2
    assert play.notation == "8/5 6/5"


def test_landing_on_a_blot_hits_it_to_the_bar():
    # 5-1 with a black blot on white's 7-point: 13/8 8/7* hits it
    opponent = {19: 5, 17: 3, 12: 4, 7: 1, 1: 2}
    position = Position.from_points(START_OWN, opponent)
    hit = after(START_OWN, opponent, "13/8", "8/7*")
    assert hit in results(position, (5, 1))
    assert hit.board[0] == -1 and hit.board[7] == 1
    # the blot was 18 pips from home (our 7 is its 18) and is now 25 away
    assert hit.opponent_pip_count == position.opponent_pip_count - 18 + 25
    assert play_to(position, (5, 1), hit).notation in ("13/8 8/7*", "13/7*")


def test_hitting_is_never_compulsory():
    opponent = {19: 5, 17: 3, 12: 4, 7: 1, 1: 2}
    position = Position.from_points(START_OWN, opponent)
    assert after(START_OWN, opponent, "13/8", "6/5") in results(position, (5, 1))


def test_bar_first_entry_on_closed_point_is_illegal():
    # one checker on the bar, 6-4, our 21-point closed: the 4 cannot enter, bar/19 must come first
    own = {"bar": 1, 13: 5, 8: 3, 6: 5, 24: 1}
    opponent = {21: 2, 17: 3, 16: 3, 12: 5, 1: 2}
    position = Position.from_points(own, opponent)
    plays = legal_plays(position, (6, 4))
    assert plays
    for play in plays:
        assert play.moves[0][:2] == (25, 19)
        assert play.result.board[25] == 0
    by_hand = {after(own, opponent, "bar/19", four)
               for four in ("24/20", "19/15", "13/9", "8/4", "6/2")}
    assert results(position, (6, 4)) == by_hand


def test_bar_entry_on_an_open_point_is_allowed_with_either_die():
    own = {"bar": 1, 13: 5, 8: 3, 6: 5, 24: 1}
    opponent = {17: 3, 16: 5, 12: 5, 1: 2}
    entries = {play.moves[0][:2] for play in legal_plays(Position.from_points(own, opponent), (6, 4))}
    assert entries == {(25, 19), (25, 21)}


def test_bear_off_must_use_both_dice_when_possible():
    # one checker on the 7, the rest home; the opponent holds our 1- and 4-points, so 7/1 and
    # 6/4 are closed and the only play that uses both dice of 6-2 is 7/5 6/off
    own = {7: 1, 6: 4, 5: 3, 3: 3, 2: 4}
    opponent = {1: 2, 4: 2}
    position = Position.from_points(own, opponent)
    assert results(position, (6, 2)) == {after(own, opponent, "7/5", "6/off")}
    assert [play.notation for play in legal_plays(position, (6, 2))] == ["7/5 6/off"]


def test_only_one_die_playable_must_be_the_larger():
    # 6-5 with one checker on the 13 and the opponent on our 2-point: 13/7 and 13/8 each work,
    # but 7/2 and 8/2 are closed, so only one die can be played and it must be the 6
    own = {13: 1, 1: 14}
    opponent = {2: 2}
    position = Position.from_points(own, opponent)
    assert results(position, (6, 5)) == {after(own, opponent, "13/7")}
    assert [play.notation for play in legal_plays(position, (5, 6))] == ["13/7"]


def test_bear_off_with_a_larger_die_from_the_highest_point_or_move_inside():
    # checkers on the 5 and the 3 only, 6-4: 5/off 3/off and 5/1 3/off
    own = {5: 1, 3: 1}
    opponent = {20: 2}
    position = Position.from_points(own, opponent)
    assert results(position, (6, 4)) == {
        after(own, opponent, "5/off", "3/off"),
        after(own, opponent, "5/1", "3/off"),
    }


def test_doubles_bear_off_four_checkers_when_nothing_is_higher():
    # 5-5 with checkers on the 5, 3, 3, 2, 1: four come off, the one on the 1 stays
    own = {5: 1, 3: 2, 2: 1, 1: 1}
    opponent = {24: 2}
    position = Position.from_points(own, opponent)
    [play] = legal_plays(position, (5, 5))
    assert play.result == Position.from_points({1: 1}, opponent)
    assert play.result.checkers_off == 14


def test_scoring_single_gammon_backgammon_times_the_cube():
    rules = Rules()
    single = Position.from_points({}, {3: 2, 20: 10})  # the loser has 3 off
    gammon = Position.from_points({}, {19: 15})  # none off, none in our home or on the bar
    backgammon = Position.from_points({}, {18: 14, 2: 1})  # one still in the winner's home
    assert result_of(single) == SINGLE and points_for(SINGLE, 1, rules, False, False) == 1
    assert result_of(gammon) == GAMMON and points_for(GAMMON, 2, rules, True, False) == 4
    assert result_of(backgammon) == BACKGAMMON
    assert points_for(BACKGAMMON, 4, rules, True, False) == 12


def test_dropped_double_costs_the_cube_value_before_the_double():
    rules = Rules()
    assert points_for(DROP, 1, rules, False, False) == 1  # from the centre
    assert points_for(DROP, 2, rules, True, False) == 2  # the cube was on 2


# --- moving, rule by rule ---------------------------------------------------------------


def test_a_closed_point_cannot_be_landed_on():
    own = {13: 1}
    opponent = {7: 2, 8: 2}
    position = Position.from_points(own, opponent)
    assert (13, 7, False) not in single_moves(list(position.board), 6)
    assert (13, 8, False) not in single_moves(list(position.board), 5)


def test_every_intermediate_point_must_be_open():
    # 6-5 played 13/2 must touch down on the 7 or the 8
    both_closed = Position.from_points({13: 1, 1: 14}, {7: 2, 8: 2})
    assert legal_plays(both_closed, (6, 5)) == []
    seven_open = Position.from_points({13: 1, 1: 14}, {8: 2})
    assert results(seven_open, (6, 5)) == {after({13: 1, 1: 14}, {8: 2}, "13/7", "7/2")}
    eight_open = Position.from_points({13: 1, 1: 14}, {7: 3})
    assert results(eight_open, (6, 5)) == {after({13: 1, 1: 14}, {7: 3}, "13/8", "8/2")}


def test_doubles_need_every_step_open():
    # 3-3 with one checker on the 24: 24/12 needs the 21, 18 and 15 open; the 18 is closed
    own = {24: 1, 1: 14}
    opponent = {18: 2}
    position = Position.from_points(own, opponent)
    assert results(position, (3, 3)) == {after(own, opponent, "24/21")}


def test_doubles_are_played_four_times():
    own = {24: 2, 13: 5, 8: 3, 6: 5}
    position = Position.from_points(own, START_OPPONENT)
    moved = {position.pip_count - play.result.pip_count for play in legal_plays(position, (2, 2))}
    assert moved == {8}


def test_as_many_dice_as_possible_must_be_played():
    # 4-1: the back checker is stuck (24/23 and 24/20 closed), the home checkers cannot bear off
    # while it is out, so every play moves the 6-point checker the whole 5 pips one way or another
    own = {24: 1, 6: 1, 3: 13}
    opponent = {20: 2, 23: 2}
    position = Position.from_points(own, opponent)
    assert results(position, (4, 1)) == {
        after(own, opponent, "6/2", "2/1"),
        after(own, opponent, "6/2", "3/2"),
        after(own, opponent, "6/5", "5/1"),
    }


def test_a_first_move_that_blocks_the_other_die_is_illegal_when_both_can_be_played():
    # 5-3: 19/14 would leave the 3 nowhere to go (14/11 closed, nothing else free), but
    # 19/16 14/9 and 14/9/6 play both dice, so 19/14 alone is not a legal play
    own = {19: 1, 14: 1, 1: 13}
    opponent = {24: 2, 8: 2, 11: 2}
    position = Position.from_points(own, opponent)
    assert results(position, (5, 3)) == {
        after(own, opponent, "19/16", "14/9"),
        after(own, opponent, "14/9", "9/6"),
    }
    assert after(own, opponent, "19/14") not in results(position, (5, 3))


def test_the_smaller_die_is_played_when_the_larger_cannot_be():
    # 6-2 with only the 13 free: 13/7 is closed, 13/11 is open
    own = {13: 1, 1: 14}
    opponent = {7: 2, 5: 2}
    position = Position.from_points(own, opponent)
    assert results(position, (6, 2)) == {after(own, opponent, "13/11")}


def test_two_on_the_bar_both_enter_before_anything_moves():
    own = {"bar": 2, 6: 13}
    opponent = {22: 2, 23: 2, 24: 2}
    position = Position.from_points(own, opponent)
    assert results(position, (5, 4)) == {after(own, opponent, "bar/20", "bar/21")}
    # 6-3: only the 6 enters (22 closed); the second checker waits, the 3 is lost
    assert results(position, (6, 3)) == {after(own, opponent, "bar/19")}


def test_three_on_the_bar_with_a_double_enter_then_one_moves_on():
    own = {"bar": 3, 6: 12}
    opponent = {1: 2}
    position = Position.from_points(own, opponent)
    moved = {after(own, opponent, "bar/21", "bar/21", "bar/21", step) for step in ("21/17", "6/2")}
    assert results(position, (4, 4)) == moved


def test_a_roll_that_cannot_enter_is_lost():
    own = {"bar": 1, 6: 14}
    opponent = {19: 2, 20: 2, 21: 2, 22: 2, 23: 2, 24: 2}
    position = Position.from_points(own, opponent)
    for roll in [(d1, d2) for d1 in range(1, 7) for d2 in range(1, 7)]:
        assert legal_plays(position, roll) == []


def test_entry_points_are_25_minus_the_die():
    own = {"bar": 1}
    for die in range(1, 7):
        entries = {play.moves[0][1] for play in legal_plays(Position.from_points(own, {}), (die, die))}
        assert entries == {25 - die}


def test_no_bear_off_while_a_checker_is_outside_home():
    own = {7: 1, 1: 14}
    position = Position.from_points(own, {24: 2})
    assert results(position, (1, 1)) == {after(own, {24: 2}, "7/6", "6/5", "5/4", "4/3"),
                                         after(own, {24: 2}, "7/6", "6/5", "5/4", "1/off"),
                                         after(own, {24: 2}, "7/6", "6/5", "1/off", "1/off"),
                                         after(own, {24: 2}, "7/6", "1/off", "1/off", "1/off")}
    assert results(position, (6, 5)) == {after(own, {24: 2}, "7/1", "1/off")}


def test_a_hit_checker_comes_back_home_before_bearing_off_resumes():
    own = {"bar": 1, 1: 14}
    position = Position.from_points(own, {})
    for play in legal_plays(position, (6, 1)):
        assert play.result.checkers_off == 0
    # bar/19/18 and bar/24/18 end in the same position: one play
    assert results(position, (6, 1)) == {after(own, {}, "bar/19", "19/18")}


def test_bear_off_by_exact_die_even_with_higher_checkers():
    own = {6: 1, 2: 1}
    position = Position.from_points(own, {24: 2})
    assert after(own, {24: 2}, "6/off", "2/off") in results(position, (6, 2))


def test_a_larger_die_cannot_bear_off_a_lower_checker_while_higher_ones_remain():
    # 5-5 with checkers on the 6 and the 2: the 2 cannot come off with a 5 while the 6 is there
    own = {6: 1, 2: 1}
    position = Position.from_points(own, {24: 2})
    assert results(position, (5, 5)) == {after(own, {24: 2}, "6/1", "2/off", "1/off")}


def test_bearing_off_is_not_compulsory_when_a_move_inside_exists():
    own = {6: 1, 2: 1}
    position = Position.from_points(own, {24: 2})
    # 2/1 1/off is not among them: a 2 cannot bear off from the 1 while the 6 is occupied
    assert results(position, (2, 1)) == {
        after(own, {24: 2}, "6/4", "2/1"),  # neither checker comes off
        after(own, {24: 2}, "6/4", "4/3"),
        after(own, {24: 2}, "6/5", "2/off"),
    }


def test_a_hit_in_the_home_board_during_the_bear_off():
    own = {6: 2, 4: 2}
    opponent = {2: 1, 20: 2}
    position = Position.from_points(own, opponent)
    hit = after(own, opponent, "4/2*", "6/off")
    assert hit in results(position, (6, 2))
    assert hit.board[0] == -1


def test_plays_are_in_the_canonical_order():
    position = Position.start()
    for roll in [(3, 1), (6, 6), (5, 2), (2, 2)]:
        plays = legal_plays(position, roll)
        keys = [(play.result.key, play.result.board) for play in plays]
        assert keys == sorted(keys)


def test_results_are_seen_from_the_side_that_moved():
    [play] = legal_plays(Position.from_points({6: 1}, {19: 15}), (6, 5))
    assert play.result.checkers_off == 15  # ours, not the opponent's
    assert play.result.opponent_checkers_off == 0


def test_a_finished_position_has_no_plays():
    assert legal_plays(Position.from_points({}, {19: 3}), (6, 5)) == []


# --- notation ---------------------------------------------------------------------------


def test_notation_making_the_7_point():
    play = play_to(Position.start(), (6, 1), after(START_OWN, START_OPPONENT, "13/7", "8/7"))
    assert play.notation == "13/7 8/7"


def test_notation_entering_from_the_bar():
    own = {"bar": 2, 6: 13}
    opponent = {24: 2}
    [play] = legal_plays(Position.from_points(own, opponent), (3, 1))
    assert play.notation == "bar/22"


def test_notation_bearing_off():
    own = {6: 1, 4: 1}
    position = Position.from_points(own, {24: 2})
    assert notations(position, (6, 3)) == {"6/off 4/1", "6/3 4/off"}


def test_notation_of_a_hit():
    own = {8: 1, 6: 2}
    opponent = {7: 1, 19: 2}
    play = play_to(Position.from_points(own, opponent), (2, 1), after(own, opponent, "8/7*", "6/4"))
    assert play.notation == "8/7* 6/4"


def test_notation_of_a_repeated_move():
    play = play_to(Position.start(), (6, 6),
                   after(START_OWN, START_OPPONENT, "24/18", "24/18", "13/7", "13/7"))
    assert play.notation == "24/18(2) 13/7(2)"


def test_notation_of_two_checkers_moving_together_with_a_double():
    play = play_to(Position.start(), (2, 2),
                   after(START_OWN, START_OPPONENT, "24/22", "22/20", "24/22", "22/20"))
    assert play.notation == "24/20(2)"


def test_notation_of_one_checker_moving_all_four_steps():
    play = play_to(Position.start(), (2, 2),
                   after(START_OWN, START_OPPONENT, "24/22", "22/20", "20/18", "18/16"))
    assert play.notation == "24/16"


def test_notation_of_a_hit_on_the_way():
    own = dict(START_OWN)
    opponent = {19: 5, 17: 3, 12: 4, 10: 1, 1: 2}
    position = Position.from_points(own, opponent)
    via_the_hit = play_to(position, (3, 2), after(own, opponent, "13/10*", "10/8"))
    assert via_the_hit.notation == "13/10*/8"
    around_it = play_to(position, (3, 2), after(own, opponent, "13/11", "11/8"))
    assert around_it.notation == "13/8"


def test_notation_entering_and_moving_on():
    own = {"bar": 1, 6: 14}
    position = Position.from_points(own, {})
    play = play_to(position, (3, 5), after(own, {}, "bar/22", "22/17"))
    assert play.notation == "bar/17"


def test_notation_joins_one_checker_whatever_order_its_moves_were_found_in():
    # 14/9 by a checker already on the 14 and 17/14 by another is the same play as 17/9
    assert notation(((14, 9, False), (17, 14, False))) == "17/9"
    assert notation(((17, 14, False), (14, 9, False))) == "17/9"
    assert notation(((3, 0, False), (5, 3, False))) == "5/off"
    assert notation(((5, 1, True), (7, 5, False))) == "7/1*"


def test_notation_gives_the_hit_to_the_first_checker_to_land():
    own = {24: 1, 22: 1, 6: 13}
    opponent = {18: 1, 1: 2}
    position = Position.from_points(own, opponent)
    play = play_to(position, (4, 6), after(own, opponent, "24/18*", "22/18"))
    assert play.notation == "24/18* 22/18"


# --- bad input --------------------------------------------------------------------------


@pytest.mark.parametrize("roll", [(0, 3), (7, 1), (3, -1), (6, 66)])
def test_dice_outside_1_to_6_are_rejected(roll):
    with pytest.raises(RollError, match="a die shows 1 to 6"):
        legal_plays(Position.start(), roll)


@pytest.mark.parametrize("roll", [("3", 1), (3.0, 1), (True, 2), (None, 4)])
def test_dice_that_are_not_whole_numbers_are_rejected(roll):
    with pytest.raises(RollError, match="a die is a whole number"):
        legal_plays(Position.start(), roll)


@pytest.mark.parametrize("roll", [(3,), (3, 1, 2), 31, "31", None])
def test_a_roll_that_is_not_two_dice_is_rejected(roll):
    with pytest.raises(RollError, match="a roll is two dice"):
        legal_plays(Position.start(), roll)


def test_numpy_dice_are_read_as_whole_numbers():
    import numpy
    assert len(legal_plays(Position.start(), (numpy.int64(3), numpy.int8(1)))) == 16


def test_something_other_than_a_position_is_rejected():
    with pytest.raises(PositionError, match="needs a Position, got str"):
        legal_plays("4HPwATDgc/ABMA", (3, 1))
    with pytest.raises(TypeError):  # still a TypeError for callers that catch that
        legal_plays(None, (3, 1))


def test_roll_error_is_a_value_error():
    assert issubclass(RollError, ValueError)
