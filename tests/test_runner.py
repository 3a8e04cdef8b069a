"""The runner: pairings and their seeds, duplicate dice, chunks on disk, resume, faults."""

import errno
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from bgsim.cube import Rules
from bgsim.dice import mix64
from bgsim.series import play_games
from bots import make_player
from experiments import cli
from experiments.analysis.summary import summarize_pairings
from experiments.errors import RunError
from experiments.running import runner
from experiments.running.config import experiment_from_mapping
from experiments.running.folder import load_rows
from experiments.running.plan import pairing_seed, plan_pairings
from experiments.stats import mean_interval
from experiments.studies.experiment import run_experiment

# The cheapest players that still double, take and drop: heuristic checker play is the
# fastest built-in bot on the reference engine, and the cube bots differ.
PLAYERS = ["heuristic+pipdiff", "heuristic+keith", "heuristic+never-take"]


def tiny(**changes):
    data = {"players": PLAYERS, "games": 4, "chunk": 2, "seed": 7, "engine": "reference"}
    data.update(changes)
    return experiment_from_mapping(data, "tiny.toml", "tiny")


def run(experiment, folder, **options):
    return run_experiment(experiment, folder, progress=False, log=lambda text: None, **options)


def write_toml(path: Path, games=4, chunk=1, extra="") -> Path:
    players = ", ".join(f'"{p}"' for p in PLAYERS)
    path.write_text(f'players = [{players}]\ngames = {games}\nchunk = {chunk}\nseed = 7\n'
                    f'engine = "reference"\n{extra}', encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def baseline(tmp_path_factory):
    """An uninterrupted tiny run: what every resumed or rechunked run must equal."""
    folder = tmp_path_factory.mktemp("baseline") / "run"
    result = run(tiny(), folder)
    return result.folder, load_rows(result.folder)


def test_pairing_seeds_follow_the_documented_formula():
    golden = 0x9E3779B97F4A7C15
    for k in range(3):
        assert pairing_seed(7, k) == mix64((mix64(7) + (k + 1) * golden) % 2**64) >> 1
    seeds = {pairing_seed(7, k) for k in range(100)}
    assert len(seeds) == 100 and all(0 <= s < 2**63 for s in seeds)


def test_pairings_round_robin_against_and_conditions_share_dice():
    experiment = tiny(conditions={"plain": {}, "jacoby": {"jacoby": True}})
    pairings = plan_pairings(experiment)
    assert len(pairings) == 6
    assert [(p.first, p.second) for p in pairings[:3]] == [
        (PLAYERS[0], PLAYERS[1]), (PLAYERS[0], PLAYERS[2]), (PLAYERS[1], PLAYERS[2])]
    assert [p.seed for p in pairings[:3]] == [p.seed for p in pairings[3:]]
    assert pairings[3].rules == Rules(jacoby=True)
    against = plan_pairings(tiny(players=PLAYERS[:2], opponent=PLAYERS[2], pairings="against"))
    assert [(p.first, p.second) for p in against] == [(PLAYERS[0], PLAYERS[2]), (PLAYERS[1], PLAYERS[2])]


def test_rows_are_the_games_play_games_plays_both_seatings_on_the_same_dice(baseline):
    folder, frame = baseline
    assert len(frame) == 3 * 4 * 2
    for pairing in plan_pairings(tiny()):
        first, second = make_player(pairing.first), make_player(pairing.second)
        rows = frame[frame["pairing"] == pairing.index].reset_index(drop=True)
        leg0 = play_games(first, second, pairing.seed, 4, engine="reference")
        leg1 = play_games(second, first, pairing.seed, 4, engine="reference")
        expected = pd.concat([leg0, leg1], ignore_index=True)
        pd.testing.assert_frame_equal(rows[expected.columns.tolist()], expected)
        assert rows["leg"].tolist() == [0] * 4 + [1] * 4


def test_without_duplicate_dice_the_swapped_seating_plays_other_deals(tmp_path):
    frame = run(tiny(duplicate=False, games=2, chunk=1), tmp_path / "run").frame
    first = frame[frame["pairing"] == 0]
    assert first[first["leg"] == 0]["game"].tolist() == [0, 1]
    assert first[first["leg"] == 1]["game"].tolist() == [2, 3]
    assert summarize_pairings(frame)["variance_ratio"].isna().all()


def test_same_rows_whatever_the_chunk_size(baseline, tmp_path):
    _, frame = baseline
    for chunk in (1, 3):
        other = run(tiny(chunk=chunk), tmp_path / f"chunk{chunk}").frame
        pd.testing.assert_frame_equal(other, frame)


def test_results_folder_holds_rows_summaries_plots_and_run_record(baseline):
    folder, frame = baseline
    names = {path.name for path in folder.iterdir()}
    assert {"games.parquet", "summary.csv", "summary.md", "run.json", "payoff_matrix.png",
            "points_per_game.png"} <= names
    assert "chunks" not in names  # joined into games.parquet once the run finished
    record = json.loads((folder / "run.json").read_text())
    assert record["status"] == "finished"
    assert record["config"]["players"] == PLAYERS
    assert record["seed"] == 7 and record["games"] == len(frame)
    assert record["elapsed_s"] > 0 and record["games_per_s"] > 0
    assert record["engines_used"] == ["reference"]
    for key in ("bgsim_version", "git_commit", "git_dirty", "command", "started", "finished", "threads"):
        assert key in record
    # The commit alone, and whether tracked files differed from it, as git itself says.
    head = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, cwd=Path(__file__).parent)
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], capture_output=True,
                           text=True, cwd=Path(__file__).parent)
    assert record["git_commit"] == head.stdout.strip()
    assert record["git_dirty"] is bool(dirty.stdout.strip())
    summary = (folder / "summary.md").read_text()
    assert f"commit {record['git_commit'][:12]}{'+dirty' if record['git_dirty'] else ''};" in summary


