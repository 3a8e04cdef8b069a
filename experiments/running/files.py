"""Files written whole or not at all, with the same permissions, and errors that say what to do.

Every file bgsim writes (chunk files, ``games.parquet``, ``run.json``, summaries, plots) goes
through :func:`write_atomic`, and the rows ``bgsim play`` streams through :class:`RowFile`: it is
written under a temporary name beside its target, flushed to disk, then renamed, so a file that
exists is whole.  The temporary name
is fixed (``.NAME.tmp``), not a ``mkstemp`` name, so that leftovers of a killed run are easy to
recognise and every file gets the usual mode (0666 less the umask, 0644 by default) instead of
``mkstemp``'s 0600.
"""

from __future__ import annotations

import errno
import json
import os
import signal
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd

from bgsim import settings

from experiments.errors import WriteError

# What a user can do about a failed write, by errno; anything else gets its own text only.
_REMEDIES = {
    errno.ENOSPC: "the disk is full: make room",
    errno.EDQUOT: "the disk quota is used up: make room",
    errno.EROFS: "the file system is read-only: choose a writable folder",
    errno.EACCES: "no permission to write there: choose a folder you can write to",
    errno.EPERM: "no permission to write there: choose a folder you can write to",
}


def temporary_name(path: Path) -> Path:
    return path.with_name("." + path.name + ".tmp")


def is_temporary(path: Path) -> bool:
    return path.name.startswith(".") and path.name.endswith(".tmp")


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


def write_json(data: dict, path: Path) -> None:
    write_text(json.dumps(data, indent=2, default=_json_default) + "\n", path)


def _json_default(value):
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    raise TypeError(f"cannot write {type(value).__name__} to JSON")


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
