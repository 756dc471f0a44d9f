"""Which correct codes validate tests, and under which limits (TC-Bench §2.3 and §4).

The paper keeps, per problem, the correct submissions within the fastest 20% after
min-max normalisation of their runtime and samples 8 of them: slow correct codes reject
valid but large tests by timing out, and they behave differently across judges.
TC-Bench publishes exactly those 8 with every problem; a benchmark built from raw
solutions (``build-benchmark``, or scoring zoo-mini/Kattis directly) makes the same
choice here, once, with :func:`select_fastest`.

The limits are the reference scripts' (``filter_testcases.py``/``excute_tool_linux.py``):
``ulimit -t`` of ``time_limit // 1000 + 3`` seconds of CPU, ``ulimit -v`` of five times
the memory limit. Our sandbox limits resident memory by cgroup rather than address
space, so five times the limit is at least as lenient as the reference's.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tczoo.paths import cached_json, texts_digest
from tczoo.sandbox.types import Job, Limits
from tczoo.schema import Problem, Program

if TYPE_CHECKING:
    from tczoo.sandbox import Sandbox

VALIDATORS = 8  # correct codes per problem (§2.3)
FASTEST_FRACTION = 0.2  # kept: normalised runtime within the fastest 20%


def reference_limits(problem) -> Limits:
    """The reference scripts' limits for validators and wrong codes: whole seconds of
    the time limit plus 3 s of CPU, five times the memory limit."""
    return Limits(time_ms=(problem.time_limit_ms // 1000 + 3) * 1000, memory_mb=5 * problem.memory_limit_mb)


@dataclass
class Selection:
    chosen: list[Program]
    runtimes: dict[str, float] = field(default_factory=dict)  # name -> mean CPU ms on the timing tests
    failed: dict[str, str] = field(default_factory=dict)  # name -> why it is not a correct code here
    timed_on: str = "golden"  # golden | samples | none


def _timing_tests(problem: Problem) -> tuple[list[tuple[str, str]], str]:
    if problem.golden_tests:
        return [(t.input, t.output) for t in problem.golden_tests], "golden"
    if problem.samples:
        return [(s.input, s.output) for s in problem.samples], "samples"
    return [], "none"


def measure(problem: Problem, sandbox: "Sandbox", limits: Limits) -> tuple[list[float | None], str]:
    """Each solution's mean CPU ms on the golden tests (the samples when there are none),
    or None when it does not pass them all here. Cached per solutions x tests x limits."""
    tests, timed_on = _timing_tests(problem)
    if not tests or not problem.solutions:
        return [0.0] * len(problem.solutions), timed_on

    def compute() -> list[float | None]:
        jobs = [Job(program=s, stdin=i, expected=o, comparator=problem.checker,
                    output_validator=problem.output_validator, limits=limits, tag=k)
                for k, s in enumerate(problem.solutions) for i, o in tests]
        totals: list[float | None] = [0.0] * len(problem.solutions)
        for job, res in zip(jobs, sandbox.run_many(jobs)):
            if totals[job.tag] is None:
                continue
            totals[job.tag] = None if not res.ok else totals[job.tag] + res.cpu_ms
        return [None if t is None else t / len(tests) for t in totals]

    validator = problem.output_validator.program.digest if problem.output_validator else None
    key = [[s.digest for s in problem.solutions], texts_digest(tests), problem.checker, validator,
           limits.model_dump()]
    return cached_json("correct-runtimes", key, compute), timed_on


def select_fastest(problem: Problem, sandbox: "Sandbox", *, n: int = VALIDATORS,
                   fraction: float = FASTEST_FRACTION, seed: int = 0,
                   limits: Limits | None = None) -> Selection:
    """Up to ``n`` solutions sampled (seeded) from those whose min-max normalised runtime
    is within the fastest ``fraction``; solutions that fail a timing test are left out."""
    limits = limits or reference_limits(problem)
    times, timed_on = measure(problem, sandbox, limits)
    named = [(s.name or f"solution-{i}", s, t) for i, (s, t) in enumerate(zip(problem.solutions, times))]
    failed = {name: f"fails a {timed_on} test" for name, _, t in named if t is None}
    ok = [(name, s, t) for name, s, t in named if t is not None]
    if not ok:
        return Selection([], {}, failed, timed_on)
    lo, hi = min(t for _, _, t in ok), max(t for _, _, t in ok)
    span = hi - lo
    fast = [s for _, s, t in ok if span == 0 or (t - lo) / span <= fraction]
    if len(fast) > n:
        fast = random.Random(f"{seed}:{problem.id}").sample(fast, n)
    return Selection(fast, {name: t for name, _, t in ok}, failed, timed_on)
