"""The ``exact`` cube bot in the fast engine (``bgsim/fast/exact.py``): the reference's decisions.

Money: in the two-sided table, in one-sided-only bear-offs, in races and contact (the net),
with ``tables=false`` and ``estimate=nn``, Jacoby and beavers.  Match play: the on-demand
recursion equals the full match tables bit for bit, and the decisions equal the reference's in
covered and uncovered positions around the Crawford game.  Then whole games and matches.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from bgsim import bearoff_numbering as numbering
from bgsim.bearoff import database, match
from bgsim.board import Position
from bgsim.cube import CubeView, Response, Rules
from bgsim.fast import exact as fast_exact
from bgsim.fast import seats
from bgsim.fast.sameness import compare_frames, random_positions
from bgsim.met import kernel_arrays
from bgsim.series import play_games
from bots import make_player
from conftest import fast_cube_answers

SPECS = ("exact", "exact(tables=false)", "exact(estimate=nn)", "exact(tables=false,estimate=nn)")
# (away, opponent away, post-Crawford): each builds one full match table in the reference
SCORES = ((3, 2, False), (1, 3, True), (4, 5, False))


@pytest.fixture
def small_match_tables(monkeypatch):
    """Match tables of 5 checkers a side in both engines, not the default 6: the same recursion
    and the same rules in a quarter of the position pairs, so a score's full table in the
    reference (the expectation) costs a fraction; positions of 6 or more checkers are then the
    uncovered ones."""
    monkeypatch.setenv("BGSIM_MATCH_BEAROFF_CHECKERS", "5")


class Fast:
    """The fast kernels of a player's cube bot, packed once (the tables are hundreds of MB)."""

    def __init__(self, player):
        self.packed = seats(player, player)

    def answers(self, position: Position, cube: CubeView) -> tuple[bool, Response]:
        return fast_answers(self.packed, position, cube)


def fast_answers(packed, position: Position, cube: CubeView) -> tuple[bool, Response]:
    """(offers, answer) of the fast kernels of the first cube seat of ``packed``."""
    return fast_cube_answers(packed, position, cube)


def reference_answers(player, position, cube) -> tuple[bool, Response]:
    return player.offer_double(position, cube), player.respond_to_double(position, cube)


def bearoff(own, other) -> Position:
    """Own counts on points 1..6 against the opponent's on its points 1..6."""
    return Position.from_points({point: n for point, n in enumerate(own, 1) if n},
                                {25 - point: n for point, n in enumerate(other, 1) if n})


def random_side(rng, low, high) -> tuple[int, ...]:
    checkers = int(rng.integers(low, high + 1))
    counts = [0] * 6
    for point in rng.integers(0, 6, checkers):
        counts[point] += 1
    return tuple(counts)


def money_views():
    return [CubeView(1, True, 64, False, False), CubeView(2, False, 64, False, False),
            CubeView(1, True, 64, True, False), CubeView(1, True, 64, False, True),
            CubeView(4, False, 64, True, True)]


def money_positions() -> dict[str, list[Position]]:
    rng = np.random.default_rng(12)
    return {
        "two-sided": [bearoff(random_side(rng, 1, 8), random_side(rng, 1, 8)) for _ in range(40)],
        "one-sided": [bearoff(random_side(rng, 9, 15), random_side(rng, 1, 15)) for _ in range(20)]
        + [bearoff(random_side(rng, 1, 8), random_side(rng, 9, 15)) for _ in range(10)],
        "contact and race": [position for position in random_positions(60, seed=4)
                             if position.checkers_off < 15 and position.opponent_checkers_off < 15],
    }


@pytest.mark.parametrize("kind", ["two-sided", "one-sided", "contact and race"])
def test_money_decisions_equal_the_reference(kind):
    positions = money_positions()[kind]
    seen = set()
    for spec in SPECS:
        player = make_player(f"nn+{spec}")
        fast = Fast(player)
        for position in positions:
            for cube in money_views():
                expected = reference_answers(player, position, cube)
                assert fast.answers(position, cube) == expected, (spec, position.position_id, cube)
                seen.add(expected)
    # the positions reach every decision (a beaver too), so a wrong branch cannot hide
    if kind != "one-sided":
        assert {offered for offered, _ in seen} == {False, True}
        assert {answer for _, answer in seen} >= {Response.TAKE, Response.DROP}
    if kind == "two-sided":
        assert Response.BEAVER in {answer for _, answer in seen}


def test_the_two_sided_tables_are_handed_over_only_where_the_decisions_read_them():
    big = database.two_sided().rolls_centred.size

    def sizes(spec):
        packed = seats(make_player(f"nn+{spec}"), make_player("nn+keith"))
        return packed.float64s.size

    with_tables = sizes("exact(score_aware=false)")
    assert with_tables >= 3 * big and with_tables < 4 * big  # centred, owned, opponent owns
    assert sizes("exact") >= 4 * big and sizes("exact") < 5 * big  # and the cubeless win at a score
    assert sizes("exact(tables=false)") < big
    # both cube seats and the bear-off player share the arrays: stored once
    player = make_player("nn(bearoff=true)+exact")
    assert seats(player, player).float64s.size == seats(player, make_player("nn(bearoff=true)+keith")).float64s.size


