"""``bgsim play`` and ``bgsim bots`` from the command line."""

from __future__ import annotations

import pandas as pd
import pytest

from bgsim.schema import COLUMNS
from experiments.analysis.summary import GameTally, summarize_games
from experiments.cli import main


def play(tmp_path, *extra, out="games.parquet"):
    return main(["play", "racer+pipdiff", "pubeval+keith", "--games", "12", "--seed", "5",
                 "--out", str(tmp_path / out), "--engine", "reference", *extra])


def test_play_writes_rows_and_prints_the_summary(tmp_path, capsys):
    assert play(tmp_path) == 0
    frame = pd.read_parquet(tmp_path / "games.parquet")
    assert list(frame.columns) == list(COLUMNS)
    assert len(frame) == 12
    assert set(frame["white"]) == {"racer+pipdiff"} and set(frame["black"]) == {"pubeval+keith"}
    out = capsys.readouterr().out
    summary = summarize_games(frame)
    assert f"{summary['white_ppg']:+.3f}" in out
    for words in ("white points per game", "95% CI", "gammons", "backgammons", "drops",
                  "mean final cube", "doubles per game", "wrote 12 rows", "reference engine"):
        assert words in out
    assert not [path for path in tmp_path.iterdir() if path.name != "games.parquet"]  # no temp left


def test_refuses_to_overwrite_without_force(tmp_path, capsys):
    target = tmp_path / "games.parquet"
    target.write_bytes(b"precious")
    assert play(tmp_path) == 2
    assert "exists" in capsys.readouterr().err
    assert target.read_bytes() == b"precious"
    assert play(tmp_path, "--force") == 0
    assert len(pd.read_parquet(target)) == 12


def test_same_seed_same_rows(tmp_path):
    assert play(tmp_path, out="a.parquet") == 0
    assert play(tmp_path, out="b.parquet") == 0
    assert pd.read_parquet(tmp_path / "a.parquet").equals(pd.read_parquet(tmp_path / "b.parquet"))


def test_match_play_prints_matches_won(tmp_path, capsys):
    assert play(tmp_path, "--match-to", "3") == 0
    frame = pd.read_parquet(tmp_path / "games.parquet")
    assert frame["game"].nunique() == 12 and (frame["match_to"] == 3).all()
    tally = GameTally()
    tally.add(frame)
    summary = tally.match_summary()
    assert summary["white_matches"] + summary["black_matches"] == 12
    out = capsys.readouterr().out
    assert "12 matches to 3 points" in out
    assert f"white won {summary['white_matches']}, black won {summary['black_matches']}" in out


def test_match_summary_counts_the_last_game_of_each_match():
    winners = ["black", "white", "black", "white", "black", "black"]
    frame = pd.DataFrame({
        "game": [0, 0, 1, 2, 2, 2],
        "game_in_match": [0, 1, 0, 0, 1, 2],
        "winner": winners,
        "white_points": [1 if winner == "white" else -1 for winner in winners],
        "result": ["single"] * 6, "cube_value": [1] * 6, "doubles": [0] * 6, "plies": [20] * 6,
        "match_to": [3] * 6,
    })
    tally = GameTally()
    tally.add(frame)
    assert tally.match_summary()["white_matches"] == 1
    assert tally.match_summary()["black_matches"] == 2


@pytest.mark.parametrize("argv, words", [
    (["play", "nobot", "random", "--games", "2", "--seed", "1"], "unknown checker bot 'nobot'"),
    (["play", "random+pipdiff(double=-1)", "random", "--games", "2", "--seed", "1"], "cannot be negative"),
    (["play", "random", "random", "--games", "0", "--seed", "1"], "--games must be at least 1"),
    (["play", "random", "random", "--games", "2", "--seed", "-4"], "seed"),
    (["play", "random", "random", "--games", "2", "--seed", "1", "--match-to", "5", "--jacoby"],
     "Jacoby"),
    (["play", "random", "random", "--games", "2", "--seed", "1", "--no-cube", "--beaver"], "cube"),
    (["play", "random", "random", "--games", "2", "--seed", "1", "--max-cube", "3"], "power of two"),
    (["play", "gnubg", "random", "--games", "2", "--seed", "1", "--engine", "fast"], "fast engine"),
])
def test_bad_input_is_one_error_line(tmp_path, capsys, argv, words):
    assert main(argv + ["--out", str(tmp_path / "x.parquet")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("bgsim: error:")
    assert words.lower() in err.lower()
    assert not (tmp_path / "x.parquet").exists()


def test_out_must_be_parquet_in_an_existing_folder(tmp_path, capsys):
    assert main(["play", "random", "random", "--games", "1", "--seed", "1",
                 "--out", str(tmp_path / "rows.csv")]) == 2
    assert main(["play", "random", "random", "--games", "1", "--seed", "1",
                 "--out", str(tmp_path / "missing" / "rows.parquet")]) == 2
    err = capsys.readouterr().err
    assert "Parquet" in err and "does not exist" in err


def test_auto_engine_says_which_engine_played(tmp_path, capsys):
    assert main(["play", "gnubg", "random", "--games", "1", "--seed", "2",
                 "--out", str(tmp_path / "g.parquet")]) == 0
    assert "reference engine" in capsys.readouterr().out  # gnubg never runs in the fast engine


def test_bots_lists_every_bot(capsys):
    assert main(["bots"]) == 0
    out = capsys.readouterr().out
    for name in ("random", "racer", "heuristic", "pubeval", "gnubg", "pipdiff", "keith", "thorp",
                 "always-take", "never-take", "none"):
        assert name in out
    assert "race_only=false" in out and "reference engine only" in out
