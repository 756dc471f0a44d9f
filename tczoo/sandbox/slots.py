"""Host side of the jailed workers: start one per slot, talk to it, restart it.

A slot = one uid, one jail, one worker process, one set of cgroups. A slot runs one
program at a time; parallelism comes from several slots. Slots start lazily on first
use and are handed out through a queue, so any thread may call ``Sandbox.run``.
"""

from __future__ import annotations

import hashlib
import logging
import os
import queue
import select
import shutil
import struct
import subprocess
import tempfile
import threading
import time
from pathlib import Path

from tczoo.safetext import to_bytes
from tczoo.sandbox import jail
from tczoo.sandbox.cgroups import CgroupTree, SlotGroups

log = logging.getLogger("tczoo.sandbox")

WORKER_C = Path(__file__).parent / "worker.c"
HOST_SLACK_S = 10.0  # the worker enforces the wall guard; we only catch a stuck worker
SE_RETRIES = 2  # a run that failed in the sandbox is tried again on this many fresh slots
MAGIC = 0x7A637431
# exit_code, signal, cpu_ms, wall_ms, maxrss_kb, killed, stdout_len, stderr_len, dirty
REPLY = struct.Struct("<qqddqqQQq")
LIMITS = struct.Struct("<I9Q")  # magic, then LIMIT_FIELDS
FRAME = struct.Struct("<II")  # kind (0 end, 1 stdout, 2 stderr), length; then the bytes
KILLED = {0: None, 1: "cpu", 2: "wall", 3: "output"}
LIMIT_FIELDS = ("cpu_ms", "wall_ms", "cpu_s", "out_bytes", "err_bytes", "file_bytes",
                "nproc", "stack_bytes", "as_bytes")
PROGRAM_ENV = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": "/tmp", "TMPDIR": "/tmp"}
READ_SIZE = 1 << 18
U64_MAX = (1 << 64) - 1

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
        os.chmod(d, 0o711)
    tmp = target.with_name(f".tmp-{os.getpid()}-{threading.get_ident()}")
    r = subprocess.run(["gcc", "-O2", "-o", str(tmp), str(WORKER_C)],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"cannot build the sandbox worker (gcc): {r.stderr[-2000:]}")
    os.chmod(tmp, 0o755)
    os.replace(tmp, target)
    return target


def pack_limits(lim: dict) -> bytes:
    return LIMITS.pack(MAGIC, *(min(int(lim[k] or 0), U64_MAX) for k in LIMIT_FIELDS))


def pack_prefix(request: dict) -> bytes:
    """Everything of a request but its stdin (the same for every test of a program)."""
    lim = request["limits"]
    parts = [lim.get("packed") or pack_limits(lim)]
    artifact = (request.get("artifact") or "").encode()
    parts += [struct.pack("<I", len(artifact)), artifact]
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
    return b"".join(parts)


def pack_request(request: dict, stdin: bytes) -> bytes:
    prefix = request.get("prefix") or pack_prefix(request)
    return b"".join((prefix, struct.pack("<Q", len(stdin)), stdin))


