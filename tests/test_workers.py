"""Worker processes (``experiments/running/workers.py``) run parallel kernels after the parent ran
one, in a plain pool and in ``bgsim validate``'s.
"""

from __future__ import annotations

from experiments import cli


def play_fast_games(count: int) -> int:
    """In a worker: a parallel kernel (the fast engine on two threads)."""
    from bgsim.series import play_games
    from bots import make_player

    frame = play_games(make_player("random"), make_player("random"), 1, count, engine="fast", threads=2)
    return len(frame)


def test_worker_processes_run_parallel_kernels_after_the_parent_ran_one():
    from experiments.running.workers import worker_pool

    assert play_fast_games(8) == 8  # the parent's OpenMP (or other) thread pool is now up
    with worker_pool(2) as pool:
        assert pool is not None
        assert [future.result(timeout=600) for future in [pool.submit(play_fast_games, 4) for _ in range(2)]] == [4, 4]


def test_validate_with_two_workers_after_a_parallel_kernel_ran(capsys, monkeypatch):
    from experiments.running import workers
    from experiments.studies import validation

    pools = []

    def recorded(count):
        pools.append(count)
        return workers.worker_pool(count)

    monkeypatch.setattr(validation, "worker_pool", recorded)  # the safe pool, the test above's
    assert play_fast_games(8) == 8
    assert cli.main(["validate", "--players", "random+pipdiff", "heuristic+pipdiff", "--games", "4",
                     "--positions", "0", "--threads", "2"]) == 0
    out = capsys.readouterr().out
    assert "validated:" in out and "no difference" in out
    assert pools == [2]
