"""External engines on the command line: engines files (their errors by line, where a NAME is
looked up), ``bgsim play`` and ``bgsim run`` seating ``ubgi:NAME``, ``bgsim engines``, the run's
engine identity and log, a resume refused when an engine changed, and Ctrl-C leaving no engine
process behind.  The engines are tests/fake_ubgi_engine.py, answering at once."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from bots.ubgi import close_all, live_processes
from experiments import cli
from experiments.errors import ExperimentError
from experiments.running.engines import engine_table, read_engines_file

ROOT = Path(__file__).resolve().parent.parent
FAKE = Path(__file__).resolve().parent / "fake_ubgi_engine.py"


def engines_file(folder: Path, **modes: str) -> Path:
    lines = []
    for name, mode in modes.items():
        lines += [f"[engines.{name}]", f"command = [{json.dumps(sys.executable)}, {json.dumps(str(FAKE))}, "
                                        f"{json.dumps(mode)}]", ""]
    path = folder / "engines.toml"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


@pytest.fixture(autouse=True)
def nothing_left_running():
    yield
    close_all()
    assert live_processes() == []


@pytest.fixture
def no_user_engines(tmp_path, monkeypatch):
    """The user's config folder is an empty one of this test's."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))


@pytest.mark.parametrize("text, line, message", [
    ('[engines.a]\ncommand = ["x"]\n\n[engines.b]\ncomand = ["y"]\n', 5, "engines.b.comand: unknown key"),
    ('[engines.a]\noptions = {}\n', 1, "engines.a: no command"),
    ('[engines.a]\ncommand = "gnubg --ubgi"\n', 2, "engines.a.command: a list of words"),
    ('[engines.a]\ncommand = ["x"]\ntimeout = -1\n', 3, "engines.a.timeout:"),
    ('[engines.a]\ncommand = ["x"]\noptions = {"engine.ply" = 1.5}\n', 3, "engines.a.options:"),
    ('[engines.a]\ncommand = ["x"]\ncwd = "nowhere"\n', 3, "is not a folder"),
    ('[engines.a]\ncommand = ["x"]\ntimeout = = 3\n', 3, "not valid TOML"),
    ('[engine.a]\ncommand = ["x"]\n', 1, "engine: unknown key"),
])
def test_an_engines_file_with_an_error_is_refused_naming_its_line(tmp_path, text, line, message):
    path = tmp_path / "engines.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ExperimentError) as caught:
        read_engines_file(path)
    assert message in str(caught.value)
    if "TOML" not in message:
        assert str(caught.value).startswith(f"{path}:{line}: ")
    else:
        assert f"line {line}" in str(caught.value)


def test_a_name_is_found_in_the_engines_flag_then_the_experiment_then_the_users_file(tmp_path, monkeypatch):
    config = tmp_path / "config" / "bgsim"
    config.mkdir(parents=True)
    (config / "engines.toml").write_text('[engines.a]\ncommand = ["user-a"]\n[engines.u]\ncommand = ["user-u"]\n')
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    flag = tmp_path / "flag.toml"
    flag.write_text('[engines.a]\ncommand = ["flag-a"]\n')
    table = engine_table(flag, {"a": {"command": ["file-a"]}, "e": {"command": ["file-e"]}}, tmp_path / "x.toml")
    assert {name: spec.command[0] for name, spec in table.items()} == {"a": "flag-a", "e": "file-e", "u": "user-u"}
    # a relative command path is the declaring file's, wherever bgsim runs
    (tmp_path / "eng").mkdir()
    flag.write_text('[engines.b]\ncommand = ["./run.sh"]\ncwd = "eng"\n')
    assert read_engines_file(flag)["b"].command[0] == str(tmp_path / "eng" / "run.sh")


