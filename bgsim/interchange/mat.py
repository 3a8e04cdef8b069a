"""Jellyfish ``.mat`` match files, as GNU Backgammon writes them and as eXtreme Gammon writes them.

The layout (GNU Backgammon's ``export match mat``)::

    ; [Site "bgsim"]                       <- optional header tags and comments
                                           <- a blank line
     5 point match                         <- " 0 point match" for a money session
                                           <- a blank line
     Game 1
     white : 0                      black : 0
      1) 31: 8/5 6/5                 52: 13/11 13/8
      2)  Doubles => 2                Takes
      ...
          Wins 1 point

Each game opens with `` Game k`` and a line of both players' names and scores (the left one
is player 0).  Then numbered rows of two columns, player 0 on the left (``"%3d) %-27s "``),
player 1 on the right; a game that player 1 opens leaves the first left cell empty.  A cell is a
roll and its checker moves (``52: 13/8 13/11``: one ``from/to`` per die, each checker of a double
written separately, 25 for the bar, 0 for off, ``*`` on a hit; the dice alone when the roll
cannot be played), `` Doubles => 4``, `` Takes``, `` Drops``.  The game ends with
``Wins N point(s)`` under the winner's column (indented 6 for the left player, 34 for the right).
A beaver is eXtreme Gammon's `` Beavers => 4`` in the taker's cell, the doubler's take unsaid.
A variant is a header tag: ``; [Variation "NackGammon"]``, ``; [Variation "HyperGammon (3)"]``
(GNU Backgammon's tags; the standard game has none or ``"Backgammon"``); Dutch and acey-deucey
have no tag, and a file holds two players and one cube, never a chouette.

The reader tolerates what real files hold, as GNU Backgammon 1.07's importer does (import.c):
a byte-order mark, ``;`` and ``#`` comment lines, header tags it does not know, ``Beavers``,
resignations (a ``Wins`` line the board does not explain, ``Wins 1 point and the match``),
BackgammonGalaxy's ``Losses N points`` beside the winner's cell (read past), ``Cannot Move``,
``???`` (eXtreme Gammon's roll before a resignation) and ``---`` (a log's roll not yet played),
a roll without its play (FIBS leaves forced plays blank: the replay fills them in), combined moves
(``61: 11/4``), ``bar`` and ``off``, names with spaces or a rating (``zoonk,1666``), a left
score that runs into the right name (GNU Backgammon's own ``%-31s`` field: ``...HARMAND : 0Johan``),
other column widths, a game number given twice (read in the file's order, renumbered with a
warning), and several matches one after another in one file.  A negative match length is
refused, as GNU Backgammon refuses it; a game it cannot read stays in the match, marked
(``Game.rejected``), so that the games after it still know where the match stands.
"""

from __future__ import annotations

import re

from collections.abc import Iterable

from .records import (BEAVER, DOUBLE, DROP, RENUMBERED, ROLL, STANDARD, TAKE, Action, Game, Match, MatchRules,
                      Problem, RecordError, apply_steps, first_match, format_steps, parse_moves)

LEFT_WIDTH = 27
RIGHT_COLUMN = 33  # where GNU Backgammon starts the right cell: "%3d) " and 27 + 1 characters
# the Variation tag of each variant the format holds, as GNU Backgammon writes it (its export.c,
# ExportMatchMat) and reads it (import.c, ImportMatVariation); Dutch and acey-deucey have none
VARIANTS = {STANDARD: None, "nackgammon": "NackGammon", "hypergammon1": "HyperGammon (1)",
            "hypergammon2": "HyperGammon (2)", "hypergammon3": "HyperGammon (3)"}
_READ_VARIANTS = {"backgammon": STANDARD, "standard": STANDARD, "nackgammon": "nackgammon",
                  "hypergammon (1)": "hypergammon1", "hypergammon (2)": "hypergammon2",
                  "hypergammon (3)": "hypergammon3", "hypergammon": "hypergammon3"}
HEADER_TAGS = ("Site", "Event", "Round", "EventDate", "EventTime", "Transcriber")


# --- writing ---------------------------------------------------------------------------------


