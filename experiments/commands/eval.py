"""``bgsim eval``: the best answer bgsim has for a position (:mod:`experiments.analysis.evaluation`);
``bgsim bearoff``: its databases built and checked (:mod:`experiments.studies.bearoff`).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from bgsim import Position
from bgsim.interchange.xgid import xgid_of
from experiments.analysis.evaluation import SOURCES, evaluation, gnubg_cube, nn_cube
from experiments.commands.arguments import (gnubg_plies, json_flag, positions_flag, positive, progress_flag,
                                           refuse_given, seed_flag, threads_flag)
from experiments.studies.bearoff import build_files, compare_with_gnubg


CHECK_PAIRS = 10_000  # bgsim bearoff check's random pairs


def register(subparsers) -> None:
    evaluate = subparsers.add_parser(
        "eval",
        help="the best evaluation bgsim has for a position (exact in bear-offs)",
        description="Cubeless chances and equity of the side on roll, and in positions of the "
        "two-sided bear-off database the exact money equities with the cube and the cube action. "
        "Positions outside the bear-off databases are evaluated by the nn bot when it is installed.  "
        "Every position also gets the nn cube's money equities and action (Janowski's formulas on the "
        "net's chances: an estimate); --judge gnubg adds GNU Backgammon's cube analysis.",
    )
    evaluate.add_argument("position_id", metavar="ID",
                          help="GNU Backgammon position ID (side on roll first) or an XGID")
    json_flag(evaluate)
    evaluate.add_argument("--judge", default=None, metavar="JUDGE",
                          help="gnubg: add GNU Backgammon's money cube analysis (its program, installed as gnubg; "
                          "default: none)")
    evaluate.add_argument("--plies", default=None, metavar="N",
                          help="with --judge gnubg: its evaluation depth, 0 to 4 (default 2)")
    evaluate.add_argument("--variant", default=None, metavar="NAME",
                          help="hypergammon1, hypergammon2 or hypergammon3: a bare ID is read in that game and "
                          "answered exactly from its solution (a position string naming the variant needs no flag; "
                          "default: the standard game)")
    evaluate.set_defaults(handler=run_eval)

    tables = subparsers.add_parser(
        "bearoff",
        help="build or check the bear-off databases",
        description="The exact bear-off databases bgsim eval reads: one-sided (up to 15 checkers) and "
        "two-sided with the cube.  They are kept in $BGSIM_CACHE, else the user cache folder, and built "
        "on first use; build makes them now (timed), check compares them with GNU Backgammon's.",
    )
    actions = tables.add_subparsers(dest="bearoff_action", metavar="ACTION", help="build or check")
    build = actions.add_parser(
        "build", help="build the databases into the cache folder, timed",
        description="Build whatever bear-off database is missing or stale (all of them with --force) "
        "and say how long each took and how big its file is.",
    )
    build.add_argument("--two-sided", type=positive, default=None, metavar="N",
                       help="checkers a side in the two-sided database, 1 to 10 (default: the one eval uses, "
                       "$BGSIM_BEAROFF_CHECKERS or 8)")
    build.add_argument("--force", action="store_true", help="rebuild even when the files are current")
    build.add_argument("--variant", default=None, metavar="NAME",
                       help="hypergammon1, hypergammon2 or hypergammon3: build that game's exact solution instead "
                       "(seconds for 2 checkers, about half an hour for 3; a Ctrl-C keeps its last sweep and the next build goes "
                       "on from it; default: the bear-off databases)")
    threads_flag(build, "with --variant: threads of the solver (the solution does not depend on them)")
    progress_flag(build)
    json_flag(build)
    build.set_defaults(handler=run_build)
    check = actions.add_parser(
        "check", help="compare the databases with GNU Backgammon's (gnubg-nn)",
        description="Win chances of random pure bear-offs against gnubg_nn.probabilities, and every "
        "one-sided roll distribution against gnubg_nn.bearoff_probabilities; exits 1 on a difference "
        "it cannot explain.",
    )
    positions_flag(check, "random pairs of bear-off positions whose win chances are compared (with --variant: "
                   "random states where GNU Backgammon's values are checked against bgsim's recursion, 200)",
                   CHECK_PAIRS, old="--pairs")
    seed_flag(check, "seed of the random pairs")
    check.add_argument("--variant", default=None, metavar="NAME",
                       help="hypergammon1, hypergammon2 or hypergammon3: compare that game's solution with GNU "
                       "Backgammon's makehyper file instead, every state (default: the bear-off databases)")
    check.add_argument("--gnubg-file", type=Path, default=None, metavar="FILE",
                       help="with --variant: makehyper's file to compare with, every state (default: run makehyper "
                       "now, as --makehyper-start says)")
    check.add_argument("--makehyper-start", choices=("zero", "bgsim"), default=None,
                       help="with --variant and no --gnubg-file: makehyper builds its file from its own start "
                       "(zero: seconds for 1 checker, a minute for 2, hours for 3) or takes one step of its "
                       "recursion from bgsim's solution under its convention (bgsim: minutes for 3) (default: "
                       "zero up to 2 checkers, bgsim for 3)")
    check.add_argument("--keep-sample", type=Path, default=None, metavar="FILE",
                       help="with --variant: also save the checked states' GNU Backgammon values (and those of "
                       "every state one roll leads to) as FILE (.npz), which the tests check without makehyper "
                       "(tests/data/hypergammon); refused if FILE exists (default: none kept)")
    json_flag(check)
    check.set_defaults(handler=run_check)
    tables.set_defaults(handler=lambda args: (tables.print_help(), 2)[1])


def run_eval(args) -> int:
    from bgsim.interchange.xgid import Xgid, read_position_text

    from experiments.analysis.gnubg_program import check_plies

    if args.judge not in (None, "gnubg"):
        raise ValueError(f"unknown judge {args.judge!r}: --judge gnubg adds GNU Backgammon's cube analysis")
    plies = gnubg_plies(args.plies)
    if plies is not None and args.judge is None:
        raise ValueError("--plies is gnubg's evaluation depth: it needs --judge gnubg")
    plies = check_plies(2 if plies is None else plies)
    from experiments.commands.hypergammon import hypergammon_checkers, run_eval as run_hypergammon

    if hypergammon_checkers(args.variant) is not None:  # a variant without a solution: its one line
        from bgsim.interchange.xgid import looks_like_xgid

        if ":" in args.position_id or looks_like_xgid(args.position_id):
            raise ValueError(f"{args.position_id!r} gives a score and a cube (a match ID or an XGID): hypergammon's "
                             "solution is money play, so give the position ID alone")
    position, given = read_position_text(args.position_id, args.variant)
    if position.variant.startswith("hypergammon"):
        refuse_given(args, ["judge", "plies"], "in hypergammon", "the answer is exact")
        return run_hypergammon(position, args)
    if position.variant != "standard":
        raise ValueError(f"bgsim eval answers for the standard game and hypergammon, not {position.variant}")
    state = given or Xgid(position=position)  # a bare position ID: money, the cube centred, before the roll
    plain = state == Xgid(position=position)
    answer = evaluation(position)  # a finished game is a ValueError of bgsim.bearoff.evaluate
    rolled = state.dice != (0, 0)
    if rolled:
        answer["plays"] = ranked_plays(position, state.dice)
    elif not state.match_to:
        answer["nn_cube"] = nn_cube(position)
    if not rolled:
        answer["at_state"] = at_state(state) if not plain else None
        if args.judge:
            from bots.gnubg_process import answer_within, find_gnubg  # the adapter, where the wait is set

            find_gnubg()  # a missing program is said alone, before any word of waiting for it
            print(f"asking GNU Backgammon for its {plies}-ply cube analysis (waiting at most "
                  f"{answer_within(2, plies):.0f} s)", file=sys.stderr, flush=True)
            answer["gnubg"] = gnubg_cube(position, plies) if plain else gnubg_at_state(state, plies)
    elif args.judge:
        raise ValueError(f"--judge gnubg judges the cube before the roll; {state.text} has {state.dice[0]}-"
                         f"{state.dice[1]} rolled: give the position with dice 00")
    if args.json:
        print(json.dumps({"position_id": position.position_id, "xgid": state.text, "state": state_fields(state),
                          **answer}, indent=2))
        return 0
    win = answer["win"]
    print(f"{position.position_id} ({state.text}), side on roll -- from the {SOURCES[answer['source']]}")
    if not plain:
        print(f"  {state.describe()}")
    print(f"  win  {100 * win:7.3f}%  gammon {100 * answer['win_gammon']:7.3f}%  "
          f"backgammon {100 * answer['win_backgammon']:7.3f}%")
    print(f"  lose {100 * (1 - win):7.3f}%  gammon {100 * answer['lose_gammon']:7.3f}%  "
          f"backgammon {100 * answer['lose_backgammon']:7.3f}%")
    print(f"  cubeless equity {answer['equity']:+.5f}" + (" (before the roll)" if rolled else ""))
    if rolled:
        print(f"  the plays of {state.dice[0]}-{state.dice[1]}, best first (cubeless equity after the play, "
              f"from the {SOURCES[answer['plays'][0]['source']].split(' (')[0] if answer['plays'] else 'evaluator'}):")
        for play in answer["plays"][:5]:
            print(f"    {play['play']:<24} {play['equity']:+.5f}")
        if len(answer["plays"]) > 5:
            print(f"    ... {len(answer['plays']) - 5} more (--json lists them all)")
        if not answer["plays"]:
            print("    none: the roll cannot be played")
    if answer.get("cubeful") and plain:
        cubeful = answer["cubeful"]
        print(f"  money equity with the cube: centred {cubeful['centred']:+.5f}, owned {cubeful['owned']:+.5f}, "
              f"opponent's {cubeful['opponent']:+.5f}")
        print(f"  cube action (centred cube): {answer['action']}")
    found = answer.get("at_state")
    if found:
        unit = "EMG" if state.match_to else "money equity"
        if found["action"] == "cannot double":
            print(f"  at this state: the side on roll cannot double ({found['why']})")
        else:
            print(f"  at this state ({unit} per unit of the cube, {found['truth']}, {found['estimator']}): no double "
                  f"{found['no_double']:+.5f}, double/take {found['double_take']:+.5f}, double/pass +1; action: "
                  f"{found['action']}")
    janowski = answer.get("nn_cube")
    if janowski and plain:
        print(f"  nn cube, an estimate ({janowski['estimate']}):")
        print(f"    no double {janowski['no_double']:+.5f} (owned {janowski['no_double_owned']:+.5f}), "
              f"double/take {janowski['double_take']:+.5f}, double/pass +1; action: {janowski['action']} "
              f"(owned cube: {janowski['action_owned']})")
    if args.judge:
        found = answer["gnubg"]
        print(f"  GNU Backgammon {found['plies']}-ply: win {100 * found['win']:.3f}%, gammon "
              f"{100 * found['win_gammon']:.3f}%, lose gammon {100 * found['lose_gammon']:.3f}%, "
              f"cubeless equity {found['equity']:+.5f}")
        for name in ("centred", "owned", "at this state"):
            cube = found.get(name)
            if cube is None:
                continue
            if cube["double_take"] is None:
                print(f"    cube {name}: cannot double; cubeful equity {cube['no_double']:+.5f}")
                continue
            print(f"    cube {name}: no double {cube['no_double']:+.5f}, double/take {cube['double_take']:+.5f}, "
                  f"double/pass {cube['double_pass']:+.5f}; proper: {cube['proper']}")
    if answer["effective_pip_counts"]:
        epc = answer["effective_pip_counts"]
        print(f"  effective pip counts: {epc['own']:.2f} on roll, {epc['opponent']:.2f} opponent "
              f"(pip counts {position.pip_count}, {position.opponent_pip_count})")
    return 0


def state_fields(state) -> dict:
    """What the position's ID says besides the board, for --json."""
    return {"match_to": state.match_to, "score": list(state.score), "crawford": state.crawford,
            "cube_value": state.cube_value, "cube_owner": state.cube_owner, "dice": list(state.dice),
            "offered": state.offered, "jacoby": state.jacoby, "beaver": state.beaver, "cube_limit": state.cube_limit}


