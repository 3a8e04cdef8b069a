"""Building the bear-off tables needs the fast engine's kernels; reading them does not.

Reading is plain numpy: the files (``store.py``), the numbering (``bgsim/bearoff_numbering.py``),
the evaluations, the perfect bear-off player and the match tables' lookups.  Computing the numbers
is not: the one-sided database minimises 54,264 positions' expected rolls over every roll and
play, the two-sided one of 8 checkers solves 9 million pairs under three cube states, and a
match score's tables every cube level of those again -- seconds in the kernels of
``bgsim/fast/bearoff.py``, hours in plain Python.  A second, plain implementation of the same
numbers would be a second source of truth that no reader needs: the tables are data, checked
against GNU Backgammon's (``tests/test_bearoff.py::test_agrees_with_gnubg``), and each file
keeps the hash of the code that computed it (``store.code_hash``).

So this is the reference's one way in to the fast engine (``bgsim/fast_loader.py``): a table
that is not on disk yet, or a score's match tables, is computed here, and where the fast engine
cannot be loaded that is one line saying so; a table already built reads without it.
"""

from __future__ import annotations

from ..fast_loader import FastEngineError, load


def kernels(what: str = "the bear-off tables"):
    """``bgsim.fast.bearoff``, the kernels that compute ``what`` (for the message)."""
    try:
        return load("bearoff", f"building {what}")
    except FastEngineError as error:
        raise FastEngineError(f"{error}; tables already built read without it") from None
