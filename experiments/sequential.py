"""The sequential test of ``bgsim sprt`` and of ``sprt = {...}`` in experiment files: is the
candidate better than the baseline, deal by deal, stopping as soon as the evidence is enough.

**The unit is the deal**: its two games (duplicate dice: the same dice, the seats swapped) give
the candidate's points over both seatings; in match play the candidate's share of the two
matches (a pair of matches scores 0, 1 or 2 of 2).  The code works with the deal's mean (points
per game, share of matches), which is the sum halved: the test is the same either way.

**The test** is Wald's sequential probability ratio test in the generalized form fishtest uses
for chess (its pentanomial GSPRT), which needs no model of the score's distribution and so
holds for backgammon's points, whatever their sizes: the deals seen so far take the values
``v_j`` with counts ``n_j``; under a hypothesis "the mean is mu" the likelihood is the largest
``prod p_j ** n_j`` of any distribution ``p`` on those values whose mean is mu (the empirical
likelihood, :func:`log_likelihood`), and after each batch of deals

    LLR = log L(mu1) - log L(mu0),    mu_i = D_i (money),  1/2 + D_i (matches)

is compared with Wald's bounds ``ln(beta / (1 - alpha))`` (below it: H0, the candidate gains at
most D0) and ``ln((1 - beta) / alpha)`` (above: H1, it gains at least D1).  For small
differences this is the classical SPRT of a normal mean with the variance the deals show.

One change from fishtest: its scores live on five known values, so every hypothesis has a
chance; backgammon's points do not, and a plain empirical likelihood calls a mean outside the
values seen so far impossible (after a first batch in which the candidate never lost a deal, H0
"it gains at most 0" would be rejected outright: ``results/sprt/`` and the tests measure how
badly that inflates the error rates of short tests).  The test's likelihood therefore adds one
pseudo-deal one standard deviation beyond the hypothesis, on the far side from the deals' mean
(``mu - s sign(mean - mu)``: a one-point form of Emerson and Owen's balanced augmented empirical
likelihood, "Calibration of the empirical likelihood method for a vector mean", 2009), so that
no hypothesis is impossible, one far beyond every deal is very unlikely, and the adjustment
fades as deals come in (one deal among n).  Chen, Variyath and Abraham's adjusted empirical
likelihood (2008) puts its pseudo-deal at ``mu - a_n (mean - mu)`` instead, at a distance that
grows with the hypothesis's, and so cannot tell apart two hypotheses that both lie far from the
deals: a strong candidate against a weak baseline would never be decided.

**The floor**: no decision before ``floor`` (default :data:`FLOOR`, one half) times the deals a
fixed-size test of the same errors needs, its size estimated from the spread of the deals seen so
far.  Where the cube makes rare, very large losses (a pair whose deal scores had a kurtosis of
about 200), Wald's test stopped within a few hundred deals that seldom held one, and accepted H1
at a true gain of 0 in 10.6% of the tests for an alpha of 5%; with the floor, in 4.85% (and in
5.85% of the tests a quarter as long, H1 at twice the difference: ``results/sprt/README.md``
says where the test still misbehaves).  ``floor = 0`` is Wald's test as it stands; with a
floor, a single deal (no spread) decides nothing.

**After stopping**, the mean of the deals played is biased (a test stops when the estimate has
wandered towards a bound) and its usual 95% interval covers less than 95% of the time.  A
finished test therefore gives, beside that naive interval, a 95% *confidence sequence* (the
asymptotic one of Waudby-Smith, Arnold, Wu, Ramdas and Howard, "Time-uniform central limit
theory and asymptotic confidence sequences", 2021, Robbins' normal mixture with the variance
the deals show): an interval that holds at every deal count at once, hence at whatever count
the test stopped (:func:`anytime_interval`).  Its mixing parameter is fixed from the first
batch alone (tightest near the fixed-size test's sample size), so stopping cannot tune it.
``results/sprt/`` measures both intervals' coverage, the tests' error rates and their length.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from statistics import NormalDist

import numpy as np

from bgsim.fast.compile import alloc_jit

DECISIONS = ("H0", "H1")
DEFAULT_BATCH = 50  # deals a look: ``bgsim sprt --chunk``'s default, and results/sprt/'s tests
DEFAULT_LIMIT = 100_000  # deals at most: ``bgsim sprt --games``'s default
# the likelihood ratio: generalized on the adjusted empirical likelihood (the test), on the plain
# one, or the normal one with the variance the deals show (the last two compared in results/sprt/)
METHODS = ("gsprt", "empirical", "normal")
NAIVE = 0.05  # the confidence sequence's and the naive interval's error: 95% intervals
# no decision before this share of the deals a fixed-size test of the same errors would play
# (its size from the spread of the deals seen so far): on the cube's heavy-tailed pairs a test
# stopping within its first few hundred deals rarely meets the rare big losses, and Wald's test
# without it accepted H1 twice as often as alpha; a quarter was not enough, the spread of the
# first deals being small (results/sprt/README.md, "Heavy tails")
FLOOR = 0.5


class SprtError(ValueError):
    """A sequential test asked with values that make no test (one line)."""


@dataclass(frozen=True)
class Sprt:
    """A test: H0 the candidate gains at most ``delta0`` (points per game; in matches, its
    share of matches won less one half), H1 at least ``delta1``; errors ``alpha`` (accepting H1
    when H0 holds) and ``beta`` (accepting H0 when H1 holds); no decision before ``floor``
    times the deals a fixed-size test of those errors needs (0: Wald's test as it stands)."""

    delta0: float
    delta1: float
    alpha: float = 0.05
    beta: float = 0.05
    floor: float = FLOOR

    def __post_init__(self) -> None:
        for name in ("delta0", "delta1", "alpha", "beta", "floor"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                raise SprtError(f"{name} must be a finite number, got {value!r}")
        if self.delta1 <= self.delta0:
            raise SprtError(f"delta1 ({self.delta1:g}) must be greater than delta0 ({self.delta0:g}): H1 says the "
                            f"candidate gains at least delta1, H0 at most delta0")
        for name in ("alpha", "beta"):
            value = getattr(self, name)
            if not 0 < value < 0.5:
                raise SprtError(f"{name} must be between 0 and 0.5 (an error rate, e.g. 0.05), got {value:g}")
        if not 0 <= self.floor <= 1:
            raise SprtError(f"floor must be between 0 and 1 (a share of the fixed-size test's deals, default "
                            f"{FLOOR:g}), got {self.floor:g}")

    @property
    def lower(self) -> float:
        """The LLR at or below which the test accepts H0."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        """The LLR at or above which the test accepts H1."""
        return math.log((1 - self.beta) / self.alpha)

    def means(self, match: bool = False) -> tuple[float, float]:
        """The deal's mean under H0 and H1: points per game, or (matches) the share won."""
        base = 0.5 if match else 0.0
        return base + self.delta0, base + self.delta1

    def fixed_deals(self, sd: float) -> int:
        """Deals a fixed-size test of the same errors needs (one-sided z test of mu0 against mu1
        at level alpha with power 1 - beta), for deals of standard deviation ``sd``."""
        if not sd == sd or sd <= 0:
            return 0
        z = NormalDist().inv_cdf(1 - self.alpha) + NormalDist().inv_cdf(1 - self.beta)
        return max(1, math.ceil((z * sd / (self.delta1 - self.delta0)) ** 2))

    def to_dict(self) -> dict:
        return asdict(self)


SPRT_KEYS = ("delta0", "delta1", "alpha", "beta", "floor")


def sprt_from_table(table: dict, where: str = "sprt") -> Sprt:
    """An experiment file's ``sprt = {delta0 = ..., delta1 = ..., alpha = ..., beta = ...}``."""
    unknown = sorted(set(table) - set(SPRT_KEYS))
    if unknown:
        raise SprtError(f"{where}.{unknown[0]}: unknown key (known: {', '.join(SPRT_KEYS)})")
    for key in ("delta0", "delta1"):
        if key not in table:
            raise SprtError(f"{where}.{key}: missing (H0: the first player gains at most delta0 points per game, "
                            "H1: at least delta1)")
    try:
        return Sprt(**table)
    except SprtError as error:
        raise SprtError(f"{where}: {error}") from None


# --- the likelihood -------------------------------------------------------------------------


def adjustment(values: np.ndarray, counts: np.ndarray, mu: float) -> float:
    """The pseudo-deal the test's likelihood adds for the mean ``mu``: one standard deviation of
    the deals beyond ``mu``, away from their mean (``mu`` itself where the mean is ``mu``)."""
    return _pseudo(np.ascontiguousarray(values, dtype=np.float64), np.ascontiguousarray(counts, dtype=np.float64),
                   float(mu))


@alloc_jit
def _pseudo(values, counts, mu):
    n, total = 0.0, 0.0
    for j in range(len(values)):
        n += counts[j]
        total += counts[j] * values[j]
    mean = total / n
    squares = 0.0
    for j in range(len(values)):
        squares += counts[j] * (values[j] - mean) ** 2
    sd = math.sqrt(max(squares / (n - 1), 0.0)) if n > 1 else 0.0
    if mean > mu:
        return mu - sd
    if mean < mu:
        return mu + sd
    return mu


def log_likelihood(values: np.ndarray, counts: np.ndarray, mu: float, adjusted: bool = True) -> float:
    """log of the empirical likelihood of "the mean is ``mu``" over its unconstrained maximum
    (so at most 0): the largest ``sum n_j log p_j`` of a distribution ``p`` on ``values`` with
    mean ``mu``, less ``sum n_j log(n_j / N)``.  ``adjusted``: the deals with the pseudo-deal
    of :func:`adjustment` (the test's likelihood: finite wherever the deals vary).  Unadjusted: ``-inf``
    where ``mu`` is not strictly inside the range of the values (no such distribution gives the
    deals seen a positive chance), ``0`` where every deal had the value ``mu``.

    The maximizing ``p_j`` is ``(n_j / N) / (1 + lam (v_j - mu))``, where ``lam`` solves
    ``sum n_j (v_j - mu) / (1 + lam (v_j - mu)) = 0``; the left side falls as ``lam`` grows,
    and every ``p_j`` at most 1 brackets the root (Owen, "Empirical Likelihood", 2001, ch. 3)."""
    values = np.ascontiguousarray(values, dtype=np.float64)
    counts = np.ascontiguousarray(counts, dtype=np.float64)
    if values.shape != counts.shape or values.ndim != 1:
        raise ValueError("values and counts are two arrays of the same length")
    if not len(values) or counts.sum() <= 0:
        return 0.0
    return _log_likelihood(values, counts, float(mu), adjusted)


@alloc_jit
def _log_likelihood(values, counts, mu, adjusted):
    """:func:`log_likelihood` of the deals and, ``adjusted``, the pseudo-deal of :func:`_pseudo`."""
    extra, weight = (_pseudo(values, counts, mu), 1.0) if adjusted else (mu, 0.0)
    total, high, low, spread, first, drift, curve = weight, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
    any_apart = weight > 0 and extra != mu
    if weight > 0:
        high = max(high, extra - mu)
        low = min(low, extra - mu)
    for j in range(len(values)):
        d = values[j] - mu
        total += counts[j]
        if d != 0.0:
            any_apart = True
        high = max(high, d)
        low = min(low, d)
    if not any_apart:
        return 0.0
    if high <= 0.0 or low >= 0.0:
        return -math.inf
    lo, hi = -(1.0 - 1.0 / total) / high, (1.0 - 1.0 / total) / -low
    for j in range(len(values)):
        d = values[j] - mu
        drift += counts[j] * d
        curve += counts[j] * d * d
        spread += abs(counts[j] * d)
    d = extra - mu
    drift += weight * d
    curve += weight * d * d
    spread += abs(weight * d)
    lam = drift / curve  # the root of the score's first-order expansion: few steps left
    if not lo < lam < hi:
        lam = 0.0
    for _ in range(200):
        g, slope = 0.0, 0.0
        for j in range(len(values)):
            d = values[j] - mu
            w = 1.0 + lam * d
            g += counts[j] * d / w
            slope -= counts[j] * d * d / (w * w)
        d = extra - mu
        w = 1.0 + lam * d
        g += weight * d / w
        slope -= weight * d * d / (w * w)
        if abs(g) <= 1e-12 * spread:
            break
        if g > 0:
            lo = lam
        else:
            hi = lam
        step = lam - g / slope
        lam = step if lo < step < hi else 0.5 * (lo + hi)
        if hi - lo <= 1e-15 * max(1.0, abs(lam)):
            break
    out = -weight * math.log1p(lam * (extra - mu))
    for j in range(len(values)):
        out -= counts[j] * math.log1p(lam * (values[j] - mu))
    return out


def normal_llr(deals: int, total: float, variance: float, mu0: float, mu1: float) -> float:
    """The classical SPRT's log-likelihood ratio for a normal mean with the variance the deals
    show: ``(mu1 - mu0) / s**2 * (sum - n (mu0 + mu1) / 2)`` (``results/sprt/`` compares it)."""
    if deals < 2 or not variance > 0:
        return 0.0
    return (mu1 - mu0) / variance * (total - deals * (mu0 + mu1) / 2)


def llr(values: np.ndarray, counts: np.ndarray, mu0: float, mu1: float, adjusted: bool = True) -> float:
    """The generalized log-likelihood ratio of mean ``mu1`` against ``mu0`` for deals that took
    ``values`` with ``counts`` (``adjusted``: with :func:`adjustment`'s pseudo-deal, the test's).
    Unadjusted, where neither mean lies inside the range of the values (a candidate that won
    every deal by more than either hypothesis says: no distribution on the values seen has
    either mean), the normal ratio with the variance they show compares them; if every deal had
    the same value, the hypothesis nearer it wins outright (0 if neither is)."""
    one, zero = log_likelihood(values, counts, mu1, adjusted), log_likelihood(values, counts, mu0, adjusted)
    if one == -math.inf and zero == -math.inf:
        values, counts = np.asarray(values, dtype=np.float64), np.asarray(counts, dtype=np.float64)
        deals = counts.sum()
        total = float((values * counts).sum())
        mean = total / deals
        variance = float((counts * (values - mean) ** 2).sum() / (deals - 1)) if deals > 1 else 0.0
        if variance > 0:
            return normal_llr(int(deals), total, variance, mu0, mu1)
        gap = abs(mean - mu0) - abs(mean - mu1)  # every deal alike: the nearer mean wins outright
        return math.copysign(math.inf, gap) if gap else 0.0
    return one - zero


# --- after stopping ---------------------------------------------------------------------------


def mixing(planned: float, alpha: float = NAIVE) -> float:
    """The confidence sequence's rho**2, tightest at ``planned`` deals (Howard et al. 2021, eq. 3.4)."""
    planned = max(float(planned), 1.0)
    spent = -2 * math.log(alpha)
    return (spent + math.log(spent + 1)) / planned


def anytime_half_width(sd: float, deals: int, rho2: float, alpha: float = NAIVE) -> float:
    """Half-width of the 95% asymptotic confidence sequence after ``deals`` deals of standard
    deviation ``sd``: ``sd * sqrt(2 (n rho2 + 1) / (n**2 rho2) * log(sqrt(n rho2 + 1) / alpha))``."""
    if deals < 2 or not sd == sd:
        return math.nan
    t = deals * rho2
    return sd * math.sqrt(2 * (t + 1) / (deals * t) * math.log(math.sqrt(t + 1) / alpha))


# --- a test as it goes -------------------------------------------------------------------------


class SequentialTest:
    """One test fed batch by batch: the deals' values and counts, the LLR, the decision.

    ``add`` takes one batch of deal values (points per game over the two seatings, or the share
    of the two matches won); a decision is taken after a batch, never inside one, as the runner
    sees whole chunks.  The confidence sequence's mixing is fixed by the first batch's spread."""

    def __init__(self, sprt: Sprt, match: bool = False, limit: int | None = None, method: str = "gsprt",
                 least: int = 0) -> None:
        if method not in METHODS:
            raise SprtError(f"unknown likelihood ratio {method!r}: choose from {', '.join(METHODS)}")
        self.sprt = sprt
        self.match = match
        self.limit = limit  # deals after which the test stops undecided (``--games``)
        self.method = method
        self.least = least  # no decision before this many deals
        self.mu0, self.mu1 = sprt.means(match)
        self.counts: dict[float, int] = {}
        self.deals = 0
        self.total = 0.0
        self.squares = 0.0
        self.batches = 0
        self.rho2: float | None = None
        self.llr = 0.0
        self.decision: str | None = None  # "H0", "H1", or None while running / undecided

    def add(self, units) -> str | None:
        units = np.asarray(units, dtype=np.float64)
        if self.stopped or not len(units):
            return self.decision
        values, counts = np.unique(units, return_counts=True)
        for value, count in zip(values.tolist(), counts.tolist()):
            self.counts[value] = self.counts.get(value, 0) + count
        self.deals += len(units)
        self.total += float(units.sum())
        self.squares += float((units * units).sum())
        self.batches += 1
        if self.rho2 is None:
            first = self.sd
            planned = self.sprt.fixed_deals(first) if first == first and first > 0 else self.deals
            self.rho2 = mixing(max(planned, self.deals))
        if self.method == "normal":
            self.llr = normal_llr(self.deals, self.total, self.sd ** 2, self.mu0, self.mu1)
        else:
            keys = np.fromiter(self.counts.keys(), dtype=np.float64, count=len(self.counts))
            numbers = np.fromiter(self.counts.values(), dtype=np.float64, count=len(self.counts))
            self.llr = llr(keys, numbers, self.mu0, self.mu1, adjusted=self.method == "gsprt")
        if self.deals < max(self.least, self.floor_deals):
            pass
        elif self.llr >= self.sprt.upper:
            self.decision = "H1"
        elif self.llr <= self.sprt.lower:
            self.decision = "H0"
        return self.decision

    @property
    def floor_deals(self) -> int:
        """The deals before which this test takes no decision, as the deals so far estimate it."""
        sd = self.sd
        if not self.sprt.floor:
            return 0
        if self.deals < 2:  # one deal has no spread to size the fixed-size test by
            return 2
        return math.ceil(self.sprt.floor * self.sprt.fixed_deals(sd))

    @property
    def stopped(self) -> bool:
        """Decided, or out of deals (``limit``)."""
        return self.decision is not None or (self.limit is not None and self.deals >= self.limit)

    @property
    def mean(self) -> float:
        return self.total / self.deals if self.deals else math.nan

    @property
    def sd(self) -> float:
        if self.deals < 2:
            return math.nan
        mean = self.mean
        return math.sqrt(max(self.squares - self.deals * mean * mean, 0.0) / (self.deals - 1))

    def naive_interval(self) -> tuple[float, float]:
        """mean ± 1.96 standard errors: as if the number of deals had been fixed in advance
        (after optional stopping it is biased and too narrow; ``results/sprt/`` measures it)."""
        half = 1.959963984540054 * self.sd / math.sqrt(self.deals) if self.deals >= 2 else math.nan
        return self.mean - half, self.mean + half

    def anytime_interval(self) -> tuple[float, float]:
        """The 95% confidence sequence at the deals played: valid whenever the test stopped."""
        half = anytime_half_width(self.sd, self.deals, self.rho2 or mixing(self.deals))
        return self.mean - half, self.mean + half

    def estimate(self) -> float:
        """The candidate's gain per game (matches: share won less one half)."""
        return self.mean - (0.5 if self.match else 0.0)

    def summary(self) -> dict:
        """The test's state, JSON-ready (intervals in the units of delta0/delta1)."""
        base = 0.5 if self.match else 0.0
        naive = self.naive_interval()
        anytime = self.anytime_interval()
        return {
            "delta0": self.sprt.delta0, "delta1": self.sprt.delta1, "alpha": self.sprt.alpha,
            "beta": self.sprt.beta, "floor": self.sprt.floor, "lower": self.sprt.lower, "upper": self.sprt.upper,
            "deals": self.deals, "batches": self.batches, "llr": self.llr, "decision": self.decision,
            "estimate": self.estimate(), "naive_low": naive[0] - base, "naive_high": naive[1] - base,
            "anytime_low": anytime[0] - base, "anytime_high": anytime[1] - base,
            "sd": self.sd, "fixed_deals": self.sprt.fixed_deals(self.sd),
        }


def run_test(sprt: Sprt, units: np.ndarray, batch: int, match: bool = False, limit: int | None = None,
             method: str = "gsprt", least: int = 0) -> SequentialTest:
    """A whole test over ``units`` (the deals in the order played), ``batch`` deals a look."""
    test = SequentialTest(sprt, match, limit, method, least)
    stop = len(units) if limit is None else min(limit, len(units))
    for start in range(0, stop, batch):
        if test.add(units[start:min(start + batch, stop)]) is not None:
            break
    return test
