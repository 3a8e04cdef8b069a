"""Capabilities declared once: a fast bot's layout (``bgsim/layouts.py``) says what it supports,
and both engines, the packer and ``bgsim validate`` follow the declaration.

The first part checks every registered bot.  The second builds throwaway bots, a checker bot and
a cube strategy, each in a module of its own (``bots/lead.py`` and ``bgsim/fast/lead.py`` as a
newcomer would write them, here in a temporary folder added to the two packages), and shows for
each step of docs/ARCHITECTURE.md's "Adding a bot" left out which named test fails.
"""

from __future__ import annotations

import importlib
import sys
import textwrap

import pytest

import bgsim.fast
import bots
from bgsim import layouts
from bgsim.cube import CubeView, Rules
from bgsim.fast import SWITCH_VALUES, dispatch, seats
from bgsim.fast.sameness import random_positions
from bgsim.layouts import CAPABILITIES, CHECKER, CUBE, STANDARD, FastBot
from bots import checker_bots, cube_bots, make_checker, make_cube, make_player, registry
from conftest import fast_cube_answers
from experiments.studies.validation import default_cases
import test_bearoff_player as bearoff_tests
import test_bot_rules as rule_tests
import test_fast_registry as registry_tests

ROLES = {CHECKER: checker_bots, CUBE: cube_bots}
FAST = [(role, name) for role, registered in ROLES.items() for name, bot in registered().items() if bot.fast_name]
SCORE_AWARE = [layout.name for layout in layouts.fast_bots(CUBE).values() if layout.score_aware]


# --- every registered bot ------------------------------------------------------------------


def switches_are_parameters(role, name):
    bot = ROLES[role]()[name]
    layout = layouts.fast_bots(role)[bot.fast_name]
    params = {param.key: param for param in bot.PARAMS}
    switchable = {switch.name for switch in CAPABILITIES if switch.role == role}
    declared = {switch.name for switch in layout.switches}
    assert set(params) & switchable == declared, (
        f"{name}: its parameters switch {sorted(set(params) & switchable)}, its layout declares {sorted(declared)}")
    for key in declared:
        assert isinstance(params[key].default, bool), f"{name}: {key} is a true/false parameter"


@pytest.mark.parametrize("role, name", FAST, ids=[f"{role}-{name}" for role, name in FAST])
def test_a_fast_bots_capability_switches_are_the_parameters_of_its_bot(role, name):
    # a switch without the layout's capability would be ignored by the fast engine alone, a
    # capability without the switch would have nothing to switch
    switches_are_parameters(role, name)


def kernels_exist(layout):
    for question in dispatch.questions(layout):
        module, function, _ = dispatch.kernel_of(layout, question)
        assert hasattr(importlib.import_module(module), function), (
            f"{layout.name}: its layout names kernel {module}.{function}, which does not exist")


@pytest.mark.parametrize("layout", layouts.FAST_BOTS, ids=lambda layout: f"{layout.role}-{layout.name}")
def test_every_layout_names_kernels_that_exist(layout):
    kernels_exist(layout)


@pytest.fixture(scope="module")
def small_tables(tmp_path_factory):
    with pytest.MonkeyPatch.context() as patch:
        # test_bearoff_player's tables: the bear-off switch reads the 3-checker two-sided table
        patch.setenv("BGSIM_CACHE", str(tmp_path_factory.getbasetemp() / "bearoff-cache"))
        patch.setenv("BGSIM_BEAROFF_CHECKERS", str(bearoff_tests.SMALL))
        from bgsim.bearoff.player import player_tables

        yield player_tables(bearoff_tests.SMALL)


@pytest.mark.parametrize("switch", CAPABILITIES, ids=lambda switch: switch.name)
@pytest.mark.parametrize("on", [False, True])
def test_a_switch_hands_the_kernels_exactly_what_its_capability_declares(small_tables, switch, on):
    params, arrays = SWITCH_VALUES[switch.name](on)
    assert list(params) == list(switch.params)
    assert set(arrays) == {key for key, _ in switch.arrays}
    assert params[switch.name] == float(on)


def test_every_switch_has_its_values():
    assert set(SWITCH_VALUES) == {switch.name for switch in CAPABILITIES}


