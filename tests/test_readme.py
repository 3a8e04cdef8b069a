"""The README and docs/USAGE.md, run: every `bgsim ...` command of their shell blocks, made small,
does what they say it does (judged without the code that did it), and the Python example runs.
"""

from __future__ import annotations

import json
import math
import os
import re
import shlex
import shutil
import sys
import tomllib
from pathlib import Path
from xml.etree import ElementTree

import gnubg_nn
import numpy as np
import pandas as pd
import pytest

import bots
from bgsim.cube import Rules
from bgsim.fast.sameness import compare_frames
from bgsim.series import play_games
from bots import make_player
from bots.ubgi import is_engine_spec
from experiments import cli
from experiments.analysis.gnubg_program import check_import
from experiments.studies import bench as bench_study


ROOT = Path(__file__).resolve().parent.parent


DOCUMENTED = ("README.md", "docs/USAGE.md")  # the pages whose commands a user copies


def readme_commands() -> list[str]:
    """Every `bgsim ...` command in the shell blocks of the README and the usage page (install
    prefixes dropped)."""
    text = "\n".join((ROOT / page).read_text(encoding="utf-8") for page in DOCUMENTED)
    commands = []
    for block in re.findall(r"```sh\n(.*?)```", text, re.S):
        for line in block.splitlines():
            line = re.sub(r"\s+#.*$", "", line).strip()
            for part in line.split("&&"):
                part = part.strip()
                if part.startswith(".venv/bin/bgsim"):
                    part = part[len(".venv/bin/"):]
                if part.startswith("bgsim"):
                    commands.append(part)
    return commands


def shrunk(command: str, tmp_path: Path) -> list[str]:
    """The README command, made small: few games, outputs in ``tmp_path``."""
    words = shlex.split(command)[1:]

    def setting(flag: str, value: str) -> None:
        if flag in words:
            words[words.index(flag) + 1] = value
        else:
            words.extend([flag, value])

    name = words[0] if words else ""
    if name == "play":
        setting("--games", "3")
        setting("--engine", "reference")
        setting("--out", str(tmp_path / Path(words[words.index("--out") + 1]).name))
    elif name == "chouette":
        setting("--games", "3")
        setting("--out", str(tmp_path / Path(words[words.index("--out") + 1]).name))
        words.append("--no-progress")
    elif name in ("export", "analyse") and "--games" in words and words[1].endswith(".parquet"):
        # the games chosen among those _prepare_games_in_and_out plays (games a file does not
        # hold are refused)
        setting("--games", PREPARED_SELECTION[name])
    elif name in ("run", "tournament"):  # on the file's own engine (fast: compiled once per process)
        setting("--games", "1")
        setting("--chunk", "1")
        setting("--out", str(tmp_path / "run"))
        words.append("--no-progress")
    elif name == "validate":
        setting("--games", "1")
        setting("--positions", "3")
        setting("--threads", "1")
    elif name == "cube-audit":
        if "--games" not in words:  # the audit of real games samples nothing
            setting("--positions", "20")
        setting("--out", str(tmp_path / "audit"))
        words.append("--no-progress")
    elif name == "cross-check":
        setting("--positions", "3")
        setting("--threads", "1")
        setting("--out", str(tmp_path / "cross"))
        words.append("--no-progress")
    elif name == "rollout":
        setting("--games", "72")
        words.append("--no-progress")
    elif name == "bearoff" and "--positions" in words:
        setting("--positions", "200")
    elif name == "bench":
        words += ["--games", "100", "--rounds", "1", "--no-compile", "--out", str(tmp_path / "bench")]
    elif name == "sprt":  # 2 deals, a look after each: one deal decides nothing, two set a floor of hundreds
        setting("--games", "2")
        setting("--chunk", "1")
        setting("--out", str(tmp_path / "sprt"))
        words.append("--no-progress")
    elif name == "ratings":  # the committed runs it reads, wherever the test runs
        words[1:] = [str(ROOT / word) if (ROOT / word).is_dir() else word for word in words[1:]]
        setting("--out", str(tmp_path / Path(words[words.index("--out") + 1]).name))
    return words


COMMANDS = readme_commands()


def readme_runs() -> list:
    """One run for each distinct shrunk command, named by every README command it stands for:
    `bgsim validate` and `bgsim validate --games 600` shrink to the same small run, played once."""
    runs: dict[tuple[str, ...], list[str]] = {}
    for command in COMMANDS:
        runs.setdefault(tuple(shrunk(command, Path("/tmp-path"))), []).append(command)
    return [pytest.param(commands, id=" | ".join(commands)) for commands in runs.values()]


MATCH_FILE = ROOT / "tests" / "data" / "interchange" / "gnubg_match7.mat"
# the games played for export and analyse to read, and the selection of them the commands make
PREPARED_GAMES = {"export": "5", "analyse": "3"}
PREPARED_SELECTION = {name: f"0-{int(games) - 1}" for name, games in PREPARED_GAMES.items()}
FAKE_ENGINE = ROOT / "tests" / "fake_ubgi_engine.py"  # answers at once (its docstring)


