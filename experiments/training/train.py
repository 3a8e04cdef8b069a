"""``bgsim train``: distil GNU Backgammon's 0-ply evaluations into the ``nn`` checker bot.

Rounds (DAgger style, so the net learns the positions it actually reaches):

* round 0 draws positions from ``pubeval`` self-play with random plays mixed in; every later
  round from the latest net's own self-play (fewer random plays);
* every position is labelled with ``gnubg_nn.probabilities(board, 0)`` (the five cubeless
  outcome probabilities) and joins the pool of all rounds;
* the float net trains on minibatches drawn from the whole pool (Adam, cross-entropy on the
  five outputs), ``samples`` examples per round;
* the quantized net then plays ``pubeval`` (duplicate dice, both seatings) for the learning
  curve, and a checkpoint is written.

Everything is derived from ``seed``: the same arguments give the same net.  ``--resume`` picks
up from the last checkpoint (every few thousand batches) in the checkpoint folder.
"""

from __future__ import annotations

import csv
import json
import math
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from .net import Adam, features, init_params, loss_and_gradients, quantize
from .selfplay import NET, PUBEVAL, duel, play_positions


@dataclass
class Settings:
    seed: int = 1
    rounds: int = 8
    positions: int = 1_000_000  # new positions per round
    samples: int = 16_000_000  # training examples drawn from the pool per round
    hidden: int = 128
    batch: int = 1024
    rate: float = 2e-3  # Adam's rate at the start of round 0
    round_decay: float = 0.85  # each round starts at this times the previous start
    noise_first: float = 0.15  # share of random plays in round 0 (pubeval)
    noise: float = 0.05  # in the net's rounds
    alternatives: float = 0.5  # chance per ply to keep one rejected play's result too
    duel_deals: int = 2000  # learning-curve deals against pubeval (each played twice)
    checkpoint_steps: int = 2000  # save the training state this often within a round


def gnubg_boards(boards: np.ndarray):
    """(opponent, side on roll) count lists for ``gnubg_nn`` (see bgsim.position_id)."""
    boards = boards.astype(np.int64)
    on_roll = np.concatenate([np.clip(boards[:, 1:25], 0, None), boards[:, 25:26]], axis=1)
    opponent = np.concatenate([np.clip(-boards[:, 24:0:-1], 0, None), -boards[:, 0:1]], axis=1)
    return opponent.tolist(), on_roll.tolist()


def label(boards: np.ndarray, progress=None) -> np.ndarray:
    """GNU Backgammon's 0-ply probabilities of each board (side on roll), float32 (N, 5)."""
    import gnubg_nn

    opponent, on_roll = gnubg_boards(boards)
    out = np.empty((len(boards), 5), dtype=np.float32)
    for index in range(len(boards)):
        out[index] = gnubg_nn.probabilities([opponent[index], on_roll[index]], 0)
        if progress is not None and index % 10_000 == 9_999:
            progress.update(10_000)
    return out


def duel_points(net, seed: int, deals: int) -> np.ndarray:
    points = np.zeros((deals, 2), dtype=np.int64)
    duel(seed, deals, *net.arrays(), points)
    return points


def _mean_ci(points: np.ndarray) -> tuple[float, float]:
    per_deal = points.mean(axis=1)  # the two seatings of a deal are one paired sample
    return float(per_deal.mean()), float(1.96 * per_deal.std(ddof=1) / math.sqrt(len(per_deal)))


