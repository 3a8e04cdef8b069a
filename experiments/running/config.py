"""Experiment files: TOML in, one validated :class:`Experiment` out.

An experiment file names the players (spec strings), how many games each pairing plays, the
seed, the rule options and the engine.  Everything is checked before a single game is played:
unknown keys, wrong types, unknown players and contradictory options each end in one
:class:`ExperimentError` that names the file and the key.

Keys (all optional except ``games`` and at least two players)::

    name        = "default"          # label for the results folder (default: the file's stem)
    description = "..."              # one line for the summary
    players     = ["heuristic+pipdiff", ...]
    opponent    = "heuristic+keith"  # a fixed opponent: in the round robin, or the only one
    pairings    = "round-robin"      # or "against": each player meets only ``opponent``;
                                     # or "gauntlet": each player meets every one of ``opponents``
    opponents   = ["pubeval", "nn"]  # a gauntlet's fixed opponents
    games       = 2000               # game numbers (deals) per pairing; see ``duplicate``
    seed        = 1
    engine      = "auto"             # "fast", "reference" or "auto"
    threads     = 0                  # 0 = every core
    duplicate   = true               # play every deal twice, seats swapped
    chunk       = 500                # game numbers per chunk file (the unit of resume and Dask)
    match_to    = 0                  # > 0: each game number is a whole match to that many points
    target_ci   = 0.02               # stop a pairing once its 95% half-width is at most this
    sprt        = {delta0 = 0, delta1 = 0.05}   # or: stop each pairing once a sequential test of
                                     # its first player's gain decides (alpha, beta default 0.05,
                                     # floor 0.5; experiments/sequential.py); ``chunk`` deals a look
    judge_cube  = 0                  # matches: replay the first N deals of every pairing and judge
                                     # each cube decision in match-winning chances where the exact
                                     # match tables hold the position (experiments/analysis/match_judge.py)

    [rules]                          # bgsim.cube.Rules fields, the base for every condition
    jacoby = true
    # variant = "dutch"              # the game: standard, nackgammon, hypergammon1..3, dutch,
                                     # acey-deucey (no cube; a condition may name another variant)

    [conditions.jacoby]              # optional: play every pairing again under each rule set
    jacoby = true

    [conditions.eleven]              # a condition may set its own match length
    match_to = 11

    [starts]                         # optional: deals start from given positions (money games)
    positions = ["4HPwATDgc/ABMA", ...]   # game g starts from positions[g % len] (white on roll); XGIDs too
    # or: race = [40, 80]            # random races, each side 40..80 pips; seed = S (default: the run's)

    [engines.gnubg]                  # optional: external engines its ubgi:NAME players seat
    command = ["gnubg", "--ubgi"]    # (experiments/running/engines.py; --engines FILE comes first)

    [grid]                           # optional: more players from a template and value lists
    template = "heuristic+pipdiff(double={double}%,take={take}%)"
    double = [6, 8, 10]
    take = [10, 12]

A chouette experiment (``mode = "chouette"``) plays one chouette session per condition instead
of pairings: ``players`` are the seats (3 to 10 specs, player i the i-th), ``games`` the games of
each session (seats rotating from game to game), ``seed`` the session seed (the seed of
``bgsim chouette``: the same rows), ``chunk`` games per chunk file (a session's chunks are played
in order, each from the seats the one before it left).  A condition's table may set, beside the
money options, ``chouette_cubes`` (``team`` or ``individual``, default team) and ``seats`` (the
first N players sit at that table); ``judge_cube = N`` replays the first N games of every table
and judges every take and drop where the two-sided bear-off database knows the truth
(``experiments/analysis/chouette_judge.py``).  Pairing keys (``opponent``, ``pairings``,
``duplicate``, ``match_to``, ``target_ci``, ``starts``) have no place in it::

    mode = "chouette"
    players = ["nn+pipdiff", "nn+keith", "nn+nn", "nn+always-take", "nn+exact"]
    games = 100000

    [conditions.four-team]
    seats = 4
    chouette_cubes = "team"
"""

from __future__ import annotations

import itertools
import math
import string
import tomllib
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Callable

from bgsim.cube import Rules
from bgsim.dice import MAX_SEED
from bgsim.series import ENGINES

