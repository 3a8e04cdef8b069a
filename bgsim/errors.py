"""The errors of a run that are not bad values: an optional dependency missing, a run that cannot
start or go on.  Below every package (``bgsim`` <- ``bots`` <- ``experiments``), so that a bot
driving an outside program raises what ``bgsim`` (``experiments/cli.py``) prints as one line and
exit status 2; ``experiments/errors.py`` hands them on with the errors of experiments.
"""

from __future__ import annotations


class MissingDependency(RuntimeError):
    """An optional dependency a command needs is not installed."""


class RunError(RuntimeError):
    """A run that cannot start or go on (the message says what to do about it)."""


class ToolFailed(RuntimeError):
    """An external program bgsim drives (GNU Backgammon's) crashed, hung or answered what cannot
    be read: no fault of the input, so not bad input (exit 1, the message quotes what it said)."""
