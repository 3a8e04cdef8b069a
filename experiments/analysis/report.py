"""From a run's rows to its summary: ``games.parquet`` → tables, ``summary.md``/``.csv``, plots.

Nothing here reads anything but the rows (and the experiment, for titles and the order of the
players), so ``bgsim report DIR`` can rebuild every summary of a finished run from its
``games.parquet`` alone -- and, for a match run that judged its cube decisions, its
``cube_judge.csv`` (the replay that makes it is the runner's, ``experiments/analysis/match_judge.py``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from experiments.running.chunks import sequential_tests
from experiments.running.config import Experiment
from experiments.running.files import explain, write_text
from experiments.running.folder import EXPERIMENT_RUN, GAMES_FILE, JUDGE_FILE, RunFolder, load_rows, read_run

from .match_judge import by_pairing, judge_folder
from .summary import (
    GameTally,
    best_responses,
    conditions_table,
    first_players,
    format_match_summary,
    format_summary,
    markdown_table,
    matrix_table,
    pairings_table,
    pairwise_comparisons,
    payoff_matrix,
    played_with,
    player_order,
    separation_sentences,
    standings_table,
    summarize_conditions,
    summarize_pairings,
    summarize_players,
)


@dataclass
class Report:
    pairings: pd.DataFrame
    standings: dict[str, pd.DataFrame]
    matrices: dict[str, pd.DataFrame]
    best: dict[str, pd.DataFrame]
    conditions: pd.DataFrame
    sweep: pd.DataFrame | None
    text: str  # what the terminal shows
    markdown: str
    plots: list[str] = field(default_factory=list)
    labels: dict[str, str] = field(default_factory=dict)  # short names for tables and plots
    comparisons: dict[str, pd.DataFrame] = field(default_factory=dict)  # condition -> pairwise
    judged: pd.DataFrame | None = None  # match runs: cube decisions judged per pairing (match_judge)
    sprt: pd.DataFrame | None = None  # runs with ``sprt``: each pairing's sequential test (sprt_table)


def short_labels(names: list[str]) -> dict[str, str]:
    """Drop a checker bot shared by every player ("heuristic+pipdiff" → "pipdiff")."""
    prefixes = {name.split("+", 1)[0] for name in names}
    if len(prefixes) != 1:
        return {name: name for name in names}
    prefix = prefixes.pop()
    return {name: (name.split("+", 1)[1] if "+" in name else f"{prefix} (no cube)") for name in names}


def build_report(frame: pd.DataFrame, experiment: Experiment | None = None) -> Report:
    pairings = summarize_pairings(frame)
    is_match = "match_wins" in pairings
    value = "match_wins" if is_match else "ppg"
    order = player_order(frame)
    conditions = list(dict.fromkeys(frame["condition"].astype(str)))
    standings, matrices, best = {}, {}, {}
    for condition in conditions:
        standings[condition] = summarize_players(frame, condition)
        mine = pairings[pairings["condition"] == condition]
        matrices[condition] = payoff_matrix(mine, order, value)
        best[condition] = best_responses(matrices[condition])
    condition_table = summarize_conditions(frame)
    sweep = None
    if experiment is not None and experiment.grid:
        sweep = sweep_table(experiment, standings[conditions[0]], pairings, order)
    report = Report(pairings, standings, matrices, best, condition_table, sweep, "", "")
    if experiment is not None and experiment.sprt is not None:
        report.sprt = sprt_table(frame, experiment)
    report.comparisons = {condition: pairwise_comparisons(frame, condition) for condition in conditions}
    report.labels = short_labels(order)
    if experiment is not None:  # a grid player is best named by its grid values
        for spec, params in experiment.grid.items():
            report.labels[spec] = " ".join(f"{key}={value}" for key, value in params.items())
    report.text = _text(report, experiment, frame, brief=True)
    report.markdown = _text(report, experiment, frame, brief=False)
    return report


def sweep_table(experiment: Experiment, standings: pd.DataFrame, pairings: pd.DataFrame,
                order: list[str]) -> pd.DataFrame:
    """One row per grid player: its parameters, its result against the field and against the
    fixed opponent, and its rank."""
    rank = {name: i + 1 for i, name in enumerate(standings["player"])}
    rows = []
    for spec, params in experiment.grid.items():
        row = {**params, "player": spec, "rank": rank.get(spec)}
        mine = standings[standings["player"] == spec]
        row["ppg_field"] = float(mine["ppg"].iloc[0]) if len(mine) else math.nan
        row["ppg_field_ci"] = float(mine["ppg_ci"].iloc[0]) if len(mine) else math.nan
        if experiment.opponent is not None:
            both = pairings[(pairings["player"] == spec) & (pairings["opponent"] == experiment.opponent)]
            row["ppg_opponent"] = float(both["ppg"].iloc[0]) if len(both) else math.nan
            row["ppg_opponent_ci"] = float(both["ppg_ci"].iloc[0]) if len(both) else math.nan
        rows.append(row)
    return pd.DataFrame(rows)


def sprt_table(frame: pd.DataFrame, experiment: Experiment) -> pd.DataFrame:
    """One row per pairing: its sequential test replayed from the rows, batch by batch as the run
    looked (``experiments.running.chunks.sequential_tests``), from the first player's side."""
    rows = []
    for index, test in sequential_tests(frame, experiment).items():
        pairing = frame[frame["pairing"] == index]
        first, second, condition = first_players(pairing)[index]
        rows.append({"pairing": index, "condition": condition, "player": first, "opponent": second,
                     "match": test.match, **test.summary()})
    return pd.DataFrame(rows)


