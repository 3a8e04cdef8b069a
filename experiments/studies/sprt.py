"""A sequential test of one candidate against one baseline, from Python as ``bgsim sprt`` runs it::

    from experiments.studies.sprt import run_sprt
    result = run_sprt("heuristic+pipdiff(take=14%)", "heuristic+pipdiff", delta0=0.0, delta1=0.05,
                      out="results/runs/take14")
    result.decision, result.deals, result.estimate, result.anytime   # "H1", 1850, 0.061, (0.012, 0.110)

It is an experiment of one pairing (``experiments.running.config.sprt_experiment``) played by
the runner, so the results folder, resume and the reference engine for players the fast engine
cannot play are every run's; the test is ``experiments/sequential.py``'s.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from bgsim.cube import Rules
from experiments.running.config import sprt_experiment
from experiments.running.runner import RunResult
from experiments.sequential import DEFAULT_BATCH, DEFAULT_LIMIT, FLOOR, Sprt

from .experiment import run_experiment


@dataclass
class SprtResult:
    run: RunResult  # the run: its folder, rows and report
    row: dict  # the test as summary.csv's sprt row holds it

    @property
    def decision(self) -> str | None:
        """ "H1", "H0", or None where the test reached its deals undecided."""
        return self.row["decision"] if isinstance(self.row["decision"], str) else None

    @property
    def deals(self) -> int:
        return int(self.row["deals"])

    @property
    def estimate(self) -> float:
        """The candidate's gain per game (matches: its share won less one half)."""
        return float(self.row["estimate"])

    @property
    def anytime(self) -> tuple[float, float]:
        """The 95% interval valid after optional stopping."""
        return float(self.row["anytime_low"]), float(self.row["anytime_high"])

    @property
    def naive(self) -> tuple[float, float]:
        """mean ± 1.96 standard errors, as if the deals had been fixed: biased after stopping."""
        return float(self.row["naive_low"]), float(self.row["naive_high"])


def run_sprt(candidate: str, baseline: str, delta0: float, delta1: float, *, alpha: float = 0.05,
             beta: float = 0.05, floor: float = FLOOR, games: int = DEFAULT_LIMIT, batch: int = DEFAULT_BATCH,
             seed: int = 1, rules: Rules = Rules(), match_to: int = 0, engine: str = "auto", threads: int = 0,
             out: str | Path | None = None, **options) -> SprtResult:
    """Test ``candidate`` against ``baseline`` (player specs): H0 it gains at most ``delta0``
    points per game (matches: share above one half), H1 at least ``delta1``; no decision before
    ``floor`` times the fixed-size test's deals; ``batch`` deals a look, at most ``games`` deals.
    ``options`` are ``run_experiment``'s (resume, force, progress, log, command, make_player)."""
    test = Sprt(delta0, delta1, alpha, beta, floor)
    experiment = sprt_experiment(candidate, baseline, test, games, batch=batch, seed=seed, rules=rules,
                                 match_to=match_to, engine=engine, threads=threads,
                                 make_player=options.get("make_player"), engines=options.pop("engines", None))
    result = run_experiment(experiment, out, **options)
    return SprtResult(result, result.report.sprt.iloc[0].to_dict())
