"""Dask: the same rows as a local run, a dead worker's chunk played again, clear errors."""

import os
import sys
from pathlib import Path

import pandas as pd
import pytest

from experiments import cli
from experiments.errors import RunError
from experiments.running import dask_backend
from experiments.running.config import experiment_from_mapping
from experiments.running.plan import play_chunk
from experiments.studies.experiment import run_experiment

PLAYERS = ["heuristic+pipdiff", "heuristic+keith", "heuristic+never-take"]


def tiny(**changes):
    data = {"players": PLAYERS, "games": 4, "chunk": 2, "seed": 7, "engine": "reference"}
    data.update(changes)
    return experiment_from_mapping(data, "tiny.toml", "tiny")


def run(folder, **options):
    return run_experiment(tiny(), folder, progress=False, log=lambda text: None, **options)


@pytest.fixture(scope="module")
def local_rows(tmp_path_factory):
    return run(tmp_path_factory.mktemp("local") / "run").frame


def test_a_local_cluster_plays_the_same_rows(tmp_path, local_rows):
    result = run(tmp_path / "run", dask="local:2", dask_options={"processes": False})
    pd.testing.assert_frame_equal(result.frame, local_rows)
    assert (tmp_path / "run" / "run.json").read_text().count('"dask": "local:2"') >= 1


def dying_once(marker: str):
    """A chunk player whose worker process dies the first time it meets pairing 1, chunk 0."""

    def play(task, make_player=None):
        if task["pairing"] == 1 and task["chunk"] == 0 and not os.path.exists(marker):
            open(marker, "w").close()
            os._exit(1)
        return play_chunk(task, make_player)

    return play


def dying_on_pairing(pairing: int):
    """A chunk player whose worker process dies on every chunk of one pairing."""

    def play(task, make_player=None):
        if task["pairing"] == pairing:
            os._exit(1)
        return play_chunk(task, make_player)

    return play


def test_a_worker_that_dies_mid_run_has_its_chunk_played_again(tmp_path, local_rows):
    marker = tmp_path / "died"
    result = run(tmp_path / "run", dask="local:2",
                 dask_options={"task_function": dying_once(str(marker))})
    assert marker.exists()  # a worker process really did die
    pd.testing.assert_frame_equal(result.frame, local_rows)


def test_workers_that_keep_dying_stop_the_run_with_every_finished_chunk_kept(tmp_path, monkeypatch, local_rows):
    monkeypatch.setattr(dask_backend, "ALLOWED_FAILURES", 0)
    out = tmp_path / "run"
    # (Tasks queued on the dying worker die with it, so which pairing is named can vary.)
    with pytest.raises(RunError, match="Dask could not play chunk .*KilledWorker.*every finished chunk is kept.*--resume"):
        run(out, dask="local:2", dask_options={"task_function": dying_on_pairing(2)})
    kept = {path.name for path in (out / "chunks").glob("*.parquet")}
    assert not any(name.startswith("pairing-002") for name in kept)
    resumed = run(out, resume=True)
    pd.testing.assert_frame_equal(resumed.frame, local_rows)
    assert resumed.played == len(local_rows) - 4 * len(kept)  # kept chunks were not replayed


def _toml(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.toml"
    players = ", ".join(f'"{p}"' for p in PLAYERS)
    path.write_text(f'players = [{players}]\ngames = 2\nengine = "reference"\n', encoding="utf-8")
    return path


def test_an_unreachable_scheduler_is_one_clear_error(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(dask_backend, "CONNECT_TIMEOUT_S", 1)
    code = cli.main(["run", str(_toml(tmp_path)), "--out", str(tmp_path / "run"), "--no-progress",
                     "--dask", "tcp://127.0.0.1:1"])
    assert code == 2
    error = capsys.readouterr().err.strip().splitlines()
    assert error[-1].startswith("bgsim: error: cannot reach the Dask scheduler at tcp://127.0.0.1:1 within 1 s")
    assert not (tmp_path / "run").exists()  # nothing half-made to trip over a rerun


def test_dask_addresses_are_checked_before_anything_is_written(tmp_path, capsys):
    code = cli.main(["run", str(_toml(tmp_path)), "--out", str(tmp_path / "run"), "--no-progress",
                     "--dask", "local:zero"])
    assert code == 2
    assert "--dask local:zero: the number of local workers" in capsys.readouterr().err
    assert not (tmp_path / "run").exists()
    with pytest.raises(ValueError, match="give local, local:N or a scheduler address"):
        dask_backend.parse_address("myhost:8786")
    with pytest.raises(ValueError, match="positive whole number"):
        dask_backend.parse_address("local:0")
    assert dask_backend.parse_address("local:3") == ("local", 3)
    assert dask_backend.parse_address("tcp://10.0.0.1:8786") == ("remote", None)


def test_without_the_dask_extra_the_error_says_how_to_install_it(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed now fails
    code = cli.main(["run", str(_toml(tmp_path)), "--out", str(tmp_path / "run"), "--no-progress",
                     "--dask", "local"])
    assert code == 2
    assert capsys.readouterr().err.strip() == "bgsim: error: --dask needs the optional Dask extra: pip install 'bgsim[dask]'"
    assert not (tmp_path / "run").exists()
