"""Experiment files: every shipped one validates and runs at a small size; bad ones fail clearly."""

import shlex
from pathlib import Path

import pandas as pd
import pytest

import test_readme as readme_tests
from experiments.running.config import ExperimentError, load_experiment
from experiments.studies.experiment import run_experiment

SHIPPED = Path(__file__).resolve().parent.parent / "experiments"
FILES = ["default", "default_heuristic", "threshold_sweep", "threshold_sweep_heuristic", "match_play",
         "money_conventions", "race_starts"]


def run_by_the_readme(name: str) -> bool:
    """Whether a README command runs the shipped experiment ``name`` (bare `bgsim tournament`: the
    default one): test_readme runs it at the same small size and checks it with
    :func:`check_small_run`, so it is not run a second time here."""
    for command in readme_tests.COMMANDS:
        words = shlex.split(command)[1:]
        if words[0] == "tournament" and len(words) == 1:
            words = ["run", "default"]
        if words[:2] == ["run", name]:
            return True
    return False


@pytest.mark.parametrize("name", FILES)
def test_each_shipped_experiment_says_what_it_asks_and_validates(name):
    path = SHIPPED / f"{name}.toml"
    text = path.read_text()
    assert text.startswith("#") and "Question:" in text
    experiment = load_experiment(path)
    assert experiment.name and experiment.games >= 50 and experiment.duplicate


@pytest.mark.parametrize("name", [name for name in FILES if not run_by_the_readme(name)])
def test_each_shipped_experiment_runs_at_a_small_size(name, tmp_path, monkeypatch):
    # match_play judges its cube decisions against the match tables: 3 checkers a side keeps
    # each score's tables to milliseconds (6, the default, takes a second or more a score)
    monkeypatch.setenv("BGSIM_MATCH_BEAROFF_CHECKERS", "3")
    experiment = load_experiment(SHIPPED / f"{name}.toml", SMALL)  # on its own engine
    result = run_experiment(experiment, tmp_path / name, progress=False, log=lambda text: None)
    check_small_run(name, result.folder, result.frame, result.report)


def test_the_shipped_experiments_the_readme_runs_are_checked_there():
    by_the_readme = [name for name in FILES if run_by_the_readme(name)]
    assert "default" in by_the_readme  # the README's first command, `bgsim tournament`, is seen
    # a README run hands check_small_run no report object, which these need
    assert not {"match_play", "money_conventions"} & set(by_the_readme)


SMALL = {"games": 1, "chunk": 1}  # the README's commands, shrunk by test_readme, run this size too


def check_small_run(name: str, folder: Path, frame: pd.DataFrame, report=None) -> None:
    """What a run of the shipped experiment ``name`` at the SMALL size must have written
    (``report``: the run's report object, where the caller has it)."""
    experiment = load_experiment(SHIPPED / f"{name}.toml", SMALL)
    files = {path.name for path in folder.iterdir()}
    assert {"games.parquet", "summary.md", "summary.csv", "run.json", "payoff_matrix.png",
            "points_per_game.png"} <= files
    players = len(experiment.everyone)
    pairings = players * (players - 1) // 2 * len(experiment.conditions)
    assert frame["pairing"].nunique() == pairings
    summary = (folder / "summary.md").read_text()
    assert "Standings" in summary and "95% CI" in summary
    if name.startswith("threshold_sweep"):
        assert "payoff_vs_threshold.png" in files
        assert len(experiment.grid) == len(experiment.players) >= 6
        assert "Threshold sweep" in summary and "Best response" in summary
    if name == "race_starts":
        # every deal starts from a seeded race (tests/test_race_starts.py checks the starts)
        assert experiment.starts == {"race": [20, 90], "seed": experiment.seed}
    if name == "match_play":
        # each condition plays its own match length
        lengths = frame.groupby("condition")["match_to"].unique()
        assert {name: list(values) for name, values in lengths.items()} == {"five": [5], "seven": [7], "eleven": [11]}
        assert frame["crawford"].any()
        assert "match wins" in summary
        assert report.pairings["matches"].eq(2).all()
        assert experiment.judge_cube and "gained and lost by cube decisions" in summary
    if name == "money_conventions":
        assert "conditions.png" in files
        conditions = report.conditions.set_index("condition")
        assert list(conditions.index) == ["standard", "jacoby", "beaver", "automatic", "all_three"]
        assert frame.loc[frame["condition"] == "jacoby", "rule_jacoby"].all()
        assert frame.loc[frame["condition"] == "standard", "rule_automatic_doubles"].eq(0).all()
        # A pair of players meets under every condition on the same dice.
        seeds = frame.groupby(["condition", "white", "black"])["seed"].first().unstack(0)
        assert (seeds.nunique(axis=1) == 1).all()


def write(tmp_path, text: str) -> Path:
    path = tmp_path / "bad.toml"
    path.write_text(text, encoding="utf-8")
    return path


GOOD = 'players = ["heuristic+pipdiff", "heuristic"]\ngames = 10\n'


