"""The game loop's families (``bgsim/fast/families.py``): one table, checked names, each family
played against the reference engine by a test named here, and the loops' sources saying which
families compile them.  Nothing here compiles a game loop (the tests named below do)."""

from __future__ import annotations

import ast
import re
import sys
import types
from pathlib import Path

import pytest

from bgsim import layouts
from bgsim.fast import families
from bgsim.fast.compile import Slot, rebind
from bgsim.fast.families import CHOUETTE, EVERY, FAMILIES, GAME, RUN, Declared, Loop

ROOT = Path(__file__).resolve().parents[1]

# Each family, and the tests that play games on it against the reference engine and assert that
# they played on it (``bgsim.fast.family_of``, or what the test's function reports).
PLAYED_AGAINST_THE_REFERENCE = {
    "every_bot": ("tests/test_fast_engine.py::test_every_pairing_and_rule_option_plays_the_reference_games",
                  "tests/test_fast_variants.py::test_every_variant_case_plays_the_reference_games"),
    "every_bot_with_exact": ("tests/test_fast_exact.py::test_money_games_are_the_reference_games",),
    "run": ("tests/test_compile_only_what_a_run_needs.py::test_a_family_plays_the_reference_engines_games_and_matches",),
    "run_variants": ("tests/test_compile_only_what_a_run_needs.py::"
                     "test_rules_other_than_the_standard_games_play_on_the_familys_variant_copy",),
    "custom": ("tests/test_fast_custom.py::test_a_custom_evaluation_plays_identically_in_both_engines",),
    "custom_variants": ("tests/test_fast_variants.py::"
                        "test_a_users_evaluation_function_plays_dutch_in_both_engines_and_is_refused_acey_deucey",),
    "profiled": ("tests/test_fast_timing.py::test_the_profile_plays_the_engines_own_games_and_names_every_phase",),
    "chouette": ("tests/test_chouette_fast.py::test_every_chouette_case_plays_the_reference_sessions_row_for_row",),
    "chouette_with_exact": ("tests/test_chouette_fast.py::"
                            "test_every_chouette_case_plays_the_reference_sessions_row_for_row",),
}


def _test_source(node_id: str) -> str:
    path, name = node_id.split("::")
    text = (ROOT / path).read_text()
    for node in ast.parse(text).body:
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return ast.get_source_segment(text, node)
    raise AssertionError(f"{node_id}: no such test")


def test_every_family_is_played_against_the_reference_by_a_test_that_names_it():
    assert set(PLAYED_AGAINST_THE_REFERENCE) == set(FAMILIES)
    for name, node_ids in PLAYED_AGAINST_THE_REFERENCE.items():
        for node_id in node_ids:
            source = _test_source(node_id)
            assert "reference" in source, node_id
            assert f'"{name}' in source, (name, node_id)  # it checks the family it played on


def test_each_loops_source_says_which_families_compile_it():
    for loop in (GAME, CHOUETTE):
        text = (ROOT / "bgsim" / "fast" / f"{loop.module}.py").read_text()
        docstring = ast.get_docstring(ast.parse(text))
        said = re.search(r"The families that compile this\s+loop \(``FAMILIES`` there[^)]*\):\s*([^.]*)\.",
                         docstring)
        assert said, loop.module
        named = [name.strip() for name in said.group(1).replace("\n", " ").split(",")]
        assert named == families.loop_families(loop.module)


def test_a_loop_template_is_never_compiled_as_it_stands():
    for loop in (GAME, CHOUETTE):
        for name, template in loop.templates().items():
            assert not hasattr(template, "py_func"), f"{loop.module}.{name}"
    assert {"choose", "offer_double", "respond", "TRACING", "VARIANT_GAMES", "PROFILE"} <= GAME.slots()
    assert CHOUETTE.slots() == {"choose", "offer_double", "respond"}


def test_a_misspelled_global_is_an_error_when_the_copy_is_made():
    from bgsim.fast import game

    with pytest.raises(NameError, match="reads no global 'play_onee'"):
        rebind(game.play_number, "x", play_onee=game.play_one)
    with pytest.raises(NameError, match="reads no global 'VARIANTS_GAMES'"):
        rebind(game.play_one, "x", VARIANTS_GAMES=True)


