"""The ``bgsim`` command line.  Each group of subcommands lives in ``experiments/commands/``; the
flags they share, and what they mean, are ``experiments/commands/arguments.py``'s.

Bad input never ends in a traceback: errors that name the problem (``ValueError`` and its
subclasses, ``OSError``, the errors of ``experiments/errors.py``, a flag argparse refuses) print
one line and exit with status 2.  A fast engine that cannot be loaded (``bgsim/fast_loader.py``)
is one line too, and exit status 1; commands that do not need it never load it.  A command interrupted by Ctrl-C exits with 130, keeping what
was finished; a warning of bgsim's is one line, ``bgsim: warning: ...``.
"""

from __future__ import annotations

import importlib
import sys
import warnings

from bgsim import fast_loader, settings

from .commands.arguments import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_INTERRUPTED, Parser
from .errors import MissingDependency, RunError

# Modules that add subcommands; each has ``register(subparsers)``.
COMMAND_MODULES = (
    "experiments.commands.position",
    "experiments.commands.play",
    "experiments.commands.validate",
    "experiments.commands.bench",
    "experiments.commands.tournament",
    "experiments.commands.report",
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


# The module that registers each command: a command line that names one imports that module
# alone (the others import the studies, the training code, the interchange formats: a third of a
# second of a start), ``tests/test_compile_only_what_a_run_needs.py`` holds it to what the modules register.
COMMANDS = {
    "show": "experiments.commands.position", "moves": "experiments.commands.position",
    "play": "experiments.commands.play", "bots": "experiments.commands.play",
    "validate": "experiments.commands.validate", "bench": "experiments.commands.bench",
    "tournament": "experiments.commands.tournament", "run": "experiments.commands.tournament",
    "report": "experiments.commands.report", "met": "experiments.commands.met",
    "eval": "experiments.commands.eval", "bearoff": "experiments.commands.eval",
    "cube-audit": "experiments.commands.cube_audit", "cross-check": "experiments.commands.cross_check",
    "rollout": "experiments.commands.rollout", "train": "experiments.commands.train",
    "trace": "experiments.commands.trace", "chouette": "experiments.commands.chouette",
    "export": "experiments.commands.interchange", "import": "experiments.commands.interchange",
    "analyse": "experiments.commands.analyse",
}


def build_parser(command: str | None = None) -> Parser:
    """The parser of every command, or with ``command`` (a key of :data:`COMMANDS`) of the
    commands of its module only: all that a command line naming it can parse."""
    import bgsim

    parser = Parser(
        prog="bgsim",
        description="Backgammon simulation and bot evaluation.",
    )
    parser.add_argument("--version", action="version", version=f"bgsim {bgsim.__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in [COMMANDS[command]] if command in COMMANDS else COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as error:
            if error.name == name:
                continue  # that group of commands is not built yet
            raise
        module.register(subparsers)
    _record_defaults(parser)
    return parser


def commands(parser: Parser) -> dict[str, Parser]:
    """Every command's parser by its name ("bearoff build" for a nested one)."""
    found = {}
    for action in parser._actions:
        if not isinstance(action.choices, dict):  # a subcommand's parsers, not an option's choices
            continue
        for name, child in action.choices.items():
            if isinstance(child, Parser):
                found[name] = child
                found.update({f"{name} {inner}": grandchild for inner, grandchild in commands(child).items()})
    return found


def _record_defaults(parser: Parser) -> None:
    """Each command's defaults in ``args.defaults``, so a command can tell which options were
    given (``arguments.given``): an option that would do nothing is refused, never ignored."""
    for command in commands(parser).values():
        command.set_defaults(defaults={action.dest: action.default for action in command._actions})


def _warning_line(message, category, filename, lineno, file=None, line=None) -> None:
    print(f"bgsim: warning: {message}", file=sys.stderr if file is None else file, flush=True)


def main(argv: list[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else argv
    try:
        parser = build_parser(words[0] if words else None)
    except Exception as error:
        return _fast_engine_failed(error)
    try:
        args = parser.parse_args(argv)
    except ValueError as error:  # arguments.BadArguments: argparse's complaint, as one line
        print(f"bgsim: error: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if not getattr(args, "handler", None):
        parser.print_help()
        return EXIT_BAD_INPUT
    shown = warnings.showwarning
    warnings.showwarning = _warning_line  # one line, without the source line under it
    try:
        settings.kernels_mode()  # a bad setting is said before the command's first line
        return int(args.handler(args) or 0)
    except BrokenPipeError:  # output piped into `head` and the like: not an error
        return 0
    except KeyboardInterrupt:
        print("bgsim: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except (ValueError, OSError, MissingDependency, RunError, NotImplementedError) as error:
        print(f"bgsim: error: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except Exception as error:
        return _fast_engine_failed(error)
    finally:
        warnings.showwarning = shown


def _fast_engine_failed(error: Exception) -> int:
    """A fast engine that cannot be loaded, in one line (exit 1); any other error goes on up."""
    line = fast_loader.failure(error)
    if line is None:
        raise error
    print(f"bgsim: error: {line}", file=sys.stderr)
    return EXIT_FAILED


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
