"""The summary of a cube audit that GNU Backgammon judges (``bgsim cube-audit --judge gnubg``).

The decision rows of :mod:`experiments.studies.cube_audit`, split four ways, each under each
condition (no Jacoby rule, the Jacoby rule) and for each kind of position (contact, race, all):

* ``all``: every decision of the rule;
* ``question``: the first double, the redouble, the take;
* ``category``: GNU Backgammon's category of the position's cube (no double, double/take,
  double/pass, too good/take, too good/pass; the owned cube's for a redouble);
* ``judged_by``: who decided the truth (bgsim's exact tables, gnubg).

Every figure is a share or a mean per decision with a 95% interval that takes the sampling game
as the unit (:func:`experiments.studies.cube_charge.clustered`), formed as the race audit's so
that it stays non-negative (error rates: Wilson's; equity lost: on the log scale;
``experiments/stats.py``); rule against rule is paired on the same decisions
(:func:`experiments.studies.cube_charge.paired`), a signed difference with a symmetric interval.

The **threshold sweep** (:func:`sweep`) charges the pip rule at a grid of thresholds on the same
judged positions (``truths.parquet``), without asking gnubg again: a first double at D% of the
doubler's count, a redouble at D+1%, a take up to T%.  A position's three questions are each
answered by one threshold, so each question's best threshold is read from its own rows; the grid
points are compared with the 8-9-12 rule by paired differences, Holm's correction over the grid
saying which stay apart.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd

from experiments.analysis.gnubg_program import CATEGORIES
from experiments.analysis.summary import milli, played_with
from experiments.running.files import write_atomic
from experiments.stats import nonnegative_interval, proportion_interval

from . import cube_charge
from .cube_charge import (ALL, CONTACT, ERRORS, JACOBY, NO_JACOBY, RACE, SHARE_COLUMNS, Z95, clustered_codes,
                          units)

KINDS = (ALL, CONTACT, RACE)
SPLITS = ("all", "question", "category", "judged_by")
# the doubling window of these summaries: the side on roll's cubeless chance (the judge's) from
# 50% to 95%, where a double is a live question (the race audit's window, 5% to 95%, is Keith's)
LIVE = (0.50, 0.95)
SAMPLES = ("all", "window")
DEFAULT_RULE = "pipdiff"
# up to thresholds that all but never double (a lead of the doubler's whole count) and all but
# always take: in contact the pip count says so little that the best may lie out there
SWEEP_DOUBLES = (4, 6, 8, 10, 12, 15, 20, 25, 30, 40, 60, 100)
SWEEP_TAKES = (8, 10, 12, 15, 20, 25, 30, 40, 60, 100, 200)


def plain_words(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with its text columns as plain Python strings: read back from parquet they are
    arrow strings, each comparison of which costs far more than the summaries' hundreds of small
    groups can afford."""
    return frame.astype({column: object for column in frame.columns if isinstance(frame[column].dtype, pd.StringDtype)})


def figures(part: pd.DataFrame, unit: pd.Series | None = None) -> dict:
    """The figures of a set of decision rows: their count, units, who judged them, the error
    shares, the error rate and equity lost per decision with 95% intervals.  ``unit``: the rows'
    :func:`~experiments.studies.cube_charge.units` where the caller has them already."""
    n = len(part)
    unit = units(part) if unit is None else unit
    codes = pd.factorize(np.asarray(unit))[0]
    error = part["error"].to_numpy(dtype=object)
    rate, rate_half = clustered_codes((error != "").astype(float), codes)
    mean, half = clustered_codes(part["equity_lost"].to_numpy(dtype=float), codes)
    judged = part["judged_by"].to_numpy(dtype=object)
    row = {"decisions": n, "units": int(codes.max()) + 1 if n else 0,
           "gnubg_share": float(np.mean([str(name).startswith("gnubg") for name in judged])) if n else math.nan}
    for name, column in zip(ERRORS, SHARE_COLUMNS):
        row[column] = float((error == name).mean()) if n else math.nan
    # both are non-negative: intervals that stay so, as the race audit's (experiments/stats.py)
    rate_low, rate_high = proportion_interval(rate, rate_half, row["units"])
    lost_low, lost_high = nonnegative_interval(mean, half)
    row.update(error_rate=rate, error_rate_low=rate_low, error_rate_high=rate_high,
               equity_lost=mean, equity_lost_low=lost_low, equity_lost_high=lost_high)
    return row


