"""GNU Backgammon's program (``gnubg``), driven as ``gnubg -t -q`` with a script on stdin.

One process runs a whole batch: hundreds of positions, or whole matches, per call.  The script's
sections are separated by a word gnubg does not know (``bgsim_mark_7``), which it answers with
``Unknown keyword `bgsim_mark_7'.``; the output is split there, so every answer is read from its
own section whatever else gnubg prints around it.

Two users:

* reading bgsim's exports: :func:`check_import` (gnubg imports a ``.mat`` or SGF file, saves it
  back as SGF, analyses it and reports its statistics: the counts of games, moves and cube
  actions it read and anything it complained about), :func:`analyse_games` (per-game error
  statistics at a chosen ply);
* judging cube decisions: :func:`cube_decisions` (for positions with their cube and score, the
  cubeless chances and the cubeful equities of no double, double/take and double/pass and the
  proper action, at a chosen ply).

Equities are GNU Backgammon's: money equity per unit cube, and in a match the same scale
("EMG", equivalent money game), ``set output mwc off``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path

from bgsim.interchange.xgid import to_match_state
from bgsim.match_id import encode as encode_match_id
from experiments.errors import MissingDependency, ToolFailed

INSTALL_HINT = ("GNU Backgammon's program gnubg is not installed or not found (looked on PATH and at "
                "/usr/games/gnubg): install it (on Debian/Ubuntu: apt-get install gnubg)")
DEBIAN_PATH = "/usr/games/gnubg"
MARK = "bgsim_mark_"
_MARK_LINE = re.compile(r"Unknown keyword `" + MARK + r"(\d+)'\.")
# what gnubg says when a file does not read cleanly (import.c, sgf.c)
COMPLAINTS = re.compile(
    r"warning|invalid|unrecogni[sz]ed|not a valid|doesn't follow|does not follow|garbage|illegal|"
    r"\berror\b(?! (?:total|rate|based))|failed|cannot|can't|no game in progress|"
    r"unknown keyword `(?!" + MARK + ")",
    re.IGNORECASE)
QUIET_SETUP = (
    "set confirm new off",
    "set confirm save off",
    "set automatic game off",
    "set automatic roll off",
    "set player 0 human",
    "set player 1 human",
    "set output mwc off",
    "set output digits 5",
)


class GnubgError(ToolFailed):
    """gnubg ran but did not answer as expected: it crashed, hung past its time, or printed what
    bgsim cannot read (the message quotes what it said).  Exit 1: a failure, not bad input."""


def find_gnubg() -> str:
    """The gnubg program: on PATH, else Debian's /usr/games/gnubg; MissingDependency otherwise."""
    found = shutil.which("gnubg")
    if found:
        return found
    if os.access(DEBIAN_PATH, os.X_OK):
        return DEBIAN_PATH
    raise MissingDependency(INSTALL_HINT)


def run_script(commands: list[str], timeout: float | None = 600) -> str:
    """Run ``commands`` through one ``gnubg -t -q``; its whole output (stdout and stderr)."""
    program = find_gnubg()
    script = "\n".join(commands) + "\n"
    try:
        # one stream, so that each answer stays between the marks around its commands
        done = subprocess.run([program, "-t", "-q"], input=script, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, timeout=timeout, errors="replace")
    except subprocess.TimeoutExpired:
        raise GnubgError(f"gnubg ({program}) did not answer within {timeout:.0f} s: it hangs, or the machine "
                         "is far busier than usual") from None
    except OSError as error:
        raise GnubgError(f"cannot run {program}: {error}") from None
    return done.stdout


def run_sections(sections: list[list[str]], timeout: float | None = 600, setup=QUIET_SETUP) -> list[str]:
    """Run each list of commands after ``setup`` in one process; the output of each section."""
    commands = list(setup) + [f"{MARK}0"]
    for number, section in enumerate(sections, 1):
        commands.extend(section)
        commands.append(f"{MARK}{number}")
    return split_sections(run_script(commands, timeout), len(sections))


