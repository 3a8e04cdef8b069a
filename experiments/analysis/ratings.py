"""One rating list from any set of runs (``bgsim ratings RUN...``): round robins, gauntlets,
sequential tests, external engines, as long as they were played under the same rules.

* **Points per game**: every pairing's mean (the first player's points per game, the deal as
  the unit: both seatings of a deal are one value, so its standard error is the paired one the
  run's summary gives) is modelled as the difference of two ratings plus what is peculiar to
  that pairing, ``ppg(a, b) = r_a - r_b + u_ab``, and the ratings are the weighted
  least-squares fit with the ``anchor`` at 0 (without one, the ratings average 0).  Where the
  pairings agree with one set of ratings within their errors, ``u`` is 0 and the weights are
  ``1 / se**2``; where they do not (a style one opponent exploits, gains against a hopeless
  player that saturate), ``u_ab`` spreads with a variance ``tau**2`` estimated from the fit's
  chi-squared (DerSimonian and Laird's moment estimator, as a network meta-analysis does), the
  weights become ``1 / (se**2 + tau**2)`` and the 95% intervals include that spread: a pairing
  played a million times no longer outweighs the others, since its result says more about
  that pairing than about the two players' strength.
* **Match play**: beside it an Elo scale from the matches won (Bradley-Terry, maximum
  likelihood, 400 points = odds of 10 to 1), each pairing counting the matches its paired
  interval is worth (``n = p (1 - p) / se**2``: duplicate dice make a deal's two matches worth
  more than two independent ones), and the FIBS formula's reading of the same odds at the
  match length N: ``P(win) = 1 / (1 + 10 ** (-D sqrt(N) / 2000))``, so ``D = 5 Elo / sqrt(N)``.
* **Likelihood of superiority**: for each two players the chance that the first is the better
  on the points scale, ``Phi((r_a - r_b) / se(r_a - r_b))``, from the fit's covariance.
* **Not transitive**: a pairing whose mean is further from its fitted difference than its
  standard error allows (Holm's correction over the pairings, 5%) is flagged: those players'
  results do not line up on one scale (A beats B beats C beats A, or a style that one opponent
  exploits), and a single rating hides it.

From Python: ``rate_runs(["results/default_tournament", ...], anchor="pubeval")`` returns a
:class:`Ratings` (``.table``, ``.superiority``, ``.pairings``, ``.markdown``, ``.write(folder)``).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from pathlib import Path
from statistics import NormalDist

import numpy as np
import pandas as pd

from bgsim.cube import Rules
from experiments.errors import RunError
from experiments.running.config import Experiment
from experiments.running.files import write_atomic, write_json, write_text
from experiments.running.folder import GAMES_FILE, read_run
from experiments.stats import Z95

from .summary import holm, markdown_table, summarize_pairings

SUMMARY_FILE = "summary.csv"
# summary.md as every results folder calls its page (tests/test_committed_results.py reads it)
OUTPUTS = ("summary.md", "ratings.csv", "superiority.csv", "ratings.png", "run.json")
LEVEL = 0.05  # the flags' and the fit test's level
SHOWN = 15  # flagged pairings listed on the page (--json lists them all)


class RatingsError(ValueError):
    """Runs that make no rating list (one line)."""


@dataclass
class Ratings:
    table: pd.DataFrame  # one row per player: rating (points per game) and interval, Elo for matches
    superiority: pd.DataFrame  # P(row better than column) on the points scale
    pairings: pd.DataFrame  # every pairing used, its fitted difference and standardized residual
    anchor: str | None
    match_to: int
    rules: dict
    chi2: float
    df: int
    p_fit: float
    tau: float  # the spread of the pairings beyond their errors, points per game (0: transitive)
    runs: list[dict] = field(default_factory=list)  # each run read: folder, name, commit, games
    markdown: str = ""  # the list, its fit, flags and superiority table (summary.md adds the code that fitted it)

    @property
    def flagged(self) -> pd.DataFrame:
        return self.pairings[self.pairings["not_transitive"]]

    def write(self, folder: str | Path, plot: bool = True, command: str | None = None) -> list[Path]:
        """summary.md (the list), ratings.csv, superiority.csv, (``plot``) ratings.png and run.json
        (which code fitted it, from which runs, by which ``command``) into ``folder``."""
        from experiments.running.folder import git_state, now, version

        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        written = [plot_ratings(folder / "ratings.png", self)] if plot else []  # first: drawing is what can fail
        commit, dirty = git_state()
        fitted = (f"Fitted with bgsim {version()}; commit {(commit or '?')[:12]}{'+dirty' if dirty else ''}."
                  + (f"  Command: `{command}`" if command else ""))
        for name, text in (("summary.md", f"# Rating list\n\n{self.markdown}\n{fitted}\n"),
                           ("ratings.csv", self.table.to_csv(index=False, float_format="%.6g")),
                           ("superiority.csv", self.superiority.to_csv(float_format="%.4f"))):
            write_text(text, folder / name)
            written.append(folder / name)
        write_json({"kind": "ratings", "status": "finished", "bgsim_version": version(), "git_commit": commit,
                    "git_dirty": dirty, "command": command, "anchor": self.anchor, "match_to": self.match_to,
                    "rules": self.rules, "runs": self.runs, "finished": now()}, folder / "run.json")
        written.append(folder / "run.json")
        return written


# --- reading runs -------------------------------------------------------------------------------


def read_pairings(path: str | Path) -> tuple[pd.DataFrame, dict[str, tuple[dict, int]], dict]:
    """A run folder's pairings (the rows of its ``games.parquet`` summarized, else its
    ``summary.csv``), each condition's (rules, match length), and where they came from."""
    folder = Path(path)
    if not folder.is_dir():
        raise RatingsError(f"{folder}: no such run folder")
    run = read_run(folder)
    if not run or "config" not in run:
        raise RatingsError(f"{folder}: not a run folder of bgsim run, tournament or sprt (no run.json with its "
                           "experiment)")
    experiment = Experiment.from_dict(run["config"])
    if experiment.chouette:
        raise RatingsError(f"{folder}: a chouette run has no pairings to rate")
    if run.get("status") != "finished":
        raise RatingsError(f"{folder}: the run has not finished (finish it with --resume)")
    conditions = {name: (asdict(rules), experiment.match_length(name)) for name, rules in experiment.conditions}
    if (folder / GAMES_FILE).exists():
        pairings = summarize_pairings(pd.read_parquet(folder / GAMES_FILE))
    elif (folder / SUMMARY_FILE).exists():
        summary = pd.read_csv(folder / SUMMARY_FILE)
        pairings = summary[summary["section"] == "pairing"].reset_index(drop=True)
    else:
        raise RatingsError(f"{folder}: neither {GAMES_FILE} nor {SUMMARY_FILE}: nothing to rate")
    keep = ["condition", "player", "opponent", "games", "ppg", "ppg_ci"]
    keep += [c for c in ("matches", "match_wins", "match_wins_ci") if c in pairings]
    pairings = pairings[keep].copy()
    pairings["run"] = str(folder)
    source = {"folder": str(folder), "name": experiment.name, "git_commit": run.get("git_commit"),
              "git_dirty": run.get("git_dirty"), "games": run.get("games"),
              "from": GAMES_FILE if (folder / GAMES_FILE).exists() else SUMMARY_FILE}
    return pairings, conditions, source


