"""The cube audit's charge: the positions it asks about, the judges that say the truth, and the
equity a rule's cube decision gives up.

Shared by the audit (:mod:`experiments.studies.cube_audit`, whose module says what is asked and
how it is charged), its report of a gnubg-judged run (:mod:`experiments.studies.cube_audit_report`)
and the played-out cross-check (:mod:`experiments.studies.cross_check`), so that all of them
charge a decision with one function (:func:`double_verdict`, :func:`take_verdict`) and count
intervals one way (:func:`units`, :func:`clustered`, :func:`paired`).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd

from bgsim.board import Position
from bgsim.cube import CubeView, Response
from bgsim.variants import STANDARD
from experiments.analysis.summary import milli

BUCKETS = (("<=30", 0, 30), ("31-60", 31, 60), ("61-90", 61, 90), (">90", 91, 10_000))
ALL = "all"
QUESTIONS = ("double", "redouble", "take")
ERRORS = ("missed double", "wrong double", "wrong take", "wrong pass")
SHARE_COLUMNS = tuple(error.replace(" ", "_") for error in ERRORS)
CENTRED = CubeView(value=1, centred=True, max_cube=64, beaver_allowed=False, jacoby=False)
OWNED = CubeView(value=2, centred=False, max_cube=64, beaver_allowed=False, jacoby=False)
Z95 = 1.959964
# Keith's study set aside positions where one side is an overwhelming favourite (cubeless
# chance below 5% or above 95%): the summary reports them apart as well as within all
WINDOW = (0.05, 0.95)


def bucket_of(pips: int) -> str:
    for name, low, high in BUCKETS:
        if low <= pips <= high:
            return name
    raise ValueError(f"a pip count of {pips} is in no race-length bucket")


# --- positions -------------------------------------------------------------------------------

RACE, CONTACT, ANY = "race", "contact", "all"
SCOPES = (RACE, CONTACT, ANY)
FAST_SAMPLER = "nn"
GNUBG_SAMPLER = "gnubg"


def kind_of(position: Position) -> str:
    """``race`` (no contact) or ``contact``."""
    return RACE if position.is_race else CONTACT


def in_scope(position: Position, scope: str) -> bool:
    """A position of ``scope`` (``race``, ``contact`` or ``all``) whose game is not over."""
    if position.checkers_off == position.checkers or position.opponent_checkers_off == position.checkers:
        return False
    return scope == ANY or kind_of(position) == scope


def check_scope(scope: str) -> str:
    if scope not in SCOPES:
        raise ValueError(f"unknown scope {scope!r}: choose one of {', '.join(SCOPES)}")
    return scope


def _game_positions(player, seed: int, number: int, variant: str = STANDARD) -> list[Position]:
    """The positions before each roll of game ``number`` of ``seed`` of ``variant`` (no checkers
    in hand: hypergammon, or the standard game), ``player`` against itself, from the side on roll:
    the fast engine's trace where the player has a kernel, else the reference engine's (the same
    dice either way)."""
    from bgsim.cube import Rules
    from bgsim.fast import supports, trace_game
    from bgsim.fast.game import TRACE_HEAD

    rules = Rules(variant=variant)
    if supports(player, variant):
        _, trace = trace_game(player, player, seed, number, rules)
        return [Position(tuple(int(n) for n in row[TRACE_HEAD:TRACE_HEAD + 26]), variant) for row in trace]
    from bgsim.game import play_game

    record = play_game(player, player, seed, number, trace=True, rules=rules)
    return [Position.from_string(ply.position_id) for ply in record.history]


def sampler_text(sampler: str) -> str:
    """How a summary names the games the positions came from."""
    from bgsim.fast import supports
    from bots import make_player

    engine = "fast engine" if supports(make_player(sampler)) else "reference engine"
    return f"{sampler} self-play ({engine})"


def check_sampler(sampler: str, reference: bool = False, variant: str = STANDARD):
    """The sampler's player, or a ValueError (before any folder): a name no bot has, or, unless
    ``reference`` (a study whose positions may come from the reference engine, far slower), a bot
    without a fast-engine kernel (for ``variant``'s games)."""
    from bgsim.fast import supports
    from bots import make_player

    player = make_player(sampler)
    if not reference and not supports(player, variant):
        raise ValueError(f"the sampler {sampler!r} has no fast-engine kernel: choose a fast checker bot "
                         "(--judge gnubg samples any bot's games, in the reference engine)")
    return player


def sample_positions(sampler: str, count: int, seed: int, per_game: int = 3, scope: str = RACE,
                     found_more: Callable[[int], None] = lambda count: None,
                     variant: str = STANDARD) -> list[tuple[str, int]]:
    """``count`` positions of ``scope`` as (ID, game): the ID with the side on roll, the number
    of the sampling game it came from.  At most ``per_game`` come from each game of ``sampler``
    against itself (games ``0, 1, ...`` of ``seed``), chosen at random (seeded) among that game's
    positions of the scope, so long games do not crowd out the rest.  Positions of one game are
    alike (one game at several moments): the intervals take the game as their unit.  A sampler
    without a fast-engine kernel (``gnubg``, GNU Backgammon's net) plays in the reference engine,
    far slower.  ``found_more(k)`` is told as each game adds k positions (the progress bar)."""
    check_scope(scope)
    if count < 1:
        raise ValueError(f"--positions must be at least 1, got {count}")
    player = check_sampler(sampler, reference=True)
    rng = random.Random(seed)
    found: list[tuple[str, int]] = []
    number = 0
    while len(found) < count:
        chosen = [position.position_string for position in _game_positions(player, seed, number, variant)
                  if in_scope(position, scope)]
        rng.shuffle(chosen)
        kept = chosen[:max(0, min(per_game, count - len(found)))]
        found.extend((position_id, number) for position_id in kept)
        found_more(len(kept))
        number += 1
        if number > 50 * count + 1000:
            raise ValueError(f"{sampler} games give too few {scope} positions to sample {count}")
    return found[:count]


def read_positions(path: Path, scope: str = RACE, notes: list[str] | None = None,
                   variant: str = STANDARD) -> list[str]:
    """Position IDs, one a line (blank lines and ``#`` comments skipped): GNU Backgammon's
    position IDs, ``POSITIONID:MATCHID`` or XGIDs, of ``variant`` (a bare ID is read in it, a
    position string must name it), each of ``scope`` (a race, unless the scope is ``contact`` or
    ``all``).  The audit asks every money cube decision of a position itself, so a line's match
    score is refused and its cube, dice and rules are not used (``notes`` gets one line saying how
    many lines gave them)."""
    from bgsim.interchange.xgid import Xgid, read_position_text

    ids = []
    stated = 0
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError:
        raise ValueError(f"{path} is not a text file of position IDs") from None
    for number, line in enumerate(lines, 1):
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        try:
            position, state = read_position_text(text, None if "." in text else variant)
        except ValueError as error:
            raise ValueError(f"{path}, line {number}: {error}") from None
        if position.variant != variant:
            raise ValueError(f"{path}, line {number}: {text} is a position of {position.variant}, not of {variant}")
        if state is not None and state.match_to:
            raise ValueError(f"{path}, line {number}: {text} is a position of a {state.match_to}-point match; the "
                             "audit judges money cube decisions")
        if state is not None and state != Xgid(position=position):
            stated += 1
        if position.checkers_off == position.checkers or position.opponent_checkers_off == position.checkers:
            raise ValueError(f"{path}, line {number}: the game is over in {text}")
        if scope == RACE and not position.is_race:
            raise ValueError(f"{path}, line {number}: {text} is not a race (the sides are in contact)")
        if scope == CONTACT and position.is_race:
            raise ValueError(f"{path}, line {number}: {text} is a race, not a contact position")
        ids.append(position.position_string)
    if not ids:
        raise ValueError(f"{path} holds no position IDs")
    if stated and notes is not None:
        notes.append(f"{stated} line{'s' if stated != 1 else ''} of {path} give{'s' if stated == 1 else ''} a cube, "
                     "dice or rules: the audit asks every money cube decision of a position itself, so only "
                     "the board is used")
    return ids


# --- decisions -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Rule:
    name: str  # the spec as the user gave it
    bot: object


def make_rules(specs: list[str]) -> list[Rule]:
    """The cube rules of ``specs``: cube bots, or external engines (``ubgi:NAME``, declared by
    the command: ``experiments/running/engines.py``) that answer ``go cube`` and ``go take``."""
    from bots import make_cube, make_player
    from bots.ubgi import EngineCube, is_engine_spec

    if not specs:
        raise ValueError("--players needs at least one cube bot spec")
    rules = []
    for spec in specs:
        rules.append(Rule(spec, EngineCube(make_player(spec)) if is_engine_spec(spec) else make_cube(spec)))
    names = [rule.name for rule in rules]
    if len(set(names)) != len(names):
        raise ValueError(f"--players names a cube bot twice: {','.join(names)}")
    return rules


def double_verdict(truth, centred: bool, offered: bool) -> tuple[str, str, float]:
    """The best answer, the error (``""`` for none) and the equity lost per unit of the current
    cube when the side on roll of ``truth`` (:func:`bots.exact.cube_equities`) does or does not
    double (``centred``: a first double, else a redouble of its own cube).  A double is worth
    ``min(DT, 1)``: the opponent answers it at its best.  Used by the audit and by the played-out
    cross-check (``experiments/studies/cross_check.py``), so both charge a decision the same."""
    no_double = truth.no_double(centred)
    double_value = min(truth.double_take, 1.0)
    best = "double" if double_value > no_double else "no double" if no_double > double_value else "either"
    # where doubling and not doubling are worth the same (a sure win: both +1) either answer is right
    if offered and no_double > double_value:
        return best, "wrong double", no_double - double_value
    if best == "double" and not offered:
        return best, "missed double", double_value - no_double
    return best, "", 0.0


def take_verdict(truth, takes: bool) -> tuple[str, str, float]:
    """As :func:`double_verdict`, for the opponent's answer to a double of the side on roll of
    ``truth``: the taker gives up ``DT - 1`` by a wrong take and ``1 - DT`` by a wrong pass."""
    best_take = truth.should_take()
    best = "pass" if not best_take else "take" if truth.double_take < 1.0 else "either"
    if takes and not best_take:
        return best, "wrong take", truth.double_take - 1.0
    if not takes and truth.double_take < 1.0:
        return best, "wrong pass", 1.0 - truth.double_take
    return best, "", 0.0


# --- judges: the truth of a position -----------------------------------------------------------

BGSIM, GNUBG, EXACT = "bgsim", "gnubg", "exact"
JUDGES = (BGSIM, GNUBG, EXACT)
HYPERGAMMON_SOLUTION = "hypergammon solution"  # who judged a position the solution holds
NO_JACOBY, JACOBY = "no jacoby", "jacoby"
JACOBY_CHOICES = {"off": (NO_JACOBY,), "on": (JACOBY,), "both": (NO_JACOBY, JACOBY)}
EXACT_TABLES = "bgsim exact tables"
BGSIM_ESTIMATE = "bgsim estimate"
DEFAULT_PLIES = 2
PROBABILITIES = ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon")


def check_judge(judge: str, plies: int | None = None, scope: str = RACE) -> None:
    """One line for a judge bgsim does not know, a depth gnubg does not evaluate at, or a scope
    the judge cannot decide."""
    from experiments.analysis.gnubg_program import check_plies

    if judge not in JUDGES:
        raise ValueError(f"unknown judge {judge!r}: choose bgsim (exact bear-off tables, else "
                         "estimates), gnubg (GNU Backgammon's program) or, with --variant hypergammonN, exact "
                         "(its solution)")
    if judge == GNUBG and plies is not None:
        check_plies(plies)
    check_scope(scope)
    if judge == EXACT:
        return
    if judge == BGSIM and scope != RACE:
        raise ValueError(f"--{scope} needs --judge gnubg: outside races bgsim's own truth is the nn "
                         "net's Janowski estimate, the very nn rule under audit")


def judge_label(judge: str, plies: int | None) -> str:
    """What ``judged_by`` calls the truth of a position the two-sided database does not hold."""
    return f"gnubg {plies}-ply" if judge == GNUBG else BGSIM_ESTIMATE


def jacoby_conditions(choice: str) -> tuple[str, ...]:
    if choice not in JACOBY_CHOICES:
        raise ValueError(f"--jacoby must be off, on or both, got {choice!r}")
    return JACOBY_CHOICES[choice]


@dataclass(frozen=True)
class Truth:
    """A judge's answer for one position (side on roll) under one condition: the equities per unit
    of the cube (:class:`bots.exact.CubeEquities`: no double centred and owned, double/take; a
    pass is worth 1), who decided (``judged_by``) and GNU Backgammon's category of the centred
    and of the owned cube (:data:`experiments.analysis.gnubg_program.CATEGORIES`)."""

    equities: object
    judged_by: str
    category: str
    category_owned: str


def _category(equities, no_double: float) -> str:
    from experiments.analysis.gnubg_program import category_of

    return category_of(no_double, equities.double_take, 1.0, equities.probabilities[1] > 0.0)


def bgsim_truth(position: Position, condition: str = NO_JACOBY) -> Truth:
    """bgsim's truth: exact where the two-sided database holds the position, else its estimate
    (:func:`bots.exact.cube_equities`); categories by GNU Backgammon's rules on those equities."""
    from bots.exact import EXACT, cube_equities

    equities = cube_equities(position, jacoby_centred=condition == JACOBY)
    return Truth(equities, EXACT_TABLES if equities.source == EXACT else BGSIM_ESTIMATE,
                 _category(equities, equities.centred), _category(equities, equities.owned))


def hypergammon_truth(position: Position, condition: str = NO_JACOBY) -> Truth:
    """The exact truth of a hypergammon position (``bots.exact.hypergammon_equities``: its
    solution); categories by GNU Backgammon's rules on those equities."""
    from bots.exact import hypergammon_equities

    equities = hypergammon_equities(position, jacoby_centred=condition == JACOBY)
    return Truth(equities, HYPERGAMMON_SOLUTION, _category(equities, equities.centred),
                 _category(equities, equities.owned))


def gnubg_truths(position_ids: list[str], conditions=(NO_JACOBY,), plies: int = DEFAULT_PLIES,
                 jobs: int = 1) -> list[dict[str, Truth]]:
    """The truth of each position under each condition: bgsim's exact tables where they hold it,
    else GNU Backgammon's program at ``plies``, all positions in one batch (``jobs`` processes).
    Each position asks gnubg about the centred cube under each condition and the cube it owns
    (the Jacoby rule does not touch an owned cube); the double/take is the centred cube's."""
    from bgsim.interchange.xgid import ON_ROLL, Xgid
    from bots.exact import EXACT, CubeEquities, cube_equities
    from experiments.analysis.gnubg_program import cube_decisions

    positions = [Position.from_position_id(position_id) for position_id in position_ids]
    found: list[dict[str, Truth] | None] = []
    states, asked = [], []
    for position in positions:
        if cube_equities(position).source == EXACT:
            found.append({condition: bgsim_truth(position, condition) for condition in conditions})
            continue
        found.append(None)
        asked.append(len(found) - 1)
        states += [Xgid(position=position, jacoby=condition == JACOBY) for condition in conditions]
        states.append(Xgid(position=position, cube_value=2, cube_owner=ON_ROLL))
    answers = cube_decisions(states, plies, jobs=jobs) if states else []
    per = len(conditions) + 1
    label = judge_label(GNUBG, plies)
    for number, index in enumerate(asked):
        *centred, owned = answers[number * per:(number + 1) * per]
        truths = {}
        for condition, answer in zip(conditions, centred):
            equities = CubeEquities(answer.no_double, owned.no_double, answer.double_take, answer.chances,
                                    label, math.nan)
            truths[condition] = Truth(equities, label, answer.category, owned.category)
        found[index] = truths
    return found


def cube_truths(requests, judge: str = GNUBG, plies: int = DEFAULT_PLIES, jobs: int = 1) -> dict:
    """The truth of each (position ID, centred) of ``requests`` (no Jacoby rule): bgsim's exact
    tables where they hold the position, else ``judge`` asked about that one cube (centred, or
    owned by the side on roll).  A dict from the request to (:class:`bots.exact.CubeEquities`,
    who judged); a gnubg answer fills only the no-double equity of the cube it was asked about
    (the other is NaN: a decision of that cube never reads it)."""
    from bgsim.interchange.xgid import ON_ROLL, Xgid
    from bots.exact import CubeEquities
    from experiments.analysis.gnubg_program import cube_decisions

    found, asked = {}, []
    for position_id, centred in dict.fromkeys(requests):
        truth = bgsim_truth(Position.from_position_id(position_id))
        if judge == BGSIM or truth.judged_by == EXACT_TABLES:
            found[(position_id, centred)] = (truth.equities, truth.judged_by)
        else:
            asked.append((position_id, centred))
    states = [Xgid(position=Position.from_position_id(position_id)) if centred else
              Xgid(position=Position.from_position_id(position_id), cube_value=2, cube_owner=ON_ROLL)
              for position_id, centred in asked]
    label = judge_label(GNUBG, plies)
    for request, answer in zip(asked, cube_decisions(states, plies, jobs=jobs) if states else []):
        no_double = (answer.no_double, math.nan) if request[1] else (math.nan, answer.no_double)
        found[request] = (CubeEquities(*no_double, answer.double_take, answer.chances, label, math.nan), label)
    return found


def truth_rows(position_id: str, truths: dict[str, Truth]) -> list[dict]:
    """truths.parquet's rows of one position: one a condition."""
    rows = []
    for condition, truth in truths.items():
        equities = truth.equities
        rows.append({"position_id": position_id, "condition": condition, "judged_by": truth.judged_by,
                     "estimator": equities.source, "no_double": equities.centred,
                     "no_double_owned": equities.owned, "double_take": equities.double_take,
                     **dict(zip(PROBABILITIES, equities.probabilities)),
                     "category": truth.category, "category_owned": truth.category_owned})
    return rows


def truths_of(frame: pd.DataFrame) -> list[tuple[int, str, dict[str, Truth]]]:
    """The truths of truths.parquet again, a position at a time in its order: (position_index,
    position ID, truth by condition)."""
    from bots.exact import CubeEquities

    out: list[tuple[int, str, dict[str, Truth]]] = []
    for row in frame.itertuples(index=False):
        equities = CubeEquities(row.no_double, row.no_double_owned, row.double_take,
                                tuple(float(getattr(row, name)) for name in PROBABILITIES), row.estimator, math.nan)
        truth = Truth(equities, row.judged_by, row.category, row.category_owned)
        if out and out[-1][0] == row.position_index:
            out[-1][2][row.condition] = truth
        else:
            out.append((int(row.position_index), row.position_id, {row.condition: truth}))
    return out


# --- the rules' decisions, charged -------------------------------------------------------------


def _cubes(condition: str) -> tuple[CubeView, CubeView]:
    jacoby = condition == JACOBY
    return replace(CENTRED, jacoby=jacoby), replace(OWNED, jacoby=jacoby)


class CountedPosition(Position):
    """A position that counts its pips once: a threshold sweep asks dozens of rules about each,
    and every pip rule counts them again."""

    def __post_init__(self) -> None:
        super().__post_init__()
        from bgsim.board import is_race, pip_counts

        object.__setattr__(self, "_pips", pip_counts(self.board))
        object.__setattr__(self, "_race", is_race(self.board))

    @property
    def pip_count(self) -> int:
        return self._pips[0]

    @property
    def opponent_pip_count(self) -> int:
        return self._pips[1]

    @property
    def is_race(self) -> bool:
        return self._race


def decisions(position: Position, rules: list[Rule], truths: dict[str, Truth]):
    """Every decision of every rule that speaks in ``position`` (a rule of races only,
    ``race_only``, is not asked in contact), under each condition of ``truths``, charged: tuples
    (condition, truth, rule, question, category, answer, best, error, equity lost)."""
    kind = kind_of(position)
    standard = position.as_standard() if position.variant != STANDARD else position
    for condition, truth in truths.items():
        equities = truth.equities
        centred, owned = _cubes(condition)
        for rule in rules:
            if getattr(rule.bot, "race_only", False) and kind != RACE:
                continue
            # each rule is shown the position as it would be in a game (bots.registry.BotPlayer)
            shown = position if getattr(rule.bot, "sees_variants", False) else standard
            for question, cube, category in (("double", centred, truth.category),
                                             ("redouble", owned, truth.category_owned)):
                offered = bool(rule.bot.offer_double(shown, cube))
                best, error, lost = double_verdict(equities, question == "double", offered)
                yield condition, truth, rule, question, category, "double" if offered else "no double", best, error, lost
            takes = rule.bot.respond(shown, centred) in (Response.TAKE, Response.BEAVER)
            best, error, lost = take_verdict(equities, takes)
            yield condition, truth, rule, "take", truth.category, "take" if takes else "pass", best, error, lost


def judge(position_id: str, rules: list[Rule], conditions=(NO_JACOBY,),
          truths: dict[str, Truth] | None = None) -> list[dict]:
    """The decision rows of one position (:func:`decisions`); the truth is ``truths`` where
    given, else bgsim's (:func:`bgsim_truth`) under each of ``conditions``."""
    position = Position.from_string(position_id)
    if truths is None:
        truths = {condition: bgsim_truth(position, condition) for condition in conditions}
    pips = position.pip_count
    common = {"position_id": position_id, "pips": pips, "opponent_pips": position.opponent_pip_count,
              "bucket": bucket_of(pips), "kind": kind_of(position)}
    bases = {}
    for condition, truth in truths.items():
        equities = truth.equities
        exact = truth.judged_by == EXACT_TABLES
        bases[condition] = {
            **common, "condition": condition,
            "truth": "exact" if exact or truth.judged_by == HYPERGAMMON_SOLUTION
                     else "gnubg" if truth.judged_by.startswith(GNUBG) else "estimated",
            "estimator": equities.source, "judged_by": truth.judged_by, "centred": equities.centred,
            "owned": equities.owned, "double_take": equities.double_take, "win": equities.probabilities[0],
            "window": WINDOW[0] <= equities.probabilities[0] <= WINDOW[1],
        }
    return [{**bases[condition], "category": category, "rule": rule.name, "question": question, "answer": answer,
             "best": best, "error": error, "equity_lost": lost}
            for condition, _, rule, question, category, answer, best, error, lost
            in decisions(position, rules, truths)]


def charge(truths: pd.DataFrame, rules: list[Rule]) -> pd.DataFrame:
    """The decision rows of ``rules`` on judged positions (truths.parquet: the truth of each
    position and condition, with its position_index and sampling game), without asking any judge
    again: the rows the audit would have written for these rules."""
    games = truths.drop_duplicates("position_index").set_index("position_index")["game"]
    rows = []
    for index, position_id, truths_here in truths_of(truths):
        game = games.loc[index]
        for row in judge(position_id, rules, tuple(truths_here), truths_here):
            rows.append({**row, "position_index": index, "game": None if pd.isna(game) else int(game)})
    frame = pd.DataFrame(rows)
    if len(frame):
        frame["game"] = frame["game"].astype("Int64")
    return frame


# --- intervals over sampling games ----------------------------------------------------------


def units(frame: pd.DataFrame) -> pd.Series:
    """The independent unit of each decision row for the intervals: its sampling game where the
    rows record one, else its position (its place in the audit's list; rows without one, as
    :func:`judge` returns them, fall back to the position ID).  A position's three questions
    share one truth and one pip count, and a game's positions are one race at several lengths:
    counting every decision as independent would make the intervals too narrow."""
    if "game" in frame and "position_index" in frame:
        return frame["game"].astype("Float64").fillna(-1.0 - frame["position_index"].astype("Float64"))
    if "position_index" in frame:
        return frame["position_index"]
    return frame["position_id"]


def clustered(values, unit) -> tuple[float, float]:
    """The mean of ``values`` (per decision) and the half-width of its 95% interval, taking the
    units (see :func:`units`) as the independent draws: the cluster-robust (linearised ratio)
    variance ``G/(G-1) * sum_g (S_g - mean*n_g)^2 / N^2`` over the G units, S_g and n_g being a
    unit's sum and count of decisions.  With one decision per unit it is the usual s^2/N;
    repeating every unit's rows leaves it unchanged."""
    return clustered_codes(values, pd.factorize(np.asarray(unit))[0])


def clustered_codes(values, codes) -> tuple[float, float]:
    """:func:`clustered` with the units given as codes 0 .. G-1 (``pandas.factorize``), which a
    caller asking many questions of the same rows computes once."""
    values = np.asarray(values, dtype=float)
    n = len(values)
    if n == 0:
        return math.nan, math.nan
    mean = float(values.mean())
    residuals = np.bincount(codes, weights=values - mean)
    count = len(residuals)
    if count < 2:
        return mean, math.nan
    variance = count / (count - 1) * float((residuals ** 2).sum()) / n ** 2
    return mean, Z95 * math.sqrt(variance)


def paired(frame: pd.DataFrame, first: str, second: str) -> dict | None:
    """``first`` minus ``second`` on the decisions both rules answered (same position, same
    question): the differences in error rate and in equity lost per decision, each with its 95%
    interval over the units of :func:`units`.  Pairing removes what the positions share (a hard
    sample is hard for both rules), which two separate intervals would count twice.  None where
    either rule has no decisions here."""
    key = ["position_index", "question"] if "position_index" in frame else ["position_id", "question"]
    if "condition" in frame:
        key.append("condition")
    a = frame[frame["rule"] == first]
    b = frame[frame["rule"] == second]
    both = a.merge(b[key + ["error", "equity_lost"]], on=key, suffixes=("", "_other"), validate="one_to_one")
    if both.empty:
        return None
    unit = units(both)
    lost, lost_half = clustered(both["equity_lost"] - both["equity_lost_other"], unit)
    rate, rate_half = clustered((both["error"] != "").astype(float) - (both["error_other"] != "").astype(float), unit)
    return {"decisions": len(both), "units": int(unit.nunique()),
            "error_rate": float((both["error"] != "").mean()),
            "error_rate_other": float((both["error_other"] != "").mean()),
            "equity_lost": float(both["equity_lost"].mean()),
            "equity_lost_other": float(both["equity_lost_other"].mean()),
            "rate_difference": rate, "rate_low": rate - rate_half, "rate_high": rate + rate_half,
            "lost_difference": lost, "lost_low": lost - lost_half, "lost_high": lost + lost_half}


def _verdict(low: float, high: float, first: str, second: str, less: str) -> str:
    if low > 0:
        return f"{second} {less}"
    if high < 0:
        return f"{first} {less}"
    return "not settled by this sample"  # the interval holds 0 (or could not be formed)


def _beats(frame: pd.DataFrame, first: str, second: str) -> str | None:
    """A sentence comparing two rules on the same decisions (paired), or None if one is missing."""
    found = paired(frame, first, second)
    if found is None:
        return None
    if found["rate_low"] == found["rate_high"] == 0 and found["lost_low"] == found["lost_high"] == 0:
        return (f"{first} v {second}: no difference on any of the {found['decisions']:,} paired "
                "decisions (the same errors at the same cost)")
    return (f"{first} v {second} ({found['decisions']:,} paired decisions): error rate "
            f"{100 * found['error_rate']:.2f}% v {100 * found['error_rate_other']:.2f}%, difference "
            f"{100 * found['rate_difference']:+.2f} points (95% interval {100 * found['rate_low']:+.2f} .. "
            f"{100 * found['rate_high']:+.2f}: "
            f"{_verdict(found['rate_low'], found['rate_high'], first, second, 'errs less often')}); "
            f"equity lost {milli(found['equity_lost'])} v {milli(found['equity_lost_other'])} thousandths "
            f"per decision, difference {1000 * found['lost_difference']:+.2f} (95% interval "
            f"{1000 * found['lost_low']:+.2f} .. {1000 * found['lost_high']:+.2f}: "
            f"{_verdict(found['lost_low'], found['lost_high'], first, second, 'loses less')})")