def readme_engines_file() -> tuple[str, dict]:
    """The README's engines file, as its ```toml block gives it, and what it declares."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    (block,) = [block for block in re.findall(r"```toml\n(.*?)```", text, re.S) if "[engines." in block]
    return block, tomllib.loads(block)


def _write_engines_file(path: Path) -> None:
    """The README's engines file with only its command changed, to the fake engine's `good`
    mode: its options reach an engine that lists them (a key it does not list is refused)."""
    block, declared = readme_engines_file()
    command = f"command = {json.dumps([sys.executable, str(FAKE_ENGINE), 'good'])}"
    text, changed = re.subn(r"(?m)^command = \[.*\]$", lambda _: command, block)
    assert changed == len(declared["engines"]) == 1
    written = tomllib.loads(text)
    assert written["engines"]["mine"].pop("command") == [sys.executable, str(FAKE_ENGINE), "good"]
    declared["engines"]["mine"].pop("command")
    assert written == declared  # nothing else changed
    path.write_text(text, encoding="utf-8")


def _engine_processes() -> set[int]:
    """The fake engine's processes that this process started and that still run (read from
    /proc: none found where there is none)."""
    found = set()
    for entry in (Path("/proc").iterdir() if Path("/proc").is_dir() else ()):
        if not entry.name.isdigit():
            continue
        try:
            status = (entry / "status").read_text()
            command = (entry / "cmdline").read_bytes().decode(errors="replace")
        except OSError:
            continue
        fields = dict(line.split(":\t", 1) for line in status.splitlines() if ":\t" in line)
        if (fields.get("PPid", "").strip() == str(os.getpid()) and not fields.get("State", "").startswith("Z")
                and str(FAKE_ENGINE) in command):
            found.add(int(entry.name))
    return found


# GNU Backgammon's own copy of the published table, installed with its program (Debian: gnubg)
GNUBG_MET = Path("/usr/share/gnubg/met/Kazaross-XG2.xml")


# --- the documented commands' files: shipped, or written by a command before ---------------

# the placeholders for a user's own files in the README and docs/USAGE.md, named here until they
# name shipped files or files an earlier command writes (issue 31); an entry no page holds fails too
PLACEHOLDERS: set[str] = set()


def _reads_and_writes(words: list[str]) -> tuple[list[str], list[str]]:
    """The files a README command (its words after `bgsim`) reads, and those it writes."""
    name, rest = words[0], words[1:]

    def value(flag: str) -> str | None:
        return rest[rest.index(flag) + 1] if flag in rest else None

    reads = []
    if name in ("export", "import", "analyse", "report"):
        reads.append(rest[0])
    elif name == "run" and rest:
        reads.append(rest[0] if rest[0].endswith(".toml") else f"experiments/{rest[0]}.toml")
    elif name == "cube-audit":
        reads += [path for path in (value("--games"), value("--from")) if path]
    writes = [path for path in (value("--out"),) if path]
    if "--record" in rest:
        writes.append(rest[rest.index("--record") + 2])
    return reads, writes


def test_the_readme_reads_only_files_it_ships_or_an_earlier_command_writes():
    written, unknown = set(), set()
    for command in COMMANDS:
        reads, writes = _reads_and_writes(shlex.split(command)[1:])
        unknown.update(path for path in reads if path not in written and not (ROOT / path).exists())
        written.update(writes)
    assert unknown == PLACEHOLDERS


def test_the_readme_shows_the_commands_a_new_user_needs():
    names = {shlex.split(command)[1] for command in COMMANDS}
    assert {"tournament", "show", "moves", "bots", "play", "run", "validate", "bench", "report"} <= names


@pytest.fixture(scope="module")
def bearoff_cache(tmp_path_factory):
    """One small bear-off cache for every README command that needs the databases."""
    return tmp_path_factory.mktemp("bearoff-cache")


@pytest.mark.parametrize("commands", readme_runs())
def test_every_readme_command_runs(commands, tmp_path, capsys, monkeypatch, bearoff_cache):
    command = commands[0]
    words = shrunk(command, tmp_path)
    # The 8-checker two-sided database (288 MB) is not built here: 3 checkers a side.
    monkeypatch.setenv("BGSIM_CACHE", str(bearoff_cache))
    monkeypatch.setenv("BGSIM_BEAROFF_CHECKERS", "3")
    if "--dask" in words:
        pytest.importorskip("distributed")
        words[words.index("--dask") + 1] = "local:1"
    monkeypatch.chdir(tmp_path)  # nothing lands in the repository
    if words[0] == "report":  # a report needs the rows of an earlier command: make them small
        assert cli.main(["play", "random", "random", "--games", "3", "--engine", "reference",
                         "--out", words[1], "--no-progress"]) == 0
    _prepare_games_in_and_out(words, tmp_path)
    if "--engines" in words:  # the README's engines file, in the folder the command runs in
        _write_engines_file(Path(words[words.index("--engines") + 1]))
        monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))  # no user's engines file either
    assert words[0] in DONE, f"no expectation of what `{command}` does: add one to DONE"
    if words[0] == "bench":  # a baseline no machine can miss and one no machine can reach
        monkeypatch.setattr(bench_study, "BASELINE", _bench_baseline(tmp_path))
    engines_before = _engine_processes() if "--engines" in words else set()
    capsys.readouterr()  # what the preparations printed
    code = cli.main(words)
    out, err = capsys.readouterr()
    assert code == (1 if words[0] == "bench" else 0), err
    if "--engines" in words:  # every engine it started has ended with the command
        assert _engine_processes() <= engines_before
    DONE[words[0]](words, out, tmp_path)


def _prepare_games_in_and_out(words: list[str], tmp_path: Path) -> None:
    """The rows, run folder or match file that export, analyse and import read: small ones."""
    if words[0] in ("export", "analyse") and words[1].endswith(".parquet"):
        # to export: games with takes, drops and a gammon; to analyse: uniform-random play
        # against a bot that GNU Backgammon must rate far above it
        players, games = (["heuristic+pipdiff", "pubeval+keith"], PREPARED_GAMES["export"]) if words[0] == "export" \
            else (["random+pipdiff", "heuristic+pipdiff"], PREPARED_GAMES["analyse"])
        assert cli.main(["play", *players, "--games", games, "--engine", "reference",
                         "--out", words[1], "--no-progress"]) == 0
    elif words[0] == "export":  # a run's folder
        experiment = tmp_path / "tiny.toml"
        experiment.write_text('name = "tiny"\nplayers = ["random+pipdiff", "heuristic+pipdiff"]\ngames = 1\n'
                              'chunk = 1\nengine = "reference"\n')
        assert cli.main(["run", str(experiment), "--out", words[1], "--no-progress"]) == 0
    elif words[0] == "import":
        if (ROOT / words[1]).is_file():  # a file the repository ships is read where it is
            words[1] = str(ROOT / words[1])
        else:  # a placeholder for the user's own file (PLACEHOLDERS)
            shutil.copy(MATCH_FILE, words[1])
    elif words[0] == "cube-audit" and "--games" in words:  # a money session: its bear-offs in the small tables
        where = words.index("--games") + 1
        words[where] = str(tmp_path / Path(words[where]).name)
        shutil.copy(ROOT / "tests" / "data" / "interchange" / "gnubg_money_resign.mat", words[where])


def _out_path(words: list[str]) -> Path:
    return Path(words[words.index("--out") + 1])


def _gnubg_board(text: str) -> list[list[int]]:
    """[side not on roll, side on roll], each from its own 1-point (index 24: the bar), of a
    GNU Backgammon position ID (read by gnubg_nn) or an XGID (read here by hand: character 0
    is O's bar, 1..24 X's points, 25 X's bar; upper case X's checkers, lower case O's)."""
    if not text.startswith("XGID="):
        return [list(side) for side in gnubg_nn.board_from_position_id(text.split(":")[0])]
    slots = text[len("XGID="):].split(":")[0]
    x, o = [0] * 25, [0] * 25
    for slot, char in enumerate(slots):
        if char == "-":
            continue
        count = ord(char.lower()) - ord("a") + 1
        if char.isupper():
            x[24 if slot == 25 else slot - 1] += count
        else:
            o[24 if slot == 0 else 24 - slot] += count
    return [o, x]


def _drawn_board(out: str) -> dict[int, tuple[int, int]]:
    """(X's, O's) checkers drawn on each point of ``bgsim show``'s diagram (up to 5 a point)."""
    lines = out.splitlines()
    top = next(i for i, line in enumerate(lines) if line.split()[:2] == ["13", "14"])
    bottom = next(i for i, line in enumerate(lines) if line.split()[:2] == ["12", "11"])
    drawn = {}
    for header, rows in ((lines[top], lines[top + 1:top + 6]), (lines[bottom], lines[bottom - 5:bottom])):
        for number in re.finditer(r"\d+", header):
            cells = [row[number.end() - 1] if number.end() <= len(row) else " " for row in rows]
            drawn[int(number.group())] = (cells.count("X"), cells.count("O"))
    return drawn


def _show(words, out, tmp_path):
    opponent, mover = _gnubg_board(words[1])
    assert _drawn_board(out) == {point: (mover[point - 1], opponent[24 - point]) for point in range(1, 25)}
    pips = [sum((index + 1) * count for index, count in enumerate(side)) for side in (mover, opponent)]
    assert re.search(rf"X \(on roll\): pips {pips[0]}\b", out) and re.search(rf"O\s+: pips {pips[1]}\b", out)
    assert f"Position ID: {gnubg_nn.position_id([opponent, mover])}" in out
    if ":M" in words[1]:  # the README: a 7-point match, 2-4
        assert "match to 7, score 2-4" in out
    elif words[1].startswith("XGID="):
        assert "money game; cube 1 centred" in out


def _moves(words, out, tmp_path):
    board = _gnubg_board(words[1])
    results = {gnubg_nn.position_id([list(side) for side in gnubg_nn.board_from_position_key(key)])
               for key in gnubg_nn.moves(board, int(words[2]), int(words[3]))}
    listed = re.findall(r"^  \S.*?\s(\S{14})$", out, re.M)
    assert len(results) == len(listed) == 16  # the README: the 16 legal plays of an opening 3-1
    assert set(listed) == results


def _bots(words, out, tmp_path):
    # every bot the README names, and the 8-9-12 defaults it describes
    for name in ("random", "racer", "heuristic", "pubeval", "nn", "gnubg", "pipdiff", "keith", "thorp",
                 "rule62", "kleinman", "isight", "epc", "exact", "none"):
        assert re.search(rf"^  {re.escape(name)}\s", out, re.M), name
    pipdiff = out[out.index("\n  pipdiff "):].split("\n  keith ")[0]
    for default in ("double=8%", "redouble=9%", "take=12%"):
        assert re.search(rf"^\s+{default}\s", pipdiff, re.M), default


def _scored_by_hand(rows: pd.DataFrame) -> None:
    """Each game's points from the rulebook: 1, 2 or 3 times the cube, the cube on a drop."""
    multiplier = rows["result"].astype(str).map({"single": 1, "gammon": 2, "backgammon": 3, "drop": 1})
    assert (rows["points"] == multiplier * rows["cube_value"]).all()
    sign = np.where(rows["winner"].astype(str) == "white", 1, -1)
    assert (rows["white_points"] == sign * rows["points"]).all()


def _printed(pattern: str, out: str) -> float:
    found = re.search(pattern, out)
    assert found, (pattern, out)
    return float(found.group(1))


def _play(words, out, tmp_path):
    rows = pd.read_parquet(_out_path(words))
    white, black = words[1], words[2]
    assert (rows["white"].astype(str) == white).all() and (rows["black"].astype(str) == black).all()
    external = [spec for spec in (white, black) if is_engine_spec(spec)]
    if external:  # the fake engine's `good` mode answers every decision legally: no game forfeited
        assert rows["forfeit"].isna().all() and (rows["result"].astype(str) != "forfeit").all(), rows["forfeit_reason"]
        for spec in external:
            said = re.search(rf"^{re.escape(spec)}: ([\d,]+) decisions, .*, 0 forfeits$", out, re.M)
            assert said and int(said.group(1).replace(",", "")) > 0, out
    _scored_by_hand(rows)
    if "--match-to" in words:
        _matches_by_hand(rows, int(words[words.index("--match-to") + 1]), int(words[words.index("--games") + 1]), out)
    else:
        assert len(rows) == int(words[words.index("--games") + 1])
        assert _printed(r"white points per game: ([+-]?\d+\.\d+)", out) == pytest.approx(
            rows["white_points"].mean(), abs=5e-4)
        if not external:  # the other engine plays the same games (the fast one seats no external engine)
            fast = play_games(make_player(white), make_player(black), int(rows["seed"].iloc[0]), len(rows),
                              engine="fast")
            assert compare_frames(rows, fast) is None
    if "--record" in words:
        _gnubg_reads_the_games(Path(words[words.index("--record") + 2]), rows)


def _chouette(words, out, tmp_path):
    from bgsim.chouette_sessions import play_chouettes
    from bgsim.schema import CHOUETTE_DTYPES

    specs = words[1:words.index("--games")]
    games = int(words[words.index("--games") + 1])
    cubes = words[words.index("--cubes") + 1] if "--cubes" in words else "team"
    rows = pd.read_parquet(_out_path(words))
    assert len(rows) == games * len(specs) and (rows.groupby("game")["points"].sum() == 0).all()
    assert set(rows["rule_chouette_cubes"].astype(str)) == {cubes}
    # the seats rotate as the rulebook says (RULES.md, Chouette), by hand from the rows
    by_game = [part.sort_values("place") for _, part in rows.groupby("game")]
    for before, after in zip(by_game, by_game[1:]):
        box, captain, *rest = list(before["player"])
        won = str(before["winner"].iloc[0])
        assert list(after["player"]) == ([captain, *rest, box] if won == "team" else [box, *rest, captain])
    # the other engine plays the same session
    reference = play_chouettes([make_player(spec) for spec in specs], int(rows["seed"].iloc[0]), games, Rules(),
                               cubes, engine="reference")
    assert compare_frames(reference, rows.astype(CHOUETTE_DTYPES)) is None


def _matches_by_hand(rows: pd.DataFrame, match_to: int, matches: int, out: str) -> None:
    """The rulebook's match: scores carried game to game, the game after a side first reaches
    match_to - 1 is the Crawford game (no cube), the match ends when a side reaches match_to."""
    assert rows["game"].nunique() == matches
    won = {"white": 0, "black": 0}
    for _, games in rows.groupby("game"):
        score = {"white": 0, "black": 0}
        crawford_due = False
        for game in games.sort_values("game_in_match").itertuples():
            assert (game.white_score, game.black_score) == (score["white"], score["black"])
            assert game.crawford == crawford_due
            assert not (game.crawford and game.doubles)
            before = max(score.values())
            assert game.points_counted == min(game.points, match_to - score[game.winner])
            score[game.winner] += game.points_counted
            crawford_due = before < match_to - 1 <= max(score.values()) < match_to
        assert list(games["game_in_match"]) == list(range(len(games)))
        assert max(score.values()) >= match_to > min(score.values())
        won[max(score, key=score.get)] += 1
    assert f"white won {won['white']}, black won {won['black']}" in out


def _gnubg_reads_the_games(path: Path, rows: pd.DataFrame) -> None:
    """GNU Backgammon's program reads the file: every game, every roll, every cube action."""
    read = check_import(path, analyse=False)
    assert read.complaints == []
    dropped = int(rows["dropped"].sum())
    assert (read.counts.games, read.counts.moves) == (len(rows), int(rows["plies"].sum()))
    assert (read.counts.doubles, read.counts.takes, read.counts.drops) == (
        int(rows["doubles"].sum()) + dropped, int(rows["doubles"].sum()), dropped)


def _trace(words, out, tmp_path):
    """Every play is one of GNU Backgammon's legal plays for the roll, every score adds up."""
    ply = re.compile(r"^\s+\d+ (white|black) (\S+):\S+\s+XGID=\S+\s+(double/take|double/drop)?\s*"
                     r"(?:rolls (\d)-(\d): (.*))?$")
    games, final = [], None
    for line in out.splitlines():
        if line.startswith("game "):
            white, black, stage = re.search(r"white (\d+), black (\d+)(?: \((.*)\))?$", line).groups()
            games.append({"score": {"white": int(white), "black": int(black)}, "crawford": stage == "Crawford game",
                          "plies": [], "end": None})
        elif ply.match(line):
            side, position_id, cube_action, die1, die2, _ = ply.match(line).groups()
            games[-1]["plies"].append((side, _gnubg_board(position_id), cube_action,
                                       (int(die1), int(die2)) if die1 else None))
        elif re.match(r"^  (white|black) wins", line):
            side, points, result, counted = re.match(
                r"^  (white|black) wins (\d+) points? \((\w+), cube \d+(?:, (\d+) counted)?\)", line).groups()
            games[-1]["end"] = (side, result, int(counted or points))
        elif "wins the match" in line:
            final = re.search(r"(white|black) wins the match to (\d+) \(white (\d+), black (\d+)\)", line).groups()
    assert games and final
    for number, game in enumerate(games):
        plies = game["plies"]
        for (side, board, _, roll), (next_side, next_board, _, _) in zip(plies, plies[1:]):
            assert roll and next_side != side
            results = set(gnubg_nn.moves(board, *roll))
            after = [next_board[1], next_board[0]]  # back to the mover's side of the board
            assert gnubg_nn.key_of_board(after) in results if results else after == board
        side, result, counted = game["end"]
        last_side, last_board, cube_action, roll = plies[-1]
        assert side == last_side
        if cube_action == "double/drop":
            assert result == "drop"
        else:  # the last play bears off the winner's last checker
            finished = [gnubg_nn.board_from_position_key(key) for key in gnubg_nn.moves(last_board, *roll)]
            assert any(sum(mover) == 0 for _, mover in finished)
            assert (result == "single") == (sum(last_board[0]) < 15)
        score = dict(game["score"])
        score[side] += counted
        if number + 1 < len(games):  # the scores carried, and the Crawford game when one first needs 1
            assert games[number + 1]["score"] == score
            assert games[number + 1]["crawford"] == (max(game["score"].values()) < int(final[1]) - 1
                                                     == max(score.values()))
    winner, match_to, white, black = final
    assert (int(white), int(black)) == (score["white"], score["black"])
    assert score[winner] >= int(match_to) > min(score.values())


def _met(words, out, tmp_path):
    table = ElementTree.parse(GNUBG_MET).getroot().find("pre-crawford-table")
    away, other = int(words[1]), int(words[2])
    expected = float(table.findall("row")[away - 1].findall("me")[other - 1].text)
    assert _printed(r"(\d+\.\d+)% to win the match", out) == pytest.approx(100 * expected, abs=0.0051)


def _report(words, out, tmp_path):
    rows = pd.read_parquet(words[1])
    assert f"{len(rows)} games, white random vs black random" in out
    mean = rows["white_points"].mean()
    assert _printed(r"white points per game: ([+-]?\d+\.\d+)", out) == pytest.approx(mean, abs=5e-4)
    wins = 100 * (rows["winner"] == "white").mean()
    assert _printed(r"white wins\s+(\d+\.\d)%", out) == pytest.approx(wins, abs=0.051)


def _experiment_players(name: str) -> int:
    """How many players an experiment file lists, or its grid makes (one per combination, and
    the opponent)."""
    experiment = tomllib.loads((ROOT / "experiments" / f"{name}.toml").read_text(encoding="utf-8"))
    if "players" in experiment:
        return len(experiment["players"])
    axes = [values for key, values in experiment["grid"].items() if key != "template"]
    return math.prod(len(values) for values in axes) + ("opponent" in experiment)


def _run(words, out, tmp_path):
    """A round robin of one deal, each played twice with the seats swapped on the same dice;
    each player's points per game in the standings are the mean of its games."""
    name = "default" if words[0] == "tournament" else words[1]
    players = _experiment_players(name)
    folder = _out_path(words)
    rows = pd.read_parquet(folder / "games.parquet")
    assert len(rows) == players * (players - 1)  # C(players, 2) pairings x 2 seatings
    for _, deal in rows.groupby(["seed", "game"]):
        assert len(deal) == 2
        assert list(deal["white"].astype(str)) == list(deal["black"].astype(str))[::-1]
    games = pd.concat([pd.DataFrame({"player": rows["white"].astype(str), "points": rows["white_points"]}),
                       pd.DataFrame({"player": rows["black"].astype(str), "points": -rows["white_points"]})])
    mean = games.groupby("player")["points"].mean()
    standings = pd.read_csv(folder / "summary.csv").query("section == 'standings'").set_index("player")
    assert len(standings) == players
    assert np.allclose(standings.loc[mean.index, "ppg"], mean)
    assert (standings.loc[mean.index, "games"] == 2 * (players - 1)).all()
    from test_experiments import FILES, check_small_run  # (it imports this module: imported here)

    if name in FILES:  # a shipped experiment: what test_experiments checks of it at this size
        check_small_run(name, folder, rows)
    if words[0] == "tournament":  # without an experiment: the default one, said and recorded
        assert "Standings" in out and "nn+pipdiff" in out and f"Results: {folder}/" in out
        record = json.loads((folder / "run.json").read_text())
        assert record["config"]["name"] == "default_tournament"
        assert record["command"].startswith(f"bgsim tournament --games 1 --out {folder}")


def _validate(words, out, tmp_path):
    assert "no difference" in out
    positions = int(words[words.index("--positions") + 1])  # of the standard game; a tenth of each variant's: none
    assert f"legal plays identical on {positions} positions x 21 rolls" in out
    assert f"random starts and {positions * 21} position-roll pairs" in out
    cases = int(_printed(r"validating (\d+) cases", out))
    assert len(re.findall(r"^\d+ (?:games|matches) \(\d+ games\) identical: ", out, re.M)) == cases
    # every bot with a fast half plays in a case (a player without a cube bot has none)
    tried = set()
    for players in re.findall(r"identical: (.*?),", out):
        for spec in players.split(" vs "):
            names = [re.sub(r"\(.*", "", part) for part in spec.split("+")]
            tried.update(names if len(names) > 1 else names + ["none"])
    for registry in (bots.checker_bots(), bots.cube_bots()):
        assert {name for name, bot in registry.items() if bot().fast_name} <= tried


def _bench_baseline(tmp_path: Path) -> Path:
    """Raw games/s (no gnubg_nn figure, so compared as they are): one no machine is slower than,
    one no machine is as fast as, the other watched figures left out."""
    path = tmp_path / "baseline.json"
    path.write_text(json.dumps({"figures": {"fast_random_1thread": {"per_s": 1e-6},
                                            "fast_heuristic_1thread": {"per_s": 1e12}}}))
    return path


def _bench(words, out, tmp_path):
    slower = out[out.index("SLOWER than the baseline:"):].splitlines()[1:]
    assert [line.split(":")[0].strip() for line in slower] == ["fast_heuristic_1thread"]
    written = json.loads((_out_path(words) / "latest.json").read_text())
    assert written["settings"]["games"] == 100
    for name, figure in written["figures"].items():
        assert re.search(rf"^  {name}\s+{figure['per_s']:,.1f} ", out, re.M), name


def _eval(words, out, tmp_path):
    opponent, mover = _gnubg_board(words[1])
    if words[1] == "IAAAgAAAAAAAAA":
        # the README: one checker each on the 6-point.  Worked by hand: 1-1, 1-2, 1-3, 1-4 and
        # 2-3 (9 rolls of 36) leave the checker on, then the opponent misses as often, so
        # 27/36 + 9/36 x 9/36 = 81.25% wins; doubled, the opponent redoubles after a miss to a
        # 25% take point, so double/take and double/drop are both worth 1
        assert mover[5] == opponent[5] == 1 and sum(mover) == sum(opponent) == 1
        assert "win   81.250%" in out and "cubeless equity +0.62500" in out
        assert "centred +1.00000" in out and "cube action (centred cube): double/take" in out
        return
    if words[1] == "4HPwATDgc/ABMA":  # outside the databases: the nn bot, near GNU Backgammon's net
        theirs = gnubg_nn.probabilities([opponent, mover], 0)
        assert "nn checker bot's neural net" in out
        assert _printed(r"win\s+(\d+\.\d+)%", out) == pytest.approx(100 * theirs[0], abs=3)
        assert _printed(r"cubeless equity ([+-]\d+\.\d+)", out) == pytest.approx(
            2 * theirs[0] - 1 + theirs[1] - theirs[3] + theirs[2] - theirs[4], abs=0.08)
        return
    # a pure bear-off: the chance that the side on roll needs no more rolls than the other side,
    # from GNU Backgammon's one-sided database, and its effective pip counts
    answer = json.loads(out)
    own, other = (gnubg_nn.bearoff_probabilities(tuple(side[:6])) for side in (mover, opponent))
    win = sum(chance * sum(other[rolls:]) for rolls, chance in enumerate(own))
    assert answer["win"] == pytest.approx(win, abs=1e-4) and answer["equity"] == pytest.approx(2 * win - 1, abs=2e-4)
    assert answer["win_gammon"] == answer["lose_gammon"] == 0.0  # both sides have borne off
    for key, chances in (("own", own), ("opponent", other)):
        epc = sum((rolls + 1) * chance for rolls, chance in enumerate(chances)) * 49 / 6
        assert answer["effective_pip_counts"][key] == pytest.approx(epc, abs=1e-3)
    assert answer["source"] == "two-sided" and answer["action"] in ("no double", "double/take", "double/drop")


def _rollout(words, out, tmp_path):
    answer = json.loads(out)
    games = int(words[words.index("--games") + 1])
    assert answer["games"] == answer["requested"] == games and not answer["truncated"]
    # every game counted once: each chance a whole number of games out of all of them
    for key in ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon"):
        assert answer[key] * games == pytest.approx(round(answer[key] * games), abs=1e-9), key
    equity = (2 * answer["win"] - 1 + answer["win_gammon"] - answer["lose_gammon"]
              + answer["win_backgammon"] - answer["lose_backgammon"])
    assert answer["equity"] == pytest.approx(equity, abs=1e-12)
    # the opening, played out: near GNU Backgammon's net, within four standard errors
    theirs = gnubg_nn.probabilities(_gnubg_board(words[1]), 0)
    assert abs(answer["win"] - theirs[0]) < 4 * math.sqrt(0.25 / games)


def _cube_audit(words, out, tmp_path):
    if "--games" in words:
        _cube_audit_of_games(words, out)
        return
    if "--judge" in words:
        _cube_audit_judged_by_gnubg(words, out)
        return
    decisions = pd.read_parquet(_out_path(words) / "decisions.parquet")
    rules = words[words.index("--players") + 1].split(",")
    positions = int(words[words.index("--positions") + 1])
    # double, redouble, take: three questions of each position to each rule
    assert len(decisions) == positions * 3 * len(rules) and decisions["position_id"].nunique() <= positions
    _pip_rule_answers(decisions)
    # the error rates printed are the rows with an error
    for rule in rules:
        share = (decisions.loc[decisions["rule"] == rule, "error"] != "").mean()
        assert _printed(rf"all\s+{rule}\s+error rate\s+(\d+\.\d+)%", out) == pytest.approx(100 * share, abs=0.0051)


def _pip_rule_answers(decisions):
    # the README's 8-9-12 rule, worked from each decision's pip counts (the doubler's first)
    pipdiff = decisions[decisions["rule"] == "pipdiff"]
    lead = 100 * (pipdiff["opponent_pips"] - pipdiff["pips"])
    doubles = np.where(pipdiff["question"] == "double", lead >= 8 * pipdiff["pips"], lead >= 9 * pipdiff["pips"])
    expected = np.where(pipdiff["question"] == "take", np.where(lead <= 12 * pipdiff["pips"], "take", "pass"),
                        np.where(doubles, "double", "no double"))
    assert (pipdiff["answer"].astype(str).to_numpy() == expected).all()


def _cube_audit_judged_by_gnubg(words, out):
    """Positions in contact only, each asked the three questions by every rule that speaks there
    (the race counts do not), the pip rule's answers worked from the pip counts, and the error
    rates printed the rows'."""
    decisions = pd.read_parquet(_out_path(words) / "decisions.parquet")
    positions = int(words[words.index("--positions") + 1])
    assert decisions["position_id"].nunique() <= positions and decisions["position_index"].nunique() == positions
    from bgsim.board import Position

    assert not any(Position.from_position_id(pid).is_race for pid in decisions["position_id"].unique())
    assert (decisions["judged_by"] == "gnubg 2-ply").all()
    rules = set(decisions["rule"])
    assert {"pipdiff", "nn", "always-take"} <= rules and not rules & {"keith", "thorp", "isight"}
    assert len(decisions) == positions * 3 * len(rules)
    _pip_rule_answers(decisions)
    for rule in rules:
        share = (decisions.loc[decisions["rule"] == rule, "error"] != "").mean()
        printed = _printed(rf"all\s+no jacoby\s+contact\s+{re.escape(rule)}\s+error rate\s+(\d+\.\d+)%", out)
        assert printed == pytest.approx(100 * share, abs=0.0051)


def _cube_audit_of_games(words, out):
    """The match file read by hand: each double and each answer to one is a decision of the audit
    (the file has no beavers), and the rates printed are the rows'."""
    text = Path(words[words.index("--games") + 1]).read_text(encoding="utf-8")
    table = pd.read_csv(_out_path(words) / "decisions.csv")
    assert (table["answer"] == "double").sum() == (table["question"] == "take").sum() == text.count("Doubles =>")
    assert (table["answer"] == "pass").sum() == text.count("Drops")
    assert (table["answer"] == "take").sum() == text.count("Takes")
    decisions = pd.read_parquet(_out_path(words) / "decisions.parquet")
    for rule in words[words.index("--players") + 1].split(","):
        share = (decisions.loc[decisions["rule"] == rule, "error"] != "").mean()
        assert _printed(rf"rule\s+{rule}\s+[\d,]+ decisions\s+error rate\s+(\d+\.\d+)%", out) == \
            pytest.approx(100 * share, abs=0.051)


def _cross_check(words, out, tmp_path):
    games = pd.read_parquet(_out_path(words) / "games.parquet")
    starts = int(words[words.index("--positions" if "--positions" in words else "--starts") + 1])
    rules = words[words.index("--players") + 1].split(",")
    if "--contact" in words:
        # from the opening, each rule against nn's cube in both seatings; the baseline, nn's cube
        # against itself on the same dice, is one game seen from each side: it sums to zero
        assert sorted(games["rule"].unique()) == sorted(rules)
        assert (games.groupby("rule").size() == 2 * starts).all()
        assert (games["position_id"] == "4HPwATDgc/ABMA").all()
        assert (games.groupby(["rule", "start"])["baseline"].sum() == 0).all()
        for rule in rules:
            mine = games[games["rule"] == rule]
            played = 1000 * (mine["points"] - mine["baseline"]).mean()
            assert _printed(rf"(?m)^\s+{re.escape(rule)}\s+A\s+([+-]\d+\.\d+)", out) == pytest.approx(played, abs=0.0051)
        return
    sanity = "exact (sanity: against itself)"
    assert sorted(games["rule"].unique()) == sorted([*rules, sanity])
    assert (games.groupby("rule").size() == 2 * starts).all()  # each start played in both seatings
    # exact against itself: the same dice and the same cube both ways round
    assert (games[games["rule"] == sanity].groupby("start")["points"].sum() == 0).all()
    assert re.search(rf"{re.escape(sanity)}\s+A\s+\+0\.00\s+B\s+\+0\.00 .*agree exactly", out)
    for rule in rules:
        played = 1000 * games.loc[games["rule"] == rule, "points"].mean()
        assert _printed(rf"(?m)^\s+{re.escape(rule)}\s+A\s+([+-]\d+\.\d+)", out) == pytest.approx(played, abs=0.0051)


def _bearoff(words, out, tmp_path):
    if words[1] == "build":
        # positions of up to N checkers on 6 points: C(N + 6, 6), worked by hand
        assert "one-sided up to 15 checkers, 54,264 positions a side" in out  # C(21, 6)
        assert "two-sided up to  3 checkers, 84 positions a side" in out  # C(9, 6)
        return
    compared = re.findall(r"(\d+) of (\d+) agree", out)
    assert len(compared) == 3 and all(agree == of for agree, of in compared)
    assert "unexplained 0" in out


def _export(words, out, tmp_path):
    source = Path(words[1])
    rows = pd.read_parquet(source if source.suffix == ".parquet" else source / "games.parquet")
    if source.suffix != ".parquet":  # one pairing, one seating, one deal
        rows = rows[(rows["pairing"] == int(words[words.index("--pairing") + 1]))
                    & (rows["leg"] == int(words[words.index("--leg") + 1]))]
    if source.suffix == ".parquet":
        assert rows["doubles"].sum() > rows["dropped"].sum() > 0
    assert len(rows) >= 1
    _gnubg_reads_the_games(_out_path(words), rows)


def _import(words, out, tmp_path):
    """The match file read by hand: its games and their scores, its rolls and cube actions."""
    text = Path(words[1]).read_text(encoding="utf-8")
    rows = pd.read_parquet(_out_path(words))
    sections = re.split(r"^ Game \d+$", text, flags=re.M)[1:]
    assert sorted(rows["game"].unique()) == list(range(1, len(sections) + 1))
    for number, section in enumerate(sections, start=1):
        game = rows[rows["game"] == number]
        first, second = map(int, re.search(r":\s*(\d+)\s+\S+\s*:\s*(\d+)", section).groups())
        opening = game.iloc[0]
        scores = (first, second) if opening["player"] == 0 else (second, first)
        assert (opening["score"], opening["opponent_score"]) == scores
        assert (game["action"] == "move").sum() == len(re.findall(r"\b[1-6][1-6]:", section))
        assert (game["action"] == "double").sum() == section.count("Doubles =>")
        assert (game["action"] == "take").sum() == section.count("Takes")
        assert (game["action"] == "drop").sum() == section.count("Drops")


def _analyse(words, out, tmp_path):
    games = pd.read_csv(Path(words[1]).with_suffix(".gnubg_games.csv"))
    rows = pd.read_parquet(words[1])
    assert games["game"].nunique() == len(rows)
    # GNU Backgammon rates uniform-random checker play far below the heuristic bot's
    rates = pd.read_csv(Path(words[1]).with_suffix(".gnubg_analysis.csv")).set_index("player")["checker_rate"]
    assert rates["random+pipdiff"] > 3 * rates["heuristic+pipdiff"]


def _sprt(words, out, tmp_path):
    """Deals of both seatings on the same dice, at most --games, in looks of --chunk; the
    verdict, the deals counted, Wald's bounds and the candidate's gain as the rows give them."""
    candidate, baseline = words[1], words[2]
    folder = _out_path(words)
    rows = pd.read_parquet(folder / "games.parquet")
    cap, chunk = int(words[words.index("--games") + 1]), int(words[words.index("--chunk") + 1])
    for _, deal in rows.groupby(["seed", "game"]):
        assert sorted(zip(deal["white"].astype(str), deal["black"].astype(str))) == sorted(
            [(candidate, baseline), (baseline, candidate)])
    deals = len(rows) // 2
    assert 2 * deals == len(rows) and 0 < deals <= cap and (deals % chunk == 0 or deals == cap)
    # deals all alike (a candidate that loses every deal alike) decide at once: LLR -inf or +inf
    said = re.search(r"^  ([\d,]+) deals \(([\d,]+) games\), LLR ([+-](?:\d+\.\d+|inf)), bounds ([+-]\d+\.\d+) \.\. "
                     r"([+-]\d+\.\d+);", out, re.M)
    assert said, out
    assert (int(said.group(1).replace(",", "")), int(said.group(2).replace(",", ""))) == (deals, len(rows))
    llr, lower, upper = (float(said.group(index)) for index in (3, 4, 5))
    alpha = beta = 0.05  # the defaults: Wald's bounds ln(beta / (1 - alpha)) and ln((1 - beta) / alpha)
    assert (lower, upper) == (pytest.approx(math.log(beta / (1 - alpha)), abs=5e-4),
                              pytest.approx(math.log((1 - beta) / alpha), abs=5e-4))
    if out.startswith("H1 accepted"):
        assert llr >= upper
    elif out.startswith("H0 accepted"):
        assert llr <= lower
    else:  # at the cap, undecided: what this shrunk run must end as (no decision before its floor)
        assert out.startswith(f"no decision: the LLR stayed between its bounds for all {deals:,} deals (--games)")
        assert lower < llr < upper and deals == cap
    gain = np.where(rows["white"].astype(str) == candidate, rows["white_points"], -rows["white_points"]).mean()
    scored = _printed(rf"{re.escape(candidate)} scored ([+-]\d+\.\d+) points per game", out)
    assert scored == pytest.approx(gain, abs=5e-4)
    assert f"Results: {folder}/" in out
    run = json.loads((folder / "run.json").read_text())
    assert run["status"] == "finished"
    for spec in (candidate, baseline):  # the engine the README declares, started with its options
        if is_engine_spec(spec):
            name = spec.split(":", 1)[1].split("+")[0]
            assert run["engines"][name]["options"] == readme_engines_file()[1]["engines"][name].get("options", {})


def _ratings(words, out, tmp_path):
    """The list anchored where asked, written to --out; the README's quoted ratings are its own."""
    folder = _out_path(words)
    assert folder.parent == tmp_path
    table = pd.read_csv(folder / "ratings.csv").set_index("player")
    anchor = words[words.index("--anchor") + 1]
    assert tuple(table.loc[anchor, ["rating", "low", "high"]]) == (0, 0, 0)
    assert f"anchored at `{anchor}` (0)" in out and f"Results: {folder}/" in out
    assert json.loads((folder / "run.json").read_text())["anchor"] == anchor
    text = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())

    def rating(player: str) -> str:
        row = table.loc[player]
        return f"{row.rating:+.2f} ({row.low:+.2f} .. {row.high:+.2f})"

    assert f"`nn` rates {rating('nn')} points a game" in text
    assert f"GNU Backgammon's 0-ply net {rating('gnubg')}" in text
    experts = table.loc[["nn+nn", "nn+exact"], "rating"]  # the expert cubes, from the main tournament
    assert f"the expert cubes {experts.min():+.1f} to {experts.max():+.1f}" in text


