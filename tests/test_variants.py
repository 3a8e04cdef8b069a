"""The rulebook's variants in the reference engine: the worked examples 11-23 of RULES.md, the
state a variant adds to a position, its position string, acey-deucey's turns and the bad input.

Expected plays are written out by hand from the rulebook and turned into positions by the small
``after`` helper (it moves checkers as told and knows no rules), so each test compares bgsim's
answer with one bgsim did not produce.
"""

from __future__ import annotations

import re

from dataclasses import replace

import pandas as pd
import pytest

from bgsim import Position, PositionError, legal_plays
from bgsim.board import STATE_ZOBRIST, ZOBRIST
from bgsim.cube import Response, Rules, RulesError
from bgsim.decisions import RandomPlayer
from bgsim.dice import GOLDEN, MASK64, RandomStream, mix64
from bgsim.game import play_game
from bgsim.match import play_match
from bgsim.scoring import BACKGAMMON, GAMMON, SINGLE, acey_deucey_points, result_of
from bgsim.series import play_games
from bgsim.variants import VARIANTS, VariantError, variant_of

DUTCH, ACEY = "dutch", "acey-deucey"


def position(own: dict, opponent: dict, variant: str, in_hand=(0, 0), cannot_hit=(False, False)) -> Position:
    """A position of ``variant`` from two point literals (see ``Position.from_points``)."""
    return replace(Position.from_points(own, opponent), variant=variant, in_hand=in_hand, cannot_hit=cannot_hit)


def after(start: Position, *moves: str, cannot_hit=None) -> Position:
    """``start`` with checkers moved as written: ``13/9``, ``bar/19``, ``hand/19``, ``6/off``,
    ``12/9*`` (the ``*`` hits the lone checker there).  ``cannot_hit``: the result's, when the
    moves change it (a Dutch side reaching home)."""
    board, hand = list(start.board), list(start.in_hand)
    for move in moves:
        source, target = move.rstrip("*").split("/")
        if source == "hand":
            hand[0] -= 1
        else:
            board[25 if source == "bar" else int(source)] -= 1
        if target != "off":
            target = int(target)
            if move.endswith("*"):
                assert board[target] == -1, f"{move} hits a lone checker"
                board[target] = 0
                board[0] -= 1
            board[target] += 1
    return Position(tuple(board), start.variant, tuple(hand), start.cannot_hit if cannot_hit is None else cannot_hit)


def results(start: Position, roll) -> set[Position]:
    return {play.result for play in legal_plays(start, roll)}


class Scripted:
    """A player whose choices are written down: ``pick(plays)`` for plays, ``double`` for
    acey-deucey's double; it remembers what it was asked."""

    def __init__(self, name: str, pick=lambda plays: plays[0], double: int = 6) -> None:
        self.name, self.pick, self.double = name, pick, double
        self.doubles_asked: list[tuple] = []

    def choose_play(self, position, roll, plays, random):
        return self.pick(plays)

    def choose_double(self, position, options, random):
        self.doubles_asked.append((position, options))
        return self.double

    def offer_double(self, position, cube):
        return False

    def respond_to_double(self, position, cube):
        return Response.TAKE


def picking(target: Position):
    """A ``pick`` that takes the play ending in ``target`` (and the first play otherwise)."""
    return lambda plays: next((play for play in plays if play.result == target), plays[0])


# --- worked examples: Dutch backgammon -------------------------------------------------------


def test_example_11_dutch_start_has_everything_in_hand_and_an_opening_6_5_enters_two():
    start = Position.start(DUTCH)
    assert start.in_hand == (15, 15) and not any(start.board)
    assert start.pip_count == start.opponent_pip_count == 15 * 25 == 375
    assert results(start, (6, 5)) == {after(start, "hand/19", "hand/20")}


def test_example_12_dutch_a_checker_in_hand_enters_before_the_six_moves_anything():
    # 14 of white's on the board and one in hand; black holds white's 19 point (it enters the 6)
    start = position({24: 2, 13: 5, 8: 3, 6: 4}, {19: 2, 12: 5, 17: 3, 1: 2}, DUTCH, in_hand=(1, 3))
    assert results(start, (6, 1)) == {
        after(start, "hand/24", "24/18"), after(start, "hand/24", "13/7"), after(start, "hand/24", "8/2"),
    }


