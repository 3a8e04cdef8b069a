"""One run-folder lifecycle for every long command: what a folder may hold before a run starts,
what --force removes, what a resume must ask again (experiments/running/folder.py)."""

from __future__ import annotations

import json

import pytest

from conftest import race_id
from experiments import cli
from experiments.errors import RunError
from experiments.running.folder import EXPERIMENT_RUN, RunFolder
from experiments.studies.cross_check import CROSS_CHECK
from experiments.studies.cube_audit import AUDIT

KINDS = {"run": EXPERIMENT_RUN, "cube audit": AUDIT, "cross-check": CROSS_CHECK}


def stored(folder, **record) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "run.json").write_text(json.dumps(record))


@pytest.mark.parametrize("kind", KINDS.values(), ids=KINDS.keys())
def test_a_folder_holding_only_a_killed_write_is_empty_to_every_command(tmp_path, kind):
    (tmp_path / ".run.json.tmp").write_text("{")  # what a kill while writing run.json leaves
    assert RunFolder(tmp_path, kind).open({"seed": 1}) is None


@pytest.mark.parametrize("kind, other, title", [
    (EXPERIMENT_RUN, "cube-audit", "bgsim run"),
    (AUDIT, None, "bgsim cube audit"),
    (CROSS_CHECK, "cube-audit", "bgsim cross-check"),
], ids=KINDS.keys())
def test_a_folder_of_another_command_is_refused_by_name(tmp_path, kind, other, title):
    stored(tmp_path, **({"kind": other} if other else {}), status="finished", identity={})
    with pytest.raises(RunError, match=f"is not empty and holds no {title}: choose another --out"):
        RunFolder(tmp_path, kind).open({}, force=True)


@pytest.mark.parametrize("kind, noun", [(EXPERIMENT_RUN, "run"), (AUDIT, "audit"), (CROSS_CHECK, "cross-check")],
                         ids=KINDS.keys())
def test_a_finished_run_is_replaced_only_with_force(tmp_path, kind, noun):
    stored(tmp_path, **({"kind": kind.kind} if kind.kind else {}), status="finished", identity={})
    with pytest.raises(RunError, match=f"holds a finished {noun}: choose another --out, or pass --force"):
        RunFolder(tmp_path, kind).open({})


def test_an_unfinished_run_needs_resume_or_force_where_runs_resume(tmp_path):
    stored(tmp_path / "audit", kind="cube-audit", status="running", identity={})
    with pytest.raises(RunError, match="holds an unfinished audit: pass --resume to finish it, or --force"):
        RunFolder(tmp_path / "audit", AUDIT).open({})
    # a cross-check resumes too (issue 23): a folder left running is never overwritten silently
    stored(tmp_path / "cross", kind="cross-check", status="running", identity={})
    with pytest.raises(RunError, match="holds an unfinished cross-check: pass --resume to finish it, or --force"):
        RunFolder(tmp_path / "cross", CROSS_CHECK).open({})
    assert (tmp_path / "cross" / "run.json").exists()


def test_force_removes_the_run_its_outputs_and_chunks_and_nothing_else(tmp_path):
    stored(tmp_path, status="finished", identity={})
    for name in ("games.parquet", "summary.md", "summary.csv", "payoff_matrix-five.csv", "points_per_game.png",
                 "notes.txt"):
        (tmp_path / name).write_text("x")
    (tmp_path / "chunks").mkdir()
    (tmp_path / "chunks" / "pairing-000-chunk-0000.parquet").write_text("x")
    assert RunFolder(tmp_path, EXPERIMENT_RUN).open({}, force=True) is None
    assert sorted(path.name for path in tmp_path.iterdir()) == ["notes.txt"]


def test_a_resume_must_ask_for_the_same_identity(tmp_path):
    stored(tmp_path, kind="cube-audit", status="running", identity={"seed": 1, "players": ["keith"]},
           command="bgsim cube-audit --seed 1")
    with pytest.raises(RunError, match=r"cannot resume .*: it was started with other options \(seed: 1 in the run, "
                                       r"2 now\); repeat its command with --resume: bgsim cube-audit --seed 1"):
        RunFolder(tmp_path, AUDIT).open({"seed": 2, "players": ["keith"]}, resume=True)
    found = RunFolder(tmp_path, AUDIT).open({"seed": 1, "players": ["keith"]}, resume=True)
    assert found["command"] == "bgsim cube-audit --seed 1"


def test_nothing_to_resume_where_no_run_of_the_kind_is(tmp_path):
    with pytest.raises(RunError, match="nothing to resume in .*: it holds no run.json"):
        RunFolder(tmp_path / "none", EXPERIMENT_RUN).open({}, resume=True)
    stored(tmp_path / "audit", kind="cube-audit", status="running", identity={})
    with pytest.raises(RunError, match="nothing to resume in .*: it holds no bgsim run"):
        RunFolder(tmp_path / "audit", EXPERIMENT_RUN).open({}, resume=True)


