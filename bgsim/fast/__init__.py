"""The Numba engine: game-for-game identical to the reference engine, many times faster.

``play_games(white, black, seed, games, rules, match_to=0, threads=None)`` returns the same
DataFrame as ``bgsim.series.play_games_reference`` for the same arguments.  Each game uses only
its own (seed, game) streams, so results never depend on chunk size, thread count or order.

A player can run here when its checker bot and cube bot each carry a ``fast_name`` declared in
``bgsim/layouts.py`` and hand over their own values by the names declared there:
``fast_params()`` a mapping ``{parameter: number}`` and, for a bot with arrays, ``fast_arrays()``
a mapping ``{array: numpy array}``.  The values of the capabilities its layout declares come
from the bot's switches (its true/false attribute of the capability's name) and from bgsim
(:func:`capability_values`).  bgsim never imports ``bots``: this is duck typing.
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Mapping

import numba
import numpy as np

from .. import layouts
from ..board import Position
from ..cube import Rules
from ..dice import check_seed
from ..game import check_variant_players
from ..variants import STANDARD, variant_of
from ..layouts import CHECKER, CUBE, DTYPES, MAX_ARRAYS, MAX_PARAMS
from ..rules import check_roll
from ..starts import OPENING, Starts, game_numbers, game_starts  # noqa: F401  (OPENING, Starts: re-exported)
from .game import (
    COL_ERROR, ENGINE_COLUMNS, ERROR_BAD_BEAVER, ERROR_NO_CHECKER_KERNEL, ERROR_NO_CUBE_KERNEL,
    ERROR_NO_DOUBLE_KERNEL, ERROR_TOO_LONG, ROW_SIZE, TRACE_SIZE,
)

CHUNK_ROWS = 100_000  # rows held per chunk while streaming a long run (~18 MB of int64)
CODED = ("winner", "result", "cube_owner", "first_doubler")
CUSTOM = -1  # the checker code of a user's evaluation function (bgsim.fast.custom)
_NO_TABLE = np.zeros(1, dtype=np.float64)  # the bear-off tables of a bot with its switch off


@dataclass(frozen=True)
class FastHalf:
    """One bot as the engine takes it: its code, parameters and arrays in the declared order."""

    code: int
    params: tuple[float, ...] = ()
    arrays: tuple[tuple[np.ndarray, str], ...] = ()  # (array, dtype)


def _names(kind: str, names) -> str:
    return ", ".join(sorted(names)) or f"no {kind}"


def fast_half(bot, role: str, owner=None) -> FastHalf:
    """``bot`` (a checker or cube bot) packed by its layout; ValueError names what cannot run."""
    name = getattr(bot, "fast_name", "")
    if role == CHECKER and name == "custom" and callable(getattr(bot, "evaluate", None)):
        return FastHalf(CUSTOM)  # a user's evaluation function: see bgsim.fast.custom
    label = getattr(bot, "name", None) or type(bot).__name__
    who = getattr(owner, "name", repr(owner)) if owner is not None else label
    declared = layouts.fast_bots(role)
    if not name:
        raise ValueError(f"player {who!r}: {role} bot {label!r} cannot run in the fast engine "
                         f"(it has no fast_name); use the reference engine")
    if name not in declared:
        raise ValueError(f"player {who!r}: {role} bot {name!r} cannot run in the fast engine "
                         f"(it runs: {', '.join(declared)}); use the reference engine")
    layout = declared[name]
    switched, switched_arrays = capability_values(layout, bot, who)
    values = {**_by_name(bot, "fast_params", who, name, "parameters", layout.own_params), **switched}
    params = []
    for key in layout.params:
        value = values[key]
        if isinstance(value, (str, bytes)) or not np.isscalar(value) or not np.isfinite(float(value)):
            raise ValueError(f"player {who!r}: {role} bot {name!r}: parameter {key} must be a finite "
                             f"number, got {value!r}")
        params.append(float(value))
    arrays = []
    given = {**_by_name(bot, "fast_arrays", who, name, "arrays", [key for key, _ in layout.own_arrays]),
             **switched_arrays}
    for key, dtype in layout.arrays:
        array = np.asarray(given[key])
        if not (np.can_cast(array.dtype, dtype, casting="safe") or _fits(array, dtype)):
            raise ValueError(f"player {who!r}: {role} bot {name!r}: array {key} holds {array.dtype}, "
                             f"which does not fit the declared {dtype}")
        arrays.append((given[key], dtype))
    return FastHalf(layout.code, tuple(params), tuple(arrays))


def _bearoff_values(on: bool) -> tuple[dict, dict]:
    if not on:
        return ({"bearoff": 0.0, "bearoff_checkers": 0.0},
                {"bearoff_one_sided": _NO_TABLE, "bearoff_win": _NO_TABLE})
    from ..bearoff.player import player_tables

    tables = player_tables()
    return ({"bearoff": 1.0, "bearoff_checkers": float(tables.checkers)},
            {"bearoff_one_sided": tables.one_sided, "bearoff_win": tables.win})


def _score_aware_values(on: bool) -> tuple[dict, dict]:
    from ..met import kernel_arrays

    return {"score_aware": float(on)}, kernel_arrays()


# what each switchable capability of bgsim/layouts.py hands its kernels, switched on or off
SWITCH_VALUES = {layouts.BEAROFF_SWITCH.name: _bearoff_values,
                 layouts.SCORE_AWARE_SWITCH.name: _score_aware_values}


def capability_values(layout: layouts.FastBot, bot, who) -> tuple[dict, dict]:
    """(parameters, arrays) of the capabilities ``layout`` declares, from ``bot``'s switches."""
    params: dict = {}
    arrays: dict = {}
    for switch in layout.switches:
        on = getattr(bot, switch.name, None)
        if not isinstance(on, (bool, np.bool_)):
            raise ValueError(f"player {who!r}: bot {layout.name!r} declares {switch.name} in bgsim/layouts.py "
                             f"but has no true/false {switch.name} parameter")
        more_params, more_arrays = SWITCH_VALUES[switch.name](bool(on))
        params.update(more_params)
        arrays.update(more_arrays)
    return params, arrays