def test_example_13_dutch_a_lone_checker_is_closed_until_a_checker_has_reached_home():
    # no 4-1 here brings a checker home before its last die, so nothing may hit at all
    barred = position({13: 5, 24: 2, 12: 3, 11: 5}, {9: 1, 19: 5, 20: 5, 21: 4}, DUTCH, cannot_hit=(True, False))
    plays = legal_plays(barred, (4, 1))
    assert plays and all(play.result.board[9] == -1 and play.result.board[0] == 0 for play in plays)
    assert after(barred, "13/12", "12/8") in {play.result for play in plays}  # 13/8 passes by the 12
    home = position({13: 4, 24: 2, 12: 3, 11: 5, 5: 1}, {9: 1, 19: 5, 20: 5, 21: 4}, DUTCH)
    assert after(home, "13/9*", "5/4") in results(home, (4, 1))


def test_example_14_dutch_the_bar_on_hitting_lifts_at_once_for_the_next_die():
    start = position({8: 1, 12: 1, 13: 13}, {9: 1, 19: 4, 20: 5, 21: 5}, DUTCH, cannot_hit=(True, False))
    found = results(start, (3, 2))
    assert after(start, "8/6", "12/9*", cannot_hit=(False, False)) in found
    assert after(start, "12/9*", "9/7") not in found  # the 3 first would hit before home is reached
    assert after(start, "13/11", "12/9*") not in found  # the 2 elsewhere does not lift it
    assert after(start, "12/10", "10/7") in found  # still barred: a plain move, nothing hit


def test_example_15_dutch_checkers_still_in_hand_make_a_backgammon():
    won = position({}, {19: 5, 20: 4, 21: 4}, DUTCH, in_hand=(0, 2))
    assert result_of(won) == BACKGAMMON
    assert result_of(position({}, {19: 5, 20: 5, 21: 5}, DUTCH)) == GAMMON  # the same 15 all entered
    start = position({1: 1}, {19: 5, 20: 4, 21: 4}, DUTCH, in_hand=(0, 2))
    record = play_game(RandomPlayer(), RandomPlayer(), 15, 0, Rules(variant=DUTCH), start=start, rolls=[(1, 1)])
    assert (record.winner, record.result, record.points, record.plies) == ("white", BACKGAMMON, 3, 1)
    assert record.black_pips == 2 * 25 + 5 * 6 + 4 * 5 + 4 * 4  # white's 19..21 are black's 6..4


# --- worked examples: acey-deucey ------------------------------------------------------------


class _FirstPlyPlayed(Exception):
    """Ends a game at its first play: example 16 is about the opening only."""


class _OpeningOnly(RandomPlayer):
    """Remembers the roll it is asked to play, then ends the game."""

    def __init__(self) -> None:
        super().__init__()
        self.rolls_seen: list[tuple[int, int]] = []

    def choose_play(self, position, roll, plays, random):
        self.rolls_seen.append(roll)
        raise _FirstPlyPlayed


def test_example_16_acey_deucey_start_and_the_winner_of_the_throw_rolls_afresh():
    start = Position.start(ACEY)
    assert start.in_hand == (15, 15) and start.pip_count == start.opponent_pip_count == 375
    fresh_differs = first_is_double = False
    for number in range(40):
        dice = RandomStream(16, number, 0)
        white, black = dice.die(), dice.die()
        while white == black:
            white, black = dice.die(), dice.die()
        roll = (dice.die(), dice.die())
        # the first player asked, and with which roll (in hand at the start, every roll has plays)
        seats = {"white": _OpeningOnly(), "black": _OpeningOnly()}
        with pytest.raises(_FirstPlyPlayed):
            play_game(seats["white"], seats["black"], 16, number, Rules(variant=ACEY))
        asked = [(side, seat.rolls_seen) for side, seat in seats.items() if seat.rolls_seen]
        assert asked == [("white" if white > black else "black", [roll])]
        fresh_differs |= sorted(roll) != sorted((white, black))
        first_is_double |= roll[0] == roll[1]
        if number >= 7 and fresh_differs and first_is_double:
            break
    assert fresh_differs and first_is_double  # not the throw's dice, and a double may open


def test_example_17_acey_deucey_checkers_in_hand_need_not_enter_first():
    start = position({13: 2}, {}, ACEY, in_hand=(13, 15))
    assert results(start, (6, 4)) == {
        after(start, "13/7", "13/9"), after(start, "13/7", "7/3"),
        after(start, "hand/19", "hand/21"), after(start, "hand/19", "19/15"),
        after(start, "hand/19", "13/9"), after(start, "hand/21", "13/7"),
    }


