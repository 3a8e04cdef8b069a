"""Playing a run's chunks on Dask workers (the optional ``dask`` extra).

Workers get plain tasks (spec strings, a seed, game numbers) and call the same
:func:`experiments.running.plan.play_chunk` a local run calls, so the rows are the same.  Results
come back to this process, which writes every chunk to disk as soon as it arrives: a worker
or the scheduler going away loses only the chunks being played.

``--dask local`` or ``local:N`` starts a LocalCluster of N single-threaded worker processes
(default: one per core) on this machine; ``--dask tcp://HOST:PORT`` joins a running scheduler,
whose workers must have bgsim installed.
"""

from __future__ import annotations

import logging
import os

from experiments.errors import MissingDependency

CONNECT_TIMEOUT_S = 10
# A task whose worker died is handed to another worker this many times before the run stops.
ALLOWED_FAILURES = 3


def _import_distributed():
    try:
        import distributed  # noqa: F401
    except ImportError:
        raise MissingDependency("--dask needs the optional Dask extra: pip install 'bgsim[dask]'") from None
    return distributed


def parse_address(address: str) -> tuple[str, int | None]:
    """("local", workers) or ("remote", None); anything else is a ValueError naming the form."""
    text = address.strip()
    if text == "local" or text.startswith("local:"):
        count = text.partition(":")[2]
        if not count:
            return "local", None
        if not count.isdigit() or int(count) < 1:
            raise ValueError(f"--dask {address}: the number of local workers must be a positive whole number")
        return "local", int(count)
    if text.startswith(("tcp://", "tls://", "ws://", "wss://", "inproc://")):
        return "remote", None
    raise ValueError(f"--dask {address}: give local, local:N or a scheduler address such as tcp://HOST:8786")


def check_address(address: str) -> None:
    """Fail before a results folder is made: Dask missing or an address of no known form."""
    _import_distributed()
    parse_address(address)


class Cluster:
    """A connected client, and the LocalCluster behind it when this process started one."""

    def __init__(self, address: str, processes: bool = True, timeout: float | None = None) -> None:
        distributed = _import_distributed()
        timeout = CONNECT_TIMEOUT_S if timeout is None else timeout
        import dask

        kind, workers = parse_address(address)
        self.address = address
        self.cluster = None
        self.local_workers = None
        dask.config.set({"distributed.scheduler.allowed-failures": ALLOWED_FAILURES})
        try:
            if kind == "local":
                self.local_workers = workers or os.cpu_count() or 1
                self.cluster = distributed.LocalCluster(
                    n_workers=self.local_workers, threads_per_worker=1, processes=processes,
                    dashboard_address=None, silence_logs=logging.ERROR)
                self.client = distributed.Client(self.cluster, timeout=timeout)
            else:
                self.client = distributed.Client(address, timeout=timeout)
        except (OSError, TimeoutError) as error:
            self.close()
            raise OSError(f"cannot reach the Dask scheduler at {address} within {timeout:g} s "
                          f"({type(error).__name__}: {error})") from None

    def close(self) -> None:
        client, cluster = getattr(self, "client", None), self.cluster
        self.client = self.cluster = None
        try:
            if client is not None:
                client.close(timeout=5)
        except Exception:  # noqa: BLE001 - closing a broken connection must not hide the real error
            pass
        try:
            if cluster is not None:
                cluster.close(timeout=5)
        except Exception:  # noqa: BLE001
            pass


def run_on_dask(address: str, state, make_task, finished, make_player=None, processes: bool = True,
                timeout: float | None = None, task_function=None, cluster: Cluster | None = None) -> None:
    """Play every ready chunk of ``state`` on the cluster at ``address``; ``finished(task, rows)``
    is called here, in this process, for each chunk as it arrives.

    A ``cluster`` already connected by the caller is used and left open for the caller to close.
    """
    _import_distributed()
    from distributed import as_completed

    from experiments.errors import RunError
    from .plan import play_chunk

    function = task_function or play_chunk
    owned = cluster is None
    if owned:
        cluster = Cluster(address, processes=processes, timeout=timeout)
    futures = {}
    try:
        client = cluster.client
        pending = as_completed()

        def submit_ready() -> None:
            # A bounded queue: a billion-game run does not list its millions of chunks at once.
            room = max(4, 2 * len(client.scheduler_info().get("workers", {}))) - len(futures)
            for pairing, chunk in state.ready_tasks(limit=max(room, 0)):
                task = make_task(pairing, chunk)
                if cluster.local_workers and task["threads"] is None:
                    task["threads"] = 1  # one worker per core already: no threads on top
                future = client.submit(function, task, make_player, pure=False, retries=1,
                                       key=f"bgsim-chunk-{task['pairing']}-{task['chunk']}-{os.getpid()}-{id(state)}")
                state.mark_in_flight(pairing, chunk)
                futures[future] = task
                pending.add(future)

        submit_ready()
        for future in pending:
            task = futures.pop(future)
            try:
                rows = future.result()
            except (KeyboardInterrupt, OSError, ValueError, NotImplementedError):
                raise
            except Exception as error:  # noqa: BLE001 - a worker's death arrives as many types
                name = type(error).__name__
                if name in ("KilledWorker", "CommClosedError", "CancelledError", "FutureCancelledError"):
                    raise RunError(
                        f"Dask could not play chunk {task['chunk']} of pairing {task['pairing']}: {name} "
                        f"(workers kept dying or the scheduler went away); every finished chunk is kept: "
                        "finish with --resume") from None
                raise
            finished(task, rows)
            del rows
            submit_ready()
    finally:
        for future in list(futures):
            future.cancel()
        if owned:
            cluster.close()
