"""A run's results folder through its life: start, refuse to overwrite, resume, ``run.json``.

Every long command keeps its results the same way (``bgsim run`` and ``tournament``,
``cube-audit``, ``cross-check``):

* ``run.json`` is written before any work: what was asked (``identity``), by which code
  (``bgsim_version``, ``git_commit``, ``git_dirty``: tracked files differ from the commit), the
  command that repeats it, and whether it has finished (``status``);
* the folder is claimed while a command works in it (:meth:`RunFolder.claimed`,
  ``files.claim``): a second command on the same folder stops with one line and changes nothing;
* a folder that holds anything but a run of the same kind is refused; a finished run is replaced
  only with ``--force``; an unfinished one is finished with ``--resume`` (for kinds that resume)
  or started again with ``--force``; temporary files of a killed write do not count;
* a resume must ask for the same ``identity`` as the run it finishes, and one resumed on other
  code is marked ``git_dirty``;
* work in progress goes to ``chunks/``, and every file is written whole or not at all
  (``experiments/running/files.py``); a failed write says which file and what to do.

A new long command declares a :class:`RunKind` (what ``run.json`` calls it, what it leaves) and
goes through a :class:`RunFolder`; its flags are ``experiments.commands.arguments.run_folder_flags``::

    SESSIONS = RunKind("chouette", "session", "bgsim chouette session", ("games.parquet", "summary.md"))
    folder = RunFolder(out, SESSIONS)
    with folder.claimed():  # a second command on the same folder stops here
        stored = folder.open(identity, resume=resume, force=force)  # refuses, or the run to resume
        record = folder.resumed(stored) if stored else folder.record(command, identity)
        folder.save(record)
        ...  # the work: parts in folder.chunks, files through files.write_table / write_text
        folder.finish(record, seconds=elapsed, phases=times)  # times: experiments.running.progress.Phase
"""

from __future__ import annotations

import atexit
import datetime as dt
import json
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from experiments.errors import RunError, WriteError

from .files import claim, is_temporary, reason, write_json

CHUNK_DIR = "chunks"
RUN_FILE = "run.json"
GAMES_FILE = "games.parquet"
JUDGE_FILE = "cube_judge.csv"  # experiments/analysis/match_judge.py: one row per judged match
CHOUETTE_JUDGE_FILE = "chouette_judge.csv"  # experiments/studies/chouette_judge.py: one row per judged answer
DEFAULT_RUNS = Path("results") / "runs"


@dataclass(frozen=True)
class RunKind:
    """What a long command's runs are called and what a finished one leaves."""

    kind: str | None  # run.json's "kind"; None for experiment runs, whose run.json predates it
    noun: str  # what a message calls one run: "run", "audit"
    title: str  # what a folder of anything else holds no: "bgsim run", "bgsim cube audit"
    outputs: tuple[str, ...]  # file names (or glob patterns) a run leaves: --force removes them
    resumes: bool = True  # False: an unfinished run is not kept, a new one simply starts
    other: str = "other options"  # how a resume message names a different identity


EXPERIMENT_RUN = RunKind(None, "run", "bgsim run",
                         (GAMES_FILE, "summary.csv", "summary.md", JUDGE_FILE, CHOUETTE_JUDGE_FILE,
                          "payoff_matrix*.csv", "*.png"),
                         other="a different experiment")


class RunFolder:
    """One results folder of one kind of run; see the module docstring."""

    def __init__(self, path: str | Path, kind: RunKind) -> None:
        self.path = Path(path)
        self.kind = kind

    @property
    def chunks(self) -> Path:
        return self.path / CHUNK_DIR

    def read(self) -> dict | None:
        return read_run(self.path)

    def claimed(self):
        """Hold the folder for this process while the block runs (``files.claim``): another
        command working in it is an error naming it, before anything is read or written."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise self._unwritable(error) from None
        return claim(self.path, f"results folder ({self.kind.title})")

    def open(self, identity: dict, *, resume: bool = False, force: bool = False) -> dict | None:
        """Check what the folder holds against what was asked: the stored run when resuming,
        None for a fresh start (a run replaced with ``force`` is removed first)."""
        path, kind = self.path, self.kind
        if path.exists() and not path.is_dir():
            raise RunError(f"results folder {path} is a file, not a folder")
        stored = self.read() if path.is_dir() else None
        if resume:
            if stored is None:
                raise RunError(f"nothing to resume in {path}: it holds no {RUN_FILE}")
            if stored.get("kind") != kind.kind:
                raise RunError(f"nothing to resume in {path}: it holds no {kind.title}")
            differences = _differences(stored.get("identity", {}), identity)
            if differences:
                again = stored.get("command") or "the command that started it"
                raise RunError(f"cannot resume {path}: it was started with {kind.other} "
                               f"({'; '.join(differences)}); repeat its command with --resume: {again}")
            return stored
        if path.is_dir() and any(not is_temporary(entry) for entry in path.iterdir()):
            if stored is None or stored.get("kind") != kind.kind:
                raise RunError(f"results folder {path} is not empty and holds no {kind.title}: "
                               "choose another --out")
            finished = stored.get("status") == "finished"
            if not force and finished:
                raise RunError(f"results folder {path} holds a finished {kind.noun}: choose another --out, "
                               "or pass --force to replace it")
            if not force and kind.resumes:
                raise RunError(f"results folder {path} holds an unfinished {kind.noun}: pass --resume to "
                               "finish it, or --force to start it again")
            self._clear()
        return None

    def _clear(self) -> None:
        (self.path / RUN_FILE).unlink(missing_ok=True)
        for pattern in self.kind.outputs:
            for output in self.path.glob(pattern):
                output.unlink()
        shutil.rmtree(self.chunks, ignore_errors=True)

    def record(self, command: str, identity: dict, **fields) -> dict:
        """A new run's ``run.json``: kind, status, the code and command, what was asked, ``fields``."""
        commit, dirty = git_state()
        kind = {} if self.kind.kind is None else {"kind": self.kind.kind}
        return {**kind, "status": "running", "bgsim_version": version(), "git_commit": commit,
                "git_dirty": dirty, "command": command, "identity": identity, **fields, "started": now()}

    def resumed(self, stored: dict) -> dict:
        """The stored run, marked ``git_dirty`` when this code is not the code that started it."""
        commit, dirty = git_state()
        if commit != stored.get("git_commit") or dirty:
            stored["git_dirty"] = True  # resumed on other code: the results are not one commit's
        return stored

    def save(self, record: dict) -> None:
        """Write ``run.json`` (whole or not at all), making the folder first."""
        try:
            self.path.mkdir(parents=True, exist_ok=True)
            write_json(record, self.path / RUN_FILE)
        except OSError as error:
            raise self._unwritable(error) from None

    def _unwritable(self, error: OSError) -> WriteError:
        return WriteError(error.errno, f"cannot write to results folder {self.path}: {reason(error)}")

    def finish(self, record: dict, seconds: float | None = None, **fields) -> dict:
        """Mark the run finished (``seconds`` of work added to any earlier sessions') and save it."""
        record.update(status="finished", finished=now(), **fields)
        if seconds is not None:
            record["seconds"] = round(float(record.get("seconds", 0.0)) + seconds, 1)
        self.save(record)
        return record