def _groups(frame: pd.DataFrame, split: str):
    if split == "all":
        yield ALL, frame
        return
    order = {"question": list(cube_charge.QUESTIONS), "category": list(CATEGORIES)}.get(split)
    found = dict(tuple(frame.groupby(split, sort=False)))
    for value in sorted(found, key=lambda v: (order.index(v) if order and v in order else 99, str(v))):
        yield value, found[value]


def judged_summary(frame: pd.DataFrame, rules: list[str]) -> pd.DataFrame:
    """summary.csv: one row per sample (``all`` positions, or the doubling ``window``: the side on
    roll's cubeless chance within :data:`LIVE`), condition, kind of position, split, group and rule
    (see the module), in that order."""
    rows = []
    # a decision's unit once, not again in each of the hundreds of groups below
    frame = plain_words(frame).assign(unit_of_rows=units(frame).to_numpy())
    for sample in SAMPLES:
        chosen = frame if sample == "all" else frame[frame["win"].between(*LIVE)]
        for condition in (NO_JACOBY, JACOBY):
            here = chosen[chosen["condition"] == condition]
            # a rule asked in one kind of position only (the race rules) has no row of its own for all
            partial = {rule for rule, kinds in here.groupby("rule")["kind"].nunique().items()
                       if kinds < here["kind"].nunique()}
            for kind in KINDS:
                mine = here if kind == ALL else here[here["kind"] == kind]
                if mine.empty:
                    continue
                for split in SPLITS:
                    for group, part in _groups(mine, split):
                        by_rule = dict(tuple(part.groupby("rule", sort=False)))
                        for rule in rules:
                            answered = by_rule.get(rule)
                            if answered is None or (kind == ALL and rule in partial):
                                continue
                            rows.append({"sample": sample, "condition": condition, "kind": kind, "split": split,
                                         "group": group, "rule": rule,
                                         **figures(answered, answered["unit_of_rows"])})
    return pd.DataFrame(rows)


# --- the threshold sweep ---------------------------------------------------------------------


def sweep_specs(doubles=None, takes=None) -> list[str]:
    """The pip rule at every grid point a player could hold (a take below its own doubles would
    drop them: refused by the rule); the grid of :data:`SWEEP_DOUBLES` and :data:`SWEEP_TAKES`
    unless given."""
    doubles = SWEEP_DOUBLES if doubles is None else doubles
    takes = SWEEP_TAKES if takes is None else takes
    return [f"pipdiff(double={d}%,redouble={d + 1}%,take={t}%)" for d in doubles for t in takes if t >= d + 1]


def _holm(p_values: list[float]) -> list[float]:
    """Holm's step-down adjustment of ``p_values`` (in their order)."""
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    adjusted = [math.nan] * len(p_values)
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (len(p_values) - rank) * p_values[index]))
        adjusted[index] = running
    return adjusted


def _p_value(mean: float, half: float) -> float:
    if not half or half != half:
        return math.nan if mean == 0 or mean != mean else 0.0
    return math.erfc(abs(mean) / (half / Z95) / math.sqrt(2.0))


