"""``bgsim train``: distil GNU Backgammon's 0-ply evaluations into the ``nn`` checker bot.

Rounds (DAgger style, so the net learns the positions it actually reaches):

* round 0 draws positions from ``pubeval`` self-play with random plays mixed in; every later
  round from the latest net's own self-play (fewer random plays);
* every position is labelled with ``gnubg_nn.probabilities(board, label_plies)`` (the five
  cubeless outcome probabilities; 0-ply made the shipped net, 1-ply, the average over the 21
  rolls of the 0-ply value after the best reply, is the stronger teacher) and joins the pool
  of all rounds.  Labels are made in chunks by ``workers`` processes, each chunk saved as it
  comes, so a stop in a long labelling loses at most the chunks in flight;
* ``init`` (a net file) starts the float net from that net's weights (:func:`net.dequantize`)
  and makes round 0's positions from its self-play instead of pubeval's;
* the float net trains on minibatches drawn from the whole pool (Adam, cross-entropy on the
  five outputs), ``samples`` examples per round;
* the quantized net then plays ``pubeval`` for the learning curve on bgsim's own fast engine
  and rules, cubeless, each deal twice with the seats swapped on the same dice
  (:func:`duel_points`), and a checkpoint is written.

Every file is written whole or not at all (a temporary file, then renamed), and a round's
labelled positions are checked when read back, so a run killed at any moment resumes cleanly.

Everything is derived from ``seed``: the same arguments give the same net.  ``--resume`` picks
up from the last checkpoint (every few thousand batches) in the checkpoint folder.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from experiments.running.files import write_atomic, write_npz, write_text
from experiments.running.workers import worker_pool
from experiments.stats import mean_interval
from .net import FEATURES, Adam, dequantize, features, init_params, loss_and_gradients, quantize
from .selfplay import NET, PUBEVAL, play_positions

CURVE_COLUMNS = ("round", "positions", "seconds", "ppg_vs_pubeval", "ci95", "games")


@dataclass
class Settings:
    seed: int = 1
    rounds: int = 8
    positions: int = 1_000_000  # new positions per round
    samples: int = 16_000_000  # training examples drawn from the pool per round
    hidden: int = 256  # the trade-off against 128 (strength for speed): results/strength.md
    batch: int = 1024
    rate: float = 2e-3  # Adam's rate at the start of round 0
    round_decay: float = 0.85  # each round starts at this times the previous start
    noise_first: float = 0.15  # share of random plays in round 0 (pubeval)
    noise: float = 0.05  # in the net's rounds
    alternatives: float = 0.5  # chance per ply to keep one rejected play's result too
    duel_deals: int = 2000  # learning-curve deals against pubeval (each played twice)
    checkpoint_steps: int = 2000  # save the training state this often within a round
    label_plies: int = 0  # GNU Backgammon's evaluation depth for the labels (gnubg_nn's numbering)
    init: str = ""  # a net file to start from (its weights, its self-play for round 0)
    contact: bool = True  # the contact inputs too (bgsim.net_format.CONTACT_INPUTS; nn-v1: False)

# positions a worker labels at a time: a stop loses at most this many per worker
LABEL_CHUNK = 5_000


def gnubg_boards(boards: np.ndarray):
    """(opponent, side on roll) count lists for ``gnubg_nn`` (see bgsim.position_id)."""
    boards = boards.astype(np.int64)
    on_roll = np.concatenate([np.clip(boards[:, 1:25], 0, None), boards[:, 25:26]], axis=1)
    opponent = np.concatenate([np.clip(-boards[:, 24:0:-1], 0, None), -boards[:, 0:1]], axis=1)
    return opponent.tolist(), on_roll.tolist()


def label(boards: np.ndarray, progress=None, plies: int = 0) -> np.ndarray:
    """GNU Backgammon's ``plies``-ply probabilities of each board (side on roll), float32 (N, 5)."""
    import gnubg_nn

    opponent, on_roll = gnubg_boards(boards)
    out = np.empty((len(boards), 5), dtype=np.float32)
    for index in range(len(boards)):
        out[index] = gnubg_nn.probabilities([opponent[index], on_roll[index]], plies)
        if progress is not None and index % 1_000 == 999:
            progress.update(1_000)
    if progress is not None:
        progress.update(len(boards) % 1_000)
    return out


def _label_chunk(job):
    boards, plies = job
    return label(boards, None, plies)


