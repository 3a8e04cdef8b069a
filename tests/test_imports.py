"""Imports flow one way and never in a circle.

``bgsim`` <- ``bots`` <- ``experiments``, and inside experiments its layers: the modules below
every layer (``errors``, ``stats``, ``sequential``) < ``running`` < ``analysis`` < ``studies`` < ``commands``
and the ``cli``.  Inside bgsim, the reference engine < the fast engine (``bgsim/fast/``) < the
modules that play in either engine (:data:`ABOVE_BOTH`): the reference never imports the fast
engine, and neither does a bot.  The fast engine is loaded only through
``bgsim/fast_loader.py``, by the modules above both engines and, below them, by the one
computations only kernels have (:data:`LOADS_BELOW`, ``bgsim/bearoff/building.py`` says why).
Every import statement counts, at module level or inside a function; an ``if TYPE_CHECKING:``
block, which never runs, counts for circles only (a circle of type names still ties two
modules together).  Importing a module also runs its packages' ``__init__``; that is not
counted as an import of the package.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("bgsim", "bots", "experiments")
# bgsim's layers, lowest first: the reference engine is every module not named here
FAST = "bgsim.fast"
ABOVE_BOTH = ("bgsim.series", "bgsim.rollout", "bgsim.chouette_sessions")  # they choose or drive an engine
LOADER = "bgsim.fast_loader"  # the one way in to the fast engine (importlib: no import statement)
# the reference's uses of it: computing bear-off tables and hypergammon's solution
LOADS_BELOW = ("bgsim.bearoff.building", "bgsim.hypergammon.building")
# experiments' layers, lowest first; a module may import its own layer and the ones below it
LAYERS = (
    ("base", ("experiments", "experiments.errors", "experiments.stats", "experiments.sequential")),
    ("running", ("experiments.running",)),
    ("analysis", ("experiments.analysis",)),
    ("studies", ("experiments.studies",)),
    ("commands", ("experiments.commands", "experiments.cli", "experiments.launch", "experiments.__main__",
                  "experiments.custom_bot_example")),
)


def modules_of(root: Path) -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[name] = path
    return found


def _runs(node: ast.AST) -> bool:
    """False for ``if TYPE_CHECKING:`` (and ``typing.TYPE_CHECKING``): the block never runs."""
    if not isinstance(node, ast.If):
        return True
    test = node.test
    return not ((isinstance(test, ast.Name) and test.id == "TYPE_CHECKING")
                or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"))


def _statements(node: ast.AST, typing: bool = False):
    """Every import statement under ``node``, skipping the blocks that never run (unless
    ``typing``: then an ``if TYPE_CHECKING:`` block's imports too)."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.Import, ast.ImportFrom)):
            yield child
        elif typing or _runs(child):
            yield from _statements(child, typing)
        else:
            for later in child.orelse:  # the else of `if TYPE_CHECKING:` does run
                yield from _statements(ast.Module(body=[later], type_ignores=[]), typing)


def imports_of(name: str, path: Path, modules: dict[str, Path], typing: bool = False) -> list[tuple[str, int]]:
    """(module of the tree, line) for each import in ``path`` (the module ``name``); with
    ``typing``, those of ``if TYPE_CHECKING:`` blocks too."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []

    def known(target: str) -> str | None:
        while target and target not in modules:
            target = target.rpartition(".")[0]
        return target or None

    for node in _statements(ast.parse(path.read_text(encoding="utf-8")), typing):
        if isinstance(node, ast.Import):
            targets = [known(alias.name) for alias in node.names]
        else:
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                origin = ".".join(base + ([node.module] if node.module else []))
            else:
                origin = node.module
            # `from package import module` imports the module; `from module import name` the module
            targets = [known(f"{origin}.{alias.name}") if f"{origin}.{alias.name}" in modules else known(origin)
                       for alias in node.names]
        found += [(target, node.lineno) for target in targets if target and target != name]
    return found


def import_graph(root: Path, typing: bool = False) -> dict[str, list[tuple[str, int]]]:
    modules = modules_of(root)
    return {name: imports_of(name, path, modules, typing) for name, path in modules.items()}


def layer_of(name: str) -> int | None:
    """The rank of a module of experiments (None: in no layer)."""
    for rank, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if name == prefix or (name.startswith(prefix + ".") and prefix != "experiments"):
                return rank
    return None


def _within(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def engine_layer(name: str) -> int:
    """bgsim's layer of a module of bgsim: 0 the reference engine, 1 the fast engine, 2 above both."""
    if any(_within(name, above) for above in ABOVE_BOTH):
        return 2
    return 1 if _within(name, FAST) else 0


def rank_of(name: str) -> tuple[int, int]:
    package = name.split(".")[0]
    if package == "bgsim":
        return PACKAGES.index(package), engine_layer(name)
    return PACKAGES.index(package), (layer_of(name) if package == "experiments" else 0)


def _where(root: Path, name: str, line: int) -> str:
    return f"{modules_of(root)[name].relative_to(root)}:{line}"


def back_edges(root: Path) -> list[str]:
    """Each import that goes up: bgsim to bots or experiments, bots to experiments, a lower
    layer of experiments to a higher one; and each module of experiments in no layer."""
    graph = import_graph(root)
    found = []
    for name in graph:
        if name.split(".")[0] == "experiments" and layer_of(name) is None:
            found.append(f"{name} is in no layer of experiments (running, analysis, studies, commands)")
    for name, targets in graph.items():
        for target, line in targets:
            if target.split(".")[0] == "experiments" and layer_of(target) is None:
                continue  # said above
            if name.split(".")[0] == "experiments" and layer_of(name) is None:
                continue
            if rank_of(target) > rank_of(name):
                found.append(f"{_where(root, name, line)} imports {target}: {name} is below it")
            elif name.split(".")[0] == "bots" and target.split(".")[0] == "bgsim" and engine_layer(target):
                found.append(f"{_where(root, name, line)} imports {target}: a bot's reference half "
                             "imports the reference engine alone")
            elif target == LOADER and name.split(".")[0] != "experiments" and engine_layer(name) == 0 \
                    and not any(_within(name, user) for user in LOADS_BELOW):
                found.append(f"{_where(root, name, line)} imports {target}: below the modules that play in "
                             f"either engine, only {', '.join(LOADS_BELOW)} loads the fast engine")
    return found


def hidden_loads(root: Path) -> list[str]:
    """Each way round the import statements, in the reference engine or the bots: a string that
    names the fast engine or Numba (``importlib.import_module("bgsim.fast")``, ``__import__``)
    anywhere but the loader, and every import of Numba."""
    found = []
    for name, path in modules_of(root).items():
        if name.split(".")[0] not in ("bgsim", "bots") or engine_layer(name) or name == LOADER:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                    and (_within(node.value, FAST) or _within(node.value, "numba")):
                found.append(f"{path.relative_to(root)}:{node.lineno} names {node.value!r}")
        for node in _statements(tree, typing=True):
            modules = [alias.name for alias in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            if node.__class__ is ast.ImportFrom and node.level:
                continue  # relative: a module of the tree, checked by back_edges
            for module in modules:
                if _within(module, "numba"):
                    found.append(f"{path.relative_to(root)}:{node.lineno} imports {module}")
    return found


def cycles(root: Path) -> list[str]:
    """Each circle of imports, named by its imports: "a.py:3 imports b -> b.py:9 imports a"
    (type-only imports count)."""
    graph = import_graph(root, typing=True)
    edges = {name: {target: line for target, line in reversed(targets)} for name, targets in graph.items()}
    index, low, stack, on_stack, components = {}, {}, [], set(), []
    counter = 0

    def connect(start: str) -> None:  # Tarjan's strongly connected components, without recursion
        nonlocal counter
        work = [(start, iter(edges[start]))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(edges[child])))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.add(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        components.append(component)

    for name in sorted(edges):
        if name not in index:
            connect(name)
    found = []
    for component in components:
        start = min(component)
        path, seen = [start], {start}
        while True:  # walk inside the component until a module repeats: that is one circle
            step = min(target for target in edges[path[-1]] if target in component)
            if step in seen:
                circle = path[path.index(step):] + [step]
                break
            path.append(step)
            seen.add(step)
        found.append(" -> ".join(f"{_where(root, a, edges[a][b])} imports {b}" for a, b in zip(circle, circle[1:])))
    return found


def test_imports_flow_one_way():
    found = back_edges(ROOT)
    assert not found, "imports that go up:\n" + "\n".join(found)


def test_the_reference_engine_and_the_bots_never_load_the_fast_engine_or_numba_round_the_imports():
    found = hidden_loads(ROOT)
    assert not found, "the fast engine or Numba reached from the reference engine:\n" + "\n".join(found)


def test_no_module_imports_itself_round_a_circle():
    found = cycles(ROOT)
    assert not found, "import cycles:\n" + "\n".join(found)


def test_every_module_of_experiments_sits_in_a_layer():
    missing = [name for name in modules_of(ROOT) if name.startswith("experiments") and layer_of(name) is None]
    assert not missing


# --- the checker itself fails on what it is for ---------------------------------------------

def write_tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


FAKE = {
    "bgsim/__init__.py": "",
    "bgsim/board.py": "from .rules import legal\n",
    "bgsim/rules.py": "def legal():\n    from .board import Board  # inside a function: still a circle\n",
    "bgsim/drawing.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .board import Board\n",
    "bgsim/show.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .series import play\n",
    "bgsim/series.py": "def play():\n    from . import show  # above both engines: may import anything of bgsim\n",
    "bgsim/chouette.py": "def play():\n    from .fast import game\n    from . import fast_loader\n",
    "bgsim/fast_loader.py": "import importlib\ndef load():\n    return importlib.import_module('bgsim.fast')\n",
    "bgsim/sneaky.py": "import importlib\ndef load():\n    import numba\n    return importlib.import_module('bgsim.fast.game')\n",
    "bgsim/fast/__init__.py": "",
    "bgsim/fast/game.py": "from ..board import legal\nfrom ..series import play\n",
    "bgsim/speedy.py": "def f():\n    import bots.players\n",
    "bots/__init__.py": "",
    "bots/players.py": "from bgsim import board\n",
    "bots/net.py": "from bgsim.fast import game\n",
    "experiments/__init__.py": "",
    "experiments/errors.py": "",
    "experiments/running/__init__.py": "",
    "experiments/running/runner.py": "from experiments.analysis import report\nfrom experiments.errors import RunError\n",
    "experiments/analysis/__init__.py": "",
    "experiments/analysis/report.py": "from ..running import runner\n",
    "experiments/loose.py": "",
}


def test_the_checker_names_an_import_that_goes_up(tmp_path):
    found = back_edges(write_tree(tmp_path, FAKE))
    assert "bgsim/speedy.py:2 imports bots.players: bgsim.speedy is below it" in found
    assert "experiments/running/runner.py:1 imports experiments.analysis.report: experiments.running.runner is below it" in found
    assert "experiments.loose is in no layer of experiments (running, analysis, studies, commands)" in found
    assert not any("players.py" in line or "report.py" in line for line in found)  # downward imports pass


def test_the_checker_names_the_reference_engine_or_a_bot_reaching_the_fast_engine(tmp_path):
    found = back_edges(write_tree(tmp_path, FAKE))
    assert "bgsim/chouette.py:2 imports bgsim.fast.game: bgsim.chouette is below it" in found
    assert "bgsim/fast/game.py:2 imports bgsim.series: bgsim.fast.game is below it" in found
    assert ("bots/net.py:1 imports bgsim.fast.game: a bot's reference half imports the reference engine alone"
            in found)
    assert ("bgsim/chouette.py:3 imports bgsim.fast_loader: below the modules that play in either engine, "
            f"only {', '.join(LOADS_BELOW)} loads the fast engine") in found
    assert not any("series.py" in line or "fast_loader.py" in line for line in found)
    hidden = hidden_loads(write_tree(tmp_path, FAKE))
    assert hidden == ["bgsim/sneaky.py:4 names 'bgsim.fast.game'", "bgsim/sneaky.py:3 imports numba"]


def test_the_checker_names_a_circle_even_through_a_function_or_a_type(tmp_path):
    found = cycles(write_tree(tmp_path, FAKE))
    assert "bgsim/board.py:1 imports bgsim.rules -> bgsim/rules.py:2 imports bgsim.board" in found
    assert any("experiments/analysis/report.py:1 imports experiments.running.runner" in line for line in found)
    assert "bgsim/series.py:2 imports bgsim.show -> bgsim/show.py:3 imports bgsim.series" in found
    assert not any("drawing" in line for line in found)  # a type of a module that does not import it back
    assert len(found) == 3


@pytest.mark.parametrize("source, target", [
    ("from . import board\n", "bgsim.board"),
    ("import bgsim.board as b\n", "bgsim.board"),
    ("from bgsim.board import Board\n", "bgsim.board"),
    ("import numpy as np\n", None),
])
def test_an_import_is_resolved_to_the_module_it_runs(tmp_path, source, target):
    write_tree(tmp_path, {"bgsim/__init__.py": "", "bgsim/board.py": "", "bgsim/x.py": source})
    modules = modules_of(tmp_path)
    found = [name for name, _ in imports_of("bgsim.x", tmp_path / "bgsim/x.py", modules)]
    assert found == ([target] if target else [])


def test_making_a_player_imports_only_the_modules_that_hold_bots():
    """The registry imports the bots modules whose source assigns BOTS: a player's start loads
    no UBGI controller or server and no match-file reader (each costs the start time)."""
    import subprocess
    import sys

    code = ("import sys; from bots import make_player; make_player('nn+pipdiff'); "
            "print(' '.join(sorted(m for m in sys.modules if m.startswith(('bots.', 'bgsim.interchange.')))))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert "bots.nn" in loaded and "bots.race_rules" in loaded
    for heavy in ("bots.ubgi", "bots.ubgi_server", "bgsim.interchange.ubgi", "bgsim.interchange.replay",
                  "bgsim.interchange.files"):
        assert heavy not in loaded
