"""Match-winning chances gained or lost by each side's cube decisions, where bgsim knows the truth.

A match is replayed from its seed (the fast engine's trace where both players run there, the
reference engine's otherwise: the same games either way), and every cube decision is found
again: each turn where the side on roll could double (double or not), each double it was
offered (take or pass).  Where the position is in the exact match tables
(:mod:`bgsim.bearoff.match`: a pure bear-off of at most 6 checkers a side, scores up to 25
away) the decision is judged at the match score, in match-winning chances (MWC) of the side
that made it:

* the doubler: ``max(ND, DV) - chosen``, with ``ND`` no double, ``DV = min(DT, DP)`` (the
  taker answers perfectly: double/take or double/pass, whichever is worse for the doubler),
  and ``chosen`` the one it picked;
* the taker: ``answer - min(DT, DP)`` from the doubler's side (what the taker gave away).

Turns where the cube cannot matter (the Crawford game, a dead cube) are not decisions.  What a
side loses the other gains: a side's cube decisions "cost" it the MWC summed over its judged
decisions in the match.  Positions outside the tables are not judged, so these numbers count
the endgame only: cube errors earlier in the game are not in them.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from bgsim.board import Position
from bgsim.cube import Rules
from experiments.running.files import explain, write_text
from experiments.running.folder import JUDGE_FILE
from experiments.running.progress import Phase
from experiments.stats import Z95, nonnegative_interval

from .summary import markdown_table

TRUTH = ("exact match tables (bgsim.bearoff.match): pure bear-offs of at most {checkers} checkers a "
         "side, perfect checker and cube play for the match, the Kazaross-XG2 table once a game is over")
WHITE, BLACK = "white", "black"
ACTIONS = {0: "", 1: "take", 2: "beaver", 3: "drop"}  # the fast trace's cube action codes


@dataclass(frozen=True)
class Turn:
    """One turn of a traced match: who was on roll, the board before the roll from that side,
    and the cube action of the turn (``""``, ``take``, ``beaver`` or ``drop``)."""

    game_in_match: int
    ply: int
    side: str
    board: tuple[int, ...]
    action: str


def match_turns(white, black, seed: int, number: int, match_to: int, rules: Rules = Rules()) -> list[Turn]:
    """Every turn of match ``number``, replayed: through the fast engine's trace when both
    players run there, else the reference engine's."""
    from bgsim import fast

    if fast.supports(white) and fast.supports(black):
        _, trace = fast.trace_game(white, black, seed, number, rules, match_to)
        head = fast.game.TRACE_HEAD
        return [Turn(int(row[0]), int(row[1]), WHITE if row[2] == 0 else BLACK,
                     tuple(int(v) for v in row[head:head + 26]), ACTIONS[int(row[3])]) for row in trace]
    from bgsim.match import play_match

    record = play_match(white, black, seed, number, match_to, rules, trace=True)
    turns = []
    for index, game in enumerate(record.games):
        for ply in game.history:
            action = ply.cube_action.replace("double/", "")
            turns.append(Turn(index, ply.ply, ply.side, Position.from_position_id(ply.position_id).board, action))
    return turns


def _covered(board: tuple[int, ...], checkers: int) -> bool:
    """A pure bear-off of at most ``checkers`` a side (the cheap test before the tables)."""
    own = opponent = 0
    for slot, count in enumerate(board):
        if count > 0:
            if slot > 6:
                return False
            own += count
        elif count < 0:
            if slot < 19:
                return False
            opponent -= count
    return own <= checkers and opponent <= checkers


def match_decisions(turns: Iterable[Turn], games: list[dict], match_to: int, rules: Rules,
                    checkers: int) -> list[dict]:
    """The cube decisions of a match in covered positions, not yet judged: one dict per turn
    where the side on roll could double.  ``games``: per game of the match, its score before it
    (``white_score``, ``black_score``) and whether it is the Crawford game (``crawford``)."""
    out = []
    value, owner, current = 1, "centre", -1
    post = False
    for turn in turns:
        if turn.game_in_match != current:
            current = turn.game_in_match
            value, owner = 1, "centre"
            post = any(game["crawford"] for game in games[:current])
            game = games[current]
        if game["crawford"] or turn.ply == 1:  # the opening roll comes before any cube
            continue
        may = owner in ("centre", turn.side) and value * 2 <= rules.max_cube
        if may and _covered(turn.board, checkers):
            score = {WHITE: game["white_score"], BLACK: game["black_score"]}
            other = BLACK if turn.side == WHITE else WHITE
            out.append({
                "game_in_match": current, "ply": turn.ply, "side": turn.side,
                "position_id": Position(turn.board).position_id,
                "away": match_to - score[turn.side], "opponent_away": match_to - score[other],
                "post_crawford": post, "cube_value": value, "centred": owner == "centre",
                "offered": turn.action != "", "answer": turn.action,
            })
        if turn.action in ("take", "beaver"):
            value, owner = value * 2, (BLACK if turn.side == WHITE else WHITE)
    return out


