"""The result schema: one row per game, defined once, for both engines and every experiment.

Both engines produce the same columns through :func:`frame_from_columns`: the reference engine
turns its :class:`~bgsim.game.GameRecord` objects into column arrays, the fast engine fills the
arrays directly.  Categorical values travel as small integer codes (the ``*_CODES`` tuples
below) and become pandas categoricals only here.

"Nobody doubled" is a null (``pd.NA``) in ``first_double_ply`` and ``first_doubler``, not 0 or
"", so that ``frame.first_double_ply.mean()`` is the mean over games that had a double.  The
engines still pass 0 for it; the nulls are made here.  ``COLUMNS`` gives the engines' storage
type; :data:`DTYPES` the frame's.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Iterable, Mapping

import numpy as np
import pandas as pd

from .cube import Rules
from .variants import VARIANTS

SIDES = ("white", "black")
WINNER_CODES = SIDES  # 0 white, 1 black
RESULT_CODES = ("single", "gammon", "backgammon", "drop")
OWNER_CODES = ("centre", "white", "black")
DOUBLER_CODES = ("", "white", "black")  # code 0 when nobody doubled: a null in the frame

# name -> (dtype, description).  Order here is column order in every frame.
COLUMNS: dict[str, tuple[str, str]] = {
    "game": ("int64", "game number within the run (for match play, the match number)"),
    "seed": ("int64", "run seed; with `game` it fixes every die of the game"),
    "white": ("string", "white's player spec"),
    "black": ("string", "black's player spec"),
    "winner": ("category", "`white` or `black`"),
    "result": ("category", "`single`, `gammon`, `backgammon` or `drop` (a refused double); "
               "acey-deucey's games are all `single`"),
    "cube_value": ("int64", "final cube value; for a drop, the value before the refused double; "
                   "acey-deucey (no cube): the final stake"),
    "cube_owner": ("category", "`centre`, `white` or `black` at the end of the game"),
    "doubles": ("int16", "accepted doubles (a beaver counts as a further double)"),
    "beavers": ("int16", "beavers (a take that at once redoubled)"),
    "automatic_doubles": ("int16", "automatic doubles from tied opening rolls"),
    "first_double_ply": ("int32", "ply at which the first double was offered, null if none"),
    "first_doubler": ("category", "who offered the first double: `white`, `black`, null if none"),
    "dropped": ("bool", "the game ended on a dropped double"),
    "points": ("int64", "points won by the winner, every option applied (acey-deucey: the stake "
               "times the loser's checkers not borne off)"),
    "white_points": ("int64", "points from white's side: +points if white won, else -points"),
    "points_counted": ("int64", "points that count in the match: `points` capped at what the "
                       "winner still needed (equal to `points` in money games)"),
    "plies": ("int32", "turns played: each roll counts, dances included, the opening roll is 1"),
    "white_pips": ("int16", "white's pip count at the end (a checker in hand counts 25)"),
    "black_pips": ("int16", "black's pip count at the end"),
    "white_off": ("int16", "white's checkers borne off at the end (of 15, or of 1..3 in hypergammon)"),
    "black_off": ("int16", "black's checkers borne off at the end"),
    "match_to": ("int16", "match length, 0 for a money game"),
    "game_in_match": ("int16", "0, 1, ... within the match (0 for money games)"),
    "white_score": ("int16", "white's match score before this game (0 for money games)"),
    "black_score": ("int16", "black's match score before this game (0 for money games)"),
    "crawford": ("bool", "this is the Crawford game (no cube)"),
    "rule_cube": ("bool", "rule option: cube in use"),
    "rule_max_cube": ("int64", "rule option: maximum cube value"),
    "rule_jacoby": ("bool", "rule option: Jacoby rule"),
    "rule_beaver": ("bool", "rule option: beavers allowed"),
    "rule_automatic_doubles": ("int16", "rule option: automatic doubles allowed per game"),
    "rule_backgammon_as_gammon": ("bool", "rule option: a backgammon scores as a gammon"),
    "rule_variant": ("category", "rule option: the game played, `standard`, `nackgammon`, "
                     "`hypergammon1`..`hypergammon3`, `dutch` or `acey-deucey`"),
    "rule_double_on_acey_deucey": ("bool", "rule option: acey-deucey's stake doubles at each 1-2"),
}

# Columns an engine must supply as arrays; the rest follow from the players and rules.
ENGINE_COLUMNS = (
    "game", "winner", "result", "cube_value", "cube_owner", "doubles", "beavers",
    "automatic_doubles", "first_double_ply", "first_doubler", "points", "plies",
    "white_pips", "black_pips", "white_off", "black_off",
    "match_to", "game_in_match", "white_score", "black_score", "crawford",
)
# Of those, these hold integer codes into the tuples above.
CODED = {
    "winner": WINNER_CODES,
    "result": RESULT_CODES,
    "cube_owner": OWNER_CODES,
    "first_doubler": DOUBLER_CODES,
}


# The frame's categories of each categorical column (fixed, so frames concatenate as categoricals).
CATEGORIES = {
    "winner": SIDES,
    "result": RESULT_CODES,
    "cube_owner": OWNER_CODES,
    "first_doubler": SIDES,
    "rule_variant": VARIANTS,
}
# Integer columns whose engine value 0 means "did not happen": nulls in the frame.
NULL_WHEN_ZERO = {"first_double_ply": "Int32"}


def _frame_dtype(name: str):
    if name in CATEGORIES:
        return pd.CategoricalDtype(list(CATEGORIES[name]))
    return NULL_WHEN_ZERO.get(name, COLUMNS[name][0])


DTYPES = {name: _frame_dtype(name) for name in COLUMNS}


def conform(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with the schema's dtypes (a Parquet file read back keeps only the categories it
    saw, in its own order); other columns, such as a run's, are left alone."""
    wanted = {name: dtype for name, dtype in DTYPES.items() if name in frame.columns}
    return frame.astype(wanted)


