"""``bgsim check ENGINE``: a UBGI engine put through probe positions, each answer refereed.

The engine is started and asked as bgsim's controller asks it in a game (``bots.ubgi``: the
handshake, ``newgame``, the position with its cube and score in whatever form the engine reads
them, ``dice``, ``go``), one probe a game, and every answer is checked against the rules
(``bgsim.interchange.ubgi.read_play``: a play is legal by the position it produces).  The
report says, for each probe, what was asked, what the engine answered and what was legal, and
the compliance level the engine reaches (:data:`LEVELS`, each needing the ones before it):

* ``checker``: the handshake, and a legal play for every checker probe: ``pass`` where no play
  is legal, doubles that move four checkers, entering from the bar, bearing off with a larger
  die, a roll where only the larger die may be played, a play in the Crawford game of a match
  and in a Jacoby money game (UBGI v0.2's playable core: bgsim seats it as ``ubgi:NAME+CUBE``,
  a bgsim cube bot deciding the cube);
* ``cube``: ``go cube`` answered on every cube probe (centred and owned cubes, money with the
  Jacoby rule, a match score), and ``nodouble`` where it may not double (the opponent's cube,
  the Crawford game): it can play its own cube as ``ubgi:NAME``, taking every double;
* ``full``: bgsim's ``go take`` answered on every take probe (a beaver only where beavers are
  allowed), the cube and score read (``position xgid``, the ``game.*`` keys or v0.1's session
  lines), and each bad line answered with an ``error`` line of one of v0.2's four codes, the
  engine going on: it plays whole games of bgsim's with its own cube in both directions.

A probe the engine failed (an illegal, malformed or missing answer, a timeout, a crash) is a
result, never a reason to stop: the engine is started again for the next probe.  ENGINE is
``ubgi:NAME`` (an engines file's, ``bots.ubgi``) or any bgsim player spec, which is served by
``bgsim ubgi SPEC`` in a process of its own and checked over its pipes like any engine.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field

from bgsim.board import Position
from bgsim.cube import Response, Rules
from bgsim.decisions import Forfeit
from bgsim.game import DecisionContext, MatchContext
from bgsim.interchange import ubgi
from bgsim.interchange.ubgi import Situation
from bgsim.interchange.xgid import CENTRE, ON_ROLL, OPPONENT
from bgsim.rules import legal_plays

LEVELS = ("none", "checker", "cube", "full")
SERVED_NAME = "bgsim-ubgi"  # the engine name a bgsim spec is checked under
CHECK_TIMEOUT = 60.0  # seconds a probe's answer may take (gnubg at 4-ply takes some)
BAD_LINES = ("bogus_command 1 2", "position gnubgid not-an-id", "dice 9 9", "set", "go sideways")

_P = Position.from_points
# a middle game where the side on roll leads (nothing in the checks depends on the judgement)
AHEAD = _P({13: 4, 8: 3, 6: 4, 5: 2, 4: 2}, {24: 2, 23: 2, 19: 3, 12: 4, 1: 2, "bar": 2})


@dataclass(frozen=True)
class Probe:
    """One question: ``situation`` (position from the side on roll, its cube, score and rules;
    the doubler's position for ``take``), ``role`` (chequer, cube or take), ``level`` (the
    compliance level it belongs to) and, for cube and take, the answers allowed."""

    name: str
    what: str
    situation: Situation
    role: str
    level: str
    allowed: tuple[str, ...] = ()


def _money(position: Position, dice=(0, 0), **rules) -> Situation:
    return Situation(position, dice=dice, **rules)


PROBES = (
    Probe("opening", "an opening 3-1", _money(Position.start(), (3, 1)), "chequer", "checker"),
    Probe("pass", "no legal play: two on the bar against a closed board, 6-6 (answer pass)",
          _money(_P({"bar": 2, 13: 5, 8: 3, 6: 5}, {19: 2, 20: 2, 21: 2, 22: 2, 23: 2, 24: 2, 12: 3}), (6, 6)),
          "chequer", "checker"),
    Probe("doubles", "doubles move four checkers: the opening position, 4-4",
          _money(Position.start(), (4, 4)), "chequer", "checker"),
    Probe("bar", "entering from the bar: only the 3 enters, then the 6 is played",
          _money(_P({"bar": 1, 13: 6, 8: 3, 6: 5}, {24: 2, 23: 2, 21: 2, 20: 3, 19: 3, 12: 3}), (3, 6)),
          "chequer", "checker"),
    Probe("bear-off", "bearing off with larger dice: 6-5 with checkers on the 3, 2 and 1 points",
          _money(_P({3: 5, 2: 5, 1: 5}, {24: 2, 13: 5, 8: 3, 6: 5}), (6, 5)), "chequer", "checker"),
    Probe("larger-die", "either die alone but not both: only the larger, 24/18",
          _money(_P({24: 1, 4: 4, 3: 4, 2: 3, 1: 3}, {13: 2, 7: 5, 9: 4, 10: 4}), (6, 5)), "chequer", "checker"),
    Probe("crawford-play", "a play in the Crawford game of a 5-point match, 4-2",
          Situation(AHEAD, dice=(5, 2), match_to=5, score=(4, 2), crawford=True), "chequer", "checker"),
    Probe("jacoby-play", "a play in a money game with the Jacoby rule, cube centred",
          _money(AHEAD, (6, 4), jacoby=True), "chequer", "checker"),
    Probe("centred", "money, cube centred at 1", _money(AHEAD), "cube", "cube", ("double", "nodouble")),
    Probe("owned", "money, the side on roll owns the cube at 2",
          _money(AHEAD, cube_value=2, cube_owner=ON_ROLL), "cube", "cube", ("double", "nodouble")),
    Probe("opponents-cube", "money, the opponent owns the cube at 2: it may not double (nodouble)",
          _money(AHEAD, cube_value=2, cube_owner=OPPONENT), "cube", "cube", ("nodouble",)),
    Probe("jacoby-cube", "money with the Jacoby rule, cube centred", _money(AHEAD, jacoby=True), "cube", "cube",
          ("double", "nodouble")),
    Probe("match-cube", "a 7-point match at 3-5, cube centred", Situation(AHEAD, match_to=7, score=(3, 5)), "cube",
          "cube", ("double", "nodouble")),
    Probe("crawford-cube", "the Crawford game of a 5-point match at 2-4: no double (nodouble)",
          Situation(AHEAD, match_to=5, score=(2, 4), crawford=True), "cube", "cube", ("nodouble",)),
    Probe("take", "a double in money, no beavers (take or pass)", _money(AHEAD, offered=True), "take", "full",
          ("take", "pass")),
    Probe("beaver", "a double in money with beavers (take, pass or beaver)", _money(AHEAD, offered=True, beaver=True),
          "take", "full", ("take", "pass", "beaver")),
    Probe("match-take", "a double in a 7-point match at 3-5 (take or pass)",
          Situation(AHEAD, offered=True, match_to=7, score=(3, 5)), "take", "full", ("take", "pass")),
)


@dataclass
class Answer:
    """What one probe got: the engine's line, what was legal, and the verdict."""

    probe: Probe
    answered: str
    legal: str
    ok: bool
    note: str = ""
    seconds: float = 0.0

    def to_dict(self) -> dict:
        return {"probe": self.probe.name, "what": self.probe.what, "level": self.probe.level,
                "role": self.probe.role, "xgid": self.probe.situation.xgid(), "answered": self.answered,
                "legal": self.legal, "ok": self.ok, "note": self.note, "seconds": round(self.seconds, 4)}


