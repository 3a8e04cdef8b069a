"""The race cube rules at their published thresholds, one pip either side, in both engines:
the Keith count (rounded seventh), Trice's Rule 62, the Kleinman metric, the Isight method and
the effective pip count rule."""

from __future__ import annotations

import pytest

from bgsim.board import Position
from bgsim.cube import CubeView, Response
from bgsim.fast import seats
from bots import make_player
from conftest import fast_cube_answers
from bots.cube import keith_count
from bots.match_cube import race_chance
from bots.race_rules import effective_pips, isight_counts, point_of_last_take



def money(centred=True, value=1) -> CubeView:
    return CubeView(value=value, centred=centred, max_cube=64, beaver_allowed=False, jacoby=False)


def fast_answers(player, position: Position, cube: CubeView) -> tuple[bool, Response]:
    """(offers, answer) of the fast kernel of ``player``'s cube bot, asked as the game loop asks."""
    return fast_cube_answers(seats(player, player), position, cube)


def decisions(spec: str, position: Position) -> tuple[bool, bool, Response]:
    """(double, redouble, answer) of ``spec``'s money rule; the fast engine must agree."""
    player = make_player(f"racer+{spec}")
    first = player.offer_double(position, money())
    again = player.offer_double(position, money(centred=False, value=2))
    answer = player.respond_to_double(position, money())
    assert fast_answers(player, position, money()) == (first, answer), f"{spec}: fast engine differs"
    assert fast_answers(player, position, money(centred=False, value=2))[0] == again
    return first, again, answer


def bearoff(own: dict[int, int], other: dict[int, int]) -> Position:
    return Position.from_points(own, {25 - point: n for point, n in other.items()})


def side(pips: int) -> dict[int, int]:
    """Ten checkers on the 6-point and five more between the 1- and 12-points, ``pips`` in all
    (65 to 120), so two such sides are always a race."""
    points = {6: 10}
    rest = pips - 60
    for left in range(4, -1, -1):
        step = max(1, min(12, rest - left))
        points[step] = points.get(step, 0) + 1
        rest -= step
    assert rest == 0, pips
    return points


def stacked(own_pips: int, other_pips: int) -> Position:
    position = bearoff(side(own_pips), side(other_pips))
    assert (position.pip_count, position.opponent_pip_count) == (own_pips, other_pips)
    assert position.is_race
    return position


# --- Keith: the seventh rounded down -------------------------------------------------------

def test_keith_rounds_the_seventh_down():
    position = Position.from_position_id("0AAAAA4AAAAAAA")  # Keith counts: roller 20, opponent 18
    # roller: three on the 6-point, 18 pips + 1 for each empty 4- and 5-point; opponent: 17 + 1
    assert (keith_count(position.board), keith_count(position.turned().board)) == (20, 18)
    # 20 + 20 // 7 - 18 = 4: a double (the exact seventh, 20 * 8/7 - 18 = 4.86, was not)
    double, redouble, answer = decisions("keith", position)
    assert double and not redouble and answer is Response.TAKE


# --- Rule 62 ---------------------------------------------------------------------------------

def test_point_of_last_take():
    assert point_of_last_take(70) == 9      # 10% + 2
    assert point_of_last_take(62) == 9      # 8.2 rounded up
    assert point_of_last_take(80) == 10     # exactly 10
    assert point_of_last_take(61) == 8      # (61 - 5) / 7 = 8
    assert point_of_last_take(40) == 5      # 35 / 7
    assert point_of_last_take(41) == 6      # 36 / 7 rounded up


@pytest.mark.bot_rule("cube", "rule62")
@pytest.mark.parametrize("leader, trailer, double, redouble, answer", [
    (70, 75, False, False, Response.TAKE),  # deficit 5: 4 short of the point of last take (9)
    (70, 76, True, False, Response.TAKE),   # 6: within 3
    (70, 77, True, True, Response.TAKE),    # 7: within 2
    (70, 79, True, True, Response.TAKE),    # 9: the point of last take
    (70, 80, True, True, Response.DROP),    # 10: beyond
    (90, 97, False, False, Response.TAKE),  # point of last take 11
    (90, 98, True, False, Response.TAKE),
    (90, 99, True, True, Response.TAKE),
    (90, 101, True, True, Response.TAKE),
    (90, 102, True, True, Response.DROP),
])
def test_rule62_from_62_pips(leader, trailer, double, redouble, answer):
    assert decisions("rule62", stacked(leader, trailer)) == (double, redouble, answer)


