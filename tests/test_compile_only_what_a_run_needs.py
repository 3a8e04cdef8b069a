"""A run that names its players compiles the kernels of their bots only (the ``run`` families of
``bgsim/fast/families.py``),
plays the same rows as the reference engine there, says what it compiles, and keeps its compiled
kernels across an upgrade of nothing but data files.  Nothing here is timed."""

from __future__ import annotations

import ast
import subprocess
import sys
import threading
from pathlib import Path

import pandas as pd
import pytest

import bgsim.fast as fast
from bgsim import layouts
from bgsim.cube import Rules
from bgsim.fast import compile_only_for, compiling_only_for, layouts_of
from bgsim.fast.compile import FROZEN_SOURCES, stamped_sources
from bgsim.fast.families import compile_seconds, family, family_key
from bgsim.series import play_games
from bots import make_player

pytestmark = pytest.mark.usefixtures("each_run_its_kernels")  # the suite's default is every kernel

ROOT = Path(__file__).resolve().parents[1]
FAST = ROOT / "bgsim" / "fast"
PYTHON_SIDE = {"timing.py": {"starts"}, "custom.py": {"decisions"}}  # imports kernels never read


def _dispatch_imports(module) -> set[str]:
    """The kernel modules and functions a generated dispatch imports (what it compiles)."""
    source = Path(module.__file__).read_text()
    return {line for line in source.splitlines() if line.startswith("from bgsim.fast.")}


def test_a_random_family_dispatches_to_randoms_kernel_alone():
    chosen = family("run", layouts_of([make_player("random")]))
    assert chosen.key == "run_random___always_take"
    choose = sys.modules[chosen.copies["play_one"].py_func.__globals__["choose"].__module__]
    imports = _dispatch_imports(choose)
    assert imports == {"from bgsim.fast.checker import random_choose as checker_random_choose",
                       "from bgsim.fast.checker import random_double as checker_random_double",  # acey-deucey's
                       "from bgsim.fast.compile import jit"}
    cube = sys.modules[chosen.copies["play_one"].py_func.__globals__["offer_double"].__module__]
    assert not any(name in " ".join(_dispatch_imports(cube)) for name in ("nn", "pipdiff", "exact", "match_cube"))


def test_a_heuristic_pipdiff_family_has_no_net_no_exact_no_race_rule():
    chosen = family("run", layouts_of([make_player("heuristic+pipdiff")]))
    names = {bot.name for bot in chosen.bots}
    assert {"heuristic", "pipdiff"} <= names
    assert not names & {"nn", "exact", "rule62", "epc", "keith", "random", "pubeval", "racer"}
    assert chosen.key == "run_heuristic___pipdiff"


def test_bots_that_share_a_kernel_share_a_family():
    assert family("run", layouts_of([make_player("random+keith")])).key == family(
        "run", layouts_of([make_player("random+thorp")])).key == "run_random___count"


def test_a_run_of_random_writes_no_cache_of_any_other_bots_kernel(tmp_path):
    # a real cold compile into an empty Numba cache: which kernels it compiled is which it wrote
    cache = tmp_path / "numba"
    done = subprocess.run([sys.executable, "-c", "import sys; from experiments.cli import main; sys.exit(main())", "play", "random", "random", "--games", "10",
                           "--out", str(tmp_path / "games.parquet"), "--no-progress"],
                          cwd=ROOT, capture_output=True, text=True,
                          env={**__import__("os").environ, "NUMBA_CACHE_DIR": str(cache)})
    assert done.returncode == 0, done.stderr
    assert "compiling the fast engine for random (first use, ~" in done.stderr
    written = {path.name.split("-")[0] for path in cache.rglob("*.nbi")}
    assert "game.play_batch_run_random___always_take" in written
    for name in written:
        module = name.split(".")[0]
        assert module not in {"nn", "race_rules", "match_cube", "exact", "chouette", "cube", "variants"}, name
        assert not name.startswith(("checker.", "game.play_batch_every_bot", "game.play_one_run_variants",
                                    "game.play_one_traced")), name  # no other family, no trace code
    rows = pd.read_parquet(tmp_path / "games.parquet")
    reference = play_games(make_player("random"), make_player("random"), 1, 10, engine="reference")
    pd.testing.assert_frame_equal(rows[reference.columns].reset_index(drop=True), reference)


# One family for the two tests that play a mixed pair (each family is a compile of its own): the
# bear-off switch on, a cube bot, and a second checker bot.
MIXED = ("heuristic(bearoff=true)+pipdiff", "random")


