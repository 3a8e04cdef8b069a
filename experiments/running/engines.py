"""Engines files: where ``ubgi:NAME`` finds the engine NAME, read and checked before any game.

An engines file is TOML, one table per engine (``docs/UBGI.md``)::

    [engines.gnubg]
    command = ["gnubg", "--ubgi"]        # the program and its arguments (required)
    options = {"engine.ply" = 2}          # set after the handshake: keys (v0.2) or options (v0.1)
    cwd = "engines"                       # the folder it runs in (default: this file's folder)
    env = {"OMP_NUM_THREADS" = "1"}       # added to its environment
    timeout = 30                          # seconds one decision may take (default 30)
    start_timeout = 30                    # seconds to start and shake hands (default 30)
    xgid = true                           # it reads position xgid (default: asked at start)

A relative ``cwd`` and a ``command`` word with a slash in it are taken from the folder of the
file that declares the engine, so an engines file works from wherever bgsim is run.

A NAME is looked up in ``--engines FILE``, then in the experiment file's own ``[engines]``
table, then in the user's ``bgsim/engines.toml`` under the platform's config folder
(``bgsim.settings.config_folder``): the first that declares it wins.  A file with an error is
refused before anything is played, in one line naming the file, the line and what is wrong.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Mapping

from bgsim import settings
from bots import EnginePlayers, SpecError
from bots.ubgi import DEFAULT_START_TIMEOUT, DEFAULT_TIMEOUT, EngineLog, EngineSpec, declare

from experiments.errors import ExperimentError

ENGINES_FILE = "engines.toml"
ENGINE_LOG = "engines.log"  # a run folder's engine log (JSON Lines)
KEYS = {
    "command": "the program and its arguments, a list of words",
    "options": "a table of settings: key = value",
    "cwd": "the folder it runs in",
    "env": "a table of environment variables it gets",
    "timeout": f"seconds one decision may take (default {DEFAULT_TIMEOUT:g})",
    "start_timeout": f"seconds to start and shake hands (default {DEFAULT_START_TIMEOUT:g})",
    "xgid": "true or false: whether it reads position xgid (default: asked at start)",
}


def user_engines_file() -> Path:
    """The user's engines file: ``bgsim/engines.toml`` under the platform's config folder."""
    return settings.config_folder() / ENGINES_FILE


def read_engines_file(path: str | Path) -> dict[str, EngineSpec]:
    """The engines of one file; ExperimentError naming the file and line of the first error."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ExperimentError(f"{path}: no such engines file") from None
    except UnicodeDecodeError as error:
        raise ExperimentError(f"{path}: not UTF-8 text ({error.reason})") from None
    except OSError as error:
        raise ExperimentError(f"{path}: cannot read it ({error.strerror or error})") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ExperimentError(f"{path}: not valid TOML: {error}") from None
    unknown = sorted(set(data) - {"engines"})
    if unknown:
        raise ExperimentError(f"{path}:{_line(text, unknown[0])}: {unknown[0]}: unknown key (an engines file holds "
                              "[engines.NAME] tables)")
    return engines_from_table(data.get("engines", {}), path, text)


def engines_from_table(table, path: str | Path, text: str = "") -> dict[str, EngineSpec]:
    """The engines of an ``[engines]`` table read from the file ``path`` (whose ``text`` gives the
    lines of errors)."""
    path = Path(path)
    folder = path.resolve().parent
    if not isinstance(table, dict):
        raise ExperimentError(f"{path}:{_line(text, 'engines')}: engines: a table of [engines.NAME] tables")
    found = {}
    for name, entry in table.items():
        def fail(key: str | None, problem: str) -> ExperimentError:
            where = f"engines.{name}" + (f".{key}" if key else "")
            return ExperimentError(f"{path}:{_line(text, name, key)}: {where}: {problem}")

        if not isinstance(entry, dict):
            raise fail(None, "an engine is a table with its command, e.g. [engines.NAME] command = [\"prog\"]")
        unknown = sorted(set(entry) - set(KEYS))
        if unknown:
            raise fail(unknown[0], f"unknown key (known: {', '.join(KEYS)})")
        if "command" not in entry:
            raise fail(None, "no command: the program and its arguments, e.g. command = [\"gnubg\", \"--ubgi\"]")
        command = entry["command"]
        if not isinstance(command, list) or not command or not all(isinstance(word, str) and word for word in command):
            raise fail("command", f"a list of words, e.g. [\"gnubg\", \"--ubgi\"], got {command!r}")
        for key, kind in (("options", dict), ("env", dict), ("cwd", str), ("xgid", bool)):
            if key in entry and not isinstance(entry[key], kind):
                raise fail(key, f"{KEYS[key]}, got {entry[key]!r}")
        for key, value in entry.get("env", {}).items():
            if not isinstance(value, str):
                raise fail("env", f"{key} is text, got {value!r}")
        cwd = Path(entry.get("cwd", "."))
        cwd = cwd if cwd.is_absolute() else folder / cwd
        if not cwd.is_dir():
            raise fail("cwd", f"{cwd} is not a folder")
        words = list(command)
        if ("/" in words[0] or "\\" in words[0]) and not Path(words[0]).is_absolute():
            words[0] = str((cwd / words[0]).resolve())
        try:
            found[name] = EngineSpec(
                name, tuple(words), tuple(entry.get("options", {}).items()), str(cwd),
                tuple(entry.get("env", {}).items()), entry.get("timeout", DEFAULT_TIMEOUT),
                entry.get("start_timeout", DEFAULT_START_TIMEOUT), entry.get("xgid"),
                source=f"{path}:{_line(text, name)}")
        except SpecError as error:  # "engine NAME: KEY: problem"
            parts = str(error).split(": ", 2)
            key = parts[1] if len(parts) == 3 and parts[1] in KEYS else None
            raise fail(key, parts[-1]) from None
    return found