def sprt_markdown(table: pd.DataFrame, labels: dict[str, str] | None = None) -> str:
    """The sequential tests as a table and what their intervals mean."""
    labels = labels or {}
    match = bool(table["match"].any())

    def amount(value: float) -> str:
        return f"{100 * (0.5 + value):.1f}%" if match else f"{value + 0.0:+.3f}"

    def span(low: float, high: float) -> str:
        return "n/a" if low != low else f"{amount(low)} .. {amount(high)}"

    first = table.iloc[0]
    hypotheses = (f"H0: the first player wins at most {amount(first.delta0)} of the matches, H1: at least "
                  f"{amount(first.delta1)}" if match else
                  f"H0: the first player gains at most {amount(first.delta0)} points per game, H1: at least "
                  f"{amount(first.delta1)}")
    headers = ["player", "opponent", "deals", "LLR", "bounds", "decision",
               "share of matches" if match else "points/game", "naive 95%", "95% after stopping"]
    out_rows = []
    for row in table.itertuples(index=False):
        decision = row.decision if isinstance(row.decision, str) else "none (--games reached)"
        out_rows.append([labels.get(row.player, row.player), labels.get(row.opponent, row.opponent),
                         f"{row.deals:,}", f"{row.llr:+.3f}", f"{row.lower:+.3f} .. {row.upper:+.3f}", decision,
                         amount(row.estimate), span(row.naive_low, row.naive_high),
                         span(row.anytime_low, row.anytime_high)])
    return "\n".join([
        f"{hypotheses} (alpha {first.alpha:g}, beta {first.beta:g}); the unit is the deal, both seatings; one look "
        f"per chunk, no decision before {first.floor:g} times the deals of a fixed-size test "
        "(experiments/sequential.py).\n",
        markdown_table(headers, out_rows, "ll" + "r" * (len(headers) - 2)) + "\n",
        "The naive interval treats the deals played as a number fixed in advance: after a test that stopped "
        "because the evidence was enough it is biased towards the decision and covers less than 95% of the time "
        "(results/sprt/ measures by how much).  The last column is a 95% confidence sequence, valid at whatever "
        "number of deals the test stopped.\n",
    ])


def _duplicate_line(pairings: pd.DataFrame) -> str | None:
    is_match = "match_variance_ratio" in pairings
    column = "match_variance_ratio" if is_match else "variance_ratio"
    ratios = pairings[column].replace([np.inf], np.nan).dropna()
    if ratios.empty:
        return None
    what = "match-winning shares" if is_match else "points-per-game estimates"
    return (f"Duplicate dice: playing each deal twice with the seats swapped cut the variance of the "
            f"{what} by {ratios.median():.1f}× (median over {len(ratios)} pairings; "
            f"{ratios.min():.1f}× to {ratios.max():.1f}×), compared with dealing each seating its own dice.")


def _run_line(run: dict) -> str | None:
    """How the games were played: version, commit, engine, and the speed of the last session."""
    if not run or run.get("status") != "finished":
        return None
    parts = []
    engines = "/".join(run.get("engines_used") or [str(run.get("engine"))])
    parts.append(f"{engines} engine, {run.get('threads')} threads" + (f", Dask {run['dask']}" if run.get("dask") else ""))
    sessions = len(run.get("sessions") or [None])
    played = run.get("games_played_last_session", run.get("games"))
    if run.get("elapsed_s") and played:
        rate = f"{run['elapsed_s']:.0f} s ({played / run['elapsed_s']:,.0f} games/s)"
        if sessions > 1:
            parts.append(f"{run.get('games'):,} games over {sessions} sessions, the last one playing "
                         f"{played:,} of them in {rate}")
        else:
            parts.append(f"{run.get('games'):,} games in {rate}")
    elif sessions > 1:
        parts.append(f"{run.get('games'):,} games over {sessions} sessions, none left for the last one")
    return played_with(run, parts) + "\n"