class _Reader:
    """The worker's reply pipe, read in large chunks (one read for a typical run)."""

    def __init__(self, fd: int):
        self.fd = fd
        self.buf = bytearray()
        self._poll = select.poll()  # not select(): fds past 1023 are fine
        self._poll.register(fd, select.POLLIN)

    def wait(self, seconds: float) -> bool:
        return bool(self._poll.poll(seconds * 1000 + 1))

    def read_once(self) -> None:
        b = os.read(self.fd, READ_SIZE)
        if not b:
            raise WorkerDied("worker closed its pipe")
        self.buf += b

    def need(self, n: int, deadline: float | None) -> None:
        """Read until the buffer holds at least n bytes."""
        while len(self.buf) < n:
            if deadline is not None:
                left = deadline - time.monotonic()
                if left <= 0 or not self.wait(left):
                    raise TimeoutError("worker did not answer in time")
            self.read_once()

    def exact(self, n: int, deadline: float | None) -> bytes:
        self.need(n, deadline)
        data = bytes(self.buf[:n])
        del self.buf[:n]
        return data


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
        self._fds: list[int] = []  # cache dir, cgroup CPU counter: the worker's, kept open
        self._reader: _Reader | None = None
        self._reply: _Reply | None = None  # the run in flight
        self.starts = 0  # jails started (restarts after a dirty run or a failure count)

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> None:
        if self.switch_uid and self.uid is None:
            self.uid, self._uid_lock = jail.claim_uid()
        # The worker opens each program's file below this fd: no path to the cache
        # exists in the jail, so a program sees its own binary and nothing else.
        cache_fd = os.open(self.cache_dir, os.O_RDONLY | os.O_DIRECTORY)
        cpu_fd = self.groups.open_cpu() if self.groups else None
        self._fds = [cache_fd] + ([cpu_fd] if cpu_fd is not None else [])
        worker = worker_binary(self.cache_dir)
        exe = f"/proc/self/fd/{cache_fd}/{worker.relative_to(self.cache_dir)}"
        fds = [str(cache_fd), str(cpu_fd if cpu_fd is not None else -1)]
        cmd: list[str] = []
        env = dict(PROGRAM_ENV)
        if self.uid is not None:
            cmd += jail.setpriv_prefix(self.caps, self.uid)
        if self.level in ("full", "bwrap"):
            cmd += jail.bwrap_base(self.caps, pid1=True)
            cmd += jail.bwrap_seal()
            for k, v in PROGRAM_ENV.items():
                cmd += ["--setenv", k, v]
            cmd += ["--chdir", "/tmp", exe, *fds, "/tmp/run", "1", "1", "1", *jail.JAIL_WRITABLE]
        else:
            run_dir = self.scratch / f"slot{self.index}"
            run_dir.mkdir(mode=0o700, exist_ok=True)
            if self.uid is not None:
                os.chown(run_dir, self.uid, self.uid)
            env["HOME"] = env["TMPDIR"] = str(run_dir)
            own = "1" if self.uid is not None else "0"  # kill(-1), IPC removal: all of our uid
            nproc_base = "1" if self.uid is not None else "-1"
            cmd += [exe, *fds, str(run_dir / "run"), own, nproc_base, own, str(run_dir)]
        # Before anything forks: exempt the jail (bwrap, worker) from the OOM killer,
        # so a run at its memory limit loses the program, never the worker (it sets
        # its programs to +1000); and join the slot's cgroups, so nothing escapes them.
        script = ('{ echo -1000 > /proc/self/oom_score_adj; } 2>/dev/null; '
                  'for f in $TCZOO_CG; do echo $$ > "$f" || exit 1; done; unset TCZOO_CG; exec "$@"')
        cmd = ["/bin/sh", "-c", script, "sh", *cmd]
        env["TCZOO_CG"] = " ".join(str(p) for p in self.groups.procs_files) if self.groups else ""
        self._err = tempfile.TemporaryFile()
        self.proc = _spawn(
            cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._err,
            pass_fds=self._fds, env=env, bufsize=0,
        )
        self.starts += 1
        self._reader = _Reader(self.proc.stdout.fileno())
        try:
            ready = self._reader.exact(1, time.monotonic() + 30)
        except (WorkerDied, TimeoutError) as e:
            tail = self.stderr_tail()
            self.stop()
            raise WorkerDied(f"worker did not start: {e} {tail}") from e
        if ready != b"R":
            self.stop()
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
            self._reader = None
        if self.groups:
            self.groups.kill()
        for fd in self._fds:
            os.close(fd)
        self._fds = []

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

    def ensure_started(self) -> None:
        # A worker that died since its last answer is not looked for here (a waitpid
        # per run): the request then meets a closed pipe, and the run is retried on a
        # fresh jail like any other sandbox failure.
        if self.proc is None or self.proc.returncode is not None:
            self.stop()
            self.start()

    @property
    def reply_fd(self) -> int:
        return self._reader.fd

    def send(self, request: dict, stdin: bytes, memory_bytes: int, processes: int) -> None:
        """Start one run on a started slot (``ensure_started`` first); its reply is read
        with ``execute``'s loop or, by a caller polling ``reply_fd``, with ``feed``."""
        lim = request["limits"]
        self._reply = _Reply(self._reader.buf, lim["out_bytes"], lim["err_bytes"])
        try:
            if self.groups:
                self.groups.set_limits(memory_bytes, processes)
            data = pack_request(request, stdin)
            fd = self.proc.stdin.fileno()
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
        except (OSError, ValueError, KeyError, struct.error) as e:
            self._fail(e)

    def feed(self) -> tuple[dict, bytes, bytes] | None:
        """Read what the worker sent (the reply fd is readable); the reply when complete."""
        try:
            self._reader.read_once()
            reply = self._reply.parse()
        except (OSError, WorkerDied, ValueError, KeyError, struct.error) as e:
            self._fail(e)
        return None if reply is None else self._finish(reply)

    def wait_reply(self, seconds: float) -> bool:
        """Whether the reply fd became readable within ``seconds``."""
        return self._reader.wait(seconds)

    def fail(self, why: str) -> None:
        """The caller gave up on this run (e.g. its deadline passed): replace the jail."""
        self._fail(TimeoutError(why))

    def execute(self, request: dict, stdin: bytes, memory_bytes: int, processes: int,
                deadline: float) -> tuple[dict, bytes, bytes]:
        """One run on a started slot (``ensure_started`` first)."""
        self.send(request, stdin, memory_bytes, processes)
        while True:
            reply = self._reply.parse() if self._reader.buf else None
            if reply is not None:
                return self._finish(reply)
            left = deadline - time.monotonic()
            if left <= 0 or not self.wait_reply(left):
                self.fail("worker did not answer in time")
            reply = self.feed()
            if reply is not None:
                return reply

    def _fail(self, e: BaseException) -> None:
        tail = self.stderr_tail()
        self.stop()  # a worker we cannot trust any more is replaced
        raise WorkerDied(f"{type(e).__name__}: {e} {tail}".strip()) from e

    def _finish(self, reply: tuple[dict, bytes, bytes]) -> tuple[dict, bytes, bytes]:
        header = reply[0]
        self._reply = None
        if self.groups and header["signal"] == 9:
            header["oom_kills"] = self.groups.new_oom_kills()
        # Nothing of this run may reach the next one: a jail the worker could not
        # empty, or whose memory is not back to the idle jail's, is replaced.
        if header["dirty"] or (self.groups and not self.groups.settled()):
            log.warning("sandbox slot %d kept state after a run (%s): restarting it", self.index,
                        "could not empty its directories" if header["dirty"] else "memory held")
            self.stop()
        return reply