def split_sections(output: str, count: int) -> list[str]:
    """The ``count`` sections of gnubg's ``output`` to a script of :func:`run_sections`: what it
    printed between the answer to each mark and the next."""
    parts: dict[int, str] = {}
    last, start = None, 0
    for found in _MARK_LINE.finditer(output):
        number = int(found.group(1))
        if last is not None:
            parts[number] = output[start:found.start()]
        last, start = number, found.end()
    missing = [number for number in range(1, count + 1) if number not in parts]
    if missing:
        tail = output[-800:].strip()
        raise GnubgError(f"gnubg stopped before section {missing[0]} of {count}; it said: ...{tail}")
    return [parts[number] for number in range(1, count + 1)]


def complaints(text: str) -> list[str]:
    """The lines of gnubg's output that complain about something."""
    return [line.strip() for line in text.splitlines() if COMPLAINTS.search(line)]


# --- statistics ------------------------------------------------------------------------------

_FLOAT = re.compile(r"[-+]?\d+\.\d+")
_INT = re.compile(r"(?<![\d.])-?\d+(?![\d.])")
SECTIONS = {"Chequerplay statistics": "checker", "Luck statistics": "luck",
            "Cube statistics": "cube", "Overall statistics": "overall"}


@dataclass(frozen=True)
class PlayerStatistics:
    """One player's figures from ``show statistics``: counts, and errors in EMG (positive: lost).

    ``checker_error`` is over ``unforced_moves``, ``cube_error`` over ``cube_decisions`` (close
    or actual cube decisions), as GNU Backgammon divides them for its error rates; ``*_rating``
    are its words.
    """

    name: str
    total_moves: int
    unforced_moves: int
    checker_error: float
    checker_rating: str
    cube_decisions_total: int
    cube_decisions: int
    doubles: int
    takes: int
    passes: int
    cube_error: float
    cube_rating: str
    overall_rating: str


def parse_statistics(text: str) -> tuple[PlayerStatistics, PlayerStatistics]:
    """Both players' figures from the output of ``show statistics match`` (or ``game``)."""
    section = None
    names: list[str] | None = None
    values: dict[tuple[str, str], list[str]] = {}
    for line in text.splitlines():
        stripped = line.strip()
        if stripped in SECTIONS:
            section = SECTIONS[stripped]
            continue
        if stripped.startswith("Player ") and names is None:
            names = [line[41:65].strip(), line[65:].strip()]  # gnubg's columns start at 41 and 65
            continue
        if section is None or not stripped:
            continue
        label, _, rest = stripped.partition("  ")
        values[(section, label.strip())] = [part.strip() for part in re.split(r"\s{2,}", rest.strip()) if part.strip()]
    if names is None:
        raise GnubgError(f"no statistics in gnubg's output: {text.strip()[-400:]!r}")

    def number(section: str, prefix: str, player: int, kind=int):
        for (where, label), parts in values.items():
            if where == section and label.startswith(prefix):
                found = (_INT if kind is int else _FLOAT).findall(" ".join(parts))
                step = len(found) // 2
                if step == 0:
                    break
                return kind(found[player * step])
        raise GnubgError(f"gnubg's statistics lack {prefix!r} ({section})")

    def words(section: str, prefix: str, player: int) -> str:
        for (where, label), parts in values.items():
            if where == section and label.startswith(prefix) and len(parts) == 2:
                return parts[player]
        return ""

    out = []
    for player in (0, 1):
        out.append(PlayerStatistics(
            name=names[player],
            total_moves=number("checker", "Total moves", player),
            unforced_moves=number("checker", "Unforced moves", player),
            checker_error=abs(number("checker", "Error total", player, float)),
            checker_rating=words("checker", "Chequerplay rating", player),
            cube_decisions_total=number("cube", "Total cube decisions", player),
            cube_decisions=number("cube", "Close or actual", player),
            doubles=number("cube", "Doubles", player),
            takes=number("cube", "Takes", player),
            passes=number("cube", "Passes", player),
            cube_error=abs(number("cube", "Error total", player, float)),
            cube_rating=words("cube", "Cube decision rating", player),
            overall_rating=words("overall", "Overall rating", player),
        ))
    return out[0], out[1]


