"""Which bots the fast engine runs, and the layout of each one's parameters, declared once.

Both engines read this table.  A bot of ``bots/`` names its fast half with ``fast_name`` and
hands over its values by name: ``fast_params()`` a mapping ``{parameter: number}`` and
``fast_arrays()`` a mapping ``{array: numpy array}``, with exactly the names declared here.
The wrapper (``bgsim.fast``) packs them in the declared order, and the kernels read them
through constants taken from here (``PIPDIFF.param("take")``), never by a bare position.

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

from dataclasses import dataclass

CHECKER, CUBE = "checker", "cube"
FLOAT64, INT32, INT64 = "float64", "int32", "int64"
DTYPES = (FLOAT64, INT32, INT64)  # one shared buffer of each: float64s, int32s, int64s
MAX_PARAMS = 16  # per bot; the engine's params table is float64[4 seats, MAX_PARAMS]
MAX_ARRAYS = 20  # per bot (exact declares 17); the offsets table is int64[4 seats, MAX_ARRAYS]


@dataclass(frozen=True)
class FastBot:
    """One fast kernel: its ``fast_name``, role, engine code, parameter names and arrays."""

    name: str
    role: str
    code: int
    params: tuple[str, ...] = ()
    arrays: tuple[tuple[str, str], ...] = ()  # (name, dtype)

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


# --- checker bots (bgsim/fast/checker.py, ``choose``) ---------------------------------------

RANDOM = FastBot("random", CHECKER, 0)
# a checker bot with ``bearoff=true`` hands pure bear-offs to the perfect bear-off player
# (bgsim/fast/bearoff.py): a 0/1 flag, the two-sided table's size, and the tables it reads
BEAROFF_PARAMS = ("bearoff", "bearoff_checkers")
BEAROFF_ARRAYS = (("bearoff_one_sided", FLOAT64), ("bearoff_win", FLOAT64))
RACER = FastBot("racer", CHECKER, 1, params=("hit", "blot") + BEAROFF_PARAMS, arrays=BEAROFF_ARRAYS)
# the eleven features of bots.heuristic, in the order of its weighted sum
HEURISTIC = FastBot("heuristic", CHECKER, 2, params=(
    "race", "off", "hit", "blot", "shot", "home", "outer", "anchor", "prime", "stack", "back")
    + BEAROFF_PARAMS, arrays=BEAROFF_ARRAYS)
PUBEVAL = FastBot("pubeval", CHECKER, 3, params=BEAROFF_PARAMS,
                  arrays=(("race_weights", FLOAT64), ("contact_weights", FLOAT64)) + BEAROFF_ARRAYS)
# the quantized net of bots/nn.py (see bgsim/fast/nn.py); its cube bot reads the same arrays
NN_ARRAYS = (("tables", INT32), ("bias", INT32), ("race", INT32), ("weights2", INT32),
             ("bias2", INT64), ("sigmoid", INT64))
NN = FastBot("nn", CHECKER, 4, params=("hidden",) + BEAROFF_PARAMS, arrays=NN_ARRAYS + BEAROFF_ARRAYS)

# --- cube bots (bgsim/fast/cube.py, ``offer_double`` and ``respond``) ----------------------
# A score-aware cube bot (bots/match_cube.py) has a 0/1 ``score_aware`` flag and reads the
# published match equity table: pre-Crawford 25x25 and post-Crawford 25 (bgsim/fast/match_cube.py)
MET_ARRAYS = (("met_pre", FLOAT64), ("met_post", FLOAT64))

NO_CUBE = FastBot("none", CUBE, 0)
ALWAYS_TAKE = FastBot("always-take", CUBE, 1)
NEVER_TAKE = FastBot("never-take", CUBE, 2)
# thresholds as numbers (8.0 for 8%, 10.0 for 10 pips) with a 0/1 percent flag; beaver_on says
# whether there is a beaver threshold at all (beaver=0 pips is a real one)
PIPDIFF = FastBot("pipdiff", CUBE, 3, params=(
    "double", "double_percent", "redouble", "redouble_percent", "take", "take_percent",
    "race_only", "beaver", "beaver_percent", "beaver_on", "score_aware"), arrays=MET_ARRAYS)
KEITH = FastBot("keith", CUBE, 4, params=("double", "redouble", "take", "score_aware"), arrays=MET_ARRAYS)
THORP = FastBot("thorp", CUBE, 5, params=("double", "redouble", "take", "score_aware"), arrays=MET_ARRAYS)
# Janowski's cubeful money equities from the nn net's probabilities; x is the cube life index
NN_CUBE = FastBot("nn", CUBE, 6, params=("hidden", "x", "score_aware"), arrays=NN_ARRAYS + MET_ARRAYS)

# the race rules of bots/race_rules.py (bgsim/fast/race_rules.py): one layout for all four;
# epc also reads the effective pip count of every one-sided bear-off position
RACE_RULE_PARAMS = ("double", "redouble", "take", "score_aware")
RULE62 = FastBot("rule62", CUBE, 7, params=RACE_RULE_PARAMS, arrays=MET_ARRAYS)
KLEINMAN = FastBot("kleinman", CUBE, 8, params=RACE_RULE_PARAMS, arrays=MET_ARRAYS)
ISIGHT = FastBot("isight", CUBE, 9, params=RACE_RULE_PARAMS, arrays=MET_ARRAYS)
EPC = FastBot("epc", CUBE, 10, params=RACE_RULE_PARAMS, arrays=MET_ARRAYS + (("epc", FLOAT64),))

# bots/exact.py (bgsim/fast/exact.py): the net, the MET, the bear-off tables its decisions read
# (one-sided, two-sided cubeless win and cubeful money equities: empty where its parameters
# never read them) and what the match decision's on-demand recursion reads (the cubeless win
# table of the match tables' size, its positions' successors and pips)
EXACT = FastBot("exact", CUBE, 11, params=(
    "hidden", "tables", "estimate_nn", "score_aware", "bearoff_checkers", "match_checkers"),
    arrays=NN_ARRAYS + MET_ARRAYS + BEAROFF_ARRAYS + (
        ("rolls_centred", FLOAT64), ("rolls_owned", FLOAT64), ("opponent_owns", FLOAT64),
        ("match_win", FLOAT64), ("match_starts", INT64), ("match_targets", INT32), ("match_pips", INT64)))

FAST_BOTS: tuple[FastBot, ...] = (
    RANDOM, RACER, HEURISTIC, PUBEVAL, NN,
    NO_CUBE, ALWAYS_TAKE, NEVER_TAKE, PIPDIFF, KEITH, THORP, NN_CUBE, RULE62, KLEINMAN, ISIGHT, EPC, EXACT,
)


def fast_bots(role: str) -> dict[str, FastBot]:
    """The fast bots of one role (``CHECKER`` or ``CUBE``) by name."""
    return {bot.name: bot for bot in FAST_BOTS if bot.role == role}


def _check_table() -> None:
    # Two bots of a role with one code would run one kernel for both: refuse at import.
    for role in (CHECKER, CUBE):
        bots = [bot for bot in FAST_BOTS if bot.role == role]
        codes = [bot.code for bot in bots]
        names = [bot.name for bot in bots]
        if len(set(codes)) != len(codes) or len(set(names)) != len(names):
            raise RuntimeError(f"bgsim.layouts: duplicate {role} code or name in {list(zip(names, codes))}")
        for bot in bots:
            if bot.code < 0 or len(bot.params) > MAX_PARAMS or len(bot.arrays) > MAX_ARRAYS:
                raise RuntimeError(f"bgsim.layouts: {bot.name} has a negative code or too many params/arrays")
            if any(dtype not in DTYPES for _, dtype in bot.arrays):
                raise RuntimeError(f"bgsim.layouts: {bot.name}: an array's dtype is one of {DTYPES}")


_check_table()