class Trainer:
    def __init__(self, settings: Settings, folder: Path, log=print) -> None:
        self.s = settings
        self.folder = Path(folder)
        self.log = log
        self.folder.mkdir(parents=True, exist_ok=True)

    # --- checkpoints -------------------------------------------------------------------
    def _state_path(self) -> Path:
        return self.folder / "state.npz"

    def _save_state(self, params, adam, round_, step, seconds) -> None:
        tmp = self.folder / "state.tmp.npz"
        np.savez(tmp, **{f"p_{k}": v for k, v in params.items()}, **adam.state(),
                 round=round_, step=step, seconds=seconds,
                 settings=json.dumps(asdict(self.s)))
        tmp.replace(self._state_path())

    def _data_path(self, round_: int) -> Path:
        return self.folder / f"round{round_:02d}.npz"

    # --- one round's data ---------------------------------------------------------------
    def positions(self, round_: int, net) -> np.ndarray:
        s = self.s
        capacity = s.positions
        out = np.zeros((capacity, 26), dtype=np.int8)
        if round_ == 0 or net is None:
            arrays = _zero_arrays(s.hidden)
            policy, noise = PUBEVAL, s.noise_first
        else:
            arrays = net.arrays()
            policy, noise = NET, s.noise
        written = play_positions(s.seed * 1000 + round_, 10**9, policy, noise, s.alternatives,
                                 *arrays, out)
        return out[:written]

    def data(self, round_: int, net):
        path = self._data_path(round_)
        if path.exists():
            with np.load(path) as saved:
                return saved["boards"], saved["labels"]
        from tqdm import tqdm

        boards = self.positions(round_, net)
        with tqdm(total=len(boards), desc=f"round {round_}: labels", unit="pos", mininterval=10) as bar:
            labels = label(boards, bar)
        np.savez(path, boards=boards, labels=labels)
        return boards, labels

    # --- the whole run ------------------------------------------------------------------
    def run(self, resume: bool = False):
        from tqdm import tqdm

        s = self.s
        params = init_params(s.hidden, s.seed)
        adam = Adam(params)
        start_round, start_step, seconds = 0, 0, 0.0
        curve_path = self.folder / "curve.csv"
        if resume and self._state_path().exists():
            with np.load(self._state_path()) as state:
                saved = json.loads(str(state["settings"]))
                # more rounds may be asked for: a round does not depend on how many follow it
                if {**saved, "rounds": s.rounds} != asdict(s):
                    raise ValueError(f"checkpoint in {self.folder} was made with other settings: {saved}")
                params = {k: state[f"p_{k}"].copy() for k in params}
                adam.load(state)
                start_round, start_step = int(state["round"]), int(state["step"])
                seconds = float(state["seconds"])
            self.log(f"resuming at round {start_round}, batch {start_step}")
        elif not resume:
            if curve_path.exists():
                curve_path.unlink()
        net = quantize(params) if start_round > 0 else None
        pool_boards, pool_labels = [], []
        for earlier in range(start_round):
            boards, labels = self.data(earlier, None)
            pool_boards.append(boards)
            pool_labels.append(labels)
        for round_ in range(start_round, s.rounds):
            began = time.time()
            boards, labels = self.data(round_, net)
            pool_boards.append(boards)
            pool_labels.append(labels)
            all_boards = np.concatenate(pool_boards)
            all_labels = np.concatenate(pool_labels)
            steps = s.samples // s.batch
            first_step = start_step if round_ == start_round else 0
            # examples drawn with replacement from the whole pool, from the seed: a resumed
            # run draws the very same ones
            draws = np.random.default_rng([s.seed, round_]).integers(0, len(all_boards), size=steps * s.batch)
            total, counted = 0.0, 0
            with tqdm(total=steps, initial=first_step, desc=f"round {round_} training",
                      unit="batch", mininterval=10) as bar:
                for step in range(first_step, steps):
                    # the rate falls tenfold over a round, from a start that falls per round
                    rate = s.rate * s.round_decay ** round_ * 0.1 ** (step / steps)
                    batch = draws[step * s.batch:(step + 1) * s.batch]
                    loss, grads = loss_and_gradients(params, features(all_boards[batch]), all_labels[batch])
                    adam.step(params, grads, rate)
                    total += loss
                    counted += 1
                    bar.update(1)
                    if (step + 1) % s.checkpoint_steps == 0 and step + 1 < steps:
                        self._save_state(params, adam, round_, step + 1, seconds + time.time() - began)
            self.log(f"round {round_}: mean loss {total / max(counted, 1):.4f} over the last "
                     f"{counted:,} batches ({len(all_boards):,} positions in the pool)")
            seconds += time.time() - began
            net = quantize(params)
            net.save(self.folder / f"net_round{round_:02d}.npz")
            mean, ci = _mean_ci(duel_points(net, s.seed + 7777, s.duel_deals))
            self.log(f"round {round_}: {mean:+.3f} +- {ci:.3f} points/game against pubeval")
            new_file = not curve_path.exists()
            with curve_path.open("a", newline="") as handle:
                writer = csv.writer(handle)
                if new_file:
                    writer.writerow(["round", "positions", "seconds", "ppg_vs_pubeval", "ci95", "games"])
                writer.writerow([round_, len(all_boards), round(seconds, 1), round(mean, 4),
                                 round(ci, 4), 2 * s.duel_deals])
            self._save_state(params, adam, round_ + 1, 0, seconds)
            start_step = 0
        net = quantize(params)
        return net, params


def _zero_arrays(hidden: int):
    from bgsim.fast.nn import COUNTS, LIMIT, OUTPUTS, sigmoid_table

    return (np.zeros((26, COUNTS, hidden), np.int32), np.zeros(hidden, np.int32),
            np.zeros(hidden, np.int32), np.zeros((OUTPUTS, hidden), np.int32),
            np.zeros(OUTPUTS, np.int64), sigmoid_table())


def plot_curve(curve_csv: Path, png: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import pandas as pd

    table = pd.read_csv(curve_csv)
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.errorbar(table["positions"], table["ppg_vs_pubeval"], yerr=table["ci95"], marker="o", capsize=3)
    ax.axhline(0.45, color="grey", linestyle="--", linewidth=1, label="target +0.45")
    ax.set_xlabel("labelled positions in the training pool")
    ax.set_ylabel("points/game against pubeval")
    ax.set_title("nn learning curve (cubeless, duplicate dice)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(png, dpi=120)
    plt.close(fig)