def test_example_18_acey_deucey_a_checker_on_the_bar_still_enters_first():
    start = position({"bar": 1, 13: 2, 8: 2}, {5: 2}, ACEY, in_hand=(10, 13))
    assert results(start, (6, 4)) == {
        after(start, "bar/19", "hand/21"), after(start, "bar/19", "19/15"),
        after(start, "bar/19", "13/9"), after(start, "bar/19", "8/4"),
        after(start, "bar/21", "13/7"), after(start, "bar/21", "8/2"),
    }


def test_example_19_acey_deucey_1_2_plays_the_chosen_double_and_rolls_again():
    start = position({}, {}, ACEY, in_hand=(15, 15))
    entered = after(start, "hand/24", "hand/23")
    white, black = Scripted("white", picking(entered), double=5), Scripted("black")
    record = play_game(white, black, 19, 0, Rules(variant=ACEY), start=start, rolls=[(1, 2), (3, 4)], trace=True)
    one_two, double, again = record.history[:3]
    assert (one_two.ply, one_two.side, one_two.roll, one_two.play) == (1, "white", (1, 2), "hand/24 hand/23")
    assert (double.ply, double.side, double.roll, double.chosen_double) == (1, "white", (5, 5), True)
    assert double.position_id == entered.position_string
    assert (again.ply, again.side, again.roll) == (2, "white", (3, 4))
    [(asked, options)] = white.doubles_asked[:1]
    assert asked == entered and len(options) == 6
    fives = {play.result for play in options[4]}
    assert after(entered, *["hand/20"] * 4) in fives
    assert after(entered, "24/19", "19/14", "23/18", "18/13") in fives


def test_example_20_acey_deucey_an_unplayable_1_2_ends_the_turn_without_a_double():
    blocked = position({}, {24: 2, 23: 2}, ACEY, in_hand=(15, 11))
    assert legal_plays(blocked, (1, 2)) == []
    half = position({}, {23: 2, 22: 2}, ACEY, in_hand=(15, 11))
    assert results(half, (1, 2)) == {after(half, "hand/24")}
    for start in (blocked, half):
        white, black = Scripted("white"), Scripted("black")
        record = play_game(white, black, 20, 0, Rules(variant=ACEY), start=start, rolls=[(1, 2), (6, 5)], trace=True)
        assert [(ply.ply, ply.side, ply.roll, ply.chosen_double) for ply in record.history[:2]] == [
            (1, "white", (1, 2), False), (2, "black", (6, 5), False)]  # no double, no roll again


def test_example_21_acey_deucey_the_loser_pays_per_checker_and_1_2_doubles_the_stake():
    won = position({}, {19: 5, 20: 5}, ACEY)
    assert acey_deucey_points(won, 1) == 10 and acey_deucey_points(won, 4) == 40
    # white bears off in two chained 1-2 turns (each followed by 6-6); black has 5 off
    start = position({6: 6}, {19: 5, 20: 5}, ACEY)
    for option, points in ((False, 10), (True, 40)):
        rules = Rules(variant=ACEY, double_on_acey_deucey=option)
        record = play_game(Scripted("white"), Scripted("black"), 21, 0, rules, start=start, rolls=[(1, 2), (2, 1)])
        assert (record.winner, record.plies, record.black_off, record.result) == ("white", 2, 5, SINGLE)
        assert (record.points, record.cube_value) == (points, 4 if option else 1)
    # a 1-2 that ends the game doubles the stake too: it was rolled
    last = position({1: 1, 2: 1}, {19: 15}, ACEY)
    for option, points in ((False, 15), (True, 30)):
        record = play_game(Scripted("white"), Scripted("black"), 21, 0, Rules(variant=ACEY, double_on_acey_deucey=option),
                           start=last, rolls=[(2, 1)])
        assert (record.winner, record.plies, record.points) == ("white", 1, points)


# --- worked examples: Nackgammon and hypergammon ------------------------------------------


def test_example_22_nackgammon_start_and_an_opening_3_1():
    start = Position.start("nackgammon")
    own = {point: start.board[point] for point in range(1, 25) if start.board[point] > 0}
    assert own == {24: 2, 23: 2, 13: 4, 8: 3, 6: 4}
    assert start.pip_count == start.opponent_pip_count == 194 == 2 * 24 + 2 * 23 + 4 * 13 + 3 * 8 + 4 * 6
    assert after(start, "8/5", "6/5") in results(start, (3, 1))


