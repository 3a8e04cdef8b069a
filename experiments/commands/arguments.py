"""bgsim's one command-line vocabulary: every flag that means the same thing in several commands
is declared here once, with its type, its check and its help (README, "Using it", lists them).

* how much work: ``--games N`` (games, matches, rollout trials, deals per pairing) and
  ``--positions N`` (a sample of positions: audited, started from, compared, checked);
* how many cores: ``--threads N`` (threads or worker processes), every core by default, more
  than the machine has capped with one line (:func:`threads`);
* where the output goes: ``--out FILE`` for a command that writes one file, ``--out DIR`` for a
  results folder (default ``results/runs/NAME-TIMESTAMP``);
* ``--seed S`` (0 to 2**63-1, default 1), ``--resume`` / ``--force``, ``--no-progress``, ``--json``;
* exit status 0 done, 1 failed (a difference or check failed), 2 bad input, 130 interrupted.

Old spellings (``--jobs``, ``--starts``, ``--pairs``) still work for one release, with a
deprecation line on stderr (:func:`deprecated`).  A bad value is one error line, never
argparse's usage block (:class:`Parser`).
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from bgsim.cube import Rules

EXIT_DONE, EXIT_FAILED, EXIT_BAD_INPUT, EXIT_INTERRUPTED = 0, 1, 2, 130


class BadArguments(ValueError):
    """What argparse found wrong with the command line, as one line."""


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (``bgsim: error: --games must be at least
    1, got 0``) and exit status 2, like every other bad input; ``experiments.cli.main`` prints it."""

    def error(self, message: str):
        # "argument --games: must be at least 1, got 0" -> "--games must be at least 1, got 0"
        found = re.match(r"argument ([^:]+?)(/\S+)?: (.*)$", message, re.S)
        if found:
            flag, text = found.group(1), found.group(3)
            message = f"{flag} {text}" if re.match(r"(must|is|needs|expected) ", text) else f"{flag}: {text}"
        raise BadArguments(f"{message} (see `{self.prog} --help`)")


# --- types: each checks its value where it is read, with the flag's name in the message ----------


def whole(text: str, least: int = 1, flag: str = "") -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, got {text!r}") from None
    if value < least:
        raise argparse.ArgumentTypeError(f"must be at least {least}, got {value}")
    return value


def positive(text: str) -> int:
    """A whole number of at least 1 (games, positions, rounds)."""
    return whole(text, 1)


def non_negative(text: str) -> int:
    return whole(text, 0)


def seed(text: str) -> int:
    """A seed: a whole number from 0 to 2**63-1 (``0x`` hex accepted)."""
    from bgsim.dice import MAX_SEED

    try:
        value = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number from 0 to 2**63-1, got {text!r}") from None
    if not 0 <= value <= MAX_SEED:
        raise argparse.ArgumentTypeError(f"must be a whole number from 0 to 2**63-1, got {value}")
    return value


def threads(text: str) -> int:
    """How many cores: at least 1; more than this machine runs is lowered to its count with one
    line on stderr, the same for every command (threads of the fast engine or worker processes)."""
    from experiments.running.machine import cap_threads

    return cap_threads(whole(text, 1), _note)


def match_length(text: str) -> int:
    """``--match-to N``: 1 to 999 points.  There is no 0: money play is the default, without the flag."""
    value = whole(text, 1)
    if value > 999:
        raise argparse.ArgumentTypeError(f"must be 1 to 999 points, got {value}")
    return value


def _note(text: str) -> None:
    print(f"bgsim: {text}", file=sys.stderr, flush=True)


# --- the shared flags --------------------------------------------------------------------------


def games_flag(parser, what: str = "games to play", default: int | None = None, required: bool = False) -> None:
    """``--games N``: how many games (matches, trials, deals) a command plays."""
    shown = f" (default {default})" if default is not None else ""
    parser.add_argument("--games", type=positive, default=default, required=required, metavar="N",
                        help=f"{what}{shown}")


def positions_flag(parser, what: str, default: int, old: str | None = None, none: bool = False) -> None:
    """``--positions N``: how many positions a command samples (``old``: the spelling it had;
    ``none``: 0 is allowed, to skip that part)."""
    kind = non_negative if none else positive
    spellings = _spellings(parser, old)
    spellings.add_argument("--positions", type=kind, default=default, metavar="N",
                           help=f"{what} (default {default})")
    if old:
        deprecated(spellings, old, "--positions", kind)