def judge(decisions: pd.DataFrame, checkers: int) -> pd.DataFrame:
    """``decisions`` with the truth and the MWC each side lost: ``doubler_lost`` (the side on
    roll's double or no double) and ``taker_lost`` (its opponent's answer, 0 when no double).
    Rows where the cube cannot matter (a dead cube) are dropped.  Judged score by score, so the
    tables of a score are built once."""
    from bgsim.bearoff import match

    columns = [*decisions.columns, "no_double", "double_take", "double_pass", "doubler_lost", "taker_lost"]
    order = decisions.sort_values(["away", "opponent_away", "post_crawford"], kind="mergesort")
    rows = []
    for row in order.itertuples(index=False):
        truth = match.match_cube(Position.from_position_id(row.position_id), int(row.cube_value),
                                 match.CENTRE if row.centred else match.ON_ROLL, int(row.away),
                                 int(row.opponent_away), post_crawford=bool(row.post_crawford), checkers=checkers)
        if truth is None or not truth.may_double:
            continue
        best = max(truth.no_double, truth.double_value())
        doubler_lost = best - (truth.double_value() if row.offered else truth.no_double)
        taker_lost = 0.0
        if row.offered:
            answered = truth.double_pass if row.answer == "drop" else truth.double_take
            taker_lost = answered - truth.double_value()
        rows.append({**row._asdict(), "no_double": truth.no_double, "double_take": truth.double_take,
                     "double_pass": truth.double_pass, "doubler_lost": doubler_lost, "taker_lost": taker_lost})
    return pd.DataFrame(rows, columns=columns)


def rules_of(row) -> Rules:
    """The rules a run's row was played under, every rule column of it (the variant's too: a
    match judged under other rules than it was played would be another match)."""
    from experiments.analysis.game_export import OPTIONAL_RULES, RULE_COLUMNS

    return Rules(**{name: _plain(row[f"rule_{name}"]) if f"rule_{name}" in row.index else OPTIONAL_RULES[name]
                    for name in RULE_COLUMNS})


def chosen_games(frame: pd.DataFrame, deals: int) -> pd.DataFrame:
    """The rows of the matches :func:`judge_run` judges: the first ``deals`` match numbers of
    every pairing and seating, in match order."""
    matches = frame[frame["match_to"] > 0]
    numbers = sorted(matches["game"].unique())[:deals]
    return matches[matches["game"].isin(numbers)].sort_values(
        ["pairing", "leg", "game", "game_in_match"], kind="mergesort")


def judge_run(frame: pd.DataFrame, deals: int, make_player: Callable | None = None,
              checkers: int | None = None, progress: Callable[[int], None] | None = None) -> pd.DataFrame:
    """One row per judged match of a run's rows (the first ``deals`` match numbers of every
    pairing, both seatings): the MWC white's and black's cube decisions lost in it and how many
    were judged."""
    from bgsim.bearoff.match import default_match_checkers
    from bots import make_player as default_make

    make = make_player or default_make
    if checkers is None:
        checkers = default_match_checkers()
    players: dict[str, object] = {}

    def player(spec: str):
        if spec not in players:
            players[spec] = make(spec)
        return players[spec]

    chosen = chosen_games(frame, deals)
    found = []
    keys = []
    for key, games in chosen.groupby(["pairing", "leg", "game"], sort=False):
        first = games.iloc[0]
        rules = rules_of(first)
        match_to = int(first["match_to"])
        turns = match_turns(player(str(first["white"])), player(str(first["black"])), int(first["seed"]),
                            int(first["game"]), match_to, rules)
        context = [{"white_score": int(g.white_score), "black_score": int(g.black_score),
                    "crawford": bool(g.crawford)} for g in games.itertuples()]
        for decision in match_decisions(turns, context, match_to, rules, checkers):
            found.append({"pairing": key[0], "leg": key[1], "game": key[2], **decision})
        keys.append({"pairing": key[0], "leg": key[1], "game": key[2], "condition": str(first["condition"]),
                     "white": str(first["white"]), "black": str(first["black"]), "match_to": match_to})
        if progress:
            progress(1)
    judged = judge(pd.DataFrame(found), checkers) if found else pd.DataFrame()
    out = pd.DataFrame(keys)
    for side in (WHITE, BLACK):
        out[f"{side}_lost"] = 0.0
        out[f"{side}_decisions"] = 0
    if judged.empty:
        return out
    index = {(k["pairing"], k["leg"], k["game"]): i for i, k in enumerate(keys)}
    lost = {side: np.zeros(len(out)) for side in (WHITE, BLACK)}
    count = {side: np.zeros(len(out), dtype=np.int64) for side in (WHITE, BLACK)}
    for row in judged.itertuples(index=False):
        i = index[(row.pairing, row.leg, row.game)]
        other = BLACK if row.side == WHITE else WHITE
        lost[row.side][i] += row.doubler_lost
        count[row.side][i] += 1
        if row.offered:
            lost[other][i] += row.taker_lost
            count[other][i] += 1
    for side in (WHITE, BLACK):
        out[f"{side}_lost"] = lost[side]
        out[f"{side}_decisions"] = count[side]
    return out


