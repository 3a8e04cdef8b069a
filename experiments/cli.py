"""The ``bgsim`` command line.  Each group of subcommands lives in ``experiments/commands/``.

Bad input never ends in a traceback: errors that name the problem (``ValueError`` and its
subclasses, ``OSError``, the errors of ``experiments/errors.py``) print one line and exit with
status 2.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from .errors import MissingDependency, RunError

# Modules that add subcommands; each has ``register(subparsers)``.
COMMAND_MODULES = (
    "experiments.commands.position",
    "experiments.commands.play",
    "experiments.commands.validate",
    "experiments.commands.bench",
    "experiments.commands.tournament",
    "experiments.commands.met",
    "experiments.commands.eval",
    "experiments.commands.cube_audit",
    "experiments.commands.cross_check",
    "experiments.commands.rollout",
    "experiments.commands.train",
    "experiments.commands.trace",
    "experiments.commands.chouette",
    "experiments.commands.interchange",
    "experiments.commands.analyse",
)


def build_parser() -> argparse.ArgumentParser:
    import bgsim

    parser = argparse.ArgumentParser(
        prog="bgsim",
        description="Backgammon simulation and bot evaluation.",
    )
    parser.add_argument("--version", action="version", version=f"bgsim {bgsim.__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as error:
            if error.name == name:
                continue  # that group of commands is not built yet
            raise
        module.register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "handler", None):
        parser.print_help()
        return 2
    try:
        return int(args.handler(args) or 0)
    except BrokenPipeError:  # output piped into `head` and the like: not an error
        return 0
    except KeyboardInterrupt:
        print("bgsim: interrupted", file=sys.stderr)
        return 130
    except (ValueError, OSError, MissingDependency, RunError, NotImplementedError) as error:
        print(f"bgsim: error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