def read_run(folder: Path) -> dict | None:
    path = Path(folder) / RUN_FILE
    if not path.exists():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise RunError(f"{path} is damaged ({error}); it is not a run bgsim can resume") from None


def load_rows(folder: Path) -> pd.DataFrame:
    """A finished run's rows, ``games.parquet``."""
    path = Path(folder) / GAMES_FILE
    if not path.exists():
        raise FileNotFoundError(f"{path}: no such file (the run has not finished)")
    return pd.read_parquet(path)


def version() -> str:
    import bgsim

    return bgsim.__version__


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
    """A new ``root/NAME-TIMESTAMP`` (``-2``, ``-3``... after it when taken), made here: two
    commands started in the same second each get their own, because making a folder either
    succeeds or finds it made.  One left empty (the command stopped before writing) is removed
    when the process ends."""
    stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%d-%H%M%S")
    root.mkdir(parents=True, exist_ok=True)
    folder, suffix = root / f"{name}-{stamp}", 2
    while True:
        try:
            folder.mkdir()
            break
        except FileExistsError:
            folder = root / f"{name}-{stamp}-{suffix}"
            suffix += 1
    atexit.register(_remove_if_empty, folder)
    return folder


def _remove_if_empty(folder: Path) -> None:
    try:
        folder.rmdir()  # only ever removes an empty folder
    except OSError:
        pass


def latest_unfinished(name: str, root: Path = DEFAULT_RUNS, kind: RunKind = EXPERIMENT_RUN) -> Path | None:
    """The newest run of ``name`` under ``root`` that has not finished (for a bare --resume): an
    experiment of that name, or a run of ``kind``."""
    if not root.is_dir():
        return None
    candidates = []
    for folder in root.glob(f"{name}-*"):
        try:
            run = read_run(folder)
        except RunError:
            continue
        if not run or run.get("status") != "running" or run.get("kind") != kind.kind:
            continue
        if kind.kind is None and run.get("config", {}).get("name") != name:
            continue
        candidates.append((run.get("started", ""), str(folder), folder))
    return max(candidates)[2] if candidates else None


def choose_folder(out: str | Path | None, name: str, resume: bool, kind: RunKind = EXPERIMENT_RUN) -> Path:
    """A command's results folder: ``--out``; else with ``--resume`` the newest unfinished run of
    ``name`` under results/runs; else a new ``results/runs/NAME-TIMESTAMP``."""
    if out is not None:
        return Path(out)
    if resume:
        found = latest_unfinished(name, kind=kind)
        if found is None:
            raise RunError(f"no unfinished run of {name} under {DEFAULT_RUNS} to resume: name its folder with --out")
        return found
    return default_folder(name)


def _differences(before: dict, now: dict) -> list[str]:
    out = []
    for key in sorted(set(before) | set(now)):
        if before.get(key) != now.get(key):
            if key == "engines":
                out += _engine_differences(before.get(key) or {}, now.get(key) or {})
            elif key in ("players", "conditions"):
                out.append(f"{key} differ")
            else:
                out.append(f"{key}: {before.get(key)!r} in the run, {now.get(key)!r} now")
    return out


def _engine_differences(before: dict, now: dict) -> list[str]:
    """What changed of each engine under its name: the run's engines must be the same ones."""
    out = []
    for name in sorted(set(before) | set(now)):
        old, new = before.get(name), now.get(name)
        if old is None or new is None:
            out.append(f"engine {name} {'is new' if old is None else 'is gone'}")
            continue
        for field in sorted(set(old) | set(new)):
            if old.get(field) != new.get(field):
                out.append(f"engine {name} changed its {field}: {old.get(field)!r} in the run, {new.get(field)!r} now")
    return out
