"""The controller against bgsim's own UBGI engine (``bgsim ubgi SPEC``) over real pipes: a
deterministic bot served over UBGI plays the very games it plays in-process, money and match,
cube and takes included, so every position, cube, score and rule reached the engine as the game
loop had it; a seeded random engine gives the same rows one game at a time or side by side."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from bgsim.cube import Rules
from bgsim.series import play_games
from bots import make_player
from bots.ubgi import EngineSpec, UbgiPlayer, close_all, live_processes

ROOT = Path(__file__).resolve().parent.parent
NAMES = ["white", "black", "forfeit_reason"]


def served(spec: str, name: str = "served") -> UbgiPlayer:
    return UbgiPlayer(EngineSpec(name, (sys.executable, "-m", "experiments", "ubgi", spec), cwd=str(ROOT),
                                 start_timeout=120))


@pytest.fixture(autouse=True)
def nothing_left_running():
    yield
    close_all()
    assert live_processes() == []


@pytest.fixture(scope="module")
def heuristic():
    player = served("heuristic+pipdiff(double=2%,redouble=3%,take=20%)")
    player.start()
    yield player
    player.close()


@pytest.mark.parametrize("match_to, rules", [(0, Rules()), (0, Rules(beaver=True, jacoby=True)), (5, Rules())])
def test_a_bot_served_over_ubgi_plays_the_games_it_plays_in_process(heuristic, match_to, rules):
    inside = make_player("heuristic+pipdiff(double=2%,redouble=3%,take=20%)")
    opponent = make_player("pubeval+keith")
    for white, black in ((heuristic, opponent), (opponent, heuristic)):
        over = play_games(white, black, seed=11, games=1, rules=rules, match_to=match_to)
        here = play_games(inside if white is heuristic else white, inside if black is heuristic else black,
                          seed=11, games=1, rules=rules, match_to=match_to)
        assert over.drop(columns=NAMES).equals(here.drop(columns=NAMES))
        assert over["doubles"].sum() > 0 and over["forfeit"].isna().all()
    assert heuristic.identity.take and heuristic.identity.xgid and heuristic.identity.id_name


def test_a_seeded_engine_gives_the_same_rows_one_game_at_a_time_or_side_by_side():
    engine = served("random")
    one = play_games(engine, make_player("random"), seed=4, games=2)
    both = play_games(engine, make_player("random"), seed=4, games=2, threads=2)
    assert one.equals(both) and one["forfeit"].isna().all()
