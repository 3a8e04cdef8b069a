"""A run's results folder: its ``run.json``, where a new run goes, and whether one may start.

A folder holds ``run.json`` (what was asked, how it was played, per session), ``chunks/`` while
the run is under way, and ``games.parquet`` plus the summaries once it has finished.  A finished
run is never overwritten without ``--force``, an unfinished one never restarted by accident, and
a resume must ask for the same games as the run it finishes.
"""

from __future__ import annotations

import datetime as dt
import json
import shutil
import subprocess
from pathlib import Path

from .config import Experiment
from experiments.errors import RunError

CHUNK_DIR = "chunks"
RUN_FILE = "run.json"
GAMES_FILE = "games.parquet"
JUDGE_FILE = "cube_judge.csv"  # experiments/analysis/match_judge.py: one row per judged match
OUTPUTS = (GAMES_FILE, "summary.csv", "summary.md", JUDGE_FILE)
DEFAULT_RUNS = Path("results") / "runs"


def read_run(folder: Path) -> dict | None:
    path = Path(folder) / RUN_FILE
    if not path.exists():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise RunError(f"{path} is damaged ({error}); it is not a run bgsim can resume") from None


def git_state() -> tuple[str | None, bool | None]:
    """(commit, dirty) of the code that plays the games; (None, None) outside a git checkout.

    Dirty means tracked files differ from the commit: the commit alone would not reproduce the
    rows.  Untracked files (results being written, notes) do not count.
    """
    here = Path(__file__).resolve().parent
    try:
        head = subprocess.run(["git", "-C", str(here), "rev-parse", "HEAD"], capture_output=True,
                              text=True, timeout=5)
        if head.returncode:
            return None, None
        status = subprocess.run(["git", "-C", str(here), "status", "--porcelain", "--untracked-files=no"],
                                capture_output=True, text=True, timeout=5)
        return head.stdout.strip(), bool(status.stdout.strip())
    except (OSError, subprocess.SubprocessError):
        return None, None


def now() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")


def default_folder(name: str, root: Path = DEFAULT_RUNS) -> Path:
    stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%d-%H%M%S")
    folder = root / f"{name}-{stamp}"
    suffix = 2
    while folder.exists():
        folder = root / f"{name}-{stamp}-{suffix}"
        suffix += 1
    return folder


def latest_unfinished(name: str, root: Path = DEFAULT_RUNS) -> Path | None:
    """The newest run of ``name`` under ``root`` that has not finished (for a bare --resume)."""
    if not root.is_dir():
        return None
    candidates = []
    for folder in root.glob(f"{name}-*"):
        try:
            run = read_run(folder)
        except RunError:
            continue
        if run and run.get("status") == "running" and run.get("config", {}).get("name") == name:
            candidates.append((run.get("started", ""), str(folder), folder))
    return max(candidates)[2] if candidates else None


def prepare_folder(folder: Path, experiment: Experiment, resume: bool, force: bool) -> dict | None:
    """Check what is in ``folder`` against what was asked; returns the stored run when resuming."""
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise RunError(f"results folder {folder} is a file, not a folder")
    stored = read_run(folder) if folder.is_dir() else None
    if resume:
        if stored is None:
            raise RunError(f"nothing to resume in {folder}: it holds no {RUN_FILE}")
        differences = _differences(stored.get("identity", {}), experiment.identity())
        if differences:
            again = stored.get("command") or "the command that started it"
            raise RunError(
                f"cannot resume {folder}: it was started with a different experiment "
                f"({'; '.join(differences)}); repeat its command with --resume: {again}")
        return stored
    if folder.is_dir() and any(folder.iterdir()):
        if stored is None:
            raise RunError(f"results folder {folder} is not empty and holds no bgsim run: choose another --out")
        status = stored.get("status")
        if not force:
            if status == "finished":
                raise RunError(f"results folder {folder} holds a finished run: choose another --out, "
                               "or pass --force to replace it")
            raise RunError(f"results folder {folder} holds an unfinished run: pass --resume to finish it, "
                           "or --force to start it again")
        for name in (RUN_FILE, *OUTPUTS):
            (folder / name).unlink(missing_ok=True)
        for plot in folder.glob("*.png"):
            plot.unlink()
        shutil.rmtree(folder / CHUNK_DIR, ignore_errors=True)
    return None


def _differences(before: dict, now: dict) -> list[str]:
    out = []
    for key in sorted(set(before) | set(now)):
        if before.get(key) != now.get(key):
            if key in ("players", "conditions"):
                out.append(f"{key} differ")
            else:
                out.append(f"{key}: {before.get(key)!r} in the run, {now.get(key)!r} now")
    return out
