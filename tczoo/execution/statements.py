"""Python programs against test *statements*: the protocol of CodeT and human-eval.

A function-level test is often not an (arguments, expected value) pair but a statement
to execute after the program: ``assert f(1) == 2, "msg"``, ``assert set(f(x)) == {1}``,
a whole ``check(candidate)`` program followed by ``check(f)``. A statement *passes*
when it runs to its end without an exception within its time limit. CodeT (Chen et al.,
ICLR 2023) and human-eval run them this way, in the program's own process; so does this
module, in the sandbox:

- ``run_statements(sandbox, programs, statements, time_s=...)`` runs every program, and
  after it every statement, in order, each statement under ``time_s`` seconds of CPU
  (``ITIMER_PROF``); a program whose own loading (its top-level code) fails, or that
  raises a ``BaseException`` that is not an ``Exception`` (``SystemExit`` ...), or does
  not finish within its budget, passes no statement (CodeT: its process gave no result);
- identical programs and identical statements run once;
- **one jail per batch of programs, one process per program**: a driver (below) starts
  in a sandboxed run, reads the whole batch, compiles the statements once, and forks one
  child per program. The child cannot fork (the run allows two processes), cannot trace
  any process, read another's memory, use SysV or POSIX IPC, or send any signal but
  SIGKILL to one process (a seccomp filter the driver installs once, before its first
  fork); it has ``/dev/null`` as stdin, stdout and stderr and memory capped at the run's
  limit; the jail's writable places are wiped between children; the driver is not
  dumpable, and no input file is left for a child to rewrite. A child that kills the
  driver ends its batch early (below). The child writes its verdicts on a pipe of
  its own; the driver watches its CPU time and wall time and kills it past its budget;
- a batch that ends early (a child killed the driver) leaves the programs it did not
  report; each of those runs again in a batch of its own, where whatever happens is that
  program's own doing.

The per-process cost is a ``fork`` of a warm interpreter, not a fresh one: a batch of
75 programs costs one interpreter start, not 75. Statements are compiled once per batch.
"""

from __future__ import annotations

import json
import math
import platform
import secrets
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

from tczoo.errors import InfrastructureFailure
from tczoo.sandbox.types import Job, Limits, Verdict
from tczoo.schema import Language, Program, TestCase

if TYPE_CHECKING:
    from tczoo.sandbox import Sandbox

STATEMENT = "statement"  # TestCase.meta["kind"] of a test that is a statement (input: its source)


def statement_test(source: str, origin: str = "") -> TestCase:
    """A test that is a statement to execute after the program (``input``: its source;
    no expected output: it passes when it runs to its end)."""
    return TestCase(input=source, output=None, origin=origin, meta={"kind": STATEMENT})


def is_statement(test: TestCase) -> bool:
    return test.meta.get("kind") == STATEMENT


# Results of one program: "ok" with a verdict per statement; "load_error" (its own code
# raised while loading), "aborted" (a BaseException escaped a statement), "killed"
# (over its CPU or wall budget, or it died): no statement passed.
STATUSES = ("ok", "load_error", "aborted", "killed")

# Per statement: 1 passed, 0 failed (an exception, a failed assert), 2 stopped by its
# time limit (failed; told apart so a report can say where a time limit decided).
PASSED, FAILED, TIMED_OUT = "1", "0", "2"

# The driver's seccomp filter, installed once before the first fork and inherited by
# every child (x86_64, aarch64 numbers): kill only as SIGKILL to one process (the driver
# stopping a child; a child that kills the driver only ends its batch early, and what
# was not reported runs again alone), and no other signal to anyone, no tracing, no
# other process's memory, no SysV or POSIX IPC.
_FILTER = {
    # arch, kill, [tkill, tgkill, rt_sigqueueinfo, rt_tgsigqueueinfo, pidfd_send_signal, ptrace,
    #              process_vm_readv, process_vm_writev, shmget, semget, msgget, mq_open, pidfd_getfd]
    "x86_64": (0xC000003E, 62, [200, 234, 129, 297, 424, 101, 310, 311, 29, 64, 68, 240, 438]),
    "aarch64": (0xC00000B7, 129, [130, 131, 138, 240, 424, 117, 270, 271, 194, 190, 186, 180, 438]),
}

