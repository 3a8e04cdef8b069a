"""Database files: where they are kept, what their header says, and when they are stale.

Like GNU Backgammon's bear-off files, a file says what it holds.  It starts with a 4,096-byte
header block: the line ``bgsim-bearoff`` then one line of JSON --

* ``format``: the layout version of this file (``FORMAT``);
* ``kind`` (``one-sided`` or ``two-sided``), ``points`` (6), ``checkers`` (the most per side),
  ``cubeful`` (whether it holds cube equities);
* ``code``: the SHA-256 of ``bgsim/fast/bearoff.py`` and ``bgsim/bearoff_numbering.py``, the
  kernels that computed the numbers and the numbering they share;
* ``arrays``: name, dtype, shape and byte offset of each table after the header block;
* ``crc32``: a checksum of everything after the header block.

A file whose header does not match what the reader asks for, whose code hash is not the
running code's, or whose checksum fails is stale: it is rebuilt and replaced.  The file name
carries the code hash too (``file_name``), so other code's files are left alone.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
import zlib
from pathlib import Path

import numpy as np

from .. import settings

FORMAT = 1
MAGIC = b"bgsim-bearoff\n"
HEADER_BYTES = 4096


class StaleDatabase(ValueError):
    """A database file that is missing, damaged, or not the one asked for."""


def cache_dir() -> Path:
    """``$BGSIM_CACHE`` if set, else the platform's user cache folder + ``bgsim``."""
    chosen = settings.CACHE.text()
    if chosen:
        return Path(chosen).expanduser()
    home = Path.home()
    if sys.platform == "win32":
        base = settings.LOCALAPPDATA.text()
        return (Path(base) if base else home / "AppData" / "Local") / "bgsim" / "Cache"
    if sys.platform == "darwin":
        return home / "Library" / "Caches" / "bgsim"
    base = settings.XDG_CACHE_HOME.text()
    return (Path(base) if base else home / ".cache") / "bgsim"


def code_hash() -> str:
    """The hash of the kernels that compute the tables: a file built by other code is stale."""
    here = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for source in (here.parent / "fast" / "bearoff.py", here.parent / "bearoff_numbering.py"):
        digest.update(source.read_bytes())
    return digest.hexdigest()


def file_name(kind: str, checkers: int) -> str:
    """The file of a database built by the running code.  Its code hash is in the name: two
    checkouts of different code sharing one cache folder (a branch and main) each keep their
    own file, instead of each finding the other's stale and rebuilding it in turn."""
    return f"bearoff-{kind}-6x{checkers}-{code_hash()[:12]}.bin"


def expected_header(kind: str, checkers: int, cubeful: bool) -> dict:
    return {
        "format": FORMAT, "kind": kind, "points": 6, "checkers": checkers,
        "cubeful": cubeful, "code": code_hash(),
    }


def write(path: Path, header: dict, arrays: dict[str, np.ndarray]) -> None:
    """Write atomically: a reader never sees half a file, and two builders do not collide."""
    layout = []
    offset = 0
    crc = 0
    blobs = []
    for name, array in arrays.items():
        # written from the array's own memory: a copy of a 300 MB table would double the peak
        blob = memoryview(np.ascontiguousarray(array)).cast("B")
        layout.append({"name": name, "dtype": array.dtype.str, "shape": list(array.shape), "offset": offset})
        offset += len(blob)
        crc = zlib.crc32(blob, crc)
        blobs.append(blob)
    text = json.dumps(dict(header, arrays=layout, data_bytes=offset, crc32=crc)).encode()
    block = MAGIC + text + b"\n"
    if len(block) > HEADER_BYTES:
        raise ValueError("bear-off header too long")
    block += b" " * (HEADER_BYTES - len(block))
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".part")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(block)
            for blob in blobs:
                out.write(blob)
        os.chmod(temporary, 0o644)  # mkstemp makes it private; the cache is shared like any other
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def has_header(path: Path, wanted: dict) -> bool:
    """Whether ``path`` starts with a header matching ``wanted`` (its header alone is read: a
    quick look, not the checksum of :func:`read`)."""
    try:
        with open(path, "rb") as handle:
            block = handle.read(HEADER_BYTES)
        header = json.loads(block[len(MAGIC):].split(b"\n", 1)[0]) if block.startswith(MAGIC) else {}
    except (OSError, ValueError):
        return False
    return all(header.get(key) == value for key, value in wanted.items())


def read(path: Path, wanted: dict) -> dict[str, np.ndarray]:
    """The tables of a file whose header matches ``wanted``; StaleDatabase otherwise (a missing
    file, or a cache folder that is not a folder, is one to build)."""
    try:
        data = path.read_bytes()
    except (FileNotFoundError, NotADirectoryError):
        raise StaleDatabase(f"{path} does not exist") from None
    if not data.startswith(MAGIC) or len(data) < HEADER_BYTES:
        raise StaleDatabase(f"{path} is not a bgsim bear-off database")
    try:
        header = json.loads(data[len(MAGIC):HEADER_BYTES].split(b"\n", 1)[0])
    except ValueError:
        raise StaleDatabase(f"{path} has an unreadable header") from None
    for key, value in wanted.items():
        if header.get(key) != value:
            raise StaleDatabase(f"{path} holds {key}={header.get(key)!r}, wanted {value!r}")
    body = memoryview(data)[HEADER_BYTES:]
    if len(body) != header.get("data_bytes") or zlib.crc32(body) != header.get("crc32"):
        raise StaleDatabase(f"{path} is truncated or damaged")
    arrays = {}
    for entry in header["arrays"]:
        dtype = np.dtype(entry["dtype"])
        count = int(np.prod(entry["shape"]))
        arrays[entry["name"]] = np.frombuffer(body, dtype=dtype, count=count, offset=entry["offset"]).reshape(entry["shape"])
    return arrays