def sweep(truths: pd.DataFrame, specs: list[str] | None = None, log: Callable[[str], None] = print) -> pd.DataFrame:
    """sweep.csv: every pip-rule grid point charged on the judged positions (``truths``: the
    audit's truths.parquet), per sample, condition, kind and question (``all`` for the three
    together): error rate and equity lost per decision, and the paired difference from the 8-9-12
    rule with its 95% interval and Holm-adjusted p-value over the grid (per sample, condition,
    kind and question); the samples are those of :func:`judged_summary`.  Every rule is asked
    about a position in one pass (:func:`experiments.studies.cube_charge.decisions`), keeping only
    each decision's error and cost."""
    specs = sweep_specs() if specs is None else specs
    rules = cube_charge.make_rules([DEFAULT_RULE, *(spec for spec in specs if spec != DEFAULT_RULE)])
    log(f"charging {len(specs)} pip-rule thresholds on {truths['position_index'].nunique():,} judged positions")
    games = truths.drop_duplicates("position_index").set_index("position_index")["game"]
    keys: list[tuple] = []
    errors: dict[str, list[bool]] = {rule.name: [] for rule in rules}
    lost: dict[str, list[float]] = {rule.name: [] for rule in rules}
    for index, position_id, found in cube_charge.truths_of(truths):
        position = cube_charge.CountedPosition.from_string(position_id)
        kind = cube_charge.kind_of(position)
        for condition, truth, rule, question, _, _, _, error, cost in cube_charge.decisions(position, rules, found):
            if rule.name == DEFAULT_RULE:  # the pip rule speaks everywhere: one key a decision for all
                keys.append((index, games.loc[index], condition, kind, question, truth.equities.probabilities[0],
                             truth.judged_by))
            errors[rule.name].append(error != "")
            lost[rule.name].append(cost)
    frame = pd.DataFrame(keys, columns=["position_index", "game", "condition", "kind", "question", "win", "judged_by"])
    frame["game"] = frame["game"].astype("Int64")
    unit = units(frame).to_numpy()
    gnubg = frame["judged_by"].str.startswith("gnubg").to_numpy()
    # the groups every rule is summed over, and their units as codes: the same for every rule
    groups = []
    for sample in SAMPLES:
        chosen = np.ones(len(frame), bool) if sample == "all" else frame["win"].between(*LIVE).to_numpy()
        for condition in frame["condition"].unique():
            for kind in KINDS:
                part = chosen & (frame["condition"] == condition).to_numpy()
                if kind != ALL:
                    part &= (frame["kind"] == kind).to_numpy()
                for question in (ALL, *cube_charge.QUESTIONS):
                    mask = part if question == ALL else part & (frame["question"] == question).to_numpy()
                    if mask.any():
                        codes = pd.factorize(unit[mask])[0]
                        groups.append(({"sample": sample, "condition": condition, "kind": kind,
                                        "question": question}, mask, codes))
    base = np.asarray(lost[DEFAULT_RULE])
    rows = []
    for rule in rules:
        if rule.name not in specs:
            continue
        bot = rule.bot
        mine = np.asarray(lost[rule.name])
        wrong = np.asarray(errors[rule.name], dtype=float)
        for labels, mask, codes in groups:
            rate, rate_half = cube_charge.clustered_codes(wrong[mask], codes)
            mean, half = cube_charge.clustered_codes(mine[mask], codes)
            difference, difference_half = cube_charge.clustered_codes(mine[mask] - base[mask], codes)
            count = int(codes.max()) + 1
            rate_low, rate_high = proportion_interval(rate, rate_half, count)
            lost_low, lost_high = nonnegative_interval(mean, half)
            rows.append({"rule": rule.name, "double": bot.double.value, "redouble": bot.redouble.value,
                         "take": bot.take.value, **labels, "decisions": int(mask.sum()), "units": count,
                         "gnubg_share": float(gnubg[mask].mean()),
                         "error_rate": rate, "error_rate_low": rate_low, "error_rate_high": rate_high,
                         "equity_lost": mean, "equity_lost_low": lost_low, "equity_lost_high": lost_high,
                         "difference": difference, "difference_low": difference - difference_half,
                         "difference_high": difference + difference_half,
                         "p_value": _p_value(difference, difference_half)})
    table = pd.DataFrame(rows)
    table["p_holm"] = math.nan
    for _, index in table.groupby(["sample", "condition", "kind", "question"]).groups.items():
        table.loc[index, "p_holm"] = _holm(table.loc[index, "p_value"].fillna(1.0).tolist())
    return table


# --- summary.md ------------------------------------------------------------------------------


def _rate(row) -> str:
    return (f"{100 * row.error_rate:.1f}% ({100 * row.error_rate_low:.1f} .. {100 * row.error_rate_high:.1f})"
            if row.decisions else "-")