from experiments.errors import ExperimentError
from experiments.sequential import Sprt, SprtError, sprt_from_table

PAIRINGS = ("round-robin", "against", "gauntlet")
MODES = ("tournament", "chouette")
# keys of a pairing tournament that a chouette experiment refuses
PAIRING_KEYS = ("opponent", "opponents", "pairings", "duplicate", "match_to", "target_ci", "sprt", "starts")
CHOUETTE_OPTIONS = ("chouette_cubes", "seats")  # a chouette condition's keys beside the rules'

RULE_FIELDS = {f.name: f.type for f in fields(Rules)}
BASE_CONDITION = "standard"

# Keys that change which games are played; the rest (engine, threads, labels) cannot change a
# row, because both engines play the same games on any number of threads.
IDENTITY_KEYS = (
    "players", "opponent", "pairings", "games", "seed", "duplicate", "chunk", "match_to",
    "target_ci", "conditions", "starts",
)


@dataclass(frozen=True)
class Experiment:
    name: str
    players: tuple[str, ...]
    games: int
    seed: int = 1
    description: str = ""
    opponent: str | None = None
    pairings: str = "round-robin"
    engine: str = "auto"
    threads: int = 0
    duplicate: bool = True
    chunk: int = 500
    match_to: int = 0
    target_ci: float | None = None
    judge_cube: int = 0
    conditions: tuple[tuple[str, Rules], ...] = ((BASE_CONDITION, Rules()),)
    # (condition, match length) for conditions that set their own ``match_to``
    condition_lengths: tuple[tuple[str, int], ...] = ()
    # For players made from a [grid]: spec -> {parameter: value}, and the parameter order.
    grid: dict[str, dict[str, Any]] = field(default_factory=dict)
    grid_keys: tuple[str, ...] = ()
    source: str = "<memory>"
    # where the deals start (experiments/running/starts.py); None: the opening
    starts: dict | None = None
    mode: str = "tournament"  # or "chouette": one chouette session per condition
    # chouettes: (condition, cube regime) and (condition, seats) where a condition sets them
    condition_cubes: tuple[tuple[str, str], ...] = ()
    condition_seats: tuple[tuple[str, int], ...] = ()
    # the file's own [engines] table, as written; and every engine its ubgi:NAME players may seat
    # (--engines FILE first, then that table, then the user's engines file): bots.ubgi.EngineSpec
    engines: dict = field(default_factory=dict)
    engine_specs: tuple = field(default=(), compare=False)
    opponents: tuple[str, ...] = ()  # a gauntlet's fixed opponents (``pairings = "gauntlet"``)
    sprt: Sprt | None = None  # stop each pairing once its sequential test decides

    def match_length(self, condition: str) -> int:
        """The match length of a condition's games (0: money games)."""
        return dict(self.condition_lengths).get(condition, self.match_to)

    @property
    def chouette(self) -> bool:
        return self.mode == "chouette"

    @property
    def legs(self) -> int:
        """Games played per game number: a tournament plays each deal with both seatings."""
        return 1 if self.chouette else 2

    def cubes(self, condition: str) -> str:
        """A chouette condition's cube regime."""
        return dict(self.condition_cubes).get(condition, "team")

    def seated(self, condition: str) -> tuple[str, ...]:
        """The players at a chouette condition's table: the first ``seats`` of them."""
        return self.players[:dict(self.condition_seats).get(condition, len(self.players))]

    @property
    def plays_matches(self) -> bool:
        return any(self.match_length(name) for name, _ in self.conditions)

    @property
    def everyone(self) -> tuple[str, ...]:
        """Every player of the run, the fixed opponent (a gauntlet's opponents) last."""
        if self.opponents:
            return self.players + self.opponents
        if self.opponent is None:
            return self.players
        return self.players + (self.opponent,)

    @property
    def sequential(self) -> bool:
        """Whether a pairing may stop before its ``games`` (``target_ci`` or ``sprt``)."""
        return self.target_ci is not None or self.sprt is not None

    def identity(self) -> dict:
        """What a resumed run must agree on (JSON-ready)."""
        data = self.to_dict()
        identity = {key: data[key] for key in IDENTITY_KEYS}
        if self.chouette:  # only then: a tournament's identity is what it was before chouettes
            identity["mode"] = self.mode
        for key in ("opponents", "sprt"):  # only where set: older runs' identities stay as they were
            if data.get(key):
                identity[key] = data[key]
        return identity

    def to_dict(self) -> dict:
        options = {name: {} for name, _ in self.conditions}  # a condition's own keys beside its rules
        for name, length in self.condition_lengths:
            options[name]["match_to"] = length
        for name, regime in self.condition_cubes:
            options[name]["chouette_cubes"] = regime
        for name, seats in self.condition_seats:
            options[name]["seats"] = seats
        data = {
            "name": self.name,
            "description": self.description,
            "players": list(self.players),
            "opponent": self.opponent,
            "pairings": self.pairings,
            "games": self.games,
            "seed": self.seed,
            "engine": self.engine,
            "threads": self.threads,
            "duplicate": self.duplicate,
            "chunk": self.chunk,
            "match_to": self.match_to,
            "target_ci": self.target_ci,
            "judge_cube": self.judge_cube,
            # a condition's own match length (chouettes: cube regime, seats) rides in its table,
            # as in the file
            "conditions": {name: {**rules_table(rules), **options[name]} for name, rules in self.conditions},
            "grid": self.grid,
            "grid_keys": list(self.grid_keys),
            "source": self.source,
            "starts": self.starts,
        }
        if self.chouette:
            data["mode"] = self.mode
        if self.engines:
            data["engines"] = self.engines
        if self.opponents:
            data["opponents"] = list(self.opponents)
        if self.sprt is not None:
            data["sprt"] = self.sprt.to_dict()
        return data

    @classmethod
    def from_dict(cls, data: dict) -> "Experiment":
        return cls(
            name=data["name"],
            description=data.get("description", ""),
            players=tuple(data["players"]),
            opponent=data.get("opponent"),
            pairings=data.get("pairings", "round-robin"),
            games=data["games"],
            seed=data["seed"],
            engine=data.get("engine", "auto"),
            threads=data.get("threads", 0),
            duplicate=data.get("duplicate", True),
            chunk=data.get("chunk", 500),
            match_to=data.get("match_to", 0),
            target_ci=data.get("target_ci"),
            judge_cube=data.get("judge_cube", 0),
            conditions=tuple((name, Rules(**{key: value for key, value in rules.items()
                                             if key != "match_to" and key not in CHOUETTE_OPTIONS}))
                             for name, rules in data["conditions"].items()),
            condition_lengths=tuple((name, rules["match_to"]) for name, rules in data["conditions"].items()
                                    if "match_to" in rules),
            mode=data.get("mode", "tournament"),
            condition_cubes=tuple((name, rules["chouette_cubes"]) for name, rules in data["conditions"].items()
                                  if "chouette_cubes" in rules),
            condition_seats=tuple((name, rules["seats"]) for name, rules in data["conditions"].items()
                                  if "seats" in rules),
            grid=data.get("grid", {}),
            grid_keys=tuple(data.get("grid_keys", ())),
            source=data.get("source", "<memory>"),
            starts=data.get("starts"),
            engines=data.get("engines", {}),
            opponents=tuple(data.get("opponents", ())),
            sprt=Sprt(**data["sprt"]) if data.get("sprt") else None,
        )

    @property
    def seats_engines(self) -> bool:
        """Whether a player of the run is an external engine (``ubgi:NAME``)."""
        return any(spec.strip().startswith("ubgi:") for spec in self.everyone)


