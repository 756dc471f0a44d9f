"""``tczoo benchmarks --check kattis:PATH``: judge a package the way its jury would.

Every submission runs on the tests in the format's order (samples, then the secret
groups) and each group's result comes from the format's default grader with the
group's ``testdata.yaml`` settings (``tczoo.benchmarks.kattis.grading``): by default a
submission stops at its first failing test and that test's verdict is the submission's
(``on_reject: break``, ``worst_error``). It must be a verdict its folder allows; on a
scoring problem an accepted submission must also get the full score and a
``partially_accepted`` one less. Like problemtools, each run gets the time limit times
the package's safety margin (``time_safety_margin``, default 2): a submission whose
verdict matches only with that extra time is reported as such, not as a mismatch. The
verdict at the limit itself follows from the measured CPU time (a run over the limit
is TLE there). An interactive package's submissions talk to its interactor
(``Sandbox.interact``). Every test input also goes through the package's input
validators. A submission in a language this machine lacks is counted and shown as
"cannot run" (never dropped, never a mismatch). Nothing is changed in the package: a
mismatch is reported with the likeliest explanation.

At scale: every submission of every package is one unit of work in one pool (two per
worker slot: slots stay busy while other units compile or wait on a validator), the
longest first (the slowest compilers' among equals); every program is compiled once, by
the first unit that needs it (the compile cache), while other units run; each test of a
submission runs once (its verdicts at the limit and with the margin both come from that
run); ``count`` hears runs done against the runs still possible (an ETA), and each
submission's report lists its tests.
"""

from __future__ import annotations

import math
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

from tczoo.benchmarks.kattis import grading, load_scan
from tczoo.benchmarks.kattis.timing import all_tests, probe_run
from tczoo.schema import Language, Problem, Program

OK, OK_MARGIN, MISMATCH, CANNOT_RUN = "ok", "ok with the safety margin", "MISMATCH", "cannot run"
# compiles that take longest go first (a JVM compiling Kotlin: ~10-20 s; GHC: a few)
WALL_ROOM = 10  # a starved run's second chance: its wall guard this many times wider (as SuiteJudge's)
COMPILE_ORDER = {Language.KOTLIN: 0, Language.HASKELL: 1, Language.RUST: 2, Language.JAVA: 3, Language.GO: 4}


@dataclass
class TestRun:
    """One test of a submission: what the run did (at the limit x the safety margin)."""

    __test__ = False
    name: str
    verdict: str
    cpu_ms: float
    message: str = ""


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
    language: str = ""
    score: float | None = None  # scoring problems: the grader's score (at the limit)
    max_score: float | None = None  # ... and the score of a submission that passes everything
    tests: list[TestRun] = field(default_factory=list)  # every test it ran, in order


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
    type: str = "pass-fail"
    interactive: bool = False
    submissions: list[SubmissionCheck] = field(default_factory=list)
    skipped_submissions: list[dict] = field(default_factory=list)
    inputs_checked: int = 0
    inputs_rejected: list[str] = field(default_factory=list)
    seconds: float = 0.0  # wall time from its first unit's start to its last unit's end

    @property
    def mismatches(self) -> int:
        return sum(s.status == MISMATCH for s in self.submissions)

    @property
    def cannot_run(self) -> int:
        return sum(s.status == CANNOT_RUN for s in self.submissions)


def _explain(problem: Problem, program: Program, check: SubmissionCheck, message: str) -> str:
    lang = program.language
    wants_ac = check.expected == ["AC"]
    if check.verdict == "TLE" and wants_ac and lang is Language.PYTHON:
        return ("CPython here; the format's Python 3 is PyPy (problemtools runs pypy3; "
                "install pypy3 or set TCZOO_KATTIS_PYTHON=pypy)")
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


def _expected(program: Program) -> list[str]:
    return list(program.meta.get("expected_verdicts") or ["AC"])