def _engine_lines(run: dict | None, frame: pd.DataFrame) -> list[str]:
    """The run's external engines: who each said it is, its decisions' mean time (``run.json``'s
    ``engine_time``, summed over the chunks) and the games it forfeited (from the rows)."""
    engines = (run or {}).get("engines") or {}
    if not engines:
        return []
    times = run.get("engine_time") or {}
    lines = []
    for name, identity in sorted(engines.items()):
        for player, stats in sorted(times.items()) or [(f"ubgi:{name}", {})]:
            if player.split("+")[0] != f"ubgi:{name}":
                continue
            forfeited = 0
            if "forfeit" in frame.columns:
                for side in ("white", "black"):
                    forfeited += int(((frame[side] == player) & (frame["forfeit"] == side)).sum())
            decisions = stats.get("decisions", 0)
            mean = f"{stats.get('seconds', 0.0) / decisions * 1000:.2f} ms" if decisions else "n/a"
            lines.append(f"* `{player}`: {identity.get('id_name') or name} (UBGI {identity.get('protocol')}, "
                         f"sha256 {identity.get('sha256', '')[:12]}); {decisions:,} decisions, mean {mean} a "
                         f"decision; {forfeited:,} games forfeited")
    return lines


def _text(report: Report, experiment: Experiment | None, frame: pd.DataFrame, brief: bool,
          run: dict | None = None) -> str:
    out = []
    name = experiment.name if experiment else "run"
    heading = "##" if not brief else ""
    if not brief:
        out.append(f"# {name}\n")
        if experiment is not None and experiment.description:
            out.append(experiment.description.strip() + "\n")
        if experiment is not None:
            lengths = sorted({experiment.match_length(name) for name, _ in experiment.conditions})
            kind = ("money games" if lengths == [0] else
                    ", ".join(f"{length}-point matches" if length else "money games" for length in lengths))
            most = "at most " if experiment.sequential else ""  # a pairing may stop before them
            out.append(f"{len(frame)} games ({kind}); {most}{experiment.games} deals per pairing, "
                       f"{'each played with both seatings (duplicate dice)' if experiment.duplicate else 'seats alternating, dice independent'}; "
                       f"seed {experiment.seed}.\n")
        line = _run_line(run)
        if line:
            out.append(line)
    engines = _engine_lines(run, frame)
    if engines:
        out.append(f"{heading} External engines\n".lstrip() if not brief else "External engines")
        out.append("\n".join(engines) + "\n")
    labels = report.labels
    is_match = "match_wins" in report.pairings
    if report.sprt is not None and not report.sprt.empty:
        out.append(f"{heading} Sequential tests\n".lstrip() if not brief else "Sequential tests")
        out.append(sprt_markdown(report.sprt, labels))
    for condition, standings in report.standings.items():
        title = "Standings" + (f" — {condition}" if len(report.standings) > 1 else "")
        if is_match:
            title += " (share of matches won, then points per game)"
        out.append(f"{heading} {title}\n".lstrip() if not brief else title)
        out.append(standings_table(standings) + "\n")
        sentences = separation_sentences(report.comparisons.get(condition), list(standings["player"]), labels)
        if sentences:
            if brief:  # the terminal gets the count and the leader; summary.md every neighbour
                out.append("\n".join(sentences[:2]) + "\n")
            else:
                out.append(f"{heading} Which players are separated"
                           f"{f' — {condition}' if len(report.standings) > 1 else ''}\n")
                out.append(sentences[0] + "\n")
                out.append("\n".join(f"* {text}" for text in sentences[1:]) + "\n")
    if not brief or len(report.pairings) <= 40:
        out.append(f"{heading} Pairings (first player's side)\n".lstrip() if not brief else "Pairings (first player's side)")
        out.append(pairings_table(report.pairings) + "\n")
    line = _duplicate_line(report.pairings)
    if line:
        out.append(line + "\n")
    if len(report.conditions) == 1 and not math.isnan(report.conditions["plies_per_game"].iloc[0]):
        only = report.conditions.iloc[0]
        out.append(f"A game lasted {only.plies_per_game:.1f} ± {only.plies_per_game_ci:.1f} plies on average "
                   f"(95% CI, the deal as unit); {100 * only.gammons:.1f}% were gammons or backgammons, "
                   f"{100 * only.backgammons:.1f}% backgammons.\n")
    if len(report.conditions) > 1:
        out.append(f"{heading} Rule conditions compared (all pairings together)\n".lstrip() if not brief
                   else "Rule conditions compared (all pairings together)")
        out.append(conditions_table(report.conditions) + "\n")
        pivot = report.pairings.pivot_table(index=["player", "opponent"], columns="condition", values="ppg",
                                            sort=False)
        headers = ["player", "opponent"] + [f"{c} points/game" for c in pivot.columns]
        rows = [[labels.get(a, a), labels.get(b, b)] + [f"{v:+.3f}" for v in values]
                for (a, b), values in pivot.iterrows()]
        out.append(markdown_table(headers, rows, "ll" + "r" * len(pivot.columns)) + "\n")
    for condition, matrix in report.matrices.items():
        if brief and len(matrix) > 10:
            continue
        title = ("Match-winning share" if is_match else "Payoff matrix (row's points per game against column)")
        title += f" — {condition}" if len(report.matrices) > 1 else ""
        out.append(f"{heading} {title}\n".lstrip() if not brief else title)
        out.append(matrix_table(matrix, labels, pct=is_match) + "\n")
        best = report.best[condition]
        if len(matrix) > 2 and not best.empty and not brief:
            rows = [[labels.get(r.opponent, r.opponent), labels.get(r.best_response, r.best_response),
                     f"{100 * r.value:.1f}%" if is_match else f"{r.value:+.3f}"] for r in best.itertuples()]
            out.append(f"{heading} Best response to each player{f' — {condition}' if len(report.matrices) > 1 else ''}\n")
            out.append(markdown_table(["against", "best response", "its result"], rows, "llr") + "\n")
    if report.sweep is not None and experiment is not None:
        keys = list(experiment.grid_keys)
        sweep = report.sweep.sort_values("rank")
        headers = keys + ["rank", "points/game vs field (95% CI)"]
        has_opp = "ppg_opponent" in sweep
        if has_opp:
            headers.append(f"vs {labels.get(experiment.opponent, experiment.opponent)} (95% CI)")
        rows = []
        for _, row in sweep.iterrows():
            cells = [str(row[k]) for k in keys] + [str(row["rank"]),
                                                   _ci(row["ppg_field"], row["ppg_field_ci"])]
            if has_opp:
                cells.append(_ci(row["ppg_opponent"], row["ppg_opponent_ci"]))
            rows.append(cells)
        out.append(f"{heading} Threshold sweep, best first\n".lstrip() if not brief else "Threshold sweep, best first")
        out.append(markdown_table(headers, rows, "r" * len(headers)) + "\n")
    if report.judged is not None and not brief:
        from .match_judge import markdown as judged_markdown
        from bgsim.bearoff.match import default_match_checkers

        out.append(f"{heading} Match-winning chances gained and lost by cube decisions (endgame, exact)\n")
        out.append(judged_markdown(report.judged, labels, default_match_checkers()))
    if report.plots and not brief:
        out.append(f"{heading} Plots\n")
        out += [f"![{Path(plot).stem}]({Path(plot).name})\n" for plot in report.plots]
    return "\n".join(out).rstrip() + "\n"


