"""Both engines play the same games (``bgsim validate``): proof that they are the same.

Every case (a pairing of players under some rule options, money or match play) is played by the
fast engine and by the reference engine (in worker processes, it is the slow side) and the rows
are compared row for row, column for column.  Then legal plays are compared on random
positions for all 21 rolls.  On the first difference the game is replayed in both engines with
traces and the ply where they part is printed.  Any difference exits with status 1.  The default
cases are sized by what they cost (:data:`GAME_COST`), run one of each kind first, and the time
left is learnt from the cases that finished (``experiments.running.progress.remaining_seconds``).
"""

from __future__ import annotations

import re
import time
import zlib

import pandas as pd

from bgsim.cube import Rules
from bgsim.variants import VARIANTS
from bots.params import format_value
from experiments.running.progress import duration, remaining_seconds
from experiments.running.workers import fresh_pool, worker_pool

# (white, black, rules, match_to).  The rule options, each played by pairings that use it:
AGGRESSIVE = "pipdiff(double=2,redouble=3,take=20)"
RULE_CASES = (
    ("heuristic+pipdiff(race_only=true)", "pubeval+never-take", Rules(), 0),
    ("random+" + AGGRESSIVE, "heuristic+pipdiff(double=5,redouble=6,take=30)",
     Rules(jacoby=True, beaver=True, automatic_doubles=1, max_cube=16), 0),
    ("pubeval+" + AGGRESSIVE, "racer+pipdiff(double=10,redouble=10,take=15)",
     Rules(automatic_doubles=2, max_cube=4, backgammon_as_gammon=True), 0),
    # Beavers played, not just allowed: white doubles on 2 pips, both sides beaver small leads,
    # and max_cube=8 refuses the beavers of a cube already on 2.
    ("racer+pipdiff(double=2,redouble=3,take=20,beaver=5)",
     "heuristic+pipdiff(double=4%,redouble=5%,take=25%,beaver=8%)", Rules(beaver=True, max_cube=8), 0),
    ("heuristic+thorp", "pubeval+pipdiff", Rules(cube=False), 0),
    ("heuristic+" + AGGRESSIVE, "pubeval+pipdiff(double=6,redouble=8,take=14)", Rules(), 5),
)


# The fast bots the derived cases were first dealt to, in the registries' order of then: their
# pairings are dealt round these lists as they always were, whatever is registered later.  A bot
# registered after them gets cases of its own, its partners drawn by its own name
# (:func:`partners`), so adding a bot adds its cases and changes no existing one.  A bot removed
# from the registries leaves the deal (its neighbours' pairings move up).
DEALT = {
    "checker": ("random", "racer", "heuristic", "pubeval", "nn"),
    "cube": ("pipdiff", "keith", "thorp", "always-take", "never-take", "none", "rule62", "kleinman", "isight",
             "epc", "exact", "nn"),
}


def partners(name: str, pool, count: int = 2) -> list[str]:
    """``count`` members of ``pool`` drawn for the bot ``name`` by a hash of its name alone
    (CRC-32: the same in every process), distinct while the pool has enough of them."""
    pool = list(pool)
    drawn: list[str] = []
    for k in range(count):
        left = [member for member in pool if member not in drawn] or pool
        drawn.append(left[zlib.crc32(f"{name}/{k}".encode()) % len(left)])
    return drawn


def _dealt_and_new(role: str, plays=lambda layout: True) -> tuple[list[str], list[str]]:
    """(the dealt fast bots of ``role`` still registered, in the deal's order; those registered
    after the deal, in the registry's), each kept where ``plays(its fast layout's name)``."""
    from bots.registry import fast_names

    registered = [name for name, layout in fast_names(role).items() if plays(layout)]
    dealt = [name for name in DEALT[role] if name in registered]
    return dealt, [name for name in registered if name not in DEALT[role]]


def _money_cases(checkers: list[str], cubes: list[str], rules: Rules, dealt: tuple[list[str], list[str]],
                 new: tuple[list[str], list[str]]) -> list[tuple[str, str, Rules, int]]:
    """The money pairings of :func:`bot_cases` (and of each variant's): dealt round the lists,
    then each new bot's own (a checker bot against itself with its capabilities switched, a cube
    bot against itself with other checker bots), its partners drawn by its name."""
    from bots.registry import switched_spec

    count = max(len(checkers), len(cubes))
    cases = [(f"{checkers[i % len(checkers)]}+{cubes[i % len(cubes)]}",
              f"{checkers[(i + 1) % len(checkers)]}+{cubes[(i + 1) % len(cubes)]}", rules, 0)
             for i in range(count)]
    dealt_checkers, dealt_cubes = dealt
    for name in new[0]:
        first, second = partners(name, dealt_cubes)
        cases.append((f"{name}+{first}", f"{switched_spec('checker', name, money=True) or name}+{second}", rules, 0))
    for name in new[1]:
        first, second = partners(name, dealt_checkers)
        cases.append((f"{first}+{name}", f"{second}+{name}", rules, 0))
    return cases


