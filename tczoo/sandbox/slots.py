"""Host side of the jailed workers: start one per slot, talk to it, restart it.

A slot = one uid, one jail, one worker process, one cgroup pair. A slot runs one
program at a time; parallelism comes from several slots. Slots start lazily on first
use and are handed out through a queue, so any thread may call ``Sandbox.run``.
"""

from __future__ import annotations

import hashlib
import os
import queue
import select
import struct
import subprocess
import tempfile
import threading
import time
from pathlib import Path

from tczoo.textio import to_bytes
from tczoo.sandbox import jail
from tczoo.sandbox.cgroups import CgroupTree, SlotGroups

WORKER_C = Path(__file__).parent / "worker.c"
JAIL_CACHE = "/box/cache"  # where the compile cache appears inside the jail
HOST_SLACK_S = 10.0  # the worker enforces the wall guard; we only catch a stuck worker
MAGIC = 0x7A637431
# exit_code, signal, cpu_ms, wall_ms, maxrss_kb, killed, stdout_len, stderr_len
REPLY = struct.Struct("<qqddqqQQ")
KILLED = {0: None, 1: "cpu", 2: "wall", 3: "output"}
LIMIT_FIELDS = ("cpu_ms", "wall_ms", "cpu_s", "out_bytes", "err_bytes", "file_bytes",
                "nproc", "stack_bytes", "as_bytes")
PROGRAM_ENV = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": "/tmp", "TMPDIR": "/tmp"}

# bwrap --die-with-parent is PR_SET_PDEATHSIG, which fires when the *thread* that
# spawned the worker exits, not the process. Callers run/judge from any thread (a
# short-lived pool, asyncio.to_thread): a worker started there would die with it and
# the next run on that slot would be SE. So every worker is spawned from this one
# thread, which lives as long as the process.
_SPAWNER: "concurrent.futures.ThreadPoolExecutor | None" = None
_SPAWNER_LOCK = threading.Lock()


def _spawn(*args, **kwargs) -> subprocess.Popen:
    global _SPAWNER
    import concurrent.futures

    with _SPAWNER_LOCK:
        if _SPAWNER is None:
            _SPAWNER = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="tczoo-spawner")
        spawner = _SPAWNER
    return spawner.submit(subprocess.Popen, *args, **kwargs).result()


class WorkerDied(RuntimeError):
    pass


def worker_binary(cache_dir: Path) -> Path:
    """Build the C worker once per source version into the cache (trusted code)."""
    source = WORKER_C.read_bytes()
    digest = hashlib.sha256(source).hexdigest()[:16]
    target = cache_dir / "worker" / digest / "tczoo-worker"
    if target.exists():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    for d in (target.parent.parent, target.parent):
        os.chmod(d, 0o755)
    tmp = target.with_name(f".tmp-{os.getpid()}-{threading.get_ident()}")
    r = subprocess.run(["gcc", "-O2", "-o", str(tmp), str(WORKER_C)],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"cannot build the sandbox worker (gcc): {r.stderr[-2000:]}")
    os.chmod(tmp, 0o755)
    os.replace(tmp, target)
    return target


def pack_request(request: dict, stdin: bytes) -> bytes:
    lim = request["limits"]
    parts = [struct.pack("<I", MAGIC)]
    parts.append(struct.pack("<9Q", *(int(lim[k] or 0) for k in LIMIT_FIELDS)))
    parts.append(struct.pack("<I", len(request["argv"])))
    for a in request["argv"]:
        b = a.encode()
        parts += [struct.pack("<I", len(b)), b]
    files = request.get("files") or {}
    parts.append(struct.pack("<I", len(files)))
    for name, content in files.items():
        # A lone surrogate (from JSON, an LLM) must reach the program as bytes, not crash us.
        n, c = name.encode(), to_bytes(content)
        parts += [struct.pack("<I", len(n)), n, struct.pack("<Q", len(c)), c]
    parts += [struct.pack("<Q", len(stdin)), stdin]
    return b"".join(parts)


def _read_exact(fd: int, n: int, deadline: float | None) -> bytes:
    chunks = []
    while n:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise TimeoutError("worker did not answer in time")
        b = os.read(fd, min(n, 1 << 20))
        if not b:
            raise WorkerDied("worker closed its pipe")
        chunks.append(b)
        n -= len(b)
    return b"".join(chunks)