def check_submission(problem: Problem, program: Program, expected: list[str], margin: float, sandbox,
                     on_run: Callable[[], None] | None = None) -> SubmissionCheck:
    """Judge one submission on the package's tests, as its jury would (the module note)."""
    from tczoo.sandbox import Limits, Verdict

    limit = problem.time_limit_ms
    high = Limits(time_ms=int(math.ceil(limit * margin)), memory_mb=problem.memory_limit_mb)
    check = SubmissionCheck(name=program.name, expected=expected, verdict="AC", verdict_with_margin="AC",
                            language=program.meta.get("language") or program.language.value)
    built = sandbox.compile(program)
    if not built.ok:
        if built.missing:
            check.verdict = check.verdict_with_margin = CANNOT_RUN
            check.status, check.explanation = CANNOT_RUN, built.message
            return check
        check.verdict = check.verdict_with_margin = "SE" if built.infrastructure else "CE"
        check.status = MISMATCH
        check.explanation = _explain(problem, program, check, built.message)
        return check
    tests = {name: (inp, ans) for name, inp, ans in all_tests(problem)}
    interactive = problem.output_validator is not None and (problem.output_validator.interactive
                                                            or problem.interactive)
    runs: dict[str, object] = {}

    def attempt(name: str, limits):
        inp, ans = tests[name]
        if interactive:
            return sandbox.interact(program, problem.output_validator, inp, ans, limits)
        return sandbox.judge(program, inp, ans, limits, problem.checker, output_validator=problem.output_validator)

    def run(name: str):
        if name not in runs:
            probed = probe_run(problem, program, name) if expected == ["AC"] else None
            if probed is not None:  # its timing run (no limit yet) judged it once already: no second run
                result = probed
                if result.verdict.value == "AC" and result.cpu_ms > high.time_ms:
                    result = result.model_copy(update={"verdict": Verdict.TLE, "message": "CPU time limit exceeded"})
            else:
                result = attempt(name, high)
            if result.verdict.value == "TLE" and result.cpu_ms <= limit and probed is None:
                # the wall-clock guard stopped it before it used the time limit: a loaded machine
                # starved it (or it sleeps). Once more with a guard WALL_ROOM times wider, as
                # SuiteJudge does: the machine's load never decides a verdict. (Past the limit
                # its verdict there is TLE already; only the margin's would change.)
                result = attempt(name, high.model_copy(update={"wall_ms": WALL_ROOM * high.wall_guard_ms}))
            runs[name] = result
            check.tests.append(TestRun(name=name, verdict=result.verdict.value, cpu_ms=round(result.cpu_ms, 1),
                                       message=" ".join(result.message.split())[:300]))
            if on_run is not None:
                on_run()
        return runs[name]

    def with_margin(name: str) -> str:
        return run(name).verdict.value

    def at_limit(name: str) -> str:
        result = run(name)
        return "TLE" if result.cpu_ms > limit and result.verdict.value not in ("SE", "CE") else result.verdict.value

    tree = grading.TestTree.of(problem)
    high_result = tree.grade(with_margin)
    low_result = tree.grade(at_limit)
    check.verdict, check.verdict_with_margin = low_result.verdict, high_result.verdict
    check.failed_on = low_result.failed_on or high_result.failed_on
    check.slowest_ms = round(max((r.cpu_ms for r in runs.values()), default=0.0), 1)  # type: ignore[attr-defined]
    message = runs[check.failed_on].message if check.failed_on in runs else ""  # type: ignore[attr-defined]
    scoring = problem.meta.get("kattis", {}).get("type") == "scoring"
    partial = bool(program.meta.get("partially_accepted"))
    if scoring:
        check.score, check.max_score = low_result.score, tree.full_score()

    def matches(verdict: str, score: float | None) -> bool:
        if scoring and partial:
            return verdict == "AC" and score is not None and score < (check.max_score or 0)
        if scoring and expected == ["AC"]:
            return verdict == "AC" and score == check.max_score
        return verdict in expected

    if matches(check.verdict, low_result.score):
        check.status = OK
    elif matches(check.verdict_with_margin, high_result.score):
        check.status = OK_MARGIN
        check.explanation = f"{check.verdict} at the limit, {check.verdict_with_margin} with {margin:g}x the time"
    else:
        check.status = MISMATCH
        check.explanation = _explain(problem, program, check, message)
        if scoring and check.verdict == "AC":
            check.explanation = (f"score {check.score:g} of {check.max_score:g}"
                                 + (" (partially accepted: less was expected)" if not partial else ""))
    return check


@dataclass
class _Unit:
    report: PackageCheck
    problem: Problem
    program: Program | None  # None: the package's input validators on its tests
    weight: float  # how long it is likely to take (longest first)
    runs: int  # the most runs it can make (the ETA's total)


def _weight(problem: Problem, program: Program) -> float:
    tests = len(all_tests(problem))
    expected = _expected(program)
    if "TLE" in expected:  # runs until its slow test, which takes the limit x the margin
        return tests + 40 * problem.time_limit_ms / 1000
    if expected == ["AC"]:  # every test
        return 2 * tests * (3 if program.language in (Language.JAVA, Language.KOTLIN) else 1)
    return tests / 2