def bot_cases() -> list[tuple[str, str, Rules, int]]:
    """Every registered bot that claims a fast kernel, with every capability of its layout
    switched on and off, in both seats, derived from the registries and ``bgsim/layouts.py``.

    Money: checker bot i with cube bot i plays checker bot i+1 with cube bot i+1 (both lists of
    :data:`DEALT` taken round, default rules), the checker bots listed at their defaults and then
    each with the capabilities that change a money game switched (``bearoff=true``).  Then every
    cube bot at its defaults in 5-point matches against the next one with its capabilities
    switched (``score_aware=false``).  A bot registered after the deal gets its own: a checker
    bot plays itself switched, a cube bot plays itself between two checker bots, and in matches
    itself switched (or, with nothing to switch, a dealt one switched), its partners drawn by
    its name.  A bot added to a registry, or a capability to a layout, is compared with the
    reference engine without anyone adding it here, and no other case changes.
    """
    from bots.registry import switched_spec

    (checkers, new_checkers), (cubes, new_cubes) = _dealt_and_new("checker"), _dealt_and_new("cube")
    dealt = (list(checkers), list(cubes))
    checkers += [spec for spec in (switched_spec("checker", name, money=True) for name in checkers) if spec]
    cubes += [spec for spec in (switched_spec("cube", name, money=True) for name in cubes) if spec]
    money = _money_cases(checkers, cubes, Rules(), dealt, (new_checkers, new_cubes))
    # heuristic checker play: quick, and it reaches races, where the race counts judge
    cubes = dealt[1]
    match = [(f"heuristic+{cube}",
              "heuristic+" + (switched_spec("cube", cubes[(i + 1) % len(cubes)], money=False)
                              or cubes[(i + 1) % len(cubes)]), Rules(), MATCH_CASE_LENGTH)
             for i, cube in enumerate(cubes)]
    switchable = [cube for cube in cubes if switched_spec("cube", cube, money=False)]
    for name in new_cubes:
        other = switched_spec("cube", name, money=False) or switched_spec("cube", partners(name, switchable, 1)[0],
                                                                          money=False)
        match.append((f"heuristic+{name}", f"heuristic+{other}", Rules(), MATCH_CASE_LENGTH))
    return money + match + alternative_cases(STANDARD_RULES)


STANDARD_RULES = Rules()


def alternative_cases(rules: Rules) -> list[tuple[str, str, Rules, int]]:
    """A case for each layout that a registered bot takes by its parameters instead of its own
    (``fast_alternatives``, e.g. ``nn(plies=1)``'s ``nn-ahead``) in each game the layout
    plays: that bot against dealt ones, drawn by the layout's name, and in the standard game
    once more with the layout's capabilities switched (``bearoff=true``)."""
    from bgsim.layouts import fast_bots
    from bgsim.variants import DEFINITIONS
    from bots.registry import checker_bots, cube_bots

    game = rules.variant
    with_cube = DEFINITIONS[game].cube

    def dealt(role):
        return [name for name in DEALT[role] if game in fast_bots(role)[name].variants]

    cases = []
    for role, registered in (("checker", checker_bots()), ("cube", cube_bots())):
        for name, bot in registered.items():
            defaults = {param.key: param.default for param in bot.PARAMS}
            for layout_name, arguments in bot.fast_alternatives.items():
                layout = fast_bots(role)[layout_name]
                if game not in layout.variants or (role == "cube" and not with_cube):
                    continue
                plain = f"{name}({arguments})"
                # white plays it as it is, black with its capabilities switched (in the standard
                # game: elsewhere as it is), so it plays in both seats
                switched = plain
                if game == STANDARD_RULES.variant and layout.switches:
                    switched = f"{name}({arguments}," + ",".join(
                        f"{switch.name}={format_value(not defaults[switch.name])}"
                        for switch in layout.switches if switch.in_money) + ")"
                if role == "cube":
                    first, second = partners(layout_name, dealt("checker"))
                    cases.append((f"{first}+{plain}", f"{second}+{switched}", rules, 0))
                    continue
                other = partners(layout_name, dealt("checker"), 1)[0]
                if not with_cube:
                    cases += [(plain, other, rules, 0), (other, switched, rules, 0)]
                    continue
                first, second = partners(layout_name, dealt("cube"))
                cases += [(f"{plain}+{first}", f"{other}+{second}", rules, 0),
                          (f"{other}+{first}", f"{switched}+{second}", rules, 0)]
    return cases