def _ci(mean: float, half: float) -> str:
    if math.isnan(mean):
        return "n/a"
    return f"{mean:+.3f}" if math.isnan(half) else f"{mean:+.3f} ± {half:.3f}"


def summary_csv(report: Report) -> pd.DataFrame:
    """Pairings and standings in one table, told apart by ``section``."""
    parts = [report.pairings.assign(section="pairing")]
    for condition, standings in report.standings.items():
        parts.append(standings.assign(section="standings", condition=condition,
                                      rank=np.arange(1, len(standings) + 1)))
    for condition, comparisons in report.comparisons.items():
        if not comparisons.empty:
            parts.append(comparisons.drop(columns=["match"]).assign(section="comparison", condition=condition))
    if report.judged is not None and not report.judged.empty:
        parts.append(report.judged.assign(section="cube_judge"))
    if report.sprt is not None and not report.sprt.empty:
        parts.append(report.sprt.drop(columns=["match"]).assign(section="sprt"))
    table = pd.concat(parts, ignore_index=True)
    table["rank"] = table["rank"].astype("Int64")  # blank on pairing rows, whole numbers elsewhere
    first = ["section", "condition", "rank", "player", "opponent"]
    return table[[c for c in first if c in table] + [c for c in table.columns if c not in first]]


def write_report(folder: Path, frame: pd.DataFrame, experiment: Experiment | None = None,
                 plots: bool = True, run: dict | None = None) -> Report:
    """Write ``summary.csv``, ``summary.md`` and the plots for ``frame`` into ``folder``.

    ``run`` (default: the folder's ``run.json``) only adds how the games were played.
    """
    folder = Path(folder)
    if run is None:
        run = read_run(folder)
    report = build_report(frame, experiment)
    if (folder / JUDGE_FILE).exists():
        report.judged = by_pairing(pd.read_csv(folder / JUDGE_FILE), first_players(frame))
    if plots:
        from .plots import draw_all

        report.plots = draw_all(folder, report, experiment)
    report.markdown = _text(report, experiment, frame, brief=False, run=run)
    _write_text(folder / "summary.md", report.markdown)
    table = summary_csv(report)
    _write_text(folder / "summary.csv", table.to_csv(index=False, float_format="%.6g"))
    for condition, matrix in report.matrices.items():
        suffix = "" if len(report.matrices) == 1 else f"-{condition}"
        _write_text(folder / f"payoff_matrix{suffix}.csv", matrix.to_csv(float_format="%.6g"))
    return report


