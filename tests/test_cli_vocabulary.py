"""One command line, one vocabulary (issue 23): every command's parser, walked from
``experiments.cli.build_parser()``, uses the same flag for the same idea, shows every default in
its help, caps cores the same way with the same line, and keeps the old spellings for a release."""

from __future__ import annotations

import argparse
import re

import pytest

from conftest import one_error_line, race_id
from experiments import cli
from experiments.commands import arguments

PARSER = cli.build_parser()
COMMANDS = cli.commands(PARSER)

# the one flag for each idea; the words another command might have used for it
SYNONYMS = {
    "--threads": ("--jobs", "--workers", "--processes", "--cores", "--procs"),
    "--games": ("--trials", "--deals", "--matches", "--rounds-of-games"),
    "--positions": ("--starts", "--pairs", "--samples-of-positions"),
    "--out": ("--output", "--dir", "--folder-out", "--outfile"),
    "--seed": ("--random-seed", "--rng"),
    "--no-progress": ("--quiet", "--no-bar"),
}
OLD_SPELLINGS = {"validate": {"--jobs": "--threads"}, "cross-check": {"--jobs": "--threads", "--starts": "--positions"},
                 "bearoff check": {"--pairs": "--positions"}}


def options(command: argparse.ArgumentParser):
    """(flag, action) for every option shown in --help."""
    for action in command._actions:
        if action.help == argparse.SUPPRESS or not action.option_strings:
            continue
        if isinstance(action, (argparse._HelpAction, argparse._VersionAction)):
            continue
        yield action.option_strings[-1], action


def required_words(command: argparse.ArgumentParser) -> list[str]:
    """Words that satisfy a command's required arguments (to parse one flag of it alone)."""
    words = []
    for action in command._actions:
        if not action.option_strings and action.nargs not in ("?", "*", argparse.PARSER, argparse.SUPPRESS):
            words += ["1"] * (action.nargs if isinstance(action.nargs, int) else 1)
        elif action.option_strings and action.required:
            words += [action.option_strings[0], "1"]
    return words


def parse(name: str, *words: str):
    return PARSER.parse_args(name.split() + required_words(COMMANDS[name]) + list(words))


def test_every_command_is_walked():
    assert {"play", "run", "tournament", "validate", "cube-audit", "cross-check", "rollout", "chouette",
            "bearoff check", "bearoff build", "met", "report", "export", "import", "analyse", "bench",
            "train", "trace", "eval"} <= set(COMMANDS)


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_one_flag_for_one_idea(name):
    shown = {flag for flag, _ in options(COMMANDS[name])}
    for flag, others in SYNONYMS.items():
        assert not shown & set(others), f"bgsim {name} says {sorted(shown & set(others))} where bgsim says {flag}"


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_the_shared_flags_are_the_shared_declarations(name):
    """The same idea is read and checked by the same code in every command."""
    for flag, action in options(COMMANDS[name]):
        if flag == "--threads":
            assert action.type is arguments.threads and action.default is None, name
        elif flag == "--seed":
            assert action.type is arguments.seed, name
        elif flag == "--games" and action.metavar in ("SELECTION", "FILE"):  # which games a reader takes
            assert (name, action.metavar) in (("export", "SELECTION"), ("analyse", "SELECTION"),
                                              ("cube-audit", "FILE")), name
        elif flag in ("--games", "--positions"):
            assert action.type in (arguments.positive, arguments.non_negative), (name, flag)
        elif flag == "--match-to":
            assert action.type is arguments.match_length and action.default == 0, name
        elif flag == "--out":
            assert action.metavar in ("DIR",) or action.metavar.startswith("FILE"), (name, action.metavar)
            if action.metavar == "DIR":
                assert "results folder" in action.help, name
            else:
                assert action.help.startswith("output file"), (name, action.help)
        elif flag in ("--no-progress", "--json", "--resume", "--force"):
            assert isinstance(action, argparse._StoreTrueAction), (name, flag)


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_option_with_a_default_shows_it_in_its_help(name):
    for flag, action in options(COMMANDS[name]):
        if isinstance(action, (argparse._StoreTrueAction, argparse._StoreConstAction)) or action.required:
            continue
        text = " ".join((action.help or "").split())
        assert "default" in text, f"bgsim {name} {flag}: its help does not say its default"
        if action.default is not None and action.type is not arguments.match_length:  # 0: money play
            shown = str(action.default)
            assert shown in text.replace(",", "") or f"{action.default:,}" in text, \
                f"bgsim {name} {flag}: its help does not show the default {action.default!r}"