MATCH_CASE_LENGTH = 5


# Hypergammon whose solution exact would build first, a minute (2 checkers) to hours (3): validate
# plays exact there without it; hypergammon1's (seconds) shows the solution's path in both engines
UNSOLVED_HERE = ("hypergammon2", "hypergammon3")


def _without_solution(spec: str) -> str:
    """``spec`` (checker+cube) with each ``exact`` in it told to play without hypergammon's solution."""
    from bots.registry import parse_bot, split_top_level

    parts = []
    for part in split_top_level(spec, "+"):
        if parse_bot(part)[0] == "exact":
            part = "exact(tables=false)" if part == "exact" else part[:-1] + ",tables=false)"
        parts.append(part)
    return "+".join(parts)


def variant_cases() -> list[tuple[str, str, Rules, int]]:
    """Every variant (``bgsim.variants``) with every fast bot whose layout lists it
    (``bgsim/layouts.py``, ``variants``), in both seats, derived from the registries as
    :func:`bot_cases`: checker bot i with cube bot i plays checker bot i+1 with cube bot i+1, the
    checker bots listed at their defaults and then with ``bearoff=true`` (hypergammon is soon a
    bear-off), then each bot registered after the deal with its own partners.  Acey-deucey has
    no cube: its checker bots alone, each choosing its double after every 1-2 (chained turns
    and forfeited extra rolls come with the games).  In :data:`UNSOLVED_HERE`, ``exact`` plays
    without hypergammon's solution (``tables=false``)."""
    from bgsim.layouts import fast_bots
    from bgsim.variants import DEFINITIONS, STANDARD
    from bots.registry import switched_spec

    cases = []
    for name, variant in DEFINITIONS.items():
        if name == STANDARD:
            continue
        rules = Rules(variant=name)
        checkers, new_checkers = _dealt_and_new("checker", lambda bot: name in fast_bots("checker")[bot].variants)
        cubes, new_cubes = (_dealt_and_new("cube", lambda bot: name in fast_bots("cube")[bot].variants)
                            if variant.cube else ([], []))
        dealt = (list(checkers), list(cubes))
        checkers += [spec for spec in (switched_spec("checker", bot, money=True) for bot in checkers) if spec]
        if not cubes:
            cases += [(checkers[i], checkers[(i + 1) % len(checkers)], rules, 0) for i in range(len(checkers))]
            cases += [(bot, switched_spec("checker", bot, money=True) or bot, rules, 0) for bot in new_checkers]
            continue
        found = _money_cases(checkers, cubes, rules, dealt, (new_checkers, new_cubes))
        found += alternative_cases(rules)
        if name in UNSOLVED_HERE:  # its solution takes long to build: exact plays on its estimates
            found = [(_without_solution(white), _without_solution(black), rules, match_to)
                     for white, black, rules, match_to in found]
        cases += found
    return cases


# What a game of each kind of case costs: (plies a game, milliseconds a ply).  The plies and the
# first milliseconds were measured in the reference engine, a few games of every default case on
# one core of a 2-core Xeon under load (commit 8c38530); the milliseconds were then scaled by the
# pace each kind kept in two whole default runs (its fast side, comparison and first-case loading
# included; the geometric mean of the two), so that all kinds share one scale.  They size the
# default cases (:func:`case_games`) and are the prior of the time-left estimate, which learns
# each kind's real pace as its cases finish (``experiments.running.progress.remaining_seconds``).
# A kind missing here costs as the kind it extends (``"dutch, matches"`` as ``"dutch"``), at
# worst as the standard game.
GAME_COST = {
    "standard": (51, 0.80), "standard, nn": (52, 1.6), "standard, matches": (208, 1.3),
    "nackgammon": (66, 1.3), "nackgammon, nn": (70, 1.5),
    "hypergammon1": (5.2, 0.26), "hypergammon1, nn": (5.8, 0.28), "hypergammon2": (15, 0.38),
    "hypergammon2, nn": (16, 0.43), "hypergammon3": (23, 0.48), "hypergammon3, nn": (23, 0.66),
    "dutch": (95, 2.0), "dutch, nn": (100, 2.7),
    "acey-deucey": (106, 3.8), "acey-deucey, nn": (130, 13.0),
    # nn(plies=1) against racer, scaled from nn's cost by the ratio of the two measured side by
    # side in the reference engine (17x, 30x, 13x on standard, nackgammon, hypergammon2)
    "standard, nn, ahead": (57, 27.0), "nackgammon, nn, ahead": (80, 45.0),
    "hypergammon1, nn, ahead": (6, 3.5), "hypergammon2, nn, ahead": (18, 5.5),
    "hypergammon3, nn, ahead": (23, 10.0),
    "chouette of 3": (48, 0.97), "chouette of 4": (47, 0.72), "chouette of 10": (60, 1.3),
    # games from random positions (``_compare_starts``), both engines here, not in the workers
    "starts": (17, 0.36), "starts, given": (25, 0.21), "starts of dutch, given": (12, 0.86),
    "starts of acey-deucey": (85, 1.4),
}
# Legal plays compared on one random position for all 21 rolls, both engines (milliseconds, on the
# same scale).
POSITION_COST = {"standard": 41, "nackgammon": 29, "hypergammon1": 1.4, "hypergammon2": 1.4,
                 "hypergammon3": 1.4, "dutch": 26, "acey-deucey": 50}


