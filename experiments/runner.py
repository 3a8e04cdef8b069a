"""The runner: an experiment in, a results folder out, raw rows first.

A run is a list of *pairings* (two players under one rule condition).  Each pairing plays game
numbers 0..N-1 in *chunks*; a chunk is played twice, once with the pairing's first player as
white (leg 0) and once with the seats swapped (leg 1).  Under duplicate dice (the default) leg 1
replays the same game numbers, so each side is dealt exactly the dice the other had; without
it, leg 1 plays game numbers N..2N-1.

Every finished chunk goes to ``chunks/pairing-PPP-chunk-CCCC.parquet`` at once (written under a
temporary name, then renamed, so a file that exists is whole).  Killing the run loses at most
the chunks being played; ``resume=True`` plays only the missing ones.  When all are there they
are joined, in a canonical order, into ``games.parquet``, and every summary, table and plot is
computed from that file.

Seeds.  Pairing k (counting the pairs of players, not the conditions) plays with the seed

    pairing_seed(seed, k) = mix64(mix64(seed) + (k + 1) * GOLDEN) >> 1

that is, the (k+1)-th SplitMix64 output of a stream keyed by the run seed, cut to 63 bits.
Pairings are thus independent of each other yet fixed by the run seed alone, and game g of a
pairing is the same game however the run is chunked, threaded, resumed or spread over Dask.
A pair of players meets under every rule condition with the same seed: the conditions are
compared on common dice, so their differences are measured with less noise.
"""

from __future__ import annotations

import datetime as dt
import itertools
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pandas as pd

from bgsim.cube import Rules
from bgsim.dice import GOLDEN, MASK64, mix64
from bgsim.series import play_games

from .config import Experiment, default_player_factory
from .summary import mean_interval

CHUNK_DIR = "chunks"
CHUNK_NAME = re.compile(r"^pairing-(\d+)-chunk-(\d+)\.parquet$")
RUN_FILE = "run.json"
GAMES_FILE = "games.parquet"
OUTPUTS = (GAMES_FILE, "summary.csv", "summary.md")
DEFAULT_RUNS = Path("results") / "runs"


class RunError(RuntimeError):
    """A run that cannot start or go on (the message says what to do about it)."""


@dataclass(frozen=True)
class Pairing:
    index: int
    first: str
    second: str
    condition: str
    rules: Rules
    seed: int


def pairing_seed(seed: int, pair: int) -> int:
    """The seed of the ``pair``-th pair of players (see the module docstring)."""
    return mix64((mix64(seed) + (pair + 1) * GOLDEN) & MASK64) >> 1


def plan_pairings(experiment: Experiment) -> list[Pairing]:
    if experiment.pairings == "against":
        pairs = [(player, experiment.opponent) for player in experiment.players]
    else:
        pairs = list(itertools.combinations(experiment.everyone, 2))
    out = []
    for c, (condition, rules) in enumerate(experiment.conditions):
        for k, (first, second) in enumerate(pairs):
            out.append(Pairing(c * len(pairs) + k, first, second, condition, rules,
                               pairing_seed(experiment.seed, k)))
    return out


def chunk_ranges(experiment: Experiment) -> list[tuple[int, int]]:
    size = experiment.chunk
    return [(start, min(start + size, experiment.games)) for start in range(0, experiment.games, size)]


def chunk_name(pairing: int, chunk: int) -> str:
    return f"pairing-{pairing:03d}-chunk-{chunk:04d}.parquet"


def make_task(experiment: Experiment, pairing: Pairing, chunk: int, threads: int | None) -> dict:
    """Everything a worker needs to play one chunk: plain data, spec strings, no objects."""
    start, stop = chunk_ranges(experiment)[chunk]
    return {
        "pairing": pairing.index, "chunk": chunk, "condition": pairing.condition,
        "first": pairing.first, "second": pairing.second, "seed": pairing.seed,
        "rules": asdict(pairing.rules), "start": start, "stop": stop,
        "swap_offset": 0 if experiment.duplicate else experiment.games,
        "match_to": experiment.match_to, "engine": experiment.engine, "threads": threads,
    }


