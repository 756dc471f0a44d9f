"""What isolation this machine offers, and the command lines that build the jails.

Levels, strongest first:

* ``full``  bubblewrap (user, PID, network, mount, IPC, UTS, cgroup namespaces; only
  /usr and a private tmpfs visible) entered as a real unprivileged uid per worker
  slot (``setpriv``; as root, RLIMIT_NPROC does not bind and a user-namespace uid
  maps back to root). Needs root, ``bwrap`` and ``setpriv``.
* ``bwrap`` bubblewrap as the calling (non-root) user: RLIMIT_NPROC is counted per
  user namespace, so it still binds; no uid of its own.
* ``uid``   no bubblewrap: a real per-slot uid + rlimits (+ cgroups). The program
  can see the filesystem (as an unprivileged user) and the network.
* ``none``  rlimits only, as the calling user. Isolates nothing; loud warning.

Cgroups (v1 or v2 pids+memory, and cpuacct for the CPU of a run's whole process tree)
are added to any level where they are writable. Only v1 has been exercised by the test
suite; ``isolation_report`` (``tczoo doctor``) says so.
"""

from __future__ import annotations

import fcntl
import functools
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from tczoo.sandbox import cgroups

UID_BASE = int(os.environ.get("TCZOO_SANDBOX_UID_BASE", "61000"))
COMPILE_UID_OFFSET = 999  # compiles run as UID_BASE + 999: never a worker slot's uid
JAIL_TMP_BYTES = 512 * 1024 * 1024  # size of the jail's private tmpfs

UID_SLOTS = COMPILE_UID_OFFSET  # worker uids: UID_BASE .. UID_BASE + 998
LOCK_DIR = Path(os.environ.get("TCZOO_SANDBOX_LOCKS", "/run/tczoo-sandbox"))

LEVELS = ("full", "bwrap", "uid", "none")


