"""What this machine can do for a command: how many threads, and whether the fast engine is
compiled yet (so that a silent first-use compile is announced instead of looking like a hang)."""

from __future__ import annotations


def thread_limit() -> int:
    """The most threads the fast engine can run here (Numba's limit, normally the core count)."""
    import numba

    return int(numba.config.NUMBA_NUM_THREADS)


def cap_threads(requested: int | None, log) -> int | None:
    """``requested`` threads, lowered to :func:`thread_limit` with a note when it asks for more."""
    if requested is None:
        return None
    limit = thread_limit()
    if requested > limit:
        log(f"--threads {requested}: this machine runs at most {limit} threads; using {limit}")
        return limit
    return requested


def fast_compile_pending(players=(), chouette: bool = False) -> bool:
    """Whether the first fast game (of a chouette, with ``chouette``) will compile the engine (no
    kernel in memory, none cached): the family of the game loop those players play on here
    (``bgsim/fast/families.py``; ``bgsim.fast.compiled_for``)."""
    import bgsim.fast as fast

    return not fast.compiled_for(players, chouette=chouette)


COMPILING = "compiling the fast engine"


def compiling_message(players=(), chouette: bool = False) -> str:
    """What a run says before the first fast game compiles: for which bots, and about how long
    (``bgsim.fast.families.compile_seconds``, measured by ``bgsim bench --profile``)."""
    import bgsim.fast as fast
    from bgsim import layouts
    from bgsim.fast.families import compile_seconds

    planned = fast.compiling_only_for()
    if planned is not None and not chouette:
        bots = fast.layouts_of(players) + planned
        what = " for " + ", ".join(sorted({bot.name for bot in bots if bot is not layouts.NO_CUBE} or {"none"}))
    else:
        bots = None  # every bot's kernels
        what = " for every bot" + (" (chouette)" if chouette else "")
    return f"{COMPILING}{what} (first use, ~{compile_seconds(bots, chouette):.0f} s)"