@pytest.mark.parametrize("name", sorted(name for name, command in COMMANDS.items()
                                        if any(flag == "--resume" for flag, _ in options(command))))
def test_a_command_that_resumes_also_forces_and_can_be_quiet(name):
    shown = {flag for flag, _ in options(COMMANDS[name])}
    assert {"--resume", "--force", "--no-progress", "--out"} <= shown, name


@pytest.mark.parametrize("name", sorted(name for name, command in COMMANDS.items()
                                        if any(flag == "--threads" for flag, _ in options(command))))
def test_threads_beyond_the_machine_are_capped_alike_in_every_command(name, capsys):
    from experiments.running.machine import thread_limit

    args = parse(name, "--threads", "100")
    assert args.threads == thread_limit()  # never 100 processes or threads
    err = capsys.readouterr().err.strip()
    assert err == f"bgsim: --threads 100: this machine runs at most {thread_limit()} threads; using {thread_limit()}"


@pytest.mark.parametrize("name", sorted(name for name, command in COMMANDS.items()
                                        if any(flag == "--threads" for flag, _ in options(command))))
@pytest.mark.parametrize("value", ["0", "-1", "two"])
def test_a_bad_thread_count_is_the_same_one_line_everywhere(name, value, capsys):
    with pytest.raises(arguments.BadArguments) as refused:
        parse(name, "--threads", value)
    text = str(refused.value)
    expected = "--threads must be a whole number" if value == "two" else f"--threads must be at least 1, got {value}"
    assert text.startswith(expected), text


@pytest.mark.parametrize("name, old, new", [(name, old, new) for name, spellings in OLD_SPELLINGS.items()
                                            for old, new in spellings.items()])
def test_old_spellings_work_for_one_release_with_a_deprecation_line(name, old, new, capsys):
    args = parse(name, old, "1")
    assert getattr(args, new.lstrip("-")) == 1
    assert capsys.readouterr().err.strip() == (f"bgsim: warning: {old} is now {new} "
                                               "(the old name goes in the next release)")
    assert old not in COMMANDS[name].format_help()


@pytest.mark.parametrize("name, old, new", [(name, old, new) for name, spellings in OLD_SPELLINGS.items()
                                            for old, new in spellings.items()])
def test_an_old_spelling_beside_its_new_one_is_refused_not_last_wins(name, old, new, capsys):
    for words in ([old, "1", new, "2"], [new, "2", old, "1"]):
        with pytest.raises(arguments.BadArguments) as refused:
            parse(name, *words)
        assert old in str(refused.value) and new in str(refused.value)


def test_an_old_spelling_is_named_before_what_its_value_says(capsys):
    from experiments.running.machine import thread_limit

    args = parse("cross-check", "--jobs", "100")
    assert args.threads == thread_limit()  # --jobs 100 never starts 100 processes
    assert capsys.readouterr().err.splitlines() == [
        "bgsim: warning: --jobs is now --threads (the old name goes in the next release)",
        f"bgsim: --threads 100: this machine runs at most {thread_limit()} threads; using {thread_limit()}"]
    with pytest.raises(arguments.BadArguments, match=r"^--jobs must be at least 1, got 0"):
        parse("validate", "--jobs", "0")  # a bad value is blamed on the flag the user typed


