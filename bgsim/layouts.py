"""Which bots the fast engine runs, what each one supports, and the layout of its parameters,
declared once.

Both engines and the tools read this table.  A bot of ``bots/`` names its fast half with
``fast_name`` and hands over its own values by name: ``fast_params()`` a mapping
``{parameter: number}`` and ``fast_arrays()`` a mapping ``{array: numpy array}``, with exactly
the names declared here as the bot's own.  The wrapper (``bgsim.fast``) packs them in the
declared order, and the kernels read them through constants taken from here
(``PIPDIFF.param("take")``), never by a bare position.

**Kernels.**  ``kernel="module.prefix"`` names the bot's kernels in ``bgsim/fast/module.py``:
a checker bot's ``prefix_choose``, a cube bot's ``prefix_offers`` (True: double) and
``prefix_answer`` (``TAKE``, ``DROP`` or ``BEAVER`` of ``bgsim.fast.cube``), each taking exactly
the arguments of the dispatch that calls it (``bgsim.fast.dispatch``, generated from this table:
adding a bot edits no dispatch).

**Capabilities.**  What a bot supports is a field of its layout, and everything that depends on
it is built from that field:

* ``bearoff`` (checker bots): the perfect bear-off switch.  The bot has a true/false parameter
  ``bearoff``; when it is on, the dispatch hands every pure bear-off to the perfect bear-off
  player (``bgsim/fast/bearoff.py``) before the bot's kernel is asked, as
  ``bots.checker.CheckerBot.choose`` does in the reference engine.
* ``score_aware`` (cube bots): judgement at the match score.  The bot has a true/false parameter
  ``score_aware``; when it is on, in a match, the dispatch applies what the score decides alone
  (``bgsim.fast.match_cube.forced_at_score``) before the bot's ``_offers`` kernel, as
  ``bots.cube.CubeBot.offer_double`` does, and the kernel reads the published match equity
  table.
* ``variants``: the games of the rulebook the bot plays in the fast engine (``bgsim.variants``;
  today every checker bot every game, every cube bot every game with a cube).  A checker bot
  that plays acey-deucey also has a ``prefix_double`` kernel: the double it plays after a 1-2.
  A bot asked to play a game its layout does not list is refused in one line.
* ``chouette``: whether the bot can sit in a chouette seat in the fast engine
  (``bgsim/fast/chouette.py``, which refuses a player with a bot that does not say so).
  ``bgsim validate``'s chouette cases seat every bot that says so under both cube regimes
  (``experiments/studies/validation.py``, ``chouette_cases``).

A switchable capability (:data:`CAPABILITIES`) adds its parameters and arrays after the bot's
own, and the wrapper fills them in from the bot's switch (``bgsim.fast.capability_values``):
the bot hands over only its own.  ``bgsim validate`` plays every registered bot with each
capability switched on and off (``experiments/studies/validation.py``, ``bot_cases``).

This docstring is the capability contract, written once; the bots' modules, the kernels and the
dispatch point here.  In the reference a bot implements ``pick`` (checker) or ``wants_double``
(cube) and never overrides ``choose`` or ``offer_double``, which apply the capability first.
``tests/test_capabilities.py`` ties the two halves: a switch and its capability go together
(``test_a_fast_bots_capability_switches_are_the_parameters_of_its_bot``), the bear-off switch
hands bear-offs to the perfect player in both engines (``tests/test_bearoff_player.py``), a
score-aware bot offers what the score decides in both engines, every variant and chouette seat
a layout claims is played by ``bgsim validate``.

Parameters are float64 numbers (flags as 0.0/1.0), at most :data:`MAX_PARAMS` per bot.
Arrays are for large read-only data (weights of an evaluation, a neural net): each declared
array has a dtype, ``"float64"``, ``"int32"`` or ``"int64"``, and the engine copies it (flattened,
C order) once per run into the one flat buffer of that dtype, ``float64s``, ``int32s`` or
``int64s``, shared by the four seats (an array object handed over by two seats, or by a seat's
checker bot and its cube bot, is stored once).  A kernel finds array ``k`` of its seat at
``offsets[k]`` of its buffer and takes a view, e.g. ``float64s[start:start + 122]`` or
``int32s[start:start + n].reshape((26, 31, hidden))`` (sizes it needs come as parameters or
constants; see ``pubeval_score`` in ``bgsim/fast/checker.py``).
A cube kernel gets the same four things as a checker kernel, so a cube bot that needs the
checker's net declares the same arrays and is handed the same array objects.

This module imports nothing heavy: ``bots`` reads it without loading Numba.
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass, field

from .variants import DEFINITIONS as _GAMES

CHECKER, CUBE = "checker", "cube"
FLOAT64, INT32, INT64 = "float64", "int32", "int64"
DTYPES = (FLOAT64, INT32, INT64)  # one shared buffer of each: float64s, int32s, int64s
MAX_PARAMS = 16  # per bot; the engine's params table is float64[4 seats, MAX_PARAMS]
MAX_ARRAYS = 20  # per bot (exact declares 18); the offsets table is int64[4 seats, MAX_ARRAYS]
STANDARD = "standard"  # the standard game, which every bot plays (bgsim.cube.Rules)
# the games of the rulebook (bgsim.variants, light: no Numba): every checker bot sees a variant's
# boards as standard ones, every cube bot plays wherever there is a cube
EVERY_GAME = tuple(_GAMES)
CUBE_GAMES = tuple(name for name, game in _GAMES.items() if game.cube)

# The game the fast engine packs players for (bgsim.variants), set by bgsim.fast while it packs:
# a bot whose arrays depend on it reads it in its fast_arrays() (exact hands over the solution
# of the hypergammon played, and only then); here, so that a bot reads it without the engine
PACKING_FOR: ContextVar[str] = ContextVar("bgsim_fast_packing_for", default=STANDARD)


def packing_variant() -> str:
    """The variant whose game the players are being packed for (the standard game outside a packing)."""
    return PACKING_FOR.get()


@dataclass(frozen=True)
class Capability:
    """A switchable capability: the bots' true/false parameter ``name`` and what the switch adds
    to the layout of a bot that declares it (a flag of the same name on :class:`FastBot`)."""

    name: str
    role: str
    params: tuple[str, ...]
    arrays: tuple[tuple[str, str], ...]
    in_money: bool  # whether switching it changes money games (else only matches)


# the perfect bear-off player's switch (bgsim/fast/bearoff.py): a 0/1 flag, the two-sided
# table's size, and the tables it reads (one-sided, two-sided cubeless win)
BEAROFF_ARRAYS = (("bearoff_one_sided", FLOAT64), ("bearoff_win", FLOAT64))
BEAROFF_SWITCH = Capability("bearoff", CHECKER, ("bearoff", "bearoff_checkers"), BEAROFF_ARRAYS, in_money=True)
# judgement at the score (bots/match_cube.py): a 0/1 flag and the published match equity table,
# pre-Crawford 25x25 and post-Crawford 25 (bgsim/fast/match_cube.py)
MET_ARRAYS = (("met_pre", FLOAT64), ("met_post", FLOAT64))
SCORE_AWARE_SWITCH = Capability("score_aware", CUBE, ("score_aware",), MET_ARRAYS, in_money=False)
CAPABILITIES = (BEAROFF_SWITCH, SCORE_AWARE_SWITCH)


@dataclass(frozen=True)
class FastBot:
    """One fast bot: its ``fast_name``, role, engine code, its own parameter names and arrays,
    its kernels and what it supports (module doc).  ``params`` and ``arrays`` become the whole
    layout: the bot's own, then those of each capability it declares."""

    name: str
    role: str
    code: int
    params: tuple[str, ...] = ()
    arrays: tuple[tuple[str, str], ...] = ()  # (name, dtype)
    kernel: str = ""  # "module.prefix" in bgsim/fast (module doc)
    bearoff: bool = False
    score_aware: bool = False
    variants: tuple[str, ...] = (STANDARD,)
    chouette: bool = False
    # compiled only into the game-loop families that have it (bgsim/fast/families.py)
    apart: bool = False
    own_params: tuple[str, ...] = field(init=False)
    own_arrays: tuple[tuple[str, str], ...] = field(init=False)

    def __post_init__(self) -> None:
        params, arrays = self.params, self.arrays
        for switch in self.switches:
            if set(switch.params) & set(params) or set(switch.arrays) & set(arrays):
                raise RuntimeError(f"bgsim.layouts: {self.name} declares itself what its capability "
                                   f"{switch.name} adds")
            params += switch.params
            arrays += switch.arrays
        object.__setattr__(self, "own_params", self.params)
        object.__setattr__(self, "own_arrays", self.arrays)
        object.__setattr__(self, "params", params)
        object.__setattr__(self, "arrays", arrays)

    @property
    def switches(self) -> tuple[Capability, ...]:
        """The switchable capabilities this bot declares."""
        return tuple(switch for switch in CAPABILITIES if getattr(self, switch.name))

    def param(self, key: str) -> int:
        """The position of parameter ``key`` in the bot's params row (a kernel constant)."""
        if key not in self.params:
            raise KeyError(f"fast bot {self.name!r} declares no parameter {key!r}")
        return self.params.index(key)

    def array(self, key: str) -> int:
        """The position of array ``key`` in the bot's offsets row (a kernel constant)."""
        names = [name for name, _ in self.arrays]
        if key not in names:
            raise KeyError(f"fast bot {self.name!r} declares no array {key!r}")
        return names.index(key)