def _rules_line(rules: dict, match_to: int) -> str:
    default = asdict(Rules())
    changed = [f"{key}={value}" for key, value in rules.items() if default.get(key) != value]
    kind = f"{match_to}-point matches" if match_to else "money"
    return ", ".join([kind, *changed]) if changed else f"{kind}, default rules"


def gather(paths, condition: str | None = None) -> tuple[pd.DataFrame, dict, int, list[dict]]:
    """Every run's pairings under one set of rules: (pairings, rules, match length, sources);
    runs under different rules, or of several conditions without ``condition``, are refused in
    one line."""
    if not paths:
        raise RatingsError("name at least one run folder")
    frames, seen, sources = [], {}, []
    for path in paths:
        pairings, conditions, source = read_pairings(path)
        sources.append(source)
        if condition is not None:
            if condition not in conditions:
                raise RatingsError(f"{path}: no condition {condition!r} (it has: {', '.join(conditions)})")
            pairings = pairings[pairings["condition"] == condition]
            conditions = {condition: conditions[condition]}
        elif len(conditions) > 1:
            raise RatingsError(f"{path} was played under {len(conditions)} conditions ({', '.join(conditions)}): "
                               "a rating list compares players under one set of rules; choose one with --condition")
        for name, (rules, match_to) in conditions.items():
            seen.setdefault((tuple(sorted(rules.items())), match_to), []).append((str(path), name))
        frames.append(pairings)
    if len(seen) > 1:
        (first, where_a), (second, where_b) = list(seen.items())[:2]
        rules_a, rules_b = dict(first[0]), dict(second[0])
        differ = [key for key in rules_a if rules_a[key] != rules_b.get(key)]
        what = (f"match length {first[1] or 'money'} against {second[1] or 'money'}" if first[1] != second[1]
                else "; ".join(f"{key} {rules_a[key]} against {rules_b[key]}" for key in differ))
        raise RatingsError(f"{where_a[0][0]} and {where_b[0][0]} were played under different rules ({what}): "
                           "a rating list compares players under one set of rules")
    (rules, match_to), = seen.keys()
    frame = pd.concat(frames, ignore_index=True)
    frame = frame[frame["player"] != frame["opponent"]]
    if frame.empty:
        raise RatingsError("the runs hold no pairing of two different players")
    return frame.reset_index(drop=True), dict(rules), match_to, sources


