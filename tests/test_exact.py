"""The exact cube bot: optimal in the two-sided bear-off database, labelled estimates elsewhere."""

from __future__ import annotations

import random

import pytest

from bgsim import bearoff
from bgsim.board import Position
from bgsim.cube import CubeView, Response
from bots import make_player
from bots.exact import EXACT, NN, ONE_SIDED, cube_equities


def money(centred=True, value=1, beaver=False) -> CubeView:
    return CubeView(value=value, centred=centred, max_cube=64, beaver_allowed=beaver, jacoby=False)


def bearoff_position(own: dict[int, int], other: dict[int, int]) -> Position:
    return Position.from_points(own, {25 - point: n for point, n in other.items()})


def random_bearoff(rng: random.Random, checkers: int) -> dict[int, int]:
    side: dict[int, int] = {}
    for _ in range(rng.randint(1, checkers)):
        point = rng.randint(1, 6)
        side[point] = side.get(point, 0) + 1
    return side


def test_exact_follows_the_two_sided_database():
    rng = random.Random(7)
    player = make_player("racer+exact")
    actions = set()
    for _ in range(60):
        position = bearoff_position(random_bearoff(rng, 8), random_bearoff(rng, 8))
        found = bearoff.evaluate(position)
        assert found.source == "two-sided" and cube_equities(position).source == EXACT
        # bgsim.bearoff's optimal action, read the bot's way; where doubling and not doubling
        # are worth the same (a sure win: both 1) the bot keeps the cube
        equities = cube_equities(position)
        doubles = found.action in ("double/take", "double/pass")
        redoubles = found.action_owned in ("double/take", "double/pass")
        if min(equities.double_take, 1.0) != equities.centred:
            assert player.offer_double(position, money()) is doubles
        if min(equities.double_take, 1.0) != equities.owned:
            assert player.offer_double(position, money(centred=False, value=2)) is redoubles
        drop = found.action in ("double/pass", "too good")
        assert (player.respond_to_double(position, money()) is Response.DROP) is drop
        actions.add(found.action)
    assert {"no double", "double/take", "double/pass"} <= actions


def test_exact_labels_its_estimates():
    in_table = bearoff_position({6: 2, 5: 2, 4: 2}, {1: 1, 2: 2, 3: 2})
    assert cube_equities(in_table).source == EXACT
    assert cube_equities(in_table, tables=False).source == ONE_SIDED
    assert cube_equities(in_table, tables=False, estimate="nn").source == NN
    assert cube_equities(in_table, estimate="nn").source == EXACT
    assert make_player("racer+exact(tables=false)").name == "racer+exact(tables=false)"
    many = bearoff_position({6: 5, 5: 5, 4: 3}, {6: 3, 5: 4})  # 13 checkers: beyond the table
    assert cube_equities(many).source == ONE_SIDED
    assert cube_equities(many).efficiency == 0.6  # GNU Backgammon's rOSCubeX
    assert cube_equities(Position.start()).source == NN and cube_equities(Position.start()).efficiency == 0.68
    # in a race the net's estimate takes GNU Backgammon's 0.55 + 0.00125 x the pips of the side
    # on roll, kept within 0.6 .. 0.7: worked by hand for 86 pips (the opponent has 85), and
    # at both bounds
    race = Position.from_points({6: 5, 5: 4, 4: 3, 8: 3}, {19: 5, 20: 5, 21: 3, 16: 2})
    assert (race.pip_count, race.opponent_pip_count) == (86, 85)
    found = cube_equities(race)
    assert found.source == NN and found.efficiency == pytest.approx(0.6575, abs=1e-12)
    long = Position.from_points({12: 10, 6: 5}, {13: 10, 19: 5})  # 150 pips: 0.7375, kept at 0.7
    short = Position.from_points({7: 1, 1: 2}, {24: 5})  # 9 pips: 0.56125, kept at 0.6
    for position, efficiency in ((long, 0.7), (short, 0.6)):
        assert position.is_race and cube_equities(position).source == NN
        assert cube_equities(position).efficiency == pytest.approx(efficiency, abs=1e-12)


