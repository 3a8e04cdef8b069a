"""``bgsim ratings RUN...``: one rating list from any set of finished runs played under the same
rules (``experiments/analysis/ratings.py`` says how it is fitted)."""

from __future__ import annotations

import json
import math
import shlex
from pathlib import Path

from experiments.commands.arguments import json_flag


def register(subparsers) -> None:
    ratings = subparsers.add_parser(
        "ratings", help="one rating list with 95%% intervals from any set of runs",
        description="Fit one rating list to the pairings of the runs named (round robins, gauntlets, sequential "
        "tests, external engines: results folders of bgsim run, tournament or sprt, played under one set of "
        "rules): points per game against the anchor with 95% intervals (weighted least squares of every "
        "pairing's mean, the deal as unit), in match play an Elo scale from matches won (Bradley-Terry) beside "
        "the FIBS formula's rating at that match length, the likelihood of superiority of every two players, "
        "and a flag on every pairing the ratings do not explain (not transitive).")
    ratings.add_argument("runs", nargs="+", metavar="RUN", help="results folders of finished runs")
    ratings.add_argument("--anchor", default=None, metavar="PLAYER",
                         help="the player rated 0 (default: none, the ratings average 0)")
    ratings.add_argument("--condition", default=None, metavar="NAME",
                         help="the rule condition to rate, for runs played under several (default: the runs' only one)")
    ratings.add_argument("--out", type=Path, default=None, metavar="DIR",
                         help="results folder for summary.md, ratings.csv, superiority.csv, ratings.png and run.json "
                         "(default: none, print only)")
    ratings.add_argument("--force", action="store_true", help="overwrite those files in --out")
    json_flag(ratings)
    ratings.set_defaults(handler=run_ratings)


def run_ratings(args) -> int:
    from experiments.analysis.ratings import OUTPUTS, rate_runs

    if args.out is not None and not args.force:
        there = [name for name in OUTPUTS if (args.out / name).exists()]
        if there:
            raise ValueError(f"{args.out / there[0]} exists; pass --force to overwrite it")
    ratings = rate_runs(args.runs, anchor=args.anchor, condition=args.condition)
    if args.out is not None:
        ratings.write(args.out, command=_command(args))
    if args.json:
        rows = [{key: (None if isinstance(value, float) and not math.isfinite(value) else value)
                 for key, value in row.items()} for row in ratings.table.to_dict(orient="records")]
        flagged = ratings.flagged[["player", "opponent", "ppg", "fitted", "residual", "p_holm"]]
        print(json.dumps({"anchor": ratings.anchor, "match_to": ratings.match_to, "rules": ratings.rules,
                          "chi2": ratings.chi2, "df": ratings.df,
                          "p_fit": None if ratings.p_fit != ratings.p_fit else ratings.p_fit,
                          "tau": ratings.tau, "ratings": rows,
                          "not_transitive": flagged.to_dict(orient="records"),
                          "superiority": {a: {b: (None if v != v else v) for b, v in row.items()}
                                          for a, row in ratings.superiority.to_dict(orient="index").items()}},
                         default=lambda value: value.item() if hasattr(value, "item") else str(value)))
        return 0
    print(ratings.markdown)
    if args.out is not None:
        print(f"Results: {args.out}/ ({', '.join(OUTPUTS)})")
    return 0


def _command(args) -> str:
    """The command that fits the list again (for run.json)."""
    words = ["bgsim", "ratings", *args.runs]
    for flag, value in (("--anchor", args.anchor), ("--condition", args.condition), ("--out", args.out)):
        if value is not None:
            words += [flag, str(value)]
    return shlex.join(words)
