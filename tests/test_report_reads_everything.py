"""``bgsim report`` reads every folder and file bgsim writes (issue 23): each is summarised from
its rows, or named in one line with the command that reads it; a damaged file is named."""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest

from bgsim.board import Position
from conftest import one_error_line
from experiments import cli

ROOT = Path(__file__).resolve().parent.parent


def race(own: dict, opponent: dict) -> Position:
    board = [0] * 26
    for point, count in own.items():
        board[point] = count
    for point, count in opponent.items():
        board[25 - point] = -count
    return Position(tuple(board))


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    """One of everything bgsim writes, made small."""
    root = tmp_path_factory.mktemp("written")

    def run(*words):
        assert cli.main(list(words)) == 0, words

    run("play", "random", "random", "--games", "3", "--engine", "reference", "--out", str(root / "play.parquet"),
        "--no-progress")
    run("chouette", "random", "random", "random", "--games", "2", "--out", str(root / "chouette.parquet"),
        "--no-progress")
    shutil.copy(ROOT / "tests" / "data" / "interchange" / "gnubg_match7.mat", root / "match.mat")
    run("import", str(root / "match.mat"), "--out", str(root / "imported.parquet"))
    (root / "tiny.toml").write_text('name = "tiny"\nplayers = ["random+pipdiff", "heuristic+pipdiff"]\n'
                                    'games = 2\nchunk = 1\nengine = "reference"\n')
    run("run", str(root / "tiny.toml"), "--out", str(root / "run"), "--no-progress")
    positions = root / "races.txt"
    positions.write_text(f"{race({6: 3, 5: 2}, {6: 4}).position_id}\n{race({1: 2}, {2: 1, 3: 1}).position_id}\n")
    run("cube-audit", "--players", "keith,thorp", "--from", str(positions), "--out", str(root / "audit"),
        "--no-progress")
    run("cross-check", "--players", "keith", "--positions", "4", "--seed", "3", "--threads", "1",
        "--out", str(root / "cross"), "--no-progress")
    return root


def report(capsys, path) -> tuple[int, str, str]:
    capsys.readouterr()
    code = cli.main(["report", str(path)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("name, words", [
    ("play.parquet", ["3 games, white random vs black random", "a bgsim play output"]),
    ("chouette.parquet", ["2 games of a 3-player chouette", "a bgsim chouette session"]),
    ("imported.parquet", ["the rows of `bgsim import`", "7-point match"]),
    ("run", ["Standings", "Rewrote"]),
    ("run/games.parquet", ["Standings", "Rewrote"]),
    ("run/run.json", ["Standings", "Rewrote"]),
    ("audit", ["cube audit: 12 decisions (2 positions, 2 rules)", "keith", "thorp", "equity lost"]),
    ("audit/decisions.parquet", ["cube audit: 12 decisions", "thorp"]),
    ("cross", ["cross-check: 4 starts", "keith", "A-B"]),
    ("cross/games.parquet", ["cross-check: 4 starts", "keith"]),
])
def test_report_summarises_what_every_command_writes(written, capsys, name, words):
    code, out, err = report(capsys, written / name)
    assert code == 0, err
    for word in words:
        assert word in out, (word, out)


def test_the_audit_report_shows_the_audit_s_own_numbers(written, capsys):
    summary = pd.read_csv(written / "audit" / "summary.csv")
    row = summary[(summary["sample"] == "all") & (summary["bucket"] == "all") & (summary["rule"] == "thorp")].iloc[0]
    _, out, _ = report(capsys, written / "audit")
    assert f"error rate {100 * row.error_rate:6.2f}%" in out and f"{1000 * row.equity_lost:7.2f}" in out


@pytest.mark.parametrize("name, words", [
    ("audit/summary.md", "a summary bgsim wrote"),
    ("audit/positions.txt", "the positions of a cube audit"),
    ("audit/cube_audit.png", "a plot bgsim drew"),
    ("cross/cross_check.csv", "a cross-check's table"),
    ("cross/starts.txt", "the starts of a cross-check"),
    ("match.mat", "`bgsim import` reads it"),
    ("tiny.toml", "`bgsim run` plays it"),
    ("run/payoff_matrix.csv", "a table bgsim wrote"),
])
def test_a_file_without_rows_is_named_with_the_command_that_reads_it(written, capsys, name, words):
    code, out, err = report(capsys, written / name)
    assert code == 2 and not out
    assert err.count("\n") == 1 and words in err and str(written / name) in err


def test_a_chunk_of_an_unfinished_run_says_how_to_finish_it(written, tmp_path, capsys):
    folder = tmp_path / "unfinished"
    shutil.copytree(written / "run", folder)
    (folder / "chunks").mkdir()
    shutil.copy(written / "run" / "games.parquet", folder / "chunks" / "pairing-000-chunk-0000.parquet")
    code, _, err = report(capsys, folder / "chunks" / "pairing-000-chunk-0000.parquet")
    assert code == 2 and "is a chunk of the unfinished run" in err and "--resume" in err


def test_an_unfinished_audit_is_not_called_finished_nor_unread(written, tmp_path, capsys):
    folder = tmp_path / "audit"
    shutil.copytree(written / "audit", folder)
    run = (folder / "run.json").read_text().replace('"status": "finished"', '"status": "running"')
    (folder / "run.json").write_text(run)
    code, _, err = report(capsys, folder)
    assert code == 2 and "holds an unfinished cube-audit run: finish it with bgsim cube-audit" in err
    assert err.count("\n") == 1 and "--resume" in err


@pytest.mark.parametrize("name", ["play.parquet", "audit/decisions.parquet", "run/games.parquet"])
def test_a_damaged_file_is_named(written, tmp_path, capsys, name):
    damaged = tmp_path / Path(name).name
    if "/" in name:  # inside its folder, as bgsim left it
        shutil.copytree(written / Path(name).parent, tmp_path / "copy")
        damaged = tmp_path / "copy" / Path(name).name
    damaged.write_bytes((written / name).read_bytes()[:200])
    code, out, err = report(capsys, damaged)
    assert code == 2 and not out
    assert err.count("\n") == 1 and f"{damaged} is not a Parquet file bgsim can read" in err


def test_a_damaged_run_json_is_named(written, tmp_path, capsys):
    shutil.copytree(written / "cross", tmp_path / "cross")
    (tmp_path / "cross" / "run.json").write_text("{ half")
    code, _, err = report(capsys, tmp_path / "cross")
    assert code == 2 and f"{tmp_path / 'cross' / 'run.json'} is damaged" in err and err.count("\n") == 1


# --- report on a play output -----------------------------------------------------------------

def test_report_on_a_play_output_prints_its_summary(tmp_path, capsys):
    out = tmp_path / "m.parquet"
    assert cli.main(["play", "random", "random", "--games", "3", "--match-to", "3", "--engine", "reference",
                     "--out", str(out), "--no-progress"]) == 0
    printed = capsys.readouterr().out
    assert cli.main(["report", str(out)]) == 0
    again = capsys.readouterr().out
    assert "3 matches to 3 points" in again and "bgsim play output" in again
    assert again.splitlines()[:4] == printed.splitlines()[:4]  # the same summary as play printed
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "games.parquet").write_bytes(out.read_bytes())
    assert cli.main(["report", str(folder)]) == 0
    assert cli.main(["report", str(tmp_path / "nothing")]) == 2
    assert "no such results folder or file" in one_error_line(capsys)