def rules_table(rules: Rules) -> dict:
    """The rule options as a run records them: the variant's options only where they are not the
    standard game's, so a standard run's record (and what a resume compares) is what it was
    before variants existed."""
    table = asdict(rules)
    for option in VARIANT_OPTIONS:
        if table[option] == getattr(Rules(), option):
            del table[option]
    return table


VARIANT_OPTIONS = ("variant", "double_on_acey_deucey")


# --- reading -------------------------------------------------------------------------------

TOP_KEYS = {
    "name": str, "description": str, "players": list, "opponent": str, "pairings": str,
    "games": int, "seed": int, "engine": str, "threads": int, "duplicate": bool, "chunk": int,
    "match_to": int, "target_ci": float, "judge_cube": int, "rules": dict, "conditions": dict, "grid": dict,
    "starts": dict, "mode": str, "engines": dict, "opponents": list, "sprt": dict,
}


SHIPPED = Path(__file__).resolve().parent.parent  # experiments/: the experiment files bgsim ships
DEFAULT_EXPERIMENT = SHIPPED / "default.toml"  # what `bgsim tournament` plays


def experiment_file(name: str) -> Path:
    """The experiment file ``name`` names: the file itself, else the shipped
    ``experiments/NAME.toml`` (so ``bgsim run threshold_sweep`` works from any folder)."""
    path = Path(name)
    if not path.exists() and not path.suffix and (SHIPPED / f"{name}.toml").exists():
        return SHIPPED / f"{name}.toml"
    return path