DRIVER = r'''
import json, os, signal, sys, time

BATCH = "batch.json"


def _main():
    with open(BATCH, "rb") as f:
        batch = json.loads(f.read())
    os.unlink(BATCH)  # everything is in memory: no child can rewrite a later one's input
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE 0: children cannot trace or read the driver
    prog, raw = _seccomp_program(ctypes, *batch["filter"])
    # PR_SET_NO_NEW_PRIVS, then PR_SET_SECCOMP with SECCOMP_MODE_FILTER: once, for all children
    filtered = libc.prctl(38, 1, 0, 0, 0) == 0 and libc.prctl(22, 2, ctypes.byref(prog), 0, 0) == 0
    for name in batch["preload"]:
        try:
            __import__(name)
        except Exception:
            pass
    marker = batch["marker"]
    out = os.fdopen(os.dup(1), "w")
    null = os.open(os.devnull, os.O_RDWR)
    statements = []
    for text in batch["statements"]:
        try:
            statements.append(compile(text, "<test>", "exec"))
        except BaseException:
            statements.append(None)
    step = batch["time_s"]
    load_s = batch["load_s"]
    budget = batch["budget_s"]
    memory = batch["memory_bytes"]
    wall_factor = batch["wall_factor"]
    # Wipe between children only inside a jail of our own: its /tmp and /dev/shm are
    # private tmpfs (run dir /tmp/run, an unprivileged uid). Anywhere else (a weaker
    # isolation level, or this driver started by hand) they are the machine's.
    wipe = batch["wipe"] and os.getcwd() == "/tmp/run" and os.geteuid() != 0
    for index, source in enumerate(batch["programs"]):
        if not filtered:
            out.write("%s %d nofilter -\n" % (marker, index))
            continue
        status, bits = _one(source, statements, step, load_s, budget, memory, wall_factor, null)
        out.write("%s %d %s %s\n" % (marker, index, status, bits or "-"))
        out.flush()
        if wipe and not _wipe():
            out.write("%s dirty\n" % marker)
            out.flush()
            return


def _seccomp_program(ctypes, arch, kill, blocked):
    # classic BPF over struct seccomp_data: nr at 0, arch at 4, args[i] at 16 + 8 i (low word)
    LD, JEQ, JGT, RET = 0x20, 0x15, 0x25, 0x06
    ALLOW, DENY = 0x7FFF0000, 0x00050000 | 1  # SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO | EPERM
    prog = [("ld", LD, 4), ("jeq", JEQ, arch, None, "deny"), ("ld", LD, 0),
            ("jeq", JEQ, kill, None, "other"),
            ("ld", LD, 16), ("jeq", JEQ, 0, "deny", None), ("jgt", JGT, 0x7FFFFFFF, "deny", None),
            ("ld", LD, 24), ("jeq", JEQ, 9, "allow", "deny"), ("label", "other")]
    prog += [("jeq", JEQ, nr, "deny", None) for nr in blocked]
    prog += [("label", "allow"), ("ret", RET, ALLOW), ("label", "deny"), ("ret", RET, DENY)]
    at, n = {}, 0
    for ins in prog:
        if ins[0] == "label":
            at[ins[1]] = n
        else:
            n += 1
    code, n = [], 0
    for ins in prog:
        if ins[0] == "label":
            continue
        jt = jf = 0
        if ins[0] in ("jeq", "jgt"):
            jt = 0 if ins[3] is None else at[ins[3]] - n - 1
            jf = 0 if ins[4] is None else at[ins[4]] - n - 1
        code.append(ins[1].to_bytes(2, "little") + bytes([jt, jf]) + (ins[2] & 0xFFFFFFFF).to_bytes(4, "little"))
        n += 1
    raw = ctypes.create_string_buffer(b"".join(code))

    class Prog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    return Prog(len(code), ctypes.cast(raw, ctypes.c_void_p)), raw


class _Timeout(Exception):
    pass


_FIRES = [0]
GIVE_UP = 3  # a statement whose code swallowed its time limit twice is not stopping


def _alarm(signum, frame):
    _FIRES[0] += 1
    if _FIRES[0] >= GIVE_UP:
        os._exit(3)  # the parent sees no verdicts: "killed", as a process over its time is
    raise _Timeout()


def _arm(seconds):
    _FIRES[0] = 0
    signal.setitimer(signal.ITIMER_PROF, seconds, seconds)  # fires again while it is swallowed


def _child(source, statements, step, load_s, memory, null, w):
    import resource
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.dup2(null, 2)
    # nothing of the driver's stays open: not its copy of the result channel to the
    # host, nor the program file (only stdio on /dev/null and this child's own pipe)
    os.closerange(3, w)
    os.closerange(w + 1, 1 << 20)
    if memory:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    signal.signal(signal.SIGPROF, _alarm)
    ns = {"__name__": "__main__", "__builtins__": __builtins__}
    try:
        _arm(load_s)
        try:
            exec(compile(source, "<solution>", "exec"), ns)
        finally:
            signal.setitimer(signal.ITIMER_PROF, 0)
    except Exception:
        os.write(w, b"load_error")
        os._exit(0)
    except BaseException:
        os.write(w, b"aborted")
        os._exit(0)
    bits = []
    try:
        for code in statements:
            if code is None:
                bits.append("0")
                continue
            try:
                _arm(step)
                try:
                    exec(code, ns)
                finally:
                    signal.setitimer(signal.ITIMER_PROF, 0)
                bits.append("1")
            except _Timeout:
                bits.append("2")
            except Exception:
                bits.append("0")
    except BaseException:
        os.write(w, b"aborted")
        os._exit(0)
    os.write(w, ("ok " + "".join(bits)).encode())
    os._exit(0)


def _cpu(pid):
    try:
        with open("/proc/%d/stat" % pid, "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def _one(source, statements, step, load_s, budget, memory, wall_factor, null):
    import select
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(r)
            _child(source, statements, step, load_s, memory, null, w)
        finally:
            os._exit(0)
    os.close(w)
    chunks, started, killed = [], time.monotonic(), False
    poller = select.poll()
    poller.register(r, select.POLLIN | select.POLLHUP)
    while True:
        if poller.poll(20):
            data = os.read(r, 1 << 16)
            if not data:
                break
            chunks.append(data)
            continue
        if _cpu(pid) > budget or time.monotonic() - started > wall_factor * budget + 2.0:
            killed = True
            break
    if killed:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    os.close(r)
    os.waitpid(pid, 0)
    reply = b"".join(chunks).decode()
    if killed or not reply:
        return "killed", ""
    if reply.startswith("ok "):
        return "ok", reply[3:]
    return reply, ""


def _wipe():
    """Empty the jail's writable places after a child (what it wrote is gone)."""
    import shutil
    for root in ("/tmp", "/dev/shm"):
        try:
            entries = list(os.scandir(root))
        except OSError:
            continue
        for entry in entries:
            path = entry.path
            if path == "/tmp/run":
                try:
                    inner = list(os.scandir(path))
                except OSError:
                    return False
                for sub in inner:
                    if not _remove(sub.path, shutil):
                        return False
                continue
            if not _remove(path, shutil):
                return False
    return True


def _remove(path, shutil):
    try:
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path)
        else:
            os.unlink(path)
        return True
    except BaseException:
        return False


_main()
'''

