"""External engines as players: ``ubgi:NAME`` and ``ubgi:NAME+CUBE``, refereed move by move.

``NAME`` is an engine declared in an engines file (``experiments/running/engines.py`` reads them;
``docs/UBGI.md`` says how): the command that starts it, its options, folder and environment,
and its timeouts (:class:`EngineSpec`).  A :class:`UbgiPlayer` sits at the board like any
player (``bgsim.decisions.Player``) and asks its engine each decision over UBGI
(``bgsim.interchange.ubgi``, the codec of every line):

* checker plays by ``go chequer``; the cube by ``go cube``; answers to a double by bgsim's
  extension ``go take`` where the engine lists the key ``bgsim.take``, else every double is
  taken.  ``ubgi:NAME+CUBE`` (e.g. ``ubgi:wild+keith``) lets the bgsim cube bot ``CUBE`` offer
  and answer every double instead, and the engine plays the checkers only;
* the game loop tells it the seed, the game, the cube, the score and the rules before each
  decision (``see_context``), which it sends as ``position gnubgid`` and ``position xgid``, the
  ``game.*`` keys the engine lists, or v0.1's session lines, whichever the engine reads;
* every ``bestmove`` is refereed: it must name a legal play by the position it produces
  (``bgsim.interchange.ubgi.read_play``).  An illegal, malformed or missing answer, a timeout
  or a crash raises ``bgsim.decisions.Forfeit``: the game ends as lost by the engine
  (``bgsim.scoring``), the row says why, the engine log (:class:`EngineLog`) keeps the position,
  the dice and the exact answer, and the engine is started again for the next game.

**Processes.**  Each player has its own engine process (``fork`` gives another seat its own,
for games played side by side), started on first use in a process group of its own, read by a
thread with a deadline on every answer, and ended with ``quit`` and, a moment later, a kill of
its whole group: :func:`close_all` ends every engine still running (``bgsim``'s command line
calls it however a command ends, Ctrl-C included, and so does the interpreter's exit).

**Reproducible engines.**  An engine that lists ``engine.seed`` (v0.1: the option ``Seed``) is
given a seed of its own for every game, drawn from the run's seed, the game number, the game in
the match and the seat (and the seed option an engines file gives, if any), so a seeded engine
plays the same game whichever process or thread plays it.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import os
import queue
import re
import select
import shutil
import signal
import subprocess
import threading
import time
from collections import deque
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Mapping

from bgsim import settings
from bgsim.board import Position
from bgsim.cube import CubeView, Response
from bgsim.decisions import Forfeit
from bgsim.dice import GOLDEN, MASK64, mix64
from bgsim.interchange import ubgi
from bgsim.interchange.ubgi import (BestCube, BestMove, BestMoveId, BestTake, Error, Id, Info, Key, Option, Proto,
                                    ReadyOk, Situation, UbgiError, UbgiOk, parse_answer, read_play)
from bgsim.interchange.xgid import CENTRE, ON_ROLL, OPPONENT
from bgsim.variants import STANDARD, variant_of

from .params import SpecError

PREFIX = "ubgi:"
DEFAULT_TIMEOUT = 30.0  # seconds a decision may take (engines file: timeout)
DEFAULT_START_TIMEOUT = 30.0  # seconds from starting the process to the end of its handshake
QUIT_SECONDS = 1.0  # after ``quit``, before the process group is killed
MAX_LINE = 1 << 16  # a longer line is garbage, not an answer
HANDSHAKE_NOISE = 20  # lines that are not UBGI an engine may print before its ubgiok (banners)
TRANSCRIPT = 40  # lines kept of what was said both ways, for the engine log
SEED_KEYS = ("engine.seed", "Seed")  # v0.2's key, v0.1's option
_NAME = re.compile(r"[a-z0-9][a-z0-9_.-]*")


class EngineError(ValueError):
    """An engine that cannot be seated (it does not start, fails its handshake, refuses its
    options): one line naming the engine and what it did; bad input, exit 2."""


class EngineFailure(Exception):
    """What an engine did wrong while it was asked something: ``reason`` (one of
    ``bgsim.decisions.FORFEIT_REASONS``), ``detail`` (one line) and the exact ``answer`` line."""

    def __init__(self, reason: str, detail: str, answer: str | None = None) -> None:
        super().__init__(detail)
        self.reason, self.detail, self.answer = reason, detail, answer


# --- what an engines file declares --------------------------------------------------------


@dataclass(frozen=True)
class EngineSpec:
    """One engine of an engines file (``[engines.NAME]``).  ``options`` are (key, value) pairs
    set after the handshake (``set`` for a key it lists, ``setoption`` for a v0.1 option);
    ``xgid``: whether it reads ``position xgid`` (None: ask it at start); ``source``: where it
    was declared, for messages."""

    name: str
    command: tuple[str, ...]
    options: tuple[tuple[str, object], ...] = ()
    cwd: str | None = None
    env: tuple[tuple[str, str], ...] = ()
    timeout: float = DEFAULT_TIMEOUT
    start_timeout: float = DEFAULT_START_TIMEOUT
    xgid: bool | None = None
    source: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not _NAME.fullmatch(self.name):
            raise SpecError(f"engine name {self.name!r}: lower-case letters, digits, '-', '_' and '.'")
        command = self.command
        if isinstance(command, str) or not command or not all(isinstance(word, str) and word for word in command):
            raise SpecError(f"engine {self.name}: command: a list of words, e.g. [\"gnubg\", \"--ubgi\"]")
        object.__setattr__(self, "command", tuple(command))
        object.__setattr__(self, "options", tuple((str(key), value) for key, value in dict(self.options).items()))
        object.__setattr__(self, "env", tuple((str(key), str(value)) for key, value in dict(self.env).items()))
        for key, value in self.options:
            if isinstance(value, float) or not isinstance(value, (bool, int, str)):
                raise SpecError(f"engine {self.name}: options: {key} = {value!r}: a value is a whole number, "
                                "true/false or text")
        for what in ("timeout", "start_timeout"):
            value = getattr(self, what)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
                raise SpecError(f"engine {self.name}: {what}: a number of seconds above 0, got {value!r}")
            object.__setattr__(self, what, float(value))
        if self.xgid not in (None, True, False):
            raise SpecError(f"engine {self.name}: xgid: true or false, got {self.xgid!r}")

    def describe(self) -> str:
        return " ".join(self.command)


# --- one running engine ---------------------------------------------------------------------


@dataclass(frozen=True)
class Identity:
    """Who an engine is, as it started: what was run (command, options, the executable and its
    sha256, any argument that is a file and its sha256) and what it said in its handshake."""

    engine: str
    command: tuple[str, ...]
    options: tuple[tuple[str, object], ...]
    id_name: str
    id_author: str
    id_version: str
    protocol: str
    executable: str
    sha256: str
    files: tuple[tuple[str, str], ...]
    keys: tuple[str, ...]  # the key (v0.1: option) lines it listed, as it wrote them
    xgid: bool
    take: bool
    context: str  # how the cube and score reach it: xgid, game keys, v0.1 session lines, nothing

    def to_dict(self) -> dict:
        return {"engine": self.engine, "command": list(self.command), "options": dict(self.options),
                "id_name": self.id_name, "id_author": self.id_author, "id_version": self.id_version,
                "protocol": self.protocol, "executable": self.executable, "sha256": self.sha256,
                "files": dict(self.files), "keys": list(self.keys), "xgid": self.xgid, "take": self.take,
                "context": self.context}

    def fingerprint(self) -> dict:
        """What must not change under the same engine name for a run to be resumed."""
        data = self.to_dict()
        return {key: data[key] for key in ("command", "options", "id_name", "id_version", "protocol", "sha256",
                                           "files")}


_LIVE: set = set()
_LIVE_LOCK = threading.Lock()


def close_all() -> None:
    """End every engine process this process started and has not ended."""
    with _LIVE_LOCK:
        live = list(_LIVE)
    for process in live:
        process.close()


atexit.register(close_all)


def live_processes() -> list[int]:
    """The process ids of the engines running now (for tests and ``bgsim engines``)."""
    with _LIVE_LOCK:
        return sorted(process.pid for process in _LIVE if process.pid is not None)


class EngineProcess:
    """One engine process and its conversation: start and handshake (:meth:`start`), commands
    (:meth:`send`), answers read against a deadline (:meth:`ask`), the end (:meth:`close`)."""

    def __init__(self, spec: EngineSpec) -> None:
        self.spec = spec
        self.process: subprocess.Popen | None = None
        self.lines: queue.Queue = queue.Queue()
        self.transcript: deque = deque(maxlen=TRANSCRIPT)
        self.stderr: deque = deque(maxlen=20)
        self.keys: dict[str, Key] = {}
        self.options: dict[str, Option] = {}
        self.protocol = "0.1"
        self.legacy = True
        self.identity: Identity | None = None
        self.sessions = False  # a v0.1 engine that takes newsession/setscore/setcube/setturn
        self.game_keys: list[str] = []  # the game.* keys it declared, in GAME_KEYS order

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process is not None else None

    # -- the process -------------------------------------------------------------------------

    def _spawn(self) -> None:
        spec = self.spec
        options: dict = {}
        if os.name == "posix":
            options["start_new_session"] = True  # its own process group: killed whole, spared the terminal's Ctrl-C
        else:  # pragma: no cover - Windows
            options["creationflags"] = subprocess.CREATE_NEW_PROCESS_GROUP
        try:
            self.process = subprocess.Popen(
                list(spec.command), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                cwd=spec.cwd, env=settings.engine_environment(dict(spec.env)) if spec.env else None,
                **options)
        except OSError as error:
            raise EngineFailure("start", f"cannot run {spec.describe()!r}: {error.strerror or error}") from None
        with _LIVE_LOCK:
            _LIVE.add(self)
        if hasattr(select, "poll"):
            # read in the asking thread: no reader thread to wake and hand the GIL to per answer
            self.lines = _PipeLines(self.process.stdout)
        else:  # pragma: no cover - Windows: a reader thread over Popen's buffered pipe
            threading.Thread(target=_read_lines, args=(self.process.stdout, self.lines), daemon=True,
                             name=f"ubgi-{spec.name}-out").start()
        threading.Thread(target=_read_stderr, args=(self.process.stderr, self.stderr), daemon=True,
                         name=f"ubgi-{spec.name}-err").start()

    def close(self) -> None:
        """``quit``, then the process group killed: nothing of the engine is left running."""
        process = self.process
        if process is None:
            return
        self.process = None
        try:
            if process.poll() is None:
                try:
                    process.stdin.write(b"quit\n")
                    process.stdin.flush()
                    process.stdin.close()
                except OSError:
                    pass
                try:
                    process.wait(QUIT_SECONDS)
                except subprocess.TimeoutExpired:
                    pass
        finally:
            _kill_group(process)
            with _LIVE_LOCK:
                _LIVE.discard(self)

    def send(self, *lines: str) -> None:
        """Write ``lines`` to the engine, in one write (one wake-up of the engine, not one a line)."""
        process = self.process
        if process is None:
            raise EngineFailure("crash", "it is not running")
        self.transcript.extend(["> " + line for line in lines])
        data = ("\n".join(lines) + "\n").encode("utf-8")
        try:
            # straight to the pipe: one system call, no buffer to flush
            descriptor = process.stdin.fileno()
            while data:
                data = data[os.write(descriptor, data):]
        except (OSError, ValueError):
            raise EngineFailure("crash", f"its input is closed ({self._ended()})") from None

    def _ended(self) -> str:
        process = self.process
        code = process.poll() if process is not None else None
        if code is None:
            return "it closed its output"
        if code < 0:
            try:
                return f"it was killed by {signal.Signals(-code).name}"
            except ValueError:
                return f"it was killed by signal {-code}"
        return f"it exited with status {code}"

    def read_line(self, deadline: float, what: str) -> str:
        """The next line the engine writes, by ``deadline`` (``time.monotonic``)."""
        try:  # a line already read comes back at once; else poll waits for one, to the deadline
            item = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            raise EngineFailure("timeout", f"no answer to {what} within {self._seconds(what)}") from None
        if item is None:
            self.lines.put(None)  # the end stays the end for whoever reads next
            if self.process is not None:
                try:
                    self.process.wait(QUIT_SECONDS)  # its status, when it is exiting
                except subprocess.TimeoutExpired:
                    pass
            raise EngineFailure("crash", f"{self._ended()} while asked {what}" + self._stderr_tail())
        kind, text = item
        self.transcript.append("< " + text)
        if kind == "garbage":
            raise EngineFailure("malformed", f"answered {what} with {text}", text)
        return text

    def _seconds(self, what: str) -> str:
        seconds = self.spec.start_timeout if what in ("ubgi", "the handshake") else self.spec.timeout
        return f"{seconds:g} s"

    def _stderr_tail(self) -> str:
        return f" (its last words: {self.stderr[-1]!r})" if self.stderr else ""

    # -- the handshake ----------------------------------------------------------------------

    def start(self) -> Identity:
        """Start the engine and shake hands: ``ubgi`` .. ``ubgiok``, its keys, its options,
        ``isready``; whether it reads XGIDs and v0.1's session lines.  EngineFailure (reason
        ``start``) says what went wrong; the process is ended then."""
        try:
            return self._start()
        except EngineFailure as failure:
            self.close()
            raise EngineFailure("start", failure.detail, failure.answer) from None

    def _start(self) -> Identity:
        spec = self.spec
        self._spawn()
        deadline = time.monotonic() + spec.start_timeout
        self.send("ubgi")
        ids: dict[str, str] = {}
        listed: list[str] = []
        noise: list[str] = []
        proto = None
        while True:
            raw = self.read_line(deadline, "ubgi")
            try:
                message = parse_answer(raw)
            except UbgiError:
                noise.append(raw)
                if len(noise) > HANDSHAKE_NOISE:
                    raise EngineFailure("malformed", f"printed {len(noise)} lines that are not UBGI in answer to ubgi, "
                                                     f"e.g. {noise[0][:80]!r}", raw) from None
                continue
            if isinstance(message, UbgiOk):
                break
            if isinstance(message, Id):
                ids.setdefault(message.field, message.value)
            elif isinstance(message, Proto):
                if message.version not in ubgi.PROTOCOLS:
                    raise EngineFailure("malformed", f"speaks UBGI {message.version} (proto {message.version}); "
                                                     f"bgsim speaks {' and '.join(ubgi.PROTOCOLS)}", raw)
                proto = message.version
            elif isinstance(message, Key):
                self.keys[message.name] = message
                listed.append(raw)
            elif isinstance(message, Option):
                self.options[message.name] = message
                listed.append(raw)
            elif isinstance(message, Error):
                raise EngineFailure("error", f"answered ubgi with {raw!r}", raw)
            elif not isinstance(message, Info):
                raise EngineFailure("wrong_answer", f"answered ubgi with {raw!r}", raw)
        self.protocol = proto or "0.1"
        self.legacy = self.protocol == "0.1"
        if not self.legacy:
            self.send("keys")
            for message, raw in self._barrier(deadline, "keys"):
                if isinstance(message, Key):
                    self.keys[message.name] = message
                    listed.append(raw)
        self._configure(deadline)
        xgid = spec.xgid
        if xgid is None:
            self.send(ubgi.PositionCommand("xgid", Situation().xgid()).line())
            xgid = not any(isinstance(message, Error) for message, _ in self._barrier(deadline, "position xgid"))
        if self.legacy and not xgid:
            for line in Situation().session_lines():
                self.send(line)
            self.sessions = not any(isinstance(message, Error) for message, _ in self._barrier(deadline, "newsession"))
        take = ubgi.TAKE_KEY in self.keys
        self.game_keys = [name for name in ubgi.GAME_KEYS if name in self.keys]
        context = ("xgid" if xgid else "game keys" if self.game_keys
                   else "v0.1 session lines" if self.sessions else "none (money play, centred cube)")
        executable, digest, files = _fingerprint(spec)
        self.identity = Identity(
            engine=spec.name, command=spec.command, options=spec.options, id_name=ids.get("name", ""),
            id_author=ids.get("author", ""), id_version=ids.get("version", ""), protocol=self.protocol,
            executable=executable, sha256=digest, files=files, keys=tuple(listed), xgid=xgid, take=take,
            context=context)
        return self.identity

    def _barrier(self, deadline: float, what: str, *before: str) -> list:
        """``before`` and ``isready`` (one write), then every message up to ``readyok`` (info
        lines left out)."""
        self.send(*before, "isready")
        found = []
        while True:
            raw = self.read_line(deadline, what)
            try:
                message = parse_answer(raw)
            except UbgiError as error:
                raise EngineFailure("malformed", f"answered {what} with {raw!r}: {error}", raw) from None
            if isinstance(message, ReadyOk):
                return found
            if not isinstance(message, Info):
                found.append((message, raw))

    def _configure(self, deadline: float) -> None:
        """Set the engines file's options, each as the engine declared it; the extension on."""
        spec = self.spec
        for name, value in spec.options:
            if name in self.keys:
                try:
                    self.send(ubgi.Set(name, self.keys[name].format(value)).line())
                except UbgiError as error:
                    raise EngineError(f"engine {spec.name}: option {name} = {value!r}: {error}") from None
            elif name in self.options:
                try:
                    self.send(ubgi.SetOption(name, self.options[name].value_of(value)).line())
                except UbgiError as error:
                    raise EngineError(f"engine {spec.name}: option {name} = {value!r}: {error}") from None
            else:
                known = sorted(self.keys) + sorted(self.options)
                raise EngineError(f"engine {spec.name}: option {name!r} is not one of its settings "
                                  f"({'it lists ' + ', '.join(known) if known else 'it lists none'})")
        if ubgi.TAKE_KEY in self.keys:
            self.send(ubgi.Set(ubgi.TAKE_KEY, "true").line())
        refused = [raw for message, raw in self._barrier(deadline, "its options") if isinstance(message, Error)]
        if refused:
            raise EngineError(f"engine {spec.name} refused its options ({', '.join(f'{k}={v}' for k, v in spec.options)}"
                              f"{', ' + ubgi.TAKE_KEY + '=true' if ubgi.TAKE_KEY in self.keys else ''}): "
                              f"{refused[0]!r}")

    # -- decisions ---------------------------------------------------------------------------

    def ask(self, lines: list[str], what: str):
        """Send ``lines`` (the last one a ``go``) and read the answer: (message, exact line), an
        ``error`` line included; info lines are skipped.  EngineFailure for anything else."""
        self._stale(what)
        self.send(*lines)
        deadline = time.monotonic() + self.spec.timeout
        while True:
            raw = self.read_line(deadline, what)
            try:
                message = _answer_of(raw)
            except UbgiError as error:
                raise EngineFailure("malformed", f"answered {what} with {raw!r}: {error}", raw) from None
            if isinstance(message, Info):
                continue
            if isinstance(message, _ANSWERS):
                return message, raw
            raise EngineFailure("wrong_answer", f"answered {what} with {raw!r}", raw)

    def _stale(self, what: str) -> None:
        """A line written after the last answer was read is out of step: the engine answered
        twice, or late."""
        while True:
            try:
                item = self.lines.get_nowait()
            except queue.Empty:
                return
            if item is None:
                self.lines.put(None)
                return
            kind, text = item
            self.transcript.append("< " + text)
            if kind == "text" and text.startswith("info "):
                continue
            raise EngineFailure("wrong_answer", f"wrote {text!r} unasked, before {what}", text)


