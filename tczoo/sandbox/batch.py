"""``run_many`` on this machine's slots: one poll loop in the calling thread.

The thread-pool way (``executor.LocalExecutor``: a thread per slot, a future per job,
the consumer woken per result) put two thread hand-offs and a dozen GIL round trips on
every run: with two slots the host threads queued for the GIL while the jails sat
idle, and 2 workers gave 1.5-1.7x the throughput of one. Here the consumer's thread
drives every slot itself: it writes a request to each free slot, polls all their
reply pipes, parses what arrives, and dispatches the next job on the slot that just
answered. Only compiles (seconds, not microseconds) go to helper threads.

Semantics are ``ordered_stream``'s: results in job order, streamed; ``progress(done,
total)``; when ``cancelled`` is set, nothing more is dispatched or yielded. Runs in
flight when the stream ends (cancelled, or the consumer stopped reading) finish on a
background thread, which then returns their slots to the pool.
"""

from __future__ import annotations

import logging
import os
import select
import threading
import time
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING, Callable, Iterable, Iterator

from tczoo.safetext import to_bytes
from tczoo.sandbox import validators
from tczoo.sandbox.compare import PROGRAM, compare_outputs, parse_comparator
from tczoo.sandbox.slots import HOST_SLACK_S, SE_RETRIES, Slot, WorkerDied
from tczoo.sandbox.types import CompileResult, Job, RunResult, Verdict

if TYPE_CHECKING:
    from tczoo.sandbox.sandbox import Sandbox

log = logging.getLogger("tczoo.sandbox")
LOOKAHEAD = 4  # jobs taken from the iterator per slot (compiles start that early)


class _Pending:
    __slots__ = ("index", "job", "compiled", "failures", "request", "limits", "deadline", "parent")

    def __init__(self, index: int, job: Job, parent: "tuple[_Pending, RunResult] | None" = None):
        self.index = index  # the result's place in the stream
        self.job = job
        self.compiled: CompileResult | Future | None = None
        self.failures: list[str] = []
        self.request: dict | None = None
        self.limits = job.limits
        self.deadline = 0.0
        # An output validator's run: the judged job and its (accepted) run.
        self.parent = parent


def stream(sb: "Sandbox", jobs: Iterable[Job], cancelled: threading.Event,
           progress: Callable[[int, int], None] | None = None) -> Iterator[RunResult]:
    total = len(jobs) if hasattr(jobs, "__len__") else None  # type: ignore[arg-type]
    driver = _Driver(sb, iter(jobs), cancelled)
    done = 0
    try:
        for result in driver.results():
            done += 1
            if progress is not None:
                progress(done, total if total is not None else driver.pulled)
            yield result
    finally:
        driver.close()


