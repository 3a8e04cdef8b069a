"""Solving hypergammon needs the fast engine's kernels; reading the solution does not.

Reading is plain numpy: the file (``bgsim.bearoff.store``), GNU Backgammon's numbering
(``bgsim.hypergammon.number_of``), the values and the exact bots' decision table.  Computing the
values is not: value iteration over every state, 21 rolls and every play each sweep, 43 sweeps
for the 106,552 states of 2-checker hypergammon and more for the 8 million of 3 checkers --
seconds and about half an hour in the kernels of ``bgsim/fast/hypergammon.py``, far longer in
plain Python.  The plain recursion is kept as the source of truth the kernels are held to
(``bgsim.hypergammon.reference``: one step of it on the stored values gives them back, and it
solves 1-checker hypergammon on its own), and each file keeps the hash of the kernels that
computed it (``database.code_hash``).

So, as ``bgsim/bearoff/building.py`` for the bear-off tables, this is the solution's one way in
to the fast engine (``bgsim/fast_loader.py``): a solution not on disk yet is computed through
here, and where the fast engine cannot be loaded that is one line saying so; a solution
already built reads without it.
"""

from __future__ import annotations

from ..fast_loader import FastEngineError, load


def kernels():
    """``bgsim.fast.hypergammon``, the kernels that solve hypergammon."""
    try:
        return load("hypergammon", "building the hypergammon solution")
    except FastEngineError as error:
        raise FastEngineError(f"{error}; a solution already built reads without it") from None