def test_a_layouts_capability_adds_its_parameters_and_arrays_after_the_bots_own():
    assert layouts.RACER.params == ("hit", "blot", "bearoff", "bearoff_checkers")
    assert layouts.RACER.own_params == ("hit", "blot")
    assert layouts.EPC.arrays == (("epc", "float64"), ("met_pre", "float64"), ("met_post", "float64"))
    with pytest.raises(RuntimeError, match="declares itself what its capability score_aware adds"):
        FastBot("twice", CUBE, 99, params=("score_aware",), kernel="cube.pipdiff", score_aware=True)
    with pytest.raises(RuntimeError, match="bearoff is a capability of checker bots"):
        layouts.check_table((FastBot("misplaced", CUBE, 99, kernel="cube.pipdiff", bearoff=True),))


def test_a_bot_without_its_capabilitys_switch_is_refused_by_the_packer():
    class Racer:
        fast_name = name = "racer"

        def fast_params(self):
            return {"hit": 2.0, "blot": 5.0}

    with pytest.raises(ValueError, match="declares bearoff in bgsim/layouts.py but has no true/false bearoff"):
        bgsim.fast.fast_half(Racer(), CHECKER)


# what the score decides alone: value >= away, the cube already wins the match (never double);
# value >= the opponent's away, any loss loses it (always double)
FORCED = (
    (CubeView(value=2, centred=False, max_cube=64, beaver_allowed=False, jacoby=False, match_to=5, away=(2, 3)),
     False),
    (CubeView(value=1, centred=True, max_cube=64, beaver_allowed=False, jacoby=False, match_to=5, away=(3, 1),
              post_crawford=True), True),
)


def follows_what_the_score_decides(name, fast_dispatch=None):
    """Both engines: ``name`` (score_aware on, its default) offers what the score decides, and
    ``name(score_aware=false)`` judges otherwise somewhere (so the check is what decides)."""
    on, off = make_cube(name), make_cube(f"{name}(score_aware=false)")
    assert on.score_aware is True
    holder = type("Holder", (), {})()
    holder.name, holder.checker, holder.cube = name, make_checker("random"), on
    packed = seats(holder, holder)
    differ = 0
    for position in random_positions(40, seed=3):
        for seen in (position, position.turned()):
            for cube, forced in FORCED:
                assert on.offer_double(seen, cube) is forced, (name, "reference", seen.position_id, cube)
                offered, _ = fast_cube_answers(packed, seen, cube, fast_dispatch)
                assert offered is forced, (name, "fast", seen.position_id, cube)
                differ += off.offer_double(seen, cube) is not forced
    assert differ > 0


@pytest.mark.parametrize("name", SCORE_AWARE)
def test_a_score_aware_cube_bot_offers_what_the_score_decides_in_both_engines(name):
    follows_what_the_score_decides(name)


def test_validate_plays_every_variant_a_layout_declares_in_both_engines():
    played = set()
    for white, black, rules, _ in default_cases():
        variant = getattr(rules, "variant", STANDARD)
        for spec in (white, black):
            player = make_player(spec)
            played |= {(CHECKER, player.checker.fast_name, variant), (CUBE, player.cube.fast_name, variant)}
    declared = {(layout.role, layout.name, variant) for layout in layouts.FAST_BOTS for variant in layout.variants}
    assert declared <= played, (f"bgsim validate plays no game of {sorted(declared - played)}: "
                                "experiments/studies/validation.py, bot_cases")


def test_no_bot_claims_a_chouette_seat_that_validate_does_not_play():
    # every bot whose layout says chouette is seated by bgsim validate's chouette cases, which
    # play them in both engines, under each cube regime
    from bgsim.chouette import CUBE_REGIMES
    from experiments.studies.validation import chouette_cases

    seated = {regime: set() for regime in CUBE_REGIMES}
    for specs, _, regime in chouette_cases():
        for spec in specs:
            player = make_player(spec)
            seated[regime] |= {(CHECKER, player.checker.fast_name), (CUBE, player.cube.fast_name)}
    claimed = {(layout.role, layout.name) for layout in layouts.FAST_BOTS if layout.chouette}
    for regime, bots in seated.items():
        assert claimed <= bots, f"validate seats no {sorted(claimed - bots)} in a {regime} chouette"