def test_summaries_are_recomputed_from_the_rows(baseline):
    folder, _ = baseline
    rows = pd.read_parquet(folder / "games.parquet")
    written = pd.read_csv(folder / "summary.csv")
    written = written[written["section"] == "pairing"].reset_index(drop=True)
    again = summarize_pairings(rows)
    for column in ("ppg", "ppg_ci", "wins", "gammons_won", "drops_lost", "mean_cube"):
        assert written[column].tolist() == pytest.approx(again[column].tolist(), rel=1e-5)
    # Points per game straight from the rows, no helper involved.
    first = rows[(rows["pairing"] == 0)]
    sign = (first["white"] == PLAYERS[0]).map({True: 1, False: -1})
    assert again.loc[0, "ppg"] == pytest.approx((first["white_points"] * sign).mean())


def test_a_finished_run_is_never_overwritten_silently(baseline, tmp_path):
    folder, _ = baseline
    with pytest.raises(RunError, match=f"{folder}.*finished run"):
        run(tiny(), folder)
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    with pytest.raises(RunError, match="not empty and holds no bgsim run"):
        run(tiny(), other)
    assert (other / "notes.txt").read_text() == "mine"


def test_force_replaces_a_finished_run(tmp_path, baseline):
    folder = tmp_path / "run"
    run(tiny(games=2), folder)
    result = run(tiny(), folder, force=True)
    pd.testing.assert_frame_equal(result.frame, baseline[1])


def _fail_on_write(monkeypatch, after: int):
    real = runner.write_table
    calls = {"n": 0}

    def write(frame, path):
        calls["n"] += 1
        if calls["n"] > after:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real(frame, path)

    monkeypatch.setattr(runner, "write_table", write)


def test_full_disk_stops_with_a_clear_error_keeps_chunks_and_resume_finishes(tmp_path, monkeypatch, capsys, baseline):
    toml = write_toml(tmp_path / "tiny.toml", chunk=2)
    out = tmp_path / "run"
    argv = ["run", str(toml), "--out", str(out), "--no-progress"]
    _fail_on_write(monkeypatch, after=2)
    assert cli.main(argv) == 2
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert error.startswith("bgsim: error: cannot write") and "No space left on device" in error
    assert "--resume" in error
    assert len(list((out / "chunks").glob("*.parquet"))) == 2
    assert not list((out / "chunks").glob(".*"))  # no half-written file left behind
    assert json.loads((out / "run.json").read_text())["status"] == "running"

    monkeypatch.undo()
    assert cli.main(argv) == 2  # an unfinished run is not started again by accident
    assert "unfinished run" in capsys.readouterr().err
    assert cli.main(argv + ["--resume"]) == 0
    pd.testing.assert_frame_equal(load_rows(out), baseline[1])
    record = json.loads((out / "run.json").read_text())
    assert record["status"] == "finished" and len(record["sessions"]) == 2


