"""The cube-decision audit: how often is each cube rule wrong in races, and what does it cost?

Race positions (no contact) are sampled from fast-engine games of a chosen player (or read from
a file of position IDs).  Each position is one side on roll, and asks each rule three money
questions, each one *decision*:

* ``double``: offer a first double from the centred cube?
* ``redouble``: offer a redouble of a cube the side on roll owns?
* ``take``: the opponent's answer to that double (take or pass).

The truth is :func:`bots.exact.cube_equities`: exact where the two-sided bear-off database
holds the position (``truth = "exact"``), else an estimate (``truth = "estimated"``: Janowski's
formulas on the one-sided database's cubeless chances, or on the ``nn`` net's; ``estimator``
says which).  Per unit of the cube: no double ``ND`` (centred or owned), double/take ``DT``,
double/pass 1.  The best doubler doubles when ``min(DT, 1) > ND``; the best taker takes when
``DT <= 1``.  A rule's error costs the equity it gives up, in points per decision:

* missed double: ``min(DT, 1) - ND``;  wrong double: ``ND - min(DT, 1)``;
* wrong take: ``DT - 1``;  wrong pass: ``1 - DT``.

A run (:func:`run_audit`, ``bgsim cube-audit``) keeps its folder as every long command does
(``experiments/running/folder.py``): ``run.json`` first, so a run killed at any point is one
that ``--resume`` finishes; ``positions.txt`` holds the positions (with their sampling games),
``chunks/`` the decisions of each block of positions while the run is under way, and a finished
run leaves ``decisions.parquet`` (one row per position, question and rule), ``summary.csv``,
``summary.md`` and ``cube_audit.png``.

The intervals take the sampling game as the independent unit (:func:`units`, :func:`clustered`):
a position's three decisions share one truth and a game's positions are one race, so counting
decisions as independent draws would make them too narrow.  Rules are compared by paired
differences on the same decisions (:func:`paired`).

Money game, no beavers (a beaver counts as a take), no Jacoby rule unless asked (``jacoby``:
the Jacoby rule as a second *condition*, each position judged under both).  The race length of
a decision is the pip count of the side on roll.

**In contact, GNU Backgammon judges** (``judge="gnubg"``, ``bgsim cube-audit --judge gnubg``):
positions of a *scope* (``race``, ``contact`` or ``all``) are sampled from self-play of ``nn``
(fast engine) or ``gnubg`` (GNU Backgammon's net, reference engine), and the truth of each is
GNU Backgammon's program at a chosen depth (:func:`experiments.analysis.gnubg_program.cube_decisions`:
no double, double/take, double/pass per unit of the cube, with the cube centred and owned, and
its category: no double, double/take, double/pass, too good).  Where bgsim's two-sided bear-off
database holds the position it stays the judge (``judged_by``).  The charge is the same
(:func:`double_verdict`, :func:`take_verdict`).  Rules that speak only in races
(``CubeBot.race_only``) are judged only there.  Every position's truth is kept
(``truths.parquet``), so any other rule is charged later without asking gnubg again
(:func:`charge`; the pip-rule threshold sweep is one such use).
"""

from __future__ import annotations

import hashlib
import math
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd

from bgsim.board import Position
from bgsim.variants import STANDARD
from experiments.analysis.summary import milli, played_with
from experiments.errors import RunError
from experiments.running.files import stop_hook, write_atomic, write_table, write_text
from experiments.running.folder import RunFolder, RunKind
from experiments.running.progress import Phase, duration
from experiments.stats import SMALL_SAMPLE, nonnegative_interval, proportion_interval
from experiments.studies.bearoff import announce_builds

from . import cube_audit_report as report
# the charge and what it stands on live in cube_charge; the audit's names for them stay here
from .cube_charge import (  # noqa: F401
    ALL, ANY, BGSIM, BGSIM_ESTIMATE, BUCKETS, CENTRED, CONTACT, DEFAULT_PLIES, ERRORS, EXACT, EXACT_TABLES, GNUBG,
    HYPERGAMMON_SOLUTION, hypergammon_truth,
    JACOBY, JACOBY_CHOICES, JUDGES, NO_JACOBY, OWNED, PROBABILITIES, QUESTIONS, RACE, SCOPES, SHARE_COLUMNS,
    WINDOW, Z95, Rule, Truth, _beats, _verdict, bgsim_truth, bucket_of, charge, check_judge, check_sampler,
    check_scope,
    clustered, cube_truths, double_verdict, gnubg_truths, in_scope, jacoby_conditions, judge, judge_label, kind_of,
    make_rules, paired, read_positions, sample_positions, sampler_text, take_verdict, truth_rows, truths_of,
    units,
)