_ANSWERS = (Error, *ubgi.FINAL_ANSWERS)  # what ends a question: an answer, or an error line

# A decision's answer read once per distinct line: an engine writes the same few hundred
# answers again and again, and every message is a frozen dataclass, safe to share.
_answer_of = lru_cache(maxsize=4096)(parse_answer)


class _PipeLines:
    """The engine's stdout as the reader thread's queue would give it (``get_nowait``, ``get``,
    ``put`` of the end marker): ("text", line) or ("garbage", what), None at the end; but read
    by the thread that asks, from the pipe itself, with ``poll`` keeping the deadline."""

    def __init__(self, stream) -> None:
        self.stream = stream  # kept open: the descriptor is its
        self.fd = stream.fileno()
        os.set_blocking(self.fd, False)
        self.poller = select.poll()
        self.poller.register(self.fd, select.POLLIN | select.POLLHUP | select.POLLERR)
        self.buffer = bytearray()
        self.ready: deque = deque()
        self.skipping = False  # inside a line already reported as too long
        self.ended = False

    def put(self, item) -> None:
        self.ready.append(item)

    def get_nowait(self):
        while not self.ready and self._fill(0.0):
            pass
        if not self.ready:
            raise queue.Empty
        return self.ready.popleft()

    def get(self, timeout: float):
        deadline = time.monotonic() + timeout
        while not self.ready:  # past the deadline, what the pipe holds is still read once
            if not self._fill(max(0.0, deadline - time.monotonic())) and time.monotonic() >= deadline:
                raise queue.Empty
        return self.ready.popleft()

    def _fill(self, seconds: float) -> bool:
        """Read what the pipe has, waiting up to ``seconds`` for it; False when nothing came."""
        if self.ended:
            return False
        if not self.poller.poll(max(0, int(seconds * 1000 + 0.999))):
            return False
        try:
            data = os.read(self.fd, 1 << 16)
        except BlockingIOError:
            return False
        except OSError:
            data = b""
        if not data:
            self.ended = True
            if self.buffer and not self.skipping:
                self._line(bytes(self.buffer))
            self.buffer.clear()
            self.ready.append(None)
            return True
        self.buffer += data
        while True:
            end = self.buffer.find(b"\n")
            if end < 0:
                if len(self.buffer) > MAX_LINE:
                    if not self.skipping:
                        self.ready.append(("garbage", f"a line of more than {MAX_LINE} bytes"))
                    self.skipping = True
                    self.buffer.clear()
                return True
            raw = bytes(self.buffer[:end])
            del self.buffer[:end + 1]
            if self.skipping:
                self.skipping = False
            elif len(raw) > MAX_LINE:
                self.ready.append(("garbage", f"a line of more than {MAX_LINE} bytes"))
            else:
                self._line(raw)

    def _line(self, raw: bytes) -> None:
        try:
            self.ready.append(("text", raw.decode("utf-8").rstrip("\r")))
        except UnicodeDecodeError:
            self.ready.append(("garbage", f"bytes that are not UTF-8: {raw[:40]!r}"))