def _fits(array: np.ndarray, dtype: str) -> bool:
    """Whole numbers (of a wider integer type) that the declared integer type holds exactly."""
    if array.dtype.kind not in "iu" or dtype == layouts.FLOAT64:
        return False
    info = np.iinfo(dtype)
    return array.size == 0 or (int(array.min()) >= info.min and int(array.max()) <= info.max)


def _by_name(bot, method: str, who, name: str, kind: str, declared) -> Mapping:
    """The bot's ``method()`` mapping, checked against the declared names (none: no method needed)."""
    function = getattr(bot, method, None)
    values = function() if callable(function) else {}
    if not isinstance(values, Mapping):
        raise ValueError(f"player {who!r}: bot {name!r}: {method}() must return a mapping of "
                         f"name to value, got {type(values).__name__}")
    if set(values) != set(declared):
        missing = set(declared) - set(values)
        unknown = set(values) - set(declared)
        raise ValueError(f"player {who!r}: bot {name!r}: {method}() gives {kind} that do not match "
                         f"bgsim/layouts.py (missing: {_names(kind, missing)}; "
                         f"not declared: {_names(kind, unknown)})")
    return values


def player_halves(player) -> tuple[FastHalf, FastHalf]:
    """(checker, cube) of ``player`` as the engine takes them; ValueError names what cannot run."""
    checker = getattr(player, "checker", None)
    cube = getattr(player, "cube", None)
    if checker is None:
        who = getattr(player, "name", repr(player))
        raise ValueError(f"player {who!r} has no built-in checker bot: only the reference engine "
                         f"can ask it for plays")
    checker_half = fast_half(checker, CHECKER, player)
    if cube is None:
        cube_half = FastHalf(layouts.NO_CUBE.code)
    else:
        cube_half = fast_half(cube, CUBE, player)
    return checker_half, cube_half


