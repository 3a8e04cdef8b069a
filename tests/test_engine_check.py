"""``bgsim check ENGINE`` (``experiments/studies/engine_check.py``): every shipped bot served by
``bgsim ubgi`` reaches the full level over real pipes, GNU Backgammon's program and bgsage too,
and engines that misbehave are graded down, probe by probe."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import bots
from bgsim.board import Position
from bgsim.rules import legal_plays
from bots.ubgi import EngineSpec
from experiments import cli
from experiments.studies.engine_check import LEVELS, PROBES, format_report, run_check, served_spec

HERE = Path(__file__).resolve().parent
FAKE = HERE / "fake_ubgi_engine.py"  # the controller's tests' engine
RUDE = HERE / "rude_ubgi_engine.py"  # bgsim's server with one rule broken


def every_shipped_bot() -> list[str]:
    """Specs that seat every checker bot and every cube bot of the registry at least once."""
    checkers, cubes = list(bots.checker_bots()), [name for name in bots.cube_bots() if name != "none"]
    specs = [f"{checker}+{cube}" for checker, cube in zip(checkers, cubes)]
    specs += [f"random+{cube}" for cube in cubes[len(checkers):]]
    return specs + [checkers[-1]]  # and a bare checker: the none cube


def test_the_probes_are_what_they_say():
    """Each checker probe's roll is the case it names (the rules, not the engine, say so)."""
    by_name = {probe.name: probe for probe in PROBES}

    def plays(name):
        situation = by_name[name].situation
        return legal_plays(situation.position, situation.dice)

    assert plays("pass") == []
    assert all(len(play.moves) == 4 for play in plays("doubles"))
    assert all(play.moves[0][0] == 25 for play in plays("bar"))
    assert [play.notation for play in plays("bear-off")] == ["3/off(2)"]
    assert [play.notation for play in plays("larger-die")] == ["24/18"]
    assert by_name["crawford-cube"].allowed == ("nodouble",) == by_name["opponents-cube"].allowed
    assert {probe.level for probe in PROBES} == set(LEVELS[1:])


@pytest.mark.parametrize("spec", every_shipped_bot())
def test_every_shipped_bot_served_by_bgsim_ubgi_reaches_the_full_level(spec):
    report = run_check(served_spec(spec))
    assert report.level == "full", format_report(report)
    assert report.identity["id_name"] == f"bgsim {bots.make_player(spec).name}"


def fake(mode: str, name: str = "fake") -> EngineSpec:
    return EngineSpec(name, (sys.executable, str(FAKE), mode), timeout=20, start_timeout=60)


def test_an_engine_without_the_take_extension_stops_at_the_cube_level():
    report = run_check(fake("good"))  # legal plays, never doubles, no bgsim.take
    assert report.level == "cube", format_report(report)
    assert [answer.probe.name for answer in report.answers if not answer.ok] == ["take", "beaver", "match-take"]
    assert all(answer.answered == "(not asked)" for answer in report.answers if answer.probe.role == "take")


def test_an_engine_that_plays_illegal_moves_reaches_no_level_and_every_probe_is_still_asked():
    report = run_check(fake("illegal"))
    assert report.level == "none"
    played = [answer for answer in report.answers if answer.probe.role == "chequer"]
    assert len(played) == 8 and not any(answer.ok for answer in played)
    assert "24/10 13/12" in played[0].answered
    assert all(answer.ok for answer in report.answers if answer.probe.role == "cube")  # asked all the same


def rude(mode: str) -> EngineSpec:
    return EngineSpec(f"rude-{mode}", (sys.executable, str(RUDE), mode), timeout=20, start_timeout=60)


def test_an_engine_that_doubles_against_the_rules_stops_at_the_checker_level():
    report = run_check(rude("doubles"))
    assert report.level == "checker", format_report(report)
    assert {answer.probe.name for answer in report.answers if not answer.ok} == {"opponents-cube", "crawford-cube"}


def test_an_engine_that_beavers_where_beavers_are_not_allowed_stops_at_the_cube_level():
    report = run_check(rude("beavers"))
    assert report.level == "cube", format_report(report)
    assert {answer.probe.name for answer in report.answers if not answer.ok} == {"take", "match-take"}


def test_an_engine_silent_on_bad_lines_stops_at_the_cube_level():
    report = run_check(rude("silent"))
    assert all(answer.ok for answer in report.answers) and report.alive_after_errors
    assert report.level == "cube" and not any(ok for _, _, ok in report.errors)


def test_an_engine_that_cannot_start_is_level_none_in_one_line():
    report = run_check(EngineSpec("dead", (sys.executable, "-c", "import sys; sys.exit(3)"), timeout=5,
                                  start_timeout=5))
    assert report.level == "none" and report.identity is None and "dead" in report.start_error
    assert "compliance level: none" in format_report(report)


@pytest.mark.parametrize("spec", ["gnubg-program(plies=1)+gnubg-program", "bgsage(plies=2)+bgsage"])
def test_gnubg_program_and_bgsage_at_other_depths_reach_the_full_level(spec, gnubg):
    report = run_check(served_spec(spec))
    assert report.level == "full", format_report(report)


def test_bgsim_check_finds_ubgi_engines_in_an_engines_file_and_exits_by_the_level(tmp_path, capsys):
    engines = tmp_path / "engines.toml"
    engines.write_text(f'[engines.fake]\ncommand = [{sys.executable!r}, {str(FAKE)!r}, "good"]\n'.replace("'", '"'))
    assert cli.main(["check", "ubgi:fake", "--engines", str(engines), "--level", "cube"]) == 0
    out = capsys.readouterr().out
    assert "compliance level: cube" in out and "FAIL full    take" in out
    assert cli.main(["check", "ubgi:fake", "--engines", str(engines)]) == 1
    capsys.readouterr()
    assert cli.main(["check", "ubgi:nosuch", "--engines", str(engines)]) == 2
    assert cli.main(["check", "nosuchbot"]) == 2
    assert "nosuchbot" in capsys.readouterr().err


def test_gnubg_program_and_bgsage_play_a_match_through_the_controller_refereed(gnubg):
    """The two engines bgsim did not write, each served by ``bgsim ubgi`` and seated as
    ``ubgi:NAME`` (their own cubes, the take extension): a 3-point match of every decision
    refereed, no forfeit, and the engines' own answers once more by the game loop's rules."""
    from bgsim.match import play_match
    from bots.ubgi import UbgiPlayer

    gnubg_engine, sage_engine = UbgiPlayer(served_spec("gnubg-program+gnubg-program")), UbgiPlayer(
        served_spec("bgsage+bgsage"))
    try:
        record = play_match(gnubg_engine, sage_engine, seed=4, match=0, match_to=3)
    finally:
        gnubg_engine.close()
        sage_engine.close()
    assert record.games and not any(game.forfeit for game in record.games)
    assert max(sum(game.points for game in record.games if game.winner == side) for side in ("white", "black")) >= 3
    assert gnubg_engine.stats()["decisions"] > 10 and sage_engine.stats()["decisions"] > 10