# --- (a) reading bgsim's exports -------------------------------------------------------------


@dataclass(frozen=True)
class SgfCounts:
    """What an SGF file GNU Backgammon saved holds: games, rolls (dances included), cube actions."""

    games: int
    moves: int
    doubles: int
    takes: int
    drops: int


def count_sgf(text: str) -> SgfCounts:
    nodes = re.findall(r";[WB]\[([^\]]*)\]", text)
    return SgfCounts(
        games=len(re.findall(r"\(;", text)),
        moves=sum(1 for value in nodes if re.fullmatch(r"[1-6][1-6][a-z]*", value)),
        doubles=sum(1 for value in nodes if value == "double"),
        takes=sum(1 for value in nodes if value == "take"),
        drops=sum(1 for value in nodes if value == "drop"),
    )


@dataclass(frozen=True)
class ImportCheck:
    """What gnubg made of a file: the counts of its own save, its complaints, its statistics."""

    counts: SgfCounts
    complaints: list[str]
    statistics: tuple[PlayerStatistics, PlayerStatistics] | None
    output: str


def _import_command(path: Path) -> str:
    # gnubg 1.07 reads SGF with `load match` (it has no `import sgf`)
    return f"load match {path}" if path.suffix.lower() == ".sgf" else f"import mat {path}"


def check_import(path: str | Path, analyse: bool = True, plies: int = 0, rules_setup: list[str] = (),
                 timeout: float | None = 600) -> ImportCheck:
    """Have gnubg import ``path`` (``.mat`` or ``.sgf``), save what it read as SGF, and (with
    ``analyse``) analyse it at ``plies`` and show the match statistics."""
    path = Path(path).resolve()
    with tempfile.TemporaryDirectory(prefix="bgsim-gnubg-") as folder:
        saved = Path(folder) / "saved.sgf"
        first = [*rules_setup, _import_command(path), f"save match {saved}"]
        sections = [first]
        if analyse:
            sections.append([f"set analysis chequerplay evaluation plies {plies}",
                             f"set analysis cubedecision evaluation plies {plies}",
                             "analyse match", "show statistics match"])
        outputs = run_sections(sections, timeout)
        if not saved.exists():
            raise GnubgError(f"gnubg did not read {path}: {' '.join(complaints(outputs[0]))[:400]}")
        counts = count_sgf(saved.read_text(encoding="utf-8", errors="replace"))
    statistics = parse_statistics(outputs[1]) if analyse else None
    said = complaints(outputs[0])
    return ImportCheck(counts, said, statistics, "".join(outputs))


def analyse_games(path: str | Path, games: int, plies: int = 0, threads: int | None = None,
                  timeout: float | None = None) -> tuple[list[tuple[PlayerStatistics, PlayerStatistics]], str]:
    """gnubg's statistics of each of the ``games`` games in ``path`` after ``analyse match`` at
    ``plies`` (checker play and cube), and all it said."""
    path = Path(path).resolve()
    setup = [f"set analysis chequerplay evaluation plies {plies}",
             f"set analysis cubedecision evaluation plies {plies}"]
    if threads:
        setup.append(f"set threads {threads}")
    sections = [setup + [_import_command(path), "analyse match"]]
    for game in range(games):
        sections.append(["first game" if game == 0 else "next game", "show statistics game"])
    outputs = run_sections(sections, timeout)
    return [parse_statistics(text) for text in outputs[1:]], outputs[0]


# --- (b) cube decisions ----------------------------------------------------------------------

