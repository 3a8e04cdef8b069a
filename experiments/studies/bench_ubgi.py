"""The UBGI controller's cost per decision, measured side by side in one run (``bgsim bench``).

The same games twice, in rounds: ``random`` in-process against ``random``, and ``ubgi:`` a
``bgsim ubgi random`` engine (``bots/ubgi_server.py`` in a process of its own, over its pipes)
against ``random``; both in the reference engine, on one thread.  What the controller adds per
decision it asks the engine is the CPU time this process spends inside the engine player's
decisions (``bots.ubgi.UbgiPlayer``: building the context lines, writing them, reading
the pipe, parsing the answer and refereeing it against the legal plays; the wait for the engine
takes no CPU), divided by the decisions: :data:`CONTROLLER_TARGET_US` microseconds on one core is
the target.  Beside it: the same as the difference of the two runs' CPU time (the game loop,
the other seat and the legal plays are in both), the CPU time of a whole decision in-process
(the game loop's legal plays and the random choice: the scale of the figure on this machine,
``controller_vs_in_process_decision``), the engine's own CPU time a decision (its process) and
the wall time a round trip adds.  On a busy machine every figure is inflated by
the cores the others take: the load average is in the run's machine record.
"""

from __future__ import annotations

import os
import resource
import sys
import time

CONTROLLER_TARGET_US = 100.0


def _children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def measure_ubgi(games: int, rounds: int, seed: int, log=print) -> dict:
    """Figures of the controller's overhead: ``games`` reference games a round each way, the
    best (least CPU a decision) of ``rounds`` rounds kept for each."""
    from bgsim.series import play_games
    from bots import make_player
    from bots.ubgi import EngineSpec, UbgiPlayer

    spec = EngineSpec("bgsim-random", (sys.executable, "-m", "experiments", "ubgi", "random"), timeout=60,
                      start_timeout=120, source="bgsim bench")
    engine, random_player = UbgiPlayer(spec), make_player("random")
    best_in = best_ubgi = None
    try:
        engine.start()
        timed = _Timed(engine)
        play_games(timed, random_player, seed, 1, engine="reference")  # warm both sides
        for round_number in range(rounds):
            white, black = _Timed(random_player), _Timed(random_player)
            started, cpu = time.perf_counter(), time.process_time()
            play_games(white, black, seed, games, engine="reference")
            in_process = (time.perf_counter() - started, time.process_time() - cpu, white.asked + black.asked)
            decisions, engine_cpu, inside = engine.decisions, _engine_cpu(engine), timed.cpu
            started, cpu = time.perf_counter(), time.process_time()
            play_games(timed, random_player, seed, games, engine="reference")
            over_pipes = (time.perf_counter() - started, time.process_time() - cpu)
            asked = engine.decisions - decisions
            ended = _engine_cpu(engine)
            served = ended - engine_cpu if ended is not None and engine_cpu is not None else None
            figures = (timed.cpu - inside, over_pipes, asked, served)
            if best_in is None or in_process[1] < best_in[1]:
                best_in = in_process
            if best_ubgi is None or figures[0] / asked < best_ubgi[0] / best_ubgi[2]:
                best_ubgi = figures
            log(f"  ubgi round {round_number + 1}/{rounds} done")
    finally:
        engine.close()
    inside, (wall, cpu), asked, served = best_ubgi
    in_process_us = 1e6 * best_in[1] / best_in[2]
    return {
        "games": games, "decisions": asked,
        "in_process_cpu_us_per_decision": round(in_process_us, 1),
        "controller_vs_in_process_decision": round(1e6 * inside / asked / in_process_us, 3),
        "in_process_games_per_s": round(games / best_in[0], 2),
        "ubgi_games_per_s": round(games / wall, 2),
        "controller_us_per_decision": round(1e6 * inside / asked, 1),
        "controller_us_per_decision_by_difference": round(1e6 * max(0.0, cpu - best_in[1]) / asked, 1),
        "engine_cpu_us_per_decision": round(1e6 * served / asked, 1) if served is not None else None,
        "wall_us_per_decision": round(1e6 * max(0.0, wall - best_in[0]) / asked, 1),
        "target_us": CONTROLLER_TARGET_US,
    }


class _Timed:
    """A player, with the CPU time of this process inside its decisions summed and its decisions
    counted (``see_context`` is no decision)."""

    def __init__(self, player) -> None:
        self.player, self.name, self.cpu, self.asked = player, player.name, 0.0, 0
        self.external = getattr(player, "external", False)
        if hasattr(player, "see_context"):
            self.see_context = lambda context: self._time(player.see_context, context, counted=False)

    def choose_play(self, *args):
        return self._time(self.player.choose_play, *args)

    def offer_double(self, *args):
        return self._time(self.player.offer_double, *args)

    def respond_to_double(self, *args):
        return self._time(self.player.respond_to_double, *args)

    def _time(self, decision, *args, counted: bool = True):
        cpu = time.process_time()
        try:
            return decision(*args)
        finally:
            self.cpu += time.process_time() - cpu
            self.asked += counted


def _engine_cpu(engine) -> float | None:
    """CPU seconds of the engine's process so far (Linux: /proc), None where unknown."""
    process = engine.process
    pid = process.pid if process is not None else None
    if pid is None:
        return None
    try:
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks


def report_lines(figures: dict) -> list[str]:
    """The lines ``bgsim bench`` prints of :func:`measure_ubgi`'s figures."""
    engine = figures["engine_cpu_us_per_decision"]
    return [
        f"  ubgi: random in-process {figures['in_process_games_per_s']:,.1f} games/s "
        f"({figures['in_process_cpu_us_per_decision']:,.1f} us of CPU a decision), against a bgsim ubgi random "
        f"engine over pipes {figures['ubgi_games_per_s']:,.1f} games/s ({figures['decisions']:,} engine decisions)",
        f"  ubgi: the controller adds {figures['controller_us_per_decision']:,.1f} us of CPU a decision (context, "
        f"pipes, parsing, the referee; {figures['controller_vs_in_process_decision']:.2f} of an in-process decision; "
        f"{figures['controller_us_per_decision_by_difference']:,.1f} us by the runs' difference); the engine spends "
        + (f"{engine:,.1f} us" if engine is not None else "?") +
        f"; a round trip adds {figures['wall_us_per_decision']:,.1f} us of wall time",
    ]


def target(figures: dict) -> dict:
    measured = figures["controller_us_per_decision"]
    return {"target": CONTROLLER_TARGET_US, "measured": measured, "met": measured <= CONTROLLER_TARGET_US}
