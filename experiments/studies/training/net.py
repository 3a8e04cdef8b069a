"""The float network that training adjusts, its inputs, and its quantization into a ``Net``.

Inputs (all from the side on roll; ``features``): for each of its 24 points and its bar, and
for each of the opponent's, four units of the checker count n — n >= 1, n >= 2, n >= 3 and
(n - 3) / 2 above three — then both sides' checkers off / 15, both pip counts / 100, and a race
flag.  Every input except the race flag depends on one slot's count alone, so the first layer
of any board is a sum of one row per occupied slot: ``quantize`` folds the weights into those
rows (``tables[slot, count + 15]``), which is what both engines add up.

A net with contact inputs (``contact=True``, the default since ``nn-v2``) has
``bgsim.net_format.CONTACT_INPUTS`` after them, each a whole number over :data:`CONTACT_SCALE`
(counted by the fast engine's ``contact_inputs``, which the tests hold to the reference's);
``quantize`` gives each its row of the net's ``contact``, weights over the scale.
"""

from __future__ import annotations

import numba
import numpy as np

from bgsim.fast.board import contact_inputs
from bgsim.fast.nn import CONTACT, COUNTS, ONE, OUTPUTS, sigmoid_table

FEATURES = 4 * 25 * 2 + 2 + 2 + 1  # the inputs of one slot each, and the race flag
RACE_COLUMN = FEATURES - 1
# what each contact input is divided by as the float net's input (own, then the opponent's)
CONTACT_SCALE = (5.0, 36.0, 6.0, 36.0) * 2


@numba.njit(cache=True, nogil=True)
def _contact_values(boards, out):
    for row in range(boards.shape[0]):
        contact_inputs(boards[row], out[row])


def contact_values(boards: np.ndarray) -> np.ndarray:
    """(N, 26) boards -> (N, CONTACT) int64 contact inputs, as the engines count them."""
    boards = np.ascontiguousarray(boards, dtype=np.int8)
    out = np.zeros((len(boards), CONTACT), dtype=np.int64)
    _contact_values(boards, out)
    return out


def feature_count(contact: bool) -> int:
    return FEATURES + (CONTACT if contact else 0)


def _units(counts: np.ndarray) -> np.ndarray:
    """(N, slots) counts >= 0 -> (N, 4 * slots) float32 units."""
    counts = counts.astype(np.float32)
    return np.concatenate([
        counts >= 1, counts >= 2, counts >= 3, np.maximum(counts - 3.0, 0.0) / 2.0,
    ], axis=1).astype(np.float32)


def race_flags(boards: np.ndarray) -> np.ndarray:
    """bgsim.board.is_race of each row of an (N, 26) array."""
    slots = np.arange(26)
    own_any = boards[:, 1:26] > 0
    opponent_any = boards[:, 0:25] < 0
    highest_own = np.where(own_any, slots[1:26], 0).max(axis=1)
    lowest_opponent = np.where(opponent_any, slots[0:25], 99).min(axis=1)
    none = (highest_own == 0) | (lowest_opponent == 99)
    return none | (highest_own < lowest_opponent)


def features(boards: np.ndarray, race: np.ndarray | None = None, contact: bool = False) -> np.ndarray:
    """(N, 26) boards (side on roll) -> (N, feature_count(contact)) float32 inputs."""
    boards = np.asarray(boards, dtype=np.int64)
    own = np.clip(boards[:, 1:26], 0, None)  # points 1..24, bar
    opponent = np.clip(-boards[:, 0:25], 0, None)  # bar, points 1..24 (our numbering)
    own_pips = (own * np.arange(1, 26)).sum(axis=1)
    opponent_pips = (opponent * (25 - np.arange(0, 25))).sum(axis=1)
    if race is None:
        race = race_flags(boards)
    extra = np.stack([
        (15 - own.sum(axis=1)) / 15.0, (15 - opponent.sum(axis=1)) / 15.0,
        own_pips / 100.0, opponent_pips / 100.0, race.astype(np.float64),
    ], axis=1).astype(np.float32)
    parts = [_units(own), _units(opponent), extra]
    if contact:
        parts.append((contact_values(boards) / np.array(CONTACT_SCALE)).astype(np.float32))
    return np.concatenate(parts, axis=1)


def init_params(hidden: int, seed: int, contact: bool = False) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {
        "w1": (rng.standard_normal((feature_count(contact), hidden)) * 0.08).astype(np.float32),
        "b1": np.full(hidden, 0.25, dtype=np.float32),
        "w2": (rng.standard_normal((hidden, OUTPUTS)) * 0.1).astype(np.float32),
        "b2": np.zeros(OUTPUTS, dtype=np.float32),
    }


def forward(params, x):
    """(pre-activation, hidden, probabilities) of a batch of inputs."""
    pre = x @ params["w1"] + params["b1"]
    hidden = np.clip(pre, 0.0, 1.0)
    logits = hidden @ params["w2"] + params["b2"]
    return pre, hidden, 1.0 / (1.0 + np.exp(-logits))