def at_state(state) -> dict:
    """The cube decision of the side on roll at the state its ID gives (the score, the cube and its
    owner, the Crawford game, the Jacoby rule): the cube audit's own truth of a decision (exact where
    bgsim's tables hold the position, else Janowski on the nn net's chances at the score)."""
    from dataclasses import replace

    from bgsim.bearoff import cube_action
    from bgsim.interchange.xgid import OPPONENT
    from experiments.analysis.gnubg_program import may_double
    from experiments.studies.cube_audit_games import dead_for_doubler, situation, truth_of

    before = replace(state, dice=(0, 0), offered=0)
    position, _, cube = situation({"xgid": before.text})
    if not may_double(before) or dead_for_doubler(cube):
        why = ("the opponent owns the cube" if state.cube_owner == OPPONENT else "the Crawford game" if state.crawford
               else "it is a point from the match after the Crawford game"
               if state.match_to and state.score[0] == state.match_to - 1 else "its score and the cube win the match")
        return {"action": "cannot double", "why": why}
    truth = truth_of(position, cube)
    return {"no_double": truth.no_double_value, "double_take": truth.double_take, "double_pass": 1.0,
            "action": cube_action(truth.no_double_value, truth.double_take), "truth": truth.truth,
            "estimator": truth.estimator}


