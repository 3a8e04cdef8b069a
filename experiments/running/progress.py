"""The progress bar of long commands, and their long phases (:class:`Phase`): every phase that
can run past a few seconds (playing, judging, sampling, analysing) has a bar, says early how long
it will take, and is timed, so that a command's last line and its ``run.json`` give every phase's
time."""

from __future__ import annotations

import shutil
import sys
import time
from typing import Callable


class Progress:
    """A tqdm bar on stderr when it is a terminal (tqdm's ``disable=None``); nothing otherwise."""

    def __init__(self, total: int, initial: int = 0, unit: str = "games", enabled: bool = True) -> None:
        self.bar = None
        if enabled:
            try:
                from tqdm import tqdm

                # A pseudo-terminal can report zero columns, which would hide the bar.
                width = shutil.get_terminal_size((0, 0)).columns
                sized = {"dynamic_ncols": True} if width >= 40 else {"ncols": 100}
                self.bar = tqdm(total=total, initial=initial, unit=f" {unit}", unit_scale=True,
                                file=sys.stderr, disable=None, smoothing=0.1, **sized,
                                bar_format="{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}<{remaining}, {rate_fmt}]")
            except ImportError:  # tqdm is a dependency, but a bar is not worth failing over
                self.bar = None

    def update(self, count: int) -> None:
        if self.bar is not None:
            self.bar.update(count)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def duration(seconds: float) -> str:
    """A rough duration for estimates: '40 s', '12 min', '3.5 h', '9 days'."""
    if seconds != seconds:
        return "unknown"
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    if seconds < 48 * 3600:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:,.0f} days"


ESTIMATE_AFTER = 2.0  # seconds into a phase before its rate is trusted for an estimate


class Phase:
    """A long phase: a bar over ``total`` ``unit``, one line with the time left once the phase
    has run ``ESTIMATE_AFTER`` seconds (none if it is done sooner), and its time, added to
    ``times`` (name -> seconds) when it ends.  ``initial`` units were done before (a resume).

    The first units done carry what the phase does once (tables built, kernels compiled, a
    program started): where more than two units are to come, the rate is the one measured after
    them, so that a first slow match does not promise half an hour for seconds of work."""

    def __init__(self, name: str, total: int, unit: str, progress: bool = True,
                 log: Callable[[str], None] = print, times: dict | None = None, initial: int = 0) -> None:
        self.name, self.total, self.unit, self.log = name, total, unit, log
        self.times = times if times is not None else {}
        self.bar = Progress(total, initial, unit, progress)
        self.done = initial
        self.started = time.perf_counter()
        self.first = initial  # units done when the clock started
        self.estimated = False
        self.seconds = 0.0
        self.warm: tuple[float, int] | None = None  # (clock, units) after the first units

    def update(self, count: int) -> None:
        self.bar.update(count)
        self.done += count
        now = time.perf_counter()
        since, base = self.started, self.first
        if self.total - self.first > 2:
            if self.warm is None:
                self.warm = (now, self.done)
                return
            since, base = self.warm
        elapsed = now - since
        if not self.estimated and elapsed >= ESTIMATE_AFTER and base < self.done < self.total and elapsed > 0:
            self.estimated = True
            rate = (self.done - base) / elapsed
            self.log(f"{self.name}: about {duration((self.total - self.done) / rate)} to go at "
                     f"~{rate:,.1f} {self.unit}/s")

    def close(self) -> float:
        """End the phase: its seconds (also added to ``times``)."""
        if self.bar is not None:
            self.bar.close()
            self.bar = None
            self.seconds = time.perf_counter() - self.started
            self.times[self.name] = round(self.times.get(self.name, 0.0) + self.seconds, 1)
        return self.seconds

    def __enter__(self) -> "Phase":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def phase_line(times: dict) -> str:
    """'sampling 12.3 s, judging 3 min': every phase's time, for a command's last line."""
    return ", ".join(f"{name} {seconds:.1f} s" if seconds < 60 else f"{name} {duration(seconds)}"
                     for name, seconds in times.items())


def remaining_seconds(done, left) -> float:
    """The seconds the work ``left`` will take, learnt from the work ``done``.

    ``done``: (kind, expected seconds, seconds it took) of each finished piece; ``left``: (kind,
    expected seconds) of each piece still to run, the expectations from a cost model (say plies
    times seconds per ply).  The overall pace (seconds taken over seconds expected, everything
    done) says how this machine, its load and its cores compare with the model's; a kind runs at
    its own pace, counted together with one average piece at the overall pace, so that one odd
    piece (the first of its kind, which loads tables, nets or compiled code) moves its kind only
    part of the way; a kind not yet seen runs at the overall pace; with nothing done, everything
    runs as expected.  Pure (no clock), so the estimate can be checked on constructed numbers."""
    if not done:
        return sum(model for _, model in left)
    taken, expected = {}, {}
    for kind, model, seconds in done:
        taken[kind] = taken.get(kind, 0.0) + seconds
        expected[kind] = expected.get(kind, 0.0) + model
    all_expected = sum(expected.values())
    if all_expected <= 0:
        return sum(model for _, model in left)
    overall = sum(taken.values()) / all_expected
    weight = all_expected / len(done)  # one average piece
    pace = {kind: (taken[kind] + overall * weight) / (expected[kind] + weight) for kind in expected}
    return sum(model * pace.get(kind, overall) for kind, model in left)
