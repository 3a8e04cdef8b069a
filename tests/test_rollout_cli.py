"""``bgsim rollout`` on the command line: its JSON, its flags' errors, Ctrl-C.
"""

from __future__ import annotations

import json

from conftest import one_error_line, race_id
from experiments import cli


def test_rollout_json_of_one_trial_is_json_with_null_for_what_cannot_be_estimated(capsys):
    assert cli.main(["rollout", race_id(), "--games", "1", "--player", "heuristic", "--threads", "1",
                     "--json", "--no-progress"]) == 0
    text = capsys.readouterr().out

    def refuse(constant):
        raise AssertionError(f"{constant} is not JSON")

    answer = json.loads(text, parse_constant=refuse)  # bare NaN would be refused here
    assert answer["games"] == 1 and answer["se"]["equity"] is None
    assert all(value is None for value in answer["se"].values())  # one trial: no spread to estimate


def test_rollout_with_minus_one_threads_blames_threads(capsys):
    assert cli.main(["rollout", race_id(), "--threads", "-1", "--no-progress"]) == 2
    err = one_error_line(capsys)
    assert "--threads must be at least 1, got -1" in err and "even number" not in err


def test_a_rollout_stopped_by_ctrl_c_exits_130_like_every_command(capsys, monkeypatch):
    monkeypatch.setenv("BGSIM_STOP_AFTER", "1")  # Ctrl-C once the first batch of trials is done
    assert cli.main(["rollout", race_id(), "--games", "1440", "--player", "heuristic", "--threads", "1",
                     "--no-progress"]) == 130
    captured = capsys.readouterr()
    assert "interrupted: reporting the 144 of 1440 trials done" in captured.err
    assert "Traceback" not in captured.err and "KeyboardInterrupt" not in captured.err
    assert "144 trials" in captured.out  # what was finished is reported, not thrown away
