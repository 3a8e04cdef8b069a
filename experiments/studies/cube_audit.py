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

Money game, no Jacoby rule, no beavers (a beaver counts as a take).  The race length of a
decision is the pip count of the side on roll.
"""

from __future__ import annotations

import hashlib
import math
import random
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd

from bgsim.board import Position
from bgsim.cube import CubeView, Response
from experiments.analysis.summary import milli, played_with
from experiments.errors import RunError
from experiments.running.files import stop_hook, write_atomic, write_table, write_text
from experiments.running.folder import RunFolder, RunKind
from experiments.running.progress import Phase
from experiments.stats import SMALL_SAMPLE, nonnegative_interval, proportion_interval
from experiments.studies.bearoff import announce_builds

BUCKETS = (("<=30", 0, 30), ("31-60", 31, 60), ("61-90", 61, 90), (">90", 91, 10_000))
ALL = "all"
QUESTIONS = ("double", "redouble", "take")
ERRORS = ("missed double", "wrong double", "wrong take", "wrong pass")
SHARE_COLUMNS = tuple(error.replace(" ", "_") for error in ERRORS)
CENTRED = CubeView(value=1, centred=True, max_cube=64, beaver_allowed=False, jacoby=False)
OWNED = CubeView(value=2, centred=False, max_cube=64, beaver_allowed=False, jacoby=False)
Z95 = 1.959964
# Keith's study set aside positions where one side is an overwhelming favourite (cubeless
# chance below 5% or above 95%): the summary reports them apart as well as within all
WINDOW = (0.05, 0.95)
SAMPLES = ("all", "window")


def bucket_of(pips: int) -> str:
    for name, low, high in BUCKETS:
        if low <= pips <= high:
            return name
    raise ValueError(f"a pip count of {pips} is in no race-length bucket")


# --- positions -------------------------------------------------------------------------------


def check_sampler(sampler: str):
    """The sampler's player, or a ValueError when it is no fast checker bot (before any folder)."""
    from bgsim.fast import supports
    from bots import make_player

    player = make_player(sampler)
    if not supports(player):
        raise ValueError(f"the sampler {sampler!r} has no fast-engine kernel: choose a fast checker bot")
    return player


def sample_positions(sampler: str, count: int, seed: int, per_game: int = 3,
                     found_more: Callable[[int], None] = lambda count: None) -> list[tuple[str, int]]:
    """``count`` race positions as (ID, game): the ID with the side on roll, the number of the
    sampling game it came from.  At most ``per_game`` come from each fast-engine game of
    ``sampler`` against itself (games ``0, 1, ...`` of ``seed``), chosen at random (seeded) among
    that game's race positions, so long races do not crowd out the rest.  Positions of one game
    are alike (one race at several lengths): the intervals take the game as their unit.
    ``found_more(k)`` is told as each game adds k positions (the progress bar)."""
    from bgsim.fast import trace_game
    from bgsim.fast.game import TRACE_HEAD

    if count < 1:
        raise ValueError(f"--positions must be at least 1, got {count}")
    player = check_sampler(sampler)
    rng = random.Random(seed)
    found: list[tuple[str, int]] = []
    number = 0
    while len(found) < count:
        _, trace = trace_game(player, player, seed, number)
        races = []
        for row in trace:
            board = tuple(int(n) for n in row[TRACE_HEAD:TRACE_HEAD + 26])
            position = Position(board)
            if position.is_race and position.checkers_off < 15 and position.opponent_checkers_off < 15:
                races.append(position.position_id)
        rng.shuffle(races)
        kept = races[:max(0, min(per_game, count - len(found)))]
        found.extend((position_id, number) for position_id in kept)
        found_more(len(kept))
        number += 1
        if number > 50 * count + 1000:
            raise ValueError(f"{sampler} games give too few race positions to sample {count}")
    return found[:count]


def read_positions(path: Path) -> list[str]:
    """Position IDs, one a line (blank lines and ``#`` comments skipped); each must be a race."""
    ids = []
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError:
        raise ValueError(f"{path} is not a text file of position IDs") from None
    for number, line in enumerate(lines, 1):
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        try:
            position = Position.from_position_id(text)
        except ValueError as error:
            raise ValueError(f"{path}, line {number}: {error}") from None
        if not position.is_race:
            raise ValueError(f"{path}, line {number}: {text} is not a race (the sides are in contact)")
        if position.checkers_off == 15 or position.opponent_checkers_off == 15:
            raise ValueError(f"{path}, line {number}: the game is over in {text}")
        ids.append(position.position_id)
    if not ids:
        raise ValueError(f"{path} holds no position IDs")
    return ids


