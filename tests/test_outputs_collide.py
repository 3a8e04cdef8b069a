"""Outputs that cannot collide (issue 23): an output being written is claimed, a second writer
gets one clear line and changes nothing, the first finishes intact, and a writer killed
mid-write leaves nothing unreadable and nothing that blocks the next run.

The first writer is a separate process that stops itself at a known point
(``BGSIM_STOP_AFTER=K:SIGSTOP``, after its K-th batch or chunk is written); the test waits for
it to be stopped (``waitpid`` with ``WUNTRACED``), runs the second writer, then lets the first
go on (SIGCONT).  No sleeps, no races.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from bgsim import settings
from bgsim.series import play_games
from bots import make_player
from conftest import one_error_line
from experiments import cli
from experiments.running.files import claim, claim_name

ROOT = Path(__file__).resolve().parent.parent
TINY = 'name = "tiny"\nplayers = ["random+pipdiff", "heuristic+pipdiff"]\ngames = 6\nchunk = 1\nengine = "reference"\n'


def start(words: list[str], stop_after: str, cwd: Path) -> subprocess.Popen:
    """``bgsim WORDS`` in its own process, which stops itself as ``BGSIM_STOP_AFTER`` says."""
    env = settings.environment(**{settings.STOP_AFTER.name: stop_after})
    return subprocess.Popen([sys.executable, "-m", "experiments", *words], cwd=cwd, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_stopped(process: subprocess.Popen) -> None:
    _, status = os.waitpid(process.pid, os.WUNTRACED)
    assert os.WIFSTOPPED(status), f"the first writer ended before its stop ({status})"


def go_on(process: subprocess.Popen) -> tuple[int, str, str]:
    os.kill(process.pid, signal.SIGCONT)
    out, err = process.communicate(timeout=600)
    return process.returncode, out, err


def hidden(folder: Path) -> list[str]:
    return sorted(path.name for path in folder.iterdir() if path.name.startswith("."))


def test_two_plays_with_the_same_out_the_second_refused_the_first_intact(tmp_path, capsys):
    out = tmp_path / "same.parquet"
    words = ["play", "random", "random", "--games", "34", "--engine", "reference", "--out", str(out), "--no-progress"]
    first = start(words, "1:SIGSTOP", tmp_path)  # stopped with its first batch written
    try:
        wait_stopped(first)
        assert hidden(tmp_path) == sorted([".same.parquet.claim", f".same.parquet.{first.pid}.tmp"])
        assert cli.main(words) == 2
        assert f"in use: another bgsim (process {first.pid}) is writing this output file" in one_error_line(capsys)
        assert cli.main(words + ["--force"]) == 2  # --force does not break a live claim
        one_error_line(capsys)
        assert not out.exists() and hidden(tmp_path) == sorted([".same.parquet.claim", f".same.parquet.{first.pid}.tmp"])
    finally:
        code, _, err = go_on(first)
    assert code == 0, err
    # the same games, played by the other engine here (the reference's 34 took seconds)
    pd.testing.assert_frame_equal(pd.read_parquet(out), play_games(make_player("random"), make_player("random"),
                                                                   1, 34, engine="fast"))
    assert hidden(tmp_path) == []  # the claim and the temporary file are gone


def test_a_play_killed_mid_write_keeps_the_old_file_and_blocks_nothing(tmp_path, capsys):
    out = tmp_path / "rows.parquet"
    words = ["play", "random", "random", "--games", "34", "--engine", "reference", "--out", str(out), "--no-progress"]
    assert cli.main(words[:4] + ["3"] + words[5:]) == 0  # an earlier, whole file of 3 games
    before = pd.read_parquet(out)
    killed = start(words + ["--force"], "1:SIGKILL", tmp_path)
    killed.communicate(timeout=600)
    assert killed.returncode == -signal.SIGKILL
    pd.testing.assert_frame_equal(pd.read_parquet(out), before)  # never half-overwritten
    assert hidden(tmp_path) == sorted([".rows.parquet.claim", f".rows.parquet.{killed.pid}.tmp"])  # what a kill leaves
    capsys.readouterr()
    # the dead writer's claim is taken over (by a play of 2 games: its file differs from the 3's)
    assert cli.main(words[:4] + ["2"] + words[5:] + ["--force"]) == 0
    assert len(pd.read_parquet(out)) == 2 and hidden(tmp_path) == []


def test_two_runs_into_one_folder_the_second_refused_the_first_intact(tmp_path, capsys):
    experiment = tmp_path / "tiny.toml"
    experiment.write_text(TINY)
    folder = tmp_path / "run"
    words = ["run", str(experiment), "--out", str(folder), "--no-progress"]
    first = start(words, "1:SIGSTOP", tmp_path)  # stopped with its first chunk written
    try:
        wait_stopped(first)
        run = json.loads((folder / "run.json").read_text())
        for extra in ([], ["--resume"], ["--force"]):
            assert cli.main(words + extra) == 2
            assert f"{folder} is in use: another bgsim (process {first.pid})" in one_error_line(capsys)
        assert cli.main(["report", str(folder)]) == 2  # nor does report rewrite its summaries under it
        one_error_line(capsys)
        assert json.loads((folder / "run.json").read_text()) == run  # nothing changed
        assert not (folder / "summary.md").exists()
    finally:
        code, _, err = go_on(first)
    assert code == 0, err
    alone = tmp_path / "alone"
    assert cli.main(["run", str(experiment), "--out", str(alone), "--no-progress"]) == 0
    pd.testing.assert_frame_equal(pd.read_parquet(folder / "games.parquet"), pd.read_parquet(alone / "games.parquet"))
    assert hidden(tmp_path) == [] and hidden(folder) == []


def test_a_run_killed_mid_write_is_resumed_by_the_next_command(tmp_path, capsys):
    experiment = tmp_path / "tiny.toml"
    experiment.write_text(TINY)
    folder = tmp_path / "run"
    killed = start(["run", str(experiment), "--out", str(folder), "--no-progress"], "2:SIGKILL", tmp_path)
    killed.communicate(timeout=600)
    assert killed.returncode == -signal.SIGKILL
    assert json.loads((folder / "run.json").read_text())["status"] == "running"
    assert claim_name(folder).exists()  # the dead run's claim
    assert cli.main(["run", str(experiment), "--out", str(folder), "--resume", "--no-progress"]) == 0
    alone = tmp_path / "alone"
    assert cli.main(["run", str(experiment), "--out", str(alone), "--no-progress"]) == 0
    pd.testing.assert_frame_equal(pd.read_parquet(folder / "games.parquet"), pd.read_parquet(alone / "games.parquet"))
    assert not claim_name(folder).exists()


def test_a_claim_of_this_process_nests_and_one_of_a_dead_process_is_taken_over(tmp_path):
    target = tmp_path / "out.parquet"
    with claim(target):
        with claim(target):  # a command that claims what its own caller claimed
            assert claim_name(target).exists()
        assert claim_name(target).exists()  # the inner one does not release the outer's
    assert not claim_name(target).exists()
    # a process that has ended: its number is free, so its claim is stale
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    pid = int(gone.stdout)
    import socket

    claim_name(target).write_text(json.dumps({"pid": pid, "host": socket.gethostname(), "started": "1"}))
    (tmp_path / f".out.parquet.{pid}.tmp").write_text("half")
    with claim(target):
        assert json.loads(claim_name(target).read_text())["pid"] == os.getpid()
    assert hidden(tmp_path) == []
    # another machine's claim cannot be judged from here: refused, with what to do
    claim_name(target).write_text(json.dumps({"pid": 1, "host": "elsewhere", "started": None}))
    from experiments.errors import InUse

    with pytest.raises(InUse, match="on elsewhere, which this machine cannot see: if that run is gone, remove"):
        with claim(target):
            pass


# --- an output that cannot be claimed --------------------------------------------------------

def test_an_output_that_cannot_be_claimed_is_named_as_the_user_named_it(tmp_path, capsys, monkeypatch):
    import errno
    import os

    real_open = os.open

    def refused(path, flags, *rest):
        if str(path).endswith(".claim"):  # as in a folder this user may read but not write
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))
        return real_open(path, flags, *rest)

    monkeypatch.setattr(os, "open", refused)
    out = tmp_path / "games.parquet"
    assert cli.main(["play", "random", "random", "--games", "2", "--engine", "reference", "--out", str(out),
                     "--no-progress"]) == 2
    error = one_error_line(capsys)
    assert f"cannot write {out}: Permission denied; no permission to write there" in error
    assert ".claim" not in error  # a file the user never named
    assert list(tmp_path.iterdir()) == []
