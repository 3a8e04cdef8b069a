"""The errors of experiments, below every layer so that any module may raise them.

``bgsim`` (``experiments/cli.py``) prints each as one line and exits with status 2 (bad input),
but :class:`ToolFailed` with status 1: the input was fine, a program bgsim drives failed.
"""

from __future__ import annotations

from bgsim.errors import MissingDependency, RunError, ToolFailed  # defined below bots, which raise them too


class ExperimentError(ValueError):
    """An experiment file (or a flag overriding it) that cannot be run as written."""


class InUse(RunError):
    """An output another bgsim process is writing (``experiments.running.files.claim``)."""


class WriteError(OSError):
    """A file that could not be written; the message names it and what to do about it."""

    def __str__(self) -> str:  # the message alone, without OSError's "[Errno 28]" prefix
        return self.strerror or super().__str__()
