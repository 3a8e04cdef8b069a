"""Summaries computed from the raw rows (one per game), never from anything else.

Every figure a run prints or writes comes from these functions applied to ``games.parquet``
(or the DataFrame an engine returned), so a summary can always be recomputed and checked.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from experiments.stats import Z95, last_games, mean_interval

def white_points_counted(frame: pd.DataFrame) -> np.ndarray:
    """White's points of each game as they count: in a match capped at what the winner still
    needed (``points_counted``), so a 64-cube in a 7-point match counts as the points it won;
    in money games the points themselves.  Frames written before the column: the raw points."""
    if "points_counted" not in frame.columns:
        return frame["white_points"].to_numpy(dtype=np.float64)
    counted = frame["points_counted"].to_numpy(dtype=np.float64)
    return np.where(frame["winner"].to_numpy() == "white", counted, -counted)


def summarize_games(frame: pd.DataFrame) -> dict:
    """White's points per game (capped in matches) with a 95% interval and the outcome shares."""
    count = len(frame)
    ppg, half_width = mean_interval(white_points_counted(frame))
    result = frame["result"]

    def share(mask) -> float:
        return float(np.mean(mask)) if count else math.nan

    return {
        "games": count,
        "white_ppg": ppg,
        "white_ppg_ci": half_width,
        "white_wins": share(frame["winner"] == "white"),
        "gammons": share(result.isin(["gammon", "backgammon"])),
        "backgammons": share(result == "backgammon"),
        "drops": share(result == "drop"),
        "mean_cube": float(frame["cube_value"].mean()) if count else math.nan,
        "doubles_per_game": float(frame["doubles"].mean()) if count else math.nan,
        "plies_per_game": float(frame["plies"].mean()) if count else math.nan,
        # games each side forfeited (an external engine: bgsim.scoring), counted
        **{f"{side}_forfeits": int((frame["forfeit"] == side).sum()) if "forfeit" in frame.columns else 0
           for side in ("white", "black")},
    }


class GameTally:
    """What :func:`summarize_games` reports, and matches won by each side (a match's winner is
    the winner of its last game), gathered batch by batch, so that a stream of a billion games
    needs no frame of them (batches hold whole matches)."""

    def __init__(self) -> None:
        self.games = 0
        self.points = 0.0
        self.squares = 0.0
        self.counts = {"white_wins": 0, "gammons": 0, "backgammons": 0, "drops": 0}
        self.forfeits = {"white": 0, "black": 0}  # games each side forfeited (an external engine)
        self.sums = {"mean_cube": 0.0, "doubles_per_game": 0.0, "plies_per_game": 0.0}
        self.matches = 0
        self.white_matches = 0
        self.raw_points = 0.0  # uncapped: what the match view shows beside the capped points

    def add(self, frame: pd.DataFrame) -> None:
        points = white_points_counted(frame)
        result = frame["result"]
        self.games += len(frame)
        self.points += float(points.sum())
        self.raw_points += float(frame["white_points"].to_numpy(dtype=np.float64).sum())
        self.squares += float((points * points).sum())
        self.counts["white_wins"] += int((frame["winner"] == "white").sum())
        self.counts["gammons"] += int(result.isin(GAMMONS).sum())
        self.counts["backgammons"] += int((result == "backgammon").sum())
        self.counts["drops"] += int((result == "drop").sum())
        if "forfeit" in frame.columns:
            for side in self.forfeits:
                self.forfeits[side] += int((frame["forfeit"] == side).sum())
        for key, column in (("mean_cube", "cube_value"), ("doubles_per_game", "doubles"), ("plies_per_game", "plies")):
            self.sums[key] += float(frame[column].sum())
        if len(frame) and int(frame["match_to"].max()) > 0:
            last = last_games(frame, ["game"])
            self.matches += len(last)
            self.white_matches += int((last["winner"] == "white").sum())

    def summary(self) -> dict:
        """The dict :func:`summarize_games` returns for all the rows added."""
        count = self.games
        mean = self.points / count if count else math.nan
        half = math.nan
        if count >= 2:
            variance = max(self.squares - count * mean * mean, 0.0) / (count - 1)
            half = Z95 * math.sqrt(variance / count)
        out = {"games": count, "white_ppg": mean, "white_ppg_ci": half}
        out.update({key: value / count if count else math.nan for key, value in self.counts.items()})
        out.update({key: value / count if count else math.nan for key, value in self.sums.items()})
        out["white_forfeits"], out["black_forfeits"] = self.forfeits["white"], self.forfeits["black"]
        return out

    def match_summary(self) -> dict:
        if not self.matches:
            return {"matches": 0, "white_matches": 0, "black_matches": 0}
        summary = self.summary()
        return {"matches": self.matches, "white_matches": self.white_matches,
                "black_matches": self.matches - self.white_matches,
                "games_per_match": self.games / self.matches,
                "white_ppg": summary["white_ppg"], "white_ppg_ci": summary["white_ppg_ci"],
                "white_ppg_raw": self.raw_points / self.games}


