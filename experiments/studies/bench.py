"""``bgsim bench``: how fast the engines are, side by side in one process and one run.

Every figure is measured in rounds that interleave the contenders (best round kept), so a
machine shared with other work slows all of them alike and the ratios stay meaningful.

* fast engine, 1 thread and all cores: ``random`` vs ``random``,
  ``heuristic+pipdiff`` vs ``heuristic+pipdiff`` and ``nn`` vs ``nn`` (cubeless), games/s and
  plies/s; ``nn`` against a 0-ply game loop over ``gnubg_nn.best_move`` (GNU Backgammon's net
  choosing every play, the strong player it is meant to replace at speed);
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
* cold compile (a fresh process with an empty ``NUMBA_CACHE_DIR``) and cached start (the same
  again once the cache is filled), both up to the first finished game.

Results go to ``results/runs/bench/`` (ignored by git; ``--out`` elsewhere) as JSON with the CPU
model, core count and versions.
``--compare`` checks the run against ``results/bench/baseline.json`` and exits 1 when a figure
is slower than the baseline by more than ``--margin`` (default 30 %: shared 2-core machines
swing by 20 % between runs).  Figures compared are ratios to the ``gnubg_nn`` loop when both
runs have it (that cancels the machine), games/s otherwise.
"""

from __future__ import annotations

import json
import os
import platform
import random
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

from bgsim import settings
from experiments.running.files import explain, write_text

from .bearoff import build_times

# The committed baseline lives in the repository; a run's own JSON goes to the ignored runs
# folder (relative to where bgsim runs, as `bgsim run` does), so a bench never rewrites a
# tracked file unless asked (--out results/bench, --write-baseline).
RESULTS = Path(__file__).resolve().parents[2] / "results" / "bench"
BASELINE = RESULTS / "baseline.json"
RUNS = Path("results") / "runs" / "bench"
START_ID = "4HPwATDgc/ABMA"

# The figures --compare watches: fast engine throughput and generation rate.
WATCHED = ("fast_random_1thread", "fast_random_all", "fast_heuristic_1thread",
           "fast_heuristic_all", "fast_generations")


# --- contenders -------------------------------------------------------------------------------


def _fast(white, black, seed, games, threads):
    """``games``: how many (numbers 0, 1, ...) or the game numbers themselves."""
    from bgsim.series import play_games

    count = games if isinstance(games, int) else len(games)
    started = time.perf_counter()
    cpu = time.process_time()
    frame = play_games(white, black, seed, games, engine="fast", threads=threads)
    seconds = time.perf_counter() - started
    # CPU seconds per wall second: how many cores the run actually got (all threads counted)
    return count / seconds, int(frame["plies"].sum()) / seconds, (time.process_time() - cpu) / seconds


ROLLOUT_TRIALS = 1296  # every first-two-roll pair once


def _rollout(player, seed, threads):
    from bgsim.board import Position
    from bgsim.rollout import rollout

    started = time.perf_counter()
    cpu = time.process_time()
    result = rollout(Position.start(), player, ROLLOUT_TRIALS, seed, threads=threads)
    seconds = time.perf_counter() - started
    return result.games / seconds, 0.0, (time.process_time() - cpu) / seconds


def _reference(white, black, seed, games):
    from bgsim.series import play_games

    started = time.perf_counter()
    frame = play_games(white, black, seed, games, engine="reference")
    seconds = time.perf_counter() - started
    return games / seconds, int(frame["plies"].sum()) / seconds


def gnubg_random_loop(games: int, seed: int):
    """Uniform-random games over ``gnubg_nn.moves``: (games/s, plies/s)."""
    import gnubg_nn

    rng = random.Random(seed)
    start = gnubg_nn.board_from_position_id(START_ID)
    plies = 0
    started = time.perf_counter()
    for _ in range(games):
        board = start  # [side not on roll, side on roll]
        while True:
            plies += 1
            keys = gnubg_nn.moves(board, rng.randint(1, 6), rng.randint(1, 6))
            if keys:
                opponent, mover = gnubg_nn.board_from_position_key(rng.choice(keys))
                if sum(mover) == 0:
                    break
                board = [mover, opponent]  # the other side is on roll
            else:
                board = [board[1], board[0]]
    seconds = time.perf_counter() - started
    return games / seconds, plies / seconds