def game_cost(kind: str) -> tuple[float, float]:
    """(plies, seconds) of a game of ``kind``, on :data:`GAME_COST`'s scale."""
    while kind not in GAME_COST and ", " in kind:
        kind = kind.rsplit(", ", 1)[0]
    plies, milliseconds = GAME_COST.get(kind, GAME_COST["standard"])
    return plies, plies * milliseconds / 1000


def case_kind(white_spec: str, black_spec: str, rules: Rules, match_to: int) -> str:
    """The kind of a case for its cost: its variant, matches or money, and whether ``nn`` plays
    the checkers (a net evaluation of every play is what slows the reference engine most)."""
    from bots.registry import parse_bot, split_top_level

    parsed = [parse_bot(split_top_level(spec, "+")[0]) for spec in (white_spec, black_spec)]
    checkers = {name for name, _ in parsed}
    # nn's 1-ply search (nn-ahead) asks the net of every reply to its best plays
    ahead = any(name == "nn" and arguments.get("plies", "0") != "0" for name, arguments in parsed)
    return (rules.variant + (", matches" if match_to else "") + (", nn" if "nn" in checkers else "")
            + (", ahead" if ahead else ""))


def case_games(games: int, kind: str) -> int:
    """How many games (matches, chouette games) a default case of ``kind`` plays for ``games``
    (``--games``): as long in the reference engine as ``games`` standard money games, at least
    one.  So a case of long or slow games (matches, acey-deucey with ``nn``) plays fewer, one of
    short games (hypergammon) more, and each case proves about as much as it costs."""
    return max(1, round(games * game_cost("standard")[1] / game_cost(kind)[1]))


def default_cases() -> list[tuple[str, str, Rules, int]]:
    """Every fast bot (from the registries), every rule option and every variant: ``bgsim
    validate``'s cases."""
    return bot_cases() + list(RULE_CASES) + variant_cases()


# Chouettes (bgsim.chouette): (the players' specs, rules, cube regime).
CHOUETTE_SIZES = (3, 4, 10)
CHOUETTE_RULE_CASES = (
    # beavers, the Jacoby rule, automatic doubles and a low cube limit, in both regimes: members
    # who double on small leads and beaver small deficits
    (("racer+pipdiff(double=2,redouble=3,take=20,beaver=5)", "heuristic+pipdiff(double=4%,redouble=5%,take=25%,beaver=8%)",
      "random+" + AGGRESSIVE, "pubeval+pipdiff(double=6,redouble=8,take=14)"),
     Rules(jacoby=True, beaver=True, automatic_doubles=2, max_cube=16), "team"),
    (("heuristic+" + AGGRESSIVE, "racer+pipdiff(double=2,redouble=3,take=20,beaver=5)",
      "pubeval+pipdiff(double=4%,redouble=5%,take=25%,beaver=8%)"),
     Rules(jacoby=True, beaver=True, automatic_doubles=1, max_cube=8, backgammon_as_gammon=True), "individual"),
)


