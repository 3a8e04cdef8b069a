"""GNU Backgammon as the judge of cube decisions: its answers read from recorded outputs of every
category, and its equities against bgsim's exact bear-off tables.

The recorded outputs are tests/data/gnubg_cube/hints_*ply.out (``record.py`` there wrote them
with gnubg 1.07); the expected values below are copied by hand from those files.  The tests that
run gnubg itself do so at 0-ply on a few positions; without the program they fail with the
install hint, they do not skip."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from bgsim.bearoff import evaluate
from bgsim.board import Position
from bgsim.interchange.xgid import ON_ROLL, Xgid
from conftest import bearoff_position
from experiments.analysis.gnubg_program import (CATEGORIES, GnubgError, category_of, check_plies, cube_decisions,
                                                parse_cube_hint, read_proper, split_sections)

DATA = Path(__file__).parent / "data" / "gnubg_cube"

# (section, gnubg's words, category, no double, double/take, double/pass, win, redouble, beaver, optional)
ZERO_PLY = [
    (1, "No double, take", "no double", -0.32822, -0.87091, 1.0, 0.42847, False, False, False),
    (2, "No double, beaver", "no double", -0.89069, -1.78139, 1.0, 0.20630, False, True, False),
    (3, "No redouble, take", "no double", -0.57579, -1.78139, 1.0, 0.20630, True, False, False),
    (4, "No redouble, beaver", "no double", -0.57579, -1.78139, 1.0, 0.20630, True, True, False),
    (5, "Double, take", "double/take", 0.73815, 0.85217, 1.0, 0.69161, False, False, False),
    (6, "Redouble, take", "double/take", 0.76359, 0.84718, 1.0, 0.64374, True, False, False),
    (7, "Double, pass", "double/pass", 0.89903, 1.23276, 1.0, 0.82821, False, False, False),
    (8, "Redouble, pass", "double/pass", 1.0, 2.0, 1.0, 1.0, True, False, False),
    (9, "Too good to double, pass", "too good/pass", 1.26773, 2.21558, 1.0, 0.85154, False, False, False),
    # the same position with the Jacoby rule: gammons do not count before the cube is turned
    (10, "Double, pass", "double/pass", 0.90499, 2.21558, 1.0, 0.85154, False, False, False),
    (11, "Too good to redouble, pass", "too good/pass", 1.00453, 1.60434, 1.0, 0.85082, True, False, False),
    # match scores: equities as gnubg prints them (equivalent money, the pass +1 at any score)
    (12, "Too good to double, take", "too good/take", 1.02042, 0.88267, 1.0, 0.77440, False, False, False),
    (13, "Too good to redouble, take", "too good/take", 1.02871, 0.96276, 1.0, 0.74142, True, False, False),
    (14, "Optional double, take", "double/take", -1.0, -1.0, 1.0, 0.0, False, False, True),
    (15, "Optional double, pass", "double/pass", 1.0, 1.99979, 1.0, 0.99993, False, False, True),
    (16, "Double, take", "double/take", 0.73722, 0.78599, 1.0, 0.69161, False, False, False),
]
# where the side on roll cannot double: the cubeful equity of the position and its chances
CANNOT = [(17, 0.42608, 0.69161, 0.01, 0), (18, 0.61990, 0.85154, 0.01, 0)]
TWO_PLY = [
    (1, "No double, take", "no double", -0.36457, -0.92401, 1.0, 0.42205, False, False, False),
    (2, "No double, beaver", "no double", -1.0, -2.0, 1.0, 0.19065, False, True, False),
]
TWO_PLY_CANNOT = [(3, 0.42454, 0.69194, 0.01076, 2), (4, 0.63604, 0.86865, 0.04895, 2)]


def sections(plies: int) -> list[str]:
    text = (DATA / f"hints_{plies}ply.out").read_text()
    count = (DATA / f"hints_{plies}ply.in").read_text().count("bgsim_mark_") - 1
    return split_sections(text, count)


@pytest.mark.parametrize("plies,expected", [(0, row) for row in ZERO_PLY] + [(2, row) for row in TWO_PLY],
                         ids=lambda value: value[1] if isinstance(value, tuple) else f"{value}-ply")
def test_every_category_of_gnubgs_recorded_answers_is_read(plies, expected):
    section, words, category, no_double, double_take, double_pass, win, redouble, beaver, optional = expected
    answer = parse_cube_hint(sections(plies)[section - 1])
    assert (answer.proper, answer.category) == (words, category)
    assert (answer.no_double, answer.double_take, answer.double_pass) == (no_double, double_take, double_pass)
    assert answer.chances[0] == win
    assert (answer.redouble, answer.beaver, answer.optional) == (redouble, beaver, optional)
    assert answer.plies == plies
    assert answer.action == ("too good" if category.startswith("too good") else category)


def test_where_the_side_on_roll_cannot_double_the_deepest_evaluation_is_read():
    for plies, rows in ((0, CANNOT), (2, TWO_PLY_CANNOT)):
        for section, cubeful, win, win_backgammon, depth in rows:
            answer = parse_cube_hint(sections(plies)[section - 1])
            assert answer.category == answer.action == "cannot double"
            assert (answer.no_double, answer.double_take, answer.double_pass) == (cubeful, None, None)
            assert answer.chances[0] == win and answer.plies == depth
            if plies == 2:  # the 2-ply row, not the static one above it
                assert answer.chances[2] == win_backgammon


def test_the_category_of_the_equities_is_gnubgs_own_word():
    """bgsim's reading of GNU Backgammon's rules (category_of) against the words gnubg printed."""
    checked = set()
    for plies in (0, 2):
        for text in sections(plies):
            answer = parse_cube_hint(text)
            if answer.category == "cannot double":
                continue
            found = category_of(answer.no_double, answer.double_take, answer.double_pass, answer.chances[1] > 0)
            assert found == answer.category, answer.proper
            checked.add(found)
    assert checked == set(CATEGORIES)


def test_the_rules_of_the_categories_by_hand():
    # a gammonless too-good position is a double/pass for gnubg; with gammons it is too good
    assert category_of(1.1, 1.5, 1.0, can_win_gammon=True) == "too good/pass"
    assert category_of(1.1, 1.5, 1.0, can_win_gammon=False) == "double/pass"
    assert category_of(1.1, 0.9, 1.0, can_win_gammon=True) == "too good/take"
    assert category_of(1.1, 0.9, 1.0, can_win_gammon=False) == "no double"
    assert category_of(0.5, 0.7, 1.0, can_win_gammon=False) == "double/take"
    assert category_of(0.5, 0.4, 1.0, can_win_gammon=True) == "no double"


def test_words_gnubg_never_prints_are_an_error():
    with pytest.raises(GnubgError, match="not one bgsim knows"):
        read_proper("Perhaps double, take")
    assert read_proper("Never redouble, take (dead cube)") == {
        "category": "no double", "redouble": True, "beaver": False, "optional": False, "dead": True}


@pytest.mark.parametrize("plies", [-1, 5, 2.0, "2", True])
def test_plies_out_of_range_is_one_error(plies):
    with pytest.raises(ValueError, match="--plies must be a whole number from 0 to 4"):
        check_plies(plies)


def small_bearoffs(count: int, seed: int) -> list[Position]:
    """Bear-offs of at most 6 checkers a side: GNU Backgammon's own two-sided database holds them."""
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        sides = []
        for _ in range(2):
            counts = [0] * 6
            for _ in range(rng.randint(1, 6)):
                counts[rng.randrange(6)] += 1
            sides.append(counts)
        found.append(bearoff_position(*sides))
    return found


