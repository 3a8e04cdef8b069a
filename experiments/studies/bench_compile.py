"""What a first run costs before its first game (``bgsim bench``'s compile figures): the cold
compile (a fresh process, an empty ``NUMBA_CACHE_DIR``) and the cached start (the same cache
again) of each standard run, up to the first finished game, imports included, with another
checkout's beside (``--against``); and, for ``--profile``, the cold compile taken apart by
kernel and by compiler pass.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bgsim import settings

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
    the ``exact`` family (``bgsim/fast/families.py``) on top."""
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
