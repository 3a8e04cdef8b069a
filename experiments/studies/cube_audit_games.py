"""The cube audit of real games: the cube decisions found in a match file, judged as the audit
judges a bot's (:mod:`experiments.studies.cube_audit`), and what other cube rules would have done.

The games are a ``.mat`` or SGF file replayed through the rules
(:func:`bgsim.interchange.files.import_match`), or the decision rows ``bgsim import --out``
wrote.  Every cube decision of a player is found again:

* ``double`` / ``redouble``: each turn where the side on roll could double (the cube centred, or
  its own), before the roll: it doubled, or it rolled without doubling;
* ``take``: each answer to a double (a beaver counts as a take, as in the audit; the doubler's
  answer to a beaver is no question the audit asks).

The truth of a decision is the position's, from the side on roll (the doubler):

* money: :func:`bots.exact.cube_equities`, the audit's own: exact where the two-sided bear-off
  database holds the position, else an estimate (labelled: Janowski on the one-sided database's
  or the ``nn`` net's cubeless chances), the Jacoby rule counted where the session plays it;
* a match: the exact match tables (:func:`bgsim.bearoff.match.match_cube`) where they hold the
  position and the score, else the estimate of the score-aware bots
  (:func:`bots.match_cube.match_equities`: Janowski in match-winning chances on the same
  cubeless chances).  Match-winning chances become GNU Backgammon's EMG (equivalent money game):
  a single game won at the current cube is +1, one lost -1, so double/pass is +1 as in money.
  A turn where the cube is dead for the doubler (its score plus the cube already wins the match)
  is no decision, as GNU Backgammon counts none there.

Each decision is charged by the audit's :func:`~experiments.studies.cube_audit.double_verdict`
and :func:`~experiments.studies.cube_audit.take_verdict`, per unit of the current cube.  Beside
each, every rule of ``rules`` (default ``pipdiff``, ``keith``, ``exact``) is asked the same
question with the same cube and score, and charged by the same truth.  The intervals take the
game as the independent unit (:func:`~experiments.studies.cube_audit.clustered`): a game's
decisions share its positions; a player is compared with a rule on the player's own decisions
(:func:`~experiments.studies.cube_audit.paired`).
"""

from __future__ import annotations

import hashlib
import math
import time
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from bgsim.board import Position
from bgsim.cube import CubeView, Response
from bgsim.interchange.replay import CORE_COLUMNS
from bgsim.interchange.xgid import CENTRE, ON_ROLL, decode as decode_xgid
from experiments.analysis.summary import markdown_table, milli, played_with
from experiments.running.files import write_table, write_text
from experiments.running.folder import RunFolder, RunKind
from experiments.stats import nonnegative_interval, proportion_interval
from experiments.studies.cube_audit import (WINDOW, bucket_of, clustered, double_verdict, make_rules, paired,
                                            take_verdict)

DEFAULT_RULES = ("pipdiff", "keith", "exact")
AUDITED_VARIANTS = ("standard", "nackgammon")  # the truth is the standard game's
EXACT_MATCH = "exact match tables"
GAMES_AUDIT = RunKind("cube-audit-games", "audit", "bgsim cube audit of games",
                      ("decisions.parquet", "decisions.csv", "summary.csv", "summary.md"), resumes=False)
PLAYER, RULE = "player", "rule"
EXACT_NOTE = ("`exact` decides by the numbers that are the truth here (the exact tables, else the same "
              "estimates; in a match the score's forced offers first), so it loses next to nothing by "
              "them: it is the yardstick the players are measured against, not a rival.")
PARTS = (("all", ("double", "redouble", "take")), ("doubler", ("double", "redouble")), ("taker", ("take",)))


# --- the games --------------------------------------------------------------------------------


@dataclass
class Games:
    """The decision rows of the audited games, the players' names and what reading them found."""

    rows: pd.DataFrame  # bgsim.interchange.replay.ROW_COLUMNS, one per decision of every sound game
    players: tuple[str, str]
    match_to: int
    problems: list[str]