def split_specs(text: str) -> list[str]:
    """Comma-separated specs (``--players``); commas inside a spec's parentheses belong to it."""
    specs, depth, current = [], 0, ""
    for char in text:
        if char == "," and depth == 0:
            specs.append(current.strip())
            current = ""
            continue
        depth += (char == "(") - (char == ")")
        current += char
    specs.append(current.strip())
    if any(not spec for spec in specs):
        raise ValueError(f"--players has an empty spec: {text!r}")
    return specs


def _read_toml(path: Path) -> tuple[dict, str]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ExperimentError(f"{path}: no such experiment file") from None
    except UnicodeDecodeError as error:
        raise ExperimentError(f"{path}: not UTF-8 text ({error.reason})") from None
    try:
        return tomllib.loads(text), text
    except tomllib.TOMLDecodeError as error:
        raise ExperimentError(f"{path}: not valid TOML: {error}") from None


def load_experiment(
    path: str | Path,
    overrides: dict | None = None,
    make_player: Callable[[str], Any] | None = None,
    engines_file: str | Path | None = None,
) -> Experiment:
    """Read, check and return the experiment in ``path``; ``overrides`` are command-line flags;
    ``engines_file``: ``--engines FILE``, where ``ubgi:NAME`` players are looked up first."""
    path = Path(path)
    data, text = _read_toml(path)
    from .engines import engine_players, engine_table

    table = data.get("engines", {})
    engines = {}
    if engines_file is not None or table or "ubgi:" in text:  # a run of bgsim's bots reads no engines file
        engines = engine_table(engines_file, table if isinstance(table, dict) else None, path, text)
    if make_player is None and engines:
        make_player = engine_players(engines)
    experiment = experiment_from_mapping(data, str(path), path.stem, overrides, make_player)
    return replace(experiment, engine_specs=tuple(sorted(engines.items())))


def experiment_engines(path: str | Path) -> tuple[dict | None, Path, str]:
    """The ``[engines]`` table of the experiment file ``path`` (None if it has none), the path and
    its text (for the lines of errors)."""
    path = Path(experiment_file(str(path)))
    data, text = _read_toml(path)
    return data.get("engines"), path, text


