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
  measured against another side by side and never from two moments of a shared machine;
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
"""

from __future__ import annotations

import json
import os
import platform
import random
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

from bgsim import settings
from experiments.running.files import explain, write_text

from .bearoff import build_times
from .bench_ubgi import measure_ubgi
from .bench_ubgi import report_lines as ubgi_report_lines
from .bench_ubgi import target as ubgi_target

# The committed baseline lives in the repository; a run's own JSON goes to the ignored runs
# folder (relative to where bgsim runs, as `bgsim run` does), so a bench never rewrites a
# tracked file unless asked (--out results/bench, --write-baseline).
RESULTS = Path(__file__).resolve().parents[2] / "results" / "bench"
BASELINE = RESULTS / "baseline.json"
RUNS = Path("results") / "runs" / "bench"
START_ID = "4HPwATDgc/ABMA"

# The figures --compare watches, each with the GNU Backgammon loop it is set against when both
# runs have that loop: fast-engine throughput, the generation rate, the nn kernel, rollouts.
WATCHED = {
    "fast_random_1thread": "gnubg_nn_random", "fast_random_all": "gnubg_nn_random",
    "fast_heuristic_1thread": "gnubg_nn_random", "fast_heuristic_all": "gnubg_nn_random",
    "fast_generations": "gnubg_nn_random", "fast_nn_1thread": "gnubg_nn_best_move",
    "fast_nn_all": "gnubg_nn_best_move", "rollout_nn_1thread": "gnubg_nn_best_move",
}
# the processor's vector and bit extensions that matter to the kernels (/proc/cpuinfo flags)
EXTENSIONS = ("sse4_2", "popcnt", "abm", "bmi1", "bmi2", "fma", "avx", "avx2", "avx_vnni")
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
    from bgsim.chouette import play_chouettes

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


# --- another checkout's engine, in the same rounds -----------------------------------------

# The worker speaks one JSON line in, one out, and uses only what every checkout of bgsim has
# (bots.make_player, bgsim.series.play_games, bgsim.rollout.rollout), so an older commit runs it.
_WORKER = r"""
import json, sys, time
import bgsim
from bots import make_player
from bgsim.series import play_games
players = {}
print(json.dumps({"bgsim": bgsim.__file__}), flush=True)
from contextlib import nullcontext
import bgsim.fast
only_for = getattr(bgsim.fast, "compile_only_for", lambda players: nullcontext())  # as its runs play
for line in sys.stdin:
    ask = json.loads(line)
    player = players.setdefault(ask["player"], make_player(ask["player"]))
    started, cpu = time.perf_counter(), time.process_time()
    if ask["kind"] == "rollout":
        from bgsim.board import Position
        from bgsim.rollout import rollout
        with only_for([player]):
            count = rollout(Position.start(), player, ask["trials"], ask["seed"], threads=ask["threads"]).games
        plies = 0
    else:
        with only_for([player]):
            frame = play_games(player, player, ask["seed"], ask["games"], engine="fast", threads=ask["threads"])
        count, plies = ask["games"], int(frame["plies"].sum())
    seconds = time.perf_counter() - started
    print(json.dumps([count / seconds, plies / seconds, (time.process_time() - cpu) / seconds]), flush=True)
"""


class Against:
    """Another checkout's engine in a worker process (``python``: that checkout's interpreter)."""

    def __init__(self, python: str) -> None:
        if not Path(python).is_file():
            raise ValueError(f"--against: no Python at {python}")
        self.python = python
        self.process = subprocess.Popen([python, "-c", _WORKER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        text=True, cwd=tempfile.gettempdir())
        ready = self.process.stdout.readline()
        if not ready:
            raise ValueError(f"--against: {python} could not import bgsim and bots")
        package = Path(json.loads(ready)["bgsim"]).resolve().parent
        self.root = str(package.parent)
        self.commit = _git(["rev-parse", "--short", "HEAD"], package)
        self.clean = _git(["status", "--porcelain", "--untracked-files=no"], package) == ""

    def ask(self, **question):
        self.process.stdin.write(json.dumps(question) + "\n")
        self.process.stdin.flush()
        answer = self.process.stdout.readline()
        if not answer:
            raise RuntimeError(f"--against: the worker of {self.python} stopped")
        return tuple(json.loads(answer))

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait(timeout=60)


# A standard run's start, as ``bgsim play`` makes it: the two players named before the first game
# (``bgsim.fast.compile_only_for``, where the checkout has it), then one game.  argv: white black.
_START_SCRIPT = """
import json, sys, time
started = time.perf_counter()
from contextlib import nullcontext
from bots import make_player
from bgsim.series import play_games
import bgsim.fast as fast
imports = time.perf_counter() - started
white, black = make_player(sys.argv[1]), make_player(sys.argv[2])
only_for = getattr(fast, "compile_only_for", None)
with only_for((white, black)) if only_for else nullcontext():
    play_games(white, black, 1, 1, engine="fast")
