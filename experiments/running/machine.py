"""What this machine can do for a command: how many threads, and whether the fast engine is
compiled yet (so that a silent first-use compile is announced instead of looking like a hang)."""

from __future__ import annotations

from pathlib import Path


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
    kernel in memory, none cached).  A player with the ``exact`` cube bot plays on its own family
    of kernels (``bgsim.fast.with_exact``), compiled the first time one is used."""
    from bgsim.fast import chouette as sessions
    from bgsim.fast import game

    exact = any(getattr(getattr(player, "cube", None), "fast_name", "") == "exact" for player in players)
    if chouette:
        module = "chouette"
        batch, name = ((sessions.play_session_with_exact, "play_chouette_session_with_exact") if exact
                       else (sessions.play_session, "play_session"))
    elif exact:
        from bgsim.fast import with_exact

        module, batch, name = "game", with_exact.play_batch, "play_batch_with_exact"
    else:
        module, batch, name = "game", game.play_batch, "play_batch"
    if batch.signatures:
        return False
    cache = Path(game.__file__).resolve().parent / "__pycache__"
    return not any(cache.glob(f"{module}.{name}-*.nbi"))


COMPILING = "compiling the fast engine (first use, ~20 s)"