_CUBELESS = re.compile(r"cubeless equity\s+([-+]?\d+\.\d+)")
# gnubg may print a chance as "-0.00000"
_CHANCE = r"(-?\d\.\d+)"
_CHANCES = re.compile(r"^\s*" + r"\s+".join([_CHANCE] * 3) + r"\s+-\s+" + r"\s+".join([_CHANCE] * 3) + r"\s*$",
                      re.MULTILINE)
_CUBEFUL = re.compile(r"^\s*\d\.\s+(No (?:re)?double|(?:Re)?[Dd]ouble, (?:take|pass|beaver))\s+([-+]?\d+\.\d+)",
                      re.MULTILINE | re.IGNORECASE)
_PROPER = re.compile(r"Proper cube action:\s*(.+)")
_PLY_HEADER = re.compile(r"(\d+)-ply cubeless equity")
# the rows of `eval`'s table: "static:", " 1 ply:", " 2 ply:" ...; the deepest is the answer
_EVAL_ROW = re.compile(r"^\s*(static|\d+ ply):\s+(\d\.\d+)\s+(\d\.\d+)\s+(\d\.\d+)\s+(\d\.\d+)\s+(\d\.\d+)\s+"
                       r"([-+]?\d+\.\d+)\s+([-+]?\d+\.\d+)", re.MULTILINE)

NO_DOUBLE, DOUBLE_TAKE, DOUBLE_PASS = "no double", "double/take", "double/pass"
TOO_GOOD_TAKE, TOO_GOOD_PASS, CANNOT_DOUBLE = "too good/take", "too good/pass", "cannot double"
CATEGORIES = (NO_DOUBLE, DOUBLE_TAKE, DOUBLE_PASS, TOO_GOOD_TAKE, TOO_GOOD_PASS)
# gnubg calls two equities the same within this (eval.c: isOptional)
OPTIONAL = 1e-5


@dataclass(frozen=True)
class CubeDecision:
    """gnubg's answer for one position before the roll, from the side on roll.

    ``chances``: cubeless (win, win gammon, win backgammon, lose gammon, lose backgammon),
    gammons including backgammons; ``no_double``, ``double_take``, ``double_pass``: cubeful
    equities (EMG per unit of the current cube: money equity, or in a match the same scale);
    ``proper``: gnubg's own words (``Too good to redouble, pass``), without the percentage it
    prints after them; ``category``: those words in one of :data:`CATEGORIES` (a redouble is a
    double, an optional double is a double, a beaver is a take, gnubg's dead cube of a match is
    no double) or ``cannot double`` where the side on roll may not double (then only
    ``no_double`` is given: the cubeful equity of the position); ``redouble``, ``beaver``,
    ``optional``, ``dead``: what the words said besides; ``action``: the coarser word of
    :func:`bgsim.bearoff.cube_action` (``too good`` for both too-good categories); ``plies``:
    the depth gnubg evaluated at.
    """

    chances: tuple[float, float, float, float, float]
    cubeless: float
    no_double: float
    double_take: float | None
    double_pass: float | None
    action: str
    proper: str
    category: str = ""
    redouble: bool = False
    beaver: bool = False
    optional: bool = False
    dead: bool = False
    plies: int | None = None


def read_proper(proper: str) -> dict:
    """gnubg's words for a proper cube action, read: ``category`` (see :class:`CubeDecision`),
    ``redouble``, ``beaver``, ``optional`` and ``dead``.  Words it never prints are a GnubgError."""
    words = proper.split("(")[0].strip().lower()  # "(23.8%)", "(dead cube)"
    found = re.fullmatch(r"(optional |too good to |no |never )?(re)?double, (take|pass|beaver)", words)
    if not found:
        raise GnubgError(f"gnubg's proper cube action {proper!r} is not one bgsim knows")
    kind, again, answer = found.groups()
    take = answer in ("take", "beaver")
    if kind == "too good to ":
        category = TOO_GOOD_TAKE if take else TOO_GOOD_PASS
    elif kind in ("no ", "never "):
        category = NO_DOUBLE
    else:
        category = DOUBLE_TAKE if take else DOUBLE_PASS
    return {"category": category, "redouble": again is not None, "beaver": answer == "beaver",
            "optional": kind == "optional ", "dead": "dead cube" in proper.lower()}


