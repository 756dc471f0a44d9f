"""Host side of the jailed workers: start one per slot, talk to it, restart it.

A slot = one uid, one jail, one worker process, one set of cgroups. A slot runs one
program at a time; parallelism comes from several slots. Slots start lazily on first
use and are handed out through a queue, so any thread may call ``Sandbox.run``.

Requests are pipelined: a batch queues several runs on a slot (``push`` ... ``commit``:
one write), the worker answers them in order and holds its replies until the host has
something to do with them (see worker.c), and ``feed`` parses whatever arrived at
once. Per run the host packs a request and parses a reply; the rest (the slot's
memory check, OOM kills, cleaning) is the worker's.
"""

from __future__ import annotations

import fcntl
import hashlib
import logging
import os
import queue
import select
import shutil
import socket
import struct
import subprocess
import tempfile
import threading
import time
from collections import deque
from pathlib import Path
from typing import Any

from tczoo.safeio.text import to_bytes
from tczoo.sandbox import jail
from tczoo.sandbox.cgroups import CgroupTree, SlotGroups

log = logging.getLogger("tczoo.sandbox")

WORKER_C = Path(__file__).parent / "worker.c"
HOST_SLACK_S = 10.0  # the worker enforces the wall guard; we only catch a stuck worker
# ... and a worker still using CPU past that (emptying a tree of a million files its
# program left) is working, not stuck: it gets HOST_SLACK_S more at a time, up to this.
MAX_PATIENCE_S = 300.0
PROBE_S = 1.0  # how long the host watches a late worker's CPU before it calls it stuck
SE_RETRIES = 2  # a run that failed in the sandbox is tried again on this many fresh slots
MAGIC = 0x7A637432
# exit_code, signal, cpu_ms, wall_ms, maxrss_kb, killed, stdout_len, stderr_len, dirty, oom_kills,
# start_failed ((stage << 16) | errno when the worker could not start the program: its own
# channel, never the program's stderr or exit code)
REPLY = struct.Struct("<qqddqqQQqqq")
LIMITS = struct.Struct("<I9Q")  # magic, then LIMIT_FIELDS
# kind (1 stdout, 2 stderr, 0 the reply: REPLY, then the rest of stdout and of stderr), length
FRAME = struct.Struct("<II")
CHUNK = 65536  # bytes of stdout or stderr the worker holds before it sends a frame (worker.c)
# a request's flags, its deadline (CLOCK_MONOTONIC in microseconds, time.monotonic()'s
# clock; 0: none) and its stdin's length; then stdin
TRAILER = struct.Struct("<IQQ")
FLAG_FLUSH = 1  # the worker sends its buffered replies after this run
FLAG_STDIO = 2  # the run's stdin and stdout come on the slot's stdio socket (an interactive run)
KILLED = {0: None, 1: "cpu", 2: "wall", 3: "output", 4: "deadline"}
KILLED_DEADLINE = 4  # the run was stopped at (or not started after) the caller's deadline
START_STAGES = {1: "cannot enter its run directory", 2: "cannot open its file", 3: "exec failed"}
DIRTY = {1: "could not empty its directories", 2: "memory held"}
PIPE_SIZE = 1 << 20  # request pipe's capacity asked for (bytes queued on a slot stay below half)
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


