"""The bench's UBGI figure (``experiments/studies/bench_ubgi.py``): what it measures is there and
adds up; how fast it is, is the bench's to say (``bgsim bench``), never a test's."""

from experiments.studies.bench_ubgi import CONTROLLER_TARGET_US, measure_ubgi, report_lines, target


def test_the_ubgi_figure_counts_the_engines_decisions_and_the_controllers_cpu():
    figures = measure_ubgi(games=1, rounds=1, seed=3, log=lambda text: None)
    assert figures["games"] == 1
    assert figures["decisions"] > 20  # a random game asks the engine dozens of times
    assert figures["controller_us_per_decision"] > 0 and figures["engine_cpu_us_per_decision"] > 0
    assert figures["in_process_games_per_s"] > 0 and figures["ubgi_games_per_s"] > 0
    assert target(figures)["met"] == (figures["controller_us_per_decision"] <= CONTROLLER_TARGET_US)
    assert "engine decisions" in report_lines(figures)[0]


def test_the_bench_says_when_its_starts_cannot_cache_bytecode(monkeypatch):
    """A timed start without Python's bytecode cache compiles every module: the run records it
    and prints one line, so its start figures are not read as a user's."""
    from experiments.studies import bench_machine

    monkeypatch.setattr(bench_machine, "busy_processes", lambda *args, **kwargs: [])
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    machine = bench_machine.describe_machine()
    assert machine["bytecode_cache"] is False
    assert "PYTHONDONTWRITEBYTECODE is set" in bench_machine.start_warning(machine)
    monkeypatch.delenv("PYTHONDONTWRITEBYTECODE")
    machine = bench_machine.describe_machine()
    assert machine["bytecode_cache"] is True and bench_machine.start_warning(machine) is None