SAMPLES = ("all", "window")


# --- summary -----------------------------------------------------------------------------------


def _summary_row(rule: str, bucket: str, part: pd.DataFrame) -> dict:
    n = len(part)
    unit = units(part)
    mean, half = clustered(part["equity_lost"], unit)
    rate, rate_half = clustered(part["error"] != "", unit)
    row = {"rule": rule, "bucket": bucket, "decisions": n, "units": int(unit.nunique()),
           "exact_share": float((part["truth"] == "exact").mean()) if n else math.nan}
    # every question of a position counts once, so a share over decisions is also the mean over
    # positions of each position's share (and over games weighted by their decisions)
    for error, column in zip(ERRORS, SHARE_COLUMNS):
        row[column] = float((part["error"] == error).mean()) if n else math.nan
    # both are non-negative: intervals that stay so (experiments/stats.py, docs/METHODS.md)
    row["error_rate"] = rate
    row["error_rate_low"], row["error_rate_high"] = proportion_interval(rate, rate_half, row["units"])
    row["equity_lost"] = mean
    row["equity_lost_low"], row["equity_lost_high"] = nonnegative_interval(mean, half)
    return row


def summarise(frame: pd.DataFrame, rules: list[str], where=None) -> pd.DataFrame:
    """One row per rule and race-length bucket (``all`` first): the error shares and the equity
    lost per decision in points, each with its 95% interval (the error rate's Wilson's, the
    equity lost's on the log scale: both stay non-negative)."""
    if where is not None:
        frame = frame[where(frame)]
    rows = []
    for rule in rules:
        mine = frame[frame["rule"] == rule]
        rows.append(_summary_row(rule, ALL, mine))
        for name, _, _ in BUCKETS:
            rows.append(_summary_row(rule, name, mine[mine["bucket"] == name]))
    return pd.DataFrame(rows)


def summary_table(frame: pd.DataFrame, rules: list[str]) -> pd.DataFrame:
    """summary.csv: :func:`summarise` of every decision (``sample`` = ``all``) and of the
    decisions in the doubling window (``window``: no overwhelming favourite)."""
    parts = []
    for sample in SAMPLES:
        part = summarise(frame, rules, where=(lambda f: f["window"]) if sample == "window" else None)
        part.insert(0, "sample", sample)
        parts.append(part)
    return pd.concat(parts, ignore_index=True)


