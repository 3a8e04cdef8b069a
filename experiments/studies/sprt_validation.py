"""The sequential test validated by simulation (``results/sprt/``).

Thousands of sequential tests (:mod:`experiments.sequential`, the very code ``bgsim sprt`` runs)
on pairs of players whose true difference is known, each test reading real games:

* every pair plays one large **pool** of deals once, in the fast engine, and each simulated
  test reads its own disjoint, consecutive block of that pool, batch by batch, as
  ``bgsim sprt`` reads the batches it plays, until it decides: the tests are independent and
  each sees real games, not draws from a fitted distribution;
* the **truth** of a pair is a separate run of a million deals or more, on its own seed;
* a pair with no difference at all is a bot against itself.  Under duplicate dice a
  deterministic bot against itself replays each game with the seats swapped and every deal
  sums to exactly 0, so the null pairs give each seating its own dice: a deal is a game with
  the candidate white and another, independent one with it black (its expectation is 0 by
  symmetry, with no estimate needed);
* a test of (D0, D1) on a pair whose true difference is mu behaves exactly as a test of
  (D0 + s, D1 + s) on a pair whose difference is mu + s (the deal scores shift by s, the
  likelihood ratio with them), so one pool traces the whole operating characteristic: the
  tests at each true difference theta are run with their hypotheses moved by mu - theta.  For
  the null pairs mu is 0 exactly; for the others it is the truth run's estimate (its interval
  is in the tables).

``python -m experiments.studies.sprt_validation pools WORK`` plays the pools and truths into
``WORK`` (resumable: each finished block of deals is a file; a killed run plays only the blocks
that are missing), ``... simulate WORK`` runs the tests, ``... report WORK OUT`` writes the
tables, the plots and ``run.json`` into ``OUT``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from bgsim.cube import Rules
from bgsim.dice import GOLDEN, MASK64, mix64

# --- the pairs -------------------------------------------------------------------------------

POOL_SEED = 20261202  # the pools' seeds come from this one, the truths' from TRUTH_SEED
TRUTH_SEED = 20261203
BLOCK = 50_000  # deals per file of a pool or a truth run: the unit of resume


@dataclass(frozen=True)
class Pair:
    """A candidate and a baseline, the rules, and the test each simulated test runs."""

    name: str
    candidate: str
    baseline: str
    cube: bool
    null: bool  # a bot against itself: seatings on independent dice, true difference 0
    pool: int  # deals in the pool the simulated tests read
    truth: int  # deals of the truth run (0 for a null pair: its truth is 0 by symmetry)
    delta1: float  # the tests' H1 (H0 is delta0 = 0), points per game
    note: str = ""

    @property
    def rules(self) -> Rules:
        return Rules(cube=self.cube)


MILLION = 1_000_000
# Each pair's H1 is about 0.095 standard deviations of its deal score, so that a fixed-size test
# of the same errors (alpha = beta = 0.05) needs about 1,200 deals and the sequential test about
# half of that: a pool of a million deals holds about 1,500 tests at either hypothesis.
PAIRS = (
    Pair("cubeless-null", "racer", "racer", False, True, MILLION, 0, 0.09,
         "racer against itself, no cube"),
    Pair("cubeless-blot", "racer", "racer(blot=6)", False, False, MILLION, MILLION, 0.04,
         "racer against racer pricing a blot at 6 pips instead of 5, no cube"),
    Pair("cubeless-hit", "racer", "racer(hit=3)", False, False, MILLION, MILLION, 0.04,
         "racer against racer with a hit bonus of 3 instead of 2, no cube"),
    Pair("cube-null", "racer+pipdiff", "racer+pipdiff", True, True, MILLION, 0, 0.12,
         "the 8-9-12 pip rule against itself (racer checker play)"),
    Pair("cube-take16", "racer+pipdiff", "racer+pipdiff(take=16%)", True, False, MILLION, MILLION, 0.10,
         "the pip rule taking up to 12% against taking up to 16% (racer checker play)"),
    Pair("cube-take20-25", "racer+pipdiff(take=20%)", "racer+pipdiff(take=25%)", True, False, MILLION,
         MILLION, 0.10,
         "the pip rule taking up to 20% against 25%: wide takes, high cubes, the heaviest tails "
         "(racer checker play)"),
)


def seed_of(base: int, index: int) -> int:
    """The seed of pair ``index`` (the pairing seed formula of experiments/running/plan.py)."""
    return mix64((mix64(base) + (index + 1) * GOLDEN) & MASK64) >> 1


# --- playing the pools -------------------------------------------------------------------------


def deal_scores(pair: Pair, seed: int, start: int, stop: int, threads: int | None = 1) -> np.ndarray:
    """The candidate's points summed over both seatings of deals ``start``..``stop`` - 1 (int16).

    A duplicate pair plays game g twice, the candidate white, then black, on the same dice.  A
    null pair's deal k is its games 2k (the candidate white) and 2k + 1 (black), each on its own
    dice."""
    from bgsim.series import play_games
    from bots import make_player

    candidate, baseline = make_player(pair.candidate), make_player(pair.baseline)
    if pair.null:
        frame = play_games(candidate, baseline, seed, range(2 * start, 2 * stop), pair.rules, engine="fast",
                           threads=threads)
        white = frame["white_points"].to_numpy(dtype=np.int64)
        scores = white[0::2] - white[1::2]
    else:
        first = play_games(candidate, baseline, seed, range(start, stop), pair.rules, engine="fast", threads=threads)
        second = play_games(baseline, candidate, seed, range(start, stop), pair.rules, engine="fast", threads=threads)
        scores = first["white_points"].to_numpy(dtype=np.int64) - second["white_points"].to_numpy(dtype=np.int64)
    if len(scores) != stop - start:
        raise RuntimeError(f"{pair.name}: {len(scores)} deal scores for deals {start}..{stop - 1}")
    return scores.astype(np.int16)


def _folder(work: Path, pair: Pair, kind: str) -> Path:
    return Path(work) / pair.name / kind


def play_all(work: Path, pairs=PAIRS, threads: int | None = 1, log=print) -> None:
    """Play every pair's truth and pool into ``work``, block by block, skipping finished blocks."""
    from bgsim.fast import compile_only_for
    from bots import make_player

    players = [make_player(spec) for pair in pairs for spec in (pair.candidate, pair.baseline)]
    with compile_only_for(players):
        for index, pair in enumerate(pairs):
            for kind, base in (("truth", TRUTH_SEED), ("pool", POOL_SEED)):
                deals = pair.truth if kind == "truth" else pair.pool
                folder = _folder(work, pair, kind)
                folder.mkdir(parents=True, exist_ok=True)
                seed = seed_of(base, index)
                for start in range(0, deals, BLOCK):
                    path = folder / f"block-{start // BLOCK:04d}.npy"
                    if path.exists():
                        continue
                    began = time.perf_counter()
                    scores = deal_scores(pair, seed, start, min(start + BLOCK, deals), threads)
                    temporary = path.with_suffix(".tmp.npy")
                    np.save(temporary, scores)
                    temporary.replace(path)  # a block is on disk whole or not at all
                    log(f"{pair.name} {kind}: deals {start:,}..{min(start + BLOCK, deals) - 1:,} in "
                        f"{time.perf_counter() - began:.0f} s (mean {scores.mean() / 2:+.4f} points/game)")
                _write_json(folder / "done.json", {"pair": asdict(pair), "kind": kind, "seed": seed, "deals": deals,
                                                   "block": BLOCK, **_provenance()})