def test_example_23_hypergammon3_pips_gammon_and_backgammon():
    start = Position.start("hypergammon3")
    assert start.pip_count == start.opponent_pip_count == 69 == 24 + 23 + 22
    assert result_of(Position((0,) * 20 + (-1, -1, -1, 0, 0, 0), "hypergammon3")) == GAMMON
    assert result_of(position({}, {3: 1, 21: 1, 22: 1}, "hypergammon3")) == BACKGAMMON
    assert result_of(position({}, {21: 1, 22: 1}, "hypergammon3")) == SINGLE  # one of the 3 is off


def test_hypergammon_starts_one_two_or_three_checkers_and_counts_off_of_them():
    for count in (1, 2, 3):
        start = Position.start(f"hypergammon{count}")
        own = [point for point in range(1, 25) if start.board[point] > 0]
        assert own == [24, 23, 22][:count][::-1] and start.checkers == count
        assert start.checkers_off == start.opponent_checkers_off == 0


# --- the variant's state in a position --------------------------------------------------------


def test_the_standard_game_keeps_its_keys_equality_and_hash():
    start = Position.start()
    assert start.variant == "standard" and start.in_hand == (0, 0) and start.cannot_hit == (False, False)
    assert hash(start) == hash((start.board,))
    nack = Position.start("nackgammon")
    assert nack.key == Position(nack.board).key  # a neutral state adds nothing to the key
    assert nack != Position(nack.board)  # but it is a Nackgammon position


def test_the_state_keys_are_the_generators_next_draws_and_enter_only_where_not_zero():
    state = 0x62672D73696D
    draws = []
    for _ in range(30 * 31):
        state = (state + GOLDEN) & MASK64
        draws.append(mix64(state))
    assert [number for row in ZOBRIST for number in row] == draws[:26 * 31]
    assert [number for row in STATE_ZOBRIST for number in row] == draws[26 * 31:]
    start = Position.start(DUTCH)
    empty = Position((0,) * 26).key
    # hand 15 and 15, both barred from hitting: slots 26, 27, 28, 29 hold 15, 15, 1, 1
    assert start.key == empty ^ draws[26 * 31 + 30] ^ draws[27 * 31 + 30] ^ draws[28 * 31 + 16] ^ draws[29 * 31 + 16]


def test_turning_a_variant_position_swaps_hand_and_hit_state():
    start = position({13: 2}, {12: 3}, DUTCH, in_hand=(13, 12), cannot_hit=(True, True))
    turned = start.turned()
    assert (turned.variant, turned.in_hand, turned.cannot_hit) == (DUTCH, (12, 13), (True, True))
    assert turned.turned() == start
    acey = position({13: 2}, {}, ACEY, in_hand=(4, 15))
    assert acey.turned().in_hand == (15, 4) and acey.checkers_off == 9


def test_a_dutch_side_bar_checkers_enter_before_its_checkers_in_hand():
    start = position({"bar": 1, 13: 1}, {12: 2}, DUTCH, in_hand=(2, 13))
    assert results(start, (6, 5)) == {after(start, "bar/19", "hand/20"), after(start, "bar/20", "hand/19")}
    assert all(play.result.board[25] == 0 and play.result.in_hand == (1, 13) for play in legal_plays(start, (6, 5)))


def test_the_position_seen_by_bots_has_checkers_in_hand_on_the_bar():
    start = position({"bar": 1, 13: 12}, {12: 2}, DUTCH, in_hand=(2, 13), cannot_hit=(True, False))
    seen = start.as_standard()
    assert seen.variant == "standard" and seen.board[25] == 3 and seen.board[0] == -13
    assert seen.pip_count == start.pip_count == 3 * 25 + 12 * 13
    standard = Position.start()
    assert standard.as_standard() is standard


# --- the position string ----------------------------------------------------------------------


def test_documented_position_strings_name_each_start():
    assert Position.start().position_string == "4HPwATDgc/ABMA"
    assert Position.start(DUTCH).position_string == "AAAAAAAAAAAAAA.dutch.hand15-15.nohit-xo"
    assert Position.start(ACEY).position_string == "AAAAAAAAAAAAAA.acey-deucey.hand15-15"
    assert Position.start("nackgammon").position_string == "4Dl4ADbgOXgANg.nackgammon"
    for variant in VARIANTS:
        assert Position.from_string(Position.start(variant).position_string) == Position.start(variant)


