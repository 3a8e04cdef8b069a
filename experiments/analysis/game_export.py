"""The games of a run or of a ``bgsim play`` file as game records, replayed from their seeds.

A row holds no moves: its seed, game number, players and rules fix every die and every choice,
so the game is played again (the fast engine's trace where both players run there, else the
reference engine's, the same games either way) and the replay's outcome is checked against the
stored row.  The checker moves of a fast-engine play are those of the reference engine's legal
play of the same canonical rank (``bgsim.rules.legal_plays``).

A file holds one pairing in one seating: a money session (all the chosen games, as a
"0 point match") or one match.  :func:`groups` splits the chosen rows so.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd

from bgsim.board import Position
from bgsim.cube import Rules
from bgsim.game import BLACK, WHITE, GameRecord, MatchContext, PlyRecord, play_game
from bgsim.interchange.games import check_writable, match_from_records
from bgsim.interchange.records import Match, RecordError
from bgsim.rules import legal_plays
from bgsim.schema import DOUBLER_CODES, OWNER_CODES, RESULT_CODES, WINNER_CODES, conform
from bgsim.variants import STANDARD
from experiments.running.files import check_new_file, claimed_files, explain, write_text

RUN_FILE = "run.json"
GAMES_FILE = "games.parquet"
FORMATS = ("mat", "sgf")
# what each format cannot hold, for --help and the refusals (the writers' own checks refuse them)
CANNOT_HOLD = {
    "mat": "games from a set position (a run's [starts]), automatic doubles, backgammons counted as "
           "gammons, Dutch and acey-deucey games, chouettes",
    "sgf": "backgammons counted as gammons, Dutch and acey-deucey games, chouettes",
}
HOLDS = "the standard game, Nackgammon and hypergammon (1 to 3 checkers)"
RULE_COLUMNS = ("cube", "max_cube", "jacoby", "beaver", "automatic_doubles", "backgammon_as_gammon",
                "variant", "double_on_acey_deucey")
# rows written before the variants have no column for them: the standard game
OPTIONAL_RULES = {"variant": "standard", "double_on_acey_deucey": False}
CHECKED = ("winner", "result", "points", "cube_value", "plies", "doubles", "beavers", "game_in_match",
           "white_score", "black_score")
_ACTIONS = {0: "", 1: "double/take", 2: "double/beaver", 3: "double/drop"}


@dataclass
class Source:
    """The rows of a run folder or a ``bgsim play`` file, and where a game starts."""

    path: Path
    frame: pd.DataFrame
    folder: Path | None  # the run's folder, None for a play file
    starts: dict | None  # a run's [starts], None: every game from the opening

    def start_of(self, number: int) -> Position | None:
        if not self.starts:
            return None
        from experiments.running.starts import start_positions

        return start_positions(self.starts, range(number, number + 1))[0]


def load_source(path: str | Path) -> Source:
    """The rows of a run folder (its ``games.parquet`` and ``run.json``) or a Parquet file."""
    path = Path(path)
    if path.is_dir():
        games, run_file = path / GAMES_FILE, path / RUN_FILE
        if not games.exists():
            raise ValueError(f"{path} holds no {GAMES_FILE}: not a finished run folder")
        starts = None
        if run_file.exists():
            try:
                starts = json.loads(run_file.read_text(encoding="utf-8")).get("config", {}).get("starts")
            except (json.JSONDecodeError, UnicodeDecodeError) as error:
                raise ValueError(f"{run_file} is damaged ({error})") from None
        return Source(path, _read(games), path, starts)
    if not path.exists():
        raise ValueError(f"{path} does not exist: give a run folder or a `bgsim play` Parquet file")
    if path.suffix != ".parquet":
        raise ValueError(f"{path}: give a run folder or a `bgsim play` Parquet file (*.parquet)")
    return Source(path, _read(path), None, None)


def _read(path: Path) -> pd.DataFrame:
    try:
        frame = pd.read_parquet(path)
    except Exception as error:  # pyarrow raises its own kinds for a damaged file
        raise ValueError(f"cannot read {path}: {error}") from None
    if {"seat", "players", "spec"} <= set(frame.columns):
        raise ValueError(f"{path} holds chouette games (a box against a team): a .mat or SGF file holds two "
                         "players and one cube, so neither can hold them")
    for name, value in OPTIONAL_RULES.items():
        if f"rule_{name}" not in frame.columns:
            frame[f"rule_{name}"] = value
    needed = {"seed", "game", "white", "black", "match_to", "game_in_match",
              *(f"rule_{name}" for name in RULE_COLUMNS), *CHECKED}
    missing = sorted(needed - set(frame.columns))
    if missing:
        raise ValueError(f"{path} lacks the columns {', '.join(missing)}: not bgsim game rows")
    return conform(frame)


def parse_selection(text: str) -> Callable[[np.ndarray], np.ndarray]:
    """``all``, ``N``, ``A-B`` (inclusive) or a comma list of those, as a test on game numbers
    (``test.ranges``: the ranges asked for, None for all)."""
    if text is None:
        text = "all"
    text = text.strip().lower()
    if not text:
        raise ValueError("--games '': give all, N, A-B or a comma list of them (game numbers)")
    if text == "all":
        def every(numbers: np.ndarray) -> np.ndarray:
            return np.ones(len(numbers), dtype=bool)

        every.ranges = None
        return every
    ranges = []
    for part in text.split(","):
        found = re.fullmatch(r"\s*(\d+)\s*(?:-\s*(\d+)\s*)?", part)
        if not found:
            raise ValueError(f"--games {text!r}: give all, N, A-B or a comma list of them (game numbers)")
        low = int(found.group(1))
        high = int(found.group(2)) if found.group(2) is not None else low
        if high < low:
            raise ValueError(f"--games {part.strip()!r}: the range runs backwards")
        ranges.append((low, high))

    def test(numbers: np.ndarray) -> np.ndarray:
        keep = np.zeros(len(numbers), dtype=bool)
        for low, high in ranges:
            keep |= (numbers >= low) & (numbers <= high)
        return keep

    test.ranges = ranges
    return test


def missing_games(ranges, present) -> list[int]:
    """The game numbers ``ranges`` ask for that are not among ``present``."""
    present = set(int(number) for number in present)
    return sorted({number for low, high in ranges for number in range(low, high + 1)} - present)


@dataclass
class Group:
    """The chosen rows of one pairing in one seating, and what replaying them needs."""

    white: str
    black: str
    seed: int
    rules: Rules
    match_to: int
    rows: pd.DataFrame
    label: str

    @property
    def numbers(self) -> list[int]:
        return sorted(int(number) for number in self.rows["game"].unique())


def groups(source: Source, selection: str = "all", pairing: int | None = None,
           leg: int | None = None) -> list[Group]:
    """The chosen rows, one group per pairing, seating and rule condition."""
    frame = source.frame
    test = parse_selection(selection)
    keep = test(frame["game"].to_numpy())
    if test.ranges is not None:
        missing = missing_games(test.ranges, frame["game"].unique())
        if missing:
            held = describe_numbers(sorted(int(number) for number in frame["game"].unique()))
            raise ValueError(f"--games {selection}: {'game' if len(missing) == 1 else 'games'} "
                             f"{describe_numbers(missing)} {'is' if len(missing) == 1 else 'are'} not in "
                             f"{source.path} (it holds games {held})")
    if pairing is not None:
        if "pairing" not in frame.columns:
            raise ValueError("--pairing: these rows come from `bgsim play`, which has one pairing")
        keep &= frame["pairing"].to_numpy() == pairing
    if leg is not None:
        if "leg" not in frame.columns:
            raise ValueError("--leg: these rows come from `bgsim play`, which has one seating")
        keep &= frame["leg"].to_numpy() == leg
    chosen = frame[keep]
    if chosen.empty:
        raise ValueError(f"no game of {source.path} matches --games {selection}"
                         + (f" --pairing {pairing}" if pairing is not None else "")
                         + (f" --leg {leg}" if leg is not None else ""))
    keys = ["white", "black", "seed", "match_to", *(f"rule_{name}" for name in RULE_COLUMNS)]
    keys += [name for name in ("pairing", "leg", "condition") if name in chosen.columns]
    out = []
    for key, rows in chosen.groupby(keys, sort=True, observed=True):
        values = dict(zip(keys, key))
        rules = Rules(**{name: _plain(values[f"rule_{name}"]) for name in RULE_COLUMNS})
        label = f"{values['white']} (white) vs {values['black']} (black)"
        if "pairing" in values:
            label = f"pairing {values['pairing']} leg {values['leg']}: {label}"
        out.append(Group(str(values["white"]), str(values["black"]), int(values["seed"]), rules,
                         int(values["match_to"]), rows, label))
    return out


def _plain(value):
    if isinstance(value, (np.bool_, bool)):
        return bool(value)
    if isinstance(value, str):
        return value
    return int(value)


# --- replay ----------------------------------------------------------------------------------


@dataclass
class Replayed:
    """The records of a group's games (money: one session; matches: one per match) and every
    difference between the replay and the stored rows."""

    matches: list[Match] = field(default_factory=list)
    numbers: list[list[int]] = field(default_factory=list)  # the game numbers of each match
    differences: list[str] = field(default_factory=list)


def replay_group(group: Group, source: Source, make_player: Callable | None = None,
                 tags: dict[str, str] | None = None) -> Replayed:
    """Play the group's games again with their moves; compare each with its stored row."""
    if make_player is None:
        from bots import make_player
    check_writable(group.rules)
    white, black = make_player(group.white), make_player(group.black)
    out = Replayed()
    session: list[GameRecord] = []
    starts: list[Position | None] = []
    for number in group.numbers:
        start = source.start_of(number)
        records = replay_number(white, black, group.seed, number, group.rules, group.match_to, start)
        stored = group.rows[group.rows["game"] == number].sort_values("game_in_match")
        out.differences.extend(_compare(records, stored, group, number))
        if group.match_to:
            out.matches.append(_noted(match_from_records(records, group.white, group.black, group.rules,
                                                         group.match_to, tags=tags), group, [number]))
            out.numbers.append([number])
        else:
            session.extend(records)
            starts.extend([start] * len(records))
    if session:
        out.matches.append(_noted(match_from_records(session, group.white, group.black, group.rules, 0,
                                                     starts=starts, tags=tags), group, group.numbers))
        out.numbers.append(group.numbers)
    return out