DONE = {
    "show": _show, "moves": _moves, "bots": _bots, "play": _play, "trace": _trace, "met": _met,
    "report": _report, "run": _run, "tournament": _run, "validate": _validate, "bench": _bench,
    "eval": _eval, "rollout": _rollout, "cube-audit": _cube_audit, "cross-check": _cross_check,
    "bearoff": _bearoff, "export": _export, "import": _import, "analyse": _analyse, "chouette": _chouette,
    "sprt": _sprt, "ratings": _ratings,
}


def test_the_usage_pages_python_example_runs():
    text = (ROOT / "docs" / "USAGE.md").read_text(encoding="utf-8")
    (code,) = re.findall(r"```python\n(.*?)```", text, re.S)
    assert "games=1000" in code
    exec(compile(code.replace("games=1000", "games=20"), "docs/USAGE.md", "exec"), {})


def test_the_readme_cube_audit_example_samples_as_the_committed_audit_did():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    (line,) = [line for line in text.splitlines()
               if line.startswith("bgsim cube-audit") and "--positions" in line
               and "--judge" not in line]  # the sampling audit of races
    args = cli.build_parser().parse_args(shlex.split(line.split("  #")[0])[1:])
    committed = json.loads((ROOT / "results" / "cube_audit" / "run.json").read_text())["identity"]
    assert (args.sampler, args.per_game) == (committed["sampler"], committed["per_game"])


