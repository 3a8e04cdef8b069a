"""``bgsim sprt CANDIDATE BASELINE``: is the candidate better?  A sequential test on duplicate
deals, batch by batch, until it decides (``experiments/sequential.py``: the test; the run is an
experiment of one pairing, ``experiments.running.config.sprt_experiment``, so its results
folder, Ctrl-C and ``--resume`` are every run's)."""

from __future__ import annotations

import json
import math
import sys

from bgsim.series import ENGINES
from experiments.commands.arguments import (check_resume_force, engines_flag, json_flag, match_flag, positive,
                                            refuse_threads_on_reference, rules_flags, rules_from_args, seed_flag,
                                            threads_flag)

DEFAULT_GAMES = 100_000  # deals at most: a test still undecided there stops and says so
from experiments.sequential import DEFAULT_BATCH as DEFAULT_CHUNK  # deals a look (results/sprt/'s too)
from experiments.sequential import FLOOR


def register(subparsers) -> None:
    sprt = subparsers.add_parser(
        "sprt", help="is CANDIDATE better than BASELINE? a sequential test on duplicate deals",
        description="Play duplicate deals of CANDIDATE against BASELINE in batches (--chunk deals each, both "
        "seatings on the same dice) and after each batch compute the log-likelihood ratio of H1 (the candidate "
        "gains at least DELTA1 points per game) against H0 (at most DELTA0); stop when it crosses "
        "ln((1-beta)/alpha) (H1) or ln(beta/(1-alpha)) (H0).  The test is the generalized SPRT on the "
        "observed distribution of each deal's score (fishtest's construction); in match play (--match-to) a "
        "deal is a pair of matches, scored 0, 1 or 2, and DELTA0/DELTA1 are the share of matches won above "
        "one half (0.02: 52%).  The end gives the decision, the deals used and the candidate's gain with a "
        "naive interval and one valid after optional stopping.  What the test's error rates and length "
        "are in practice, cube and cubeless: results/sprt/README.md.")
    sprt.add_argument("candidate", metavar="CANDIDATE", help="the player tested, e.g. heuristic+pipdiff(take=14%%)")
    sprt.add_argument("baseline", metavar="BASELINE", help="the player it is measured against")
    sprt.add_argument("--delta0", type=float, required=True, metavar="D0",
                      help="H0: the candidate gains at most D0 points per game (matches: share above 1/2)")
    sprt.add_argument("--delta1", type=float, required=True, metavar="D1",
                      help="H1: it gains at least D1 (greater than D0)")
    sprt.add_argument("--alpha", type=float, default=0.05, metavar="A",
                      help="the chance of accepting H1 when H0 holds (default 0.05)")
    sprt.add_argument("--beta", type=float, default=0.05, metavar="B",
                      help="the chance of accepting H0 when H1 holds (default 0.05)")
    sprt.add_argument("--floor", type=float, default=FLOOR, metavar="F",
                      help=f"no decision before F times the deals a fixed-size test of the same errors needs, "
                      f"estimated from the deals so far (default {FLOOR:g}; 0: Wald's test as it stands, whose "
                      f"false H1s doubled on the cube's heaviest tails: results/sprt/README.md)")
    sprt.add_argument("--games", type=positive, default=DEFAULT_GAMES, metavar="N",
                      help=f"deals at most, each played with both seatings; a test undecided there stops "
                      f"without a decision (default {DEFAULT_GAMES})")
    sprt.add_argument("--chunk", type=positive, default=DEFAULT_CHUNK, metavar="N",
                      help=f"deals a batch: one look of the test, one chunk file, the unit of resume (default "
                      f"{DEFAULT_CHUNK})")
    seed_flag(sprt)
    match_flag(sprt)
    sprt.add_argument("--engine", choices=ENGINES, default="auto",
                      help="auto: the fast engine when it can run both players, else the reference one (default auto)")
    threads_flag(sprt)
    engines_flag(sprt)
    rules_flags(sprt)
    sprt.add_argument("--out", default=None, metavar="DIR",
                      help="results folder (default results/runs/sprt-TIMESTAMP)")
    sprt.add_argument("--resume", action="store_true",
                      help="finish an unfinished test in --out (default: the newest unfinished one); on a finished "
                      "one, say so and show its result")
    sprt.add_argument("--force", action="store_true", help="replace a finished or unfinished test in --out")
    sprt.add_argument("--no-progress", action="store_true",
                      help="no progress bar (a test prints its LLR line by line instead of a bar)")
    json_flag(sprt)
    sprt.set_defaults(handler=run_sprt)