class _Driver:
    def __init__(self, sb: "Sandbox", jobs: Iterator[Job], cancelled: threading.Event):
        self.sb = sb
        self.jobs = jobs
        self.cancelled = cancelled
        self.exhausted = False
        self.pulled = 0
        self.ready: deque[_Pending] = deque()  # compiled, waiting for a slot
        self.compiling: list[_Pending] = []
        self.flight: dict[int, tuple[Slot, _Pending]] = {}  # reply fd -> run in flight
        self.idle: list[Slot] = []  # slots we hold with nothing to do
        self.finished: dict[int, RunResult] = {}
        self.next_index = 0
        self.poller = select.poll()
        self._wake_r, self._wake_w = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
        self.poller.register(self._wake_r, select.POLLIN)
        self._compile_pool: ThreadPoolExecutor | None = None

    # ------------------------------------------------------------------ the loop

    def results(self) -> Iterator[RunResult]:
        while not self.cancelled.is_set():
            self._pull()
            self._dispatch()
            if self.next_index in self.finished:
                yield self.finished.pop(self.next_index)
                self.next_index += 1
                continue
            if self.exhausted and self.next_index >= self.pulled:
                return
            self._wait()

    def _pull(self) -> None:
        window = LOOKAHEAD * self.sb.workers
        while not self.exhausted and self.pulled - self.next_index < window:
            try:
                job = next(self.jobs)
            except StopIteration:
                self.exhausted = True
                return
            if job.output_validator is None:  # a bad comparator is the caller's bug
                parse_comparator(job.comparator)
                if job.expected is not None and job.comparator == PROGRAM:
                    raise ValueError("comparator 'program' needs the problem's output_validator")
            p = _Pending(self.pulled, job)
            self.pulled += 1
            self._admit(p)

    def _admit(self, p: _Pending) -> None:
        known = self.sb.compiler.known(p.job.program)
        if known is not None:
            self._compiled(p, known)
        else:
            p.compiled = self._compiles().submit(self.sb._build, p.job.program)
            p.compiled.add_done_callback(self._wake)
            self.compiling.append(p)

    def _compiled(self, p: _Pending, built: CompileResult) -> None:
        if not built.ok:
            self._complete(p, self.sb._compile_failure(built))
            return
        p.compiled = built
        p.request, p.limits = self.sb._request(p.job.program, p.job.limits, p.job.args, p.job.files)
        if p.parent is not None:
            self.ready.appendleft(p)  # an output validator's run: its result is awaited
        else:
            self.ready.append(p)

    def _dispatch(self) -> None:
        while self.ready:
            slot = self._slot()
            if slot is None:
                return
            p = self.ready.popleft()
            try:
                slot.ensure_started()
                # A lone surrogate (from JSON, an LLM) reaches the program as bytes.
                stdin = to_bytes(p.job.stdin)
                slot.send(p.request, stdin, p.limits.memory_mb << 20, p.limits.processes)
            except WorkerDied as e:
                self._failed(slot, p, f"worker failed: {e}")
                continue
            p.deadline = time.monotonic() + p.limits.wall_guard_ms / 1000.0 + HOST_SLACK_S
            self.flight[slot.reply_fd] = (slot, p)
            self.poller.register(slot.reply_fd, select.POLLIN)

    def _slot(self) -> Slot | None:
        if self.idle:
            return self.idle.pop()
        if len(self.flight) >= self.sb.workers:
            return None
        slot = self.sb._pool.try_acquire()
        if slot is None and not self.flight:
            # Every slot is busy elsewhere (another thread's runs): wait for one.
            slot = self.sb._pool.acquire(timeout=0.05)
        return slot

    def _wait(self) -> None:
        now = time.monotonic()
        timeout = min((p.deadline for _, p in self.flight.values()), default=now + 0.05) - now
        if self.ready and len(self.flight) < self.sb.workers:
            timeout = min(timeout, 0.02)  # a slot may come free in another thread
        for fd, _ in self.poller.poll(max(0.0, timeout) * 1000 + 1):
            if fd == self._wake_r:
                self._drain_wake()
                self._collect_compiles()
                continue
            slot, p = self.flight[fd]
            try:
                reply = slot.feed()
            except WorkerDied as e:
                self._land(fd)
                self._failed(slot, p, f"worker failed: {e}")
                continue
            if reply is not None:
                self._land(fd)
                result = self.sb._verdict(*reply, p.limits)
                if result.verdict is Verdict.SE:
                    slot.stop()
                    self._failed(slot, p, result.message)
                    continue
                self._keep(slot)
                self._complete(p, result)
        now = time.monotonic()
        for fd, (slot, p) in list(self.flight.items()):
            if now > p.deadline:
                self._land(fd)
                try:
                    slot.fail("worker did not answer in time")
                except WorkerDied as e:
                    self._failed(slot, p, f"worker failed: {e}")

    def _complete(self, p: _Pending, result: RunResult) -> None:
        """A run is over: judge it (an output validator is one more run), file it."""
        if p.parent is not None:  # the validator's run decides its parent's verdict
            judged, run = p.parent
            check = validators.output_judgement(result, judged.job.output_validator.program.name)
            run.verdict, run.message = check.verdict, check.message
            self.finished[judged.index] = run
            return
        job = p.job
        if job.expected is not None and result.verdict is Verdict.AC:
            if job.output_validator is not None:
                follow = validators.output_validator_job(job.output_validator, job.stdin, job.expected,
                                                         result.stdout)
                self._admit(_Pending(p.index, follow, parent=(p, result)))
                return
            if not compare_outputs(result.stdout, job.expected, job.comparator):
                result.verdict = Verdict.WA
        self.finished[p.index] = result

    def _land(self, fd: int) -> None:
        self.poller.unregister(fd)
        del self.flight[fd]

    def _keep(self, slot: Slot) -> None:
        """A slot that answered: the next ready job goes to it, or it goes back."""
        if self.ready:
            self.idle.append(slot)
        else:
            self.sb._pool.release(slot)

    def _failed(self, slot: Slot, p: _Pending, why: str) -> None:
        """An infrastructure failure: try again on a fresh jail, up to SE_RETRIES times."""
        log.warning("sandbox worker slot %d failed: %s", slot.index, why)
        p.failures.append(why[:2000])
        if len(p.failures) <= SE_RETRIES:
            self.ready.appendleft(p)
            self._keep(slot)
            return
        self._keep(slot)
        message = f"sandbox error, {len(p.failures)} attempts on fresh slots: " + " | ".join(p.failures)
        log.error("%s", message[:4000])
        self._complete(p, RunResult(verdict=Verdict.SE, message=message[:4000]))

    # ------------------------------------------------------------------ compiles

    def _compiles(self) -> ThreadPoolExecutor:
        if self._compile_pool is None:
            self._compile_pool = ThreadPoolExecutor(max_workers=self.sb.workers,
                                                    thread_name_prefix="tczoo-compile")
        return self._compile_pool

    def _wake(self, _future: Future) -> None:
        try:
            os.write(self._wake_w, b"x")
        except OSError:  # the pipe is full (it is only a doorbell) or closed
            pass

    def _drain_wake(self) -> None:
        try:
            while os.read(self._wake_r, 4096):
                pass
        except OSError:
            pass

    def _collect_compiles(self) -> None:
        still = []
        for p in self.compiling:
            if not p.compiled.done():
                still.append(p)
                continue
            try:
                built = p.compiled.result()
            except Exception as e:  # noqa: BLE001 - a compile that raised is our failure
                built = CompileResult(ok=False, message=f"sandbox error: compile raised {e!r}"[:2000])
            self._compiled(p, built)
        self.compiling = still
        # Results must come out in order: a ready job may now precede later ones.
        self.ready = deque(sorted(self.ready, key=lambda p: p.index))

    # ------------------------------------------------------------------ the end

    def close(self) -> None:
        """Hand runs still in flight to a thread that finishes them and returns their
        slots; return the idle ones now."""
        for slot in self.idle:
            self.sb._pool.release(slot)
        self.idle = []
        if self.flight:
            flight = list(self.flight.values())
            threading.Thread(target=_finish_in_background, args=(self.sb, flight),
                             name="tczoo-batch-drain", daemon=True).start()
        self.flight = {}
        if self._compile_pool is not None:
            self._compile_pool.shutdown(wait=False, cancel_futures=True)
        for fd in (self._wake_r, self._wake_w):
            os.close(fd)


def _finish_in_background(sb: "Sandbox", flight: list[tuple[Slot, _Pending]]) -> None:
    for slot, p in flight:
        try:
            while True:
                left = p.deadline - time.monotonic()
                if left <= 0:
                    slot.fail("worker did not answer in time")
                if slot.wait_reply(left) and slot.feed() is not None:
                    break
        except WorkerDied:
            pass
        except Exception:  # noqa: BLE001 - whatever went wrong, the slot must come back clean
            log.exception("sandbox slot %d: finishing an abandoned run failed", slot.index)
            slot.stop()
        finally:
            sb._pool.release(slot)