def test_position_strings_round_trip_with_hand_and_hit_state():
    met = set()
    for variant in VARIANTS:
        for number in range(1):  # a game a variant: hundreds of positions, every state asserted below
            record = play_game(RandomPlayer(), RandomPlayer(), 7, number, Rules(variant=variant), trace=True)
            for ply in record.history:
                for text in (ply.position_id, ply.result_id):
                    decoded = Position.from_string(text)
                    assert decoded.position_string == text and decoded.variant == variant
                    assert Position.from_string(decoded.turned().position_string) == decoded.turned()
                    met.add((variant, decoded.in_hand != (0, 0), any(decoded.cannot_hit)))
    # Dutch: a side with checkers in hand has not reached home, so it is barred from hitting
    assert {(DUTCH, True, True), (DUTCH, False, True), (DUTCH, False, False), (ACEY, True, False)} <= met
    assert (DUTCH, True, False) not in met


def test_a_bare_id_is_read_in_the_variant_named_and_must_fit_it():
    text = Position.start("hypergammon2").position_id
    assert Position.from_string(text, "hypergammon2") == Position.start("hypergammon2")
    assert Position.from_string(text).variant == "standard"
    with pytest.raises(PositionError, match="is a dutch position, not acey-deucey"):
        Position.from_string(Position.start(DUTCH).position_string, ACEY)


@pytest.mark.parametrize("text, problem", [
    ("4HPwATDgc/ABMA.hypergammon1", "hypergammon1 has 1 a side"),
    ("AAAAAAAAAAAAAA.dutch.hand16-0", "counts of 0 to 15"),
    ("4HPwATDgc/ABMA.dutch.hand1-0", "15 checkers on the board and bar and 1 in hand: dutch has 15"),
    ("AAAAAAAAAAAAAA.nackgammon.hand1-0", "nackgammon has no checkers in hand"),
    ("AAAAAAAAAAAAAA.acey-deucey.hand15-15.nohit-x", "only Dutch backgammon bars a side from hitting"),
    ("4HPwATDgc/ABMA.dutch.nohit-x", "reached its home board"),
    ("AAAAAAAAAAAAAA.dutchy", "unknown variant 'dutchy'"),
    ("AAAAAAAAAAAAAA.dutch.hand15-15.x", "'x' is not handX-O or nohit-SIDES"),
    ("AAAAAAAAAAAAAA.dutch.nohit-xo.hand15-15", "is not handX-O or nohit-SIDES"),
    ("AAAAAAAAAAAAAA.dutch.hand0-0", "write checkers in hand as handX-O"),
    ("AAAAAAAAAAAAA!.dutch", "not one of A-Z"),
])
def test_a_bad_position_string_names_its_problem(text, problem):
    with pytest.raises(PositionError, match=problem.replace("(", r"\(")):
        Position.from_string(text)


# --- rule options and bad input -----------------------------------------------------------------


def test_an_unknown_variant_is_one_clear_error_everywhere():
    for make in (lambda: Rules(variant="dutchy"), lambda: Position.start("dutchy"), lambda: variant_of("dutchy"),
                 lambda: Position((0,) * 26, "dutchy")):
        with pytest.raises(ValueError, match="unknown variant 'dutchy' \\(known: standard, nackgammon"):
            make()
    assert issubclass(VariantError, ValueError)


@pytest.mark.parametrize("option", [dict(jacoby=True), dict(beaver=True), dict(automatic_doubles=1),
                                    dict(max_cube=16), dict(backgammon_as_gammon=True)])
def test_acey_deucey_has_no_cube_and_refuses_cube_options(option):
    assert Rules(variant=ACEY).cube is False
    with pytest.raises(RulesError, match="acey-deucey has no"):
        Rules(variant=ACEY, **option)


def test_the_stake_option_is_acey_deucey_s_own_and_matches_are_refused_there():
    with pytest.raises(RulesError, match="double_on_acey_deucey is an acey-deucey option"):
        Rules(variant=DUTCH, double_on_acey_deucey=True)
    with pytest.raises(RulesError, match="acey-deucey is a money game"):
        play_match(RandomPlayer(), RandomPlayer(), 1, 0, 3, Rules(variant=ACEY))
    record = play_match(RandomPlayer(), RandomPlayer(), 1, 0, 3, Rules(variant="hypergammon2"))
    assert max(record.white_score, record.black_score) >= 3  # the other variants play matches


