"""A test suite used as a judge: programs run on its tests, each output judged by the
suite's own oracle, as an online judge would run a submission.

``SuiteJudge(sandbox, problem, tests, oracle)`` first decides which tests the oracle
can judge at all (*usable*): a test with an expected output (``EXPECTED_OUTPUT``), a
test on which the suite's reference program runs cleanly (``REFERENCE_PROGRAM``; its
output becomes the expected one), every test of a checker program
(``CHECKER_PROGRAM``). ``judge(programs)`` then runs the programs on the usable tests
in suite order, a few tests per round so that every worker slot stays busy, and
records each program's verdict per test:

- ``AC``: ran cleanly and the oracle accepted the output (``tczoo.execution.check_outputs``,
  with the problem's comparator or output validator);
- ``WA``: ran cleanly and the oracle rejected the output (a checker program's failed
  assertion, crash or timeout rejects it too, as HarnessLLM's harness does);
- ``TLE``/``RE``/``MLE``/``OLE``: the run's own verdict (TLE is CPU time over the
  limit: a run the wall-clock guard stopped below it, on a loaded machine, runs again
  with ``WALL_ROOM`` times the guard before it counts);
- ``SE``: the sandbox failed the run, or the problem's output validator failed itself —
  infrastructure, never the program's behaviour.

An interactive problem (``Problem.interactive`` with its interactor as the output
validator) is judged the Kattis way: each program talks to the interactor, which reads
the test's input as its input file (and the test's output, when there is one, as its
answer file) and gives the verdict (``Sandbox.interact``); every test with an input is
usable, the interactor being the oracle.

A program stops at its first rejection on one of the ``stop_on`` tests (every test by
default: the judge's early exit; ``stop_on=()`` runs every test). A program that cannot
run at all — a compile error, a language without a compiler here — is never run on a
test: it is ``cannot_run``, with the compiler's message.

Nothing here decides what a verdict means for a score: runners do (the ``agreement``
runner, candidates labelled by golden tests in ``tczoo.submissions``).
"""

from __future__ import annotations

import ast
import math
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Collection

from tczoo.execution.oracle import can_check, check_outputs
from tczoo.execution.programs import Execution, run_program, run_programs
from tczoo.sandbox.types import DAY_MS, Job, Limits, Verdict
from tczoo.schema import Language, Oracle, OracleKind, Problem, Program, TestCase

if TYPE_CHECKING:
    from tczoo.sandbox import Sandbox

ACCEPT, REJECT, CANNOT_RUN, UNDETERMINED = "accept", "reject", "cannot_run", "undetermined"
NOT_RUN = ""  # a test the program did not run (it had stopped)
FAILING = {"WA", "TLE", "RE", "MLE", "OLE"}  # verdicts that reject a program
WALL_ROOM = 10  # a starved run's second chance: the wall-clock guard this many times wider


def failed(verdict: str) -> bool:
    """Whether a per-test verdict rejects the program (``SE`` and not-run do not)."""
    return verdict in FAILING


@dataclass
class TestUse:
    """Whether the suite's oracle can judge a test, and the output it expects."""

    __test__ = False
    usable: bool
    reason: str = ""  # why not: no_expected_output, reference_RE, reference_TLE, sandbox_error ...
    expected: str | None = None


@dataclass
class ProgramJudgement:
    """One program on the suite: its verdict per usable test (``NOT_RUN`` after it
    stopped), and why it could not run when it could not."""

    verdicts: list[str] = field(default_factory=list)  # one per usable test, in suite order
    cannot_run: str = ""  # the compile error or missing compiler; "" when it ran
    notes: dict[int, str] = field(default_factory=dict)  # usable position -> what the oracle or run said

    @property
    def status(self) -> str:
        """``cannot_run``; ``reject`` (a failing test); ``undetermined`` (no failure, but
        a test met a sandbox error: its verdict on that test is unknown); ``accept``."""
        if self.cannot_run:
            return CANNOT_RUN
        if any(failed(v) for v in self.verdicts):
            return REJECT
        if any(v == "SE" for v in self.verdicts) or NOT_RUN in self.verdicts:
            return UNDETERMINED
        return ACCEPT

    def first_failure(self, among: Collection[int] | None = None) -> int | None:
        """Position (in the usable tests) of the first rejecting verdict, among the
        positions ``among`` when given."""
        for pos, v in enumerate(self.verdicts):
            if failed(v) and (among is None or pos in among):
                return pos
        return None


