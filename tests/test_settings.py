"""Settings in one place: every environment variable bgsim reads is declared in bgsim/settings.py,
read through it, and listed in the README."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from bgsim import settings
from bgsim.bearoff import database

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("bgsim", "bots", "experiments")
SETTINGS_MODULE = ROOT / "bgsim" / "settings.py"
ENVIRONMENT_NAMES = {"environ", "environb", "getenv", "getenvb", "putenv", "unsetenv"}


def environment_reads(source: str) -> list[int]:
    """Lines of ``source`` that touch the process environment: ``os.environ``, ``os.getenv``
    and the like, however imported."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr in ENVIRONMENT_NAMES:
            lines.append(node.lineno)
        elif isinstance(node, ast.ImportFrom) and node.module == "os":
            lines += [node.lineno for alias in node.names if alias.name in ENVIRONMENT_NAMES]
    return sorted(lines)


def test_no_module_but_settings_reads_the_environment():
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if path == SETTINGS_MODULE:
                continue
            for line in environment_reads(path.read_text(encoding="utf-8")):
                found.append(f"{path.relative_to(ROOT)}:{line}")
    assert not found, f"read the environment through bgsim/settings.py instead: {', '.join(found)}"


@pytest.mark.parametrize("source", [
    "import os\nx = os.environ.get('A')\n",
    "import os\nx = os.getenv('A')\n",
    "import os\nx = os.environ['A']\n",
    "from os import environ\n",
    "from os import getenv as read\n",
    "import os\nchild = dict(os.environ, A='1')\n",
])
def test_the_environment_scan_catches_a_read(source):
    assert environment_reads(source)


def test_the_environment_scan_passes_a_module_that_reads_none():
    assert environment_reads("import os\nos.replace('a', 'b')\nenviron = 'the word'\n") == []


def test_every_setting_is_listed_in_the_usage_page():
    usage = (ROOT / "docs" / "USAGE.md").read_text(encoding="utf-8")
    section = usage.split("## Settings", 1)[1].split("\n## ", 1)[0]
    missing = [setting.name for setting in settings.SETTINGS if f"`{setting.name}`" not in section]
    assert not missing, f"docs/USAGE.md's Settings section lacks {missing}"


def test_a_table_size_comes_from_its_variable_else_its_default(monkeypatch):
    monkeypatch.delenv("BGSIM_BEAROFF_CHECKERS", raising=False)
    assert database.default_two_sided_checkers() == 8  # the README's figure
    monkeypatch.setenv("BGSIM_BEAROFF_CHECKERS", " 5 ")
    assert database.default_two_sided_checkers() == 5
    monkeypatch.setenv("BGSIM_BEAROFF_CHECKERS", "")
    assert database.default_two_sided_checkers() == 8
    monkeypatch.setenv("BGSIM_BEAROFF_CHECKERS", "many")
    with pytest.raises(ValueError, match="BGSIM_BEAROFF_CHECKERS must be a whole number"):
        database.default_two_sided_checkers()


def test_a_child_environment_names_only_declared_settings():
    assert settings.environment(NUMBA_CACHE_DIR="/tmp/x")["NUMBA_CACHE_DIR"] == "/tmp/x"
    with pytest.raises(ValueError, match="not a bgsim setting: BGSIM_TYPO"):
        settings.environment(BGSIM_TYPO="1")