def test_a_start_of_another_variant_is_refused():
    with pytest.raises(ValueError, match="is a dutch position, but the rules play acey-deucey"):
        play_game(RandomPlayer(), RandomPlayer(), 1, 0, Rules(variant=ACEY), start=Position.start(DUTCH))


def test_the_fast_engine_plays_the_variants_and_auto_chooses_it():
    from bgsim.series import engine_for

    player = RandomPlayer()
    assert engine_for("auto", player, player, Rules(variant=DUTCH)) == "fast"
    fast = play_games(player, player, 1, 2, Rules(variant=DUTCH))  # auto: the fast engine
    reference = play_games(player, player, 1, 2, Rules(variant=DUTCH), engine="reference")
    pd.testing.assert_frame_equal(fast, reference)
    assert list(fast["rule_variant"]) == [DUTCH, DUTCH]


# --- the game loop ------------------------------------------------------------------------------


def test_a_double_that_cannot_be_played_in_full_forfeits_the_extra_roll():
    start = position({}, {20: 2, 19: 2, 18: 2}, ACEY, in_hand=(15, 9))
    entered = after(start, "hand/24", "hand/23")
    for double, played in ((6, "23/5"), (5, "")):  # 6-6: 23/17/11/5 and nothing more; 5-5: nothing
        white = Scripted("white", picking(entered), double=double)
        record = play_game(white, Scripted("black"), 1, 0, Rules(variant=ACEY), start=start,
                           rolls=[(1, 2), (3, 3)], trace=True)
        chosen, following = record.history[1:3]
        assert (chosen.chosen_double, chosen.roll, chosen.play) == (True, (double, double), played)
        assert (following.ply, following.side) == (2, "black")


