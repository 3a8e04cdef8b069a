"""Games from a given position instead of the opening: the same in both engines, game for game,
with the first rolls given and the dice mirrored as rollouts play them; clear errors otherwise."""

from __future__ import annotations

import numpy as np
import pytest

from bgsim import Position
from bgsim.cube import Rules
from bgsim.decisions import RandomPlayer
from bgsim.fast import trace_game
from bgsim.fast.sameness import compare_frames, start_case
from bgsim.series import play_games
from bots import make_player


@pytest.mark.parametrize("white, black, given", [
    ("random", "random", True),
    ("heuristic+pipdiff(double=2,redouble=3,take=20)", "pubeval+pipdiff", True),  # the cube on the first turn
    ("heuristic+pipdiff", "racer+keith", False),
])
def test_games_from_positions_are_the_same_in_both_engines(white, black, given):
    white, black = make_player(white), make_player(black)
    options = start_case(40, seed=5, given=given)
    count = len(options["start"])
    assert count >= 35
    fast = play_games(white, black, 9, count, engine="fast", **options)
    reference = play_games(white, black, 9, count, engine="reference", **options)
    assert compare_frames(reference, fast) is None
    assert len(fast) == count


def test_a_game_starts_with_the_given_position_and_rolls_and_mirrors_the_rest():
    player = RandomPlayer()
    position = Position.start()
    rolls = [(6, 5), (2, 2)]
    _, plain = trace_game(player, player, 3, 0, Rules(cube=False), start=position, rolls=rolls)
    _, mirrored = trace_game(player, player, 3, 0, Rules(cube=False), start=position, rolls=rolls,
                             mirror=True)
    assert tuple(plain[0, 8:34]) == position.board  # white on roll, before its roll, from the position
    assert [tuple(row[4:6]) for row in plain[:2]] == rolls == [tuple(row[4:6]) for row in mirrored[:2]]
    # after the given rolls both read the same stream, one as 7 - d
    assert (mirrored[2:12, 4:6] == 7 - plain[2:12, 4:6]).all()
    assert (plain[:, 2][:4] == [0, 1, 0, 1]).all()


def test_opening_games_are_unchanged_by_an_empty_start():
    # no start is the opening: the reference engine's opening games (its loop never reads a
    # start), and not the games of the starting position given as a start, which skip the
    # opening throw (white on roll with a fresh roll, doubles possible)
    player = make_player("heuristic")
    opening = play_games(player, player, 4, 12, engine="reference")
    assert compare_frames(opening, play_games(player, player, 4, 12, engine="fast", start=None)) is None
    given = play_games(player, player, 4, 12, engine="fast", start=Position.start())
    assert compare_frames(opening, given) is not None


@pytest.mark.parametrize("kwargs, message", [
    ({"start": Position(tuple([0] * 19 + [-3] + [0] * 6))}, "finished game"),
    ({"rolls": [(1, 2)]}, "starts from a position"),
    ({"start": Position.start(), "rolls": [(0, 2)]}, "1 to 6"),
    ({"start": [Position.start()] * 3}, "3 start positions for 5 games"),
    ({"start": np.zeros((5, 25), dtype=np.int8)}, "shape"),
])
@pytest.mark.parametrize("engine", ["fast", "reference"])
def test_bad_starts_are_one_clear_error(kwargs, message, engine):
    player = make_player("random")
    with pytest.raises(ValueError, match=message):
        play_games(player, player, 1, 5, engine=engine, **kwargs)


def test_a_start_is_a_money_game():
    player = make_player("random")
    for engine in ("fast", "reference"):
        with pytest.raises(ValueError, match="cannot be part of a match"):
            play_games(player, player, 1, 2, match_to=3, engine=engine, start=Position.start())
