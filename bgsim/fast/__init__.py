"""The Numba engine (see issue: the fast engine)."""