def _readme_text() -> str:
    return " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())  # lines joined


def test_the_readme_quotes_the_sequential_tests_committed_error_rates():
    """results/sprt's rates for bgsim's test as shipped (gsprt+floor, H1 at a tenth of a deal's
    standard deviation), the tests counted those of that test alone."""
    rates = pd.read_csv(ROOT / "results" / "sprt" / "error_rates.csv").query("method == 'gsprt+floor' and scale == 1")
    tests = pd.read_csv(ROOT / "results" / "sprt" / "operating_characteristic.csv").query(
        "method == 'gsprt+floor'")["tests"].sum()
    worst = rates.loc[rates["alpha"].idxmax()]
    saved = pd.concat([1 - rates[f"mean_deals_{h}"] / rates["fixed_deals"] for h in ("h0", "h1")])
    text = _readme_text()
    for quoted in (f"On {tests:,} simulated tests",
                   f"in {100 * rates['alpha'].min():.1f} to {100 * rates['alpha'].max():.1f}% of tests",
                   f"(worst {100 * worst.alpha:.2f}%, 95% interval {100 * worst.alpha_low:.1f} .. "
                   f"{100 * worst.alpha_high:.1f}%)",
                   f"missed a real one in {100 * rates['beta'].min():.1f} to {100 * rates['beta'].max():.1f}%",
                   f"with {100 * saved.min():.0f} to {100 * saved.max():.0f}% fewer deals"):
        assert quoted in text, quoted


