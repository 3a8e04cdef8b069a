"""bgsim tournament / run / report on the command line: flags, output, one-line errors."""

import json

import pandas as pd

from conftest import one_error_line
from experiments import cli

PLAYERS = ["heuristic+pipdiff", "heuristic+keith", "heuristic"]


def toml(tmp_path, extra=""):
    path = tmp_path / "tiny.toml"
    players = ", ".join(f'"{p}"' for p in PLAYERS)
    path.write_text(f'# tiny\nplayers = [{players}]\ngames = 50\nseed = 3\nengine = "reference"\n{extra}',
                    encoding="utf-8")
    return path


# `bgsim tournament` without an experiment playing the default one (its rows, standings, printed
# summary and run.json) is test_readme's run of the README's `bgsim tournament`.


def test_run_takes_flags_over_the_file_and_report_rebuilds_from_the_rows(tmp_path, capsys):
    out = tmp_path / "run"
    assert cli.main(["run", str(toml(tmp_path)), "--games", "2", "--seed", "11", "--chunk", "1",
                     "--engine", "fast", "--threads", "1", "--out", str(out), "--no-progress"]) == 0
    frame = pd.read_parquet(out / "games.parquet")
    assert len(frame) == 3 * 2 * 2
    record = json.loads((out / "run.json").read_text())
    assert (record["config"]["games"], record["seed"], record["config"]["threads"], record["config"]["engine"]) == (
        2, 11, 1, "fast")
    summary = (out / "summary.md").read_text()
    (out / "summary.md").unlink()
    capsys.readouterr()
    assert cli.main(["report", str(out)]) == 0
    assert (out / "summary.md").read_text() == summary
    assert "Rewrote" in capsys.readouterr().out


def test_run_finds_shipped_experiments_by_name(tmp_path, capsys):
    assert cli.main(["run", "money_conventions", "--games", "1",
                     "--out", str(tmp_path / "m"), "--no-progress"]) == 0
    assert "Rule conditions compared" in capsys.readouterr().out


def test_errors_are_one_line_and_exit_2(tmp_path, capsys):
    assert cli.main(["run", str(tmp_path / "missing.toml"), "--no-progress"]) == 2
    assert "missing.toml: no such experiment file" in one_error_line(capsys)

    path = toml(tmp_path, 'opponent = "pubeval+wizard"\n')
    assert cli.main(["run", str(path), "--no-progress", "--out", str(tmp_path / "x")]) == 2
    assert "tiny.toml: opponent:" in one_error_line(capsys) and not (tmp_path / "x").exists()

    good = toml(tmp_path)
    assert cli.main(["run", str(good), "--resume", "--force", "--no-progress"]) == 2
    assert "choose one" in one_error_line(capsys)

    assert cli.main(["run", str(good), "--resume", "--out", str(tmp_path / "none"), "--no-progress"]) == 2
    assert "nothing to resume" in one_error_line(capsys)


def test_a_finished_run_is_refused_by_name(tmp_path, capsys):
    out = tmp_path / "run"
    argv = ["run", str(toml(tmp_path)), "--games", "1", "--out", str(out), "--no-progress"]
    assert cli.main(argv) == 0
    before = (out / "games.parquet").stat().st_mtime_ns
    capsys.readouterr()
    assert cli.main(argv) == 2
    assert f"results folder {out} holds a finished run" in one_error_line(capsys)
    assert (out / "games.parquet").stat().st_mtime_ns == before
    assert cli.main(argv + ["--resume"]) == 0  # nothing left to play: says so, touches no row
    assert "nothing left to play" in capsys.readouterr().err
    assert (out / "games.parquet").stat().st_mtime_ns == before


def test_default_folder_and_a_bare_resume_find_the_unfinished_run(tmp_path, monkeypatch, capsys):
    from experiments.running import runner

    monkeypatch.chdir(tmp_path)
    path = toml(tmp_path)
    real, calls = runner.write_table, []

    def full_disk_after_one(frame, target):
        calls.append(target)
        if len(calls) > 1:
            raise OSError(28, "No space left on device")
        real(frame, target)

    monkeypatch.setattr(runner, "write_table", full_disk_after_one)
    assert cli.main(["run", str(path), "--games", "2", "--chunk", "1", "--no-progress"]) == 2
    folders = list((tmp_path / "results" / "runs").glob("tiny-*"))
    assert len(folders) == 1 and len(list((folders[0] / "chunks").glob("*.parquet"))) == 1
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert error.startswith("bgsim: error: cannot write") and "No space left on device" in error
    monkeypatch.undo()
    monkeypatch.chdir(tmp_path)
    assert cli.main(["run", str(path), "--games", "2", "--chunk", "1", "--no-progress", "--resume"]) == 0
    assert "resuming: 1 finished chunks on disk" in capsys.readouterr().err
    assert json.loads((folders[0] / "run.json").read_text())["status"] == "finished"