def chouette_cases() -> list[tuple[tuple[str, ...], Rules, str]]:
    """Chouettes of 3, 4 and 10 players under each cube regime, derived from the registries: the
    dealt fast checker bots and cube bots (:data:`DEALT`) are dealt round the seats in order
    (player i of the k-th seat dealt is checker bot k and cube bot k, both lists taken round), the
    deal going on from one chouette to the next, so that each regime seats every fast cube bot;
    then a 3-player chouette under each regime for each bot registered after the deal, in the
    box, its partners drawn by its name; then the rule options (``CHOUETTE_RULE_CASES``).  Only
    the bots whose layout says ``chouette`` (``bgsim/layouts.py``) are seated."""
    from bgsim.chouette import CUBE_REGIMES
    from bgsim.layouts import fast_bots

    (checkers, new_checkers), (cubes, new_cubes) = (
        _dealt_and_new(role, lambda bot, role=role: fast_bots(role)[bot].chouette) for role in ("checker", "cube"))
    cases, dealt = [], 0
    for regime in CUBE_REGIMES:
        for size in CHOUETTE_SIZES:
            specs = tuple(f"{checkers[(dealt + i) % len(checkers)]}+{cubes[(dealt + i) % len(cubes)]}"
                          for i in range(size))
            dealt += size
            cases.append((specs, Rules(), regime))
    for regime in CUBE_REGIMES:
        for name in new_checkers:
            cube, *others = partners(name, cubes, 3)
            cases.append(((f"{name}+{cube}", *(f"{checker}+{other}" for checker, other in
                                               zip(partners(name, checkers), others))), Rules(), regime))
        for name in new_cubes:
            checker, *others = partners(name, checkers, 3)
            cases.append(((f"{checker}+{name}", *(f"{other}+{cube}" for other, cube in
                                                  zip(others, partners(name, cubes)))), Rules(), regime))
    return cases + list(CHOUETTE_RULE_CASES)


def _chouette_text(specs, rules: Rules, regime: str) -> str:
    return f"{len(specs)}-player chouette, {regime} cubes, {_rules_text(rules)}: {', '.join(specs)}"


def _reference_chouette(specs, seed, games, rules, regime):
    from bgsim.chouette_sessions import play_chouettes
    from bots import make_player

    return play_chouettes([make_player(spec) for spec in specs], seed, games, rules, regime, engine="reference")


def _cpu_text() -> str:
    """Processor seconds of this process and of its finished workers: beside the wall time, what
    the run cost whatever else the machine was doing."""
    try:
        import resource
    except ImportError:  # not on Windows
        return "processor time unknown here"
    here, workers = (usage.ru_utime + usage.ru_stime for usage in
                     (resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)))
    return f"{here + workers:,.0f} CPU-seconds: {here:,.0f} here, {workers:,.0f} in the workers"


class _Clock:
    """What validate has done and has left, for the time-left line: each step (a case, a chouette,
    games from random positions, legal plays) with its kind and the seconds the cost model
    expects of it here (:data:`GAME_COST`: on ``jobs`` workers when the workers play it), and the
    seconds each finished step took, counted from the end of the one before (the workers run
    ahead, so a step's own time is what it added)."""

    def __init__(self, steps: list[tuple[str, float]]) -> None:
        self.left = list(steps)
        self.done: list[tuple[str, float, float]] = []
        self.started = self.last = time.perf_counter()

    def finished(self) -> None:
        now = time.perf_counter()
        kind, expected = self.left.pop(0)
        self.done.append((kind, expected, now - self.last))
        self.last = now

    def line(self, what_left: str) -> str:
        seconds = remaining_seconds(self.done, self.left)
        # tenths of a minute: whole minutes would hide a 25% error in the last few
        text = f"{seconds / 60:.1f} min" if 90 <= seconds < 600 else duration(seconds)
        return f"  about {text} left for {what_left}"


def _compare_chouettes(pool, cases, counts, seed: int, clock: _Clock):
    """Every chouette case in both engines, ``counts`` games each (the reference sessions in
    ``pool`` when there is one): (rows, plies) that agreed, or None after printing the first
    difference and its ply."""
    from bgsim.chouette import Seating
    from bgsim.chouette_sessions import play_chouettes
    from bgsim.fast.sameness import compare_frames, explain_chouette
    from bots import make_player

    futures = [pool.submit(_reference_chouette, specs, seed, games, rules, regime) if pool else None
               for (specs, rules, regime), games in zip(cases, counts)]
    rows = plies = 0
    for number, ((specs, rules, regime), games, future) in enumerate(zip(cases, counts, futures), 1):
        what = _chouette_text(specs, rules, regime)
        print(f"chouette case {number}/{len(cases)}: {what} ...", flush=True)
        players = [make_player(spec) for spec in specs]
        started = time.perf_counter()
        fast = play_chouettes(players, seed, games, rules, regime, engine="fast")
        fast_seconds = time.perf_counter() - started
        started = time.perf_counter()
        reference = future.result() if future else _reference_chouette(specs, seed, games, rules, regime)
        reference_seconds = time.perf_counter() - started
        mismatch = compare_frames(reference, fast)
        if mismatch is not None:
            _cancel(futures)
            print(f"DIFFERENCE in {what}, seed {seed}:")
            print(f"  row {mismatch.row} (game {mismatch.game}), column {mismatch.column}: "
                  f"reference {mismatch.reference!r}, fast {mismatch.fast!r}")
            if mismatch.game >= 0:
                game = reference[reference["game"] == mismatch.game].sort_values("place")
                seating = Seating(tuple(int(player) for player in game["player"]))
                ply = explain_chouette(players, seed, mismatch.game, seating, rules, regime)
                print("  first differing ply:" if ply else "  the traces agree ply for ply")
                if ply:
                    print("  " + str(ply).replace("\n", "\n  "))
            return None
        rows += len(fast)
        played = _chouette_plies(fast)
        plies += played
        clock.finished()
        print(f"{games} chouette games ({len(fast)} rows) identical: {what}  "
              f"[{played:,} plies; fast {fast_seconds:.2f}s, reference {reference_seconds:.1f}s]", flush=True)
        if number < len(cases):
            print(clock.line(f"the other {len(cases) - number} chouettes, random starts and legal plays"), flush=True)
    return rows, plies