def test_gnubgs_cube_equities_of_bearoffs_are_bgsims_exact_tables(gnubg):
    positions = small_bearoffs(24, 3)
    states = ([Xgid(position=position) for position in positions]
              + [Xgid(position=position, cube_value=2, cube_owner=ON_ROLL) for position in positions]
              + [Xgid(position=position, jacoby=True) for position in positions])
    answers = cube_decisions(states, plies=0)
    count = len(positions)
    actions = set()
    for index, position in enumerate(positions):
        exact = evaluate(position)
        centred, owned, jacoby = answers[index], answers[count + index], answers[2 * count + index]
        # gnubg keeps its bear-off equities in 16 bits
        assert centred.no_double == pytest.approx(exact.cubeful.no_double, abs=2e-4), position.position_id
        assert owned.no_double == pytest.approx(exact.cubeful.no_double_owned, abs=2e-4), position.position_id
        for answer in (centred, owned):
            assert answer.double_take == pytest.approx(exact.cubeful.double_take, abs=3e-4), position.position_id
            assert answer.double_pass == 1.0
        assert centred.action == exact.action and owned.action == exact.action_owned
        assert (owned.redouble, centred.redouble) == (True, False)
        # no gammon in these bear-offs: the Jacoby rule changes nothing
        assert jacoby.no_double == centred.no_double and jacoby.category == centred.category
        actions.add(exact.action)
    assert actions >= {"no double", "double/take", "double/pass"}


