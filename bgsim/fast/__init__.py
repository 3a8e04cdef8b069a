"""The Numba engine: game-for-game identical to the reference engine, many times faster.

``play_games(white, black, seed, games, rules, match_to=0, threads=None)`` returns the same
DataFrame as ``bgsim.series.play_games_reference`` for the same arguments.  Each game uses only
its own (seed, game) streams, so results never depend on chunk size, thread count or order.

A player can run here when its checker bot and cube bot each carry a ``fast_name`` this engine
implements (``CHECKER_CODES``, ``CUBE_CODES``) and a ``fast_params()`` tuple of floats laid out
as the bot's docstring says.  bgsim never imports ``bots``: this is duck typing.
"""

from __future__ import annotations

import numba
import numpy as np

from ..board import Position
from ..cube import Rules
from ..dice import check_seed
from ..rules import check_roll
from .checker import CHECKER_CODES
from .cube import CUBE_CODES
from .game import COL_ERROR, ENGINE_COLUMNS, ERROR_BAD_BEAVER, ERROR_TOO_LONG, ROW_SIZE, TRACE_SIZE

MAX_PARAMS = 16
CHUNK_ROWS = 100_000  # rows held per chunk while streaming a long run (~18 MB of int64)
CODED = ("winner", "result", "cube_owner", "first_doubler")


def _bot_code(bot, role: str, codes: dict[str, int], owner) -> tuple[int, tuple[float, ...]]:
    name = getattr(bot, "fast_name", "")
    if role == "checker" and name == "custom" and callable(getattr(bot, "evaluate", None)):
        return -1, ()  # a user's evaluation function: see bgsim.fast.custom
    label = getattr(bot, "name", None) or type(bot).__name__
    who = getattr(owner, "name", repr(owner))
    if not name:
        raise ValueError(f"player {who!r}: {role} bot {label!r} cannot run in the fast engine "
                         f"(it has no fast_name); use engine='reference'")
    if name not in codes:
        raise ValueError(f"player {who!r}: {role} bot {name!r} cannot run in the fast engine "
                         f"(it runs: {', '.join(codes)}); use engine='reference'")
    fast_params = getattr(bot, "fast_params", None)
    values = tuple(float(v) for v in fast_params()) if callable(fast_params) else ()
    if len(values) > MAX_PARAMS:
        raise ValueError(f"player {who!r}: {role} bot {name!r} has {len(values)} parameters, "
                         f"more than the fast engine's {MAX_PARAMS}")
    return codes[name], values


def player_codes(player) -> tuple[int, tuple[float, ...], int, tuple[float, ...]]:
    """(checker code, checker params, cube code, cube params); ValueError names what cannot run."""
    checker = getattr(player, "checker", None)
    cube = getattr(player, "cube", None)
    if checker is None:
        who = getattr(player, "name", repr(player))
        raise ValueError(f"player {who!r} has no built-in checker bot: only the reference engine "
                         f"can ask it for plays")
    checker_code, checker_params = _bot_code(checker, "checker", CHECKER_CODES, player)
    if cube is None:
        cube_code, cube_params = CUBE_CODES["none"], ()
    else:
        cube_code, cube_params = _bot_code(cube, "cube", CUBE_CODES, player)
    return checker_code, checker_params, cube_code, cube_params


def supports(player) -> bool:
    """Whether both of ``player``'s bots run in the fast engine."""
    try:
        player_codes(player)
    except ValueError:
        return False
    return True


def _kernels(white, black):
    """The compiled (play_batch, trace_number) that can play these two players."""
    from .custom import kernels

    evaluations = [player.checker.evaluate if player_codes(player)[0] < 0 else None
                   for player in (white, black)]
    if evaluations == [None, None]:
        from .game import play_batch, trace_number

        return play_batch, trace_number
    return kernels(*evaluations)


def _arrays(white, black, rules: Rules):
    from .custom import CUSTOM_BLACK, CUSTOM_WHITE

    codes = np.zeros(4, dtype=np.int64)
    params = np.zeros((4, MAX_PARAMS), dtype=np.float64)
    for side, player in enumerate((white, black)):
        checker_code, checker_params, cube_code, cube_params = player_codes(player)
        codes[side] = checker_code if checker_code >= 0 else (CUSTOM_WHITE, CUSTOM_BLACK)[side]
        codes[2 + side] = cube_code
        params[side, : len(checker_params)] = checker_params
        params[2 + side, : len(cube_params)] = cube_params
    rule_array = np.array([
        int(rules.cube), rules.max_cube, int(rules.jacoby), int(rules.beaver),
        rules.automatic_doubles, int(rules.backgammon_as_gammon),
    ], dtype=np.int64)
    return rule_array, codes, params


