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
from collections import deque
from concurrent.futures import Future
from typing import Callable, Iterable, Iterator, Protocol

from tczoo.sandbox.types import Job, RunResult


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
) -> Iterator[RunResult]:
    """Yield results in job order while keeping ~2x capacity jobs in flight.

    ``progress(done, total)`` is called as results are yielded; ``total`` is the
    job count when ``jobs`` has a length, else the number submitted so far.
    When ``cancelled`` is set, jobs not yet started are cancelled and the stream
    ends after the result it is waiting on; nothing further is yielded.
    """
    total = len(jobs) if hasattr(jobs, "__len__") else None  # type: ignore[arg-type]
    it = iter(jobs)
    window: deque[Future] = deque()
    submitted = done = 0
    exhausted = False
    while True:
        while not exhausted and not cancelled.is_set() and len(window) < 2 * executor.capacity:
            try:
                job = next(it)
            except StopIteration:
                exhausted = True
                break
            window.append(executor.submit(job))
            submitted += 1
        if not window:
            return
        if cancelled.is_set():
            for f in window:
                f.cancel()
            return
        if not window[0].done():
            executor.flush()  # what the backend holds back must leave before we wait on it
        result = window.popleft().result()
        done += 1
        if progress is not None:
            progress(done, total if total is not None else submitted)
        yield result
