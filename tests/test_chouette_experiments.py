"""Chouette experiments (``mode = "chouette"``): one session per condition, its chunks in order,
resume and Dask as any run, the report from the rows, the takes and drops judged against the
two-sided bear-off database."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bgsim import bearoff
from bgsim.board import Position
from bgsim.chouette import Seating, play_chouette
from bgsim.chouette_sessions import play_chouettes
from bgsim.cube import Rules
from bots import make_player
from experiments import cli
from experiments.analysis.chouette_report import pair_comparisons, t_two_sided_p
from experiments.errors import ExperimentError
from experiments.running.config import experiment_from_mapping, load_experiment
from experiments.running.folder import CHOUETTE_JUDGE_FILE, load_rows
from experiments.studies.chouette_judge import judge_table
from experiments.studies.experiment import run_experiment

# cheap players that double, take and drop; the third's nn cube doubles early
PLAYERS = ["heuristic+pipdiff", "racer+keith", "heuristic+nn", "racer+always-take"]
SHIPPED = Path(__file__).resolve().parent.parent / "experiments"


def small(**changes):
    data = {"mode": "chouette", "players": PLAYERS, "games": 12, "chunk": 5, "seed": 5, "engine": "fast",
            "conditions": {"team": {"seats": 3}, "individual": {"seats": 3, "chouette_cubes": "individual"},
                           "four": {"jacoby": True, "beaver": True}}}
    data.update(changes)
    return experiment_from_mapping(data, "small.toml", "small")


def run(experiment, folder, **options):
    return run_experiment(experiment, folder, progress=False, log=lambda text: None, **options)


@pytest.fixture(scope="module")
def whole(tmp_path_factory):
    """An uninterrupted small run: what every resumed run must equal."""
    result = run(small(), tmp_path_factory.mktemp("whole") / "run")
    return result.folder, result.frame


def test_every_table_plays_the_session_bgsim_chouette_plays(whole):
    _, frame = whole
    tables = [(PLAYERS[:3], Rules(), "team"), (PLAYERS[:3], Rules(), "individual"),
              (PLAYERS, Rules(jacoby=True, beaver=True), "team")]
    assert sorted(frame["table"].unique()) == [0, 1, 2]
    for index, (specs, rules, regime) in enumerate(tables):
        rows = frame[frame["table"] == index]
        assert set(rows["condition"]) == {["team", "individual", "four"][index]}
        expected = play_chouettes([make_player(spec) for spec in specs], 5, 12, rules, regime, engine="reference")
        pd.testing.assert_frame_equal(rows.drop(columns=["table", "condition"]).reset_index(drop=True), expected)


def _bgsim(toml: Path, out: Path, *extra: str, stop_after: str | None = None):
    env = {key: value for key, value in os.environ.items() if key != "BGSIM_STOP_AFTER"}
    if stop_after:
        env["BGSIM_STOP_AFTER"] = stop_after
    return subprocess.run([sys.executable, "-m", "experiments", "run", str(toml), "--out", str(out), "--no-progress",
                           *extra], cwd=toml.parent, capture_output=True, text=True, timeout=600, env=env)


def _write(path: Path) -> Path:
    players = ", ".join(f'"{spec}"' for spec in PLAYERS)
    path.write_text(f'mode = "chouette"\nplayers = [{players}]\ngames = 12\nchunk = 5\nseed = 5\n'
                    '[conditions.team]\nseats = 3\n[conditions.individual]\nseats = 3\nchouette_cubes = "individual"\n'
                    '[conditions.four]\njacoby = true\nbeaver = true\n', encoding="utf-8")
    return path


def test_a_killed_chouette_run_resumes_from_the_seats_its_chunks_left(tmp_path, whole):
    # killed right after its fourth chunk file: table 0's three chunks and table 1's first are on
    # disk, so the resumed session continues table 1 from the seats its first chunk left
    toml = _write(tmp_path / "small.toml")
    out = tmp_path / "run"
    stopped = _bgsim(toml, out, stop_after="4:SIGKILL")
    assert stopped.returncode == -signal.SIGKILL
    kept = sorted(path.name for path in (out / "chunks").glob("*.parquet"))
    assert kept == [f"pairing-000-chunk-000{c}.parquet" for c in range(3)] + ["pairing-001-chunk-0000.parquet"]
    resumed = _bgsim(toml, out, "--resume")
    assert resumed.returncode == 0, resumed.stderr
    assert "4 finished chunks on disk" in resumed.stderr
    record = json.loads((out / "run.json").read_text())
    assert record["status"] == "finished" and record["games"] == 36
    assert record["games_played_last_session"] == 36 - 17  # 12 + 5 games were kept
    pd.testing.assert_frame_equal(load_rows(out), whole[1])


def test_an_interrupted_chouette_run_keeps_its_chunks_and_resume_equals_a_whole_run(tmp_path, monkeypatch, whole):
    monkeypatch.setenv("BGSIM_STOP_AFTER", "2")  # SIGINT once the second chunk is on disk
    with pytest.raises(KeyboardInterrupt):
        run(small(), tmp_path / "run")
    assert len(list((tmp_path / "run" / "chunks").glob("*.parquet"))) == 2
    monkeypatch.delenv("BGSIM_STOP_AFTER")
    result = run(small(), tmp_path / "run", resume=True)
    pd.testing.assert_frame_equal(result.frame, whole[1])
    assert (result.folder / "summary.md").read_text() == (whole[0] / "summary.md").read_text().replace(
        str(whole[0]), str(result.folder))


def test_a_chouette_run_on_a_dask_cluster_plays_the_same_rows(tmp_path, whole):
    pytest.importorskip("distributed")  # the dask extra (installed with the test extra)
    result = run(small(engine="auto"), tmp_path / "dask", dask="local:2", dask_options={"processes": False})
    pd.testing.assert_frame_equal(result.frame, whole[1])


def test_the_report_separates_pairs_compares_regimes_and_report_rebuilds_it(whole, capsys):
    folder, frame = whole
    summary = (folder / "summary.md").read_text()
    for words in ("## Table `team`: 3 players, team cubes", "## Table `individual`: 3 players, individual cubes",
                  "## Table `four`: 4 players, team cubes, jacoby=True, beaver=True",
                  "## The team's cube against individual cubes", "`team` against `individual` (3 players)",
                  "pairs of players are separated"):
        assert words in summary
    table = pd.read_csv(folder / "summary.csv")
    assert set(table["section"]) == {"player", "seat", "pair", "regime"}
    # the regime comparison is the per-game difference of the two tables' points, by hand
    team, individual = (frame[frame["table"] == index] for index in (0, 1))
    regime = table[table["section"] == "regime"].set_index("player")
    for number, spec in enumerate(PLAYERS[:3]):
        mine = [rows[rows["player"] == number].set_index("game")["points"] for rows in (team, individual)]
        assert regime.loc[spec, "difference"] == pytest.approx((mine[0] - mine[1]).mean(), rel=1e-5)  # %.6g
    (folder / "summary.md").unlink()
    assert cli.main(["report", str(folder)]) == 0
    assert "Rewrote" in capsys.readouterr().out
    assert (folder / "summary.md").read_text() == summary


def test_bgsim_report_reads_a_chouette_runs_games_file_as_its_folder(whole, capsys):
    folder, _ = whole
    assert cli.main(["report", str(folder / "games.parquet")]) == 0
    assert "Rewrote" in capsys.readouterr().out


def test_bgsim_report_prints_a_chouette_files_summary(tmp_path, capsys):
    out = tmp_path / "rows.parquet"
    assert cli.main(["chouette", *PLAYERS[:3], "--games", "6", "--out", str(out), "--no-progress"]) == 0
    printed = capsys.readouterr().out
    assert cli.main(["report", str(out)]) == 0
    again = capsys.readouterr().out
    assert printed.splitlines()[0] in again and "a bgsim chouette session" in again


def test_pairs_are_compared_game_by_game_with_students_t_over_batch_means():
    # three players, four games: every game is a batch; player 0 leads player 1 by 1, 3, 1, 3
    points = np.array([[1.0, 0.0, -1.0], [2.0, -1.0, -1.0], [0.0, -1.0, 1.0], [3.0, 0.0, -3.0]])
    table = pair_comparisons(points, ["a", "b", "c"]).set_index(["player", "opponent"])
    lead = table.loc[("a", "b")]
    # differences 1, 3, 1, 3: mean 2, sd sqrt(4/3), half-width t(3) * sd / 2
    assert lead["difference"] == 2.0 and lead["batches"] == 4
    assert lead["difference_ci"] == pytest.approx(3.182 * np.sqrt(4 / 3) / 2)
    assert lead["p"] == pytest.approx(t_two_sided_p(2.0 / (np.sqrt(4 / 3) / 2), 3))
    assert 0.040 < lead["p"] < 0.041  # t = 3.46 on 3 degrees of freedom: p = 0.0405 by tables
    assert table["p_holm"].min() >= table["p"].min()


def test_students_t_p_values_are_the_tables():
    # two-sided 5% points of Student's t (any table), and 1% points for 4 and 31 degrees
    for df, t in ((1, 12.706), (2, 4.303), (4, 2.776), (9, 2.262), (30, 2.042)):
        assert t_two_sided_p(t, df) == pytest.approx(0.05, abs=2e-4)
    assert t_two_sided_p(4.604, 4) == pytest.approx(0.01, abs=1e-4)
    assert t_two_sided_p(0.0, 7) == 1.0


def test_takes_and_drops_are_judged_against_the_two_sided_database(tmp_path):
    """Every answer the reference engine's trace shows in a position of the two-sided database
    is judged, and charged by hand: DT - 1 for a take when DT > 1, 1 - DT for a drop when DT < 1,
    times the cube before the double and the cubes it was for."""
    specs = ["heuristic+exact", "heuristic+always-take", "heuristic+thorp"]
    players = [make_player(spec) for spec in specs]
    # 38 games: their takes and drops in the database are rare; at seed 5, games 8 and 37 have
    # them (7 answers, wrong takes among them), and every game costs two reference replays
    experiment = small(players=specs, games=38, chunk=38, judge_cube=38,
                       conditions={"team": {}, "individual": {"chouette_cubes": "individual"}})
    result = run(experiment, tmp_path / "judged")
    judged = pd.read_csv(result.folder / CHOUETTE_JUDGE_FILE)
    expected = []
    for table, regime in enumerate(("team", "individual")):
        rows = result.frame[result.frame["table"] == table]
        for game, part in rows.groupby("game"):
            seating = Seating(tuple(int(player) for player in part.sort_values("place")["player"]))
            for ply in play_chouette(players, seating, 5, int(game), Rules(), regime, trace=True).history:
                position = Position.from_position_id(ply.position_id)
                if not any(event.action in ("take", "drop") for event in ply.cube) or not position.is_race:
                    continue
                found = bearoff.evaluate(position)
                if found is None or found.cubeful is None:
                    continue
                dt = found.cubeful.double_take
                doubles = sum(event.action == "double" for event in ply.cube)
                for event in ply.cube:
                    if event.action not in ("take", "drop"):
                        continue
                    lost = max(dt - 1.0, 0.0) if event.action == "take" else max(1.0 - dt, 0.0)
                    cubes = doubles if ply.side == "team" and regime == "team" else 1
                    expected.append((table, int(game), ply.ply, event.player, event.action,
                                     round(lost * event.value * cubes, 9)))
    got = [(row.table, row.game, row.ply, row.player, row.answer, round(row.points_lost, 9))
           for row in judged.itertuples(index=False)]
    assert got == expected and len(expected) >= 5
    assert (judged["error"] == "wrong take").any()
    summary = (result.folder / "summary.md").read_text()
    assert "## Takes and drops against the truth" in summary
    assert judge_table(0, result.frame[result.frame["table"] == 0], 0, make_player) == []


BAD = [
    ({"mode": "party"}, "mode: choose from tournament, chouette, got 'party'"),
    ({"opponent": "racer"}, "opponent: a chouette experiment plays one session per condition"),
    ({"duplicate": False}, "duplicate: a chouette experiment"),
    ({"players": PLAYERS[:2], "conditions": {}}, "players: a chouette seats 3 to 10 players, got 2"),
    ({"players": [f"racer+pipdiff(double={d})" for d in range(1, 12)], "conditions": {}},
     "a chouette seats 3 to 10 players, got 11"),
    ({"conditions": {"x": {"seats": 2}}}, "conditions.x.seats: the first N players sit at this table: 3 to 4, got 2"),
    ({"conditions": {"x": {"seats": 5}}}, "3 to 4, got 5"),
    ({"conditions": {"x": {"chouette_cubes": "shared"}}}, "conditions.x.chouette_cubes: choose from team, individual"),
    ({"rules": {"chouette_cubes": "mixed"}, "conditions": {}}, "rules.chouette_cubes: choose from team, individual"),
    ({"conditions": {"x": {"match_to": 5}}}, "conditions.x.match_to: a chouette is money play"),
    ({"rules": {"variant": "nackgammon"}, "conditions": {}}, "a chouette is a game of standard backgammon"),
    ({"players": ["racer+gnubg", *PLAYERS[1:]], "conditions": {}}, "engine: the fast engine cannot play 'racer+gnubg'"),
]


@pytest.mark.parametrize("changes, words", BAD, ids=[words[:40] for _, words in BAD])
def test_a_bad_chouette_experiment_is_one_clear_error(changes, words):
    with pytest.raises(ExperimentError, match="^small.toml: ") as error:
        small(**changes)
    assert words in str(error.value)


@pytest.mark.parametrize("table", [{"chouette_cubes": "individual"}, {"seats": 3}])
def test_chouette_keys_have_no_place_in_a_tournament(table):
    with pytest.raises(ExperimentError, match="is a chouette's: set mode = \"chouette\""):
        experiment_from_mapping({"players": PLAYERS[:2], "games": 1, "conditions": {"x": table}}, "t.toml")


def test_a_bad_chouette_file_on_the_command_line_writes_nothing(tmp_path, capsys):
    toml = tmp_path / "bad.toml"
    toml.write_text('mode = "chouette"\nplayers = ["racer", "racer+keith"]\ngames = 5\n', encoding="utf-8")
    assert cli.main(["run", str(toml), "--out", str(tmp_path / "out"), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "a chouette seats 3 to 10 players, got 2" in err
    assert not (tmp_path / "out").exists()


def test_the_shipped_chouette_experiment_says_what_it_asks_and_runs_at_a_small_size(tmp_path):
    path = SHIPPED / "chouette.toml"
    assert path.read_text().startswith("#") and "Question:" in path.read_text()
    experiment = load_experiment(path)
    assert experiment.chouette and experiment.judge_cube and len(experiment.conditions) == 4
    assert {experiment.cubes(name) for name, _ in experiment.conditions} == {"team", "individual"}
    assert {len(experiment.seated(name)) for name, _ in experiment.conditions} == {4, 5}
    assert {make_player(spec).cube.name for spec in experiment.players} == {
        "pipdiff", "keith", "nn", "always-take", "exact"}
    assert {make_player(spec).checker.name for spec in experiment.players} == {"nn"}
    result = run(load_experiment(path, {"games": 3, "chunk": 2}), tmp_path / "chouette")
    assert result.frame.groupby("table")["game"].nunique().tolist() == [3, 3, 3, 3]
    assert "## The team's cube against individual cubes" in (result.folder / "summary.md").read_text()