def test_a_family_plays_the_reference_engines_games_and_matches():
    white, black = (make_player(spec) for spec in MIXED)
    with compile_only_for([white, black]):
        money = play_games(white, black, 11, 40, engine="fast")
        matches = play_games(black, white, 12, 4, match_to=3, engine="fast")
        assert compiling_only_for() == layouts_of([white, black])
        assert fast.family_of((white, black)).declared.name == "run"
    pd.testing.assert_frame_equal(money, play_games(white, black, 11, 40, engine="reference"))
    pd.testing.assert_frame_equal(matches, play_games(black, white, 12, 4, match_to=3, engine="reference"))


def test_a_block_widens_for_a_player_it_did_not_name_and_ends_with_the_block():
    random_player, heuristic = make_player("random"), make_player("heuristic+pipdiff")
    assert compiling_only_for() is None
    with compile_only_for([random_player]):
        fast._family_of([random_player, heuristic], False)
        assert {bot.name for bot in compiling_only_for()} == {"random", "none", "heuristic", "pipdiff"}
        seen = []
        other = threading.Thread(target=lambda: seen.append(compiling_only_for()))
        other.start()
        other.join()
        assert seen == [None]  # another thread plays on every bot's kernels
    assert compiling_only_for() is None


def test_the_compile_message_names_the_bots_and_what_they_cost():
    from experiments.running.machine import compiling_message

    random_player, nn = make_player("random"), make_player("nn+pipdiff")
    assert compiling_message() .startswith("compiling the fast engine for every bot (first use, ~")
    with compile_only_for([random_player]):
        alone = compiling_message([random_player])
        assert alone.startswith("compiling the fast engine for random (first use, ~")
        widened = compiling_message([nn])
        assert widened.startswith("compiling the fast engine for nn, pipdiff, random (first use, ~")
    assert compile_seconds(layouts_of([random_player])) < compile_seconds(layouts_of([random_player, nn]))
    assert compile_seconds(layouts_of([random_player, nn])) < compile_seconds() < compile_seconds(layouts.FAST_BOTS)


def test_the_source_stamp_covers_every_source_the_kernels_freeze_and_no_data():
    stamped = stamped_sources()
    assert all(path.suffix == ".py" for path in stamped)
    assert set(FAST.glob("*.py")) <= set(stamped)
    frozen = set()
    for path in FAST.glob("*.py"):
        if path.name in ("__init__.py", "sameness.py"):  # Python wrappers: no kernel of their own
            continue
        for node in ast.parse(path.read_text()).body:  # module level: what a kernel can freeze in
            if isinstance(node, ast.ImportFrom) and node.level == 2:
                modules = [node.module] if node.module else [alias.name for alias in node.names]
                frozen |= {module.replace(".", "/") for module in modules
                           if module.split(".")[0] not in PYTHON_SIDE.get(path.name, set())}
    assert {f"{module}.py" for module in frozen} == set(FROZEN_SOURCES)
    assert {ROOT / "bgsim" / name for name in FROZEN_SOURCES} <= set(stamped)


def test_rules_other_than_the_standard_games_play_on_the_familys_variant_copy():
    white = make_player("random")
    rules = Rules(variant="nackgammon")
    with compile_only_for([white]):
        chosen = fast._kernels(white, white, rules)[0]
        assert fast.family_of((white, white), rules).declared.name == "run_variants"
        games = play_games(white, white, 5, 3, rules, engine="fast")
    assert chosen.py_func.__qualname__ == "play_batch_run_variants_random___always_take"
    pd.testing.assert_frame_equal(games, play_games(white, white, 5, 3, rules, engine="reference"))
    # the standard game's copy of the same bots holds not one variant instruction
    standard = family("run", layouts_of([white]))
    assert standard.copies["play_one"].py_func.__globals__["VARIANT_GAMES"] is False