def _chouette_plies(rows: pd.DataFrame) -> int:
    """Plies of the chouette games in ``rows`` (one row per game and player, each with the game's plies)."""
    return int(rows.groupby("game")["plies"].max().sum()) if len(rows) else 0


def _cancel(futures) -> None:
    """Drop the reference work not started yet: a difference ends the run, and the pool's shutdown
    would otherwise wait for every queued case."""
    for future in futures:
        if future is not None:
            future.cancel()


def _reference_chunk(white_spec, black_spec, seed, numbers, rules, match_to):
    from bgsim.series import play_games_reference
    from bots import make_player

    return play_games_reference(make_player(white_spec), make_player(black_spec), seed, numbers,
                                rules, match_to)


def reference_pool(jobs: int):
    """The worker processes that play the reference side, started fresh (spawned, not forked: a
    worker forked after this process ran a parallel kernel, the fast engine's game loop, is killed
    by Numba's OpenMP layer as soon as it runs one itself, as exact's match tables do): the pool
    :func:`validate` holds through ``workers.worker_pool``."""
    return fresh_pool(jobs)


def _start_worker() -> None:
    """Import what the reference side needs, once per worker, before any case is timed."""
    import bgsim.chouette_sessions  # noqa: F401
    import bgsim.series  # noqa: F401
    import bots  # noqa: F401