class _Reply:
    """Parses one run's reply frames as they arrive: stdout and stderr chunks, then the
    fixed reply. Keeps its place, so a large output is parsed once."""

    def __init__(self, buf: bytearray, out_cap: int, err_cap: int):
        self.buf = buf
        self.caps = (out_cap, err_cap)
        self.pos = 0
        self.spans: tuple[list, list] = ([], [])  # (start, end) of each stdout / stderr frame
        self.sizes = [0, 0]

    def parse(self) -> tuple[dict, bytes, bytes] | None:
        buf = self.buf
        while len(buf) >= self.pos + FRAME.size:
            kind, length = FRAME.unpack_from(buf, self.pos)
            start, end = self.pos + FRAME.size, self.pos + FRAME.size + length
            if kind == 0:
                if length != REPLY.size:
                    raise WorkerDied(f"bad reply frame ({length} bytes)")
                if len(buf) < end:
                    return None
                if len(buf) != end:
                    raise WorkerDied("stray bytes after the reply")
                return self._done(REPLY.unpack_from(buf, start))
            if kind not in (1, 2) or length > READ_SIZE:
                raise WorkerDied(f"bad frame {kind}/{length}")
            if len(buf) < end:
                return None
            self.sizes[kind - 1] += length
            if self.sizes[kind - 1] > self.caps[kind - 1]:
                raise WorkerDied("worker sent more output than the cap")
            self.spans[kind - 1].append((start, end))
            self.pos = end
        return None

    def _done(self, fields: tuple) -> tuple[dict, bytes, bytes]:
        out, err = (b"".join(self.buf[a:b] for a, b in s) for s in self.spans)
        self.buf.clear()
        code, sig, cpu, wall, rss, killed, out_len, err_len, dirty = fields
        if (out_len, err_len) != tuple(self.sizes):
            raise WorkerDied("reply sizes do not match the output frames")
        header = {"exit_code": None if code < 0 else code, "signal": None if sig < 0 else sig,
                  "cpu_ms": cpu, "wall_ms": wall, "maxrss_kb": rss, "killed": KILLED[killed],
                  "oom_kills": 0, "dirty": bool(dirty)}
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
            except OSError as e:
                log.warning("tczoo sandbox: cannot make cgroups (%s): limits rely on rlimits only", e)
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

    def acquire(self, timeout: float | None = None) -> Slot | None:
        try:
            return self._free.get(timeout=timeout)
        except queue.Empty:
            return None

    def try_acquire(self) -> Slot | None:
        try:
            return self._free.get_nowait()
        except queue.Empty:
            return None

    def release(self, slot: Slot) -> None:
        self._free.put(slot)

    def close(self) -> None:
        for s in self.slots:
            s.stop()
            s.release_uid()
        if self.tree:
            self.tree.remove()
        shutil.rmtree(self.scratch, ignore_errors=True)
