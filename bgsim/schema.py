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
RESULT_CODES = ("single", "gammon", "backgammon", "drop", "forfeit")
FORFEIT_CODES = ("", "white", "black")  # code 0 when nobody forfeited: a null in the frame
OWNER_CODES = ("centre", "white", "black")
DOUBLER_CODES = ("", "white", "black")  # code 0 when nobody doubled: a null in the frame

# name -> (dtype, description).  Order here is column order in every frame.
COLUMNS: dict[str, tuple[str, str]] = {
    "game": ("int64", "game number within the run (for match play, the match number)"),
    "seed": ("int64", "run seed; with `game` it fixes every die of the game"),
    "white": ("string", "white's player spec"),
    "black": ("string", "black's player spec"),
    "winner": ("category", "`white` or `black`"),
    "result": ("category", "`single`, `gammon`, `backgammon`, `drop` (a refused double) or `forfeit` "
               "(an external player's illegal, malformed or missing answer, timeout or crash: "
               "`bgsim.scoring`); acey-deucey's games are all `single`"),
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
    "forfeit": ("category", "the side that forfeited the game (result `forfeit`): `white` or `black`, "
                "null if none"),
    "forfeit_reason": ("string", "why: `REASON: what the player did` (`bgsim.decisions.FORFEIT_REASONS`; "
                       "the engine log has the position, dice and exact answer), empty if none"),
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
    "forfeit": FORFEIT_CODES,
}
# Columns an engine may leave out: a game of bgsim's own bots, which never forfeit.
OPTIONAL_COLUMNS = {"forfeit": 0, "forfeit_reason": ""}


# The frame's categories of each categorical column (fixed, so frames concatenate as categoricals).
CATEGORIES = {
    "winner": SIDES,
    "result": RESULT_CODES,
    "cube_owner": OWNER_CODES,
    "first_doubler": SIDES,
    "rule_variant": VARIANTS,
    "forfeit": SIDES,
}
# Integer columns whose engine value 0 means "did not happen": nulls in the frame.
NULL_WHEN_ZERO = {"first_double_ply": "Int32"}


def _frame_dtype(name: str, columns=COLUMNS, categories=CATEGORIES, nulls=NULL_WHEN_ZERO):
    if name in categories:
        return pd.CategoricalDtype(list(categories[name]))
    return nulls.get(name, columns[name][0])


DTYPES = {name: _frame_dtype(name) for name in COLUMNS}


def conform(frame: pd.DataFrame, dtypes: Mapping = DTYPES) -> pd.DataFrame:
    """``frame`` with the schema's dtypes (a Parquet file read back keeps only the categories it
    saw, in its own order); other columns, such as a run's, are left alone.  ``dtypes``:
    :data:`CHOUETTE_DTYPES` for a chouette's rows."""
    wanted = {name: dtype for name, dtype in dtypes.items() if name in frame.columns}
    return frame.astype(wanted)


def describe(columns: Mapping = COLUMNS, dtypes: Mapping = DTYPES) -> str:
    """The schema as a Markdown table, for documentation (``CHOUETTE_COLUMNS``, ``CHOUETTE_DTYPES``
    for a chouette's)."""
    lines = ["| column | dtype | meaning |", "|---|---|---|"]
    lines += [f"| `{name}` | {'category' if isinstance(dtypes[name], pd.CategoricalDtype) else dtypes[name]} | {text} |"
              for name, (_, text) in columns.items()]
    return "\n".join(lines)


def frame_from_columns(
    columns: Mapping[str, np.ndarray], seed: int, white: str, black: str, rules: Rules
) -> pd.DataFrame:
    """Build the one-row-per-game DataFrame from engine arrays (codes for coded columns)."""
    missing = [name for name in ENGINE_COLUMNS if name not in columns]
    if missing:
        raise ValueError(f"engine output lacks columns: {', '.join(missing)}")
    count = len(columns["game"])
    columns = {**{name: np.full(count, value, dtype=object if isinstance(value, str) else np.int64)
                  for name, value in OPTIONAL_COLUMNS.items() if name not in columns}, **columns}
    data: dict[str, object] = {}
    for name in COLUMNS:
        if name in CODED:
            codes = np.asarray(columns[name], dtype=np.int64)
            if name in ("first_doubler", "forfeit"):
                codes = codes - 1  # their codes start with "nobody", which becomes -1: null
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
        out.setdefault("forfeit", []).append(FORFEIT_CODES.index(getattr(record, "forfeit", "")))
        out.setdefault("forfeit_reason", []).append(getattr(record, "forfeit_reason", ""))
    return {name: np.array(values, dtype=object if name == "forfeit_reason" else None) for name, values in out.items()}


