"""The two-sided bear-off database at a match score, against a plain recursion written from
the rules (bgsim.rules.legal_plays on whole positions, the match equity table at the end)."""

from __future__ import annotations

import random
from functools import lru_cache

import pytest

from bgsim import met
from bgsim.bearoff import match
from bgsim.board import Position
from bgsim.rules import legal_plays

from conftest import bearoff_position

ROLLS = [(d1, d2) for d1 in range(1, 7) for d2 in range(1, d1 + 1)]
SWAP = {match.CENTRE: match.CENTRE, match.ON_ROLL: match.OPPONENT, match.OPPONENT: match.ON_ROLL}


def after_game(away, opponent_away, post_crawford):
    return met.published().equity(away, opponent_away, post_crawford)


@lru_cache(maxsize=None)
def before_cube(position_id, away, opponent_away, cube, owner, post):
    """MWC of the side on roll before its cube decision, perfect play, by brute force."""
    no_double = rolling(position_id, away, opponent_away, cube, owner, post)
    if owner == match.OPPONENT or cube >= max(away, opponent_away):
        return no_double
    take = rolling(position_id, away, opponent_away, 2 * cube, match.OPPONENT, post)
    cash = after_game(away - cube, opponent_away, post)
    return max(no_double, min(take, cash))


@lru_cache(maxsize=None)
def plays_after_each_roll(position_id):
    """For each roll: (its weight in 36, each legal play's (game won, result from the opponent's
    side)); the same at every score, cube and owner, so the rules are asked once a position."""
    position = Position.from_position_id(position_id)
    return [(1.0 if d1 == d2 else 2.0,
             [(play.result.checkers_off == 15, play.result.turned().position_id)
              for play in legal_plays(position, (d1, d2))])
            for d1, d2 in ROLLS]


@lru_cache(maxsize=None)
def rolling(position_id, away, opponent_away, cube, owner, post):
    total = 0.0
    for weight, plays in plays_after_each_roll(position_id):
        best = -1.0
        for won, turned_id in plays:
            if won:
                value = after_game(away - cube, opponent_away, post)
            else:
                value = 1.0 - before_cube(turned_id, opponent_away, away, cube, SWAP[owner], post)
            best = max(best, value)
        total += weight * best
    return total / 36.0


def small_side(rng, checkers):
    """Counts on points 1..6 of 1 to ``checkers`` checkers."""
    side = [0] * 6
    for _ in range(rng.randint(1, checkers)):
        side[rng.randint(0, 5)] += 1
    return side


SCORES = [(2, 2, False), (2, 5, False), (1, 3, True), (4, 1, True)]
SMALL = 4  # checkers a side of the tables where a rule does not depend on their size


@pytest.mark.parametrize("away,opponent_away,post", SCORES)
def test_match_tables_equal_a_plain_recursion_over_the_rules(away, opponent_away, post):
    rng = random.Random(away * 100 + opponent_away)
    for _ in range(4):
        position = bearoff_position(small_side(rng, 3), small_side(rng, 2))
        for cube in (1, 2, 4):
            for owner in match.OWNERS:
                # tables of 3 checkers a side: every position of the recursion, and quick
                found = match.match_cube(position, cube, owner, away, opponent_away, post_crawford=post,
                                         checkers=3)
                expected_roll = rolling(position.position_id, away, opponent_away, cube, owner, post)
                assert found.no_double == pytest.approx(expected_roll, abs=1e-12)
                expected = before_cube(position.position_id, away, opponent_away, cube, owner, post)
                assert found.value == pytest.approx(expected, abs=1e-12)
                if found.may_double:
                    assert found.double_pass == after_game(away - cube, opponent_away, post)


def test_the_crawford_game_has_no_cube_and_plays_for_the_game():
    position = bearoff_position([2, 0, 1, 0, 0, 0], [0, 2, 0, 0, 0, 0])
    found = match.match_cube(position, 1, match.CENTRE, 1, 4, crawford=True)
    assert not found.may_double
    win = found.cubeless_win
    expected = win * 1.0 + (1.0 - win) * after_game(1, 3, True)
    assert found.no_double == pytest.approx(expected, abs=1e-15)


def test_double_match_point_is_the_cubeless_chance():
    rng = random.Random(3)
    for _ in range(20):
        position = bearoff_position(small_side(rng, 6), small_side(rng, 6))
        found = match.match_cube(position, 1, match.CENTRE, 1, 1, post_crawford=True)
        assert found.value == pytest.approx(found.cubeless_win, abs=1e-12)


def test_post_crawford_leader_never_gains_by_doubling_and_the_trailer_never_loses():
    rng = random.Random(5)
    for _ in range(40):
        # tables of 4 checkers a side (SMALL): the same recursion as the default 6's, a 19th of the pairs
        position = bearoff_position(small_side(rng, SMALL), small_side(rng, SMALL))
        leader = match.match_cube(position, 1, match.CENTRE, 1, 4, post_crawford=True, checkers=SMALL)
        assert not leader.should_double()
        trailer = match.match_cube(position, 1, match.CENTRE, 4, 1, post_crawford=True, checkers=SMALL)
        assert trailer.double_value() >= trailer.no_double - 1e-12


def test_values_are_match_winning_chances_and_the_score_pairs_agree():
    rng = random.Random(11)
    for _ in range(30):
        position = bearoff_position(small_side(rng, SMALL), small_side(rng, SMALL))
        for owner in match.OWNERS:
            found = match.match_cube(position, 2, owner, 3, 7, checkers=SMALL)
            assert 0.0 <= found.no_double <= 1.0
        # the same score seen from the other side comes from the same tables, other orientation
        mine = match.match_cube(position, 1, match.CENTRE, 3, 7, checkers=SMALL)
        theirs = match.match_cube(position, 1, match.CENTRE, 7, 3, checkers=SMALL)
        assert mine is not None and theirs is not None


def test_positions_outside_the_tables_are_none_and_bad_input_is_named():
    assert match.match_cube(Position.start(), 1, match.CENTRE, 3, 3) is None
    seven = bearoff_position([7, 0, 0, 0, 0, 0], [2, 0, 0, 0, 0, 0])
    assert match.match_cube(seven, 1, match.CENTRE, 3, 3) is None
    position = bearoff_position([2, 0, 0, 0, 0, 0], [2, 0, 0, 0, 0, 0])
    assert match.match_cube(position, 1, match.CENTRE, 3, 30) is None
    with pytest.raises(ValueError, match="owner"):
        match.match_cube(position, 1, "white", 3, 3)
    with pytest.raises(ValueError, match="power of two"):
        match.match_cube(position, 3, match.CENTRE, 3, 3)
    with pytest.raises(ValueError, match="away"):
        match.match_tables(0, 3)
