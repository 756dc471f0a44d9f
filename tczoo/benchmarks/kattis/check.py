"""``tczoo benchmarks --check kattis:PATH``: judge a package the way its jury would.

Every submission runs on every test (samples first, then the secret groups in
order) until its first failing test: as in the format's default grader with
``on_reject: break``, that test's verdict is the submission's verdict, and it must be
one its folder allows. Like problemtools, each run gets the time limit times the
package's safety margin (``time_safety_margin``, default 2): a submission whose
verdict matches only with that extra time is reported as such, not as a mismatch.
The verdict at the limit itself follows from the measured CPU time (a run over the
limit is TLE there). Every test input also goes through the package's input
validators. Nothing is changed in the package: a mismatch is reported with the
likeliest explanation.
"""

from __future__ import annotations

import math
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

from tczoo.benchmarks.kattis import load_scan
from tczoo.benchmarks.kattis.timing import all_tests
from tczoo.schema import Language, Problem, Program

OK, OK_MARGIN, MISMATCH = "ok", "ok with the safety margin", "MISMATCH"


@dataclass
class SubmissionCheck:
    name: str
    expected: list[str]
    verdict: str  # at the time limit
    verdict_with_margin: str  # at time limit x safety margin
    failed_on: str = ""  # first failing test at the time limit
    slowest_ms: float = 0.0  # slowest CPU time among the tests it ran
    status: str = OK
    explanation: str = ""


@dataclass
class PackageCheck:
    problem: str
    package: str
    loaded: bool = True
    reason: str = ""  # why it was skipped
    time_limit_ms: int = 0
    time_limit_source: str = ""
    safety_margin: float = 2.0
    checker: str = ""
    tests: int = 0
    submissions: list[SubmissionCheck] = field(default_factory=list)
    skipped_submissions: list[dict] = field(default_factory=list)
    inputs_checked: int = 0
    inputs_rejected: list[str] = field(default_factory=list)

    @property
    def mismatches(self) -> int:
        return sum(s.status == MISMATCH for s in self.submissions)


def _explain(problem: Problem, program: Program, check: SubmissionCheck, message: str) -> str:
    lang = program.language
    wants_ac = check.expected == ["AC"]
    if check.verdict == "TLE" and wants_ac and lang is Language.PYTHON:
        return ("CPython here; the format's Python 3 is PyPy (problemtools runs pypy3), "
                "often several times faster on loops like this")
    if check.verdict == "TLE" and wants_ac:
        return (f"slower here than on the jury's machine: {check.slowest_ms / 1000:.2f} s CPU "
                f"against a limit of {problem.time_limit_ms / 1000:g} s")
    if "TLE" in check.expected and check.verdict == "AC":
        return (f"fast enough on this machine: slowest test {check.slowest_ms / 1000:.2f} s CPU "
                f"against a limit of {problem.time_limit_ms / 1000:g} s")
    if check.verdict == "SE":
        return f"judge error: {message[:300]}"
    if check.verdict == "CE":
        return f"does not compile here: {message.strip().splitlines()[0][:200] if message.strip() else ''}"
    return f"{check.verdict} on {check.failed_on}" + (f": {message[:200]}" if message else "")


def check_submission(problem: Problem, program: Program, expected: list[str], margin: float,
                     sandbox) -> SubmissionCheck:
    from tczoo.sandbox import Limits

    limit = problem.time_limit_ms
    high = Limits(time_ms=int(math.ceil(limit * margin)), memory_mb=problem.memory_limit_mb)
    verdict = verdict_high = "AC"
    failed_on, message, slowest = "", "", 0.0
    built = sandbox.compile(program)
    if not built.ok:
        verdict = verdict_high = "SE" if built.infrastructure else "CE"
        message = built.message
    else:
        for name, inp, ans in all_tests(problem):
            run = sandbox.judge(program, inp, ans, high, problem.checker,
                                output_validator=problem.output_validator)
            slowest = max(slowest, run.cpu_ms)
            at_limit = "TLE" if run.cpu_ms > limit and run.verdict.value != "SE" else run.verdict.value
            if verdict == "AC" and at_limit != "AC":
                verdict, failed_on, message = at_limit, name, run.message
            if run.verdict.value != "AC":
                verdict_high = run.verdict.value
                if not failed_on:
                    failed_on, message = name, run.message
                break
    check = SubmissionCheck(name=program.name, expected=expected, verdict=verdict,
                            verdict_with_margin=verdict_high, failed_on=failed_on, slowest_ms=round(slowest, 1))
    if verdict in expected:
        check.status = OK
    elif verdict_high in expected:
        check.status = OK_MARGIN
        check.explanation = f"{verdict} at the limit, {verdict_high} with {margin:g}x the time"
    else:
        check.status = MISMATCH
        check.explanation = _explain(problem, program, check, message)
    return check


