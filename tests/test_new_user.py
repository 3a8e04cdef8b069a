"""What a new user trips over: the README's commands, help texts, big runs, Ctrl-C, file modes,
disk errors, the Python API's errors, and the row schema's nulls and categoricals."""

from __future__ import annotations

import errno
import math
import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bgsim.cube import Rules
from bgsim.series import play_games
from bots import make_player
from experiments import cli
from experiments.analysis.summary import GameTally, summarize_games
from experiments.running import stream

ROOT = Path(__file__).resolve().parent.parent


def one_error_line(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0, err
    assert err.startswith("bgsim: error: ")
    return err


# --- the README, run -------------------------------------------------------------------------

def readme_commands() -> list[str]:
    """Every `bgsim ...` command in the README's shell blocks (install prefixes dropped)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    commands = []
    for block in re.findall(r"```sh\n(.*?)```", text, re.S):
        for line in block.splitlines():
            line = re.sub(r"\s+#.*$", "", line).strip()
            for part in line.split("&&"):
                part = part.strip()
                if part.startswith(".venv/bin/bgsim"):
                    part = part[len(".venv/bin/"):]
                if part.startswith("bgsim"):
                    commands.append(part)
    return commands


def shrunk(command: str, tmp_path: Path) -> list[str]:
    """The README command, made small: few games, outputs in ``tmp_path``."""
    words = shlex.split(command)[1:]

    def setting(flag: str, value: str) -> None:
        if flag in words:
            words[words.index(flag) + 1] = value
        else:
            words.extend([flag, value])

    name = words[0] if words else ""
    if name == "play":
        setting("--games", "3")
        setting("--engine", "reference")
        setting("--out", str(tmp_path / Path(words[words.index("--out") + 1]).name))
    elif name == "chouette":
        setting("--games", "3")
        setting("--out", str(tmp_path / Path(words[words.index("--out") + 1]).name))
        words.append("--no-progress")
    elif name in ("run", "tournament"):  # on the file's own engine (fast: compiled once per process)
        setting("--games", "1")
        setting("--chunk", "1")
        setting("--out", str(tmp_path / "run"))
        words.append("--no-progress")
    elif name == "validate":
        setting("--games", "1")
        setting("--positions", "2")
        setting("--jobs", "1")
    elif name == "cube-audit":
        setting("--positions", "20")
        setting("--out", str(tmp_path / "audit"))
        words.append("--no-progress")
    elif name == "cross-check":
        setting("--starts", "3")
        setting("--jobs", "1")
        setting("--out", str(tmp_path / "cross"))
        words.append("--no-progress")
    elif name == "rollout":
        setting("--games", "72")
        words.append("--no-progress")
    elif name == "bearoff" and "--pairs" in words:
        setting("--pairs", "200")
    elif name == "bench":
        words += ["--games", "100", "--rounds", "1", "--no-compile", "--out", str(tmp_path / "bench")]
    return words


COMMANDS = readme_commands()


def test_the_readme_shows_the_commands_a_new_user_needs():
    names = {shlex.split(command)[1] for command in COMMANDS}
    assert {"tournament", "show", "moves", "bots", "play", "run", "validate", "bench", "report"} <= names


@pytest.fixture(scope="module")
def bearoff_cache(tmp_path_factory):
    """One small bear-off cache for every README command that needs the databases."""
    return tmp_path_factory.mktemp("bearoff-cache")


@pytest.mark.parametrize("command", COMMANDS)
def test_every_readme_command_runs(command, tmp_path, capsys, monkeypatch, bearoff_cache):
    words = shrunk(command, tmp_path)
    # The 8-checker two-sided database (288 MB) is not built here: 3 checkers a side.
    monkeypatch.setenv("BGSIM_CACHE", str(bearoff_cache))
    monkeypatch.setenv("BGSIM_BEAROFF_CHECKERS", "3")
    if "--dask" in words:
        pytest.importorskip("distributed")
        words[words.index("--dask") + 1] = "local:1"
    monkeypatch.chdir(tmp_path)  # nothing lands in the repository
    if words[0] == "report":  # a report needs the rows of an earlier command: make them small
        assert cli.main(["play", "random", "random", "--games", "3", "--engine", "reference",
                         "--out", words[1], "--no-progress"]) == 0
    _prepare_games_in_and_out(words, tmp_path)
    code = cli.main(words)
    err = capsys.readouterr().err
    allowed = (0, 1) if words[0] == "bench" else (0,)  # bench --compare may find a tiny run slower
    assert code in allowed, err


def _prepare_games_in_and_out(words: list[str], tmp_path: Path) -> None:
    """The rows, run folder or match file that export, analyse and import read: small ones."""
    if words[0] in ("export", "analyse") and words[1].endswith(".parquet"):
        assert cli.main(["play", "random+pipdiff", "heuristic+pipdiff", "--games", "3", "--engine", "reference",
                         "--out", words[1], "--no-progress"]) == 0
    elif words[0] == "export":  # a run's folder
        experiment = tmp_path / "tiny.toml"
        experiment.write_text('name = "tiny"\nplayers = ["random+pipdiff", "heuristic+pipdiff"]\ngames = 1\n'
                              'chunk = 1\nengine = "reference"\n')
        assert cli.main(["run", str(experiment), "--out", words[1], "--no-progress"]) == 0
    elif words[0] == "import":
        shutil.copy(ROOT / "tests" / "data" / "interchange" / "gnubg_match7.mat", words[1])


def test_the_readme_python_example_runs():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    (code,) = re.findall(r"```python\n(.*?)```", text, re.S)
    assert "games=1000" in code
    exec(compile(code.replace("games=1000", "games=20"), "README.md", "exec"), {})


# --- help and version ------------------------------------------------------------------------

def test_version(capsys):
    import bgsim

    with pytest.raises(SystemExit) as done:
        cli.main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out.strip() == f"bgsim {bgsim.__version__}"


def test_every_command_has_a_description_and_every_positional_a_help():
    parser = cli.build_parser()
    (subparsers,) = [a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction"]
    assert {"show", "moves", "bots", "report", "play", "run", "tournament"} <= set(subparsers.choices)
    for name, command in subparsers.choices.items():
        assert command.description, f"bgsim {name} has no description"
        for action in command._actions:
            if not action.option_strings:
                assert action.help, f"bgsim {name}: {action.metavar or action.dest} has no help"


def test_help_shows_specs_as_they_are_typed(capsys):
    with pytest.raises(SystemExit):
        cli.main(["play", "--help"])
    out = capsys.readouterr().out
    assert "%%" not in out
    spec = re.search(r"'(heuristic\+pipdiff\([^']*%[^']*\))'", out.replace("\n", " ").replace("  ", " ")).group(1)
    assert make_player(spec).cube is not None  # what the help shows can be copied


def test_bots_lists_none_with_its_meaning(capsys):
    assert cli.main(["bots"]) == 0
    assert re.search(r"^  none\s+\S", capsys.readouterr().out, re.M)


# --- play: streaming, estimates, Ctrl-C ------------------------------------------------------

def test_play_has_a_default_seed_and_says_what_it_will_do(tmp_path, capsys):
    assert cli.main(["play", "random", "random", "--games", "5", "--engine", "reference",
                     "--out", str(tmp_path / "a.parquet")]) == 0
    err = capsys.readouterr().err
    assert "playing 5 games: white random vs black random, seed 1, reference engine" in err
    again = play_games(make_player("random"), make_player("random"), 1, 5, engine="reference")
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "a.parquet"), again)


def test_play_announces_the_first_compile(tmp_path, capsys, monkeypatch):
    from bgsim.series import play_games_reference

    # Stand-ins for the fast engine (its real compile takes ~20 s): what is tested is the message.
    monkeypatch.setattr(stream, "engine_for", lambda engine, white, black, rules=None: "fast")
    monkeypatch.setattr(stream, "fast_compile_pending", lambda players=(): True)
    monkeypatch.setattr(stream, "play_games",
                        lambda w, b, seed, games, rules, match_to, engine, threads:
                        play_games_reference(w, b, seed, games, rules, match_to))
    assert cli.main(["play", "random", "random", "--games", "2", "--out", str(tmp_path / "c.parquet")]) == 0
    assert "compiling the fast engine (first use, ~20 s)" in capsys.readouterr().err


def test_ctrl_c_keeps_the_finished_games_of_a_billion_game_play(tmp_path, capsys, monkeypatch):
    import tracemalloc

    out = tmp_path / "huge.parquet"
    monkeypatch.setenv("BGSIM_STOP_AFTER", "2")  # SIGINT to itself after the second batch is written
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
    assert 0 < len(kept) < 1000
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
    toml.write_text('players = ["heuristic", "heuristic+pipdiff"]\ngames = 1\nengine = "reference"\n')
    assert cli.main(["run", str(toml), "--threads", "999", "--out", str(tmp_path / "r"), "--no-progress"]) == 0
    assert "--threads 999: this machine runs at most" in capsys.readouterr().err


# --- files: modes and errors -----------------------------------------------------------------

@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o077, 0o600)])
def test_play_and_run_write_files_with_the_same_mode(tmp_path, umask, mode):
    toml = tmp_path / "t.toml"
    toml.write_text('players = ["heuristic", "heuristic+pipdiff"]\ngames = 1\nengine = "reference"\n')
    old = os.umask(umask)
    try:
        assert cli.main(["play", "random", "random", "--games", "2", "--engine", "reference",
                         "--out", str(tmp_path / "p.parquet"), "--no-progress"]) == 0
        assert cli.main(["run", str(toml), "--out", str(tmp_path / "r"), "--no-progress"]) == 0
    finally:
        os.umask(old)
    written = [tmp_path / "p.parquet"] + [tmp_path / "r" / name for name in
                                           ("games.parquet", "run.json", "summary.md", "summary.csv")]
    assert {path.name: path.stat().st_mode & 0o777 for path in written} == {path.name: mode for path in written}


@pytest.mark.parametrize("code, words", [(errno.ENOSPC, "the disk is full: make room"),
                                         (errno.EROFS, "read-only: choose a writable folder")])
def test_play_names_the_file_and_what_to_do_when_it_cannot_write(tmp_path, capsys, monkeypatch, code, words):
    import pyarrow.parquet as pq

    class Failing:
        def __init__(self, *args, **kwargs):
            raise OSError(code, os.strerror(code))

    monkeypatch.setattr(pq, "ParquetWriter", Failing)
    out = tmp_path / "rows.parquet"
    assert cli.main(["play", "random", "random", "--games", "2", "--engine", "reference",
                     "--out", str(out), "--no-progress"]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    error = lines[-1]  # after the line that said what would be played: one error line
    assert error.startswith("bgsim: error: ") and sum(line.startswith("bgsim") for line in lines) == 1
    assert f"cannot write {out}: {os.strerror(code)}; " in error and words in error
    assert "[Errno" not in error and not list(tmp_path.iterdir())


def test_bench_writes_its_runs_where_git_ignores_them():
    args = cli.build_parser().parse_args(["bench"])
    assert Path(args.out) == Path("results/runs/bench")
    ignored = subprocess.run(["git", "check-ignore", "-q", "results/runs/bench/latest.json"], cwd=ROOT)
    assert ignored.returncode == 0
    tracked = subprocess.run(["git", "check-ignore", "-q", "results/bench/latest.json"], cwd=ROOT)
    assert tracked.returncode == 1  # the committed figures are only rewritten when asked


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
    assert "no such results folder or Parquet file" in one_error_line(capsys)


# --- the Python API --------------------------------------------------------------------------

def test_play_games_explains_a_spec_string_and_a_fractional_count():
    with pytest.raises(TypeError, match=r"white is the string 'heuristic'.*bots\.make_player\('heuristic'\)"):
        play_games("heuristic", "heuristic", 1, 2)
    with pytest.raises(TypeError, match="black .*not a player"):
        play_games(make_player("random"), object(), 1, 2)
    with pytest.raises(TypeError, match="whole number of games"):
        play_games(make_player("random"), make_player("random"), 1, 2.5)


# --- the row schema --------------------------------------------------------------------------

def test_no_double_is_a_null_and_outcomes_are_categoricals(tmp_path):
    frame = play_games(make_player("heuristic+keith"), make_player("random"), 4, 40, engine="reference")
    doubled = frame["doubles"] > 0
    assert doubled.any() and (~doubled).any()
    assert frame.loc[~doubled, "first_double_ply"].isna().all()
    assert frame.loc[~doubled, "first_doubler"].isna().all()
    assert frame.loc[doubled, "first_double_ply"].notna().all()
    # The mean means what it says: over the games that had a double.
    plies = frame.loc[doubled, "first_double_ply"].astype(float)
    assert frame["first_double_ply"].mean() == pytest.approx(plies.mean())
    for name, categories in (("winner", ["white", "black"]), ("result", ["single", "gammon", "backgammon", "drop"]),
                             ("cube_owner", ["centre", "white", "black"]), ("first_doubler", ["white", "black"])):
        assert isinstance(frame[name].dtype, pd.CategoricalDtype)
        assert list(frame[name].cat.categories) == categories
    frame.to_parquet(tmp_path / "r.parquet")
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "r.parquet"), frame)
    cubeless = play_games(make_player("random"), make_player("random"), 4, 5, Rules(cube=False), engine="reference")
    assert cubeless["first_double_ply"].isna().all() and math.isnan(cubeless["first_double_ply"].astype(float).mean())


def test_validate_compares_nulls_as_equal_and_finds_a_planted_difference():
    from bgsim.fast.sameness import compare_frames

    frame = play_games(make_player("heuristic+keith"), make_player("random"), 4, 20, engine="reference")
    assert frame["first_double_ply"].isna().any()
    assert compare_frames(frame, frame.copy()) is None
    planted = frame.copy()
    row = int(np.flatnonzero(planted["first_double_ply"].isna())[0])
    planted.loc[row, "first_double_ply"] = 3
    mismatch = compare_frames(frame, planted)
    assert (mismatch.row, mismatch.column) == (row, "first_double_ply")


def test_validate_refuses_a_slow_player_without_naming_an_option_it_lacks(capsys):
    assert cli.main(["validate", "--players", "gnubg", "random", "--games", "1"]) == 2
    error = one_error_line(capsys)
    assert "cannot run in the fast engine" in error and "both players must run in the fast engine" in error
    assert "engine=" not in error and "use the reference engine" not in error


def test_validate_says_which_case_it_is_on(capsys):
    assert cli.main(["validate", "--players", "random", "random", "--games", "1", "--positions", "0",
                     "--jobs", "1"]) == 0
    out = capsys.readouterr().out
    assert "validating 1 cases" in out and "case 1/1: random vs random" in out
