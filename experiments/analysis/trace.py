"""A game or match turn by turn, with GNU Backgammon's IDs at each turn (``bgsim trace``).

Each turn prints ``POSITIONID:MATCHID`` as GNU Backgammon writes it (paste it into GNU
Backgammon, or into ``bgsim show``; in a variant the bgsim position string with its variant's
name, and no XGID), taken at the start of the turn: the position seen from the
side on roll, and the match ID's score, cube (before any double of that turn), Crawford state and
player on roll (white is player 0, black player 1).  Played by the reference engine, which plays
the fast engine's games exactly.
"""

from __future__ import annotations

from bgsim.cube import Rules
from bgsim.match_id import MatchState, encode

PLAYERS = {"white": 0, "black": 1}


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


def turn_xgid(gnubg_id: str, rules: Rules) -> str:
    """The XGID of a turn's ``POSITIONID:MATCHID`` (the side on roll at the bottom); ``-`` in a
    variant, whose positions are bgsim position strings (an XGID holds the standard game's)."""
    from bgsim.board import Position
    from bgsim.variants import STANDARD

    if rules.variant != STANDARD:
        return "-"
    from bgsim.interchange.xgid import from_match_state
    from bgsim.match_id import decode, split_gnubg_id

    position_id, match_id = split_gnubg_id(gnubg_id)
    return from_match_state(Position.from_position_id(position_id), decode(match_id), beaver=rules.beaver,
                            cube_limit=rules.max_cube).text


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
        lines.append(f"  {ply.ply:3d} {ply.side:5s} {gnubg_id}  {turn_xgid(gnubg_id, rules)}{action}{roll}")
    counted = f", {record.points_counted} counted" if match and record.points_counted != record.points else ""
    lines.append(f"  {record.winner} wins {record.points} point{'s' if record.points != 1 else ''} "
                 f"({record.result}, cube {record.cube_value}{counted})")
    if getattr(record, "forfeit", ""):
        lines.append(f"  {record.forfeit} forfeited: {record.forfeit_reason}")
    return lines