def read_games(path: str | Path) -> Games:
    """The decisions of a ``.mat`` or SGF file (replayed) or of ``bgsim import``'s Parquet rows.
    ValueError (one line) for anything else, or games the audit's truth does not cover."""
    from bgsim.interchange.files import SUFFIXES, import_match

    path = Path(path)
    if not path.exists():
        raise ValueError(f"--games {path}: no such file")
    if path.suffix.lower() == ".parquet":
        try:
            rows = pd.read_parquet(path)
        except Exception as error:  # pyarrow raises its own kinds for a damaged file
            raise ValueError(f"cannot read {path}: {error}") from None
        if "variant" not in rows.columns:  # rows written before the variants: the standard game
            rows["variant"] = "standard"
        missing = [name for name in CORE_COLUMNS if name not in rows.columns]
        if missing:
            hint = (" (these are bgsim game rows: write them as a match file with `bgsim export`, or "
                    "read one with `bgsim import FILE --out ROWS.parquet`)" if "white" in rows.columns else "")
            raise ValueError(f"{path} is not the decision rows of `bgsim import` (it lacks "
                             f"{', '.join(missing[:4])}{'...' if len(missing) > 4 else ''}){hint}")
        _check_variant(path, set(rows["variant"].astype(str)))
        names = _names(rows)
        match_to = int(rows["match_to"].iloc[0]) if len(rows) else 0
        return Games(rows.reset_index(drop=True), names, match_to, [])
    if path.suffix.lower() not in SUFFIXES:
        raise ValueError(f"--games {path}: give a match file (.mat or .sgf) or the rows of `bgsim import` (.parquet)")
    match, done = import_match(path)
    _check_variant(path, {match.rules.variant})
    problems = [f"{path}:{problem}" for problem in done.problems]
    return Games(done.frame(), tuple(match.players), match.match_to, problems)


def _check_variant(path: Path, variants: set[str]) -> None:
    for variant in sorted(variants - set(AUDITED_VARIANTS)):
        raise ValueError(f"{path} holds {variant} games: the audit's truth (bear-off databases, the nn net, "
                         "the match equity table) is the standard game's")


def _names(rows: pd.DataFrame) -> tuple[str, str]:
    names = ["player 0", "player 1"]
    for player in (0, 1):
        found = rows.loc[rows["player"] == player, "name"]
        if len(found):
            names[player] = str(found.iloc[0])
    return names[0], names[1]


def decider_names(players: tuple[str, str], rules: list[str]) -> tuple[str, str]:
    """What the summary calls each player: its name, told apart from the other player's and from
    the rules' where they coincide."""
    names = list(players)
    if names[0] == names[1]:
        names = [f"{names[0]} (player {side})" for side in (0, 1)]
    return tuple(f"{name} (player)" if name in rules else name for name in names)


# --- the decisions ----------------------------------------------------------------------------


def cube_decisions(rows: pd.DataFrame) -> list[dict]:
    """The cube decisions among the decision rows, in the order played: one dict each with the
    row it was read from, the ``question`` and the player's ``answer`` (none where the cube is
    dead for the doubler, :func:`dead_for_doubler`)."""
    out = []
    keys = [name for name in ("match", "game") if name in rows.columns]  # a file may hold several matches
    ordered = rows.sort_values([*keys, "decision"], kind="stable")
    for _, game in ordered.groupby(keys, sort=False):
        previous = None
        for row in game.itertuples(index=False):
            action = str(row.action)
            question = answer = None
            if action == "move" and bool(row.may_double):
                question, answer = None, "no double"
            elif action == "double":
                question, answer = None, "double"
            elif action in ("take", "drop", "beaver") and previous == "double":
                question, answer = "take", "pass" if action == "drop" else "take"
            if answer is not None and not dead_for_doubler(situation(row._asdict())[2]):
                if question is None:
                    question = "double" if str(row.cube_owner) == "centre" else "redouble"
                out.append({**row._asdict(), "question": question, "answer": answer})
            previous = action
    return out