@dataclass
class CheckReport:
    engine: str
    command: tuple[str, ...]
    identity: dict | None = None
    start_error: str = ""
    answers: list[Answer] = field(default_factory=list)
    errors: list[tuple[str, str, bool]] = field(default_factory=list)  # (line sent, answer, ok)
    alive_after_errors: bool = False

    @property
    def reads_context(self) -> bool:
        return bool(self.identity) and not self.identity["context"].startswith("none")

    @property
    def errors_ok(self) -> bool:
        return self.alive_after_errors and all(ok for _, _, ok in self.errors)

    def passed(self, level: str) -> bool:
        return all(answer.ok for answer in self.answers if answer.probe.level == level)

    @property
    def level(self) -> str:
        """The highest of :data:`LEVELS` whose probes, and every lower level's, all passed."""
        if self.identity is None or not self.passed("checker"):
            return "none"
        if not self.passed("cube"):
            return "checker"
        if not (self.passed("full") and self.reads_context and self.errors_ok and self.identity["take"]):
            return "cube"
        return "full"

    def to_dict(self) -> dict:
        return {"engine": self.engine, "command": list(self.command), "level": self.level, "levels": list(LEVELS),
                "handshake": self.identity, "start_error": self.start_error or None,
                "probes": [answer.to_dict() for answer in self.answers],
                "bad_lines": [{"sent": sent, "answered": said, "ok": ok} for sent, said, ok in self.errors],
                "alive_after_bad_lines": self.alive_after_errors}