def check_game(player, variant: str = STANDARD) -> None:
    """ValueError (one line) when a bot of ``player`` does not play ``variant`` in the fast engine:
    the games its layout lists (``bgsim/layouts.py``, ``variants``); a cube bot only where the
    variant has a cube."""
    game = variant_of(variant)
    who = getattr(player, "name", repr(player))
    halves = ((CHECKER, getattr(player, "checker", None)), (CUBE, getattr(player, "cube", None)))
    for role, bot in halves if game.cube else halves[:1]:
        name = getattr(bot, "fast_name", "")
        layout = layouts.fast_bots(role).get(name)
        if layout is not None and game.name not in layout.variants:
            raise ValueError(f"player {who!r}: {role} bot {name!r} does not play {game.name} in the fast engine "
                             f"(bgsim/layouts.py lists {', '.join(layout.variants)}); use the reference engine")


def supports(player, variant: str = STANDARD) -> bool:
    """Whether both of ``player``'s bots run in the fast engine (and play ``variant`` there)."""
    try:
        player_halves(player)
        check_game(player, variant)
    except ValueError:
        return False
    return True


def uses_exact(players) -> bool:
    """Whether a player's cube bot is compiled apart (``exact``): outside ``compile_only_for`` it
    plays on a family with exact (``bgsim/fast/families.py``)."""
    apart = {name for name, bot in layouts.fast_bots(CUBE).items() if bot.apart}
    return any(getattr(getattr(player, "cube", None), "fast_name", "") in apart for player in players)


def layouts_of(players) -> tuple[layouts.FastBot, ...]:
    """The layouts of ``players``' bots that run here (a user's evaluation function has none; a
    player without a cube bot has ``none``'s), a checker bot whose ``bearoff`` switch is off
    without the perfect bear-off player (``bgsim.fast.families.switched_off``)."""
    from .families import switched_off

    found = []
    for player in players:
        for role, bot in ((CHECKER, getattr(player, "checker", None)), (CUBE, getattr(player, "cube", None))):
            layout = layouts.fast_bots(role).get(getattr(bot, "fast_name", "") if bot is not None else "none")
            if layout is not None and layout.bearoff and getattr(bot, "bearoff", None) is False:
                layout = switched_off(layout)
            if layout is not None and layout not in found:
                found.append(layout)
    return tuple(found)


# compile_only_for's bots in this context (a thread of its own, a task of its own); None: every bot
_ONLY_FOR: ContextVar[tuple[layouts.FastBot, ...] | None] = ContextVar("bgsim_fast_only_for", default=None)


@contextmanager
def compile_only_for(players):
    """While the block runs, compile the game kernels for ``players``' bots only (the ``run``
    families of ``bgsim/fast/families.py``).

    A run that knows whom it seats plays inside it (``bgsim play``, ``run``, ``rollout``); a
    player it meets there besides them widens the set (another family, compiled once, then
    cached).  Outside it the engine plays on the kernels of every bot (the ``every_bot`` families),
    which a process that plays many different bots (``bgsim validate``, the tests) compiles once.
    The rows are the same either way.  ``BGSIM_KERNELS=all`` (``bgsim.settings.KERNELS``) makes
    the block a no-op: every run then plays on the kernels of every bot."""
    if _every_kernel():
        yield
        return
    before = _ONLY_FOR.get()
    bots = layouts_of(players)
    token = _ONLY_FOR.set(bots if before is None else before + tuple(bot for bot in bots if bot not in before))
    try:
        yield
    finally:
        _ONLY_FOR.reset(token)


def _every_kernel() -> bool:
    """Whether ``BGSIM_KERNELS`` asks every run to play on the kernels of every bot."""
    from .. import settings

    return settings.kernels_mode() == "all"


def compiling_only_for() -> tuple[layouts.FastBot, ...] | None:
    """The bots of the :func:`compile_only_for` block running now; None outside one."""
    return _ONLY_FOR.get()


def compiled_for(players, variant: str = STANDARD, chouette: bool = False) -> bool:
    """Whether the kernels ``players`` would play on here (in this :func:`compile_only_for` block,
    or outside one) are compiled already, in this process or on disk: their first game compiles
    nothing.  With ``chouette``, those of a chouette of ``players``."""
    from .compile import compiled_or_cached

    if chouette:
        return compiled_or_cached(family_of(players, chouette=True).play_session)
    return compiled_or_cached(_family_of(players, variant != STANDARD, widen=False).play_batch)


