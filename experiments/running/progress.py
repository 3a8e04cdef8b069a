"""The progress bar of long commands (``run``, ``tournament``, ``play``, ``validate``)."""

from __future__ import annotations

import shutil
import sys


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