@dataclass(frozen=True)
class Truth:
    """The equities of a decision per unit of the cube (EMG in a match) from the doubler's side:
    what :func:`double_verdict` and :func:`take_verdict` read (a pass is worth +1)."""

    no_double_value: float
    double_take: float
    win: float  # the doubler's cubeless chance to win the game
    truth: str  # exact or estimated
    estimator: str

    def no_double(self, centred: bool) -> float:
        return self.no_double_value

    def should_take(self) -> bool:
        return self.double_take <= 1.0


def situation(decision: dict):
    """The position (side on roll), its XGID and the cube the doubler sees, from a decision."""
    state = decode_xgid(decision["xgid"])
    money = not state.match_to
    away = (0, 0)
    post_crawford = False
    if not money:
        away = (state.match_to - state.score[0], state.match_to - state.score[1])
        post_crawford = not state.crawford and 1 in away
    cube = CubeView(value=state.cube_value, centred=state.cube_owner == CENTRE, max_cube=state.cube_limit,
                    beaver_allowed=money and state.beaver, jacoby=money and state.jacoby,
                    match_to=state.match_to, away=away, post_crawford=post_crawford)
    return state.position, state, cube


def dead_for_doubler(cube: CubeView) -> bool:
    """In a match, the doubler's score plus the cube already wins it: no cube decision."""
    return bool(cube.match_to) and cube.value >= cube.away[0]


def truth_of(position: Position, cube: CubeView) -> Truth:
    """The decision's truth (see the module docstring)."""
    from bots import match_cube
    from bots.exact import EXACT, cube_equities

    if not cube.match_to:
        found = cube_equities(position, jacoby_centred=cube.jacoby and cube.centred)
        value = found.centred if cube.centred else found.owned
        return Truth(value, found.double_take, found.probabilities[0],
                     "exact" if found.source == EXACT else "estimated", found.source)
    away, opponent_away = cube.away
    post = cube.post_crawford
    lose_one = match_cube.equity(away, opponent_away - cube.value, post)
    win_one = match_cube.equity(away - cube.value, opponent_away, post)

    def emg(mwc: float) -> float:
        # rounded, so that a chance equal to the pass's stays equal to +1 (a sure win's no double)
        return round(2.0 * (mwc - lose_one) / (win_one - lose_one) - 1.0, 12)

    exact = _exact_match(position, cube)
    if exact is not None:
        return Truth(emg(exact.no_double), emg(exact.double_take), exact.cubeless_win, "exact", EXACT_MATCH)
    found = cube_equities(position)
    no_double, double_take, _ = match_cube.match_equities(found.probabilities, found.efficiency, cube)
    estimator = found.source if found.source != EXACT else "estimated-two-sided-cubeless"
    return Truth(emg(no_double), emg(double_take), found.probabilities[0], "estimated", estimator)


def _exact_match(position: Position, cube: CubeView):
    from bgsim.bearoff import match

    owner = match.CENTRE if cube.centred else match.ON_ROLL
    found = match.match_cube(position, cube.value, owner, *cube.away, post_crawford=cube.post_crawford)
    return found if found is not None and found.may_double else None


def charge(question: str, answer: str, truth: Truth, centred: bool) -> tuple[str, str, float]:
    """(best, error, equity lost) of an answer, by the audit's verdicts."""
    if question == "take":
        return take_verdict(truth, answer == "take")
    return double_verdict(truth, centred, answer == "double")


def rule_answer(rule, question: str, position: Position, cube: CubeView) -> str:
    if question == "take":
        return "take" if rule.bot.respond(position, cube) in (Response.TAKE, Response.BEAVER) else "pass"
    return "double" if rule.bot.offer_double(position, cube) else "no double"


