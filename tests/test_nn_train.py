"""bgsim train: a short run is reproducible from its seed, and a resumed run ends the same."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("gnubg_nn")

from experiments.training import train as training  # noqa: E402
from experiments.training.train import Settings, Trainer  # noqa: E402

TINY = Settings(seed=4, rounds=2, positions=1500, samples=3072, hidden=8, batch=256,
                duel_deals=20, checkpoint_steps=5)


def _arrays(net):
    return [array.copy() for array in net.arrays()]


def test_a_short_run_is_reproducible(tmp_path):
    first, _ = Trainer(TINY, tmp_path / "a", log=lambda _: None).run()
    second, _ = Trainer(TINY, tmp_path / "b", log=lambda _: None).run()
    for x, y in zip(_arrays(first), _arrays(second)):
        assert np.array_equal(x, y)
    curve = (tmp_path / "a" / "curve.csv").read_text().splitlines()
    assert curve[0].startswith("round,positions") and len(curve) == 3
    other, _ = Trainer(Settings(**{**TINY.__dict__, "seed": 5}), tmp_path / "c", log=lambda _: None).run()
    assert not np.array_equal(other.tables, first.tables)


def test_a_resumed_run_ends_with_the_same_net(tmp_path, monkeypatch):
    whole, _ = Trainer(TINY, tmp_path / "whole", log=lambda _: None).run()
    real = training.duel_points
    calls = []

    def crash_in_round_one(net, seed, deals):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(net, seed, deals)

    monkeypatch.setattr(training, "duel_points", crash_in_round_one)
    with pytest.raises(KeyboardInterrupt):
        Trainer(TINY, tmp_path / "split", log=lambda _: None).run()
    monkeypatch.setattr(training, "duel_points", real)
    resumed, _ = Trainer(TINY, tmp_path / "split", log=lambda _: None).run(resume=True)
    for x, y in zip(_arrays(whole), _arrays(resumed)):
        assert np.array_equal(x, y)
