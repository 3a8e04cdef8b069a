"""Every environment variable bgsim reads: its name, its default and what it means.

Nothing else in bgsim, bots or experiments reads the environment (``tests/test_settings.py``
fails on an ``os.environ`` or ``getenv`` anywhere else), so this list is complete, and the
README's "Settings" section lists the same names.  A module that needs a variable reads it with
``SETTING.text()`` here; a child process gets its environment from :func:`environment`.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping


@dataclass(frozen=True)
class Setting:
    name: str
    default: object  # what applies when the variable is unset or empty
    meaning: str

    def text(self) -> str | None:
        """The variable's value as set, or None when it is unset or empty."""
        return os.environ.get(self.name) or None


CACHE = Setting(
    "BGSIM_CACHE", "the user cache folder + bgsim (~/.cache/bgsim on Linux)",
    "the folder of the bear-off database files")
BEAROFF_CHECKERS = Setting(
    "BGSIM_BEAROFF_CHECKERS", 8,
    "checkers a side in the two-sided bear-off database (1 to 10; fewer for a machine short of memory)")
MATCH_BEAROFF_CHECKERS = Setting(
    "BGSIM_MATCH_BEAROFF_CHECKERS", 6,
    "checkers a side in the exact match tables (`judge_cube`, `exact` in matches)")
STOP_AFTER = Setting(
    "BGSIM_STOP_AFTER", None,
    "for tests: K or K:SIGNAL makes a run, `bgsim play`, `chouette`, `rollout`, `cube-audit` or "
    "`cross-check` send itself SIGNAL (default SIGINT) right after its K-th chunk or batch is written")
XDG_CACHE_HOME = Setting(
    "XDG_CACHE_HOME", "~/.cache", "Linux: the user cache folder, when BGSIM_CACHE is not set")
LOCALAPPDATA = Setting(
    "LOCALAPPDATA", "~/AppData/Local", "Windows: the user cache folder, when BGSIM_CACHE is not set")
XDG_CONFIG_HOME = Setting(
    "XDG_CONFIG_HOME", "~/.config",
    "Linux: the user config folder, whose bgsim/engines.toml declares the engines `ubgi:NAME` seats")
APPDATA = Setting(
    "APPDATA", "~/AppData/Roaming", "Windows: the user config folder (bgsim/engines.toml)")
KERNELS = Setting(
    "BGSIM_KERNELS", "run",
    "`run`: a run compiles only its own bots' kernels; `all`: every run plays on the kernels of "
    "every bot, compiled once and then loaded (a machine that runs many different sets of bots, "
    "such as the test suite, pays one long compile instead of one per set)")
NUMBA_NUM_THREADS = Setting(
    "NUMBA_NUM_THREADS", "every core",
    "read by Numba: the most threads the fast engine may use (--threads asks for fewer)")
NUMBA_CACHE_DIR = Setting(
    "NUMBA_CACHE_DIR", "__pycache__ beside the sources",
    "read by Numba: where compiled kernels are kept; `bgsim bench` gives its cold-compile child "
    "an empty one")

PYTHONDONTWRITEBYTECODE = Setting(
    "PYTHONDONTWRITEBYTECODE", "unset",
    "read by Python: when set, no bytecode cache; `bgsim bench` records it, as every start it times "
    "then compiles its modules from source")

SETTINGS = (CACHE, BEAROFF_CHECKERS, MATCH_BEAROFF_CHECKERS, STOP_AFTER, KERNELS, XDG_CACHE_HOME, LOCALAPPDATA,
            XDG_CONFIG_HOME, APPDATA, NUMBA_NUM_THREADS, NUMBA_CACHE_DIR, PYTHONDONTWRITEBYTECODE)


def kernels_mode() -> str:
    """``BGSIM_KERNELS`` as set ("run" when unset), or an error naming what it may be."""
    wanted = KERNELS.text() or "run"
    if wanted not in ("run", "all"):
        raise ValueError(f"BGSIM_KERNELS={wanted!r}: expected 'run' (each run compiles its own bots' "
                         f"kernels) or 'all' (every bot's kernels, for every run)")
    return wanted


def environment(**changes: str) -> dict[str, str]:
    """This process's environment with ``changes`` (each a setting above), for a child process."""
    unknown = sorted(set(changes) - {setting.name for setting in SETTINGS})
    if unknown:
        raise ValueError(f"not a bgsim setting: {', '.join(unknown)} (declare it in bgsim/settings.py)")
    return {**os.environ, **changes}


def config_folder() -> Path:
    """bgsim's folder under the platform's user config folder: ``$XDG_CONFIG_HOME/bgsim``
    (``~/.config/bgsim``) on Linux, ``~/Library/Application Support/bgsim`` on macOS,
    ``%APPDATA%\\bgsim`` on Windows."""
    home = Path.home()
    if sys.platform == "win32":
        base = APPDATA.text()
        return (Path(base) if base else home / "AppData" / "Roaming") / "bgsim"
    if sys.platform == "darwin":
        return home / "Library" / "Application Support" / "bgsim"
    base = XDG_CONFIG_HOME.text()
    return (Path(base) if base else home / ".config") / "bgsim"


def engine_environment(extra: Mapping[str, str]) -> dict[str, str]:
    """An external engine's environment: this process's, with what its engines file sets
    (``env``; names of the engine's, not bgsim's)."""
    return {**os.environ, **extra}