def _family_of(players, variants: bool, widen: bool = True):
    """The family of the game loop (``bgsim/fast/families.py``) that two-player games of
    ``players`` play on: in a :func:`compile_only_for` block the ``run`` family of its bots (its
    set widened by ``players`` if need be, and with ``widen`` kept so for the block's next
    pairing), a user's evaluation function on a ``custom`` family, and else an ``every_bot``
    family (standard game and variants alike), with exact when a player's cube bot is exact."""
    from .families import family

    players = tuple(players)
    evaluations = tuple(player.checker.evaluate if player_halves(player)[0].code == CUSTOM else None
                        for player in players)
    suffix = "_variants" if variants else ""
    if any(evaluations):
        return family("custom" + suffix, layouts_of(players), evaluations)
    planned = _ONLY_FOR.get()
    if planned is not None:
        wider = planned + tuple(bot for bot in layouts_of(players) if bot not in planned)
        if widen and wider != planned:
            _ONLY_FOR.set(wider)  # the block's next pairing plays on the same family
        return family("run" + suffix, wider)
    return family("every_bot_with_exact" if uses_exact(players) else "every_bot")  # the variants too


def family_of(players, rules: Rules = Rules(), chouette: bool = False):
    """The family of the game loop (``bgsim/fast/families.py``) that games of ``players`` under
    ``rules`` play on here, without widening a :func:`compile_only_for` block; with ``chouette``,
    that of a chouette of ``players``.  Its ``declared.name`` is its row of the table."""
    if chouette:  # the row with the bots compiled apart when a player's cube bot is one of them
        from .families import family

        return family("chouette_with_exact" if uses_exact(players) else "chouette")
    return _family_of(players, rules.variant != STANDARD, widen=False)


def _kernels(white, black, rules: Rules = Rules()):
    """The compiled (play_batch, trace_number) that can play these two players under ``rules``."""
    chosen = _family_of((white, black), rules.variant != STANDARD)
    return chosen.play_batch, chosen.trace_number


@dataclass(frozen=True)
class Seats:
    """What the kernels get for their seats (a two-player game's four: white checker, black
    checker, white cube, black cube; a chouette's: every player's checker bot, then every
    player's cube bot): ``codes`` int64[seats], ``params`` float64[seats, MAX_PARAMS],
    ``offsets`` int64[seats, MAX_ARRAYS] and the shared array buffers ``float64s``, ``int32s``,
    ``int64s``."""

    codes: np.ndarray
    params: np.ndarray
    offsets: np.ndarray
    float64s: np.ndarray
    int32s: np.ndarray
    int64s: np.ndarray

    @property
    def args(self) -> tuple:
        """The kernel arguments, in the order of ``bgsim.fast.game.play_batch``."""
        return (self.codes, self.params, self.offsets, self.float64s, self.int32s, self.int64s)


def seats(white, black) -> Seats:
    """Pack two players for the kernels; each array object is stored once, however many seats use it."""
    from .custom import CUSTOM_BLACK, CUSTOM_WHITE

    halves: list = [None] * 4
    for side, player in enumerate((white, black)):
        checker, cube = player_halves(player)
        code = (CUSTOM_WHITE, CUSTOM_BLACK)[side] if checker.code == CUSTOM else checker.code
        halves[side] = (code, checker)
        halves[2 + side] = (cube.code, cube)
    return pack_halves(halves)


def pack_halves(halves) -> Seats:
    """Seat k gets ``halves[k]``, a (code, :class:`FastHalf`): its code, its parameters and its
    arrays in the shared buffers, each array object stored once however many seats use it (two
    seats of one player, or a checker bot and a cube bot sharing a net)."""
    codes = np.zeros(len(halves), dtype=np.int64)
    params = np.zeros((len(halves), MAX_PARAMS), dtype=np.float64)
    offsets = np.zeros((len(halves), MAX_ARRAYS), dtype=np.int64)
    parts: dict[str, list[np.ndarray]] = {dtype: [] for dtype in DTYPES}
    sizes = dict.fromkeys(DTYPES, 0)
    stored: dict[tuple[int, str], int] = {}
    keep = []  # the arrays whose id() is a key of ``stored`` stay alive while it is used
    for seat, (code, half) in enumerate(halves):
        codes[seat] = code
        for index, value in enumerate(half.params):
            params[seat, index] = value
        for index, (array, dtype) in enumerate(half.arrays):
            key = (id(array), dtype)
            if key not in stored:
                flat = np.ascontiguousarray(array, dtype=dtype).ravel()
                stored[key] = sizes[dtype]
                parts[dtype].append(flat)
                sizes[dtype] += flat.size
                keep.append(array)
            offsets[seat, index] = stored[key]
    buffers = [np.concatenate(parts[dtype]) if parts[dtype] else np.zeros(0, dtype=dtype)
               for dtype in DTYPES]
    return Seats(codes, params, offsets, *buffers)