# --- checker bots (kernels ``<prefix>_choose``) -------------------------------------------

RANDOM = FastBot("random", CHECKER, 0, kernel="checker.random", variants=EVERY_GAME, chouette=True)
# racer, heuristic and pubeval: a kernel each, so that a run of one compiles none of the others
RACER = FastBot("racer", CHECKER, 1, params=("hit", "blot"), kernel="checker.racer", bearoff=True,
                variants=EVERY_GAME, chouette=True)
# the eleven features of bots.heuristic, in the order of its weighted sum
HEURISTIC = FastBot("heuristic", CHECKER, 2, params=(
    "race", "off", "hit", "blot", "shot", "home", "outer", "anchor", "prime", "stack", "back"),
    kernel="checker.heuristic", bearoff=True, variants=EVERY_GAME, chouette=True)
PUBEVAL = FastBot("pubeval", CHECKER, 3, arrays=(("race_weights", FLOAT64), ("contact_weights", FLOAT64)),
                  kernel="checker.pubeval", bearoff=True, variants=EVERY_GAME, chouette=True)
# the quantized net of bots/nn.py (see bgsim/fast/nn.py); its cube bot reads the same arrays
NN_ARRAYS = (("tables", INT32), ("bias", INT32), ("race", INT32), ("weights2", INT32),
             ("bias2", INT64), ("sigmoid", INT64), ("contact", INT32))