# --- decisions -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Rule:
    name: str  # the spec as the user gave it
    bot: object


def make_rules(specs: list[str]) -> list[Rule]:
    from bots import make_cube

    if not specs:
        raise ValueError("--players needs at least one cube bot spec")
    rules = []
    for spec in specs:
        rules.append(Rule(spec, make_cube(spec)))
    names = [rule.name for rule in rules]
    if len(set(names)) != len(names):
        raise ValueError(f"--players names a cube bot twice: {','.join(names)}")
    return rules


def double_verdict(truth, centred: bool, offered: bool) -> tuple[str, str, float]:
    """The best answer, the error (``""`` for none) and the equity lost per unit of the current
    cube when the side on roll of ``truth`` (:func:`bots.exact.cube_equities`) does or does not
    double (``centred``: a first double, else a redouble of its own cube).  A double is worth
    ``min(DT, 1)``: the opponent answers it at its best.  Used by the audit and by the played-out
    cross-check (``experiments/studies/cross_check.py``), so both charge a decision the same."""
    no_double = truth.no_double(centred)
    double_value = min(truth.double_take, 1.0)
    best = "double" if double_value > no_double else "no double" if no_double > double_value else "either"
    # where doubling and not doubling are worth the same (a sure win: both +1) either answer is right
    if offered and no_double > double_value:
        return best, "wrong double", no_double - double_value
    if best == "double" and not offered:
        return best, "missed double", double_value - no_double
    return best, "", 0.0


def take_verdict(truth, takes: bool) -> tuple[str, str, float]:
    """As :func:`double_verdict`, for the opponent's answer to a double of the side on roll of
    ``truth``: the taker gives up ``DT - 1`` by a wrong take and ``1 - DT`` by a wrong pass."""
    best_take = truth.should_take()
    best = "pass" if not best_take else "take" if truth.double_take < 1.0 else "either"
    if takes and not best_take:
        return best, "wrong take", truth.double_take - 1.0
    if not takes and truth.double_take < 1.0:
        return best, "wrong pass", 1.0 - truth.double_take
    return best, "", 0.0


def judge(position_id: str, rules: list[Rule]) -> list[dict]:
    """The decision rows of one position: three questions for every rule."""
    from bots.exact import EXACT, cube_equities

    position = Position.from_position_id(position_id)
    truth = cube_equities(position)
    pips = position.pip_count
    base = {
        "position_id": position_id, "pips": pips, "opponent_pips": position.opponent_pip_count,
        "bucket": bucket_of(pips), "truth": "exact" if truth.source == EXACT else "estimated",
        "estimator": truth.source, "centred": truth.centred, "owned": truth.owned,
        "double_take": truth.double_take, "win": truth.probabilities[0],
        "window": WINDOW[0] <= truth.probabilities[0] <= WINDOW[1],
    }
    rows = []
    for rule in rules:
        for question, cube in (("double", CENTRED), ("redouble", OWNED)):
            offered = bool(rule.bot.offer_double(position, cube))
            best, error, lost = double_verdict(truth, question == "double", offered)
            rows.append({**base, "rule": rule.name, "question": question,
                         "answer": "double" if offered else "no double",
                         "best": best, "error": error, "equity_lost": lost})
        answer = rule.bot.respond(position, CENTRED)
        takes = answer in (Response.TAKE, Response.BEAVER)
        best, error, lost = take_verdict(truth, takes)
        rows.append({**base, "rule": rule.name, "question": "take", "answer": "take" if takes else "pass",
                     "best": best, "error": error, "equity_lost": lost})
    return rows


# --- summary -----------------------------------------------------------------------------------


def units(frame: pd.DataFrame) -> pd.Series:
    """The independent unit of each decision row for the intervals: its sampling game where the
    rows record one, else its position (its place in the audit's list; rows without one, as
    :func:`judge` returns them, fall back to the position ID).  A position's three questions
    share one truth and one pip count, and a game's positions are one race at several lengths:
    counting every decision as independent would make the intervals too narrow."""
    if "game" in frame and "position_index" in frame:
        return frame["game"].astype("Float64").fillna(-1.0 - frame["position_index"].astype("Float64"))
    if "position_index" in frame:
        return frame["position_index"]
    return frame["position_id"]


