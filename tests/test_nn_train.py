"""bgsim train: a short run is reproducible from its seed, and a resumed run ends the same."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("gnubg_nn")

from experiments.studies.training import train as training  # noqa: E402
from experiments.studies.training.train import Settings, Trainer  # noqa: E402

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


def test_the_train_command_writes_a_net_that_plays(tmp_path, capsys):
    from bgsim.series import play_games
    from bots import make_player
    from bots.nn import load_net
    from experiments.cli import main

    out = tmp_path / "tiny.npz"
    code = main(["train", "--rounds", "1", "--positions", "800", "--samples", "512", "--hidden", "4",
                 "--batch", "128", "--duel-deals", "5", "--out", str(out), "--folder", str(tmp_path / "run")])
    assert code == 0
    net = load_net(out)
    assert net.hidden == 4 and "bgsim train" in net.note
    assert (tmp_path / "run" / "curve.png").is_file()
    games = play_games(make_player(f"nn(weights={out})"), make_player("pubeval"), seed=1, games=4)
    assert len(games) == 4
    # a second run into the same folder must say how to continue instead of overwriting
    assert main(["train", "--out", str(tmp_path / "other.npz"), "--folder", str(tmp_path / "run")]) == 2
    assert "--resume" in capsys.readouterr().err


def test_a_missing_net_file_is_one_error_line(tmp_path, capsys):
    from experiments.cli import main

    code = main(["play", f"nn(weights={tmp_path / 'absent.npz'})", "pubeval", "--games", "2",
                 "--out", str(tmp_path / "games.parquet")])
    error = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(error) == 1 and "absent.npz" in error[0] and "not found" in error[0]


def test_more_rounds_extend_a_finished_run(tmp_path):
    longer, _ = Trainer(TINY, tmp_path / "whole", log=lambda _: None).run()
    Trainer(Settings(**{**TINY.__dict__, "rounds": 1}), tmp_path / "grown", log=lambda _: None).run()
    grown, _ = Trainer(TINY, tmp_path / "grown", log=lambda _: None).run(resume=True)
    for x, y in zip(_arrays(longer), _arrays(grown)):
        assert np.array_equal(x, y)
    with pytest.raises(ValueError, match="other settings"):
        Trainer(Settings(**{**TINY.__dict__, "hidden": 6}), tmp_path / "grown").run(resume=True)


def test_a_cut_off_round_file_is_made_again_on_resume(tmp_path, monkeypatch):
    """A round's positions file cut short (a run killed mid-write by an older bgsim, a full
    disk) must not be trained on: resume makes it again, from the right net, and ends with the
    same net as an uninterrupted run."""
    whole, _ = Trainer(TINY, tmp_path / "whole", log=lambda _: None).run()
    folder = tmp_path / "cut"
    real = training.duel_points
    calls = []

    def crash_in_round_one(net, seed, deals):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(net, seed, deals)

    monkeypatch.setattr(training, "duel_points", crash_in_round_one)
    with pytest.raises(KeyboardInterrupt):
        Trainer(TINY, folder, log=lambda _: None).run()
    monkeypatch.setattr(training, "duel_points", real)
    for name in ("round00.npz", "round01.npz"):
        data = (folder / name).read_bytes()
        (folder / name).write_bytes(data[: len(data) // 2])
    messages = []
    resumed, _ = Trainer(TINY, folder, log=messages.append).run(resume=True)
    assert sum("is unreadable" in message for message in messages) == 2
    for x, y in zip(_arrays(whole), _arrays(resumed)):
        assert np.array_equal(x, y)
    # every column but the elapsed seconds, which depend on the machine, not on the run
    def without_seconds(path):
        frame = pd.read_csv(path)
        return frame.drop(columns="seconds")

    pd.testing.assert_frame_equal(without_seconds(folder / "curve.csv"),
                                  without_seconds(tmp_path / "whole" / "curve.csv"))
    assert not list(folder.glob(".*.tmp"))


def test_a_readable_file_with_part_of_a_round_is_not_accepted(tmp_path):
    trainer = Trainer(TINY, tmp_path, log=lambda _: None)
    boards = np.zeros((TINY.positions - 1, 26), dtype=np.int8)
    np.savez(tmp_path / "round00.npz", boards=boards, labels=np.zeros((len(boards), 5), np.float32))
    assert trainer.saved_data(0) is None
    np.savez(tmp_path / "round00.npz", boards=np.zeros((TINY.positions, 26), dtype=np.int8))
    assert trainer.saved_data(0) is None


def test_the_curve_is_measured_with_bgsim_s_engine_on_duplicate_dice():
    """duel_points is bgsim.fast.play_games of nn against pubeval, cubeless, both seatings on
    the same game numbers: the shipped net's first deals score what bgsim play scores."""
    from bgsim.cube import Rules
    from bgsim.fast import play_games
    from bots import make_player
    from bots.nn import shipped_net

    points = training.duel_points(shipped_net(), 3, 40)
    nn, pubeval = make_player("nn"), make_player("pubeval")
    white = play_games(nn, pubeval, 3, 40, Rules(cube=False)).sort_values("game")
    black = play_games(pubeval, nn, 3, 40, Rules(cube=False)).sort_values("game")
    assert np.array_equal(points[:, 0], white["white_points"].to_numpy())
    assert np.array_equal(points[:, 1], -black["white_points"].to_numpy())
    assert set(np.abs(points).ravel()) <= {1, 2, 3}
    mean, half = training._mean_ci(points)
    assert mean == pytest.approx(points.mean()) and half > 0


