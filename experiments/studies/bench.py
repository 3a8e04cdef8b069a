"""``bgsim bench``: how fast the engines are, side by side in one process and one run.

Every figure is measured in rounds that interleave the contenders (best round kept), so a
machine shared with other work slows all of them alike and the ratios stay meaningful.

* fast engine, 1 thread and all cores: ``random`` vs ``random``,
  ``heuristic+pipdiff`` vs ``heuristic+pipdiff`` and ``nn`` vs ``nn`` (cubeless), games/s and
  plies/s; ``nn`` against a 0-ply game loop over ``gnubg_nn.best_move`` (GNU Backgammon's net
  choosing every play, the strong player it is meant to replace at speed);
* a 4-player chouette (``bgsim.chouette``, team cubes; one session, so one thread) of
  ``heuristic+pipdiff`` and of ``nn+nn``, against a two-player money game of the same bots on
  one thread: the chouette's games/s over the money game's (issue 17's target: at least 0.5);
* a 1,296-trial cubeless rollout of the opening position (side on roll before its roll) with
  ``nn`` (``bgsim.rollout``), trials/s on 1 thread and all cores, against the same
  ``gnubg_nn.best_move`` loop, which plays that position out too;
* the reference engine on fewer of the same games, and the fast engine on exactly those games
  (repeated until they take a measurable time): the fast ÷ reference ratios compare the same
  games, not a short sample's rate with a long one's (game lengths vary a lot between samples);
* legal-play generations per second (fast kernel and reference ``legal_plays``) over the
  positions of real games, all 36 rolls each;
* when installed: a uniform-random game loop over ``gnubg_nn.moves`` and an OpenSpiel random
  playout of ``backgammon``, and every figure as a ratio to them;
* the UBGI controller's cost a decision (``bench_ubgi.py``): ``random`` against a ``bgsim ubgi
  random`` engine over pipes, beside the same games in-process (target: under 100 us of CPU a
  decision on one core, legality checked);
* cold compile (a fresh process with an empty ``NUMBA_CACHE_DIR``) and cached start (the same
  again once the cache is filled), both up to the first finished game;
* with ``--against PYTHON``: another checkout's engine (the interpreter of its virtual
  environment), in a worker process, in the same interleaved rounds, so that one commit is
  measured against another side by side and never from two moments of a shared machine; this
  checkout runs the same questions in a fresh worker of its own (``worker_*``), and the ratios
  set worker against worker (``*_in_process_vs_worker`` says what the bench's own process,
  which has played every other contender, gets instead);
* with ``--profile``: where the time goes (``bgsim.fast.timing.profile``: the game loop of
  ``random``, ``heuristic+pipdiff`` and ``nn`` by phase, duplicate removal, ``nn``'s output
  layer) and what a cold compile spends its time on (by kernel module and function, and by
  compiler pass), also written as a Markdown report beside the JSON.

Every figure keeps its wall-clock rate (``per_s``), its rate per CPU-second (``per_cpu_s``) and
the cores it got (``cores_used``, CPU seconds per wall second): on a machine shared with other
work the CPU-second rates of one thread are the steadier ones.  Results go to
``results/runs/bench/`` (ignored by git; ``--out`` elsewhere) as JSON with the commit (and
whether the tree was clean), the processor and its vector extensions, the cores, the versions,
the load average and the other processes busy at the start and at the end.
``--compare`` checks the run against ``results/bench/baseline.json`` and exits 1 when a figure
is slower than the baseline by more than ``--margin`` (default 30 %: shared 2-core machines
swing by 20 % between runs).  Figures compared are ratios to the GNU Backgammon loops when both
runs have them (that cancels much of the machine), games/s otherwise; a baseline from another
processor or other vector extensions is named first, because those ratios move with the
processor (the ``nn`` kernel gains more from wide vectors than GNU Backgammon's loop does).

This module plays the contenders in their rounds (:func:`measure`) and runs a bench
(:func:`run_bench`, :func:`run_compile_bench`); each job around that has a module of its own
beside it: ``bench_loops.py`` (other engines' loops), ``bench_against.py`` (another checkout's
engine), ``bench_compile.py`` (cold compile, cached start, the compile profile),
``bench_machine.py`` (the machine) and ``bench_report.py`` (ratios, targets, the baseline
comparison, the profile report).
"""

from __future__ import annotations

import json
import os
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

from experiments.running.files import explain, write_text