def check_problem(problem: Problem, sandbox) -> PackageCheck:
    from tczoo.sandbox import inputs_valid

    kattis = problem.meta["kattis"]
    margin = float(kattis["limits"]["time_safety_margin"])
    report = PackageCheck(
        problem=problem.id, package=kattis["package"], time_limit_ms=problem.time_limit_ms,
        time_limit_source=kattis["limits"]["time_limit_source"], safety_margin=margin,
        checker=problem.checker or "", tests=len(all_tests(problem)),
        skipped_submissions=kattis.get("skipped_submissions", []),
    )
    programs = [(s, ["AC"]) for s in problem.solutions]
    programs += [(w, list(w.meta["expected_verdicts"])) for w in problem.wrong_solutions]
    with ThreadPoolExecutor(max_workers=sandbox.workers) as pool:
        report.submissions = list(pool.map(
            lambda item: check_submission(problem, item[0], item[1], margin, sandbox), programs))
    if problem.input_validators:
        tests = all_tests(problem)
        for (name, _, _), (ok, reason) in zip(tests, inputs_valid(problem, [t[1] for t in tests], sandbox)):
            report.inputs_checked += 1
            if not ok:
                report.inputs_rejected.append(f"{name}: {reason[:300]}")
    return report


def check_path(path: str | Path, sandbox, problems: list[str] | None = None,
               progress: Callable[[str], None] | None = None, *, limit: int | None = None,
               count: Callable[[int, int], None] | None = None) -> list[PackageCheck]:
    """Check every package at or below ``path`` (``problems``: ids or prefixes; ``limit``:
    the first N); ``progress`` hears one line per package, ``count(done, total)`` the
    packages checked so far."""
    say = progress or (lambda line: None)
    scan = load_scan(path, sandbox=sandbox, only=problems)
    reports = [PackageCheck(problem=s.package.rsplit("/", 1)[-1], package=s.package, loaded=False,
                            reason=s.reason) for s in scan.skipped]
    chosen = scan.problems
    if problems:
        from tczoo.benchmarks.ids import match_ids

        wanted = {k for hits in match_ids(problems, [p.id for p in chosen],
                                          missing=f"kattis:{path} has no package").values() for k in hits}
        chosen = [p for p in chosen if p.id in wanted]
    if limit is not None:
        chosen = chosen[:limit]
    for done, problem in enumerate(chosen):
        if count is not None:
            count(done, len(chosen))
        say(f"checking {problem.id}: {len(problem.solutions) + len(problem.wrong_solutions)} submissions, "
            f"{len(all_tests(problem))} tests, time limit {problem.time_limit_ms / 1000:g} s")
        started = time.monotonic()
        reports.append(check_problem(problem, sandbox))
        say(f"checked {problem.id} in {time.monotonic() - started:.0f} s: "
            f"{reports[-1].mismatches} mismatch(es)")
    if count is not None:
        count(len(chosen), len(chosen))
    root = Path(path).expanduser().resolve()
    for report in reports:  # one way to name a package in the report: its path below PATH
        try:
            report.package = str(Path(report.package).resolve().relative_to(root)) or root.name
        except ValueError:
            pass
        if report.package == ".":
            report.package = root.name
    return sorted(reports, key=lambda r: r.package)


def as_json(reports: list[PackageCheck]) -> list[dict]:
    return [{**asdict(r), "mismatches": r.mismatches} for r in reports]
