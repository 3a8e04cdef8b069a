"""What ``bgsim bench`` makes of its figures: the ratios, the targets, the comparison with the
committed baseline (``--compare``), and the Markdown report of ``--profile``.
"""

from __future__ import annotations

# The figures --compare watches, each with the GNU Backgammon loop it is set against when both
# runs have that loop: fast-engine throughput, the generation rate, the nn kernel, rollouts.
WATCHED = {
    "fast_random_1thread": "gnubg_nn_random", "fast_random_all": "gnubg_nn_random",
    "fast_heuristic_1thread": "gnubg_nn_random", "fast_heuristic_all": "gnubg_nn_random",
    "fast_generations": "gnubg_nn_random", "fast_nn_1thread": "gnubg_nn_best_move",
    "fast_nn_all": "gnubg_nn_best_move", "rollout_nn_1thread": "gnubg_nn_best_move",
}


def ratios(figures: dict) -> dict:
    out = {}
    get = lambda name: figures.get(name, {}).get("per_s")  # noqa: E731
    cpu = lambda name: figures.get(name, {}).get("per_cpu_s")  # noqa: E731
    if get("fast_random_1thread") and get("fast_random_all"):
        out["all_cores_vs_1thread_random"] = get("fast_random_all") / get("fast_random_1thread")
    if get("fast_heuristic_1thread") and get("fast_heuristic_all"):
        out["all_cores_vs_1thread_heuristic"] = get("fast_heuristic_all") / get("fast_heuristic_1thread")
    used = lambda name: figures.get(name, {}).get("cores_used")  # noqa: E731
    if used("fast_random_all") and used("fast_random_1thread"):
        # games per CPU-second, all threads against one: near 1.0 means the threads scale and
        # only the cores the machine could spare limited the wall-clock gain
        out["all_cores_cpu_efficiency_random"] = (
            (get("fast_random_all") / used("fast_random_all"))
            / (get("fast_random_1thread") / used("fast_random_1thread")))
    if get("fast_nn_1thread") and get("fast_nn_all"):
        out["all_cores_vs_1thread_nn"] = get("fast_nn_all") / get("fast_nn_1thread")
    for ours, loop in (("fast_nn_1thread", "gnubg_nn_best_move"), ("rollout_nn_1thread", "gnubg_nn_best_move")):
        # rollout: trials per second on one core against GNU Backgammon's net playing the same
        # position out (games per second, one core): the rollout speed target
        if get(ours) and get(loop):
            out[f"{ours}_vs_{loop}"] = get(ours) / get(loop)
        if cpu(ours) and cpu(loop):
            out[f"{ours}_vs_{loop}_per_cpu"] = cpu(ours) / cpu(loop)
    # a 4-player chouette against a two-player money game of the same bots, both on one thread
    for chouette, money in (("fast_chouette4_heuristic_1thread", "fast_heuristic_1thread"),
                            ("fast_chouette4_nn_cube_1thread", "fast_nn_cube_1thread")):
        if get(chouette) and get(money):
            out[f"{chouette}_vs_{money}"] = get(chouette) / get(money)
        if cpu(chouette) and cpu(money):
            out[f"{chouette}_vs_{money}_per_cpu"] = cpu(chouette) / cpu(money)
    # the same games in both engines (older runs timed the fast engine on other games)
    fast_random = get("fast_random_same_1thread") or get("fast_random_1thread")
    fast_heuristic = get("fast_heuristic_same_1thread") or get("fast_heuristic_1thread")
    if get("reference_random"):
        out["fast_1thread_vs_reference_random"] = fast_random / get("reference_random")
    if get("reference_heuristic"):
        out["fast_1thread_vs_reference_heuristic"] = fast_heuristic / get("reference_heuristic")
    if get("reference_generations"):
        out["fast_vs_reference_generations"] = get("fast_generations") / get("reference_generations")
    for outside in ("gnubg_nn_random", "openspiel_random"):
        if get(outside):
            for name in figures:
                if (name.endswith(("_1thread", "_all")) or name == "reference_random") and not name.startswith(("against_", "worker_")):
                    out[f"{name}_vs_{outside}"] = get(name) / get(outside)
                    if name.endswith("_1thread") and cpu(name) and cpu(outside):
                        out[f"{name}_vs_{outside}_per_cpu"] = cpu(name) / cpu(outside)
    for name in figures:  # this checkout against the other one (--against), side by side
        theirs, worker = "against_" + name, "worker_" + name
        ours = worker if get(worker) else name  # both in fresh workers where this checkout had one
        if get(ours) and get(theirs):
            out[f"{name}_vs_against"] = get(ours) / get(theirs)
            if name.endswith("_1thread") and cpu(ours) and cpu(theirs):
                out[f"{name}_vs_against_per_cpu"] = cpu(ours) / cpu(theirs)
        if get(worker) and get(name):  # the bench's own process, after every other contender, against a fresh one
            out[f"{name}_in_process_vs_worker"] = get(name) / get(worker)
    return {name: round(value, 2) for name, value in out.items()}


