"""Two independent methods, one number: what each race cube rule costs against ``exact``, played
out and judged.

The cube audit (``experiments/studies/cube_audit.py``) charges every decision of a rule the equity the
truth says it gives up.  Here the same charge is checked against games that are played out:

* **Starts**: money game, cube centred, pure bear-offs that the two-sided database holds (every
  checker home, at most ``bgsim.bearoff.default_two_sided_checkers()`` a side, game not over).
  Each is the first such position of a fast-engine ``nn`` self-play game of the run's seed
  (games ``0, 1, ...``; a game that ends first gives none), kept only where the side on roll's
  exact cubeless chance is within the audit's doubling window (5% .. 95%), where a cube decision
  can matter.  One start per sampling game, so the start is the independent unit.
* **Games**: from every start, for every rule R and both seatings (R on roll first, then
  ``exact`` on roll first), the game R against ``exact`` and the game ``exact`` against
  ``exact``, in the reference engine (:func:`bgsim.game.play_game`) on the same dice (seed of
  the run, game ``PLAYED + start``).  Both seats play the checkers with the perfect bear-off
  player (``CHECKER``), which ignores the cube, so the two games differ only in cube actions.
  Both seatings see the same dice, so ``exact`` against itself is one game per start.  The cube
  has no cap (``RULES``), as in the database.
* **Method A, played out**: D = points won by R's side against ``exact`` minus points won by the
  same side in ``exact`` against ``exact``.
* **Method B, judged**: every cube decision R made in its games (each turn its side could
  double, doubled or not, centred or owned; each double of ``exact`` it answered), charged as
  the audit charges it (:func:`experiments.studies.cube_audit.double_verdict`, ``take_verdict``: truth
  :func:`bots.exact.cube_equities`) times the cube value then, summed over the game.

``exact`` plays every decision of its own at the truth, so the expected D is minus the expected
loss: the two methods estimate one number.  Each start's value is the mean of its two seatings;
means and 95% intervals are over starts, and the difference A - (-B) = D + loss is paired (the
same games).  Assumed: the database's cubeful equities take each cube state's own optimal checker
play, while the games use win-maximising play; with no gammons possible in these positions the
two differ rarely and by little.
"""

from __future__ import annotations

import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd

from bgsim.board import Position
from bgsim.cube import CENTRE, Cube, Rules
from bgsim.game import WHITE, other, play_game
from experiments.analysis.summary import milli, played_with
from experiments.running.files import stop_hook, write_table, write_text
from experiments.running.folder import RunFolder, RunKind
from experiments.running.progress import Phase
from experiments.running.workers import worker_pool
from experiments.stats import SMALL_SAMPLE, nonnegative_interval
from experiments.studies.bearoff import announce_builds

from . import cube_audit

CHECKER = "nn(bearoff=true)"  # perfect bear-off play where the two-sided database holds both sides
SAMPLER = "nn"
# the database's equities are per unit of a cube that can always be turned again; the game's
# usual cap (64) would make them wrong once a silly rule has doubled five times
RULES = Rules(max_cube=1 << 30)
PLAYED = 1 << 40  # the played games' numbers start here: never a sampling game's dice
SANITY = "exact (sanity: against itself)"  # its rows: exact judged in its own games
TRACE_PLIES = 2000  # far beyond any game of the sampler; a longer one just gives no start
BLOCK = 100  # starts a worker plays at a time
SEATINGS = ("first", "second")  # R on roll first, exact on roll first


def covered(position: Position) -> bool:
    """A pure bear-off that the two-sided database holds, game not over."""
    from bgsim import bearoff

    if position.checkers_off == 15 or position.opponent_checkers_off == 15:
        return False
    counts = bearoff.home_counts(position)
    checkers = bearoff.default_two_sided_checkers()
    return counts is not None and sum(counts[0]) <= checkers and sum(counts[1]) <= checkers