def format_summary(summary: dict, white: str, black: str) -> str:
    """A few readable lines for the terminal."""
    def pct(value: float) -> str:
        return "n/a" if math.isnan(value) else f"{100 * value:5.1f}%"

    ci = summary["white_ppg_ci"]
    ci_text = "n/a" if math.isnan(ci) else f"{ci:.3f}"
    return "\n".join([
        f"{summary['games']} games, white {white} vs black {black}",
        f"  white points per game: {summary['white_ppg']:+.3f} ± {ci_text} (95% CI)",
        f"  white wins {pct(summary['white_wins'])}   gammons {pct(summary['gammons'])}   "
        f"backgammons {pct(summary['backgammons'])}   drops {pct(summary['drops'])}",
        f"  mean final cube {summary['mean_cube']:.2f}   doubles per game {summary['doubles_per_game']:.3f}   "
        f"plies per game {summary['plies_per_game']:.1f}",
    ] + ([f"  forfeited: white {summary['white_forfeits']:,} games, black {summary['black_forfeits']:,} "
          "(scored as a backgammon lost at the cube; the rows' forfeit_reason says why)"]
         if summary.get("white_forfeits") or summary.get("black_forfeits") else []))


def format_match_summary(summary: dict, white: str, black: str) -> str:
    """:meth:`GameTally.match_summary` (with ``match_to``) in a few lines for the terminal."""
    matches = summary["matches"]
    if not matches:
        return "no matches played"
    share, half_width = mean_interval([1.0] * summary["white_matches"] + [0.0] * summary["black_matches"])
    ci = "n/a" if half_width != half_width else f"{100 * half_width:.1f}%"
    lines = [
        f"{matches} matches to {summary['match_to']} points, white {white} vs black {black}",
        f"  white won {summary['white_matches']}, black won {summary['black_matches']}: "
        f"white {100 * share:.1f}% ± {ci} (95% CI)   games per match {summary['games_per_match']:.2f}",
    ]
    if "white_ppg" in summary:  # a game's points beyond what its winner needed win nothing
        ppg_ci = summary["white_ppg_ci"]
        ppg_ci = "n/a" if ppg_ci != ppg_ci else f"{ppg_ci:.3f}"
        lines.append(f"  white points per game, capped at what the winner needed: "
                     f"{summary['white_ppg']:+.3f} ± {ppg_ci} (raw, uncapped {summary['white_ppg_raw']:+.3f})")
    return "\n".join(lines)


# --- runs: many pairings, each dealt twice with the seats swapped ----------------------------
#
# A run's rows carry three columns besides the game schema: ``pairing`` (index of the pairing
# of two players under one rule condition), ``condition`` (the rule set's name) and ``leg``
# (0: the pairing's first player is white, 1: the seats are swapped).  Under duplicate dice
# both legs play the same game numbers, so game g of leg 0 and game g of leg 1 were dealt the
# same dice per seat; the pair's mean is one independent unit for the confidence interval.

RUN_COLUMNS = ("pairing", "condition", "leg")
GAMMONS = ("gammon", "backgammon")