def gnubg_best_move_loop(games: int, seed: int):
    """Games of GNU Backgammon's 0-ply net against itself over ``gnubg_nn.best_move``."""
    import gnubg_nn

    rng = random.Random(seed)
    start = gnubg_nn.board_from_position_id(START_ID)
    plies = 0
    started = time.perf_counter()
    for _ in range(games):
        board = start  # [side not on roll, side on roll]
        while True:
            plies += 1
            _, key = gnubg_nn.best_move(board, rng.randint(1, 6), rng.randint(1, 6), n=0, b=1)
            if key:  # the position after the play, the mover first
                mover, opponent = gnubg_nn.board_from_position_key(key)
                if sum(mover) == 0:
                    break
                board = [mover, opponent]  # the other side is on roll
            else:
                board = [board[1], board[0]]
    seconds = time.perf_counter() - started
    return games / seconds, plies / seconds


def openspiel_random_loop(games: int, seed: int):
    """Uniform-random playouts of OpenSpiel's ``backgammon``: (games/s, plies/s)."""
    import pyspiel

    rng = random.Random(seed)
    game = pyspiel.load_game("backgammon")
    plies = 0
    started = time.perf_counter()
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, weights = zip(*state.chance_outcomes())
                state.apply_action(rng.choices(outcomes, weights)[0])
                plies += 1
            else:
                state.apply_action(rng.choice(state.legal_actions()))
    seconds = time.perf_counter() - started
    # OpenSpiel plays each die as its own decision; plies count its chance (roll) nodes
    return games / seconds, plies / seconds


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


_START_SCRIPT = """
import time
started = time.perf_counter()
from bgsim.fast.sameness import FastRandomPlayer
from bgsim.series import play_games
player = FastRandomPlayer()
play_games(player, player, 1, 1, engine="fast")
print(time.perf_counter() - started)
"""


def compile_times() -> dict:
    """Cold compile and cached start, each in a fresh process up to the first finished game."""
    with tempfile.TemporaryDirectory(prefix="bgsim-numba-cache-") as cache:
        env = settings.environment(NUMBA_CACHE_DIR=cache)
        figures = {}
        for name in ("cold_compile_s", "cached_start_s"):
            started = time.perf_counter()
            result = subprocess.run([sys.executable, "-c", _START_SCRIPT], env=env, capture_output=True,
                                    text=True, check=True)
            figures[name] = round(float(result.stdout.strip().splitlines()[-1]), 3)
            figures[name[:-2] + "_process_s"] = round(time.perf_counter() - started, 3)
        return figures


# --- the run ----------------------------------------------------------------------------------


def _machine() -> dict:
    import numba
    import numpy

    cpu = platform.processor()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    versions = {"python": platform.python_version(), "numba": numba.__version__, "numpy": numpy.__version__}
    for module, dist in (("gnubg_nn", "gnubg-nn"), ("pyspiel", "open-spiel"), ("llvmlite", "llvmlite")):
        try:
            from importlib.metadata import version

            versions[dist] = version(dist)
        except Exception:  # noqa: BLE001 - not installed
            pass
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                                check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = ""
    return {
        "cpu": cpu, "cores": os.cpu_count(), "numba_threads": numba.config.NUMBA_NUM_THREADS,
        "platform": platform.platform(), "versions": versions, "git_commit": commit,
        "load_average_at_start": list(os.getloadavg()) if hasattr(os, "getloadavg") else [],
    }


def _available(module: str) -> bool:
    try:
        __import__(module)
    except Exception:  # noqa: BLE001 - missing or broken: the bench goes on without it
        return False
    return True


