"""The time limit of a package that states none: the format's own rule.

problemtools (legacy format): the limit is ``time_multiplier`` (default 5) times the
slowest accepted submission's longest test, rounded up to whole seconds and at least
one second; ``time_safety_margin`` (default 2) times that limit is the "would it pass
with extra time" limit a check uses. The runs happen here, on this machine, so the
limit is this machine's: the loaded problem says so (``meta.kattis.limits``), and it
is cached per package content, so a second load costs nothing.
"""

from __future__ import annotations

import hashlib
import math

from tczoo.paths import cached_json
from tczoo.schema import Problem

PROBE_LIMIT_MS = 60_000  # CPU an accepted run may take while the limit is unknown
# The timing runs made in this process, by problem digest: {(program digest, test): run}.
# ``benchmarks --check`` judges accepted submissions from them instead of running them again
# (a run under the probe's limit says what a run under a smaller one would, CPU time aside).
_PROBE_RUNS: dict[str, dict[tuple[str, str], object]] = {}


def all_tests(problem: Problem) -> list[tuple[str, str, str]]:
    """(name, input, answer) of every test a submission is judged on: samples, then secret."""
    names = problem.meta.get("kattis", {}).get("sample_names") or []
    samples = [(names[i] if i < len(names) else f"sample/{i + 1}", s.input, s.output)
               for i, s in enumerate(problem.samples)]
    return samples + [(t.name, t.input, t.output) for t in problem.golden_tests]


def _digest(problem: Problem) -> str:
    h = hashlib.sha256()
    for s in problem.solutions:
        h.update(s.digest.encode())
    for name, inp, ans in all_tests(problem):
        for part in (name, inp, ans):
            h.update(hashlib.sha256(part.encode()).digest())
    if problem.output_validator is not None:
        h.update(problem.output_validator.program.digest.encode())
    h.update((problem.checker or "").encode())
    return h.hexdigest()


def slowest_accepted(problem: Problem, sandbox) -> dict:
    """The slowest CPU time of an accepted submission that passed, per the format's rule."""
    from tczoo.sandbox import Job, Limits

    tests = all_tests(problem)
    limits = Limits(time_ms=PROBE_LIMIT_MS, memory_mb=problem.memory_limit_mb)
    interactive = problem.output_validator is not None and (problem.output_validator.interactive
                                                            or problem.interactive)
    jobs = [Job(program=s, stdin=inp, expected=ans, comparator=problem.checker,
                output_validator=problem.output_validator, interactive=interactive, limits=limits,
                tag=(s.name, name, s.digest))
            for s in problem.solutions for name, inp, ans in tests]
    slowest = {"cpu_ms": 0.0, "submission": "", "test": ""}
    failed: dict[str, str] = {}
    kept = _PROBE_RUNS.setdefault(_digest(problem), {})
    for job, run in zip(jobs, sandbox.run_many(jobs)):
        sub, test, digest = job.tag
        kept[(digest, test)] = run
        if not run.ok:
            failed.setdefault(sub, f"{run.verdict.value} on {test}")
            continue
        if run.cpu_ms > slowest["cpu_ms"]:
            slowest = {"cpu_ms": run.cpu_ms, "submission": sub, "test": test}
    return {**slowest, "failed": failed}


def probe_run(problem: Problem, program, test: str):
    """The timing run of an accepted ``program`` on ``test`` made in this process, or None."""
    runs = _PROBE_RUNS.get(_digest(problem))
    return runs.get((program.digest, test)) if runs else None


def resolve_time_limit(problem: Problem, sandbox) -> None:
    """Set ``problem.time_limit_ms`` from its accepted runs (cached), saying how."""
    kattis = problem.meta["kattis"]
    limits = kattis["limits"]
    multiplier = float(limits["time_multiplier"])
    probe = cached_json("kattis-timelimit", [_digest(problem), multiplier, sandbox.isolation_level],
                        lambda: slowest_accepted(problem, sandbox))
    seconds = max(1, math.ceil(probe["cpu_ms"] / 1000.0 * multiplier))
    problem.time_limit_ms = seconds * 1000
    limits["time_limit_source"] = (
        f"computed on this machine: time_multiplier {multiplier:g} x slowest accepted run "
        f"{probe['cpu_ms'] / 1000:.3f} s ({probe['submission']} on {probe['test']}), "
        f"rounded up to whole seconds"
    )
    if probe["failed"]:
        limits["accepted_failed_while_timing"] = probe["failed"]
    kattis.pop("time_limit_pending", None)
