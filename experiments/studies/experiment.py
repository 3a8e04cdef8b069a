"""An experiment file played and summarized: the runner's rows, then the analysis layer's report.

``run_experiment`` is what ``bgsim run`` and ``bgsim tournament`` call: it plays the experiment
into its results folder (:func:`experiments.running.runner.play_experiment`: chunks, resume,
Dask) and hands the rows to :func:`experiments.analysis.report.summarize_run` (the match judge
when asked, ``summary.md``, ``summary.csv``, the plots), or, for a chouette experiment, to the
chouette judge (when asked) and :func:`experiments.analysis.chouette_report.write_chouette_report`.
"""

from __future__ import annotations

from pathlib import Path

from experiments.analysis.chouette_report import write_chouette_report
from experiments.analysis.report import summarize_run
from experiments.running.config import Experiment
from experiments.running.folder import CHOUETTE_JUDGE_FILE
from experiments.running.runner import RunResult, play_experiment

from .chouette_judge import judge_chouettes


def run_experiment(experiment: Experiment, out: str | Path | None = None, **options) -> RunResult:
    """Play ``experiment`` into ``out`` and summarize it from the rows; ``options`` are
    :func:`~experiments.running.runner.play_experiment`'s (resume, force, dask, make_player, ...)."""
    return play_experiment(experiment, out, summarize=summarize, **options)


def summarize(folder: Path, frame, experiment: Experiment, run: dict, *, make_player=None, progress: bool = True,
              log=print, phases: dict | None = None):
    """A finished run's summaries: a tournament's (:func:`experiments.analysis.report.summarize_run`),
    or a chouette experiment's, its takes and drops judged first when it asks (``judge_cube``)
    and they are not yet."""
    if not experiment.chouette:
        return summarize_run(folder, frame, experiment, run, make_player=make_player, progress=progress, log=log,
                             phases=phases)
    if experiment.judge_cube and not (Path(folder) / CHOUETTE_JUDGE_FILE).exists():
        judge_chouettes(folder, frame, experiment.judge_cube, make_player, progress, log, phases)
    return write_chouette_report(folder, frame, experiment, run)