def _submit_reference(pool, white_spec, black_spec, seed, games, rules, match_to, jobs) -> list:
    """The reference side of a case, in chunks for the ``pool``'s workers (None without a pool:
    it is played here when its turn comes)."""
    if pool is None:
        return [None]
    size = max(1, min(200, games // (4 * jobs) or 1))
    return [pool.submit(_reference_chunk, white_spec, black_spec, seed,
                        range(start, min(games, start + size)), rules, match_to)
            for start in range(0, games, size)]


def _reference(futures, white_spec, black_spec, seed, games, rules, match_to) -> pd.DataFrame:
    if futures == [None]:
        return _reference_chunk(white_spec, black_spec, seed, range(games), rules, match_to)
    return pd.concat([future.result() for future in futures], ignore_index=True)


def _rules_text(rules: Rules) -> str:
    default = Rules()
    changed = [f"{name}={getattr(rules, name)}" for name in rules.__dataclass_fields__
               if getattr(rules, name) != getattr(default, name)]
    return ", ".join(changed) or "default rules"


START_CASE = ("heuristic+pipdiff", "pubeval+pipdiff")  # games from random positions, cube on
# (given first rolls and mirrored dice, variant, kind of cost): the starts validate plays
STARTS = ((False, "standard", "starts"), (True, "standard", "starts, given"),
          (True, "dutch", "starts of dutch, given"), (False, "acey-deucey", "starts of acey-deucey"))


def _compare_starts(games: int, seed: int, given: bool, variant: str = "standard"):
    """Games from random positions (of ``variant``) instead of the opening (with given first rolls
    and mirrored dice when ``given``, as rollouts play them) in both engines: (games, plies) that
    agreed, or None after printing the first difference."""
    from bgsim.fast.sameness import compare_frames, start_case
    from bgsim.series import play_games
    from bots import make_player

    white, black = (make_player(spec) for spec in START_CASE)
    rules = Rules(variant=variant)
    what = (f"{white.name} vs {black.name} from {games} random positions"
            + ("" if variant == "standard" else f" of {variant}")
            + (", first two rolls given, every other game's dice mirrored" if given else ""))
    print(f"start case: {what} ...", flush=True)
    options = start_case(games, seed, given, variant)
    count = len(options["start"])
    fast = play_games(white, black, seed, count, rules, engine="fast", **options)
    reference = play_games(white, black, seed, count, rules, engine="reference", **options)
    mismatch = compare_frames(reference, fast)
    if mismatch is not None:
        print(f"DIFFERENCE in {what}, seed {seed}: row {mismatch.row} (game {mismatch.game}), "
              f"column {mismatch.column}: reference {mismatch.reference!r}, fast {mismatch.fast!r}")
        return None
    plies = int(fast["plies"].sum())
    print(f"{count} games identical: {what}  [{plies:,} plies]", flush=True)
    return count, plies


def learning_order(kinds: list[str]) -> list[int]:
    """The order to play cases of these ``kinds`` in (indexes): the first case of every kind, then
    the second of every kind, and so on, so that the time-left estimate has seen each kind's pace
    after a few cases instead of meeting the slow ones at the end."""
    groups: dict[str, list[int]] = {}
    for index, kind in enumerate(kinds):
        groups.setdefault(kind, []).append(index)
    rounds = max((len(group) for group in groups.values()), default=0)
    return [group[turn] for turn in range(rounds) for group in groups.values() if turn < len(group)]


DEFAULT_GAMES = 60  # the default set in about 3 minutes on 2 idle cores (docs/METHODS.md)


def validate(cases: list[tuple[str, str, Rules, int]], games: int = DEFAULT_GAMES, seed: int = 1,
             positions: int = 500, jobs: int = 1, chouettes=(), sized: bool = True) -> int:
    """Play every case (white spec, black spec, rules, match length) in both engines and compare
    them row for row, then the ``chouettes`` (specs, rules, cube regime; see
    :func:`chouette_cases`) session for session, then games from random positions and legal
    plays on ``positions`` random positions; print each result.  ``sized``: each case plays
    :func:`case_games` of ``games`` (as long as ``games`` standard money games), else exactly
    ``games``.  0 when everything agrees, 1 at the first difference."""
    from bgsim.fast import player_halves
    from bgsim.fast.sameness import compare_frames, compare_legal_plays, explain_game, random_positions
    from bgsim.series import play_games
    from bots import make_player

    for white_spec, black_spec, rules, match_to in cases:
        for spec in (white_spec, black_spec):
            try:
                player_halves(make_player(spec))  # a ValueError names a bot the fast engine cannot run
            except ValueError as error:  # its hint (engine='reference') is an option validate lacks
                reason = re.sub(r";? *use (the reference engine|engine='reference')", "", str(error))
                raise ValueError(f"{reason}; validate compares the two engines, so both players "
                                 "must run in the fast engine") from None
        if match_to:
            rules.check_for_match()
    for specs, rules, regime in chouettes:
        from bgsim.chouette_sessions import chouette_engine

        try:
            chouette_engine("fast", [make_player(spec) for spec in specs])
        except ValueError as error:
            raise ValueError(f"{error}; validate compares the two engines, so every player of a chouette "
                             "must run in the fast engine") from None

    from experiments.running.machine import thread_limit

    workers = max(1, min(int(jobs), thread_limit()))
    kinds = [case_kind(*case) for case in cases]
    order = learning_order(kinds)
    cases, kinds = [cases[index] for index in order], [kinds[index] for index in order]
    counts = [case_games(games, kind) if sized else games for kind in kinds]
    chouette_kinds = [f"chouette of {len(specs)}" for specs, _, _ in chouettes]
    chouette_counts = [case_games(games, kind) if sized else games for kind in chouette_kinds]
    start_counts = [case_games(games, kind) if sized else games for _, _, kind in STARTS]
    variant_positions = [(variant, positions if variant == "standard" else positions // 10) for variant in VARIANTS]
    steps = ([(kind, count * game_cost(kind)[1] / workers) for kind, count in zip(kinds, counts)]
             + [(kind, count * game_cost(kind)[1] / workers) for kind, count in zip(chouette_kinds, chouette_counts)]
             + [(kind, count * game_cost(kind)[1]) for (_, _, kind), count in zip(STARTS, start_counts)]
             + [(f"legal plays, {variant}", count * POSITION_COST.get(variant, POSITION_COST["standard"]) / 1000)
                for variant, count in variant_positions])
    expected_plies = sum(count * game_cost(kind)[0] for kind, count in
                         zip(kinds + chouette_kinds, counts + chouette_counts))
    clock = _Clock(steps)
    chouettes_text = f" and {len(chouettes)} chouettes" if chouettes else ""
    sizing = (f"each as long in the reference engine as {games} standard money games (--games), at least one game"
              if sized else f"{games} games or matches each")
    print(f"validating {len(cases)} cases{chouettes_text}, {sizing}: "
          f"{sum(counts) + sum(chouette_counts):,} games or matches, about {expected_plies:,.0f} plies; "
          f"then {sum(start_counts):,} games from random positions and legal plays on "
          f"{sum(count for _, count in variant_positions):,} positions; both engines, "
          f"{workers} worker{'s' if workers > 1 else ''} for the reference engine", flush=True)
    print(clock.line("everything (the cost model's guess until cases finish)"), flush=True)

    total_rows = total_plies = 0
    with worker_pool(workers) as pool:  # fresh processes: this one may have run a parallel kernel
        if pool is not None:  # started before the clock runs, or the first case would carry it
            started = time.perf_counter()
            for future in [pool.submit(_start_worker) for _ in range(workers)]:
                future.result()
            print(f"started {workers} workers in {time.perf_counter() - started:.1f} s", flush=True)
            clock.last = time.perf_counter()
        # every case's reference work queued now, so that the workers play on while this process
        # plays the fast side and compares
        submitted = [_submit_reference(pool, white_spec, black_spec, seed, count, rules, match_to, workers)
                     for (white_spec, black_spec, rules, match_to), count in zip(cases, counts)]
        for number, ((white_spec, black_spec, rules, match_to), played, futures) in enumerate(
                zip(cases, counts, submitted), 1):
            white, black = make_player(white_spec), make_player(black_spec)
            what = f"{white.name} vs {black.name}, {_rules_text(rules)}" + (
                f", matches to {match_to}" if match_to else "")
            print(f"case {number}/{len(cases)}: {what} ...", flush=True)
            started = time.perf_counter()
            fast = play_games(white, black, seed, played, rules, match_to=match_to, engine="fast")
            fast_seconds = time.perf_counter() - started
            started = time.perf_counter()
            reference = _reference(futures, white_spec, black_spec, seed, played, rules, match_to)
            reference_seconds = time.perf_counter() - started
            mismatch = compare_frames(reference, fast)
            if mismatch is not None:
                for later in submitted:
                    _cancel(later)
                print(f"DIFFERENCE in {what}, seed {seed}:")
                print(f"  row {mismatch.row} (game {mismatch.game}, game {mismatch.game_in_match} in match), "
                      f"column {mismatch.column}: reference {mismatch.reference!r}, fast {mismatch.fast!r}")
                if mismatch.game >= 0:
                    ply = explain_game(white, black, seed, mismatch.game, rules, match_to)
                    print("  first differing ply:" if ply else "  the traces agree ply for ply")
                    if ply:
                        print("  " + str(ply).replace("\n", "\n  "))
                return 1
            total_rows += len(fast)
            plies = int(fast["plies"].sum())
            total_plies += plies
            clock.finished()
            unit = "matches" if match_to else "games"
            print(f"{played} {unit} ({len(fast)} games) identical: {what}  "
                  f"[{plies:,} plies; fast {fast_seconds:.2f}s, reference {reference_seconds:.1f}s]", flush=True)
            if number < len(cases):
                print(clock.line(f"the other {len(cases) - number} cases{chouettes_text}, random starts "
                                 "and legal plays"), flush=True)
        if chouettes:
            compared = _compare_chouettes(pool, list(chouettes), chouette_counts, seed, clock)
            if compared is None:
                return 1
            total_rows += compared[0]
            total_plies += compared[1]

    for (given, variant, _), count in zip(STARTS, start_counts):
        compared = _compare_starts(count, seed, given, variant)
        if compared is None:
            return 1
        total_rows += compared[0]
        total_plies += compared[1]
        clock.finished()
    print(clock.line("the legal plays"), flush=True)

    pairs_compared = 0
    # the standard game's positions, then a tenth as many of each variant's (the reference's
    # plain search is slow with fifteen checkers in hand)
    for variant, count in variant_positions:
        boards = random_positions(count, seed, variant) if count else []
        pairs, play_mismatch = compare_legal_plays(boards)
        pairs_compared += pairs
        if play_mismatch is not None:
            print(f"DIFFERENCE in legal plays after {pairs_compared} position-roll pairs:")
            print("  " + str(play_mismatch).replace("\n", "\n  "))
            return 1
        clock.finished()
        what = "" if variant == "standard" else f" of {variant}"
        print(f"legal plays identical on {len(boards)} positions{what} x 21 rolls = {pairs} pairs", flush=True)
    chouette_cases_text = f" and {len(chouettes)} chouette cases" if chouettes else ""
    print(f"validated: {total_rows} rows ({total_plies:,} plies) in {len(cases)} cases{chouette_cases_text}, "
          f"random starts and {pairs_compared} position-roll pairs, no difference, in "
          f"{duration(time.perf_counter() - clock.started)} ({_cpu_text()})")
    return 0
