"""Code-correctness rewards: a completion's program judged on a problem's tests in
tczoo's sandbox — the task verl's own local code reward (``prime_code``, for its
``codecontests``/``apps``/``taco`` data) and SandboxFusion do, held the way tczoo holds
every program.

    from tczoo.rl.code import CodeScorer
    with CodeScorer() as s:
        [r] = s.score_many([completion], [{"inputs": ["1 2\\n"], "outputs": ["3\\n"]}])
        r.score   # 1.0 every test passed, 0.0 one failed (or the fraction: continuous=True); None: no reward

The tests are verl's ``ground_truth`` of such data: a JSON object (or its text) with
``inputs`` and ``outputs`` (stdin and expected stdout, one per test). The program is the
completion's last fenced block (```` ```python ````, ```` ```cpp ````, ```` ```java ````, ```` ```c ````; an
unlabelled fence is Python), else the whole completion, as verl's ``prime_code`` takes it.

Each test runs the program in its own sandboxed process under CPU-time, memory and
output limits (``time_limit_ms``, default 5 s: ``prime_code``'s per-test limit;
``memory_mb``, default 1024: SandboxFusion's default), and outputs are compared by
tokens (``comparator``, tczoo's output comparison). A program stops at its first failing
test unless ``continuous`` (then it runs every test and the score is the share passed).
Completions of the same tests judged together run as one ``SuiteJudge`` (rounds of tests
across the programs, so that every slot stays busy); identical programs are judged once.

**Batching across calls.** ``submit``/``ascore_many`` may be called from any thread or
event loop; what arrives within ``window_s`` (5 ms) is judged as one batch, so a trainer
that asks per completion (verl's reward managers do) still gets its completions of one
problem judged together.

**No reward** (``score`` None) is kept for what the program did not cause: the sandbox
failed a run after its retries (``infrastructure``), or there are no tests
(``undefined``). A compile error, a crash, a timeout, a wrong output: 0.
Call-based tests (``fn_name``) are refused with one line (not supported here).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Callable

from pydantic import BaseModel, ConfigDict, PrivateAttr, ValidationError

from tczoo.rewards import RewardConfigError

DEFAULT_TIME_LIMIT_MS = 5000  # prime_code's per-test timeout (5 s) in its all-tests pass
DEFAULT_MEMORY_MB = 1024  # SandboxFusion's and verl's default memory_limit_mb
DEFAULT_WINDOW_S = 0.005  # how long a batch waits for more calls
FORK_OUTPUT_KB = 16 * 1024  # a test's output cap (past it: OLE)
FORK_WALL_ROOM = 10  # a starved test's second chance: the wall-clock guard this many times wider
FORK_DRIVER_MB = 256  # the fork server's own memory, beside a test's
FORK_FIRST_ROUND = 4  # tests in a program's first round; each round doubles
DEFAULT_MAX_BATCH = 512

_FENCE = re.compile(r"```([A-Za-z0-9_+#-]*)[ \t]*\n(.*?)```", re.S)
_FENCE_LANGUAGES = {"": "python", "python": "python", "python3": "python", "py": "python", "cpp": "cpp",
                    "c++": "cpp", "cc": "cpp", "c": "c", "java": "java"}


def extract_program(completion: str) -> tuple[str, str]:
    """(language, code): the last fenced block whose label tczoo can run (an unlabelled
    one is Python), else the whole completion as Python."""
    blocks = [(m.group(1).lower(), m.group(2)) for m in _FENCE.finditer(completion)]
    runnable = [(_FENCE_LANGUAGES[tag], code) for tag, code in blocks if tag in _FENCE_LANGUAGES]
    if runnable:
        return runnable[-1]
    return "python", completion


class CodeTests(BaseModel):
    """A problem's tests as verl's code data carries them."""

    model_config = ConfigDict(extra="ignore")

    inputs: list[str]
    outputs: list[str]
    fn_name: str | None = None
    _digest: str | None = PrivateAttr(default=None)

    @classmethod
    def parse(cls, value: Any) -> "CodeTests":
        if isinstance(value, CodeTests):
            return value
        if isinstance(value, (bytes, bytearray)):
            value = value.decode("utf-8", "replace")
        if isinstance(value, str):
            try:
                value = json.loads(value)
            except json.JSONDecodeError as exc:
                raise RewardConfigError(f"code tests are not JSON ({exc}): {value[:80]!r}") from None
        if not isinstance(value, dict):
            raise RewardConfigError(f"code tests must be a JSON object with inputs and outputs, not "
                                    f"{type(value).__name__}")
        try:
            tests = cls.model_validate(value)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(x) for x in first.get("loc", ())) or "tests"
            raise RewardConfigError(f"bad code tests: {where}: {first.get('msg', 'invalid')}") from None
        if tests.fn_name:
            raise RewardConfigError(f"call-based tests (fn_name {tests.fn_name!r}) are not supported by tczoo's code "
                                    "reward: stdin/stdout tests only")
        if len(tests.inputs) != len(tests.outputs):
            raise RewardConfigError(f"code tests: {len(tests.inputs)} inputs for {len(tests.outputs)} outputs")
        return tests

    def digest(self) -> str:
        if self._digest is None:
            h = hashlib.sha256()
            for text in (*self.inputs, "\0\0", *self.outputs):
                h.update(text.encode("utf-8", "surrogatepass"))
                h.update(b"\0")
            self._digest = h.hexdigest()
        return self._digest


@dataclass
class CodeResult:
    """``score`` None is no reward (``reason`` says why); ``verdicts``: one per test
    (``AC``, ``WA``, ``TLE``, ``RE``, ``MLE``, ``OLE``, ``SE``; ``""`` not run: it had stopped)."""

    score: float | None
    passed: bool | None = None
    verdicts: list[str] = field(default_factory=list)
    reason: str = ""
    seconds: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return {"score": self.score, "passed": self.passed, "verdicts": self.verdicts, "reason": self.reason,
                "seconds": round(self.seconds, 3)}


# --------------------------------------------------------------------------- the fork server (Python)

# One sandboxed process per (program, tests): it compiles the program once, then forks
# a child per test, each with the test's input as stdin, its own output pipes, RLIMIT_CPU
# and RLIMIT_AS, and nothing else open. A child cannot reach this process (it made itself
# not dumpable: no ptrace, no /proc/<pid>/fd or mem; the job's process limit is two, so no
# child can fork), and what it prints goes to its own pipes: the only channel to the host is
# this process's stdout, one JSON line per test. The child's CPU time is the kernel's
# (wait4). A program that kills or stops this process ends its own run (the host reads it
# as the program's failure on the test in progress, never as the sandbox's).
_FORK_DRIVER = r"""import _signal, builtins, ctypes, io, os, resource, select, sys, time, types

