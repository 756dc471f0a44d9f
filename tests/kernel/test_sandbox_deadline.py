"""A caller's deadline bounds a whole batch, runs in flight included (issue 42, item 4).

``run_many(jobs, deadline=...)`` (and ``run``, ``call_many``, ``call_python``): the
worker stops a run still going at the deadline, and starts none after it; the stream
raises ``DeadlineExceeded`` in place of the first result it did not get, within a few
milliseconds of the deadline, never a verdict (a cut run is not the program's TLE, nor
the sandbox's SE). The slots are not restarted for it, and the next batch runs at once.
Real programs in the real sandbox.
"""

from __future__ import annotations

import threading
import time

import pytest

from tczoo.schema import Language, Program
from tczoo.sandbox import DeadlineExceeded, Job, Limits, PyCall, Sandbox, Verdict
from tczoo.sandbox.executor import ordered_stream

SLEEPER = Program(language=Language.PYTHON, code="import time\ntime.sleep(30)\nprint('woke')")
QUICK = Program(language=Language.PYTHON, code="print(input())")
SLOW = Limits(time_ms=20_000, wall_ms=60_000)  # the sleeper's own limits are far away
SLACK_S = 1.0  # how late after the deadline the stream may end on a busy machine (it ends within ms)


@pytest.fixture(scope="module")
def sb(tmp_path_factory):
    box = Sandbox(workers=2, cache_dir=tmp_path_factory.mktemp("deadline-cache"))
    try:
        yield box
    finally:
        box.close()


def starts(sb: Sandbox) -> list[int]:
    return [s.starts for s in sb._pool.slots]


def test_a_batch_of_sleepers_ends_at_the_deadline(sb):
    """Quick jobs first (their results stand), then sleepers: in flight on both slots and
    queued behind them. The stream raises at the deadline; the workers stop the sleepers
    themselves (no jail is killed) and start no queued one; the next batch runs at once."""
    list(sb.run_many([Job(program=QUICK, stdin="warm\n")] * 4))
    before = starts(sb)
    jobs = [Job(program=QUICK, stdin=f"{i}\n") for i in range(3)] + [Job(program=SLEEPER, limits=SLOW)] * 8
    got = []
    t0 = time.monotonic()
    deadline = t0 + 1.5
    with pytest.raises(DeadlineExceeded) as caught:
        for r in sb.run_many(jobs, deadline=deadline):
            got.append(r)
    ended = time.monotonic()
    assert deadline <= ended < deadline + SLACK_S, ended - deadline
    assert [(r.verdict, r.stdout) for r in got] == [(Verdict.AC, f"{i}\n") for i in range(3)]
    assert caught.value.done == 3 and caught.value.cut >= 1
    # The slots come back within a few ms (the workers cut their runs at the deadline).
    t1 = time.monotonic()
    again = list(sb.run_many([Job(program=QUICK, stdin="next\n")] * 4))
    assert [r.stdout for r in again] == ["next\n"] * 4
    assert time.monotonic() - t1 < 5
    assert starts(sb) == before, "a jail was replaced for a deadline"


def test_a_run_cut_by_the_deadline_is_not_its_own_tle_and_a_tle_before_it_stays(sb):
    limits = Limits(time_ms=200, wall_ms=400)  # its own wall guard, well before the deadline
    r = sb.run(SLEEPER, "", limits, deadline=time.monotonic() + 10)
    assert r.verdict is Verdict.TLE and r.message == "wall-clock guard", r
    t0 = time.monotonic()
    with pytest.raises(DeadlineExceeded):
        sb.run(SLEEPER, "", SLOW, deadline=t0 + 0.5)
    assert time.monotonic() - t0 < 0.5 + SLACK_S


def test_nothing_starts_after_the_deadline(sb):
    """A deadline already past: nothing is run (the worker refuses the request), whatever
    the entry point; no result of any kind comes back."""
    marker = Program(language=Language.PYTHON, code="import time\ntime.sleep(3)\nprint('ran')")
    past = time.monotonic() - 0.001
    t0 = time.monotonic()
    with pytest.raises(DeadlineExceeded):
        sb.run(marker, "", SLOW, deadline=past)
    with pytest.raises(DeadlineExceeded):
        list(sb.run_many([Job(program=marker, limits=SLOW)] * 5, deadline=past))
    with pytest.raises(DeadlineExceeded):
        sb.call_many([PyCall(code="def f():\n    return 1\n", function="f")], deadline=past)
    assert time.monotonic() - t0 < 3  # none of the sleeps ran to the end