def _check(white, black, seed, games, rules, match_to):
    from ..match import check_match_length
    from ..series import game_numbers

    check_seed(seed)
    if not isinstance(rules, Rules):
        raise TypeError(f"rules must be a bgsim.cube.Rules, got {type(rules).__name__}")
    if match_to:
        check_match_length(match_to)
        rules.check_for_match()
    numbers = np.asarray(game_numbers(games), dtype=np.int64)
    return numbers, _arrays(white, black, rules)


def _raise_errors(rows: np.ndarray, seed: int) -> None:
    bad = np.nonzero(rows[:, COL_ERROR])[0]
    if len(bad):
        row = rows[bad[0]]
        if row[COL_ERROR] == ERROR_TOO_LONG:
            raise RuntimeError(f"game {row[0]} of seed {seed} did not end within 100000 plies")
        if row[COL_ERROR] == ERROR_BAD_BEAVER:
            raise ValueError(f"game {row[0]} of seed {seed}: a cube bot beavered where beavers are not allowed")
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
                 threads: int | None = None, chunk_rows: int = CHUNK_ROWS):
    """Yield the engine columns chunk by chunk (a dict of compact arrays per chunk).

    A 10-million-game run never holds more than one chunk of int64 rows plus the compact
    columns of the chunks already yielded (if the caller keeps them).
    """
    numbers, (rule_array, codes, params) = _check(white, black, seed, games, rules, match_to)
    play_batch, _ = _kernels(white, black)
    per = 1 if match_to == 0 else 2 * match_to - 1
    step = max(1, chunk_rows // per)
    previous = numba.get_num_threads()
    if threads is not None:
        if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
            raise ValueError(f"threads must be a whole number of at least 1, got {threads!r}")
        numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    try:
        for start in range(0, len(numbers), step):
            chunk = numbers[start:start + step]
            rows = np.zeros((len(chunk) * per, ROW_SIZE), dtype=np.int64)
            counts = np.zeros(len(chunk), dtype=np.int64)
            blocks = min(len(chunk), 4 * numba.get_num_threads())
            play_batch(seed, chunk, match_to, rule_array, codes, params, rows, counts, blocks)
            if per > 1:
                keep = (np.arange(per)[None, :] < counts[:, None]).ravel()
                rows = rows[keep]
            _raise_errors(rows, seed)
            yield _compact(rows)
    finally:
        numba.set_num_threads(previous)


def play_games(white, black, seed, games, rules: Rules = Rules(), match_to: int = 0,
               threads: int | None = None):
    """The fast engine's ``bgsim.series.play_games``: one row per game, the same DataFrame."""
    from ..schema import empty_frame, frame_from_columns

    parts = list(play_columns(white, black, seed, games, rules, match_to, threads))
    if not parts or not len(parts[0]["game"]):
        return empty_frame()
    columns = {name: np.concatenate([part[name] for part in parts]) for name in ENGINE_COLUMNS}
    return frame_from_columns(columns, seed, white.name, black.name, rules)


def trace_game(white, black, seed, number, rules: Rules = Rules(), match_to: int = 0,
               max_plies: int = 20_000):
    """Play one game (or match) with a per-ply trace: (rows, trace) as int64 arrays.

    ``trace`` columns: game_in_match, ply, side (0 white, 1 black), cube action (0 none,
    1 take, 2 beaver, 3 drop), die1, die2, number of legal plays, canonical index of the chosen
    play (-1 for none), the board before the roll (26) and after the play (26), both from the
    side on roll.
    """
    numbers, (rule_array, codes, params) = _check(white, black, seed, [number], rules, match_to)
    _, trace_number = _kernels(white, black)
    per = 1 if match_to == 0 else 2 * match_to - 1
    rows = np.zeros((per, ROW_SIZE), dtype=np.int64)
    trace = np.zeros((max_plies, TRACE_SIZE), dtype=np.int64)
    tcount = np.zeros(1, dtype=np.int64)
    count = trace_number(seed, numbers[0], match_to, rule_array, codes, params, rows, trace, tcount)
    return rows[:count], trace[: tcount[0]]


def legal_plays_fast(position: Position, roll) -> np.ndarray:
    """The resulting boards of every legal play, (n, 26) int8 in canonical order."""
    from .moves import legal_results

    if not isinstance(position, Position):
        raise TypeError(f"legal_plays_fast needs a Position, got {type(position).__name__}")
    first, second = check_roll(roll)
    return legal_results(np.array(position.board, dtype=np.int8), first, second)


__all__ = ["legal_plays_fast", "play_columns", "play_games", "player_codes", "supports", "trace_game"]
