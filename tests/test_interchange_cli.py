"""``bgsim export``, ``import``, ``analyse``, ``play --record`` and XGIDs on the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from bgsim import Position
from bgsim.interchange.xgid import xgid_of
from experiments.cli import main

DATA = Path(__file__).parent / "data" / "interchange"


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """A small `bgsim play` file of money games and one of matches (reference engine)."""
    folder = tmp_path_factory.mktemp("played")
    money, matches = folder / "money.parquet", folder / "matches.parquet"
    assert main(["play", "heuristic+pipdiff", "random+pipdiff", "--games", "8", "--seed", "3",
                 "--out", str(money), "--engine", "reference", "--no-progress"]) == 0
    assert main(["play", "heuristic+pipdiff", "racer+keith", "--games", "2", "--seed", "4", "--match-to", "5",
                 "--out", str(matches), "--engine", "reference", "--no-progress"]) == 0
    return money, matches


def _import(path, tmp_path, capsys):
    out = tmp_path / f"{Path(path).stem}.rows.parquet"
    code = main(["import", str(path), "--out", str(out), "--force"])
    captured = capsys.readouterr()
    return code, (pd.read_parquet(out) if out.exists() else None), captured


@pytest.mark.parametrize("fmt", ["mat", "sgf"])
def test_exported_games_import_to_the_played_rows(played, tmp_path, capsys, fmt):
    money, _ = played
    target = tmp_path / f"games.{fmt}"
    assert main(["export", str(money), "--games", "all", "--format", fmt, "--out", str(target)]) == 0
    code, rows, _ = _import(target, tmp_path, capsys)
    assert code == 0
    stored = pd.read_parquet(money)
    moves = rows[rows["action"] == "move"]
    assert rows["game"].nunique() == len(stored)
    assert moves.groupby("game").size().tolist() == stored["plies"].tolist()
    drops = int((stored["result"] == "drop").sum())
    assert (rows["action"] == "double").sum() == stored["doubles"].sum() + drops  # offered: taken or dropped
    assert (rows["action"] == "take").sum() == stored["doubles"].sum()
    assert (rows["action"] == "drop").sum() == drops


def test_export_of_a_selection_and_of_matches_one_file_each(played, tmp_path, capsys):
    _, matches = played
    target = tmp_path / "m.mat"
    assert main(["export", str(matches), "--games", "0-1", "--format", "mat", "--out", str(target)]) == 0
    written = sorted(path.name for path in tmp_path.glob("m-match-*.mat"))
    assert written == ["m-match-0.mat", "m-match-1.mat"]
    stored = pd.read_parquet(matches)
    for number in (0, 1):
        code, rows, _ = _import(tmp_path / f"m-match-{number}.mat", tmp_path, capsys)
        assert code == 0
        games = stored[stored["game"] == number]
        assert rows["game"].nunique() == len(games)
        first = rows.groupby("game").first()
        scores = [(score, other) if player == 0 else (other, score) for score, other, player in
                  zip(first["score"], first["opponent_score"], first["player"])]
        assert scores == list(zip(games["white_score"], games["black_score"]))
        assert first["crawford"].tolist() == games["crawford"].tolist()
    assert main(["export", str(matches), "--games", "1", "--format", "sgf", "--out", str(tmp_path / "one.sgf")]) == 0
    assert (tmp_path / "one.sgf").read_text().count("(;FF[4]") == len(stored[stored["game"] == 1])


def test_export_says_so_when_the_replay_does_not_reproduce_the_row(played, tmp_path, capsys):
    money, _ = played
    frame = pd.read_parquet(money)
    frame.loc[2, "plies"] += 1
    tampered = tmp_path / "tampered.parquet"
    frame.to_parquet(tampered)
    assert main(["export", str(tampered), "--format", "sgf", "--out", str(tmp_path / "t.sgf")]) == 1
    err = capsys.readouterr().err
    assert "game 2: the replay does not reproduce the stored row" in err and "plies" in err


def test_export_refuses_what_the_format_cannot_hold_in_one_line(tmp_path, capsys):
    rows = tmp_path / "auto.parquet"
    assert main(["play", "random+pipdiff", "random+pipdiff", "--games", "12", "--seed", "1", "--out", str(rows),
                 "--engine", "reference", "--automatic-doubles", "1", "--no-progress"]) == 0
    capsys.readouterr()
    target = tmp_path / "auto.mat"
    assert main(["export", str(rows), "--format", "mat", "--out", str(target)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "automatic doubles" in err
    assert not target.exists()
    assert main(["export", str(rows), "--format", "sgf", "--out", str(tmp_path / "auto.sgf")]) == 0


def test_export_help_says_what_each_format_cannot_hold(capsys):
    with pytest.raises(SystemExit):
        main(["export", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert ".mat cannot hold games from a set position" in text and "automatic doubles" in text


def test_export_of_a_run_chooses_one_pairing_and_seating(tmp_path, capsys):
    experiment = tmp_path / "tiny.toml"
    experiment.write_text('name = "tiny"\nplayers = ["heuristic+pipdiff", "random+pipdiff"]\ngames = 2\n'
                          'seed = 2\nchunk = 2\nengine = "reference"\n')
    folder = tmp_path / "run"
    assert main(["run", str(experiment), "--out", str(folder), "--no-progress"]) == 0
    capsys.readouterr()
    assert main(["export", str(folder), "--format", "sgf", "--out", str(tmp_path / "x.sgf")]) == 2
    assert "choose with --pairing and --leg" in capsys.readouterr().err
    for leg in (0, 1):
        target = tmp_path / f"leg{leg}.sgf"
        assert main(["export", str(folder), "--pairing", "0", "--leg", str(leg), "--format", "sgf",
                     "--out", str(target)]) == 0
        names = [part.split("]")[0] for part in target.read_text().split("PW[")[1:2]]
        assert names == [("heuristic+pipdiff", "random+pipdiff")[leg]]


def test_import_of_a_bad_file_reports_lines_keeps_good_games_and_exits_2(tmp_path, capsys):
    text = (DATA / "expected" / "money_session.mat").read_text().replace("41: 24/23 13/9", "41: 24/20 13/9")
    bad = tmp_path / "bad.mat"
    bad.write_text(text)
    code, rows, captured = _import(bad, tmp_path, capsys)
    assert code == 2
    line = next(number for number, row in enumerate(text.splitlines(), 1) if "24/20 13/9" in row)
    assert f"bad.mat:line {line} (game 2)" in captured.err and "not a legal play" in captured.err
    assert set(rows["game"]) == {1}


def test_import_of_an_unknown_format_is_one_line(tmp_path, capsys):
    path = tmp_path / "x.bin"
    path.write_text("nothing here")
    assert main(["import", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unknown format" in err


def test_imported_rows_carry_ids_and_xgids_of_each_decision(tmp_path, capsys):
    code, rows, _ = _import(DATA / "xg_layout.mat", tmp_path, capsys)
    assert code == 0
    first = rows.iloc[0]
    assert first["position_id"] == Position.start().position_id
    assert first["xgid"] == "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:3:10"
    assert set(rows["action"]) == {"move", "double", "take", "drop", "resign"}


def test_play_record_writes_the_games_as_they_were_played(tmp_path, capsys):
    rows, record = tmp_path / "p.parquet", tmp_path / "p.sgf"
    assert main(["play", "racer+pipdiff", "pubeval+keith", "--games", "4", "--seed", "5", "--out", str(rows),
                 "--engine", "reference", "--no-progress", "--record", "sgf", str(record)]) == 0
    code, imported, _ = _import(record, tmp_path, capsys)
    assert code == 0
    stored = pd.read_parquet(rows)
    assert imported[imported["action"] == "move"].groupby("game").size().tolist() == stored["plies"].tolist()


def test_play_record_refuses_a_format_before_playing(tmp_path, capsys):
    rows = tmp_path / "p.parquet"
    assert main(["play", "random", "random", "--games", "2", "--out", str(rows), "--automatic-doubles", "1",
                 "--record", "mat", str(tmp_path / "p.mat")]) == 2
    assert "automatic doubles" in capsys.readouterr().err and not rows.exists()


def test_analyse_reports_error_rates_and_writes_them_beside_the_rows(gnubg, played, capsys):
    money, _ = played
    assert main(["analyse", str(money), "--games", "0-5"]) == 0
    out = capsys.readouterr().out
    assert "heuristic+pipdiff" in out and "random+pipdiff" in out and "mEMG" in out
    summary = pd.read_csv(money.with_suffix("").with_name(money.stem + ".gnubg_analysis.csv"))
    assert summary["games"].tolist() == [6, 6]
    per_game = pd.read_csv(money.with_name(money.stem + ".gnubg_games.csv"))
    assert len(per_game) == 12 and (per_game["unforced_moves"] > 0).all()
    # the random bot errs more than the heuristic one
    rates = dict(zip(summary["player"], summary["checker_rate"]))
    assert rates["random+pipdiff"] > rates["heuristic+pipdiff"]


# --- XGIDs where positions are accepted and shown ----------------------------------------------

XGID_START = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"


def test_show_takes_an_xgid_and_shows_xgids(capsys):
    assert main(["show", "XGID=-b----E-C---eE---c-e----B-:1:1:1:00:3:1:0:7:10"]) == 0
    out = capsys.readouterr().out
    assert "Position ID: 4HPwATDgc/ABMA" in out and "match to 7, side on roll 3, opponent 1" in out
    assert main(["show", "4HPwATDgc/ABMA"]) == 0
    assert XGID_START in capsys.readouterr().out


def test_moves_takes_the_dice_of_an_xgid(capsys):
    assert main(["moves", "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10", "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["roll"] == [3, 1] and answer["xgid"] == XGID_START
    assert "8/5 6/5" in [play["play"] for play in answer["plays"]]


def test_eval_takes_an_xgid(capsys):
    position = Position.from_points({1: 2, 2: 2}, {24: 1, 23: 1, 22: 1})
    assert main(["eval", xgid_of(position), "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["position_id"] == position.position_id and answer["xgid"] == xgid_of(position)


def test_rollout_takes_an_xgid(capsys):
    position = Position.from_points({1: 2, 2: 2}, {24: 1, 23: 1, 22: 1})
    assert main(["rollout", xgid_of(position), "--games", "36", "--player", "racer", "--json", "--no-progress"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["position_id"] == position.position_id and answer["xgid"] == xgid_of(position)


def test_trace_shows_each_turns_xgid(capsys):
    assert main(["trace", "racer+pipdiff", "pubeval+keith", "--seed", "5", "--game", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert XGID_START.replace(":10", ":6") in lines[1]  # the opening, bgsim's cube limit 64
    assert all("XGID=" in line for line in lines[1:-1])


def test_starts_accept_xgids():
    from experiments.running.starts import check_starts

    position = Position.from_points({6: 5, 5: 5}, {1: 3, 2: 3})
    checked = check_starts({"positions": [xgid_of(position), "4HPwATDgc/ABMA"]}, 1, lambda key, problem: ValueError(problem))
    assert checked == {"positions": [position.position_id, "4HPwATDgc/ABMA"]}


def test_the_fast_engines_trace_gives_the_reference_engines_moves():
    """Export replays fast-engine games with the reference engine's play of each canonical rank:
    the records are the reference engine's own traced games, move for move."""
    from bgsim import fast
    from bgsim.cube import Rules
    from bgsim.game import play_game
    from bgsim.match import play_match
    from bots import make_player
    from experiments.analysis.game_export import records_from_trace

    white, black = make_player("heuristic+pipdiff"), make_player("random+keith")
    for number in range(4):
        rows, trace = fast.trace_game(white, black, 9, number, Rules())
        (mine,) = records_from_trace(rows, trace, 9, 0)
        theirs = play_game(white, black, 9, number, Rules(), trace=True)
        assert mine.history == theirs.history and (mine.winner, mine.points) == (theirs.winner, theirs.points)
    rows, trace = fast.trace_game(white, black, 9, 0, Rules(), match_to=5)
    games = play_match(white, black, 9, 0, 5, trace=True).games
    assert [record.history for record in records_from_trace(rows, trace, 9, 5)] == [game.history for game in games]