DRIVER_PROGRAM = Program(code=DRIVER, language=Language.PYTHON, name="tczoo-statements-driver")

# Modules the driver imports before forking, so a program's ``import math`` costs nothing
# (the standard library modules HumanEval's and MBPP's programs and checks use).
PRELOAD = ("math", "re", "string", "itertools", "functools", "collections", "heapq", "bisect", "typing",
           "random", "statistics", "fractions", "decimal", "hashlib", "copy", "operator", "datetime", "array",
           "sys", "resource", "select", "ctypes")


@dataclass
class StatementRun:
    """One program on the statements: ``status`` (``STATUSES``) and, when ``ok``, one
    character per statement (``PASSED``, ``FAILED``, ``TIMED_OUT``)."""

    status: str
    results: str = ""
    detail: str = ""
    statements: int = 0

    @property
    def passed(self) -> list[bool]:
        if self.status != "ok":
            return [False] * self.statements
        return [c == PASSED for c in self.results]

    @property
    def timeouts(self) -> int:
        return self.results.count(TIMED_OUT) if self.status == "ok" else 0


@dataclass
class _Batch:
    programs: list[int]  # indices into the unique programs
    singleton: bool = False
    runs: dict[int, StatementRun] = field(default_factory=dict)


def filter_spec() -> tuple[int, int, list[int]]:
    """The driver's seccomp filter for this machine (arch, kill, blocked), or a refusal."""
    machine = platform.machine().lower()
    spec = _FILTER.get({"amd64": "x86_64", "arm64": "aarch64"}.get(machine, machine))
    if spec is None:
        raise InfrastructureFailure(f"statement runs need a seccomp filter for {machine}; none is known "
                                    "(tczoo knows x86_64 and aarch64)")
    return spec[0], spec[1], list(spec[2])