def test_a_net_file_is_written_whole_or_not_at_all(tmp_path, monkeypatch):
    from bots.nn import load_net, shipped_net

    path = tmp_path / "net.npz"
    shipped_net().save(path)
    before = path.read_bytes()

    def disk_full(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(np, "savez_compressed", disk_full)
    with pytest.raises(OSError):
        shipped_net().save(path)
    assert path.read_bytes() == before and not list(tmp_path.glob(".*.tmp"))
    monkeypatch.undo()
    assert np.array_equal(load_net(path).tables, shipped_net().tables)


def test_dequantize_gives_back_the_net_it_was_quantized_into():
    """--init starts from a shipped net, of which only the integers are kept: the float net
    recovered from them quantizes back to the same integers, to their rounding."""
    from bots.nn import shipped_net
    from experiments.studies.training.net import dequantize, quantize

    from experiments.studies.training.net import init_params

    for net in (shipped_net(), quantize(init_params(16, 3, contact=True))):
        again = quantize(dequantize(net))
        assert again.reads_contact == net.reads_contact
        for x, y in zip(net.arrays(), again.arrays()):
            assert np.abs(x.astype(np.int64) - y).max() <= 1


def test_the_contact_inputs_are_trained_unless_switched_off(tmp_path):
    """Settings.contact (--contact/--no-contact): the net learns rows for the contact inputs,
    or has none, as nn-v1; an --init net without them starts from zero rows."""
    from bots.nn import load_net
    from experiments.cli import main

    with_contact, _ = Trainer(Settings(**{**TINY.__dict__, "rounds": 1}), tmp_path / "c", log=lambda _: None).run()
    assert with_contact.reads_contact and with_contact.contact.shape == (8, TINY.hidden)
    out = tmp_path / "plain.npz"
    code = main(["train", "--no-contact", "--rounds", "1", "--positions", "800", "--samples", "512",
                 "--hidden", "4", "--batch", "128", "--duel-deals", "5", "--out", str(out),
                 "--folder", str(tmp_path / "plain")])
    assert code == 0
    plain = load_net(out)
    assert not plain.reads_contact and "--no-contact" in plain.note
    # a plain net grows contact rows when training goes on from it with them
    grown, _ = Trainer(Settings(**{**TINY.__dict__, "rounds": 1, "hidden": 4, "init": str(out)}),
                       tmp_path / "grown", log=lambda _: None).run()
    assert grown.reads_contact
    with pytest.raises(ValueError, match="contact"):
        Trainer(Settings(**{**TINY.__dict__, "rounds": 1, "hidden": 8, "contact": False,
                            "init": str(tmp_path / "c" / "net_round00.npz")}), tmp_path / "bad").run()


def test_labels_come_back_from_their_saved_chunks(tmp_path, monkeypatch):
    """A stop in a long labelling loses only the chunks in flight: the chunks saved are read
    back, the missing ones made again, and the labels do not depend on the workers."""
    monkeypatch.setattr(training, "LABEL_CHUNK", 100)
    boards = Trainer(Settings(positions=450, hidden=8), tmp_path / "p", log=lambda _: None).positions(0, None)
    whole = training.label(boards, None, 1)
    first = training.label_in_chunks(boards, 1, tmp_path / "chunks", workers=1)
    assert np.array_equal(first, whole)
    assert sorted(p.name for p in (tmp_path / "chunks").iterdir()) == [f"{n:04d}.npy" for n in range(5)]
    (tmp_path / "chunks" / "0002.npy").unlink()
    (tmp_path / "chunks" / "0004.npy").write_bytes(b"cut sh")
    calls = []
    real = training._label_chunk
    monkeypatch.setattr(training, "_label_chunk", lambda job: calls.append(len(job[0])) or real(job))
    again = training.label_in_chunks(boards, 1, tmp_path / "chunks", workers=1)
    assert np.array_equal(again, whole) and calls == [100, 50]
    monkeypatch.setattr(training, "_label_chunk", real)
    shared = training.label_in_chunks(boards, 1, tmp_path / "two", workers=2)
    # fresh workers and this process agree: no match score set here leaks into money labels
    # (bots.gnubg_bots.match_cube_decision asks those in a helper process)
    assert np.array_equal(shared, whole)
    # 1-ply labels are GNU Backgammon's deeper evaluation, not its 0-ply one
    assert not np.allclose(whole, training.label(boards, None, 0))


def test_a_run_from_init_starts_at_that_net(tmp_path):
    """--init: round 0 plays the given net's self-play and trains from its weights; with a rate
    too small to move them, the net that comes out plays as the one that went in."""
    from bots.nn import DEFAULT_WEIGHTS, shipped_net

    settings = Settings(seed=2, rounds=1, positions=300, samples=256, hidden=256, batch=128,
                        rate=1e-12, duel_deals=5, label_plies=1, init=str(DEFAULT_WEIGHTS))
    net, _ = Trainer(settings, tmp_path / "init", log=lambda _: None).run()
    for x, y in zip(shipped_net().arrays(), net.arrays()):
        assert np.abs(x.astype(np.int64) - y).max() <= 1
    with pytest.raises(ValueError, match="hidden units"):
        Trainer(Settings(**{**settings.__dict__, "hidden": 8}), tmp_path / "bad").run()
