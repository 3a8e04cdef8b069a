"""The two databases, built by bgsim's own kernels and kept in the cache folder (building needs
the fast engine, reading does not: ``building.py`` says why).

One-sided (every position of up to 15 checkers on the six home points, 54,264 of them): the
distribution of the number of rolls to bear off, each side playing to minimise its expected
number of rolls, and of the number of rolls to bear off the first checker.  Two sides are
then combined by convolution, as GNU Backgammon does: exact for the play it assumes, but each
side races its own race and ignores the other's (a side that should play for a gammon-saving
checker off, or for fewer misses when behind, is not modelled).

Two-sided (every pair of positions of up to ``checkers`` checkers each): exact chances and
money equities with the cube, each side playing perfectly for the quantity at stake.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from .. import bearoff_numbering as numbering, settings
from ..bearoff_numbering import MAX_CHECKERS
from . import building, store

# Average pips of a roll, doubles counted twice: 2 * 3.5 + (1/6) * 2 * 3.5 = 49/6 = 8.1667.
PIPS_PER_ROLL = 49.0 / 6.0
DEFAULT_TWO_SIDED_CHECKERS = settings.BEAROFF_CHECKERS.default
# A side with 15 checkers has none off and can be gammoned: the two-sided tables assume no
# gammons, so they stop below 15 (memory stops them long before).
MAX_TWO_SIDED_CHECKERS = 10


@lru_cache(maxsize=1)
def _all_positions() -> np.ndarray:
    return numbering.all_positions(MAX_CHECKERS)


def position_number(counts) -> int:
    """GNU Backgammon's bear-off number of six home-point counts (points 1..6)."""
    counts = np.asarray(counts, dtype=np.int64)
    if counts.shape != (6,) or counts.min() < 0 or counts.sum() > MAX_CHECKERS:
        raise ValueError(f"not a bear-off position: {counts.tolist()}")
    return numbering.rank(counts)


def counts_of(number: int) -> tuple[int, ...]:
    return tuple(int(c) for c in _all_positions()[number])


@dataclass(frozen=True)
class OneSided:
    """``rolls_off[n, k]``: chance position ``n`` bears off in exactly ``k`` rolls;
    ``first_off[n, k]``: the same for its first checker; ``mean[n]``: expected rolls."""

    rolls_off: np.ndarray
    first_off: np.ndarray
    mean: np.ndarray
    build_seconds: float | None = None

    def probabilities(self, own: int, opponent: int) -> tuple[float, float, float, float, float]:
        """Cubeless (win, win gammon, win backgammon, lose gammon, lose backgammon) of the side
        on roll with position number ``own`` against ``opponent``, both not empty.

        The side on roll finishes on its ``n``-th roll having let the opponent roll ``n - 1``
        times, so it wins when the opponent needs ``n`` rolls or more; it is gammoned when the
        opponent finishes on its ``m``-th roll before the side on roll took a checker off in
        ``m`` rolls.  No backgammon: every checker is in its own home board."""
        mine, theirs = self.rolls_off[own], self.rolls_off[opponent]
        # at_least[n] = P(needs >= n rolls)
        theirs_at_least = theirs[::-1].cumsum()[::-1]
        their_first_at_least = self.first_off[opponent][::-1].cumsum()[::-1]
        my_first_at_least = self.first_off[own][::-1].cumsum()[::-1]
        win = float(mine @ theirs_at_least)
        win_gammon = float(mine @ their_first_at_least)
        lose_gammon = float(theirs[:-1] @ my_first_at_least[1:])
        return (min(win, 1.0), win_gammon, 0.0, lose_gammon, 0.0)

    def effective_pip_count(self, number: int) -> float:
        """Expected rolls to bear off times 49/6, the average pips of a roll: Walter Trice's
        effective pip count (Backgammon Boot Camp, 2004), as GNU Backgammon reports it."""
        return float(self.mean[number]) * PIPS_PER_ROLL

    def effective_pip_counts(self) -> np.ndarray:
        """:meth:`effective_pip_count` of every position, by number."""
        return self.mean * PIPS_PER_ROLL


@dataclass(frozen=True)
class TwoSided:
    """Tables indexed ``[side on roll, opponent]`` by position number, from the side on roll,
    per unit of cube: see ``bgsim.fast.bearoff.two_sided``."""

    checkers: int
    win: np.ndarray
    rolls_centred: np.ndarray
    rolls_owned: np.ndarray
    opponent_owns: np.ndarray
    build_seconds: float | None = None

    def covers(self, own_checkers: int, opponent_checkers: int) -> bool:
        return own_checkers <= self.checkers and opponent_checkers <= self.checkers


