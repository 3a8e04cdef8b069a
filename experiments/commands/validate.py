"""``bgsim validate``: play the same games in both engines and prove they are the same; the cases
and the comparison are :mod:`experiments.studies.validation`'s.
"""

from __future__ import annotations

import os

from bgsim.cube import Rules
from experiments.studies.validation import chouette_cases, default_cases, validate


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "validate",
        help="prove the fast engine plays exactly the reference engine's games",
        description="Play the same games in both engines and compare them row for row and "
        "column for column, then compare legal plays on random positions for all 21 rolls. "
        "Without --players, a set of pairings covers every built-in bot and rule option, and chouettes "
        "of 3, 4 and 10 players every built-in cube bot in both cube regimes.",
    )
    parser.add_argument("--games", type=int, default=200, metavar="N",
                        help="games per case (with --match-to: matches); default 200")
    parser.add_argument("--seed", type=int, default=1, metavar="S", help="run seed (default 1)")
    parser.add_argument("--players", nargs=2, metavar=("WHITE", "BLACK"),
                        help="one pairing instead of the default set")
    parser.add_argument("--match-to", type=int, default=0, metavar="N",
                        help="with --players: matches to N points")
    parser.add_argument("--no-cube", action="store_true", help="with --players: no cube")
    parser.add_argument("--max-cube", type=int, default=64, metavar="V", help="with --players")
    parser.add_argument("--jacoby", action="store_true", help="with --players")
    parser.add_argument("--beaver", action="store_true", help="with --players")
    parser.add_argument("--automatic-doubles", type=int, default=0, metavar="K", help="with --players")
    parser.add_argument("--backgammon-as-gammon", action="store_true", help="with --players")
    parser.add_argument("--positions", type=int, default=500, metavar="N",
                        help="random positions whose legal plays are compared for all 21 rolls (default 500)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, metavar="J",
                        help="processes for the reference engine (default: all cores)")
    parser.set_defaults(handler=run_validate)


def _cases(args) -> list[tuple[str, str, Rules, int]]:
    if args.players:
        rules = Rules(cube=not args.no_cube, max_cube=args.max_cube, jacoby=args.jacoby,
                      beaver=args.beaver, automatic_doubles=args.automatic_doubles,
                      backgammon_as_gammon=args.backgammon_as_gammon)
        return [(args.players[0], args.players[1], rules, args.match_to)]
    return default_cases()


def run_validate(args) -> int:
    if args.games < 1:
        raise ValueError(f"--games must be at least 1, got {args.games}")
    if args.positions < 0:
        raise ValueError(f"--positions cannot be negative, got {args.positions}")
    if args.jobs < 1:
        raise ValueError(f"--jobs must be at least 1, got {args.jobs}")
    return validate(_cases(args), args.games, args.seed, args.positions, args.jobs,
                    chouettes=() if args.players else chouette_cases())