def _noted(match: Match, group: Group, numbers: list[int]) -> Match:
    """Where the games come from, in the file's comment: enough to play them again."""
    match.tags.setdefault("Site", "bgsim")
    unit = "match" if group.match_to else "game"
    match.comments.append(f"bgsim {unit}{'es' if group.match_to and len(numbers) > 1 else ''}"
                          f"{'s' if not group.match_to and len(numbers) > 1 else ''} "
                          f"{describe_numbers(numbers)} of seed {group.seed}: {group.label}")
    return match


def describe_numbers(numbers: list[int]) -> str:
    """``0-9, 12`` for the game numbers of a file's comment."""
    parts, run = [], []
    for number in sorted(numbers):
        if run and number == run[-1] + 1:
            run.append(number)
            continue
        if run:
            parts.append(f"{run[0]}-{run[-1]}" if len(run) > 1 else str(run[0]))
        run = [number]
    if run:
        parts.append(f"{run[0]}-{run[-1]}" if len(run) > 1 else str(run[0]))
    return ", ".join(parts)


def replay_number(white, black, seed: int, number: int, rules: Rules, match_to: int,
                  start: Position | None) -> list[GameRecord]:
    """Game ``number`` (or every game of match ``number``) again, traced with its moves."""
    from bgsim import fast

    if rules.variant == STANDARD and fast.supports(white) and fast.supports(black):  # variants: reference only
        rows, trace = fast.trace_game(white, black, seed, number, rules, match_to, start=start)
        return records_from_trace(rows, trace, seed, match_to, rules.variant)
    if match_to:
        from bgsim.match import play_match

        return play_match(white, black, seed, number, match_to, rules, trace=True).games
    return [play_game(white, black, seed, number, rules, trace=True, start=start)]