def measure(games: int, rounds: int, seed: int, log=print) -> dict:
    import numba

    from bots import make_player

    cores = numba.config.NUMBA_NUM_THREADS
    random_player = make_player("random")
    heuristic = make_player("heuristic+pipdiff")
    nn = make_player("nn")
    positions, boards = _positions(seed, 30)
    reference_games = max(10, games // 400)
    # the reference engine's games, repeated, for the fast engine's side of the same-games ratios
    same_games = list(range(reference_games)) * max(1, (games // 2) // reference_games)
    outside_games = max(200, games // 10)
    # warm every kernel before timing
    _fast(random_player, random_player, seed, 20, 1)
    _fast(heuristic, heuristic, seed, 20, cores)
    _fast(nn, nn, seed, 20, cores)
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
        ("rollout_nn_1thread", lambda: _rollout(nn, seed, 1)),
        ("rollout_nn_all", lambda: _rollout(nn, seed, cores)),
        ("fast_random_same_1thread", lambda: _fast(random_player, random_player, seed, same_games, 1)),
        ("fast_heuristic_same_1thread", lambda: _fast(heuristic, heuristic, seed, same_games, 1)),
        ("reference_random", lambda: _reference(random_player, random_player, seed, reference_games)),
        ("reference_heuristic", lambda: _reference(heuristic, heuristic, seed, reference_games)),
        ("fast_generations", lambda: (_fast_generations(boards, 3), 0.0)),
        ("reference_generations", lambda: (_reference_generations(positions[:60]), 0.0)),
    ]
    if _available("gnubg_nn"):
        contenders.append(("gnubg_nn_random", lambda: gnubg_random_loop(outside_games, seed)))
        contenders.append(("gnubg_nn_best_move", lambda: gnubg_best_move_loop(outside_games // 10, seed)))
    if _available("pyspiel"):
        contenders.append(("openspiel_random", lambda: openspiel_random_loop(outside_games // 3, seed)))
    for round_number in range(rounds):
        for name, run in contenders:
            keep(name, run())
        log(f"  round {round_number + 1}/{rounds} done")
    figures = {}
    for name, value in best.items():
        figures[name] = {"per_s": round(value[0], 2), "plies_per_s": round(value[1], 1)}
        if len(value) > 2:
            figures[name]["cores_used"] = round(value[2], 2)
    return figures


def ratios(figures: dict) -> dict:
    out = {}
    get = lambda name: figures.get(name, {}).get("per_s")  # noqa: E731
    if get("fast_random_1thread") and get("fast_random_all"):
        out["all_cores_vs_1thread_random"] = get("fast_random_all") / get("fast_random_1thread")
    if get("fast_heuristic_1thread") and get("fast_heuristic_all"):
        out["all_cores_vs_1thread_heuristic"] = get("fast_heuristic_all") / get("fast_heuristic_1thread")
    used = lambda name: figures.get(name, {}).get("cores_used")  # noqa: E731
    if used("fast_random_all") and used("fast_random_1thread"):
        # games per CPU-second, all threads against one: near 1.0 means the threads scale and
        # only the cores the machine could spare limited the wall-clock gain
        out["all_cores_cpu_efficiency_random"] = (
            (get("fast_random_all") / used("fast_random_all"))
            / (get("fast_random_1thread") / used("fast_random_1thread")))
    if get("fast_nn_1thread") and get("fast_nn_all"):
        out["all_cores_vs_1thread_nn"] = get("fast_nn_all") / get("fast_nn_1thread")
    if get("fast_nn_1thread") and get("gnubg_nn_best_move"):
        out["fast_nn_1thread_vs_gnubg_nn_best_move"] = get("fast_nn_1thread") / get("gnubg_nn_best_move")
    if get("rollout_nn_1thread") and get("gnubg_nn_best_move"):
        # trials per second on one core against GNU Backgammon's net playing the same position
        # out (games per second, one core): the rollout speed target
        out["rollout_nn_1thread_vs_gnubg_nn_best_move"] = get("rollout_nn_1thread") / get("gnubg_nn_best_move")
    # the same games in both engines (older runs timed the fast engine on other games)
    fast_random = get("fast_random_same_1thread") or get("fast_random_1thread")
    fast_heuristic = get("fast_heuristic_same_1thread") or get("fast_heuristic_1thread")
    if get("reference_random"):
        out["fast_1thread_vs_reference_random"] = fast_random / get("reference_random")
    if get("reference_heuristic"):
        out["fast_1thread_vs_reference_heuristic"] = fast_heuristic / get("reference_heuristic")
    if get("reference_generations"):
        out["fast_vs_reference_generations"] = get("fast_generations") / get("reference_generations")
    for outside in ("gnubg_nn_random", "openspiel_random"):
        if get(outside):
            for name in figures:
                if name.endswith(("_1thread", "_all")) or name == "reference_random":
                    out[f"{name}_vs_{outside}"] = get(name) / get(outside)
    return {name: round(value, 2) for name, value in out.items()}


TARGETS = (
    ("fast_random_1thread_vs_gnubg_nn_random", ">=", 5.0),
    ("all_cores_vs_1thread_random", ">=", 1.8),
    ("fast_nn_1thread_vs_gnubg_nn_best_move", ">=", 3.0),
    ("all_cores_vs_1thread_nn", ">=", 1.8),
    ("rollout_nn_1thread_vs_gnubg_nn_best_move", ">=", 3.0),
    ("fast_1thread_vs_reference_random", ">=", 100.0),
    ("fast_1thread_vs_reference_heuristic", ">=", 100.0),
)


def _comparable(run: dict, name: str, both_have_gnubg: bool):
    figure = run["figures"].get(name, {}).get("per_s")
    if figure is None:
        return None
    if both_have_gnubg:
        return figure / run["figures"]["gnubg_nn_random"]["per_s"]
    return figure


def compare(run: dict, baseline: dict, margin: float) -> list[str]:
    both = "gnubg_nn_random" in run["figures"] and "gnubg_nn_random" in baseline["figures"]
    slower = []
    for name in WATCHED:
        now, then = _comparable(run, name, both), _comparable(baseline, name, both)
        if now is None or then is None:
            continue
        if now < then * (1 - margin):
            unit = "x the gnubg-nn loop" if both else "/s"
            slower.append(f"{name}: {now:.2f}{unit} now, {then:.2f}{unit} in the baseline "
                          f"({100 * (1 - now / then):.0f}% slower, margin {100 * margin:.0f}%)")
    return slower


def run_bench(games: int = 20000, rounds: int = 3, seed: int = 1, compile_times_too: bool = True,
              out: str | Path = RUNS, against_baseline: bool = False, margin: float = 0.30,
              write_baseline: bool = False) -> int:
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

    run = {"when": datetime.now(timezone.utc).isoformat(timespec="seconds"), "machine": _machine(),
           "settings": {"games": games, "rounds": rounds, "seed": seed}}
    print(f"bgsim bench on {run['machine']['cpu']}, {run['machine']['cores']} cores "
          f"(load average {', '.join(f'{x:.1f}' for x in run['machine']['load_average_at_start'])})")
    if compile_times_too:
        run["compile"] = compile_times()
        print(f"cold compile {run['compile']['cold_compile_s']:.1f}s, cached start "
              f"{run['compile']['cached_start_s']:.2f}s (to the first game, imports included)")
        # one-off costs like the compile: the bear-off databases bgsim eval builds on first use
        run["bearoff"] = build_times()
        print(f"bear-off databases built in {run['bearoff']['one_sided_build_s']:.1f}s (one-sided) and "
              f"{run['bearoff']['two_sided_build_s']:.1f}s (two-sided, {run['bearoff']['two_sided_checkers']} checkers)")
    run["figures"] = measure(games, rounds, seed)
    run["ratios"] = ratios(run["figures"])

    width = max(len(name) for name in run["figures"])
    for name, figure in run["figures"].items():
        plies = f"  {figure['plies_per_s']:>12,.0f} plies/s" if figure["plies_per_s"] else ""
        if "cores_used" in figure:
            plies += f"  ({figure['cores_used']:.2f} cores busy)"
        unit = ("generations/s" if name.endswith("generations")
                else "trials/s" if name.startswith("rollout") else "games/s")
        print(f"  {name:<{width}}  {figure['per_s']:>12,.1f} {unit}{plies}")
    print("ratios:")
    for name, value in run["ratios"].items():
        print(f"  {name:<52} {value:>9.2f}x")
    run["targets"] = {}
    for name, _, target in TARGETS:
        if name in run["ratios"]:
            met = run["ratios"][name] >= target
            run["targets"][name] = {"target": target, "measured": run["ratios"][name], "met": met}
            print(f"target {name} >= {target}: {run['ratios'][name]:.2f} {'met' if met else 'NOT MET'}")
    if "compile" in run:
        for name, target in (("cold_compile_s", 30.0), ("cached_start_s", 2.0)):
            met = run["compile"][name] < target
            run["targets"][name] = {"target": target, "measured": run["compile"][name], "met": met}
            print(f"target {name} < {target}: {run['compile'][name]:.2f} {'met' if met else 'NOT MET'}")

    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    text = json.dumps(run, indent=2) + "\n"
    targets = [out / f"bench-{stamp}.json", out / "latest.json"] + ([BASELINE] if write_baseline else [])
    for target in targets:
        try:
            write_text(text, target)
        except OSError as error:
            raise explain(error, target) from None
    if write_baseline:
        print(f"wrote {BASELINE}")
    print(f"wrote {out / f'bench-{stamp}.json'}")
    if baseline is not None:
        slower = compare(run, baseline, margin)
        if slower:
            print("SLOWER than the baseline:")
            for line in slower:
                print("  " + line)
            return 1
        print(f"no figure slower than the baseline by more than {100 * margin:.0f}%")
    return 0
