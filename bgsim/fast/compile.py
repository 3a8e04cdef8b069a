"""The compile options of every kernel, in one place, and a guard against stale caches.

No fastmath: the fast engine must reproduce the reference engine's float64 arithmetic bit for
bit (same operations, same order), or an evaluation bot could break a tie differently.
``error_model="numpy"`` only drops Python's division-by-zero checks, which no kernel relies on.

Numba's on-disk cache checks only the source file of the function it caches, not the files of
the functions it calls, nor the values of the globals it froze in: after an edit of ``moves.py``
a cached ``game.py`` kernel would still run the old move generator, and after an edit of
``bgsim/layouts.py`` it would still read the old parameter positions.  So the cache files of
this package are dropped whenever any of these sources changed (``source_stamp``, kept beside
the cache); the generated dispatch carries the stamp in its file name (``bgsim.fast.dispatch``).
"""

from __future__ import annotations

import hashlib
import types
from functools import lru_cache
from pathlib import Path

import numba

OPTIONS = dict(cache=True, nogil=True, error_model="numpy", boundscheck=False)

jit = numba.njit(**OPTIONS)
parallel_jit = numba.njit(parallel=True, **OPTIONS)
# For small helpers in hot loops.  Numba calls another compiled function with each array
# exploded into many arguments plus reference counting; inlining at Numba IR level avoids that.
inline_jit = numba.njit(inline="always", **OPTIONS)


def rebind(dispatcher, qualname: str | None = None, **names):
    """The Python function of ``dispatcher`` with some of its globals replaced: another family of
    kernels from the same source (``bgsim.fast.custom``, ``bgsim.fast.with_exact``).  A new
    ``qualname`` gives the family its own entries in Numba's disk cache, which keys a function
    by its source file and qualified name: two families under one name would load each other's
    machine code."""
    function = dispatcher.py_func
    scope = dict(function.__globals__)
    scope.update(names)
    rebound = types.FunctionType(function.__code__, scope, function.__name__, function.__defaults__,
                                 function.__closure__)
    if qualname is not None:
        rebound.__qualname__ = qualname
    return rebound


@lru_cache(maxsize=None)
def source_stamp() -> str:
    """A hash of every source the kernels are compiled from: this package and the layouts."""
    here = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for source in sorted(here.glob("*.py")) + [here.parent / "layouts.py"]:
        digest.update(source.name.encode())
        digest.update(source.read_bytes())
    return digest.hexdigest()


def _drop_stale_cache() -> None:
    here = Path(__file__).resolve().parent
    stamp = source_stamp()
    cache = here / "__pycache__"
    marker = cache / "numba-sources.sha256"
    try:
        if marker.exists() and marker.read_text() == stamp:
            return
        cache.mkdir(exist_ok=True)
        for stale in list(cache.glob("*.nbi")) + list(cache.glob("*.nbc")):
            stale.unlink(missing_ok=True)
        marker.write_text(stamp)
    except OSError:
        pass  # a read-only install: Numba then caches elsewhere, keyed on the installed files


_drop_stale_cache()
