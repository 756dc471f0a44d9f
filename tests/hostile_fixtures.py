"""The outer safety net for the hostile-program tests, and how they count survivors.

The net is a throwaway cgroup (pids.max, a memory limit, and a cpuacct group) that
holds the test process. ``TCZOO_CGROUP_PARENT`` names it while the tests run, so every
Sandbox they make (and any child process's) puts its slot cgroups *inside* the net:
its caps bind the programs too. If the sandbox has a bug, a bomb hits the net's
limits and the test fails, instead of taking the machine (or CI) down. Survivors are
counted across the whole net: anything in it but this process and the idle jails
(a bwrap and a worker per started slot) is a process a program left behind.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from tczoo.schema import Language, Program
from tczoo.sandbox import Sandbox, isolation_report

CG = Path("/sys/fs/cgroup")
NET_PIDS = 400
NET_MEMORY = 3 << 30

needs_full_v1 = pytest.mark.skipif(
    isolation_report()["level"] != "full" or isolation_report()["cgroups"] != "v1",
    reason="hostile suite needs full isolation (root + bwrap) and cgroup v1 for its safety net",
)


def cpp(code: str, **kw) -> Program:
    return Program(code=code, language=Language.CPP, **kw)


def py(code: str) -> Program:
    return Program(code=code, language=Language.PYTHON)


def timed(fn, *a, **kw):
    t = time.monotonic()
    r = fn(*a, **kw)
    return r, time.monotonic() - t


def run_timed(box: Sandbox, program: Program, *a, **kw):
    """Time a run, not its compile (a loaded machine can take seconds over g++)."""
    assert box.compile(program).ok
    return timed(box.run, program, *a, **kw)


def tasks(root: Path) -> set[int]:
    found: set[int] = set()
    for dirpath, _, files in os.walk(root):
        if "cgroup.procs" in files:
            found.update(int(x) for x in (Path(dirpath) / "cgroup.procs").read_text().split())
    return found


def uid_processes(uids: set[int]) -> dict[int, int]:
    """Live processes whose real uid is a sandbox uid: pid -> uid (zombies are dead:
    an orphan killed with its jail waits for the machine's init to reap it)."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            for line in open(f"/proc/{entry}/status"):
                if line.startswith("State:") and line.split()[1] in "ZX":
                    break
                if line.startswith("Uid:"):
                    uid = int(line.split()[1])
                    if uid in uids:
                        found[int(entry)] = uid
                    break
        except OSError:
            pass
    return found


def sandbox_uids(box: Sandbox) -> set[int]:
    # The compile uid is shared by every sandbox on the machine: only the slots' own.
    return {s.uid for s in box._pool.slots if s.uid is not None}


def survivors(net: str, boxes: list[Sandbox]) -> set[int]:
    """Processes in the net that are neither this test process nor an idle jail."""
    jails: set[int] = set()
    for box in boxes:
        for slot in box._pool.slots:
            if slot.groups and slot.proc is not None:
                pids = slot.groups.pids()
                assert len(pids) == slot.groups.base_tasks, f"stray process in slot {slot.index}: {pids}"
                jails |= pids
    return tasks(CG / "pids" / net) - jails - {os.getpid()}


def assert_net_untouched(net: str) -> None:
    events = CG / "pids" / net / "pids.events"
    if events.exists():
        assert "max 0" in events.read_text(), "the safety net's pids.max was hit"
    assert (CG / "memory" / net / "memory.failcnt").read_text().strip() == "0", "the net's memory limit was hit"


@pytest.fixture(scope="module")
def net():
    """The outer safety net: this process and everything below it, capped."""
    name = f"tczoo-test-{os.getpid()}"
    dirs = {ctrl: CG / ctrl / name for ctrl in ("pids", "memory", "cpuacct")}
    for d in dirs.values():
        d.mkdir()
    (dirs["pids"] / "pids.max").write_text(str(NET_PIDS))
    (dirs["memory"] / "memory.limit_in_bytes").write_text(str(NET_MEMORY))
    me = str(os.getpid())
    old = {}
    for ctrl in ("pids", "memory"):
        old[ctrl] = next(line.split(":", 2)[2] for line in open("/proc/self/cgroup")
                         if line.split(":")[1] == ctrl)
        (dirs[ctrl] / "cgroup.procs").write_text(me)
    saved_parent = os.environ.get("TCZOO_CGROUP_PARENT")
    os.environ["TCZOO_CGROUP_PARENT"] = name
    try:
        yield name
    finally:
        if saved_parent is None:
            del os.environ["TCZOO_CGROUP_PARENT"]
        else:
            os.environ["TCZOO_CGROUP_PARENT"] = saved_parent
        for ctrl in ("pids", "memory"):
            (CG / ctrl / old[ctrl].strip().lstrip("/") / "cgroup.procs").write_text(me)
        leftovers = set().union(*(tasks(d) for d in dirs.values()))
        for pid in leftovers:
            try:
                os.kill(pid, 9)
            except OSError:
                pass
        time.sleep(0.1)
        for d in dirs.values():
            for sub in sorted((p for p in d.rglob("*") if p.is_dir()), reverse=True):
                sub.rmdir()
            d.rmdir()
        assert not leftovers, f"processes survived in the safety net: {leftovers}"
