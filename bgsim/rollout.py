"""Rollouts: a position played out many times by one checker player, cubeless, on the fast engine
(the standard game, or hypergammon).

Every trial starts from the position with the side on roll (white in the engine) before its
roll.  Two kinds of variance reduction, both of which leave the mean of every pair of trials an
unbiased estimate (of its class of first rolls, below):

* **Stratified first two rolls** (GNU Backgammon's quasi-random dice): in every block of 36
  trials each of the 36 first rolls occurs once, and in every 1,296 trials each (first, second)
  pair of rolls once.  Which pair class a block's trials take, and which second roll goes with
  which block, are random permutations drawn from the seed, so a run cut short is still an
  unbiased sample.
* **Mirrored pairs**: trials 2k and 2k+1 share the dice stream of game k, the second reading
  every die as 7 - d (first rolls included: the pair's first and second rolls are mirror images),
  so a lucky trial is paired with an unlucky one.

The standard errors honour both: the unit is a pair (its mean), the strata are the 18 classes of
first roll {r, mirror(r)}, each of weight 2/36, and the variance is the stratified one,
sum of w_h^2 s_h^2 / n_h.  With fewer than two pairs in some class it falls back to the plain
variance of the pair means (which ignores the stratification, so it errs on the wide side); the
sampling of second rolls without replacement is not credited either (also on the wide side).
Measured against independent trials (2,592 each, nn or the bear-off player): the variance falls
by about 10 % in races and bear-offs and not measurably from the opening or in the middle game,
where the two rolls decide little of a long game.

With ``truncate`` a trial stops once both sides have borne in (a pure bear-off, covered by the
one-sided database) and counts the exact expectation ``bgsim.bearoff.evaluate`` gives there.

Trials run on the fast engine alone, so this module sits above both engines
(``tests/test_imports.py``) and loads it when a rollout starts (``bgsim/fast_loader.py``); the
design and the estimate are plain numpy.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from . import fast_loader
from .board import Position
from .dice import check_seed

KEYS = ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon")
ROLLS = 36  # ordered rolls (a, b), index 6 * (a - 1) + (b - 1); mirror(index) = 35 - index
CLASSES = 18  # pair classes of first roll: {c, 35 - c} for c in 0..17
SUPER_BLOCK = ROLLS * ROLLS  # 1,296 trials: every (first, second) pair once
BATCH_PER_THREAD = 144  # trials per thread and engine call, between progress updates and Ctrl-C checks


@dataclass(frozen=True)
class RolloutResult:
    """Cubeless chances of the side on roll, each with its standard error; ``games`` trials."""

    position_id: str
    player: str
    seed: int
    games: int
    requested: int
    truncated: bool
    probabilities: dict[str, float]
    equity: float
    se: dict[str, float]  # the five keys and "equity"

    @property
    def interrupted(self) -> bool:
        return self.games < self.requested

    def as_dict(self) -> dict:
        """The JSON of ``bgsim rollout --json``: the five chances, ``equity``, ``se``, ``games``."""
        return {
            "position_id": self.position_id, **self.probabilities, "equity": self.equity,
            "se": dict(self.se), "games": self.games, "requested": self.requested,
            "player": self.player, "seed": self.seed, "truncated": self.truncated,
        }


def _roll(index: np.ndarray) -> np.ndarray:
    """Ordered roll indices as dice, shape (..., 2)."""
    return np.stack((index // 6 + 1, index % 6 + 1), axis=-1)


def design(seed: int, first: int, count: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Trials ``first`` .. ``first + count - 1`` of a rollout with ``seed``: (game numbers,
    mirror flags, first-two-roll indices (count, 2)).  A trial's design depends only on (seed,
    its index), so a shorter rollout is the start of a longer one."""
    trials = np.arange(first, first + count, dtype=np.int64)
    block = trials // ROLLS
    slot = (trials % ROLLS) // 2
    member = trials % 2
    rolls = np.zeros((count, 2), dtype=np.int64)
    for big in np.unique(trials // SUPER_BLOCK):
        rng = np.random.default_rng([seed, int(big)])
        orders = np.array([rng.permutation(CLASSES) for _ in range(ROLLS)])  # per block: classes in order
        seconds = np.array([rng.permutation(ROLLS) for _ in range(CLASSES)])  # per class: second roll by block
        here = trials // SUPER_BLOCK == big
        inner = block[here] % ROLLS
        classes = orders[inner, slot[here]]
        rolls[here, 0] = classes
        rolls[here, 1] = seconds[classes, inner]
    rolls[member == 1] = 35 - rolls[member == 1]
    return trials // 2, member == 1, rolls


def _outcomes(rows: np.ndarray, finals: np.ndarray, exact: Callable) -> np.ndarray:
    """Each trial's five chances and equity from white's side (the side on roll at the start)."""
    game = fast_loader.load("game")  # the row layout of the fast engine's games
    out = np.zeros((len(rows), 6))
    for i, row in enumerate(rows):
        if row[game.COL_RESULT] == game.RESULT_STOPPED:
            chances = exact(finals[i].tobytes())
            if row[game.COL_WINNER] != game.WHITE:  # the board is seen from black, on roll there
                win, wg, wb, lg, lb = chances
                chances = (1.0 - win, lg, lb, wg, wb)
        else:
            result = int(row[game.COL_RESULT])  # 0 single, 1 gammon, 2 backgammon
            won = row[game.COL_WINNER] == game.WHITE
            gammon, backgammon = float(result >= 1), float(result >= 2)
            chances = (1.0, gammon, backgammon, 0.0, 0.0) if won else (0.0, 0.0, 0.0, gammon, backgammon)
        out[i, :5] = chances
    from .bearoff import cubeless_equity  # the one definition of cubeless equity

    out[:, 5] = cubeless_equity(out[:, :5].T)  # columnwise: each probability a column
    return out


def estimate(values: np.ndarray, classes: np.ndarray, pairs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(mean, standard error) of each column of ``values`` (one row per trial), trials grouped
    into units by ``pairs`` and the units stratified by their first roll's ``classes``."""
    units, where = np.unique(pairs, return_inverse=True)
    sums = np.zeros((len(units), values.shape[1]))
    np.add.at(sums, where, values)
    sizes = np.bincount(where, minlength=len(units)).astype(float)
    means = sums / sizes[:, None]
    unit_class = np.zeros(len(units), dtype=np.int64)
    unit_class[where] = np.minimum(classes, 35 - classes)
    counts = np.bincount(unit_class, minlength=CLASSES)
    if counts.min() >= 2:
        mean = np.zeros(values.shape[1])
        variance = np.zeros(values.shape[1])
        for h in range(CLASSES):
            part = means[unit_class == h]
            mean += part.mean(axis=0) / CLASSES
            variance += part.var(axis=0, ddof=1) / len(part) / CLASSES ** 2
        return mean, np.sqrt(variance)
    mean = means.mean(axis=0)
    if len(means) < 2:
        return mean, np.full(values.shape[1], math.nan)
    return mean, means.std(axis=0, ddof=1) / math.sqrt(len(means))


def check_rollout_variant(variant: str, truncate: bool = False) -> None:
    """The games a rollout plays out: the standard game and hypergammon (no checkers in hand);
    truncation at the bear-off databases in the standard game only (they know no hypergammon
    gammon).  A ValueError in one line for anything else."""
    if variant != "standard" and not variant.startswith("hypergammon"):
        raise ValueError(f"rollouts roll out positions of the standard game and of hypergammon, not {variant}")
    if truncate and variant != "standard":
        raise ValueError(f"--truncate stops at the bear-off databases of the standard game: {variant}'s "
                         "gammons are not in them")


def rollout(position: Position, player, games: int, seed: int = 1, truncate: bool = False,
            threads: int | None = None, batch: int | None = None,
            on_batch: Callable[[int], None] | None = None,
            should_stop: Callable[[], bool] | None = None) -> RolloutResult:
    """Play ``position`` out ``games`` times with ``player`` (both sides, no cube).

    ``on_batch(done)`` is called after each batch of trials; when ``should_stop()`` turns true
    the rollout ends after the batch in flight and reports the trials done.  ``batch``: trials
    per engine call (default 144 a thread).  A finished game or a player the fast engine cannot
    run is a ValueError.
    """
    fast = fast_loader.load()
    import numba  # importable: the fast engine is loaded

    if not isinstance(position, Position):
        raise TypeError(f"rollout needs a Position, got {type(position).__name__}")
    check_rollout_variant(position.variant, truncate)
    if position.checkers_off == position.checkers or position.opponent_checkers_off == position.checkers:
        raise ValueError(f"position {position.position_string} is a finished game: nothing to roll out")
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise ValueError(f"a rollout needs a whole number of games of at least 1, got {games!r}")
    check_seed(seed)
    if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int) or threads < 1):
        raise ValueError(f"threads must be a whole number of at least 1, got {threads!r}")
    if batch is None:
        batch = BATCH_PER_THREAD * (threads or numba.get_num_threads())
    if batch < 2 or batch % 2:
        raise ValueError(f"a rollout batch is an even number of trials, got {batch}")
    try:
        fast.player_halves(player)
    except ValueError as error:  # its hint (the reference engine) is no option for a rollout
        reason = str(error).split("; use ")[0]
        raise ValueError(f"{reason}; rollouts run on the fast engine only") from None
    cache: dict[bytes, tuple[float, ...]] = {}

    def exact(board: bytes) -> tuple[float, ...]:
        if board not in cache:
            from . import bearoff

            seen = Position(tuple(int(v) for v in np.frombuffer(board, dtype=np.int8)))
            cache[board] = bearoff.evaluate(seen).probabilities
        return cache[board]

    values, classes, pairs = [], [], []
    done = 0
    while done < games:
        count = min(batch, games - done)
        numbers, mirror, rolls = design(seed, done, count)
        rows, finals = fast.play_trials(player, seed, numbers, position, _roll(rolls), mirror,
                                        truncate, threads)
        values.append(_outcomes(rows, finals, exact))
        classes.append(rolls[:, 0])
        pairs.append(numbers)
        done += count
        if on_batch is not None:
            on_batch(done)
        if should_stop is not None and should_stop():
            break
    mean, se = estimate(np.concatenate(values), np.concatenate(classes), np.concatenate(pairs))
    names = KEYS + ("equity",)
    return RolloutResult(
        position_id=position.position_string, player=getattr(player, "name", "?"), seed=seed,
        games=done, requested=games, truncated=bool(truncate),
        probabilities={key: float(mean[k]) for k, key in enumerate(KEYS)}, equity=float(mean[5]),
        se={key: float(se[k]) for k, key in enumerate(names)},
    )