def records_from_trace(rows: np.ndarray, trace: np.ndarray, seed: int, match_to: int,
                       variant: str = "standard") -> list[GameRecord]:
    """The fast engine's rows and trace of one game or match (of ``variant``) as traced GameRecords."""
    from bgsim.fast import game as engine
    from bgsim.fast.sameness import traced_position

    records = []
    crawford_seen = False
    for row in rows:
        index = int(row[engine.COL_GAME_IN_MATCH])
        history = []
        for ply in trace[trace[:, 0] == index]:
            side = WHITE if ply[2] == 0 else BLACK
            before = traced_position(ply, variant)
            action = _ACTIONS[int(ply[3])]
            if action == "double/drop":
                history.append(PlyRecord(int(ply[1]), side, before.position_string, action, None, "", ""))
                continue
            roll = (int(ply[4]), int(ply[5]))
            after = traced_position(ply, variant, after=True)
            play = None
            if ply[7] >= 0:
                play = legal_plays(before, roll)[int(ply[7])]
                if play.result != after:  # pragma: no cover - the engines agree by test
                    raise RuntimeError(f"seed {seed} game {int(row[engine.COL_GAME])} ply {int(ply[1])}: "
                                       "the fast engine's play is not the reference engine's of that rank")
            history.append(PlyRecord(int(ply[1]), side, before.position_string, action, roll,
                                     play.notation if play else "", after.position_string,
                                     play.moves if play else (), bool(ply[engine.TRACE_CHOSEN_DOUBLE])))
        crawford = bool(row[engine.COL_CRAWFORD])
        context = None
        if match_to:
            context = MatchContext(match_to, int(row[engine.COL_WHITE_SCORE]), int(row[engine.COL_BLACK_SCORE]),
                                   crawford, crawford_seen and not crawford, index)
        crawford_seen = crawford_seen or crawford
        records.append(GameRecord(
            seed=seed, game=int(row[engine.COL_GAME]), winner=WINNER_CODES[int(row[engine.COL_WINNER])],
            result=RESULT_CODES[int(row[engine.COL_RESULT])], cube_value=int(row[engine.COL_CUBE_VALUE]),
            cube_owner=OWNER_CODES[int(row[engine.COL_CUBE_OWNER])], doubles=int(row[engine.COL_DOUBLES]),
            beavers=int(row[engine.COL_BEAVERS]), automatic_doubles=int(row[engine.COL_AUTOMATIC]),
            first_double_ply=int(row[engine.COL_FIRST_DOUBLE_PLY]),
            first_doubler=DOUBLER_CODES[int(row[engine.COL_FIRST_DOUBLER])], points=int(row[engine.COL_POINTS]),
            plies=int(row[engine.COL_PLIES]), white_pips=int(row[engine.COL_WHITE_PIPS]),
            black_pips=int(row[engine.COL_BLACK_PIPS]), white_off=int(row[engine.COL_WHITE_OFF]),
            black_off=int(row[engine.COL_BLACK_OFF]), match=context, history=history,
        ))
    return records