# issue 21's targets: one thread against GNU Backgammon's loops, two threads against one, the
# fast engine against the reference, and (with --against the commit before the work) the nn kernel
TARGETS = (
    ("fast_random_1thread_vs_gnubg_nn_random", ">=", 8.0),
    ("fast_nn_1thread_vs_gnubg_nn_best_move", ">=", 5.0),
    ("rollout_nn_1thread_vs_gnubg_nn_best_move", ">=", 5.0),
    ("fast_nn_1thread_vs_against", ">=", 1.3),
    ("all_cores_vs_1thread_random", ">=", 1.9),
    ("all_cores_vs_1thread_heuristic", ">=", 1.9),
    ("all_cores_vs_1thread_nn", ">=", 1.9),
    ("fast_1thread_vs_reference_random", ">=", 100.0),
    ("fast_1thread_vs_reference_heuristic", ">=", 100.0),
    # issue 17: a 4-player chouette at least half as many games/s as a money game of its bots
    ("fast_chouette4_heuristic_1thread_vs_fast_heuristic_1thread", ">=", 0.5),
    ("fast_chouette4_nn_cube_1thread_vs_fast_nn_cube_1thread", ">=", 0.5),
)
COMPILE_TARGETS = (("cold_compile_s", 15.0), ("cached_start_s", 1.0))  # seconds, at most


def _comparable(run: dict, name: str, loop: str | None):
    figure = run["figures"].get(name, {}).get("per_s")
    if figure is None:
        return None
    if loop is not None:
        return figure / run["figures"][loop]["per_s"]
    return figure


def machine_differences(run: dict, baseline: dict) -> list[str]:
    """What differs between the two runs' processors, for a reader of --compare's verdict."""
    notes = []
    now, then = run.get("machine", {}), baseline.get("machine", {})
    if now.get("cpu") and then.get("cpu") and now["cpu"] != then["cpu"]:
        notes.append(f"processor: {now['cpu']} now, {then['cpu']} in the baseline")
    if "vector_extensions" in now and "vector_extensions" in then:
        gained = sorted(set(now["vector_extensions"]) - set(then["vector_extensions"]))
        lost = sorted(set(then["vector_extensions"]) - set(now["vector_extensions"]))
        if gained or lost:
            notes.append(f"vector extensions: {', '.join(gained) or 'none'} here only, "
                         f"{', '.join(lost) or 'none'} in the baseline only")
    return notes


def compare(run: dict, baseline: dict, margin: float) -> list[str]:
    slower = []
    for name, loop in WATCHED.items():
        both = loop in run["figures"] and loop in baseline["figures"]
        now = _comparable(run, name, loop if both else None)
        then = _comparable(baseline, name, loop if both else None)
        if now is None or then is None:
            continue
        if now < then * (1 - margin):
            unit = f"x the {loop} loop" if both else "/s"
            slower.append(f"{name}: {now:.2f}{unit} now, {then:.2f}{unit} in the baseline "
                          f"({100 * (1 - now / then):.0f}% slower, margin {100 * margin:.0f}%)")
    return slower


def _percent(part: float, whole: float) -> str:
    return f"{100 * part / whole:.0f}%" if whole else ""