def _lost(row) -> str:
    return f"{milli(row.equity_lost)} ({milli(row.equity_lost_low)} .. {milli(row.equity_lost_high)})"


def _rule_table(summary: pd.DataFrame, condition: str, split: str, kinds=KINDS, sample: str = "all") -> list[str]:
    """A table of one split: a row per rule and group."""
    part = summary[(summary["sample"] == sample) & (summary["condition"] == condition)
                   & (summary["split"] == split) & summary["kind"].isin(kinds)]
    if part.empty:
        return []
    label = {"all": "positions", "question": "decision", "category": "gnubg's category",
             "judged_by": "judged by"}[split]
    lines = [f"| rule | {'positions' if split == 'all' else 'kind'} | {label if split != 'all' else 'decisions'} | "
             + ("" if split == "all" else "decisions | ")
             + "wrong: missed double / wrong double / wrong take / wrong pass | error rate (95% interval) | "
             "equity lost per decision, 1/1000 point (95% interval) |",
             "|---|---|" + ("---:|" if split == "all" else "---|---:|") + "---|---|---|"]
    for row in part.itertuples(index=False):
        shares = " / ".join(f"{100 * getattr(row, column):.1f}%" for column in SHARE_COLUMNS)
        middle = f"{row.decisions:,}" if split == "all" else f"{row.group} | {row.decisions:,}"
        lines.append(f"| {row.rule} | {row.kind} | {middle} | {shares} | {_rate(row)} | {_lost(row)} |")
    return lines


def _category_shares(frame: pd.DataFrame, condition: str) -> list[str]:
    """The share of positions in each of gnubg's categories (centred cube), by kind."""
    positions = frame[(frame["condition"] == condition) & (frame["question"] == "double")]
    positions = positions.drop_duplicates("position_index")
    lines = ["| positions | " + " | ".join(CATEGORIES) + " | count |", "|---|" + "---:|" * (len(CATEGORIES) + 1)]
    for kind in KINDS:
        mine = positions if kind == ALL else positions[positions["kind"] == kind]
        if mine.empty:
            continue
        shares = " | ".join(f"{100 * (mine['category'] == category).mean():.1f}%" for category in CATEGORIES)
        lines.append(f"| {kind} | {shares} | {len(mine):,} |")
    return lines


def _judges(frame: pd.DataFrame) -> list[str]:
    positions = frame.drop_duplicates(["position_index", "condition"])
    positions = positions[positions["condition"] == positions["condition"].iloc[0]]
    counts = positions.groupby(["kind", "judged_by"]).size()
    return [f"{count:,} {kind} positions by {judge}" for (kind, judge), count in counts.items()]


def _pairs(frame: pd.DataFrame, rules: list[str]) -> list[str]:
    wanted = [("pipdiff", "nn"), ("pipdiff", "always-take"), ("nn", "exact"), ("always-take", "never-take")]
    lines = []
    for condition in (NO_JACOBY, JACOBY):
        for kind in (CONTACT, RACE):
            part = frame[(frame["condition"] == condition) & (frame["kind"] == kind)]
            for first, second in wanted:
                if first in rules and second in rules and not part.empty:
                    found = cube_charge._beats(part, first, second)
                    if found:
                        lines.append(f"- {condition}, {kind}: {found}")
    return lines