def loss_and_gradients(params, x, y):
    """Mean cross-entropy summed over the five outputs, and its gradients."""
    pre, hidden, p = forward(params, x)
    eps = 1e-6
    loss = -np.mean(np.sum(y * np.log(p + eps) + (1 - y) * np.log(1 - p + eps), axis=1))
    d_logits = (p - y) / x.shape[0]
    grads = {
        "w2": hidden.T @ d_logits,
        "b2": d_logits.sum(axis=0),
    }
    d_hidden = d_logits @ params["w2"].T
    d_pre = d_hidden * ((pre > 0.0) & (pre < 1.0))
    grads["w1"] = x.T @ d_pre
    grads["b1"] = d_pre.sum(axis=0)
    return float(loss), grads


class Adam:
    def __init__(self, params, rate: float = 1e-3, beta1: float = 0.9, beta2: float = 0.999):
        self.rate, self.beta1, self.beta2 = rate, beta1, beta2
        self.m = {k: np.zeros_like(v) for k, v in params.items()}
        self.v = {k: np.zeros_like(v) for k, v in params.items()}
        self.t = 0

    def step(self, params, grads, rate: float) -> None:
        self.t += 1
        correction1 = 1 - self.beta1 ** self.t
        correction2 = 1 - self.beta2 ** self.t
        for key, grad in grads.items():
            self.m[key] = self.beta1 * self.m[key] + (1 - self.beta1) * grad
            self.v[key] = self.beta2 * self.v[key] + (1 - self.beta2) * grad * grad
            step = rate * (self.m[key] / correction1) / (np.sqrt(self.v[key] / correction2) + 1e-8)
            params[key] -= step.astype(params[key].dtype)

    def state(self) -> dict[str, np.ndarray]:
        out = {f"m_{k}": v for k, v in self.m.items()}
        out.update({f"v_{k}": v for k, v in self.v.items()})
        out["t"] = np.array(self.t)
        return out

    def load(self, state) -> None:
        for key in self.m:
            self.m[key] = state[f"m_{key}"].copy()
            self.v[key] = state[f"v_{key}"].copy()
        self.t = int(state["t"])


def dequantize(net) -> dict[str, np.ndarray]:
    """Float parameters whose :func:`quantize` is ``net`` (to the rounding of its integers):
    the first layer solved by least squares from the folded slot rows, so that a run can start
    from a shipped net (``bgsim train --init``) though only its integers were kept."""
    single, base = _single_slot_features()
    keep = np.ones((26, COUNTS), dtype=bool)
    keep[0, 16:] = False  # rows quantize zeroes: they say nothing of the weights
    keep[25, :15] = False
    rows = net.tables.astype(np.float64).reshape(26 * COUNTS, -1) / ONE
    w1, *_ = np.linalg.lstsq(single[keep.reshape(-1)], rows[keep.reshape(-1)], rcond=None)
    w1[RACE_COLUMN] = net.race / ONE
    b1 = net.bias / ONE - base @ w1
    if net.reads_contact:  # contact inputs are counted from the board itself: no share in b1
        w1 = np.concatenate([w1, net.contact / ONE * np.array(CONTACT_SCALE)[:, None]])
    return {
        "w1": w1.astype(np.float32), "b1": b1.astype(np.float32),
        "w2": (net.weights2.T / ONE).astype(np.float32),
        "b2": (net.bias2 / (ONE * ONE)).astype(np.float32),
    }


def _single_slot_features():
    """(features of each one-slot board less the empty board's, the empty board's features)."""
    empty = np.zeros((1, 26), dtype=np.int64)
    base = features(empty, race=np.zeros(1, dtype=bool)).astype(np.float64)[0]
    boards = np.zeros((26 * COUNTS, 26), dtype=np.int64)
    for slot in range(26):
        for index in range(COUNTS):
            boards[slot * COUNTS + index, slot] = index - 15
    single = features(boards, race=np.zeros(len(boards), dtype=bool)).astype(np.float64) - base
    return single, base


def quantize(params, note: str = ""):
    """The integer ``bots.nn.Net`` of a float network (first layer folded into slot rows)."""
    from bots.nn import Net

    w1 = params["w1"].astype(np.float64)
    b1 = params["b1"].astype(np.float64)
    contact = None
    if w1.shape[0] == feature_count(True):
        contact = np.round(w1[FEATURES:] / np.array(CONTACT_SCALE)[:, None] * ONE).astype(np.int32)
        w1 = w1[:FEATURES]
    single, base = _single_slot_features()
    rows = (single @ w1).reshape(26, COUNTS, -1)
    rows[0, 16:, :] = 0.0  # our checkers never sit on the opponent's bar, nor theirs on ours
    rows[25, :15, :] = 0.0
    tables = np.round(rows * ONE)
    bias = np.round((b1 + base @ w1) * ONE)
    race = np.round(w1[RACE_COLUMN] * ONE)
    weights2 = np.round(params["w2"].astype(np.float64).T * ONE)
    bias2 = np.round(params["b2"].astype(np.float64) * ONE * ONE)
    return Net(tables.astype(np.int32), bias.astype(np.int32), race.astype(np.int32),
               weights2.astype(np.int32), bias2.astype(np.int64), sigmoid_table(), contact, note=note)
