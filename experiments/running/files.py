"""Files written whole or not at all, with the same permissions, by one writer at a time, and
errors that say what to do.

Every file bgsim writes (chunk files, ``games.parquet``, ``run.json``, summaries, plots) goes
through :func:`write_atomic`, and the rows ``bgsim play`` streams through :class:`RowFile`: it is
written under a temporary name beside its target, flushed to disk, then renamed, so a file that
exists is whole.  The temporary name is the writer's own (``.NAME.PID.tmp``), so two writers
never share one, and it is not a ``mkstemp`` name, so that leftovers of a killed run are easy to
recognise and every file gets the usual mode (0666 less the umask, 0644 by default) instead of
``mkstemp``'s 0600.

Every command that writes an output file takes it through one path, :func:`claimed_files`: the
names are checked first (:func:`check_new_file`: a folder, a missing folder above it, the wrong
suffix, a file there without ``--force``, two outputs of one command on one name), then claimed,
then checked again under the claim, and only then written (``bgsim play``, its ``--record``
files, ``chouette``, ``import``, ``export``, ``analyse``).

An output that takes a while to write (the file ``bgsim play`` streams to, a run's results
folder) is *claimed* first (:func:`claim`): a file ``.NAME.claim`` beside it names the process
writing it.  A second writer finds the claim and stops with one line before it changes anything;
a claim whose process is gone (killed, the machine restarted) is stale and taken over, with the
dead writer's temporary files.
"""

from __future__ import annotations

import errno
import json
import os
import signal
import socket
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd

from bgsim import settings

from experiments.errors import InUse, WriteError

# What a user can do about a failed write, by errno; anything else gets its own text only.
_REMEDIES = {
    errno.ENOSPC: "the disk is full: make room",
    errno.EDQUOT: "the disk quota is used up: make room",
    errno.EROFS: "the file system is read-only: choose a writable folder",
    errno.EACCES: "no permission to write there: choose a folder you can write to",
    errno.EPERM: "no permission to write there: choose a folder you can write to",
}


def temporary_name(path: Path, pid: int | None = None) -> Path:
    """This process's temporary name for ``path`` (``pid``'s, when given)."""
    return path.with_name(f".{path.name}.{os.getpid() if pid is None else pid}.tmp")


def is_temporary(path: Path) -> bool:
    """A temporary file of a write, or a claim: nothing a finished run leaves."""
    return path.name.startswith(".") and path.name.endswith((".tmp", CLAIM_SUFFIX))


def reason(error: OSError, then: str = "and run again") -> str:
    """Why a write failed and what to do: 'No space left on device; the disk is full: make room
    and run again' (``then`` says how to go on once the cause is gone)."""
    text = error.strerror or str(error)
    remedy = _REMEDIES.get(error.errno)
    return f"{text}; {remedy} {then}" if remedy else f"{text}; fix that {then}"


def explain(error: OSError, path: Path, then: str = "and run again") -> WriteError:
    """One line: which file, why, and what to do (``then`` says how to go on afterwards)."""
    if isinstance(error, WriteError):
        return error
    return WriteError(error.errno, f"cannot write {path}: {reason(error, then)}")


def write_atomic(path: Path, write: Callable[[Path], None], sync: bool = True) -> None:
    """Call ``write(temporary)`` and rename the temporary file to ``path``.

    ``sync`` flushes the data to disk before the rename, so that after a power cut the name
    never points at a file whose blocks were not yet written.
    """
    path = Path(path)
    temporary = temporary_name(path)
    try:
        write(temporary)
        if sync:
            with open(temporary, "rb") as handle:
                os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