# --- fitting ----------------------------------------------------------------------------------


def players_of(pairings: pd.DataFrame) -> list[str]:
    order = []
    for a, b in zip(pairings["player"], pairings["opponent"]):
        for name in (a, b):
            if name not in order:
                order.append(name)
    return order


def _check_connected(players: list[str], pairings: pd.DataFrame) -> None:
    """Every player linked to every other through pairings; else one line naming the parts."""
    parent = {p: p for p in players}

    def root(p):
        while parent[p] != p:
            parent[p] = parent[parent[p]]
            p = parent[p]
        return p

    for a, b in zip(pairings["player"], pairings["opponent"]):
        parent[root(a)] = root(b)
    parts: dict[str, list[str]] = {}
    for p in players:
        parts.setdefault(root(p), []).append(p)
    if len(parts) > 1:
        groups = sorted(parts.values(), key=len, reverse=True)
        raise RatingsError(f"the pairings fall into {len(groups)} groups that never met: {groups[0][:3]} ... and "
                           f"{groups[1][:3]}; no one scale holds them all (add a run that links them)")


def _solve(design: np.ndarray, values: np.ndarray, weights: np.ndarray, players: list[str],
           anchor: str | None) -> tuple[np.ndarray, np.ndarray]:
    """Weighted least squares of ``values`` on ``design`` (rows +1/-1), anchored or centred:
    (ratings, covariance)."""
    information = design.T @ (design * weights[:, None])
    target = design.T @ (weights * values)
    if anchor is None:  # the minimum-norm solution: ratings that average 0, its covariance the pseudo-inverse
        covariance = np.linalg.pinv(information)
        return covariance @ target, covariance
    index = players.index(anchor)
    keep = [k for k in range(len(players)) if k != index]
    inner = np.linalg.inv(information[np.ix_(keep, keep)])
    ratings, covariance = np.zeros(len(players)), np.zeros((len(players), len(players)))
    ratings[keep] = inner @ target[keep]
    covariance[np.ix_(keep, keep)] = inner
    return ratings, covariance