def summarize_run(folder: Path, frame: pd.DataFrame, experiment: Experiment, run: dict, *,
                  make_player=None, progress: bool = True, log=print, phases: dict | None = None) -> Report:
    """A finished run's summaries: its match cube decisions judged first when the experiment asks
    (``judge_cube``) and they are not yet, then the report of its rows.  The runner calls this
    (``experiments.running.runner.play_experiment``'s ``summarize``)."""
    if experiment.judge_cube and experiment.plays_matches and not (Path(folder) / JUDGE_FILE).exists():
        judge_folder(folder, frame, experiment.judge_cube, make_player, progress, log, phases)
    return write_report(folder, frame, experiment, run=run)


def report_again(folder: Path) -> str:
    """A run's summaries rewritten from its ``games.parquet`` (``bgsim report DIR``), with the
    folder claimed: a run still writing it is not raced."""
    folder = Path(folder)
    with RunFolder(folder, EXPERIMENT_RUN).claimed():
        run = read_run(folder)
        experiment = Experiment.from_dict(run["config"]) if run and "config" in run else None
        try:
            frame = load_rows(folder)
        except FileNotFoundError:
            raise
        except Exception as error:  # noqa: BLE001 - pyarrow's errors name no common base
            raise ValueError(f"{folder / GAMES_FILE} is not a Parquet file bgsim can read ({error})") from None
        if experiment is not None and experiment.chouette:
            from .chouette_report import write_chouette_report

            report = write_chouette_report(folder, frame, experiment, run)
            return f"{report.text}\nRewrote {folder}/summary.md and summary.csv from {len(frame)} rows"
        report = write_report(folder, frame, experiment)
    return f"{report.text}\nRewrote {folder}/summary.md, summary.csv and the plots from {len(frame)} rows"


def play_report(path: Path) -> str:
    """The summary ``bgsim play`` printed, again, from the rows of its output file."""
    from bgsim.schema import conform

    try:
        frame = conform(pd.read_parquet(path))
    except Exception as error:  # noqa: BLE001 - pyarrow's errors name no common base
        raise ValueError(f"{path} is not a Parquet file bgsim can read ({error})") from None
    if frame.empty:
        raise ValueError(f"{path} holds no games")
    pairs = frame[["white", "black"]].drop_duplicates()
    if len(pairs) > 1:
        raise ValueError(f"{path} holds games of {len(pairs)} different pairs of players; "
                         "bgsim report summarizes one bgsim play output or one results folder")
    white, black = str(pairs["white"].iloc[0]), str(pairs["black"].iloc[0])
    tally = GameTally()
    tally.add(frame)
    lines = [format_summary(tally.summary(), white, black)]
    match_to = int(frame["match_to"].max())
    if match_to:
        summary = tally.match_summary()
        summary["match_to"] = match_to
        lines.append(format_match_summary(summary, white, black))
    lines.append(f"(from the {len(frame)} rows of {path}, a bgsim play output: no summary files to rebuild)")
    return "\n".join(lines)


def _write_text(path: Path, text: str) -> None:
    try:
        write_text(text, path)
    except OSError as error:
        raise explain(error, path, "and rebuild the summaries with `bgsim report`") from None