# signal's constants by number: the signal module imports enum, a tenth of a job's start-up
SIGPIPE, SIGKILL, SIGALRM, SIG_DFL = 13, 9, 14, _signal.SIG_DFL


def _child(code, in_fd, out_w, err_w, cpu_s, memory):
    # everything the child needs is imported above, before the fork: an import per test
    # (traceback's alone is several milliseconds) would cost more than the fork itself
    os.dup2(in_fd, 0)
    os.dup2(out_w, 1)
    os.dup2(err_w, 2)
    os.closerange(3, 1 << 16)
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s + 1))
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    _signal.signal(SIGPIPE, SIG_DFL)
    _signal.signal(SIGALRM, SIG_DFL)
    sys.stdin = sys.__stdin__ = io.TextIOWrapper(io.BufferedReader(io.FileIO(0, "r", closefd=False)),
                                                 encoding="utf-8")
    sys.stdout = sys.__stdout__ = io.TextIOWrapper(io.BufferedWriter(io.FileIO(1, "w", closefd=False)),
                                                   encoding="utf-8")
    sys.stderr = sys.__stderr__ = io.TextIOWrapper(io.BufferedWriter(io.FileIO(2, "w", closefd=False)),
                                                   encoding="utf-8", errors="backslashreplace", line_buffering=True)
    sys.argv = ["main.py"]
    module = types.ModuleType("__main__")
    module.__file__ = "main.py"
    module.__builtins__ = builtins
    sys.modules["__main__"] = module
    rc = 0
    try:
        exec(code, module.__dict__)
    except SystemExit as exc:
        if exc.code is None:
            rc = 0
        elif isinstance(exc.code, int):
            rc = exc.code & 0xFF
        else:
            print(exc.code, file=sys.stderr)
            rc = 1
    except BaseException:
        import traceback  # only a crashing program pays for it
        traceback.print_exc()
        rc = 1
    try:
        sys.stdout.flush()
    except BaseException:
        rc = rc or 120
    try:
        sys.stderr.flush()
    except BaseException:
        pass
    os._exit(rc)


