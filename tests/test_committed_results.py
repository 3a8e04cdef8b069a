"""Committed results come from a clean tree: the commit they name reproduces them.

A run records its commit and whether tracked files differed from it (``git_dirty``); a summary
of such a run says ``+dirty``.  Rerun the experiment on a clean commit before committing its
results (``bgsim tournament --out results/runs/NAME``, then copy the summaries over).
"""

import json
from pathlib import Path

import pytest

RESULTS = Path(__file__).resolve().parent.parent / "results"
# a folder of results, or of several runs (results/engines/: one folder a yardstick run)
RUNS = sorted(path.parent for path in [*RESULTS.glob("*/run.json"), *RESULTS.glob("engines/*/run.json")]
              if path.parent.name != "runs")


@pytest.mark.parametrize("folder", RUNS, ids=[folder.name for folder in RUNS])
def test_committed_results_name_a_clean_commit(folder):
    record = json.loads((folder / "run.json").read_text())
    assert record.get("git_commit"), f"{folder}/run.json names no commit"
    assert not record["git_commit"].endswith("+dirty") and not record.get("git_dirty"), (
        f"{folder} was played on a tree with uncommitted changes: rerun it on a clean commit")
    summary = (folder / "summary.md").read_text()
    assert "+dirty" not in summary
    assert record["git_commit"][:12] in summary


CROSS_CHECKS = sorted(RESULTS.glob("*/cross_check_run.json"))


@pytest.mark.parametrize("record_path", CROSS_CHECKS, ids=[path.parent.name for path in CROSS_CHECKS])
def test_committed_cross_checks_name_a_clean_commit(record_path):
    record = json.loads(record_path.read_text())
    assert record.get("kind") == "cross-check" and record.get("status") == "finished"
    assert record.get("git_commit") and not record.get("git_dirty"), (
        f"{record_path} was played on a tree with uncommitted changes: rerun it on a clean commit")
    assert record["git_commit"][:12] in (record_path.parent / "cross_check.md").read_text()


def test_the_cube_audit_has_its_cross_check():
    assert CROSS_CHECKS, "results/cube_audit/cross_check_run.json is missing: run bgsim cross-check"
