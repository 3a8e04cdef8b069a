"""What a new user hit in 233 tries (issue 23), one test per finding: silent ignores, JSON that
is not JSON, errors that blame the wrong thing, a cache that cannot be written, long phases
that say nothing, runs that cannot be resumed or are overwritten, intervals of losses below
zero, and worker processes that die after a parallel kernel."""

from __future__ import annotations

import json
import math
import shlex
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bgsim.board import Position
from experiments import cli
from experiments.running import progress

ROOT = Path(__file__).resolve().parent.parent


def one_error_line(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and err.startswith("bgsim: error: "), err
    return err


def race_id() -> str:
    board = [0] * 26
    board[6], board[5], board[4] = 3, 3, 2
    board[19], board[20], board[21] = -3, -3, -2
    return Position(tuple(board)).position_id


# --- no silent ignores -------------------------------------------------------------------------

@pytest.mark.parametrize("words, named", [
    (["validate", "--match-to", "5", "--games", "1"], "--match-to has no effect without --players"),
    (["validate", "--jacoby", "--max-cube", "8"], "--max-cube and --jacoby have no effect without --players"),
    (["met", "3", "5", "--gammon-rate", "0.9"], "--gammon-rate has no effect with --table kazaross-xg2"),
    (["met", "--table", "derived", "--from-player", "racer", "--gammon-rate", "0.3"],
     "--gammon-rate has no effect with --from-player"),
    (["met", "--games", "100"], "--games has no effect without --from-player"),
    (["met", "--seed", "4"], "--seed has no effect without --from-player"),
    (["met", "--post-crawford"], "--post-crawford has no effect without a score A B"),
    (["met", "3", "5", "--size", "4"], "--size has no effect with a score A B"),
    (["play", "random", "random", "--games", "2", "--out", "x.parquet", "--match-to", "0"],
     "--match-to must be at least 1, got 0"),
    (["trace", "random", "random", "--match-to", "0"], "--match-to must be at least 1, got 0"),
    (["chouette", "random", "random", "random", "--games", "2", "--out", "c.parquet", "--match-to", "0"],
     "--match-to must be at least 1, got 0"),
    (["play", "random", "random", "--games", "2", "--out", "x.parquet", "--engine", "reference", "--threads", "1"],
     "--threads has no effect with --engine reference"),
    (["run", "threshold_sweep", "--games", "1", "--engine", "reference", "--threads", "2"],
     "--threads has no effect with --engine reference"),
    (["tournament", "--games", "1", "--engine", "reference", "--threads", "1"],
     "--threads has no effect with --engine reference"),
    (["bench", "--margin", "0.5"], "--margin has no effect without --compare"),
    (["rollout", "4HPwATDgc/ABMA", "--player", "heuristic+pipdiff"], "rollouts are cubeless"),
])
def test_an_option_with_no_effect_is_an_error_that_says_why(words, named, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert cli.main(words) == 2
    assert named in one_error_line(capsys)
    assert list(tmp_path.iterdir()) == []  # nothing started, nothing written


def test_run_refuses_threads_when_the_files_engine_is_the_reference(tmp_path, capsys):
    experiment = tmp_path / "slow.toml"
    experiment.write_text('name = "slow"\nplayers = ["random", "racer"]\ngames = 2\nseed = 1\n'
                          'engine = "reference"\n')
    assert cli.main(["run", str(experiment), "--threads", "2", "--out", str(tmp_path / "out")]) == 2
    assert "--threads has no effect with --engine reference" in one_error_line(capsys)
    assert not (tmp_path / "out").exists()


def test_cube_audit_refuses_sampling_options_with_from(tmp_path, capsys):
    positions = tmp_path / "races.txt"
    positions.write_text(race_id() + "\n")
    assert cli.main(["cube-audit", "--players", "keith", "--from", str(positions), "--seed", "2",
                     "--sampler", "pubeval", "--out", str(tmp_path / "a")]) == 2
    assert "--seed and --sampler have no effect with --from" in one_error_line(capsys)
    assert not (tmp_path / "a").exists()


# --- the other findings ------------------------------------------------------------------------

def test_rollout_json_of_one_trial_is_json_with_null_for_what_cannot_be_estimated(capsys):
    assert cli.main(["rollout", race_id(), "--games", "1", "--player", "heuristic", "--threads", "1",
                     "--json", "--no-progress"]) == 0
    text = capsys.readouterr().out

    def refuse(constant):
        raise AssertionError(f"{constant} is not JSON")

    answer = json.loads(text, parse_constant=refuse)  # bare NaN would be refused here
    assert answer["games"] == 1 and answer["se"]["equity"] is None
    assert all(value is None for value in answer["se"].values())  # one trial: no spread to estimate


def test_rollout_with_minus_one_threads_blames_threads(capsys):
    assert cli.main(["rollout", race_id(), "--threads", "-1", "--no-progress"]) == 2
    err = one_error_line(capsys)
    assert "--threads must be at least 1, got -1" in err and "even number" not in err


def test_bearoff_check_with_a_negative_seed_names_seed(capsys):
    assert cli.main(["bearoff", "check", "--seed", "-1", "--positions", "2"]) == 2
    assert "--seed must be a whole number from 0 to 2**63-1, got -1" in one_error_line(capsys)


def test_an_unwritable_cache_is_one_warning_line_per_database(tmp_path, capsys, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("BGSIM_CACHE", str(blocker / "cache"))  # cannot be created: its parent is a file
    monkeypatch.setenv("BGSIM_BEAROFF_CHECKERS", "2")
    board = [0] * 26
    board[1], board[24] = 1, -1  # one checker each on its 1-point: the side on roll is off at once
    assert cli.main(["eval", Position(tuple(board)).position_id]) == 0
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert lines and all(line.startswith("bgsim: warning: could not keep the ") for line in lines), lines
    assert all("set BGSIM_CACHE to a folder you can write" in line for line in lines)
    assert "UserWarning" not in captured.err and "warnings.warn" not in captured.err
    assert "win  100.000%" in captured.out  # and the answer is printed


def test_a_huge_cube_audit_says_early_how_long_it_will_take(tmp_path, capsys, monkeypatch):
    from experiments.studies import cube_audit

    monkeypatch.setattr(progress, "ESTIMATE_AFTER", 0.0)  # the estimate at the first positions found
    sample = cube_audit.sample_positions

    def stopped(sampler, count, seed, per_game, scope, found_more):
        calls = []

        def found(k):
            found_more(k)
            calls.append(k)
            if len(calls) == 3:
                raise KeyboardInterrupt  # the user gives up: the estimate was already said
        return sample(sampler, count, seed, per_game, scope, found)

    monkeypatch.setattr(cube_audit, "sample_positions", stopped)
    assert cli.main(["cube-audit", "--players", "keith", "--positions", str(10 ** 12), "--sampler", "pubeval",
                     "--out", str(tmp_path / "huge"), "--no-progress"]) == 130
    err = capsys.readouterr().err
    assert "sampling 1,000,000,000,000 race positions" in err
    assert "sampling: about " in err and " days to go at ~" in err


def test_the_readme_cube_audit_example_samples_as_the_committed_audit_did():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    (line,) = [line for line in text.splitlines()
               if line.startswith("bgsim cube-audit") and "--positions" in line
               and "--judge" not in line]  # the sampling audit of races
    args = cli.build_parser().parse_args(shlex.split(line.split("  #")[0])[1:])
    committed = json.loads((ROOT / "results" / "cube_audit" / "run.json").read_text())["identity"]
    assert (args.sampler, args.per_game) == (committed["sampler"], committed["per_game"])


# --- long phases speak -------------------------------------------------------------------------

def test_a_match_run_times_its_judging_in_run_json_and_its_last_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("BGSIM_MATCH_BEAROFF_CHECKERS", "2")
    monkeypatch.setattr(progress, "ESTIMATE_AFTER", 0.0)
    toml = tmp_path / "matches.toml"
    toml.write_text('name = "matches"\nplayers = ["random+pipdiff", "heuristic+pipdiff"]\nmatch_to = 3\n'
                    'games = 2\nchunk = 2\nengine = "reference"\njudge_cube = 2\n')
    assert cli.main(["run", str(toml), "--out", str(tmp_path / "run"), "--no-progress"]) == 0
    err = capsys.readouterr().err
    assert "then the cube decisions of the first 2 deals of every pairing are judged" in err  # said up front
    assert "judging: about " in err  # an estimate once the first matches are judged
    run = json.loads((tmp_path / "run" / "run.json").read_text())
    assert set(run["phases"]) == {"playing", "judging", "summaries"}
    assert all(seconds >= 0 for seconds in run["phases"].values())
    last = err.strip().splitlines()[-1]
    assert last.startswith("played ") and "; judging " in last and ", summaries " in last


def test_a_phase_estimates_once_and_keeps_its_time(monkeypatch):
    clock = iter([0.0, 10.0, 20.0, 30.0])  # the phase starts, two matches are judged, it ends

    class Clock:
        @staticmethod
        def perf_counter():
            return next(clock)

    monkeypatch.setattr(progress, "time", Clock)
    said, times = [], {"judging": 5.0}  # 5 s of an earlier session
    phase = progress.Phase("judging", 4, "matches", False, said.append, times)
    phase.update(1)  # 10 s for the first match (what is done once is in it): not trusted alone
    phase.update(1)  # 10 s for the second: two left at 0.1 a second
    phase.close()
    assert said == ["judging: about 20 s to go at ~0.1 matches/s"]
    assert times == {"judging": 35.0}


# --- runs that resume, and say the same on a finished one -----------------------------------------

def test_cross_check_refuses_a_folder_left_running_and_resumes_it(tmp_path, capsys, monkeypatch):
    words = ["cross-check", "--players", "keith", "--positions", "6", "--seed", "3", "--threads", "1",
             "--no-progress"]
    monkeypatch.setenv("BGSIM_STOP_AFTER", "2")  # Ctrl-C once two blocks of starts are played
    assert cli.main(words + ["--out", str(tmp_path / "parts")]) == 130
    err = capsys.readouterr().err
    assert "interrupted: 2 of 6 blocks of starts are played and kept" in err and "--resume" in err
    monkeypatch.delenv("BGSIM_STOP_AFTER")
    before = (tmp_path / "parts" / "run.json").read_text()
    assert cli.main(words + ["--out", str(tmp_path / "parts")]) == 2  # never overwritten silently
    assert "holds an unfinished cross-check: pass --resume" in one_error_line(capsys)
    assert (tmp_path / "parts" / "run.json").read_text() == before
    assert cli.main(words + ["--out", str(tmp_path / "parts"), "--resume"]) == 0
    assert cli.main(words + ["--out", str(tmp_path / "whole")]) == 0
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "parts" / "games.parquet"),
                                  pd.read_parquet(tmp_path / "whole" / "games.parquet"))
    err = capsys.readouterr().err
    assert "bgsim: warning: only 6 starts" in err  # and the small sample is said
    verdicts = pd.read_csv(tmp_path / "whole" / "cross_check.csv")["verdict"]
    assert all("exactly" in verdict or "only 6 starts: too few" in verdict for verdict in verdicts)


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


# --- honest intervals ----------------------------------------------------------------------------

def test_equity_lost_and_error_rate_intervals_never_go_below_zero():
    from experiments.studies import cube_audit

    # five sampling games, one decision each, one of them a costly error: 0.2 lost per decision
    rows = [{"rule": "r", "question": "take", "position_id": f"p{game}", "position_index": game, "game": game,
             "pips": 50, "bucket": "31-60", "truth": "exact", "window": True,
             "error": "wrong take" if game == 4 else "", "equity_lost": 1.0 if game == 4 else 0.0}
            for game in range(5)]
    frame = pd.DataFrame(rows).astype({"game": "Int64"})
    row = cube_audit.summarise(frame, ["r"]).iloc[0]
    values = np.array([0, 0, 0, 0, 1.0])
    normal_low = values.mean() - 1.959964 * values.std(ddof=1) / math.sqrt(5)
    assert normal_low < 0  # the interval the issue found: below zero for a loss
    # by hand: se = 0.2 (clustered, one decision a game), log scale 0.2 * exp(+-1.96 * 0.2 / 0.2)
    assert (row["equity_lost_low"], row["equity_lost_high"]) == pytest.approx(
        (0.2 * math.exp(-1.959964), 0.2 * math.exp(1.959964)), rel=1e-5)
    # Wilson's interval at n = p(1-p)/se**2 = 0.16 / 0.04 = 4
    z, n, p = 1.959964, 4.0, 0.2
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    assert (row["error_rate_low"], row["error_rate_high"]) == pytest.approx((centre - half, centre + half), rel=1e-5)
    assert row["error_rate_low"] > 0 and row["equity_lost_low"] > 0
    # no loss at all: 0 .. 0, and never a negative bound
    none = cube_audit.summarise(frame.assign(equity_lost=0.0, error=""), ["r"]).iloc[0]
    assert (none["equity_lost_low"], none["equity_lost_high"]) == (0.0, 0.0) and none["error_rate_low"] == 0.0
    assert 0 < none["error_rate_high"] == pytest.approx(z * z / (5 + z * z))  # Wilson at p = 0, n = 5 units


def test_a_games_audit_s_intervals_never_go_below_zero():
    from experiments.studies import cube_audit_games

    # five games of real play, one take each, one of them a costly error: as the audit's test above
    rows = [{"rule": "gnubg", "role": "player", "question": "take", "game": game, "truth": "exact",
             "error": "wrong take" if game == 4 else "", "equity_lost": 1.0 if game == 4 else 0.0}
            for game in range(5)]
    row = cube_audit_games.summarise(pd.DataFrame(rows), ["gnubg"]).iloc[0]
    assert row["equity_lost"] == pytest.approx(0.2)
    # by hand: se = 0.2 (one decision a game), the log scale 0.2 * exp(+-1.96 * 0.2 / 0.2)
    assert (row["equity_lost_low"], row["equity_lost_high"]) == pytest.approx(
        (0.2 * math.exp(-1.959964), 0.2 * math.exp(1.959964)), rel=1e-5)
    z, n, p = 1.959964, 4.0, 0.2  # Wilson's interval at n = p(1-p)/se**2 = 4
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    assert (row["error_rate_low"], row["error_rate_high"]) == pytest.approx((centre - half, centre + half), rel=1e-5)
    assert row["error_rate_low"] > 0 and row["equity_lost_low"] > 0  # the normal interval's would be -0.19


def test_a_small_audit_says_its_intervals_are_rough(tmp_path, capsys):
    races = tmp_path / "races.txt"
    races.write_text(race_id() + "\n")
    assert cli.main(["cube-audit", "--players", "keith", "--from", str(races), "--out", str(tmp_path / "a"),
                     "--no-progress"]) == 0
    captured = capsys.readouterr()
    assert "bgsim: warning: only 1 independent units" in captured.err
    assert "(only 1 units: rough)" in (tmp_path / "a" / "summary.md").read_text()


# --- worker processes after a parallel kernel ------------------------------------------------------

def play_fast_games(count: int) -> int:
    """In a worker: a parallel kernel (the fast engine on two threads)."""
    from bgsim.series import play_games
    from bots import make_player

    frame = play_games(make_player("random"), make_player("random"), 1, count, engine="fast", threads=2)
    return len(frame)


def test_worker_processes_run_parallel_kernels_after_the_parent_ran_one():
    from experiments.running.workers import worker_pool

    assert play_fast_games(8) == 8  # the parent's OpenMP (or other) thread pool is now up
    with worker_pool(2) as pool:
        assert pool is not None
        assert [future.result(timeout=600) for future in [pool.submit(play_fast_games, 4) for _ in range(2)]] == [4, 4]


def test_validate_with_two_workers_after_a_parallel_kernel_ran(capsys, monkeypatch):
    from experiments.running import workers
    from experiments.studies import validation

    pools = []

    def recorded(count):
        pools.append(count)
        return workers.worker_pool(count)

    monkeypatch.setattr(validation, "worker_pool", recorded)  # the safe pool, the test above's
    assert play_fast_games(8) == 8
    assert cli.main(["validate", "--players", "random+pipdiff", "heuristic+pipdiff", "--games", "4",
                     "--positions", "0", "--threads", "2"]) == 0
    out = capsys.readouterr().out
    assert "validated:" in out and "no difference" in out
    assert pools == [2]


# --- bad input stops before anything is made ---------------------------------------------------------

def test_a_sampler_without_a_fast_kernel_is_refused_before_the_audit_folder_is_made(tmp_path, capsys):
    assert cli.main(["cube-audit", "--players", "keith", "--positions", "5", "--sampler", "gnubg",
                     "--out", str(tmp_path / "audit"), "--no-progress"]) == 2
    assert "the sampler 'gnubg' has no fast-engine kernel" in one_error_line(capsys)
    assert list(tmp_path.iterdir()) == []  # no folder with a run.json of an audit that never ran


@pytest.mark.parametrize("words, why", [
    (["gnubg", "random"], "gnubg vs random is played by the reference engine"),  # a bot the fast engine lacks
])
def test_threads_where_the_reference_engine_plays_is_an_error_that_says_why(words, why, tmp_path, capsys):
    out = tmp_path / "games.parquet"
    assert cli.main(["play", *words, "--games", "2", "--threads", "2", "--out", str(out), "--no-progress"]) == 2
    assert f"--threads has no effect here: {why}, on one core" in one_error_line(capsys)
    assert list(tmp_path.iterdir()) == []


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


# --- every command stopped by Ctrl-C exits 130 -----------------------------------------------------

def test_a_rollout_stopped_by_ctrl_c_exits_130_like_every_command(capsys, monkeypatch):
    monkeypatch.setenv("BGSIM_STOP_AFTER", "1")  # Ctrl-C once the first batch of trials is done
    assert cli.main(["rollout", race_id(), "--games", "1440", "--player", "heuristic", "--threads", "1",
                     "--no-progress"]) == 130
    captured = capsys.readouterr()
    assert "interrupted: reporting the 144 of 1440 trials done" in captured.err
    assert "Traceback" not in captured.err and "KeyboardInterrupt" not in captured.err
    assert "144 trials" in captured.out  # what was finished is reported, not thrown away


def test_a_cross_check_stopped_by_ctrl_c_ends_its_workers_without_a_traceback(tmp_path, capfd, monkeypatch):
    words = ["cross-check", "--players", "keith", "--positions", "6", "--seed", "3", "--threads", "2",
             "--out", str(tmp_path / "parts"), "--no-progress"]
    monkeypatch.setenv("BGSIM_STOP_AFTER", "1")  # Ctrl-C once the first block of starts is kept
    assert cli.main(words) == 130
    err = capfd.readouterr().err  # the workers' own stderr too: they share this process's
    assert "interrupted: 1 of 6 blocks of starts are played and kept" in err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err and "BrokenProcessPool" not in err
    assert len(list((tmp_path / "parts" / "chunks").glob("block-*.parquet"))) == 1
    monkeypatch.delenv("BGSIM_STOP_AFTER")
    assert cli.main(words + ["--resume"]) == 0  # and the workers started again finish it


# --- long phases speak -------------------------------------------------------------------------

def test_building_the_bear_off_databases_says_first_what_and_how_long(tmp_path, capsys, monkeypatch):
    from experiments.studies import bearoff

    monkeypatch.setenv("BGSIM_CACHE", str(tmp_path))  # nothing built yet
    monkeypatch.setenv("BGSIM_BEAROFF_CHECKERS", "2")
    assert [kind for kind, _, _ in bearoff.pending_builds()] == ["one-sided", "two-sided"]
    said = []
    bearoff.announce_builds(said.append)  # what cube-audit and cross-check say before their work
    assert [line.split(" (")[0] for line in said] == ["building the one-sided bear-off database",
                                                      "building the two-sided bear-off database"]
    assert all(": about " in line and "`bgsim bearoff build`" in line for line in said)
    assert cli.main(["bearoff", "build"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert [line.split(" (")[0] for line in err] == ["building the one-sided database", "building the two-sided database"]
    assert all(": about " in line for line in err)
    assert bearoff.pending_builds() == []  # built and kept: the next command says nothing
    assert cli.main(["bearoff", "build"]) == 0
    assert "building" not in capsys.readouterr().err


# --- one vocabulary: a results folder is optional everywhere ------------------------------------------

def test_a_results_folder_defaults_to_results_runs_in_every_command_that_keeps_one(tmp_path, capsys, monkeypatch):
    PARSER = cli.build_parser()
    keeping = {name: command for name, command in cli.commands(PARSER).items()
               if any("--resume" in action.option_strings for action in command._actions)
               and any(action.metavar == "DIR" for action in command._actions if "--out" in action.option_strings)}
    assert {"run", "tournament", "cube-audit", "cross-check"} <= set(keeping)
    for name, command in keeping.items():
        (out,) = [action for action in command._actions if "--out" in action.option_strings]
        assert not out.required and out.default is None, name
        named = "NAME" if name in ("run", "tournament") else name  # run: the experiment's name
        assert f"default results/runs/{named}-TIMESTAMP" in out.help, name
    monkeypatch.chdir(tmp_path)
    (tmp_path / "races.txt").write_text(race_id() + "\n")
    assert cli.main(["cube-audit", "--players", "keith", "--from", "races.txt", "--no-progress"]) == 0
    (folder,) = (tmp_path / "results" / "runs").iterdir()
    assert folder.name.startswith("cube-audit-") and (folder / "summary.md").exists()


# --- honest small samples ----------------------------------------------------------------------

def test_a_cross_check_of_ten_starts_never_says_disagree_without_saying_too_few():
    from experiments.stats import SMALL_SAMPLE
    from experiments.studies.cross_check import verdict

    assert verdict(0.01, 0.05, 10) == "disagree (only 10 starts: too few for the interval to be trusted)"
    assert verdict(-0.01, 0.05, 10).endswith("(only 10 starts: too few for the interval to be trusted)")
    assert verdict(0.01, 0.05, SMALL_SAMPLE) == "disagree"  # enough starts: the plain verdict
    assert verdict(0.0, 0.0, 10) == "agree exactly"  # no interval to doubt
