"""A process's share of its machine: how many sandbox slots its pool should open.

TRL computes rewards on every training process (each rank scores its own completions),
and verl runs ``reward.num_workers`` reward workers spread over the nodes. Each of them
holds one ``RewardScorer`` and so one sandbox pool; a pool that took every core of the
node would, eight times over, put eight programs on each core, and their CPU-time limits
(which decide TLE) would be met by programs that merely waited. So a scorer opens the
slots of its share:

- **cores**: the CPUs this process may run on (``sched_getaffinity``), cut to the
  cgroup's CPU quota where one is set (cgroup v2 ``cpu.max``, v1 ``cpu.cfs_quota_us`` /
  ``cpu.cfs_period_us``, the smallest along the process's cgroup path: a container's
  ``--cpus``), rounded down, at least 1;
- **ranks on the node**: the ``ranks`` option (verl: ``reward.num_workers`` divided by the
  nodes), else ``LOCAL_WORLD_SIZE`` (set by ``torchrun`` and ``accelerate launch``), else 1;
- **this rank**: ``LOCAL_RANK`` (0 without it);

and rank ``r`` of ``n`` gets ``cores // n`` slots, one more when ``r < cores % n``, at
least one: the ranks together open as many slots as there are cores (more only when there
are more ranks than cores, one each). ``workers=`` overrides all of it.
"""

from __future__ import annotations

import math
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Mapping

CGROUP_ROOT = Path("/sys/fs/cgroup")
PROC_CGROUP = Path("/proc/self/cgroup")


@dataclass(frozen=True)
class MachineShare:
    """What a process may use, and the slots that makes its pool."""

    cpus: int  # CPUs in its affinity mask
    quota: float | None  # the cgroup's CPU quota in CPUs, None when unlimited
    cores: int  # min(cpus, quota), at least 1
    ranks: int  # processes on the node sharing the cores
    rank: int  # this one's place among them
    ranks_from: str  # where ``ranks`` came from: option, LOCAL_WORLD_SIZE, default
    workers: int  # this process's slots

    def describe(self) -> str:
        quota = "" if self.quota is None else f", cgroup quota {self.quota:g} CPUs"
        return (f"{self.workers} sandbox slots: rank {self.rank} of {self.ranks} on this node ({self.ranks_from}) "
                f"sharing {self.cores} cores ({self.cpus} CPUs in the affinity mask{quota})")

    def as_dict(self) -> dict:
        return asdict(self)


def _int(value: str | None, name: str) -> int | None:
    if value is None or not str(value).strip():
        return None
    try:
        number = int(str(value).strip())
    except ValueError:
        raise ValueError(f"{name}={value!r} is not an integer") from None
    return number


def machine_share(ranks: int | None = None, *, environ: Mapping[str, str] | None = None,
                  cgroup_root: Path = CGROUP_ROOT, proc_cgroup: Path = PROC_CGROUP,
                  cpus: int | None = None) -> MachineShare:
    """This process's share (see the module docstring). ``environ``, ``cgroup_root``,
    ``proc_cgroup`` and ``cpus`` stand in for the real ones (tests)."""
    env = os.environ if environ is None else environ
    if cpus is None:
        cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    cpus = max(1, cpus)
    quota = cgroup_quota(cgroup_root, proc_cgroup)
    cores = max(1, min(cpus, math.floor(quota + 1e-9) if quota is not None else cpus))
    if ranks is not None:
        if ranks < 1:
            raise ValueError(f"ranks must be at least 1, not {ranks}")
        source = "option"
    else:
        local = _int(env.get("LOCAL_WORLD_SIZE"), "LOCAL_WORLD_SIZE")
        ranks, source = (local, "LOCAL_WORLD_SIZE") if local and local > 0 else (1, "default")
    rank = _int(env.get("LOCAL_RANK"), "LOCAL_RANK") or 0
    rank = rank % ranks if rank >= 0 else 0
    workers = max(1, cores // ranks + (1 if rank < cores % ranks else 0))
    return MachineShare(cpus=cpus, quota=quota, cores=cores, ranks=ranks, rank=rank, ranks_from=source,
                        workers=workers)


def cgroup_quota(cgroup_root: Path = CGROUP_ROOT, proc_cgroup: Path = PROC_CGROUP) -> float | None:
    """The smallest CPU quota (in CPUs) on this process's cgroup path, None when none is
    set or none can be read (v2's ``cpu.max``, v1's ``cpu`` controller)."""
    try:
        lines = proc_cgroup.read_text().splitlines()
    except OSError:
        return None
    found: list[float] = []
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        _, controllers, path = parts
        names = controllers.split(",") if controllers else []
        if not names:  # cgroup v2: one unified hierarchy (under unified/ on a hybrid host)
            for mount in (cgroup_root, cgroup_root / "unified"):
                if (mount / "cgroup.controllers").is_file():
                    found += _along(mount, path, _v2_quota)
                    break
        elif "cpu" in names:
            for mount in (cgroup_root / controllers, cgroup_root / "cpu,cpuacct", cgroup_root / "cpu"):
                if mount.is_dir():
                    found += _along(mount, path, _v1_quota)
                    break
    return min(found) if found else None


def _along(mount: Path, path: str, read) -> list[float]:
    """Quotas of the cgroup at ``path`` under ``mount`` and of each of its ancestors (a
    container sees its own cgroup as the root: the path is then ``/``)."""
    out = []
    here = Path(path.strip() or "/")
    for folder in [here, *here.parents]:
        rel = str(folder).lstrip("/")
        value = read(mount / rel if rel else mount)
        if value is not None:
            out.append(value)
    return out


def _v2_quota(folder: Path) -> float | None:
    try:
        words = (folder / "cpu.max").read_text().split()
    except OSError:
        return None
    if len(words) != 2 or words[0] == "max":
        return None
    try:
        quota, period = int(words[0]), int(words[1])
    except ValueError:
        return None
    return quota / period if quota > 0 and period > 0 else None


def _v1_quota(folder: Path) -> float | None:
    try:
        quota = int((folder / "cpu.cfs_quota_us").read_text().strip())
        period = int((folder / "cpu.cfs_period_us").read_text().strip())
    except (OSError, ValueError):
        return None
    return quota / period if quota > 0 and period > 0 else None


__all__ = ["MachineShare", "cgroup_quota", "machine_share"]