def chi2_sf(x: float, df: int) -> float:
    """P(chi-squared with ``df`` degrees of freedom >= x): the regularized upper gamma function."""
    if df <= 0 or x != x:
        return math.nan
    a, x = df / 2.0, x / 2.0
    if x <= 0:
        return 1.0
    if x < a + 1:  # the series of the lower function
        term = total = 1.0 / a
        k = a
        for _ in range(10_000):
            k += 1
            term *= x / k
            total += term
            if term < total * 1e-15:
                break
        return max(0.0, 1.0 - total * math.exp(-x + a * math.log(x) - math.lgamma(a)))
    # Lentz's continued fraction of the upper function
    b = x + 1 - a
    c, d = 1e300, 1 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = 1e-300 if abs(d) < 1e-300 else d
        c = b + an / c
        c = 1e-300 if abs(c) < 1e-300 else c
        d = 1 / d
        step = d * c
        h *= step
        if abs(step - 1) < 1e-15:
            break
    return min(1.0, math.exp(-x + a * math.log(x) - math.lgamma(a)) * h)


def fit_points(pairings: pd.DataFrame, anchor: str | None = None) -> dict:
    """The points-per-game ratings: {players, ratings, covariance, fitted, residuals, chi2, df, p, tau}
    (``residuals``: each pairing's distance from the ratings in its own standard errors)."""
    players = players_of(pairings)
    if anchor is not None and anchor not in players:
        raise RatingsError(f"--anchor {anchor!r} is not a player of these runs (they have: "
                           f"{', '.join(players[:8])}{', ...' if len(players) > 8 else ''})")
    usable = pairings[np.isfinite(pairings["ppg_ci"]) & np.isfinite(pairings["ppg"])]
    if len(usable) < len(pairings):
        dropped = pairings[~pairings.index.isin(usable.index)]
        raise RatingsError(f"pairing {dropped['player'].iloc[0]} vs {dropped['opponent'].iloc[0]} "
                           f"({dropped['run'].iloc[0]}) has no interval (fewer than 2 deals): it cannot be weighed")
    _check_connected(players, pairings)
    index = {p: k for k, p in enumerate(players)}
    design = np.zeros((len(pairings), len(players)))
    for row, (a, b) in enumerate(zip(pairings["player"], pairings["opponent"])):
        design[row, index[a]], design[row, index[b]] = 1.0, -1.0
    values = pairings["ppg"].to_numpy(dtype=np.float64)
    se = pairings["ppg_ci"].to_numpy(dtype=np.float64) / Z95
    se = np.maximum(se, 1e-9)  # every deal alike: the difference is known, to rounding
    weights = 1.0 / se ** 2
    ratings, covariance = _solve(design, values, weights, players, anchor)
    chi2 = float((weights * (values - design @ ratings) ** 2).sum())
    df = len(pairings) - (len(players) - 1)
    p = chi2_sf(chi2, df) if df > 0 else math.nan
    tau2 = _between(design, weights, chi2, df)
    if tau2 > 0:
        ratings, covariance = _solve(design, values, 1.0 / (se ** 2 + tau2), players, anchor)
    fitted = design @ ratings
    return {"players": players, "ratings": ratings, "covariance": covariance, "fitted": fitted,
            "residuals": (values - fitted) / se, "chi2": chi2, "df": df, "p": p, "tau": math.sqrt(tau2)}


def _between(design: np.ndarray, weights: np.ndarray, chi2: float, df: int) -> float:
    """DerSimonian and Laird's tau**2 for a linear model: (Q - df) / (tr W - tr(W X (X'WX)^+ X'W)),
    0 where the fixed fit's Q is no more than its degrees of freedom."""
    if df <= 0 or chi2 <= df:
        return 0.0
    information = design.T @ (design * weights[:, None])
    hat = (design * weights[:, None]) @ np.linalg.pinv(information) @ (design * weights[:, None]).T
    return max(0.0, (chi2 - df) / (weights.sum() - np.trace(hat)))