def _run(code, in_fd, cpu_s, wall_s, memory, cap):
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    started = time.monotonic()
    pid = os.fork()
    if pid == 0:
        try:
            _child(code, in_fd, out_w, err_w, cpu_s, memory)
        finally:
            os._exit(1)
    os.close(out_w)
    os.close(err_w)
    out, err, size, ole, timed_out = [], [], 0, False, False
    open_fds = {out_r: out, err_r: err}
    deadline = started + wall_s
    while open_fds:
        left = deadline - time.monotonic()
        if left <= 0:
            timed_out = True
            break
        ready, _, _ = select.select(list(open_fds), [], [], left)
        for fd in ready:
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                os.close(fd)
                del open_fds[fd]
                continue
            if fd == out_r:
                size += len(chunk)
                if size > cap:
                    ole = True
                    break
                out.append(chunk)
            elif sum(map(len, err)) < 4096:
                err.append(chunk)
        if ole:
            break
    late = []
    if timed_out or ole:
        os.kill(pid, SIGKILL)
    else:  # its output is closed: it is ending, or it closed it and goes on, until the deadline
        left = deadline - time.monotonic()
        if left <= 0:
            timed_out = True
            os.kill(pid, SIGKILL)
        else:
            def _late(*_):
                late.append(True)
                os.kill(pid, SIGKILL)

            _signal.signal(SIGALRM, _late)
            _signal.setitimer(_signal.ITIMER_REAL, left)
    while True:
        try:
            _, status, usage = os.wait4(pid, 0)
            break
        except InterruptedError:
            continue
    _signal.setitimer(_signal.ITIMER_REAL, 0)
    if not (timed_out or ole) and late:
        timed_out = True
    for fd in open_fds:
        os.close(fd)
    return [os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
            os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
            (usage.ru_utime + usage.ru_stime) * 1000.0, (time.monotonic() - started) * 1000.0, timed_out, ole,
            b"".join(out).decode("utf-8", "surrogateescape"), b"".join(err)[-2000:].decode("utf-8", "backslashreplace")]


def _say(*fields):
    # one line per message, ASCII: the host reads it with ast.literal_eval (no json: its
    # import, and re's, would cost every job more than a test)
    os.write(1, (ascii(fields) + "\n").encode("ascii"))


def main():
    n, time_ms, memory_mb, output_bytes, stop_on_failure, wall_room = map(int, sys.stdin.read().split())
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(4, 0, 0, 0, 0) != 0:  # PR_SET_DUMPABLE 0: no child may ptrace or read us
        _say("unprotected", ctypes.get_errno())
        return
    with open("main.py", "rb") as f:
        source = f.read()
    try:
        code = compile(source, "main.py", "exec")
    except (SyntaxError, ValueError) as exc:
        _say("compile_error", f"{type(exc).__name__}: {exc}"[:2000])
        return
    inputs = [os.open(f"in{i}", os.O_RDONLY) for i in range(n)]
    limit_s = time_ms / 1000.0
    cpu_s = int(limit_s) + 1
    wall_s = 2 * limit_s + 1.0
    memory = memory_mb << 20
    for i, fd in enumerate(inputs):
        result = _run(code, fd, cpu_s, wall_s, memory, output_bytes)
        if result[4] and result[2] < time_ms:  # timed out, starved by a loaded machine: once more, wider
            os.lseek(fd, 0, os.SEEK_SET)
            result = _run(code, fd, cpu_s, wall_s * wall_room, memory, output_bytes)
        _say("test", i, *result)
        failed = result[4] or result[5] or result[0] != 0 or result[2] > time_ms
        if failed and stop_on_failure:
            break


