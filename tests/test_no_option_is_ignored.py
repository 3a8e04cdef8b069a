"""An option either acts or is refused in one line, before any game (issue 31): cube options
beside --no-cube, a regime of cubes without a cube, a cube bot where no cube is played, --threads
where one core plays, ``--games ''``; and a refusal names a way out the command has."""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest

from experiments import cli

REAL = Path(__file__).parent / "data" / "interchange" / "real"


def refused(capsys, argv: list[str], *words: str) -> str:
    assert cli.main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and err.startswith("bgsim: error: "), err
    for word in words:
        assert word in err, err
    return err


@pytest.fixture(scope="module")
def play_file(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("played") / "games.parquet"
    assert cli.main(["play", "random", "random", "--games", "2", "--engine", "reference", "--out", str(out),
                     "--no-progress"]) == 0
    return out


@pytest.mark.parametrize("option", [["--max-cube", "8"], ["--beaver"], ["--jacoby"], ["--automatic-doubles", "1"]])
def test_a_cube_option_beside_no_cube_is_refused_before_any_game(tmp_path, capsys, option):
    out = tmp_path / "games.parquet"
    refused(capsys, ["play", "racer", "racer", "--no-cube", *option, "--games", "2", "--out", str(out),
                     "--no-progress"], option[0], "--no-cube")
    assert not out.exists()


def test_a_chouettes_regime_of_cubes_without_a_cube_is_refused(tmp_path, capsys):
    out = tmp_path / "session.parquet"
    refused(capsys, ["chouette", "racer", "racer", "racer", "--cubes", "individual", "--no-cube", "--games", "2",
                     "--out", str(out), "--no-progress"], "--cubes", "--no-cube")
    assert not out.exists()


def test_a_chouette_takes_threads_and_no_progress_and_refuses_threads_it_cannot_use(tmp_path, capsys):
    out = tmp_path / "session.parquet"
    refused(capsys, ["chouette", "racer", "racer", "racer", "--games", "2", "--threads", "2", "--out", str(out),
                     "--no-progress"], "--threads")
    assert not out.exists()
    assert cli.main(["chouette", "random", "random", "random", "--games", "1", "--threads", "1", "--out", str(out),
                     "--engine", "reference", "--no-progress"]) == 0
    assert out.exists()


@pytest.mark.parametrize("where", [["--variant", "acey-deucey"], ["--no-cube"]])
def test_a_cube_bot_where_no_cube_is_played_is_refused_naming_it(tmp_path, capsys, where):
    out = tmp_path / "games.parquet"
    refused(capsys, ["play", "racer+pipdiff", "racer", *where, "--games", "2", "--out", str(out), "--no-progress"],
            "racer+pipdiff", "would never be asked")
    assert not out.exists()


def test_import_takes_threads_and_no_progress(tmp_path, capsys):
    out = tmp_path / "rows.parquet"
    assert cli.main(["import", str(REAL / "fibs_taken_up.mat"), "--threads", "2", "--no-progress",
                     "--out", str(out)]) == 0
    assert len(pd.read_parquet(out))


def test_games_given_empty_is_refused_not_read_as_all(tmp_path, capsys, play_file):
    out = tmp_path / "games.sgf"
    refused(capsys, ["export", str(play_file), "--games", "", "--format", "sgf", "--out", str(out)], "--games ''")
    assert not out.exists()


def test_an_export_of_a_play_file_with_several_kinds_of_game_names_games_not_pairing(tmp_path, capsys, play_file):
    # two play files' rows in one (another seed), as a user may join them: no --pairing to choose
    other = tmp_path / "other.parquet"
    assert cli.main(["play", "random", "random", "--games", "2", "--seed", "9", "--engine", "reference",
                     "--out", str(other), "--no-progress"]) == 0
    capsys.readouterr()
    joined = tmp_path / "joined.parquet"
    pd.concat([pd.read_parquet(play_file), pd.read_parquet(other)]).to_parquet(joined)
    err = refused(capsys, ["export", str(joined), "--format", "sgf", "--out", str(tmp_path / "x.sgf")],
                  "with --games")
    assert "--pairing" not in err


def test_analyse_says_how_long_it_will_take_before_gnubg_starts(tmp_path, capsys, gnubg, play_file):
    rows = tmp_path / "games.parquet"
    shutil.copy(play_file, rows)
    assert cli.main(["analyse", str(rows), "--games", "0", "--no-progress"]) == 0
    err = capsys.readouterr().err
    first = next(line for line in err.splitlines() if "analysing" in line)
    assert "about" in first and "at the pace of the committed analyses" in first, err
