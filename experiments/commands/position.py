"""``bgsim show`` and ``bgsim moves``: look at a position and its legal plays.

Positions are read as bgsim position strings (``bgsim.position_id``: a GNU Backgammon position
ID, with a variant's name and state after it); ``--variant`` names the variant a bare ID is read in.

Bad input (a malformed ID, an impossible position, a die that is not 1..6) raises a ValueError
naming the problem; the dispatcher in ``experiments.cli`` prints it as one line and exits 2.
"""

from __future__ import annotations

import json

from bgsim import Position, legal_plays
from bgsim.rules import RollError, check_roll
from bgsim.interchange.xgid import xgid_of
from bgsim.variants import STANDARD, VARIANTS


def register(subparsers) -> None:
    show = subparsers.add_parser(
        "show", help="draw a position given as a GNU Backgammon position ID or an XGID",
        description="Draw the position of a GNU Backgammon position ID (14 characters, e.g. "
        "4HPwATDgc/ABMA for the starting position) or an eXtreme Gammon XGID as a board with points "
        "numbered for the side on roll (X), and each side's pip count, checkers on the bar and checkers "
        "borne off, and the position's XGID.  With a GNU Backgammon match ID (POSITIONID:MATCHID as GNU "
        "Backgammon writes it, or as a second argument) or an XGID, also the score, the cube, the "
        "Crawford state and who is on roll.")
    show.add_argument("position_id", metavar="ID",
                      help="GNU Backgammon position ID, e.g. 4HPwATDgc/ABMA, POSITIONID:MATCHID, or an XGID "
                      "(XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10)")
    show.add_argument("match_id", metavar="MATCHID", nargs="?",
                      help="GNU Backgammon match ID, e.g. cAkAAAAAAAAA (if not joined to ID by ':')")
    add_variant(show)
    show.set_defaults(handler=run_show)

    moves = subparsers.add_parser(
        "moves",
        help="list the legal plays of a roll from a position",
        description="The legal plays of a roll, one per distinct resulting position, in the "
        "canonical order of bgsim.legal_plays.  Each resulting position is seen from the side "
        "that moved (not yet turned), as GNU Backgammon lists move results.",
    )
    moves.add_argument("position_id", metavar="ID",
                       help="GNU Backgammon position ID of the side on roll, or an XGID")
    # dice are read as text and checked in run_moves, so that a bad die gets the same single
    # error line as every other bad input instead of argparse's usage message
    moves.add_argument("die1", metavar="D1", nargs="?", help="first die, 1 to 6 (default: an XGID's dice)")
    moves.add_argument("die2", metavar="D2", nargs="?", help="second die, 1 to 6")
    moves.add_argument("--json", action="store_true", help="print machine-readable JSON")
    add_variant(moves)
    moves.set_defaults(handler=run_moves)


def add_variant(parser) -> None:
    parser.add_argument(
        "--variant", metavar="NAME", default=None,
        help=f"the game the position belongs to: {', '.join(VARIANTS)}.  A variant's position string "
        "names it already (ID.VARIANT[.handX-O][.nohit-SIDES], e.g. AAAAAAAAAAAAAA.dutch.hand15-15.nohit-xo, "
        "the Dutch start); a bare ID is read in this variant with nothing in hand; 'start' as ID is "
        "the variant's starting position (default: the one the position string names, else standard)")


def read_die(text: str) -> int:
    try:
        value = int(text.strip())
    except ValueError:
        raise RollError(f"a die is a number from 1 to 6, got {text!r}") from None
    if not 1 <= value <= 6:
        raise RollError(f"a die shows 1 to 6, got {value}")
    return value


def read_position(text: str, variant: str | None = None) -> Position:
    """A position string or an XGID (``POSITIONID:MATCHID`` too), seen from the side on roll;
    ``start`` is ``variant``'s starting position."""
    from bgsim.interchange.xgid import read_position_text

    if text == "start":
        return Position.start(variant or STANDARD)
    position, _ = read_position_text(text, variant)
    if position.checkers_off == position.checkers and position.opponent_checkers_off == position.checkers:
        # a game ends when the first side is off, so the other always has checkers left
        raise ValueError(f"impossible position {text!r}: both sides have borne off all {position.checkers} checkers")
    return position


def run_show(args) -> int:
    from bgsim.interchange.xgid import Xgid, from_match_state, looks_like_xgid
    from bgsim.match_id import decode, split_gnubg_id

    if looks_like_xgid(args.position_id):
        if args.match_id is not None:
            raise ValueError("an XGID holds the score and the cube: give no match ID with it")
        from bgsim.interchange.xgid import read_position_text

        _, xgid = read_position_text(args.position_id, args.variant)  # a variant's position is no XGID's
        print(read_position(xgid.position.position_id))
        print(f"{xgid.text}: {xgid.describe()}")
        return 0
    position_id, match_id = split_gnubg_id(args.position_id)
    if match_id is not None and args.match_id is not None:
        raise ValueError(f"two match IDs: {match_id!r} joined to the position ID and {args.match_id!r}")
    match_id = match_id if match_id is not None else args.match_id
    state = decode(match_id) if match_id is not None else None  # checked before any drawing
    position = read_position(position_id, args.variant)
    print(position)
    if position.variant == STANDARD:  # an XGID holds no checkers in hand
        xgid = from_match_state(position, state) if state is not None else Xgid(position=position)
        print(xgid.text)
    if state is not None:
        print(f"match ID {match_id}: {state.describe()}")
        if state.match_to:
            on_roll = state.on_roll
            print(f"X (player {on_roll}, on roll) needs {state.away(on_roll)}, "
                  f"O (player {1 - on_roll}) needs {state.away(1 - on_roll)}")
    return 0


def run_moves(args) -> int:
    from bgsim.interchange.xgid import read_position_text

    position = read_position(args.position_id, args.variant)
    state = None if args.position_id == "start" else read_position_text(args.position_id, args.variant)[1]
    if args.die1 is None or args.die2 is None:
        if args.die1 is not None or state is None or state.dice == (0, 0):
            raise RollError("give the roll as two dice D1 D2 (an XGID with its dice rolled may give them)")
        roll = state.dice
    else:
        roll = check_roll((read_die(args.die1), read_die(args.die2)))
    if position.finished:
        side = "X (on roll)" if position.checkers_off == position.checkers else "O"
        raise ValueError(f"the game is over in {position.position_string}: {side} has borne off "
                         f"all {position.checkers} checkers, so there is nothing to play")
    plays = legal_plays(position, roll)
    if args.json:
        print(json.dumps({
            "position_id": position.position_string,
            "xgid": xgid_of(position) if position.variant == STANDARD else None,
            "roll": list(roll),
            "count": len(plays),
            "plays": [{"play": play.notation, "position_id": play.result.position_string} for play in plays],
        }, indent=2))
        return 0
    print(f"{len(plays)} legal plays for {roll[0]}-{roll[1]} from {position.position_string}"
          + (" (the roll cannot be played)" if not plays else ""))
    width = max((len(play.notation) for play in plays), default=0)
    for play in plays:
        print(f"  {play.notation:<{width}}  {play.result.position_string}")
    return 0
