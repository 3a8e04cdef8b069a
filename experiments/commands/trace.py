"""``bgsim trace``: one game or match, turn by turn, with GNU Backgammon's IDs at each turn.

Each turn prints ``POSITIONID:MATCHID`` as GNU Backgammon writes it (paste it into GNU
Backgammon, or into ``bgsim show``), taken at the start of the turn: the position seen from the
side on roll, and the match ID's score, cube (before any double of that turn), Crawford state and
player on roll (white is player 0, black player 1).  Played by the reference engine, which plays
the fast engine's games exactly.
"""

from __future__ import annotations

from bgsim.cube import Rules
from bgsim.game import WHITE, play_game
from bgsim.match import check_match_length, play_match
from bgsim.match_id import MatchState, encode

PLAYERS = {"white": 0, "black": 1}


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "trace",
        help="print one game or match turn by turn, with GNU Backgammon IDs at each turn",
        description="Play one game (or, with --match-to, one match) between two players and print "
        "each turn: who is on roll, POSITIONID:MATCHID at the start of the turn (score, cube, "
        "Crawford state, player on roll; white is player 0), the cube action, the roll and the play.  "
        "The game is the one `bgsim play` deals as number --game of --seed.",
    )
    parser.add_argument("white", metavar="WHITE", help="white's player spec, e.g. heuristic+pipdiff")
    parser.add_argument("black", metavar="BLACK", help="black's player spec")
    parser.add_argument("--seed", type=int, default=1, metavar="S", help="run seed (default 1)")
    parser.add_argument("--game", type=int, default=0, metavar="N",
                        help="game number (with --match-to: match number), default 0")
    parser.add_argument("--match-to", type=int, default=0, metavar="N",
                        help="play the match to N points instead of one money game")
    parser.add_argument("--variant", default="standard", metavar="NAME",
                        help="the game played (RULES.md, Variants); positions are then bgsim position strings")
    parser.set_defaults(handler=run_trace)


def turn_ids(record, rules: Rules) -> list[str]:
    """``POSITIONID:MATCHID`` at the start of each traced turn of ``record`` (a GameRecord).

    The cube is followed through the turns' actions: a take (or beaver) hands it to the taker.
    """
    match = record.match
    value, owner = 1 << record.automatic_doubles, None
    ids = []
    for ply in record.history:
        player = PLAYERS[ply.side]
        state = MatchState(
            cube_value=value, cube_owner=owner, on_roll=player, turn=player,
            crawford=bool(match and match.crawford),
            match_to=match.match_to if match else 0,
            score=(match.white_score, match.black_score) if match else (0, 0),
            jacoby=rules.jacoby if match is None else False,
        )
        ids.append(f"{ply.position_id}:{encode(state)}")
        if ply.cube_action == "double/take":
            value, owner = value * 2, 1 - player
        elif ply.cube_action == "double/beaver":
            value, owner = value * 4, 1 - player
    return ids


def format_game(record, rules: Rules) -> list[str]:
    match = record.match
    head = f"game {record.game}"
    if match:
        head += (f", game {match.game_in_match + 1} of the match to {match.match_to}: "
                 f"white {match.white_score}, black {match.black_score}")
        if match.crawford:
            head += " (Crawford game)"
        elif match.post_crawford:
            head += " (post-Crawford)"
    lines = [head]
    for ply, gnubg_id in zip(record.history, turn_ids(record, rules)):
        action = f"  {ply.cube_action}" if ply.cube_action else ""
        verb = "chooses" if ply.chosen_double else "rolls"  # acey-deucey's double after a 1-2
        roll = f"  {verb} {ply.roll[0]}-{ply.roll[1]}: {ply.play or '(no play)'}" if ply.roll else ""
        lines.append(f"  {ply.ply:3d} {ply.side:5s} {gnubg_id}{action}{roll}")
    counted = f", {record.points_counted} counted" if match and record.points_counted != record.points else ""
    lines.append(f"  {record.winner} wins {record.points} point{'s' if record.points != 1 else ''} "
                 f"({record.result}, cube {record.cube_value}{counted})")
    return lines


def run_trace(args) -> int:
    from bots import make_player

    white, black = make_player(args.white), make_player(args.black)
    rules = Rules(variant=args.variant)
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
