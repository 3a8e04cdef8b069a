"""Both engines play the same games (``bgsim validate``): proof that they are the same.

Every case (a pairing of players under some rule options, money or match play) is played by the
fast engine and by the reference engine (in worker processes, it is the slow side) and the rows
are compared row for row, column for column.  Then legal plays are compared on random
positions for all 21 rolls.  On the first difference the game is replayed in both engines with
traces and the ply where they part is printed.  Any difference exits with status 1.
"""

from __future__ import annotations

import re
import time

import pandas as pd

from bgsim.cube import Rules
from bgsim.variants import VARIANTS
from experiments.running.progress import duration
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


def bot_cases() -> list[tuple[str, str, Rules, int]]:
    """Every registered bot that claims a fast kernel, with every capability of its layout
    switched on and off, in both seats, derived from the registries and ``bgsim/layouts.py``.

    Money: checker bot i with cube bot i plays checker bot i+1 with cube bot i+1 (both lists
    taken round, default rules), the checker bots listed at their defaults and then each with
    the capabilities that change a money game switched (``bearoff=true``).  Then every cube bot
    at its defaults in 5-point matches against the next one with its capabilities switched
    (``score_aware=false``).  A bot added to a registry, or a capability to a layout, is
    compared with the reference engine without anyone adding it here.
    """
    from bots.registry import fast_names, switched_spec

    checkers, cubes = fast_names("checker"), fast_names("cube")
    checkers += [spec for spec in (switched_spec("checker", name, money=True) for name in checkers) if spec]
    cubes += [spec for spec in (switched_spec("cube", name, money=True) for name in cubes) if spec]
    count = max(len(checkers), len(cubes))
    money = [(f"{checkers[i % len(checkers)]}+{cubes[i % len(cubes)]}",
              f"{checkers[(i + 1) % len(checkers)]}+{cubes[(i + 1) % len(cubes)]}", Rules(), 0)
             for i in range(count)]
    # heuristic checker play: quick, and it reaches races, where the race counts judge
    cubes = fast_names("cube")
    match = [(f"heuristic+{cube}",
              "heuristic+" + (switched_spec("cube", cubes[(i + 1) % len(cubes)], money=False)
                              or cubes[(i + 1) % len(cubes)]), Rules(), MATCH_CASE_LENGTH)
             for i, cube in enumerate(cubes)]
    return money + match


MATCH_CASE_LENGTH = 5


def variant_cases() -> list[tuple[str, str, Rules, int]]:
    """Every variant (``bgsim.variants``) with every fast bot whose layout lists it
    (``bgsim/layouts.py``, ``variants``), in both seats, derived from the registries as
    :func:`bot_cases`: checker bot i with cube bot i plays checker bot i+1 with cube bot i+1, the
    checker bots listed at their defaults and then with ``bearoff=true`` (hypergammon is soon a
    bear-off).  Acey-deucey has no cube: its checker bots alone, each choosing its double after
    every 1-2 (chained turns and forfeited extra rolls come with the games)."""
    from bgsim.layouts import fast_bots
    from bgsim.variants import DEFINITIONS, STANDARD
    from bots.registry import fast_names, switched_spec

    cases = []
    for name, variant in DEFINITIONS.items():
        if name == STANDARD:
            continue
        rules = Rules(variant=name)
        checkers = [bot for bot in fast_names("checker") if name in fast_bots("checker")[bot].variants]
        checkers += [spec for spec in (switched_spec("checker", bot, money=True) for bot in checkers) if spec]
        cubes = [bot for bot in fast_names("cube") if name in fast_bots("cube")[bot].variants] if variant.cube else []
        if not cubes:
            cases += [(checkers[i], checkers[(i + 1) % len(checkers)], rules, 0) for i in range(len(checkers))]
            continue
        count = max(len(checkers), len(cubes))
        cases += [(f"{checkers[i % len(checkers)]}+{cubes[i % len(cubes)]}",
                   f"{checkers[(i + 1) % len(checkers)]}+{cubes[(i + 1) % len(cubes)]}", rules, 0)
                  for i in range(count)]
    return cases


