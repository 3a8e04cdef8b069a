"""SGF game records in GNU Backgammon's dialect (``GM[6]``).

A match is a sequence of game trees, one per game, as GNU Backgammon saves one::

    (;FF[4]GM[6]CA[UTF-8]AP[bgsim:0.1.0]MI[length:5][game:0][ws:0][bs:0]PW[white]PB[black]
    RU[Crawford]RE[W+2]
    ;W[31hefe]
    ;B[double]
    ;W[take]
    ;B[52...]
    ...)

The root node holds ``MI`` (match length, 0 for money; the game's index from 0; White's and
Black's scores before it), the players (``PW`` is player 0, bgsim's white), ``RU`` (rules joined
by colons: ``Crawford`` in a match with the Crawford rule, ``CrawfordGame`` for the Crawford
game itself, ``Jacoby``, ``NoCube``, and a variant: ``Nackgammon``, ``Hypergammon1`` .. ``3``; bgsim adds
``Beavers`` and ``CubeLimit=64``, which GNU Backgammon passes over), ``CV`` for automatic
doubles, ``RE`` the result (``W+2``; ``R`` after the points for a resignation).  Each move
node is ``W[...]`` or ``B[...]``: ``double``, ``take``, ``drop``, or the dice and the checker
moves as pairs of letters: ``a``..``x`` are White's points 1..24 (so Black's point ``p`` is
letter ``'x' - (p - 1)``), ``y`` the bar and ``z`` off.  A beaver is the taker's ``double``
answering a double, the doubler's ``take`` after it.  A game from a set position has a setup
node: ``PL[W]`` (White to play), ``AE[a:y]`` clears the board, ``AW`` and ``AB`` list each
checker's point.
"""

from __future__ import annotations

import re

from ..board import Position
from .records import (BEAVER, DOUBLE, DROP, RENUMBERED, RESIGN, ROLL, STANDARD, TAKE, UNFINISHED, Action, Game,
                      Match, MatchRules, Problem, RecordError, crawford_flags, first_match)

# the RU rule of each variant the format holds, as GNU Backgammon writes and reads it (sgf.c,
# aszSGFVariation); Dutch and acey-deucey have none
VARIANTS = {STANDARD: None, "nackgammon": "Nackgammon", "hypergammon1": "Hypergammon1",
            "hypergammon2": "Hypergammon2", "hypergammon3": "Hypergammon3"}
_COLOURS = "WB"


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("]", "\\]")


def _letter(point: int, side: int) -> str:
    """The SGF letter of ``point`` (25 bar, 0 off) in the numbering of player ``side``."""
    if point == 25:
        return "y"
    if point == 0:
        return "z"
    return chr(ord("a") + point - 1) if side == 0 else chr(ord("x") - (point - 1))


def _point(letter: str, side: int) -> int:
    if letter == "y":
        return 25
    if letter == "z" or not "a" <= letter <= "x":
        return 0
    index = ord(letter) - ord("a") if side == 0 else ord("x") - ord(letter)
    return index + 1


def check_sgf(match: Match) -> None:
    """Refuse, in one line, what an SGF record cannot hold."""
    if match.rules.variant not in VARIANTS:
        raise RecordError(f"an SGF record cannot hold the variant {match.rules.variant}: its RU rules "
                          "know the standard game, Nackgammon and Hypergammon1..3 only")


def write_sgf(match: Match, application: str | None = None) -> str:
    """The SGF text of ``match``: one game tree per game."""
    check_sgf(match)
    if application is None:
        from .. import __version__

        application = f"bgsim:{__version__}"
    flags = crawford_flags(match)
    return "".join(_game_tree(match, game, index, application, flags[index])
                   for index, game in enumerate(match.games))


