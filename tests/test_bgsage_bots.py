"""bgsage as a player (``bots/bgsage_bots.py``): its boards are bgsim's, its 1-ply cube answers are
``BgBotAnalyzer.cube_action``'s, and without the package a player says how to install it.

The bot contract tests (``tests/test_bots.py``) play both bgsage bots as they play every bot.
"""

from __future__ import annotations

import builtins
import random

import pytest

from bgsim.board import Position
from bgsim.cube import CubeView, Response
from bgsim.errors import MissingDependency
from bgsim.rules import legal_plays
from bots import make_player

import bgsage as sage  # the test extra installs it

from bgsim.interchange.xgid import Xgid
from bots import bgsage_bots


def walk(seed: int, turns: int) -> list[Position]:
    """Positions of a game of random plays (the side on roll's view), every turn."""
    chooser = random.Random(seed)
    position, seen = Position.start(), []
    for _ in range(turns):
        roll = (chooser.randint(1, 6), chooser.randint(1, 6))
        plays = legal_plays(position, roll)
        if plays:
            position = chooser.choice(plays).result
        if position.finished:
            break
        position = position.turned()
        seen.append(position)
    return seen


POSITIONS = walk(3, 60)


@pytest.mark.bot_rule("checker", "bgsage")
def test_bgsage_plays_the_legal_plays_of_bgsim_on_its_own_board_layout():
    """The opponent's bar is bgsage's positive slot 0 and bgsim's negative one: with checkers on
    both bars, hits and bear-offs, bgsage's moves are bgsim's legal plays, board for board (a
    roll that cannot be played: bgsage lists the board unchanged, bgsim no play)."""
    compared = 0
    for position in POSITIONS[::3]:
        for roll in ((6, 5), (3, 3), (2, 1)):
            ours = sorted(play.result.board for play in legal_plays(position, roll))
            theirs = sorted(bgsage_bots.bgsim_board(board)
                            for board in sage.possible_moves(bgsage_bots.sage_board(position.board), *roll))
            assert theirs == ours or (not ours and theirs == [position.board]), (position.position_id, roll)
            compared += 1
    assert any(position.board[0] or position.board[25] for position in POSITIONS[::3])
    assert compared >= 30


VIEWS = [
    CubeView(1, True, 64, False, False),
    CubeView(2, False, 64, False, False),
    CubeView(1, True, 64, True, True),
    CubeView(1, True, 64, False, False, match_to=7, away=(5, 3)),
    CubeView(2, False, 64, False, False, match_to=9, away=(4, 7)),
]


@pytest.mark.bot_rule("cube", "bgsage")
def test_the_one_ply_cube_answers_are_cube_actions():
    """The quick 1-ply path gives ``BgBotAnalyzer.cube_action``'s double, take and beaver, in
    money (with and without the Jacoby rule and beavers, the cube centred and owned) and at a
    match score."""
    analyzer = bgsage_bots.analyzer(1)
    for position in POSITIONS[4::25]:
        for cube in VIEWS:
            quick = bgsage_bots.cube_answer(position, cube, 1)
            away = {"away1": cube.away[0], "away2": cube.away[1]}
            full = analyzer.cube_action(bgsage_bots.sage_board(position.board), cube.value,
                                        "centered" if cube.centred else "player", jacoby=cube.jacoby,
                                        beaver=cube.beaver_allowed, **away)
            assert (quick.double, quick.take, quick.beaver) == \
                (full.should_double, full.should_take, full.is_beaver and cube.beaver_allowed), \
                (position.position_id, cube)


def test_the_player_plays_bgsages_first_play_at_the_cube_and_score_it_is_told():
    """The checker bot's play is the top of bgsage's own list, in a money game until it is told
    the match score and cube (``see``), then at that score."""
    player = make_player("bgsage")
    analyzer = bgsage_bots.analyzer(1)
    told = Xgid(cube_value=2, cube_owner="opponent", score=(4, 5), match_to=7)
    for position in POSITIONS[1:40:10]:
        plays = legal_plays(position, (5, 2))
        for context, extra in ((None, {}), (told, {"cube_value": 2, "cube_owner": "opponent", "away1": 3,
                                                  "away2": 2})):
            player.checker.see(context)
            chosen = player.choose_play(position, (5, 2), plays, None)
            top = analyzer.checker_play(bgsage_bots.sage_board(position.board), 5, 2, jacoby=False, beaver=False,
                                        **extra).moves[0].board
            assert chosen.result.board == bgsage_bots.bgsim_board(top) or len(plays) == 1


def test_without_bgsage_a_player_says_how_to_install_it(monkeypatch):
    real = builtins.__import__

    def refuse(name, *args, **kwargs):
        if name == "bgsage" or name.startswith("bgsage."):
            raise ImportError("No module named 'bgsage'")
        return real(name, *args, **kwargs)

    bgsage_bots.analyzer.cache_clear()
    monkeypatch.setattr(builtins, "__import__", refuse)
    try:
        with pytest.raises(MissingDependency, match="pip install bgsage"):
            make_player("bgsage").choose_play(Position.start(), (3, 1), legal_plays(Position.start(), (3, 1)), None)
    finally:
        monkeypatch.undo()
        bgsage_bots.analyzer.cache_clear()
