"""Per-slot control groups: the kernel's second line of defence behind rlimits.

Layout (v1: one tree per controller, pids and memory; v2: one unified tree)::

    <parent>/tczoo-<pid>-<n>/slot<i>      the slot's jail: worker + the program's processes

Why not one group per run: moving a process into a v1 cgroup costs ~2.5 ms per
hierarchy here (an RCU grace period), more than a whole bare spawn. So the jail
joins its slot group once, at start, and the programs it forks inherit it. The host
(root) writes the limits before a run as the program's limit plus what the idle jail
itself uses (measured once at start: ~2 tasks, a few MB), so the program gets its
own limit; the files stay root-owned and are not visible in the jail.
"""

from __future__ import annotations

import itertools
import os
import time
from pathlib import Path

ROOT = Path("/sys/fs/cgroup")
_counter = itertools.count()


def _writable(path: Path) -> bool:
    return path.is_dir() and os.access(path, os.W_OK)


def detect() -> str | None:
    """'v1' when writable v1 pids+memory hierarchies exist, 'v2' for a unified one."""
    if _writable(ROOT / "pids") and _writable(ROOT / "memory"):
        return "v1"
    controllers = ROOT / "cgroup.controllers"
    if controllers.exists() and os.access(ROOT, os.W_OK):
        have = controllers.read_text().split()
        if "pids" in have and "memory" in have:
            return "v2"
    return None


def _write(path: Path, value: str) -> None:
    with open(path, "w") as f:
        f.write(value)


class SlotGroups:
    """The cgroup(s) of one worker slot."""

    def __init__(self, version: str, bases: list[Path]):
        self.version = version
        self.bases = bases  # one per hierarchy (v1: pids, memory; v2: the unified one)
        self._last: tuple[int, int] | None = None
        self.base_tasks = 0
        self.base_memory = 0
        self._oom_seen = 0
        for base in bases:
            base.mkdir(parents=True, exist_ok=True)

    @property
    def procs_files(self) -> list[Path]:
        return [b / "cgroup.procs" for b in self.bases]

    @property
    def _pids_dir(self) -> Path:
        return self.bases[0]

    @property
    def _mem_dir(self) -> Path:
        return self.bases[-1]

    def measure_idle(self) -> None:
        """Record what the idle jail uses; limits are added on top of it."""
        self.base_tasks = int((self._pids_dir / "pids.current").read_text())
        usage = "memory.usage_in_bytes" if self.version == "v1" else "memory.current"
        self.base_memory = int((self._mem_dir / usage).read_text())
        self._oom_seen = self.oom_kills()
        self._last = None

    def oom_kills(self) -> int:
        name = "memory.oom_control" if self.version == "v1" else "memory.events"
        try:
            for line in (self._mem_dir / name).read_text().splitlines():
                if line.startswith("oom_kill "):
                    return int(line.split()[1])
        except OSError:
            pass
        return 0

    def new_oom_kills(self) -> int:
        """OOM kills since the last call (read only when a program died of SIGKILL)."""
        now = self.oom_kills()
        fresh, self._oom_seen = now - self._oom_seen, now
        return fresh

    def set_limits(self, memory_bytes: int, processes: int) -> None:
        """Limits of the next run; writes only what changed (most batches repeat)."""
        memory_bytes += self.base_memory
        processes += self.base_tasks
        if self._last == (memory_bytes, processes):
            return
        _write(self._pids_dir / "pids.max", str(processes))
        if self.version == "v1":
            self._v1_memory(self._mem_dir, memory_bytes)
        else:
            _write(self._mem_dir / "memory.max", str(memory_bytes))
            if (self._mem_dir / "memory.swap.max").exists():
                _write(self._mem_dir / "memory.swap.max", "0")
        self._last = (memory_bytes, processes)

    @staticmethod
    def _v1_memory(mem: Path, limit: int) -> None:
        memsw = mem / "memory.memsw.limit_in_bytes"
        # memsw must stay >= the memory limit: order the writes by direction, and
        # drop reclaimable cache left by earlier runs when lowering fails (EBUSY).
        for attempt in range(3):
            try:
                if memsw.exists():
                    cur = int((mem / "memory.limit_in_bytes").read_text())
                    order = ["memory.limit_in_bytes", "memory.memsw.limit_in_bytes"]
                    if limit > cur:
                        order.reverse()
                    for name in order:
                        _write(mem / name, str(limit))
                else:
                    _write(mem / "memory.limit_in_bytes", str(limit))
                return
            except OSError:
                if attempt == 2:
                    raise
                try:
                    _write(mem / "memory.force_empty", "0")
                except OSError:
                    pass

    def pids(self) -> set[int]:
        found: set[int] = set()
        for f in self.procs_files:
            try:
                found.update(int(x) for x in f.read_text().split())
            except OSError:
                pass
        return found

    def kill(self) -> None:
        """Kill whatever is still in the slot (used when a worker is torn down)."""
        for _ in range(200):
            left = self.pids()
            if not left:
                return
            for pid in left:
                try:
                    os.kill(pid, 9)
                except OSError:
                    pass
            time.sleep(0.005)

    def remove(self) -> None:
        self.kill()
        for base in self.bases:
            for _ in range(50):
                try:
                    base.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:  # EBUSY while the last task is being reaped
                    time.sleep(0.01)


def _remove_stale(parent: Path) -> None:
    """Drop the (empty) groups of sandboxes whose process died without closing."""
    try:
        entries = list(parent.glob("tczoo-*-*"))
    except OSError:
        return
    for d in entries:
        try:
            pid = int(d.name.split("-")[1])
        except (IndexError, ValueError):
            continue
        if Path(f"/proc/{pid}").exists():
            continue
        for sub in [*d.glob("slot*"), d]:
            try:
                sub.rmdir()
            except OSError:
                pass


class CgroupTree:
    """One Sandbox's cgroups, removed on close."""

    def __init__(self, parent: str | None = None):
        self.version = detect()
        if self.version is None:
            raise OSError("no writable cgroup pids+memory controllers")
        parent = parent or os.environ.get("TCZOO_CGROUP_PARENT", "")
        name = f"tczoo-{os.getpid()}-{next(_counter)}"
        if self.version == "v1":
            self.roots = [ROOT / "pids" / parent / name, ROOT / "memory" / parent / name]
        else:
            self.roots = [ROOT / parent / name]
            self._enable_v2(ROOT / parent)
        for r in self.roots:
            _remove_stale(r.parent)
            r.mkdir(parents=True, exist_ok=True)
        if self.version == "v2":
            _write(self.roots[0] / "cgroup.subtree_control", "+pids +memory")
        self.slots: dict[int, SlotGroups] = {}

    @staticmethod
    def _enable_v2(path: Path) -> None:
        chain = [path, *path.parents]
        for p in reversed([c for c in chain if c != ROOT and ROOT in c.parents] + [ROOT]):
            try:
                _write(p / "cgroup.subtree_control", "+pids +memory")
            except OSError:
                pass

    def slot(self, index: int) -> SlotGroups:
        if index not in self.slots:
            self.slots[index] = SlotGroups(self.version, [r / f"slot{index}" for r in self.roots])
        return self.slots[index]

    def remove(self) -> None:
        for s in self.slots.values():
            s.remove()
        for r in self.roots:
            try:
                r.rmdir()
            except OSError:
                pass
