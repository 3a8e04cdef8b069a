"""Errors of the experiments layers that the command line turns into one line and exit 2."""


class MissingDependency(RuntimeError):
    """An optional dependency a command needs is not installed."""