def label_in_chunks(boards: np.ndarray, plies: int, folder: Path, workers: int = 1,
                    progress=None) -> np.ndarray:
    """:func:`label` of ``boards`` in chunks of :data:`LABEL_CHUNK`, each saved in ``folder``
    (``NNNN.npy``) as it comes and read back instead of made again: a resumed run labels only
    what is missing.  ``workers`` processes share the chunks; the labels do not depend on how
    many (each position's label is its own)."""
    folder.mkdir(parents=True, exist_ok=True)
    starts = range(0, len(boards), LABEL_CHUNK)
    out = np.empty((len(boards), 5), dtype=np.float32)
    missing = []
    for number, start in enumerate(starts):
        path = folder / f"{number:04d}.npy"
        stop = min(start + LABEL_CHUNK, len(boards))
        try:
            saved = np.load(path, allow_pickle=False) if path.exists() else None
        except Exception:  # a chunk cut short by a stop mid-write (older bgsim): make it again
            saved = None
        if saved is not None and saved.shape == (stop - start, 5) and saved.dtype == np.float32:
            out[start:stop] = saved
            if progress is not None:
                progress.update(stop - start)
        else:
            missing.append((number, start, stop))

    def keep(number, start, stop, labels):
        out[start:stop] = labels
        _save_npy(folder / f"{number:04d}.npy", labels)
        if progress is not None:
            progress.update(stop - start)

    jobs = [(boards[start:stop], plies) for _, start, stop in missing]
    # fresh processes (spawn): this one has run the fast engine's kernels for the learning curve
    with worker_pool(min(workers, max(len(missing), 1))) as pool:
        answers = map(_label_chunk, jobs) if pool is None else pool.map(_label_chunk, jobs)
        for (number, start, stop), labels in zip(missing, answers):
            keep(number, start, stop, labels)
    return out


def duel_points(net, seed: int, deals: int) -> np.ndarray:
    """The net's points in each deal's two games against ``pubeval``, (deals, 2) int64.

    bgsim's fast engine and rules, cubeless (``Rules(cube=False)``), game numbers 0..deals-1 of
    ``seed``: column 0 with the net as white, column 1 with the seats swapped on the same dice,
    as ``results/strength.md`` measures every bot.  The net plays as the ``nn`` bot.
    """
    from bgsim.cube import Rules
    from bgsim.fast import play_games
    from bots import make_player
    from bots.nn import NNChecker
    from bots.registry import BotPlayer

    candidate = BotPlayer(NNChecker.playing(net))
    pubeval = make_player("pubeval")
    rules = Rules(cube=False)
    as_white = play_games(candidate, pubeval, seed, deals, rules).sort_values("game")
    as_black = play_games(pubeval, candidate, seed, deals, rules).sort_values("game")
    return np.stack([as_white["white_points"].to_numpy(dtype=np.int64),
                     -as_black["white_points"].to_numpy(dtype=np.int64)], axis=1)


def _mean_ci(points: np.ndarray) -> tuple[float, float]:
    # the two seatings of a deal are one paired sample: the interval is over per-deal means
    return mean_interval(points.mean(axis=1))


def _save_npz(path: Path, **arrays) -> None:
    write_npz(path, arrays)


def _save_npy(path: Path, array: np.ndarray) -> None:
    def write(temporary: Path) -> None:
        with open(temporary, "wb") as handle:
            np.save(handle, array)

    write_atomic(path, write, sync=False)


def write_curve(rows, path: Path) -> None:
    lines = [",".join(CURVE_COLUMNS)] + [",".join(str(value) for value in row) for row in rows]
    write_text("\n".join(lines) + "\n", path)