from .bearoff import build_times
from .bench_against import Against
from .bench_compile import STANDARD_RUNS, compile_profile, compile_times
from .bench_loops import available as _available
from .bench_loops import gnubg_best_move_loop, gnubg_random_loop, openspiel_random_loop
from .bench_machine import busy_processes, describe_machine, start_warning
from .bench_report import COMPILE_TARGETS, TARGETS, compare, machine_differences, profile_report, ratios
from .bench_ubgi import measure_ubgi
from .bench_ubgi import report_lines as ubgi_report_lines
from .bench_ubgi import target as ubgi_target

# The committed baseline lives in the repository; a run's own JSON goes to the ignored runs
# folder (relative to where bgsim runs, as `bgsim run` does), so a bench never rewrites a
# tracked file unless asked (--out results/bench, --write-baseline).
RESULTS = Path(__file__).resolve().parents[2] / "results" / "bench"
BASELINE = RESULTS / "baseline.json"
RUNS = Path("results") / "runs" / "bench"

PROFILED = ("random", "heuristic+pipdiff", "nn")  # the players --profile takes apart


# --- contenders -------------------------------------------------------------------------------


def _only_for(players):
    from bgsim.fast import compile_only_for

    return compile_only_for(players)


def _fast(white, black, seed, games, threads):
    """``games``: how many (numbers 0, 1, ...) or the game numbers themselves."""
    from bgsim.series import play_games

    count = games if isinstance(games, int) else len(games)
    started = time.perf_counter()
    cpu = time.process_time()
    with _only_for((white, black)):  # the kernels a run of these two plays on (bgsim play's)
        frame = play_games(white, black, seed, games, engine="fast", threads=threads)
    seconds = time.perf_counter() - started
    # CPU seconds per wall second: how many cores the run actually got (all threads counted)
    return count / seconds, int(frame["plies"].sum()) / seconds, (time.process_time() - cpu) / seconds


def _chouette(player, seed, games, seats=4):
    """A session of ``games`` chouette games of ``seats`` copies of ``player`` (one thread)."""
    from bgsim.chouette_sessions import play_chouettes

    started = time.perf_counter()
    cpu = time.process_time()
    frame = play_chouettes([player] * seats, seed, games, engine="fast")
    seconds = time.perf_counter() - started
    plies = int(frame.loc[frame["place"] == 0, "plies"].sum())
    return games / seconds, plies / seconds, (time.process_time() - cpu) / seconds


CHOUETTE_SEATS = 4

ROLLOUT_TRIALS = 1296  # every first-two-roll pair once


def _rollout(player, seed, threads):
    from bgsim.board import Position
    from bgsim.rollout import rollout

    started = time.perf_counter()
    cpu = time.process_time()
    with _only_for([player]):  # as bgsim rollout plays it
        result = rollout(Position.start(), player, ROLLOUT_TRIALS, seed, threads=threads)
    seconds = time.perf_counter() - started
    return result.games / seconds, 0.0, (time.process_time() - cpu) / seconds


def _reference(white, black, seed, games):
    from bgsim.series import play_games

    started = time.perf_counter()
    frame = play_games(white, black, seed, games, engine="reference")
    seconds = time.perf_counter() - started
    return games / seconds, int(frame["plies"].sum()) / seconds


def _positions(seed: int, games: int):
    import numpy as np

    from bgsim.fast.sameness import played_positions

    positions = played_positions(seed, games)
    boards = np.zeros((len(positions), 26), dtype=np.int8)
    for index, position in enumerate(positions):
        boards[index] = position.board
    return positions, boards


def _fast_generations(boards, repeats):
    from bgsim.fast.timing import generate_every_roll

    started = time.perf_counter()
    generate_every_roll(boards, repeats)
    return repeats * len(boards) * 36 / (time.perf_counter() - started)


def _reference_generations(positions):
    from bgsim import legal_plays

    started = time.perf_counter()
    for position in positions:
        for die1 in range(1, 7):
            for die2 in range(1, 7):
                legal_plays(position, (die1, die2))
    return len(positions) * 36 / (time.perf_counter() - started)


# --- the machine ----------------------------------------------------------------------------