@pytest.mark.parametrize("text, key, words", [
    (GOOD + "colour = 3\n", "colour", "unknown key"),
    ('players = "heuristic"\ngames = 10\n', "players", "must be a list"),
    ('players = ["heuristic+pipdiff", "heuristic"]\ngames = "ten"\n', "games", "whole number"),
    ('players = ["heuristic+pipdiff", "heuristic"]\ngames = 0\n', "games", "at least 1"),
    ('players = ["heuristic+pipdiff", "heuristic"]\n', "games", "missing"),
    (GOOD + "duplicate = 1\n", "duplicate", "true or false"),
    ('players = ["heuristic+pipdiff", "wizard"]\ngames = 10\n', "players[1]", "wizard"),
    ('players = ["heuristic+pipdiff(double=-3%)", "heuristic"]\ngames = 10\n', "players[0]", "double"),
    ('players = ["heuristic", "heuristic"]\ngames = 10\n', "players[1]", "listed twice"),
    ('players = ["racer+pipdiff(double=8%)", "racer+pipdiff"]\ngames = 10\n', "players[1]", "same player"),
    ('players = ["heuristic"]\ngames = 10\n', "players", "at least 2"),
    (GOOD + 'pairings = "against"\n', "pairings", "opponent"),
    (GOOD + 'pairings = "swiss"\n', "pairings", "round-robin"),
    (GOOD + 'opponent = "heuristic"\n', "opponent", "also in players"),
    (GOOD + 'engine = "warp"\n', "engine", "fast"),
    (GOOD + "seed = -1\n", "seed", "2**63-1"),
    (GOOD + "match_to = 7\n[rules]\njacoby = true\n", "rules", "match play"),
    (GOOD + "match_to = 7\n[conditions.b]\nbeaver = true\n", "conditions.b", "match play"),
    (GOOD + "[rules]\nmax_cube = 3\n", "rules", "power of two"),
    (GOOD + "[rules]\ncube = false\njacoby = true\n", "rules", "needs the cube"),
    (GOOD + "[rules]\nspeed = 2\n", "rules.speed", "unknown rule option"),
    (GOOD + "[conditions]\nplain = 3\n", "conditions.plain", "table of rule options"),
    (GOOD + "target_ci = 0\n", "target_ci", "positive"),
    (GOOD + '[grid]\ntemplate = "heuristic+pipdiff(double={d}%)"\n', "grid", "at least one list"),
    (GOOD + '[grid]\ntemplate = "heuristic+pipdiff(double={d}%)"\nt = [1]\n', "grid.template", "{d}"),
    (GOOD + '[grid]\ntemplate = "heuristic+pipdiff(double={d}%)"\nd = []\n', "grid.d", "non-empty"),
    (GOOD + "games = 5\n", "", "not valid TOML"),
])
def test_bad_experiment_files_fail_with_one_message_naming_file_and_key(tmp_path, text, key, words):
    path = write(tmp_path, text)
    with pytest.raises(ExperimentError) as error:
        load_experiment(path)
    message = str(error.value)
    assert message.startswith(f"{path}: {key}") and words in message and "\n" not in message


def test_the_fast_engine_refuses_players_only_the_reference_engine_can_play(tmp_path):
    path = write(tmp_path, 'players = ["gnubg+pipdiff", "heuristic"]\ngames = 10\nengine = "fast"\n')
    with pytest.raises(ExperimentError, match=r"bad\.toml: engine: the fast engine cannot play 'gnubg\+pipdiff'"):
        load_experiment(path)


def test_flags_override_the_file_and_are_checked_like_it(tmp_path):
    path = write(tmp_path, GOOD)
    experiment = load_experiment(path, {"games": 3, "seed": 9, "chunk": 2, "threads": 1, "engine": "reference"})
    assert (experiment.games, experiment.seed, experiment.chunk, experiment.threads) == (3, 9, 2, 1)
    with pytest.raises(ExperimentError, match=r"bad\.toml: --seed: "):
        load_experiment(path, {"seed": 2**63})


def test_grid_players_get_canonical_names_and_keep_their_parameters(tmp_path):
    path = write(tmp_path, 'opponent = "heuristic"\ngames = 1\n[grid]\n'
                           'template = "heuristic+pipdiff(double={double}%,take={take}%)"\n'
                           'double = [8, 10]\ntake = [12]\n')
    experiment = load_experiment(path)
    assert experiment.players == ("heuristic+pipdiff", "heuristic+pipdiff(double=10%)")
    assert experiment.grid["heuristic+pipdiff(double=10%)"] == {"double": 10, "take": 12}
    assert experiment.grid_keys == ("double", "take")


def test_missing_and_unreadable_files(tmp_path):
    with pytest.raises(ExperimentError, match="no such experiment file"):
        load_experiment(tmp_path / "nope.toml")
    bad = tmp_path / "bin.toml"
    bad.write_bytes(b"\xff\xfe games = 1")
    with pytest.raises(ExperimentError, match="not UTF-8"):
        load_experiment(bad)
