"""Worker processes that are safe to start whatever this process has already run.

A process that has run a parallel Numba kernel holds a GNU OpenMP thread pool, and a child
forked from it dies the moment it runs one too ("fork() called from a process already using GNU
OpenMP"); the fast engine, the bear-off builders and the match tables are such kernels.  So
every command that starts worker processes (``bgsim validate``, ``bgsim cross-check``) gets them
here, started fresh (``spawn``): each imports what it needs and reads the environment as it is
now, so nothing of the parent's threads or caches is shared.

Workers ignore Ctrl-C, which the terminal sends to the whole process group: the parent alone
stops, ends the workers at once (they hold no results) and exits 130, instead of waiting for
every task in flight and printing a traceback from each worker.
"""

from __future__ import annotations

import multiprocessing
import signal
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager

START_METHOD = "spawn"


def _ignore_interrupt() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@contextmanager
def worker_pool(workers: int):
    """A pool of ``workers`` fresh processes (None for one: the work runs here), capped to the
    machine's cores; stopped at once on an error or Ctrl-C."""
    from .machine import thread_limit

    workers = min(int(workers), thread_limit())
    if workers <= 1:
        yield None
        return
    pool = fresh_pool(workers)
    try:
        yield pool
    except BaseException:
        stop(pool)
        raise
    pool.shutdown()


def fresh_pool(workers: int) -> ProcessPoolExecutor:
    """``workers`` processes started fresh, which leave Ctrl-C to this one; the caller shuts
    them down (:func:`worker_pool` does, and stops them on an error)."""
    return ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context(START_METHOD),
                               initializer=_ignore_interrupt)


def stop(pool: ProcessPoolExecutor) -> None:
    """End the workers now, tasks in flight and queued alike."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        if process.is_alive():
            process.terminate()
    for process in processes:
        process.join(timeout=5)
