"""``run_many`` on this machine's slots: one poll loop in the calling thread.

The thread-pool way (``executor.LocalExecutor``: a thread per slot, a future per job,
the consumer woken per result) put two thread hand-offs and a dozen GIL round trips on
every run: with two slots the host threads queued for the GIL while the jails sat
idle, and 2 workers gave 1.5-1.7x the throughput of one. Here the consumer's thread
drives every slot itself: it queues requests on each slot, polls all their reply
pipes, parses what arrives, and tops the queues up. Only compiles (seconds, not
microseconds) go to helper threads.

One request and one reply per run left ~55-100 us of host CPU per run (a write, a
wake-up, a read, a dozen Python calls), so one host process could feed at most
10-18k runs/s, and on two cores the host's share capped two workers at ~1.6x one. So
runs are queued on a slot ahead of its worker (``depth``: about ``QUEUE_MS`` of work,
judged from the batch's recent runs, growing to ``MAX_QUEUE_MS`` in a long batch; one
until the first run answers), sent with
one write per top-up, and the worker holds its replies until three quarters of the
queue is done (``FLAG_FLUSH``) or it runs dry: the host wakes once per several runs. A slot's
queue holds runs with its cgroup limits only, and no more bytes than its request pipe
holds.

Semantics are ``ordered_stream``'s: results in job order, streamed; ``progress(done,
total)``; when ``cancelled`` is set, nothing more is dispatched or yielded. Runs in
flight when the stream ends (cancelled, or the consumer stopped reading) finish on a
background thread, which then returns their slots to the pool.

An interactive job (``Job.interactive``: the program and the problem's interactor run
together, ``Sandbox.interact``) takes two slots of its own for a while: it runs on a
helper thread (as compiles do), which borrows them from the pool like any caller, and
its result is filed in order like any other.

A ``deadline`` (``time.monotonic()``) travels with every request: the worker stops a
run still going there (``KILLED_DEADLINE``) and does not start one after it, so runs in
flight and queued end at the deadline without the host killing a jail; the stream
raises ``DeadlineExceeded`` in place of the first result it did not get, at the latest
when the deadline passes (it does not wait for the worker's replies).
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

from tczoo.safeio.text import to_bytes
from tczoo.sandbox import validators
from tczoo.sandbox.compare import PROGRAM, compare_outputs, parse_comparator
from tczoo.sandbox.slots import HOST_SLACK_S, SE_RETRIES, Slot, WorkerDied
from tczoo.sandbox.types import CompileResult, DeadlineExceeded, Job, RunResult, Verdict

if TYPE_CHECKING:
    from tczoo.sandbox.sandbox import Sandbox

log = logging.getLogger("tczoo.sandbox")
LOOKAHEAD = 4  # jobs taken from the iterator per slot beyond its queue (compiles start that early)
QUEUE_MS = 20.0  # work queued on a slot ahead of its worker: small, so a batch's tail stays balanced
QUEUE_SHARE = 0.02  # ... and later up to this share of the batch's time so far: fewer wake-ups per run
MAX_QUEUE_MS = 80.0  # (a queue's runs are what a cancelled stream still runs, and the tail's imbalance)
MAX_DEPTH = 96  # runs queued on one slot at most
BIG_STDIN = 1 << 16  # an input this long is encoded once per batch, not once per program run on it
MAX_ENCODED = 64 << 20  # ... while the encoded copies kept take at most this many bytes
_CUT = object()  # a result the deadline cut: the stream raises DeadlineExceeded there


class _Pending:
    __slots__ = ("index", "job", "compiled", "failures", "request", "limits", "stdin", "parent", "deadline_us")
    # (``request``, ``stdin``, ``deadline_us`` and ``flags`` are what ``Slot.fill`` sends)
    flags = 0  # a batch's runs talk to the worker (interactive runs go through Sandbox.interact)

    def __init__(self, index: int, job: Job, stdin: bytes, parent: "tuple[_Pending, RunResult] | None" = None,
                 deadline_us: int = 0):
        self.index = index  # the result's place in the stream
        self.job = job
        self.compiled: CompileResult | Future | None = None
        self.failures: list[str] | None = None  # why each attempt failed (sandbox errors)
        self.request: dict | None = None
        self.limits = job.limits
        self.stdin = stdin  # job.stdin as the program reads it (``_Driver._encode``)
        # An output validator's run: the judged job and its (accepted) run.
        self.parent = parent
        self.deadline_us = deadline_us  # the batch's deadline, time.monotonic() microseconds (0: none)


def stream(sb: "Sandbox", jobs: Iterable[Job], cancelled: threading.Event,
           progress: Callable[[int, int], None] | None = None,
           deadline: float | None = None) -> Iterator[RunResult]:
    total = len(jobs) if hasattr(jobs, "__len__") else None  # type: ignore[arg-type]
    driver = _Driver(sb, iter(jobs), cancelled, deadline)
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
    def __init__(self, sb: "Sandbox", jobs: Iterator[Job], cancelled: threading.Event,
                 deadline: float | None = None):
        self.sb = sb
        self.deadline = deadline
        self.deadline_us = max(1, int(deadline * 1e6)) if deadline is not None else 0
        self.workers = sb.workers
        self.jobs = jobs
        self.cancelled = cancelled
        self.exhausted = False
        self.pulled = 0
        self.ready: deque[_Pending] = deque()  # compiled, waiting for a slot
        self.compiling: list[_Pending] = []
        self.held: list[Slot] = []  # slots this batch holds (running its jobs or about to)
        self.busy: dict[int, Slot] = {}  # reply fd -> a held slot with runs in flight
        self.finished: dict[int, RunResult] = {}
        self.next_index = 0
        self.wall_ms = 0.0  # the batch's recent runs (moving average): how deep to queue
        self.started = time.monotonic()
        self.poller = select.poll()
        self._wake_r, self._wake_w = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
        self.poller.register(self._wake_r, select.POLLIN)
        self._compile_pool: ThreadPoolExecutor | None = None
        self._interact_pool: ThreadPoolExecutor | None = None
        self.interacting: list[tuple[_Pending, Future]] = []  # interactive jobs on helper threads
        self._comparator: object = object()  # the last comparator checked
        self._last: tuple | None = None  # (program, limits, args, compiled, request, wire limits)
        self._encoded: dict[int, tuple[str, bytes]] = {}  # id(text) -> (text, its bytes), oldest first
        self._encoded_bytes = 0

    # ------------------------------------------------------------------ the loop

    def results(self) -> Iterator[RunResult]:
        finished, deadline = self.finished, self.deadline
        while not self.cancelled.is_set():
            self._pull()
            self._dispatch()
            if self.next_index in finished:
                while self.next_index in finished:
                    result = finished.pop(self.next_index)
                    if result is _CUT:
                        self._past_deadline()
                    yield result
                    self.next_index += 1
                    if self.cancelled.is_set():
                        return
                continue
            if self.exhausted and self.next_index >= self.pulled:
                return
            if deadline is not None and time.monotonic() >= deadline:
                self._past_deadline()
            self._wait()

    def _past_deadline(self) -> None:
        raise DeadlineExceeded(f"the caller's deadline passed: {self.next_index} result(s) delivered, "
                               f"{self.pulled - self.next_index} cut or never started",
                               done=self.next_index, cut=self.pulled - self.next_index)

    def depth(self) -> int:
        """Runs to queue on a slot: one until a run answered; then about QUEUE_MS of work,
        and in a long batch up to QUEUE_SHARE of its time so far (at most MAX_QUEUE_MS):
        each wake-up of the host costs about as much as parsing ten replies, cold caches
        included, and a long batch can afford to queue more without unbalancing its end
        or running much after a cancel, relative to what it has done."""
        if not self.wall_ms:
            return 1
        queue_ms = min(MAX_QUEUE_MS, max(QUEUE_MS, (time.monotonic() - self.started) * (1000 * QUEUE_SHARE)))
        return max(1, min(MAX_DEPTH, int(queue_ms / (self.wall_ms + 0.05))))

    def _pull(self) -> None:
        window = (LOOKAHEAD + self.depth()) * self.workers
        while not self.exhausted and self.pulled - self.next_index < window:
            try:
                job = next(self.jobs)
            except StopIteration:
                self.exhausted = True
                return
            if job.output_validator is None:  # a bad comparator is the caller's bug
                if job.comparator is not self._comparator:
                    parse_comparator(job.comparator)
                    self._comparator = job.comparator
                if job.expected is not None and job.comparator == PROGRAM:
                    raise ValueError("comparator 'program' needs the problem's output_validator")
            p = _Pending(self.pulled, job, self._encode(job.stdin), None, self.deadline_us)
            self.pulled += 1
            self._admit(p)

    def _encode(self, text: str) -> bytes:
        """``text`` as the bytes a program reads (a lone surrogate from JSON or an LLM
        included: ``to_bytes``). A batch runs each test on every program (a judge
        matrix, the timings of the correct codes): a long input is encoded once, and the
        copies kept are bounded (the oldest go first)."""
        if len(text) < BIG_STDIN:
            return to_bytes(text)
        kept = self._encoded.get(id(text))
        if kept is not None and kept[0] is text:
            return kept[1]
        data = to_bytes(text)
        self._encoded[id(text)] = (text, data)
        self._encoded_bytes += len(data)
        while self._encoded_bytes > MAX_ENCODED and len(self._encoded) > 1:
            _, old = self._encoded.pop(next(iter(self._encoded)))
            self._encoded_bytes -= len(old)
        return data

    def _admit(self, p: _Pending) -> None:
        job, last = p.job, self._last
        if job.interactive or (job.output_validator is not None and job.output_validator.interactive
                               and job.expected is not None):
            if self.deadline is not None:
                raise ValueError("interactive jobs take no deadline")
            if job.output_validator is None:
                raise ValueError("an interactive job needs the problem's interactor (output_validator)")
            if self._interact_pool is None:
                self._interact_pool = ThreadPoolExecutor(max_workers=self.sb.workers,
                                                         thread_name_prefix="tczoo-interact")
            future = self._interact_pool.submit(self.sb.interact, job.program, job.output_validator, job.stdin,
                                                job.expected or "", job.limits)
            future.add_done_callback(self._wake)
            self.interacting.append((p, future))
            return
        # Consecutive jobs of one program share its compile and request (the common
        # batch: one program on many tests); files make a request per run.
        if last is not None and job.program is last[0] and job.args is last[2] and not job.files \
                and (job.limits is last[1] or job.limits.__dict__ == last[1].__dict__):
            p.compiled, p.request, p.limits = last[3], last[4], last[5]
            self._queue(p)
            return
        known = self.sb.compiler.known(job.program)
        if known is not None:
            self._compiled(p, known)
        else:
            p.compiled = self._compiles().submit(self.sb._build, job.program)
            p.compiled.add_done_callback(self._wake)
            self.compiling.append(p)

    def _compiled(self, p: _Pending, built: CompileResult) -> None:
        if not built.ok:
            self._complete(p, self.sb._compile_failure(built))
            return
        job = p.job
        p.compiled = built
        p.request, p.limits = self.sb._request(job.program, job.limits, job.args, job.files)
        if not job.files:
            self._last = (job.program, job.limits, job.args, built, p.request, p.limits)
        self._queue(p)

    def _queue(self, p: _Pending) -> None:
        if p.parent is not None:
            self.ready.appendleft(p)  # an output validator's run: its result is awaited
        else:
            self.ready.append(p)

    def _dispatch(self) -> None:
        ready = self.ready
        if not ready or (self.deadline is not None and time.monotonic() >= self.deadline):
            return
        # Every slot we may have, while there is work for it ...
        while len(self.held) < self.workers and len(ready) > sum(len(s.inflight) == 0 for s in self.held):
            slot = self._acquire()
            if slot is None:
                break
            self.held.append(slot)
        # ... then each one's queue topped up. The worker answers when a quarter of
        # its queue is left (FLAG_FLUSH every 3/4 of the depth): one wake-up of this
        # thread per that many runs, and the worker still has work while we refill.
        depth = self.depth()
        if self.exhausted:  # the end of the batch: no slot queues more than its share of what is left
            left = len(ready) + sum(len(s.inflight) for s in self.held)
            depth = min(depth, max(1, -(-left // max(1, len(self.held)))))
        step = max(1, depth * 3 // 4)
        for slot in self.held:
            if not ready:
                return
            if len(slot.inflight) < depth:
                self._fill(slot, depth, step)

    def _fill(self, slot: Slot, depth: int, step: int) -> None:
        try:
            slot.ensure_started()
        except WorkerDied as e:
            self._failed(slot, self.ready.popleft(), f"worker failed: {e}")
            return
        try:
            slot.fill(self.ready, depth, step)
        except WorkerDied as e:
            self._lost(slot, slot.reset(), f"worker failed: {e}")
            return
        if slot.inflight and slot.reply_fd not in self.busy:
            self.busy[slot.reply_fd] = slot
            self.poller.register(slot.reply_fd, select.POLLIN)

    def _acquire(self) -> Slot | None:
        slot = self.sb._pool.try_acquire()
        if slot is None and not self.busy:
            # Every slot is busy elsewhere (another thread's runs): wait for one.
            slot = self.sb._pool.acquire(timeout=0.05)
        return slot

    def _wait(self) -> None:
        now = time.monotonic()
        timeout = min((s.deadline for s in self.busy.values()), default=now + 0.05) - now
        if self.ready and len(self.held) < self.workers:
            timeout = min(timeout, 0.02)  # a slot may come free in another thread
        if self.deadline is not None:
            timeout = min(timeout, self.deadline - now)
        for fd, _ in self.poller.poll(max(0.0, timeout) * 1000 + 1):
            if fd == self._wake_r:
                self._drain_wake()
                self._collect_compiles()
                continue
            slot = self.busy.get(fd)
            if slot is None:
                continue
            done, lost, why = slot.feed()
            if done:
                self._replies(slot, done)
            if lost or why is not None or not slot.inflight:
                self._lost(slot, lost, f"worker failed: {why}" if why is not None else None)
        now = time.monotonic()
        for slot in [s for s in self.busy.values() if now > s.deadline]:
            if slot.working():  # late but busy (emptying what its program left): not stuck
                continue
            lost, why = slot.fail("worker did not answer in time")
            self._lost(slot, lost, f"worker failed: {why}")

    def _replies(self, slot: Slot, done: list) -> None:
        verdict, complete, se = self.sb._verdict, self._complete, Verdict.SE
        for p, fields, out, err in done:
            try:
                result = verdict(fields, out, err, p.limits)
            except DeadlineExceeded:  # the worker stopped it, or did not start it, at the deadline
                self.finished[p.index] = _CUT
                continue
            if result.verdict is se:  # the worker could not start the program
                self._failed(slot, p, result.message)
                self._lost(slot, slot.reset(), None)
                continue
            complete(p, result)
        # How long runs take: a moving average over replies (the last of each read).
        wall = sum(d[1][3] for d in done) / len(done)
        self.wall_ms = wall if not self.wall_ms else 0.7 * self.wall_ms + 0.3 * wall

    def _lost(self, slot: Slot, lost: list, why: str | None) -> None:
        """After a slot's replies: runs it lost go back to the queue (the first one
        with a failure when the worker failed on it); a slot with nothing in flight
        stops being polled, and goes back to the pool when there is no work for it."""
        fd = next((fd for fd, s in self.busy.items() if s is slot), None)
        if fd is not None and (not slot.inflight or fd != slot.reply_fd):
            self.poller.unregister(fd)
            del self.busy[fd]
        if lost:
            first, rest = (lost[0], lost[1:]) if why is not None else (None, lost)
            self.ready.extendleft(reversed(rest))  # they never ran: no failure counted
            if first is not None and slot.oom_struck:  # its memory killed the jail: its own MLE
                self._complete(first, self.sb._jail_oom())
            elif first is not None:
                self._failed(slot, first, why)
        if not slot.inflight and not self.ready and slot in self.held:
            self.held.remove(slot)
            self.sb._pool.release(slot)

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
                self._admit(_Pending(p.index, follow, self._encode(follow.stdin), (p, result), self.deadline_us))
                return
            if not compare_outputs(result.stdout, job.expected, job.comparator):
                result.verdict = Verdict.WA
        self.finished[p.index] = result

    def _failed(self, slot: Slot, p: _Pending, why: str) -> None:
        """An infrastructure failure: try again on a fresh jail, up to SE_RETRIES times."""
        log.warning("sandbox worker slot %d failed: %s", slot.index, why)
        p.failures = [*(p.failures or ()), why[:2000]]
        # (past the deadline there is no retry: the sandbox's failure is still why there is no result)
        if len(p.failures) <= SE_RETRIES and (self.deadline is None or time.monotonic() < self.deadline):
            self.ready.appendleft(p)
            return
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
        if self.interacting:
            waiting = []
            for p, future in self.interacting:
                if not future.done():
                    waiting.append((p, future))
                    continue
                try:
                    self.finished[p.index] = future.result()
                except Exception as e:  # noqa: BLE001 - our failure, never the program's verdict
                    log.exception("interactive run failed")
                    self.finished[p.index] = RunResult(verdict=Verdict.SE, message=f"sandbox error: {e!r}"[:2000])
            self.interacting = waiting
        still = []
        for p in self.compiling:
            if not p.compiled.done():
                still.append(p)
                continue
            try:
                built = p.compiled.result()
            except Exception as e:  # noqa: BLE001 - a compile that raised is our failure
                built = CompileResult(ok=False, message=f"sandbox error: compile raised {e!r}"[:2000],
                                      infrastructure=True)
            self._compiled(p, built)
        self.compiling = still
        # Results must come out in order: a ready job may now precede later ones.
        self.ready = deque(sorted(self.ready, key=lambda p: p.index))

    # ------------------------------------------------------------------ the end

    def close(self) -> None:
        """Hand runs still in flight to a thread that finishes them and returns their
        slots; return the idle ones now."""
        busy = [s for s in self.held if s.inflight]
        for slot in self.held:
            if not slot.inflight:
                self.sb._pool.release(slot)
        self.held = []
        self.busy = {}
        if busy:
            threading.Thread(target=_finish_in_background, args=(self.sb, busy),
                             name="tczoo-batch-drain", daemon=True).start()
        if self._compile_pool is not None:
            self._compile_pool.shutdown(wait=False, cancel_futures=True)
        if self._interact_pool is not None:  # runs under way finish on their own and return their slots
            self._interact_pool.shutdown(wait=False, cancel_futures=True)
        for fd in (self._wake_r, self._wake_w):
            os.close(fd)


def _finish_in_background(sb: "Sandbox", slots: list[Slot]) -> None:
    """Let each slot's queued runs finish (their results are not wanted: the stream
    ended), then return it to the pool, clean."""
    for slot in slots:
        try:
            while slot.inflight:
                left = slot.deadline - time.monotonic()
                if left <= 0:
                    if slot.working():
                        continue
                    slot.fail("worker did not answer in time")
                    break
                if slot.wait_reply(left):
                    _, _, why = slot.feed()
                    if why is not None:
                        break
        except Exception:  # noqa: BLE001 - whatever went wrong, the slot must come back clean
            log.exception("sandbox slot %d: finishing an abandoned run failed", slot.index)
            slot.reset()
        finally:
            sb._pool.release(slot)