def points_for(frame: pd.DataFrame, player: str) -> np.ndarray:
    """Points won per game from ``player``'s side of the board (capped in matches)."""
    white_points = white_points_counted(frame)
    return np.where(frame["white"].to_numpy() == player, white_points, -white_points)


def paired_interval(values, keys) -> tuple[float, float, int]:
    """Mean, 95% half-width and unit count, one unit per key (games dealt the same dice).

    ``keys`` is one array, or a tuple of arrays that together make the key.

    Values sharing a key are averaged first: they are the two seatings of one deal and far from
    independent.  With distinct keys this is :func:`mean_interval` on the values themselves.
    """
    values = pd.Series(np.asarray(values, dtype=np.float64))
    keys = pd.MultiIndex.from_arrays(list(keys)) if isinstance(keys, tuple) else np.asarray(keys)
    units = values.groupby(keys, sort=False).mean().to_numpy()
    mean, half = mean_interval(units)
    return mean, half, len(units)


def variance_ratio(values, legs, keys) -> float:
    """How many times smaller the variance of the mean is with duplicate dice than without.

    Without duplicate dice each seating would be dealt its own dice, and the mean of the two
    seatings' means would have variance s0²/n0/4 + s1²/n1/4 (the per-seating variances are
    what those games show here too).  With duplicate dice the variance is that of the
    per-deal means over their count.  The ratio of the two is the variance removed: 4 means a
    duplicate run is worth four plain runs of the same size.  NaN when nothing was paired.
    """
    values = np.asarray(values, dtype=np.float64)
    legs = np.asarray(legs)
    parts = [values[legs == leg] for leg in (0, 1)]
    if any(len(part) < 2 for part in parts):
        return math.nan
    plain = sum(part.var(ddof=1) / len(part) for part in parts) / 4
    units = pd.Series(values).groupby(np.asarray(keys)).mean()
    if len(units) == len(values) or len(units) < 2:
        return math.nan
    paired = units.var(ddof=1) / len(units)
    if paired == 0:
        return math.inf if plain > 0 else math.nan
    return float(plain / paired)