_PLAYERS: dict = {}


def _player(factory, spec: str):
    key = (factory, spec)
    if key not in _PLAYERS:
        _PLAYERS[key] = factory(spec)
    return _PLAYERS[key]


def play_chunk(task: dict, make_player: Callable[[str], Any] | None = None) -> pd.DataFrame:
    """Play one chunk, both seatings; runs in this process or on a Dask worker."""
    factory = make_player or default_player_factory()
    first, second = _player(factory, task["first"]), _player(factory, task["second"])
    rules = Rules(**task["rules"])
    start, stop, offset = task["start"], task["stop"], task["swap_offset"]
    common = dict(seed=task["seed"], rules=rules, match_to=task["match_to"],
                  engine=task["engine"], threads=task["threads"])
    legs = [play_games(first, second, games=range(start, stop), **common),
            play_games(second, first, games=range(start + offset, stop + offset), **common)]
    for leg, frame in enumerate(legs):
        frame["pairing"] = np.int32(task["pairing"])
        frame["condition"] = pd.Series([task["condition"]] * len(frame), dtype="string")
        frame["leg"] = np.int8(leg)
    frame = pd.concat(legs, ignore_index=True)
    return frame.astype({"pairing": "int32", "leg": "int8", "condition": "string"})


# --- the results folder ----------------------------------------------------------------------

def write_table(frame: pd.DataFrame, path: Path) -> None:
    """Write ``frame`` to ``path`` whole or not at all (temporary name, fsync, rename)."""
    temporary = path.with_name("." + path.name + ".tmp")
    try:
        frame.to_parquet(temporary, index=False)
        with open(temporary, "rb") as handle:
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def write_json(data: dict, path: Path) -> None:
    temporary = path.with_name("." + path.name + ".tmp")
    try:
        temporary.write_text(json.dumps(data, indent=2, default=_json_default) + "\n", encoding="utf-8")
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def _json_default(value):
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.floating,)):
        return float(value)
    raise TypeError(f"cannot write {type(value).__name__} to JSON")


def read_run(folder: Path) -> dict | None:
    path = Path(folder) / RUN_FILE
    if not path.exists():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise RunError(f"{path} is damaged ({error}); it is not a run bgsim can resume") from None


