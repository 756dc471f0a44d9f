"""Per-slot control groups: the kernel's second line of defence behind rlimits.

Layout (v1: one tree per controller, pids, memory and cpuacct; v2: one unified tree)::

    <parent>/tczoo-<pid>-<n>/slot<i>      the slot's jail: worker + the program's processes

``<parent>`` is ``TCZOO_CGROUP_PARENT`` (or the Sandbox's ``cgroup_parent``), relative to
each hierarchy's root; empty by default, which puts the slots at the root, outside
whatever cgroup the calling process is in.

Why not one group per run: moving a process into a v1 cgroup costs ~2.5 ms per
hierarchy here (an RCU grace period), more than a whole bare spawn. So the jail
joins its slot group once, at start, and the programs it forks inherit it. The host
(root) writes the limits before a run as the program's limit plus what the idle jail
itself uses (measured once at start: ~2 tasks, a few MB), so the program gets its
own limit; the files stay root-owned and are not visible in the jail. The worker
reads the slot's CPU counter through an fd the host opened, so a run's CPU is that of
its whole process tree; and, through three more, the slot's memory: after each run it
checks that the slot holds no more memory than the idle jail did (else its reply says
so and the host restarts the slot), and it counts the run's OOM kills.
"""

from __future__ import annotations

import itertools
import os
import time
from pathlib import Path

KILL_WAIT_S = 10.0  # how long kill() waits for the slot's tasks to die (it returns once they have)
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


SETTLE_SLACK = 4 << 20  # bytes of anon+shmem over the idle jail's that still count as clean
SETTLE_WAIT_S = 0.2  # frees deferred by the kernel (RCU, workqueues) get this long


class SlotGroups:
    """The cgroup(s) of one worker slot.

    v1: a pids, a memory and (where writable) a cpuacct group; v2: one group with
    all three files. The files read on every run stay open (``pread`` is ~0.3 us).
    """

    def __init__(self, version: str, pids_dir: Path, mem_dir: Path, cpu_dir: Path | None):
        self.version = version
        self.pids_dir, self.mem_dir, self.cpu_dir = pids_dir, mem_dir, cpu_dir
        self._last: tuple[int, int] | None = None
        self.base_tasks = 0
        self.base_memory = 0  # memory.usage / memory.current of the idle jail
        for d in self.dirs:
            d.mkdir(parents=True, exist_ok=True)
        usage = "memory.usage_in_bytes" if version == "v1" else "memory.current"
        self._usage_fd = os.open(mem_dir / usage, os.O_RDONLY | os.O_CLOEXEC)

    @property
    def dirs(self) -> list[Path]:
        return list(dict.fromkeys(d for d in (self.pids_dir, self.mem_dir, self.cpu_dir) if d))

    @property
    def procs_files(self) -> list[Path]:
        return [d / "cgroup.procs" for d in self.dirs]

    def open_cpu(self) -> int | None:
        """A read-only fd on the slot's CPU counter for the worker, or None."""
        if self.cpu_dir is None:
            return None
        name = "cpuacct.usage" if self.version == "v1" else "cpu.stat"
        try:
            return os.open(self.cpu_dir / name, os.O_RDONLY)
        except OSError:
            return None

    def open_memory(self) -> tuple[list[int], str]:
        """Read-only fds on the slot's memory usage, memory.stat and OOM-kill counter
        for the worker, which checks after every run that the slot is back to the idle
        jail's memory (``SETTLE_SLACK``, ``SETTLE_WAIT_S``) and counts OOM kills; with
        the worker's MEMORY argument that describes them."""
        v1 = self.version == "v1"
        names = ("memory.usage_in_bytes" if v1 else "memory.current", "memory.stat",
                 "memory.oom_control" if v1 else "memory.events")
        fds: list[int] = []
        try:
            for name in names:
                fds.append(os.open(self.mem_dir / name, os.O_RDONLY))
        except OSError:
            for fd in fds:
                os.close(fd)
            return [], "-"
        arg = ",".join(str(x) for x in (*fds, int(not v1), SETTLE_SLACK, int(SETTLE_WAIT_S * 1000)))
        return fds, arg

    def _usage(self) -> int:
        return int(os.pread(self._usage_fd, 64, 0))

    def oom_kills(self) -> int:
        """The slot's OOM-kill counter (v1 memory.oom_control, v2 memory.events), or -1.
        Read by the host only when a worker died: whether the slot's memory limit, i.e.
        the run's, did it."""
        name = "memory.oom_control" if self.version == "v1" else "memory.events"
        try:
            for line in (self.mem_dir / name).read_text().splitlines():
                key, _, value = line.partition(" ")
                if key == "oom_kill":
                    return int(value)
        except (OSError, ValueError):
            pass
        return -1

    def cpu_ns(self) -> int:
        """CPU the slot's processes used so far (ns), or -1: whether a worker late with
        its reply is still working (emptying what its program left), read only then."""
        if self.cpu_dir is None:
            return -1
        try:
            if self.version == "v1":
                return int((self.cpu_dir / "cpuacct.usage").read_text())
            for line in (self.cpu_dir / "cpu.stat").read_text().splitlines():
                if line.startswith("usage_usec "):
                    return int(line.split()[1]) * 1000
        except (OSError, ValueError):
            pass
        return -1

    def measure_idle(self) -> None:
        """Record what the idle jail uses; limits are added on top of it."""
        self.base_tasks = self._charged_tasks()
        self.base_memory = self._usage()
        self._last = None

    def set_limits(self, memory_bytes: int, processes: int) -> None:
        """Limits of the next run; writes only what changed (most batches repeat)."""
        memory_bytes += self.base_memory
        processes += self.base_tasks
        if self._last == (memory_bytes, processes):
            return
        _write(self.pids_dir / "pids.max", str(processes))
        if self.version == "v1":
            self._v1_memory(self.mem_dir, memory_bytes)
        else:
            _write(self.mem_dir / "memory.max", str(memory_bytes))
            if (self.mem_dir / "memory.swap.max").exists():
                _write(self.mem_dir / "memory.swap.max", "0")
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
        """Kill whatever is still in the slot (used when a worker is torn down), and
        wait until the kernel has released every task (pids.current counts dying ones:
        the next jail's idle task count is measured from it). A task inside a long
        filesystem call (a program that left a million files being cleaned up) dies only
        when the call returns: up to ``KILL_WAIT_S`` seconds, then the caller goes on."""
        deadline = time.monotonic() + KILL_WAIT_S
        while time.monotonic() < deadline:
            left = self.pids()
            if not left and self._charged_tasks() == 0:
                return
            for pid in left:
                try:
                    os.kill(pid, 9)
                except OSError:
                    pass
            time.sleep(0.005)

    def _charged_tasks(self) -> int:
        try:
            return int((self.pids_dir / "pids.current").read_text())
        except (OSError, ValueError):
            return 0

    def remove(self) -> None:
        self.kill()
        try:
            os.close(self._usage_fd)
        except OSError:
            pass
        for base in self.dirs:
            for _ in range(50):
                try:
                    base.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:  # EBUSY while the last task is being reaped
                    time.sleep(0.01)