def test_exact_beavers_a_bad_double_where_allowed():
    position = bearoff_position({6: 4, 5: 4}, {1: 2})  # the doubler is far behind
    assert cube_equities(position).double_take < 0
    assert make_player("racer+exact").respond_to_double(position, money(beaver=True)) is Response.BEAVER
    assert make_player("racer+exact").respond_to_double(position, money()) is Response.TAKE


def test_a_bad_estimate_is_a_spec_error():
    from bots import SpecError

    with pytest.raises(SpecError, match="estimate must be best or nn"):
        make_player("racer+exact(estimate=gnubg)")


def match_view(away, opponent_away, value=1, centred=True, post_crawford=False) -> CubeView:
    return CubeView(value=value, centred=centred, max_cube=64, beaver_allowed=False, jacoby=False,
                    match_to=max(away, opponent_away) + 2, away=(away, opponent_away),
                    post_crawford=post_crawford)


def test_exact_at_a_match_score_follows_the_match_tables(monkeypatch):
    from bgsim.bearoff import match

    # tables of 4 checkers a side hold every position below (a nineteenth of the default 6's pairs)
    monkeypatch.setenv("BGSIM_MATCH_BEAROFF_CHECKERS", "4")
    rng = random.Random(12)
    player = make_player("racer+exact")
    checked = differs = 0
    answers = set()  # (doubles?, takes?) answers met: each must occur both ways
    positions = [bearoff_position(random_bearoff(rng, 4), random_bearoff(rng, 4)) for _ in range(40)]
    # score by score: the tables of a score are built once and kept for the last few scores
    for away, opponent_away, value in ((3, 3, 1), (2, 4, 1), (5, 2, 1), (4, 4, 2)):
        for position in positions:
            view = match_view(away, opponent_away, value)
            truth = match.match_cube(position, value, match.CENTRE, away, opponent_away)
            forced = value >= away or value >= opponent_away
            if not forced and truth.double_value() != truth.no_double:
                assert player.offer_double(position, view) is truth.should_double()
                checked += 1
                answers.add(("double", truth.should_double()))
            if truth.double_take != truth.double_pass:
                assert (player.respond_to_double(position, view) is Response.TAKE) is truth.should_take()
                answers.add(("take", truth.should_take()))
            money_double = cube_equities(position).should_double(True)
            differs += money_double != truth.should_double()
    assert checked > 50
    assert answers == {("double", True), ("double", False), ("take", True), ("take", False)}
    assert differs > 0  # the score moves decisions away from money's


@pytest.mark.bot_rule("cube", "exact")
def test_exact_takes_a_dead_cube_and_never_doubles_one():
    player = make_player("racer+exact")
    position = bearoff_position({1: 1}, {6: 3})  # a sure win next roll
    assert player.offer_double(position, match_view(2, 2, value=2)) is False
    assert player.respond_to_double(position, match_view(2, 2, value=2)) is Response.TAKE


def test_exact_post_crawford_uses_the_leaders_free_drop_from_the_tables():
    from bgsim.bearoff import match

    rng = random.Random(4)
    player = make_player("racer+exact")
    answers = set()
    for _ in range(30):
        position = bearoff_position(random_bearoff(rng, 5), random_bearoff(rng, 5))
        trailer_doubles = match_view(2, 1, post_crawford=True)
        assert player.offer_double(position, trailer_doubles)  # the trailer doubles at once
        assert not player.offer_double(position, match_view(1, 2, post_crawford=True))  # the leader never
        truth = match.match_cube(position, 1, match.CENTRE, 2, 1, post_crawford=True)
        # the leader passes (and plays the next game at 1-away/1-away) exactly when that beats
        # taking, by the tables
        answer = player.respond_to_double(position, trailer_doubles)
        if truth.double_take != truth.double_pass:
            assert (answer is Response.TAKE) is truth.should_take()
        answers.add(answer)
    assert answers == {Response.TAKE, Response.DROP}