def test_a_command_line_imports_the_module_of_its_command_and_parses_as_with_every_command():
    from experiments import cli

    everything = cli.commands(cli.build_parser())
    assert {name.split()[0] for name in everything} == set(cli.COMMANDS)
    for command in cli.COMMANDS:
        alone = cli.commands(cli.build_parser(command))
        assert command in alone and set(alone) <= set(everything)
    line = ["play", "random", "heuristic", "--games", "3", "--seed", "5", "--out", "a.parquet"]
    assert vars(cli.build_parser("play").parse_args(line)) == vars(cli.build_parser().parse_args(line))
    done = subprocess.run([sys.executable, "-c", "import sys; from experiments.cli import main; main(['bots']); "
                           "print(sorted(name for name in sys.modules if name.startswith('experiments.')))"],
                          cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    loaded = done.stdout.strip().splitlines()[-1]
    assert "experiments.commands.play" in loaded
    for other in ("experiments.commands.cube_audit", "experiments.studies.training", "experiments.commands.train"):
        assert f"'{other}'" not in loaded


def test_a_family_traces_on_a_copy_with_the_trace_code_and_plays_without_it():
    from bgsim.fast import trace_game

    white, black = make_player("random"), make_player("random")
    chosen = family("run", layouts_of([white, black]))
    assert chosen.copies["play_one"].py_func.__globals__["TRACING"] is False
    with compile_only_for([white, black]):
        rows, trace = trace_game(white, black, 5, 3)
    every_rows, every_trace = trace_game(white, black, 5, 3)  # every bot's kernels, traced as always
    assert (rows == every_rows).all() and (trace == every_trace).all() and len(trace) > 10


def test_bench_compile_only_refuses_what_it_would_ignore(capsys):
    from experiments.cli import main

    assert main(["bench", "--compile-only", "--no-compile"]) == 2
    assert main(["bench", "--compile-only", "--games", "500"]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 2 and "--no-compile" in lines[0] and "--games" in lines[1]


def test_the_bear_off_player_is_compiled_only_for_a_player_whose_switch_is_on():
    off, on = make_player("heuristic"), make_player("heuristic(bearoff=true)")
    assert family_key(family("run", layouts_of([off])).bots) == "heuristic___always_take"
    assert family_key(family("run", layouts_of([on])).bots) == "heuristic_bearoff___always_take"
    assert family_key(family("run", layouts_of([off, on])).bots) == "heuristic_bearoff___always_take"  # one for both
    dispatch_of = lambda chosen: sys.modules[  # noqa: E731
        chosen.copies["play_one"].py_func.__globals__["choose"].__module__]
    assert "bearoff_first" not in Path(dispatch_of(family("run", layouts_of([off]))).__file__).read_text()
    assert "bearoff_first" in Path(dispatch_of(family("run", layouts_of([on]))).__file__).read_text()
    # the switch on: every pure bear-off the perfect player's, in both engines, the same games
    white, black = (make_player(spec) for spec in MIXED)
    assert family("run", layouts_of([white, black])).key.startswith("run_heuristic_bearoff_")
    with compile_only_for([white, black]):
        fast_games = play_games(white, black, 3, 30, engine="fast")
    pd.testing.assert_frame_equal(fast_games, play_games(white, black, 3, 30, engine="reference"))


def test_kernels_cached_under_numba_cache_dir_are_dropped_when_a_source_changes(tmp_path, monkeypatch):
    import numba
    from numba.core.caching import UserProvidedCacheLocator

    from bgsim.fast import compile as compiled

    monkeypatch.setattr(numba.config, "CACHE_DIR", str(tmp_path))
    # where Numba itself puts a kernel of this package under NUMBA_CACHE_DIR
    folder = tmp_path / UserProvidedCacheLocator.get_suitable_cache_subpath(str(FAST / "moves.py"))
    assert compiled.cache_folders() == [FAST / "__pycache__", folder]
    folder.mkdir()
    (folder / "game.play_batch-600.py311.nbi").write_bytes(b"compiled from older sources")
    (folder / "numba-sources.sha256").write_text("an older stamp")
    monkeypatch.setattr(compiled, "source_stamp", lambda: "the sources now")
    compiled._drop_stale_cache([folder])  # that folder alone: the package's own cache is in use
    assert not list(folder.glob("*.nbi"))
    assert (folder / "numba-sources.sha256").read_text() == "the sources now"
    (folder / "game.play_batch-600.py311.nbi").write_bytes(b"compiled from these sources")
    compiled._drop_stale_cache([folder])
    assert list(folder.glob("*.nbi"))  # kept while the sources stay the same


def test_bgsim_kernels_all_makes_every_run_play_on_every_bots_kernels(monkeypatch):
    from experiments.running.machine import compiling_message

    random_player = make_player("random")
    monkeypatch.setenv("BGSIM_KERNELS", "all")
    with compile_only_for([random_player]):
        assert compiling_only_for() is None
        assert compiling_message([random_player]).startswith("compiling the fast engine for every bot (first use, ~")
        frame = play_games(random_player, random_player, 3, 2, engine="fast")
    assert frame.equals(play_games(random_player, random_player, 3, 2, engine="reference")[frame.columns])


def test_an_unknown_bgsim_kernels_is_one_error_line(tmp_path, monkeypatch, capsys):
    from experiments import cli

    monkeypatch.setenv("BGSIM_KERNELS", "some")
    assert cli.main(["play", "random", "random", "--games", "2", "--out", str(tmp_path / "a.parquet")]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "BGSIM_KERNELS='some': expected 'run'" in err.strip().splitlines()[-1]
    assert len(err.strip().splitlines()) == 1  # said first: not after "playing 2 games ..."
    assert not (tmp_path / "a.parquet").exists()
