"""``bgsim validate`` and the parts of ``bgsim bench`` that decide pass or fail."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest

from bgsim.bearoff import match
from bgsim.series import play_games
from bots import make_player
from conftest import one_error_line
from experiments import cli
from experiments.cli import main
from experiments.studies.bench import compare, ratios
from experiments.studies.validation import reference_pool

ROOT = Path(__file__).resolve().parent.parent


# The default set passing on a small run (no difference, 3 positions x 21 rolls of legal plays)
# is test_readme's run of the README's `bgsim validate`: one such run for the suite.


def test_validate_one_pairing_with_rule_options(capsys):
    code = main(["validate", "--games", "3", "--positions", "0", "--threads", "1", "--players",
                 "racer+pipdiff(double=3,take=20)", "pubeval+keith", "--beaver", "--jacoby",
                 "--automatic-doubles", "1", "--max-cube", "8"])
    assert code == 0
    assert "3 games (3 games) identical" in capsys.readouterr().out


def test_validate_reference_workers_run_parallel_kernels_after_the_fast_engine_ran():
    # Forked workers died here (BrokenProcessPool, "fork() called from a process already using
    # GNU OpenMP"): the fast engine's game loop is a parallel kernel, and so is the build of
    # exact's match tables, which its reference side runs in a worker.  No short validate run
    # reaches those tables, so the pool is asked to build one directly.
    play_games(make_player("heuristic"), make_player("heuristic"), 1, 2, engine="fast")
    pool = reference_pool(2)
    try:
        built = pool.submit(match.match_tables, 2, 3, False, 3).result()
    finally:
        pool.shutdown()
    assert np.array_equal(built.values, match.match_tables(2, 3, False, 3).values)


@pytest.mark.parametrize("argv, message", [
    (["validate", "--games", "0"], "--games"),
    (["validate", "--players", "gnubg", "random", "--games", "1"], "cannot run in the fast engine"),
    (["validate", "--players", "nosuchbot", "random", "--games", "1"], "nosuchbot"),
    (["validate", "--players", "random", "random", "--match-to", "3", "--jacoby"], "match"),
])
def test_validate_refuses_bad_input(argv, message, capsys):
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def _run(random_1thread, gnubg=None):
    figures = {name: {"per_s": value, "plies_per_s": 0.0} for name, value in (
        ("fast_random_1thread", random_1thread), ("fast_random_all", 2 * random_1thread),
        ("fast_heuristic_1thread", 100.0), ("fast_heuristic_all", 190.0), ("fast_generations", 1e5))}
    if gnubg:
        figures["gnubg_nn_random"] = {"per_s": gnubg, "plies_per_s": 0.0}
    return {"figures": figures}


def test_compare_flags_only_a_slowdown_beyond_the_margin():
    baseline = _run(1000.0, gnubg=200.0)
    assert compare(_run(800.0, gnubg=200.0), baseline, 0.3) == []
    slower = compare(_run(600.0, gnubg=200.0), baseline, 0.3)
    assert [line.split(":")[0] for line in slower] == ["fast_random_1thread", "fast_random_all"]
    # against the gnubg-nn loop, a slower machine is no slowdown
    assert compare(_run(500.0, gnubg=100.0), baseline, 0.3) == []
    # without the loop in both runs, games/s are compared as they are
    assert compare(_run(500.0), baseline, 0.3) != []


def test_ratios_are_figures_over_figures():
    run = _run(1000.0, gnubg=200.0)["figures"]
    run["reference_random"] = {"per_s": 5.0, "plies_per_s": 0.0}
    out = ratios(run)
    assert out["fast_random_1thread_vs_gnubg_nn_random"] == 5.0
    assert out["all_cores_vs_1thread_random"] == 2.0
    assert out["fast_1thread_vs_reference_random"] == 200.0


def test_the_rollout_speed_is_trials_per_second_over_the_gnubg_best_move_loop():
    figures = {"rollout_nn_1thread": {"per_s": 900.0, "plies_per_s": 0.0},
               "gnubg_nn_best_move": {"per_s": 300.0, "plies_per_s": 17000.0}}
    assert ratios(figures)["rollout_nn_1thread_vs_gnubg_nn_best_move"] == 3.0


def test_fast_over_reference_compares_the_same_games():
    # the fast engine's rate on the reference engine's own games, not on a longer sample's
    figures = {"fast_heuristic_1thread": {"per_s": 12000.0, "plies_per_s": 0.0},
               "fast_heuristic_same_1thread": {"per_s": 15000.0, "plies_per_s": 0.0},
               "reference_heuristic": {"per_s": 120.0, "plies_per_s": 0.0}}
    assert ratios(figures)["fast_1thread_vs_reference_heuristic"] == 125.0
    del figures["fast_heuristic_same_1thread"]  # a run from before the same-games figure
    assert ratios(figures)["fast_1thread_vs_reference_heuristic"] == 100.0


def test_a_four_player_chouette_is_set_against_a_money_game_of_the_same_bots(monkeypatch):
    from experiments.studies import bench

    figures = {"fast_heuristic_1thread": {"per_s": 10000.0, "plies_per_s": 0.0, "per_cpu_s": 10000.0},
               "fast_chouette4_heuristic_1thread": {"per_s": 6000.0, "plies_per_s": 0.0, "per_cpu_s": 5000.0},
               "fast_nn_cube_1thread": {"per_s": 800.0, "plies_per_s": 0.0},
               "fast_chouette4_nn_cube_1thread": {"per_s": 200.0, "plies_per_s": 0.0}}
    out = ratios(figures)
    assert out["fast_chouette4_heuristic_1thread_vs_fast_heuristic_1thread"] == 0.6
    assert out["fast_chouette4_heuristic_1thread_vs_fast_heuristic_1thread_per_cpu"] == 0.5
    assert out["fast_chouette4_nn_cube_1thread_vs_fast_nn_cube_1thread"] == 0.25
    targets = {name: (sign, value) for name, sign, value in bench.TARGETS}
    assert targets["fast_chouette4_nn_cube_1thread_vs_fast_nn_cube_1thread"] == (">=", 0.5)
    # the bench plays 4-player chouettes of heuristic+pipdiff and nn+nn on one session each
    asked = []
    monkeypatch.setattr(bench, "_fast", lambda white, black, seed, games, threads: (1.0, 1.0, 1.0))
    monkeypatch.setattr(bench, "_reference", lambda white, black, seed, games: (1.0, 1.0))
    monkeypatch.setattr(bench, "_rollout", lambda player, seed, threads: (1.0, 0.0, 1.0))
    monkeypatch.setattr(bench, "_chouette", lambda player, seed, games, seats=4: asked.append(
        (player.name, seats)) or (1.0, 1.0, 1.0))
    monkeypatch.setattr(bench, "_available", lambda module: False)
    figures = bench.measure(games=800, rounds=1, seed=3, log=lambda text: None)
    assert ("heuristic+pipdiff", 4) in asked and ("nn+nn", 4) in asked
    assert {"fast_chouette4_heuristic_1thread", "fast_chouette4_nn_cube_1thread", "fast_nn_cube_1thread"} <= set(figures)


def test_the_bench_times_the_fast_engine_on_the_reference_games(monkeypatch):
    from experiments.studies import bench

    asked = {}

    def fake_fast(white, black, seed, games, threads):
        asked.setdefault(white.name, []).append(games)
        return 1.0, 1.0, 1.0

    def fake_reference(white, black, seed, games):
        asked.setdefault("reference " + white.name, []).append(games)
        return 1.0, 1.0

    monkeypatch.setattr(bench, "_fast", fake_fast)
    monkeypatch.setattr(bench, "_reference", fake_reference)
    monkeypatch.setattr(bench, "_rollout", lambda player, seed, threads: (1.0, 0.0, 1.0))
    monkeypatch.setattr(bench, "_chouette", lambda player, seed, games, seats=4: (1.0, 1.0, 1.0))
    monkeypatch.setattr(bench, "_available", lambda module: False)
    bench.measure(games=8000, rounds=1, seed=3, log=lambda text: None)
    reference = asked["reference heuristic+pipdiff"][0]
    same = [games for games in asked["heuristic+pipdiff"] if not isinstance(games, int)]
    assert same and set(same[0]) == set(range(reference)) and len(same[0]) > reference


def test_compare_holds_the_nn_kernel_and_rollouts_to_the_best_move_loop():
    def run(nn, loop):
        return {"figures": {"fast_nn_1thread": {"per_s": nn, "plies_per_s": 0.0},
                            "rollout_nn_1thread": {"per_s": 2 * nn, "plies_per_s": 0.0},
                            "gnubg_nn_best_move": {"per_s": loop, "plies_per_s": 0.0}}}

    baseline = run(1000.0, 200.0)
    assert compare(run(500.0, 100.0), baseline, 0.3) == []  # a machine half as fast
    slower = compare(run(500.0, 200.0), baseline, 0.3)
    assert [line.split(":")[0] for line in slower] == ["fast_nn_1thread", "rollout_nn_1thread"]
    assert "gnubg_nn_best_move loop" in slower[0]


def test_compare_names_a_baseline_from_another_processor():
    from experiments.studies.bench import machine_differences

    here = {"machine": {"cpu": "Xeon A", "vector_extensions": ["avx2", "avx512f"]}}
    assert machine_differences(here, here) == []
    there = {"machine": {"cpu": "Xeon B", "vector_extensions": ["avx2"]}}
    notes = machine_differences(here, there)
    assert any("Xeon A now, Xeon B" in note for note in notes)
    assert any("avx512f here only" in note for note in notes)
    assert machine_differences(here, {"machine": {}}) == []  # an old baseline says nothing


def test_ratios_set_this_checkout_against_the_other_and_per_cpu_second():
    figures = {"fast_nn_1thread": {"per_s": 390.0, "plies_per_s": 0.0, "per_cpu_s": 400.0},
               "against_fast_nn_1thread": {"per_s": 300.0, "plies_per_s": 0.0, "per_cpu_s": 250.0},
               "gnubg_nn_best_move": {"per_s": 100.0, "plies_per_s": 0.0, "per_cpu_s": 80.0}}
    out = ratios(figures)
    assert out["fast_nn_1thread_vs_against"] == 1.3
    assert out["fast_nn_1thread_vs_against_per_cpu"] == 1.6
    assert out["fast_nn_1thread_vs_gnubg_nn_best_move"] == 3.9
    assert out["fast_nn_1thread_vs_gnubg_nn_best_move_per_cpu"] == 5.0
    assert not any(name.startswith("against_") for name in out)


def test_against_ratios_set_worker_against_worker_where_this_checkout_had_one():
    """With --against, this checkout's figure in a fresh worker is what is set against the other
    checkout's (its in-process figure, after every other contender, is reported beside it)."""
    figures = {"fast_nn_1thread": {"per_s": 240.0, "plies_per_s": 0.0, "per_cpu_s": 240.0},
               "worker_fast_nn_1thread": {"per_s": 300.0, "plies_per_s": 0.0, "per_cpu_s": 300.0},
               "against_fast_nn_1thread": {"per_s": 300.0, "plies_per_s": 0.0, "per_cpu_s": 250.0},
               "gnubg_nn_best_move": {"per_s": 100.0, "plies_per_s": 0.0, "per_cpu_s": 80.0}}
    out = ratios(figures)
    assert out["fast_nn_1thread_vs_against"] == 1.0
    assert out["fast_nn_1thread_vs_against_per_cpu"] == 1.2
    assert out["fast_nn_1thread_in_process_vs_worker"] == 0.8
    assert out["fast_nn_1thread_vs_gnubg_nn_best_move"] == 2.4  # the in-process figure, as before
    assert not any(name.startswith(("against_", "worker_")) for name in out)