def ranked_plays(position: Position, dice) -> list[dict]:
    """Every legal play of ``dice``, best first by the cubeless equity after it (exact in the
    bear-off databases, else the nn net's), from the side on roll."""
    from bgsim import legal_plays
    from bgsim.scoring import MULTIPLIER, result_of

    out = []
    for play in legal_plays(position, tuple(dice)):
        after = play.result
        if after.finished:  # the play wins: a single, a gammon or a backgammon
            equity, source = float(MULTIPLIER[result_of(after)]), "two-sided"
        else:
            found = evaluation(after.turned())
            equity, source = -found["equity"], found["source"]
        out.append({"play": play.notation, "equity": equity, "source": source, "position_id": after.position_id})
    out.sort(key=lambda entry: -entry["equity"])
    return out


def gnubg_at_state(state, plies: int) -> dict:
    """GNU Backgammon's cube analysis of the side on roll at the state its ID gives."""
    from dataclasses import replace

    from experiments.analysis.evaluation import KEYS
    from experiments.analysis.gnubg_program import cube_decisions

    found, = cube_decisions([replace(state, dice=(0, 0), offered=0)], plies)
    return {"plies": plies, **dict(zip(KEYS, found.chances)), "equity": found.cubeless,
            "at this state": {"no_double": found.no_double, "double_take": found.double_take,
                              "double_pass": found.double_pass, "proper": found.proper, "category": found.category}}