NN = FastBot("nn", CHECKER, 4, params=("hidden",), arrays=NN_ARRAYS, kernel="checker.nn", bearoff=True,
             variants=EVERY_GAME, chouette=True)
# nn(plies=1), a layout of its own so that a run at 0 ply never compiles the search; keep and
# margin (1/65536 of a point) are its move filter (bots/nn.py NNChecker).  Not in Dutch and
# acey-deucey, whose moves its look-ahead (the standard game's) does not know, nor in chouettes:
# the reference engine plays those
NN_AHEAD = FastBot("nn-ahead", CHECKER, 6, params=("hidden", "keep", "margin"), arrays=NN_ARRAYS,
                   kernel="checker.nn_ahead", bearoff=True,
                   variants=("standard", "nackgammon", "hypergammon1", "hypergammon2", "hypergammon3"))
# bots/exact.py's checker bot (bgsim/fast/hyper_exact.py): hypergammon's decision table (empty but
# in hypergammon) and its checkers; elsewhere nn's net and, always on, the perfect bear-off player's
# tables (its own places: in hypergammon the bear-off player must not come first, so no switch)
EXACT_CHECKER = FastBot("exact", CHECKER, 5, params=("hidden", "perfect_bearoff", "bearoff_size", "hyper_checkers"),
                        arrays=NN_ARRAYS + (("one_sided", FLOAT64), ("two_sided_win", FLOAT64),
                                            ("hyper_values", FLOAT64)),
                        kernel="hyper_exact.exact",
                        variants=tuple(name for name in EVERY_GAME if name != "acey-deucey"))

# --- cube bots (kernels ``<prefix>_offers`` and ``<prefix>_answer``) -----------------------

NO_CUBE = FastBot("none", CUBE, 0, kernel="cube.always_take", variants=CUBE_GAMES, chouette=True)
ALWAYS_TAKE = FastBot("always-take", CUBE, 1, kernel="cube.always_take", variants=CUBE_GAMES, chouette=True)
NEVER_TAKE = FastBot("never-take", CUBE, 2, kernel="cube.never_take", variants=CUBE_GAMES, chouette=True)
# thresholds as numbers (8.0 for 8%, 10.0 for 10 pips) with a 0/1 percent flag; beaver_on says
# whether there is a beaver threshold at all (beaver=0 pips is a real one)
PIPDIFF = FastBot("pipdiff", CUBE, 3, params=(
    "double", "double_percent", "redouble", "redouble_percent", "take", "take_percent",
    "race_only", "beaver", "beaver_percent", "beaver_on"), kernel="cube.pipdiff", score_aware=True,
    variants=CUBE_GAMES, chouette=True)
# keith and thorp share the kernel of a race count and so the layout
KEITH = FastBot("keith", CUBE, 4, params=("double", "redouble", "take"), kernel="cube.count", score_aware=True,
                variants=CUBE_GAMES, chouette=True)
THORP = FastBot("thorp", CUBE, 5, params=("double", "redouble", "take"), kernel="cube.count", score_aware=True,
                variants=CUBE_GAMES, chouette=True)
# Janowski's cubeful money equities from the nn net's probabilities; x is the cube life index
NN_CUBE = FastBot("nn", CUBE, 6, params=("hidden", "x"), arrays=NN_ARRAYS, kernel="cube.nn", score_aware=True,
                  variants=CUBE_GAMES, chouette=True)