def match_results(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per match: its pairing, leg, number, white, black and winner (from its last game)."""
    ordered = frame.sort_values(["pairing", "leg", "game", "game_in_match"], kind="mergesort")
    last = last_games(ordered, ["pairing", "leg", "game"])
    games = ordered.groupby(["pairing", "leg", "game"], sort=False).size().to_numpy()
    out = last[["pairing", "condition", "leg", "game", "white", "black", "winner"]].reset_index(drop=True)
    out["games_in_match"] = games
    return out


def _side_stats(rows: pd.DataFrame, player: str) -> dict:
    """Outcome shares of ``rows`` from ``player``'s side."""
    won = (rows["winner"] == "white").to_numpy() == (rows["white"] == player).to_numpy()
    result = rows["result"].to_numpy()
    count = len(rows)

    def share(mask) -> float:
        return float(np.mean(mask)) if count else math.nan

    gammon = np.isin(result, GAMMONS)
    drop = result == "drop"
    return {
        "wins": share(won),
        "gammons_won": share(gammon & won),
        "gammons_lost": share(gammon & ~won),
        "backgammons": share(result == "backgammon"),
        "drops_won": share(drop & won),
        "drops_lost": share(drop & ~won),
        "mean_cube": float(rows["cube_value"].mean()) if count else math.nan,
        "doubles_per_game": float(rows["doubles"].mean()) if count else math.nan,
    }


def first_players(frame: pd.DataFrame) -> dict[int, tuple[str, str, str]]:
    """pairing -> (first player, second player, condition), read from the leg-0 rows."""
    out = {}
    for pairing, rows in frame.groupby("pairing", sort=True):
        leg0 = rows[rows["leg"] == 0]
        source = leg0 if len(leg0) else rows
        first = str(source["white"].iloc[0]) if len(leg0) else str(source["black"].iloc[0])
        second = str(source["black"].iloc[0]) if len(leg0) else str(source["white"].iloc[0])
        out[int(pairing)] = (first, second, str(rows["condition"].iloc[0]))
    return out


def player_order(frame: pd.DataFrame) -> list[str]:
    """Players in order of first appearance over the pairings."""
    order: list[str] = []
    for first, second, _ in first_players(frame).values():
        for name in (first, second):
            if name not in order:
                order.append(name)
    return order


def summarize_pairings(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per pairing, from its first player's side: points per game with a 95% interval
    (deals paired under duplicate dice), outcome shares, the variance ratio, and for match
    play the share of matches won with its interval."""
    rows_out = []
    is_match = bool(len(frame)) and int(frame["match_to"].max()) > 0
    matches = match_results(frame) if is_match else None
    for pairing, (first, second, condition) in first_players(frame).items():
        rows = frame[frame["pairing"] == pairing]
        points = points_for(rows, first)
        ppg, half, units = paired_interval(points, rows["game"].to_numpy())
        if is_match:  # games of one match share a number: pair on (leg, match, game in match)
            keys = (rows["game"].to_numpy(), rows["game_in_match"].to_numpy())
            ppg, half, units = paired_interval(points, keys)
            ratio_keys = rows["game"].to_numpy() * 1000 + rows["game_in_match"].to_numpy()
        else:
            ratio_keys = rows["game"].to_numpy()
        record = {
            "pairing": pairing, "condition": condition, "player": first, "opponent": second,
            "games": len(rows), "ppg": ppg, "ppg_ci": half,
            **_side_stats(rows, first),
            "variance_ratio": variance_ratio(points, rows["leg"].to_numpy(), ratio_keys),
        }
        if is_match:
            mine = matches[matches["pairing"] == pairing]
            won = (mine["winner"] == "white").to_numpy() == (mine["white"] == first).to_numpy()
            share, share_half, _ = paired_interval(won.astype(float), mine["game"].to_numpy())
            record.update({
                "matches": len(mine), "match_wins": share, "match_wins_ci": share_half,
                "match_variance_ratio": variance_ratio(won.astype(float), mine["leg"].to_numpy(),
                                                       mine["game"].to_numpy()),
                "games_per_match": float(mine["games_in_match"].mean()),
            })
        rows_out.append(record)
    return pd.DataFrame(rows_out)


def summarize_players(frame: pd.DataFrame, condition: str | None = None) -> pd.DataFrame:
    """Standings: each player's results over all its games (under one condition), best first."""
    if condition is not None:
        frame = frame[frame["condition"] == condition]
    is_match = bool(len(frame)) and int(frame["match_to"].max()) > 0
    matches = match_results(frame) if is_match else None
    out = []
    for player in player_order(frame):
        mine = frame[(frame["white"] == player) | (frame["black"] == player)]
        points = points_for(mine, player)
        keys = (mine["pairing"].to_numpy(), mine["game"].to_numpy())
        if is_match:
            keys += (mine["game_in_match"].to_numpy(),)
        ppg, half, _ = paired_interval(points, keys)
        record = {"player": player, "games": len(mine), "ppg": ppg, "ppg_ci": half,
                  **_side_stats(mine, player)}
        if is_match:
            played = matches[(matches["white"] == player) | (matches["black"] == player)]
            won = (played["winner"] == "white").to_numpy() == (played["white"] == player).to_numpy()
            share, share_half, _ = paired_interval(
                won.astype(float), (played["pairing"].to_numpy(), played["game"].to_numpy()))
            record.update({"matches": len(played), "match_wins": share, "match_wins_ci": share_half})
        out.append(record)
    table = pd.DataFrame(out)
    if len(table):
        key = "match_wins" if is_match else "ppg"
        table = table.sort_values(key, ascending=False, kind="mergesort").reset_index(drop=True)
    return table


def payoff_matrix(pairings: pd.DataFrame, players: list[str] | None = None,
                  value: str = "ppg") -> pd.DataFrame:
    """Row player's result against column player (points per game, or match share).

    Points per game are zero-sum, so the lower triangle is the upper one negated; a match
    share s for the row player is 1 - s for the column player.
    """
    if players is None:
        players = []
        for _, row in pairings.iterrows():
            for name in (row["player"], row["opponent"]):
                if name not in players:
                    players.append(name)
    matrix = pd.DataFrame(np.nan, index=players, columns=players, dtype=np.float64)
    for _, row in pairings.iterrows():
        a, b, v = row["player"], row["opponent"], row[value]
        matrix.loc[a, b] = v
        matrix.loc[b, a] = (1 - v) if value == "match_wins" else -v
    return matrix


def best_responses(matrix: pd.DataFrame) -> pd.DataFrame:
    """For each opponent (a column), the player that scores best against it, and how well."""
    out = []
    for opponent in matrix.columns:
        column = matrix[opponent].drop(opponent, errors="ignore").dropna()
        if column.empty:
            continue
        best = column.idxmax()
        out.append({"opponent": opponent, "best_response": best, "value": float(column[best])})
    return pd.DataFrame(out)


def summarize_conditions(frame: pd.DataFrame) -> pd.DataFrame:
    """What each rule condition does to the game: points changing hands, gammons, the cube."""
    out = []
    for condition, rows in frame.groupby("condition", sort=False):
        # The deal is the unit: its two seatings share the dice and their points are correlated
        # (r ~ 0.5), so counting every game as independent would make the interval too narrow.
        magnitude, half, _ = paired_interval(rows["points"], (rows["pairing"].to_numpy(), rows["game"].to_numpy()))
        plies, plies_half = math.nan, math.nan
        if "plies" in rows:
            plies, plies_half, _ = paired_interval(rows["plies"], (rows["pairing"].to_numpy(), rows["game"].to_numpy()))
        result = rows["result"]
        out.append({
            "condition": condition,
            "games": len(rows),
            "points_per_game": magnitude, "points_per_game_ci": half,
            "plies_per_game": plies, "plies_per_game_ci": plies_half,
            "gammons": float(result.isin(GAMMONS).mean()),
            # Under the Jacoby rule a gammon with the cube never turned scores as a single.
            "gammons_scored": float((result.isin(GAMMONS) & (rows["points"] > rows["cube_value"])).mean()),
            "backgammons": float((result == "backgammon").mean()),
            "drops": float((result == "drop").mean()),
            "mean_cube": float(rows["cube_value"].mean()),
            "doubles_per_game": float(rows["doubles"].mean()),
            "beavers_per_game": float(rows["beavers"].mean()),
            "automatic_doubles_per_game": float(rows["automatic_doubles"].mean()),
        })
    return pd.DataFrame(out)


# --- which players are separated -------------------------------------------------------------

RESOLUTION = 0.01  # the smallest difference worth telling apart: 0.01 points/game, or 1% of matches


def _two_sided_p(z: float) -> float:
    return math.erfc(abs(z) / math.sqrt(2)) if z == z else math.nan


def holm(p_values) -> np.ndarray:
    """Holm's step-down adjustment: adjusted p-values that keep the family-wise error rate."""
    p = np.asarray(p_values, dtype=np.float64)
    m = len(p)
    order = np.argsort(p, kind="mergesort")
    adjusted = np.empty(m)
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[index]))
        adjusted[index] = running
    return adjusted


