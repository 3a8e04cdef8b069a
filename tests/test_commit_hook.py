"""The commit-msg hook (.githooks/commit-msg): a subject of at most 72 characters, then a blank
line before the body."""

import subprocess
from pathlib import Path

import pytest

HOOK = Path(__file__).resolve().parent.parent / ".githooks" / "commit-msg"


def verdict(tmp_path, message: str) -> subprocess.CompletedProcess:
    path = tmp_path / "COMMIT_EDITMSG"
    path.write_text(message, encoding="utf-8")
    return subprocess.run(["sh", str(HOOK), str(path)], capture_output=True, text=True)


@pytest.mark.parametrize("message", ["x" * 72, "bench: one line\n", "a subject\n\nwhy it changed\n",
                                     "a subject\n# a comment git strips\n"])
def test_a_subject_of_at_most_72_characters_then_a_blank_line_is_accepted(tmp_path, message):
    assert verdict(tmp_path, message).returncode == 0


def test_a_subject_over_72_characters_is_refused_with_its_length(tmp_path):
    found = verdict(tmp_path, "y" * 73 + "\n\nbody\n")
    assert found.returncode == 1
    assert found.stderr.strip() == f"commit-msg: the subject is 73 characters, at most 72: {'y' * 73}"


def test_a_body_that_starts_on_the_second_line_is_refused(tmp_path):
    found = verdict(tmp_path, "a subject\nthe why, with no blank line\n")
    assert found.returncode == 1 and "blank line" in found.stderr