def worker_binary(cache_dir: Path, source_file: Path = WORKER_C) -> Path:
    """Build the C worker once per source version into the cache (trusted code).
    ``source_file``: another program speaking its protocol (bench/standin_worker.c)."""
    source = source_file.read_bytes()
    digest = hashlib.sha256(source).hexdigest()[:16]
    from tczoo.safeio.write import subdir

    Path(cache_dir).mkdir(parents=True, exist_ok=True)  # the folder the caller named
    target = subdir(cache_dir, "worker", digest) / "tczoo-worker"  # a link there is refused, never built through
    if target.exists():
        return target
    for d in (target.parent.parent, target.parent):
        os.chmod(d, 0o711)
    tmp = target.with_name(f".tmp-{os.getpid()}-{threading.get_ident()}")
    r = subprocess.run(["gcc", "-O2", "-o", str(tmp), str(source_file)],
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



class _Single:
    """One run's request for ``Slot.fill`` (a batch queues its own kind of item)."""

    __slots__ = ("request", "stdin", "deadline_us", "flags")

    def __init__(self, request: dict, stdin: bytes, deadline_us: int = 0, flags: int = 0):
        self.request, self.stdin, self.deadline_us, self.flags = request, stdin, deadline_us, flags


def header(fields: tuple) -> dict:
    """A reply's REPLY fields by name (-1 for no exit code or signal: None)."""
    code, sig, cpu, wall, rss, killed, _, _, dirty, ooms, start = fields
    return {"exit_code": None if code < 0 else code, "signal": None if sig < 0 else sig,
            "cpu_ms": cpu, "wall_ms": wall, "maxrss_kb": rss, "killed": KILLED[killed],
            "oom_kills": ooms, "dirty": dirty, "start_failed": start}


def start_failure(start: int) -> str:
    """The worker's reason for not starting a program (``REPLY.start_failed``)."""
    stage, err = start >> 16, start & 0xFFFF
    return f"cannot start program: {START_STAGES.get(stage, f'stage {stage}')}: {os.strerror(err)}"


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
        self._fds: list[int] = []  # cache dir, cgroup counters: the worker's, kept open
        self._stdio: socket.socket | None = None  # our end of the stdio socket (interactive runs)
        self.starts = 0  # jails started (restarts after a dirty run or a failure count)
        self.reply_fd = -1
        self._in_fd = -1
        self._buf = bytearray()  # reply bytes not parsed yet
        self._chunk = bytearray(READ_SIZE)  # what one read fills
        self._view = memoryview(self._chunk)
        self._poll: select.poll | None = None
        # Sent, not answered, in order: (caller's token, (stdout cap, stderr cap), how long
        # the worker may take on it (wall guard + slack), the request's size in bytes).
        self.inflight: deque[tuple[Any, tuple[int, int], float, int]] = deque()
        self.deadline = 0.0  # by when the worker must have answered the oldest of them
        self._queued_bytes = 0  # of the requests in flight: what the request pipe may hold
        self._pipe_room = 0
        self._limits: tuple[int, int] | None = None  # (memory, processes) of the runs in flight
        self._unflushed = 0  # requests sent since the last one with FLAG_FLUSH
        self._parts: tuple[list[bytes], list[bytes]] = ([], [])  # the oldest run's output so far
        self._sizes = [0, 0]
        # OOM kills in the slot's memory cgroup that the replies accounted for (the count at
        # start plus each reply's); more when a jail died means the run in flight's memory
        # made the kernel kill the jail (bwrap or the worker): ``oom_struck``, its MLE.
        self.oom_seen = 0
        self.oom_struck = False
        self._patience: tuple[float, int] | None = None  # (when the waiting began, slot CPU then)

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> None:
        if self.switch_uid and self.uid is None:
            self.uid, self._uid_lock = jail.claim_uid()
        # The worker opens each program's file below this fd: no path to the cache
        # exists in the jail, so a program sees its own binary and nothing else.
        cache_fd = os.open(self.cache_dir, os.O_RDONLY | os.O_DIRECTORY)
        cpu_fd = self.groups.open_cpu() if self.groups else None
        mem_fds, memory = self.groups.open_memory() if self.groups else ([], "-")
        # Interactive runs get their stdin and stdout from us on this socket (SCM_RIGHTS).
        self._stdio, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        stdio_fd = theirs.detach()
        self._fds = [cache_fd] + ([cpu_fd] if cpu_fd is not None else []) + mem_fds + [stdio_fd]
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
            cmd += ["--chdir", "/tmp", exe, *fds, "/tmp/run", "1", "1", "1", memory, str(stdio_fd),
                    *jail.JAIL_WRITABLE]
        else:
            run_dir = self.scratch / f"slot{self.index}"
            run_dir.mkdir(mode=0o700, exist_ok=True)
            if self.uid is not None:
                os.chown(run_dir, self.uid, self.uid)
            env["HOME"] = env["TMPDIR"] = str(run_dir)
            own = "1" if self.uid is not None else "0"  # kill(-1), IPC removal: all of our uid
            nproc_base = "1" if self.uid is not None else "-1"
            cmd += [exe, *fds, str(run_dir / "run"), own, nproc_base, own, memory, str(stdio_fd), str(run_dir)]
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
        self.reply_fd = self.proc.stdout.fileno()
        self._in_fd = self.proc.stdin.fileno()
        self._buf = bytearray()
        self._poll = select.poll()  # not select(): fds past 1023 are fine
        self._poll.register(self.reply_fd, select.POLLIN)
        self._pipe_room = self._widen_pipe() // 2
        self._limits = None
        try:
            deadline = time.monotonic() + 30
            while not self._buf:
                left = deadline - time.monotonic()
                if left <= 0 or not self.wait_reply(left):
                    raise TimeoutError("worker did not answer in time")
                self._read()
        except (WorkerDied, TimeoutError, OSError) as e:
            tail = self.stderr_tail()
            self.stop()
            raise WorkerDied(f"worker did not start: {e} {tail}") from e
        ready = bytes(self._buf)
        if ready != b"R":
            self.stop()
            raise WorkerDied(f"worker did not start: {ready!r}")
        self._buf.clear()
        if self.groups:
            self.groups.measure_idle()
            self.oom_seen = self.groups.oom_kills()
        self.oom_struck = False

    def _widen_pipe(self) -> int:
        """A request pipe large enough for a queue of small runs: never a blocked write."""
        try:
            return fcntl.fcntl(self._in_fd, fcntl.F_SETPIPE_SZ, PIPE_SIZE)
        except OSError:
            try:
                return fcntl.fcntl(self._in_fd, fcntl.F_GETPIPE_SZ)
            except OSError:
                return 0

    def stop(self) -> None:
        """Tear the jail down (what was in flight is lost: ``reset`` hands it back)."""
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
            self._poll = None
            self.reply_fd = self._in_fd = -1
        if self.groups:
            self.groups.kill()
        for fd in self._fds:
            os.close(fd)
        self._fds = []
        if self._stdio is not None:
            self._stdio.close()
            self._stdio = None

    def reset(self) -> list[Any]:
        """Stop the jail; the tokens of the runs it had not answered, oldest first.
        ``oom_struck``: the slot's memory cgroup killed a process the replies did not
        account for, i.e. during the run in flight (the first token): when the jail died
        so, the run's memory killed it (the jail cannot be exempt from the OOM killer
        where root lacks CAP_SYS_RESOURCE, and a program with a tiny RSS that fills tmpfs
        then leaves bwrap or the worker the largest process)."""
        self.oom_struck = bool(self.inflight and self.groups and self.oom_seen >= 0
                               and self.groups.oom_kills() > self.oom_seen)
        self._patience = None
        self.stop()
        lost = [r[0] for r in self.inflight]
        self.inflight.clear()
        self._queued_bytes = self._unflushed = 0
        self._parts = ([], [])
        self._sizes = [0, 0]
        return lost

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

    def fill(self, queue: deque, depth: int, step: int) -> None:
        """Send requests from the left of ``queue`` until ``depth`` runs are in flight,
        in one write. Started slots only (``ensure_started`` first). A queued item has
        ``request`` (``Sandbox._request``'s), ``stdin`` (bytes) and ``deadline_us`` (the
        caller's deadline in ``time.monotonic()`` microseconds, 0: none: the worker stops
        the run there, or does not start it); it comes back as the token of its reply. Every ``step``-th request asks the worker to send the replies
        it holds (``FLAG_FLUSH``): one wake-up of the host per that many runs.

        An idle slot takes anything (and the cgroup limits of its first run); a busy
        one only runs under the limits it has (they are per slot) and no more bytes
        than its request pipe holds (a write blocked while the worker writes output to
        us would never end). Raises ``WorkerDied`` when the worker is gone (``reset``
        then hands back what was in flight).
        """
        inflight = self.inflight
        queued, room, limits, count = self._queued_bytes, self._pipe_room, self._limits, self._unflushed
        trailer, trailer_size = TRAILER.pack, TRAILER.size
        out: list[bytes] = []
        try:
            while queue and len(inflight) < depth:
                item = queue[0]
                request, stdin = item.request, item.stdin
                prefix = request["prefix"]
                size = len(prefix) + trailer_size + len(stdin)
                if inflight and (request["cgroup"] != limits or queued + size > room):
                    break
                queue.popleft()
                count += 1
                flags = item.flags
                if count >= step:
                    flags, count = flags | FLAG_FLUSH, 0
                inflight.append((item, request["caps"], request["guard_s"], size))
                queued += size
                out += (prefix, trailer(flags, item.deadline_us, len(stdin)), stdin)
                if len(inflight) == 1:  # an idle slot: its first run sets the pace and the limits
                    self.deadline = time.monotonic() + request["guard_s"]
                    if request["cgroup"] != limits:
                        limits = self._limits = None
                        if self.groups:
                            self.groups.set_limits(*request["cgroup"])
                        limits = self._limits = request["cgroup"]
        except OSError as e:  # the run is in flight: ``reset`` hands it back
            raise WorkerDied(f"{type(e).__name__}: {e}") from e
        finally:
            self._queued_bytes, self._unflushed = queued, count
        if not out:
            return
        try:
            view = memoryview(b"".join(out))
            while view:
                view = view[os.write(self._in_fd, view):]
        except (OSError, ValueError) as e:
            raise WorkerDied(f"{type(e).__name__}: {e} {self.stderr_tail()}".strip()) from e

    def send_stdio(self, stdin_fd: int, stdout_fd: int) -> None:
        """Hand the next run's stdin and stdout to the worker (an interactive run's pipes);
        then queue its request with ``FLAG_STDIO``. ``WorkerDied`` when it cannot take them."""
        if self._stdio is None:
            raise WorkerDied("the slot has no stdio socket")
        try:
            socket.send_fds(self._stdio, [b"F"], [stdin_fd, stdout_fd])
        except OSError as e:
            raise WorkerDied(f"cannot hand the run its pipes: {e}") from e

    def wait_reply(self, seconds: float) -> bool:
        """Whether the reply fd became readable within ``seconds``."""
        return bool(self._poll.poll(seconds * 1000 + 1))

    def _read(self) -> None:
        # Into a buffer kept for the purpose: os.read would allocate (and page-fault
        # in) READ_SIZE bytes per call, which cost more than parsing a run's reply.
        n = os.readv(self.reply_fd, (self._chunk,))
        if not n:
            raise WorkerDied("worker closed its pipe")
        self._buf += self._view[:n]

    def feed(self) -> tuple[list[tuple[Any, tuple, bytes, bytes]], list[Any], str | None]:
        """Read what the worker sent (the reply fd is readable). Returns the runs it
        completed, as (token, REPLY fields, stdout, stderr) in order; the tokens of runs the
        slot lost, oldest first; and why, when the worker failed (then the first lost
        run is the one it failed on, and the others never started). Runs are lost
        without a failure when a run left the slot dirty: the jail is replaced before
        anything else runs in it."""
        done: list[tuple[Any, tuple, bytes, bytes]] = []
        try:
            self._read()
            dirty = self._parse(done)
        except (OSError, WorkerDied, ValueError, KeyError, IndexError, struct.error) as e:
            return done, self.reset(), f"{type(e).__name__}: {e} {self.stderr_tail()}".strip()
        if dirty:
            log.warning("sandbox slot %d kept state after a run (%s): restarting it", self.index,
                        DIRTY.get(dirty, dirty))
            return done, self.reset(), None
        return done, [], None

    def _parse(self, done: list) -> int:
        """Parse complete frames in the buffer into ``done``; a reply's dirty flag, or 0."""
        buf, inflight = self._buf, self.inflight
        n, pos, dirty = len(buf), 0, 0
        frame, reply, frame_size, reply_size = FRAME.unpack_from, REPLY.unpack_from, FRAME.size, REPLY.size
        try:
            while n - pos >= frame_size and not dirty:
                kind, length = frame(buf, pos)
                start = pos + frame_size
                end = start + length
                if kind == 0:  # a run's reply, with the end of its output
                    if not reply_size <= length <= reply_size + 2 * CHUNK:
                        raise WorkerDied(f"bad reply frame ({length} bytes)")
                    if n < end:
                        break
                    if not inflight:
                        raise WorkerDied("a reply to no request")
                    fields = reply(buf, start)
                    run = inflight.popleft()
                    sizes = self._sizes
                    out_tail, err_tail = fields[6] - sizes[0], fields[7] - sizes[1]
                    if (out_tail < 0 or err_tail < 0 or out_tail + err_tail != length - reply_size
                            or fields[6] > run[1][0] or fields[7] > run[1][1]):
                        raise WorkerDied("reply sizes do not match the output frames")
                    if fields[5] not in KILLED:
                        raise WorkerDied(f"bad reply (killed={fields[5]})")
                    mid = start + reply_size + out_tail
                    if sizes[0] or sizes[1]:  # a long output came in frames before
                        out_parts, err_parts = self._parts
                        out = b"".join((*out_parts, buf[start + reply_size:mid]))
                        err = b"".join((*err_parts, buf[mid:end]))
                        self._parts, self._sizes = ([], []), [0, 0]
                    else:
                        out = bytes(buf[start + reply_size:mid])
                        err = bytes(buf[mid:end]) if err_tail else b""
                    self._queued_bytes -= run[3]
                    if fields[9]:
                        self.oom_seen += fields[9]
                    done.append((run[0], fields, out, err))
                    dirty = fields[8]
                    pos = end
                    continue
                if kind not in (1, 2) or not 0 < length <= CHUNK:
                    raise WorkerDied(f"bad frame {kind}/{length}")
                if n < end:
                    break
                if not inflight:
                    raise WorkerDied("output for no request")
                sizes = self._sizes
                sizes[kind - 1] += length
                if sizes[kind - 1] > inflight[0][1][kind - 1]:
                    raise WorkerDied("worker sent more output than the cap")
                self._parts[kind - 1].append(bytes(buf[start:end]))
                pos = end
        finally:
            del buf[:pos]
            if done:
                self._patience = None
                if inflight:  # the oldest run in flight is a new one
                    self.deadline = time.monotonic() + inflight[0][2]
        return dirty

    def working(self) -> bool:
        """The oldest run's deadline passed: is the worker still working (the slot's CPU
        grew since the deadline was last moved, e.g. it is emptying a huge tree its
        program left), not stuck? Then its deadline moves by HOST_SLACK_S, up to
        MAX_PATIENCE_S in all. Read only when a deadline passed."""
        cpu = self.groups.cpu_ns() if self.groups else -1
        now = time.monotonic()
        if cpu < 0:
            return False
        if self._patience is None:  # look again in a second: did it use CPU meanwhile?
            self._patience = (now, cpu)
            self.deadline = now + PROBE_S
            return True
        since, before = self._patience
        if cpu <= before or now - since > MAX_PATIENCE_S:
            return False
        self._patience = (since, cpu)
        self.deadline = now + HOST_SLACK_S
        return True

    def fail(self, why: str) -> tuple[list[Any], str]:
        """The caller gave up on the oldest run (its deadline passed): replace the jail.
        Returns ``feed``'s lost tokens and reason."""
        return self.reset(), f"TimeoutError: {why} {self.stderr_tail()}".strip()

    def execute(self, request: dict, stdin: bytes, deadline_us: int = 0) -> tuple[tuple, bytes, bytes]:
        """One run on a started, idle slot (``ensure_started`` first); raises
        ``WorkerDied`` when the worker failed on it."""
        try:
            self.fill(deque([_Single(request, stdin, deadline_us)]), 1, 1)
        except WorkerDied:
            self.reset()
            raise
        while True:
            left = self.deadline - time.monotonic()
            if left <= 0 or not self.wait_reply(left):
                if self.working():
                    continue
                _, why = self.fail("worker did not answer in time")
                raise WorkerDied(why)
            done, _, why = self.feed()
            if why is not None:
                raise WorkerDied(why)
            if done:
                return done[0][1:]


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
        self._cache_dir = cache_dir
        # Interactors' slots (Sandbox.interact): made on first use, one per slot, each
        # with its own uid, jail and cgroups, so that a run holding a slot always finds
        # its partner free. They join ``slots`` (everything the pool runs).
        self._partners: queue.SimpleQueue[Slot] | None = None
        self._partner_lock = threading.Lock()

    def acquire_partner(self) -> Slot:
        """A slot for the other side of an interactive run (held with one of ``slots``)."""
        with self._partner_lock:
            if self._partners is None:
                self._partners = queue.SimpleQueue()
                for i in range(self.size, 2 * self.size):
                    slot = Slot(i, self.level, self.caps, self._cache_dir,
                                self.tree.slot(i) if self.tree else None, self.scratch)
                    self.slots.append(slot)
                    self._partners.put(slot)
            partners = self._partners
        return partners.get()

    def release_partner(self, slot: Slot) -> None:
        assert self._partners is not None
        self._partners.put(slot)

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
        with self._partner_lock:
            slots = list(self.slots)
        for s in slots:
            s.stop()
            s.release_uid()
        if self.tree:
            self.tree.remove()
        shutil.rmtree(self.scratch, ignore_errors=True)
