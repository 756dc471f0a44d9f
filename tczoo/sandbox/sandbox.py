"""The execution engine's front door: compile, run, judge, batch, call Python."""

from __future__ import annotations

import asyncio
import fcntl
import logging
import math
import os
import select
import signal
import threading
import time
import warnings
from collections import deque
from pathlib import Path
from typing import Callable, Iterable, Iterator

from tczoo.safeio.text import from_bytes, to_bytes
from tczoo.schema import Language, Program, Validator
from tczoo.sandbox import batch, callpy, jail, languages, validators
from tczoo.sandbox.compare import PROGRAM, compare_outputs, parse_comparator
from tczoo.sandbox.compile import JVM_COMPILED, CompileLimits, Compiler, java_tool, program_files

from tczoo.sandbox.executor import Executor, ordered_stream
from tczoo.sandbox.slots import (FLAG_FLUSH, FLAG_STDIO, HOST_SLACK_S, KILLED_DEADLINE, SE_RETRIES, Slot, SlotPool, WorkerDied,
                                 _Single, header,
                                 pack_limits, pack_prefix, start_failure)
from tczoo.sandbox.types import (CallResult, CompileResult, DeadlineExceeded, Job, Limits, PyCall, RunResult,
                                 Verdict)

log = logging.getLogger("tczoo.sandbox")
# problemtools' Java run line (-Dfile.encoding=UTF-8 -XX:+UseSerialGC -Xss64m -Xmx{memlim}m),
# with the JIT's full tiers as the judges have them: limiting it to C1 (as tczoo did) saved
# ~10 ms of a trivial run and cost 25-30% of a heavy one (breedingbugs' Java solutions)
JAVA_RUN_OPTS = ["-Dfile.encoding=UTF-8", "-Xss64m", "-XX:+UseSerialGC", "-XX:-UsePerfData"]
JAVA_THREADS = languages.SPECS[Language.JAVA].runtime_threads
STDERR_CAP = 64 * 1024  # bytes of stderr kept per run
INTERACTION_PIPE = 1 << 20  # each direction of an interactive run (problemtools' size)
PROGRAM_FD = "/dev/fd/3"  # where an interpreter finds its program in the jail
# How the message of a compile the sandbox itself failed begins: for people only. What
# decides is ``CompileResult.infrastructure`` (a compiler's output can begin so too:
# ``#line 1 "sandbox error"`` names the file it reports errors in).
COMPILE_SE = "sandbox error"
# RunResult(**fields), validated the same, at half the cost of the keyword call (which
# adds a Python frame): a batch makes one per run, and the host's time per run counts.
_new_result = RunResult.__pydantic_validator__.validate_python


def wire_limits(limits: Limits, cgroups: bool) -> dict:
    """What the worker enforces, and the packed form it reads."""
    mem = limits.memory_mb << 20
    cpu_s = max(1, math.ceil(limits.time_ms / 1000)) + 1  # backstop; the poll is exact
    wire = {
        "cpu_ms": limits.time_ms,
        "cpu_s": cpu_s,
        "wall_ms": limits.wall_guard_ms,
        "out_bytes": limits.output_kb * 1024,
        "err_bytes": STDERR_CAP,
        "file_bytes": limits.file_kb * 1024,
        "nproc": max(1, limits.processes),
        "stack_bytes": mem,
        # Without a memory cgroup the address-space limit is all we have.
        "as_bytes": None if cgroups else mem,
    }
    wire["packed"] = pack_limits(wire)
    return wire


def default_cache_dir() -> Path:
    from tczoo.paths import cache_subdir  # created owner-only if missing; a link there is refused

    return cache_subdir("compile")


class IsolationUnavailable(RuntimeError):
    pass