class Recording(RandomPlayer):
    """The random player, noting what each question cost its own stream."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[tuple[str, int]] = []

    def choose_play(self, position, roll, plays, random):
        before = random.draws
        play = super().choose_play(position, roll, plays, random)
        self.calls.append(("play", random.draws - before))
        return play

    def choose_double(self, position, options, random):
        before = random.draws
        double = super().choose_double(position, options, random)
        self.calls.append(("double", random.draws - before))
        assert double == 1 + _replay(random, before).below(6)  # the draw it took, read again
        return double


def _replay(random: RandomStream, draws: int) -> RandomStream:
    copy = RandomStream.__new__(RandomStream)
    copy.key, copy.draws = random.key, draws
    return copy


def test_random_chooses_its_double_with_one_draw_between_the_1_2_and_the_double():
    white = Recording()
    record = play_game(white, RandomPlayer(), 3, 0, Rules(variant=ACEY))
    doubles = [index for index, (question, _) in enumerate(white.calls) if question == "double"]
    assert doubles and record.plies > 10
    for index in doubles:
        assert white.calls[index] == ("double", 1)
        assert white.calls[index - 1][0] == "play"  # the 1-2's play came first


def test_an_evaluation_bot_takes_the_double_whose_best_play_scores_highest():
    from bots.checker import best_double

    class Fake:
        def __init__(self, value):
            self.value = value

    options = [[Fake(1.0), Fake(5.0)], [], [Fake(5.0)], [Fake(2.0)], [], [Fake(4.0)]]
    assert best_double(options, lambda play: play.value) == 1  # 5.0 first met with 1-1: the lowest
    options[0] = [Fake(1.0)]
    assert best_double(options, lambda play: play.value) == 3
    assert best_double([[]] * 6, lambda play: play.value) == 1  # nothing can be played


# --- bots ---------------------------------------------------------------------------------------


def test_every_checker_bot_plays_every_variant_or_refuses_it_in_one_line():
    from bots import checker_bots, make_player

    from bgsim.hypergammon.database import is_built

    opponent = make_player("racer")
    for name, bot in checker_bots().items():
        player = make_player(name)
        for variant in VARIANTS[1:]:
            if name not in ("gnubg", "exact") and variant in bot.refused_variants:  # declared: refused by name
                with pytest.raises(ValueError, match=rf"^{re.escape(name)} cannot play {variant}"):
                    play_game(player, opponent, 2, 0, Rules(variant=variant))
                continue
            if name == "gnubg" and variant in (DUTCH, ACEY):
                with pytest.raises(ValueError, match=f"gnubg cannot play {variant}: GNU Backgammon knows no checkers in hand"):
                    play_game(player, opponent, 2, 0, Rules(variant=variant))
                continue
            if name == "exact" and variant == ACEY:
                with pytest.raises(ValueError, match="exact cannot play acey-deucey"):
                    play_game(player, opponent, 2, 0, Rules(variant=variant))
                continue
            if name == "exact" and variant == "hypergammon3" and not is_built(3):  # hours to build
                with pytest.raises(ValueError, match="hypergammon3's solution is not built yet"):
                    play_game(player, opponent, 2, 0, Rules(variant=variant))
                continue
            record = play_game(player, opponent, 2, 0, Rules(variant=variant))
            assert record.winner in ("white", "black") and record.points >= 1


def test_every_cube_bot_plays_the_variants_with_a_cube():
    from bots import cube_bots, make_player

    from bgsim.hypergammon.database import is_built

    for name, bot in cube_bots().items():
        player = make_player(f"heuristic+{name}")
        for variant in ("nackgammon", "hypergammon3", DUTCH):
            if name not in ("gnubg", "exact") and variant in getattr(bot, "refused_variants", ()):
                with pytest.raises(ValueError, match=rf"^{re.escape(name)} cannot play {variant}"):
                    play_game(player, player, 4, 0, Rules(variant=variant))
                continue
            if name == "gnubg" and variant == DUTCH:
                with pytest.raises(ValueError, match="gnubg cannot play dutch"):
                    play_game(player, player, 4, 0, Rules(variant=variant))
                continue
            if name == "exact" and variant == "hypergammon3" and not is_built(3):  # hours to build
                with pytest.raises(ValueError, match="hypergammon3's solution is not built yet"):
                    play_game(player, player, 4, 0, Rules(variant=variant))
                continue
            record = play_game(player, player, 4, 0, Rules(variant=variant))
            assert record.points >= 1


def test_a_checker_bot_that_cannot_choose_a_double_is_refused_acey_deucey_before_it_plays():
    from bots.checker import CheckerBot
    from bots.registry import BotPlayer

    class FirstPlay(CheckerBot):
        name = "first"

        def choose(self, position, roll, plays, random):
            return plays[0]

    player = BotPlayer(FirstPlay())
    with pytest.raises(ValueError, match="first cannot play acey-deucey: it does not choose the double"):
        play_games(player, player, 1, [], Rules(variant=ACEY))
    assert play_game(player, player, 1, 0, Rules(variant=DUTCH)).points >= 1  # every other variant


def test_bgsim_bots_says_which_bots_know_only_the_standard_game(capsys):
    from bots import describe_bots

    text = describe_bots()
    assert text.count("trained on the standard game") >= 4  # nn (checker and cube), gnubg (both)
    assert "fitted to the standard game" in text  # pubeval
    assert "every checker bot plays every variant" in text


# --- random play from each start ----------------------------------------------------------------


@pytest.mark.parametrize("variant", VARIANTS)
def test_random_play_from_each_start_ends_and_scores_as_the_variant_says(variant):
    rules = Rules(variant=variant)
    # enough games for every outcome the checks below tell apart (asserted): Dutch's first
    # single comes in its 9th game
    games = {DUTCH: 12, ACEY: 6}.get(variant, 20)
    frame = play_games(RandomPlayer(), RandomPlayer(), 11, games, rules, engine="reference")
    checkers = variant_of(variant).checkers
    assert len(frame) == games and (frame["rule_variant"] == variant).all()
    winner_off = frame["white_off"].where(frame["winner"] == "white", frame["black_off"])
    loser_off = frame["black_off"].where(frame["winner"] == "white", frame["white_off"])
    assert (winner_off == checkers).all() and (loser_off < checkers).all()
    if variant == ACEY:
        assert (frame["result"] == "single").all() and (frame["points"] == checkers - loser_off).all()
        assert loser_off.nunique() > 1  # points that differ with the loser's checkers off
    else:
        gammon = frame["result"].isin(["gammon", "backgammon"])
        assert (gammon == (loser_off == 0)).all()
    if variant == "hypergammon1":
        assert gammon.all()  # the loser of one checker has never borne it off
    elif variant != ACEY:
        assert gammon.any() and not gammon.all()  # both sides of the gammon rule were played


# --- the command line and experiment files ------------------------------------------------------


def run(capsys, *argv):
    from experiments.cli import main

    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_show_and_moves_read_variant_positions(capsys):
    code, out, _ = run(capsys, "show", "AAAAAAAAAAAAAA.dutch.hand15-15.nohit-xo")
    assert code == 0 and "in hand 15; may not hit yet" in out and "Position: AAAAAAAAAAAAAA.dutch" in out
    code, out, _ = run(capsys, "moves", "start", "6", "5", "--variant", DUTCH, "--json")
    data = __import__("json").loads(out)
    assert code == 0 and data["count"] == 1 and data["plays"][0]["play"] == "hand/20 hand/19"
    code, out, _ = run(capsys, "moves", "AAAAAAAAAAAAAA.acey-deucey.hand15-15", "1", "2")
    assert code == 0 and "hand/24 hand/23" in out and "hand/22" in out


def test_play_writes_rows_of_the_variant(capsys, tmp_path):
    out = tmp_path / "rows.parquet"
    code, _, err = run(capsys, "play", "random", "racer", "--games", "4", "--variant", "hypergammon2",
                       "--out", str(out), "--no-progress")
    assert code == 0, err
    frame = pd.read_parquet(out)
    assert (frame["rule_variant"] == "hypergammon2").all() and (frame["white_off"] <= 2).all()


@pytest.mark.parametrize("argv, problem", [
    (["play", "random", "random", "--variant", "dutchy"], "unknown variant 'dutchy'"),
    (["play", "random", "random", "--variant", ACEY, "--jacoby"], "acey-deucey has no cube: leave out jacoby"),
    (["play", "random", "random", "--variant", ACEY, "--match-to", "3"], "acey-deucey is a money game"),
    (["play", "gnubg", "random", "--variant", DUTCH], "gnubg cannot play dutch"),
    (["play", "random", "random", "--variant", ACEY, "--max-cube", "8"], "acey-deucey has no cube: leave out max_cube"),
    (["show", "4HPwATDgc/ABMA", "--variant", "hypergammon1"], "hypergammon1 has 1 a side"),
    (["moves", "AAAAAAAAAAAAAA.dutch.hand16-15", "6", "5"], "counts of 0 to 15"),
])
def test_bad_variant_input_is_one_line_and_exit_2(capsys, tmp_path, argv, problem):
    if argv[0] == "play":
        argv = argv + ["--games", "2", "--out", str(tmp_path / "x.parquet")]
    code, out, err = run(capsys, *argv)
    assert code == 2 and problem in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "x.parquet").exists()


def experiment(**rules_and_more):
    from experiments.running.config import experiment_from_mapping

    data = {"players": ["racer", "random"], "games": 2, "chunk": 2}
    data.update(rules_and_more)
    return experiment_from_mapping(data, "test.toml")


def test_experiment_files_take_the_variant_as_rule_and_condition(tmp_path):
    from experiments.running.config import ExperimentError, rules_table
    from experiments.studies.experiment import run_experiment

    found = experiment(rules={"variant": ACEY}, conditions={"acey": {}, "dutch": {"variant": DUTCH}})
    rules = dict(found.conditions)
    assert (rules["acey"].variant, rules["acey"].cube) == (ACEY, False)
    assert (rules["dutch"].variant, rules["dutch"].cube) == (DUTCH, True)  # the default cube again
    assert "variant" not in rules_table(Rules()) and rules_table(rules["dutch"])["variant"] == DUTCH
    result = run_experiment(found, tmp_path / "run", progress=False, log=lambda text: None)
    assert set(result.frame["rule_variant"]) == {ACEY, DUTCH}
    for data, problem in (
        (dict(rules={"variant": ACEY, "cube": True}), "rules.cube: acey-deucey has no cube"),
        (dict(rules={"variant": "dutchy"}), "unknown variant 'dutchy'"),
        (dict(rules={"variant": DUTCH}, players=["gnubg", "racer"]), "gnubg cannot play dutch"),
        (dict(rules={"variant": ACEY}, players=["racer", "gnubg"]), "gnubg cannot play acey-deucey"),
        (dict(rules={"variant": DUTCH}, starts={"positions": ["4HPwATDgc/ABMA"]}),
         "positions of standard cannot start games of dutch"),
    ):
        with pytest.raises(ExperimentError, match=problem):
            experiment(**data)
    started = experiment(rules={"variant": DUTCH}, starts={"positions": [Position.start(DUTCH).position_string]})
    assert started.starts == {"positions": ["AAAAAAAAAAAAAA.dutch.hand15-15.nohit-xo"]}
