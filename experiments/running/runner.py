"""The runner: an experiment in, a results folder of raw rows out.

The pieces live along their seams: what is played (pairings, seeds, chunks, the task of one
chunk) in :mod:`experiments.running.plan`; the results folder and its ``run.json`` in
:mod:`experiments.running.folder`; which chunks are done, sequential stopping and the joined
rows in :mod:`experiments.running.chunks`; whole-or-nothing writes in
:mod:`experiments.running.files`; the bar in :mod:`experiments.running.progress`.  This module
runs a session: it plays the missing chunks, writes each one at once, and when all are there
joins them and hands the rows to ``summarize`` (the analysis layer's, given by the caller:
:func:`experiments.studies.experiment.run_experiment` is both).

Every finished chunk goes to ``chunks/pairing-PPP-chunk-CCCC.parquet`` (written under a
temporary name, then renamed, so a file that exists is whole).  Killing the run loses at most
the chunks being played; ``resume=True`` plays only the missing ones.  When all are there they
are joined, in a canonical order, into ``games.parquet``, and every summary, table and plot is
computed from that file.

For tests, the environment variable ``BGSIM_STOP_AFTER=K[:SIGNAL]`` makes a run send itself
SIGNAL (default SIGINT) right after its K-th chunk file of the session is written, so an
interruption happens at a known point instead of racing a timer (:func:`files.stop_hook`).
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
import time
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import pandas as pd

from bgsim.series import engine_for

from .chunks import Chunks, assemble
from .config import Experiment, default_player_factory
from .files import explain, stop_hook, write_table
from .folder import CHUNK_DIR, EXPERIMENT_RUN, GAMES_FILE, RunFolder, choose_folder, git_state, load_rows, now
from .machine import compiling_message, fast_compile_pending
from .plan import Pairing, cached_player, chunk_name, make_task, plan_units, play_chunk
from .progress import Progress, duration, phase_line


@dataclass
class RunResult:
    folder: Path
    frame: pd.DataFrame
    report: Any  # what ``summarize`` returned: experiments.analysis.report.Report
    played: int  # games played in this session
    elapsed: float
    already_finished: bool = False


# summarize(folder, frame, experiment, run, make_player=, progress=, log=, phases=): write the
# summaries of a finished run's rows (run: its run.json) and return what they say; the seconds
# of any long phase of its own (judging) are added to ``phases`` (name -> seconds).
Summarize = Callable[..., Any]


def play_experiment(
    experiment: Experiment,
    out: str | Path | None = None,
    *,
    summarize: Summarize,
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
        return _Session(experiment, out, resume, force, None, None, make_player, progress,
                        command, log, dask_options, summarize).run()
    from .dask_backend import Cluster, check_address

    check_address(dask)
    options = dict(dask_options or {})
    # Connect before any folder is made: an unreachable scheduler leaves nothing behind.
    cluster = Cluster(dask, processes=options.pop("processes", True), timeout=options.pop("timeout", None))
    try:
        return _Session(experiment, out, resume, force, dask, cluster, make_player, progress,
                        command, log, options, summarize).run()
    finally:
        cluster.close()


class _Session:
    """One invocation of a run: from the folder check to the summaries (or to an interruption)."""

    def __init__(self, experiment, out, resume, force, dask, cluster, make_player, progress, command,
                 log, dask_options, summarize) -> None:
        self.experiment = experiment
        self.out, self.resume, self.force = out, resume, force
        self.dask, self.cluster, self.dask_options = dask, cluster, dask_options or {}
        self.make_player = make_player
        self.progress = progress
        self.command_text = shlex.join(command if command is not None else sys.argv)
        self.log = log
        self.summarize = summarize
        self.played_rows = 0
        self.written = 0
        self.units_played = 0
        self.timed = None  # (time, units) when the first chunk was in: it may carry the compile
        self.shown: dict[int, float] = {}  # pairing -> when its sequential test's last line was shown

    def run(self) -> RunResult:
        folder = choose_folder(self.out, self.experiment.name, self.resume)
        self.run_folder = RunFolder(folder, EXPERIMENT_RUN)
        with self.run_folder.claimed():  # a second command on this folder stops here
            return self._run(folder)

    def _run(self, folder: Path) -> RunResult:
        experiment = self.experiment
        identity = experiment.identity()
        self.engines = {}
        if experiment.seats_engines:
            from .engines import ENGINE_LOG, engine_players, start_engines

            # the engines start (and a bad one stops the run) before anything is written; the
            # run's identity holds what each is, so a resume on another engine is refused
            self.make_player = engine_players(dict(experiment.engine_specs), folder / ENGINE_LOG)
            self.engines = start_engines([cached_player(self.make_player, name) for name in experiment.everyone],
                                         self.log)
            identity["engines"] = {name: engine.fingerprint() for name, engine in self.engines.items()}
        stored = self.run_folder.open(identity, resume=self.resume, force=self.force)
        if stored is not None and stored.get("status") == "finished" and (folder / GAMES_FILE).exists():
            frame = load_rows(folder)
            self.times = dict(stored.get("phases") or {})
            report = self._summarize(folder, frame, stored)  # stopped while summarizing: again
            self.log(f"{folder} holds a finished run: nothing left to play (summaries rewritten from its rows)")
            return RunResult(folder, frame, report, 0, 0.0, already_finished=True)

        pairings = plan_units(experiment)  # a chouette experiment's: its tables
        threads = experiment.threads or None
        self._open(folder, stored, pairings, identity)
        chunks = Chunks(experiment, pairings, folder)
        unit = "matches" if experiment.plays_matches else "games"
        total = experiment.legs * experiment.games * len(pairings)
        if experiment.chouette:
            what = f"{len(pairings)} chouette tables × {experiment.games:,} games = {total:,} games"
            judged = (f"; then the takes and drops of the first {experiment.judge_cube:,} games of every table "
                      "are judged (a phase of its own)" if experiment.judge_cube else "")
        else:
            most = "at most " if experiment.sequential else ""  # a pairing may stop before them
            what = (f"{len(pairings)} pairing{'s' * (len(pairings) != 1)} × {most}{experiment.games:,} deals × 2 seatings = {most}{total:,} {unit}"
                    f"{' (duplicate dice)' if experiment.duplicate else ''}")
            if experiment.sprt is not None:
                what += (f"; a sequential test looks after every {experiment.chunk:,} deals and stops a pairing "
                         "once it decides")
            judged = (f"; then the cube decisions of the first {experiment.judge_cube:,} deals of every pairing "
                      "are judged (a phase of its own)" if experiment.judge_cube and experiment.plays_matches else "")
        self.log(f"{experiment.name}: {what}, engine {experiment.engine}, "
                 f"{'every core' if not threads else f'{threads} threads'}"
                 f"{f', Dask {self.dask}' if self.dask else ''} → {folder}{judged}")
        factory = self.make_player or default_player_factory()
        everyone = [cached_player(factory, name) for name in experiment.everyone]
        if "fast" in self._engines_used(pairings):
            from bgsim.fast import compile_only_for

            # every pairing plays on the family of everyone's kernels (play_chunk's block, a task's "everyone")
            with compile_only_for(everyone) if not experiment.chouette else nullcontext():
                if (fast_compile_pending(everyone, chouette=True) if experiment.chouette
                        else fast_compile_pending(everyone)):
                    self.log(compiling_message(everyone, chouette=experiment.chouette))
        if chunks.done_units:
            self.log(f"resuming: {len(chunks.on_disk)} finished chunks on disk, {chunks.done_units} {unit} not replayed")
        # a sequential test says where it stands after each batch instead of a bar towards a
        # total it will rarely reach
        bar = Progress(total, chunks.done_units, unit, self.progress and experiment.sprt is None)
        self.started = time.perf_counter()
        if experiment.sprt is not None:
            self._sprt_lines(chunks, pairings, resumed=True)

        def finished(task: dict, frame: pd.DataFrame) -> None:
            path = folder / CHUNK_DIR / chunk_name(task["pairing"], task["chunk"])
            try:
                write_table(frame, path)
            except OSError as error:
                raise explain(error, path, f"and finish with --resume (the {len(chunks.on_disk)} finished "
                                           f"chunks in {folder / CHUNK_DIR} are kept)") from None
            chunks.record(task["pairing"], task["chunk"], path, frame)
            for name, spent in frame.attrs.get("engine_time", {}).items():
                summed = self.record.setdefault("engine_time", {}).setdefault(name, {})
                for key, value in spent.items():
                    summed[key] = summed.get(key, 0) + value
            self.played_rows += (task["stop"] - task["start"]) if experiment.chouette else len(frame)  # games
            self.written += 1
            units = experiment.legs * (task["stop"] - task["start"])
            bar.update(units)
            if experiment.sprt is None:
                self._estimate(units, total - chunks.done_units - self.units_played, unit)
            else:
                self._sprt_lines(chunks, [chunks.by_index[task["pairing"]]])
            stop_hook(self.written)

        try:
            if self.dask:
                from .dask_backend import run_on_dask

                run_on_dask(self.dask, chunks,
                            lambda p, c: make_task(experiment, p, c, threads, chunks.before(p, c)), finished,
                            self.make_player, cluster=self.cluster, **self.dask_options)
            else:
                while (ready := chunks.next_task()) is not None:
                    task = make_task(experiment, *ready, threads, chunks.before(*ready))
                    finished(task, play_chunk(task, self.make_player))
        except BaseException as error:
            bar.close()
            try:
                self._close_session(folder)
            except OSError:  # the chunks matter, the session's timing does not
                pass
            if isinstance(error, KeyboardInterrupt):
                self.log(f"interrupted: {len(chunks.on_disk)} finished chunks are kept in {folder / CHUNK_DIR}; "
                         f"finish with: {_resume_command(self.command_text, folder)}")
            raise
        bar.close()
        return self._finish(folder, chunks, pairings)

    def _sprt_lines(self, chunks: Chunks, pairings: list[Pairing], resumed: bool = False) -> None:
        """One line per pairing's sequential test: deals, LLR and bounds, as it goes (at most one
        a second for a pairing that goes on; always its first, its last and after a resume)."""
        for pairing in pairings:
            test = chunks.tests[pairing.index]
            if resumed and not test.deals:
                continue
            moment = time.perf_counter()
            if not (resumed or test.stopped or test.batches == 1
                    or moment - self.shown.get(pairing.index, 0.0) >= 1.0):
                continue
            self.shown[pairing.index] = moment
            self.log(sprt_line(pairing, test, self.experiment.games))

    def _estimate(self, units: int, left_before: int, unit: str) -> None:
        """Once, after the third chunk: roughly how long the rest will take, from chunks 2 and 3."""
        self.units_played += units
        if self.written == 1:
            self.timed = (time.perf_counter(), self.units_played)
        elif self.written == 3:
            seconds = time.perf_counter() - self.timed[0]
            rate = (self.units_played - self.timed[1]) / seconds if seconds > 0 else 0
            left = left_before - units
            if rate > 0 and left > 0:
                self.log(f"about {duration(left / rate)} to go at ~{rate:,.0f} {unit}/s "
                         "(Ctrl-C stops and keeps the finished chunks; --resume goes on)")

    def _open(self, folder: Path, stored: dict | None, pairings: list[Pairing], identity: dict) -> None:
        """Create the folder and record this session in ``run.json`` before any game is played."""
        experiment = self.experiment
        engines = {name: engine.to_dict() for name, engine in self.engines.items()}
        if stored is None:
            if experiment.chouette:
                planned = {"tables": [{"index": t.index, "players": list(t.players), "condition": t.condition,
                                       "chouette_cubes": t.chouette_cubes, "seed": t.seed} for t in pairings]}
            else:
                planned = {"pairings": [{"index": p.index, "first": p.first, "second": p.second,
                                         "condition": p.condition, "seed": p.seed} for p in pairings]}
            self.record = self.run_folder.record(
                self.command_text, identity, name=experiment.name, config=experiment.to_dict(),
                seed=experiment.seed, **planned, **({"engines": engines} if engines else {}), sessions=[])
        else:
            self.record = self.run_folder.resumed(stored)
        self.record["status"] = "running"
        self.record["nets"] = self._nets()
        commit, dirty = git_state()
        self.session = {"started": now(), "command": self.command_text, "engine": experiment.engine,
                        "threads": experiment.threads, "dask": self.dask, "git_commit": commit,
                        "git_dirty": dirty, "games": 0, "elapsed_s": 0.0}
        self.record["sessions"].append(self.session)
        self.times = dict(self.record.get("phases") or {})  # each phase's seconds, over the sessions
        self.run_folder.save(self.record)
        self.run_folder.chunks.mkdir(exist_ok=True)

    def _nets(self) -> dict:
        """Each player's nets (``bots.nn.nets_of``): which net played a result, recorded beside it."""
        from bots.nn import nets_of

        nets = {}
        for spec in self.experiment.everyone:
            if spec.strip().startswith("ubgi:"):
                continue
            try:
                found = nets_of(cached_player(self.make_player or default_player_factory(), spec))
            except Exception:  # a player that cannot be made here fails the run elsewhere, with its line
                continue
            if found:
                nets[spec] = found
        return nets

    def _close_session(self, folder: Path) -> None:
        self.session["elapsed_s"] = round(time.perf_counter() - self.started, 3)
        self.session["games"] = self.played_rows
        self.run_folder.save(self.record)

    def _finish(self, folder: Path, chunks: Chunks, pairings: list[Pairing]) -> RunResult:
        experiment = self.experiment
        elapsed = time.perf_counter() - self.started
        frame = assemble(folder, chunks.plan(), ("game", "place") if experiment.chouette else
                         ("leg", "game", "game_in_match"))
        self.session["games"] = self.played_rows
        self.session["elapsed_s"] = round(elapsed, 3)
        rate = round(self.played_rows / elapsed, 1) if elapsed > 0 and self.played_rows else None
        self.times["playing"] = round(self.times.get("playing", 0.0) + elapsed, 1)
        # Finished once the rows are whole: a kill while the summaries are written leaves a run
        # that --resume completes by summarizing its games.parquet again.
        self.run_folder.finish(self.record, **{
            "engine": experiment.engine,
            "engines_used": sorted(self._engines_used(pairings)),
            "threads": experiment.threads or os.cpu_count(),
            "dask": self.dask,
            "games": int((frame["place"] == 0).sum()) if experiment.chouette else int(len(frame)),
            "sessions_count": len(self.record["sessions"]),
            # The speed of the session that finished the run: its own games over its own time
            # (an earlier session may have been killed before it could record either).
            "elapsed_s": round(elapsed, 3),
            "games_played_last_session": self.played_rows,
            "games_per_s": rate,
            "phases": self.times,
        })
        report = self._summarize(folder, frame, self.record)
        shutil.rmtree(folder / CHUNK_DIR, ignore_errors=True)
        shown = self.played_rows / elapsed if elapsed > 0 else float("nan")
        after = {name: seconds for name, seconds in self.times.items() if name != "playing"}
        if self.record.get("engine_time"):
            from .engines import format_decision_times

            for line in format_decision_times(self.record["engine_time"]):
                self.log(line)
        self.log(f"played {self.played_rows} games in {elapsed:.1f} s ({shown:,.0f} games/s)"
                 + (f"; {phase_line(after)}" if after else "") + f"; results in {folder}")
        return RunResult(folder, frame, report, self.played_rows, elapsed)

    def _summarize(self, folder: Path, frame: pd.DataFrame, run: dict):
        """The summaries (and the judging a match run asks for), each a phase: their times go to
        ``run.json``'s ``phases`` and the last line."""
        started = time.perf_counter()
        judging_before = self.times.get("judging", 0.0)
        report = self.summarize(folder, frame, self.experiment, run, make_player=self.make_player,
                                progress=self.progress, log=self.log, phases=self.times)
        judged = self.times.get("judging", 0.0) - judging_before
        self.times["summaries"] = round(max(0.0, time.perf_counter() - started - judged), 1)
        if run.get("status") == "finished":
            run["phases"] = self.times
            self.run_folder.save(run)
        return report

    def _engines_used(self, pairings: list[Pairing]) -> set[str]:
        engine = self.experiment.engine
        if engine != "auto":
            return {engine}
        factory = self.make_player or default_player_factory()
        if self.experiment.chouette:
            from bgsim.chouette_sessions import chouette_engine

            return {chouette_engine(engine, [cached_player(factory, spec) for spec in table.players])
                    for table in pairings}
        return {engine_for(engine, cached_player(factory, p.first), cached_player(factory, p.second), p.rules)
                for p in pairings}


def sprt_line(pairing: Pairing, test, games: int) -> str:
    """Where a pairing's sequential test stands: deals, LLR against its bounds, the decision."""
    where = f"{pairing.first} vs {pairing.second}" + (f" ({pairing.condition})" if pairing.condition != "standard" else "")
    state = (f"accepts {test.decision}" if test.decision else
             f"no decision after {games:,} deals (--games)" if test.stopped else
             f"going on (no decision before {test.floor_deals:,} deals)" if test.deals < test.floor_deals else
             "going on")
    return (f"sprt {where}: {test.deals:,} deals, LLR {test.llr:+.3f} "
            f"(bounds {test.sprt.lower:+.3f}, {test.sprt.upper:+.3f}): {state}")


def _resume_command(command: str, folder: Path) -> str:
    words = shlex.split(command)
    if "--resume" not in words:
        words.append("--resume")
    if "--out" not in words and not any(w.startswith("--out=") for w in words):
        words += ["--out", str(folder)]
    return shlex.join(words)