def _sweep_lines(swept: pd.DataFrame, condition: str = NO_JACOBY, kind: str = CONTACT,
                 sample: str = "all") -> list[str]:
    part = swept[(swept["sample"] == sample) & (swept["condition"] == condition) & (swept["kind"] == kind)]
    if part.empty:
        return []
    overall = part[part["question"] == ALL].sort_values("equity_lost")
    grid = len(overall)
    where = "all" if sample == "all" else f"in the doubling window ({LIVE[0]:.0%} .. {LIVE[1]:.0%})"
    lines = [f"{grid} grid points (first double D%, redouble D+1%, take T% of the doubler's count; "
             f"D in {', '.join(map(str, SWEEP_DOUBLES))}, T in {', '.join(map(str, SWEEP_TAKES))}, T > D), "
             f"{condition}, {kind} positions, {where}.  The five that lose least, with the paired difference "
             "from 8-9-12 (negative: loses less) and Holm's adjusted p-value over the grid:",
             "",
             "| rule | error rate | equity lost per decision (1/1000) | difference from 8-9-12 (95% interval) | Holm p |",
             "|---|---|---|---|---:|"]
    for row in overall.head(5).itertuples(index=False):
        lines.append(f"| {row.rule} | {_rate(row)} | {_lost(row)} | {milli(row.difference, signed=True)} "
                     f"({milli(row.difference_low, signed=True)} .. {milli(row.difference_high, signed=True)}) | "
                     f"{row.p_holm:.3g} |")
    lines += ["", "Each question alone (its rows depend on one threshold): the best threshold and the "
              "equity lost per decision of that question at it and at 8-9-12:", ""]
    for question, threshold in (("double", "double"), ("redouble", "redouble"), ("take", "take")):
        asked = part[part["question"] == question]
        if asked.empty:
            continue
        by = asked.groupby(threshold)[["equity_lost", "equity_lost_low", "equity_lost_high", "error_rate"]].first()
        best = by["equity_lost"].idxmin()
        default = {"double": 8.0, "redouble": 9.0, "take": 12.0}[question]
        at_default = by.loc[default] if default in by.index else None
        lines.append(f"- {question}: best at {best:g}% ({milli(by.loc[best, 'equity_lost'])}, "
                     f"{milli(by.loc[best, 'equity_lost_low'])} .. {milli(by.loc[best, 'equity_lost_high'])}; "
                     f"error rate {100 * by.loc[best, 'error_rate']:.1f}%)"
                     + (f"; at {default:g}%: {milli(at_default['equity_lost'])} "
                        f"(error rate {100 * at_default['error_rate']:.1f}%)" if at_default is not None else "")
                     + "; by threshold: " + ", ".join(f"{value:g}%: {milli(lost)}" for value, lost in
                                                       by["equity_lost"].items()))
    return lines