def seed_flag(parser, what: str = "run seed: the same seed plays the same games", default: int | None = 1) -> None:
    shown = f" (default {default})" if default is not None else ""
    parser.add_argument("--seed", type=seed, default=default, metavar="S", help=f"{what}{shown}")


def threads_flag(parser, what: str = "threads of the fast engine", old: str | None = None,
                 default: str = "every core") -> None:
    """``--threads N`` (``old``: the spelling a command had before, kept for one release)."""
    spellings = _spellings(parser, old)
    spellings.add_argument("--threads", type=threads, default=None, metavar="N",
                           help=f"{what} (default: {default}; more than this machine has are capped)")
    if old:
        deprecated(spellings, old, "--threads", threads)


def _spellings(parser, old: str | None):
    """Where an option and its old spelling go: one of them at a time (given both, the last
    would win silently), so an error names the two."""
    return parser.add_mutually_exclusive_group() if old else parser


def refuse_threads_on_reference(threads: int | None, engine: str | None, external: bool = False) -> None:
    """``--threads`` beside the reference engine would be silently ignored: refuse it instead
    (``external``: an external engine is seated, whose games the reference engine plays side by
    side, one thread and engine process each)."""
    if threads is not None and engine == "reference" and not external:
        raise ValueError("--threads has no effect with --engine reference: the reference engine plays on one core")


def engines_flag(parser) -> None:
    """``--engines FILE``: the engines file where ``ubgi:NAME`` players are found first
    (``experiments/running/engines.py``)."""
    parser.add_argument("--engines", metavar="FILE", default=None,
                        help="engines file (TOML, [engines.NAME] command = [...]) where the engines of ubgi:NAME "
                             "players are looked up first, before the experiment file's [engines] and the user's "
                             "bgsim/engines.toml (default: those two; docs/UBGI.md)")


def refuse_engines(specs, why: str) -> None:
    """One line for an external engine (``ubgi:NAME``) given to a command that cannot seat one:
    ``why`` says why, and where it can play instead."""
    for spec in specs or ():
        if isinstance(spec, str) and "ubgi:" in spec:
            raise ValueError(f"{spec}: {why}")


def progress_flag(parser) -> None:
    parser.add_argument("--no-progress", action="store_true",
                        help="no progress bar (there is one only when stderr is a terminal)")


def json_flag(parser) -> None:
    parser.add_argument("--json", action="store_true", help="print one machine-readable JSON document")


def force_flag(parser, what: str) -> None:
    parser.add_argument("--force", action="store_true", help=f"overwrite {what}")


def out_file_flag(parser, suffix: str = ".parquet", what: str = "where the rows go", required: bool = True,
                  default: str | None = None) -> None:
    """``--out FILE``: the one file a command writes."""
    shown = f" (default {default})" if default is not None else ""
    parser.add_argument("--out", required=required, default=default, metavar=f"FILE{suffix}",
                        help=f"output file: {what}{shown}")


def match_flag(parser, what: str = "play matches to N points (Crawford rule)",
               money: str = "money games") -> None:
    """``--match-to N``: 1 to 999; without it, ``money``.  ``args.match_to`` is 0 for money play."""
    parser.add_argument("--match-to", type=match_length, default=0, metavar="N",
                        help=f"{what} (default: {money})")


def run_folder_flags(parser, replaces: str, name: str, resumes: bool = True) -> None:
    """The flags of a command that keeps a results folder (``experiments/running/folder.py``):
    ``--out`` (default ``results/runs/NAME-TIMESTAMP``), ``--resume`` (where its runs resume),
    ``--force`` (replacing ``replaces``) and ``--no-progress``."""
    parser.add_argument("--out", type=Path, default=None, metavar="DIR",
                        help=f"results folder (default results/runs/{name}-TIMESTAMP)")
    if resumes:
        parser.add_argument("--resume", action="store_true",
                            help="finish an unfinished run in --out (default: the newest unfinished one); "
                            "on a finished run, say so and show its results")
    parser.add_argument("--force", action="store_true", help=f"replace {replaces} in --out")
    progress_flag(parser)


def check_resume_force(args) -> None:
    if getattr(args, "resume", False) and getattr(args, "force", False):
        raise ValueError("--resume finishes a run and --force starts it again: choose one")