def pairwise_comparisons(frame: pd.DataFrame, condition: str | None = None, level: float = 0.05) -> pd.DataFrame:
    """Every pair of players under one condition: the difference between them, its 95% interval,
    and whether they are separated after Holm's correction over all the pairs.

    Two players who met are compared on their own games: each deal's two seatings are one unit
    (first player's mean points, or share of the two matches won).  Two who never met but each
    played the same fixed opponent (``pairings = "against"``) are compared through it: the
    difference of their results, whose dice are independent, so the variances add.
    ``deals_needed`` is how many deals per pairing would make the 95% half-width the size of the
    difference seen (at least :data:`RESOLUTION`).
    """
    if condition is not None:
        frame = frame[frame["condition"] == condition]
    if frame.empty:
        return pd.DataFrame()
    is_match = int(frame["match_to"].max()) > 0
    matches = match_results(frame) if is_match else None
    units: dict[tuple[str, str], np.ndarray] = {}
    for pairing, (first, second, _) in first_players(frame).items():
        if is_match:
            mine = matches[matches["pairing"] == pairing]
            won = ((mine["winner"] == "white").to_numpy() == (mine["white"] == first).to_numpy()).astype(float)
            values = pd.Series(won).groupby(mine["game"].to_numpy()).mean().to_numpy() - 0.5
        else:
            rows = frame[frame["pairing"] == pairing]
            values = pd.Series(points_for(rows, first)).groupby(rows["game"].to_numpy()).mean().to_numpy()
        units[(first, second)] = values
    order = player_order(frame)
    out = []
    for i, a in enumerate(order):
        for b in order[i + 1:]:
            row = _compare(units, a, b)
            if row is not None:
                out.append({"player": a, "opponent": b, **row})
    table = pd.DataFrame(out)
    if table.empty:
        return table
    table["p_holm"] = holm(table["p"].to_numpy())
    table["separated"] = table["p_holm"] < level
    table["match"] = is_match
    return table