def _game_tree(match: Match, game: Game, index: int, application: str, crawford: bool) -> str:
    rules = match.rules
    score = game.score or (0, 0)
    out = [f"(;FF[4]GM[6]CA[UTF-8]AP[{_escape(application)}]",
           f"MI[length:{match.match_to}][game:{index}][ws:{score[0]}][bs:{score[1]}]",
           f"PW[{_escape(match.players[0])}]PB[{_escape(match.players[1])}]"]
    if index == 0:
        for tag, name in (("DT", "EventDate"), ("EV", "Event"), ("RO", "Round"), ("PC", "Site"),
                          ("AN", "Transcriber")):
            if match.tags.get(name):
                value = match.tags[name].replace(".", "-") if tag == "DT" else match.tags[name]
                out.append(f"{tag}[{_escape(value)}]")
        if match.comments:
            out.append(f"GC[{_escape(chr(10).join(match.comments))}]")
    ru = []
    if not rules.cube:
        ru.append("NoCube")
    if match.match_to and rules.crawford:
        ru.append("Crawford")
        if game.crawford if game.crawford is not None else crawford:
            ru.append("CrawfordGame")
    if not match.match_to and rules.jacoby:
        ru.append("Jacoby")
    if not match.match_to and rules.beaver:
        ru.append("Beavers")
    if rules.cube and rules.cube_limit:
        ru.append(f"CubeLimit={rules.cube_limit}")
    if VARIANTS[rules.variant]:
        ru.append(VARIANTS[rules.variant])
    if ru:
        out.append(f"RU[{':'.join(ru)}]")
    if game.automatic_doubles:
        out.append(f"CV[{1 << game.automatic_doubles}]")
    if game.winner is not None and game.points is not None:
        out.append(f"RE[{_COLOURS[game.winner]}+{game.points}{'R' if game.resigned else ''}]")
    if game.start is not None:
        out.append(_setup_node(game.start, game.first))
    for action in game.actions:
        colour = _COLOURS[action.side]
        if action.kind == ROLL:
            moves = "".join(_letter(a, action.side) + _letter(b, action.side) for a, b in action.moves)
            out.append(f"\n;{colour}[{max(action.dice)}{min(action.dice)}{moves}]")
        elif action.kind in (DOUBLE, BEAVER):
            out.append(f"\n;{colour}[double]")
        elif action.kind == TAKE:
            out.append(f"\n;{colour}[take]")
        elif action.kind == DROP:
            out.append(f"\n;{colour}[drop]")
    out.append(")\n")
    return "".join(out)


def _setup_node(start: Position, first: int) -> str:
    """The node that sets the board: ``start`` seen from White, who is to play.  ``PL`` comes
    first, as GNU Backgammon writes it: it reads the properties in order, and ``PL`` turns the
    board it has to the side named."""
    if first != 0:
        raise RecordError("an SGF set-up board is written with White to play first; this game has Black first")
    board = start.board
    white = "".join(f"[{_letter(slot, 0)}]" * board[slot] for slot in range(25, 0, -1) if board[slot] > 0)
    black = "".join(f"[{_letter(25 - slot, 1)}]" * -board[slot] for slot in range(0, 25) if board[slot] < 0)
    text = "\n;PL[W]AE[a:y]"
    if white:
        text += "AW" + white
    if black:
        text += "AB" + black
    return text


# --- reading ---------------------------------------------------------------------------------


class _Node:
    def __init__(self, line: int) -> None:
        self.line = line
        self.properties: dict[str, list[str]] = {}


_TOKEN = re.compile(r"\s+|[();]|[A-Za-z]+|\[(?:[^\]\\]|\\.)*\]", re.DOTALL)
_UNESCAPE = re.compile(r"\\(.)", re.DOTALL)
CHUNK = 1 << 20


def _parse(text: str) -> list[list[_Node]]:
    """The game trees of an SGF text, each as its main line of nodes (RecordError when it ends
    inside one: :func:`iter_trees` keeps the trees before it)."""
    trees = []
    for nodes, cut in iter_trees([text]):
        if cut:
            raise RecordError(f"line {cut}: the file ends inside a game tree (a truncated file?)")
        trees.append(nodes)
    return trees