main()
"""


class CodeJudge:
    """Judges programs on tests in ``sandbox`` (synchronous; see ``CodeScorer``)."""

    def __init__(self, sandbox: Any, *, time_limit_ms: int = DEFAULT_TIME_LIMIT_MS,
                 memory_mb: int = DEFAULT_MEMORY_MB, continuous: bool = False, comparator: str | None = None,
                 fork_server: bool = True):
        from tczoo.sandbox.types import Limits

        try:
            self.limits = Limits(time_ms=time_limit_ms, memory_mb=memory_mb, output_kb=FORK_OUTPUT_KB)
        except ValidationError as exc:
            raise RewardConfigError(f"bad code reward limits: {exc.errors()[0].get('msg')}") from None
        self.sandbox = sandbox
        self.continuous = bool(continuous)
        self.comparator = comparator
        self.fork_server = bool(fork_server)
        self.forked = 0  # programs judged by the fork server (the rest: one process per test)

    def judge_many(self, completions: list[str], tests: list[Any]) -> list[CodeResult]:
        if len(completions) != len(tests):
            raise RewardConfigError(f"{len(completions)} completions for {len(tests)} sets of tests")
        started = time.monotonic()
        parsed = [CodeTests.parse(t) for t in tests]
        groups: dict[str, list[int]] = {}
        for i, t in enumerate(parsed):
            groups.setdefault(t.digest(), []).append(i)
        out: list[CodeResult | None] = [None] * len(completions)

        def one_group(indices: list[int]) -> None:
            results = self._judge_group(parsed[indices[0]], [completions[i] for i in indices])
            for i, r in zip(indices, results):
                out[i] = r

        workers = max(1, min(len(groups), int(getattr(self.sandbox, "workers", 1))))
        if workers == 1:
            for indices in groups.values():
                one_group(indices)
        else:
            with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="tczoo-code") as pool:
                for f in [pool.submit(one_group, idx) for idx in groups.values()]:
                    f.result()
        took = time.monotonic() - started
        for r in out:
            assert r is not None
            r.seconds = took
        return out  # type: ignore[return-value]

    def _judge_group(self, tests: CodeTests, completions: list[str]) -> list[CodeResult]:
        from tczoo.execution.judge import SuiteJudge
        from tczoo.schema import Language, Oracle, OracleKind, Problem, Program, TestCase

        if not tests.inputs:
            return [CodeResult(None, reason="undefined: no tests") for _ in completions]
        problem = Problem(id=f"code-{tests.digest()[:16]}", statement="", time_limit_ms=self.limits.time_ms,
                          memory_limit_mb=self.limits.memory_mb, checker=self.comparator)
        cases = [TestCase(input=i, output=o) for i, o in zip(tests.inputs, tests.outputs)]
        judge = SuiteJudge(self.sandbox, problem, cases, Oracle(kind=OracleKind.EXPECTED_OUTPUT), limits=self.limits)
        programs: dict[tuple[str, str], int] = {}  # identical programs are judged once
        order = []
        for text in completions:
            language, code = extract_program(text)
            order.append(programs.setdefault((language, code), len(programs)))
        results: list[CodeResult | None] = [None] * len(programs)
        if self.fork_server:
            python = [k for k, (language, _) in enumerate(programs) if language == "python"]
            forked = self._fork_judge(tests, [list(programs)[k][1] for k in python])
            for k, r in zip(python, forked):
                results[k] = r
        rest = [k for k, r in enumerate(results) if r is None]
        if rest:
            listed = list(programs)
            judged = judge.judge([Program(code=listed[k][1], language=Language(listed[k][0]), name="completion")
                                  for k in rest], stop_on=() if self.continuous else None)
            for k, j in zip(rest, judged):
                results[k] = self._result(j, len(cases))
        return [CodeResult(results[k].score, results[k].passed, list(results[k].verdicts), results[k].reason)
                for k in order]  # type: ignore[union-attr]

    def _result(self, judgement: Any, n: int) -> CodeResult:
        """A ``SuiteJudge`` judgement as a reward."""
        verdicts = list(judgement.verdicts)
        if judgement.cannot_run:
            return CodeResult(0.0, False, verdicts, f"cannot_run: {judgement.cannot_run[:300]}")
        status = judgement.status
        if status == "undetermined":
            return CodeResult(None, None, verdicts, "infrastructure: the sandbox failed a run: "
                              + "; ".join(str(v) for v in judgement.notes.values())[:300])
        passed = status == "accept"
        if self.continuous:
            if "SE" in verdicts:
                return CodeResult(None, None, verdicts, "infrastructure: the sandbox failed a run")
            return CodeResult(sum(v == "AC" for v in verdicts) / n, passed, verdicts)
        return CodeResult(1.0 if passed else 0.0, passed, verdicts)

    def _fork_judge(self, tests: CodeTests, codes: list[str]) -> list[CodeResult | None]:
        """Python programs through the fork server (``_FORK_DRIVER``): rounds of 4, 8, 16 ...
        tests, one sandboxed job per program and round, the programs that failed a round
        not run again (every test in one round when ``continuous``). None for a program
        the server could not take (it could not make itself safe from its children: the
        caller judges it one process per test)."""
        from tczoo.sandbox.types import Verdict

        n = len(tests.inputs)
        verdicts = [[""] * n for _ in codes]
        out: list[CodeResult | None] = [None] * len(codes)
        fallback: set[int] = set()
        alive, pos, size = list(range(len(codes))), 0, (n if self.continuous else FORK_FIRST_ROUND)
        while alive and pos < n:
            chunk = list(range(pos, min(n, pos + size)))
            runs = self.sandbox.run_many([self._fork_job(codes[k], [tests.inputs[i] for i in chunk]) for k in alive])
            still = []
            for k, run in zip(alive, runs):
                if run.verdict is Verdict.SE:  # the worker's own channel: the sandbox failed, not the program
                    out[k] = CodeResult(None, None, verdicts[k], f"infrastructure: {run.message[:300]}")
                    continue
                got = self._read_fork(run, tests, chunk)
                if got is None:
                    fallback.add(k)
                elif isinstance(got, str):
                    out[k] = CodeResult(0.0, False, verdicts[k], got)
                else:
                    for i, v in zip(chunk, got):
                        verdicts[k][i] = v
                    if self.continuous or all(v == "AC" for v in got):
                        still.append(k)
            alive, pos, size = still, pos + len(chunk), 2 * size
        for k in range(len(codes)):
            if k in fallback or out[k] is not None:
                continue
            self.forked += 1
            passed = all(v == "AC" for v in verdicts[k])
            score = sum(v == "AC" for v in verdicts[k]) / n if self.continuous else float(passed)
            out[k] = CodeResult(score, passed, verdicts[k])
        return out

    def _fork_job(self, code: str, inputs: list[str]) -> Any:
        from tczoo.sandbox.types import DAY_MS, Job, Limits
        from tczoo.schema import Language, Program

        m, limit = len(inputs), self.limits.time_ms
        spec = f"{m} {limit} {self.limits.memory_mb} {self.limits.output_kb * 1024} {int(not self.continuous)} " \
               f"{FORK_WALL_ROOM}\n"
        cpu = (limit // 1000 + 2) * 1000  # RLIMIT_CPU's whole seconds, and its hard limit
        wall = 2 * limit + 1000  # a test's guard, as the sandbox's; a starved test runs again, wider
        limits = Limits(time_ms=min(DAY_MS, 2 * m * cpu + 2000), wall_ms=min(DAY_MS, (m + FORK_WALL_ROOM) * wall + 5000),
                        memory_mb=self.limits.memory_mb + FORK_DRIVER_MB, processes=2,
                        output_kb=min(m * (self.limits.output_kb + 64) + 1024, 1 << 30))
        files = {f"in{i}": text for i, text in enumerate(inputs)}
        files["main.py"] = code
        return Job(program=Program(code=_FORK_DRIVER, language=Language.PYTHON, name="tczoo-fork-server"),
                   stdin=spec, limits=limits, files=files)

    def _read_fork(self, run: Any, tests: CodeTests, chunk: list[int]) -> "list[str] | str | None":
        """A round's verdicts from the driver's lines ("" where the program had stopped);
        a string: the program cannot run (a compile error); None: the server could not take it."""
        import signal as signals

        from tczoo.execution.outputs import same_output
        from tczoo.sandbox.types import Verdict

        verdicts = [""] * len(chunk)
        lines = run.stdout.splitlines()
        first = _driver_line(lines[0]) if lines else None
        if first is not None and first[0] == "unprotected":
            return None
        if first is not None and first[0] == "compile_error" and len(first) == 2:
            return f"cannot_run: compile error: {first[1]}"[:2000]
        seen = 0
        for line in lines:
            r = _driver_line(line)
            if r is None or len(r) != 10 or r[0] != "test" or r[1] != seen or seen >= len(chunk):
                break  # the driver's lines only, in order: anything else ends what is read
            _, _, exit_code, signal_, cpu_ms, _, timed_out, ole, out, _ = r
            if timed_out or (cpu_ms or 0) > self.limits.time_ms or signal_ == signals.SIGXCPU:
                verdicts[seen] = "TLE"
            elif ole:
                verdicts[seen] = "OLE"
            elif exit_code != 0:
                verdicts[seen] = "RE"
            else:
                ok = same_output(str(out), tests.outputs[chunk[seen]], comparator=self.comparator)
                verdicts[seen] = "AC" if ok else "WA"
            seen += 1
            if verdicts[seen - 1] != "AC" and not self.continuous:
                return verdicts
        if seen < len(chunk):
            # the run ended with tests to go and no failure reported: the program ended it (it
            # killed or stopped the driver, or its memory took the job): its own failure
            verdicts[seen] = {Verdict.TLE: "TLE", Verdict.MLE: "MLE", Verdict.OLE: "OLE"}.get(run.verdict, "RE")
        return verdicts


class Batcher:
    """Items handed in from any thread or event loop, passed on in batches: what arrives
    within ``window_s`` of a batch's first item (or ``max_batch`` items) goes to
    ``fn(items) -> results`` (in order, run in a thread); each caller gets its own items'
    results. ``key(item)`` splits a batch into parts passed on separately (a problem's
    programs together), so that each part's results go back as soon as it is done.
    Several batches may be in flight at once (``threads``)."""

    def __init__(self, fn: Callable[[list[Any]], list[Any]], *, window_s: float = DEFAULT_WINDOW_S,
                 max_batch: int = DEFAULT_MAX_BATCH, threads: int = 4, name: str = "tczoo-batch",
                 key: Callable[[Any], Any] | None = None):
        self.fn = fn
        self.key = key
        self.window_s = max(0.0, float(window_s))
        self.max_batch = max(1, int(max_batch))
        self.batches = 0  # batches passed on
        self.items = 0  # items in them
        self._pending: list[tuple[Any, asyncio.Future[Any]]] = []
        self._timer: asyncio.TimerHandle | None = None
        self._loop = asyncio.new_event_loop()
        self._loop.set_default_executor(ThreadPoolExecutor(max_workers=max(1, threads), thread_name_prefix=name))
        self._thread = threading.Thread(target=self._loop.run_forever, name=name, daemon=True)
        self._thread.start()
        self._closed = False

    def submit(self, items: list[Any]) -> "Future[list[Any]]":
        if self._closed:
            raise RuntimeError("closed")
        return asyncio.run_coroutine_threadsafe(self._enqueue(list(items)), self._loop)

    async def asubmit(self, items: list[Any]) -> list[Any]:
        return await asyncio.wrap_future(self.submit(items))

    async def _enqueue(self, items: list[Any]) -> list[Any]:
        futures = []
        for item in items:
            f: asyncio.Future[Any] = self._loop.create_future()
            self._pending.append((item, f))
            futures.append(f)
        if len(self._pending) >= self.max_batch:
            self._flush()
        elif self._timer is None and self._pending:
            self._timer = self._loop.call_later(self.window_s, self._flush)
        return list(await asyncio.gather(*futures))

    def _flush(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        while self._pending:
            batch, self._pending = self._pending[:self.max_batch], self._pending[self.max_batch:]
            self.batches += 1
            self.items += len(batch)
            parts: dict[Any, list[tuple[Any, asyncio.Future[Any]]]] = {}
            for item in batch:
                parts.setdefault(None if self.key is None else self.key(item[0]), []).append(item)
            for part in parts.values():
                work = self._loop.run_in_executor(None, self.fn, [b[0] for b in part])
                work.add_done_callback(lambda done, part=part: _settle(done, [b[1] for b in part]))

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=5)
        if not self._thread.is_alive():
            self._loop.close()


def _driver_line(line: str) -> tuple | None:
    """A line of the fork server: an ASCII tuple literal of plain values."""
    import ast

    if not line.startswith("(") or not line.isascii():
        return None
    try:
        value = ast.literal_eval(line)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    return value if isinstance(value, tuple) and value and isinstance(value[0], str) else None


def _settle(done: "asyncio.Future[list[Any]]", futures: list["asyncio.Future[Any]"]) -> None:
    exc = None if done.cancelled() else done.exception()
    results = done.result() if not done.cancelled() and exc is None else None
    if results is not None and len(results) != len(futures):
        exc = RuntimeError(f"a batch of {len(futures)} items gave {len(results)} results")
    for i, f in enumerate(futures):
        if f.done():
            continue
        if done.cancelled():
            f.cancel()
        elif exc is not None:
            f.set_exception(exc)
        else:
            f.set_result(results[i])  # type: ignore[index]


class CodeScorer:
    """``CodeJudge`` behind a ``Batcher``: any thread or event loop may ask; what arrives
    within ``window_s`` is judged as one batch. The pool is this process's share of the
    machine (``tczoo.machine``) unless ``workers`` or a ``sandbox`` is given."""

    def __init__(self, *, sandbox: Any = None, workers: int | None = None, ranks: int | None = None,
                 time_limit_ms: int = DEFAULT_TIME_LIMIT_MS, memory_mb: int = DEFAULT_MEMORY_MB,
                 continuous: bool = False, comparator: str | None = None, window_s: float = DEFAULT_WINDOW_S,
                 max_batch: int = DEFAULT_MAX_BATCH, fork_server: bool = True):
        from tczoo.machine import machine_share
        from tczoo.sandbox import Sandbox

        self.share = None
        self._own = sandbox is None
        if sandbox is None:
            if workers is None:
                try:
                    self.share = machine_share(ranks)
                except ValueError as exc:
                    raise RewardConfigError(str(exc)) from None
                workers = self.share.workers
            sandbox = Sandbox(workers=workers)
        self.sandbox = sandbox
        self.judge = CodeJudge(sandbox, time_limit_ms=time_limit_ms, memory_mb=memory_mb, continuous=continuous,
                               comparator=comparator, fork_server=fork_server)
        # a batch's problems are judged side by side, each answered when it is done
        self._batcher = Batcher(lambda items: self.judge.judge_many([i[0] for i in items], [i[1] for i in items]),
                                window_s=window_s, max_batch=max_batch,
                                threads=2 + int(getattr(sandbox, "workers", 1)), name="tczoo-code",
                                key=lambda item: item[1].digest())

    @property
    def batches(self) -> int:
        return self._batcher.batches

    def score_many(self, completions: list[str], tests: list[Any]) -> list[CodeResult]:
        return self.submit(completions, tests).result()

    def submit(self, completions: list[str], tests: list[Any]) -> "Future[list[CodeResult]]":
        if len(completions) != len(tests):
            raise RewardConfigError(f"{len(completions)} completions for {len(tests)} sets of tests")
        parsed = [CodeTests.parse(t) for t in tests]  # a bad set is the caller's error, raised here
        return self._batcher.submit(list(zip(completions, parsed)))

    async def ascore_many(self, completions: list[str], tests: list[Any]) -> list[CodeResult]:
        return await asyncio.wrap_future(self.submit(completions, tests))

    def close(self) -> None:
        self._batcher.close()
        if self._own:
            self.sandbox.close()

    def __enter__(self) -> "CodeScorer":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


_SCORERS: dict[str, CodeScorer] = {}
_GUARD = threading.Lock()


def code_scorer(**options: Any) -> CodeScorer:
    """The process's ``CodeScorer`` for these options (made on first use)."""
    known = {"workers", "ranks", "time_limit_ms", "memory_mb", "continuous", "comparator", "window_s", "max_batch",
             "fork_server"}
    unknown = sorted(set(options) - known)
    if unknown:
        raise RewardConfigError(f"unknown code reward option(s) {', '.join(unknown)} "
                                f"(known: {', '.join(sorted(known))})")
    key = json.dumps(options, sort_keys=True, default=str)
    with _GUARD:
        if key not in _SCORERS:
            _SCORERS[key] = CodeScorer(**options)
        return _SCORERS[key]


def close_code_scorers() -> None:
    with _GUARD:
        for s in _SCORERS.values():
            s.close()
        _SCORERS.clear()


__all__ = ["Batcher", "CodeJudge", "CodeResult", "CodeScorer", "CodeTests", "close_code_scorers", "code_scorer", "extract_program"]