# The reference engine's plain search takes seconds a game with fifteen checkers in hand: these
# variants' cases play a tenth of the games (at least one).
HAND_VARIANT_SHARE = 10


def case_games(games: int, rules: Rules) -> int:
    """How many of ``games`` a case under ``rules`` plays (:data:`HAND_VARIANT_SHARE`)."""
    from bgsim.variants import variant_of

    return max(1, games // HAND_VARIANT_SHARE) if variant_of(rules.variant).hand else games


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
    fast checker bots and the fast cube bots are dealt round the seats in order (player i of the
    k-th seat dealt is checker bot k and cube bot k, both lists taken round), the deal going on
    from one chouette to the next, so that each regime seats every fast cube bot; then the rule
    options (``CHOUETTE_RULE_CASES``)."""
    from bgsim.chouette import CUBE_REGIMES
    from bots.registry import fast_names

    checkers, cubes = fast_names("checker"), fast_names("cube")
    cases, dealt = [], 0
    for regime in CUBE_REGIMES:
        for size in CHOUETTE_SIZES:
            specs = tuple(f"{checkers[(dealt + i) % len(checkers)]}+{cubes[(dealt + i) % len(cubes)]}"
                          for i in range(size))
            dealt += size
            cases.append((specs, Rules(), regime))
    return cases + list(CHOUETTE_RULE_CASES)


def _chouette_text(specs, rules: Rules, regime: str) -> str:
    return f"{len(specs)}-player chouette, {regime} cubes, {_rules_text(rules)}: {', '.join(specs)}"


def _reference_chouette(specs, seed, games, rules, regime):
    from bgsim.chouette import play_chouettes
    from bots import make_player

    return play_chouettes([make_player(spec) for spec in specs], seed, games, rules, regime, engine="reference")


def _compare_chouettes(pool, cases, games: int, seed: int):
    """Every chouette case in both engines (the reference sessions in ``pool`` when there is one):
    how many rows agreed, or None after printing the first difference and its ply."""
    from bgsim.chouette import Seating, play_chouettes
    from bgsim.fast.sameness import compare_frames, explain_chouette
    from bots import make_player

    futures = [pool.submit(_reference_chouette, specs, seed, games, rules, regime) if pool else None
               for specs, rules, regime in cases]
    rows = 0
    for number, ((specs, rules, regime), future) in enumerate(zip(cases, futures), 1):
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
        print(f"{games} chouette games ({len(fast)} rows) identical: {what}  "
              f"[fast {fast_seconds:.2f}s, reference {reference_seconds:.1f}s]", flush=True)
    return rows


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


def _reference(pool, white_spec, black_spec, seed, games, rules, match_to, jobs):
    if pool is None:
        return _reference_chunk(white_spec, black_spec, seed, range(games), rules, match_to)
    size = max(1, min(200, games // (4 * jobs) or 1))
    futures = [pool.submit(_reference_chunk, white_spec, black_spec, seed,
                           range(start, min(games, start + size)), rules, match_to)
               for start in range(0, games, size)]
    return pd.concat([future.result() for future in futures], ignore_index=True)


def _rules_text(rules: Rules) -> str:
    default = Rules()
    changed = [f"{name}={getattr(rules, name)}" for name in rules.__dataclass_fields__
               if getattr(rules, name) != getattr(default, name)]
    return ", ".join(changed) or "default rules"


START_CASE = ("heuristic+pipdiff", "pubeval+pipdiff")  # games from random positions, cube on


def _compare_starts(games: int, seed: int, given: bool, variant: str = "standard"):
    """Games from random positions (of ``variant``) instead of the opening (with given first rolls
    and mirrored dice when ``given``, as rollouts play them) in both engines: how many games
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
    print(f"{count} games identical: {what}", flush=True)
    return count


def validate(cases: list[tuple[str, str, Rules, int]], games: int = 200, seed: int = 1, positions: int = 500,
             jobs: int = 1, chouettes=()) -> int:
    """Play every case (white spec, black spec, rules, match length) in both engines and compare
    them row for row, then the ``chouettes`` (specs, rules, cube regime; see
    :func:`chouette_cases`) session for session, then games from random positions and legal
    plays on ``positions`` random positions; print each result.  0 when everything agrees, 1 at
    the first difference."""
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
        from bgsim.chouette import chouette_engine

        try:
            chouette_engine("fast", [make_player(spec) for spec in specs])
        except ValueError as error:
            raise ValueError(f"{error}; validate compares the two engines, so every player of a chouette "
                             "must run in the fast engine") from None

    total_rows = 0
    print(f"validating {len(cases)} cases of {games} games or matches each (Dutch backgammon and acey-deucey: "
          f"1 in {HAND_VARIANT_SHARE} of them), both engines", flush=True)
    all_started = time.perf_counter()
    with worker_pool(jobs) as pool:  # fresh processes: this one may have run a parallel kernel
        for number, (white_spec, black_spec, rules, match_to) in enumerate(cases, 1):
            white, black = make_player(white_spec), make_player(black_spec)
            what = f"{white.name} vs {black.name}, {_rules_text(rules)}" + (
                f", matches to {match_to}" if match_to else "")
            print(f"case {number}/{len(cases)}: {what} ...", flush=True)
            played = case_games(games, rules)
            started = time.perf_counter()
            fast = play_games(white, black, seed, played, rules, match_to=match_to, engine="fast")
            fast_seconds = time.perf_counter() - started
            started = time.perf_counter()
            reference = _reference(pool, white_spec, black_spec, seed, played, rules,
                                   match_to, jobs)
            reference_seconds = time.perf_counter() - started
            mismatch = compare_frames(reference, fast)
            if mismatch is not None:
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
            unit = "matches" if match_to else "games"
            print(f"{played} {unit} ({len(fast)} games) identical: {what}  "
                  f"[fast {fast_seconds:.2f}s, reference {reference_seconds:.1f}s]", flush=True)
            if number < len(cases):
                left = (time.perf_counter() - all_started) / number * (len(cases) - number)
                print(f"  about {duration(left)} left for the other {len(cases) - number} cases", flush=True)
        if chouettes:
            chouette_rows = _compare_chouettes(pool, list(chouettes), games, seed)
            if chouette_rows is None:
                return 1
            total_rows += chouette_rows

    for given, variant in ((False, "standard"), (True, "standard"), (True, "dutch"), (False, "acey-deucey")):
        compared_games = _compare_starts(case_games(games, Rules(variant=variant)), seed, given, variant)
        if compared_games is None:
            return 1
        total_rows += compared_games

    compared = 0
    # the standard game's positions, then a tenth as many of each variant's (the reference's
    # plain search is slow with fifteen checkers in hand)
    for variant in VARIANTS:
        count = positions if variant == "standard" else positions // 10
        boards = random_positions(count, seed, variant) if count else []
        pairs, play_mismatch = compare_legal_plays(boards)
        compared += pairs
        if play_mismatch is not None:
            print(f"DIFFERENCE in legal plays after {compared} position-roll pairs:")
            print("  " + str(play_mismatch).replace("\n", "\n  "))
            return 1
        what = "" if variant == "standard" else f" of {variant}"
        print(f"legal plays identical on {len(boards)} positions{what} x 21 rolls = {pairs} pairs", flush=True)
    chouette_cases_text = f" and {len(chouettes)} chouette cases" if chouettes else ""
    print(f"validated: {total_rows} rows in {len(cases)} cases{chouette_cases_text} and {compared} position-roll pairs, "
          f"no difference")
    return 0