def check_mat(match: Match) -> None:
    """Refuse, in one line, what a ``.mat`` file cannot hold."""
    if match.rules.variant not in VARIANTS:
        raise RecordError(f"a .mat file cannot hold the variant {match.rules.variant}: its Variation tag "
                          "knows the standard game, Nackgammon and hypergammon only")
    for game in match.games:
        if game.start is not None:
            raise RecordError("a .mat file starts every game from the opening, not from a set position "
                              "(a run's [starts]): write SGF instead")
        if game.automatic_doubles:
            raise RecordError("a .mat file cannot hold automatic doubles: write SGF instead")


def _name(text: str) -> str:
    # GNU Backgammon reads a comma in a name as the start of a rating, and a colon ends the name
    return text.replace(",", ";").replace(":", "=").replace("\n", " ").strip() or "?"


def _points(n: int) -> str:
    return f"Wins {n} point{'' if n == 1 else 's'}"


def write_mat(match: Match) -> str:
    """The ``.mat`` text of ``match``; RecordError when the format cannot hold it."""
    check_mat(match)
    out: list[str] = []
    tags = dict(match.tags)
    rules = match.rules
    if rules.variant != STANDARD:
        tags["Variation"] = VARIANTS[rules.variant]
    if match.match_to:
        tags.setdefault("Crawford", "On" if rules.crawford else "Off")
    else:
        tags.setdefault("Jacoby", "On" if rules.jacoby else "Off")
        tags.setdefault("Beaver", "On" if rules.beaver else "Off")
    if not rules.cube:
        tags["CubeLimit"] = "1"
    elif rules.cube_limit:
        tags.setdefault("CubeLimit", str(rules.cube_limit))
    order = [name for name in HEADER_TAGS if name in tags] + sorted(set(tags) - set(HEADER_TAGS))
    for name in order:
        out.append(f'; [{name} "{tags[name]}"]\n')
    for comment in match.comments:
        out.append(f"; {comment}\n")
    out.append("\n")
    out.append(f" {match.match_to} point match\n\n")
    names = tuple(_name(name) for name in match.players)
    for game in match.games:
        out.append(_game_text(game, names, rules.variant))
    return "".join(out)


def _game_text(game: Game, names: tuple[str, str], variant: str = STANDARD) -> str:
    score = game.score or (0, 0)
    left = f"{names[0]} : {score[0]}"
    # GNU Backgammon's 31 characters, and a space after a longer left part so the names stay apart
    lines = [f" Game {game.number}\n", f" {left:<31s}{' ' if len(left) >= 31 else ''}{names[1]} : {score[1]}\n"]
    text: list[str] = []
    slot = 0  # even: the left cell of row slot // 2 + 1 is next; odd: the right one

    def put(entry: str) -> None:
        nonlocal slot
        if slot % 2:
            text.append(entry + "\n")
        else:
            text.append(f"{slot // 2 + 1:3d}) {entry:<{LEFT_WIDTH}s} ")
        slot += 1

    def skip_to(side: int) -> None:
        nonlocal slot
        if slot % 2 != side:
            if slot % 2:
                text.append("\n")
            else:
                text.append(f"{slot // 2 + 1:3d}) {'':<{LEFT_WIDTH}s} ")
            slot += 1

    boards = [_start_board(variant), _start_board(variant)]  # each player's board, from that player
    cube = 1
    actions = game.actions
    for index, action in enumerate(actions):
        if action.kind == TAKE and index and actions[index - 1].kind == BEAVER:
            continue  # the doubler takes a beaver unsaid
        skip_to(action.side)
        if action.kind == ROLL:
            board = boards[action.side]
            moves = format_steps(action.moves, board)
            entry = f"{max(action.dice)}{min(action.dice)}: " + "".join(
                move + (" " if number < 3 else "") for number, move in enumerate(moves))
            after = apply_steps(board, action.moves)
            boards[action.side] = after
            boards[1 - action.side] = [-after[25 - slot_] for slot_ in range(26)]
            put(entry)
            if sum(count for count in after if count > 0) == 0 and game.points is not None:
                text.append((" " * 34 if slot % 2 == 0 else "\n      ") + _points(game.points) + "\n\n")
                return "".join(lines + text)
        elif action.kind in (DOUBLE, BEAVER):
            cube = action.value or cube * (2 if action.kind == DOUBLE else 4)
            put(f" {'Doubles' if action.kind == DOUBLE else 'Beavers'} => {cube}")
        elif action.kind == TAKE:
            put(" Takes")
        elif action.kind == DROP:
            points = game.points if game.points is not None else cube // 2
            right = slot % 2
            put(" Drops" + ("\n      " if right else " " * 23) + _points(points))
            text.append("\n" if right else "\n\n")
            return "".join(lines + text)
    if game.winner is not None and game.points is not None:  # a resignation
        if slot % 2:
            text.append("\n")
        text.append((" " * 6 if game.winner == 0 else " " * 34) + _points(game.points) + "\n\n")
    elif slot % 2:
        text.append("\n")
    return "".join(lines + text)