def test_call_python_and_call_many_are_bounded(sb):
    code = "import time\ndef f(x):\n    time.sleep(x)\n    return x\n"
    assert sb.call_many([PyCall(code=code, function="f", args=[0])], deadline=time.monotonic() + 20)[0].value == 0
    t0 = time.monotonic()
    with pytest.raises(DeadlineExceeded):
        sb.call_many([PyCall(code=code, function="f", args=[30], limits=SLOW)] * 6, deadline=t0 + 1)
    with pytest.raises(DeadlineExceeded):
        sb.call_python(code, "f", [30], SLOW, deadline=time.monotonic() + 0.5)
    assert time.monotonic() - t0 < 1.5 + 2 * SLACK_S


def test_a_long_queue_of_short_runs_stops_at_the_deadline(sb):
    """Pipelined queues (dozens of runs sent ahead to each worker): what is queued when the
    deadline passes is answered as cut, at once, without running."""
    short = Program(language=Language.PYTHON, code="import time\ntime.sleep(0.02)\nprint(1)")
    jobs = [Job(program=short)] * 2000  # ~40 s of work on two slots
    t0 = time.monotonic()
    done = 0
    with pytest.raises(DeadlineExceeded) as caught:
        for _ in sb.run_many(jobs, deadline=t0 + 1.5):
            done += 1
    assert time.monotonic() - t0 < 1.5 + SLACK_S
    assert 10 < done < 2000 and caught.value.done == done
    assert [r.stdout for r in sb.run_many([Job(program=QUICK, stdin="q\n")] * 3)] == ["q\n"] * 3


def test_a_batch_from_another_thread_is_not_cut(sb):
    """A deadline belongs to its batch: a batch running at the same time in another thread
    without one gets all its results."""
    results: list = []
    other = threading.Thread(target=lambda: results.extend(
        sb.run_many([Job(program=Program(language=Language.PYTHON, code="import time\ntime.sleep(0.5)\nprint(2)"))] * 2)))
    other.start()
    with pytest.raises(DeadlineExceeded):
        list(sb.run_many([Job(program=SLEEPER, limits=SLOW)] * 2, deadline=time.monotonic() + 0.3))
    other.join()
    assert [r.stdout for r in results] == ["2\n", "2\n"]


class ThreadExecutor:
    """The smallest backend of the ``Executor`` protocol: this machine's sandbox through a
    thread pool, as a remote backend's futures would come back."""

    def __init__(self, box: Sandbox):
        from concurrent.futures import ThreadPoolExecutor

        self.box, self.capacity = box, box.workers
        self.pool = ThreadPoolExecutor(box.workers)

    def submit(self, job: Job):
        return self.pool.submit(self.box.run, job.program, job.stdin, job.limits)

    def flush(self) -> None:
        pass

    def shutdown(self, cancel_pending: bool = True) -> None:
        self.pool.shutdown(wait=True, cancel_futures=cancel_pending)


def test_an_executor_stream_is_bounded_too(sb):
    """``ordered_stream`` (a distributed backend's batches): each job's wall guard is cut to
    the time left and the stream raises at the deadline."""
    executor = ThreadExecutor(sb)
    try:
        t0 = time.monotonic()
        with pytest.raises(DeadlineExceeded):
            list(ordered_stream(executor, [Job(program=SLEEPER, limits=SLOW)] * 4, threading.Event(),
                                deadline=t0 + 1))
        assert time.monotonic() - t0 < 1 + SLACK_S
        results = list(ordered_stream(executor, [Job(program=QUICK, stdin="e\n")] * 2, threading.Event(),
                                      deadline=time.monotonic() + 30))
        assert [r.stdout for r in results] == ["e\n", "e\n"]
    finally:
        executor.shutdown()