def _compare(units: dict, a: str, b: str) -> dict | None:
    """a's lead over b (mean, half-width, deals, p, deals needed), or None if nothing links them."""
    def stats(values):
        mean, half = mean_interval(values)
        return mean, half, len(values)

    if (a, b) in units or (b, a) in units:
        sign = 1.0 if (a, b) in units else -1.0
        mean, half, deals = stats(units.get((a, b), units.get((b, a))))
        mean *= sign
        via = None
    else:
        # a common opponent c, whichever seat order each pair was recorded in
        def opponents(player):
            return {y for (x, y) in units if x == player} | {x for (x, y) in units if y == player}

        common = sorted(opponents(a) & opponents(b) - {a, b}, key=str)
        if not common:
            return None
        via = common[0]

        def against(player):
            if (player, via) in units:
                return stats(units[(player, via)])
            mean, half, deals = stats(units[(via, player)])
            return -mean, half, deals

        (ma, ha, na), (mb, hb, nb) = against(a), against(b)
        mean, half, deals = ma - mb, math.sqrt(ha * ha + hb * hb), min(na, nb)
    mean += 0.0  # no "-0.000"
    if half == 0:  # every deal gave the same difference: nothing random left to test
        p = 1.0 if mean == 0 else 0.0
    else:
        p = _two_sided_p(mean / (half / Z95)) if half == half else 1.0
    target = max(abs(mean), RESOLUTION)
    needed = math.ceil(deals * (half / target) ** 2) if half == half else math.nan
    return {"difference": mean, "difference_ci": half, "deals": deals, "via": via,
            "p": p, "deals_needed": needed, "resolution": target}