def _start_board(variant: str) -> list[int]:
    from ..board import Position

    return list(Position.start(variant).board)


# --- reading ---------------------------------------------------------------------------------

_MATCH_LINE = re.compile(r"^\s*(-?\d+)\s*[Pp]oint\s+[Mm]atch\b")
_GAME_LINE = re.compile(r"^\s*Game\s+(\d+)\s*$", re.IGNORECASE)
# the left score may run into the right name: GNU Backgammon writes the left part as "%-31s"
_SCORE_LINE = re.compile(r"^\s*(.*?)\s*:\s*(\d+)\s*(.*?)\s*:\s*(\d+)\s*$")
_RATING = re.compile(r"\s*,\s*[-\d.]*$")  # FIBS and GamesGrid write "name,1666"
_TAG = re.compile(r'^\[\s*([A-Za-z][A-Za-z0-9 ]*?)\s+"(.*)"\s*\]\s*$')
_NUMBER = re.compile(r"^\s*(\d+)\)")
_ENTRY = re.compile(
    r"(?<![\d/*])([1-6][1-6]):|\b(Doubles|Beavers|Raccoons|Takes|Drops|Wins|Losses|Resigns?)\b", re.IGNORECASE)
_WINS = re.compile(r"Wins\s+(\d+)\s+points?", re.IGNORECASE)
_VALUE = re.compile(r"=>\s*(\d+)")
_PLACEHOLDER = re.compile(r"^-+$")  # "53: ---": a roll whose play the log has not written
_STATEMENTS = ("wins", "losses", "resign")  # cells that state the end, not an action
_ROW_AGAIN = re.compile(r"\s+\d+\)\s*$")


def _strip_comment(line: str) -> str | None:
    stripped = line.strip()
    if stripped.startswith((";", "#")):
        return stripped[1:].strip()
    return None


def read_mat(text: str) -> tuple[Match, list]:
    """The first match a ``.mat`` text holds and the problems met while reading it (each a
    :class:`~bgsim.interchange.records.Problem`; a game with one that is ``rejected`` is left
    out of ``match.games``).  RecordError when the text is no ``.mat`` file at all."""
    found = first_match(iter_mat(text.splitlines()))
    if found is None:  # pragma: no cover
        raise RecordError("not a .mat file: it has no 'N point match' line and no 'Game 1'")
    return found


def iter_mat(lines: Iterable[str]):
    """Each match of a ``.mat`` text as the lines come, for files of any size: ``(match, games)``
    where ``games`` yields each :class:`Game` once it is read, the ones the reader could not read
    among them (``game.rejected`` says why), so that the games after them still know the score.
    A file may hold several matches, each from its own ``N point match`` line.  RecordError when
    the text is no ``.mat`` file at all, or a match length is negative (as GNU Backgammon, which
    refuses such a file)."""
    reader = _MatReader(lines)
    first = True
    while True:
        match = reader.header(first)
        if match is None:
            return
        first = False
        games = reader.games(match)
        yield match, games
        for _ in games:  # what the caller left unread of this match
            pass


