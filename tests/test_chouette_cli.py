"""``bgsim chouette`` from the command line, and the session summary (batch means)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from bgsim.chouette_sessions import play_chouettes
from bgsim.cube import Rules
from bgsim.schema import CHOUETTE_COLUMNS, CHOUETTE_DTYPES
from bots import make_player
from experiments.analysis import chouette as analysis
from experiments.analysis.chouette import BatchMeans, ChouetteTally, summarize_chouette
from experiments.cli import main

SPECS = ["racer+pipdiff", "random+keith", "random+pipdiff(double=2%,take=20%)"]


def chouette(tmp_path, *extra, specs=SPECS, out="rows.parquet"):
    return main(["chouette", *specs, "--games", "10", "--seed", "4", "--out", str(tmp_path / out),
                 "--no-progress", *extra])


def test_chouette_writes_one_row_per_game_and_player_and_prints_the_summary(tmp_path, capsys):
    assert chouette(tmp_path, "--cubes", "individual", "--jacoby") == 0
    frame = pd.read_parquet(tmp_path / "rows.parquet")
    assert list(frame.columns) == list(CHOUETTE_COLUMNS)
    expected = play_chouettes([make_player(spec) for spec in SPECS], 4, 10, Rules(jacoby=True), "individual")
    pd.testing.assert_frame_equal(frame.astype(CHOUETTE_DTYPES), expected)
    out = capsys.readouterr().out
    summary = summarize_chouette(frame)
    for row in summary["players"].itertuples():
        assert f"{row.ppg:+.3f}" in out
    for words in ("10 games of a 3-player chouette, individual cubes", "box", "captain",
                  "team (per member)", "wrote 30 rows", "fast engine"):
        assert words in out
    assert not [path for path in tmp_path.iterdir() if path.name != "rows.parquet"]


def test_both_engines_write_the_same_rows_and_auto_plays_built_in_bots_fast(tmp_path, capsys):
    assert chouette(tmp_path, "--engine", "fast", "--beaver", out="fast.parquet") == 0
    assert "(fast engine" in capsys.readouterr().out
    assert chouette(tmp_path, "--engine", "reference", "--beaver", out="reference.parquet") == 0
    assert "(reference engine" in capsys.readouterr().out
    assert chouette(tmp_path, "--beaver", out="auto.parquet") == 0
    assert "(fast engine" in capsys.readouterr().out
    fast = pd.read_parquet(tmp_path / "fast.parquet")
    pd.testing.assert_frame_equal(fast, pd.read_parquet(tmp_path / "reference.parquet"))
    pd.testing.assert_frame_equal(fast, pd.read_parquet(tmp_path / "auto.parquet"))
    assert fast["doubles_offered"].sum() > 0


def test_the_team_regime_is_the_default(tmp_path):
    assert chouette(tmp_path) == 0
    assert set(pd.read_parquet(tmp_path / "rows.parquet")["rule_chouette_cubes"]) == {"team"}


@pytest.mark.parametrize("specs, extra, words", [
    (SPECS[:2], [], "a chouette has 3 to 10 players, got 2"),
    (SPECS * 4, [], "a chouette has 3 to 10 players, got 12"),
    (SPECS, ["--cubes", "mixed"], "unknown chouette cube regime 'mixed'"),
    (SPECS, ["--match-to", "5"], "a chouette is money play"),
    (["racer+gnubg", *SPECS[1:]], ["--engine", "fast"], "cube bot 'gnubg' cannot run in the fast engine"),
    (SPECS, ["--engine", "quick"], "unknown engine 'quick'"),
    (["nobot", *SPECS[1:]], [], "unknown checker bot 'nobot'"),
    (["random+nocube", *SPECS[1:]], [], "unknown cube bot 'nocube'"),
    (SPECS, ["--games", "0"], "--games must be at least 1"),
    (SPECS, ["--max-cube", "3"], "power of two"),
    (SPECS, ["--no-cube", "--beaver"], "cube"),
])
def test_bad_input_is_one_error_line_and_nothing_written(tmp_path, capsys, specs, extra, words):
    assert chouette(tmp_path, *extra, specs=specs) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("bgsim: error:")
    assert words.lower() in err.lower()
    assert list(tmp_path.iterdir()) == []


def test_refuses_to_overwrite_without_force(tmp_path, capsys):
    target = tmp_path / "rows.parquet"
    target.write_bytes(b"precious")
    assert chouette(tmp_path) == 2
    assert "exists" in capsys.readouterr().err and target.read_bytes() == b"precious"


def test_ctrl_c_keeps_the_finished_games(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("BGSIM_STOP_AFTER", "1")  # SIGINT once the first batch is written
    out = tmp_path / "long.parquet"
    code = main(["chouette", "random", "random", "random", "--games", "100000", "--seed", "2",
                 "--out", str(out), "--no-progress"])
    assert code == 130
    kept = pd.read_parquet(out)
    games = kept["game"].nunique()
    assert 0 < games < 100000 and len(kept) == 3 * games
    assert f"interrupted after {games:,} of 100,000 games" in capsys.readouterr().err
    expected = play_chouettes([make_player("random")] * 3, 2, games)
    pd.testing.assert_frame_equal(kept.astype(CHOUETTE_DTYPES), expected)
    assert not list(tmp_path.glob(".*"))


# --- batch means ----------------------------------------------------------------------------

def test_with_few_games_each_game_is_a_batch_and_the_interval_is_students():
    batches = BatchMeans(1)
    batches.add([[1.0], [2.0], [3.0], [6.0]])
    mean, half, count = batches.intervals()
    # mean 3, sample sd sqrt(14/3), t(3) = 3.182: 3.182 * sqrt(14/3) / 2
    assert count == 4 and mean[0] == 3.0
    assert half[0] == pytest.approx(3.182 * math.sqrt(14 / 3) / 2)


def test_batches_double_in_size_to_stay_within_the_limit(monkeypatch):
    monkeypatch.setattr(analysis, "MAX_BATCHES", 2)
    batches = BatchMeans(1)
    batches.add([[1.0], [2.0]])
    batches.add([[3.0]])  # three games: batches of 2, [1, 2] and [3]
    mean, half, count = batches.intervals()
    assert (batches.size, count, mean[0]) == (2, 2, 2.0)
    # batch means 1.5 and 3 weighted 2/3 and 1/3: 2 * ((2/3)**2 * 0.25 + (1/3)**2 * 1) = 4/9
    assert half[0] == pytest.approx(12.706 * 2 / 3)


def test_a_batch_fewer_than_two_has_no_interval():
    batches = BatchMeans(2)
    batches.add([[1.0, -1.0]])
    mean, half, count = batches.intervals()
    assert count == 1 and list(mean) == [1.0, -1.0] and np.isnan(half).all()


def test_the_tally_taken_in_pieces_is_the_summary_of_the_whole():
    players = [make_player(spec) for spec in ("racer+pipdiff", "random+keith", "random", "racer")]
    frame = play_chouettes(players, 8, 40)
    tally = ChouetteTally()
    for start in range(0, 40, 7):
        tally.add(frame[frame["game"].between(start, start + 6)])
    pieces, whole = tally.summary(), summarize_chouette(frame)
    pd.testing.assert_frame_equal(pieces["players"], whole["players"])
    pd.testing.assert_frame_equal(pieces["seats"], whole["seats"])
    assert (whole["games"], whole["batches"], whole["batch_size"]) == (40, 20, 2)
    assert whole["unbalanced_games"] == 0


def test_the_summary_averages_each_player_and_each_seat_by_hand():
    # two games of three players; game 0 box P1 (+2), captain P0 (-1), team P2 (-1);
    # game 1 box P0 (-4), captain P2 (+2), team P1 (+2)
    rows = pd.DataFrame({
        "game": [0, 0, 0, 1, 1, 1], "player": [1, 0, 2, 0, 2, 1], "place": [0, 1, 2, 0, 1, 2],
        "seat": pd.Categorical(["box", "captain", "team"] * 2, categories=["box", "captain", "team"]),
        "spec": ["b", "a", "c", "a", "c", "b"], "players": 3, "points": [2, -1, -1, -4, 2, 2],
        **{column: 0 for column in analysis.COUNTED},
    })
    summary = summarize_chouette(rows)
    players = summary["players"].set_index("player")
    assert list(players["ppg"]) == [-2.5, 2.0, 0.5] and list(players["spec"]) == ["a", "b", "c"]
    assert list(players["box_share"]) == [0.5, 0.5, 0.0]
    assert list(summary["seats"]["ppg"]) == [-1.0, 0.5, 0.5]
    # player 0: -1 then -4, one game a batch: sd sqrt(4.5), t(1) * sd / sqrt(2) = 12.706 * 1.5
    assert players.loc[0, "ppg_ci"] == pytest.approx(12.706 * 1.5)


def test_the_team_seat_is_the_mean_of_its_members_in_each_game():
    rows = pd.DataFrame({
        "game": [0] * 4, "player": [0, 1, 2, 3], "place": [0, 1, 2, 3],
        "seat": pd.Categorical(["box", "captain", "team", "team"], categories=["box", "captain", "team"]),
        "spec": list("abcd"), "players": 4, "points": [-3, 1, 4, -2],
        **{column: 0 for column in analysis.COUNTED},
    })
    assert list(summarize_chouette(rows)["seats"]["ppg"]) == [-3.0, 1.0, 1.0]