def fit_elo(pairings: pd.DataFrame, players: list[str], anchor: str | None = None) -> dict:
    """Bradley-Terry ratings on the Elo scale from the matches won: {ratings, covariance}."""
    index = {p: k for k, p in enumerate(players)}
    a_index = np.array([index[a] for a in pairings["player"]])
    b_index = np.array([index[b] for b in pairings["opponent"]])
    share = pairings["match_wins"].to_numpy(dtype=np.float64)
    se = pairings["match_wins_ci"].to_numpy(dtype=np.float64) / Z95
    matches = pairings["matches"].to_numpy(dtype=np.float64)
    # the matches a pairing's paired interval is worth; all won or all lost: its matches, and half a
    # match each way so that the likelihood has a maximum
    effective = np.where((share > 0) & (share < 1) & (se > 0), share * (1 - share) / np.maximum(se, 1e-12) ** 2,
                         matches)
    wins = share * effective + np.where((share <= 0) | (share >= 1), 0.5, 0.0)
    counts = effective + np.where((share <= 0) | (share >= 1), 1.0, 0.0)
    scale = math.log(10) / 400  # Elo: 400 points, odds of 10 to 1
    strength = np.zeros(len(players))
    fixed = index[anchor] if anchor is not None else None
    for _ in range(100):
        chance = 1 / (1 + np.exp(-scale * (strength[a_index] - strength[b_index])))
        gradient = np.zeros(len(players))
        np.add.at(gradient, a_index, scale * (wins - counts * chance))
        np.add.at(gradient, b_index, -scale * (wins - counts * chance))
        weight = counts * chance * (1 - chance) * scale ** 2
        information = np.zeros((len(players), len(players)))
        np.add.at(information, (a_index, a_index), weight)
        np.add.at(information, (b_index, b_index), weight)
        np.add.at(information, (a_index, b_index), -weight)
        np.add.at(information, (b_index, a_index), -weight)
        if fixed is None:
            step = np.linalg.pinv(information) @ gradient
        else:
            keep = [k for k in range(len(players)) if k != fixed]
            step = np.zeros(len(players))
            step[keep] = np.linalg.solve(information[np.ix_(keep, keep)], gradient[keep])
        strength += step
        if np.abs(step).max() < 1e-9:
            break
    if fixed is None:
        covariance = np.linalg.pinv(information)
        strength -= strength.mean()
    else:
        keep = [k for k in range(len(players)) if k != fixed]
        covariance = np.zeros((len(players), len(players)))
        covariance[np.ix_(keep, keep)] = np.linalg.inv(information[np.ix_(keep, keep)])
    return {"ratings": strength, "covariance": covariance}


def superiority(players: list[str], ratings: np.ndarray, covariance: np.ndarray) -> pd.DataFrame:
    """P(row is better than column): Phi of the difference over its standard error."""
    normal = NormalDist()
    table = pd.DataFrame(np.nan, index=players, columns=players)
    for i, a in enumerate(players):
        for j, b in enumerate(players):
            if i == j:
                continue
            variance = covariance[i, i] + covariance[j, j] - 2 * covariance[i, j]
            gap = ratings[i] - ratings[j]
            table.loc[a, b] = normal.cdf(gap / math.sqrt(variance)) if variance > 0 else float(gap > 0)
    return table