def _rule_array(rules: Rules) -> np.ndarray:
    """``bgsim.fast.game``'s ``rules``: the options in order, the variant by its code."""
    return np.array([
        int(rules.cube), rules.max_cube, int(rules.jacoby), int(rules.beaver),
        rules.automatic_doubles, int(rules.backgammon_as_gammon), variant_of(rules.variant).code,
        int(rules.double_on_acey_deucey),
    ], dtype=np.int64)


def _check(white, black, seed, games, rules, match_to):
    from ..match import check_match_length

    check_seed(seed)
    if not isinstance(rules, Rules):
        raise TypeError(f"rules must be a bgsim.cube.Rules, got {type(rules).__name__}")
    check_variant_players(white, black, rules.variant)  # a bot that cannot serve it says so
    for player in (white, black):
        check_game(player, rules.variant)
    if match_to:
        check_match_length(match_to)
        rules.check_for_match()
    numbers = np.asarray(game_numbers(games), dtype=np.int64)
    token = layouts.PACKING_FOR.set(rules.variant)
    try:
        return numbers, _rule_array(rules), seats(white, black)
    finally:
        layouts.PACKING_FOR.reset(token)


def _raise_errors(rows: np.ndarray, seed: int, codes: np.ndarray) -> None:
    bad = np.nonzero(rows[:, COL_ERROR])[0]
    if len(bad):
        row = rows[bad[0]]
        if row[COL_ERROR] == ERROR_TOO_LONG:
            raise RuntimeError(f"game {row[0]} of seed {seed} did not end within 100000 plies")
        if row[COL_ERROR] == ERROR_BAD_BEAVER:
            raise ValueError(f"game {row[0]} of seed {seed}: a cube bot beavered where beavers are not allowed")
        if row[COL_ERROR] == ERROR_NO_CHECKER_KERNEL:
            raise RuntimeError(f"fast engine error: no checker kernel for code {codes[0]} or {codes[1]} "
                               f"(no checker bot of bgsim/layouts.py has it)")
        if row[COL_ERROR] == ERROR_NO_DOUBLE_KERNEL:
            raise RuntimeError(f"fast engine error: acey-deucey: no double choice for checker code {codes[0]} "
                               f"or {codes[1]} (bgsim/fast/variants.py, best_score)")
        if row[COL_ERROR] == ERROR_NO_CUBE_KERNEL:
            raise RuntimeError(f"fast engine error: no cube kernel for code {codes[2]} or {codes[3]} "
                               f"(no cube bot of bgsim/layouts.py has it)")
        raise RuntimeError(f"game {row[0]} of seed {seed}: engine error {row[COL_ERROR]}")


def _compact(rows: np.ndarray) -> dict[str, np.ndarray]:
    """The engine columns in their schema dtypes (codes as int8): what a long run keeps."""
    from ..schema import COLUMNS

    out = {}
    for index, name in enumerate(ENGINE_COLUMNS):
        if name in CODED:
            out[name] = rows[:, index].astype(np.int8)
        else:
            out[name] = rows[:, index].astype(COLUMNS[name][0])
    return out