def judge_games(games: Games, rules: list) -> pd.DataFrame:
    """One row per decision and decider: the player who made it, then each rule asked the same."""
    deciders = decider_names(games.players, [rule.name for rule in rules])
    rows = []
    for index, decision in enumerate(cube_decisions(games.rows)):
        position, state, cube = situation(decision)
        truth = truth_of(position, cube)
        doubler = int(decision["on_roll"])
        base = {
            "decision": index, "position_index": index, "game": int(decision["game"]),
            "ply": int(decision["ply"]), "line": int(decision["line"]), "question": decision["question"],
            "player": int(decision["player"]), "name": deciders[int(decision["player"])],
            "doubler": deciders[doubler], "xgid": decision["xgid"], "position_id": position.position_id,
            "kind": "race" if position.is_race else "contact", "pips": position.pip_count,
            "opponent_pips": position.opponent_pip_count, "bucket": bucket_of(position.pip_count),
            "match_to": state.match_to, "doubler_score": state.score[0], "taker_score": state.score[1],
            "cube_value": state.cube_value, "truth": truth.truth, "estimator": truth.estimator,
            "no_double": truth.no_double_value, "double_take": truth.double_take, "win": truth.win,
            "window": WINDOW[0] <= truth.win <= WINDOW[1],
        }
        answers = [(PLAYER, base["name"], decision["answer"])]
        answers += [(RULE, rule.name, rule_answer(rule, decision["question"], position, cube)) for rule in rules]
        for role, name, answer in answers:
            best, error, lost = charge(decision["question"], answer, truth, cube.centred)
            rows.append({**base, "role": role, "rule": name, "answer": answer, "best": best, "error": error,
                         "equity_lost": lost})
    frame = pd.DataFrame(rows)
    if frame.empty:
        raise ValueError("the games hold no cube decision to audit (no turn where a side could double)")
    return frame


# --- the summary ------------------------------------------------------------------------------


def summarise(frame: pd.DataFrame, deciders: list[str]) -> pd.DataFrame:
    """Per decider and part (all decisions, the doubler's, the taker's): decisions, games, the
    share judged exactly, the error rate and the equity lost per decision with 95% intervals
    over games, and the equity lost in all.  A player counts its own decisions; a rule every one."""
    out = []
    for name in deciders:
        mine = frame[frame["rule"] == name]
        role = mine["role"].iloc[0] if len(mine) else RULE
        for part, questions in PARTS:
            rows = mine[mine["question"].isin(questions)]
            n = len(rows)
            rate, rate_half = clustered((rows["error"] != "").astype(float), rows["game"]) if n else (math.nan, math.nan)
            lost, lost_half = clustered(rows["equity_lost"], rows["game"]) if n else (math.nan, math.nan)
            # both cannot be negative: Wilson's interval and the log scale keep them at zero or above
            rate_low, rate_high = proportion_interval(rate, rate_half, int(rows["game"].nunique()))
            lost_low, lost_high = nonnegative_interval(lost, lost_half)
            out.append({"decider": name, "role": role, "part": part, "decisions": n,
                        "games": int(rows["game"].nunique()),
                        "exact_share": float((rows["truth"] == "exact").mean()) if n else math.nan,
                        "errors": int((rows["error"] != "").sum()),
                        "error_rate": rate, "error_rate_low": rate_low, "error_rate_high": rate_high,
                        "equity_lost": lost, "equity_lost_low": lost_low,
                        "equity_lost_high": lost_high, "equity_lost_total": float(rows["equity_lost"].sum())})
    return pd.DataFrame(out)


def _interval(value: float, low: float, high: float, scale: float = 1.0) -> str:
    if value != value:
        return "-"
    if low != low or high != high:
        return f"{scale * value:.1f}"
    return f"{scale * value:.1f} ({span(low, high, scale)})"


def span(low: float, high: float, scale: float = 1.0, signed: bool = False) -> str:
    """A 95% interval as "low .. high"; the game is its unit, so one game gives none (NaN)."""
    if low != low or high != high:
        return "none from one game"
    form = "+.1f" if signed else ".1f"
    return f"{scale * low:{form}} .. {scale * high:{form}}"