def experiment_from_mapping(
    data: dict,
    source: str = "<memory>",
    default_name: str = "experiment",
    overrides: dict | None = None,
    make_player: Callable[[str], Any] | None = None,
) -> Experiment:
    def fail(key: str, problem: str) -> ExperimentError:
        return ExperimentError(f"{source}: {key}: {problem}")

    unknown = sorted(set(data) - set(TOP_KEYS))
    if unknown:
        raise fail(unknown[0], f"unknown key (known keys: {', '.join(sorted(TOP_KEYS))})")
    for key, kind in TOP_KEYS.items():
        if key in data:
            _check_type(data[key], kind, key, fail)

    name = data.get("name", default_name)
    if not name or any(ch not in string.ascii_letters + string.digits + "-_." for ch in name):
        raise fail("name", f"use letters, digits, '-', '_' or '.' (it names a folder), got {name!r}")

    players = list(data.get("players", []))
    for index, spec in enumerate(players):
        if not isinstance(spec, str) or not spec.strip():
            raise fail(f"players[{index}]", f"a player is a spec string such as \"heuristic+pipdiff\", got {spec!r}")
    grid, grid_keys = {}, ()
    if "grid" in data:
        grid_players, grid, grid_keys = _expand_grid(data["grid"], fail)
        players += grid_players
    players = [spec.strip() for spec in players]
    mode = data.get("mode", "tournament")
    if mode not in MODES:
        raise fail("mode", f"choose from {', '.join(MODES)}, got {mode!r}")
    chouette = mode == "chouette"
    if chouette:
        for key in PAIRING_KEYS:
            if key in data:
                raise fail(key, "a chouette experiment plays one session per condition, not pairings: leave out "
                                f"{key}")

    settings = {
        "games": data.get("games"),
        "seed": data.get("seed", 1),
        "engine": data.get("engine", "auto"),
        "threads": data.get("threads", 0),
        "chunk": data.get("chunk", 500),
    }
    flag_names = {}
    for key, value in (overrides or {}).items():
        if value is not None:
            if key not in settings:
                raise ValueError(f"cannot override {key!r} from the command line")
            settings[key] = value
            flag_names[key] = f"--{key}"

    def where(key: str) -> str:
        return flag_names.get(key, key)

    if settings["games"] is None:
        raise fail("games", "missing: how many games (deals) each pairing plays")
    games = settings["games"]
    if not isinstance(games, int) or isinstance(games, bool) or games < 1:
        raise fail(where("games"), f"must be a whole number of at least 1, got {games!r}")
    seed = settings["seed"]
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed <= MAX_SEED:
        raise fail(where("seed"), f"must be a whole number from 0 to 2**63-1, got {seed!r}")
    engine = settings["engine"]
    if engine not in ENGINES:
        raise fail(where("engine"), f"choose from {', '.join(ENGINES)}, got {engine!r}")
    threads = settings["threads"]
    if not isinstance(threads, int) or isinstance(threads, bool) or threads < 0:
        raise fail(where("threads"), f"must be 0 (every core) or a positive number, got {threads!r}")
    chunk = settings["chunk"]
    if not isinstance(chunk, int) or isinstance(chunk, bool) or chunk < 1:
        raise fail(where("chunk"), f"must be a whole number of at least 1, got {chunk!r}")

    pairings = data.get("pairings", "round-robin")
    if pairings not in PAIRINGS:
        raise fail("pairings", f"choose from {', '.join(PAIRINGS)}, got {pairings!r}")
    opponent = data.get("opponent")
    if opponent is not None:
        opponent = opponent.strip()
        if not opponent:
            raise fail("opponent", "an empty spec names no player")
    if pairings == "against" and opponent is None:
        raise fail("pairings", "\"against\" needs an opponent = \"SPEC\" to play against")
    if opponent is not None and opponent in players:
        raise fail("opponent", f"{opponent!r} is also in players: list it once")
    opponents = _opponents(data, pairings, opponent, players, fail)
    seen = set()
    for index, spec in enumerate(players):
        if spec in seen:
            raise fail(f"players[{index}]", f"{spec!r} is listed twice")
        seen.add(spec)
    from bgsim.chouette import MAX_PLAYERS, MIN_PLAYERS

    if chouette and not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise fail("players", f"a chouette seats {MIN_PLAYERS} to {MAX_PLAYERS} players, got {len(players)}")
    needed = 1 if pairings in ("against", "gauntlet") else 2
    if not chouette and len(players) + (opponent is not None and pairings == "round-robin") < needed:
        raise fail("players", f"a tournament needs at least {needed} player{'s' * (needed > 1)} besides any opponent, "
                              f"got {len(players)}")

    match_to = data.get("match_to", 0)
    if match_to < 0 or match_to > 999:
        raise fail("match_to", f"0 for money games or a match length of 1..999 points, got {match_to}")
    duplicate = data.get("duplicate", True)
    target_ci = data.get("target_ci")
    if target_ci is not None:
        target_ci = float(target_ci)
        if not math.isfinite(target_ci) or target_ci <= 0:
            raise fail("target_ci", f"a positive half-width, got {target_ci!r}")
    sprt = None
    if "sprt" in data:
        if target_ci is not None:
            raise fail("sprt", "a pairing stops on one rule: target_ci (an interval this narrow) or sprt "
                               "(a sequential test decides), not both")
        try:
            sprt = sprt_from_table(data["sprt"])
        except SprtError as error:
            raise ExperimentError(f"{source}: {error}") from None

    base_table = dict(data.get("rules", {}))
    base_cubes = _chouette_cubes(base_table.pop("chouette_cubes", None), "team", "rules", chouette, fail)
    base = _rules_from(base_table, "rules", Rules(), fail)
    conditions_data = data.get("conditions", {})
    lengths: dict[str, int] = {}
    cubes: dict[str, str] = {}
    seats: dict[str, int] = {}
    if conditions_data:
        conditions = []
        for cname, overrides_ in conditions_data.items():
            key = f"conditions.{cname}"
            if not isinstance(overrides_, dict):
                raise fail(key, "each condition is a table of rule options, e.g. [conditions.jacoby]")
            if not cname or any(ch not in string.ascii_letters + string.digits + "-_" for ch in cname):
                raise fail(key, "name conditions with letters, digits, '-' or '_'")
            overrides_ = dict(overrides_)
            if "match_to" in overrides_:
                if chouette:
                    raise fail(f"{key}.match_to", "a chouette is money play: leave out match_to")
                length = overrides_.pop("match_to")
                if isinstance(length, bool) or not isinstance(length, int) or not 0 <= length <= 999:
                    raise fail(f"{key}.match_to", f"0 for money games or a match length of 1..999 points, got {length!r}")
                lengths[cname] = length
            cubes[cname] = _chouette_cubes(overrides_.pop("chouette_cubes", None), base_cubes, key, chouette, fail)
            if "seats" in overrides_:
                count = overrides_.pop("seats")
                if not chouette:
                    raise fail(f"{key}.seats", "seats is a chouette's: set mode = \"chouette\"")
                if isinstance(count, bool) or not isinstance(count, int) or not 3 <= count <= len(players):
                    raise fail(f"{key}.seats", f"the first N players sit at this table: 3 to {len(players)}, "
                                               f"got {count!r}")
                seats[cname] = count
            conditions.append((cname, _rules_from(overrides_, key, base, fail)))
        rules_list = tuple(conditions)
    else:
        rules_list = ((BASE_CONDITION, base),)
        cubes[BASE_CONDITION] = base_cubes
    if chouette:
        for cname, rules in rules_list:
            if rules.variant != "standard":
                key = "rules" if not conditions_data else f"conditions.{cname}"
                raise fail(f"{key}.variant", f"a chouette is a game of standard backgammon, not {rules.variant}")
    for cname, rules in rules_list:
        length = lengths.get(cname, match_to)
        if length:
            try:
                rules.check_for_match()
            except ValueError as error:
                key = "rules" if not conditions_data else f"conditions.{cname}"
                raise fail(key, f"{error} (match_to = {length})") from None

    judge_cube = data.get("judge_cube", 0)
    if judge_cube < 0:
        raise fail("judge_cube", f"a number of deals to judge (0: none), got {judge_cube}")
    if judge_cube and not chouette and not (match_to or any(lengths.values())):
        raise fail("judge_cube", "judging cube decisions in match-winning chances needs matches: set match_to")

    starts = None
    if "starts" in data:
        from .starts import check_starts

        starts = check_starts(data["starts"], seed, fail)
        if match_to or any(lengths.values()):
            raise fail("starts", "games from a position are money games: leave out match_to")
        from .starts import starts_variants

        for cname, rules in rules_list:
            other = sorted(starts_variants(starts) - {rules.variant})
            if other:
                raise fail("starts", f"positions of {', '.join(other)} cannot start games of {rules.variant}"
                                     + (f" (condition {cname})" if conditions_data else ""))

    experiment = Experiment(
        name=name, description=data.get("description", ""), players=tuple(players),
        opponent=opponent, pairings=pairings, games=games, seed=seed, engine=engine,
        threads=threads, duplicate=duplicate, chunk=chunk, match_to=match_to,
        target_ci=target_ci, judge_cube=judge_cube, conditions=rules_list,
        condition_lengths=tuple(lengths.items()), grid=grid, grid_keys=grid_keys,
        source=source, starts=starts, mode=mode,
        condition_cubes=tuple(cubes.items()) if chouette else (),
        condition_seats=tuple(seats.items()), engines=dict(data.get("engines", {})),
        opponents=opponents, sprt=sprt,
    )
    canonical = check_players(experiment, make_player)
    if canonical:
        # Rows carry each player's canonical name (defaults left out), so the run does too.
        experiment = replace(
            experiment,
            players=tuple(canonical[spec] for spec in experiment.players),
            opponent=canonical.get(experiment.opponent) if experiment.opponent is not None else None,
            opponents=tuple(canonical[spec] for spec in experiment.opponents),
            grid={canonical[spec]: params for spec, params in experiment.grid.items()},
        )
    return experiment