def _line(text: str, name: str, key: str | None = None) -> int:
    """The line of ``text`` that declares engine ``name`` (its ``key`` within it), 1 if none."""
    lines = text.splitlines()
    start = None
    header = re.compile(rf"\s*\[\s*engines\s*\.\s*\"?{re.escape(name)}\"?\s*\]")
    inline = re.compile(rf"\s*\"?{re.escape(name)}\"?\s*=")
    for number, line in enumerate(lines, start=1):
        if header.match(line) or (start is None and inline.match(line)):
            start = number
            break
    if start is None:
        return 1
    if key is None:
        return start
    pattern = re.compile(rf"(^|[\s{{,])\"?{re.escape(key)}\"?\s*=")
    for number in range(start, len(lines) + 1):
        if number > start and lines[number - 1].lstrip().startswith("["):
            break
        if pattern.search(lines[number - 1]):
            return number
    return start


def engine_table(engines_file: str | Path | None = None, experiment: Mapping | None = None,
                 experiment_source: str | Path = "", experiment_text: str = "",
                 user_file: Path | None = None) -> dict[str, EngineSpec]:
    """Every engine a command may seat, each from the first place that declares it:
    ``engines_file`` (``--engines``), the experiment file's ``[engines]`` table, the user's
    engines file (when it exists).  Every file is read, and any error refused, here."""
    layers = []
    if engines_file is not None:
        layers.append(read_engines_file(engines_file))
    if experiment:
        layers.append(engines_from_table(experiment, experiment_source, experiment_text))
    user = user_file if user_file is not None else user_engines_file()
    if user.is_file():
        layers.append(read_engines_file(user))
    table: dict[str, EngineSpec] = {}
    for layer in layers:
        for name, spec in layer.items():
            table.setdefault(name, spec)
    return table


def engine_players(engines: Mapping[str, EngineSpec], log: str | Path | None = None) -> EnginePlayers:
    """The player factory of a command that may seat ``engines`` (``log``: its engine log); it
    is declared in this process too, for code that builds players from specs alone."""
    engine_log = EngineLog(log) if log is not None else None
    declare(engines, engine_log)
    return EnginePlayers(tuple(sorted(engines.items())), engine_log)


def seated_engines(players) -> list:
    """The external engine players among ``players`` (each once)."""
    found, seen = [], set()
    for player in players:
        if getattr(player, "external", False) and id(player) not in seen:
            seen.add(id(player))
            found.append(player)
    return found


def start_engines(players, log=print) -> dict:
    """Start every external engine among ``players`` before the first game (a bad one stops the
    command here, in one line: ``bots.ubgi.EngineError``) and return who each is
    (``bots.ubgi.Identity``) by engine name."""
    identities = {}
    for player in seated_engines(players):
        identity = player.start()
        if identity.engine in identities:
            continue
        identities[identity.engine] = identity
        log(f"engine {identity.engine}: {identity.id_name or '(no id name)'}"
            f"{' ' + identity.id_version if identity.id_version else ''}, UBGI {identity.protocol}, "
            f"cube and score by {identity.context}"
            f"{', takes by go take' if identity.take else ''} ({' '.join(identity.command)})")
    return identities


def decision_times(players) -> dict[str, dict]:
    """Decisions, seconds and forfeits of every external engine among ``players``, by player name."""
    return {player.name: player.stats() for player in seated_engines(players)}


def format_decision_times(times: Mapping[str, Mapping]) -> list[str]:
    """One line per engine: its decisions, their mean time, its forfeits."""
    lines = []
    for name, stats in sorted(times.items()):
        decisions = stats.get("decisions", 0)
        mean = stats.get("seconds", 0.0) / decisions * 1000 if decisions else float("nan")
        lines.append(f"{name}: {decisions:,} decisions, mean {mean:.2f} ms a decision, "
                     f"{stats.get('forfeits', 0):,} forfeits")
    return lines