def run_statements(sandbox: "Sandbox", programs: list[str], statements: list[str], *, time_s: float,
                   memory_mb: int = 1024, load_s: float | None = None, batch_size: int | None = None,
                   wall_factor: float = 10.0,
                   progress: Callable[[int, int], None] | None = None) -> list[StatementRun]:
    """Every program of ``programs`` (Python source) run, then each of ``statements`` in
    its namespace, in order; one ``StatementRun`` per program, in order.

    ``time_s``: CPU seconds per statement; ``load_s``: for the program's own top-level
    code (default: what all its statements may take together, CodeT's budget for a
    whole process); a program's whole budget is its load plus every statement, plus
    0.1 s. ``wall_factor``: a child is killed once its wall time passes this many times
    its budget (plus 2 s): CPU decides, wall time only guards against sleepers.
    ``batch_size``: programs per sandboxed run (default: one run per worker slot, at
    most 64 programs each)."""
    if time_s <= 0:
        raise ValueError("time_s must be positive")
    if not programs:
        return []
    unique_p = list(dict.fromkeys(programs))
    unique_s = list(dict.fromkeys(statements))
    n = len(unique_s)
    load = load_s if load_s is not None else time_s * n + 0.1
    budget = load + time_s * n + 0.1
    spec = filter_spec()
    # the jail's /tmp and /dev/shm are its own only at these levels (docs/sandbox.md)
    jailed = str(getattr(sandbox, "isolation_level", "")).split(" ")[0] in ("full", "bwrap")
    # one interpreter start per batch: few, large batches, one per worker slot (runs of
    # other problems scored at the same time fill the slots the last batch leaves)
    size = batch_size or max(1, min(64, math.ceil(len(unique_p) / max(1, sandbox.workers))))
    batches = [_Batch(list(range(at, min(at + size, len(unique_p)))))
               for at in range(0, len(unique_p), size)]
    done: dict[int, StatementRun] = {}
    total = len(unique_p)

    def jobs_of(group: list[_Batch]) -> list[tuple[Job, str]]:
        out = []
        for b in group:
            marker = f"@@tczoo-stmt-{secrets.token_hex(8)}@@"
            payload = {"marker": marker, "programs": [unique_p[i] for i in b.programs], "statements": unique_s,
                       "time_s": time_s, "load_s": load, "budget_s": budget, "wall_factor": wall_factor,
                       "memory_bytes": memory_mb << 20, "preload": list(PRELOAD), "filter": list(spec),
                       "wipe": jailed}
            cpu_ms = int(1000 * (budget * len(b.programs) + 2.0))
            limits = Limits(time_ms=min(cpu_ms, 24 * 3600 * 1000),
                            wall_ms=min(int(cpu_ms * wall_factor) + 10_000, 24 * 3600 * 1000),
                            memory_mb=memory_mb + 256, processes=2, output_kb=1024 + len(b.programs) * (n + 64) // 512)
            out.append((Job(program=DRIVER_PROGRAM, limits=limits, files={"batch.json": json.dumps(payload)}),
                        marker))
        return out

    pending = batches
    while pending:
        prepared = jobs_of(pending)
        retry: list[_Batch] = []
        for b, (job, marker), run in zip(pending, prepared, sandbox.run_many([j for j, _ in prepared])):
            if run.verdict is Verdict.SE:
                raise InfrastructureFailure(f"a statement batch met a sandbox error after retries: "
                                            f"{' '.join(run.message.split())[:300]}")
            got = _read(run.stdout, marker, len(b.programs), n)
            if "nofilter" in {r.status for r in got.values()}:
                raise InfrastructureFailure("the sandbox refused the statement driver's child filter "
                                            "(seccomp); programs were not run")
            for local, res in got.items():
                done[b.programs[local]] = res
            missing = [b.programs[i] for i in range(len(b.programs)) if i not in got]
            if missing and b.singleton:
                # alone in its jail and the driver did not report it: the program's doing
                why = run.verdict.value + (f": {run.message}" if run.message else "")
                done[missing[0]] = StatementRun(status="killed", detail=f"the driver died ({why})", statements=n)
            elif missing:
                retry += [_Batch([i], singleton=True) for i in missing]
            if progress:
                progress(len(done), total)
        pending = retry
    by_text = {unique_p[i]: done[i] for i in range(len(unique_p))}
    at_s = {s: k for k, s in enumerate(unique_s)}
    out = []
    for p in programs:
        res = by_text[p]
        results = "".join(res.results[at_s[s]] for s in statements) if res.status == "ok" else ""
        out.append(StatementRun(status=res.status, results=results, detail=res.detail, statements=len(statements)))
    return out


def _read(stdout: str, marker: str, count: int, n: int) -> dict[int, StatementRun]:
    """The driver's report lines (``MARKER INDEX STATUS BITS``) for the batch's programs;
    a malformed line is ignored (its program runs again alone)."""
    got: dict[int, StatementRun] = {}
    for line in stdout.splitlines():
        if not line.startswith(marker + " "):
            continue
        parts = line[len(marker) + 1:].split(" ")
        if len(parts) != 3 or not parts[0].isdigit():
            continue
        index, status, bits = int(parts[0]), parts[1], parts[2]
        bits = "" if bits == "-" else bits
        if not 0 <= index < count or index in got:
            continue
        if status == "ok":
            if len(bits) != n or any(c not in "012" for c in bits):
                continue
            got[index] = StatementRun(status="ok", results=bits, statements=n)
        elif status in STATUSES or status == "nofilter":
            got[index] = StatementRun(status=status, statements=n)
    return got