def run_build(args) -> int:
    from bgsim.bearoff import default_two_sided_checkers
    from experiments.commands.hypergammon import hypergammon_checkers, run_build as build_hypergammon

    hypergammon = hypergammon_checkers(args.variant)
    if hypergammon is not None:
        refuse_given(args, ["two_sided"], "with --variant", "hypergammon's solution has no two-sided size")
        return build_hypergammon(args, hypergammon)
    refuse_given(args, ["threads", "no_progress"], "without --variant",
                 "the bear-off databases build on every core, in a single pass without a bar")

    checkers = default_two_sided_checkers() if args.two_sided is None else args.two_sided
    report = build_files(checkers, args.force, lambda text: print(text, file=sys.stderr, flush=True))
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"bear-off databases in {report['folder']}")
    for entry in report["databases"]:
        how = "current, not rebuilt" if entry["build_s"] is None else f"built in {entry['build_s']:.1f} s"
        size = f"{entry['bytes'] / 2**20:.1f} MiB" if entry["bytes"] else "not written"
        print(f"  {entry['kind']:9} up to {entry['checkers']:2} checkers, {entry['positions']:,} positions a side: "
              f"{how}, {size}  {entry['file']}")
    return 0


def run_check(args) -> int:
    from experiments.commands.hypergammon import hypergammon_checkers, run_check as check_hypergammon

    hypergammon = hypergammon_checkers(args.variant)
    if hypergammon is not None:
        # --positions' default is the bear-off check's; its old spelling hides whether it was given
        return check_hypergammon(args, hypergammon, args.positions != CHECK_PAIRS)
    refuse_given(args, ["gnubg_file", "makehyper_start"], "without --variant", "makehyper is hypergammon's solver")
    summary = compare_with_gnubg(args.positions, args.seed)
    if args.json:
        print(json.dumps(summary, indent=2))
        return 0
    print(f"bear-off databases against GNU Backgammon (gnubg-nn), {args.positions:,} random pairs, seed {args.seed}, "
          f"tolerance {summary['tolerance']:g}")
    print(f"  one-sided roll distributions: {summary['one_sided_positions_with_other_distribution']} of 54,263 "
          f"positions differ (near-tie plays); mean rolls within {summary['worst_mean_rolls_difference']:.1e}")
    for kind in ("two-sided", "one-sided"):
        entry = summary[kind]
        print(f"  {kind} win chances: {entry['agree']:,} of {entry['pairs']:,} agree, largest difference "
              f"{entry['worst']:.1e}; GNU Backgammon's other distribution {entry['their_distribution']}, "
              f"its decided-race shortcut {entry['their_shortcut']}, unexplained {len(entry['unexplained'])}")
    gammon = summary["gammons"]
    print(f"  gammon chances (a side with 15 checkers): {gammon['agree']:,} of {gammon['pairs']:,} agree, "
          f"largest difference {gammon['worst']:.1e}")
    unexplained = summary["one-sided"]["unexplained"] + summary["two-sided"]["unexplained"]
    if unexplained:
        print(f"  unexplained differences: {' '.join(unexplained[:20])}", file=sys.stderr)
        return 1
    return 0