def empty_frame() -> pd.DataFrame:
    return pd.DataFrame({name: pd.Series(dtype=dtype) for name, dtype in DTYPES.items()})


# --- the chouette: one row per game and player (bgsim.chouette) ------------------------------
#
# The same pattern: an engine hands arrays of the ENGINE columns (codes for the coded ones,
# 0 for "none" where a null is meant), one entry per game and player in seat order; the
# frame builder adds the rest from the session (seed, the players' specs, the rules).

CHOUETTE_SEAT_CODES = ("box", "captain", "team")
CHOUETTE_SIDE_CODES = ("box", "team")
CHOUETTE_OWNER_CODES = ("", "centre", "box", "team")  # code 0 on the box's row: a null
CHOUETTE_CUBE_REGIMES = ("team", "individual")

CHOUETTE_COLUMNS: dict[str, tuple[str, str]] = {
    "game": ("int64", "game number within the session: the seats rotate from one to the next"),
    "seed": ("int64", "session seed; with `game` it fixes every die of the game"),
    "player": ("int8", "the player's number: its place, from 0, in the list of players the session was given"),
    "spec": ("string", "the player's spec"),
    "players": ("int8", "players in the chouette (3 to 10)"),
    "seat": ("category", "the player's seat in this game: `box`, `captain` or `team`"),
    "place": ("int8", "0 the box, 1 the captain, 2.. the rest of the team in order (`team k` is place k)"),
    "winner": ("category", "`box` or `team`: who won the game, which decides the rotation"),
    "result": ("category", "how this player's game ended: `single`, `gammon`, `backgammon`, or `drop` "
               "for a member that left on a refused double (its own or the box's); the box's row: "
               "how the game ended"),
    "cube_value": ("int64", "this member's cube at the end (for a refused double, the value before "
                   "it); null on the box's row"),
    "cube_owner": ("category", "who owns this member's cube at the end: `centre`, `box` or `team` "
                   "(in the individual regime, the member); null on the box's row"),
    "left_ply": ("int32", "the ply whose cube action took this member out of the game (it dropped, "
                 "or the box dropped its double); null when it stayed to the end, and on the box's row"),
    "dropped": ("bool", "this player refused a double (the box: any)"),
    "doubles_offered": ("int16", "doubles this player offered, counted per member's cube (the box's "
                        "double to three members is three)"),
    "doubles_accepted": ("int16", "of those, the ones taken or beavered"),
    "doubles_received": ("int16", "doubles offered to this player, counted per member's cube"),
    "doubles_taken": ("int16", "of those, the ones it took or beavered"),
    "beavers": ("int16", "of those, the ones it beavered"),
    "doubles_blocked": ("int16", "team regime: times this member wanted to double and another did not"),
    "plies_moved": ("int32", "plies at which this player moved the checkers"),
    "points": ("int64", "points this player won (+) or lost (-); the game's rows sum to zero"),
    "plies": ("int32", "rolls in the game, the opening roll is 1"),
    "automatic_doubles": ("int16", "automatic doubles from tied opening rolls"),
    "forfeit": ("bool", "this player forfeited (an external player; `bgsim.chouette`, Forfeits): its result is "
                "`forfeit`"),
    "forfeit_reason": ("string", "why: `REASON: what the player did`, empty if it did not forfeit"),
    "rule_chouette_cubes": ("category", "rule option: `team` (the team doubles unanimously and shares "
                            "a cube) or `individual` (every member has its own cube)"),
    **{name: spec for name, spec in COLUMNS.items() if name.startswith("rule_")},
}

CHOUETTE_ENGINE_COLUMNS = (
    "game", "player", "seat", "place", "winner", "result", "cube_value", "cube_owner", "left_ply",
    "dropped", "doubles_offered", "doubles_accepted", "doubles_received", "doubles_taken", "beavers",
    "doubles_blocked", "plies_moved", "points", "plies", "automatic_doubles",
)
CHOUETTE_CODED = {
    "seat": CHOUETTE_SEAT_CODES,
    "winner": CHOUETTE_SIDE_CODES,
    "result": RESULT_CODES,
    "cube_owner": CHOUETTE_OWNER_CODES,
}
CHOUETTE_CATEGORIES = {
    "seat": CHOUETTE_SEAT_CODES,
    "winner": CHOUETTE_SIDE_CODES,
    "result": RESULT_CODES,
    "cube_owner": CHOUETTE_OWNER_CODES[1:],
    "rule_chouette_cubes": CHOUETTE_CUBE_REGIMES,
}
CHOUETTE_NULL_WHEN_ZERO = {"cube_value": "Int64", "left_ply": "Int32"}
CHOUETTE_DTYPES = {name: _frame_dtype(name, CHOUETTE_COLUMNS, CHOUETTE_CATEGORIES, CHOUETTE_NULL_WHEN_ZERO)
                   for name in CHOUETTE_COLUMNS}