# the race rules of bots/race_rules.py (bgsim/fast/race_rules.py): one layout of parameters for
# all four; epc also reads the effective pip count of every one-sided bear-off position
RACE_RULE_PARAMS = ("double", "redouble", "take")
RULE62 = FastBot("rule62", CUBE, 7, params=RACE_RULE_PARAMS, kernel="race_rules.race_rule", score_aware=True,
                 variants=CUBE_GAMES, chouette=True)
KLEINMAN = FastBot("kleinman", CUBE, 8, params=RACE_RULE_PARAMS, kernel="race_rules.race_rule", score_aware=True,
                   variants=CUBE_GAMES, chouette=True)
ISIGHT = FastBot("isight", CUBE, 9, params=RACE_RULE_PARAMS, kernel="race_rules.race_rule", score_aware=True,
                 variants=CUBE_GAMES, chouette=True)
EPC = FastBot("epc", CUBE, 10, params=RACE_RULE_PARAMS, arrays=(("epc", FLOAT64),), kernel="race_rules.race_rule",
              score_aware=True, variants=CUBE_GAMES, chouette=True)

# bots/exact.py (bgsim/fast/exact.py): the net, the bear-off tables its decisions read
# (one-sided, two-sided cubeless win and cubeful money equities: empty where its parameters
# never read them) and what the match decision's on-demand recursion reads (the cubeless win
# table of the match tables' size, its positions' successors and pips)
EXACT = FastBot("exact", CUBE, 11, params=(
    "hidden", "tables", "estimate_nn", "bearoff_checkers", "match_checkers", "hyper_checkers"),
    arrays=NN_ARRAYS + BEAROFF_ARRAYS + (
        ("rolls_centred", FLOAT64), ("rolls_owned", FLOAT64), ("opponent_owns", FLOAT64),
        ("match_win", FLOAT64), ("match_starts", INT64), ("match_targets", INT32), ("match_pips", INT64),
        ("hyper_values", FLOAT64)),
    kernel="exact.exact", score_aware=True, apart=True, variants=CUBE_GAMES, chouette=True)

FAST_BOTS: tuple[FastBot, ...] = (
    RANDOM, RACER, HEURISTIC, PUBEVAL, NN, NN_AHEAD, EXACT_CHECKER,
    NO_CUBE, ALWAYS_TAKE, NEVER_TAKE, PIPDIFF, KEITH, THORP, NN_CUBE, RULE62, KLEINMAN, ISIGHT, EPC, EXACT,
)


def fast_bots(role: str) -> dict[str, FastBot]:
    """The fast bots of one role (``CHECKER`` or ``CUBE``) by name."""
    return {bot.name: bot for bot in FAST_BOTS if bot.role == role}


def check_table(bots: tuple[FastBot, ...]) -> None:
    """RuntimeError naming the first layout the engine could not run as declared."""
    for role in (CHECKER, CUBE):
        of_role = [bot for bot in bots if bot.role == role]
        codes = [bot.code for bot in of_role]
        names = [bot.name for bot in of_role]
        # two bots of a role with one code would run one kernel for both
        if len(set(codes)) != len(codes) or len(set(names)) != len(names):
            raise RuntimeError(f"bgsim.layouts: duplicate {role} code or name in {list(zip(names, codes))}")
    for bot in bots:
        if bot.code < 0 or len(bot.params) > MAX_PARAMS or len(bot.arrays) > MAX_ARRAYS:
            raise RuntimeError(f"bgsim.layouts: {bot.name} has a negative code or too many params/arrays")
        if any(dtype not in DTYPES for _, dtype in bot.arrays):
            raise RuntimeError(f"bgsim.layouts: {bot.name}: an array's dtype is one of {DTYPES}")
        if bot.kernel.count(".") != 1 or not all(part.isidentifier() for part in bot.kernel.split(".")):
            raise RuntimeError(f"bgsim.layouts: {bot.name}: kernel must be 'module.prefix', got {bot.kernel!r}")
        for switch in bot.switches:
            if switch.role != bot.role:
                raise RuntimeError(f"bgsim.layouts: {bot.name} is a {bot.role} bot: {switch.name} is a "
                                   f"capability of {switch.role} bots")
        if STANDARD not in bot.variants:
            raise RuntimeError(f"bgsim.layouts: {bot.name}: every bot plays the {STANDARD} game")
        games = CUBE_GAMES if bot.role == CUBE else EVERY_GAME
        if not set(bot.variants) <= set(games):
            raise RuntimeError(f"bgsim.layouts: {bot.name}: a {bot.role} bot plays games of {', '.join(games)}, "
                               f"not {', '.join(sorted(set(bot.variants) - set(games)))}")


check_table(FAST_BOTS)
