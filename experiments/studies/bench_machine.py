"""The machine a bench ran on, for the reader of its figures: the processor and its vector
extensions, the cores, the versions, the commit (and whether the tree was clean), and the other
processes busy beside it.
"""

from __future__ import annotations

import os
import platform
import subprocess
import time
from pathlib import Path

from bgsim import settings

# the processor's vector and bit extensions that matter to the kernels (/proc/cpuinfo flags)
EXTENSIONS = ("sse4_2", "popcnt", "abm", "bmi1", "bmi2", "fma", "avx", "avx2", "avx_vnni")


def git(arguments: list[str], where: Path) -> str:
    try:
        return subprocess.run(["git", "-C", str(where)] + arguments, capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


def _cpu_flags() -> set[str]:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("flags"):
                return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def busy_processes(seconds: float = 1.0, least: float = 5.0) -> list[dict]:
    """The other processes that used at least ``least`` % of a core over ``seconds`` (Linux
    /proc; empty elsewhere): what shared the machine with a measurement."""
    def times():
        found = {}
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                text = stat.read_text()
                fields = text[text.rindex(")") + 2:].split()
                found[int(stat.parent.name)] = int(fields[11]) + int(fields[12])  # utime + stime
            except (OSError, ValueError, IndexError):
                continue
        return found

    try:
        ticks = os.sysconf("SC_CLK_TCK")
    except (ValueError, OSError, AttributeError):
        return []
    before = times()
    time.sleep(seconds)
    after = times()
    busy = []
    for pid, total in after.items():
        share = 100.0 * (total - before.get(pid, total)) / ticks / seconds
        if share >= least and pid != os.getpid():
            try:
                command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                command = "?"
            busy.append({"pid": pid, "cpu_percent": round(share), "command": command.strip()[:160]})
    return sorted(busy, key=lambda process: -process["cpu_percent"])


def describe_machine() -> dict:
    import numba
    import numpy

    cpu = platform.processor()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    flags = _cpu_flags()
    extensions = sorted(flag for flag in flags if flag in EXTENSIONS or flag.startswith("avx512"))
    try:
        import llvmlite.binding as llvm

        compiled_for = llvm.get_host_cpu_name()
    except Exception:  # noqa: BLE001 - only a record
        compiled_for = ""
    versions = {"python": platform.python_version(), "numba": numba.__version__, "numpy": numpy.__version__}
    for module, dist in (("gnubg_nn", "gnubg-nn"), ("pyspiel", "open-spiel"), ("llvmlite", "llvmlite")):
        try:
            from importlib.metadata import version

            versions[dist] = version(dist)
        except Exception:  # noqa: BLE001 - not installed
            pass
    here = Path(__file__).resolve().parent
    return {
        "cpu": cpu, "vector_extensions": extensions, "llvm_cpu": compiled_for,
        "cores": os.cpu_count(), "numba_threads": numba.config.NUMBA_NUM_THREADS,
        "platform": platform.platform(), "versions": versions,
        "git_commit": git(["rev-parse", "--short", "HEAD"], here),
        "git_clean": git(["status", "--porcelain", "--untracked-files=no"], here) == "",
        "load_average_at_start": list(os.getloadavg()) if hasattr(os, "getloadavg") else [],
        "busy_at_start": busy_processes(),
        # the starts it times are new processes: without the cache each compiles every module
        "bytecode_cache": settings.PYTHONDONTWRITEBYTECODE.text() is None,
    }


def start_warning(machine: dict) -> str | None:
    """A line to print when the run's starts compile their modules from source every time."""
    if machine.get("bytecode_cache", True):
        return None
    return ("  PYTHONDONTWRITEBYTECODE is set: every start it times compiles its modules from source "
            "(a user's install caches them), so starts read slower, the more code the slower")
