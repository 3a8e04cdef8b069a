"""``bgsim met``: look up a match equity table, one entry or the grid."""

from __future__ import annotations

import json
import sys

from bgsim import met
from experiments.commands.arguments import engines_flag, games_flag, json_flag, positive, refuse_given, seed_flag


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "met",
        help="match equity: the chance of winning a match from a score",
        description="Print a match equity table, or one entry of it.  Scores are points away: "
        "'bgsim met 2 5' is the chance that the side 2 away wins against a side 5 away.  "
        "Tables: kazaross-xg2 (published, Neil Kazaross 2011, to 25 points) and derived "
        "(computed by bgsim from a gammon rate; see bgsim/met.py).",
    )
    parser.add_argument("away", nargs="?", metavar="A", help="points the side asked about needs")
    parser.add_argument("opponent_away", nargs="?", metavar="B", help="points its opponent needs")
    parser.add_argument("--table", default=met.PUBLISHED, choices=met.TABLES,
                        help=f"which table (default {met.PUBLISHED})")
    parser.add_argument("--gammon-rate", type=float, default=met.DEFAULT_GAMMON_RATE, metavar="G",
                        help="share of won games that are gammons, for --table derived "
                        f"(default {met.DEFAULT_GAMMON_RATE})")
    parser.add_argument("--from-player", metavar="SPEC",
                        help="for --table derived: measure the gammon rate of SPEC's own cubeless "
                        "self-play (fast engine) instead of --gammon-rate, and compare the table "
                        "with the published one (default: the --gammon-rate given)")
    games_flag(parser, "with --from-player: games of self-play", default=20_000)
    seed_flag(parser, "with --from-player: seed of the self-play")
    parser.add_argument("--post-crawford", action="store_true",
                        help="with A B where one side is 1 away: after the Crawford game")
    parser.add_argument("--size", type=positive, default=11, metavar="N",
                        help="grid: scores 1..N away (default 11, at most the table's length)")
    json_flag(parser)
    engines_flag(parser)
    parser.set_defaults(handler=run_met)


def _score(text: str, what: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise ValueError(f"{what} is a whole number of points away, got {text!r}") from None
    if value < 1:
        raise ValueError(f"{what} is at least 1 point away, got {value}")
    return value


def run_met(args) -> int:
    if (args.away is None) != (args.opponent_away is None):
        raise ValueError("give both scores away (A B), or neither for the grid")
    if args.from_player is not None and args.table != met.DERIVED:
        raise ValueError(f"--from-player measures a gammon rate for --table {met.DERIVED}")
    if args.table != met.DERIVED:
        refuse_given(args, ("gammon_rate",), f"with --table {args.table}",
                     f"only --table {met.DERIVED} is computed from a gammon rate")
    if args.from_player is None:
        refuse_given(args, ("games", "seed"), "without --from-player",
                     "--games and --seed are for the self-play it measures")
    else:
        refuse_given(args, ("gammon_rate",), "with --from-player", "the gammon rate is measured instead")
    if args.away is None:
        refuse_given(args, ("post_crawford",), "without a score A B", "the grid shows the post-Crawford row")
    else:
        refuse_given(args, ("size",), "with a score A B", "it sizes the grid")
    if args.from_player is not None:
        from experiments.running.engines import engine_players, engine_table
        from experiments.studies.match_equity import compare, derived_from_player

        engine_players(engine_table(args.engines))  # --from-player ubgi:NAME: its engine plays itself

        table, measured = derived_from_player(args.from_player, args.games, args.seed)
        distance = compare(table, met.published())
        # on stderr, so that --json output stays one document
        print(f"gammon rate of {measured.player} in cubeless self-play: {measured.rate:.4f} "
              f"± {measured.half_width:.4f} (95% CI, {measured.games:,} games); against "
              f"{met.PUBLISHED} over 1..{distance.size} away: largest difference "
              f"{100 * distance.largest:.2f} points of match-winning chance (at "
              f"{distance.at[0]}-{distance.at[1]}{' post-Crawford' if distance.post_crawford else ''}), "
              f"mean {100 * distance.mean:.2f}", file=sys.stderr)
    else:
        table = met.table(args.table, args.gammon_rate)
    if args.away is not None:
        away = _score(args.away, "A")
        opponent = _score(args.opponent_away, "B")
        if args.post_crawford and (away == 1) == (opponent == 1):
            raise ValueError("--post-crawford needs exactly one side 1 away")
        value = table.equity(away, opponent, post_crawford=args.post_crawford)
        if args.json:
            print(json.dumps({"table": table.name, "away": away, "opponent_away": opponent,
                              "post_crawford": args.post_crawford, "equity": value}))
        else:
            stage = " post-Crawford" if args.post_crawford else (
                " (Crawford game)" if (away == 1) != (opponent == 1) else "")
            print(f"{away}-away vs {opponent}-away{stage}: {100 * value:.2f}% to win the match "
                  f"({table.name})")
        return 0
    if not 1 <= args.size <= table.length:
        raise ValueError(f"--size must be 1..{table.length} for the {table.name} table, got {args.size}")
    size = args.size
    if args.json:
        print(json.dumps({"table": table.name, "source": table.source,
                          "pre_crawford": table.pre[:size, :size].tolist(),
                          "post_crawford": table.post[:size].tolist()}))
        return 0
    print(f"{table.name}: {table.source}")
    print("Chance (%) that the row side wins; scores are points away.  Row 1 against column > 1 "
          "is the Crawford game.")
    print("away " + "".join(f"{b:>6}" for b in range(1, size + 1)))
    for a in range(1, size + 1):
        print(f"{a:>4} " + "".join(f"{100 * table.pre[a - 1, b - 1]:6.1f}" for b in range(1, size + 1)))
    print("post-Crawford, trailer n away against a leader 1 away:")
    print("   n " + "".join(f"{n:>6}" for n in range(1, size + 1)))
    print("     " + "".join(f"{100 * table.post[n - 1]:6.1f}" for n in range(1, size + 1)))
    return 0