def _table(summary: pd.DataFrame, buckets=None) -> list[str]:
    lines = ["| rule | race | decisions | missed double | wrong double | wrong take | wrong pass | "
             "error rate | equity lost (1/1000 point) | 95% interval |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    for row in summary.itertuples(index=False):
        if buckets is not None and row.bucket not in buckets:
            continue
        shares = " | ".join(f"{100 * getattr(row, column):.2f}%" if row.decisions else "-"
                            for column in SHARE_COLUMNS)
        rate = f"{100 * row.error_rate:.2f}%" if row.decisions else "-"
        rough = f" (only {row.units} units: rough)" if 0 < row.units < SMALL_SAMPLE else ""
        lines.append(f"| {row.rule} | {row.bucket} | {row.decisions:,} | {shares} | {rate} | "
                     f"{milli(row.equity_lost)} | {milli(row.equity_lost_low)} .. {milli(row.equity_lost_high)}{rough} |")
    return lines


def comparisons(frame: pd.DataFrame, rules: list[str]) -> list[str]:
    """The published comparisons of Keith's 2004 study, on this sample, where the rules are
    present: each a paired difference on the same positions."""
    lines = []
    for other in ("thorp", "pipdiff"):
        if "keith" in rules and other in rules:
            found = _beats(frame, "keith", other)
            if found:
                lines.append(f"- {found}")
    long = frame[frame["pips"] > 80]
    if "pipdiff" in rules and len(long):
        for other in rules:
            if other == "pipdiff" or other.startswith("exact"):  # the counts against each other
                continue
            found = _beats(long, "pipdiff", other)
            if found:
                lines.append(f"- above 80 pips, {found}")
    return lines


def summary_markdown(frame: pd.DataFrame, summary: pd.DataFrame, rules: list[str], info: dict) -> str:
    """summary.md: the tables of ``summary`` (see :func:`summary_table`), the exact positions
    alone, and Keith's published comparisons on the doubling window."""
    exact = frame[frame["truth"] == "exact"]
    window = frame[frame["window"]]
    sources = frame.drop_duplicates("position_id")["estimator"].value_counts()

    def part(sample):
        return summary[summary["sample"] == sample].drop(columns="sample")

    lines = [
        "# Cube-decision audit",
        "",
        f"{info['positions']:,} race positions ({info['source']}), three money decisions each "
        f"(first double, redouble, take), {len(frame):,} decisions over {len(rules)} rules.  "
        "Truth: exact where the two-sided bear-off database holds the position, else estimated "
        "(Janowski's formulas on the one-sided database's or the nn net's cubeless chances; see "
        "`experiments/studies/cube_audit.py` and `bots/exact.py`).  Equity lost in thousandths of a point "
        "per decision, 95% intervals (error rates: Wilson's; equity lost: on the log scale, so neither "
        "goes below zero; rougher with fewer than " f"{SMALL_SAMPLE} units) that take "
        + (f"the sampling game as the independent unit (a game gives up to {info['per_game']} "
           "positions of one race, and a position's three decisions share one truth)"
           if info.get("per_game") else "the position as the independent unit (its three decisions "
           "share one truth)")
        + "; rule-against-rule statements are paired differences on the same decisions.  Race "
        "length: pips of the side on roll.  Money game, no Jacoby rule, no beavers.",
        "",
        "Truth sources of the positions: " + ", ".join(f"{name} {count:,}" for name, count in sources.items())
        + f".  Doubling window (cubeless chance of the side on roll within {WINDOW[0]:.0%} .. "
        f"{WINDOW[1]:.0%}, as Keith's study set aside overwhelming favourites): "
        f"{window['position_id'].nunique():,} positions.",
        "",
        "Outside the two-sided database the truth is Janowski's model, which values a position "
        "too good to double at a mix of cashing (+1) and its cubeless equity: the gammons a race "
        "rule cannot see are what make most of the wrong doubles of short races, where one side "
        "has all 15 checkers left.",
        "",
        "## In the doubling window",
        "",
        *_table(part("window")),
        "",
        "## All positions",
        "",
        *_table(part("all")),
        "",
        f"## Exact positions only ({exact['position_id'].nunique():,} distinct positions)",
        "",
        *_table(summarise(exact, rules), buckets=(ALL,)),
        "",
    ]
    found = comparisons(window, rules)
    if found:
        lines += ["## Keith's 2004 comparisons on this sample (doubling window)", "", *found, ""]
    lines += [played_with(info), ""]
    return "\n".join(lines)


def plot(summary: pd.DataFrame, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(1, 2, figsize=(13, 5), sharey=False)
    names = [name for name, _, _ in BUCKETS]
    for axis, sample in zip(axes, SAMPLES):
        _plot_sample(axis, summary[summary["sample"] == sample], names)
        axis.set_title(f"{'all positions' if sample == 'all' else 'doubling window'} (95% intervals)")
    figure.suptitle("Cube-rule equity lost against race length")
    figure.tight_layout()
    write_atomic(path, lambda temporary: figure.savefig(temporary, format="png", dpi=110), sync=False)
    plt.close(figure)


def _plot_sample(axis, summary: pd.DataFrame, names: list[str]) -> None:
    for index, (rule, part) in enumerate(summary[summary["bucket"] != ALL].groupby("rule", sort=False)):
        part = part.set_index("bucket").reindex(names)
        x = np.arange(len(names)) + (index - 0.5 * summary["rule"].nunique()) * 0.04
        y = 1000 * part["equity_lost"].to_numpy(dtype=float)
        low = y - 1000 * part["equity_lost_low"].to_numpy(dtype=float)
        high = 1000 * part["equity_lost_high"].to_numpy(dtype=float) - y
        axis.errorbar(x, y, yerr=[low, high], marker="o", capsize=3, label=rule)
    axis.set_xticks(range(len(names)), names)
    axis.set_xlabel("race length (pips of the side on roll)")
    axis.set_ylabel("equity lost per decision (1/1000 point)")
    axis.legend(fontsize="small")


# --- a run -----------------------------------------------------------------------------------

CHUNK_POSITIONS = 500
POSITIONS_FILE = "positions.txt"
TRUTHS_FILE = "truths.parquet"
SWEEP_FILE = "sweep.csv"
ESTIMATE_FILES = ("janowski.csv", "janowski_summary.csv", "cube_life.csv", "coverage.csv", "coverage_summary.csv")
AUDIT = RunKind("cube-audit", "audit", "bgsim cube audit",
                ("decisions.parquet", TRUTHS_FILE, "summary.csv", "summary.md", "cube_audit.png", SWEEP_FILE,
                 POSITIONS_FILE, *ESTIMATE_FILES))
# rough seconds of one gnubg cube evaluation at each depth on one core, for the estimate given
# before a run starts (the first chunk measures the real rate)
GNUBG_SECONDS = {0: 0.008, 1: 0.012, 2: 0.03, 3: 0.3, 4: 3.0}


@dataclass(frozen=True)
class Judging:
    """How an audit judges: the judge, gnubg's depth, the positions' scope, the conditions (no
    Jacoby rule, the Jacoby rule, or both) and the gnubg processes run at once (``jobs``: the
    answers do not depend on it)."""

    judge: str = BGSIM
    plies: int | None = None
    scope: str = RACE
    conditions: tuple[str, ...] = (NO_JACOBY,)
    jobs: int = 1
    variant: str = STANDARD  # hypergammonN: the positions are of that game, judged by its solution
    rollouts: int = 0  # with the exact judge: contact positions rolled out to check the rollouts' intervals
    rollout_games: int = 1296  # trials a rollout

    def __post_init__(self) -> None:
        check_judge(self.judge, self.plies, self.scope)
        if (self.judge == EXACT) != (self.variant != STANDARD):
            raise ValueError("the exact judge is hypergammon's solution: it judges --variant hypergammonN, and "
                             "a variant's positions have no other judge")
        if self.judge == GNUBG and self.plies is None:
            object.__setattr__(self, "plies", DEFAULT_PLIES)
        if self.judge == BGSIM:
            object.__setattr__(self, "plies", None)
        if not self.conditions or any(condition not in (NO_JACOBY, JACOBY) for condition in self.conditions):
            raise ValueError(f"unknown conditions {self.conditions!r}")
        if self.jobs < 1:
            raise ValueError(f"--threads must be at least 1, got {self.jobs}")

    @property
    def jacoby(self) -> str:
        return next(name for name, conditions in JACOBY_CHOICES.items() if conditions == self.conditions)

    @property
    def classic(self) -> bool:
        """The race audit against bgsim's truth, no Jacoby rule: its own summary and plot."""
        return self.judge == BGSIM and self.conditions == (NO_JACOBY,)

    def describe(self) -> str:
        if self.judge == EXACT:
            return f"bgsim's exact solution of {self.variant} (perfect checker and cube play, money)"
        if self.judge == BGSIM:
            return "bgsim: its exact two-sided bear-off database, else its labelled estimates"
        return (f"GNU Backgammon's program (gnubg) at {self.plies}-ply, money cube analysis, beavers off; "
                "bgsim's exact two-sided bear-off database where it holds the position")


@dataclass
class Audit:
    folder: Path
    frame: pd.DataFrame  # decisions.parquet
    summary: pd.DataFrame  # summary.csv
    positions: int
    seconds: float  # this session's
    phases: dict  # each phase's seconds (sampling, judging, summaries), over the run's sessions
    truths: pd.DataFrame | None = None  # truths.parquet
    already_finished: bool = False  # --resume of a finished audit: its results, nothing done


def audit_identity(specs: list[str], positions: int, seed: int, sampler: str, per_game: int,
                   source: Path | None = None, judging: Judging = Judging(), sweep: bool = False) -> dict:
    """What a resume must ask again: the rules, where the positions come from and how they are
    judged (not the processes that judge them)."""
    identity = {"players": specs, "positions": positions, "seed": seed, "sampler": sampler,
                "per_game": per_game, "source": None, "judge": judging.judge, "plies": judging.plies,
                "scope": judging.scope, "jacoby": judging.jacoby, "sweep": sweep}
    if judging.variant != STANDARD:  # (so that the identity of a standard audit stays as it was)
        identity.update(variant=judging.variant, rollouts=judging.rollouts, rollout_games=judging.rollout_games)
    if source is not None:
        try:
            digest = hashlib.sha256(Path(source).read_bytes()).hexdigest()[:16]
        except OSError as error:
            raise ValueError(f"cannot read --from {source}: {error.strerror}") from None
        identity.update(source=str(source), source_sha256=digest, positions=None, seed=None,
                        sampler=None, per_game=None)
    return identity


def _read_positions_file(path: Path) -> list[tuple[str, int | None]]:
    """positions.txt: a position ID a line, then the sampling game's number where it has one."""
    positions = []
    for line in path.read_text(encoding="utf-8").splitlines():
        words = line.split()
        if words:
            positions.append((words[0], int(words[1]) if len(words) > 1 else None))
    return positions


def judge_chunk(chunk: list[tuple[str, int | None]], first: int, rules: list[Rule],
                judging: Judging) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The decision rows and the truth rows of one block of positions (numbered from ``first``):
    bgsim judges a position at a time, gnubg the whole block in one batch."""
    if judging.judge == GNUBG:
        found = gnubg_truths([position_id for position_id, _ in chunk], judging.conditions,
                             judging.plies, judging.jobs)
    else:
        found = [None] * len(chunk)
    truth_of = hypergammon_truth if judging.judge == EXACT else bgsim_truth
    decisions, truths = [], []
    for offset, ((position_id, game), truths_here) in enumerate(zip(chunk, found)):
        if truths_here is None:
            position = Position.from_string(position_id)
            truths_here = {condition: truth_of(position, condition) for condition in judging.conditions}
        number = {"position_index": first + offset, "game": game}
        decisions += [{**row, **number} for row in judge(position_id, rules, judging.conditions, truths_here)]
        truths += [{**row, **number} for row in truth_rows(position_id, truths_here)]
    decisions, truths = pd.DataFrame(decisions), pd.DataFrame(truths)
    for frame in (decisions, truths):
        frame["game"] = frame["game"].astype("Int64")  # none where the positions came from a file
    return decisions, truths


def _estimate(judging: Judging, positions: int, rules: int) -> float:
    """Seconds to judge ``positions`` before any is measured: gnubg's evaluations, nominally, and
    the rules' own answers (a millisecond or so each)."""
    seconds = positions * rules * len(judging.conditions) * 0.001
    if judging.judge == GNUBG:
        seconds += positions * (len(judging.conditions) + 1) * GNUBG_SECONDS[judging.plies] / min(judging.jobs, 2)
    return seconds


def run_audit(out: Path, specs: list[str], command: str, positions: int = 10_000, seed: int = 1,
              sampler: str = "pubeval", per_game: int = 3, source: Path | None = None, resume: bool = False,
              force: bool = False, progress: bool = True, log: Callable[[str], None] = print,
              judging: Judging = Judging(), sweep: bool = False) -> Audit:
    """Judge every rule of ``specs`` on positions of ``judging.scope`` (sampled, or read from
    ``source``) into the results folder ``out``; ``command`` (the one that repeats the run) goes to
    run.json.  ``sweep``: the pip rule's thresholds charged on the same judged positions too.  The
    folder is claimed while the audit works in it; resuming a finished audit gives its results."""
    rules = make_rules(specs)  # bad specs fail before anything is written
    if source is None:
        check_sampler(sampler, reference=judging.judge == GNUBG, variant=judging.variant)  # and a bad sampler
    if judging.judge == GNUBG:
        from experiments.analysis.gnubg_program import find_gnubg

        find_gnubg()  # not installed: the install hint, before anything is written
    if judging.judge == EXACT:
        from bgsim.hypergammon import checkers_of
        from bgsim.hypergammon.database import check_ready

        check_ready(checkers_of(judging.variant))  # a solution not built yet: its line, before any sampling
    identity = audit_identity(specs, positions, seed, sampler, per_game, source, judging, sweep)
    if source is not None:  # a bad line is refused before the folder holds anything
        notes: list[str] = []
        read_positions(source, judging.scope, notes, variant=judging.variant)
        for note in notes:
            log(f"bgsim: warning: {note}")
    engines = {rule.bot.player.engine.name: rule.bot.player.start() for rule in rules
               if getattr(getattr(rule.bot, "player", None), "external", False)}  # a bad engine stops here
    if engines:  # a resume on another engine under the same name is refused
        identity["engines"] = {name: engine.fingerprint() for name, engine in engines.items()}
    folder = RunFolder(out, AUDIT)
    with folder.claimed():
        stored = folder.open(identity, resume=resume, force=force)
        if stored is not None and stored.get("status") == "finished":
            return _finished(folder, stored)
        announce_builds(log)  # the databases are the truth, built on first use: said once the input holds
        if judging.judge == EXACT:
            from bgsim.hypergammon import checkers_of
            from experiments.studies.hypergammon import announce_build

            announce_build(checkers_of(judging.variant), log)
        return _audit(folder, stored, rules, specs, command, identity, positions, seed, sampler, per_game,
                      source, progress, log, judging, sweep)


def _estimates(folder: RunFolder, found: list[tuple[str, int | None]], judging: Judging, seed: int, progress: bool,
               log: Callable[[str], None], times: dict) -> list[str]:
    """A hypergammon audit's estimates against the truth (``hypergammon_estimates``): the
    Janowski cube on every judged position, and with ``judging.rollouts`` rollouts of that many
    contact positions of the sample; their files, and the lines summary.md ends with."""
    from . import hypergammon_estimates as estimates

    log(f"the Janowski cube against the exact equities on {len(found):,} positions")
    with Phase("estimates", len(found), "positions", progress, log, times):
        frame = estimates.janowski_errors(found)
    summary = estimates.summarise_janowski(frame)
    lives = pd.DataFrame([estimates.best_life(frame, kind, measure) for kind in ("contact", "race", "all")
                          for measure in ("abs_error_no_double", "lost")])
    write_text(frame.to_csv(index=False), folder.path / "janowski.csv")
    write_text(summary.to_csv(index=False), folder.path / "janowski_summary.csv")
    write_text(lives.to_csv(index=False), folder.path / "cube_life.csv")
    lines = estimates.janowski_markdown(summary, lives)
    if judging.rollouts:
        contact = [(text, game) for text, game in found if not Position.from_string(text).is_race]
        chosen = contact[:judging.rollouts]
        parts = []
        for player in ("exact", "nn"):
            log(f"rolling out {len(chosen):,} contact positions with {player}, {judging.rollout_games:,} trials each")
            with Phase(f"rollouts ({player})", len(chosen), "positions", progress, log, times) as bar:
                parts.append(estimates.rollout_coverage(chosen, player, judging.rollout_games, seed,
                                                        progress=bar.update))
        coverage = pd.concat(parts, ignore_index=True)
        write_text(coverage.to_csv(index=False), folder.path / "coverage.csv")
        covered = estimates.summarise_coverage(coverage)
        write_text(covered.to_csv(index=False), folder.path / "coverage_summary.csv")
        lines += estimates.coverage_markdown(covered)
    return lines


def _finished(folder: RunFolder, stored: dict) -> Audit:
    frame = pd.read_parquet(folder.path / "decisions.parquet")
    summary = pd.read_csv(folder.path / "summary.csv")
    truths = folder.path / TRUTHS_FILE
    positions = int(frame["position_index"].nunique())
    return Audit(folder.path, frame, summary, positions, float(stored.get("seconds", 0.0)),
                 dict(stored.get("phases") or {}), pd.read_parquet(truths) if truths.exists() else None,
                 already_finished=True)


def _audit(folder: RunFolder, stored, rules, specs, command, identity, positions, seed, sampler, per_game,
           source, progress, log, judging: Judging, sweep: bool) -> Audit:
    started = time.perf_counter()
    if stored is None:
        # run.json first: a kill before positions.txt is whole leaves a run that --resume finishes
        # (it samples again), never a folder that neither a fresh run nor --resume accepts
        if source is not None:
            where = f"read from {source}"
        elif judging.classic:
            where = f"sampled from fast-engine {sampler} games, seed {seed}, at most {per_game} a game"
        elif judging.variant != STANDARD:
            where = f"sampled from {judging.variant} games of {sampler_text(sampler)}, seed {seed}, at most {per_game} a game"
        else:
            where = f"sampled from {sampler_text(sampler)}, seed {seed}, at most {per_game} a game"
        stored = folder.record(command, identity, source=where, sampler=sampler, judge=judging.describe())
        folder.save(stored)
    else:
        stored = folder.resumed(stored)
    times = dict(stored.get("phases") or {})
    positions_file = folder.path / POSITIONS_FILE
    if positions_file.exists():
        found = _read_positions_file(positions_file)
    else:
        shutil.rmtree(folder.chunks, ignore_errors=True)  # chunks of no known positions
        if source is not None:
            found = [(position_id, None) for position_id in read_positions(source, judging.scope, variant=judging.variant)]
        else:
            log(f"sampling {positions:,} {judging.scope if judging.scope != ANY else ''} positions from "
                f"{sampler} games (seed {seed})".replace("  ", " "))
            with Phase("sampling", positions, "positions", progress, log, times) as bar:
                found = sample_positions(sampler, positions, seed, per_game, judging.scope, bar.update,
                                         judging.variant)
        write_text("".join(f"{position_id}\n" if game is None else f"{position_id} {game}\n"
                           for position_id, game in found), positions_file)
    (folder.chunks / "truths").mkdir(parents=True, exist_ok=True)
    chunks = [found[start:start + CHUNK_POSITIONS] for start in range(0, len(found), CHUNK_POSITIONS)]
    paths = [folder.chunks / f"chunk-{index:05d}.parquet" for index in range(len(chunks))]
    truth_paths = [folder.chunks / "truths" / f"truths-{index:05d}.parquet" for index in range(len(chunks))]
    done = {index for index, path in enumerate(paths) if path.exists() and truth_paths[index].exists()}
    left = sum(len(chunk) for index, chunk in enumerate(chunks) if index not in done)
    if left and not judging.classic:
        log(f"judging {left:,} positions ({judging.describe()}, {judging.jobs} process"
            f"{'es' if judging.jobs > 1 else ''}): about {duration(_estimate(judging, left, len(rules)))} "
            "by a rough rate; measured as it goes")
    written = 0
    try:
        with Phase("judging", len(found), "positions", progress, log, times, initial=len(found) - left) as bar:
            for index, chunk in enumerate(chunks):
                if index in done:
                    continue
                decisions, truths = judge_chunk(chunk, index * CHUNK_POSITIONS, rules, judging)
                write_table(truths, truth_paths[index])
                write_table(decisions, paths[index])  # last: a block is done when its decisions are written
                bar.update(len(chunk))
                written += 1
                stop_hook(written)  # tests: BGSIM_STOP_AFTER=K interrupts after the K-th chunk
    except KeyboardInterrupt:
        stored["phases"] = times
        folder.save(stored)
        log(f"interrupted: {len(done) + written} of {len(chunks)} chunks of positions are judged and kept in "
            f"{folder.chunks}; finish with: {command} --resume")
        raise
    summaries = time.perf_counter()
    frame = pd.concat([pd.read_parquet(path) for path in paths], ignore_index=True)
    truths = pd.concat([pd.read_parquet(path) for path in truth_paths], ignore_index=True)
    info = {**stored, "positions": len(found), "per_game": per_game if source is None else None}
    write_table(frame, folder.path / "decisions.parquet")
    write_table(truths, folder.path / TRUTHS_FILE)
    if judging.classic:
        summary = summary_table(frame, specs)
        write_text(summary.to_csv(index=False), folder.path / "summary.csv")
        write_text(summary_markdown(frame, summary, specs, info), folder.path / "summary.md")
        plot(summary, folder.path / "cube_audit.png")
    else:
        swept = report.sweep(truths, log=log) if sweep else None
        if swept is not None:
            write_text(swept.to_csv(index=False), folder.path / SWEEP_FILE)
        summary = report.judged_summary(frame, specs)
        write_text(summary.to_csv(index=False), folder.path / "summary.csv")
        extra = _estimates(folder, found, judging, seed, progress, log, times) if judging.judge == EXACT else []
        write_text(report.markdown(frame, summary, specs, info, judging, swept) + "\n".join(extra),
                   folder.path / "summary.md")
        report.plot(summary, folder.path / "cube_audit.png")
    times["summaries"] = round(time.perf_counter() - summaries, 1)
    seconds = time.perf_counter() - started
    folder.finish(stored, seconds=seconds, phases=times)
    shutil.rmtree(folder.chunks, ignore_errors=True)
    return Audit(folder.path, frame, summary, len(found), seconds, times, truths)
