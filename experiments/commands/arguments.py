"""Arguments the commands share: whole numbers, seeds, the flags of a results folder."""

from __future__ import annotations

import argparse
from pathlib import Path

from bgsim.cube import Rules


def positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected at least 1, got {value}")
    return value


def seed(text: str) -> int:
    try:
        value = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a seed is a whole number, got {text!r}") from None
    return value


def run_folder_flags(parser, replaces: str, resumes: bool = True) -> None:
    """The flags of a command that keeps a results folder (``experiments/running/folder.py``):
    ``--out``, ``--resume`` (where its runs resume), ``--force`` (replacing ``replaces``) and
    ``--no-progress``."""
    parser.add_argument("--out", type=Path, required=True, metavar="DIR", help="results folder")
    if resumes:
        parser.add_argument("--resume", action="store_true", help="finish an interrupted run in --out")
    parser.add_argument("--force", action="store_true", help=f"replace {replaces} in --out")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def cube_rules_flag(parser, example: str) -> None:
    """``--players``: the cube rules a study judges, as comma-separated specs (``split_specs``)."""
    parser.add_argument("--players", required=True, metavar="SPECS",
                        help=f"cube bot specs, comma-separated, e.g. {example}")


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
