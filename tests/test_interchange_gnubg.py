"""GNU Backgammon's program reads what bgsim writes, analyses it, and judges cube decisions.

Every test here runs ``gnubg -t -q`` (Debian's package ``gnubg``; CI installs it): without the
program they fail with the install hint, they do not skip."""

from __future__ import annotations

from pathlib import Path

import pytest

from bgsim.board import Position
from bgsim.cube import Rules
from bgsim.game import play_game
from bgsim.interchange.games import match_from_records
from bgsim.interchange.mat import write_mat
from bgsim.interchange.records import BEAVER, DOUBLE, DROP, ROLL, TAKE
from bgsim.interchange.sgf import write_sgf
from bgsim.interchange.xgid import OPPONENT, Xgid
from bgsim.match import play_match
from conftest import bearoff_position
from experiments.analysis.gnubg_analysis import rating
from experiments.analysis.gnubg_program import (INSTALL_HINT, analyse_games, check_import, count_sgf,
                                                cube_decisions, find_gnubg, parse_statistics, run_sections)

DATA = Path(__file__).parent / "data" / "interchange"


def _counts(match):
    actions = [action for game in match.games for action in game.actions]
    kinds = [action.kind for action in actions]
    return {"games": len(match.games), "moves": kinds.count(ROLL), "doubles": kinds.count(DOUBLE),
            "beavers": kinds.count(BEAVER), "takes": kinds.count(TAKE), "drops": kinds.count(DROP)}


@pytest.fixture(scope="module")
def exports():
    """bgsim's own games: a money session (dropped doubles among them), a match with a Crawford
    game, games with beavers, and money games from set positions."""
    from bots import make_player

    heuristic, random_pipdiff = make_player("heuristic+pipdiff"), make_player("random+pipdiff")
    money = [play_game(heuristic, random_pipdiff, 3, number, Rules(), trace=True) for number in range(12)]
    out = {"money": match_from_records(money, heuristic.name, random_pipdiff.name, Rules())}
    for number in range(40):
        games = play_match(heuristic, random_pipdiff, 8, number, 5, trace=True).games
        if any(game.match.crawford for game in games):
            out["crawford match"] = match_from_records(games, heuristic.name, random_pipdiff.name, Rules(), 5)
            break
    beaverer = make_player("racer+pipdiff(double=2,redouble=3,take=20,beaver=5)")
    opponent = make_player("heuristic+pipdiff(double=4%,redouble=5%,take=25%,beaver=8%)")
    rules = Rules(beaver=True)
    beavered = [record for record in (play_game(beaverer, opponent, 11, number, rules, trace=True)
                                      for number in range(30)) if record.beavers][:4]
    out["beavers"] = match_from_records(beavered, beaverer.name, opponent.name, rules)
    from experiments.running.starts import race_start

    starts = [race_start(5, number, 40, 70) for number in range(3)]
    set_up = [play_game(heuristic, random_pipdiff, 2, number, Rules(), trace=True, start=start)
              for number, start in enumerate(starts)]
    out["set positions"] = match_from_records(set_up, heuristic.name, random_pipdiff.name, Rules(), starts=starts)
    return out


def test_the_exports_hold_what_the_checks_ask_for(exports):
    money = _counts(exports["money"])
    assert money["drops"] > 0 and money["takes"] > 0
    assert any(game.crawford for game in exports["crawford match"].games)
    assert _counts(exports["beavers"])["beavers"] > 0


@pytest.mark.parametrize("name", ["money", "crawford match", "beavers", "set positions"])
@pytest.mark.parametrize("fmt", ["mat", "sgf"])
def test_gnubg_imports_bgsims_exports_with_the_same_games_moves_and_cube_actions(gnubg, exports, tmp_path, name, fmt):
    match = exports[name]
    if fmt == "mat" and name == "set positions":
        return  # a .mat file cannot hold them: refused by the writer (test_interchange_files)
    path = tmp_path / f"export.{fmt}"
    path.write_text(write_mat(match) if fmt == "mat" else write_sgf(match))
    checked = check_import(path)
    mine = _counts(match)
    assert checked.complaints == []
    assert (checked.counts.games, checked.counts.moves) == (mine["games"], mine["moves"])
    # gnubg's own save writes a beaver as a second double, as bgsim's SGF does
    assert checked.counts.doubles == mine["doubles"] + mine["beavers"]
    assert (checked.counts.takes, checked.counts.drops) == (mine["takes"], mine["drops"])
    # and its analysis ran over all of it
    players = checked.statistics
    assert sum(player.total_moves for player in players) == mine["moves"]
    assert sum(player.doubles for player in players) == mine["doubles"]
    assert sum(player.passes for player in players) == mine["drops"]


def test_gnubg_sets_up_bgsims_positions_as_bgsim_wrote_them(gnubg, exports, tmp_path):
    path, saved = tmp_path / "set.sgf", tmp_path / "saved.sgf"
    text = write_sgf(exports["set positions"])
    path.write_text(text)
    run_sections([[f"load match {path}", f"save match {saved}"]])
    import re

    def boards(sgf):
        return [(sorted(re.findall(r"\[(.)\]", white)), sorted(re.findall(r"\[(.)\]", black)))
                for white, black in re.findall(r";PL\[W\]AE\[a:y\]AW((?:\[.\])*)AB((?:\[.\])*)", sgf)]

    assert boards(saved.read_text()) == boards(text) and len(boards(text)) == 3


