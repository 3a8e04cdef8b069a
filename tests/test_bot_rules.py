"""Every registered bot has a behaviour test of its own: a rule it must follow, in the reference
engine (the fast engine plays the same games: ``bgsim validate``), named after the rule.

A rule test carries ``@pytest.mark.bot_rule(role, name)`` wherever it lives (most live beside
their kin: ``tests/test_bots.py``, ``tests/test_race_rules.py``, ``tests/test_exact.py``...; the
ones with no other home are here).  ``test_every_registered_bot_has_a_rule_test_of_its_own``
reads the registries and fails for a bot without one: a rule bug made in both halves of a bot
passes every test that compares the engines, not this one.
"""

from __future__ import annotations

import ast
from pathlib import Path

import gnubg_nn
import pytest

from bgsim import Position, legal_plays
from bgsim.cube import CubeView, Response
from bots import checker_bots, cube_bots, make_checker, make_player

TESTS = Path(__file__).resolve().parent
MARK = "bot_rule"


def rule_tests(folders=(TESTS,)) -> dict[tuple[str, str], list[str]]:
    """``{(role, bot name): ["tests/test_x.py::test_name", ...]}`` of every test function marked
    ``@pytest.mark.bot_rule(role, name)`` in the ``test_*.py`` files of ``folders``."""
    found: dict[tuple[str, str], list[str]] = {}
    for folder in folders:
        for path in sorted(Path(folder).glob("test_*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if not isinstance(node, ast.FunctionDef):
                    continue
                for decorator in node.decorator_list:
                    if (isinstance(decorator, ast.Call) and isinstance(decorator.func, ast.Attribute)
                            and decorator.func.attr == MARK):
                        role, name = (argument.value for argument in decorator.args)
                        found.setdefault((role, name), []).append(f"{path.name}::{node.name}")
    return found


def registered() -> set[tuple[str, str]]:
    return {("checker", name) for name in checker_bots()} | {("cube", name) for name in cube_bots()}


def bots_without_a_rule_test(folders=(TESTS,)) -> list[str]:
    found = rule_tests(folders)
    return [f"{role} bot {name!r} has no behaviour test of its own: write one test of a rule it must follow, "
            f"named after the rule, marked @pytest.mark.{MARK}({role!r}, {name!r}) (docs/ARCHITECTURE.md, "
            "adding a bot)" for role, name in sorted(registered() - set(found))]


def test_every_registered_bot_has_a_rule_test_of_its_own():
    missing = bots_without_a_rule_test()
    assert not missing, "\n".join(missing)


def test_every_rule_test_names_a_registered_bot():
    stale = sorted(set(rule_tests()) - registered())
    assert not stale, f"rule tests of bots that are not registered: {stale}"


# --- the rules of bots with no other home --------------------------------------------------


@pytest.mark.bot_rule("checker", "racer")
def test_racer_keeps_a_blot_out_of_reach_when_the_pips_are_equal():
    # X brings its last checker in with 3-1 against five O checkers on X's 1-point: 8/5 5/4 and
    # 8/5 3/2 leave the same pips, but 8/5 3/2 leaves a blot on the 5 in their reach
    position = Position.from_points({2: 4, 3: 6, 4: 4, 8: 1}, {1: 5, 13: 1, 14: 1, 18: 1, 19: 3, 23: 3, 24: 1})
    plays = legal_plays(position, (3, 1))
    safe = next(play for play in plays if sorted(play.moves) == [(5, 4, False), (8, 5, False)])
    exposed = next(play for play in plays if sorted(play.moves) == [(3, 2, False), (8, 5, False)])
    assert make_checker("racer").choose(position, (3, 1), plays, None) is safe
    # without the price on a blot the two are equal and the first in canonical order wins
    unpriced = make_checker("racer(blot=0)").choose(position, (3, 1), plays, None)
    assert unpriced is exposed and plays.index(exposed) < plays.index(safe)


@pytest.mark.bot_rule("checker", "heuristic")
def test_heuristic_makes_a_home_board_point_before_an_outer_one():
    # 6-1 with a hit to play: 11/5 makes X's 5-point (home), 15/9 its 9-point (outer), all else
    # equal; a home point weighs 0.48, an outer one 0.24
    position = Position.from_position_id("+kAAYh9RSE54IQ")
    plays = legal_plays(position, (6, 1))
    chosen = make_checker("heuristic").choose(position, (6, 1), plays, None)
    assert sorted(chosen.moves) == [(11, 5, False), (24, 23, True)]
    equal = make_checker("heuristic(home=0.2)").choose(position, (6, 1), plays, None)
    assert sorted(equal.moves) == [(15, 9, False), (24, 23, True)]


@pytest.mark.bot_rule("checker", "gnubg")
@pytest.mark.parametrize("position_id, roll", [
    ("4HPwATDgc/ABMA", (6, 4)), ("kk/wATDgc+EBJA", (6, 4)), ("+kAAYh9RSE54IQ", (5, 2)), ("HS4UAD7e7yEAAA", (6, 6)),
])
def test_gnubg_plays_gnu_backgammons_own_best_move(position_id, roll):
    position = Position.from_position_id(position_id)
    chosen = make_checker("gnubg").choose(position, roll, legal_plays(position, roll), None)
    moves, _ = gnubg_nn.best_move(gnubg_nn.board_from_position_id(position_id), *roll, n=0, b=1)
    assert sorted((start, end) for start, end, _ in chosen.moves) == sorted(tuple(move) for move in moves)


def _race(own: dict, opponents_own: dict) -> Position:
    """A bear-in race, the opponent's checkers given in its own numbering."""
    return Position.from_points(own, {25 - point: count for point, count in opponents_own.items()})


MONEY = CubeView(value=1, centred=True, max_cube=64, beaver_allowed=False, jacoby=False)


@pytest.mark.bot_rule("cube", "nn")
def test_nn_doubles_and_answers_a_bear_in_race_as_gnu_backgammon_does():
    _doubles_and_answers_a_bear_in_race_as_gnu_backgammon_does("racer+nn")


@pytest.mark.bot_rule("cube", "nn-v1")
def test_nn_v1_doubles_and_answers_a_bear_in_race_as_gnu_backgammon_does():
    _doubles_and_answers_a_bear_in_race_as_gnu_backgammon_does("racer+nn-v1")


def _doubles_and_answers_a_bear_in_race_as_gnu_backgammon_does(spec):
    # the clear cases of GNU Backgammon's cube (tests/test_bots.py::test_gnubg_cube_judges_clear_cases):
    # 57 against 57 pips no double; against 64 double and take (about 77% to win); 66 double, pass
    player = make_player(spec)
    own = {6: 3, 5: 3, 4: 3, 3: 2, 2: 2, 1: 2}
    even = _race(own, {6: 3, 5: 3, 4: 3, 3: 2, 2: 2, 1: 2})
    double_take = _race(own, {6: 4, 5: 3, 4: 3, 3: 3, 2: 2})
    double_pass = _race(own, {6: 4, 5: 4, 4: 3, 3: 2, 2: 2})
    assert (even.pip_count, double_take.opponent_pip_count, double_pass.opponent_pip_count) == (57, 64, 66)
    assert player.offer_double(even, MONEY) is False
    assert player.offer_double(double_take, MONEY) is True
    assert player.respond_to_double(double_take, MONEY) is Response.TAKE
    assert player.offer_double(double_pass, MONEY) is True
    assert player.respond_to_double(double_pass, MONEY) is Response.DROP
