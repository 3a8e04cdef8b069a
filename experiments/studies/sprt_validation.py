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
* two studies read the same pools: Wald's test as it stands (floor 0) with each likelihood ratio
  (the GSPRT, the plain empirical one, the normal one), which showed the false H1s of the
  heaviest-tailed pair at twice alpha; and ``bgsim sprt``'s test, the GSPRT with its floor (no
  decision before ``FLOOR`` times the fixed-size test's deals), labelled ``gsprt+floor``;
* a test of (D0, D1) on a pair whose true difference is mu behaves exactly as a test of
  (D0 + s, D1 + s) on a pair whose difference is mu + s (the deal scores shift by s, the
  likelihood ratio with them), so one pool traces the whole operating characteristic: the
  tests at each true difference theta are run with their hypotheses moved by mu - theta.  For
  the null pairs mu is 0 exactly; for the others it is the truth run's estimate (its interval
  is in the tables).

``python -m experiments.studies.sprt_validation pools WORK`` plays the pools and truths into
``WORK`` (resumable: each finished block of deals is a file; a killed run plays only the blocks
that are missing), ``... simulate WORK [PAIR...]`` runs the tests (a file per pair), ``... report
WORK OUT`` writes the tables, the plots and ``run.json`` into ``OUT``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from bgsim.cube import Rules
from bgsim.dice import GOLDEN, MASK64, mix64
from experiments.sequential import DEFAULT_BATCH, DEFAULT_LIMIT, FLOOR, METHODS, Sprt, run_test

# --- the pairs -------------------------------------------------------------------------------

POOL_SEED = 20261202  # the pools' seeds come from this one, the truths' from TRUTH_SEED
TRUTH_SEED = 20261203
BLOCK = 50_000  # deals per file of a pool or a truth run: the unit of resume


@dataclass(frozen=True)
class Pair:
    """A candidate and a baseline, the rules, and the test each simulated test runs."""

    name: str
    number: int  # the pair's seeds: seed_of(POOL_SEED, number) and seed_of(TRUTH_SEED, number)
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
# (Pair 2, racer against racer with a hit bonus of 3, was dropped after 350,000 deals of its truth
# run showed it within 0.003 points a game of no difference: a second null pair, not a small
# difference, and an hour of this machine.)
# Each pair's H1 is about 0.095 standard deviations of its deal score, so that a fixed-size test
# of the same errors (alpha = beta = 0.05) needs about 1,200 deals and the sequential test about
# half of that: a pool of a million deals holds about 1,500 tests at either hypothesis.
PAIRS = (
    Pair("cubeless-null", 0, "racer", "racer", False, True, MILLION, 0, 0.09,
         "racer against itself, no cube"),
    Pair("cubeless-blot", 1, "racer", "racer(blot=6)", False, False, MILLION, MILLION, 0.04,
         "racer against racer pricing a blot at 6 pips instead of 5, no cube"),
    Pair("cube-null", 3, "racer+pipdiff", "racer+pipdiff", True, True, MILLION, 0, 0.12,
         "the 8-9-12 pip rule against itself (racer checker play)"),
    Pair("cube-take16", 4, "racer+pipdiff", "racer+pipdiff(take=16%)", True, False, MILLION, MILLION, 0.10,
         "the pip rule taking up to 12% against taking up to 16% (racer checker play)"),
    Pair("cube-take20-25", 5, "racer+pipdiff(take=20%)", "racer+pipdiff(take=25%)", True, False, MILLION,
         MILLION, 0.10,
         "the pip rule taking up to 20% against 25%: wide takes, high cubes, the heaviest tails "
         "(racer checker play)"),
)


def seed_of(base: int, index: int) -> int:
    """The seed of pair number ``index`` (the pairing seed formula of experiments/running/plan.py)."""
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
        for pair in pairs:
            for kind, base in (("truth", TRUTH_SEED), ("pool", POOL_SEED)):
                deals = pair.truth if kind == "truth" else pair.pool
                folder = _folder(work, pair, kind)
                folder.mkdir(parents=True, exist_ok=True)
                seed = seed_of(base, pair.number)
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


# --- the simulated tests ------------------------------------------------------------------------