def build_one_sided() -> OneSided:
    """The one-sided database, computed now (by the fast engine's kernels: ``building.py``)."""
    kernels = building.kernels("the one-sided bear-off database")
    started = time.perf_counter()
    positions = _all_positions()
    starts, targets = kernels.successors(positions, kernels.ROLLS, kernels.BINOMIALS)
    rolls_off, first_off, mean = kernels.one_sided(
        positions, starts, targets, kernels.ROLL_WEIGHTS, kernels.MAX_CHECKERS
    )
    return OneSided(rolls_off, first_off, mean, time.perf_counter() - started)


def build_two_sided(checkers: int) -> TwoSided:
    """The two-sided database of ``checkers`` a side, computed now (by the fast engine's kernels)."""
    check_two_sided_checkers(checkers)
    kernels = building.kernels(f"the two-sided bear-off database of {checkers} checkers")
    started = time.perf_counter()
    positions = _all_positions()[: numbering.position_count(checkers)]
    starts, targets = kernels.successors(positions, kernels.ROLLS, kernels.BINOMIALS)
    tables = kernels.two_sided(positions, starts, targets, kernels.ROLL_WEIGHTS)
    return TwoSided(checkers, *tables, build_seconds=time.perf_counter() - started)


def default_two_sided_checkers() -> int:
    """``$BGSIM_BEAROFF_CHECKERS`` if set (a machine short of memory or time may want fewer),
    else ``DEFAULT_TWO_SIDED_CHECKERS``."""
    return checkers_from_environment(settings.BEAROFF_CHECKERS)


def checkers_from_environment(setting: settings.Setting) -> int:
    """A table size from the environment variable of ``setting`` if set, else its default."""
    text = (setting.text() or "").strip()
    if not text:
        return setting.default
    try:
        checkers = int(text)
    except ValueError:
        raise ValueError(f"{setting.name} must be a whole number, got {text!r}") from None
    check_two_sided_checkers(checkers)
    return checkers


def check_two_sided_checkers(checkers) -> None:
    if not isinstance(checkers, int) or isinstance(checkers, bool) or not 1 <= checkers <= MAX_TWO_SIDED_CHECKERS:
        raise ValueError(
            f"a two-sided bear-off database holds 1 to {MAX_TWO_SIDED_CHECKERS} checkers a side, got {checkers!r}"
        )


def _load_or_build(kind: str, checkers: int, cubeful: bool, build, folder: Path):
    """Read the cached file; when it is missing or stale, build and write it (a folder that
    cannot be written only costs the next process a rebuild)."""
    path = folder / store.file_name(kind, checkers)
    wanted = store.expected_header(kind, checkers, cubeful)
    try:
        return store.read(path, wanted), None
    except store.StaleDatabase:
        pass
    built = build()
    arrays = {name: getattr(built, name) for name in ARRAYS[kind]}
    try:
        store.write(path, wanted, arrays)
        (folder / f"bearoff-{kind}-6x{checkers}.bin").unlink(missing_ok=True)  # named before the code hash was
    except OSError as error:
        reason = error.strerror or str(error)
        warnings.warn(f"could not keep the {kind} bear-off database in {path.parent} ({reason}): every "
                      f"process builds it again; set {settings.CACHE.name} to a folder you can write",
                      stacklevel=3)
    return arrays, built.build_seconds


ARRAYS = {
    "one-sided": ("rolls_off", "first_off", "mean"),
    "two-sided": ("win", "rolls_centred", "rolls_owned", "opponent_owns"),
}


def one_sided(folder: Path | None = None) -> OneSided:
    """The one-sided database, from the cache folder (built there first if needed); read once
    per process and folder."""
    return _one_sided(Path(folder) if folder else store.cache_dir())


def two_sided(checkers: int | None = None, folder: Path | None = None) -> TwoSided:
    """The two-sided database of up to ``checkers`` a side (default: see
    ``default_two_sided_checkers``), from the cache folder (built there first if needed); read
    once per process, size and folder."""
    if checkers is None:
        checkers = default_two_sided_checkers()
    check_two_sided_checkers(checkers)
    return _two_sided(checkers, Path(folder) if folder else store.cache_dir())


@lru_cache(maxsize=None)
def _one_sided(folder: Path) -> OneSided:
    arrays, seconds = _load_or_build("one-sided", MAX_CHECKERS, False, build_one_sided, folder)
    return OneSided(**arrays, build_seconds=seconds)


@lru_cache(maxsize=None)
def _two_sided(checkers: int, folder: Path) -> TwoSided:
    arrays, seconds = _load_or_build("two-sided", checkers, True, lambda: build_two_sided(checkers), folder)
    return TwoSided(checkers, **arrays, build_seconds=seconds)