def _opponents(data: dict, pairings: str, opponent, players: list[str], fail) -> tuple[str, ...]:
    """A gauntlet's fixed opponents, checked: a non-empty list of specs, none of them a player."""
    listed = data.get("opponents")
    if pairings != "gauntlet":
        if listed is not None:
            raise fail("opponents", "a list of fixed opponents is a gauntlet's: set pairings = \"gauntlet\" "
                                    "(or name one opponent = \"SPEC\")")
        return ()
    if opponent is not None:
        raise fail("opponent", "a gauntlet names its fixed opponents in a list: opponents = [\"SPEC\", ...]")
    if not listed:
        raise fail("pairings", "\"gauntlet\" needs opponents = [\"SPEC\", ...]: the fixed opponents every "
                               "player meets")
    out = []
    for index, spec in enumerate(listed):
        if not isinstance(spec, str) or not spec.strip():
            raise fail(f"opponents[{index}]", f"an opponent is a spec string such as \"pubeval\", got {spec!r}")
        spec = spec.strip()
        if spec in players:
            raise fail(f"opponents[{index}]", f"{spec!r} is also in players: a gauntlet's players are the "
                                              "candidates, its opponents the fixed field")
        if spec in out:
            raise fail(f"opponents[{index}]", f"{spec!r} is listed twice")
        out.append(spec)
    return tuple(out)


