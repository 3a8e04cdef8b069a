"""GNU Backgammon's program (``gnubg``) as a process: ``gnubg -t -q`` reading commands on stdin.

Two ways to drive it, one protocol:

* a batch (:func:`run_sections`): one process runs a whole script, hundreds of positions or whole
  matches a call (the cube judge of ``bgsim cube-audit --judge gnubg``, ``bgsim analyse``);
* a session (:class:`Session`): one process kept open, asked one decision at a time and answering
  each before the next is sent (the ``gnubg-program`` players of ``bots/gnubg_program.py``).

Either way each answer is read between marks: after each group of commands comes a word gnubg
does not know (``bgsim_mark_7``), which it answers with ``Unknown keyword `bgsim_mark_7'.``, so
every answer is read from its own section whatever else gnubg prints around it.

Read from its output: the cube analysis of a position before the roll (:func:`parse_cube_hint`:
the cubeless chances, the cubeful equities of no double, double/take and double/pass and its
proper action) and the best checker play of a roll (:func:`parse_best_play`).  Equities are GNU
Backgammon's: money equity per unit cube, and in a match the same scale ("EMG", equivalent
money game), ``set output mwc off``.  Its depths are its own: 0-ply is the net alone (UBGI and
eXtreme Gammon call that 1-ply).
"""

from __future__ import annotations

import os
import re
import select
import shutil
import signal
import subprocess
import threading
import time
import weakref
from dataclasses import dataclass, replace

from bgsim.errors import MissingDependency, ToolFailed
from bgsim.interchange.xgid import to_match_state
from bgsim.match_id import encode as encode_match_id

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


# --- (c) one decision at a time: a session ---------------------------------------------------

SESSION_SETUP = QUIET_SETUP + ("set threads 1", "set display off", "new game")
# a decision gnubg has not answered within this is a hung program (4-ply plays take seconds)
SESSION_TIMEOUT = 300.0
_READ = 1 << 16