def start_of_game(player, seed: int, number: int) -> str | None:
    """The start that sampling game ``number`` of ``seed`` gives (see the module), or None;
    ``player`` is the sampler's (``make_player(SAMPLER)``)."""
    from bgsim import bearoff
    from bgsim.fast import trace_game
    from bgsim.fast.game import TRACE_HEAD
    from bots.exact import cube_equities

    checkers = bearoff.default_two_sided_checkers()
    _, trace = trace_game(player, player, seed, number, max_plies=TRACE_PLIES)
    boards = trace[:, TRACE_HEAD:TRACE_HEAD + 26]
    # every row at once: all checkers home on both sides, 1..checkers left on each
    own = np.where(boards[:, 1:7] > 0, boards[:, 1:7], 0).sum(axis=1)
    theirs = np.where(boards[:, 19:25] < 0, -boards[:, 19:25], 0).sum(axis=1)
    home = (boards[:, 7:26] <= 0).all(axis=1) & (boards[:, 0:19] >= 0).all(axis=1)
    rows = np.flatnonzero(home & (own >= 1) & (own <= checkers) & (theirs >= 1) & (theirs <= checkers))
    if not len(rows):
        return None
    position = Position(tuple(int(n) for n in boards[rows[0]]))
    win = cube_equities(position).probabilities[0]
    return position.position_id if cube_audit.WINDOW[0] <= win <= cube_audit.WINDOW[1] else None


def _starts_of_games(seed: int, first: int, last: int) -> list[tuple[str, int]]:
    from bots import make_player

    player = make_player(SAMPLER)
    found = []
    for number in range(first, last):
        position_id = start_of_game(player, seed, number)
        if position_id is not None:
            found.append((position_id, number))
    return found