def test_gnubgs_analysis_of_its_own_zero_ply_games_at_zero_ply_finds_no_checker_error(gnubg):
    """The fixture match was played by gnubg 0-ply against itself: its analysis at 0-ply must
    agree with every one of its plays (an independent check of the whole pipeline)."""
    per_game, _ = analyse_games(DATA / "gnubg_match7.sgf", 6, plies=0)
    assert len(per_game) == 6
    for game in per_game:
        for player in game:
            assert player.checker_error == 0.0 and player.unforced_moves > 0


def test_per_game_statistics_add_up_to_gnubgs_match_statistics_and_its_words(gnubg, exports, tmp_path):
    path = tmp_path / "money.sgf"
    match = exports["money"]
    path.write_text(write_sgf(match))
    per_game, _ = analyse_games(path, len(match.games), plies=0)
    whole = check_import(path).statistics
    for side in (0, 1):
        assert sum(game[side].unforced_moves for game in per_game) == whole[side].unforced_moves
        assert sum(game[side].checker_error for game in per_game) == pytest.approx(whole[side].checker_error, abs=1e-3)
        assert sum(game[side].cube_decisions for game in per_game) == whole[side].cube_decisions
    # bgsim's words for a rate are gnubg's, away from the edges its rounding could blur
    thresholds = (2, 5, 8, 12, 18, 26, 35)
    checked = 0
    for game in per_game:
        for player in game:
            if player.unforced_moves and player.checker_rating:
                rate = 1000 * player.checker_error / player.unforced_moves
                if min(abs(rate - edge) for edge in thresholds) > 0.05:
                    assert rating(rate) == player.checker_rating
                    checked += 1
    assert checked >= 10


BEAROFFS = [
    # (own on points 1..6, opponent on its 1..6): a clear double/pass, a no double, a double/take
    ([2, 2, 0, 0, 0, 0], [0, 0, 1, 1, 1, 0]),
    ([0, 0, 0, 1, 1, 1], [1, 1, 0, 0, 0, 0]),
    ([0, 0, 0, 0, 2, 1], [0, 0, 0, 0, 1, 2]),
    ([1, 1, 1, 1, 0, 0], [0, 1, 1, 1, 1, 0]),
]


def test_cube_decisions_of_bearoffs_match_bgsims_exact_tables(gnubg):
    from bgsim.bearoff import evaluate

    positions = [bearoff_position(own, opponent) for own, opponent in BEAROFFS]
    answers = cube_decisions([Xgid(position=position) for position in positions], plies=0)
    for position, answer in zip(positions, answers):
        exact = evaluate(position)
        # gnubg keeps bear-off chances in 16 bits (1/65535)
        assert answer.chances[0] == pytest.approx(exact.probabilities[0], abs=1e-4), position.position_id
        assert answer.chances[1:] == (0.0, 0.0, 0.0, 0.0)
        assert answer.cubeless == pytest.approx(exact.equity, abs=2e-4)
        assert answer.action == exact.action, position.position_id
        assert answer.double_pass == 1.0


def test_cube_decisions_at_a_score_and_where_the_side_on_roll_cannot_double(gnubg):
    start = Position.start()
    owned = Xgid(position=start, cube_value=2, cube_owner=OPPONENT, match_to=7, score=(3, 1))
    crawford = Xgid(position=start, match_to=7, score=(6, 4), crawford=True)
    opening = Xgid(position=start, match_to=7, score=(3, 1))
    answers = cube_decisions([owned, crawford, opening], plies=0)
    assert [answer.action for answer in answers[:2]] == ["cannot double", "cannot double"]
    assert answers[2].action == "no double"
    assert answers[2].double_take < answers[2].no_double < answers[2].double_pass
    # the same position, the same chances however the cube stands
    assert answers[0].chances == answers[2].chances


def test_statistics_are_read_from_gnubgs_own_layout():
    text = (DATA / "gnubg_statistics.txt").read_text()
    first, second = parse_statistics(text)
    assert (first.total_moves, first.unforced_moves, second.unforced_moves) == (77, 56, 74)
    assert (first.doubles, first.takes, second.passes) == (3, 3, 2)
    assert (first.checker_rating, second.cube_rating) == ("Supernatural", "Supernatural")


def test_a_missing_program_says_how_to_install_it(monkeypatch):
    from experiments.errors import MissingDependency
    import bots.gnubg_process as program

    monkeypatch.setattr(program.shutil, "which", lambda name: None)
    monkeypatch.setattr(program, "DEBIAN_PATH", "/nonexistent/gnubg")
    with pytest.raises(MissingDependency, match="apt-get install gnubg"):
        find_gnubg()
    assert "apt-get install gnubg" in INSTALL_HINT