def test_two_gnubg_processes_answer_as_one(gnubg):
    positions = small_bearoffs(6, 4) + [Position.start()]
    states = [Xgid(position=position) for position in positions]
    assert cube_decisions(states, plies=0, jobs=2) == cube_decisions(states, plies=0, jobs=1)


# --- bgsim eval: the nn cube's estimate everywhere, gnubg's analysis on request -------------------


def eval_json(capsys, *arguments) -> dict:
    import json

    from experiments.cli import main

    capsys.readouterr()
    assert main(["eval", *arguments, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_eval_gives_the_nn_cubes_action_in_contact(capsys):
    from bgsim.cube import CubeView, Response
    from bots import make_cube

    cube = make_cube("nn")
    centred = CubeView(value=1, centred=True, max_cube=64, beaver_allowed=False, jacoby=False)
    owned = CubeView(value=2, centred=False, max_cube=64, beaver_allowed=False, jacoby=False)
    seen = set()
    for position in (Position.start(), *(Position.from_position_id(pid) for pid in
                                         ("mGfhASjgc+QBUA", "wfPgASKw2+AJQA", "23YDCATtvDMAAA", "/OwhAFC2bQUAVA"))):
        found = eval_json(capsys, position.position_id)["nn_cube"]
        assert "Janowski" in found["estimate"] and found["double_pass"] == 1.0
        # the words eval prints are the decisions the nn cube bot plays
        doubles = found["action"] in ("double/take", "double/pass")
        assert cube.offer_double(position, centred) == doubles
        assert (cube.respond(position, centred) == Response.TAKE) == (found["action"] in ("no double", "double/take"))
        assert cube.offer_double(position, owned) == (found["action_owned"] in ("double/take", "double/pass"))
        seen.add(found["action"])
    assert len(seen) >= 3


def test_eval_judge_gnubg_adds_its_cube_analysis(capsys, gnubg):
    position = bearoff_position([0, 0, 0, 0, 2, 1], [0, 0, 0, 0, 1, 2])
    answer = eval_json(capsys, position.position_id, "--judge", "gnubg", "--plies", "0")
    found = answer["gnubg"]
    assert found["plies"] == 0 and found["win"] == pytest.approx(answer["win"], abs=1e-4)
    exact = evaluate(position).cubeful
    assert found["centred"]["no_double"] == pytest.approx(exact.no_double, abs=2e-4)
    assert found["owned"]["no_double"] == pytest.approx(exact.no_double_owned, abs=2e-4)
    assert found["centred"]["category"] == answer["action"]
    assert found["owned"]["proper"].startswith(("Redouble", "No redouble", "Too good to redouble"))


@pytest.mark.parametrize("arguments,message", [
    (["--judge", "xg"], "unknown judge 'xg'"),
    (["--plies", "2"], "it needs --judge gnubg"),
    (["--judge", "gnubg", "--plies", "5"], "--plies must be a whole number from 0 to 4"),
])
def test_eval_bad_judging_is_one_line(capsys, arguments, message):
    from experiments.cli import main

    assert main(["eval", Position.start().position_id, *arguments]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