class RowFile:
    """The output Parquet file, appended to batch by batch under a temporary name and renamed
    into place when closed, so the file a user sees is always whole."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.temporary = temporary_name(path)
        self.writer = None
        self.rows = 0

    def append(self, frame: pd.DataFrame) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        try:
            table = pa.Table.from_pandas(frame, preserve_index=False)
            if self.writer is None:
                self.writer = pq.ParquetWriter(self.temporary, table.schema)
            self.writer.write_table(table.cast(self.writer.schema))
        except OSError as error:
            self.discard()
            raise explain(error, self.path) from None
        self.rows += len(frame)

    def close(self) -> None:
        """Close the file and give it its name (when any row was written)."""
        if self.writer is None:
            return
        try:
            self.writer.close()
            self.writer = None
            with open(self.temporary, "rb") as handle:  # on disk before it has its name
                os.fsync(handle.fileno())
            self.temporary.replace(self.path)
        except OSError as error:
            self.discard()
            raise explain(error, self.path) from None

    def discard(self) -> None:
        if self.writer is not None:
            try:
                self.writer.close()
            except OSError:
                pass
            self.writer = None
        if is_temporary(self.temporary):
            self.temporary.unlink(missing_ok=True)


def write_table(frame: pd.DataFrame, path: Path) -> None:
    """``frame`` as Parquet at ``path``, whole or not at all."""
    write_atomic(path, lambda temporary: frame.to_parquet(temporary, index=False))


def write_text(text: str, path: Path) -> None:
    write_atomic(path, lambda temporary: temporary.write_text(text, encoding="utf-8"), sync=False)


def write_npz(path: Path, arrays: dict, compressed: bool = False) -> None:
    """numpy's ``arrays`` as an .npz at ``path``, whole or not at all (:func:`write_atomic`)."""
    import numpy as np

    save = np.savez_compressed if compressed else np.savez

    def write(temporary: Path) -> None:
        with open(temporary, "wb") as handle:  # a handle: np.savez would add ".npz" to a name
            save(handle, **arrays)

    write_atomic(path, write)


def write_json(data: dict, path: Path) -> None:
    write_text(json.dumps(data, indent=2, default=_json_default) + "\n", path)


def _json_default(value):
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    raise TypeError(f"cannot write {type(value).__name__} to JSON")


# --- claims -------------------------------------------------------------------------------------

CLAIM_SUFFIX = ".claim"


def claim_name(target: Path) -> Path:
    return Path(target).with_name(f".{Path(target).name}{CLAIM_SUFFIX}")