@pytest.mark.parametrize("relative", [False, True])
def test_the_bench_runs_another_checkouts_engine_in_a_worker(relative, monkeypatch):
    import os
    import sys

    from experiments.studies.bench import Against

    python = sys.executable
    if relative:  # as a user types it: a path from the working folder
        monkeypatch.chdir(Path(python).parent)
        python = os.path.join(".", Path(python).name)
    against = Against(python)
    try:
        games_per_s, plies_per_s, cores = against.ask(kind="fast", player="random", seed=1, games=3, threads=1)
        assert games_per_s > 0 and plies_per_s > games_per_s and cores >= 0
        assert against.commit  # this checkout, found from where the worker imported bgsim
    finally:
        against.close()


def test_the_bench_refuses_a_missing_interpreter_for_against(tmp_path):
    assert main(["bench", "--games", "100", "--no-compile", "--out", str(tmp_path),
                 "--against", str(tmp_path / "nopython")]) == 2


# --- validate's and bench's command lines ----------------------------------------------------

def test_bench_writes_its_runs_where_git_ignores_them():
    args = cli.build_parser().parse_args(["bench"])
    assert Path(args.out) == Path("results/runs/bench")
    ignored = subprocess.run(["git", "check-ignore", "-q", "results/runs/bench/latest.json"], cwd=ROOT)
    assert ignored.returncode == 0
    tracked = subprocess.run(["git", "check-ignore", "-q", "results/bench/latest.json"], cwd=ROOT)
    assert tracked.returncode == 1  # the committed figures are only rewritten when asked


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
                     "--threads", "1"]) == 0
    out = capsys.readouterr().out
    assert "validating 1 cases" in out and "case 1/1: random vs random" in out