def claim_uid() -> tuple[int, int]:
    """Claim a worker uid no other slot on this machine holds (any process).

    A uid must belong to one slot at a time: RLIMIT_NPROC counts per uid and, without
    a PID namespace, the worker's kill(-1) reaches every process of its uid. The claim
    is an flock on a per-uid file, released by the kernel when the holder dies.
    Returns (uid, lock fd); close the fd to release.
    """
    LOCK_DIR.mkdir(mode=0o700, parents=True, exist_ok=True)
    for uid in range(UID_BASE, UID_BASE + UID_SLOTS):
        fd = os.open(LOCK_DIR / f"uid-{uid}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return uid, fd
        except BlockingIOError:
            os.close(fd)
    raise RuntimeError(f"all {UID_SLOTS} sandbox uids from {UID_BASE} are in use")


@dataclass
class Capabilities:
    root: bool
    bwrap: str | None
    bwrap_works: bool
    setpriv: str | None
    prlimit: str | None
    cgroup: str | None
    python: str  # the interpreter programs (and the worker) run with
    python_prefix: str | None  # host path to bind into the jail when not under /usr
    warnings: list[str] = field(default_factory=list)


def _jail_python() -> tuple[str, str | None]:
    """Prefer the system python3 (visible under /usr in the jail)."""
    for cand in ("/usr/bin/python3", "/usr/local/bin/python3"):
        if os.access(cand, os.X_OK):
            return cand, None
    exe = os.path.realpath(sys.executable)
    return exe, sys.base_prefix


def system_mounts() -> list[str]:
    """bwrap arguments for a read-only /usr and the usual merged-/usr symlinks."""
    args = ["--ro-bind", "/usr", "/usr"]
    for name in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        p = Path("/") / name
        if p.is_symlink():
            args += ["--symlink", os.readlink(p), str(p)]
        elif p.is_dir():
            args += ["--ro-bind", str(p), str(p)]
    # The dynamic loader's cache and the alternatives links (cc, c++, python...).
    for p in ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives"):
        args += ["--ro-bind-try", p, p]
    # Debian's JDKs keep their configuration (java.security ...) under /etc/java-N-*.
    for p in sorted(Path("/etc").glob("java-*")):
        args += ["--ro-bind", str(p), str(p)]
    return args


def bwrap_base(caps: Capabilities, *, pid1: bool) -> list[str]:
    args = [caps.bwrap or "bwrap", "--unshare-all", "--die-with-parent", "--new-session"]
    # We always enter bwrap unprivileged (after setpriv, or as a non-root user), so it
    # makes a user namespace; forbid the program nested ones.
    args += ["--unshare-user", "--disable-userns"]
    if pid1:
        args += ["--as-pid-1"]
    args += system_mounts()
    if caps.python_prefix:
        args += ["--ro-bind", caps.python_prefix, caps.python_prefix]
    args += ["--proc", "/proc", *dev_mounts(), "--size", str(JAIL_TMP_BYTES), "--tmpfs", "/tmp"]
    args += ["--clearenv", "--setenv", "PATH", "/usr/bin:/bin", "--setenv", "LANG", "C.UTF-8"]
    return args


def dev_mounts() -> list[str]:
    """A read-only /dev (bwrap makes it a tmpfs the jail's uid owns: a program could
    leave files there for the next one), with its own tmpfs /dev/shm and a POSIX
    message-queue fs /dev/mqueue, which the worker empties after every run."""
    return ["--dev", "/dev", "--size", str(JAIL_TMP_BYTES), "--tmpfs", "/dev/shm",
            "--mqueue", "/dev/mqueue", "--remount-ro", "/dev"]


# The jail's writable places; the worker empties each after every run.
JAIL_WRITABLE = ("/tmp", "/dev/shm", "/dev/mqueue")


def bwrap_seal() -> list[str]:
    """Last mount argument: the jail's root (a tmpfs bwrap built) becomes read-only,
    so the private tmp dir is the only writable place."""
    return ["--remount-ro", "/"]


def setpriv_prefix(caps: Capabilities, uid: int) -> list[str]:
    return [caps.setpriv or "setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups"]


def _probe_bwrap(bwrap: str, prefix: list[str]) -> bool:
    try:
        r = subprocess.run(
            [*prefix, bwrap, "--unshare-all", "--die-with-parent", "--as-pid-1",
             *system_mounts(), "--proc", "/proc", "--dev", "/dev", "/usr/bin/true"],
            capture_output=True, timeout=20,
        )
        return r.returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


@functools.lru_cache(maxsize=1)
def probe() -> Capabilities:
    root = os.geteuid() == 0
    bwrap = shutil.which("bwrap")
    setpriv = shutil.which("setpriv")
    prlimit = shutil.which("prlimit")
    python, prefix = _jail_python()
    warnings: list[str] = []
    uid_prefix = [setpriv, f"--reuid={UID_BASE}", f"--regid={UID_BASE}", "--clear-groups"]
    bwrap_works = bool(bwrap) and _probe_bwrap(bwrap, uid_prefix if (root and setpriv) else [])
    if not bwrap:
        warnings.append("bubblewrap (bwrap) is not installed: `apt-get install bubblewrap`")
    elif not bwrap_works:
        warnings.append("bwrap is installed but cannot create its namespaces here")
    if root and not setpriv:
        warnings.append("setpriv (util-linux) missing: cannot switch to an unprivileged uid")
    if not root:
        warnings.append("not root: programs run as your own uid (no per-slot uid)")
    cg = cgroups.detect() if root else None
    if cg is None:
        warnings.append("no writable cgroups: process/memory limits rely on rlimits only")
    return Capabilities(root, bwrap, bwrap_works, setpriv, prlimit, cg, python, prefix, warnings)


def best_level(caps: Capabilities) -> str:
    if caps.bwrap_works and caps.root and caps.setpriv:
        return "full"
    if caps.bwrap_works and not caps.root:
        return "bwrap"
    if caps.root and caps.setpriv:
        return "uid"
    return "none"


def describe(level: str, caps: Capabilities) -> str:
    parts = {
        "full": f"bwrap + own uid per slot from {UID_BASE}",
        "bwrap": "bwrap, own uid",
        "uid": f"NO bwrap: own uid per slot from {UID_BASE} + rlimits",
        "none": "NO isolation: rlimits only",
    }[level]
    if caps.cgroup and level != "none":
        parts += f" + cgroup {caps.cgroup}" + (" (untested)" if caps.cgroup == "v2" else "")
    return f"{level} ({parts})"


WEAK_WARNING = (
    "tczoo sandbox: isolation level is {level!r}, NOT full. Untrusted programs can "
    "{what}. Install bubblewrap and run as root for full isolation."
)


def weak_warning(level: str) -> str:
    what = {
        "bwrap": "share your uid (no per-slot uid)",
        "uid": ("read world-readable files, write world-writable dirs, use the network and signal their "
                "worker (no PID namespace: a run whose program kills its worker is reported as a sandbox error)"),
        "none": ("read and write your files, use the network, see your processes and signal their worker "
                 "(a run whose program kills its worker is reported as a sandbox error)"),
    }[level]
    return WEAK_WARNING.format(level=level, what=what)


CGROUP_V2_UNTESTED = (
    "cgroup v2 support is written but UNTESTED: tczoo's hostile-program suite has only "
    "run on cgroup v1 machines (where pids and memory are bound to v1, a v2 hierarchy "
    "cannot get them). If v2 limits fail, the sandbox falls back to rlimits (loudly).")


def isolation_report() -> dict:
    """What `tczoo doctor` shows: the pieces found and the level a Sandbox would use."""
    caps = probe()
    level = best_level(caps)
    warnings = list(caps.warnings)
    if level != "full":
        warnings.insert(0, weak_warning(level))
    if caps.cgroup == "v2":
        warnings.append(CGROUP_V2_UNTESTED)
    return {
        "level": level,
        "description": describe(level, caps),
        "bwrap": caps.bwrap,
        "bwrap_works": caps.bwrap_works,
        "root": caps.root,
        "uid_switching": bool(caps.root and caps.setpriv),
        "uid_base": UID_BASE,
        "setpriv": caps.setpriv,
        "cgroups": caps.cgroup,
        "cgroup_v2": "untested (the test suite has run on cgroup v1 only)",
        "python": caps.python,
        "warnings": warnings,
    }