def chouette_frame_from_columns(columns: Mapping[str, np.ndarray], seed: int, specs, rules: Rules,
                                chouette_cubes: str) -> pd.DataFrame:
    """The one-row-per-game-and-player DataFrame of a chouette session from engine arrays;
    ``specs[i]`` is player i's spec."""
    missing = [name for name in CHOUETTE_ENGINE_COLUMNS if name not in columns]
    if missing:
        raise ValueError(f"engine output lacks columns: {', '.join(missing)}")
    count = len(columns["game"])
    data: dict[str, object] = {
        "forfeit": np.asarray(columns.get("forfeit", np.zeros(count, dtype=bool)), dtype=bool),
        "forfeit_reason": np.asarray(columns.get("forfeit_reason", np.full(count, "", dtype=object)), dtype=object),
    }
    for name in CHOUETTE_ENGINE_COLUMNS:
        values = np.asarray(columns[name])
        if name in CHOUETTE_CODED:
            codes = values.astype(np.int64)
            if name == "cube_owner":
                codes = codes - 1  # the box's "" becomes -1: a null
            data[name] = pd.Categorical.from_codes(codes, dtype=CHOUETTE_DTYPES[name])
        elif name in CHOUETTE_NULL_WHEN_ZERO:
            data[name] = pd.array(values, dtype=CHOUETTE_DTYPES[name])
            data[name][values == 0] = pd.NA
        else:
            data[name] = values
    data["seed"] = np.full(count, seed)
    data["spec"] = np.asarray(list(specs), dtype=object)[np.asarray(columns["player"], dtype=np.int64)] \
        if count else np.zeros(0, dtype=object)
    data["players"] = np.full(count, len(specs))
    data["rule_chouette_cubes"] = pd.Categorical([chouette_cubes] * count,
                                                 dtype=CHOUETTE_DTYPES["rule_chouette_cubes"])
    for option, value in asdict(rules).items():
        data["rule_" + option] = np.full(count, value)
    frame = pd.DataFrame({name: data[name] for name in CHOUETTE_COLUMNS})
    return frame.astype(CHOUETTE_DTYPES)


def chouette_columns_from_records(records: Iterable) -> dict[str, np.ndarray]:
    """Turn reference-engine :class:`~bgsim.chouette.ChouetteRecord` objects into engine arrays."""
    out: dict[str, list] = {name: [] for name in CHOUETTE_ENGINE_COLUMNS}
    for record in records:
        for seat in record.seats:
            values = {
                "game": record.game,
                "player": seat.player,
                "seat": CHOUETTE_SEAT_CODES.index(seat.seat),
                "place": seat.place,
                "winner": CHOUETTE_SIDE_CODES.index(record.winner),
                "result": RESULT_CODES.index(seat.result),
                "cube_value": seat.cube_value,
                "cube_owner": CHOUETTE_OWNER_CODES.index(seat.cube_owner),
                "left_ply": seat.left_ply,
                "dropped": seat.dropped,
                "doubles_offered": seat.doubles_offered,
                "doubles_accepted": seat.doubles_accepted,
                "doubles_received": seat.doubles_received,
                "doubles_taken": seat.doubles_taken,
                "beavers": seat.beavers,
                "doubles_blocked": seat.doubles_blocked,
                "plies_moved": seat.plies_moved,
                "points": seat.points,
                "plies": record.plies,
                "automatic_doubles": record.automatic_doubles,
            }
            for name, value in values.items():
                out[name].append(value)
            out.setdefault("forfeit", []).append(bool(getattr(seat, "forfeit", False)))
            out.setdefault("forfeit_reason", []).append(getattr(seat, "forfeit_reason", ""))
    dtypes = {name: CHOUETTE_COLUMNS[name][0] for name in CHOUETTE_ENGINE_COLUMNS}
    dtypes.update({name: "int64" for name in CHOUETTE_CODED})
    dtypes.update({"forfeit": "bool", "forfeit_reason": object})
    return {name: np.array(values, dtype=dtypes[name]) for name, values in out.items()}


def empty_chouette_frame() -> pd.DataFrame:
    return pd.DataFrame({name: pd.Series(dtype=dtype) for name, dtype in CHOUETTE_DTYPES.items()})