def _on_demand(own, opponent, value, owner, away, opponent_away, post_crawford):
    arrays = kernel_arrays()
    met = np.concatenate([arrays["met_pre"].ravel(), arrays["met_post"].ravel()])
    checkers = match.default_match_checkers()
    starts, targets, pips = fast_exact.match_successors(checkers)
    win = match.win_table(checkers).ravel()
    return fast_exact.match_cube_values(own, opponent, value, owner == match.CENTRE, away, opponent_away,
                                        post_crawford, met, 0, arrays["met_pre"].size, win, starts,
                                        targets, pips)


@pytest.mark.usefixtures("small_match_tables")
@pytest.mark.parametrize("away, opponent_away, post_crawford", SCORES)
def test_the_on_demand_match_recursion_equals_the_full_tables_bit_for_bit(away, opponent_away, post_crawford):
    rng = np.random.default_rng(away * 100 + opponent_away)
    size = numbering.position_count(match.default_match_checkers())
    may_double = 0
    for _ in range(70):
        own, opponent = (int(n) for n in rng.integers(1, size, 2))
        value = int(rng.choice([1, 2, 4]))
        owner = match.CENTRE if rng.random() < 0.5 else match.ON_ROLL
        score = (away, opponent_away) if rng.random() < 0.5 else (opponent_away, away)
        position = bearoff(database.counts_of(own), database.counts_of(opponent))
        full = match.match_cube(position, value, owner, *score, post_crawford=post_crawford)
        found = _on_demand(own, opponent, value, owner, *score, post_crawford)
        assert found[0] == full.may_double
        if full.may_double:
            may_double += 1
            assert found[1:] == (full.no_double, full.double_take, full.double_pass)  # ==, not approx
    assert may_double >= 20


@pytest.mark.usefixtures("small_match_tables")
@pytest.mark.parametrize("away, opponent_away, post_crawford", SCORES)
def test_match_decisions_equal_the_reference(away, opponent_away, post_crawford):
    rng = np.random.default_rng(away + 10 * opponent_away)
    positions = ([bearoff(random_side(rng, 1, 6), random_side(rng, 1, 6)) for _ in range(25)]
                 + [bearoff(random_side(rng, 7, 8), random_side(rng, 1, 8)) for _ in range(6)]
                 + [bearoff(random_side(rng, 9, 15), random_side(rng, 1, 6)) for _ in range(4)]
                 + random_positions(10, seed=away))
    decisions = set()
    for spec in ("exact", "exact(tables=false)", "exact(estimate=nn)"):
        player = make_player(f"nn+{spec}")
        fast = Fast(player)
        for position in positions:
            if position.checkers_off == 15 or position.opponent_checkers_off == 15:
                continue
            for score in ((away, opponent_away), (opponent_away, away)):
                length = max(score) + 2
                for value, centred in ((1, True), (2, False)):
                    cube = CubeView(value, centred, 64, False, False, match_to=length, away=score,
                                    post_crawford=post_crawford)
                    expected = reference_answers(player, position, cube)
                    assert fast.answers(position, cube) == expected, (spec, position.position_id, cube)
                    decisions.add(expected)
    assert {offered for offered, _ in decisions} == {False, True}
    assert {answer for _, answer in decisions} == {Response.TAKE, Response.DROP}


def _same_games(white, black, games, rules=Rules(), match_to=0):
    white, black = make_player(white), make_player(black)
    reference = play_games(white, black, 23, games, rules, match_to=match_to, engine="reference")
    fast = play_games(white, black, 23, games, rules, match_to=match_to, engine="fast")
    assert compare_frames(reference, fast) is None
    pd.testing.assert_frame_equal(reference, fast)
    return fast


def test_money_games_are_the_reference_games():
    from bgsim.fast import family_of

    assert family_of((make_player("nn+exact"), make_player("nn+keith"))).declared.name == "every_bot_with_exact"
    games = _same_games("nn+exact", "nn+keith", 30)
    assert (games["cube_value"] > 1).any()
    _same_games("nn+keith", "nn+exact(tables=false,estimate=nn)", 12, Rules(jacoby=True, beaver=True))


def test_matches_are_the_reference_matches(monkeypatch):
    games = _same_games("nn+exact", "nn+keith", 3, match_to=5)
    assert (games["cube_value"] > 1).any()
    # an opponent that takes every cube and never doubles leaves exact the cube in close
    # races, so that some of its decisions come from the match tables (counted in the reference)
    exact_decisions = []
    full_tables = match.match_cube

    def counted(*args, **options):
        found = full_tables(*args, **options)
        if found is not None and found.may_double:
            exact_decisions.append(args[3:5])
        return found

    monkeypatch.setattr(match, "match_cube", counted)
    # of matches 0..39 only match 36 reaches such a decision: five matches around it, not forty
    _same_games("nn+exact", "nn+always-take", range(34, 39), match_to=3)
    assert exact_decisions