def compile_status(sandbox: "Sandbox", program: Program, functional: bool) -> tuple[str, str]:
    """("ok" | "ce" | "missing" | "se", message): whether ``program`` can run here.
    A language without its compiler on this machine is ``missing`` (the program cannot
    run, as with a compile error); ``se`` is the sandbox failing the compile."""
    if program.language in (Language.PYTHON, Language.PYPY):
        try:  # parsed, never run, here: a judge compiles Python too, and a syntax error cannot run
            ast.parse(program.code)
        except SyntaxError as exc:
            return "ce", f"SyntaxError: {exc}"[:2000]
        except (ValueError, RecursionError, MemoryError):
            pass  # NUL bytes, absurd nesting: the sandbox says what happens
    if functional:
        if program.language is not Language.PYTHON:
            return "ce", "functional problems need Python programs"
        return "ok", ""
    built = sandbox.compile(program)
    if built.ok:
        return "ok", ""
    message = built.message or ""
    if built.infrastructure:  # the sandbox's own word: a compiler's output can say anything
        if built.missing or "not supported" in message or "no JDK" in message:
            return "missing", message[:500]
        return "se", message[:500]
    return "ce", message[:2000]


class SuiteJudge:
    """The suite ``tests`` with ``oracle`` as a judge for ``problem``'s programs, under
    ``limits`` (the problem's own by default)."""

    def __init__(self, sandbox: "Sandbox", problem: Problem, tests: list[TestCase], oracle: Oracle, *,
                 limits: Limits | None = None, checker_time_ms: int = 20_000):
        if not can_check(oracle):
            raise ValueError(f"a {oracle.kind.value} oracle cannot judge outputs by running code")
        self.sandbox = sandbox
        self.problem = problem
        self.tests = tests
        self.oracle = oracle
        self.limits = limits or Limits.of(problem)
        self.checker_time_ms = checker_time_ms
        self.functional = problem.entry_point is not None
        # the interactor judges: programs talk to it (a method's inputs are its input files)
        self.interactive = problem.output_validator is not None and (
            problem.output_validator.interactive or problem.interactive)
        self.uses = self._uses()
        self.usable = [i for i, u in enumerate(self.uses) if u.usable]  # suite index of each usable position

    # ------------------------------------------------------------------ which tests

    def _uses(self) -> list[TestUse]:
        kind = self.oracle.kind
        if self.interactive:
            return [TestUse(True, expected=t.output or "") for t in self.tests]
        if kind is OracleKind.CHECKER_PROGRAM:
            return [TestUse(True) for _ in self.tests]
        if kind is OracleKind.EXPECTED_OUTPUT:
            return [TestUse(True, expected=t.output) if t.output is not None else TestUse(False, "no_expected_output")
                    for t in self.tests]
        program = self.oracle.program
        if program is None:  # an oracle that judges nothing by running code (an LLM judge, inputs only)
            return [TestUse(False, f"no_oracle_program:{kind.value}") for _ in self.tests]
        inputs = list(dict.fromkeys(t.input for t in self.tests))
        runs = dict(zip(inputs, [row[0] for row in self._run([program], inputs)])) if inputs else {}
        out = []
        for t in self.tests:
            r = runs[t.input]
            if r.ok:
                out.append(TestUse(True, expected=r.output))
            elif r.verdict is Verdict.SE:
                out.append(TestUse(False, "sandbox_error"))
            else:
                out.append(TestUse(False, f"reference_{r.verdict.value}"))
        return out

    def _run(self, programs: list[Program], inputs: list[str]) -> list[list[Execution]]:
        """``run_programs`` under the limits, where a TLE below the CPU limit — the
        wall-clock guard stopped a program a loaded machine starved — is run again once
        with a wall guard ``WALL_ROOM`` times wider: the machine's load never decides a
        verdict. A program still stopped then (it sleeps, it blocks) keeps its TLE."""
        runs = run_programs(self.sandbox, programs, inputs, limits=self.limits, entry_point=self.problem.entry_point)
        starved = [(i, j) for i, row in enumerate(runs) for j, r in enumerate(row)
                   if r.verdict is Verdict.TLE and r.cpu_ms < self.limits.time_ms]
        if starved:
            room = self.limits.model_copy(update={"wall_ms": min(DAY_MS, WALL_ROOM * self.limits.wall_guard_ms)})
            for j in sorted({j for _, j in starved}):
                rows = [i for i, jj in starved if jj == j]
                again = run_program(self.sandbox, programs[j], [inputs[i] for i in rows], limits=room,
                                    entry_point=self.problem.entry_point)
                for i, r in zip(rows, again):
                    runs[i][j] = r
        return runs

    @property
    def check_oracle(self) -> Oracle:
        """The oracle outputs are checked with: the checker program, or expected outputs
        (a reference program's already computed)."""
        if self.oracle.kind is OracleKind.CHECKER_PROGRAM:
            return self.oracle
        return Oracle(kind=OracleKind.EXPECTED_OUTPUT)

    # ------------------------------------------------------------------ judging

    def judge(self, programs: list[Program], *, stop_on: Collection[int] | None = None,
              progress=None) -> list[ProgramJudgement]:
        """Every program on the usable tests, in suite order. A program stops after its
        first rejection on a position in ``stop_on`` (positions in the usable tests;
        None: any position; empty: never). ``progress(n)`` hears each round's runs."""
        n = len(self.usable)
        out = [ProgramJudgement(verdicts=[NOT_RUN] * n) for _ in programs]
        with ThreadPoolExecutor(max_workers=max(1, min(len(programs) or 1, self.sandbox.workers))) as pool:
            built = list(pool.map(lambda p: compile_status(self.sandbox, p, self.functional), programs))
        alive = []
        for j, (status, message) in enumerate(built):
            if status in ("ce", "missing"):
                out[j].cannot_run = f"{'compile error' if status == 'ce' else 'cannot run here'}: {message}"
            elif status == "se":
                out[j].verdicts = ["SE"] * n  # the sandbox could not build it: nothing is known
                out[j].notes = {0: message} if n else {}
            else:
                alive.append(j)
        stops = None if stop_on is None else set(stop_on)
        pos = 0
        while alive and pos < n:
            # enough tests per round to fill twice the worker slots
            step = max(1, math.ceil(2 * self.sandbox.workers / len(alive)))
            chunk = list(range(pos, min(n, pos + step)))
            pos += len(chunk)
            self._round([programs[j] for j in alive], [out[j] for j in alive], chunk)
            if progress is not None:
                progress(len(alive) * len(chunk))
            alive = [j for j in alive if not self._stopped(out[j], chunk, stops)]
        return out

    @staticmethod
    def _stopped(judgement: ProgramJudgement, chunk: list[int], stops: set[int] | None) -> bool:
        return any(failed(judgement.verdicts[p]) and (stops is None or p in stops) for p in chunk)

    def _round(self, programs: list[Program], judgements: list[ProgramJudgement], chunk: list[int]) -> None:
        if self.interactive:
            self._interactive_round(programs, judgements, chunk)
            return
        tests = [self.tests[self.usable[p]] for p in chunk]
        runs = self._run(programs, [t.input for t in tests])
        clean = [(row, col) for row in range(len(chunk)) for col in range(len(programs)) if runs[row][col].ok]
        expected = [self.uses[self.usable[p]].expected for p in chunk]
        checks = check_outputs(self.sandbox, self.check_oracle,
                               [(tests[row].input, expected[row], runs[row][col].output) for row, col in clean],
                               limits=self.limits, comparator=self.problem.checker,
                               entry_point=self.problem.entry_point, validator=self.problem.output_validator,
                               checker_time_ms=self.checker_time_ms)
        judged = dict(zip(clean, checks))
        for row, p in enumerate(chunk):
            for col, judgement in enumerate(judgements):
                run = runs[row][col]
                if not run.ok:
                    # a compile error surfacing here (a cached build of a failing compiler) is not a test verdict
                    verdict = "SE" if run.verdict in (Verdict.SE, Verdict.CE) else run.verdict.value
                    judgement.verdicts[p] = verdict
                    judgement.notes[p] = " ".join(run.detail.split())[-300:]
                    continue
                check = judged[(row, col)]
                if check.ok:
                    judgement.verdicts[p] = "AC"
                elif check.kind in ("sandbox_error", "validator_failed"):
                    judgement.verdicts[p] = "SE"
                    judgement.notes[p] = check.kind
                else:
                    judgement.verdicts[p] = "WA"
                    judgement.notes[p] = f"{check.kind}: {' '.join(check.detail.split())[-200:]}".strip(": ")

    def _interactive_round(self, programs: list[Program], judgements: list[ProgramJudgement],
                           chunk: list[int]) -> None:
        """Each program with the interactor on each test of ``chunk``: the judged verdict
        (a starved TLE below the CPU limit runs again with a wider wall guard, as ``_run``)."""
        cases = [(p, col) for p in chunk for col in range(len(programs))]

        def jobs(limits: Limits, which: list[tuple[int, int]]) -> list[Job]:
            return [Job(program=programs[col], stdin=self.tests[self.usable[p]].input,
                        expected=self.uses[self.usable[p]].expected or "", limits=limits,
                        output_validator=self.problem.output_validator, interactive=True) for p, col in which]

        runs = dict(zip(cases, self.sandbox.run_many(jobs(self.limits, cases))))
        starved = [case for case, r in runs.items() if r.verdict is Verdict.TLE and r.cpu_ms < self.limits.time_ms]
        if starved:
            room = self.limits.model_copy(update={"wall_ms": min(DAY_MS, WALL_ROOM * self.limits.wall_guard_ms)})
            runs.update(zip(starved, self.sandbox.run_many(jobs(room, starved))))
        for (p, col), run in runs.items():
            judgement = judgements[col]
            verdict = "SE" if run.verdict in (Verdict.SE, Verdict.CE) else run.verdict.value
            judgement.verdicts[p] = verdict
            if verdict != "AC":
                judgement.notes[p] = " ".join((run.message or run.stderr[-300:]).split())[-300:]