def rate(pairings: pd.DataFrame, anchor: str | None = None, match_to: int = 0, rules: dict | None = None,
         runs: list[dict] | None = None) -> Ratings:
    """The rating list of ``pairings`` (the columns of ``summary.csv``'s pairing rows)."""
    fit = fit_points(pairings, anchor)
    players, ratings, covariance = fit["players"], fit["ratings"], fit["covariance"]
    half = Z95 * np.sqrt(np.maximum(np.diag(covariance), 0.0))
    deals = {p: 0 for p in players}
    met = {p: set() for p in players}
    for a, b, games in zip(pairings["player"], pairings["opponent"], pairings["games"]):
        deals[a] += int(games) // 2
        deals[b] += int(games) // 2
        met[a].add(b)
        met[b].add(a)
    table = pd.DataFrame({"player": players, "rating": ratings, "low": ratings - half, "high": ratings + half,
                          "half": half, "deals": [deals[p] for p in players],
                          "opponents": [len(met[p]) for p in players]})
    if match_to and "match_wins" in pairings:
        elo = fit_elo(pairings, players, anchor)
        elo_half = Z95 * np.sqrt(np.maximum(np.diag(elo["covariance"]), 0.0))
        table["elo"], table["elo_low"], table["elo_high"] = elo["ratings"], elo["ratings"] - elo_half, \
            elo["ratings"] + elo_half
        table["fibs"] = 5 * elo["ratings"] / math.sqrt(match_to)
        reference = elo["ratings"][players.index(anchor)] if anchor is not None else 0.0
        table["wins_vs_anchor"] = 1 / (1 + 10 ** (-(elo["ratings"] - reference) / 400))
    order = np.argsort(-table["rating"].to_numpy(), kind="mergesort")
    table = table.iloc[order].reset_index(drop=True)
    table.insert(0, "rank", np.arange(1, len(table) + 1))
    used = pairings.copy()
    used["fitted"], used["residual"] = fit["fitted"], fit["residuals"]
    if fit["df"] > 0:
        p_values = [math.erfc(abs(z) / math.sqrt(2)) for z in fit["residuals"]]
        used["p_holm"] = holm(p_values)
        used["not_transitive"] = used["p_holm"] < LEVEL
    else:
        used["p_holm"], used["not_transitive"] = math.nan, False
    ranked = list(table["player"])
    sup = superiority(players, ratings, covariance).loc[ranked, ranked]
    out = Ratings(table, sup, used, anchor, match_to, rules or asdict(Rules()), fit["chi2"], fit["df"], fit["p"],
                  fit["tau"], list(runs or []))
    out.markdown = ratings_markdown(out)
    return out


def rate_runs(paths, anchor: str | None = None, condition: str | None = None) -> Ratings:
    """The rating list of the runs in ``paths`` (run folders), anchored at ``anchor``."""
    pairings, rules, match_to, sources = gather([str(p) for p in paths], condition)
    return rate(pairings, anchor, match_to, rules, sources)


# --- showing --------------------------------------------------------------------------------------