def _read_lines(stream, lines: queue.Queue) -> None:
    """The engine's stdout, line by line, into ``lines``: ("text", line) or ("garbage", what);
    None at the end."""
    try:
        while True:
            raw = stream.readline(MAX_LINE + 1)
            if not raw:
                break
            if len(raw) > MAX_LINE and not raw.endswith(b"\n"):
                while raw and not raw.endswith(b"\n"):
                    raw = stream.readline(MAX_LINE + 1)
                lines.put(("garbage", f"a line of more than {MAX_LINE} bytes"))
                continue
            try:
                lines.put(("text", raw.decode("utf-8").rstrip("\r\n")))
            except UnicodeDecodeError:
                lines.put(("garbage", f"bytes that are not UTF-8: {raw[:40]!r}"))
    except (OSError, ValueError):
        pass
    lines.put(None)


def _read_stderr(stream, tail: deque) -> None:
    try:
        for raw in iter(lambda: stream.readline(MAX_LINE), b""):
            text = raw.decode("utf-8", "replace").rstrip("\r\n")
            if text.strip():
                tail.append(text[:200])
    except (OSError, ValueError):
        pass


def _kill_group(process: subprocess.Popen) -> None:
    """Kill the engine's whole process group (its children too), then reap it."""
    if os.name == "posix":
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    else:  # pragma: no cover - Windows: the process itself
        try:
            process.kill()
        except OSError:
            pass
    try:
        process.wait(QUIT_SECONDS)
    except subprocess.TimeoutExpired:  # pragma: no cover - a kill is not refused
        pass
    for stream in (process.stdin, process.stdout, process.stderr):
        try:
            stream.close()
        except (OSError, ValueError):
            pass