def summary_lines(summary: pd.DataFrame, unit: str) -> list[str]:
    headers = ["decider", "decisions", "games", "exact", "errors", "error rate % (95%)",
               f"lost per decision, 1/1000 {unit} (95%)", f"lost in all ({unit})"]
    rows = []
    for row in summary.itertuples(index=False):
        label = row.decider if row.part == "all" else f"{row.decider}: {row.part}"
        rows.append([label, f"{row.decisions:,}", str(row.games),
                     f"{100 * row.exact_share:.0f}%" if row.decisions else "-", str(row.errors),
                     _interval(row.error_rate, row.error_rate_low, row.error_rate_high, 100),
                     _interval(row.equity_lost, row.equity_lost_low, row.equity_lost_high, 1000),
                     f"{row.equity_lost_total:.3f}"])
    return markdown_table(headers, rows, "l" + "r" * 7).splitlines()


def comparisons(frame: pd.DataFrame, players: list[str], rules: list[str], unit: str) -> list[str]:
    """Each player against each rule on the player's own decisions (paired differences)."""
    lines = []
    for player in players:
        mine = frame[frame["name"] == player]
        for rule in rules:
            found = paired(mine, player, rule)
            if found is None:
                continue
            lines.append(
                f"- {player} v {rule} on {player}'s {found['decisions']:,} decisions: error rate "
                f"{100 * found['error_rate']:.1f}% v {100 * found['error_rate_other']:.1f}% (difference "
                f"{100 * found['rate_difference']:+.1f} points, 95% interval "
                f"{span(found['rate_low'], found['rate_high'], 100, signed=True)}); lost {milli(found['equity_lost'])} v "
                f"{milli(found['equity_lost_other'])} thousandths of {unit} per decision (difference "
                f"{1000 * found['lost_difference']:+.1f}, 95% interval "
                f"{span(found['lost_low'], found['lost_high'], 1000, signed=True)})")
    return lines


def wide(frame: pd.DataFrame, rules: list[str]) -> pd.DataFrame:
    """One row per decision: the player's answer and charge, and beside it each rule's."""
    players = frame[frame["role"] == PLAYER].set_index("decision")
    out = players[["game", "ply", "line", "name", "question", "xgid", "kind", "truth", "estimator", "no_double",
                   "double_take", "best", "answer", "error", "equity_lost"]].copy()
    for rule in rules:
        theirs = frame[frame["rule"] == rule].set_index("decision")
        out[f"{rule}: answer"] = theirs["answer"]
        out[f"{rule}: lost"] = theirs["equity_lost"]
    return out.reset_index()


def decision_lines(table: pd.DataFrame, rules: list[str], limit: int = 60) -> list[str]:
    """The players' doubles, answers and errors, each with every rule's answer beside it."""
    shown = table[(table["answer"] != "no double") | (table["error"] != "")]
    headers = ["game", "ply", "player", "question", "kind", "truth", "best", "answer", "lost", *rules]
    rows = []
    for record in shown.head(limit).to_dict("records"):
        marks = [record[f"{rule}: answer"] + ("*" if record[f"{rule}: lost"] > 0 else "") for rule in rules]
        rows.append([str(record["game"]), str(record["ply"]), record["name"], record["question"], record["kind"],
                     record["truth"], record["best"], record["answer"] + ("*" if record["error"] else ""),
                     milli(record["equity_lost"]), *marks])
    lines = markdown_table(headers, rows, "rrllllllr" + "l" * len(rules)).splitlines() if rows else []
    if len(shown) > limit:
        lines.append(f"\n({len(shown) - limit} more in decisions.csv)")
    return lines