def clustered(values, unit) -> tuple[float, float]:
    """The mean of ``values`` (per decision) and the half-width of its 95% interval, taking the
    units (see :func:`units`) as the independent draws: the cluster-robust (linearised ratio)
    variance ``G/(G-1) * sum_g (S_g - mean*n_g)^2 / N^2`` over the G units, S_g and n_g being a
    unit's sum and count of decisions.  With one decision per unit it is the usual s^2/N;
    repeating every unit's rows leaves it unchanged."""
    values = np.asarray(values, dtype=float)
    n = len(values)
    if n == 0:
        return math.nan, math.nan
    mean = float(values.mean())
    residuals = pd.Series(values - mean).groupby(np.asarray(unit)).sum().to_numpy()
    count = len(residuals)
    if count < 2:
        return mean, math.nan
    variance = count / (count - 1) * float((residuals ** 2).sum()) / n ** 2
    return mean, Z95 * math.sqrt(variance)


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


def paired(frame: pd.DataFrame, first: str, second: str) -> dict | None:
    """``first`` minus ``second`` on the decisions both rules answered (same position, same
    question): the differences in error rate and in equity lost per decision, each with its 95%
    interval over the units of :func:`units`.  Pairing removes what the positions share (a hard
    sample is hard for both rules), which two separate intervals would count twice.  None where
    either rule has no decisions here."""
    key = ["position_index", "question"] if "position_index" in frame else ["position_id", "question"]
    a = frame[frame["rule"] == first]
    b = frame[frame["rule"] == second]
    both = a.merge(b[key + ["error", "equity_lost"]], on=key, suffixes=("", "_other"), validate="one_to_one")
    if both.empty:
        return None
    unit = units(both)
    lost, lost_half = clustered(both["equity_lost"] - both["equity_lost_other"], unit)
    rate, rate_half = clustered((both["error"] != "").astype(float) - (both["error_other"] != "").astype(float), unit)
    return {"decisions": len(both), "units": int(unit.nunique()),
            "error_rate": float((both["error"] != "").mean()),
            "error_rate_other": float((both["error_other"] != "").mean()),
            "equity_lost": float(both["equity_lost"].mean()),
            "equity_lost_other": float(both["equity_lost_other"].mean()),
            "rate_difference": rate, "rate_low": rate - rate_half, "rate_high": rate + rate_half,
            "lost_difference": lost, "lost_low": lost - lost_half, "lost_high": lost + lost_half}


def _verdict(low: float, high: float, first: str, second: str, less: str) -> str:
    if low > 0:
        return f"{second} {less}"
    if high < 0:
        return f"{first} {less}"
    return "not settled by this sample"  # the interval holds 0 (or could not be formed)


def _beats(frame: pd.DataFrame, first: str, second: str) -> str | None:
    """A sentence comparing two rules on the same decisions (paired), or None if one is missing."""
    found = paired(frame, first, second)
    if found is None:
        return None
    if found["rate_low"] == found["rate_high"] == 0 and found["lost_low"] == found["lost_high"] == 0:
        return (f"{first} v {second}: no difference on any of the {found['decisions']:,} paired "
                "decisions (the same errors at the same cost)")
    return (f"{first} v {second} ({found['decisions']:,} paired decisions): error rate "
            f"{100 * found['error_rate']:.2f}% v {100 * found['error_rate_other']:.2f}%, difference "
            f"{100 * found['rate_difference']:+.2f} points (95% interval {100 * found['rate_low']:+.2f} .. "
            f"{100 * found['rate_high']:+.2f}: "
            f"{_verdict(found['rate_low'], found['rate_high'], first, second, 'errs less often')}); "
            f"equity lost {milli(found['equity_lost'])} v {milli(found['equity_lost_other'])} thousandths "
            f"per decision, difference {1000 * found['lost_difference']:+.2f} (95% interval "
            f"{1000 * found['lost_low']:+.2f} .. {1000 * found['lost_high']:+.2f}: "
            f"{_verdict(found['lost_low'], found['lost_high'], first, second, 'loses less')})")


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
AUDIT = RunKind("cube-audit", "audit", "bgsim cube audit",
                ("decisions.parquet", "summary.csv", "summary.md", "cube_audit.png", POSITIONS_FILE))


@dataclass
class Audit:
    folder: Path
    frame: pd.DataFrame  # decisions.parquet
    summary: pd.DataFrame  # summary.csv
    positions: int
    seconds: float  # this session's
    phases: dict  # each phase's seconds (sampling, judging, summaries), over the run's sessions
    already_finished: bool = False  # --resume of a finished audit: its results, nothing done