def _start_time(pid: int) -> str | None:
    """When process ``pid`` started (Linux: clock ticks since boot), to tell it from a later
    process given the same number; None where that cannot be read."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text.rsplit(")", 1)[1].split()[19]  # field 22, counted after the command name


def _me() -> dict:
    return {"pid": os.getpid(), "host": socket.gethostname(), "started": _start_time(os.getpid())}


def _alive(holder: dict) -> bool | None:
    """Whether the process of a claim still runs: None when it cannot be told (another host)."""
    if holder.get("host") != socket.gethostname():
        return None
    pid = holder.get("pid")
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: alive
        pass
    started = _start_time(pid)
    return started is None or holder.get("started") in (None, started)


def _read_claim(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        return {}  # half-written by a writer killed at that instant: stale


@contextmanager
def claim(target: Path, what: str = "output"):
    """Hold ``target`` (a file or a folder) for this process while the block runs.

    Another live process's claim is an :class:`~experiments.errors.InUse` error naming it; a
    dead process's is taken over (its temporary files beside ``target`` removed); this process's
    own (a claim inside a claim) is simply held on.  The parent folder must exist.
    """
    target = Path(target)
    path = claim_name(target)
    mine = _me()
    text = json.dumps(mine)
    for _ in range(5):
        try:
            handle = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            holder = _read_claim(path)
            if holder is None:
                continue  # released in between: try again
            if holder == mine:
                yield  # already ours: the outer claim releases it
                return
            alive = _alive(holder) if holder else False
            if alive is None:
                raise InUse(f"{target} is claimed by process {holder.get('pid')} on {holder.get('host')}, "
                            f"which this machine cannot see: if that run is gone, remove {path}")
            if alive:
                raise InUse(f"{target} is in use: another bgsim (process {holder['pid']}) is writing this "
                            f"{what}; wait for it to finish, or choose another --out")
            _take_over(path, holder, target)
            continue
        except OSError as error:
            raise explain(error, target) from None  # the output the user named, not the claim
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        break
    else:  # pragma: no cover - five claims taken and released under our feet
        raise InUse(f"{target} is in use: its claim {path} keeps changing; try again")
    try:
        yield
    finally:
        if _read_claim(path) == mine:
            path.unlink(missing_ok=True)


def check_new_file(path: Path, force: bool, suffix: str | None = None, flag: str = "--out",
                   replaces: str = "overwrite it") -> None:
    """One line (a ValueError) for an output file that may not be written: a folder, the wrong
    ``suffix``, a folder above it that does not exist, or a file already there without ``force``
    (``replaces`` says what ``--force`` would do); checked in that order, so that the line names
    what is wrong whatever ``--force`` says."""
    path = Path(path)
    if path.is_dir():
        raise ValueError(f"{flag} {path} is a folder: name a file")
    if suffix is not None and path.suffix != suffix:
        what = "the rows are written as Parquet; " if suffix == ".parquet" else ""
        raise ValueError(f"{flag} {path}: {what}name the file *{suffix}")
    if not path.parent.exists():
        raise ValueError(f"{flag} {path}: the folder {path.parent} does not exist")
    if path.exists() and not force:
        raise ValueError(f"{path} exists; pass --force to {replaces}")


@contextmanager
def claimed_files(paths, force: bool, what: str = "output file", suffix: str | None = None, flag: str = "--out",
                  replaces: str = "overwrite it"):
    """Hold every output file of ``paths`` for this process while the block writes them: each
    checked (:func:`check_new_file`), claimed (:func:`claim`: a second command writing one of
    them stops with one line, before anything is changed), and checked again under the claim
    (another writer may have finished it meanwhile).  Two of ``paths`` on one file are refused."""
    paths = [Path(path) for path in paths]
    seen: dict[Path, Path] = {}
    for path in paths:
        key = path.resolve()
        if key in seen:
            raise ValueError(f"{seen[key]} and {path} are one file: give each output its own name")
        seen[key] = path
    for path in paths:
        check_new_file(path, force, suffix, flag, replaces)
    with ExitStack() as stack:
        for path in paths:
            stack.enter_context(claim(path, what))
        for path in paths:
            check_new_file(path, force, suffix, flag, replaces)
        yield paths


def _take_over(path: Path, holder: dict, target: Path) -> None:
    """Remove a dead writer's claim, and its temporary files beside ``target``.  The claim is
    moved aside first and checked: if another process took it over in the meantime, it is put back."""
    aside = path.with_name(f"{path.name}.{os.getpid()}.stale")
    try:
        os.replace(path, aside)
    except FileNotFoundError:
        return
    if _read_claim(aside) != holder and _read_claim(aside) != {}:
        try:
            os.link(aside, path)  # a live claim moved by mistake: back, unless one is there again
        except OSError:
            pass
    aside.unlink(missing_ok=True)
    pid = holder.get("pid")
    if isinstance(pid, int):
        temporary_name(target, pid).unlink(missing_ok=True)


def stop_hook(written: int) -> None:
    """Send this process the signal ``BGSIM_STOP_AFTER=K[:SIGNAL]`` asks for (default SIGINT)
    once ``written`` reaches K: tests interrupt a run at a known point instead of racing it."""
    wanted = settings.STOP_AFTER.text()
    if not wanted:
        return
    count, _, name = wanted.partition(":")
    if written == int(count):
        sent = getattr(signal, name or "SIGINT")
        if sent == signal.SIGINT and signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
            # a process started in the background by a non-interactive shell ignores SIGINT
            # from birth (POSIX), and Python then keeps ignoring it: a test would never stop
            signal.signal(signal.SIGINT, signal.default_int_handler)
        os.kill(os.getpid(), sent)