def run_sprt(args) -> int:
    from experiments.errors import ExperimentError
    from experiments.sequential import Sprt, SprtError
    from experiments.studies import sprt

    check_resume_force(args)
    external = any(spec.strip().startswith("ubgi:") for spec in (args.candidate, args.baseline))
    refuse_threads_on_reference(args.threads, args.engine, external)
    try:
        Sprt(args.delta0, args.delta1, args.alpha, args.beta, args.floor)
    except SprtError as error:
        raise ValueError(_flags(str(error))) from None
    if args.candidate.strip() == args.baseline.strip():
        raise ValueError(f"CANDIDATE and BASELINE are the same player ({args.candidate}): nothing to test")
    command = ["bgsim", "sprt", *sys.argv[2:]] if sys.argv[1:2] == ["sprt"] else _command(args)
    try:
        result = sprt.run_sprt(args.candidate, args.baseline, args.delta0, args.delta1, alpha=args.alpha,
                               beta=args.beta, floor=args.floor, games=args.games, batch=args.chunk, seed=args.seed,
                               rules=rules_from_args(args), match_to=args.match_to, engine=args.engine,
                               threads=args.threads or 0, out=args.out, resume=args.resume, force=args.force,
                               progress=not args.no_progress, command=command, engines=_engines(args, external),
                               log=lambda text: print(text, file=sys.stderr, flush=True))
    except ExperimentError as error:
        raise ValueError(str(error).replace("bgsim sprt: opponent: ", "BASELINE: ")
                         .replace("bgsim sprt: players[0]: ", "CANDIDATE: ")
                         .replace("bgsim sprt: ", "")) from None
    row = result.run.report.sprt.iloc[0]
    if args.json:
        out = {key: (None if isinstance(value, float) and not math.isfinite(value) else value)
               for key, value in row.to_dict().items()}
        out["folder"] = str(result.run.folder)
        print(json.dumps(out, default=_plain))
        return 0
    print(verdict(row, args.match_to > 0))
    print(f"Results: {result.run.folder}/ (summary.md, summary.csv, games.parquet)")
    return 0


def verdict(row, match: bool) -> str:
    """The end of a test in a few lines: the decision, the deals used, the gain and its intervals."""
    def amount(value: float) -> str:
        return f"{100 * (0.5 + value):.1f}% of the matches" if match else f"{value + 0.0:+.3f} points per game"

    def span(low: float, high: float) -> str:
        if low != low:
            return "n/a"
        return (f"{100 * (0.5 + low):.1f}% .. {100 * (0.5 + high):.1f}%" if match
                else f"{low + 0.0:+.3f} .. {high + 0.0:+.3f}")

    gains = "wins at least" if match else "gains at least"
    at_most = "wins at most" if match else "gains at most"
    if row.decision == "H1":
        head = f"H1 accepted: {row.player} {gains} {amount(row.delta1)} against {row.opponent}"
    elif row.decision == "H0":
        head = f"H0 accepted: {row.player} {at_most} {amount(row.delta0)} against {row.opponent}"
    else:
        head = (f"no decision: the LLR stayed between its bounds for all {row.deals:,} deals (--games); "
                f"it leans to {'H1' if row.llr > 0 else 'H0'}")
    return "\n".join([
        f"{head} (alpha {row.alpha:g}, beta {row.beta:g})",
        f"  {row.deals:,} deals ({2 * row.deals:,} games), LLR {row.llr:+.3f}, bounds {row.lower:+.3f} .. "
        f"{row.upper:+.3f}; a fixed-size test of the same errors would play about {row.fixed_deals:,} deals",
        f"  {row.player} {'won' if match else 'scored'} {amount(row.estimate)}: 95% interval valid after "
        f"stopping {span(row.anytime_low, row.anytime_high)} (the naive {span(row.naive_low, row.naive_high)} is "
        "biased after optional stopping and too narrow)",
    ])


def _engines(args, external: bool) -> dict:
    """The engines ``ubgi:NAME`` players may seat: --engines FILE, then the user's engines file."""
    if not external and args.engines is None:
        return {}
    from experiments.running.engines import engine_table

    return engine_table(args.engines)


def _flags(message: str) -> str:
    """A test's complaint in the command's words (--delta1, not delta1)."""
    for name in ("delta0", "delta1", "alpha", "beta", "floor"):
        message = message.replace(f"{name} ", f"--{name} ").replace(f"({name})", f"(--{name})")
    return message


def _plain(value):
    if hasattr(value, "item"):
        return value.item()
    return str(value)


def _command(args) -> list[str]:
    """The command rebuilt from the parsed flags (a call from Python, not from a shell)."""
    words = ["bgsim", "sprt", args.candidate, args.baseline, "--delta0", repr(args.delta0), "--delta1",
             repr(args.delta1), "--alpha", repr(args.alpha), "--beta", repr(args.beta), "--floor", repr(args.floor),
             "--games", str(args.games),
             "--chunk", str(args.chunk), "--seed", str(args.seed)]
    for flag, value in (("--match-to", args.match_to), ("--max-cube", args.max_cube if args.max_cube != 64 else 0),
                        ("--automatic-doubles", args.automatic_doubles), ("--threads", args.threads or 0)):
        if value:
            words += [flag, str(value)]
    if args.engine != "auto":
        words += ["--engine", args.engine]
    if args.out:
        words += ["--out", str(args.out)]
    return words + [flag for flag in ("--no-cube", "--jacoby", "--beaver", "--resume", "--force")
                    if getattr(args, flag[2:].replace("-", "_"))]