def audit_identity(specs: list[str], positions: int, seed: int, sampler: str, per_game: int,
                   source: Path | None = None) -> dict:
    """What a resume must ask again: the rules and where the positions come from."""
    identity = {"players": specs, "positions": positions, "seed": seed, "sampler": sampler,
                "per_game": per_game, "source": None}
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


def run_audit(out: Path, specs: list[str], command: str, positions: int = 10_000, seed: int = 1,
              sampler: str = "pubeval", per_game: int = 3, source: Path | None = None, resume: bool = False,
              force: bool = False, progress: bool = True, log: Callable[[str], None] = print) -> Audit:
    """Judge every rule of ``specs`` on race positions (sampled, or read from ``source``) into the
    results folder ``out``; ``command`` (the one that repeats the run) goes to run.json.  The
    folder is claimed while the audit works in it; resuming a finished audit gives its results."""
    rules = make_rules(specs)  # bad specs fail before anything is written
    if source is None:
        check_sampler(sampler)  # and a bad sampler
    identity = audit_identity(specs, positions, seed, sampler, per_game, source)
    folder = RunFolder(out, AUDIT)
    with folder.claimed():
        stored = folder.open(identity, resume=resume, force=force)
        if stored is not None and stored.get("status") == "finished":
            return _finished(folder, stored, specs)
        announce_builds(log)  # the databases are the truth, built on first use: said once the input holds
        return _audit(folder, stored, rules, specs, command, identity, positions, seed, sampler, per_game,
                      source, progress, log)


def _finished(folder: RunFolder, stored: dict, specs: list[str]) -> Audit:
    frame = pd.read_parquet(folder.path / "decisions.parquet")
    summary = pd.read_csv(folder.path / "summary.csv")
    positions = int(frame["position_index"].nunique())
    return Audit(folder.path, frame, summary, positions, float(stored.get("seconds", 0.0)),
                 dict(stored.get("phases") or {}), already_finished=True)


def _audit(folder: RunFolder, stored, rules, specs, command, identity, positions, seed, sampler, per_game,
           source, progress, log) -> Audit:
    started = time.perf_counter()
    if stored is None:
        # run.json first: a kill before positions.txt is whole leaves a run that --resume finishes
        # (it samples again), never a folder that neither a fresh run nor --resume accepts
        if source is not None:
            where = f"read from {source}"
        else:
            where = f"sampled from fast-engine {sampler} games, seed {seed}, at most {per_game} a game"
        stored = folder.record(command, identity, source=where)
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
            found = [(position_id, None) for position_id in read_positions(source)]
        else:
            log(f"sampling {positions:,} race positions from {sampler} games (seed {seed})")
            with Phase("sampling", positions, "positions", progress, log, times) as bar:
                found = sample_positions(sampler, positions, seed, per_game, bar.update)
        write_text("".join(f"{position_id}\n" if game is None else f"{position_id} {game}\n"
                           for position_id, game in found), positions_file)
    folder.chunks.mkdir(exist_ok=True)
    chunks = [found[start:start + CHUNK_POSITIONS] for start in range(0, len(found), CHUNK_POSITIONS)]
    paths = [folder.chunks / f"chunk-{index:05d}.parquet" for index in range(len(chunks))]
    done = {index for index, path in enumerate(paths) if path.exists()}
    written = 0
    try:
        with Phase("judging", len(found), "positions", progress, log, times,
                   initial=sum(len(chunks[i]) for i in done)) as bar:
            for index, chunk in enumerate(chunks):
                if index in done:
                    continue
                rows = []
                for offset, (position_id, game) in enumerate(chunk):
                    for row in judge(position_id, rules):
                        rows.append({**row, "position_index": index * CHUNK_POSITIONS + offset, "game": game})
                rows = pd.DataFrame(rows)
                rows["game"] = rows["game"].astype("Int64")  # none where the positions came from a file
                write_table(rows, paths[index])
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
    summary = summary_table(frame, specs)
    write_table(frame, folder.path / "decisions.parquet")
    write_text(summary.to_csv(index=False), folder.path / "summary.csv")
    info = {**stored, "positions": len(found), "per_game": per_game if source is None else None}
    write_text(summary_markdown(frame, summary, specs, info), folder.path / "summary.md")
    plot(summary, folder.path / "cube_audit.png")
    times["summaries"] = round(time.perf_counter() - summaries, 1)
    seconds = time.perf_counter() - started
    folder.finish(stored, seconds=seconds, phases=times)
    shutil.rmtree(folder.chunks, ignore_errors=True)
    return Audit(folder.path, frame, summary, len(found), seconds, times)