class Sandbox:
    """Runs untrusted programs under limits; see docs/sandbox.md.

    Thread-safe: ``run``/``judge``/``call_python`` may be called from any thread
    (each borrows one of ``workers`` jailed worker slots); ``run_many`` spreads a
    batch over all slots. With an ``executor`` (``tczoo.distributed``: a Ray
    cluster), batches (``run_many``, ``call_many`` and every ``tczoo.execution``
    batch) run there instead, results in the same order; single runs stay here.
    ``close`` shuts the executor down.
    """

    def __init__(self, workers: int | None = None, cache_dir: Path | None = None,
                 isolation: str = "auto", *, compile_limits: CompileLimits | None = None,
                 cgroup_parent: str | None = None, executor: Executor | None = None):
        if isolation not in ("auto", "full", "none"):
            raise ValueError("isolation must be 'auto', 'full' or 'none'")
        self.workers = max(1, workers or os.cpu_count() or 1)
        self.caps = jail.probe()
        best = jail.best_level(self.caps)
        if isolation == "full" and best != "full":
            raise IsolationUnavailable(
                f"full isolation requested but only {best!r} is available: "
                + "; ".join(self.caps.warnings))
        self.level = "none" if isolation == "none" else best
        if self.level != "full":
            message = jail.weak_warning(self.level)
            warnings.warn(message, RuntimeWarning, stacklevel=2)
            log.warning(message)
        self.cache_dir = Path(cache_dir) if cache_dir else default_cache_dir()
        self._pool = SlotPool(self.workers, self.level, self.caps, self.cache_dir, cgroup_parent)
        tree = self._pool.tree
        self.compiler = Compiler(self.cache_dir, self.level, self.caps, compile_limits,
                                 tree.job_group if tree else None)
        self.executor = executor  # where batches run (a Ray cluster); None: this machine's slots
        self._cancelled = threading.Event()
        self._closed = False
        self._wire_cache: dict[tuple, dict] = {}
        self._requests: dict[tuple, tuple[dict, Limits]] = {}
        self._lock = threading.Lock()
        self._compile_pool = None  # compiles a deadline does not wait for (``run(deadline=)``)

    # ------------------------------------------------------------------ properties

    @property
    def isolation_level(self) -> str:
        caps = self.caps
        if self._pool.tree is None and caps.cgroup:
            caps = jail.Capabilities(**{**caps.__dict__, "cgroup": None})
        return jail.describe(self.level, caps)

    # ------------------------------------------------------------------ single runs

    def compile(self, program: Program) -> CompileResult:
        return self.compiler.compile(program)

    def run(self, program: Program, stdin: str = "", limits: Limits = Limits(), *,
            files: dict[str, str] | None = None, args: list[str] | None = None,
            deadline: float | None = None) -> RunResult:
        """One run. ``deadline`` (a ``time.monotonic()`` value): the run is stopped there
        (or not started when it has passed) and ``DeadlineExceeded`` raised instead of a
        result; a compile still going then goes on in the background."""
        built = self._build(program) if deadline is None else self._build_by(program, deadline)
        if not built.ok:
            return self._compile_failure(built)
        return self._execute(program, stdin, limits, files, args, deadline)

    def _build(self, program: Program) -> CompileResult:
        built = self.compiler.outcome(program)
        if not built.ok and built.infrastructure:
            built = self.compiler.outcome(program)  # our jail failed, not the program: once more
        return built

    def _build_by(self, program: Program, deadline: float) -> CompileResult:
        known = self.compiler.known(program)
        if known is not None and not known.infrastructure:
            return known
        with self._lock:
            if self._compile_pool is None:
                import concurrent.futures

                self._compile_pool = concurrent.futures.ThreadPoolExecutor(
                    max_workers=self.workers, thread_name_prefix="tczoo-compile")
        future = self._compile_pool.submit(self._build, program)
        try:
            return future.result(timeout=max(0.0, deadline - time.monotonic()))
        except TimeoutError:
            raise DeadlineExceeded("the caller's deadline passed while the program compiled", cut=1) from None

    @staticmethod
    def _compile_failure(built: CompileResult) -> RunResult:
        return RunResult(verdict=Verdict.SE if built.infrastructure else Verdict.CE, message=built.message)

    def judge(self, program: Program, stdin: str, expected: str, limits: Limits = Limits(),
              comparator: str | None = None, *, files: dict[str, str] | None = None,
              output_validator: Validator | None = None, interactive: bool = False) -> RunResult:
        """Run ``program`` and judge its output: by ``output_validator`` when the problem
        has one (see :mod:`tczoo.sandbox.validators`), else by ``comparator``. An
        ``interactive`` problem's validator (``Validator.interactive``) is the program's
        interactor (``interact``)."""
        if interactive or (output_validator is not None and output_validator.interactive):
            if output_validator is None:
                raise ValueError("an interactive problem needs its interactor (output_validator)")
            return self.interact(program, output_validator, stdin, expected, limits)
        if output_validator is None:
            parse_comparator(comparator)  # a bad comparator is the caller's bug: fail early
            if comparator == PROGRAM:
                raise ValueError("comparator 'program' needs the problem's output_validator")
        result = self.run(program, stdin, limits, files=files)
        if result.verdict is not Verdict.AC:
            return result
        if output_validator is not None:
            check = self.validate_output(output_validator, stdin, expected, result.stdout)
            result.verdict, result.message = check.verdict, check.message
        elif not compare_outputs(result.stdout, expected, comparator):
            result.verdict = Verdict.WA
        return result

    def validate_output(self, validator: Validator, input: str, answer: str, output: str) -> RunResult:
        """Ask a problem's output validator about ``output`` (for ``input``, with the
        reference ``answer``): the validator's run, its verdict AC, WA or SE."""
        job = validators.output_validator_job(validator, input, answer, output)
        run = self.run(job.program, job.stdin, job.limits, files=job.files, args=job.args)
        return validators.output_judgement(run, validator.program.name)

    # ------------------------------------------------------------------ interactive runs

    def interact(self, program: Program, interactor: Validator, input: str, answer: str = "",
                 limits: Limits = Limits()) -> RunResult:
        """Judge ``program`` on an interactive problem, as the Kattis format does: the
        problem's output validator is the interactor, ``interactor input answer feedback/
        [args]``, its stdout the program's stdin and the program's stdout its stdin. Each
        runs in a slot of its own (its own uid, jail and cgroups: the program cannot reach
        the interactor), connected by two pipes this process makes and hands to both
        workers; ``limits`` bind the program only (the interactor has its validation
        limits). The result is the program's run with the verdict decided by problemtools'
        rules: the interactor failing (an exit code other than 42/43, a crash, a timeout)
        is ``SE``, a judge error; its ``WA`` stands when it exited first; else the
        program's own TLE, MLE or RE; else the interactor's verdict (message: its stderr).
        Which side exited first is ours to know: this process holds a copy of each side's
        write end until that side's worker has answered, so neither side sees the other's
        end before we have (problemtools' interactive runner does the same).

        A run the sandbox failed (a worker died, a program it could not start) is tried
        again on fresh slots, as any run; the interactor's own failure is not."""
        if self._closed:
            raise RuntimeError("sandbox is closed")
        built = self._build(program)
        if not built.ok:
            return self._compile_failure(built)
        vbuilt = self._build(interactor.program)
        if not vbuilt.ok:
            return RunResult(verdict=Verdict.SE, message=f"interactor {interactor.program.name} does not compile"
                             f"{' (the sandbox failed it)' if vbuilt.infrastructure else ''}: {vbuilt.message}"[:4000])
        failures: list[str] = []
        for _ in range(1 + SE_RETRIES):
            result, infrastructure = self._interact_once(program, interactor, input, answer, limits)
            if not infrastructure:
                return result
            failures.append(result.message)
        result.message = (f"sandbox error, {len(failures)} attempts on fresh slots: " + " | ".join(failures))[:4000]
        log.error("%s", result.message)
        return result

    def _interact_once(self, program: Program, interactor: Validator, input: str, answer: str,
                       limits: Limits) -> tuple[RunResult, bool]:
        """One interactive run: (result, whether the sandbox failed it)."""
        request, sub_limits = self._request(program, limits, None, None)
        job = validators.interactor_job(interactor, input, answer, sub_limits)
        vrequest, val_limits = self._request(job.program, job.limits, job.args, job.files)
        slot = self._pool.acquire()
        assert slot is not None
        partner = self._pool.acquire_partner()
        # program -> interactor and interactor -> program; our copies are closed as below
        to_val_r, to_val_w = os.pipe2(os.O_CLOEXEC)
        to_sub_r, to_sub_w = os.pipe2(os.O_CLOEXEC)
        held = {to_val_r, to_val_w, to_sub_r, to_sub_w}

        def drop(fd: int) -> None:
            if fd in held:
                held.discard(fd)
                os.close(fd)

        failed = True  # until both replies are in: then neither slot has a run in flight
        try:
            for fd in (to_val_w, to_sub_w):
                try:
                    fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, INTERACTION_PIPE)
                except OSError:
                    pass
            sides: dict[int, tuple[Slot, str]] = {}
            started: dict[str, float] = {}
            for side, who, fds, req in ((partner, "interactor", (to_val_r, to_sub_w), vrequest),
                                        (slot, "program", (to_sub_r, to_val_w), request)):
                try:
                    side.ensure_started()
                    side.send_stdio(*fds)
                    started[who] = time.monotonic()
                    side.fill(deque([_Single(req, b"", 0, FLAG_STDIO | FLAG_FLUSH)]), 1, 1)
                except WorkerDied as e:
                    side.reset()  # (pipes it was handed and no request to take them: never reused)
                    return RunResult(verdict=Verdict.SE, message=f"worker failed ({who}): {e}"[:2000]), True
                sides[side.reply_fd] = (side, who)
            replies: dict[str, tuple] = {}
            ended: dict[str, float] = {}  # when each side's program ended, as far as we know
            batches: list[list[str]] = []  # the replies of each wake-up, in order
            poller = select.poll()
            for fd in sides:
                poller.register(fd, select.POLLIN)
            while len(replies) < 2:
                waiting = [(side, who) for side, who in sides.values() if who not in replies]
                timeout = min(side.deadline for side, _ in waiting) - time.monotonic()
                events = poller.poll(timeout * 1000 + 1) if timeout > 0 else []
                if not events:
                    for side, who in waiting:
                        if time.monotonic() > side.deadline and not side.working():
                            _, why = side.fail("worker did not answer in time")
                            return RunResult(verdict=Verdict.SE, message=f"worker failed ({who}): {why}"[:2000]), True
                    continue
                arrived = []
                for fd, _ in events:
                    side, who = sides[fd]
                    if who in replies:
                        continue
                    done, lost, why = side.feed()
                    if why is not None or (lost and not done):
                        if side.oom_struck and who == "program":
                            return self._jail_oom(), False
                        return RunResult(verdict=Verdict.SE, message=f"worker failed ({who}): {why or 'lost'}"[:2000]), True
                    if done:
                        poller.unregister(fd)
                        replies[who] = done[0][1:]
                        ended[who] = started[who] + done[0][1][3] / 1000.0  # start + its wall time
                        arrived.append(who)
                if arrived:
                    batches.append(arrived)
                # Only now may the other side see this one's end (see the docstring).
                for who in arrived:
                    if who == "program":
                        drop(to_val_w)
                    else:
                        drop(to_sub_w)
                        if replies[who][0][0] != validators.ACCEPT:
                            drop(to_val_r)  # a judgement other than AC: the program may get SIGPIPE
            failed = False
            # Which side ended first: the one whose reply came first; two in one wake-up were
            # independent of each other (neither could see the other's end): by their times.
            first = batches[0][0] if len(batches[0]) == 1 else min(
                batches[0], key=lambda who: (ended[who], who != "interactor"))
            result, infrastructure = self._interaction_verdict(replies, first, sub_limits, val_limits, interactor)
            if infrastructure:  # the next attempt gets fresh jails
                slot.stop()
                partner.stop()
            return result, infrastructure
        finally:
            for fd in list(held):
                drop(fd)
            for side in (slot, partner):
                if failed and side.inflight:  # a run we gave up on: its jail goes
                    side.reset()
            self._pool.release(slot)
            self._pool.release_partner(partner)

    def _interaction_verdict(self, replies: dict[str, tuple], first: str, sub_limits: Limits,
                             val_limits: Limits, interactor: Validator) -> tuple[RunResult, bool]:
        fields, _, err = replies["program"]
        run = self._verdict(fields, b"", err, sub_limits)
        vfields, vout, verr = replies["interactor"]
        vrun = self._verdict(vfields, vout, verr, val_limits)
        if run.verdict is Verdict.SE or vrun.verdict is Verdict.SE:  # a side the worker could not start
            return RunResult(verdict=Verdict.SE, message=f"program: {run.message}; interactor: {vrun.message}"[:2000]), True
        judged = validators.output_judgement(vrun, interactor.program.name, "interactor")
        if judged.verdict is Verdict.SE:  # the interactor failed itself: a judge error
            verdict, message = Verdict.SE, judged.message
        elif judged.verdict is Verdict.WA and first == "interactor":
            verdict, message = Verdict.WA, judged.message  # it rejected the program before the program ended
        elif run.verdict in (Verdict.TLE, Verdict.MLE, Verdict.RE, Verdict.OLE):
            verdict, message = run.verdict, run.message
        else:
            verdict, message = judged.verdict, judged.message
        return run.model_copy(update={"verdict": verdict, "message": message, "stdout": ""}), False

    async def arun(self, *a, **kw) -> RunResult:
        return await asyncio.to_thread(self.run, *a, **kw)

    async def ajudge(self, *a, **kw) -> RunResult:
        return await asyncio.to_thread(self.judge, *a, **kw)

    def call_python(self, code: str, function: str, args: list | None = None,
                    limits: Limits = Limits(), *, stdin: str = "", seed: int | None = None,
                    deadline: float | None = None) -> CallResult:
        files, marker = callpy.prepare(code, function, args, seed)
        if deadline is None:  # (a wrapper of the sandbox may take no deadline)
            run = self.run(callpy.DRIVER_PROGRAM, stdin, limits, files=files)
        else:
            run = self.run(callpy.DRIVER_PROGRAM, stdin, limits, files=files, deadline=deadline)
        return callpy.interpret(run, marker)

    def call_many(self, calls: Iterable[PyCall], *, deadline: float | None = None) -> list[CallResult]:
        """``call_python`` for a batch, spread over every worker slot; results in order.
        ``deadline``: as for ``run_many`` (``DeadlineExceeded`` when it cuts any call)."""
        calls = list(calls)
        prepared = [callpy.prepare(c.code, c.function, c.args, c.seed) for c in calls]
        jobs = [Job(program=callpy.DRIVER_PROGRAM, stdin=c.stdin, limits=c.limits, files=files)
                for c, (files, _) in zip(calls, prepared)]
        runs = list(self.run_many(jobs) if deadline is None else self.run_many(jobs, deadline=deadline))
        return [callpy.interpret(run, marker) for run, (_, marker) in zip(runs, prepared)]

    async def acall_many(self, calls: Iterable[PyCall]) -> list[CallResult]:
        calls = list(calls)
        return await asyncio.to_thread(self.call_many, calls)

    # ------------------------------------------------------------------ batches

    def run_many(self, jobs: Iterable[Job], *, progress: Callable[[int, int], None] | None = None,
                 deadline: float | None = None) -> Iterator[RunResult]:
        """Results in job order, streamed; every slot busy (see batch.py: one poll loop in
        the consuming thread drives them all).

        ``deadline`` (a ``time.monotonic()`` value) bounds the whole batch, runs in flight
        included: the worker stops a run still going there and starts none after it, and
        the stream raises ``DeadlineExceeded`` in place of the first result it did not
        get (the results before it stand). The stream ends within a few milliseconds of
        the deadline; compiles still going then finish in the background."""
        if self._closed:
            raise RuntimeError("sandbox is closed")
        self._cancelled.clear()
        if self.executor is not None:
            return ordered_stream(self.executor, jobs, self._cancelled, progress, deadline=deadline)
        return batch.stream(self, jobs, self._cancelled, progress, deadline)

    def cancel(self) -> None:
        """Stop batch work: jobs not started are dropped, run_many stops yielding."""
        self._cancelled.set()

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._cancelled.set()
        if self._compile_pool is not None:
            self._compile_pool.shutdown(wait=False, cancel_futures=True)
        if self.executor is not None:
            self.executor.shutdown(cancel_pending=True)  # a cluster's sandbox: the cluster goes too
        self._pool.close()

    def __enter__(self) -> "Sandbox":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass

    # ------------------------------------------------------------------ internals

    def _execute(self, program: Program, stdin: str, limits: Limits,
                 files: dict[str, str] | None, args: list[str] | None,
                 deadline: float | None = None) -> RunResult:
        """Run on a slot; a run the sandbox itself failed (SE) is retried on a fresh
        slot, up to SE_RETRIES times, so a caller sees SE only when it persists (or
        when ``deadline`` passed before a retry: the sandbox's failure is still why)."""
        if self._closed:
            raise RuntimeError("sandbox is closed")
        request, limits = self._request(program, limits, args, files)
        # A lone surrogate (from JSON, an LLM) must reach the program as bytes, not crash us.
        data = to_bytes(stdin)
        failures: list[str] = []
        for _ in range(1 + SE_RETRIES):
            result = self._attempt(request, data, limits, deadline)
            if result.verdict is not Verdict.SE:
                return result
            failures.append(result.message)
            if deadline is not None and time.monotonic() >= deadline:
                break
        result.message = (f"sandbox error, {len(failures)} attempts on fresh slots: "
                          + " | ".join(failures))[:4000]
        log.error("%s", result.message)
        return result

    def _request(self, program: Program, limits: Limits, args: list[str] | None,
                 files: dict[str, str] | None) -> tuple[dict, Limits]:
        """The run's request but for its stdin, packed; the tests of one program share
        it (without files: they are per run), so it is made once."""
        key = None
        if not files:
            flags = tuple(program.flags) if program.flags is not None else None
            key = (program.language, program.code, flags, tuple(args) if args else None,
                   *self._limits_key(limits), program.file,
                   tuple(sorted(program.files.items())) if program.files else None)
            made = self._requests.get(key)
            if made is not None:
                return made
        request, limits = self._make_request(program, limits, args, files)
        request["prefix"] = pack_prefix(request)
        # What the slot needs per run, worked out once: its cgroup limits, the output caps
        # and how long the worker may take before the host gives up on it.
        request["cgroup"] = (limits.memory_mb << 20, limits.processes)
        request["caps"] = (request["limits"]["out_bytes"], request["limits"]["err_bytes"])
        request["guard_s"] = limits.wall_guard_ms / 1000.0 + HOST_SLACK_S
        if key is not None:
            if len(self._requests) > 4096:
                self._requests.clear()
            self._requests[key] = (request, limits)
        return request, limits

    def _make_request(self, program: Program, limits: Limits, args: list[str] | None,
                      files: dict[str, str] | None) -> tuple[dict, Limits]:
        # The worker opens the program's file below the cache and hands it over as an
        # fd: a native binary is exec'd from it ("" = argv[0]), an interpreter reads
        # its program from /dev/fd/3. A program with file names of its own (a Kattis
        # submission) runs from its files in the run folder, under its own name, as a
        # judge runs it: ``pypy3 paul.py`` (its argv[0] and its folder as it expects).
        lang = program.language
        artifact = self.compiler.artifact(program)
        named = lang.python and (program.file is not None or bool(program.files))
        if named:
            own = program_files(program)
            main = next(iter(own))
            files = {**own, **(files or {})}
            artifact = ""
        script = main if named else PROGRAM_FD
        if lang is Language.PYTHON:
            # -I (isolated) for tczoo's own programs; a named one keeps its folder on sys.path
            # (its modules), still without the environment or a user site (-E -s)
            argv = [self.caps.python, "-E", "-s", script] if named else [self.caps.python, "-I", script]
        elif lang in (Language.PYPY, Language.PYTHON2):
            argv = [languages.tool(lang) or lang.value, script]
        elif lang in JVM_COMPILED:
            argv = [java_tool("java") or "java", *JAVA_RUN_OPTS, f"-Xmx{limits.memory_mb}m", "-jar", PROGRAM_FD]
        elif lang is Language.HASKELL:  # the judges' runtime options: heap at the memory limit, 8 MB stack
            argv = ["", "+RTS", f"-M{limits.memory_mb}m", languages.HASKELL_STACK, "-RTS"]
        else:
            argv = [""]
        threads = languages.SPECS[lang].runtime_threads if lang in languages.SPECS else 0
        if threads:
            # A runtime's own threads (the JVM's, Go's, GHC's) count against NPROC and pids.
            limits = limits.model_copy(update={"processes": max(limits.processes, threads)})
        argv += list(args or [])
        request = {"artifact": artifact, "argv": argv, "files": files or {},
                   "limits": self._wire_limits(limits, self._pool.tree is not None)}
        return request, limits

    @staticmethod
    def _limits_key(limits: Limits) -> tuple:
        return (limits.time_ms, limits.wall_ms, limits.memory_mb, limits.output_kb, limits.file_kb,
                limits.processes)

    def _wire_limits(self, limits: Limits, cgroups: bool) -> dict:
        key = (*self._limits_key(limits), cgroups)
        wire = self._wire_cache.get(key)
        if wire is None:
            if len(self._wire_cache) > 4096:
                self._wire_cache.clear()
            wire = self._wire_cache[key] = wire_limits(limits, cgroups)
        return wire

    def _attempt(self, request: dict, stdin: bytes, limits: Limits, deadline: float | None = None) -> RunResult:
        deadline_us = 0
        if deadline is None:
            slot = self._pool.acquire()
        else:
            slot = self._pool.acquire(timeout=max(0.0, deadline - time.monotonic()))
            if slot is None:
                raise DeadlineExceeded("the caller's deadline passed before a worker slot was free", cut=1)
            deadline_us = max(1, int(deadline * 1e6))
        try:
            try:
                slot.ensure_started()
            except WorkerDied as e:
                log.warning("sandbox worker slot %d did not start: %s", slot.index, e)
                return RunResult(verdict=Verdict.SE, message=f"worker failed: {e}"[:2000])
            try:
                fields, out, err = slot.execute(request, stdin, deadline_us)
            except WorkerDied as e:
                if slot.oom_struck:  # the run's memory made the kernel kill the jail
                    return self._jail_oom()
                log.warning("sandbox worker slot %d failed: %s", slot.index, e)
                return RunResult(verdict=Verdict.SE, message=f"worker failed: {e}"[:2000])
            result = self._verdict(fields, out, err, limits)  # DeadlineExceeded: the run was cut
            if result.verdict is Verdict.SE:
                slot.stop()  # the next attempt gets a fresh jail
            return result
        finally:
            self._pool.release(slot)

    @staticmethod
    def _jail_oom() -> RunResult:
        """A run whose memory got the jail itself OOM-killed (``Slot.oom_struck``)."""
        return RunResult(verdict=Verdict.MLE, message="memory limit exceeded: the slot's OOM killer took "
                         "the jail (the program's tmpfs files or kernel memory, not its RSS)")

    def _verdict(self, fields: tuple, out: bytes, err: bytes, limits: Limits) -> RunResult:
        """A run's result from the worker's reply (``slots.REPLY`` fields), by the rules
        of docs/sandbox.md in their order."""
        code, sig, cpu, wall, rss, killed, _, _, _, ooms, _ = fields
        if (code == 0 and sig < 0 and not killed and not ooms and cpu <= limits.time_ms
                and rss <= limits.memory_mb * 1024):
            # A clean exit within every limit: AC (most runs; decided in a few tests).
            return _new_result({"verdict": Verdict.AC, "exit_code": 0, "cpu_ms": round(cpu, 3),
                                "wall_ms": round(wall, 3), "memory_kb": rss, "stdout": from_bytes(out),
                                "stderr": from_bytes(err) if err else ""})
        if killed == KILLED_DEADLINE:  # stopped, or never started, at the caller's deadline
            raise DeadlineExceeded("the caller's deadline passed during the run", cut=1)
        h = header(fields)
        stdout = from_bytes(out)  # lossless: a program's invalid UTF-8 survives as surrogate escapes
        stderr = from_bytes(err)
        base = dict(
            exit_code=h["exit_code"], signal=h["signal"], cpu_ms=round(h["cpu_ms"], 3),
            wall_ms=round(h["wall_ms"], 3), memory_kb=int(h["maxrss_kb"]), stdout=stdout,
            stderr=stderr, stdout_truncated=h["killed"] == "output",
        )
        sig, code, killed = h["signal"], h["exit_code"], h["killed"]
        memory_kb = limits.memory_mb * 1024
        if h["start_failed"]:  # the worker's own word (never the program's stderr or exit code)
            return RunResult(verdict=Verdict.SE, message=start_failure(h["start_failed"]), **base)
        if killed == "output" or sig == signal.SIGXFSZ:
            verdict, why = Verdict.OLE, "output limit exceeded"
        elif h["oom_kills"] > 0 or base["memory_kb"] > memory_kb:
            verdict, why = Verdict.MLE, "memory limit exceeded"
        elif killed in ("cpu", "wall") or sig == signal.SIGXCPU or h["cpu_ms"] > limits.time_ms:
            why = "wall-clock guard" if killed == "wall" else "CPU time limit exceeded"
            verdict = Verdict.TLE
        elif sig is not None or code != 0:
            verdict, why = Verdict.RE, f"signal {sig}" if sig is not None else f"exit code {code}"
            if self._looks_out_of_memory(stderr, sig, base["memory_kb"], memory_kb):
                verdict, why = Verdict.MLE, "memory limit exceeded (allocation failed)"
            elif "[Errno 27] File too large" in stderr[-4000:]:
                # Python ignores SIGXFSZ and raises instead: the file-size limit is OLE.
                verdict, why = Verdict.OLE, "file size limit exceeded"
        else:
            verdict, why = Verdict.AC, ""
        return RunResult(verdict=verdict, message=why, **base)

    def _looks_out_of_memory(self, stderr: str, sig: int | None, used_kb: int, limit_kb: int) -> bool:
        """Only without a memory cgroup: RLIMIT_AS makes allocations fail, not OOM-kill."""
        if self._pool.tree is not None:
            return False
        tail = stderr[-4000:]
        return ("MemoryError" in tail or "std::bad_alloc" in tail
                or (sig in (signal.SIGSEGV, signal.SIGABRT) and used_kb > 0.9 * limit_kb))
