"""``bgsim show`` and ``bgsim moves``: look at a position and its legal plays."""

from __future__ import annotations

import argparse
import json

from bgsim import Position, legal_plays
from bgsim.rules import check_roll


def register(subparsers) -> None:
    show = subparsers.add_parser("show", help="draw a position given as a GNU Backgammon position ID")
    show.add_argument("position_id", metavar="ID")
    show.set_defaults(handler=run_show)

    moves = subparsers.add_parser("moves", help="list the legal plays of a roll from a position")
    moves.add_argument("position_id", metavar="ID")
    moves.add_argument("die1", type=_die, metavar="D1")
    moves.add_argument("die2", type=_die, metavar="D2")
    moves.add_argument("--json", action="store_true", help="print machine-readable JSON")
    moves.set_defaults(handler=run_moves)


def _die(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a die shows 1 to 6, got {text!r}") from None
    if not 1 <= value <= 6:
        raise argparse.ArgumentTypeError(f"a die shows 1 to 6, got {value}")
    return value


def run_show(args) -> int:
    print(Position.from_position_id(args.position_id))
    return 0


def run_moves(args) -> int:
    position = Position.from_position_id(args.position_id)
    roll = check_roll((args.die1, args.die2))
    plays = sorted(legal_plays(position, roll), key=lambda play: play.notation)
    if args.json:
        print(json.dumps({
            "position_id": position.position_id,
            "roll": list(roll),
            "count": len(plays),
            "plays": [{"play": play.notation, "position_id": play.result.position_id} for play in plays],
        }, indent=2))
        return 0
    print(f"{len(plays)} legal plays for {roll[0]}-{roll[1]} from {position.position_id}")
    width = max((len(play.notation) for play in plays), default=0)
    for play in plays:
        print(f"  {play.notation:<{width}}  {play.result.position_id}")
    return 0