def measure(games: int, rounds: int, seed: int, log=print, against: Against | None = None,
            ours: Against | None = None) -> dict:
    """Every contender's best of ``rounds``; with ``against`` (another checkout's worker) and
    ``ours`` (this checkout's, the same harness), theirs and ours right after each of our runs."""
    import numba

    from bots import make_player

    cores = numba.config.NUMBA_NUM_THREADS
    random_player = make_player("random")
    heuristic = make_player("heuristic+pipdiff")
    nn = make_player("nn")
    nn_cube = make_player("nn+nn")
    positions, boards = _positions(seed, 30)
    reference_games = max(10, games // 400)
    # the reference engine's games, repeated, for the fast engine's side of the same-games ratios
    same_games = list(range(reference_games)) * max(1, (games // 2) // reference_games)
    outside_games = max(200, games // 10)
    # warm every kernel before timing
    _fast(random_player, random_player, seed, 20, 1)
    _fast(heuristic, heuristic, seed, 20, cores)
    _fast(nn, nn, seed, 20, cores)
    _fast(nn_cube, nn_cube, seed, 20, 1)
    _chouette(heuristic, seed, 20)
    _chouette(nn_cube, seed, 20)
    _fast_generations(boards[:5], 1)

    best: dict[str, tuple] = {}

    def keep(name, figures):
        if name not in best or figures[0] > best[name][0]:
            best[name] = figures

    contenders = [
        ("fast_random_1thread", lambda: _fast(random_player, random_player, seed, games, 1)),
        ("fast_random_all", lambda: _fast(random_player, random_player, seed, games, cores)),
        ("fast_heuristic_1thread", lambda: _fast(heuristic, heuristic, seed, games // 2, 1)),
        ("fast_heuristic_all", lambda: _fast(heuristic, heuristic, seed, games // 2, cores)),
        ("fast_nn_1thread", lambda: _fast(nn, nn, seed, games // 10, 1)),
        ("fast_nn_all", lambda: _fast(nn, nn, seed, games // 10, cores)),
        ("fast_nn_cube_1thread", lambda: _fast(nn_cube, nn_cube, seed, games // 10, 1)),
        ("fast_chouette4_heuristic_1thread", lambda: _chouette(heuristic, seed, games // 2, CHOUETTE_SEATS)),
        ("fast_chouette4_nn_cube_1thread", lambda: _chouette(nn_cube, seed, games // 10, CHOUETTE_SEATS)),
        ("rollout_nn_1thread", lambda: _rollout(nn, seed, 1)),
        ("rollout_nn_all", lambda: _rollout(nn, seed, cores)),
        ("fast_random_same_1thread", lambda: _fast(random_player, random_player, seed, same_games, 1)),
        ("fast_heuristic_same_1thread", lambda: _fast(heuristic, heuristic, seed, same_games, 1)),
        ("reference_random", lambda: _reference(random_player, random_player, seed, reference_games)),
        ("reference_heuristic", lambda: _reference(heuristic, heuristic, seed, reference_games)),
        ("fast_generations", lambda: (_fast_generations(boards, 3), 0.0)),
        ("reference_generations", lambda: (_reference_generations(positions[:60]), 0.0)),
    ]
    if against is not None:
        # each right after our own run of it, so that both see the machine as it is then
        theirs = {
            "fast_random_1thread": dict(kind="fast", player="random", games=games, threads=1),
            "fast_random_all": dict(kind="fast", player="random", games=games, threads=cores),
            "fast_heuristic_1thread": dict(kind="fast", player="heuristic+pipdiff", games=games // 2, threads=1),
            "fast_heuristic_all": dict(kind="fast", player="heuristic+pipdiff", games=games // 2, threads=cores),
            "fast_nn_1thread": dict(kind="fast", player="nn", games=games // 10, threads=1),
            "fast_nn_all": dict(kind="fast", player="nn", games=games // 10, threads=cores),
            "rollout_nn_1thread": dict(kind="rollout", player="nn", trials=ROLLOUT_TRIALS, threads=1),
            "rollout_nn_all": dict(kind="rollout", player="nn", trials=ROLLOUT_TRIALS, threads=cores),
        }
        for name, question in theirs.items():
            for worker in (ours, against):
                worker.ask(**dict(question, seed=seed, games=20, trials=36))  # compiled before timing
        interleaved = []
        for name, run in contenders:
            interleaved.append((name, run))
            if name in theirs:
                interleaved.append(("worker_" + name, lambda question=theirs[name]: ours.ask(**question, seed=seed)))
                interleaved.append(("against_" + name,
                                    lambda question=theirs[name]: against.ask(**question, seed=seed)))
        contenders = interleaved
    if _available("gnubg_nn"):
        contenders.append(("gnubg_nn_random", lambda: gnubg_random_loop(outside_games, seed)))
        contenders.append(("gnubg_nn_best_move", lambda: gnubg_best_move_loop(outside_games // 10, seed)))
    if _available("pyspiel"):
        contenders.append(("openspiel_random", lambda: openspiel_random_loop(outside_games // 3, seed)))
    for round_number in range(rounds):
        for name, run in contenders:
            started, cpu = time.perf_counter(), time.process_time()
            figures = run()
            if len(figures) == 2:  # single-threaded Python: the cores the whole call got
                figures = (*figures, (time.process_time() - cpu) / (time.perf_counter() - started))
            keep(name, figures)
        log(f"  round {round_number + 1}/{rounds} done")
    figures = {}
    for name, value in best.items():
        figures[name] = {"per_s": round(value[0], 2), "plies_per_s": round(value[1], 1)}
        if len(value) > 2 and value[2] > 0:
            figures[name]["cores_used"] = round(value[2], 2)
            figures[name]["per_cpu_s"] = round(value[0] / value[2], 2)
    return figures


def profile(games: int, seed: int, log=print) -> dict:
    """``bgsim.fast.timing.profile`` of each of PROFILED against itself, and the cold compile."""
    from bgsim.fast.timing import profile as profile_games
    from bots import make_player

    out = {"players": {}}
    for spec in PROFILED:
        player = make_player(spec)
        count = games if spec == "random" else (games // 2 if spec.startswith("heuristic") else games // 10)
        out["players"][spec] = profile_games(player, player, seed, max(20, count), rounds=7)
        log(f"  profiled {spec}")
    out["compile"] = compile_profile()
    log("  profiled the cold compile")
    return out


def run_compile_bench(out: str | Path = RUNS, against_python: str | None = None) -> int:
    """``bgsim bench --compile-only``: :func:`compile_times` of every standard run (and of
    ``against_python``'s checkout beside it), with the machine, written as ``compile-<time>.json``."""
    out = Path(out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise explain(error, out) from None
    run = {"when": datetime.now(timezone.utc).isoformat(timespec="seconds"), "machine": describe_machine()}
    machine = run["machine"]
    print(f"bgsim bench --compile-only of {machine['git_commit']}{'' if machine['git_clean'] else ' (uncommitted changes)'} "
          f"(load average {', '.join(f'{x:.1f}' for x in machine['load_average_at_start'])})")
    warning = start_warning(machine)
    if warning:
        print(warning)
    if against_python:
        against = Against(against_python)  # its commit, and that it imports bgsim
        run["against"] = {"python": against.python, "root": against.root, "git_commit": against.commit,
                          "git_clean": against.clean}
        against.close()
        print(f"against {run['against']['root']} (commit {run['against']['git_commit']}), right after ours")
    run["compile"] = compile_times(STANDARD_RUNS, against_python)
    machine["load_average_at_end"] = list(os.getloadavg()) if hasattr(os, "getloadavg") else []
    machine["busy_at_end"] = busy_processes()
    run["targets"] = {}
    for name, target in COMPILE_TARGETS:
        met = run["compile"][name] <= target
        run["targets"][name] = {"target": target, "measured": run["compile"][name], "met": met}
        print(f"target {name} <= {target}: {run['compile'][name]:.2f} {'met' if met else 'NOT MET'}")
    path = out / f"compile-{datetime.now(timezone.utc).strftime('%Y%m%dT%H%M%SZ')}.json"
    try:
        write_text(json.dumps(run, indent=2) + "\n", path)
    except OSError as error:
        raise explain(error, path) from None
    print(f"wrote {path}")
    return 0


def run_bench(games: int = 20000, rounds: int = 3, seed: int = 1, compile_times_too: bool = True,
              out: str | Path = RUNS, against_baseline: bool = False, margin: float = 0.30,
              write_baseline: bool = False, profile_too: bool = False, against_python: str | None = None) -> int:
    """Measure, print and write one bench run (see the module docstring); with
    ``against_baseline`` 1 when a figure is slower than the baseline by more than ``margin``."""
    baseline = None
    if against_baseline:
        if not BASELINE.exists():
            raise ValueError(f"--compare needs {BASELINE}; write one with --write-baseline")
        baseline = json.loads(BASELINE.read_text())
    out = Path(out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise explain(error, out) from None
    against = Against(against_python) if against_python else None
    # this checkout in a worker of its own too, so that the ratios set one harness against the
    # same harness (the bench's own process has played every other contender first)
    ours = Against(sys.executable, cwd=Path(__file__).resolve().parents[2]) if against_python else None

    run = {"when": datetime.now(timezone.utc).isoformat(timespec="seconds"), "machine": describe_machine(),
           "settings": {"games": games, "rounds": rounds, "seed": seed}}
    machine = run["machine"]
    print(f"bgsim bench of {machine['git_commit']}{'' if machine['git_clean'] else ' (uncommitted changes)'} "
          f"on {machine['cpu']}, {machine['cores']} cores, {', '.join(machine['vector_extensions']) or 'no vector extensions'} "
          f"(load average {', '.join(f'{x:.1f}' for x in machine['load_average_at_start'])})")
    for process in machine["busy_at_start"]:
        print(f"  also running: {process['cpu_percent']}% {process['command'][:100]}")
    warning = start_warning(machine)
    if warning and compile_times_too:
        print(warning)
    if against is not None:
        run["against"] = {"python": against.python, "root": against.root, "git_commit": against.commit,
                          "git_clean": against.clean}
        print(f"against {against.root} (commit {against.commit}), in the same rounds")
    try:
        if compile_times_too:
            run["compile"] = compile_times(STANDARD_RUNS if profile_too else STANDARD_RUNS[:1], against_python)
            print(f"cold compile {run['compile']['cold_compile_s']:.1f}s, cached start "
                  f"{run['compile']['cached_start_s']:.2f}s (to the first game, imports included)")
            # one-off costs like the compile: the bear-off databases bgsim eval builds on first use
            run["bearoff"] = build_times()
            print(f"bear-off databases built in {run['bearoff']['one_sided_build_s']:.1f}s (one-sided) and "
                  f"{run['bearoff']['two_sided_build_s']:.1f}s (two-sided, {run['bearoff']['two_sided_checkers']} checkers)")
        run["figures"] = measure(games, rounds, seed, against=against, ours=ours)
        run["ubgi"] = measure_ubgi(max(10, games // 1000), rounds, seed)  # the UBGI controller's cost
    finally:
        for worker in (against, ours):
            if worker is not None:
                worker.close()
    run["ratios"] = ratios(run["figures"])
    if profile_too:
        print("profiling")
        run["profile"] = profile(games // 2, seed)
    machine["load_average_at_end"] = list(os.getloadavg()) if hasattr(os, "getloadavg") else []
    machine["busy_at_end"] = busy_processes()

    width = max(len(name) for name in run["figures"])
    for name, figure in run["figures"].items():
        plies = f"  {figure['plies_per_s']:>12,.0f} plies/s" if figure["plies_per_s"] else ""
        if "cores_used" in figure:
            plies += f"  ({figure['cores_used']:.2f} cores busy, {figure['per_cpu_s']:,.1f} per CPU-second)"
        unit = ("generations/s" if name.endswith("generations")
                else "trials/s" if name.removeprefix("against_").removeprefix("worker_").startswith("rollout")
                else "games/s")
        print(f"  {name:<{width}}  {figure['per_s']:>12,.1f} {unit}{plies}")
    for line in ubgi_report_lines(run["ubgi"]):
        print(line)
    print("ratios:")
    for name, value in run["ratios"].items():
        print(f"  {name:<60} {value:>9.2f}x")
    run["targets"] = {}
    for name, _, target in TARGETS:
        if name in run["ratios"]:
            met = run["ratios"][name] >= target
            run["targets"][name] = {"target": target, "measured": run["ratios"][name], "met": met}
            print(f"target {name} >= {target}: {run['ratios'][name]:.2f} {'met' if met else 'NOT MET'}")
    run["targets"]["ubgi_controller_us_per_decision"] = ubgi_target(run["ubgi"])
    print(f"target ubgi_controller_us_per_decision <= {run['ubgi']['target_us']:g}: "
          f"{run['ubgi']['controller_us_per_decision']:.1f} {'met' if run['targets']['ubgi_controller_us_per_decision']['met'] else 'NOT MET'}")
    if "compile" in run:
        for name, target in COMPILE_TARGETS:
            met = run["compile"][name] <= target
            run["targets"][name] = {"target": target, "measured": run["compile"][name], "met": met}
            print(f"target {name} <= {target}: {run['compile'][name]:.2f} {'met' if met else 'NOT MET'}")

    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    text = json.dumps(run, indent=2) + "\n"
    targets = [out / f"bench-{stamp}.json", out / "latest.json"] + ([BASELINE] if write_baseline else [])
    writes = [(text, target) for target in targets]
    if "profile" in run:
        writes.append((profile_report(run), out / f"profile-{stamp}.md"))
    for content, target in writes:
        try:
            write_text(content, target)
        except OSError as error:
            raise explain(error, target) from None
    if write_baseline:
        print(f"wrote {BASELINE}")
    print(f"wrote {out / f'bench-{stamp}.json'}" + (f" and {out / f'profile-{stamp}.md'}" if "profile" in run else ""))
    if baseline is not None:
        for note in machine_differences(run, baseline):
            print(f"note: {note} (ratios to GNU Backgammon's loops move with the processor)")
        slower = compare(run, baseline, margin)
        if slower:
            print("SLOWER than the baseline:")
            for line in slower:
                print("  " + line)
            return 1
        print(f"no figure slower than the baseline by more than {100 * margin:.0f}%")
    return 0
