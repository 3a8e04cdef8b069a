"""The reference engine stands alone: it runs where Numba cannot be imported, and a broken fast
module breaks the fast engine only, in one line (``bgsim/fast_loader.py``).

Each test runs a fresh Python in which ``numba`` cannot be imported (an import blocker put first
on ``sys.meta_path``) or in which a module of the fast engine does not parse.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from test_imports import engine_layer, modules_of

ROOT = Path(__file__).resolve().parents[1]
SMALL = 3  # checkers a side of the two-sided table these games read (the suite's shared cache)

BLOCK_NUMBA = '''
import sys
class _NoNumba:
    def find_spec(self, name, path=None, target=None):
        if name == "numba" or name.startswith("numba."):
            raise ModuleNotFoundError("No module named 'numba' (blocked by the test)", name=name)
sys.meta_path.insert(0, _NoNumba())
'''

# every module of the reference engine and the bots imported, a reference game with every
# registered bot, `bgsim bots` and `bgsim play --engine reference`; then what Numba-free code
# says where it needs the fast engine
PLAY_EVERYTHING = BLOCK_NUMBA + '''
import contextlib, importlib, io, json, os
modules = json.loads(sys.argv[1])
for name in modules:
    importlib.import_module(name)
from bots import checker_bots, cube_bots, make_player
from bgsim.series import play_games
from experiments.cli import main
played = {}
for kind, names in (("checker", checker_bots()), ("cube", cube_bots())):
    for name in names:
        player = make_player(name if kind == "checker" else f"heuristic+{name}")
        played[f"{kind} {name}"] = len(play_games(player, player, 3, 1, engine="reference"))
out = io.StringIO()
with contextlib.redirect_stdout(out):
    bots_status = main(["bots"])
    play_status = main(["play", "racer+pipdiff", "pubeval+exact", "--engine", "reference", "--games", "2",
                        "--out", os.path.join(sys.argv[2], "games.parquet"), "--no-progress"])
errors = {}
for what, call in (("fast", lambda: play_games(make_player("random"), make_player("random"), 1, 1, engine="fast")),
                   ("build", lambda: __import__("bgsim.bearoff.database", fromlist=["x"]).build_one_sided())):
    try:
        call()
    except Exception as error:
        errors[what] = [type(error).__name__, str(error)]
print(json.dumps({"played": played, "bots": [bots_status, "pubeval" in out.getvalue()], "play": play_status,
                  "errors": errors,
                  "loaded": sorted(name for name in sys.modules
                                   if name.split(".")[0] == "numba" or name.startswith("bgsim.fast."))}))
'''


def _python(script: str, *arguments: str, env: dict | None = None, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", script, *arguments], capture_output=True, text=True, cwd=cwd,
                          env={**os.environ, **(env or {})}, timeout=600)


@pytest.fixture(scope="module")
def built_tables(tmp_path_factory):
    """The suite's shared bear-off cache folder with the tables the reference games read, built
    here, where Numba is (reading them needs no Numba)."""
    folder = tmp_path_factory.getbasetemp() / "bearoff-cache"  # shared with test_bearoff.py
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("BGSIM_CACHE", str(folder))
        patch.setenv("BGSIM_BEAROFF_CHECKERS", str(SMALL))
        from bgsim.bearoff import database

        database.one_sided()
        database.two_sided(SMALL)
    return folder


def test_the_reference_engine_and_every_registered_bot_play_without_numba(built_tables, tmp_path):
    reference = [name for name in modules_of(ROOT) if name.split(".")[0] in ("bgsim", "bots")
                 and engine_layer(name) == 0] + ["bgsim.series", "bgsim.chouette_sessions", "experiments.cli"]
    result = _python(PLAY_EVERYTHING, json.dumps(reference), str(tmp_path),
                     env={"BGSIM_CACHE": str(built_tables), "BGSIM_BEAROFF_CHECKERS": str(SMALL)})
    assert result.returncode == 0, result.stderr[-3000:]
    found = json.loads(result.stdout.strip().splitlines()[-1])
    from bots import checker_bots, cube_bots

    expected = {f"checker {name}" for name in checker_bots()} | {f"cube {name}" for name in cube_bots()}
    assert found["played"] == {spec: 1 for spec in expected}  # gnubg's too: the test extra installs gnubg-nn
    assert found["bots"] == [0, True] and found["play"] == 0
    assert found["loaded"] == []  # no module of Numba, none of the fast engine
    kind, message = found["errors"]["fast"]
    assert kind == "FastEngineError" and "\n" not in message
    assert message.startswith("the fast engine cannot be loaded: bgsim/fast/__init__.py:")
    assert message.endswith("the reference engine plays without it (--engine reference)")
    kind, message = found["errors"]["build"]
    assert kind == "FastEngineError" and "\n" not in message
    assert message.startswith("building the one-sided bear-off database needs the fast engine, which cannot be loaded")
    assert message.endswith("tables already built read without it")


BREAK_AND_PLAY = '''
import contextlib, io, json, os, sys
from experiments.cli import main
found = {}
for name, words in (("bots", ["bots"]),
                    ("reference", ["play", "random", "racer", "--engine", "reference", "--games", "1"]),
                    ("fast", ["play", "random", "racer", "--engine", "fast", "--games", "1"]),
                    ("auto", ["play", "random", "racer", "--games", "1"])):
    out, err = io.StringIO(), io.StringIO()
    if name != "bots":
        words += ["--out", os.path.join(sys.argv[1], name + ".parquet"), "--no-progress"]
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(words)
    found[name] = [status, err.getvalue()]
import bgsim
found["bgsim"] = bgsim.__file__
print(json.dumps(found))
'''


def test_a_broken_fast_module_breaks_only_the_fast_engine_in_one_line(tmp_path):
    copy = tmp_path / "tree"
    shutil.copytree(ROOT / "bgsim", copy / "bgsim", ignore=shutil.ignore_patterns("__pycache__"))
    broken = copy / "bgsim" / "fast" / "checker.py"
    broken.write_text("this line is not Python\n" + broken.read_text())
    result = _python(BREAK_AND_PLAY, str(tmp_path), env={"PYTHONPATH": str(copy)}, cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    found = json.loads(result.stdout.strip().splitlines()[-1])
    assert Path(found["bgsim"]).parent == copy / "bgsim"  # the broken copy is the one imported
    assert found["bots"][0] == 0 and found["reference"][0] == 0 and "error" not in found["reference"][1]
    for command in ("fast", "auto"):
        status, error = found[command]
        assert status == 1
        assert error.count("\n") == 1, error
        assert error.startswith("bgsim: error: the fast engine cannot be loaded: bgsim/fast/checker.py:1: SyntaxError")
        assert error.rstrip().endswith("the reference engine plays without it (--engine reference)")