def describe() -> str:
    """The schema as a Markdown table, for documentation."""
    lines = ["| column | dtype | meaning |", "|---|---|---|"]
    lines += [f"| `{name}` | {'category' if name in CATEGORIES else DTYPES[name]} | {text} |"
              for name, (_, text) in COLUMNS.items()]
    return "\n".join(lines)


def frame_from_columns(
    columns: Mapping[str, np.ndarray], seed: int, white: str, black: str, rules: Rules
) -> pd.DataFrame:
    """Build the one-row-per-game DataFrame from engine arrays (codes for coded columns)."""
    missing = [name for name in ENGINE_COLUMNS if name not in columns]
    if missing:
        raise ValueError(f"engine output lacks columns: {', '.join(missing)}")
    count = len(columns["game"])
    data: dict[str, object] = {}
    for name in COLUMNS:
        if name in CODED:
            codes = np.asarray(columns[name], dtype=np.int64)
            if name == "first_doubler":
                codes = codes - 1  # DOUBLER_CODES start with "nobody", which becomes -1: null
            data[name] = pd.Categorical.from_codes(codes, dtype=DTYPES[name])
        elif name in NULL_WHEN_ZERO:
            values = np.asarray(columns[name])
            data[name] = pd.array(values, dtype=DTYPES[name])
            data[name][values == 0] = pd.NA
        elif name in columns:
            data[name] = np.asarray(columns[name])
    data["seed"] = np.full(count, seed)
    data["white"] = np.full(count, white, dtype=object)
    data["black"] = np.full(count, black, dtype=object)
    winner_is_white = np.asarray(columns["winner"]) == 0
    points = np.asarray(columns["points"], dtype=np.int64)
    data["white_points"] = np.where(winner_is_white, points, -points)
    data["points_counted"] = points_counted(points, winner_is_white, columns["match_to"],
                                            columns["white_score"], columns["black_score"])
    data["dropped"] = np.asarray(columns["result"]) == RESULT_CODES.index("drop")
    for option, value in asdict(rules).items():
        data["rule_" + option] = np.full(count, value)
    frame = pd.DataFrame({name: data[name] for name in COLUMNS})
    return frame.astype(DTYPES)


def points_counted(points, winner_is_white, match_to, white_score, black_score) -> np.ndarray:
    """``points`` capped at what the winner needed to win the match (unchanged in money games).

    One definition for both engines: each hands its raw points and the score before the game,
    and the cap is taken here, so the column cannot differ between them.
    """
    points = np.asarray(points, dtype=np.int64)
    match_to = np.asarray(match_to, dtype=np.int64)
    score = np.where(winner_is_white, np.asarray(white_score, dtype=np.int64),
                     np.asarray(black_score, dtype=np.int64))
    return np.where(match_to > 0, np.minimum(points, match_to - score), points)


def columns_from_records(records: Iterable) -> dict[str, np.ndarray]:
    """Turn reference-engine :class:`GameRecord` objects into engine column arrays."""
    records = list(records)
    out: dict[str, list] = {name: [] for name in ENGINE_COLUMNS}
    for record in records:
        match = record.match
        values = {
            "game": record.game,
            "winner": WINNER_CODES.index(record.winner),
            "result": RESULT_CODES.index(record.result),
            "cube_value": record.cube_value,
            "cube_owner": OWNER_CODES.index(record.cube_owner),
            "doubles": record.doubles,
            "beavers": record.beavers,
            "automatic_doubles": record.automatic_doubles,
            "first_double_ply": record.first_double_ply,
            "first_doubler": DOUBLER_CODES.index(record.first_doubler),
            "points": record.points,
            "plies": record.plies,
            "white_pips": record.white_pips,
            "black_pips": record.black_pips,
            "white_off": record.white_off,
            "black_off": record.black_off,
            "match_to": match.match_to if match else 0,
            "game_in_match": match.game_in_match if match else 0,
            "white_score": match.white_score if match else 0,
            "black_score": match.black_score if match else 0,
            "crawford": bool(match and match.crawford),
        }
        for name, value in values.items():
            out[name].append(value)
    return {name: np.array(values) for name, values in out.items()}


def empty_frame() -> pd.DataFrame:
    return pd.DataFrame({name: pd.Series(dtype=dtype) for name, dtype in DTYPES.items()})