def served_spec(spec: str, timeout: float = CHECK_TIMEOUT):
    """The engine of ``bgsim ubgi SPEC``, run by this Python (``bots.ubgi.EngineSpec``)."""
    from bots.ubgi import EngineSpec

    return EngineSpec(SERVED_NAME, (sys.executable, "-m", "experiments", "ubgi", spec), timeout=timeout,
                      start_timeout=max(timeout, 60.0), source="bgsim check")


def _context(situation: Situation, game: int) -> DecisionContext:
    """The game loop's context of a probe: the side on roll is white."""
    match = None
    if situation.match_to:
        match = MatchContext(situation.match_to, situation.score[0], situation.score[1], situation.crawford,
                             not situation.crawford and situation.match_to - 1 in situation.score, 0)
        rules = Rules()
    else:
        rules = Rules(jacoby=situation.jacoby, beaver=situation.beaver)
    owner = {CENTRE: "centre", ON_ROLL: "white", OPPONENT: "black"}[situation.cube_owner]
    return DecisionContext(seed=1, game=game, side="white", first=True, plies=0, cube_value=situation.cube_value,
                           cube_owner=owner, rules=rules, match=match)


def _legal_text(plays) -> str:
    if not plays:
        return "pass (no legal play)"
    names = [play.notation for play in plays]
    return f"{len(names)} plays: " + ", ".join(names[:5]) + (", ..." if len(names) > 5 else "")


def _last_answer(player) -> str:
    process = player.process
    if process is None:
        return ""
    said = [line[2:] for line in process.transcript if line.startswith("< ")]
    return said[-1] if said else ""


def _put(player, probe: Probe, game: int) -> Answer:
    situation = probe.situation
    position = situation.position
    plays = legal_plays(position, situation.dice) if probe.role == "chequer" else []
    legal = _legal_text(plays) if probe.role == "chequer" else ", ".join(probe.allowed)
    started = time.perf_counter()
    try:
        player.see_context(_context(situation, game))
        if probe.role == "take" and not player.identity.take:
            return Answer(probe, "(not asked)", legal, False,
                          f"it does not list {ubgi.TAKE_KEY}: bgsim takes every double for it")
        answer, raw = player.ask(situation, probe.role)
    except Forfeit as forfeit:
        return Answer(probe, forfeit.detail, legal, False, forfeit.reason, time.perf_counter() - started)
    seconds = time.perf_counter() - started
    if answer is None:
        return Answer(probe, raw, legal, False, f"it does not answer go {probe.role}", seconds)
    if probe.role == "chequer":
        try:
            play = ubgi.read_play(position, situation.dice, answer, plays)
        except ubgi.UbgiError as error:
            return Answer(probe, raw, legal, False, str(error), seconds)
        named = play.notation if play is not None else "pass"
        return Answer(probe, raw, legal, True, "" if raw == f"bestmove {named}" else f"that is {named}", seconds)
    word = ("double" if answer.double else "nodouble") if probe.role == "cube" else answer.word
    if word not in probe.allowed:
        return Answer(probe, raw, legal, False, f"{word} is not allowed here", seconds)
    return Answer(probe, raw, legal, True, "", seconds)