print(json.dumps({"seconds": time.perf_counter() - started, "cpu_s": time.process_time(), "imports_s": imports,
                  "compiled_kernels": sorted(name for name in sys.modules if name.startswith("bgsim.fast._dispatch_"))}))
"""
STANDARD_RUNS = (("random", "random"), ("heuristic+pipdiff", "heuristic+pipdiff"), ("nn+pipdiff", "heuristic"))


def _start(python: str, cache: str, white: str, black: str) -> dict:
    env = settings.environment(NUMBA_CACHE_DIR=cache)
    started = time.perf_counter()
    result = subprocess.run([python, "-c", _START_SCRIPT, white, black], env=env, capture_output=True, text=True,
                            cwd=tempfile.gettempdir())
    if result.returncode != 0:
        raise RuntimeError(f"{python}: the start of {white} vs {black} failed: {result.stderr.strip()[-300:]}")
    figures = json.loads(result.stdout.strip().splitlines()[-1])
    figures["process_s"] = time.perf_counter() - started
    return {name: round(value, 3) if isinstance(value, float) else value for name, value in figures.items()}


_PLAY_COMMAND = "import sys; from experiments.cli import main; sys.exit(main())"


def _play_command(python: str, cache: str, white: str, black: str) -> dict:
    """``bgsim play white black --games 10`` in a new process, start to exit: its wall and CPU seconds."""
    import resource

    env = settings.environment(NUMBA_CACHE_DIR=cache)
    with tempfile.TemporaryDirectory(prefix="bgsim-bench-play-") as folder:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        result = subprocess.run([python, "-c", _PLAY_COMMAND, "play", white, black, "--games", "10", "--out",
                                 str(Path(folder) / "games.parquet"), "--no-progress"],
                                env=env, capture_output=True, text=True, cwd=tempfile.gettempdir())
        seconds = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        raise RuntimeError(f"{python}: bgsim play {white} {black} failed: {result.stderr.strip()[-300:]}")
    return {"seconds": round(seconds, 3),
            "cpu_s": round(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, 3)}


def compile_times(runs=STANDARD_RUNS[:1], against: str | None = None, log=print) -> dict:
    """Cold compile (an empty ``NUMBA_CACHE_DIR``) and cached start (the same cache again) of each
    standard run of ``runs``, each in a fresh process up to the first finished game, imports
    included; with ``against`` (another checkout's Python) the same for it, each of its processes
    right after ours (on a shared machine both then meet about the same load).  The first run's
    figures are ``cold_compile_s`` and ``cached_start_s``."""
    figures: dict = {"runs": {}, "load_average": []}
    for white, black in runs:
        name = f"{white} vs {black}"
        pythons = {"this": sys.executable, **({"against": against} if against else {})}
        caches = {side: tempfile.mkdtemp(prefix="bgsim-numba-cache-") for side in pythons}
        try:
            measured = {side: {} for side in pythons}
            for kind in ("cold", "cached", "play"):
                for side, python in pythons.items():
                    if hasattr(os, "getloadavg"):
                        figures["load_average"].append(round(os.getloadavg()[0], 2))
                    # "play": the whole bgsim play command (10 games to a file), its kernels cached
                    measure = _play_command if kind == "play" else _start
                    measured[side][kind] = measure(python, caches[side], white, black)
            for side, kinds in measured.items():
                figures["runs"].setdefault(name, {})[side] = kinds
                log(f"  {side}: {name}: cold compile {kinds['cold']['seconds']:.1f} s "
                    f"({kinds['cold']['cpu_s']:.1f} s of CPU), cached start {kinds['cached']['seconds']:.2f} s "
                    f"({kinds['cached']['cpu_s']:.2f} s of CPU), bgsim play --games 10 {kinds['play']['seconds']:.2f} s "
                    f"({kinds['play']['cpu_s']:.2f} s of CPU)")
        finally:
            for cache in caches.values():
                shutil.rmtree(cache, ignore_errors=True)
    first = figures["runs"][f"{runs[0][0]} vs {runs[0][1]}"]["this"]
    figures["cold_compile_s"] = first["cold"]["seconds"]
    figures["cold_compile_cpu_s"] = first["cold"]["cpu_s"]
    figures["cached_start_s"] = first["cached"]["seconds"]
    figures["cold_compile_process_s"] = first["cold"]["process_s"]
    figures["cached_start_process_s"] = first["cached"]["process_s"]
    figures["cached_play_command_s"] = first["play"]["seconds"]
    return figures


_COMPILE_PROFILE_SCRIPT = r"""
import json, sys, time
from numba.core import event

def exclusive(buffer, name_of):
    # seconds per name, the nested compiles (callees) taken off their callers
    stack, spent = [], {}
    for stamp, happening in buffer:
        if happening.is_start:
            stack.append([name_of(happening), stamp, 0.0])
        else:
            name, begun, inner = stack.pop()
            total = stamp - begun
            spent[name] = spent.get(name, 0.0) + total - inner
            if stack:
                stack[-1][2] += total
    return spent

def kernel(happening):
    function = happening.data["dispatcher"].py_func
    return function.__module__ + "." + function.__qualname__

def compiler_pass(happening):
    return happening.data["name"]

out = {}
started = time.perf_counter()
with event.install_recorder("numba:compile") as compiles, event.install_recorder("numba:run_pass") as passes:
    from contextlib import nullcontext
    from bots import make_player
    from bgsim.series import play_games
    import bgsim.fast as fast
    out["imports_s"] = time.perf_counter() - started
    player = make_player("random")
    only_for = getattr(fast, "compile_only_for", lambda players: nullcontext())  # as bgsim play does
    with only_for([player]):
        play_games(player, player, 1, 1, engine="fast")
out["first_game_s"] = time.perf_counter() - started
out["first_game_cpu_s"] = time.process_time()
out["kernels_s"] = exclusive(compiles.buffer, kernel)
out["passes_s"] = exclusive(passes.buffer, compiler_pass)
if "--exact" in sys.argv:
    from bots import make_player
    exact = make_player("racer+exact")
    started = time.perf_counter()
    cpu = time.process_time()
    with event.install_recorder("numba:compile") as compiles, only_for([exact]):
        play_games(exact, exact, 1, 1, engine="fast")
    out["exact_first_game_s"] = time.perf_counter() - started
    out["exact_first_game_cpu_s"] = time.process_time() - cpu
    out["exact_kernels_s"] = exclusive(compiles.buffer, kernel)
print(json.dumps(out))
"""


def compile_profile(exact: bool = True) -> dict:
    """What a cold compile spends its time on: a fresh process with an empty Numba cache plays
    one ``random`` game, recording Numba's compile and pass events; seconds per kernel (its
    callees' compiles taken off) and per compiler pass, then the same for the first game of
    the ``exact`` family (``bgsim.fast.with_exact``) on top."""
    with tempfile.TemporaryDirectory(prefix="bgsim-numba-cache-") as cache:
        env = settings.environment(NUMBA_CACHE_DIR=cache)
        command = [sys.executable, "-c", _COMPILE_PROFILE_SCRIPT] + (["--exact"] if exact else [])
        result = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
        raw = json.loads(result.stdout.strip().splitlines()[-1])
    out = {"imports_s": round(raw["imports_s"], 2), "first_game_s": round(raw["first_game_s"], 2),
           "first_game_cpu_s": round(raw["first_game_cpu_s"], 2)}
    for key in ("kernels_s", "exact_kernels_s"):
        if key in raw:
            out[key] = {name: round(value, 3) for name, value in
                        sorted(raw[key].items(), key=lambda item: -item[1])}
            out[key.replace("kernels", "modules")] = _by_module(raw[key])
    out["passes_s"] = {name: round(value, 3) for name, value in sorted(raw["passes_s"].items(), key=lambda item: -item[1])}
    if "exact_first_game_s" in raw:
        out["exact_first_game_s"] = round(raw["exact_first_game_s"], 2)
        out["exact_first_game_cpu_s"] = round(raw["exact_first_game_cpu_s"], 2)
    return out


def _by_module(kernels: dict) -> dict:
    modules: dict[str, float] = {}
    for name, seconds in kernels.items():
        module = name.rsplit(".", 1)[0] if "<locals>" not in name else name.split(".<locals>")[0].rsplit(".", 1)[0]
        modules[module] = modules.get(module, 0.0) + seconds
    return {name: round(value, 2) for name, value in sorted(modules.items(), key=lambda item: -item[1])}


# --- the machine ----------------------------------------------------------------------------


def _git(arguments: list[str], where: Path) -> str:
    try:
        return subprocess.run(["git", "-C", str(where)] + arguments, capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


def _cpu_flags() -> set[str]:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("flags"):
                return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def busy_processes(seconds: float = 1.0, least: float = 5.0) -> list[dict]:
    """The other processes that used at least ``least`` % of a core over ``seconds`` (Linux
    /proc; empty elsewhere): what shared the machine with a measurement."""
    def times():
        found = {}
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                text = stat.read_text()
                fields = text[text.rindex(")") + 2:].split()
                found[int(stat.parent.name)] = int(fields[11]) + int(fields[12])  # utime + stime
            except (OSError, ValueError, IndexError):
                continue
        return found

    try:
        ticks = os.sysconf("SC_CLK_TCK")
    except (ValueError, OSError, AttributeError):
        return []
    before = times()
    time.sleep(seconds)
    after = times()
    busy = []
    for pid, total in after.items():
        share = 100.0 * (total - before.get(pid, total)) / ticks / seconds
        if share >= least and pid != os.getpid():
            try:
                command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                command = "?"
            busy.append({"pid": pid, "cpu_percent": round(share), "command": command.strip()[:160]})
    return sorted(busy, key=lambda process: -process["cpu_percent"])


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
    flags = _cpu_flags()
    extensions = sorted(flag for flag in flags if flag in EXTENSIONS or flag.startswith("avx512"))
    try:
        import llvmlite.binding as llvm

        compiled_for = llvm.get_host_cpu_name()
    except Exception:  # noqa: BLE001 - only a record
        compiled_for = ""
    versions = {"python": platform.python_version(), "numba": numba.__version__, "numpy": numpy.__version__}
    for module, dist in (("gnubg_nn", "gnubg-nn"), ("pyspiel", "open-spiel"), ("llvmlite", "llvmlite")):
        try:
            from importlib.metadata import version

            versions[dist] = version(dist)
        except Exception:  # noqa: BLE001 - not installed
            pass
    here = Path(__file__).resolve().parent
    return {
        "cpu": cpu, "vector_extensions": extensions, "llvm_cpu": compiled_for,
        "cores": os.cpu_count(), "numba_threads": numba.config.NUMBA_NUM_THREADS,
        "platform": platform.platform(), "versions": versions,
        "git_commit": _git(["rev-parse", "--short", "HEAD"], here),
        "git_clean": _git(["status", "--porcelain", "--untracked-files=no"], here) == "",
        "load_average_at_start": list(os.getloadavg()) if hasattr(os, "getloadavg") else [],
        "busy_at_start": busy_processes(),
    }


def _available(module: str) -> bool:
    try:
        __import__(module)
    except Exception:  # noqa: BLE001 - missing or broken: the bench goes on without it
        return False
    return True


def measure(games: int, rounds: int, seed: int, log=print, against: Against | None = None) -> dict:
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
            against.ask(**dict(question, seed=seed, games=20, trials=36))  # compiled before timing
        interleaved = []
        for name, run in contenders:
            interleaved.append((name, run))
            if name in theirs:
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


def ratios(figures: dict) -> dict:
    out = {}
    get = lambda name: figures.get(name, {}).get("per_s")  # noqa: E731
    cpu = lambda name: figures.get(name, {}).get("per_cpu_s")  # noqa: E731
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
    for ours, loop in (("fast_nn_1thread", "gnubg_nn_best_move"), ("rollout_nn_1thread", "gnubg_nn_best_move")):
        # rollout: trials per second on one core against GNU Backgammon's net playing the same
        # position out (games per second, one core): the rollout speed target
        if get(ours) and get(loop):
            out[f"{ours}_vs_{loop}"] = get(ours) / get(loop)
        if cpu(ours) and cpu(loop):
            out[f"{ours}_vs_{loop}_per_cpu"] = cpu(ours) / cpu(loop)
    # a 4-player chouette against a two-player money game of the same bots, both on one thread
    for chouette, money in (("fast_chouette4_heuristic_1thread", "fast_heuristic_1thread"),
                            ("fast_chouette4_nn_cube_1thread", "fast_nn_cube_1thread")):
        if get(chouette) and get(money):
            out[f"{chouette}_vs_{money}"] = get(chouette) / get(money)
        if cpu(chouette) and cpu(money):
            out[f"{chouette}_vs_{money}_per_cpu"] = cpu(chouette) / cpu(money)
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
                if (name.endswith(("_1thread", "_all")) or name == "reference_random") and not name.startswith("against_"):
                    out[f"{name}_vs_{outside}"] = get(name) / get(outside)
                    if name.endswith("_1thread") and cpu(name) and cpu(outside):
                        out[f"{name}_vs_{outside}_per_cpu"] = cpu(name) / cpu(outside)
    for name in figures:  # this checkout against the other one (--against), side by side
        theirs = "against_" + name
        if get(name) and get(theirs):
            out[f"{name}_vs_against"] = get(name) / get(theirs)
            if name.endswith("_1thread") and cpu(name) and cpu(theirs):
                out[f"{name}_vs_against_per_cpu"] = cpu(name) / cpu(theirs)
    return {name: round(value, 2) for name, value in out.items()}


# issue 21's targets: one thread against GNU Backgammon's loops, two threads against one, the
# fast engine against the reference, and (with --against the commit before the work) the nn kernel
TARGETS = (
    ("fast_random_1thread_vs_gnubg_nn_random", ">=", 8.0),
    ("fast_nn_1thread_vs_gnubg_nn_best_move", ">=", 5.0),
    ("rollout_nn_1thread_vs_gnubg_nn_best_move", ">=", 5.0),
    ("fast_nn_1thread_vs_against", ">=", 1.3),
    ("all_cores_vs_1thread_random", ">=", 1.9),
    ("all_cores_vs_1thread_heuristic", ">=", 1.9),
    ("all_cores_vs_1thread_nn", ">=", 1.9),
    ("fast_1thread_vs_reference_random", ">=", 100.0),
    ("fast_1thread_vs_reference_heuristic", ">=", 100.0),
    # issue 17: a 4-player chouette at least half as many games/s as a money game of its bots
    ("fast_chouette4_heuristic_1thread_vs_fast_heuristic_1thread", ">=", 0.5),
    ("fast_chouette4_nn_cube_1thread_vs_fast_nn_cube_1thread", ">=", 0.5),
)
COMPILE_TARGETS = (("cold_compile_s", 15.0), ("cached_start_s", 1.0))  # seconds, at most


def _comparable(run: dict, name: str, loop: str | None):
    figure = run["figures"].get(name, {}).get("per_s")
    if figure is None:
        return None
    if loop is not None:
        return figure / run["figures"][loop]["per_s"]
    return figure


def machine_differences(run: dict, baseline: dict) -> list[str]:
    """What differs between the two runs' processors, for a reader of --compare's verdict."""
    notes = []
    now, then = run.get("machine", {}), baseline.get("machine", {})
    if now.get("cpu") and then.get("cpu") and now["cpu"] != then["cpu"]:
        notes.append(f"processor: {now['cpu']} now, {then['cpu']} in the baseline")
    if "vector_extensions" in now and "vector_extensions" in then:
        gained = sorted(set(now["vector_extensions"]) - set(then["vector_extensions"]))
        lost = sorted(set(then["vector_extensions"]) - set(now["vector_extensions"]))
        if gained or lost:
            notes.append(f"vector extensions: {', '.join(gained) or 'none'} here only, "
                         f"{', '.join(lost) or 'none'} in the baseline only")
    return notes


def compare(run: dict, baseline: dict, margin: float) -> list[str]:
    slower = []
    for name, loop in WATCHED.items():
        both = loop in run["figures"] and loop in baseline["figures"]
        now = _comparable(run, name, loop if both else None)
        then = _comparable(baseline, name, loop if both else None)
        if now is None or then is None:
            continue
        if now < then * (1 - margin):
            unit = f"x the {loop} loop" if both else "/s"
            slower.append(f"{name}: {now:.2f}{unit} now, {then:.2f}{unit} in the baseline "
                          f"({100 * (1 - now / then):.0f}% slower, margin {100 * margin:.0f}%)")
    return slower


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


def _percent(part: float, whole: float) -> str:
    return f"{100 * part / whole:.0f}%" if whole else ""


def profile_report(run: dict) -> str:
    """The profile of a run as Markdown: what to read first, then the tables."""
    machine, data = run["machine"], run["profile"]
    players = data["players"]
    lines = [
        "# Where the fast engine's time goes (`bgsim bench --profile`)",
        "",
        f"Commit {machine['git_commit']}{'' if machine.get('git_clean') else ' (with uncommitted changes)'}, "
        f"{run['when']}, {machine['cpu']} ({machine.get('llvm_cpu', '')}), {machine['cores']} cores, "
        f"vector extensions {', '.join(machine.get('vector_extensions', [])) or 'none'}; "
        f"load average {', '.join(f'{x:.2f}' for x in machine.get('load_average_at_start', []))} at the start"
        f" and {', '.join(f'{x:.2f}' for x in machine.get('load_average_at_end', []))} at the end.",
        "",
        "Regenerate: `bgsim bench --profile --out results/bench` from a clean commit (it writes "
        "`bench-<time>.json` with this profile under `profile`, and this report as `profile-<time>.md`). "
        "`bgsim.fast.timing.profile(white, black, seed, games)` gives one player's part.",
        "",
        "## The game loop, one thread, by phase (ns per ply)",
        "",
        "The engine kernel's CPU time per ply (least of several rounds), shared out in proportion "
        "to the cycles a lapped copy of the loop charged to each phase (`bgsim/fast/clock.py`: a "
        "cycle-counter read between phases, its own cost taken off).  Dice: the two dice of a "
        "roll; cube decisions: the cube question (asked of every player, one without a cube "
        "answers at once); move generation: all distinct legal plays, duplicate removal "
        "included; choice: the checker bot's pick (random: the k-th play in canonical order; "
        "evaluation bots: every play scored); bookkeeping: the board after the play, the "
        "end-of-game test, turning the board; row writing: the game's row; Python: "
        "`play_games` around the kernel (packing the players, the DataFrame).",
        "",
        "| phase | " + " | ".join(f"`{spec}`" for spec in players) + " |",
        "|---|" + "---:|" * len(players),
    ]
    phases = list(next(iter(players.values()))["ns_per_ply"])
    for phase in phases:
        cells = []
        for figures in players.values():
            value = figures["ns_per_ply"][phase]
            cells.append(f"{value:,.0f} ({_percent(value, figures['kernel_ns_per_ply'])})")
        lines.append(f"| {phase} | " + " | ".join(cells) + " |")
    lines.append("| **engine kernel** | " + " | ".join(f"**{figures['kernel_ns_per_ply']:,.0f}**"
                                                  for figures in players.values()) + " |")
    lines.append("| Python around it | " + " | ".join(f"{figures['python_ns_per_ply']:,.0f}"
                                                     for figures in players.values()) + " |")
    lines.append("| lapped copy (laps' own cost) | " + " | ".join(
        f"{figures['lapped_ns_per_ply']:,.0f}" for figures in players.values()) + " |")
    lines.append("| laps left out (a wait for the core) | " + " | ".join(
        f"{figures['laps_left_out']:,} of {figures['laps'] + figures['laps_left_out']:,}"
        for figures in players.values()) + " |")
    lines.append("| plies (games) | " + " | ".join(f"{figures['plies']:,} ({figures['games']:,})"
                                                   for figures in players.values()) + " |")
    lines += ["", "## Inside the phases", ""]
    for spec, figures in players.items():
        generation = figures["generation"]
        lines.append(
            f"* `{spec}` move generation, on its own games' positions and rolls: "
            f"{generation['ns_per_generation']:,.0f} ns per generation, {generation['plays_per_generation']:.1f} "
            f"plays from {generation['leaves_per_generation']:.1f} leaves; without duplicate removal "
            f"{generation['ns_without_dedupe']:,.0f} ns (removal {100 * generation['dedupe_share']:.0f}% of it).")
        if "nn" in figures:
            net = figures["nn"]
            lines.append(
                f"* `{spec}` choice, {net['hidden']} hidden units: {net['ns_per_play_judged']:,.0f} ns per play "
                f"judged; without the output layer {net['without_output_layer_ns_per_play']:,.0f} ns "
                f"(the output layer {100 * net['output_layer_share']:.0f}%, the first layer and the "
                f"per-play scan of the board the rest).")
    compiled = data["compile"]
    lines += [
        "", "## The cold compile (fresh Numba cache, to the first `random` game)", "",
        f"{compiled['first_game_s']:.1f} s in all, {compiled['first_game_cpu_s']:.1f} s of CPU time (a wall time "
        f"well above it means the process waited for a core), {compiled['imports_s']:.1f} s of it imports.  "
        "Wall seconds per kernel module "
        "(each function's compile without its callees', which Numba compiles nested inside it; "
        "lowering includes LLVM's optimisation of the function with every callee it linked in):", "",
        "| module | s |", "|---|---:|",
    ]
    lines += [f"| `{module}` | {seconds:.2f} |" for module, seconds in compiled["modules_s"].items()]
    lines += ["", "The 15 dearest kernels:", "", "| kernel | s |", "|---|---:|"]
    lines += [f"| `{name}` | {seconds:.2f} |" for name, seconds in list(compiled["kernels_s"].items())[:15]]
    lines += ["", "By compiler pass (all kernels; lowering includes LLVM's optimisation of each function):", "",
              "| pass | s |", "|---|---:|"]
    lines += [f"| `{name}` | {seconds:.2f} |" for name, seconds in list(compiled["passes_s"].items())[:10]]
    if "exact_first_game_s" in compiled:
        lines += ["", f"Then the first game of a player with the `exact` cube bot (its own family of kernels, "
                      f"`bgsim/fast/with_exact.py`): {compiled['exact_first_game_s']:.1f} s more "
                      f"({compiled['exact_first_game_cpu_s']:.1f} s of CPU time); by module:", "",
                  "| module | s |", "|---|---:|"]
        lines += [f"| `{module}` | {seconds:.2f} |" for module, seconds in compiled["exact_modules_s"].items()]
    busy = machine.get("busy_at_start", []) + machine.get("busy_at_end", [])
    if busy:
        lines += ["", "## What else was running", "",
                  "Other processes using at least 5% of a core, sampled for a second at the start and at the "
                  "end (another engineer's tests or runs share this machine's cores):", ""]
        lines += [f"* {process['cpu_percent']}%: `{process['command'][:120]}`" for process in busy]
    return "\n".join(lines) + "\n"


def run_compile_bench(out: str | Path = RUNS, against_python: str | None = None) -> int:
    """``bgsim bench --compile-only``: :func:`compile_times` of every standard run (and of
    ``against_python``'s checkout beside it), with the machine, written as ``compile-<time>.json``."""
    out = Path(out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise explain(error, out) from None
    run = {"when": datetime.now(timezone.utc).isoformat(timespec="seconds"), "machine": _machine()}
    machine = run["machine"]
    print(f"bgsim bench --compile-only of {machine['git_commit']}{'' if machine['git_clean'] else ' (uncommitted changes)'} "
          f"(load average {', '.join(f'{x:.1f}' for x in machine['load_average_at_start'])})")
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

    run = {"when": datetime.now(timezone.utc).isoformat(timespec="seconds"), "machine": _machine(),
           "settings": {"games": games, "rounds": rounds, "seed": seed}}
    machine = run["machine"]
    print(f"bgsim bench of {machine['git_commit']}{'' if machine['git_clean'] else ' (uncommitted changes)'} "
          f"on {machine['cpu']}, {machine['cores']} cores, {', '.join(machine['vector_extensions']) or 'no vector extensions'} "
          f"(load average {', '.join(f'{x:.1f}' for x in machine['load_average_at_start'])})")
    for process in machine["busy_at_start"]:
        print(f"  also running: {process['cpu_percent']}% {process['command'][:100]}")
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
        run["figures"] = measure(games, rounds, seed, against=against)
        run["ubgi"] = measure_ubgi(max(10, games // 1000), rounds, seed)  # the UBGI controller's cost
    finally:
        if against is not None:
            against.close()
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
                else "trials/s" if name.startswith(("rollout", "against_rollout")) else "games/s")
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