def category_of(no_double: float, double_take: float, double_pass: float, can_win_gammon: bool) -> str:
    """The category of :data:`CATEGORIES` that GNU Backgammon gives these cubeful equities of the
    side on roll (per unit of the cube; ``double_pass`` 1 in money), where it may double.

    Its rules (eval.c, FindBestCubeDecision): a double where doubling is worth at least not
    doubling whatever the answer (``DT >= ND`` and ``DP >= ND``), taken when ``DP > DT``;
    otherwise no double, "too good" where the opponent would pass (``DT > DP``, or
    ``DT >= ND > DP``) or where not doubling is worth more than the point (``ND > DP``), but
    only with a gammon to play on for: else the same position is a double/pass (or a no double,
    take)."""
    if double_take >= no_double and double_pass >= no_double:
        return DOUBLE_TAKE if double_pass > double_take else DOUBLE_PASS
    if no_double > double_take and double_take <= double_pass:
        if no_double > double_pass:
            return TOO_GOOD_TAKE if can_win_gammon else NO_DOUBLE
        return NO_DOUBLE
    return TOO_GOOD_PASS if can_win_gammon else DOUBLE_PASS


def parse_cube_hint(text: str) -> CubeDecision:
    """One position's answer from the output of ``hint`` before the roll (and, where the side on
    roll cannot double, ``eval``)."""
    if "You cannot double" in text or "Cube analysis" not in text:
        rows = _EVAL_ROW.findall(text)
        if not rows:
            raise GnubgError(f"no evaluation in gnubg's output: {text.strip()[-400:]!r}")
        depth, *values = rows[-1]
        win, wg, wbg, lg, lbg, equity, cubeful = (float(value) for value in values)
        plies = 0 if depth == "static" else int(depth.split()[0])
        return CubeDecision((win, wg, wbg, lg, lbg), equity, cubeful, None, None, CANNOT_DOUBLE, "",
                            category=CANNOT_DOUBLE, plies=plies)
    chances = _CHANCES.search(text)
    cubeless = _CUBELESS.search(text)
    proper = _PROPER.search(text)
    header = _PLY_HEADER.search(text)
    equities = {label.lower().replace("redouble", "double"): float(value) for label, value in _CUBEFUL.findall(text)}
    if not (chances and cubeless and proper and "no double" in equities):
        raise GnubgError(f"cannot read gnubg's cube analysis: {text.strip()[-400:]!r}")
    win, wg, wbg, _, lg, lbg = (abs(float(value)) for value in chances.groups())
    words = re.sub(r"\s*\(\d+(?:\.\d+)?%\)\s*$", "", proper.group(1).strip())
    read = read_proper(words)
    category = read["category"]
    action = "too good" if category.startswith("too good") else category
    return CubeDecision(
        chances=(win, wg, wbg, lg, lbg), cubeless=float(cubeless.group(1)),
        no_double=equities["no double"], double_take=equities.get("double, take", equities.get("double, beaver")),
        double_pass=equities.get("double, pass"), action=action, proper=words, **read,
        plies=int(header.group(1)) if header else None,
    )


def may_double(state) -> bool:
    """Whether the side on roll of ``state`` (:class:`bgsim.interchange.xgid.Xgid`) has a cube
    to turn, as GNU Backgammon decides it (eval.c, GetDPEq): in money, a centred cube or its
    own; in a match besides, not the Crawford game, not a cube that would win it the match
    already, not when it is 1-away after the Crawford game."""
    from bgsim.interchange.xgid import OPPONENT

    if state.cube_owner == OPPONENT:
        return False
    if not state.match_to:
        return True
    own, other = state.score
    post_crawford = not state.crawford and state.match_to - 1 in (own, other)
    return (not state.crawford and own + state.cube_value < state.match_to
            and not (post_crawford and own == state.match_to - 1))


