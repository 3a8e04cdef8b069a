"""``bgsim play`` and ``bgsim bots`` from the command line."""

from __future__ import annotations

import pandas as pd
import pytest

from bgsim.schema import COLUMNS
from bgsim.series import play_games
from bots import make_player
from experiments import cli
from experiments.analysis.summary import GameTally, summarize_games
from experiments.cli import main
from experiments.running import stream


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


# --- play: streaming, estimates, Ctrl-C ------------------------------------------------------

def test_play_has_a_default_seed_and_says_what_it_will_do(tmp_path, capsys):
    assert cli.main(["play", "random", "random", "--games", "5", "--engine", "reference",
                     "--out", str(tmp_path / "a.parquet")]) == 0
    err = capsys.readouterr().err
    assert "playing 5 games: white random vs black random, seed 1, reference engine" in err
    again = play_games(make_player("random"), make_player("random"), 1, 5, engine="reference")
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "a.parquet"), again)


def test_play_announces_the_first_compile(tmp_path, capsys, monkeypatch, each_run_its_kernels):
    from bgsim.series import play_games_reference

    # Stand-ins for the fast engine (its real compile takes ~20 s): what is tested is the message.
    monkeypatch.setattr(stream, "engine_for", lambda engine, white, black, rules=None: "fast")
    monkeypatch.setattr(stream, "fast_compile_pending", lambda players=(): True)
    monkeypatch.setattr(stream, "play_games",
                        lambda w, b, seed, games, rules, match_to, engine, threads:
                        play_games_reference(w, b, seed, games, rules, match_to))
    assert cli.main(["play", "random", "random", "--games", "2", "--out", str(tmp_path / "c.parquet")]) == 0
    assert "compiling the fast engine for random (first use, ~" in capsys.readouterr().err


def test_ctrl_c_keeps_the_finished_games_of_a_billion_game_play(tmp_path, capsys, monkeypatch):
    import tracemalloc

    out = tmp_path / "huge.parquet"
    monkeypatch.setenv("BGSIM_STOP_AFTER", "2")  # SIGINT to itself after the second batch is written
    # batches of a few games: random play under tracemalloc takes ~0.4 s a game, and what is
    # proved (a second batch appended, memory bounded whatever the count asked) needs no more
    monkeypatch.setattr(stream, "FIRST_BATCH", 2)
    tracemalloc.start()
    try:
        code = cli.main(["play", "random", "random", "--games", "1000000000", "--engine", "reference",
                         "--out", str(out), "--no-progress"])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert code == 130
    err = capsys.readouterr().err
    assert "playing 1,000,000,000 games" in err
    kept = pd.read_parquet(out)
    assert 2 < len(kept) <= 2 + 4  # the first batch of 2, then a second of 2 or 4 appended
    assert f"interrupted after {len(kept):,} of 1,000,000,000 games" in err and str(out) in err
    assert kept["game"].tolist() == list(range(len(kept)))
    pd.testing.assert_frame_equal(kept, play_games(make_player("random"), make_player("random"), 1,
                                                   len(kept), engine="reference"))
    assert peak < 50 * 2**20  # nothing the size of a billion games
    assert not list(tmp_path.glob(".*"))


def test_batches_aim_at_half_a_second():
    from experiments.running.stream import BATCH_SECONDS, MAX_BATCH, next_batch

    assert next_batch(100, 0.01, 1) == 200
    assert next_batch(MAX_BATCH, 0.01, 9) == MAX_BATCH
    assert next_batch(1000, 3.0, 5) == int(1000 * BATCH_SECONDS / 3.0)  # Ctrl-C waits ~0.5 s at most
    assert next_batch(1000, 30.0, 1) == 1000  # the first batch may hold the compile
    assert next_batch(1000, BATCH_SECONDS, 3) == 1000


def test_the_streamed_tally_is_the_summary_of_all_the_rows():
    frame = play_games(make_player("racer+pipdiff"), make_player("random+keith"), 3, 40, engine="reference")
    tally = GameTally()
    for start in range(0, 40, 7):
        tally.add(frame.iloc[start:start + 7])
    whole = summarize_games(frame)
    for key, value in tally.summary().items():
        assert value == pytest.approx(whole[key], rel=1e-9), key


def test_threads_beyond_the_machine_are_capped_out_loud(tmp_path, capsys):
    from experiments.running.machine import cap_threads, thread_limit

    notes = []
    assert cap_threads(999, notes.append) == thread_limit()
    assert notes == [f"--threads 999: this machine runs at most {thread_limit()} threads; using {thread_limit()}"]
    assert cap_threads(1, notes.append) == 1 and len(notes) == 1
    toml = tmp_path / "t.toml"
    toml.write_text('players = ["heuristic", "heuristic+pipdiff"]\ngames = 1\nengine = "fast"\n')
    assert cli.main(["run", str(toml), "--threads", "999", "--out", str(tmp_path / "r"), "--no-progress"]) == 0
    assert "--threads 999: this machine runs at most" in capsys.readouterr().err
