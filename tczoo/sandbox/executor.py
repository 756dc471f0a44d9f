"""Batch execution on another backend: the interface it implements, and the ordered stream.

A backend only has to turn one ``Job`` into one ``RunResult`` somewhere (a Ray actor
holding its own Sandbox on another machine: see ``tczoo.distributed``); this machine's
slots are driven by ``tczoo.sandbox.batch`` instead. ``ordered_stream`` then gives every backend the same contract:
results streamed in job order, a bounded number of jobs in flight, progress callbacks
and cancellation. A ``Sandbox(executor=...)`` serves ``run_many`` (and so
``call_many`` and every ``tczoo.execution`` batch) through it.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from concurrent.futures import Future, TimeoutError as FutureTimeout
from typing import Callable, Iterable, Iterator, Protocol

from tczoo.sandbox.types import DeadlineExceeded, Job, RunResult, Verdict


class Executor(Protocol):
    """What a distributed backend (e.g. Ray) implements to serve ``run_many``.

    ``submit`` must not block for long; ``capacity`` is how many jobs it can usefully
    run at once (the lookahead window); ``shutdown`` cancels what has not started.
    A backend may hold submitted jobs back to send several in one message (a remote
    call per job costs more than a run): ``flush`` sends whatever it holds, and
    ``ordered_stream`` calls it before it waits for a result. Programs travel as
    source, so each node compiles into its own cache.
    """

    capacity: int

    def submit(self, job: Job) -> "Future[RunResult]": ...

    def flush(self) -> None: ...

    def shutdown(self, cancel_pending: bool = True) -> None: ...


def check_job(job: Job) -> None:
    """What a backend refuses before it accepts a job: the caller's bugs (a comparator
    that does not parse, 'program' without an output validator) fail at once, in the
    caller's thread, wherever the job would have run."""
    from tczoo.sandbox.compare import PROGRAM, parse_comparator

    if job.output_validator is None:
        parse_comparator(job.comparator)
        if job.expected is not None and job.comparator == PROGRAM:
            raise ValueError("comparator 'program' needs the problem's output_validator")


def ordered_stream(
    executor: Executor,
    jobs: Iterable[Job],
    cancelled: threading.Event,
    progress: Callable[[int, int], None] | None = None,
    *,
    deadline: float | None = None,
) -> Iterator[RunResult]:
    """Yield results in job order while keeping ~2x capacity jobs in flight.

    ``progress(done, total)`` is called as results are yielded; ``total`` is the
    job count when ``jobs`` has a length, else the number submitted so far.
    When ``cancelled`` is set, jobs not yet started are cancelled and the stream
    ends after the result it is waiting on; nothing further is yielded.
    ``deadline`` (``time.monotonic()``): each job's wall-clock guard is cut to the time
    left when it is submitted; the stream waits no longer than the deadline and raises
    ``DeadlineExceeded`` in place of a result it did not get, or of a run its cut guard
    stopped (the backend's own runs end by the cut guards).
    """
    total = len(jobs) if hasattr(jobs, "__len__") else None  # type: ignore[arg-type]
    it = iter(jobs)
    window: deque[Future] = deque()
    cut: set[int] = set()  # ids of the futures whose job's wall guard the deadline shortened
    submitted = done = 0
    exhausted = False

    def past(f: Future | None = None) -> DeadlineExceeded:
        for g in ([f] if f else []) + list(window):
            g.cancel()
        return DeadlineExceeded(f"the caller's deadline passed: {done} result(s) delivered",
                                done=done, cut=submitted - done)

    while True:
        while not exhausted and not cancelled.is_set() and len(window) < 2 * executor.capacity:
            if deadline is not None and time.monotonic() >= deadline:
                break
            try:
                job = next(it)
            except StopIteration:
                exhausted = True
                break
            shortened = False
            if deadline is not None:
                left_ms = max(1, int((deadline - time.monotonic()) * 1000))
                if job.limits.wall_guard_ms > left_ms:
                    job = job.model_copy(update={"limits": job.limits.model_copy(update={"wall_ms": left_ms})})
                    shortened = True
            future = executor.submit(job)
            if shortened:
                cut.add(id(future))
            window.append(future)
            submitted += 1
        if not window:
            if deadline is not None and not exhausted:
                raise past()
            return
        if cancelled.is_set():
            for f in window:
                f.cancel()
            return
        if not window[0].done():
            executor.flush()  # what the backend holds back must leave before we wait on it
        future = window.popleft()
        if deadline is None:
            result = future.result()
        else:
            try:
                result = future.result(timeout=max(0.0, deadline - time.monotonic()))
            except FutureTimeout:
                raise past(future) from None
            if id(future) in cut and result.verdict is Verdict.TLE and result.message == "wall-clock guard":
                raise past()
            cut.discard(id(future))
        done += 1
        if progress is not None:
            progress(done, total if total is not None else submitted)
        yield result