def separation_sentences(comparisons: pd.DataFrame, standings: list[str], labels: dict | None = None) -> list[str]:
    """Plain sentences: how many pairs are separated, the leader against the rest, and each
    player against the next one in the standings."""
    if comparisons is None or comparisons.empty:
        return []
    labels = labels or {}
    name = lambda player: f"`{labels.get(player, player)}`"  # noqa: E731
    is_match = bool(comparisons["match"].iloc[0])
    lookup = {}
    for row in comparisons.itertuples(index=False):
        lookup[(row.player, row.opponent)] = (row, 1.0)
        lookup[(row.opponent, row.player)] = (row, -1.0)

    def amount(value: float, half: float, via: str | None) -> str:
        if is_match and via:
            return f"{round(100 * value, 1) + 0.0:+.1f} ± {100 * half:.1f} points more of its matches won against {name(via)}"
        if is_match:  # value is the first player's share of the two's matches, less one half
            return f"wins {round(100 * (0.5 + value), 1):.1f}% ± {100 * half:.1f} of their matches"
        return f"{round(value, 3) + 0.0:+.3f} ± {half:.3f} points/game"  # + 0.0: no "-0.000"

    def resolution(value: float) -> str:
        return f"{100 * value:.2g}-percentage-point" if is_match else f"{value:.2g}"

    def sentence(a: str, b: str) -> str | None:
        found = lookup.get((a, b))
        if found is None:
            return None
        row, sign = found
        via = f" (compared through their results against {name(row.via)})" if row.via else ""
        if row.difference_ci == 0 and row.difference == 0:
            return f"{name(a)} and {name(b)} scored the same in every one of {row.deals:,} deals{via}."
        if row.separated and sign * row.difference < 0:
            # Standings rank by points against everyone; head to head the order can turn over.
            return (f"{name(b)} beats {name(a)} head to head after {row.deals:,} deals{via}, though it stands "
                    f"lower in the standings: {amount(-sign * row.difference, row.difference_ci, row.via)} "
                    f"(Holm-adjusted p = {row.p_holm:.2g}).")
        if row.separated:
            return (f"{name(a)} is ahead of {name(b)} after {row.deals:,} deals{via}: "
                    f"{amount(sign * row.difference, row.difference_ci, row.via)} (Holm-adjusted p = {row.p_holm:.2g}).")
        needed = "" if row.deals_needed != row.deals_needed else (
            f"; about {row.deals_needed:,.0f} deals would be needed to tell a {resolution(row.resolution)} difference")
        return (f"{name(a)} and {name(b)} are not separated after {row.deals:,} deals{via} "
                f"({amount(sign * row.difference, row.difference_ci, row.via)}){needed}.")

    separated = int(comparisons["separated"].sum())
    out = [f"{separated} of the {len(comparisons)} pairs of players are separated (95%, Holm's correction over "
           f"all the pairs; each deal's two seatings count as one unit); standings whose intervals overlap "
           f"are not an order."]
    if standings:
        leader = standings[0]
        close = [p for p in standings[1:] if (leader, p) in lookup and not lookup[(leader, p)][0].separated]
        if close:
            out.append(f"Nothing separates the leader {name(leader)} from {', '.join(name(p) for p in close)}.")
        elif len(standings) > 1:
            out.append(f"The leader {name(leader)} is separated from every other player.")
    for a, b in zip(standings, standings[1:]):
        text = sentence(a, b)
        if text:
            out.append(text)
    return out


# --- text ------------------------------------------------------------------------------------

def milli(value: float, signed: bool = False) -> str:
    """A value in points as thousandths of a point, two decimals ("-" for NaN)."""
    if value != value:
        return "-"
    return f"{1000 * value:+.2f}" if signed else f"{1000 * value:.2f}"


def played_with(run: dict, details: list[str] | tuple[str, ...] = ()) -> str:
    """Which code made a run's results and the command that repeats it, as every summary says it:
    "Played with bgsim V; commit C[+dirty]; DETAILS.  Command: `...`" (``run``: its run.json)."""
    parts = [f"bgsim {run.get('bgsim_version', '?')}"]
    if run.get("git_commit"):
        commit = run["git_commit"].removesuffix("+dirty")
        dirty = run.get("git_dirty") or run["git_commit"].endswith("+dirty")
        parts.append(f"commit {commit[:12]}{'+dirty' if dirty else ''}")
    return f"Played with {'; '.join([*parts, *details])}.  Command: `{run.get('command', '')}`"


def _fmt_pct(value) -> str:
    return "n/a" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{100 * value:.1f}%"


def _fmt_ci(mean, half, signed=True, pct=False, digits=3) -> str:
    if mean is None or math.isnan(mean):
        return "n/a"
    if pct:
        text = f"{100 * mean:.1f}%"
        return text if math.isnan(half) else f"{text} ± {100 * half:.1f}"
    text = f"{mean:+.{digits}f}" if signed else f"{mean:.{digits}f}"
    return text if math.isnan(half) else f"{text} ± {half:.{digits}f}"


def _fmt_ratio(value) -> str:
    if value is None or math.isnan(value):
        return "n/a"
    return "∞" if math.isinf(value) else f"{value:.1f}×"


def markdown_table(headers: list[str], rows: list[list[str]], align: str | None = None) -> str:
    """A Markdown table padded to line up in a terminal too (``align``: 'l'/'r' per column)."""
    align = align or "l" + "r" * (len(headers) - 1)
    widths = [max(len(str(cell)) for cell in column) for column in zip(headers, *rows)]

    def line(cells):
        padded = [str(c).ljust(w) if a == "l" else str(c).rjust(w) for c, w, a in zip(cells, widths, align)]
        return "| " + " | ".join(padded) + " |"

    rule = "|" + "|".join(("-" * (w + 1) + ":") if a == "r" else ("-" * (w + 2)) for w, a in zip(widths, align)) + "|"
    return "\n".join([line(headers), rule] + [line(row) for row in rows])