class Slot:
    def __init__(self, index: int, level: str, caps: jail.Capabilities, cache_dir: Path,
                 groups: SlotGroups | None, scratch: Path):
        self.index = index
        self.level = level
        self.caps = caps
        self.cache_dir = cache_dir
        self.groups = groups
        self.scratch = scratch
        self.switch_uid = level in ("full", "uid")
        self.uid: int | None = None  # claimed when the worker starts
        self._uid_lock: int | None = None
        self.proc: subprocess.Popen | None = None
        self._cache_fd: int | None = None

    # ------------------------------------------------------------------ lifecycle

    def cache_path(self, rel: str) -> str:
        """How the worker's child names a file of the compile cache."""
        if self.level in ("full", "bwrap"):
            return f"{JAIL_CACHE}/{rel}"
        # Without a mount namespace the cache may sit under /root (mode 700): reach it
        # through an inherited directory fd, which skips the path's permission checks.
        return f"/proc/self/fd/{self._cache_fd}/{rel}"

    def start(self) -> None:
        if self.switch_uid and self.uid is None:
            self.uid, self._uid_lock = jail.claim_uid()
        self._cache_fd = os.open(self.cache_dir, os.O_RDONLY | os.O_DIRECTORY)
        worker = worker_binary(self.cache_dir)
        rel_worker = str(worker.relative_to(self.cache_dir))
        cmd: list[str] = []
        env = dict(PROGRAM_ENV)
        if self.uid is not None:
            cmd += jail.setpriv_prefix(self.caps, self.uid)
        if self.level in ("full", "bwrap"):
            cmd += jail.bwrap_base(self.caps, pid1=True)
            cmd += ["--ro-bind", f"/proc/self/fd/{self._cache_fd}", JAIL_CACHE]
            cmd += jail.bwrap_seal()
            for k, v in PROGRAM_ENV.items():
                cmd += ["--setenv", k, v]
            cmd += ["--chdir", "/tmp", f"{JAIL_CACHE}/{rel_worker}", "/tmp/run", "1", "1",
                    "/tmp", "/dev/shm"]
        else:
            run_dir = self.scratch / f"slot{self.index}"
            run_dir.mkdir(mode=0o700, exist_ok=True)
            if self.uid is not None:
                os.chown(run_dir, self.uid, self.uid)
            env["HOME"] = env["TMPDIR"] = str(run_dir)
            kill_all = "1" if self.uid is not None else "0"  # kill(-1) = all of our uid
            nproc_base = "1" if self.uid is not None else "-1"
            cmd += [f"/proc/self/fd/{self._cache_fd}/{rel_worker}", str(run_dir / "run"),
                    kill_all, nproc_base, str(run_dir)]
        cg_files = " ".join(str(p) for p in self.groups.procs_files) if self.groups else ""
        # Join the slot's cgroups before anything forks, so nothing escapes them.
        script = 'for f in $TCZOO_CG; do echo $$ > "$f" || exit 1; done; unset TCZOO_CG; '
        args: list[str] = []
        if self.level in ("full", "bwrap") and self.uid is not None:
            # bwrap, entered as the slot's uid, resolves bind sources by path, and the
            # cache may sit under /root (mode 700). In a private mount namespace, bind
            # it onto a world-traversable staging dir that the jail then binds.
            stage = self.scratch / "cache"
            stage.mkdir(mode=0o755, exist_ok=True)
            script += 'mount --bind "$1" "$2" && mount -o remount,bind,ro "$2" && shift 2; '
            args = [str(self.cache_dir), str(stage)]
            cmd = [str(stage) if c == f"/proc/self/fd/{self._cache_fd}" else c for c in cmd]
            cmd = ["unshare", "--mount", "--propagation", "private", "/bin/sh", "-c",
                   script + 'exec "$@"', "sh", *args, *cmd]
        else:
            cmd = ["/bin/sh", "-c", script + 'exec "$@"', "sh", *cmd]
        env["TCZOO_CG"] = cg_files
        self._err = tempfile.TemporaryFile()
        self.proc = _spawn(
            cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._err,
            pass_fds=[self._cache_fd], env=env, bufsize=0,
        )
        try:
            ready = _read_exact(self.proc.stdout.fileno(), 1, time.monotonic() + 30)
        except (WorkerDied, TimeoutError) as e:
            tail = self.stderr_tail()
            self.stop()
            raise WorkerDied(f"worker did not start: {e} {tail}") from e
        if ready != b"R":
            raise WorkerDied(f"worker did not start: {ready!r}")
        if self.groups:
            self.groups.measure_idle()

    def stop(self) -> None:
        if self.proc is not None:
            try:
                # EOF on its request pipe makes the worker exit, and bwrap with it; a
                # graceful exit lets bwrap reap the worker instead of leaving a zombie.
                self.proc.stdin.close()
                self.proc.wait(1)
            except (OSError, subprocess.TimeoutExpired):
                pass
            try:
                self.proc.kill()
                self.proc.wait(5)
            except (OSError, subprocess.TimeoutExpired):
                pass
            for f in (self.proc.stdin, self.proc.stdout):
                if f:
                    f.close()
            self.proc = None
        if self.groups:
            self.groups.kill()
        if self._cache_fd is not None:
            os.close(self._cache_fd)
            self._cache_fd = None

    def release_uid(self) -> None:
        if self._uid_lock is not None:
            os.close(self._uid_lock)
            self._uid_lock = self.uid = None

    def stderr_tail(self) -> str:
        try:
            self._err.seek(0)
            return self._err.read()[-2000:].decode(errors="replace")
        except (OSError, AttributeError):
            return ""

    # ------------------------------------------------------------------ protocol

    def _receive(self, deadline: float | None) -> tuple[dict, bytes, bytes]:
        fd = self.proc.stdout.fileno()
        fields = REPLY.unpack(_read_exact(fd, REPLY.size, deadline))
        code, sig, cpu, wall, rss, killed, out_len, err_len = fields
        header = {"exit_code": None if code < 0 else code, "signal": None if sig < 0 else sig,
                  "cpu_ms": cpu, "wall_ms": wall, "maxrss_kb": rss, "killed": KILLED[killed],
                  "oom_kills": 0}
        out = _read_exact(fd, out_len, deadline)
        err = _read_exact(fd, err_len, deadline)
        return header, out, err

    def ensure_started(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            self.stop()
            self.start()

    def execute(self, request: dict, stdin: bytes, memory_bytes: int, processes: int,
                deadline: float) -> tuple[dict, bytes, bytes]:
        self.ensure_started()
        try:
            if self.groups:
                self.groups.set_limits(memory_bytes, processes)
            data = pack_request(request, stdin)
            fd = self.proc.stdin.fileno()
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            header, out, err = self._receive(deadline)
        except (OSError, WorkerDied, TimeoutError, ValueError, struct.error) as e:
            tail = self.stderr_tail()
            self.stop()  # a worker we cannot trust any more is replaced
            raise WorkerDied(f"{type(e).__name__}: {e} {tail}".strip()) from e
        if self.groups and header["signal"] == 9:
            header["oom_kills"] = self.groups.new_oom_kills()
        return header, out, err


class SlotPool:
    def __init__(self, size: int, level: str, caps: jail.Capabilities, cache_dir: Path,
                 cgroup_parent: str | None = None):
        self.size = size
        self.level = level
        self.caps = caps
        self.tree = None
        if caps.cgroup and level != "none":
            try:
                self.tree = CgroupTree(cgroup_parent)
            except OSError:
                self.tree = None
        self.scratch = Path(tempfile.mkdtemp(prefix="tczoo-sandbox-"))
        os.chmod(self.scratch, 0o711)
        self.slots = [
            Slot(i, level, caps, cache_dir,
                 self.tree.slot(i) if self.tree else None,
                 self.scratch)
            for i in range(size)
        ]
        self._free: queue.SimpleQueue[Slot] = queue.SimpleQueue()
        for s in self.slots:
            self._free.put(s)
        self._lock = threading.Lock()

    def acquire(self) -> Slot:
        return self._free.get()

    def release(self, slot: Slot) -> None:
        self._free.put(slot)

    def close(self) -> None:
        for s in self.slots:
            s.stop()
            s.release_uid()
        if self.tree:
            self.tree.remove()
        import shutil

        shutil.rmtree(self.scratch, ignore_errors=True)