def markdown(frame: pd.DataFrame, summary: pd.DataFrame, rules: list[str], info: dict, judging,
             swept: pd.DataFrame | None = None) -> str:
    """summary.md of an audit that gnubg judges (see the module)."""
    frame = plain_words(frame)
    conditions = [condition for condition in (NO_JACOBY, JACOBY) if condition in set(frame["condition"])]
    race_rules = [rule for rule in rules if rule in set(frame["rule"]) and
                  not (frame[frame["rule"] == rule]["kind"] == CONTACT).any()]
    lines = [
        "# Cube-decision audit, judged by GNU Backgammon" if judging.judge == "gnubg"
        else f"# Cube-decision audit of {judging.variant}, judged by its exact solution" if judging.judge == "exact"
        else "# Cube-decision audit",
        "",
        f"{info['positions']:,} positions ({info['source']}; scope: {judging.scope}), three money decisions each "
        "(first double from the centred cube, redouble of an owned cube, the opponent's take), under "
        + " and ".join(f"*{condition}*" for condition in conditions)
        + f": {len(frame):,} decisions over {len(rules)} rules.  Judge: {judging.describe()}.  "
        "Charge (per unit of the cube, as `bgsim cube-audit` charges races): missed double `min(DT,1) - ND`, "
        "wrong double `ND - min(DT,1)`, wrong take `DT - 1`, wrong pass `1 - DT`.  95% intervals take "
        "the sampling game as the unit (error rates: Wilson's; equity lost: on the log scale, so neither "
        "goes below zero); rule against rule is paired on the same decisions.  Beavers off "
        "(a beaver is a take).",
        "",
        "Which judge decided the rows: " + "; ".join(_judges(frame)) + ".",
        "",
    ]
    if race_rules:
        lines += [f"Rules of races only, judged only in races: {', '.join(race_rules)}.", ""]
    for condition in conditions:
        window = (f"in the doubling window (the side on roll's cubeless chance {LIVE[0]:.0%} .. {LIVE[1]:.0%}, "
                  "the judge's)")
        lines += [f"## {condition.capitalize()}", "", "GNU Backgammon's category of the positions (centred cube):", "",
                  *_category_shares(frame, condition), "", "### Every decision", "",
                  *_rule_table(summary, condition, "all"), "",
                  f"### Every decision {window}", "", *_rule_table(summary, condition, "all", sample="window"), "",
                  "### By decision, in contact", "", *_rule_table(summary, condition, "question", (CONTACT,)), "",
                  f"### By decision, in contact, {window}", "",
                  *_rule_table(summary, condition, "question", (CONTACT,), sample="window"), "",
                  "### By gnubg's category, in contact (a redouble by the owned cube's category)", "",
                  *_rule_table(summary, condition, "category", (CONTACT,)), ""]
        races = _rule_table(summary, condition, "category", (RACE,))
        if races:
            lines += ["### By gnubg's category, in races", "", *races, ""]
        judged = summary[(summary["sample"] == "all") & (summary["condition"] == condition)
                         & (summary["split"] == "judged_by")]
        if judged["group"].nunique() > 1:
            lines += ["### By judge", "", *_rule_table(summary, condition, "judged_by", (ALL,)), ""]
    pairs = _pairs(frame, rules)
    if pairs:
        lines += ["## Rule against rule (paired on the same decisions)", "", *pairs, ""]
    if swept is not None:
        lines += ["## The pip rule's thresholds under the same judge", ""]
        for condition in conditions:
            for kind in (CONTACT, RACE):
                found = _sweep_lines(swept, condition, kind)
                if found:
                    lines += [f"### {condition.capitalize()}, {kind}", "", *found, ""]
                if condition == conditions[0] and kind == CONTACT:
                    found = _sweep_lines(swept, condition, kind, "window")
                    if found:
                        lines += [f"### {condition.capitalize()}, {kind}, in the doubling window", "", *found, ""]
        lines += ["The best grid point of a sweep is the best of many tries: its own loss is biased low "
                  "(the paired difference and Holm's correction say whether it is really apart from 8-9-12).", ""]
    lines += [played_with(info), ""]
    return "\n".join(lines)


def plot(summary: pd.DataFrame, path: Path) -> None:
    """Equity lost per decision of each rule in contact (else races) by gnubg's category, 95%
    intervals, one panel a condition."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    conditions = [condition for condition in (NO_JACOBY, JACOBY) if condition in set(summary["condition"])]
    kind = CONTACT if (summary["kind"] == CONTACT).any() else RACE
    figure, axes = plt.subplots(1, len(conditions), figsize=(7 * len(conditions), 5), squeeze=False)
    for axis, condition in zip(axes[0], conditions):
        part = summary[(summary["sample"] == "all") & (summary["condition"] == condition) & (summary["kind"] == kind)
                       & summary["split"].isin(["all", "category"])]
        groups = [ALL] + [category for category in CATEGORIES if category in set(part["group"])]
        rules = list(dict.fromkeys(part["rule"]))
        width = 0.8 / max(len(rules), 1)
        for index, rule in enumerate(rules):
            mine = part[part["rule"] == rule].set_index("group").reindex(groups)
            y = 1000 * mine["equity_lost"].to_numpy(dtype=float)
            low = y - 1000 * mine["equity_lost_low"].to_numpy(dtype=float)
            high = 1000 * mine["equity_lost_high"].to_numpy(dtype=float) - y
            axis.bar(np.arange(len(groups)) + (index - (len(rules) - 1) / 2) * width, y, width,
                     yerr=[np.nan_to_num(low), np.nan_to_num(high)], capsize=2, label=rule)
        axis.set_xticks(range(len(groups)), groups, fontsize="small")
        axis.set_ylabel("equity lost per decision (1/1000 point)")
        axis.set_title(f"{kind}, {condition} (95% intervals)")
        axis.legend(fontsize="small")
    figure.suptitle("Cube rules against GNU Backgammon, by its category of the position")
    figure.tight_layout()
    write_atomic(path, lambda temporary: figure.savefig(temporary, format="png", dpi=110), sync=False)
    plt.close(figure)