def check_problem(problem: Problem, sandbox) -> PackageCheck:
    """One package's check (``check_path`` checks many at once)."""
    return _check([problem], sandbox)[0]


def _report(problem: Problem) -> PackageCheck:
    kattis = problem.meta["kattis"]
    return PackageCheck(
        problem=problem.id, package=kattis["package"], time_limit_ms=problem.time_limit_ms,
        time_limit_source=kattis["limits"]["time_limit_source"],
        safety_margin=float(kattis["limits"]["time_safety_margin"]), checker=problem.checker or "",
        tests=len(all_tests(problem)), type=kattis.get("type", "pass-fail"),
        interactive=bool(kattis.get("interactive")), skipped_submissions=kattis.get("skipped_submissions", []),
    )


def _check(problems: list[Problem], sandbox, count: Callable[[int, int], None] | None = None,
           say: Callable[[str], None] | None = None) -> list[PackageCheck]:
    """Every package's submissions and input checks as units of one pool (the module note)."""
    reports = [_report(p) for p in problems]
    units: list[_Unit] = []
    for report, problem in zip(reports, problems):
        n = len(all_tests(problem))
        for program in [*problem.solutions, *problem.wrong_solutions]:
            units.append(_Unit(report, problem, program, _weight(problem, program), n))
        if problem.input_validators:
            units.append(_Unit(report, problem, None, n / 4, 0))
    lock = threading.Lock()
    progress = {"done": 0, "total": sum(u.runs for u in units)}
    spans: dict[int, list[float]] = {}

    def ran() -> None:
        with lock:
            progress["done"] += 1
            if count is not None:
                count(progress["done"], progress["total"])

    def work(unit: _Unit) -> None:
        started = time.monotonic()
        if unit.program is None:
            _check_inputs(unit.report, unit.problem, sandbox)
        else:
            margin = unit.report.safety_margin
            result = check_submission(unit.problem, unit.program, _expected(unit.program), margin, sandbox, ran)
            with lock:  # the runs it did not need leave the ETA's total
                progress["total"] -= unit.runs - len(result.tests)
                unit.report.submissions.append(result)
        with lock:
            span = spans.setdefault(id(unit.report), [started, started])
            span[0], span[1] = min(span[0], started), max(span[1], time.monotonic())

    order = sorted(units, key=lambda u: (-u.weight, COMPILE_ORDER.get(u.program.language, 9) if u.program else 9))
    with ThreadPoolExecutor(max_workers=max(2, 2 * sandbox.workers), thread_name_prefix="tczoo-check") as pool:
        for _ in pool.map(work, order):
            pass
    for report, problem in zip(reports, problems):
        names = [p.name for p in [*problem.solutions, *problem.wrong_solutions]]
        report.submissions.sort(key=lambda s: names.index(s.name))
        span = spans.get(id(report))
        report.seconds = round(span[1] - span[0], 1) if span else 0.0
        if say is not None:
            say(f"checked {report.problem}: {report.mismatches} mismatch(es), {report.cannot_run} cannot run")
    return reports


def _check_inputs(report: PackageCheck, problem: Problem, sandbox) -> None:
    from tczoo.sandbox import inputs_valid

    tests = all_tests(problem)
    for (name, _, _), (ok, reason) in zip(tests, inputs_valid(problem, [t[1] for t in tests], sandbox)):
        report.inputs_checked += 1
        if not ok:
            report.inputs_rejected.append(f"{name}: {reason[:300]}")


def check_path(path: str | Path, sandbox, problems: list[str] | None = None,
               progress: Callable[[str], None] | None = None, *, limit: int | None = None,
               count: Callable[[int, int], None] | None = None,
               note: Callable[[str], None] | None = None) -> list[PackageCheck]:
    """Check every package at or below ``path`` (``problems``: ids or prefixes; ``limit``:
    the first N), all at once; ``progress`` hears a line per package, ``count(done,
    total)`` the runs made against the runs still possible, ``note`` what happens before
    the runs begin (a package's timing)."""
    say = progress or (lambda line: None)
    scan = load_scan(path, sandbox=sandbox, only=problems, note=note)
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
    total_subs = sum(len(p.solutions) + len(p.wrong_solutions) for p in chosen)
    say(f"checking {len(chosen)} package(s) at once: {total_subs} submissions")
    if note is not None:
        note(f"checking {len(chosen)} package(s) at once: {total_subs} submissions (compiling as they start)")
    reports += _check(chosen, sandbox, count, say)
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
    return [{**asdict(r), "mismatches": r.mismatches, "cannot_run": r.cannot_run} for r in reports]