def cube_rules_flag(parser, example: str, default: str | None = None) -> None:
    """``--players``: the cube rules a study judges, as comma-separated specs (``split_specs``);
    required unless the study names a ``default`` (which its help then says)."""
    if default is None:
        parser.add_argument("--players", required=True, metavar="SPECS",
                            help=f"cube bot specs, comma-separated, e.g. {example}")
    else:
        parser.add_argument("--players", default=None, metavar="SPECS",
                            help=f"cube bot specs, comma-separated, e.g. {example} (default: {default})")


def gnubg_plies(text: str | None) -> int | None:
    """``--plies``: GNU Backgammon's evaluation depth as a whole number (checked in range by
    ``gnubg_program.check_plies``); None where not given.  Bad text is one error line (a
    ValueError), not argparse's usage."""
    if text is None:
        return None
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"--plies must be a whole number from 0 to 4, got {text!r}") from None


def deprecated(parser, old: str, new: str, kind) -> None:
    """``old`` still sets ``new`` for one release, with a line on stderr saying so; it is not in
    ``--help``."""
    def read(text: str):
        # said as the value is read, before what reading it says (``--jobs 100``: then the cap)
        _note(f"warning: {old} is now {new} (the old name goes in the next release)")
        return kind(text)

    read.__name__ = kind.__name__
    parser.add_argument(old, dest=new.lstrip("-").replace("-", "_"), type=read, help=argparse.SUPPRESS)


# --- options that only mean something together ---------------------------------------------------


def given(args, names) -> list[str]:
    """The flags among ``names`` (dest names) set to something other than their default
    (``args.defaults``: every option's default, which ``experiments.cli.build_parser`` records)."""
    defaults = getattr(args, "defaults", {})
    return ["--" + name.replace("_", "-") for name in names if getattr(args, name) != defaults.get(name)]


def refuse_given(args, names, context: str, why: str) -> None:
    """An error naming the options of ``names`` that were given, where (``context``: "without
    --players", "with --from") they would do nothing: an option is never silently ignored."""
    found = given(args, names)
    if found:
        them = found[0] if len(found) == 1 else ", ".join(found[:-1]) + " and " + found[-1]
        verb = "has" if len(found) == 1 else "have"
        raise ValueError(f"{them} {verb} no effect {context}: {why}")


def rules_flags(parser, play: str = "") -> None:
    """The rule options of money play (``play``: what they apply to, for the help)."""
    parser.add_argument("--no-cube", action="store_true", help=f"play without the doubling cube{play}")
    parser.add_argument("--max-cube", type=positive, default=64, metavar="V",
                        help=f"maximum cube value{play} (default 64)")
    parser.add_argument("--jacoby", action="store_true", help=f"Jacoby rule (money games){play}")
    parser.add_argument("--beaver", action="store_true", help=f"allow beavers (money games){play}")
    parser.add_argument("--automatic-doubles", type=non_negative, default=0, metavar="K",
                        help=f"automatic doubles per game on tied opening rolls (money games){play} (default 0)")


RULE_OPTIONS = ("no_cube", "max_cube", "jacoby", "beaver", "automatic_doubles")


def refuse_cube_options(args) -> None:
    """Cube options beside --no-cube would do nothing: refused, never ignored."""
    if args.no_cube:
        refuse_given(args, ["max_cube", "beaver", "jacoby", "automatic_doubles"], "with --no-cube",
                     "there is no cube to limit, beaver, or double automatically")


def refuse_cube_bots_without_a_cube(rules: Rules, players) -> None:
    """A cube bot in a game without a cube (``--no-cube``, or a variant that has none) would never
    be asked: refused in one line naming it."""
    from bgsim.variants import variant_of
    from bots.cube import NoCube

    if rules.cube and variant_of(rules.variant).cube:
        return
    why = f"in {rules.variant}, which has no doubling cube" if not variant_of(rules.variant).cube else "with --no-cube"
    for player in players:
        cube = getattr(player, "cube", None)
        if cube is not None and not isinstance(cube, NoCube):
            raise ValueError(f"{player.name}: its cube bot would never be asked {why}; give the checker bot "
                             "alone")



def rules_from_args(args) -> Rules:
    return Rules(
        cube=not args.no_cube,
        max_cube=args.max_cube,
        jacoby=args.jacoby,
        beaver=args.beaver,
        automatic_doubles=args.automatic_doubles,
        variant=getattr(args, "variant", "standard"),
        double_on_acey_deucey=getattr(args, "double_on_acey_deucey", False),
    )
