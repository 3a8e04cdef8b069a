"""Progress of long phases (``experiments/running/progress.py``): an estimate said once, the time kept.
"""

from __future__ import annotations

from experiments.running import progress


def test_a_phase_estimates_once_and_keeps_its_time(monkeypatch):
    clock = iter([0.0, 10.0, 20.0, 30.0])  # the phase starts, two matches are judged, it ends

    class Clock:
        @staticmethod
        def perf_counter():
            return next(clock)

    monkeypatch.setattr(progress, "time", Clock)
    said, times = [], {"judging": 5.0}  # 5 s of an earlier session
    phase = progress.Phase("judging", 4, "matches", False, said.append, times)
    phase.update(1)  # 10 s for one match: three left at 0.1 a second
    phase.update(1)
    phase.close()
    assert said == ["judging: about 30 s to go at ~0.1 matches/s"]
    assert times == {"judging": 35.0}