_DIGESTS: dict[tuple[str, int, int], str] = {}


def _sha256(path: Path) -> str:
    stat = path.stat()
    key = (str(path), stat.st_size, stat.st_mtime_ns)
    if key not in _DIGESTS:
        digest = hashlib.sha256()
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
        _DIGESTS[key] = digest.hexdigest()
    return _DIGESTS[key]


def _fingerprint(spec: EngineSpec) -> tuple[str, str, tuple[tuple[str, str], ...]]:
    """(executable, its sha256, the arguments that are files with theirs): the engine's code."""
    base = Path(spec.cwd) if spec.cwd else Path.cwd()
    first = spec.command[0]
    found = (base / first) if (os.sep in first or (os.altsep and os.altsep in first)) else shutil.which(first)
    executable = Path(found).resolve() if found else None
    digest = _sha256(executable) if executable is not None and executable.is_file() else ""
    files = []
    for word in spec.command[1:]:
        candidate = base / word
        try:
            if candidate.is_file():
                files.append((word, _sha256(candidate)))
        except OSError:
            continue
    return (str(executable) if executable else first), digest, tuple(files)


# --- the engine log -------------------------------------------------------------------------


class EngineLog:
    """A run's engine log: one JSON object a line (JSON Lines), appended whole, from any thread
    or worker process on this machine: each forfeit with the position, dice and exact answer,
    each start again, each engine that cannot do what it is asked."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self.lock = threading.Lock()

    def write(self, entry: dict) -> None:
        line = (json.dumps(entry, default=str) + "\n").encode("utf-8")
        with self.lock:
            try:
                handle = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
                try:
                    os.write(handle, line)
                finally:
                    os.close(handle)
            except OSError:
                pass  # the log is a witness, not the result: the rows say the same in one line

    def __eq__(self, other) -> bool:
        return isinstance(other, EngineLog) and other.path == self.path

    def __hash__(self) -> int:
        return hash(self.path)

    def __reduce__(self):
        return (EngineLog, (self.path,))


# --- the player -----------------------------------------------------------------------------


class UbgiPlayer:
    """An engine at the board: ``bgsim.decisions.Player`` over UBGI (see the module docstring).

    ``cube``: a bgsim cube bot that offers and answers every double instead of the engine.
    ``checker`` is None: there is no built-in checker bot, so only the reference engine can seat
    it (``bgsim.series.engine_for``)."""

    external = True
    checker = None

    def __init__(self, engine: EngineSpec, cube=None, log: EngineLog | None = None) -> None:
        self.engine = engine
        self.cube = cube
        self.log = log
        self.name = PREFIX + engine.name + (f"+{cube.spec}" if cube is not None else "")
        self.process: EngineProcess | None = None
        self.identity: Identity | None = None
        self.context = None
        self.cube_unsupported = False
        self.decisions = 0
        self.seconds = 0.0
        self.forfeits = 0
        self._sent: dict[str, str] = {}
        self._sent_values = None  # the game values last sent, as Situation.game_values shares them
        self._forks: list[UbgiPlayer] = []
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"<UbgiPlayer {self.name}>"

    # -- the process -------------------------------------------------------------------------

    def start(self) -> Identity:
        """Start the engine (once) and return who it is; EngineError in one line when it cannot
        be seated.  Commands call it before the first game, so a bad engine stops them there."""
        if self.process is not None and self.process.process is None:  # ended from outside (close_all)
            self.process = None
        if self.process is None:
            process = EngineProcess(self.engine)
            try:
                self.identity = process.start()
            except EngineFailure as failure:
                raise EngineError(f"engine {self.engine.name} ({self.engine.describe()}): {failure.detail}") from None
            self.process = process
            self._sent, self._sent_values = {}, None
        return self.identity

    def close(self) -> None:
        """End the engine (and every fork's)."""
        if self.process is not None:
            self.process.close()
            self.process = None
        for fork in self._forks:
            fork.close()

    def fork(self) -> "UbgiPlayer":
        """Another seat of the same engine, with a process of its own (games side by side)."""
        return UbgiPlayer(self.engine, self.cube, self.log)

    def forks(self, count: int) -> list["UbgiPlayer"]:
        """``count`` seats of this engine for games played side by side, each with its own
        process: this one and forks kept for the next time."""
        with self._lock:
            while len(self._forks) < count - 1:
                self._forks.append(self.fork())
            return [self, *self._forks[:count - 1]]

    def stats(self) -> dict:
        """Decisions asked, seconds they took (a forfeit's too) and forfeits, forks included."""
        seats = [self, *self._forks]
        return {"decisions": sum(seat.decisions for seat in seats),
                "seconds": sum(seat.seconds for seat in seats),
                "forfeits": sum(seat.forfeits for seat in seats)}

    def check_variant(self, variant: str) -> None:
        """SpecError naming why the engine cannot play ``variant``: UBGI carries no checkers in
        hand, and any game but the standard one needs the engine's ``game.variant``."""
        game = variant_of(variant)
        if game.name not in ubgi.VARIANT_NAMES:
            raise SpecError(f"{self.name} cannot play {game.name}: a GNU Backgammon position ID holds no checkers in "
                            "hand (UBGI plays the standard game, Nackgammon and hypergammon)")
        if self.cube is not None and game.cube and game.name in getattr(self.cube, "refused_variants", ()):
            raise SpecError(f"{self.cube.name} cannot play {game.name}")
        if game.name == STANDARD:
            return
        word = ubgi.VARIANT_NAMES[game.name]
        identity = self.start()
        process = self.process
        key, option = process.keys.get("game.variant"), process.options.get("Variant")
        if (key is not None and word in key.choices) or (option is not None and word in option.choices):
            return
        raise SpecError(f"{self.name} does not say it plays {game.name}: its game.variant "
                        f"({identity.id_name or self.engine.name}) does not list {word}")

    # -- what the game loop tells it -------------------------------------------------------------

    def see_context(self, context) -> None:
        self.context = context
        if context.first:
            self._new_game(context)

    def _running(self) -> EngineProcess:
        """The engine's process, started (again, after a forfeit ended the last one) if need be;
        a start that fails forfeits the game being played."""
        if self.process is not None and self.process.process is None:  # ended from outside (close_all)
            self.process = None
        if self.process is None:
            try:
                self.start()
            except EngineError as error:
                self._write_log("start", str(error), None, None, None)
                self.forfeits += 1
                raise Forfeit("start", str(error)) from None
        return self.process

    def _new_game(self, context) -> None:
        """``newgame`` and the game's seed, then ``isready``: an engine that refuses them, or
        says anything but ``readyok``, forfeits the game before its first move."""
        process = self._running()
        lines = [ubgi.NewGame().line()]
        seed = self._game_seed(context)
        if seed is not None:
            lines.append(seed)
        self._sent, self._sent_values = {}, None
        try:
            process._stale(lines[0])
            said = process._barrier(time.monotonic() + self.engine.timeout, " and ".join(lines), *lines)
        except EngineFailure as failure:
            self._forfeit(failure, None, None)
        for message, raw in said:
            reason = "error" if isinstance(message, Error) else "wrong_answer"
            self._forfeit(EngineFailure(reason, f"answered {' and '.join(lines)} with {raw!r}", raw), None, None)

    def _game_seed(self, context) -> str | None:
        """The ``set engine.seed`` (v0.1: ``setoption name Seed``) line of this game, or None
        when the engine lists no seed (module docstring)."""
        process = self.process
        for name in SEED_KEYS:
            declared = process.keys.get(name) if name == "engine.seed" else process.options.get(name)
            if declared is None:
                continue
            base = dict(self.engine.options).get(name, 0)
            base = base if isinstance(base, int) and not isinstance(base, bool) else 0
            side = 0 if context.side == "white" else 1
            value = mix64((mix64((mix64((mix64(base & MASK64) + context.seed) & MASK64) + context.game) & MASK64)
                           + (context.game_in_match * 2 + side + 1) * GOLDEN) & MASK64)
            low = declared.minimum if declared.minimum is not None else 0
            high = declared.maximum if declared.maximum is not None else (1 << 31) - 1
            number = low + value % (high - low + 1)
            if isinstance(declared, Key):
                return ubgi.Set(name, str(number)).line()
            return ubgi.SetOption(name, str(number)).line()
        return None

    # -- decisions ---------------------------------------------------------------------------

    def choose_play(self, position: Position, roll, plays, random):
        situation = self._situation(position, self._side(), dice=tuple(roll))
        answer, raw = self._ask(situation, ubgi.Dice(*roll).line(), "chequer", (BestMove, BestMoveId))
        try:
            play = read_play(position, roll, answer, plays)
        except ubgi.IllegalPlay as error:
            self._forfeit(EngineFailure(error.reason if error.reason != "pass" else "illegal", str(error), raw),
                          situation, roll)
        except UbgiError as error:
            self._forfeit(EngineFailure("malformed", str(error), raw), situation, roll)
        if play is None:  # pragma: no cover - read_play refuses a pass where a play is legal
            self._forfeit(EngineFailure("illegal", "passed where a play is legal", raw), situation, roll)
        return play

    def offer_double(self, position: Position, cube: CubeView) -> bool:
        if self.cube is not None:
            return bool(self.cube.offer_double(position.as_standard(), cube))
        if self.cube_unsupported:
            return False
        situation = self._cube_situation(position, cube)
        answer, raw = self._ask(situation, None, "cube", (BestCube,), unsupported_ok=True)
        if answer is None:  # it says it does not do cube decisions: it never doubles
            self.cube_unsupported = True
            self._write_log("note", f"{self.name} answered go cube with {raw!r}: it never doubles", raw, situation, None)
            return False
        return answer.double

    def respond_to_double(self, position: Position, cube: CubeView) -> Response:
        if self.cube is not None:
            return self.cube.respond(position.as_standard(), cube)
        self._running()
        if not self.identity.take:
            return Response.TAKE  # an engine without bgsim's take extension takes every double
        situation = self._cube_situation(position, cube, offered=True)
        answer, raw = self._ask(situation, None, "take", (BestTake,))
        if answer.response is Response.BEAVER and not cube.beaver_allowed:
            self._forfeit(EngineFailure("illegal", f"answered go take with {raw!r} where beavers are not allowed", raw),
                          situation, None)
        return answer.response

    def ask(self, situation: Situation, role: str):
        """One decision asked as the game loop asks it (the context lines the engine reads, the
        dice of a checker play, ``go ROLE``): (answer, exact line), or (None, line) for an
        ``unsupported`` error to a decision other than a checker play; a ``Forfeit`` for anything
        else wrong.  ``bgsim check`` puts its probe positions this way."""
        kinds = {"chequer": (BestMove, BestMoveId), "cube": (BestCube,), "take": (BestTake,),
                 "turn": (ubgi.BestTurn,)}[role]
        dice = ubgi.Dice(*situation.dice).line() if role in ("chequer", "turn") and situation.dice != (0, 0) else None
        return self._ask(situation, dice, role, kinds, unsupported_ok=role != "chequer")

    # -- the conversation ------------------------------------------------------------------------

    def _side(self) -> str:
        return self.context.side if self.context is not None else "white"

    def _situation(self, position: Position, on_roll: str, dice=(0, 0), owner: str | None = None,
                   offered: bool = False) -> Situation:
        """The decision's situation from ``on_roll`` (the side on roll in ``position``)."""
        context = self.context
        if context is None:
            return Situation(position, dice=dice)
        match = context.match
        if owner is None:
            owner = CENTRE if context.cube_owner == "centre" else ON_ROLL if context.cube_owner == on_roll else OPPONENT
        score = (0, 0)
        if match is not None:
            score = ((match.white_score, match.black_score) if on_roll == "white"
                     else (match.black_score, match.white_score))
        rules = context.rules
        return Situation(position, dice=dice, cube_value=context.cube_value, cube_owner=owner, offered=offered,
                         match_to=match.match_to if match else 0, score=score,
                         crawford=bool(match and match.crawford), jacoby=rules.jacoby and match is None,
                         beaver=rules.beaver and match is None, max_cube=rules.max_cube)

    def _cube_situation(self, position: Position, cube: CubeView, offered: bool = False) -> Situation:
        """A cube decision's situation from the doubler (on roll in ``position``): the view says
        the cube, the score and the money rules; the game loop's context, the Crawford game."""
        match_to = cube.match_to
        score = (match_to - cube.away[0], match_to - cube.away[1]) if match_to else (0, 0)
        max_cube = self.context.rules.max_cube if self.context is not None else cube.max_cube
        return Situation(position, cube_value=cube.value, cube_owner=CENTRE if cube.centred else ON_ROLL,
                         offered=offered, match_to=match_to, score=score, jacoby=cube.jacoby and not match_to,
                         beaver=cube.beaver_allowed and not match_to, max_cube=max(max_cube, cube.value))

    def _context_lines(self, situation: Situation) -> list[str]:
        process = self.process
        lines = situation.position_lines(xgid=self.identity.xgid)
        declared = process.game_keys
        if declared:
            values = situation.game_values()
            if values is not self._sent_values:  # the same shared mapping: nothing changed
                for name in declared:
                    if self._sent.get(name) != values[name]:
                        lines.append(ubgi.Set(name, values[name]).line())
                        self._sent[name] = values[name]
                self._sent_values = values
        elif process.sessions:
            lines += situation.session_lines()
        return lines

    def _ask(self, situation: Situation, dice_line: str | None, role: str, kinds, unsupported_ok: bool = False):
        """Ask the engine one decision: (answer, exact line); a Forfeit for anything but an
        answer of ``kinds`` (with ``unsupported_ok``: (None, line) for an ``unsupported`` error)."""
        process = self._running()
        go = ubgi.Go(role, legacy=process.legacy)
        what = go.line()
        lines = self._context_lines(situation) + ([dice_line] if dice_line else []) + [what]
        started = time.perf_counter()
        try:
            answer, raw = process.ask(lines, what)
        except EngineFailure as failure:
            self.seconds += time.perf_counter() - started
            self.decisions += 1
            self._forfeit(failure, situation, situation.dice if dice_line else None)
        self.seconds += time.perf_counter() - started
        self.decisions += 1
        if isinstance(answer, Error):
            if unsupported_ok and answer.unsupported:
                return None, raw
            self._forfeit(EngineFailure("error", f"answered {what} with {raw!r}", raw), situation,
                          situation.dice if dice_line else None)
        if not isinstance(answer, kinds):
            self._forfeit(EngineFailure("wrong_answer", f"answered {what} with {raw!r}", raw), situation,
                          situation.dice if dice_line else None)
        return answer, raw

    def _forfeit(self, failure: EngineFailure, situation: Situation | None, dice):
        """Record what the engine did, end its process (the next game starts it again) and raise
        the Forfeit that ends this game."""
        detail = f"{self.name} {failure.detail}"
        self._write_log(failure.reason, detail, failure.answer, situation, dice)
        self.forfeits += 1
        if self.process is not None:
            self.process.close()
            self.process = None
        raise Forfeit(failure.reason, detail)

    def _write_log(self, reason: str, detail: str, answer, situation: Situation | None, dice) -> None:
        if self.log is None:
            return
        context = self.context
        process = self.process
        self.log.write({
            "time": time.strftime("%Y-%m-%dT%H:%M:%S"), "engine": self.engine.name, "player": self.name,
            "seed": getattr(context, "seed", None), "game": getattr(context, "game", None),
            "game_in_match": context.game_in_match if context is not None else None,
            "side": getattr(context, "side", None), "ply": getattr(context, "plies", None),
            "reason": reason, "detail": detail,
            "position_id": situation.gnubgid() if situation is not None else None,
            "xgid": situation.xgid() if situation is not None else None,
            "dice": list(dice) if dice else None, "answer": answer,
            "said": list(process.transcript) if process is not None else [],
            "stderr": list(process.stderr) if process is not None else [],
        })


# --- specs ------------------------------------------------------------------------------------

_DECLARED: dict[str, EngineSpec] = {}
_DECLARED_LOG: list = [None]


def declare(engines: Mapping[str, EngineSpec], log: EngineLog | None = None) -> None:
    """The engines ``ubgi:NAME`` finds in this process (``make_player`` without ``engines``),
    and the log their players write to."""
    _DECLARED.clear()
    _DECLARED.update(engines)
    _DECLARED_LOG[0] = log


def declared() -> dict[str, EngineSpec]:
    return dict(_DECLARED)


def is_engine_spec(spec) -> bool:
    return isinstance(spec, str) and spec.strip().startswith(PREFIX)


class EngineCube:
    """An engine as a cube rule (``bgsim cube-audit --players ubgi:NAME``): a cube bot's two
    questions (``offer_double``, ``respond``) asked of the engine by ``go cube`` and ``go take``.
    An engine that forfeits a decision here stops the audit in one line (EngineError), naming it
    and what it did: an audit has no game to lose."""

    def __init__(self, player: UbgiPlayer) -> None:
        if player.cube is not None:
            raise SpecError(f"{player.name}: an engine judged as a cube rule answers for itself (leave out +CUBE)")
        self.player = player
        self.name = self.spec = player.name

    def offer_double(self, position: Position, cube: CubeView) -> bool:
        return self._asked(lambda: self.player.offer_double(position, cube), position)

    def respond(self, position: Position, cube: CubeView) -> Response:
        return self._asked(lambda: self.player.respond_to_double(position, cube), position)

    def _asked(self, call, position: Position):
        try:
            return call()
        except Forfeit as forfeit:
            raise EngineError(f"engine {self.player.engine.name} {forfeit.reason}: {forfeit.detail} (position "
                              f"{position.position_id})") from None