def test_resume_refuses_a_changed_experiment(tmp_path, monkeypatch):
    out = tmp_path / "run"
    _fail_on_write(monkeypatch, after=1)
    with pytest.raises(OSError):
        run(tiny(), out)
    monkeypatch.undo()
    with pytest.raises(RunError, match="games: 4 in the run, 6 now"):
        run(tiny(games=6), out, resume=True)
    with pytest.raises(RunError, match="nothing to resume"):
        run(tiny(), tmp_path / "empty", resume=True)
    # Threads (and the engine) cannot change a row, so they may differ on resume.
    result = run(tiny(threads=1), out, resume=True)
    assert result.played == 2 * 3 * 4 - 4


def test_an_unwritable_results_folder_is_one_clear_error(tmp_path, capsys):
    toml = write_toml(tmp_path / "tiny.toml")
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    assert cli.main(["run", str(toml), "--out", str(blocker / "run"), "--no-progress"]) == 2
    error = capsys.readouterr().err.strip()
    assert error.count("\n") == 0 and "cannot write to results folder" in error and str(blocker) in error


def _stop_point(rows, first, target, chunk):
    """Deals played under the stopping rule, recomputed from the full rows of the pairing."""
    deals = rows["game"].max() + 1
    for end in range(chunk, deals + chunk, chunk):
        part = rows[rows["game"] < end]
        points = part["white_points"].where(part["white"] == first, -part["white_points"])
        _, half = mean_interval(points.groupby(part["game"]).mean())
        if half <= target:
            return min(end, deals)
    return deals


def test_sequential_stopping_stops_each_pairing_at_its_target_and_resumes_exactly(tmp_path, monkeypatch):
    target = tiny(games=8, chunk=2, target_ci=0.45, engine="fast")  # (same rows, sooner)
    stopped = run(target, tmp_path / "whole").frame
    full = run(tiny(games=8, chunk=2, engine="fast"), tmp_path / "full").frame
    sizes = stopped.groupby("pairing").size()
    assert sizes.nunique() > 1  # (the target is chosen so that the pairings stop at different points)
    for pairing, first in ((0, PLAYERS[0]), (1, PLAYERS[0]), (2, PLAYERS[1])):
        rows = full[full["pairing"] == pairing]
        assert sizes[pairing] == 2 * _stop_point(rows, first, 0.45, 2)
    # Interrupted after three chunks and resumed: the same stopping points, the same rows.
    _fail_on_write(monkeypatch, after=3)
    with pytest.raises(OSError):
        run(target, tmp_path / "cut")
    monkeypatch.undo()
    pd.testing.assert_frame_equal(run(target, tmp_path / "cut", resume=True).frame, stopped)


def _bgsim(toml: Path, out: Path, cwd: Path, *extra: str, stop_after: str | None = None):
    env = {key: value for key, value in os.environ.items() if key != "BGSIM_STOP_AFTER"}
    if stop_after:
        env["BGSIM_STOP_AFTER"] = stop_after
    return subprocess.run(
        [sys.executable, "-m", "experiments", "run", str(toml), "--out", str(out), "--no-progress", *extra],
        cwd=cwd, capture_output=True, text=True, timeout=300, env=env)


@pytest.mark.parametrize("how", ["SIGKILL", "SIGINT"])
def test_a_killed_run_keeps_its_chunks_and_resume_equals_an_uninterrupted_run(tmp_path, how, baseline, capsys,
                                                                             monkeypatch):
    # The run signals itself right after its third chunk file is written: the same point on
    # a quiet machine and a busy one, so nothing races.  It is a process of its own (the kill
    # is real); the resume needs none, so it runs here.
    toml = write_toml(tmp_path / "tiny.toml", games=4, chunk=1)
    out = tmp_path / "run"
    stopped = _bgsim(toml, out, tmp_path, stop_after=f"3:{how}")
    kept = sorted(path.name for path in (out / "chunks").glob("*.parquet"))
    assert len(kept) == 3
    assert not list((out / "chunks").glob(".*"))
    assert json.loads((out / "run.json").read_text())["status"] == "running"
    if how == "SIGINT":
        assert stopped.returncode == 130
        assert "--resume" in stopped.stderr and "3 finished chunks are kept" in stopped.stderr
    else:
        assert stopped.returncode == -signal.SIGKILL

    monkeypatch.delenv("BGSIM_STOP_AFTER", raising=False)
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    code = cli.main(["run", str(toml), "--out", str(out), "--no-progress", "--resume"])
    err = capsys.readouterr().err
    assert code == 0, err
    assert "3 finished chunks on disk" in err
    record = json.loads((out / "run.json").read_text())
    assert record["status"] == "finished"

    whole = baseline[1]  # the same experiment, chunked differently: the same rows
    pd.testing.assert_frame_equal(load_rows(out), whole)
    # Nothing finished was replayed: the resumed session played only the missing chunks,
    # and the summary's speed is that session's games over that session's time.
    played = len(whole) - 2 * len(kept)
    assert record["sessions"][-1]["games"] == played == record["games_played_last_session"]
    # both rounded: the speed to 0.1 game/s (on a busy machine a slow session's 1.05 reads 1.0)
    assert record["games_per_s"] == pytest.approx(played / record["elapsed_s"], rel=0.01, abs=0.051)
    summary = (out / "summary.md").read_text()
    assert f"{len(whole)} games over 2 sessions, the last one playing {played} of them in" in summary