@pytest.mark.parametrize("trailer, double, redouble, answer", [
    (41, False, False, Response.TAKE),  # 40 pips: point of last take 35/7 = 5; deficit 1
    (42, True, False, Response.TAKE),   # within 3
    (43, True, True, Response.TAKE),    # within 2
    (45, True, True, Response.TAKE),
    (46, True, True, Response.DROP),
])
def test_rule62_below_62_pips(trailer, double, redouble, answer):
    position = bearoff({6: 5, 5: 2}, {6: 5, 5: 2, 1: trailer - 40})
    assert (position.pip_count, position.opponent_pip_count) == (40, trailer)
    assert decisions("rule62", position) == (double, redouble, answer)


# --- Kleinman --------------------------------------------------------------------------------

def _kleinman(own, other):
    d, s = other - own + 4, own + other - 4
    return d * d / s


@pytest.mark.bot_rule("cube", "kleinman")
@pytest.mark.parametrize("own, other", [(99, 105), (99, 104), (99, 106)])
def test_kleinman_double_at_k_one_half(own, other):
    k = _kleinman(own, other)
    assert decisions("kleinman", stacked(own, other))[0] is (k >= 0.5)
    assert (k >= 0.5) is (other >= 105)  # 99 v 105: D = 10, S = 200, K = 0.5 exactly


@pytest.mark.parametrize("other, double, redouble, answer", [
    (104, False, False, Response.TAKE),   # K = 81/199 = 0.41
    (105, True, False, Response.TAKE),    # K = 100/200 = 0.5
    (106, True, False, Response.TAKE),    # K = 121/201 = 0.60
    (107, True, True, Response.TAKE),     # K = 144/202 = 0.71
    (110, True, True, Response.TAKE),     # K = 225/205 = 1.10
    (111, True, True, Response.DROP),     # K = 256/206 = 1.24
])
def test_kleinman_thresholds(other, double, redouble, answer):
    assert decisions("kleinman", stacked(99, other)) == (double, redouble, answer)


def test_kleinman_take_one_pip_either_side():
    # 100 v 109: D = 13, S = 205, K = 0.824 take; 100 v 111: K = 225/207 = 1.087 take;
    # 100 v 112: K = 256/208 = 1.231 drop
    assert decisions("kleinman", stacked(100, 111))[2] is Response.TAKE
    assert decisions("kleinman", stacked(100, 112))[2] is Response.DROP
    assert race_chance(100, 113) == pytest.approx(0.797, abs=1e-3)  # Johansen's worked example


# --- Isight ------------------------------------------------------------------------------------

def test_isight_counts_by_hand():
    # own: 3 on the 1-point (+2), 4 on the 2-point (+2), empty 4-point where the other has one (+1)
    position = bearoff({1: 3, 2: 4, 3: 2, 5: 2, 6: 2}, {4: 2, 5: 3, 6: 4})
    own, other = isight_counts(position.board)
    assert own == (3 + 8 + 6 + 10 + 12) + 2 + 2 + 1 + (13 - 9)
    assert other == 8 + 15 + 24


@pytest.mark.bot_rule("cube", "isight")
@pytest.mark.parametrize("trailer, adjusted, double, redouble, answer", [
    # leader side(90): adjusted 90, so P = 50 + 2 D (D = adjusted trailer - 90)
    (side(96), 98, False, False, Response.TAKE),              # P = 66
    (side(97), 99, True, False, Response.TAKE),               # 68: double
    (side(98), 100, True, True, Response.TAKE),               # 70: redouble
    ({6: 10, 12: 3, 3: 1, 2: 1}, 103, True, True, Response.TAKE),  # 76: the last take
    ({6: 10, 12: 3, 4: 1, 3: 1}, 104, True, True, Response.DROP),  # 78: one pip beyond
    ({6: 9, 12: 3, 8: 1, 2: 2}, 105, True, True, Response.DROP),   # 80
    ({6: 10, 11: 3, 4: 1, 3: 1}, 101, True, True, Response.TAKE),  # 72
])
def test_isight_thresholds(trailer, adjusted, double, redouble, answer):
    """P = 80 - L/3 + 2 (T - L): double at 68, redouble at 70, take up to 76."""
    position = bearoff(side(90), trailer)
    assert isight_counts(position.board) == (90, adjusted)
    assert decisions("isight", position) == (double, redouble, answer)