def _chouette_cubes(regime, default: str, key: str, chouette: bool, fail) -> str:
    """A chouette's cube regime from the table at ``key`` (``default`` when it sets none)."""
    from bgsim.chouette import CUBE_REGIMES

    if regime is None:
        return default
    if not chouette:
        raise fail(f"{key}.chouette_cubes", "chouette_cubes is a chouette's: set mode = \"chouette\"")
    if regime not in CUBE_REGIMES:
        raise fail(f"{key}.chouette_cubes", f"choose from {', '.join(CUBE_REGIMES)}, got {regime!r}")
    return regime


def _check_type(value, kind, key, fail) -> None:
    if kind is float:
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        wanted = "a number"
    elif kind is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
        wanted = "a whole number"
    else:
        ok = isinstance(value, kind)
        wanted = {str: "a string", list: "a list", bool: "true or false", dict: "a table"}[kind]
    if not ok:
        raise fail(key, f"must be {wanted}, got {value!r}")


def _rules_from(table: dict, key: str, base: Rules, fail) -> Rules:
    for option, value in table.items():
        if option not in RULE_FIELDS:
            raise fail(f"{key}.{option}", f"unknown rule option (known: {', '.join(RULE_FIELDS)})")
    if "variant" in table and "cube" not in table and not base.cube and base.variant != "standard":
        # a base of a cubeless variant (acey-deucey) had its cube switched off by the variant,
        # not by the file: a condition of another variant starts from the default cube
        table = {**table, "cube": Rules().cube}
    try:
        rules = replace(base, **table)
    except ValueError as error:  # RulesError: the option's own message says what is wrong
        raise fail(key, str(error)) from None
    if table.get("cube") is True and not rules.cube:
        raise fail(f"{key}.cube", f"{rules.variant} has no cube: leave out cube")
    return rules


def _expand_grid(table: dict, fail) -> tuple[list[str], dict, tuple[str, ...]]:
    template = table.get("template")
    if not isinstance(template, str):
        raise fail("grid.template", "missing: a spec with {name} fields, e.g. \"heuristic+pipdiff(double={double}%)\"")
    axes = {key: value for key, value in table.items() if key != "template"}
    if not axes:
        raise fail("grid", "give at least one list of values, e.g. double = [6, 8, 10]")
    for key, values in axes.items():
        if not isinstance(values, list) or not values:
            raise fail(f"grid.{key}", f"must be a non-empty list of values, got {values!r}")
        for value in values:
            if isinstance(value, bool) or not isinstance(value, (int, float, str)):
                raise fail(f"grid.{key}", f"values are numbers or strings, got {value!r}")
    fields_used = {name for _, name, _, _ in string.Formatter().parse(template) if name}
    missing = sorted(fields_used - set(axes))
    if missing:
        raise fail("grid.template", f"uses {{{missing[0]}}} but the grid has no list {missing[0]} = [...]")
    unused = sorted(set(axes) - fields_used)
    if unused:
        raise fail(f"grid.{unused[0]}", f"the template never uses {{{unused[0]}}}")
    players, params = [], {}
    for combo in itertools.product(*axes.values()):
        values = dict(zip(axes, combo))
        spec = template.format(**values)
        players.append(spec)
        params[spec] = values
    return players, params, tuple(axes)