class Trainer:
    def __init__(self, settings: Settings, folder: Path, log=print, progress: bool = True,
                 workers: int = 1) -> None:
        self.s = settings
        self.workers = workers  # labelling processes: the labels do not depend on it
        self.folder = Path(folder)
        self.log = log
        self.progress = progress  # the bars; False: none (``bgsim train --no-progress``)
        self.folder.mkdir(parents=True, exist_ok=True)

    # --- checkpoints -------------------------------------------------------------------
    def _state_path(self) -> Path:
        return self.folder / "state.npz"

    def _save_state(self, params, adam, round_, step, seconds, curve) -> None:
        # the learning curve's rows travel in the state, so curve.csv can always be rewritten
        # to match it: a kill between the two writes neither loses nor repeats a row
        _save_npz(self._state_path(), **{f"p_{k}": v for k, v in params.items()}, **adam.state(),
                  round=round_, step=step, seconds=seconds,
                  settings=json.dumps(asdict(self.s)), curve=json.dumps(curve))

    def _data_path(self, round_: int) -> Path:
        return self.folder / f"round{round_:02d}.npz"

    # --- one round's data ---------------------------------------------------------------
    def positions(self, round_: int, net) -> np.ndarray:
        s = self.s
        capacity = s.positions
        out = np.zeros((capacity, 26), dtype=np.int8)
        if (round_ == 0 or net is None) and s.init:
            arrays = self.init_net().arrays()
            policy, noise = NET, s.noise
        elif round_ == 0 or net is None:
            arrays = _zero_arrays(s.hidden)
            policy, noise = PUBEVAL, s.noise_first
        else:
            arrays = net.arrays()
            policy, noise = NET, s.noise
        written = play_positions(s.seed * 1000 + round_, 10**9, policy, noise, s.alternatives,
                                 *arrays, out)
        return out[:written]

    def saved_data(self, round_: int):
        """(boards, labels) of a round's file, or None when it is absent, unreadable or not
        the whole round (a file from a killed run of an older bgsim): then it is made again."""
        path = self._data_path(round_)
        if not path.exists():
            return None
        try:
            with np.load(path, allow_pickle=False) as saved:
                boards, labels = saved["boards"], saved["labels"]
        except Exception as error:  # truncated zip, missing member, bad header: all mean "redo"
            self.log(f"{path} is unreadable ({error}); making round {round_}'s positions again")
            return None
        whole = (boards.shape == (self.s.positions, 26) and boards.dtype == np.int8
                 and labels.shape == (self.s.positions, 5) and labels.dtype == np.float32)
        if not whole:
            self.log(f"{path} holds boards {boards.shape} and labels {labels.shape}, not a whole "
                     f"round of {self.s.positions:,}; making round {round_}'s positions again")
            return None
        return boards, labels

    def init_net(self):
        from bots.nn import load_net

        net = load_net(self.s.init)
        if net.hidden != self.s.hidden:
            raise ValueError(f"--init {self.s.init} has {net.hidden} hidden units, not --hidden {self.s.hidden}")
        if net.reads_contact and not self.s.contact:
            raise ValueError(f"--init {self.s.init} reads the contact inputs; drop --no-contact")
        return net

    def init_params(self):
        """The float net a run starts from: ``init``'s weights (contact rows of zero added when
        it has none and the run reads them) or fresh ones from the seed."""
        s = self.s
        if not s.init:
            return init_params(s.hidden, s.seed, s.contact)
        params = dequantize(self.init_net())
        if s.contact and params["w1"].shape[0] == FEATURES:
            from bgsim.net_format import CONTACT

            params["w1"] = np.concatenate([params["w1"], np.zeros((CONTACT, s.hidden), np.float32)])
        return params

    def net_before(self, round_: int):
        """The net whose self-play makes round ``round_``'s positions: the one saved at the end
        of the round before (None for round 0, which plays pubeval)."""
        from bots.nn import load_net

        return load_net(self.folder / f"net_round{round_ - 1:02d}.npz") if round_ > 0 else None

    def data(self, round_: int, net):
        """A round's labelled positions: the saved file when it is whole, else made (again)
        from ``net``'s self-play (a callable giving the net is called only then)."""
        saved = self.saved_data(round_)
        if saved is not None:
            return saved
        if callable(net):
            net = net()
        from tqdm import tqdm

        # the positions are kept before their labels, so that a resumed run labels these very
        # positions whatever changed in the meantime (the self-play is deterministic anyway)
        boards_path = self.folder / f"round{round_:02d}.boards.npy"
        boards = None
        if boards_path.exists():
            try:
                boards = np.load(boards_path, allow_pickle=False)
            except Exception:
                boards = None
        if boards is None or boards.ndim != 2 or boards.shape[1] != 26 or boards.dtype != np.int8:
            boards = self.positions(round_, net)
            _save_npy(boards_path, boards)
        chunks = self.folder / f"round{round_:02d}.labels"
        with tqdm(total=len(boards), desc=f"round {round_}: {s_plies(self.s)} labels", unit="pos",
                  mininterval=10, disable=not self.progress) as bar:
            labels = label_in_chunks(boards, self.s.label_plies, chunks, self.workers, bar)
        _save_npz(self._data_path(round_), boards=boards, labels=labels)
        boards_path.unlink(missing_ok=True)
        for chunk in chunks.glob("*.npy"):
            chunk.unlink()
        chunks.rmdir()
        return boards, labels

    # --- the whole run ------------------------------------------------------------------
    def run(self, resume: bool = False):
        from tqdm import tqdm

        s = self.s
        params = self.init_params()
        adam = Adam(params)
        start_round, start_step, seconds = 0, 0, 0.0
        curve: list[list] = []
        curve_path = self.folder / "curve.csv"
        if resume and self._state_path().exists():
            with np.load(self._state_path()) as state:
                saved = json.loads(str(state["settings"]))
                # settings an older bgsim did not have: its runs used their defaults
                saved = {**{"label_plies": 0, "init": "", "contact": False}, **saved}
                # more rounds may be asked for: a round does not depend on how many follow it
                if {**saved, "rounds": s.rounds} != asdict(s):
                    raise ValueError(f"checkpoint in {self.folder} was made with other settings: {saved}")
                params = {k: state[f"p_{k}"].copy() for k in params}
                adam.load(state)
                start_round, start_step = int(state["round"]), int(state["step"])
                seconds = float(state["seconds"])
                if "curve" in state.files:
                    curve = json.loads(str(state["curve"]))
                elif curve_path.exists():  # a checkpoint of an older bgsim: its CSV, cut to the state
                    curve = [line.split(",") for line in curve_path.read_text().splitlines()[1:]]
                    curve = [row for row in curve if int(row[0]) < start_round]
            write_curve(curve, curve_path)
            self.log(f"resuming at round {start_round}, batch {start_step}")
        elif not resume:
            if curve_path.exists():
                curve_path.unlink()
        # a mid-round checkpoint's params are not the net that played that round's positions
        net = self.net_before(start_round) if start_round > 0 else None
        pool_boards, pool_labels = [], []
        for earlier in range(start_round):
            boards, labels = self.data(earlier, lambda: self.net_before(earlier))
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
                      unit="batch", mininterval=10, disable=not self.progress) as bar:
                for step in range(first_step, steps):
                    # the rate falls tenfold over a round, from a start that falls per round
                    rate = s.rate * s.round_decay ** round_ * 0.1 ** (step / steps)
                    batch = draws[step * s.batch:(step + 1) * s.batch]
                    loss, grads = loss_and_gradients(params, features(all_boards[batch], contact=s.contact), all_labels[batch])
                    adam.step(params, grads, rate)
                    total += loss
                    counted += 1
                    bar.update(1)
                    if (step + 1) % s.checkpoint_steps == 0 and step + 1 < steps:
                        self._save_state(params, adam, round_, step + 1, seconds + time.time() - began,
                                         curve)
            self.log(f"round {round_}: mean loss {total / max(counted, 1):.4f} over the last "
                     f"{counted:,} batches ({len(all_boards):,} positions in the pool)")
            seconds += time.time() - began
            net = quantize(params)
            net.save(self.folder / f"net_round{round_:02d}.npz")
            mean, ci = _mean_ci(duel_points(net, s.seed + 7777, s.duel_deals))
            self.log(f"round {round_}: {mean:+.3f} +- {ci:.3f} points/game against pubeval")
            curve.append([round_, len(all_boards), round(seconds, 1), round(mean, 4),
                          round(ci, 4), 2 * s.duel_deals])
            self._save_state(params, adam, round_ + 1, 0, seconds, curve)
            write_curve(curve, curve_path)  # after the state: the state is what a resume trusts
            start_step = 0
        net = quantize(params)
        return net, params