# the true differences theta the tests meet: D0 + f (D1 - D0) for each f (D0 = 0)
FRACTIONS = (-0.5, 0.0, 0.25, 0.5, 0.75, 1.0, 1.5)
# shorter tests: H1 at 2 and 4 times the pair's delta1 (4 and 16 times fewer deals), at D0 and D1
SHORT = ((2.0, (0.0, 1.0)), (4.0, (0.0, 1.0)))
MOST_TESTS = 4000  # tests per setting at most (the short tests fit far more into a pool)
# the tests run: each likelihood ratio as Wald's test stands (floor 0: the first study, which
# found the heavy tails' excess), and bgsim's test, the GSPRT with its floor on the deals
# (FLOOR); each (file suffix, floor, likelihood ratios); a row's method is the ratio's name, and
# BGSIM for bgsim's test
BGSIM = "gsprt+floor"
STUDIES = (("", 0.0, METHODS), ("-floor", FLOOR, ("gsprt",)))


@dataclass(frozen=True)
class Truth:
    """What a pair's truth run says: the candidate's gain per game and its 95% half-width, the
    deal score's standard deviation (points per game over the two seatings), its kurtosis, the
    largest deal score seen, the share of deals scoring 4 points a game or more either way."""

    mu: float
    half: float
    deals: int
    sd: float
    kurtosis: float
    largest: float
    big: float

    @classmethod
    def of(cls, scores: np.ndarray, exact: float | None = None) -> "Truth":
        units = scores.astype(np.float64) / 2  # a deal's points per game: the sum halved
        mu, sd = float(units.mean()), float(units.std(ddof=1))
        half = 1.959963984540054 * sd / np.sqrt(len(units))
        z = (units - mu) / sd
        return cls(exact if exact is not None else mu, 0.0 if exact is not None else half, len(units), sd,
                   float(np.mean(z ** 4)), float(np.abs(units).max()), float(np.mean(np.abs(units) >= 4)))


def truth_of(work: Path, pair: Pair) -> Truth:
    """A null pair's truth is 0 by symmetry (its spread is its pool's); else its truth run's."""
    if pair.null:
        return Truth.of(load_scores(work, pair, "pool"), exact=0.0)
    return Truth.of(load_scores(work, pair, "truth"))


def run_tests(units: np.ndarray, mu: float, theta: float, delta1: float, *, method: str = "gsprt",
              floor: float = FLOOR, least: int = 0, batch: int = DEFAULT_BATCH, limit: int = DEFAULT_LIMIT,
              most: int = MOST_TESTS) -> list[dict]:
    """Sequential tests of H0 "gain <= 0" against H1 "gain >= delta1" on a pair whose gain is
    ``theta``, made from deals of a pair whose gain is ``mu``: each test reads the pool's next
    deals (its own block, consecutive, disjoint from every other test's) with both hypotheses
    moved by ``mu - theta``, until it decides; a test the pool ends under is dropped."""
    shift = mu - theta
    sprt = Sprt(shift, delta1 + shift, floor=floor)
    out, start = [], 0
    while len(out) < most:
        test = run_test(sprt, units[start:start + limit], batch, limit=limit, method=method, least=least)
        if test.decision is None and test.deals < limit:
            break  # the pool ran out under it
        naive, anytime = test.naive_interval(), test.anytime_interval()
        out.append({"start": start, "deals": test.deals, "decision": test.decision or "none", "llr": test.llr,
                    "estimate": test.mean - shift,
                    "naive_covers": naive[0] <= mu <= naive[1], "anytime_covers": anytime[0] <= mu <= anytime[1],
                    "fixed_deals": sprt.fixed_deals(test.sd)})
        start += test.deals
    return out


def simulate(work: Path, pairs=PAIRS, log=print) -> "pd.DataFrame":
    """Every pair's tests at every true difference of FRACTIONS (each likelihood ratio of each
    study), and its shorter tests: one row per test, a file per pair and study
    (``work/tests/PAIR[-floor].parquet``, written once its tests are all in: one already
    simulated is read back, not run again)."""
    import pandas as pd

    frames = [_simulated(work, pair, suffix, floor, methods, log) for pair in pairs
              for suffix, floor, methods in STUDIES]
    return pd.concat(frames, ignore_index=True)