# --- players -------------------------------------------------------------------------------

def default_player_factory() -> Callable[[str], Any]:
    """``bots.make_player``, or a clear error while the bots package lacks it."""
    try:
        from bots import make_player
    except ImportError:
        raise ExperimentError("the bots package has no make_player yet: players cannot be built") from None
    return make_player


def check_players(experiment: Experiment, make_player=None) -> dict[str, str]:
    """Build every player once: unknown bots and bad parameters fail here, not mid-run.

    Returns each spec's canonical name (the player's ``name``).  ``make_player=False`` skips
    the check and returns nothing.
    """
    if make_player is False:
        return {}
    factory = make_player or default_player_factory()
    names = {}
    listed = [(f"players[{i}]", spec) for i, spec in enumerate(experiment.players)]
    if experiment.grid:
        listed = [(("grid" if spec in experiment.grid else key), spec) for key, spec in listed]
    if experiment.opponent is not None:
        listed.append(("opponent", experiment.opponent))
    listed += [(f"opponents[{index}]", spec) for index, spec in enumerate(experiment.opponents)]
    built = []
    for key, spec in listed:
        try:
            player = factory(spec)
        except ValueError as error:
            raise ExperimentError(f"{experiment.source}: {key}: {error}") from None
        name = getattr(player, "name", spec)
        if name in names:
            raise ExperimentError(f"{experiment.source}: {key}: {spec!r} is the same player as {names[name]!r} ({name})")
        names[name] = spec
        built.append((key, spec, player))
        if not isinstance(name, str) or not name:
            raise ExperimentError(f"{experiment.source}: {key}: the player built from {spec!r} has no name")
    for cname, rules in experiment.conditions:
        where = "rules" if cname == BASE_CONDITION else f"conditions.{cname}"
        for key, spec, player in built:
            check = getattr(player, "check_variant", None)
            try:
                if check is not None:
                    check(rules.variant)
            except ValueError as error:
                raise ExperimentError(f"{experiment.source}: {key}: {error} ({where})") from None
    if experiment.engine == "fast":
        from bgsim import fast

        for key, spec, player in built:
            if not fast.supports(player):
                raise ExperimentError(
                    f"{experiment.source}: engine: the fast engine cannot play {spec!r}; "
                    "use engine = \"auto\" (fast where it can) or \"reference\"")
    return {spec: getattr(player, "name", spec) for _, spec, player in built}


def sprt_experiment(candidate: str, baseline: str, sprt: Sprt, games: int, *, batch: int, seed: int = 1,
                    rules: Rules = Rules(), match_to: int = 0, engine: str = "auto", threads: int = 0,
                    name: str = "sprt", make_player: Callable[[str], Any] | None = None,
                    engines: dict | None = None) -> Experiment:
    """The experiment ``bgsim sprt CANDIDATE BASELINE`` plays: one pairing, the candidate first,
    ``batch`` deals a chunk (a look of the test), at most ``games`` deals; ``engines`` (name ->
    ``bots.ubgi.EngineSpec``, ``experiments.running.engines.engine_table``) seats ``ubgi:NAME``
    players as an experiment file's would."""
    table = {"name": name, "description": f"Sequential test: is {candidate} better than {baseline}?",
             "players": [candidate], "opponent": baseline, "pairings": "against", "games": games, "seed": seed,
             "engine": engine, "threads": threads, "chunk": batch, "match_to": match_to, "sprt": sprt.to_dict(),
             "rules": {key: value for key, value in rules_table(rules).items()}}
    if engines and make_player is None:
        from .engines import engine_players

        make_player = engine_players(engines)
    experiment = experiment_from_mapping(table, "bgsim sprt", name, make_player=make_player)
    return replace(experiment, engine_specs=tuple(sorted((engines or {}).items())))