def _compare(records: list[GameRecord], stored: pd.DataFrame, group: Group, number: int) -> list[str]:
    """What differs between the replayed games of ``number`` and its stored rows."""
    unit = "match" if group.match_to else "game"
    if len(records) != len(stored):
        return [f"{group.label}, {unit} {number}: the replay has {len(records)} games, the rows {len(stored)}"]
    out = []
    for record, (_, row) in zip(records, stored.iterrows()):
        replayed = {
            "winner": record.winner, "result": record.result, "points": record.points,
            "cube_value": record.cube_value, "plies": record.plies, "doubles": record.doubles,
            "beavers": record.beavers, "game_in_match": record.match.game_in_match if record.match else 0,
            "white_score": record.match.white_score if record.match else 0,
            "black_score": record.match.black_score if record.match else 0,
        }
        differ = [f"{name} {row[name]} stored, {value} replayed" for name, value in replayed.items()
                  if str(row[name]) != str(value)]
        if differ:
            where = f"{unit} {number}" + (f" game {replayed['game_in_match'] + 1}" if group.match_to else "")
            out.append(f"{group.label}, {where}: the replay does not reproduce the stored row ({'; '.join(differ)})")
    return out


def check_format(fmt: str, rules: Rules, starts: bool = False) -> None:
    """Refuse, before any game is played, games ``fmt`` cannot hold (the writers' own checks on a
    match of one such game)."""
    from bgsim.interchange import mat, sgf
    from bgsim.interchange.games import match_rules
    from bgsim.interchange.records import Game

    check_writable(rules)
    probe = Match(rules=match_rules(rules), games=[Game(
        number=1, automatic_doubles=1 if rules.automatic_doubles else 0,
        start=Position.start() if starts else None)])
    {"mat": mat.check_mat, "sgf": sgf.check_sgf}[fmt](probe)