def test_a_flag_argparse_refuses_is_one_line_and_exit_2(capsys):
    assert cli.main(["play", "random", "random", "--games", "0", "--out", "x.parquet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("bgsim: error: --games must be at least 1, got 0")
    assert "usage:" not in err
    assert cli.main(["cube-audit", "--positions", "5"]) == 2  # a required flag missing
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--players" in err and "usage:" not in err


def test_the_usage_page_documents_the_vocabulary():
    from pathlib import Path

    text = (Path(__file__).resolve().parent.parent / "docs" / "USAGE.md").read_text(encoding="utf-8")
    using = text[text.index("## Players, options and exit codes"):text.index("## Settings")]
    for flag in ("--games", "--positions", "--threads", "--out", "--seed", "--resume", "--force",
                 "--no-progress", "--json", "--match-to"):
        assert re.search(rf"\| [^|]* \| `{flag}", using), f"docs/USAGE.md's vocabulary lacks {flag}"
    for status in ("0 done", "1 failed", "2 bad input", "130"):
        assert status in using
    assert "--jobs" not in text.replace("`--jobs` (now `--threads`)", "")


# --- an option that would do nothing is refused, and says why --------------------------------

@pytest.mark.parametrize("words, named", [
    (["validate", "--match-to", "5", "--games", "1"], "--match-to has no effect without --players"),
    (["validate", "--jacoby", "--max-cube", "8"], "--max-cube and --jacoby have no effect without --players"),
    (["met", "3", "5", "--gammon-rate", "0.9"], "--gammon-rate has no effect with --table kazaross-xg2"),
    (["met", "--table", "derived", "--from-player", "racer", "--gammon-rate", "0.3"],
     "--gammon-rate has no effect with --from-player"),
    (["met", "--games", "100"], "--games has no effect without --from-player"),
    (["met", "--seed", "4"], "--seed has no effect without --from-player"),
    (["met", "--post-crawford"], "--post-crawford has no effect without a score A B"),
    (["met", "3", "5", "--size", "4"], "--size has no effect with a score A B"),
    (["play", "random", "random", "--games", "2", "--out", "x.parquet", "--match-to", "0"],
     "--match-to must be at least 1, got 0"),
    (["trace", "random", "random", "--match-to", "0"], "--match-to must be at least 1, got 0"),
    (["chouette", "random", "random", "random", "--games", "2", "--out", "c.parquet", "--match-to", "0"],
     "--match-to must be at least 1, got 0"),
    (["play", "random", "random", "--games", "2", "--out", "x.parquet", "--engine", "reference", "--threads", "1"],
     "--threads has no effect with --engine reference"),
    (["run", "threshold_sweep", "--games", "1", "--engine", "reference", "--threads", "2"],
     "--threads has no effect with --engine reference"),
    (["tournament", "--games", "1", "--engine", "reference", "--threads", "1"],
     "--threads has no effect with --engine reference"),
    (["bench", "--margin", "0.5"], "--margin has no effect without --compare"),
    (["rollout", "4HPwATDgc/ABMA", "--player", "heuristic+pipdiff"], "rollouts are cubeless"),
])
def test_an_option_with_no_effect_is_an_error_that_says_why(words, named, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert cli.main(words) == 2
    assert named in one_error_line(capsys)
    assert list(tmp_path.iterdir()) == []  # nothing started, nothing written


def test_run_refuses_threads_when_the_files_engine_is_the_reference(tmp_path, capsys):
    experiment = tmp_path / "slow.toml"
    experiment.write_text('name = "slow"\nplayers = ["random", "racer"]\ngames = 2\nseed = 1\n'
                          'engine = "reference"\n')
    assert cli.main(["run", str(experiment), "--threads", "2", "--out", str(tmp_path / "out")]) == 2
    assert "--threads has no effect with --engine reference" in one_error_line(capsys)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("words, why", [
    (["gnubg", "random"], "gnubg vs random is played by the reference engine"),  # a bot the fast engine lacks
])
def test_threads_where_the_reference_engine_plays_is_an_error_that_says_why(words, why, tmp_path, capsys):
    out = tmp_path / "games.parquet"
    assert cli.main(["play", *words, "--games", "2", "--threads", "2", "--out", str(out), "--no-progress"]) == 2
    assert f"--threads has no effect here: {why}, on one core" in one_error_line(capsys)
    assert list(tmp_path.iterdir()) == []


def test_a_results_folder_defaults_to_results_runs_in_every_command_that_keeps_one(tmp_path, capsys, monkeypatch):
    PARSER = cli.build_parser()
    keeping = {name: command for name, command in cli.commands(PARSER).items()
               if any("--resume" in action.option_strings for action in command._actions)
               and any(action.metavar == "DIR" for action in command._actions if "--out" in action.option_strings)}
    assert {"run", "tournament", "cube-audit", "cross-check"} <= set(keeping)
    for name, command in keeping.items():
        (out,) = [action for action in command._actions if "--out" in action.option_strings]
        assert not out.required and out.default is None, name
        named = "NAME" if name in ("run", "tournament") else name  # run: the experiment's name
        assert f"default results/runs/{named}-TIMESTAMP" in out.help, name
    monkeypatch.chdir(tmp_path)
    (tmp_path / "races.txt").write_text(race_id() + "\n")
    assert cli.main(["cube-audit", "--players", "keith", "--from", "races.txt", "--no-progress"]) == 0
    (folder,) = (tmp_path / "results" / "runs").iterdir()
    assert folder.name.startswith("cube-audit-") and (folder / "summary.md").exists()