def summary_markdown(games: Games, frame: pd.DataFrame, summary: pd.DataFrame, rules: list[str],
                     info: dict) -> str:
    unit = "EMG" if games.match_to else "point"
    players = [name for name in dict.fromkeys(frame.loc[frame["role"] == PLAYER, "rule"])]
    truths = frame[frame["role"] == PLAYER]["estimator"].value_counts()
    table = wide(frame, rules)
    kind = f"a {games.match_to}-point match" if games.match_to else "a money session"
    return "\n".join([
        "# Cube audit of real games",
        "",
        f"{info['source']}: {kind}, {games.players[0]} v {games.players[1]}, {games.rows['game'].nunique()} "
        f"games; {table.shape[0]:,} cube decisions in {frame['game'].nunique()} of them (each turn where the "
        "side on roll could use the cube, each answer to a double: what GNU Backgammon counts).  Each is judged as `bgsim cube-audit` judges a rule's, "
        "and every rule of " + ", ".join(f"`{rule}`" for rule in rules) + " is asked the same question with "
        f"the same cube and score.  Equity lost per unit of the cube ({'EMG: match-winning chances on the money scale, a single game at the cube worth 1' if games.match_to else 'points'}); "
        "95% intervals take the game as the unit.",
        "",
        "Truth: " + ", ".join(f"{name} {count:,}" for name, count in truths.items()) + " (exact: "
        + ("the exact match tables, pure bear-offs at the score" if games.match_to else
           "the two-sided bear-off database") + "; elsewhere labelled estimates: Janowski on the "
        "one-sided database's or the nn net's cubeless chances"
        + (", in match-winning chances at the score" if games.match_to else "") + ").",
        "",
        "## Error rates and equity lost",
        "",
        *summary_lines(summary, unit),
        "",
        "## The players against the rules, on the players' own decisions",
        "",
        *comparisons(frame, players, rules, unit),
        *([""] + [EXACT_NOTE] if any(rule.startswith("exact") for rule in rules) else []),
        "",
        "## The decisions",
        "",
        "Every double and answer, and every decision a player got wrong (`*`: an error by the truth's "
        "verdict); lost in thousandths.",
        "",
        *decision_lines(table, rules),
        "",
        played_with(info),
        "",
    ])


# --- a run ------------------------------------------------------------------------------------


@dataclass
class GamesAudit:
    folder: Path
    games: Games
    frame: pd.DataFrame
    summary: pd.DataFrame
    seconds: float


def run_games_audit(path: str | Path, out: Path, specs: list[str] | None, command: str,
                    force: bool = False) -> GamesAudit:
    """Audit the cube decisions of the games in ``path`` into the results folder ``out``."""
    specs = list(specs or DEFAULT_RULES)
    rules = make_rules(specs)  # bad specs fail before anything is read or written
    games = read_games(path)
    started = time.perf_counter()
    frame = judge_games(games, rules)
    deciders = [name for name in dict.fromkeys(frame.loc[frame["role"] == PLAYER, "rule"])] + specs
    summary = summarise(frame, deciders)
    digest = hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]
    folder = RunFolder(out, GAMES_AUDIT)
    identity = {"games": str(path), "games_sha256": digest, "players": specs}
    with folder.claimed():  # a second command on the same folder stops here
        folder.open(identity, force=force)
        record = folder.record(command, identity, source=str(path))
        folder.save(record)
        write_table(frame, folder.path / "decisions.parquet")
        write_text(wide(frame, specs).to_csv(index=False, float_format="%.6g"), folder.path / "decisions.csv")
        write_text(summary.to_csv(index=False, float_format="%.6g"), folder.path / "summary.csv")
        seconds = time.perf_counter() - started
        write_text(summary_markdown(games, frame, summary, specs, record), folder.path / "summary.md")
        folder.finish(record, seconds=seconds)
    return GamesAudit(folder.path, games, frame, summary, seconds)


__all__ = ["DEFAULT_RULES", "Games", "GamesAudit", "Truth", "cube_decisions", "judge_games", "read_games",
           "run_games_audit", "summarise", "truth_of"]