def sample_starts(count: int, seed: int, jobs: int = 1,
                  found_more: Callable[[int], None] = lambda count: None) -> list[tuple[str, int]]:
    """``count`` starts as (position ID, sampling game), see the module: the first covered
    position of each fast-engine ``nn`` self-play game of ``seed`` in the doubling window, games
    taken in order whatever ``jobs`` (processes, ``experiments.running.workers``) play them.
    ``found_more(k)`` is told as each round of games adds k starts (the progress bar)."""
    from bgsim.dice import check_seed

    if count < 1:
        raise ValueError(f"--positions must be at least 1, got {count}")
    check_seed(seed)
    # about one sampling game in five gives a start: blocks of games sized to need few rounds
    size = max(50, min(2000, 6 * count // max(jobs, 1)))
    found: list[tuple[str, int]] = []
    with worker_pool(jobs) as pool:
        first = 0
        while len(found) < count:
            ranges = [(first + k * size, first + (k + 1) * size) for k in range(jobs if pool else 1)]
            if pool is None:
                parts = [_starts_of_games(seed, *ranges[0])]
            else:
                parts = list(pool.map(_starts_of_games, [seed] * len(ranges), *zip(*ranges)))
            before = len(found)
            for part in parts:
                found.extend(part)
            found_more(min(len(found), count) - min(before, count))
            first = ranges[-1][1]
            if first > 100 * count + 1000 and len(found) < count:
                raise ValueError(f"{SAMPLER} games give too few bear-off starts to sample {count}")
    return found[:count]


@dataclass(frozen=True)
class Judged:
    decisions: int
    errors: int
    lost: float  # points: equity lost per unit of cube times the cube value


def judge_game(history, side: str) -> Judged:
    """Method B for ``side`` of a traced game: every cube decision it made (see the module),
    charged by the audit's functions, in points.  The cube is followed from the trace (centred
    at the start), asking :meth:`bgsim.cube.Cube.may_double` as the game loop does."""
    from bots.exact import cube_equities

    cube = Cube()
    decisions = errors = 0
    lost = 0.0
    for ply in history:
        doubled = ply.cube_action.startswith("double")
        if not cube.may_double(ply.side, RULES):
            if doubled:
                raise ValueError(f"ply {ply.ply}: {ply.side} doubled a cube it may not turn")
            continue
        error = ""
        if ply.side == side:
            truth = cube_equities(Position.from_position_id(ply.position_id))
            _, error, per_unit = cube_audit.double_verdict(truth, cube.owner == CENTRE, doubled)
        elif doubled:
            truth = cube_equities(Position.from_position_id(ply.position_id))
            _, error, per_unit = cube_audit.take_verdict(truth, ply.cube_action != "double/drop")
        else:
            continue
        decisions += 1
        errors += error != ""
        lost += per_unit * cube.value
        if ply.cube_action == "double/take":
            cube.take(other(ply.side))
        elif ply.cube_action == "double/beaver":
            cube.beaver(other(ply.side))
    return Judged(decisions, errors, lost)


def _points(record, side: str) -> int:
    return record.white_points if side == WHITE else -record.white_points


def play_start(index: int, position_id: str, game: int, seed: int, rules: list[cube_audit.Rule]) -> list[dict]:
    """The game rows of one start: the sanity row pair (``exact`` against itself, judged for
    each side) and, for every rule, its two seatings against ``exact``."""
    from bots import make_player
    from bots.registry import BotPlayer, make_checker

    start = Position.from_position_id(position_id)
    checker = make_checker(CHECKER)
    exact = make_player(f"{CHECKER}+exact")
    number = PLAYED + index
    base = play_game(exact, exact, seed, number, RULES, start=start, trace=True)
    common = {"start": index, "position_id": position_id, "sampling_game": game}
    rows = []
    for seating, side in zip(SEATINGS, (WHITE, other(WHITE))):
        judged = judge_game(base.history, side)
        rows.append({**common, "rule": SANITY, "seating": seating, "points": _points(base, side),
                     "baseline": _points(base, side), "cube": base.cube_value, "decisions": judged.decisions,
                     "errors": judged.errors, "lost": judged.lost})
    for rule in rules:
        player = BotPlayer(checker, rule.bot)
        for seating, side in zip(SEATINGS, (WHITE, other(WHITE))):
            white, black = (player, exact) if side == WHITE else (exact, player)
            record = play_game(white, black, seed, number, RULES, start=start, trace=True)
            judged = judge_game(record.history, side)
            rows.append({**common, "rule": rule.name, "seating": seating, "points": _points(record, side),
                         "baseline": _points(base, side), "cube": record.cube_value,
                         "decisions": judged.decisions, "errors": judged.errors, "lost": judged.lost})
    return rows


def play_block(block: list[tuple[int, str, int]], seed: int, specs: list[str]) -> pd.DataFrame:
    """:func:`play_start` for each (index, position ID, sampling game) of ``block``; the rules
    are made from their specs here, so a worker process gets text, not bots."""
    rules = cube_audit.make_rules(specs)
    rows = []
    for index, position_id, game in block:
        rows.extend(play_start(index, position_id, game, seed, rules))
    return pd.DataFrame(rows)


def blocks_of(starts: list[tuple[str, int]]) -> list[list[tuple[int, str, int]]]:
    """The starts as (index, position ID, sampling game), in blocks of ``BLOCK``: the unit a
    worker plays and a run keeps in ``chunks/`` (so a resume replays no finished block)."""
    numbered = [(index, position_id, game) for index, (position_id, game) in enumerate(starts)]
    size = max(1, min(BLOCK, len(numbered) // 8))  # a few blocks even for a small check
    return [numbered[first:first + size] for first in range(0, len(numbered), size)]


def play_blocks(blocks: list[list[tuple[int, str, int]]], seed: int, specs: list[str], jobs: int = 1):
    """(block number, its game rows) for each block, in block order whatever ``jobs`` (processes)
    play them: each start's games depend on its index and the seed alone."""
    with worker_pool(jobs) as pool:
        if pool is None:
            for number, block in enumerate(blocks):
                yield number, play_block(block, seed, specs)
            return
        futures = [pool.submit(play_block, block, seed, specs) for block in blocks]
        for number, future in enumerate(futures):
            yield number, future.result()


def play_starts(starts: list[tuple[str, int]], seed: int, specs: list[str], jobs: int = 1,
                done=lambda count: None) -> pd.DataFrame:
    """The game rows of every start, in start order whatever ``jobs`` (processes) plays them.
    ``done(count)`` is told as blocks of starts finish (the progress bar)."""
    parts: list[pd.DataFrame] = []  # a frame per block: far smaller than its rows as dicts
    blocks = blocks_of(starts)
    for number, frame in play_blocks(blocks, seed, specs, jobs):
        parts.append(frame)
        done(len(blocks[number]))
    return pd.concat(parts, ignore_index=True)


# --- summary -----------------------------------------------------------------------------------


def _interval(values: np.ndarray) -> tuple[float, float, float]:
    """Mean and 95% interval, one value per start (the independent unit)."""
    mean, half = cube_audit.clustered(values, np.arange(len(values)))
    return mean, mean - half, mean + half


def verdict(low: float, high: float, starts: int | None = None) -> str:
    """Whether the two methods agree; with fewer than ``SMALL_SAMPLE`` starts the interval's
    normal approximation is rough, and the verdict says so."""
    if low == high == 0.0:
        return "agree exactly"
    if not (low == low and high == high):
        return "not settled (too few starts)"
    said = "agree within the interval" if low <= 0.0 <= high else "disagree"
    if starts is not None and starts < SMALL_SAMPLE:
        said += f" (only {starts} starts: too few for the interval to be trusted)"
    return said


def summarise(games: pd.DataFrame, rules: list[str]) -> pd.DataFrame:
    """cross_check.csv: one row per rule (the sanity row ``exact`` first), in points per game;
    every value is a start's mean over its two seatings, then the mean over starts."""
    games = games.assign(payoff=games["points"] - games["baseline"])
    rows = []
    for rule in (SANITY, *rules):
        mine = games[games["rule"] == rule]
        per_start = mine.groupby("start")[["payoff", "lost", "decisions", "errors"]].mean()
        a, a_low, a_high = _interval(per_start["payoff"].to_numpy())
        # B is minus a loss, which cannot be negative: its interval stays at or below zero
        lost, lost_half = cube_audit.clustered(per_start["lost"].to_numpy(), np.arange(len(per_start)))
        lost_low, lost_high = nonnegative_interval(lost, lost_half)
        b, b_low, b_high = -lost, -lost_high, -lost_low
        d, d_low, d_high = _interval((per_start["payoff"] + per_start["lost"]).to_numpy())
        rows.append({
            "rule": rule,
            "starts": len(per_start), "games": len(mine),
            "decisions_per_game": float(per_start["decisions"].mean()),
            "errors_per_game": float(per_start["errors"].mean()),
            "largest_cube": int(mine["cube"].max()),
            "played_out": a, "played_out_low": a_low, "played_out_high": a_high,
            "judged": b, "judged_low": b_low, "judged_high": b_high,
            "difference": d, "difference_low": d_low, "difference_high": d_high,
            "verdict": verdict(d_low, d_high, len(per_start)),
        })
    return pd.DataFrame(rows)


def markdown(summary: pd.DataFrame, info: dict) -> str:
    lines = [
        "# Cube rules against `exact`: played out and judged",
        "",
        f"{info['starts']:,} starts, {info['source']}.  From each start, for every rule R and both "
        "seatings (R on roll first, `exact` on roll first), R plays `exact` and `exact` plays "
        "itself on the same dice in the reference engine, money game, cube centred and without a cap "
        f"(as in the database), no Jacoby, no beavers; both seats play the checkers perfectly (`{CHECKER}`, which ignores the cube), "
        "so the two games differ only in cube actions.",
        "",
        "* **A, played out**: points won by R's side against `exact` minus points won by the same "
        "side of `exact` against itself.",
        "* **B, judged**: minus the equity R's own cube decisions in those games gave up, each "
        "charged as `bgsim cube-audit` charges it (missed double `min(DT,1) - ND`, wrong double "
        "`ND - min(DT,1)`, wrong take `DT - 1`, wrong pass `1 - DT`, per unit of cube, truth "
        "`bots.exact.cube_equities` from the two-sided bear-off database) times the cube value "
        "then, summed over the game.  Every turn R's side could double is a decision, and every "
        "double of `exact` it answered.",
        "",
        "`exact` makes each of its own decisions at the truth, so A's expectation is B: two "
        "independent methods, one number.  Thousandths of a point per game (a start's mean over its "
        "two seatings, then the mean over starts); 95% intervals with the start as the unit (normal "
        "approximation; B's on the log scale of the loss, so it never crosses zero; rough with fewer "
        f"than {SMALL_SAMPLE} starts); the difference A - B is paired (the same games).",
        "",
        "| rule | starts | decisions a game | errors a game | largest cube | A: payoff v exact | "
        "95% interval | B: -loss | 95% interval | A - B | 95% interval | verdict |",
        "|---|---:|---:|---:|---:|---:|---|---:|---|---:|---|---|",
    ]
    for row in summary.itertuples(index=False):
        values = [milli(getattr(row, f"{name}{end}"), signed=True)
                  for name in ("played_out", "judged", "difference") for end in ("", "_low", "_high")]
        lines.append(
            f"| {row.rule} | {row.starts:,} | {row.decisions_per_game:.2f} | {row.errors_per_game:.3f} | "
            f"{row.largest_cube} | "
            f"{values[0]} | {values[1]} .. {values[2]} | {values[3]} | {values[4]} .. {values[5]} | "
            f"{values[6]} | {values[7]} .. {values[8]} | {row.verdict} |")
    lines += [
        "",
        "Assumed: the database's cubeful equities take each cube state's own optimal checker play, "
        "while the games use win-maximising (cubeless) play.  With at most "
        f"{info['checkers']} checkers a side no gammon is possible, so the two plays differ rarely "
        "and by little; that, and chance, is what a difference between A and B could show.  A "
        "difference outside its interval would say the audit's charge (or the games) is wrong, or "
        "be the one time in twenty a 95% interval misses.  What A - B measures is the dice after the "
        "rule's errors (the two games part at the first cube action where the rule and `exact` differ), "
        "whose mean is "
        "zero when the charge is right; a rule that doubles and takes wildly sends the cube high "
        "(largest cube), so its per-start values are heavy-tailed and its normal interval rougher.",
        "",
        played_with(info),
        "",
    ]
    return "\n".join(lines)


# --- a run -----------------------------------------------------------------------------------

STARTS_FILE = "starts.txt"
CROSS_CHECK = RunKind("cross-check", "cross-check", "bgsim cross-check",
                      ("games.parquet", "cross_check.csv", "cross_check.md", STARTS_FILE))


@dataclass
class CrossCheck:
    folder: Path
    summary: pd.DataFrame  # cross_check.csv
    starts: int
    played: int  # games
    seconds: float
    phases: dict  # each phase's seconds (sampling, playing, summaries), over the run's sessions
    already_finished: bool = False  # --resume of a finished check: its results, nothing played


def run_cross_check(out: Path, specs: list[str], command: str, starts: int = 2000, seed: int = 1, jobs: int = 1,
                    force: bool = False, progress: bool = True,
                    log: Callable[[str], None] = print, resume: bool = False) -> CrossCheck:
    """Play and judge every rule of ``specs`` against ``exact`` from ``starts`` bear-off starts into
    the results folder ``out`` (``starts.txt``, ``games.parquet``, ``cross_check.csv`` and
    ``.md``); ``command`` (the one that repeats the run) goes to run.json.  The folder is claimed
    while the check works in it; an unfinished check is finished with ``resume`` (its blocks of
    starts in ``chunks/`` are not played again) or started again with ``force``."""
    cube_audit.make_rules(specs)  # bad specs fail before anything is written
    folder = RunFolder(out, CROSS_CHECK)
    identity = {"players": specs, "starts": starts, "seed": seed}
    with folder.claimed():
        stored = folder.open(identity, resume=resume, force=force)
        if stored is not None and stored.get("status") == "finished":
            summary = pd.read_csv(folder.path / "cross_check.csv")
            found = int(summary["starts"].iloc[0])
            return CrossCheck(folder.path, summary, found, found * (1 + 2 * len(specs)),
                              float(stored.get("seconds", 0.0)), dict(stored.get("phases") or {}), True)
        announce_builds(log)  # the databases are the truth, built on first use: said once the input holds
        return _check(folder, stored, specs, command, identity, starts, seed, jobs, progress, log)


def _check(folder: RunFolder, stored, specs, command, identity, starts, seed, jobs, progress, log) -> CrossCheck:
    from bgsim.bearoff import default_two_sided_checkers

    started = time.perf_counter()
    stored = folder.resumed(stored) if stored is not None else folder.record(command, identity)
    folder.save(stored)
    times = dict(stored.get("phases") or {})
    starts_file = folder.path / STARTS_FILE
    if starts_file.exists():
        found = [(words[0], int(words[1])) for words in map(str.split, starts_file.read_text().splitlines()) if words]
    else:
        shutil.rmtree(folder.chunks, ignore_errors=True)  # blocks of no known starts
        log(f"sampling {starts:,} bear-off starts from {SAMPLER} games (seed {seed})")
        with Phase("sampling", starts, "starts", progress, log, times) as bar:
            found = sample_starts(starts, seed, jobs, bar.update)
        write_text("".join(f"{position_id} {game}\n" for position_id, game in found), starts_file)
    blocks = blocks_of(found)
    paths = [folder.chunks / f"block-{number:05d}.parquet" for number in range(len(blocks))]
    folder.chunks.mkdir(exist_ok=True)
    todo = [number for number, path in enumerate(paths) if not path.exists()]
    written = 0
    try:
        with Phase("playing", len(found), "starts", progress, log, times,
                   initial=len(found) - sum(len(blocks[number]) for number in todo)) as bar:
            for position, frame in play_blocks([blocks[number] for number in todo], seed, specs, jobs):
                number = todo[position]
                write_table(frame, paths[number])
                bar.update(len(blocks[number]))
                written += 1
                stop_hook(written)  # tests: BGSIM_STOP_AFTER=K interrupts after the K-th block
    except KeyboardInterrupt:
        stored["phases"] = times
        folder.save(stored)
        log(f"interrupted: {len(blocks) - len(todo) + written} of {len(blocks)} blocks of starts are played "
            f"and kept in {folder.chunks}; finish with: {command} --resume")
        raise
    summaries = time.perf_counter()
    games = pd.concat([pd.read_parquet(path) for path in paths], ignore_index=True)
    summary = summarise(games, specs)
    checkers = default_two_sided_checkers()
    sampled = (f"the first pure bear-off of each fast-engine {SAMPLER} self-play game (seed "
               f"{seed}) where both sides are in the two-sided database (at most "
               f"{checkers} checkers a side), kept where the side on roll's exact "
               f"cubeless chance is within {cube_audit.WINDOW[0]:.0%} .. {cube_audit.WINDOW[1]:.0%} "
               f"({found[-1][1] + 1:,} sampling games)")
    info = {**stored, "starts": len(found), "source": sampled, "checkers": checkers}
    write_table(games, folder.path / "games.parquet")
    write_text(summary.to_csv(index=False), folder.path / "cross_check.csv")
    write_text(markdown(summary, info), folder.path / "cross_check.md")
    times["summaries"] = round(time.perf_counter() - summaries, 1)
    seconds = time.perf_counter() - started
    folder.finish(stored, seconds=seconds, source=sampled, phases=times)
    shutil.rmtree(folder.chunks, ignore_errors=True)
    played = len(found) * (1 + 2 * len(specs))  # exact against itself once, each rule twice
    return CrossCheck(folder.path, summary, len(found), played, seconds, times)