def s_plies(settings: Settings) -> str:
    return f"{settings.label_plies}-ply"


def _zero_arrays(hidden: int):
    from bgsim.fast.nn import CONTACT, COUNTS, OUTPUTS, sigmoid_table

    return (np.zeros((26, COUNTS, hidden), np.int32), np.zeros(hidden, np.int32),
            np.zeros(hidden, np.int32), np.zeros((OUTPUTS, hidden), np.int32),
            np.zeros(OUTPUTS, np.int64), sigmoid_table(), np.zeros((CONTACT, hidden), np.int32))


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
    ax.set_title("nn against pubeval (bgsim fast engine, cubeless, duplicate dice)", fontsize=10)
    ax.legend()
    fig.tight_layout()
    write_atomic(Path(png), lambda temporary: fig.savefig(temporary, format="png", dpi=120))
    plt.close(fig)


def remeasure(folder: Path, deals: int, seed: int, curve_csv: Path) -> list[list]:
    """Measure every round's saved net (``net_roundNN.npz`` in a run's ``folder``) again with
    :func:`duel_points` on ``deals`` deals of ``seed``, and write the learning curve to
    ``curve_csv`` (positions and seconds come from the run's own ``curve.csv``): more games
    per point than a training run spends, or a new measurement of an old run."""
    from bots.nn import load_net

    folder = Path(folder)
    trained = {line.split(",")[0]: line.split(",")
               for line in (folder / "curve.csv").read_text().splitlines()[1:]}
    rows = []
    for round_ in range(len(trained)):
        net = load_net(folder / f"net_round{round_:02d}.npz")
        mean, ci = _mean_ci(duel_points(net, seed, deals))
        _, positions, seconds, *_ = trained[str(round_)]
        rows.append([round_, int(positions), float(seconds), round(mean, 4), round(ci, 4), 2 * deals])
    write_curve(rows, Path(curve_csv))
    return rows