def iter_trees(chunks):
    """Each game tree of an SGF text given in pieces (``chunks``, for files of any size) as
    ``(nodes, cut)``: its main line of nodes (the first variation at every branch; GNU
    Backgammon writes none), and 0, or the line where the file ends inside it (a truncated file:
    the nodes read until there; a value cut in the middle is left out)."""
    buffer, line, depth = "", 1, 0
    nodes: list[_Node] = []
    keep: list[bool] = []  # per open level: whether its nodes are on the main line
    branched: list[bool] = []  # per open level: whether its first variation is over
    node: _Node | None = None
    name = ""
    for chunk in _chained(chunks, [None]):
        final = chunk is None
        if not final:
            buffer += chunk
        position = 0
        while position < len(buffer):
            found = _TOKEN.match(buffer, position)
            if found is None:
                if buffer[position] == "[":
                    break  # a value that goes on in the next piece, or the file ends inside it
                line += buffer[position] == "\n"
                position += 1  # a stray character: read past
                continue
            token = found.group()
            if found.end() == len(buffer) and not final and (token[0].isalpha() or token[0].isspace()):
                break  # a name (or blank) the next piece may go on with
            position = found.end()
            first = token[0]
            if first == "(":
                main = (not keep or keep[-1]) and not (branched and branched[-1])
                if branched:
                    branched[-1] = True  # only the first variation of a branch continues the main line
                if depth == 0:
                    nodes = []
                keep.append(main)
                branched.append(False)
                depth += 1
                node = None
            elif first == ")":
                if depth:
                    depth -= 1
                    keep.pop()
                    branched.pop()
                    node = None
                    if depth == 0:
                        yield nodes, 0
            elif first == ";":
                if depth:
                    node = _Node(line)
                    if keep[-1]:
                        nodes.append(node)
                    name = ""
            elif first == "[":
                if node is not None and name:
                    node.properties.setdefault(name, []).append(_UNESCAPE.sub(r"\1", token[1:-1]))
            elif first.isalpha():
                name = "".join(char for char in token if char.isupper())
            line += token.count("\n")
        buffer = buffer[position:]
    if depth:
        yield nodes, line


def read_sgf(text: str) -> tuple[Match, list]:
    """The match an SGF text holds and the problems met while reading it (see
    :func:`bgsim.interchange.mat.read_mat`).  RecordError when it is no backgammon SGF."""
    found = first_match(iter_sgf([text]))
    if found is None:  # pragma: no cover
        raise RecordError("the SGF file holds no game")
    return found


def iter_sgf(chunks):
    """The match of an SGF text given in pieces, as the trees come: ``(match, games)`` once,
    ``games`` yielding each game as it is read (see :func:`bgsim.interchange.mat.iter_mat`).
    RecordError when it is no backgammon SGF."""
    chunks = iter(chunks)
    head = ""
    for piece in chunks:
        head += piece
        if head.strip():
            break
    if head.startswith("\ufeff"):
        head = head[1:]
    if not head.lstrip().startswith("("):
        raise RecordError("not an SGF file: it does not start with '('")
    trees = iter_trees(_chained(head, chunks))
    first = next(trees, None)
    if first is None or not first[0]:
        raise RecordError("the SGF file holds no game")
    match = Match()
    rules = {"cube": True, "crawford": False, "jacoby": False, "beaver": False, "cube_limit": 0,
             "variant": STANDARD}
    _read_header(first[0][0], match)
    state = {"last": 0}
    games = _games(first, trees, match, rules, state)
    game = next(games)  # the first tree sets the rules
    match.rules = MatchRules(**{**rules, "crawford": rules["crawford"] or not match.match_to})
    yield match, _chained([game], games)


def _chained(first, rest):
    yield from first
    yield from rest


def _read_header(root: _Node, match: Match) -> None:
    props = root.properties
    game_type = (props.get("GM") or ["6"])[0].strip()
    if game_type != "6":
        raise RecordError(f"line {root.line}: GM[{game_type}] is not backgammon (GM[6])")
    info = _match_info(props.get("MI", []))
    match.match_to = info.get("length", 0)
    match.players = ((props.get("PW") or ["White"])[0], (props.get("PB") or ["Black"])[0])
    for tag, name in (("DT", "EventDate"), ("EV", "Event"), ("RO", "Round"), ("PC", "Site"),
                      ("AN", "Transcriber")):
        if props.get(tag):
            match.tags[name] = props[tag][0]
    if props.get("GC"):
        match.comments.extend(props["GC"][0].splitlines())


def _games(first, trees, match: Match, rules: dict, state: dict):
    for index, (tree, cut) in enumerate(_chained([first], trees)):
        if not tree:
            continue
        yield _game_of(tree, cut, index, match, rules, state)