# --- throwaway bots: each step of adding one, left out --------------------------------------

BOT_MODULE = '''
from bgsim.board import pip_counts
from bgsim.cube import Response
from bots.checker import BEAROFF, EvaluationBot
from bots.cube import SCORE_AWARE, CubeBot


class Lead(EvaluationBot):
    name = "lead"
    fast_name = "lead"
    description = "the biggest pip lead after the play"
    PARAMS = (BEAROFF,)

    def score(self, board, before):
        own, opponent = pip_counts(board)
        return float(opponent - own)


class LeadCube(CubeBot):
    name = "lead"
    fast_name = "lead"
    description = "double on a lead of 10 pips, take up to 15"
    PARAMS = (SCORE_AWARE,)

    def wants_double(self, position, cube):
        return position.opponent_pip_count - position.pip_count >= 10

    def respond(self, position, cube):
        lead = position.opponent_pip_count - position.pip_count
        return Response.TAKE if lead <= 15 else Response.DROP


BOTS = (Lead, LeadCube)
'''

KERNEL_MODULE = '''
from bgsim.fast.board import pip_counts, survey
from bgsim.fast.checker import best_scoring
from bgsim.fast.compile import jit
from bgsim.fast.cube import DROP, TAKE


@jit
def lead_score(code, plays, row, params, offsets, float64s, race):
    own, opponent, _, _, _ = survey(plays, row)
    return float(opponent - own)


@jit
def lead_choose(code, params, offsets, float64s, int32s, int64s, board, plays, keys, count, order, streams, row):
    return best_scoring(lead_score, code, plays, keys, count, params, offsets, float64s, False)


@jit
def lead_offers(code, params, offsets, float64s, int32s, int64s, board, view):
    own, opponent = pip_counts(board)
    return opponent - own >= 10


@jit
def lead_answer(code, params, offsets, float64s, int32s, int64s, board, view):
    own, opponent = pip_counts(board)
    return TAKE if opponent - own <= 15 else DROP
'''

MODULES = ("bots.lead", "bgsim.fast.lead", "bgsim.fast._dispatch_lead_checker", "bgsim.fast._dispatch_lead_cube")
# chouette=True as the how-to's layouts: validate seats only such bots in its chouette cases
LEAD = FastBot("lead", CHECKER, 50, kernel="lead.lead", bearoff=True, chouette=True)
LEAD_CUBE = FastBot("lead", CUBE, 50, kernel="lead.lead", score_aware=True, chouette=True)


class Throwaway:
    """Installs the throwaway bots step by step: the bots module (found by the registry in
    bots/), the layouts, the kernel module (in bgsim/fast/), each step with or without a fault."""

    def __init__(self, folder, monkeypatch):
        self.folder, self.monkeypatch = folder, monkeypatch
        self.bots_folder, self.kernels_folder = folder / "bots", folder / "kernels"
        self.bots_folder.mkdir()
        self.kernels_folder.mkdir()
        # the two packages also look in the throwaway folders, as if the files were in the tree
        monkeypatch.setattr(bots, "__path__", list(bots.__path__) + [str(self.bots_folder)])
        monkeypatch.setattr(bgsim.fast, "__path__", list(bgsim.fast.__path__) + [str(self.kernels_folder)])
        self.forget()

    @staticmethod
    def forget():
        """No throwaway module stays imported, no registry keeps the throwaway bots."""
        for name in MODULES:
            sys.modules.pop(name, None)
        registry._registry.cache_clear()

    def bots_module(self, text=BOT_MODULE):
        (self.bots_folder / "lead.py").write_text(textwrap.dedent(text))
        importlib.invalidate_caches()

    def layouts(self, checker=LEAD, cube=LEAD_CUBE):
        self.monkeypatch.setattr(layouts, "FAST_BOTS", layouts.FAST_BOTS + (checker, cube))

    def kernel_module(self, text=KERNEL_MODULE):
        (self.kernels_folder / "lead.py").write_text(textwrap.dedent(text))
        importlib.invalidate_caches()

    def dispatch(self, role, layout):
        """The dispatch of ``layout`` alone (bgsim.fast.dispatch.build), compiled for this test."""
        names = ("choose",) if role == CHECKER else ("offer_double", "respond")
        return dispatch.build(role, [layout], names, f"lead_{role}", directory=self.folder)