class JobGroup:
    """A pids group for one compile: the jail and everything the compiler starts join
    it, and all of it is gone when the compile returns (a killed bwrap takes its PID
    namespace down asynchronously; without this a dying cc1plus outlived the call)."""

    def __init__(self, path: Path):
        self.path = path
        path.mkdir()

    @property
    def procs_file(self) -> Path:
        return self.path / "cgroup.procs"

    def close(self) -> None:
        for _ in range(2000):
            try:
                left = [int(x) for x in self.procs_file.read_text().split()]
                charged = int((self.path / "pids.current").read_text())
            except (OSError, ValueError):
                break
            if not left and charged == 0:
                break
            for pid in left:
                try:
                    os.kill(pid, 9)
                except OSError:
                    pass
            time.sleep(0.005)
        try:
            self.path.rmdir()
        except OSError:
            pass


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
    """One Sandbox's cgroups, removed on close (with any parent directory it made)."""

    def __init__(self, parent: str | None = None):
        self.version = detect()
        if self.version is None:
            raise OSError("no writable cgroup pids+memory controllers")
        parent = (parent or os.environ.get("TCZOO_CGROUP_PARENT", "")).strip("/")
        name = f"tczoo-{os.getpid()}-{next(_counter)}"
        self._made: list[Path] = []  # parent directories we created, removed at the end
        if self.version == "v1":
            self.pids_root = ROOT / "pids" / parent / name
            self.mem_root = ROOT / "memory" / parent / name
            # CPU of the whole process tree (children, threads): cpuacct, if writable.
            cpu = ROOT / "cpuacct"
            self.cpu_root = cpu / parent / name if _writable(cpu) else None
        else:
            self.pids_root = self.mem_root = self.cpu_root = ROOT / parent / name
            self._enable_v2(ROOT / parent)
        for r in self.roots:
            self._mkdir_parents(r.parent)
            _remove_stale(r.parent)
            r.mkdir(exist_ok=True)
        if self.version == "v2":
            _write(self.pids_root / "cgroup.subtree_control", "+pids +memory")
        self.slots: dict[int, SlotGroups] = {}

    @property
    def roots(self) -> list[Path]:
        return list(dict.fromkeys(r for r in (self.pids_root, self.mem_root, self.cpu_root) if r))

    def _mkdir_parents(self, path: Path) -> None:
        missing = []
        while not path.exists():
            missing.append(path)
            path = path.parent
        for p in reversed(missing):
            p.mkdir()
            self._made.append(p)

    @staticmethod
    def _enable_v2(path: Path) -> None:
        chain = [path, *path.parents]
        for p in reversed([c for c in chain if c != ROOT and ROOT in c.parents] + [ROOT]):
            try:
                _write(p / "cgroup.subtree_control", "+pids +memory")
            except OSError:
                pass

    def job_group(self) -> JobGroup:
        return JobGroup(self.pids_root / f"compile-{next(_counter)}")

    def slot(self, index: int) -> SlotGroups:
        if index not in self.slots:
            sub = f"slot{index}"
            self.slots[index] = SlotGroups(self.version, self.pids_root / sub, self.mem_root / sub,
                                           self.cpu_root / sub if self.cpu_root else None)
        return self.slots[index]

    def remove(self) -> None:
        for s in self.slots.values():
            s.remove()
        for r in [*self.roots, *reversed(self._made)]:
            try:
                r.rmdir()
            except OSError:
                pass