def _simulated(work: Path, pair: Pair, suffix: str, floor: float, methods, log) -> "pd.DataFrame":
    import pandas as pd

    path = Path(work) / "tests" / f"{pair.name}{suffix}.parquet"
    if path.exists():
        return pd.read_parquet(path)
    truth = truth_of(work, pair)
    units = load_scores(work, pair, "pool").astype(np.float64) / 2
    settings = [(1.0, fraction, method) for fraction in FRACTIONS for method in methods]
    settings += [(scale, fraction, method) for scale, fractions in SHORT for fraction in fractions
                 for method in methods]
    parts = []
    for scale, fraction, method in settings:
        began = time.perf_counter()
        delta1 = pair.delta1 * scale
        label = BGSIM if floor else method
        rows = run_tests(units, truth.mu, fraction * delta1, delta1, method=method, floor=floor)
        frame = pd.DataFrame(rows).assign(pair=pair.name, scale=scale, fraction=fraction, theta=fraction * delta1,
                                          delta1=delta1, method=label, mu=truth.mu)
        parts.append(frame)
        log(f"{pair.name}: {len(rows):,} tests at theta = {fraction:g} x {delta1:g} ({label}) in "
            f"{time.perf_counter() - began:.0f} s: H1 {np.mean(frame['decision'] == 'H1'):.3f}, "
            f"{frame['deals'].mean():,.0f} deals on average")
    frame = pd.concat(parts, ignore_index=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(".tmp")
    frame.to_parquet(temporary, index=False)
    temporary.replace(path)
    _write_json(path.with_suffix(".json"), {"pair": pair.name, "floor": floor, "tests": len(frame), **_provenance()})
    return frame


# --- the tables, the plots --------------------------------------------------------------------


def wilson(successes: int, count: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """Wilson's 95% interval for a binomial share."""
    if count == 0:
        return math.nan, math.nan
    share = successes / count
    centre = (share + z * z / (2 * count)) / (1 + z * z / count)
    width = z / (1 + z * z / count) * math.sqrt(share * (1 - share) / count + z * z / (4 * count * count))
    # the share itself always inside (at 0 or 1 rounding would leave it a hair outside)
    return min(share, max(0.0, centre - width)), max(share, min(1.0, centre + width))


def wald_oc(theta: float, delta1: float, alpha: float = 0.05, beta: float = 0.05) -> float:
    """Wald's approximate chance of accepting H1 at a true gain ``theta`` (H0: 0, H1: delta1),
    for a normal mean: 1 - (e^(a h) - 1) / (e^(a h) - e^(b h)), h = (delta1 - 2 theta) / delta1."""
    upper, lower = math.log((1 - beta) / alpha), math.log(beta / (1 - alpha))
    h = (delta1 - 2 * theta) / delta1
    if abs(h) < 1e-9:
        return -lower / (upper - lower)
    accept0 = (math.exp(upper * h) - 1) / (math.exp(upper * h) - math.exp(lower * h))
    return 1 - accept0


def wald_asn(theta: float, delta1: float, sd: float, alpha: float = 0.05, beta: float = 0.05) -> float:
    """Wald's approximate mean number of deals (no overshoot, a look after every deal)."""
    upper, lower = math.log((1 - beta) / alpha), math.log(beta / (1 - alpha))
    one = wald_oc(theta, delta1, alpha, beta)
    drift = delta1 / sd ** 2 * (theta - delta1 / 2)
    if abs(drift) < 1e-12:
        return -lower * upper * sd ** 2 / delta1 ** 2
    return ((1 - one) * lower + one * upper) / drift


def tables(tests, truths: dict[str, Truth], pairs=PAIRS):
    """(truths, errors, oc): what the pages show, from the tests' rows."""
    import pandas as pd

    by_name = {pair.name: pair for pair in pairs}
    truth_rows = []
    for name, truth in truths.items():
        pair = by_name[name]
        truth_rows.append({"pair": name, "candidate": pair.candidate, "baseline": pair.baseline,
                           "cube": pair.cube, "null": pair.null, "gain": truth.mu, "gain_half": truth.half,
                           "truth_deals": truth.deals, "sd": truth.sd, "kurtosis": truth.kurtosis,
                           "largest": truth.largest, "big": truth.big, "delta1": pair.delta1,
                           "fixed_deals": Sprt(0.0, pair.delta1).fixed_deals(truth.sd)})
    oc_rows = []
    for (name, scale, method, fraction), rows in tests.groupby(["pair", "scale", "method", "fraction"], sort=False):
        truth, delta1 = truths[name], float(rows["delta1"].iloc[0])
        theta = fraction * delta1
        count = len(rows)
        ones = int((rows["decision"] == "H1").sum())
        zeros = int((rows["decision"] == "H0").sum())
        low, high = wilson(ones, count)
        oc_rows.append({
            "pair": name, "scale": scale, "method": method, "fraction": fraction, "theta": theta, "delta1": delta1,
            "tests": count, "h1": ones / count, "h1_low": low, "h1_high": high, "h0": zeros / count,
            "undecided": (count - ones - zeros) / count, "wald_h1": wald_oc(theta, delta1),
            "mean_deals": float(rows["deals"].mean()), "p95_deals": float(np.percentile(rows["deals"], 95)),
            "wald_deals": wald_asn(theta, delta1, truth.sd),
            "fixed_deals": Sprt(0.0, delta1).fixed_deals(truth.sd),
            "naive_coverage": float(rows["naive_covers"].mean()),
            "anytime_coverage": float(rows["anytime_covers"].mean()),
            "bias": float(rows["estimate"].mean() - theta),
        })
    oc = pd.DataFrame(oc_rows)
    errors = []
    for (name, scale, method), rows in oc.groupby(["pair", "scale", "method"], sort=False):
        at0, at1 = rows[rows["fraction"] == 0.0].iloc[0], rows[rows["fraction"] == 1.0].iloc[0]
        tests0, tests1 = int(at0.tests), int(at1.tests)
        a_low, a_high = wilson(round(at0.h1 * tests0), tests0)
        b_low, b_high = wilson(round(at1.h0 * tests1), tests1)
        errors.append({"pair": name, "scale": scale, "method": method, "delta1": at0.delta1,
                       "tests_h0": tests0, "alpha": at0.h1, "alpha_low": a_low, "alpha_high": a_high,
                       "tests_h1": tests1, "beta": at1.h0, "beta_low": b_low, "beta_high": b_high,
                       "mean_deals_h0": at0.mean_deals, "p95_deals_h0": at0.p95_deals,
                       "mean_deals_h1": at1.mean_deals, "p95_deals_h1": at1.p95_deals,
                       "fixed_deals": at0.fixed_deals,
                       "naive_coverage": float((at0.naive_coverage * tests0 + at1.naive_coverage * tests1)
                                               / (tests0 + tests1)),
                       "anytime_coverage": float((at0.anytime_coverage * tests0 + at1.anytime_coverage * tests1)
                                                 / (tests0 + tests1))})
    return pd.DataFrame(truth_rows), _ordered(pd.DataFrame(errors), pairs), _ordered(oc, pairs)


def _ordered(frame, pairs):
    """Rows pair by pair, bgsim's test before the floorless ratios, then as they came."""
    pair_rank = {pair.name: index for index, pair in enumerate(pairs)}
    method_rank = {name: index for index, name in enumerate((BGSIM, *METHODS))}
    keys = frame["pair"].map(pair_rank) * 10 + frame["method"].map(method_rank)
    return frame.assign(_key=keys).sort_values("_key", kind="stable").drop(columns="_key").reset_index(drop=True)


def plot_oc(path: Path, oc, truths: dict[str, Truth], pairs=PAIRS) -> None:
    """The operating characteristic and the deals used, each pair a column (scale 1): bgsim's
    test, and Wald's test on the same likelihood ratio without the floor."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, len(pairs), figsize=(3.1 * len(pairs), 6.2), squeeze=False)
    for column, pair in enumerate(pairs):
        chosen = oc[(oc["pair"] == pair.name) & (oc["scale"] == 1.0)]
        rows = chosen[chosen["method"] == BGSIM].sort_values("theta")
        plain = chosen[chosen["method"] == "gsprt"].sort_values("theta")
        grid = np.linspace(rows["theta"].min(), rows["theta"].max(), 101)
        top, bottom = axes[0][column], axes[1][column]
        top.plot(grid, [wald_oc(t, pair.delta1) for t in grid], color="0.6", label="Wald's approximation")
        top.errorbar(plain["theta"], plain["h1"], yerr=[plain["h1"] - plain["h1_low"], plain["h1_high"] - plain["h1"]],
                     fmt="x", color="C3", ms=4, capsize=2, label="without the floor")
        top.errorbar(rows["theta"], rows["h1"], yerr=[rows["h1"] - rows["h1_low"], rows["h1_high"] - rows["h1"]],
                     fmt="o", color="C0", ms=4, capsize=2, label="bgsim sprt (95% interval)")
        top.axhline(0.05, color="C3", lw=0.6, ls=":")
        top.axhline(0.95, color="C3", lw=0.6, ls=":")
        top.set_title(pair.name, fontsize=9)
        top.set_ylim(-0.02, 1.02)
        bottom.plot(grid, [wald_asn(t, pair.delta1, truths[pair.name].sd) for t in grid], color="0.6",
                    label="Wald's mean")
        bottom.plot(plain["theta"], plain["mean_deals"], "x:", color="C3", ms=4, label="mean, without the floor")
        bottom.plot(rows["theta"], rows["mean_deals"], "o-", color="C0", ms=4, label="mean deals")
        bottom.plot(rows["theta"], rows["p95_deals"], "s--", color="C1", ms=4, label="95th percentile")
        bottom.axhline(rows["fixed_deals"].iloc[0], color="C2", lw=1, label="fixed-size test")
        bottom.set_xlabel("true gain (points per game)", fontsize=8)
        if column == 0:
            top.set_ylabel("share of tests accepting H1", fontsize=8)
            bottom.set_ylabel("deals used", fontsize=8)
            top.legend(fontsize=6, loc="upper left")
            bottom.legend(fontsize=6, loc="upper left")
        for axis in (top, bottom):
            axis.tick_params(labelsize=7)
    fig.suptitle("Sequential tests on real games: H0 gain <= 0, H1 gain >= D1, alpha = beta = 0.05, a look every "
                 f"{DEFAULT_BATCH} deals", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_short(path: Path, errors, pairs=PAIRS) -> None:
    """Error rates against the tests' length (H1 at 1, 2 and 4 times D1), each pair a line."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6))
    for index, pair in enumerate(pairs):
        rows = errors[(errors["pair"] == pair.name) & (errors["method"] == BGSIM)].sort_values("scale")
        deals = (rows["mean_deals_h0"] + rows["mean_deals_h1"]) / 2
        style = dict(color=f"C{index}", marker="o" if pair.cube else "s", ms=4, label=pair.name)
        axes[0].errorbar(deals, rows["alpha"], yerr=[rows["alpha"] - rows["alpha_low"],
                                                     rows["alpha_high"] - rows["alpha"]], capsize=2, **style)
        axes[1].errorbar(deals, rows["beta"], yerr=[rows["beta"] - rows["beta_low"],
                                                    rows["beta_high"] - rows["beta"]], capsize=2, **style)
    for axis, name in zip(axes, ("H1 accepted where the gain is 0 (alpha)", "H0 accepted where the gain is D1 (beta)")):
        axis.axhline(0.05, color="C3", lw=0.8, ls=":", label="nominal 0.05")
        axis.set_xscale("log")
        axis.set_xlabel("mean deals a test used", fontsize=8)
        axis.set_title(name, fontsize=9)
        axis.tick_params(labelsize=7)
    axes[0].legend(fontsize=6)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _fmt_share(value: float, low: float, high: float) -> str:
    return f"{100 * value:.2f}% ({100 * low:.2f} .. {100 * high:.2f})"


def markdown(truths, errors, oc, made: str = "") -> str:
    """summary.md: every table the README quotes (``made``: which code made them)."""
    from experiments.analysis.summary import markdown_table

    out = ["# The sequential test on real games: every table\n",
           "Written by `python -m experiments.studies.sprt_validation report` from the tests' rows "
           "(`README.md` says what they mean).\n" + (f"\n{made}\n" if made else ""),
           "## The pairs and their truth\n"]
    rows = [[r.pair, r.candidate, r.baseline, "cube" if r.cube else "no cube",
             "0 (exactly: a bot against itself)" if r.null else f"{r.gain:+.4f} ± {r.gain_half:.4f}",
             f"{r.truth_deals:,}", f"{r.sd:.3f}", f"{r.kurtosis:.1f}", f"{r.largest:g}", f"{100 * r.big:.3f}%",
             f"{r.delta1:g}", f"{r.fixed_deals:,}"] for r in truths.itertuples()]
    out.append(markdown_table(["pair", "candidate", "baseline", "play", "true gain per game (95%)", "deals",
                               "sd of a deal", "kurtosis", "largest deal, either sign", "deals >= 4 points a game",
                               "D1", "fixed-size deals"], rows, "llll" + "r" * 8) + "\n")
    out.append("## Error rates against the nominal 5% (H1 at D1 times 1, 2 and 4)\n")
    rows = [[r.pair, f"{r.scale:g}", r.method, f"{r.delta1:g}", f"{r.tests_h0:,}",
             _fmt_share(r.alpha, r.alpha_low, r.alpha_high), f"{r.tests_h1:,}",
             _fmt_share(r.beta, r.beta_low, r.beta_high),
             f"{r.mean_deals_h0:,.0f} / {r.p95_deals_h0:,.0f}", f"{r.mean_deals_h1:,.0f} / {r.p95_deals_h1:,.0f}",
             f"{r.fixed_deals:,}", f"{100 * r.naive_coverage:.1f}%", f"{100 * r.anytime_coverage:.1f}%"]
            for r in errors.itertuples()]
    out.append(markdown_table(["pair", "D1 ×", "LLR", "D1", "tests at 0", "H1 accepted at 0 (alpha)",
                               "tests at D1", "H0 accepted at D1 (beta)", "deals at 0: mean / 95th",
                               "deals at D1: mean / 95th", "fixed-size deals", "naive 95% covers",
                               "after-stopping 95% covers"], rows, "lrll" + "r" * 9) + "\n")
    out.append("## Operating characteristic and deals used (H1 at D1)\n")
    rows = [[r.pair, r.method, f"{r.fraction:g}", f"{r.theta:+.4f}", f"{r.tests:,}",
             _fmt_share(r.h1, r.h1_low, r.h1_high), f"{100 * r.wald_h1:.2f}%", f"{100 * r.undecided:.2f}%",
             f"{r.mean_deals:,.0f}", f"{r.p95_deals:,.0f}", f"{r.wald_deals:,.0f}", f"{r.fixed_deals:,}",
             f"{100 * r.naive_coverage:.1f}%", f"{100 * r.anytime_coverage:.1f}%", f"{r.bias:+.4f}"]
            for r in oc[oc["scale"] == 1.0].itertuples()]
    out.append(markdown_table(["pair", "LLR", "gain / D1", "true gain", "tests", "H1 accepted (95%)", "Wald",
                               "undecided", "mean deals", "95th percentile", "Wald's mean", "fixed-size",
                               "naive covers", "after-stopping covers", "bias of the estimate"], rows,
                              "ll" + "r" * 13) + "\n")
    return "\n".join(out)


def report(work: Path, out: Path, pairs=PAIRS, log=print) -> None:
    """Check each pool's first deals by playing them again, then write the tables, the plots and
    ``run.json`` into ``out`` from ``work/tests.parquet``."""
    import pandas as pd

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    tests = simulate(work, pairs, log)  # every pair simulated already: read back
    checked = []
    for pair in pairs:
        for kind, base in (("truth", TRUTH_SEED), ("pool", POOL_SEED)):
            deals = pair.truth if kind == "truth" else pair.pool
            if not deals:
                continue
            stored = load_scores(work, pair, kind)
            again = deal_scores(pair, seed_of(base, pair.number), 0, 500, threads=1)
            if not np.array_equal(stored[:500], again):
                raise RuntimeError(f"{pair.name} {kind}: the stored deals differ from the same deals played now")
            checked.append(f"{pair.name} {kind}")
    log(f"the first 500 deals of {len(checked)} pools and truth runs, played again, are the stored ones")
    truths = {pair.name: truth_of(work, pair) for pair in pairs}
    truth_table, errors, oc = tables(tests, truths, pairs)
    truth_table.to_csv(out / "pairs.csv", index=False, float_format="%.6g")
    errors.to_csv(out / "error_rates.csv", index=False, float_format="%.6g")
    oc.to_csv(out / "operating_characteristic.csv", index=False, float_format="%.6g")
    made = _made(work, pairs)
    (out / "summary.md").write_text(markdown(truth_table, errors, oc, made), encoding="utf-8")
    plot_oc(out / "operating_characteristic.png", oc, truths, pairs)
    plot_short(out / "short_tests.png", errors, pairs)
    played = [json.loads((_folder(work, pair, kind) / "done.json").read_text(encoding="utf-8"))
              for pair in pairs for kind in ("truth", "pool")]
    simulated = [json.loads((Path(work) / "tests" / f"{pair.name}{suffix}.json").read_text(encoding="utf-8"))
                 for pair in pairs for suffix, _, _ in STUDIES]
    _write_json(out / "run.json", {"kind": "sprt validation", "pairs": [asdict(pair) for pair in pairs],
                                   "pool_seed": POOL_SEED, "truth_seed": TRUTH_SEED, "block": BLOCK,
                                   "batch": DEFAULT_BATCH, "limit": DEFAULT_LIMIT, "fractions": list(FRACTIONS),
                                   "short": [list(item) for item in SHORT], "most_tests": MOST_TESTS,
                                   "studies": [{"file_suffix": suffix, "floor": floor, "methods": list(methods),
                                                "label": BGSIM if floor else "the ratio's name"}
                                               for suffix, floor, methods in STUDIES],
                                   "tests": len(tests), "played": played, "simulated": simulated,
                                   "checked_again": checked,
                                   "command": "python -m experiments.studies.sprt_validation report "
                                              f"{work} {out}", **_provenance()})


def _made(work: Path, pairs) -> str:
    """Which commits played the pools, ran the tests and wrote the tables (each clean or not)."""
    def commits(records) -> str:
        found = sorted({(r.get("git_commit") or "?")[:12] + ("+dirty" if r.get("git_dirty") else "") for r in records})
        return ", ".join(found)

    played = [json.loads((_folder(work, pair, kind) / "done.json").read_text(encoding="utf-8"))
              for pair in pairs for kind in ("truth", "pool") if (_folder(work, pair, kind) / "done.json").exists()]
    simulated = [json.loads((Path(work) / "tests" / f"{pair.name}{suffix}.json").read_text(encoding="utf-8"))
                 for pair in pairs for suffix, _, _ in STUDIES]
    now = _provenance()
    return (f"Pools and truths played at commit {commits(played)}; tests run at commit {commits(simulated)}; "
            f"tables written with bgsim {now['bgsim_version']}, commit {commits([now])}.")


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
    simulated = steps.add_parser("simulate", help="run the tests on the finished pools in WORK (PAIR...: only these)")
    simulated.add_argument("work", type=Path)
    simulated.add_argument("pairs", nargs="*", metavar="PAIR")
    reported = steps.add_parser("report", help="the tables, plots and run.json of WORK's tests, into OUT")
    reported.add_argument("work", type=Path)
    reported.add_argument("out", type=Path)
    args = parser.parse_args(argv)
    if args.step == "pools":
        (args.work / "pools.pid").parent.mkdir(parents=True, exist_ok=True)
        (args.work / "pools.pid").write_text(f"{os.getpid()}\n")  # the job's own id, to stop it by
        play_all(args.work, threads=args.threads, log=lambda text: print(text, flush=True))
    elif args.step == "simulate":
        chosen = [pair for pair in PAIRS if not args.pairs or pair.name in args.pairs]
        simulate(args.work, chosen, log=lambda text: print(text, flush=True))
    elif args.step == "report":
        report(args.work, args.out, log=lambda text: print(text, flush=True))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