def _cube_commands(state) -> list[str]:
    match_id = encode_match_id(to_match_state(replace(state, dice=(0, 0), offered=0), on_roll=1))
    # the match ID carries the Jacoby rule; beavers are a setting
    commands = [f"set beavers {1 if state.beaver else 0}",
                f"set gnubgid {state.position.position_id}:{match_id}", "hint"]
    return commands if may_double(state) else commands + ["eval"]


def cube_setup(plies: int) -> list[str]:
    """The commands before the positions of :func:`cube_decisions`: evaluations at ``plies``, one
    thread a process (the processes are the parallelism), a game to set positions in."""
    return list(QUIET_SETUP) + ["set threads 1", f"set evaluation cubedecision evaluation plies {plies}",
                                f"set evaluation chequerplay evaluation plies {plies}", "new game"]


MAX_PLIES = 4


def check_plies(plies: int) -> int:
    """``plies`` when GNU Backgammon evaluates at that depth (0 .. MAX_PLIES), else ValueError."""
    if isinstance(plies, bool) or not isinstance(plies, int) or not 0 <= plies <= MAX_PLIES:
        raise ValueError(f"--plies must be a whole number from 0 to {MAX_PLIES} (gnubg's evaluation "
                         f"depth; 2 is its world-class setting), got {plies!r}")
    return plies


def answer_within(states: int, plies: int) -> float:
    """The seconds bgsim waits for gnubg's answers to ``states`` positions at ``plies`` before it
    calls gnubg hung: its start and many times its usual pace (a fraction of a second a
    position below 3-ply, seconds at 3, tens at 4)."""
    return 30 + states * (0.5 if plies < 2 else 2.0 if plies == 2 else 10.0 if plies == 3 else 60.0)


def _decide(states, plies: int, timeout: float | None) -> list[CubeDecision]:
    if timeout is None:
        timeout = answer_within(len(states), plies)
    outputs = run_sections([_cube_commands(state) for state in states], timeout, setup=cube_setup(plies))
    answers = []
    for state, text in zip(states, outputs):
        if f"Setting GNUbg ID {state.position.position_id}" not in text:
            raise GnubgError(f"gnubg did not take the position {state.position.position_id}: "
                             f"{' '.join(complaints(text))[:300]}")
        answers.append(parse_cube_hint(text))
    return answers


def cube_decisions(states, plies: int = 0, timeout: float | None = None, jobs: int = 1) -> list[CubeDecision]:
    """gnubg's cube decision at ``plies`` for each of ``states`` (:class:`bgsim.interchange.xgid.Xgid`:
    the position before the roll from the side on roll, the cube, the score, Crawford, and in
    money the Jacoby rule and beavers; dice and any double on the table are ignored).  One gnubg
    process per ``jobs`` runs its share of the states (hundreds a process), all at once."""
    from concurrent.futures import ThreadPoolExecutor

    check_plies(plies)
    states = list(states)
    jobs = max(1, min(int(jobs), len(states)))
    if jobs == 1:
        return _decide(states, plies, timeout)
    size = -(-len(states) // jobs)
    parts = [states[first:first + size] for first in range(0, len(states), size)]
    # the processes do the work; threads only wait for them
    with ThreadPoolExecutor(len(parts)) as pool:
        answers = list(pool.map(lambda part: _decide(part, plies, timeout), parts))
    return [answer for part in answers for answer in part]


__all__ = [
    "CubeDecision", "GnubgError", "INSTALL_HINT", "ImportCheck", "PlayerStatistics", "SgfCounts",
    "analyse_games", "check_import", "complaints", "count_sgf", "cube_decisions", "find_gnubg",
    "parse_cube_hint", "parse_statistics", "run_script", "run_sections", "CATEGORIES", "category_of",
    "answer_within", "check_plies", "cube_setup", "may_double", "read_proper", "split_sections",
]