@pytest.fixture
def throwaway(tmp_path, monkeypatch):
    yield Throwaway(tmp_path, monkeypatch)
    Throwaway.forget()


def test_a_complete_throwaway_checker_bot_and_cube_strategy_pass_every_check(throwaway, small_tables):
    throwaway.bots_module()
    throwaway.layouts()
    throwaway.kernel_module()
    assert "lead" in checker_bots() and "lead" in cube_bots()
    for role, layout in ((CHECKER, LEAD), (CUBE, LEAD_CUBE)):
        registry_tests.test_every_declared_kernel_has_a_registered_bot(layout)
        registry_tests.test_a_registered_fast_bot_hands_over_exactly_its_declared_layout(role, "lead")
        switches_are_parameters(role, "lead")
        kernels_exist(layout)
    bearoff_tests.switch_hands_bear_offs_to_the_perfect_player(
        small_tables, "lead", throwaway.dispatch(CHECKER, LEAD).choose)
    follows_what_the_score_decides("lead", throwaway.dispatch(CUBE, LEAD_CUBE))


def test_adding_a_bot_adds_its_own_validate_cases_and_changes_no_existing_one(throwaway):
    from experiments.studies.validation import chouette_cases

    before = (default_cases(), chouette_cases())
    throwaway.bots_module()
    throwaway.layouts()
    throwaway.kernel_module()
    registry._registry.cache_clear()  # the registry read before the bots were written
    after = (default_cases(), chouette_cases())
    for old, new in zip(before, after):
        kept = [case for case in new if "lead" not in str(case)]
        assert kept == old  # every existing case, in its order
        assert len(new) > len(old)
    added = [case for case in after[0] if case not in before[0]]
    money = [(white, black) for white, black, rules, match_to in added if not match_to]
    assert any(white.startswith("lead+") and black.startswith("lead(bearoff=true)+") for white, black in money)
    assert any(white.endswith("+lead") and black.endswith("+lead") for white, black in money)
    assert ("heuristic+lead", "heuristic+lead(score_aware=false)", Rules(), 5) in added
    seated = [specs for specs, _, _ in after[1] if specs not in before[1]]
    assert any(specs[0].startswith("lead+") for specs in seated) and any(specs[0].endswith("+lead") for specs in seated)


def test_leaving_out_the_rule_test_fails_every_registered_bot_has_a_rule_test_of_its_own(throwaway, tmp_path):
    throwaway.bots_module()
    throwaway.layouts()
    throwaway.kernel_module()
    missing = rule_tests.bots_without_a_rule_test()
    assert [line.split(" has ")[0] for line in missing] == ["checker bot 'lead'", "cube bot 'lead'"]
    folder = tmp_path / "tests"
    folder.mkdir()
    (folder / "test_lead.py").write_text(textwrap.dedent('''
        import pytest

        @pytest.mark.bot_rule("checker", "lead")
        def test_lead_takes_the_biggest_pip_lead():
            pass

        @pytest.mark.bot_rule("cube", "lead")
        def test_lead_doubles_on_a_lead_of_ten_pips():
            pass
    '''))
    assert rule_tests.bots_without_a_rule_test((rule_tests.TESTS, folder)) == []


@pytest.mark.parametrize("role, layout", [(CHECKER, LEAD), (CUBE, LEAD_CUBE)])
def test_leaving_out_the_bots_entry_fails_every_declared_kernel_has_a_registered_bot(throwaway, role, layout):
    throwaway.bots_module(BOT_MODULE.replace("BOTS = (Lead, LeadCube)", "BOTS = ()"))
    throwaway.layouts()
    throwaway.kernel_module()
    with pytest.raises(AssertionError, match="has no registered bot"):
        registry_tests.test_every_declared_kernel_has_a_registered_bot(layout)


@pytest.mark.parametrize("role", [CHECKER, CUBE])
def test_leaving_out_the_layout_fails_a_registered_fast_bot_hands_over_exactly_its_declared_layout(throwaway, role):
    throwaway.bots_module()
    throwaway.kernel_module()
    with pytest.raises(AssertionError, match="is not declared in bgsim/layouts.py"):
        registry_tests.test_a_registered_fast_bot_hands_over_exactly_its_declared_layout(role, "lead")


