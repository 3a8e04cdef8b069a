"""What goes wrong is said as what it is (issue 31): a program bgsim drives that crashes or hangs
is a failure (exit 1), not bad input, and is given up on in time after saying it waits; Ctrl-C
during the start is one line; an interrupted chouette counts the games it kept; long phases
estimate from their pace after the first units; intervals are not drawn from one game; a rule
that gives no decision is named; a match run is judged under its own variant."""

from __future__ import annotations

import builtins
import math
import sys

import pandas as pd
import pytest

from experiments import cli
from experiments.running import progress


@pytest.fixture
def fake_gnubg(tmp_path, monkeypatch):
    """A ``gnubg`` on PATH that does what the test writes into it."""
    folder = tmp_path / "bin"
    folder.mkdir()

    def make(body: str) -> None:
        program = folder / "gnubg"
        program.write_text(f"#!/bin/sh\n{body}\n")
        program.chmod(0o755)
        monkeypatch.setenv("PATH", f"{folder}:{__import__('os').environ['PATH']}")

    return make


def test_a_crashing_gnubg_is_a_failure_not_bad_input(capsys, fake_gnubg):
    fake_gnubg("echo 'Segmentation fault'; exit 139")
    assert cli.main(["eval", "4HPwATDgc/ABMA", "--judge", "gnubg", "--plies", "0"]) == 1
    err = capsys.readouterr().err
    assert "bgsim: error: gnubg stopped before section 1" in err and "Segmentation fault" in err


def test_a_gnubg_that_never_answers_is_given_up_on_in_time_and_said_first(capsys, fake_gnubg, monkeypatch):
    from bots import gnubg_process  # the one adapter to gnubg: it sets the wait, eval says it

    fake_gnubg("exec sleep 600")
    monkeypatch.setattr(gnubg_process, "answer_within", lambda states, plies: 1.0)
    assert cli.main(["eval", "4HPwATDgc/ABMA", "--judge", "gnubg", "--plies", "0"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err[0] == "asking GNU Backgammon for its 0-ply cube analysis (waiting at most 1 s)"
    assert "did not answer within 1 s" in err[-1]


def test_ctrl_c_while_the_commands_load_is_one_line(capsys, monkeypatch):
    def interrupted(command=None):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "build_parser", interrupted)
    assert cli.main(["play", "random", "random", "--games", "1", "--out", "x.parquet"]) == 130
    assert capsys.readouterr().err == "bgsim: interrupted\n"


def test_ctrl_c_while_python_loads_bgsim_is_one_line(capsys, monkeypatch):
    from experiments import launch

    real = builtins.__import__

    def loading(name, *args, **kwargs):
        if name == "experiments.cli":
            raise KeyboardInterrupt
        return real(name, *args, **kwargs)

    monkeypatch.delitem(sys.modules, "experiments.cli")
    monkeypatch.setattr(builtins, "__import__", loading)
    assert launch.main() == 130
    assert capsys.readouterr().err == "bgsim: interrupted\n"


def test_an_interrupted_chouette_counts_the_whole_games_it_kept(tmp_path, capsys, monkeypatch):
    from bgsim import chouette

    play, calls = chouette._Game.play, []

    def interrupted(self):
        calls.append(1)
        if len(calls) == 8:
            raise KeyboardInterrupt  # in the eighth game of the first batch: seven were finished
        return play(self)

    monkeypatch.setattr(chouette._Game, "play", interrupted)
    out = tmp_path / "c.parquet"
    assert cli.main(["chouette", "random", "random", "random", "--games", "2000", "--engine", "reference",
                     "--out", str(out), "--no-progress"]) == 130
    assert pd.read_parquet(out)["game"].nunique() == 7
    assert "interrupted after 7 of 2,000 games: the 21 rows of the 7 finished games" in capsys.readouterr().err


def test_a_phase_does_not_trust_its_first_slow_unit_alone(monkeypatch):
    clock = iter([0.0, 60.0, 62.0, 63.0])  # the first match builds the tables: 60 s; the second takes 2 s

    class Clock:
        @staticmethod
        def perf_counter():
            return next(clock)

    monkeypatch.setattr(progress, "time", Clock)
    said = []
    phase = progress.Phase("judging", 10, "matches", False, said.append)
    phase.update(1)
    phase.update(1)
    phase.close()
    assert said == ["judging: about 16 s to go at ~0.5 matches/s"]  # not 9 minutes


def test_an_error_rate_of_one_game_with_decisions_has_no_interval_not_one_of_no_width():
    from experiments.analysis.gnubg_analysis import ratio_interval

    rate, half = ratio_interval([7.32, 0.0, 0.0], [100, 0, 0])  # cube errors: one game had decisions
    assert rate == pytest.approx(0.0732) and math.isnan(half)
    rate, half = ratio_interval([7.0, 3.0], [100, 100])
    assert half > 0


def test_a_contact_audit_names_the_rules_that_gave_no_decision(tmp_path, capsys, gnubg):
    assert cli.main(["cube-audit", "--judge", "gnubg", "--plies", "0", "--contact", "--positions", "2",
                     "--per-game", "2", "--seed", "5", "--players", "pipdiff,keith", "--out", str(tmp_path / "a"),
                     "--no-progress"]) == 0
    captured = capsys.readouterr()
    assert "keith gave no decision: it speaks in races only, and every position judged is in contact" in captured.err
    assert "1 rules; 1 more gave none" in captured.out


def test_a_match_run_with_a_variant_is_judged_under_its_variant(monkeypatch):
    from bgsim.cube import Rules
    from bgsim.series import play_games
    from bots import make_player
    from experiments.analysis.match_judge import judge_run

    monkeypatch.setenv("BGSIM_MATCH_BEAROFF_CHECKERS", "2")
    white, black = make_player("random+pipdiff"), make_player("heuristic+pipdiff")
    rows = play_games(white, black, 3, 2, Rules(variant="nackgammon"), match_to=3, engine="reference")
    rows = rows.assign(pairing=0, leg=0, condition="base")
    judged = judge_run(rows, 2)
    assert len(judged) == 2 and set(judged["match_to"]) == {3}
