"""An experiment file played and summarized: the runner's rows, then the analysis layer's report.

``run_experiment`` is what ``bgsim run`` and ``bgsim tournament`` call: it plays the experiment
into its results folder (:func:`experiments.running.runner.play_experiment`: chunks, resume,
Dask) and hands the rows to :func:`experiments.analysis.report.summarize_run` (the match judge
when asked, ``summary.md``, ``summary.csv``, the plots).
"""

from __future__ import annotations

from pathlib import Path

from experiments.analysis.report import summarize_run
from experiments.running.config import Experiment
from experiments.running.runner import RunResult, play_experiment


def run_experiment(experiment: Experiment, out: str | Path | None = None, **options) -> RunResult:
    """Play ``experiment`` into ``out`` and summarize it from the rows; ``options`` are
    :func:`~experiments.running.runner.play_experiment`'s (resume, force, dask, make_player, ...)."""
    return play_experiment(experiment, out, summarize=summarize_run, **options)