@pytest.mark.parametrize("layout", [LEAD, LEAD_CUBE])
def test_leaving_out_a_kernel_fails_every_layout_names_kernels_that_exist(throwaway, layout):
    throwaway.bots_module()
    throwaway.layouts()
    throwaway.kernel_module(KERNEL_MODULE.replace("def lead_choose", "def lead_picks").replace(
        "def lead_answer", "def lead_responds"))
    with pytest.raises(AssertionError, match="which does not exist"):
        kernels_exist(layout)
    with pytest.raises(ImportError, match="names the kernel bgsim.fast.lead.lead_"):  # nor would bgsim.fast import
        throwaway.dispatch(layout.role, layout)


@pytest.mark.parametrize("role, module, layouts_", [
    # the layout declares the capability, the bot has no switch
    (CHECKER, BOT_MODULE.replace("PARAMS = (BEAROFF,)", "PARAMS = ()"), (LEAD, LEAD_CUBE)),
    (CUBE, BOT_MODULE.replace("PARAMS = (SCORE_AWARE,)", "PARAMS = ()"), (LEAD, LEAD_CUBE)),
    # the bot has the switch, the layout forgot the capability
    (CHECKER, BOT_MODULE, (FastBot("lead", CHECKER, 50, kernel="lead.lead"), LEAD_CUBE)),
    (CUBE, BOT_MODULE, (LEAD, FastBot("lead", CUBE, 50, kernel="lead.lead"))),
], ids=["checker-no-switch", "cube-no-switch", "checker-no-capability", "cube-no-capability"])
def test_a_capability_on_one_side_only_fails_a_fast_bots_capability_switches_are_the_parameters_of_its_bot(
        throwaway, role, module, layouts_):
    throwaway.bots_module(module)
    throwaway.layouts(*layouts_)
    throwaway.kernel_module()
    with pytest.raises(AssertionError, match="its parameters switch"):
        switches_are_parameters(role, "lead")


def test_a_checker_bot_that_skips_the_bear_off_hand_off_fails_the_switch_test(throwaway, small_tables):
    # choose overridden instead of pick: the reference ignores the switch, the fast engine cannot
    throwaway.bots_module(BOT_MODULE.replace("    def score(self, board, before):", '''    def choose(self, position, roll, plays, random):
        return self.pick(position, roll, plays, random)

    def score(self, board, before):'''))
    throwaway.layouts()
    throwaway.kernel_module()
    with pytest.raises(AssertionError, match="reference"):
        bearoff_tests.switch_hands_bear_offs_to_the_perfect_player(
            small_tables, "lead", throwaway.dispatch(CHECKER, LEAD).choose)


def test_a_score_aware_cube_bot_that_escapes_the_forced_offer_fails_the_score_test(throwaway):
    # offer_double overridden instead of wants_double: the score's forced offers are skipped
    throwaway.bots_module(BOT_MODULE.replace("    def wants_double(self, position, cube):",
                                             "    def offer_double(self, position, cube):"))
    throwaway.layouts()
    throwaway.kernel_module()
    with pytest.raises(AssertionError, match="reference"):
        follows_what_the_score_decides("lead", throwaway.dispatch(CUBE, LEAD_CUBE))


def test_the_throwaway_cube_strategy_is_not_score_aware_without_the_dispatchs_check(throwaway):
    # the fast half of the same check: a kernel asked without the forced offer in front fails
    throwaway.bots_module()
    throwaway.layouts(LEAD, LEAD_CUBE)
    throwaway.kernel_module()
    unchecked = throwaway.dispatch(CUBE, FastBot("lead", CUBE, 50, kernel="lead.lead"))
    with pytest.raises(AssertionError, match="fast"):
        follows_what_the_score_decides("lead", unchecked)


def test_a_bot_module_with_two_bots_of_one_name_is_refused(throwaway):
    throwaway.bots_module(BOT_MODULE.replace('name = "lead"\n    fast_name = "lead"\n    description = "double',
                                             'name = "pipdiff"\n    fast_name = "lead"\n    description = "double'))
    with pytest.raises(TypeError, match="two cube bots are named 'pipdiff'"):
        cube_bots()
