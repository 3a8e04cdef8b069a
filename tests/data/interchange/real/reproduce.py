"""Write the minimal reproductions of real writers' layouts in this folder (SOURCES.md says which
file reproduces what, and why a reproduction instead of the real file).

Each starts from games bgsim plays itself (fixed seeds, the reference engine), written by bgsim's
own .mat or SGF writer, then changed as the real writer writes: run ``python reproduce.py`` from
anywhere; the files it writes are committed, so the tests never run it.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[3]))

from bgsim.board import Position  # noqa: E402
from bgsim.cube import Rules  # noqa: E402
from bgsim.interchange.games import match_from_records  # noqa: E402
from bgsim.interchange.mat import write_mat  # noqa: E402
from bgsim.interchange.records import ROLL  # noqa: E402
from bgsim.interchange.sgf import write_sgf  # noqa: E402
from bgsim.match import play_match  # noqa: E402
from bgsim.rules import legal_plays  # noqa: E402
from bots import make_player  # noqa: E402

WHITE, BLACK = "heuristic+pipdiff", "pubeval+keith"


def players():
    return make_player(WHITE), make_player(BLACK)


def a_match(seed: int, number: int, match_to: int, names=("alice", "bob")):
    white, black = players()
    record = play_match(white, black, seed, number, match_to, trace=True)
    return match_from_records(record.games, names[0], names[1], Rules(), match_to)


def forced_rows(match) -> set[tuple[int, int]]:
    """(game index, action index) of each roll with exactly one legal play that moves a checker."""
    from bgsim.interchange.replay import find_play

    found = set()
    for index, game in enumerate(match.games):
        position = None
        for number, action in enumerate(game.actions):
            if action.kind != ROLL:
                continue
            position = position or Position.start()
            play, plays = find_play(position, action.dice, action.moves)
            if len(plays) == 1 and action.moves:
                found.add((index, number))
            if play is not None:
                position = play.result
            if position.finished:
                break
            position = position.turned()
    return found


def blank_forced_plays(text: str) -> str:
    """Each forced play's moves left out, as FIBS logs leave them (the server plays them)."""
    from bgsim.interchange.mat import read_mat

    match, _ = read_mat(text)
    lines = text.splitlines()
    for index, number in sorted(forced_rows(match)):
        action = match.games[index].actions[number]
        line = lines[action.line - 1]
        at = line.index(action.text)
        lines[action.line - 1] = line[:at] + action.text[:3] + " " * (len(action.text) - 3) + line[at + len(action.text):]
    return "\n".join(line.rstrip() for line in lines) + "\n"


def main() -> None:
    # FIBS logs leave forced plays blank: a 3-point match, each forced play's moves left out
    match = a_match(5, 0, 3, ("bgnori", "paul2205"))
    (HERE / "fibs_forced_blank.mat").write_text(blank_forced_plays(write_mat(match)))

    # a FIBS log taken up mid-match: one game at 6-5 of a 7-point match, the trailer doubling
    for number in range(60):
        match = a_match(7, number, 7)
        game = next((game for game in match.games
                     if any(action.kind == "double" for action in game.actions)), None)
        if game is None:
            continue
        doubler = next(action.side for action in game.actions if action.kind == "double")
        game.score = (5, 6) if doubler == 0 else (6, 5)
        game.number, game.crawford = 1, None
        match.games = [game]
        (HERE / "fibs_taken_up.mat").write_text(write_mat(match).replace(" Game 1", " Game 12"))
        break

    # a match-winning resignation written with the points the match needed, the cube on 2
    for number in range(80):
        match = a_match(11, number, 3, ("jjoker", "llabba"))
        last = match.games[-1]
        cube = 1
        for action in last.actions:
            if action.kind == "take":
                cube *= 2
        if cube == 2 and last.points and last.points >= 2 and len(match.games) >= 2:
            winner = last.winner
            needed = 3 - (last.score or (0, 0))[winner]
            if needed != 1:
                continue
            text = write_mat(match)
            head, _, tail = text.rpartition(" Game ")
            tail_lines = tail.splitlines()
            # the game stops before its last rolls: the loser resigned, as BackgammonGalaxy writes it
            rows = [index for index, line in enumerate(tail_lines) if re.match(r"^\s*\d+\)", line)]
            kept = tail_lines[:rows[len(rows) // 2]]
            end = " " * 6 if winner == 0 else " " * 34
            kept.append(f"{end}Wins 1 point and the match")
            (HERE / "match_winning_resignation.mat").write_text(head + " Game " + "\n".join(kept) + "\n\n")
            break

    # a log that stops in the middle of a game: the last roll written with '---'
    match = a_match(13, 0, 5, ("fibsfan", "logger"))
    text = write_mat(match)
    lines = text.splitlines()
    games = [index for index, line in enumerate(lines) if line.startswith(" Game ")]
    start = games[1] if len(games) > 1 else games[0]
    rows = [index for index, line in enumerate(lines) if index > start and re.match(r"^\s*\d+\)", line)]
    cut = rows[len(rows) // 2]
    last = lines[cut]
    found = re.match(r"^(\s*\d+\) )([1-6][1-6]): .*", last)
    lines = lines[:cut] + [f"{found.group(1)}{found.group(2)}: ---"]
    (HERE / "truncated_log.mat").write_text("\n".join(lines) + "\n")

    # the same game number twice (a writer that restarts its count)
    match = a_match(17, 0, 5)
    text = write_mat(match)
    if len(match.games) >= 3:
        text = text.replace(" Game 2\n", " Game 1\n", 1)
    (HERE / "duplicate_game_number.mat").write_text(text)

    # Gibbon's SGF: a resignation offered (resign:N, N the points), rejected, offered again, accepted
    match = a_match(19, 0, 5, ("JoeBlack", "SnowWhite"))
    game = match.games[0]
    loser, colours = 1 - game.winner, "WB"
    rolls = [index for index, action in enumerate(game.actions) if action.kind == ROLL]
    # keep the game until a roll of the winner's in its middle: the loser is to play next
    cut = next(index for index in rolls[len(rolls) // 2:] if game.actions[index].side == game.winner)
    cube = 2 ** sum(action.kind == "take" for action in game.actions[:cut + 1])
    game.actions = game.actions[:cut + 1]
    game.points = cube
    text = write_sgf(match, application="gibbon (libgsgf):0.2.0 (0.2.0)")
    first, _, rest = text.partition(")\n")
    first = first.replace(f"RE[{colours[game.winner]}+{cube}]", f"RE[{colours[game.winner]}+{cube}Resign]")
    first = first.replace(":CubeLimit=64", "") + (
        f"\n;{colours[loser]}[resign:{cube * 2}]\n;{colours[game.winner]}[reject]"
        f"\n;{colours[loser]}[resign:{cube}]\n;{colours[game.winner]}[accept])\n")
    rest = rest.replace(":CubeLimit=64", "")
    second = rest.split(")\n")[0] + ")\n" if rest.strip() else ""
    (HERE / "gibbon_resign.sgf").write_text(first + second)

    # a negative match length, and a UTF-16 file
    (HERE / "negative_length.mat").write_text(
        (HERE / "fibs_forced_blank.mat").read_text().replace(" 3 point match", " -5 point match"))
    (HERE / "utf16.mat").write_bytes(write_mat(a_match(5, 0, 3, ("Zoë", "Jürgen"))).encode("utf-16"))


if __name__ == "__main__":
    main()