def write_record(match: Match, fmt: str) -> str:
    """The text of ``match`` in ``fmt`` (``mat`` or ``sgf``); RecordError when it cannot hold it."""
    from bgsim.interchange import mat, sgf

    if fmt == "mat":
        return mat.write_mat(match)
    if fmt == "sgf":
        return sgf.write_sgf(match)
    raise ValueError(f"unknown format {fmt!r}: choose mat or sgf")


__all__ = ["CANNOT_HOLD", "FORMATS", "HOLDS", "Group", "check_format", "RecordError", "Replayed", "Source", "describe_numbers",
           "groups", "load_source", "parse_selection", "records_from_trace", "replay_group",
           "replay_number", "write_record"]


def export_files(source_path, selection: str, fmt: str, out: Path, pairing=None, leg=None, force=False,
                 log=None) -> tuple[list[Path], list[str]]:
    """Write the chosen games; the files written and the replay's differences from the rows."""
    log = log or (lambda text: None)
    source = load_source(source_path)
    chosen = groups(source, selection, pairing, leg)
    if len(chosen) > 1:
        listed = "; ".join(group.label for group in chosen[:6]) + ("; ..." if len(chosen) > 6 else "")
        if "pairing" in source.frame.columns:
            how = "choose with --pairing and --leg"
        else:  # a play file has no pairings to choose: its rows hold several kinds of game
            how = "choose the games of one of them with --games"
        raise ValueError(f"the chosen games hold {len(chosen)} pairings, seatings or rules ({listed}): a file "
                         f"holds one; {how}")
    group = chosen[0]
    replayed = replay_group(group, source)
    texts = [write_record(match, fmt) for match in replayed.matches]  # refused before anything is written
    if len(texts) == 1:
        paths = [out]
    else:
        paths = [out.with_name(f"{out.stem}-match-{numbers[0]}{out.suffix}") for numbers in replayed.numbers]
    for path in paths:  # the names, before a claim file is made beside any of them
        check_new_file(path, force)
    with claimed_files(paths, force):
        for path, text in zip(paths, texts):
            try:
                write_text(text, path)
            except OSError as error:
                raise explain(error, path) from None
    return paths, replayed.differences


def record_paths(out: Path, matches: int | None) -> list[Path]:
    """The files a match file of ``matches`` matches is written to (None: a money session, one
    file): ``out``, or ``OUT-match-N.EXT`` for each match when there are several."""
    if not matches or matches == 1:
        return [out]
    return [out.with_name(f"{out.stem}-match-{number}{out.suffix}") for number in range(matches)]