def test_bgsim_play_seats_an_engine_and_says_what_its_decisions_took(tmp_path, no_user_engines, capsys):
    engines = engines_file(tmp_path, fake="good", bad="illegal")
    out = tmp_path / "g.parquet"
    assert cli.main(["play", "ubgi:fake", "ubgi:bad", "--games", "2", "--seed", "3", "--out", str(out),
                     "--engines", str(engines), "--no-progress"]) == 0
    rows = pd.read_parquet(out)
    assert list(rows["forfeit"]) == ["black", "black"] and rows["forfeit_reason"].str.startswith("illegal: ").all()
    printed = capsys.readouterr()
    assert "ubgi:fake: " in printed.out and "mean" in printed.out and "forfeited: white 0 games, black 2" in printed.out
    log = [json.loads(line) for line in (tmp_path / "g.engines.log").read_text().splitlines()]
    assert [entry["reason"] for entry in log] == ["illegal", "illegal"] and all(entry["answer"] for entry in log)
    assert "engine fake: fake-good, UBGI 0.2" in printed.err


def test_trace_and_export_seat_engines_and_show_a_forfeit(tmp_path, no_user_engines, capsys):
    engines = engines_file(tmp_path, fake="good", bad="illegal")
    out = tmp_path / "g.parquet"
    assert cli.main(["play", "ubgi:fake", "ubgi:bad", "--games", "1", "--seed", "3", "--out", str(out),
                     "--engines", str(engines), "--no-progress"]) == 0
    capsys.readouterr()
    # the seeded engines replay the game as the row says it went, to its forfeit, which no match file holds
    assert cli.main(["export", str(out), "--format", "sgf", "--out", str(tmp_path / "g.sgf"),
                     "--engines", str(engines)]) == 2
    err = capsys.readouterr().err.strip()
    assert err == "bgsim: error: game 0 of seed 3 was forfeited by black (illegal): a match file has no forfeit; " \
                  "choose the other games with --games"
    assert cli.main(["trace", "ubgi:fake", "ubgi:bad", "--seed", "3", "--engines", str(engines)]) == 0
    printed = capsys.readouterr().out
    assert "(forfeit, cube 1)" in printed and "black forfeited: illegal: ubgi:bad " in printed


@pytest.mark.parametrize("words, command", [
    (["rollout", "4HPwATDgc/ABMA", "--player", "ubgi:fake"], "rollouts play on the fast engine only"),
    (["validate", "--players", "ubgi:fake", "random"], "bgsim validate holds the fast engine"),
    (["cross-check", "--players", "pipdiff,ubgi:fake"], "a cross-check plays bgsim's cube rules"),
])
def test_a_command_that_cannot_seat_an_engine_refuses_it_in_one_line(words, command, capsys):
    assert cli.main(words) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("bgsim: error: ubgi:fake: ") and command in err and len(err.splitlines()) == 1


def test_the_fast_engine_and_a_missing_engine_are_refused_in_one_line_before_any_game(tmp_path, no_user_engines,
                                                                                      capsys):
    engines = engines_file(tmp_path, fake="good")
    out = tmp_path / "g.parquet"
    for words, message in ((["--engine", "fast"], "the fast engine cannot play ubgi:fake"),
                           (["--engines", str(tmp_path / "none.toml")], "no such engines file")):
        base = ["play", "ubgi:fake", "random", "--games", "1", "--out", str(out)]
        code = cli.main(base + (["--engines", str(engines)] if "--engines" not in words else []) + words)
        err = capsys.readouterr().err
        assert code == 2 and message in err and len(err.strip().splitlines()) == 1
        assert not out.exists()


def test_an_engine_that_hangs_in_its_handshake_stops_the_command_in_one_line(tmp_path, no_user_engines, capsys):
    path = tmp_path / "engines.toml"
    path.write_text(f'[engines.mute]\ncommand = [{json.dumps(sys.executable)}, {json.dumps(str(FAKE))}, '
                    f'"hang-handshake"]\nstart_timeout = 0.05\n')
    code = cli.main(["play", "ubgi:mute", "random", "--games", "1", "--out", str(tmp_path / "g.parquet"),
                     "--engines", str(path)])
    err = capsys.readouterr().err.strip()
    assert code == 2 and err == f"bgsim: error: engine mute ({sys.executable} {FAKE} hang-handshake): no answer to " \
                                "ubgi within 0.05 s"