def profile_report(run: dict) -> str:
    """The profile of a run as Markdown: what to read first, then the tables."""
    machine, data = run["machine"], run["profile"]
    players = data["players"]
    lines = [
        "# Where the fast engine's time goes (`bgsim bench --profile`)",
        "",
        f"Commit {machine['git_commit']}{'' if machine.get('git_clean') else ' (with uncommitted changes)'}, "
        f"{run['when']}, {machine['cpu']} ({machine.get('llvm_cpu', '')}), {machine['cores']} cores, "
        f"vector extensions {', '.join(machine.get('vector_extensions', [])) or 'none'}; "
        f"load average {', '.join(f'{x:.2f}' for x in machine.get('load_average_at_start', []))} at the start"
        f" and {', '.join(f'{x:.2f}' for x in machine.get('load_average_at_end', []))} at the end.",
        "",
        "Regenerate: `bgsim bench --profile --out results/bench` from a clean commit (it writes "
        "`bench-<time>.json` with this profile under `profile`, and this report as `profile-<time>.md`). "
        "`bgsim.fast.timing.profile(white, black, seed, games)` gives one player's part.",
        "",
        "## The game loop, one thread, by phase (ns per ply)",
        "",
        "The engine kernel's CPU time per ply (least of several rounds), shared out in proportion "
        "to the cycles a lapped copy of the loop charged to each phase (`bgsim/fast/clock.py`: a "
        "cycle-counter read between phases, its own cost taken off).  Dice: the two dice of a "
        "roll; cube decisions: the cube question (asked of every player, one without a cube "
        "answers at once); move generation: all distinct legal plays, duplicate removal "
        "included; choice: the checker bot's pick (random: the k-th play in canonical order; "
        "evaluation bots: every play scored); bookkeeping: the board after the play, the "
        "end-of-game test, turning the board; row writing: the game's row; Python: "
        "`play_games` around the kernel (packing the players, the DataFrame).",
        "",
        "| phase | " + " | ".join(f"`{spec}`" for spec in players) + " |",
        "|---|" + "---:|" * len(players),
    ]
    phases = list(next(iter(players.values()))["ns_per_ply"])
    for phase in phases:
        cells = []
        for figures in players.values():
            value = figures["ns_per_ply"][phase]
            cells.append(f"{value:,.0f} ({_percent(value, figures['kernel_ns_per_ply'])})")
        lines.append(f"| {phase} | " + " | ".join(cells) + " |")
    lines.append("| **engine kernel** | " + " | ".join(f"**{figures['kernel_ns_per_ply']:,.0f}**"
                                                  for figures in players.values()) + " |")
    lines.append("| Python around it | " + " | ".join(f"{figures['python_ns_per_ply']:,.0f}"
                                                     for figures in players.values()) + " |")
    lines.append("| lapped copy (laps' own cost) | " + " | ".join(
        f"{figures['lapped_ns_per_ply']:,.0f}" for figures in players.values()) + " |")
    lines.append("| laps left out (a wait for the core) | " + " | ".join(
        f"{figures['laps_left_out']:,} of {figures['laps'] + figures['laps_left_out']:,}"
        for figures in players.values()) + " |")
    lines.append("| plies (games) | " + " | ".join(f"{figures['plies']:,} ({figures['games']:,})"
                                                   for figures in players.values()) + " |")
    lines += ["", "## Inside the phases", ""]
    for spec, figures in players.items():
        generation = figures["generation"]
        lines.append(
            f"* `{spec}` move generation, on its own games' positions and rolls: "
            f"{generation['ns_per_generation']:,.0f} ns per generation, {generation['plays_per_generation']:.1f} "
            f"plays from {generation['leaves_per_generation']:.1f} leaves; without duplicate removal "
            f"{generation['ns_without_dedupe']:,.0f} ns (removal {100 * generation['dedupe_share']:.0f}% of it).")
        if "nn" in figures:
            net = figures["nn"]
            lines.append(
                f"* `{spec}` choice, {net['hidden']} hidden units: {net['ns_per_play_judged']:,.0f} ns per play "
                f"judged; without the output layer {net['without_output_layer_ns_per_play']:,.0f} ns "
                f"(the output layer {100 * net['output_layer_share']:.0f}%, the first layer and the "
                f"per-play scan of the board the rest).")
    compiled = data["compile"]
    lines += [
        "", "## The cold compile (fresh Numba cache, to the first `random` game)", "",
        f"{compiled['first_game_s']:.1f} s in all, {compiled['first_game_cpu_s']:.1f} s of CPU time (a wall time "
        f"well above it means the process waited for a core), {compiled['imports_s']:.1f} s of it imports.  "
        "Wall seconds per kernel module "
        "(each function's compile without its callees', which Numba compiles nested inside it; "
        "lowering includes LLVM's optimisation of the function with every callee it linked in):", "",
        "| module | s |", "|---|---:|",
    ]
    lines += [f"| `{module}` | {seconds:.2f} |" for module, seconds in compiled["modules_s"].items()]
    lines += ["", "The 15 dearest kernels:", "", "| kernel | s |", "|---|---:|"]
    lines += [f"| `{name}` | {seconds:.2f} |" for name, seconds in list(compiled["kernels_s"].items())[:15]]
    lines += ["", "By compiler pass (all kernels; lowering includes LLVM's optimisation of each function):", "",
              "| pass | s |", "|---|---:|"]
    lines += [f"| `{name}` | {seconds:.2f} |" for name, seconds in list(compiled["passes_s"].items())[:10]]
    if "exact_first_game_s" in compiled:
        lines += ["", f"Then the first game of a player with the `exact` cube bot (its own family of kernels, "
                      f"`bgsim/fast/families.py`): {compiled['exact_first_game_s']:.1f} s more "
                      f"({compiled['exact_first_game_cpu_s']:.1f} s of CPU time); by module:", "",
                  "| module | s |", "|---|---:|"]
        lines += [f"| `{module}` | {seconds:.2f} |" for module, seconds in compiled["exact_modules_s"].items()]
    busy = machine.get("busy_at_start", []) + machine.get("busy_at_end", [])
    if busy:
        lines += ["", "## What else was running", "",
                  "Other processes using at least 5% of a core, sampled for a second at the start and at the "
                  "end (another engineer's tests or runs share this machine's cores):", ""]
        lines += [f"* {process['cpu_percent']}%: `{process['command'][:120]}`" for process in busy]
    return "\n".join(lines) + "\n"