def _bad_lines(player, timeout: float) -> tuple[list[tuple[str, str, bool]], bool]:
    """Each of :data:`BAD_LINES` sent, then ``isready``: the line each got (an error of v0.2's
    four codes is right), and whether ``readyok`` came back."""
    from bots.ubgi import EngineFailure

    found: list[tuple[str, str, bool]] = []
    process = player.process
    deadline = time.monotonic() + timeout
    try:
        for line in BAD_LINES:
            process.send(line)
            process.send("isready")
            said = []
            while True:
                raw = process.read_line(deadline, line)
                if raw == "readyok":
                    break
                if not raw.startswith("info "):
                    said.append(raw)
            words = said[0].split() if len(said) == 1 else []
            ok = len(words) >= 2 and words[0] == "error" and words[1] in ubgi.ERROR_CODES
            found.append((line, " | ".join(said) or "(nothing)", ok))
    except EngineFailure as failure:
        found.append((line, failure.detail, False))
        return found, False
    return found, True


def run_check(engine, log=None, timeout: float = CHECK_TIMEOUT) -> CheckReport:
    """Check ``engine`` (a ``bots.ubgi.EngineSpec``) through :data:`PROBES`; ``log(text)`` hears
    of each probe as it is answered."""
    from bots.ubgi import EngineError, UbgiPlayer

    player = UbgiPlayer(engine)
    report = CheckReport(engine.name, engine.command)
    try:
        try:
            report.identity = player.start().to_dict()
        except EngineError as error:
            report.start_error = str(error)
            return report
        finally:
            if log is not None:
                log(format_header(report))
        for game, probe in enumerate(PROBES):
            answer = _put(player, probe, game)
            report.answers.append(answer)
            if log is not None:
                log(format_answer(answer))
        if player.process is None:
            player.start()
        report.errors, report.alive_after_errors = _bad_lines(player, timeout)
    finally:
        player.close()
    return report


def format_answer(answer: Answer) -> str:
    mark = "ok  " if answer.ok else "FAIL"
    note = f"  ({answer.note})" if answer.note else ""
    return (f"  {mark} {answer.probe.level:7s} {answer.probe.name:15s} {answer.probe.what}\n"
            f"       answered {answer.answered!r}{note}; legal: {answer.legal}")


def format_header(report: CheckReport) -> str:
    lines = [f"engine {report.engine}: {' '.join(report.command)}"]
    if report.identity is None:
        lines.append(f"  cannot start: {report.start_error}")
        return "\n".join(lines)
    said = report.identity
    lines.append(f"  id {said['id_name'] or '(none)'}{', by ' + said['id_author'] if said['id_author'] else ''}; "
                 f"UBGI {said['protocol']}; cube and score by {said['context']}; "
                 f"{'answers go take' if said['take'] else 'no go take'}")
    return "\n".join(lines)


def format_summary(report: CheckReport) -> str:
    lines = []
    if report.identity is not None:
        lines.append("bad lines (each should get one error line: bad_command, bad_value, bad_state or unsupported):")
        for sent, said_back, ok in report.errors:
            lines.append(f"  {'ok  ' if ok else 'FAIL'} {sent!r} -> {said_back}")
        lines.append(f"  {'ok  ' if report.alive_after_errors else 'FAIL'} it still answers isready after them")
        failed = [answer.probe.name for answer in report.answers if not answer.ok]
        lines.append(f"{len(report.answers) - len(failed)} of {len(report.answers)} probes answered as the rules allow"
                     + (f"; failed: {', '.join(failed)}" if failed else ""))
    lines.append(f"compliance level: {report.level} (of {', '.join(LEVELS)}; docs/UBGI.md)")
    return "\n".join(lines)


def format_report(report: CheckReport) -> str:
    """The whole report, as ``bgsim check`` prints it."""
    return "\n".join([format_header(report), *map(format_answer, report.answers), format_summary(report)])
