"""A chouette run's takes and drops judged against the truth where bgsim knows it.

The first ``judge_cube`` games of every table are traced again in the fast engine (the same
games: a traced game's rows are checked against the run's), and every answer to a double --
a member's take, beaver or drop, or the box's -- given in a position the two-sided bear-off
database holds (both sides in a pure bear-off of at most 8 checkers) is judged as
``bgsim cube-audit`` judges a take (:func:`experiments.studies.cube_audit.take_verdict`): from
the exact cubeful money equities of the doubler (:func:`bots.exact.cube_equities`), a wrong take
gives up ``DT - 1`` and a wrong pass ``1 - DT`` per unit of the cube before the double.  Points
lost: that times the cube's value, times the members' cubes the answer was for (the box answers
the team's double once for every member still in; every other answer is for one cube).

The truth is the two-player game's: the taker owns the doubled cube alone.  That is exact for
individual cubes; the team's doubled cube is shared by the members who took, who may redouble
only together, so its value to them is a little less than a cube of their own and the team
regime's wrong takes are counted slightly short.  No gammons are possible in these positions
(each side has borne off at least 7 checkers), so the Jacoby rule changes nothing; a beaver is
judged as the take it includes.

One row per judged answer goes to ``chouette_judge.csv``; ``experiments/analysis/chouette_report.py``
summarizes them.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from bgsim.board import Position
from bgsim.chouette import Seating
from bgsim.cube import Rules
from experiments.errors import RunError
from experiments.running.files import explain, write_text
from experiments.running.folder import CHOUETTE_JUDGE_FILE
from experiments.running.progress import Phase

from .cube_audit import take_verdict

MAX_PLIES = 2_000  # a traced game longer than this is cut short (no real game comes near)
MAX_EVENTS = 20_000  # cube answers of one traced game
COLUMNS = ("table", "condition", "game", "games_judged", "ply", "player", "spec", "seat", "answer", "value",
           "cubes", "position_id", "double_take", "best", "error", "equity_lost", "points_lost")


def judge_table(index: int, rows: pd.DataFrame, count: int, make_player, progress=lambda games: None) -> list[dict]:
    """The judged answers of the first ``count`` games of one table (its rows, sorted by game
    and place); ``progress(games)`` is told of every game looked at."""
    from bgsim import bearoff
    from bgsim.fast.chouette import (
        ACTION_DOUBLE, ACTIONS, COL_POINTS, EVENT_ACTION, EVENT_PLAYER, EVENT_VALUE, TRACE_EVENTS,
        TRACE_FIRST_EVENT, TRACE_HEAD, TRACE_PLY, TRACE_SIDE, Table,
    )
    from bots.exact import cube_equities

    first = rows[rows["game"] == rows["game"].min()].sort_values("player")
    specs = [str(spec) for spec in first["spec"]]
    rules = Rules(**{name[5:]: _plain(first[name].iloc[0]) for name in rows.columns
                     if name.startswith("rule_") and name != "rule_chouette_cubes"})
    regime = str(first["rule_chouette_cubes"].iloc[0])
    condition = str(first["condition"].iloc[0])
    seed = int(first["seed"].iloc[0])
    table = Table([make_player(spec) for spec in specs], rules, regime)
    out = []
    judged = rows[rows["game"] < count].sort_values(["game", "place"], kind="mergesort")
    games, places = judged["game"].to_numpy(), len(specs)
    players, points = judged["player"].to_numpy(), judged["points"].to_numpy()
    received = judged["doubles_received"].to_numpy()
    for start in range(0, len(judged), places):  # one game's rows, in seat order
        seats = slice(start, start + places)
        progress(1)
        if received[seats].sum() == 0:
            continue  # nobody answered a double in this game
        game = int(games[start])
        seating = Seating(tuple(int(player) for player in players[seats]))
        traced, trace, events = table.trace(seed, game, seating.order, max_plies=MAX_PLIES, max_events=MAX_EVENTS)
        if list(traced[:, COL_POINTS]) != [int(value) for value in points[seats]]:
            raise RunError(f"table {index}, game {game}: the game traced again does not score as the run's rows "
                           "(another version of bgsim played them?)")
        for row in trace:
            answers = events[row[TRACE_FIRST_EVENT]:row[TRACE_FIRST_EVENT] + row[TRACE_EVENTS]]
            said = [ACTIONS[int(event[EVENT_ACTION])] for event in answers]
            if not any(action in ("take", "drop", "beaver") for action in said):
                continue
            position = Position(tuple(int(v) for v in row[TRACE_HEAD:TRACE_HEAD + 26]))
            found = bearoff.evaluate(position)
            if found is None or found.cubeful is None:
                continue  # not a position of the two-sided database: no truth here
            truth = cube_equities(position)
            box_answering = row[TRACE_SIDE] == 1  # the team doubled
            doubles = sum(1 for event in answers if event[EVENT_ACTION] == ACTION_DOUBLE)
            for event, action in zip(answers, said):
                if action not in ("take", "drop", "beaver"):
                    continue
                player = int(event[EVENT_PLAYER])
                cubes = doubles if box_answering and regime == "team" else 1
                best, error, lost = take_verdict(truth, action != "drop")
                out.append({
                    "table": index, "condition": condition, "game": game, "games_judged": count,
                    "ply": int(row[TRACE_PLY]), "player": player, "spec": specs[player],
                    "seat": "box" if player == seating.box else "member", "answer": action,
                    "value": int(event[EVENT_VALUE]), "cubes": cubes, "position_id": position.position_id,
                    "double_take": truth.double_take, "best": best, "error": error, "equity_lost": lost,
                    "points_lost": lost * int(event[EVENT_VALUE]) * cubes,
                })
    return out


def _plain(value):
    """A rule option read back from a row as the Python value ``Rules`` checks for."""
    if hasattr(value, "item"):
        value = value.item()
    return value


def judge_chouettes(folder: Path, frame: pd.DataFrame, count: int, make_player=None, progress: bool = True,
                    log=print, phases: dict | None = None) -> pd.DataFrame:
    """Judge the first ``count`` games of every table of a chouette run's rows into the folder's
    ``chouette_judge.csv``; the rows it wrote.  A phase of its own (bar, estimate; its seconds
    added to ``phases["judging"]``)."""
    if make_player is None:
        from bots import make_player
    tables = {int(index): rows.sort_values(["game", "place"], kind="mergesort")
              for index, rows in frame.groupby("table", sort=True)}
    games = sum(min(count, rows["game"].nunique()) for rows in tables.values())
    log(f"judging the takes and drops of the first {count:,} games of {len(tables)} tables against the "
        "two-sided bear-off database")
    judged = []
    with Phase("judging", games, "games", progress, log, phases) as bar:
        for index, rows in tables.items():
            judged += judge_table(index, rows, count, make_player, bar.update)
    table = pd.DataFrame(judged, columns=list(COLUMNS))
    target = Path(folder) / CHOUETTE_JUDGE_FILE
    try:
        write_text(table.to_csv(index=False, float_format="%.9g"), target)
    except OSError as error:
        raise explain(error, target, "and finish with --resume") from None
    log(f"judged {len(table):,} answers in {games:,} games")
    return table