def test_bgsim_engines_lists_what_each_engine_said_and_one_that_cannot_start(tmp_path, no_user_engines, capsys):
    engines = engines_file(tmp_path, fake="take", old="v01", odd="proto")
    assert cli.main(["engines", "--engines", str(engines)]) == 1
    out = capsys.readouterr().out
    assert "fake  (" in out and "id          fake-take, by the tests" in out and "answers go take" in out
    assert "UBGI 0.1; cube and score by v0.1 session lines" in out and "option name Seed type spin" in out
    assert "odd  (" in out and "cannot start: engine odd" in out and "speaks UBGI 9.9" in out
    assert cli.main(["engines", "--engines", str(engines_file(tmp_path, fake="good")), "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)["engines"]
    assert listed[0]["handshake"]["id_name"] == "fake-good" and listed[0]["handshake"]["xgid"] is True


def experiment(folder: Path, mode: str = "good") -> Path:
    path = folder / "duel.toml"
    path.write_text("\n".join([
        'players = ["ubgi:fake", "random"]', "games = 2", "chunk = 1", "seed = 5", "",
        "[engines.fake]", f"command = [{json.dumps(sys.executable)}, {json.dumps(str(FAKE))}, {json.dumps(mode)}]",
        ""]), encoding="utf-8")
    return path


def test_a_run_records_each_engine_and_refuses_to_resume_on_another(tmp_path, no_user_engines, monkeypatch, capsys):
    path, out = experiment(tmp_path), tmp_path / "run"
    monkeypatch.setenv("BGSIM_STOP_AFTER", "1")  # Ctrl-C once the first chunk is on disk
    assert cli.main(["run", str(path), "--out", str(out), "--no-progress"]) == 130
    monkeypatch.delenv("BGSIM_STOP_AFTER")
    assert live_processes() == []
    run = json.loads((out / "run.json").read_text())
    assert run["engines"]["fake"]["id_name"] == "fake-good" and run["engines"]["fake"]["sha256"]
    assert run["identity"]["engines"]["fake"]["command"][-1] == "good"
    capsys.readouterr()
    experiment(tmp_path, "take")  # the same name, another engine
    assert cli.main(["run", str(path), "--out", str(out), "--resume", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "cannot resume" in err and "engine fake changed its command" in err
    experiment(tmp_path, "good")
    assert cli.main(["run", str(path), "--out", str(out), "--resume", "--no-progress"]) == 0
    run = json.loads((out / "run.json").read_text())
    assert run["status"] == "finished" and run["engine_time"]["ubgi:fake"]["decisions"] > 0
    assert "External engines" in (out / "summary.md").read_text()
    assert len(pd.read_parquet(out / "games.parquet")) == 4


@pytest.mark.skipif(os.name != "posix", reason="signals and /proc")
@pytest.mark.parametrize("stop", ["1", "1:SIGTERM"], ids=["ctrl-c", "sigterm"])
def test_ctrl_c_or_sigterm_leaves_no_engine_or_child_of_one_running(tmp_path, stop):
    pids = tmp_path / "child.pid"
    engines = tmp_path / "engines.toml"
    engines.write_text(f'[engines.kid]\ncommand = [{json.dumps(sys.executable)}, {json.dumps(str(FAKE))}, "child", '
                       f'{json.dumps(str(pids))}]\n')
    env = {**os.environ, "BGSIM_STOP_AFTER": stop, "XDG_CONFIG_HOME": str(tmp_path / "config")}
    done = subprocess.run([sys.executable, "-m", "experiments", "play", "ubgi:kid", "random", "--games", "3",
                           "--out", str(tmp_path / "g.parquet"), "--engines", str(engines), "--no-progress"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    from test_ubgi_controller import ended

    child = int(pids.read_text())
    survived = not ended(child)
    if survived:
        os.kill(child, signal.SIGKILL)  # a failing test leaves nothing behind either
    assert not survived  # the engine's own child too: its whole process group was killed
    assert done.returncode == 130, done.stderr
    assert "interrupted" in done.stderr  # stopped by its own signal (BGSIM_STOP_AFTER), as Ctrl-C stops it
    assert len(pd.read_parquet(tmp_path / "g.parquet")) == 1  # the game finished before the stop is kept
