"""The command line's help and version: every command described, every positional explained, specs
shown as they are typed.
"""

from __future__ import annotations

import re

import pytest

from bots import make_player
from experiments import cli


def test_version(capsys):
    import bgsim

    with pytest.raises(SystemExit) as done:
        cli.main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out.strip() == f"bgsim {bgsim.__version__}"


def test_every_command_has_a_description_and_every_positional_a_help():
    parser = cli.build_parser()
    (subparsers,) = [a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction"]
    assert {"show", "moves", "bots", "report", "play", "run", "tournament"} <= set(subparsers.choices)
    for name, command in subparsers.choices.items():
        assert command.description, f"bgsim {name} has no description"
        for action in command._actions:
            if not action.option_strings:
                assert action.help, f"bgsim {name}: {action.metavar or action.dest} has no help"


def test_help_shows_specs_as_they_are_typed(capsys):
    with pytest.raises(SystemExit):
        cli.main(["play", "--help"])
    out = capsys.readouterr().out
    assert "%%" not in out
    spec = re.search(r"'(heuristic\+pipdiff\([^']*%[^']*\))'", out.replace("\n", " ").replace("  ", " ")).group(1)
    assert make_player(spec).cube is not None  # what the help shows can be copied


def test_bots_lists_none_with_its_meaning(capsys):
    assert cli.main(["bots"]) == 0
    assert re.search(r"^  none\s+\S", capsys.readouterr().out, re.M)