def test_a_row_that_asks_what_its_loop_cannot_do_is_an_error_when_declared():
    with pytest.raises(ValueError, match="chouette.py has no VARIANT_GAMES flag"):
        Declared("chouette_variants", CHOUETTE, EVERY, variants=True)
    with pytest.raises(ValueError, match="has no PROFILE flag"):
        Declared("chouette_timed", CHOUETTE, EVERY, timing=True)
    with pytest.raises(ValueError, match="exact is for an EVERY family"):
        Declared("run_exact", GAME, RUN, exact=True)
    with pytest.raises(ValueError, match="bots is EVERY or RUN"):
        Declared("some", GAME, "some bots")
    with pytest.raises(ValueError, match="identifier"):
        Declared("every bot", GAME, EVERY)
    with pytest.raises(KeyError, match="no game-loop family 'every_bots'"):
        families.family("every_bots")


@pytest.fixture
def a_loop(monkeypatch):
    """A throwaway loop module: ``inner`` reads a new slot; ``outer`` calls ``inner``."""
    module = types.ModuleType("bgsim.fast._a_loop")
    source = ("def inner(x):\n    return x + 1 if HYPER else x\n\n"
              "def outer(x):\n    return inner(x)\n")
    exec(compile(source, "<a_loop>", "exec"), module.__dict__)
    module.HYPER = Slot("a feature nobody declared")
    monkeypatch.setitem(sys.modules, "bgsim.fast._a_loop", module)
    return module


def test_a_new_slot_that_no_feature_fills_is_an_error_when_declared(a_loop):
    loop = Loop("_a_loop", kernels=("inner",), entries=("outer",))
    assert loop.slots() == {"HYPER"}
    with pytest.raises(ValueError, match="no feature fills the slot"):
        Declared("hyper", loop, EVERY)


def test_a_feature_added_to_the_table_fills_its_slot(a_loop, monkeypatch):
    loop = Loop("_a_loop", kernels=("inner",), entries=("outer",))
    monkeypatch.setitem(families.FLAGS, "timing", ("HYPER", False))  # a feature's entry, as adding one writes it
    declared = Declared("hyper", loop, EVERY, timing=True)
    assert declared.flags() == {"HYPER": True}
    made = families._copies(loop, "hyper_test", declared.flags(), False, ["outer"])
    assert made["outer"](1) == 2
    assert made["outer"].py_func.__globals__["inner"] is made["inner"]
    with pytest.raises(RuntimeError, match="slot\\(s\\) HYPER empty"):
        families._copies(loop, "hyper_test_2", {}, False, ["outer"])
    backwards = Loop("_a_loop", kernels=("outer",), entries=("inner",))
    with pytest.raises(RuntimeError, match="calls inner, which its Loop lists after it"):
        families._copies(backwards, "hyper_test_3", {"HYPER": True}, False, ["inner"])


def test_a_bot_switched_off_keeps_every_field_of_its_layout_but_the_switch():
    import dataclasses

    for bot in layouts.FAST_BOTS:
        if not bot.bearoff:
            continue
        off = families.switched_off(bot)
        assert not off.bearoff and off.params == bot.own_params and off.arrays == bot.own_arrays
        for field in dataclasses.fields(bot):
            if field.name not in ("bearoff", "params", "arrays"):
                assert getattr(off, field.name) == getattr(bot, field.name), field.name


def test_every_and_run_rows_hold_the_bots_they_say():
    every = families.family("every_bot")
    assert every.bots == tuple(bot for bot in layouts.FAST_BOTS if not bot.apart)
    assert families.family("every_bot_with_exact").bots == layouts.FAST_BOTS
    random_only = [layouts.fast_bots(layouts.CHECKER)["random"], layouts.NO_CUBE]
    assert families.family("run", random_only).key == "run_random___always_take"
    with pytest.raises(ValueError, match="takes the evaluation functions"):
        families.family("custom", random_only)