def load_scores(work: Path, pair: Pair, kind: str) -> np.ndarray:
    """A pair's finished pool or truth run: every deal's score in order (int16)."""
    folder = _folder(work, pair, kind)
    deals = pair.truth if kind == "truth" else pair.pool
    blocks = [folder / f"block-{start // BLOCK:04d}.npy" for start in range(0, deals, BLOCK)]
    missing = [path.name for path in blocks if not path.exists()]
    if missing:
        raise FileNotFoundError(f"{folder}: {len(missing)} of {len(blocks)} blocks are not played yet "
                                f"(first: {missing[0]}); play them with `pools`")
    return np.concatenate([np.load(path) for path in blocks])


def _provenance() -> dict:
    from experiments.running.folder import git_state, now, version

    commit, dirty = git_state()
    return {"bgsim_version": version(), "git_commit": commit, "git_dirty": dirty, "written": now()}


def _write_json(path: Path, data: dict) -> None:
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    temporary.replace(path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m experiments.studies.sprt_validation",
                                     description="The sequential test validated by simulation (results/sprt/).")
    steps = parser.add_subparsers(dest="step", required=True)
    pools = steps.add_parser("pools", help="play every pair's pool and truth run into WORK (resumable)")
    pools.add_argument("work", type=Path)
    pools.add_argument("--threads", type=int, default=1)
    args = parser.parse_args(argv)
    if args.step == "pools":
        (args.work / "pools.pid").parent.mkdir(parents=True, exist_ok=True)
        (args.work / "pools.pid").write_text(f"{os.getpid()}\n")  # the job's own id, to stop it by
        play_all(args.work, threads=args.threads, log=lambda text: print(text, flush=True))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
