"""The compile options of every kernel, in one place.

No fastmath: the fast engine must reproduce the reference engine's float64 arithmetic bit for
bit (same operations, same order), or an evaluation bot could break a tie differently.
``error_model="numpy"`` only drops Python's division-by-zero checks, which no kernel relies on.
"""

from __future__ import annotations

import numba

OPTIONS = dict(cache=True, nogil=True, error_model="numpy", boundscheck=False)

jit = numba.njit(**OPTIONS)
parallel_jit = numba.njit(parallel=True, **OPTIONS)