def judge_folder(folder: Path, frame: pd.DataFrame, deals: int, make_player: Callable | None = None,
                 progress: bool = True, log: Callable[[str], None] = print, phases: dict | None = None) -> None:
    """Replay the first ``deals`` deals of every pairing of a run's rows and judge their cube
    decisions in match-winning chances: ``cube_judge.csv`` in the run's folder.  A phase of its
    own (bar, estimate; its seconds added to ``phases["judging"]``)."""
    deals = min(deals, int(frame["game"].nunique()))
    matches = int(chosen_games(frame, deals).groupby(["pairing", "leg", "game"]).ngroups)
    log(f"judging the cube decisions of {matches:,} matches ({deals:,} deals of every pairing) "
        "where the exact match tables hold the position (the tables of each score are built on first use)")
    with Phase("judging", matches, "matches", progress, log, phases) as bar:
        judged = judge_run(frame, deals, make_player, progress=bar.update)
    target = Path(folder) / JUDGE_FILE
    try:
        write_text(judged.to_csv(index=False, float_format="%.9g"), target)
    except OSError as error:
        raise explain(error, target, "and finish with --resume") from None


def _plain(value):
    return value.item() if hasattr(value, "item") else value


def by_pairing(matches: pd.DataFrame, firsts: dict[int, tuple[str, str, str]]) -> pd.DataFrame:
    """Per pairing, from its first player's side: the MWC per match its cube decisions lost and
    its opponent's lost, each with a 95% interval over the judged matches, and the difference
    (what the first player's cube gained on balance) with the interval of the paired values."""
    rows = []
    for pairing, part in matches.groupby("pairing", sort=True):
        first, second, condition = firsts[int(pairing)]
        first_white = (part["white"] == first).to_numpy()
        mine = np.where(first_white, part["white_lost"], part["black_lost"])
        theirs = np.where(first_white, part["black_lost"], part["white_lost"])
        my_count = np.where(first_white, part["white_decisions"], part["black_decisions"])
        their_count = np.where(first_white, part["black_decisions"], part["white_decisions"])
        rows.append({
            "condition": condition, "pairing": int(pairing), "player": first, "opponent": second,
            "matches": len(part), "decisions": int(my_count.sum()), "opponent_decisions": int(their_count.sum()),
            **_lost("lost", mine), **_lost("opponent_lost", theirs),
            "gained": _mean(theirs - mine), "gained_ci": _half(theirs - mine),
        })
    return pd.DataFrame(rows)


def _lost(name: str, values) -> dict:
    """A side's MWC lost per match, which cannot be negative, with a 95% interval that stays so
    (``experiments.stats.nonnegative_interval``)."""
    mean = _mean(values)
    low, high = nonnegative_interval(mean, _half(values)) if mean == mean else (math.nan, math.nan)
    return {name: mean, f"{name}_low": low, f"{name}_high": high}


def _mean(values) -> float:
    return float(np.mean(values)) if len(values) else math.nan


def _half(values) -> float:
    values = np.asarray(values, dtype=float)
    if len(values) < 2:
        return math.nan
    return float(Z95 * values.std(ddof=1) / math.sqrt(len(values)))


def markdown(table: pd.DataFrame, labels: dict[str, str], checkers: int) -> str:
    """The section of a match run's summary.md."""
    lines = [
        "Every cube decision of the judged matches in a position the exact match tables hold is "
        "judged at its match score against perfect play; a side's loss is the other's gain. "
        f"Truth: {TRUTH.format(checkers=checkers)}. Earlier decisions (contact, long races) are not "
        "judged, so this is the endgame's share of each cube strategy's match-winning chances. "
        "Match-winning chances in percentage points per match, 95% intervals over the matches (a loss's "
        "on the log scale, so it never goes below zero).\n",
    ]
    for condition, part in table.groupby("condition", sort=False):
        if table["condition"].nunique() > 1:
            lines.append(f"**{condition}**\n")
        rows = [[labels.get(r.player, r.player), labels.get(r.opponent, r.opponent), f"{r.matches:,}",
                 f"{r.decisions:,} / {r.opponent_decisions:,}", _range(r.lost, r.lost_low, r.lost_high),
                 _range(r.opponent_lost, r.opponent_lost_low, r.opponent_lost_high),
                 _pct(r.gained, r.gained_ci, signed=True)]
                for r in part.itertuples()]
        lines.append(markdown_table(
            ["player", "opponent", "matches judged", "decisions judged (player / opponent)",
             "player's cube lost", "opponent's cube lost", "player's net gain"], rows, "llrrrrr") + "\n")
    return "\n".join(lines)


def _range(mean: float, low: float, high: float) -> str:
    if math.isnan(mean):
        return "n/a"
    return f"{100 * mean:.2f}" if math.isnan(low) else f"{100 * mean:.2f} ({100 * low:.2f} .. {100 * high:.2f})"


def _pct(mean: float, half: float, signed: bool = False) -> str:
    if math.isnan(mean):
        return "n/a"
    text = f"{100 * mean:+.2f}" if signed else f"{100 * mean:.2f}"
    return text if math.isnan(half) else f"{text} ± {100 * half:.2f}"