def _game_of(tree, cut: int, index: int, match: Match, rules: dict, state: dict) -> Game:
    root = tree[0]
    props = root.properties
    game_type = (props.get("GM") or ["6"])[0].strip()
    info = _match_info(props.get("MI", []))
    written = info.get("game", index) + 1
    game = Game(number=written, line=root.line, end_line=root.line)
    if written <= state["last"]:
        game.number, game.written = state["last"] + 1, written
        game.problems.append(Problem(root.line, game.number, (
            f"the file calls this game 'game:{written - 1}' again (after game {state['last']}): read as game "
            f"{game.number}, in the file's order"), kind=RENUMBERED))
    state["last"] = game.number
    if game_type != "6":
        game.rejected = Problem(root.line, game.number, f"GM[{game_type}] is not backgammon (GM[6])", rejected=True)
        return game
    if "ws" in info or "bs" in info:
        game.score = (info.get("ws", 0), info.get("bs", 0))
    ru = set((props.get("RU") or [""])[0].split(":"))
    if "Crawford" in ru:
        rules["crawford"] = True
    if "Jacoby" in ru:
        rules["jacoby"] = True
    if "NoCube" in ru:
        rules["cube"] = False
    if "Beavers" in ru:
        rules["beaver"] = True
    for token in ru:
        if token.startswith("CubeLimit=") and token[len("CubeLimit="):].isdigit():
            rules["cube_limit"] = int(token[len("CubeLimit="):])
    for name, tag in VARIANTS.items():
        if tag and tag in ru:
            rules["variant"] = name
    if match.match_to and "Crawford" in ru:
        game.crawford = "CrawfordGame" in ru
    if props.get("CV"):
        value = props["CV"][0].strip()
        if value.isdigit() and int(value) > 1:
            game.automatic_doubles = int(value).bit_length() - 1
    if props.get("RE"):
        _read_result(props["RE"][0], game)
    try:
        _read_nodes(tree, game, rules["variant"])
    except RecordError as error:
        line = getattr(error, "line", root.line)
        game.rejected = Problem(line, game.number, str(error), rejected=True)
    if cut:
        game.problems.append(Problem(cut, game.number, (
            "the file ends inside this game (a truncated file?): it is read as far as it goes"
            if game.actions else "the file ends inside this game, before its first roll (a truncated file?)"),
            kind=UNFINISHED))
        game.winner = game.points = None
    return game


def _match_info(values: list[str]) -> dict[str, int]:
    info = {}
    for value in values:
        key, _, number = value.partition(":")
        if key.strip() in ("length", "game", "ws", "bs") and re.fullmatch(r"\s*\d+\s*", number):
            info[key.strip()] = int(number)
    return info


def _read_result(text: str, game: Game) -> None:
    found = re.fullmatch(r"\s*([WBwb])\+(\d+)\s*([Rr]?).*", text)
    if found:
        game.winner = "WB".index(found.group(1).upper())
        game.points = max(1, int(found.group(2)))
        game.resigned = bool(found.group(3))


class _NodeError(RecordError):
    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line