class _MatReader:
    """The state of one pass over a ``.mat`` file's lines (see :func:`iter_mat`)."""

    def __init__(self, lines: Iterable[str]) -> None:
        self.lines = iter(enumerate(lines, 1))
        self.back: tuple[int, str] | None = None
        self.pending_tags: list[tuple[int, str]] = []  # comment lines after the games: the next match's
        self.more = False  # a match line was met while reading games: another match follows

    def _next(self) -> tuple[int, str] | None:
        if self.back is not None:
            found, self.back = self.back, None
            return found
        found = next(self.lines, None)
        if found is not None and found[0] == 1 and found[1].startswith("\ufeff"):
            found = (1, found[1][1:])
        return found

    def header(self, first: bool) -> Match | None:
        match = Match()
        rules = {"jacoby": False, "beaver": False, "crawford": True, "cube": True, "cube_limit": 0,
                 "variant": STANDARD}
        comments, self.pending_tags = self.pending_tags, []
        found = None
        while True:
            item = self._next()
            if item is None:
                if first:
                    raise RecordError("not a .mat file: it has no 'N point match' line and no 'Game 1'")
                return None
            number, line = item
            comment = _strip_comment(line)
            if comment is not None:
                comments.append((number, comment))
                continue
            found = _MATCH_LINE.match(line)
            if found:
                break
            if _GAME_LINE.match(line):
                self.back = item  # a session without its header: GNU Backgammon's single-game export
                break
        for number, comment in comments:
            tag = _TAG.match(comment)
            if tag:
                try:
                    _read_tag(tag.group(1), tag.group(2), match, rules)
                except RecordError as error:
                    raise RecordError(f"line {number}: {error}") from None
            elif comment:
                match.comments.append(comment)
        if found is not None:
            length = int(found.group(1))
            if length < 0:
                raise RecordError(f"line {number}: the match length is {length}: a match is 1 or more points, "
                                  "a money session 0 (GNU Backgammon refuses this file too)")
            match.match_to = length
        match.rules = MatchRules(**rules)
        return match

    def games(self, match: Match):
        right_starts: list[int] = []
        game: Game | None = None
        expect_score = False
        last_number = 0
        loose: list[Problem] = []  # text before the first game: said with the first game
        while True:
            item = self._next()
            if item is None:
                break
            number, line = item
            if not line.strip():
                continue
            comment = _strip_comment(line)
            if comment is not None:
                self.pending_tags.append((number, comment))
                continue
            if _MATCH_LINE.match(line):
                self.back = item
                break
            self.pending_tags = []  # comments among the games were no header of another match
            started = _GAME_LINE.match(line)
            if started:
                if game is not None:
                    yield game
                written = int(started.group(1))
                game = Game(number=written, line=number)
                game.problems.extend(loose)
                loose = []
                if written <= last_number:
                    game.number = last_number + 1
                    game.written = written
                    game.problems.append(Problem(number, game.number, (
                        f"the file calls this game 'Game {written}' again (after game {last_number}): read "
                        f"as game {game.number}, in the file's order"), kind=RENUMBERED))
                last_number = game.number
                expect_score = True
                continue
            if game is None:
                loose.append(Problem(number, None, f"text before the first game: {line.strip()!r} (read past)"))
                continue
            if expect_score:
                expect_score = False
                scored = _SCORE_LINE.match(line)
                if not scored:
                    if game.rejected is None:
                        game.rejected = Problem(number, game.number, "expected the players' names and scores, "
                                                f"got {line.strip()!r}", rejected=True)
                    continue
                if match.players == Match().players:
                    match.players = (_name_of(scored.group(1)), _name_of(scored.group(3)))
                game.score = (int(scored.group(2)), int(scored.group(4)))
                continue
            try:
                _read_row(line, number, game, _threshold(right_starts), right_starts, game.rejected is not None)
            except RecordError as error:
                if game.rejected is None:
                    game.rejected = Problem(number, game.number, str(error), rejected=True)
        if game is not None:
            yield game


def _name_of(text: str) -> str:
    return _RATING.sub("", text).strip() or text.strip()


def _read_tag(name: str, value: str, match: Match, rules: dict) -> None:
    key = name.strip()
    lower = key.lower()
    on = value.strip().lower() in ("on", "yes", "true", "1")
    if lower == "jacoby":
        rules["jacoby"] = on
    elif lower in ("beaver", "beavers"):
        rules["beaver"] = on
    elif lower == "crawford":
        rules["crawford"] = on
    elif lower == "cubelimit":
        if value.strip().isdigit():
            limit = int(value.strip())
            if limit <= 1:
                rules["cube"] = False
            else:
                rules["cube_limit"] = limit
    elif lower == "variation":
        wanted = " ".join(value.strip().lower().split())
        if wanted not in _READ_VARIANTS:
            raise RecordError(f"the file's variation {value.strip()!r} is not one bgsim replays (it knows "
                              "Backgammon, NackGammon and HyperGammon (1), (2), (3))")
        rules["variant"] = _READ_VARIANTS[wanted]
    match.tags[key] = value