def test_a_run_resumed_on_other_code_is_marked_dirty(tmp_path):
    record = {"git_commit": "0" * 40, "git_dirty": False}  # no commit of this repository
    assert RunFolder(tmp_path, AUDIT).resumed(record)["git_dirty"] is True


def test_finish_adds_this_session_s_seconds_to_the_earlier_ones(tmp_path):
    folder = RunFolder(tmp_path / "out", AUDIT)
    record = folder.record("bgsim cube-audit", {"seed": 1})
    assert record["kind"] == "cube-audit" and record["status"] == "running"
    record["seconds"] = 2.5  # an earlier, killed session's
    folder.finish(record, seconds=1.25)
    saved = json.loads((tmp_path / "out" / "run.json").read_text())
    assert saved["status"] == "finished" and saved["seconds"] == 3.8  # 3.75, to a tenth
    assert "finished" in saved and saved["identity"] == {"seed": 1}


def test_default_folders_started_in_the_same_second_are_each_their_own(tmp_path, monkeypatch):
    import datetime as dt
    import threading

    from experiments.running import folder as folders

    class FrozenClock(dt.datetime):
        @classmethod
        def now(cls, tz=None):
            return dt.datetime(2026, 12, 1, 16, 40, 0, tzinfo=tz)

    monkeypatch.setattr(folders.dt, "datetime", FrozenClock)
    start, made = threading.Barrier(6), []

    def command():
        start.wait()  # six commands choosing their folder at the same moment
        made.append(folders.default_folder("tournament", tmp_path))

    threads = [threading.Thread(target=command) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(set(made)) == 6 and all(path.is_dir() for path in made)
    assert {path.name for path in made} == {"tournament-20261201-164000"} | {
        f"tournament-20261201-164000-{n}" for n in range(2, 7)}


def test_a_default_folder_left_empty_is_removed_and_a_used_one_kept(tmp_path):
    from experiments.running.folder import _remove_if_empty, default_folder

    empty, used = default_folder("run", tmp_path), default_folder("run", tmp_path)
    (used / "run.json").write_text("{}")
    _remove_if_empty(empty)  # what the process does as it ends
    _remove_if_empty(used)
    assert not empty.exists() and (used / "run.json").exists()


# --- every long command: resume on a finished run --------------------------------------------

@pytest.mark.parametrize("command", ["run", "cube-audit", "cross-check"])
def test_resume_on_a_finished_run_is_success_with_a_note_in_every_command(command, tmp_path, capsys):
    folder = tmp_path / "done"
    if command == "run":
        toml = tmp_path / "tiny.toml"
        toml.write_text('name = "tiny"\nplayers = ["random+pipdiff", "heuristic+pipdiff"]\ngames = 1\n'
                        'engine = "reference"\n')
        words = ["run", str(toml)]
    elif command == "cube-audit":
        races = tmp_path / "races.txt"
        races.write_text(race_id() + "\n")
        words = ["cube-audit", "--players", "keith", "--from", str(races)]
    else:
        words = ["cross-check", "--players", "keith", "--positions", "2", "--threads", "1"]
    words += ["--out", str(folder), "--no-progress"]
    assert cli.main(words) == 0
    first = capsys.readouterr().out
    stamp = json.loads((folder / "run.json").read_text())["finished"]
    assert cli.main(words + ["--resume"]) == 0
    captured = capsys.readouterr()
    assert f"{folder} holds a finished" in captured.err and "nothing left to" in captured.err
    assert captured.out.splitlines()[-1] == first.splitlines()[-1]  # its results again
    assert json.loads((folder / "run.json").read_text())["finished"] == stamp  # nothing run again


def test_run_json_records_which_net_played(tmp_path):
    """Every run records the nets its players played (file, size, sha256 of the arrays), so a
    result can say which net made it when the shipped net changes."""
    import json

    from bots.nn import shipped_net
    from experiments.cli import main

    config = tmp_path / "nets.toml"
    config.write_text('name = "nets"\nplayers = ["nn+nn", "pubeval"]\ngames = 2\nseed = 3\nchunk = 2\n'
                      'engine = "reference"\n[rules]\ncube = false\n')
    assert main(["run", str(config), "--out", str(tmp_path / "out"), "--no-progress"]) == 0
    nets = json.loads((tmp_path / "out" / "run.json").read_text())["nets"]
    assert set(nets) == {"nn+nn"} and set(nets["nn+nn"]) == {"checker", "cube"}
    assert nets["nn+nn"]["checker"]["sha256"] == shipped_net().digest()
    assert nets["nn+nn"]["checker"]["file"] == "nn.npz"