def standings_table(standings: pd.DataFrame) -> str:
    is_match = "match_wins" in standings
    headers = ["#", "player"]
    headers += ["match wins (95% CI)", "matches"] if is_match else []
    headers += ["points/game (95% CI)", "games", "wins", "gammons won", "gammons lost",
                "backgammons", "drops won", "drops lost", "mean cube", "doubles/game"]
    rows = []
    for rank, row in enumerate(standings.itertuples(index=False), 1):
        cells = [str(rank), row.player]
        if is_match:
            cells += [_fmt_ci(row.match_wins, row.match_wins_ci, pct=True), str(row.matches)]
        cells += [_fmt_ci(row.ppg, row.ppg_ci), str(row.games), _fmt_pct(row.wins),
                  _fmt_pct(row.gammons_won), _fmt_pct(row.gammons_lost), _fmt_pct(row.backgammons),
                  _fmt_pct(row.drops_won), _fmt_pct(row.drops_lost), f"{row.mean_cube:.2f}",
                  f"{row.doubles_per_game:.3f}"]
        rows.append(cells)
    return markdown_table(headers, rows, "rl" + "r" * (len(headers) - 2))


def pairings_table(pairings: pd.DataFrame) -> str:
    is_match = "match_wins" in pairings
    headers = ["player", "opponent"]
    headers += ["match wins (95% CI)", "matches"] if is_match else []
    headers += ["points/game (95% CI)", "games", "wins", "gammons won", "gammons lost",
                "backgammons", "drops won", "drops lost", "mean cube", "doubles/game",
                "variance ÷ (duplicate)"]
    rows = []
    for row in pairings.itertuples(index=False):
        cells = [row.player, row.opponent]
        if is_match:
            cells += [_fmt_ci(row.match_wins, row.match_wins_ci, pct=True), str(row.matches)]
        cells += [_fmt_ci(row.ppg, row.ppg_ci), str(row.games), _fmt_pct(row.wins),
                  _fmt_pct(row.gammons_won), _fmt_pct(row.gammons_lost), _fmt_pct(row.backgammons),
                  _fmt_pct(row.drops_won), _fmt_pct(row.drops_lost), f"{row.mean_cube:.2f}",
                  f"{row.doubles_per_game:.3f}", _fmt_ratio(row.variance_ratio)]
        rows.append(cells)
    return markdown_table(headers, rows, "ll" + "r" * (len(headers) - 2))


def matrix_table(matrix: pd.DataFrame, labels: dict[str, str] | None = None, pct: bool = False) -> str:
    labels = labels or {}
    names = [labels.get(name, name) for name in matrix.columns]
    headers = ["row vs column"] + names
    rows = []
    for player, values in matrix.iterrows():
        cells = [labels.get(player, player)]
        for value in values:
            cells.append("—" if math.isnan(value) else (f"{100 * value:.1f}%" if pct else f"{value + 0.0:+.3f}"))
        rows.append(cells)
    return markdown_table(headers, rows)


def conditions_table(conditions: pd.DataFrame) -> str:
    headers = ["condition", "games", "points changing hands/game (95% CI)", "plies/game (95% CI)", "gammons",
               "gammons scored",
               "backgammons", "drops", "mean cube", "doubles/game", "beavers/game", "automatic doubles/game"]
    rows = [[row.condition, str(row.games), _fmt_ci(row.points_per_game, row.points_per_game_ci, signed=False),
             _fmt_ci(row.plies_per_game, row.plies_per_game_ci, signed=False, digits=1),
             _fmt_pct(row.gammons), _fmt_pct(row.gammons_scored), _fmt_pct(row.backgammons),
             _fmt_pct(row.drops), f"{row.mean_cube:.2f}",
             f"{row.doubles_per_game:.3f}", f"{row.beavers_per_game:.3f}",
             f"{row.automatic_doubles_per_game:.3f}"] for row in conditions.itertuples(index=False)]
    return markdown_table(headers, rows)
