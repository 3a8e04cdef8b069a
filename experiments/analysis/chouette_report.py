"""A chouette experiment's summaries, from its rows (``games.parquet``) and, when the run judged
them, its takes and drops (``chouette_judge.csv``): ``summary.md`` and ``summary.csv``.

Every table (one session per condition) gets its players and its seats with 95% intervals by
batch means (:mod:`experiments.analysis.chouette`), and then:

* **which players it separates**: for every pair, the per-game difference of their points (one
  game one value, so what the game's rows share cancels) with its batch-means interval, Student's
  t over the batch means for a p-value, and Holm's correction over the table's pairs;
* **team against individual cubes**: two tables that seat the same players under the same rules
  and differ only in the cube regime play the same dice at every game number (one session seed),
  so each player's per-game difference between them is taken game by game, batch means again;
* **takes and drops against the truth** (``judge_cube``): every take, drop or beaver that the
  two-sided bear-off database can judge (``experiments/studies/chouette_judge.py``), the points
  each player's answers gave up, per game judged, batch means over the judged games.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from experiments.running.files import explain, write_text
from experiments.running.folder import CHOUETTE_JUDGE_FILE, read_run

from .chouette import T975, BatchMeans, format_chouette_summary, summarize_chouette
from .summary import _fmt_ci, holm, markdown_table, played_with

LEVEL = 0.05


def t_two_sided_p(t: float, df: int) -> float:
    """P(|T| >= |t|) for Student's t with ``df`` (whole) degrees of freedom: one minus
    Abramowitz and Stegun's A(t|df) (26.7.3 for odd df, 26.7.4 for even), finite series in
    cos(theta), theta = atan(|t| / sqrt(df))."""
    if t != t:
        return math.nan
    theta = math.atan(abs(t) / math.sqrt(df))
    cosine, sine = math.cos(theta), math.sin(theta)
    # odd: cos + 2/3 cos^3 + (2*4)/(3*5) cos^5 + ... + cos^(df-2) term; even: 1 + 1/2 cos^2 + ...
    total, term = 0.0, (cosine if df % 2 else 1.0)
    for k in range(3 if df % 2 else 2, df + 1, 2):
        total += term
        term *= cosine * cosine * (k - 1) / k
    inside = 2.0 / math.pi * (theta + sine * total) if df % 2 else sine * total
    return max(0.0, min(1.0, 1.0 - inside))


def batch_stats(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, int, np.ndarray]:
    """Per column of ``values`` (one row per game, in game order): the mean, the half-width of
    its 95% interval by batch means, the number of batches and the two-sided p-value of a zero
    mean (Student's t with batches - 1 degrees of freedom)."""
    means = BatchMeans(values.shape[1])
    means.add(values)
    mean, half, batches = means.intervals()
    p = np.full(len(mean), math.nan)
    if batches >= 2:
        quantile = T975[batches - 2]
        for index in range(len(mean)):
            if half[index] == 0:
                p[index] = 1.0 if mean[index] == 0 else 0.0
            else:
                p[index] = t_two_sided_p(mean[index] / (half[index] / quantile), batches - 1)
    return mean, half, batches, p


def points_by_player(rows: pd.DataFrame) -> np.ndarray:
    """One table's points as a matrix: a row per game (in game order), a column per player number."""
    count = int(rows["players"].iloc[0])
    games = rows["game"].to_numpy()
    numbers, index = np.unique(games, return_inverse=True)
    out = np.zeros((len(numbers), count))
    out[index, rows["player"].to_numpy(dtype=np.int64)] = rows["points"].to_numpy(dtype=np.float64)
    return out


def specs_of(rows: pd.DataFrame) -> list[str]:
    first = rows[rows["game"] == rows["game"].iloc[0]].sort_values("player")
    return [str(spec) for spec in first["spec"]]


def pair_comparisons(points: np.ndarray, specs: list[str]) -> pd.DataFrame:
    """Every pair of a table's players: the first's lead over the second in points per game,
    its 95% interval, and whether it is separated after Holm's correction over the pairs."""
    pairs = [(a, b) for a in range(len(specs)) for b in range(a + 1, len(specs))]
    differences = np.column_stack([points[:, a] - points[:, b] for a, b in pairs])
    mean, half, batches, p = batch_stats(differences)
    table = pd.DataFrame({"player": [specs[a] for a, _ in pairs], "opponent": [specs[b] for _, b in pairs],
                          "difference": mean + 0.0, "difference_ci": half, "batches": batches, "p": p})
    table["p_holm"] = holm(table["p"].fillna(1.0).to_numpy())
    table["separated"] = table["p_holm"] < LEVEL
    return table


def _rules_key(rows: pd.DataFrame) -> tuple:
    options = [name for name in rows.columns if name.startswith("rule_") and name != "rule_chouette_cubes"]
    return tuple(str(rows[name].iloc[0]) for name in options)


def regime_comparisons(tables: dict[int, pd.DataFrame]) -> pd.DataFrame:
    """For every two tables that seat the same players under the same rules, one with the team's
    cube and one with individual cubes: each player's points per game under each and the
    difference (team - individual) game by game, with its interval; Holm over each comparison's
    players."""
    parts = []
    keyed = {}
    for index, rows in tables.items():
        key = (tuple(specs_of(rows)), _rules_key(rows))
        keyed.setdefault(key, {})[str(rows["rule_chouette_cubes"].iloc[0])] = index
    for (specs, _), found in keyed.items():
        if "team" not in found or "individual" not in found:
            continue
        team, individual = tables[found["team"]], tables[found["individual"]]
        a, b = points_by_player(team), points_by_player(individual)
        games = min(len(a), len(b))  # the same game numbers 0..N-1 in both
        mean, half, batches, p = batch_stats(a[:games] - b[:games])
        part = pd.DataFrame({
            "team_table": found["team"], "individual_table": found["individual"],
            "team_condition": str(team["condition"].iloc[0]), "individual_condition": str(individual["condition"].iloc[0]),
            "players": len(specs), "player": list(specs),
            "ppg_team": a[:games].mean(axis=0), "ppg_individual": b[:games].mean(axis=0),
            "difference": mean + 0.0, "difference_ci": half, "batches": batches, "p": p,
        })
        for name, rows in (("team", team), ("individual", individual)):
            members = rows[rows["seat"] != "box"]
            per_game = members.groupby("player")[["doubles_offered", "dropped"]].sum() / rows["game"].nunique()
            boxed = rows[rows["seat"] == "box"].groupby("player")["doubles_offered"].sum() / rows["game"].nunique()
            part[f"member_doubles_per_game_{name}"] = per_game["doubles_offered"].reindex(range(len(specs))).to_numpy()
            part[f"member_drops_per_game_{name}"] = per_game["dropped"].reindex(range(len(specs))).to_numpy()
            part[f"box_doubles_per_game_{name}"] = boxed.reindex(range(len(specs))).fillna(0.0).to_numpy()
        part["blocked_per_game_team"] = (team.groupby("player")["doubles_blocked"].sum() / team["game"].nunique()
                                         ).reindex(range(len(specs))).to_numpy()
        part["p_holm"] = holm(part["p"].fillna(1.0).to_numpy())
        part["separated"] = part["p_holm"] < LEVEL
        parts.append(part)
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


def judge_summary(judged: pd.DataFrame, tables: dict[int, pd.DataFrame], games: dict[int, int]) -> pd.DataFrame:
    """Per table and player: the takes and drops the truth could judge (``games[table]`` games
    judged, the first of the table), the wrong ones, and the points its answers gave up per game
    judged (batch means over those games, a game without a judged answer counting 0)."""
    rows = []
    for index, table_rows in tables.items():
        count = games.get(index, 0)
        if not count:
            continue
        specs = specs_of(table_rows)
        mine = judged[judged["table"] == index]
        lost = np.zeros((count, len(specs)))
        inside = mine[mine["game"] < count]
        np.add.at(lost, (inside["game"].to_numpy(dtype=np.int64), inside["player"].to_numpy(dtype=np.int64)),
                  inside["points_lost"].to_numpy(dtype=np.float64))
        mean, half, batches, _ = batch_stats(lost)
        for player, spec in enumerate(specs):
            answers = inside[inside["player"] == player]
            rows.append({
                "table": index, "condition": str(table_rows["condition"].iloc[0]), "player": spec,
                "games_judged": count, "answers": len(answers),
                "as_box": int((answers["seat"] == "box").sum()),
                "takes": int((answers["answer"] != "drop").sum()), "drops": int((answers["answer"] == "drop").sum()),
                "wrong_takes": int((answers["error"] == "wrong take").sum()),
                "wrong_passes": int((answers["error"] == "wrong pass").sum()),
                "points_lost": float(answers["points_lost"].sum()),
                "points_lost_per_game": mean[player], "points_lost_per_game_ci": half[player],
                "batches": batches,
            })
    return pd.DataFrame(rows)


@dataclass
class ChouetteReport:
    players: pd.DataFrame  # one row per table and player
    seats: pd.DataFrame  # one row per table and seat
    pairs: pd.DataFrame  # one row per table and pair of players
    regimes: pd.DataFrame  # one row per player of every team-against-individual comparison
    judged: pd.DataFrame | None = None
    text: str = ""
    markdown: str = ""
    tables: dict[int, str] = field(default_factory=dict)  # table -> its heading


def _table_title(rows: pd.DataFrame) -> str:
    changed = []
    for name in rows.columns:
        if name.startswith("rule_") and name != "rule_chouette_cubes":
            value = rows[name].iloc[0]
            default = {"rule_cube": True, "rule_max_cube": 64, "rule_automatic_doubles": 0,
                       "rule_variant": "standard"}.get(name, False)
            if value != default:
                changed.append(f"{name[5:]}={value}")
    return (f"`{rows['condition'].iloc[0]}`: {int(rows['players'].iloc[0])} players, "
            f"{rows['rule_chouette_cubes'].iloc[0]} cubes" + (f", {', '.join(changed)}" if changed else ""))


def _separation_lines(pairs: pd.DataFrame, order: list[str]) -> list[str]:
    separated = pairs[pairs["separated"]]
    lines = [f"{len(separated)} of the {len(pairs)} pairs of players are separated (95%, Holm's correction "
             "over the table's pairs; the per-game difference of two players' points, batch means)."]
    lookup = {}
    for row in pairs.itertuples(index=False):
        lookup[(row.player, row.opponent)] = (row, 1.0)
        lookup[(row.opponent, row.player)] = (row, -1.0)
    leader = order[0]
    close = [spec for spec in order[1:] if not lookup[(leader, spec)][0].separated]
    if close:
        lines.append(f"Nothing separates the top `{leader}` from {', '.join(f'`{spec}`' for spec in close)}.")
    else:
        lines.append(f"The top `{leader}` is separated from every other player.")
    for a, b in zip(order, order[1:]):
        row, sign = lookup[(a, b)]
        verdict = (f"ahead (Holm-adjusted p = {row.p_holm:.2g})" if row.separated
                   else "not separated")
        lines.append(f"`{a}` against `{b}`: {sign * row.difference + 0.0:+.3f} ± {row.difference_ci:.3f} "
                     f"points/game, {verdict}.")
    return lines


def build_chouette_report(frame: pd.DataFrame, judged: pd.DataFrame | None = None,
                          judged_games: dict[int, int] | None = None, run: dict | None = None,
                          description: str = "", name: str = "") -> ChouetteReport:
    tables = {int(index): rows.sort_values(["game", "place"], kind="mergesort")
              for index, rows in frame.groupby("table", sort=True)}
    players, seats, pairs = [], [], []
    sections, brief = [], []
    report = ChouetteReport(pd.DataFrame(), pd.DataFrame(), pd.DataFrame(), pd.DataFrame())
    for index, rows in tables.items():
        title = _table_title(rows)
        report.tables[index] = title
        summary = summarize_chouette(rows)
        regime = str(rows["rule_chouette_cubes"].iloc[0])
        condition = str(rows["condition"].iloc[0])
        mine = summary["players"].assign(table=index, condition=condition)
        players.append(mine)
        seats.append(summary["seats"].assign(table=index, condition=condition))
        compared = pair_comparisons(points_by_player(rows), specs_of(rows)).assign(table=index, condition=condition)
        pairs.append(compared)
        order = list(mine.sort_values("ppg", ascending=False)["spec"])
        text = format_chouette_summary(summary, regime)
        lines = _separation_lines(compared, order)
        sections += [f"## Table {title}", "", format_chouette_summary(summary, regime, gap="\n\n"), "",
                     *[f"- {line}" for line in lines], ""]
        brief += [f"Table {title}", text, *lines, ""]
    report.players = pd.concat(players, ignore_index=True)
    report.seats = pd.concat(seats, ignore_index=True)
    report.pairs = pd.concat(pairs, ignore_index=True)
    report.regimes = regime_comparisons(tables)
    if not report.regimes.empty:
        sections += ["## The team's cube against individual cubes", "",
                     "The same players and rules under both regimes, on the same dice at every game number; "
                     "the difference is team minus individual, taken game by game (batch means), Holm's "
                     "correction over each comparison's players.  Doubles and drops per game are the "
                     "member's, as a member; blocked: its doubles the team's unanimity stopped.", ""]
        for (team, individual), part in report.regimes.groupby(["team_table", "individual_table"], sort=True):
            headers = ["player", "team ppg", "individual ppg", "team - individual (95% CI)", "separated",
                       "doubles/game team", "doubles/game ind.", "blocked/game team", "drops/game team",
                       "drops/game ind."]
            rows = [[row.player, f"{row.ppg_team:+.3f}", f"{row.ppg_individual:+.3f}",
                     _fmt_ci(row.difference, row.difference_ci), "yes" if row.separated else "no",
                     f"{row.member_doubles_per_game_team:.3f}", f"{row.member_doubles_per_game_individual:.3f}",
                     f"{row.blocked_per_game_team:.3f}", f"{row.member_drops_per_game_team:.3f}",
                     f"{row.member_drops_per_game_individual:.3f}"] for row in part.itertuples(index=False)]
            heading = (f"`{part['team_condition'].iloc[0]}` against `{part['individual_condition'].iloc[0]}` "
                       f"({int(part['players'].iloc[0])} players):")
            table = markdown_table(headers, rows, "l" + "r" * (len(headers) - 1))
            sections += [heading, "", table, ""]
            brief += [f"Team against individual cubes, {heading}", table, ""]
    if judged is not None:
        report.judged = judge_summary(judged, tables, judged_games or {})
        if not report.judged.empty:
            sections += ["## Takes and drops against the truth", "",
                         "Every take, beaver or drop in the first games of each table whose position the "
                         "two-sided bear-off database holds (both sides in a pure bear-off of at most 8 "
                         "checkers), judged as `bgsim cube-audit` judges a take: the exact cubeful money "
                         "equity, with the taker owning the doubled cube alone (exact for individual cubes; "
                         "the team's cube is shared, and a shared cube is worth a little less to its owners, "
                         "so the team regime's wrong takes are counted slightly short).  Points lost: the "
                         "equity given up times the stake (the box answering the team's double answers for "
                         "every member's cube), per game judged, batch means over those games.", ""]
            headers = ["table", "player", "games judged", "answers", "of them as box", "drops", "wrong takes",
                       "wrong passes", "points lost / 1000 games (95% CI)"]
            rows = []
            for row in report.judged.itertuples(index=False):
                rows.append([f"`{row.condition}`", row.player, f"{row.games_judged:,}", f"{row.answers:,}",
                             f"{row.as_box:,}", f"{row.drops:,}", f"{row.wrong_takes:,}", f"{row.wrong_passes:,}",
                             _fmt_ci(1000 * row.points_lost_per_game, 1000 * row.points_lost_per_game_ci, signed=False)])
            table = markdown_table(headers, rows, "ll" + "r" * (len(headers) - 2))
            sections += [table, ""]
            brief += ["Takes and drops against the truth", table, ""]
    games = sorted({int(rows["game"].nunique()) for rows in tables.values()})
    head = [f"# Chouette experiment {name}".rstrip(), ""]
    if description:
        head += [description, ""]
    head += [f"{len(tables)} tables, {' / '.join(f'{count:,}' for count in games)} games each (one session per "
             "table, the seats rotating; every table plays the same dice at each game number).  Points per "
             "game with 95% intervals by batch means over consecutive games (see "
             "`experiments/analysis/chouette.py`): the seats rotate by results, so games are not independent.", ""]
    tail = [played_with(run), ""] if run else []
    report.markdown = "\n".join(head + sections + tail)
    report.text = "\n".join(brief).rstrip()
    return report


def summary_table(report: ChouetteReport) -> pd.DataFrame:
    """summary.csv: every table of the report, told apart by ``section``."""
    parts = [report.players.assign(section="player"), report.seats.assign(section="seat"),
             report.pairs.assign(section="pair")]
    if not report.regimes.empty:
        parts.append(report.regimes.assign(section="regime"))
    if report.judged is not None and not report.judged.empty:
        parts.append(report.judged.assign(section="judge"))
    table = pd.concat(parts, ignore_index=True)
    first = ["section", "table", "condition", "player", "spec", "opponent", "seat"]
    return table[[c for c in first if c in table] + [c for c in table.columns if c not in first]]


def write_chouette_report(folder: Path, frame: pd.DataFrame, experiment=None, run: dict | None = None) -> ChouetteReport:
    """``summary.md`` and ``summary.csv`` of a chouette run's rows (and of its judged takes and
    drops, when ``chouette_judge.csv`` is there)."""
    folder = Path(folder)
    if run is None:
        run = read_run(folder)
    judged, games = None, {}
    path = folder / CHOUETTE_JUDGE_FILE
    if path.exists():
        judged = pd.read_csv(path)
        count = experiment.judge_cube if experiment is not None else int(judged["games_judged"].max())
        for index, rows in frame.groupby("table"):
            games[int(index)] = min(count, int(rows["game"].nunique()))
    report = build_chouette_report(frame, judged, games, run,
                                   experiment.description if experiment is not None else "",
                                   experiment.name if experiment is not None else "")
    for name, text in (("summary.md", report.markdown),
                       ("summary.csv", summary_table(report).to_csv(index=False, float_format="%.6g"))):
        try:
            write_text(text, folder / name)
        except OSError as error:
            raise explain(error, folder / name, "and rebuild the summaries with `bgsim report`") from None
    return report