def play_columns(white, black, seed, games, rules: Rules = Rules(), match_to: int = 0,
                 threads: int | None = None, chunk_rows: int = CHUNK_ROWS, start=None, rolls=None,
                 mirror=False):
    """Yield the engine columns chunk by chunk (a dict of compact arrays per chunk).

    A 10-million-game run never holds more than one chunk of int64 rows plus the compact
    columns of the chunks already yielded (if the caller keeps them).  ``start``, ``rolls``,
    ``mirror``: see ``game_starts`` and ``bgsim.game.play_game``.
    """
    numbers, rule_array, packed = _check(white, black, seed, games, rules, match_to)
    starts = game_starts(len(numbers), start, rolls, mirror, rules.variant)
    if match_to and starts is not OPENING:
        raise ValueError("a game that starts from a position is a money game: it cannot be part of a match")
    play_batch, _ = _kernels(white, black, rules)
    per = 1 if match_to == 0 else 2 * match_to - 1
    step = max(1, chunk_rows // per)
    threads = thread_count(threads)
    for first in range(0, len(numbers), step):
        chunk = numbers[first:first + step]
        rows = np.zeros((len(chunk) * per, ROW_SIZE), dtype=np.int64)
        counts = np.zeros(len(chunk), dtype=np.int64)
        part = _part(starts, first, step)
        on_threads(threads, play_batch, seed, chunk, match_to, rule_array, packed.args, rows, counts,
                   part, np.int64(0), OPENING.boards)
        if per > 1:
            keep = (np.arange(per)[None, :] < counts[:, None]).ravel()
            rows = rows[keep]
        _raise_errors(rows, seed, packed.codes)
        yield _compact(rows)


def thread_count(threads: int | None) -> int:
    """The threads a batch of games plays on: ``threads`` (at most ``NUMBA_NUM_THREADS``, every
    core unless set), every one of them when None."""
    if threads is None:
        return numba.config.NUMBA_NUM_THREADS
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
        raise ValueError(f"threads must be a whole number of at least 1, got {threads!r}")
    return min(threads, numba.config.NUMBA_NUM_THREADS)


def on_threads(threads: int, play_batch, seed, numbers, match_to, rule_array, args, rows, counts,
               starts: Starts, stop_bearoff, finals) -> None:
    """``play_batch`` over ``numbers`` on ``threads`` threads.

    The numbers are cut into blocks, four a thread, and each free thread takes the next block:
    a call of the kernel on that block's slices of the arrays (views: the rows land in place).
    The kernels hold no GIL, so the threads play side by side; a game's rows depend on its
    number alone, so how the numbers are cut changes no row.  A serial kernel on Python's
    threads compiles in a fraction of the time of Numba's parallel loop, and a free thread
    taking the next block keeps both busy when games differ in length.
    """
    total = len(numbers)
    per = 1 if match_to == 0 else 2 * match_to - 1

    def block(low: int, high: int) -> None:
        mine = _part(starts, low, high - low)
        play_batch(seed, numbers[low:high], match_to, rule_array, *args, rows[low * per:high * per],
                   counts[low:high], mine.boards, mine.setups, stop_bearoff,
                   finals[low:high] if finals.shape[0] > 0 else finals)  # empty: no final boards kept

    if threads == 1 or total < 2:
        block(0, total)
        return
    from concurrent.futures import ThreadPoolExecutor

    pieces = min(total, 4 * threads)
    bounds = [piece * total // pieces for piece in range(pieces + 1)]
    pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="bgsim-games")
    try:
        for done in [pool.submit(block, low, high) for low, high in zip(bounds, bounds[1:])]:
            done.result()  # a kernel's error, raised here
    finally:
        pool.shutdown(wait=True, cancel_futures=True)  # Ctrl-C: the blocks not yet begun are dropped


def _part(starts: Starts, first: int, count: int) -> Starts:
    if starts is OPENING:
        return OPENING
    return Starts(starts.boards[first:first + count], starts.setups[first:first + count])


def play_trials(player, seed, numbers, start, rolls, mirror, stop_bearoff: bool,
                threads: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Cubeless games of ``player`` against itself from ``start`` for a rollout: (rows, finals).

    ``rows`` are the raw engine rows (``bgsim.fast.game.COL_*``); with ``stop_bearoff`` a game
    stops at the first pure bear-off (result ``RESULT_STOPPED``, its board from the side on roll
    in ``finals``) so that the caller can take the exact value there.
    """
    rules = Rules(cube=False, variant=start.variant if isinstance(start, Position) else STANDARD)
    numbers, rule_array, packed = _check(player, player, seed, numbers, rules, 0)
    starts = game_starts(len(numbers), start, rolls, mirror, rules.variant)
    play_batch, _ = _kernels(player, player, rules)
    rows = np.zeros((len(numbers), ROW_SIZE), dtype=np.int64)
    finals = np.zeros((len(numbers), 26), dtype=np.int8)
    counts = np.zeros(len(numbers), dtype=np.int64)
    on_threads(thread_count(threads), play_batch, seed, numbers, 0, rule_array, packed.args, rows, counts, starts,
               np.int64(1 if stop_bearoff else 0), finals)
    _raise_errors(rows, seed, packed.codes)
    return rows, finals


def play_games(white, black, seed, games, rules: Rules = Rules(), match_to: int = 0,
               threads: int | None = None, start=None, rolls=None, mirror=False):
    """The fast engine's ``bgsim.series.play_games``: one row per game, the same DataFrame."""
    from ..schema import empty_frame, frame_from_columns

    parts = list(play_columns(white, black, seed, games, rules, match_to, threads, start=start,
                              rolls=rolls, mirror=mirror))
    if not parts or not len(parts[0]["game"]):
        return empty_frame()
    columns = {name: np.concatenate([part[name] for part in parts]) for name in ENGINE_COLUMNS}
    return frame_from_columns(columns, seed, white.name, black.name, rules)


def trace_game(white, black, seed, number, rules: Rules = Rules(), match_to: int = 0,
               max_plies: int = 20_000, start=None, rolls=None, mirror=False):
    """Play one game (or match) with a per-ply trace: (rows, trace) as int64 arrays.

    ``trace`` columns: game_in_match, ply, side (0 white, 1 black), cube action (0 none,
    1 take, 2 beaver, 3 drop), die1, die2, number of legal plays, canonical index of the chosen
    play (-1 for none), the board before the roll (26) and after the play (26), both from the
    side on roll, a variant's state bytes of each (4 and 4) and 1 for acey-deucey's chosen double
    (``bgsim.fast.game.TRACE_*``).
    """
    numbers, rule_array, packed = _check(white, black, seed, [number], rules, match_to)
    starts = game_starts(1, start, rolls, mirror, rules.variant)
    if match_to and starts is not OPENING:
        raise ValueError("a game that starts from a position is a money game: it cannot be part of a match")
    start_board = starts.boards[0] if len(starts.boards) else np.zeros(0, dtype=np.int8)
    setup = starts.setups[0] if len(starts.setups) else np.zeros(0, dtype=np.int64)
    _, trace_number = _kernels(white, black, rules)
    per = 1 if match_to == 0 else 2 * match_to - 1
    rows = np.zeros((per, ROW_SIZE), dtype=np.int64)
    trace = np.zeros((max_plies, TRACE_SIZE), dtype=np.int64)
    tcount = np.zeros(1, dtype=np.int64)
    count = trace_number(seed, numbers[0], match_to, rule_array, *packed.args, rows, trace, tcount,
                         start_board, setup)
    return rows[:count], trace[: tcount[0]]


def legal_plays_fast(position: Position, roll) -> np.ndarray:
    """The resulting boards of every legal play, (n, 26) int8 in canonical order; for a
    variant whose moves read its state (checkers in hand, Dutch's bar on hitting) the 30 slots
    of ``Position.search_slots``, by the variant family's generator."""
    from .moves import legal_results

    if not isinstance(position, Position):
        raise TypeError(f"legal_plays_fast needs a Position, got {type(position).__name__}")
    first, second = check_roll(roll)
    rules = position.variant_rules
    if not rules.moves_differ:
        return legal_results(np.array(position.board, dtype=np.int8), first, second)
    from .variants import variant_results

    return variant_results(np.array(position.search_slots, dtype=np.int8), first, second,
                           rules.hand_enters_first)


__all__ = [
    "FastHalf", "Seats", "Starts", "capability_values", "check_game", "compile_only_for", "family_of", "fast_half",
    "game_starts",
    "legal_plays_fast", "play_columns", "play_games", "play_trials", "player_halves", "seats", "supports",
    "trace_game",
]