def test_the_readme_quotes_the_engines_committed_margins():
    """results/engines' comparisons (the deal as unit), as the README's section quotes them: each
    `nn` side's margin, a loss in every one."""
    text = _readme_text()
    for run, ours, theirs, digits, quoted in (
            ("checker", "nn", "gnubg-program", 3, "loses {} ± {} points a game to GNU Backgammon's program at 0-ply"),
            ("checker", "nn", "bgsage", 3, "{} ± {} to bgsage at 1-ply"),
            ("checker_gnubg2", "nn", "gnubg-program(plies=2)", 3, "{} ± {} to the program at 2-ply"),
            ("cube", "nn+nn", "gnubg-program+gnubg-program", 2, "the program's 0-ply cube (\u2212{} ± {})"),
            ("cube", "nn+nn", "bgsage+bgsage", 2, "loses {} ± {} to bgsage")):
        summary = pd.read_csv(ROOT / "results" / "engines" / run / "summary.csv").query("section == 'comparison'")
        pair = summary[summary["player"].isin([ours, theirs]) & summary["opponent"].isin([ours, theirs])]
        (row,) = pair.itertuples()
        margin = row.difference if row.player == ours else -row.difference
        assert margin < 0
        figure = quoted.format(f"{-margin:.{digits}f}", f"{row.difference_ci:.{digits}f}")
        assert figure in text, figure