def ratings_markdown(ratings: Ratings, labels: dict[str, str] | None = None) -> str:
    labels = labels or {}
    name = lambda p: labels.get(p, p)  # noqa: E731
    table, match = ratings.table, bool(ratings.match_to) and "elo" in ratings.table
    where = (f"anchored at `{ratings.anchor}` (0)" if ratings.anchor is not None
             else "centred on their mean (no --anchor)")
    out = [f"Ratings from {len(ratings.pairings)} pairings of {len(table)} players "
           f"({_rules_line(ratings.rules, ratings.match_to)}), {where}: points per game against a player "
           "rated 0, the weighted least-squares fit of every pairing's mean (the deal as unit; weights 1 / (se² + "
           "tau²), tau the pairings' spread beyond their errors), 95% intervals.\n"]
    headers = ["#", "player", "points/game (95%)", "deals", "opponents"]
    if match:
        headers += ["Elo (95%)", f"FIBS rating at {ratings.match_to} points", "wins against the anchor"
                    if ratings.anchor else "wins against a 0"]
    rows = []
    for row in table.itertuples(index=False):
        cells = [str(row.rank), name(row.player), f"{row.rating + 0.0:+.3f} ({row.low + 0.0:+.3f} .. "
                 f"{row.high + 0.0:+.3f})", f"{row.deals:,}", str(row.opponents)]
        if match:
            cells += [f"{row.elo + 0.0:+.0f} ({row.elo_low + 0.0:+.0f} .. {row.elo_high + 0.0:+.0f})",
                      f"{row.fibs + 0.0:+.0f}", f"{100 * row.wins_vs_anchor:.1f}%"]
        rows.append(cells)
    out.append(markdown_table(headers, rows, "rl" + "r" * (len(headers) - 2)) + "\n")
    if ratings.df > 0:
        fit = (f"The fit: chi-squared {ratings.chi2:.1f} on {ratings.df} degrees of freedom (p = {ratings.p_fit:.2g})")
        if ratings.p_fit < LEVEL and ratings.tau > 0:
            fit += (f": the pairings disagree with any one set of ratings by more than their errors allow.  Beyond "
                    f"its own error a pairing's result spreads by {ratings.tau:.3f} points a game around what the "
                    "ratings say (tau, DerSimonian-Laird); the ratings weigh every pairing by 1 / (se² + tau²) and "
                    "their intervals include that spread.  The flagged pairings below say where the list misleads.")
        else:
            fit += ": the pairings agree with one set of ratings within their errors."
        out.append(fit + "\n")
    else:
        out.append("Every pairing is needed to place the players (no pairing is repeated through a cycle), so "
                   "nothing can show whether the results are transitive.\n")
    flagged = ratings.flagged
    if len(flagged):
        shown = flagged.reindex(flagged["residual"].abs().sort_values(ascending=False).index).head(SHOWN)
        out.append(f"Not transitive: {len(flagged)} of the {len(ratings.pairings)} pairings played otherwise than the "
                   "difference of their two ratings by more than their own error allows (Holm, 5%)"
                   + (f"; the {SHOWN} furthest" if len(flagged) > SHOWN else "") + ":\n")
        rows = [[name(r.player), name(r.opponent), f"{r.ppg + 0.0:+.3f} ± {r.ppg_ci:.3f}", f"{r.fitted + 0.0:+.3f}",
                 f"{r.residual:+.1f}", f"{r.p_holm:.2g}"] for r in shown.itertuples(index=False)]
        out.append(markdown_table(["player", "opponent", "played (95%)", "ratings say", "residual (se)",
                                   "Holm p"], rows, "llrrrr") + "\n")
    elif ratings.df > 0:
        out.append("No pairing is flagged as not transitive (Holm, 5%).\n")
    if ratings.runs:
        out.append("From the runs (each pairing's mean and interval as its summary gives them):\n")
        for source in ratings.runs:
            commit = (source.get("git_commit") or "?")[:12] + ("+dirty" if source.get("git_dirty") else "")
            out.append(f"* `{source['folder']}` ({source['name']}, commit {commit}, read from {source['from']})")
        out.append("")
    out.append("Likelihood of superiority (row better than column, points scale):\n")
    players = list(ratings.superiority.index)
    rows = []
    for a in players:
        cells = [name(a)]
        for b in players:
            value = ratings.superiority.loc[a, b]
            cells.append("—" if value != value else f"{value:.2f}")
        rows.append(cells)
    out.append(markdown_table(["row vs column"] + [name(b) for b in players], rows) + "\n")
    return "\n".join(out)


def plot_ratings(path: Path, ratings: Ratings) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    table = ratings.table.iloc[::-1]
    flagged = set(ratings.flagged["player"]) | set(ratings.flagged["opponent"])
    fig, axis = plt.subplots(figsize=(7.5, 0.32 * len(table) + 1.4))
    y = np.arange(len(table))
    for row, (player, rating, low, high) in enumerate(zip(table["player"], table["rating"], table["low"],
                                                           table["high"])):
        axis.errorbar([rating], [row], xerr=[[rating - low], [high - rating]], fmt="o", ms=4, capsize=2,
                      color="C3" if player in flagged else "C0")
    axis.axvline(0, color="0.7", lw=0.8)
    axis.set_yticks(y)
    axis.set_yticklabels(table["player"], fontsize=7)
    where = f"against {ratings.anchor}" if ratings.anchor else "against the mean"
    axis.set_xlabel(f"points per game {where} (95% interval)", fontsize=8)
    axis.tick_params(axis="x", labelsize=7)
    if flagged:
        axis.set_title("red: in a pairing the ratings do not explain (not transitive)", fontsize=8)
    fig.tight_layout()
    write_atomic(path, lambda temporary: fig.savefig(temporary, format="png", dpi=110), sync=False)
    plt.close(fig)
    return path
