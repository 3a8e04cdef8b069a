"""``bgsim trace``: one game or match, turn by turn, with GNU Backgammon's IDs at each turn
(:mod:`experiments.analysis.trace` writes the lines).
"""

from __future__ import annotations

import sys

from bgsim.cube import Rules
from bgsim.game import WHITE, play_game
from bgsim.match import check_match_length, play_match
from experiments.analysis.trace import format_game
from experiments.commands.arguments import engines_flag, match_flag, non_negative, seed_flag


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "trace",
        help="print one game or match turn by turn, with GNU Backgammon IDs at each turn",
        description="Play one game (or, with --match-to, one match) between two players and print "
        "each turn: who is on roll, POSITIONID:MATCHID at the start of the turn (score, cube, "
        "Crawford state, player on roll; white is player 0) and the same as an XGID (the side on roll "
        "at the bottom), the cube action, the roll and the play.  "
        "The game is the one `bgsim play` deals as number --game of --seed.",
    )
    parser.add_argument("white", metavar="WHITE", help="white's player spec, e.g. heuristic+pipdiff")
    parser.add_argument("black", metavar="BLACK", help="black's player spec")
    seed_flag(parser)
    parser.add_argument("--game", type=non_negative, default=0, metavar="N",
                        help="game number (with --match-to: match number), default 0")
    match_flag(parser, "play the match to N points", "one money game")
    parser.add_argument("--variant", default="standard", metavar="NAME",
                        help="the game played (RULES.md, Variants; default standard); positions are then "
                        "bgsim position strings")
    engines_flag(parser)
    parser.set_defaults(handler=run_trace)


def run_trace(args) -> int:
    from experiments.running.engines import engine_players, engine_table, start_engines

    factory = engine_players(engine_table(args.engines))  # ubgi:NAME seats an engine; a forfeit shows in the trace
    white, black = factory(args.white), factory(args.black)
    rules = Rules(variant=args.variant)
    for player in (white, black):
        if hasattr(player, "check_variant"):
            player.check_variant(rules.variant)  # one line before an engine starts, not a deep error later
    start_engines((white, black), lambda text: print(text, file=sys.stderr, flush=True))
    if args.match_to:
        check_match_length(args.match_to)
        result = play_match(white, black, args.seed, args.game, args.match_to, rules, trace=True)
        for record in result.games:
            print("\n".join(format_game(record, rules)))
        winner = result.winner
        print(f"{winner} wins the match to {args.match_to} "
              f"(white {min(result.white_score, args.match_to) if winner == WHITE else result.white_score}, "
              f"black {result.black_score if winner == WHITE else min(result.black_score, args.match_to)})")
    else:
        print("\n".join(format_game(play_game(white, black, args.seed, args.game, rules, trace=True), rules)))
    return 0