def _threshold(right_starts: list[int]) -> int:
    """Where the right column begins in this file: halfway to the first right cell seen on a
    row with two cells, else GNU Backgammon's layout."""
    right = min(right_starts) if right_starts else RIGHT_COLUMN
    return max(12, (right + 6) // 2)


def _read_row(line: str, number: int, game: Game, threshold: int, right_starts: list[int],
              ends_only: bool = False) -> None:
    """One numbered row (or an end line) into ``game``; ``ends_only``: the game is already left
    out, only its end is read (the games after it follow from it)."""
    numbered = _NUMBER.match(line)
    body_start = numbered.end() if numbered else 0
    matches = [m for m in _ENTRY.finditer(line, body_start)]
    if not matches:
        if line[body_start:].strip() and not ends_only:
            raise RecordError(f"cannot read {line.strip()!r}")
        return
    spans = []
    for position, found in enumerate(matches):
        end = matches[position + 1].start() if position + 1 < len(matches) else len(line)
        # BackgammonGalaxy may number the right cell's row again ("43: 21/18  24)  Losses ...")
        spans.append((found.start(), _ROW_AGAIN.sub("", line[found.start():end]).strip()))
    head = line[body_start:matches[0].start()].strip()
    if head and not ends_only:
        raise RecordError(f"cannot read {head!r} in {line.strip()!r}")
    cells = [span for span in spans if not span[1].lower().startswith(_STATEMENTS)]
    if len(cells) == 2:
        right_starts.append(cells[1][0])
    if not ends_only:
        for position, (start, cell) in enumerate(cells):
            if len(cells) == 2:
                side = position
            else:
                side = 0 if start < threshold else 1
            _read_cell(cell, side, number, game)
    for start, cell in spans:
        lower = cell.lower()
        if lower.startswith("wins"):
            won = _WINS.match(cell)
            if not won:
                if ends_only:
                    continue
                raise RecordError(f"cannot read {cell!r}: expected 'Wins N points'")
            game.winner = 0 if start < threshold else 1
            game.points = int(won.group(1))
            game.end_line = number
        # "Losses N points" (BackgammonGalaxy's loser's cell) says what the Wins cell says:
        # read past, as GNU Backgammon reads past it


def _read_cell(cell: str, side: int, number: int, game: Game) -> None:
    lower = cell.lower()
    actions = game.actions
    if re.match(r"[1-6][1-6]:", cell):
        dice = (int(cell[0]), int(cell[1]))
        moves_text = cell[3:].strip()
        if (moves_text.lower().startswith("cannot move") or moves_text.startswith("?")
                or _PLACEHOLDER.match(moves_text)):
            moves_text = ""
        if moves_text.lower().startswith("illegal play"):
            raise RecordError("an 'Illegal play' record (a position edited during the game) cannot be replayed")
        try:
            moves = parse_moves(moves_text)
        except RecordError as error:
            raise RecordError(f"{cell!r}: {error}") from None
        if actions and actions[-1].kind == BEAVER:  # the doubler took the beaver unsaid
            actions.append(Action(TAKE, 1 - actions[-1].side, line=number, text="(takes the beaver)"))
        actions.append(Action(ROLL, side, dice=dice, moves=moves, line=number, text=cell))
    elif lower.startswith("doubles"):
        value = _VALUE.search(cell)
        actions.append(Action(DOUBLE, side, value=int(value.group(1)) if value else 0, line=number, text=cell))
    elif lower.startswith("beavers"):
        value = _VALUE.search(cell)
        actions.append(Action(BEAVER, side, value=int(value.group(1)) if value else 0, line=number, text=cell))
    elif lower.startswith("raccoons"):
        raise RecordError("a raccoon (a beaver redoubled at once) is beyond bgsim's rules")
    elif lower.startswith("takes"):
        actions.append(Action(TAKE, side, line=number, text=cell))
    elif lower.startswith("drops"):
        actions.append(Action(DROP, side, line=number, text=cell))
    else:  # pragma: no cover - _ENTRY finds only the cells above
        raise RecordError(f"cannot read {cell!r}")
