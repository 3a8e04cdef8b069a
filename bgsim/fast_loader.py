"""The one way in to the fast engine from outside it: :func:`load`, and one line when it fails.

The reference engine (``bgsim`` outside ``bgsim/fast/``) and every bot's reference half never
import the fast engine: they run where Numba cannot be imported, and a broken fast module
breaks only the fast engine.  What plays in either engine (``bgsim/series.py``,
``bgsim/rollout.py``, ``bgsim/chouette_sessions.py``) loads it here when a run asks for it, and
so do the bear-off tables, whose numbers only the kernels compute (``bgsim/bearoff/building.py``
says why); ``tests/test_imports.py`` holds every other module to that.

A module of the fast engine that cannot be imported (Numba missing, a syntax error, a layout
naming a kernel that does not exist) is a :class:`FastEngineError` of one line naming the file
and line where it failed; ``bgsim``'s command line prints :func:`failure` of the error however
deep in a command the import happened.
"""

from __future__ import annotations

import importlib
import traceback
from pathlib import Path

FAST = Path(__file__).resolve().parent / "fast"
HINT = "the reference engine plays without it (--engine reference)"


class FastEngineError(RuntimeError):
    """The fast engine cannot be loaded; the message is one line."""


def load(module: str = "", needed_for: str = ""):
    """``bgsim.fast`` (or its ``module``, e.g. ``"bearoff"``), imported on first use.

    ``needed_for``: what asks, for the message (``"building the bear-off tables"``); without it
    the message says that the reference engine plays without the fast one."""
    name = "bgsim.fast" + (f".{module}" if module else "")
    try:
        return importlib.import_module(name)
    except Exception as error:  # noqa: BLE001 (any failure of its code is the engine's)
        raise FastEngineError(failure(error, needed_for) or _line(_what(error), needed_for)) from error


def failure(error: BaseException, needed_for: str = "") -> str | None:
    """One line for ``error`` when it was raised while a module of the fast engine was being
    imported (its module-level code, or Numba's import under it), else None."""
    if isinstance(error, FastEngineError):
        return str(error)
    where = None
    for frame in traceback.extract_tb(error.__traceback__):  # the deepest of the engine's modules
        if frame.name == "<module>" and _inside(frame.filename):
            where = f"{_short(frame.filename)}:{frame.lineno}"
    if isinstance(error, SyntaxError) and error.filename and _inside(error.filename):
        where = f"{_short(error.filename)}:{error.lineno}"  # the file that does not parse
    if where is None:
        return None
    return _line(f"{where}: {_what(error)}", needed_for)


def _line(reason: str, needed_for: str) -> str:
    if needed_for:
        return f"{needed_for} needs the fast engine, which cannot be loaded: {reason}"
    return f"the fast engine cannot be loaded: {reason}; {HINT}"


def _what(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0] if text else ''}".rstrip(": ")


def _inside(filename: str) -> bool:
    try:
        return Path(filename).resolve().is_relative_to(FAST)
    except (OSError, ValueError):
        return False


def _short(filename: str) -> str:
    return str(Path(filename).resolve().relative_to(FAST.parent.parent))