class Session:
    """One ``gnubg -t -q`` process kept open and asked one group of commands at a time.

    :meth:`ask` sends the commands and a mark and returns what gnubg printed before answering
    the mark.  The process is started on the first question, in a process group of its own, and
    is ended by :meth:`close`, when the session is collected, or when Python exits; a program
    that stops, or does not answer within ``timeout`` seconds, is a :class:`GnubgError` and is
    ended (the next question starts a fresh one).  Settings sent through ``settings`` are
    remembered and sent again only when they change.  Not for two threads at once: see
    :func:`thread_session`.
    """

    def __init__(self, setup=SESSION_SETUP, timeout: float = SESSION_TIMEOUT) -> None:
        self.setup = tuple(setup)
        self.timeout = timeout
        self._process: subprocess.Popen | None = None
        self._finalizer = None
        self._owner = 0
        self._number = 0
        self._buffer = b""
        self._settings: dict[str, str] = {}
        self.questions = 0

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None and self._owner == os.getpid()

    def _start(self) -> None:
        program = find_gnubg()
        try:
            self._process = subprocess.Popen([program, "-t", "-q"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                             stderr=subprocess.STDOUT, bufsize=0, start_new_session=True)
        except OSError as error:
            raise GnubgError(f"cannot run {program}: {error}") from None
        self._owner = os.getpid()
        self._finalizer = weakref.finalize(self, _end, self._process, self._owner)
        self._number, self._buffer, self._settings = 0, b"", {}
        self._exchange(list(self.setup), self.timeout)

    def ask(self, commands, settings=(), timeout: float | None = None) -> str:
        """gnubg's output to ``commands`` (after any of ``settings`` not already in force)."""
        if not self.running:
            if self._process is not None and self._owner == os.getpid():
                self.close()
            elif self._finalizer is not None:  # a forked copy leaves its parent's process alone
                self._finalizer.detach()
            self._process, self._finalizer = None, None
            self._start()
        changed = []
        for setting in settings:
            key = setting.rsplit(" ", 1)[0]
            if self._settings.get(key) != setting:
                changed.append(setting)
        text = self._exchange(changed + list(commands), self.timeout if timeout is None else timeout)
        for setting in changed:
            self._settings[setting.rsplit(" ", 1)[0]] = setting
        self.questions += 1
        return text

    def _exchange(self, commands: list[str], timeout: float) -> str:
        self._number += 1
        number = self._number
        script = "".join(f"{command}\n" for command in commands) + f"{MARK}{number}\n"
        process = self._process
        try:
            process.stdin.write(script.encode())
        except OSError:
            said = self._buffer.decode(errors="replace")
            self.close()
            raise GnubgError(f"gnubg stopped (exit status {process.poll()}); it said: ...{said[-400:].strip()}") from None
        wanted = f"Unknown keyword `{MARK}{number}'.".encode()
        deadline = time.monotonic() + timeout
        stdout = process.stdout.fileno()
        while wanted not in self._buffer:
            left = deadline - time.monotonic()
            ready = select.select([stdout], [], [], max(left, 0))[0] if left > 0 else []
            if not ready:
                said = self._buffer.decode(errors="replace")
                self.close()
                raise GnubgError(f"gnubg did not answer within {timeout:.0f} s; it said: ...{said[-400:].strip()}")
            data = os.read(stdout, _READ)
            if not data:
                said = self._buffer.decode(errors="replace")
                status = process.wait()
                self.close()
                raise GnubgError(f"gnubg stopped (exit status {status}); it said: ...{said[-400:].strip()}")
            self._buffer += data
        text, _, rest = self._buffer.partition(wanted)
        self._buffer = rest
        return text.decode(errors="replace")

    def close(self) -> None:
        """End the process (its whole group) now; the next question starts a new one."""
        if self._finalizer is not None:
            self._finalizer()
        self._process, self._finalizer = None, None


def _end(process: subprocess.Popen, owner: int) -> None:
    """Close gnubg's input, give it a moment to go, then end its process group (only in the
    process that started it: a forked child that exits leaves its parent's gnubg alone)."""
    if os.getpid() != owner:
        return
    try:
        process.stdin.close()
    except OSError:
        pass
    try:
        process.wait(timeout=1)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except OSError:
            pass
        process.wait()
    for stream in (process.stdout,):
        try:
            stream.close()
        except OSError:
            pass


_THREADS = threading.local()


def thread_session() -> Session:
    """This thread's session, shared by every ``gnubg-program`` bot the thread asks (the game
    loop asks one question at a time); a thread of its own gets its own process."""
    session = getattr(_THREADS, "session", None)
    if session is None:
        session = _THREADS.session = Session()
    return session


_BEST = re.compile(r"^\s*1\.\s+(?:Cubeful|Cubeless)\s+\S+\s+(.+?)\s+Eq\.:", re.MULTILINE)


def parse_best_play(text: str) -> str:
    """The first play of gnubg's move list (``hint`` after the roll), in its notation."""
    found = _BEST.search(text)
    if not found:
        raise GnubgError(f"no move list in gnubg's output: {text.strip()[-400:]!r}")
    return found.group(1).strip()


def play_commands(state) -> list[str]:
    """The commands that ask gnubg's best play of ``state`` (an Xgid with its dice): the position
    with its cube and score, then ``hint 1``."""
    match_id = encode_match_id(to_match_state(replace(state, offered=0), on_roll=1))
    return [f"set gnubgid {state.position.position_id}:{match_id}", "hint 1"]


def cube_commands(state) -> list[str]:
    """The commands that ask gnubg's cube analysis of ``state`` (an Xgid before the roll)."""
    return _cube_commands(state)


def evaluation_settings(checker_plies: int | None = None, cube_plies: int | None = None) -> list[str]:
    """The settings of gnubg's own evaluations (``eval`` and ``hint``) at these depths."""
    settings = []
    if checker_plies is not None:
        settings.append(f"set evaluation chequerplay evaluation plies {check_plies(checker_plies)}")
    if cube_plies is not None:
        settings.append(f"set evaluation cubedecision evaluation plies {check_plies(cube_plies)}")
    return settings
