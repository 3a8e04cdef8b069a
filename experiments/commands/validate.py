"""``bgsim validate``: play the same games in both engines and prove they are the same; the cases
and the comparison are :mod:`experiments.studies.validation`'s.
"""

from __future__ import annotations

from bgsim.cube import Rules
from experiments.commands.arguments import (RULE_OPTIONS, games_flag, match_flag, positions_flag, refuse_engines,
                                           refuse_given, rules_flags, seed_flag, threads_flag)
from experiments.studies.validation import DEFAULT_GAMES, chouette_cases, default_cases, validate

PAIRING_OPTIONS = ("match_to", *RULE_OPTIONS, "backgammon_as_gammon")


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "validate",
        help="prove the fast engine plays exactly the reference engine's games",
        description="Play the same games in both engines and compare them row for row and "
        "column for column, then compare legal plays on random positions for all 21 rolls. "
        "Without --players, a set of pairings covers every built-in bot and rule option, and chouettes "
        "of 3, 4 and 10 players every built-in cube bot in both cube regimes; the match and rule options "
        "are those of a --players pairing.  The default set takes about 3 minutes on 2 idle cores; "
        "--games scales it for a deeper proof.",
    )
    games_flag(parser, "each default case plays as long in the reference engine as N standard money games "
               "(matches, long or slow games fewer, at least one; hypergammon more); with --players: games "
               "(with --match-to: matches)", default=DEFAULT_GAMES)
    seed_flag(parser)
    parser.add_argument("--players", nargs=2, metavar=("WHITE", "BLACK"),
                        help="one pairing instead of the default set (default: every built-in bot and rule option)")
    match_flag(parser, "with --players: matches to N points")
    rules_flags(parser, " (with --players)")
    parser.add_argument("--backgammon-as-gammon", action="store_true",
                        help="a backgammon scores as a gammon (with --players)")
    positions_flag(parser, "random positions whose legal plays are compared for all 21 rolls (0: none)", 500,
                   none=True)
    threads_flag(parser, "processes playing the reference engine's games", old="--jobs")
    parser.set_defaults(handler=run_validate)


def _cases(args) -> list[tuple[str, str, Rules, int]]:
    if args.players:
        refuse_engines(args.players, "bgsim validate holds the fast engine to the reference one game for game, and "
                       "an external engine plays on the reference engine only (bgsim check ENGINE tests an engine)")
        rules = Rules(cube=not args.no_cube, max_cube=args.max_cube, jacoby=args.jacoby,
                      beaver=args.beaver, automatic_doubles=args.automatic_doubles,
                      backgammon_as_gammon=args.backgammon_as_gammon)
        return [(args.players[0], args.players[1], rules, args.match_to)]
    refuse_given(args, PAIRING_OPTIONS, "without --players",
                 "the default set of cases brings its own match lengths and rules")
    return default_cases()


def run_validate(args) -> int:
    from experiments.running.machine import thread_limit

    return validate(_cases(args), args.games, args.seed, args.positions, args.threads or thread_limit(),
                    chouettes=() if args.players else chouette_cases(), sized=not args.players)