def _read_nodes(tree: list[_Node], game: Game, variant: str = STANDARD) -> None:
    """The game's actions; the values a double and a beaver turn the cube to follow from the
    cube (SGF does not write them)."""
    setup: dict[str, list[str]] = {}
    cube = 1 << game.automatic_doubles
    offered = 1  # what a take multiplies the cube by: 2 after a double, 4 after a beaver
    resigning: tuple[int, int, int] | None = None  # (side, level, line) of a resignation offered
    for node in tree:
        props = node.properties
        rolled = _rolled_only(props)
        if rolled is not None and game.actions:
            # GNU Backgammon saves a roll its import found no play for (rolled, then resigned) as
            # PL[W]DI[32]: the dice of that player, no board set
            side, dice = rolled
            game.actions.append(Action(ROLL, side, dice=dice, line=node.line, text=f"DI[{dice[0]}{dice[1]}]"))
            continue
        for name in ("AE", "AW", "AB", "PL"):
            if name in props:
                if game.actions:
                    raise _NodeError(node.line, "the board is set up in the middle of the game: "
                                     "bgsim replays games from their start only")
                setup[name] = props[name]
        if "DI" in props or "CP" in props or ("CV" in props and node is not tree[0]):
            raise _NodeError(node.line, "dice, cube value or cube owner set by hand in the middle of "
                             "the game: bgsim replays games as played only")
        for colour in ("W", "B"):
            if colour not in props:
                continue
            side = "WB".index(colour)
            value = props[colour][0].strip()
            lower = value.lower()
            if lower == "double":
                last = game.actions[-1] if game.actions else None
                kind = BEAVER if last is not None and last.kind == DOUBLE and last.side != side else DOUBLE
                offered = 4 if kind == BEAVER else 2
                game.actions.append(Action(kind, side, value=cube * offered, line=node.line, text=value))
            elif lower in ("take", "drop"):
                if lower == "take":
                    cube *= offered
                game.actions.append(Action(TAKE if lower == "take" else DROP, side, line=node.line, text=value))
            elif lower.startswith("resign:"):
                # Gibbon's resignation: resign:N, then accept or reject by the other side.  N is
                # the points offered, as FIBS offers them (its files: resign:2 with the cube on 2,
                # and RE[W+2]); the replay reads the points as GNU Backgammon reads a .mat's Wins
                points = lower[len("resign:"):].strip()
                if not points.isdigit() or int(points) < 1:
                    raise _NodeError(node.line, f"{colour}[{value}]: a resignation offers a number of points")
                resigning = (side, int(points), node.line)
            elif lower in ("accept", "reject"):
                if resigning is None or resigning[0] == side:
                    raise _NodeError(node.line, f"{colour}[{value}] answers no resignation of the other side")
                if lower == "accept":
                    game.actions.append(Action(RESIGN, side, value=resigning[1], line=node.line,
                                               text=f"resign:{resigning[1]}, accepted"))
                resigning = None
            elif lower == "resign" or lower == "":
                continue
            else:
                found = re.fullmatch(r"([1-6])([1-6])([a-z]*)", value)
                if not found or len(found.group(3)) % 2:
                    raise _NodeError(node.line, f"{colour}[{value}] is not a roll and its moves "
                                     "(two dice, then pairs of letters a-z)")
                letters = found.group(3)
                moves = tuple((_point(letters[i], side), _point(letters[i + 1], side))
                              for i in range(0, len(letters), 2))
                if len(moves) > 4:
                    raise _NodeError(node.line, f"{colour}[{value}] moves more than four checkers")
                game.actions.append(Action(ROLL, side, dice=(int(found.group(1)), int(found.group(2))),
                                           moves=moves, line=node.line, text=value))
    if setup:
        game.start, game.first = _setup_position(setup, tree[0].line, variant)


def _rolled_only(props: dict) -> tuple[int, tuple[int, int]] | None:
    """(player, dice) of a node that only sets whose turn it is and the dice (``PL[W]DI[32]``)."""
    if set(props) != {"PL", "DI"}:
        return None
    player, dice = props["PL"][0].strip().upper()[:1], props["DI"][0].strip()
    if player not in ("W", "B") or not re.fullmatch(r"[1-6][1-6]", dice):
        return None
    return "WB".index(player), (int(dice[0]), int(dice[1]))


def _setup_position(setup: dict[str, list[str]], line: int, variant: str = STANDARD) -> tuple[Position, int]:
    if "AE" not in setup or not any(value.strip() in ("a:y", "a:z") for value in setup["AE"]):
        raise _NodeError(line, "a set-up board must clear every point first (AE[a:y])")
    board = [0] * 26  # from White
    for value in setup.get("AW", []):
        for letter in _letters(value, line):
            board[_point(letter, 0)] += 1
    for value in setup.get("AB", []):
        for letter in _letters(value, line):
            point = _point(letter, 1)
            board[25 - point] -= 1
    if setup.get("PL", ["W"])[0].strip().upper()[:1] == "B":
        raise _NodeError(line, "a set-up board with Black to play first: bgsim reads set-up games "
                         "with White to play (PL[W]), as it writes them")
    try:
        position = Position(tuple(board), variant)
    except ValueError as error:
        raise _NodeError(line, f"the set-up board is impossible: {error}") from None
    return position, 0


def _letters(value: str, line: int) -> list[str]:
    value = value.strip()
    if re.fullmatch(r"[a-y]:[a-y]", value):
        return [chr(code) for code in range(ord(value[0]), ord(value[2]) + 1)]
    if re.fullmatch(r"[a-y]", value):
        return [value]
    raise _NodeError(line, f"[{value}] is not a point of the set-up board")
