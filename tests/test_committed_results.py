"""Committed results come from a clean tree: the commit they name reproduces them.

A run records its commit and whether tracked files differed from it (``git_dirty``); a summary
of such a run says ``+dirty``.  Rerun the experiment on a clean commit before committing its
results (``bgsim tournament --out results/runs/NAME``, then copy the summaries over).
"""

import json
from pathlib import Path

import pytest

RESULTS = Path(__file__).resolve().parent.parent / "results"
RUNS = sorted(path.parent for path in RESULTS.glob("*/run.json") if path.parent.name != "runs")


@pytest.mark.parametrize("folder", RUNS, ids=[folder.name for folder in RUNS])
def test_committed_results_name_a_clean_commit(folder):
    record = json.loads((folder / "run.json").read_text())
    assert record.get("git_commit"), f"{folder}/run.json names no commit"
    assert not record["git_commit"].endswith("+dirty") and not record.get("git_dirty"), (
        f"{folder} was played on a tree with uncommitted changes: rerun it on a clean commit")
    summary = (folder / "summary.md").read_text()
    assert "+dirty" not in summary
    assert record["git_commit"][:12] in summary