def git_commit() -> str | None:
    """The commit of the code that played the games, '+dirty' when it had local changes."""
    here = Path(__file__).resolve().parent
    try:
        head = subprocess.run(["git", "-C", str(here), "rev-parse", "HEAD"], capture_output=True,
                              text=True, timeout=5)
        if head.returncode:
            return None
        dirty = subprocess.run(["git", "-C", str(here), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=5)
        return head.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")
    except (OSError, subprocess.SubprocessError):
        return None


def default_folder(name: str, root: Path = DEFAULT_RUNS) -> Path:
    stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%d-%H%M%S")
    folder = root / f"{name}-{stamp}"
    suffix = 2
    while folder.exists():
        folder = root / f"{name}-{stamp}-{suffix}"
        suffix += 1
    return folder


def latest_unfinished(name: str, root: Path = DEFAULT_RUNS) -> Path | None:
    """The newest run of ``name`` under ``root`` that has not finished (for a bare --resume)."""
    if not root.is_dir():
        return None
    candidates = []
    for folder in root.glob(f"{name}-*"):
        try:
            run = read_run(folder)
        except RunError:
            continue
        if run and run.get("status") == "running" and run.get("config", {}).get("name") == name:
            candidates.append((run.get("started", ""), str(folder), folder))
    return max(candidates)[2] if candidates else None


def finished_chunks(folder: Path) -> dict[tuple[int, int], Path]:
    """The chunk files on disk; leftovers of interrupted writes are removed."""
    chunks = Path(folder) / CHUNK_DIR
    found = {}
    if not chunks.is_dir():
        return found
    for path in chunks.iterdir():
        if path.name.startswith(".") and path.name.endswith(".tmp"):
            path.unlink(missing_ok=True)
            continue
        match = CHUNK_NAME.match(path.name)
        if match:
            found[(int(match.group(1)), int(match.group(2)))] = path
    return found


def prepare_folder(folder: Path, experiment: Experiment, resume: bool, force: bool) -> dict | None:
    """Check what is in ``folder`` against what was asked; returns the stored run when resuming."""
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise RunError(f"results folder {folder} is a file, not a folder")
    stored = read_run(folder) if folder.is_dir() else None
    if resume:
        if stored is None:
            raise RunError(f"nothing to resume in {folder}: it holds no {RUN_FILE}")
        differences = _differences(stored.get("identity", {}), experiment.identity())
        if differences:
            again = stored.get("command") or "the command that started it"
            raise RunError(
                f"cannot resume {folder}: it was started with a different experiment "
                f"({'; '.join(differences)}); repeat its command with --resume: {again}")
        return stored
    if folder.is_dir() and any(folder.iterdir()):
        if stored is None:
            raise RunError(f"results folder {folder} is not empty and holds no bgsim run: choose another --out")
        status = stored.get("status")
        if not force:
            if status == "finished":
                raise RunError(f"results folder {folder} holds a finished run: choose another --out, "
                               "or pass --force to replace it")
            raise RunError(f"results folder {folder} holds an unfinished run: pass --resume to finish it, "
                           "or --force to start it again")
        for name in (RUN_FILE, *OUTPUTS):
            (folder / name).unlink(missing_ok=True)
        for plot in folder.glob("*.png"):
            plot.unlink()
        shutil.rmtree(folder / CHUNK_DIR, ignore_errors=True)
    return None


def _differences(before: dict, now: dict) -> list[str]:
    out = []
    for key in sorted(set(before) | set(now)):
        if before.get(key) != now.get(key):
            if key in ("players", "conditions"):
                out.append(f"{key} differ")
            else:
                out.append(f"{key}: {before.get(key)!r} in the run, {now.get(key)!r} now")
    return out


# --- running ---------------------------------------------------------------------------------

@dataclass
class RunResult:
    folder: Path
    frame: pd.DataFrame
    report: Any  # experiments.report.Report
    played: int  # games played in this session
    elapsed: float
    already_finished: bool = False


class _Progress:
    """A tqdm bar on a terminal; a last line on stderr either way."""

    def __init__(self, total: int, initial: int, unit: str, enabled: bool) -> None:
        self.bar = None
        self.unit = unit
        if enabled:
            try:
                from tqdm import tqdm

                # A pseudo-terminal can report zero columns, which would hide the bar.
                width = shutil.get_terminal_size((0, 0)).columns
                sized = {"dynamic_ncols": True} if width >= 40 else {"ncols": 100}
                self.bar = tqdm(total=total, initial=initial, unit=f" {unit}", unit_scale=True,
                                file=sys.stderr, disable=None, smoothing=0.1, **sized,
                                bar_format="{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}<{remaining}, {rate_fmt}]")
            except ImportError:  # tqdm is a dependency, but a bar is not worth failing over
                self.bar = None

    def update(self, count: int) -> None:
        if self.bar is not None:
            self.bar.update(count)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def run_experiment(
    experiment: Experiment,
    out: str | Path | None = None,
    *,
    resume: bool = False,
    force: bool = False,
    dask: str | None = None,
    make_player: Callable[[str], Any] | None = None,
    progress: bool = True,
    command: list[str] | None = None,
    log=None,
    dask_options: dict | None = None,
) -> RunResult:
    """Play ``experiment`` into the results folder ``out`` and summarize it from the rows."""
    log = log or (lambda text: print(text, file=sys.stderr, flush=True))
    if not dask:
        return _run_experiment(experiment, out, resume, force, None, None, make_player, progress,
                               command, log, dask_options)
    from .dask_backend import Cluster, check_address

    check_address(dask)
    options = dict(dask_options or {})
    # Connect before any folder is made: an unreachable scheduler leaves nothing behind.
    cluster = Cluster(dask, processes=options.pop("processes", True), timeout=options.pop("timeout", None))
    try:
        return _run_experiment(experiment, out, resume, force, dask, cluster, make_player, progress,
                               command, log, options)
    finally:
        cluster.close()


def _run_experiment(experiment, out, resume, force, dask, cluster, make_player, progress, command,
                    log, dask_options) -> RunResult:
    if out is None:
        if resume:
            out = latest_unfinished(experiment.name)
            if out is None:
                raise RunError(f"no unfinished run of {experiment.name} under {DEFAULT_RUNS} to resume: "
                               "name its folder with --out")
        else:
            out = default_folder(experiment.name)
    folder = Path(out)
    stored = prepare_folder(folder, experiment, resume, force)
    if stored is not None and stored.get("status") == "finished" and (folder / GAMES_FILE).exists():
        from .report import load_rows, write_report

        frame = load_rows(folder)
        report = write_report(folder, frame, experiment)
        log(f"{folder} holds a finished run: nothing left to play (summaries rewritten from its rows)")
        return RunResult(folder, frame, report, 0, 0.0, already_finished=True)

    command_text = shlex.join(command if command is not None else sys.argv)
    pairings = plan_pairings(experiment)
    threads = experiment.threads or None
    try:
        (folder / CHUNK_DIR).mkdir(parents=True, exist_ok=True)
        run = stored or {
            "status": "running",
            "name": experiment.name,
            "bgsim_version": _version(),
            "git_commit": git_commit(),
            "command": command_text,
            "config": experiment.to_dict(),
            "identity": experiment.identity(),
            "seed": experiment.seed,
            "started": _now(),
            "pairings": [{"index": p.index, "first": p.first, "second": p.second,
                          "condition": p.condition, "seed": p.seed} for p in pairings],
            "sessions": [],
        }
        run["status"] = "running"
        session = {"started": _now(), "command": command_text, "engine": experiment.engine,
                   "threads": experiment.threads, "dask": dask, "games": 0, "elapsed_s": 0.0}
        run["sessions"].append(session)
        write_json(run, folder / RUN_FILE)
    except OSError as error:
        raise OSError(f"cannot write to results folder {folder}: {error.strerror or error}") from None

    state = _State(experiment, pairings, folder, make_player)
    unit = "matches" if experiment.match_to else "games"
    total = 2 * experiment.games * len(pairings)
    log(f"{experiment.name}: {len(pairings)} pairings × {experiment.games} deals × 2 seatings"
        f"{' (duplicate dice)' if experiment.duplicate else ''}, engine {experiment.engine}, "
        f"{'every core' if not threads else f'{threads} threads'}{f', Dask {dask}' if dask else ''} → {folder}")
    if state.done_units:
        log(f"resuming: {len(state.on_disk)} finished chunks on disk, {state.done_units} {unit} not replayed")
    bar = _Progress(total, state.done_units, unit, progress)
    started = time.perf_counter()
    played_rows = 0

    def finished(task: dict, frame: pd.DataFrame) -> None:
        nonlocal played_rows
        path = folder / CHUNK_DIR / chunk_name(task["pairing"], task["chunk"])
        try:
            write_table(frame, path)
        except OSError as error:
            raise OSError(
                f"cannot write {path}: {error.strerror or error}; the {len(state.on_disk)} finished "
                f"chunks in {folder / CHUNK_DIR} are kept: make room and finish with --resume") from None
        state.record(task["pairing"], task["chunk"], path, frame)
        units = 2 * (task["stop"] - task["start"])
        played_rows += len(frame)
        bar.update(units)

    try:
        if dask:
            from .dask_backend import run_on_dask

            run_on_dask(dask, state, lambda p, c: make_task(experiment, p, c, threads), finished,
                        make_player, cluster=cluster, **(dask_options or {}))
        else:
            while True:
                ready = state.ready_tasks()
                if not ready:
                    break
                for pairing, chunk in ready:
                    task = make_task(experiment, pairing, chunk, threads)
                    finished(task, play_chunk(task, make_player))
    except KeyboardInterrupt:
        bar.close()
        try:
            _close_session(folder, run, session, started, played_rows)
        except OSError:  # the chunks matter, the session's timing does not
            pass
        log(f"interrupted: {len(state.on_disk)} finished chunks are kept in {folder / CHUNK_DIR}; "
            f"finish with: {_resume_command(command_text, folder)}")
        raise
    except BaseException:
        bar.close()
        try:
            _close_session(folder, run, session, started, played_rows)
        except OSError:
            pass
        raise
    bar.close()
    elapsed = time.perf_counter() - started

    from .report import assemble, write_report

    frame = assemble(folder, state.plan())
    session["games"] = played_rows
    session["elapsed_s"] = round(elapsed, 3)
    total_elapsed = sum(s.get("elapsed_s", 0.0) for s in run["sessions"])
    total_played = sum(s.get("games", 0) for s in run["sessions"])
    run.update({
        "status": "finished",
        "finished": _now(),
        "engine": experiment.engine,
        "engines_used": sorted(state.engines_used()),
        "threads": experiment.threads or os.cpu_count(),
        "dask": dask,
        "games": int(len(frame)),
        "elapsed_s": round(total_elapsed, 3),
        "games_per_s": round(total_played / total_elapsed, 1) if total_elapsed > 0 else None,
    })
    # Finished once the rows are whole: a kill while the summaries are written leaves a run
    # that --resume completes by summarizing its games.parquet again.
    write_json(run, folder / RUN_FILE)
    report = write_report(folder, frame, experiment, run=run)
    shutil.rmtree(folder / CHUNK_DIR, ignore_errors=True)
    rate = played_rows / elapsed if elapsed > 0 else float("nan")
    log(f"played {played_rows} games in {elapsed:.1f} s ({rate:,.0f} games/s); results in {folder}")
    return RunResult(folder, frame, report, played_rows, elapsed)


def _close_session(folder: Path, run: dict, session: dict, started: float, played: int) -> None:
    session["elapsed_s"] = round(time.perf_counter() - started, 3)
    session["games"] = played
    write_json(run, folder / RUN_FILE)


def _resume_command(command: str, folder: Path) -> str:
    words = shlex.split(command)
    if "--resume" not in words:
        words.append("--resume")
    if "--out" not in words and not any(w.startswith("--out=") for w in words):
        words += ["--out", str(folder)]
    return shlex.join(words)


def _now() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")


def _version() -> str:
    import bgsim

    return bgsim.__version__


class _State:
    """Which chunks exist, which are still to play, and where sequential stopping stands."""

    def __init__(self, experiment: Experiment, pairings: list[Pairing], folder: Path, make_player) -> None:
        self.experiment = experiment
        self.pairings = pairings
        self.by_index = {p.index: p for p in pairings}
        self.chunks = len(chunk_ranges(experiment))
        self.make_player = make_player
        self.on_disk: dict[tuple[int, int], Path] = {}
        self.in_flight: set[tuple[int, int]] = set()
        # Sequential stopping: per pairing, the units so far and the chunk it stopped after.
        self.units: dict[int, list[np.ndarray]] = {p.index: [] for p in pairings}
        self.stopped: dict[int, int] = {}
        self.done_units = 0
        known = finished_chunks(folder)
        ranges = chunk_ranges(experiment)
        for pairing in pairings:
            for chunk in range(self.chunks):
                path = known.get((pairing.index, chunk))
                if path is None:
                    if experiment.target_ci is not None:
                        break  # later chunks only count once this one is in
                    continue
                frame = pd.read_parquet(path) if experiment.target_ci is not None else None
                self.on_disk[(pairing.index, chunk)] = path
                self.done_units += 2 * (ranges[chunk][1] - ranges[chunk][0])
                if frame is not None and self._add_units(pairing, chunk, frame):
                    break

    def _add_units(self, pairing: Pairing, chunk: int, frame: pd.DataFrame) -> bool:
        """Sequential stopping: add the chunk's units; True once the pairing has stopped."""
        target = self.experiment.target_ci
        if target is None:
            return False
        self.units[pairing.index].append(stopping_units(frame, pairing.first))
        _, half = mean_interval(np.concatenate(self.units[pairing.index]))
        if half == half and half <= target:  # NaN (too few units) never stops
            self.stopped[pairing.index] = chunk
            return True
        return False

    def record(self, pairing_index: int, chunk: int, path: Path, frame: pd.DataFrame) -> None:
        self.on_disk[(pairing_index, chunk)] = path
        self.in_flight.discard((pairing_index, chunk))
        self._add_units(self.by_index[pairing_index], chunk, frame)

    def ready_tasks(self) -> list[tuple[Pairing, int]]:
        """Chunks that may be played now (and are not being played)."""
        out = []
        for pairing in self.pairings:
            if pairing.index in self.stopped:
                continue
            for chunk in range(self.chunks):
                key = (pairing.index, chunk)
                if key in self.on_disk:
                    continue
                if key not in self.in_flight:
                    out.append((pairing, chunk))
                if self.experiment.target_ci is not None:
                    break  # one at a time: whether the next is needed depends on this one
        return out

    def mark_in_flight(self, pairing: Pairing, chunk: int) -> None:
        self.in_flight.add((pairing.index, chunk))

    def plan(self) -> list[tuple[int, list[Path]]]:
        """Per pairing, the chunk files that make up the run, in order."""
        out = []
        for pairing in self.pairings:
            last = self.stopped.get(pairing.index, self.chunks - 1)
            paths = [self.on_disk.get((pairing.index, chunk)) for chunk in range(last + 1)]
            if any(path is None for path in paths):
                missing = [c for c, path in enumerate(paths) if path is None]
                raise RunError(f"pairing {pairing.index} lacks chunk {missing[0]} after the run: nothing was assembled")
            out.append((pairing.index, paths))
        return out

    def engines_used(self) -> set[str]:
        engine = self.experiment.engine
        if engine != "auto":
            return {engine}
        from bgsim import fast

        factory = self.make_player or default_player_factory()
        used = set()
        for pairing in self.pairings:
            both = [_player(factory, pairing.first), _player(factory, pairing.second)]
            used.add("fast" if all(fast.supports(player) for player in both) else "reference")
        return used


def stopping_units(frame: pd.DataFrame, first: str) -> np.ndarray:
    """The independent units of a chunk for sequential stopping: per deal, the first player's
    mean points over the two seatings (per match, its mean share of matches won)."""
    if len(frame) and int(frame["match_to"].max()) > 0:
        last = frame.sort_values(["leg", "game", "game_in_match"], kind="mergesort").groupby(
            ["leg", "game"], sort=False).tail(1)
        won = ((last["winner"] == "white").to_numpy() == (last["white"] == first).to_numpy()).astype(float)
        return pd.Series(won).groupby(last["game"].to_numpy()).mean().to_numpy()
    white_points = frame["white_points"].to_numpy(dtype=np.float64)
    points = np.where(frame["white"].to_numpy() == first, white_points, -white_points)
    return pd.Series(points).groupby(frame["game"].to_numpy()).mean().to_numpy()
