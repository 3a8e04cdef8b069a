"""Real match files read by bgsim and by GNU Backgammon's own importer, compared move for move.

``python -m experiments.studies.gnubg_agreement CORPUS... --out results/real_files`` reads every
match file under the folders given (``.mat``, ``.txt``, ``.gam``, ``.sgf``) twice:

* GNU Backgammon 1.07 imports it (``import mat`` or ``load match``, one ``gnubg -t`` a file) and
  saves what it kept as SGF: its games, each move as the points it wrote;
* ``bgsim import``'s reader and replay (:func:`bgsim.interchange.files.import_match`) give one row
  per decision of every game bgsim keeps.

Each game becomes a list of tokens in the order played: a roll is (player, dice, the position it
leaves, from the mover), a cube action is (action, player); resignations, and a roll left
unplayed at the end of a game (rolled, then resigned: gnubg saves it as ``PL[W]DI[32]``, or a
dance as ``W[32]``; bgsim keeps no row for the first, a row without a play for the second), are
left out of both.  A game of gnubg's counts as *sound* when bgsim's own strict replay of gnubg's
save accepts it (gnubg keeps a game whose illegal move it dropped, with its board out of step from
then on); a game bgsim kept with the same tokens is sound without it.  A game of gnubg's with no
token (a set-up board, a game header with nothing after it) holds nothing bgsim's rows could
hold: it is counted apart, never as a game bgsim lacks.  Games are matched by their order in the
file.

The summary (``summary.md`` and ``agreement.csv`` in ``--out``) counts, over every file: the games
gnubg keeps (sound or not), the games bgsim keeps, the games both keep with the same tokens, and
per file whether both agree on every game; the files where they part are listed with the first
differing game.  The corpus stays outside the repository; the folders' names stand in the table.

The files are compared in a seeded random order over every collection (``--seed``), so that a
run stopped part-way has compared a random sample of the corpus.  Each file's result is appended
to ``done.jsonl`` in ``--out`` as it comes; ``--resume`` reads it back and compares only the
files not yet done, refusing a checkpoint another commit wrote; ``--summarise`` compares nothing
more and writes the summary of the files done, saying how many of the corpus's they are, under
the commit that compared them.  ``run.json`` beside the summary names that commit.
``--threads N`` compares N files at once, each in a worker process.
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

SUFFIXES = (".mat", ".txt", ".gam", ".sgf")


@dataclass
class FileResult:
    path: str
    collection: str
    gnubg_games: int = 0
    gnubg_sound: int = 0
    bgsim_games: int = 0
    agreeing: int = 0
    gnubg_only: int = 0  # sound games of gnubg's that bgsim does not keep as gnubg reads them
    gnubg_empty: int = 0  # gnubg's games with no decision in them (no roll, no cube action) that bgsim has not
    bgsim_only: int = 0  # games bgsim keeps that gnubg does not
    note: str = ""
    gnubg_said: list[str] = field(default_factory=list)
    bgsim_said: list[str] = field(default_factory=list)

    @property
    def agrees(self) -> bool:
        # a file bgsim refuses whole agrees where gnubg keeps no game of it either
        return self.gnubg_games - self.gnubg_empty == self.bgsim_games == self.agreeing


def match_files(folders: list[Path]) -> list[Path]:
    found = []
    for folder in folders:
        if folder.is_file():
            found.append(folder)
            continue
        found.extend(sorted(path for path in folder.rglob("*") if path.suffix.lower() in SUFFIXES and path.is_file()))
    return found


# --- GNU Backgammon's side ---------------------------------------------------------------------


def gnubg_save(path: Path, timeout: float = 120) -> tuple[str | None, str]:
    """What gnubg kept of ``path`` as SGF text (None when it kept nothing) and all it said."""
    from experiments.analysis.gnubg_program import find_gnubg

    command = "load match" if path.suffix.lower() == ".sgf" else "import mat"
    with tempfile.TemporaryDirectory(prefix="bgsim-agree-") as folder:
        saved = Path(folder) / "saved.sgf"
        script = f"set confirm new off\n{command} \"{path.resolve()}\"\nsave match \"{saved}\"\n"
        try:
            done = subprocess.run([find_gnubg(), "-t", "-q"], input=script, capture_output=True, text=True,
                                  timeout=timeout, errors="replace")
            said = done.stdout + done.stderr
        except subprocess.TimeoutExpired:
            return None, "gnubg timed out"
        text = saved.read_text(encoding="utf-8", errors="replace") if saved.exists() else None
    return text, said


def gnubg_match(text: str):
    """gnubg's save read by bgsim's SGF reader."""
    from bgsim.interchange.sgf import read_sgf

    return read_sgf(text)[0]


def gnubg_sound(match, known_sound: set[int] = frozenset()) -> list[bool]:
    """Whether bgsim's strict replay accepts each game of gnubg's save; those in ``known_sound``
    (by index) are not replayed again."""
    from bgsim.interchange.replay import replay

    sound = []
    for index, game in enumerate(match.games):
        if index in known_sound:
            sound.append(True)
            continue
        # gnubg marks the first game a side is a point away in as the Crawford game, even where the
        # file takes the match up later: the score decides it here, as in bgsim's replay
        game.crawford = None
        single = type(match)(players=match.players, match_to=match.match_to, rules=match.rules, games=[game])
        done = replay(single)
        sound.append(not any(problem.rejected for problem in done.problems))
    return sound


def _action_tokens(game, variant: str) -> list[tuple]:
    from bgsim.board import Position
    from bgsim.interchange.records import ROLL, apply_steps

    tokens: list[tuple] = []
    board = None
    actions = list(game.actions)
    while actions and actions[-1].kind == ROLL and not actions[-1].moves:
        actions.pop()  # a roll left unplayed before a resignation is no decision
    for action in actions:
        if action.kind != ROLL:
            tokens.append((action.kind, action.side))
            continue
        if board is None:
            board = list((game.start or Position.start(variant)).board)
        after = apply_steps(board, action.moves)
        try:
            where = Position(tuple(after), variant).position_id
        except ValueError:
            where = "impossible"
        tokens.append(("move", action.side, tuple(sorted(action.dice)), where))
        board = [-after[25 - slot] for slot in range(26)]
    return tokens


# --- bgsim's side ------------------------------------------------------------------------------


def bgsim_tokens(path: Path) -> tuple[list[list[tuple]], list[str]]:
    """Each game bgsim keeps of ``path`` as tokens, and every problem it reported."""
    from bgsim.interchange.files import import_match

    _, done = import_match(path)
    frame = done.frame()
    said = [str(problem) for problem in done.problems]
    games: list[list[tuple]] = []
    keys = [name for name in ("match", "game") if name in frame.columns]
    if not len(frame):
        return games, said
    for _, rows in frame.groupby(keys, sort=False):
        tokens, unplayed = [], []
        for row in rows.sort_values("decision").itertuples(index=False):
            action = str(row.action)
            if action == "move":
                where = str(row.result_id) or str(row.position_id)
                tokens.append(("move", int(row.player), tuple(sorted(int(d) for d in str(row.dice))), where))
                unplayed.append(not str(row.play))
            elif action in ("double", "take", "drop", "beaver"):
                tokens.append((action, int(row.player)))
                unplayed.append(False)
        while unplayed and unplayed[-1]:  # a dance before a resignation: gnubg's save drops it too
            tokens.pop()
            unplayed.pop()
        games.append(tokens)
    return games, said


# --- comparison ------------------------------------------------------------------------------


def compare_file(path: Path, collection: str) -> FileResult:
    result = FileResult(str(path), collection)
    text, said = gnubg_save(path)
    result.gnubg_said = [line.strip() for line in said.splitlines()
                         if any(word in line.lower() for word in ("warning", "invalid", "unrecognised", "not a valid",
                                                                  "doesn't follow", "error"))][:5]
    match, theirs, sound = None, [], []
    if text is not None:
        try:
            match = gnubg_match(text)
            theirs = [_action_tokens(game, match.rules.variant) for game in match.games]
        except Exception as error:  # gnubg's save is read by bgsim's SGF reader: its failure is data
            result.note = f"gnubg's save unreadable: {error}"
    try:
        ours, result.bgsim_said = bgsim_tokens(path)
    except Exception as error:  # a whole file refused is a result of the comparison
        ours = None
        result.note = f"error: bgsim: {type(error).__name__}: {str(error)[:200]}"
    matched = _matched(theirs, ours or [])
    if match is not None and theirs:
        # a game bgsim's replay of the file played move for move as gnubg saved it is sound: its
        # plays are legal ones; only the others go through a strict replay of gnubg's save
        sound = gnubg_sound(match, matched)
    result.gnubg_games, result.gnubg_sound = len(theirs), sum(sound)
    # a game without a decision is no game bgsim's rows could hold: counted apart, never as lost
    result.gnubg_empty = sum(1 for index, game in enumerate(theirs) if not game and index not in matched)
    result.gnubg_only = sum(1 for index, good in enumerate(sound) if good and theirs[index] and index not in matched)
    if ours is None:
        return result
    result.bgsim_games = len(ours)
    result.agreeing = len(matched)
    result.bgsim_only = len(ours) - len(matched)
    if not result.note and not result.agrees:
        result.note = _first_difference(theirs, ours)
    return result


def _matched(theirs: list[list[tuple]], ours: list[list[tuple]]) -> set[int]:
    """The indexes of gnubg's games that bgsim keeps with the same tokens: matched in order, a
    game either side left out skipped over."""
    found, index = set(), 0
    for number, game in enumerate(theirs):
        for look in range(index, len(ours)):
            if ours[look] == game:
                found.add(number)
                index = look + 1
                break
    return found


def _first_difference(theirs, ours) -> str:
    for number, (a, b) in enumerate(zip(theirs, ours), 1):
        if a != b:
            for ply, (x, y) in enumerate(zip(a, b), 1):
                if x != y:
                    return f"game {number} token {ply}: gnubg {x} / bgsim {y}"
            return f"game {number}: gnubg {len(a)} tokens, bgsim {len(b)}"
    return f"gnubg {len(theirs)} games, bgsim {len(ours)}"


def summarise(results: list[FileResult]) -> dict:
    files = len(results)
    return {
        "files": files,
        "files_agreeing": sum(result.agrees for result in results),
        "gnubg_games": sum(result.gnubg_games for result in results),
        "gnubg_sound": sum(result.gnubg_sound for result in results),
        "bgsim_games": sum(result.bgsim_games for result in results),
        "agreeing_games": sum(result.agreeing for result in results),
        "gnubg_only": sum(result.gnubg_only for result in results),
        "gnubg_empty": sum(result.gnubg_empty for result in results),
        "bgsim_only": sum(result.bgsim_only for result in results),
        "bgsim_refused_files": sum(result.note.startswith("error") for result in results),
    }


def write_summary(results: list[FileResult], out: Path, seconds: float, commit: str,
                  corpus: int | None = None) -> str:
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "agreement.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["collection", "file", "gnubg_games", "gnubg_sound", "bgsim_games", "agreeing",
                         "gnubg_only", "bgsim_only", "gnubg_empty", "note"])
        for result in results:
            writer.writerow([result.collection, Path(result.path).name, result.gnubg_games, result.gnubg_sound,
                             result.bgsim_games, result.agreeing, result.gnubg_only, result.bgsim_only, result.gnubg_empty,
                             result.note])
    of = "" if corpus in (None, len(results)) else f" of the corpus's {corpus} (a random sample of them)"
    lines = [f"bgsim commit {commit}; {len(results)} files{of} in {seconds / 60:.0f} min", "",
             "| collection | files | files agreeing | games gnubg keeps (sound) | games bgsim keeps | "
             "games agreeing move for move | sound gnubg games bgsim lacks | bgsim games gnubg lacks | "
             "gnubg games with no decision |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    by_collection: dict[str, list[FileResult]] = {}
    for result in results:
        by_collection.setdefault(result.collection, []).append(result)
    for name, group in sorted(by_collection.items()) + [("all", results)]:
        total = summarise(group)
        label = f"**{name}**" if name == "all" else name
        lines.append(f"| {label} | {total['files']} | {total['files_agreeing']} | {total['gnubg_games']} "
                     f"({total['gnubg_sound']}) | {total['bgsim_games']} | {total['agreeing_games']} | "
                     f"{total['gnubg_only']} | {total['bgsim_only']} | {total['gnubg_empty']} |")
    refused = [result for result in results if result.note.startswith("error")]
    if refused:
        lines += ["", f"bgsim refuses {len(refused)} files whole, in one line each; gnubg keeps no game of "
                      f"{sum(result.agrees for result in refused)} of them."]
    parted = [result for result in results if not result.agrees]
    lines += ["", f"{len(parted)} files where the two part:", ""]
    for result in parted[:60]:
        lines.append(f"* {result.collection}/{Path(result.path).name}: gnubg {result.gnubg_games} games "
                     f"({result.gnubg_sound} sound), bgsim {result.bgsim_games}, {result.agreeing} agree; "
                     f"{result.note}" + (f"; gnubg: {result.gnubg_said[0]}" if result.gnubg_said else ""))
    if len(parted) > 60:
        lines.append(f"* ... {len(parted) - 60} more in agreement.csv")
    return "\n".join(lines) + "\n"


def _compare(item: tuple[str, str]) -> FileResult:
    return compare_file(Path(item[0]), item[1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="+", type=Path, metavar="CORPUS",
                        help="folders of match files; each top folder's name is its collection")
    parser.add_argument("--out", type=Path, required=True, help="where agreement.csv and the summary go")
    parser.add_argument("--threads", type=int, default=1,
                        help="files compared at once, each in a fresh process of its own (1: in this one)")
    parser.add_argument("--resume", action="store_true", help="go on from --out's done.jsonl")
    parser.add_argument("--summarise", action="store_true",
                        help="compare nothing more: summarise the files --out's done.jsonl holds")
    parser.add_argument("--seed", type=int, default=0, help="the order the files are compared in")
    args = parser.parse_args(argv)
    from experiments.running.folder import git_state

    commit, dirty = git_state()  # the code that runs, read before the tree can change under it
    stamp = f"{(commit or 'unknown')[:12]}{'+dirty' if dirty else ''}"
    todo = [(str(path), folder.name) for folder in args.folders for path in match_files([folder])]
    random.Random(args.seed).shuffle(todo)
    checkpoint = args.out / "done.jsonl"
    done: dict[str, FileResult] = {}
    spent = 0.0
    if checkpoint.exists():
        if not (args.resume or args.summarise):
            print(f"error: {checkpoint} holds an earlier run: pass --resume to go on with it", file=sys.stderr)
            return 2
        lines = checkpoint.read_text(encoding="utf-8").splitlines()
        head = json.loads(lines[0]) if lines else {}
        if args.summarise:  # the figures are the comparing commit's, whichever commit sums them up
            stamp = head.get("commit", "unknown")
        elif head.get("commit") != stamp:
            print(f"error: {checkpoint} was written by commit {head.get('commit')}, this is {stamp}",
                  file=sys.stderr)
            return 2
        spent = float(head.get("seconds", 0.0))
        for line in lines[1:]:
            try:
                record = json.loads(line)
            except json.JSONDecodeError:  # the last line of a run stopped mid-write
                continue
            if "seconds" in record and "path" not in record:
                spent = float(record["seconds"])
                continue
            done[record["path"]] = FileResult(**record)
    elif args.summarise:
        print(f"error: {checkpoint} does not exist: there is nothing to summarise", file=sys.stderr)
        return 2
    else:
        args.out.mkdir(parents=True, exist_ok=True)
        checkpoint.write_text(json.dumps({"commit": stamp, "seconds": 0.0}) + "\n", encoding="utf-8")
    left = [] if args.summarise else [item for item in todo if item[0] not in done]
    started = time.perf_counter()
    from experiments.running.workers import worker_pool  # spawned: safe whatever ran here, Ctrl-C stops them

    with open(checkpoint, "a", encoding="utf-8") as log, worker_pool(args.threads) as pool:
        results = map(_compare, left) if pool is None else pool.map(_compare, left, chunksize=1)
        for number, result in enumerate(results, len(done) + 1):
            done[result.path] = result
            log.write(json.dumps(asdict(result)) + "\n")
            log.flush()  # a run stopped loses no file compared
            if number % 25 == 0:
                log.write(json.dumps({"seconds": spent + time.perf_counter() - started}) + "\n")
                print(f"{number} of {len(todo)} files", file=sys.stderr, flush=True)
        if left:
            log.write(json.dumps({"seconds": spent + time.perf_counter() - started}) + "\n")
    results = sorted((done[path] for path, _ in todo if path in done), key=lambda result: (result.collection,
                                                                                          result.path))
    text = write_summary(results, args.out, spent + time.perf_counter() - started, stamp, len(todo))
    (args.out / "summary.md").write_text(text, encoding="utf-8")
    record = {"kind": "gnubg-agreement", "git_commit": _full_commit(stamp), "git_dirty": stamp.endswith("+dirty"),
              "command": ["python", "-m", "experiments.studies.gnubg_agreement", *(argv or sys.argv[1:])],
              "seed": args.seed, "files": len(results), "corpus_files": len(todo),
              "seconds": round(spent + time.perf_counter() - started, 1),
              "gnubg": _gnubg_version()}
    (args.out / "run.json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    print(text)
    return 0


def _full_commit(stamp: str) -> str | None:
    short = stamp.removesuffix("+dirty")
    try:
        done = subprocess.run(["git", "-C", str(Path(__file__).resolve().parent), "rev-parse", "--verify", "-q",
                               f"{short}^{{commit}}"], capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return short or None
    return done.stdout.strip() or short or None


def _gnubg_version() -> str:
    from experiments.analysis.gnubg_program import find_gnubg

    try:
        done = subprocess.run([find_gnubg(), "--version"], capture_output=True, text=True, timeout=30)
    except Exception:  # the version is a note in run.json, never a reason to lose the summary
        return "unknown"
    return (done.stdout.splitlines() or ["unknown"])[0].strip()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