# --- EPC -----------------------------------------------------------------------------------------

def test_epc_outside_the_home_board_adds_the_bear_off_wastage():
    inside = bearoff({6: 3, 5: 3}, {6: 1})
    outside = Position.from_points({6: 2, 5: 3, 10: 1}, {19: 1})
    assert effective_pips(outside.board) == pytest.approx(effective_pips(inside.board) + 4)


def gnubg_epc(counts: dict[int, int]) -> float:
    """GNU Backgammon's effective pip count of a bear-off: its one-sided database's expected
    rolls (``gnubg_nn.bearoff_probabilities``, entry i the chance of i + 1 rolls) times 49/6."""
    import gnubg_nn

    chances = gnubg_nn.bearoff_probabilities(tuple(counts.get(point, 0) for point in range(1, 7)))
    return sum((rolls + 1) * chance for rolls, chance in enumerate(chances)) / sum(chances) * 49 / 6


EPC_OWN = {6: 4, 5: 4, 4: 3}  # EPC 62.89: point of last take ceil((62.89 + 20) / 10) = 9, at 71.89


@pytest.mark.bot_rule("cube", "epc")
@pytest.mark.parametrize("other, epc, expected", [
    # the taker's EPC (GNU Backgammon's) against Trice's thresholds on the doubler's 62.89:
    # double from 68.89, redouble from 69.89, take up to 71.89
    ({6: 4, 5: 4, 4: 4}, 67.08, (False, False, Response.TAKE)),
    ({6: 5, 5: 4, 4: 3}, 68.92, (True, False, Response.TAKE)),
    ({6: 4, 5: 4, 4: 5}, 71.32, (True, True, Response.TAKE)),
    ({6: 3, 5: 4, 4: 5, 3: 2}, 71.73, (True, True, Response.TAKE)),
    ({6: 7, 5: 3, 4: 2}, 72.00, (True, True, Response.DROP)),
    ({6: 6, 5: 6, 4: 3}, 85.11, (True, True, Response.DROP)),
])
def test_epc_rule_at_its_thresholds(other, epc, expected):
    """Trice's thresholds on effective counts, hand-worked from GNU Backgammon's EPCs (the
    plain pips, 56 against 57 to 74, would give other answers)."""
    assert gnubg_epc(EPC_OWN) == pytest.approx(62.89, abs=0.005)
    assert gnubg_epc(other) == pytest.approx(epc, abs=0.01)
    position = bearoff(EPC_OWN, other)
    assert effective_pips(position.board) == pytest.approx(gnubg_epc(EPC_OWN), abs=2e-3)
    assert effective_pips(position.turned().board) == pytest.approx(gnubg_epc(other), abs=2e-3)
    assert decisions("epc", position) == expected


@pytest.mark.parametrize("spec", ["rule62", "kleinman", "isight", "epc"])
def test_race_rules_stay_out_of_contact(spec):
    contact = Position.from_points({24: 2, 6: 13}, {1: 2, 20: 13})
    assert decisions(spec, contact) == (False, False, Response.TAKE)


@pytest.mark.parametrize("spec", ["rule62", "kleinman", "isight", "epc", "keith"])
def test_race_rules_in_a_match_agree_across_engines(spec):
    player = make_player(f"racer+{spec}")
    for own, other in ((70, 76), (80, 90), (100, 104), (110, 100)):
        position = stacked(own, other)
        for away, opponent_away in ((3, 5), (5, 3), (2, 2), (1, 4)):
            cube = CubeView(value=1, centred=True, max_cube=64, beaver_allowed=False, jacoby=False,
                            match_to=7, away=(away, opponent_away))
            assert fast_answers(player, position, cube) == \
                (player.offer_double(position, cube), player.respond_to_double(position, cube))