def test_a_billion_game_run_starts_at_once_in_little_memory(tmp_path, monkeypatch):
    import tracemalloc

    monkeypatch.setenv("BGSIM_STOP_AFTER", "1")  # SIGINT once the first chunk is on disk
    experiment = tiny(games=10**9, chunk=1)
    tracemalloc.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            run(experiment, tmp_path / "huge")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 20 * 2**20  # nothing proportional to the 3 billion chunks it could have
    assert len(list((tmp_path / "huge" / "chunks").glob("*.parquet"))) == 1
    assert json.loads((tmp_path / "huge" / "run.json").read_text())["status"] == "running"


def test_same_rows_on_the_fast_engine_whatever_the_thread_count(baseline, tmp_path):
    _, frame = baseline
    for threads in (1, 2):
        fast = run(tiny(engine="fast", threads=threads), tmp_path / f"fast{threads}")
        pd.testing.assert_frame_equal(fast.frame, frame)
        assert json.loads((fast.folder / "run.json").read_text())["engines_used"] == ["fast"]


def test_a_run_says_its_size_up_front_and_estimates_the_rest_once(tmp_path):
    lines = []
    run_experiment(tiny(chunk=1), tmp_path / "run", progress=False, log=lines.append)
    assert lines[0].startswith("tiny: 3 pairings × 4 deals × 2 seatings = 24 games (duplicate dice)")
    estimates = [line for line in lines if line.startswith("about ")]
    assert len(estimates) == 1 and "to go at ~" in estimates[0] and "games/s" in estimates[0]
    assert lines.index(estimates[0]) < len(lines) - 1  # before the end, not after it


def test_a_run_announces_the_first_compile_only_when_the_fast_engine_will_play(tmp_path, monkeypatch,
                                                                              each_run_its_kernels):
    from experiments.running.machine import COMPILING

    monkeypatch.setattr(runner, "fast_compile_pending", lambda players=(): True)
    lines = []
    run_experiment(tiny(games=1), tmp_path / "reference", progress=False, log=lines.append)
    assert not [line for line in lines if line.startswith(COMPILING)]  # the reference engine compiles nothing
    # (A stand-in says the fast engine would play; the games themselves stay on the reference one.)
    monkeypatch.setattr(runner._Session, "_engines_used", lambda self, pairings: {"fast"})
    lines = []
    run_experiment(tiny(games=1), tmp_path / "fast", progress=False, log=lines.append)
    # the run's kernels are those of everyone it seats, named with what they take to compile
    said = [line for line in lines if line.startswith(COMPILING)]
    assert len(said) == 1 and said[0].startswith(
        f"{COMPILING} for {', '.join(sorted({bot for spec in PLAYERS for bot in spec.split('+')}))} (first use, ~"), said


def test_the_first_compile_of_exacts_kernels_is_announced_too(monkeypatch):
    from bgsim.fast.families import family
    from experiments.running.machine import fast_compile_pending

    # the base kernels ready, exact's family not: only a run with exact compiles
    monkeypatch.setattr("bgsim.fast.compile.compiled_or_cached",
                        lambda dispatcher: dispatcher is not family("every_bot_with_exact").play_batch)
    assert not fast_compile_pending([make_player("nn+keith")])
    assert fast_compile_pending([make_player("nn+keith"), make_player("nn+exact")])
