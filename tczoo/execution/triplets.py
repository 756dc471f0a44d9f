"""Does a test suite expose the bug in a program? Judging a suite on a triplet
(problem, buggy program f, ground truth g), as HarnessLLM (Liu et al., 2025, §4.1) does.

Shared by the ``bugfind`` runner (GI / ITR / TBR) and HarnessLLM's RL reward (Eq. 1),
so both classify a response the same way.

f and g run on every probe input in the sandbox. An input *separates* f and g when g
runs cleanly on it and f's output differs (by the problem's comparator; as values for
functional problems) or f fails to run (crash, time, memory). The suite's oracle
(``tczoo.execution.oracle``) then judges g's outputs and f's separating outputs, one
case per process, in an order that says nothing about whose output is judged.

Eq. 1 asks that g *pass every test*: 1 only when g passes and f fails; 0.1 when the
inputs are all valid and one separates f from g but the assertions fail g ("Assertion
errors in output verifier", the paper's footnote) or let f pass; 0 otherwise. So a
test g cannot pass for any other reason makes the whole response invalid, whatever
separates elsewhere: an input the problem's validator rejects, g failing to run on it
(runtime error, memory, time) and an oracle that breaks on g's output (the checker
crashes or runs out of time; no expected output to compare with). Only an oracle's
verdict against g's output (an assertion, a mismatch) leaves the response the 0.1 of
a good input. ``ground_truth_timeout="drop"`` is the authors' evaluation instead: an
input on which g runs out of time is left out.

=====================  =========================================================
outcome                rule (checked in this order)
=====================  =========================================================
format_error           no usable test (no/broken harness, no inputs, bad JSON)
invalid                an input the problem's validator rejects, g fails to run
                       on an input, or the oracle breaks on g's output; or the
                       oracle rejects g's output and no input separates f from g
good_input_invalid     some input separates f from g, but the oracle rejects g's
                       output (a wrong assertion / expected output)
no_separation          g passes; f(x) = g(x) on every input
good_input             g passes; some input separates f and g, but f passes too
true_bug               g passes every test and f fails one
=====================  =========================================================
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Sequence

from tczoo.execution.oracle import Check, check_outputs
from tczoo.execution.outputs import outputs_match
from tczoo.execution.programs import Execution, run_program
from tczoo.sandbox.types import Limits, Verdict
from tczoo.schema import Oracle, Program

if TYPE_CHECKING:
    from tczoo.sandbox import Sandbox
    from tczoo.schema import Validator


class Outcome(str, Enum):
    FORMAT_ERROR = "format_error"
    INVALID = "invalid"
    GOOD_INPUT_INVALID = "good_input_invalid"
    NO_SEPARATION = "no_separation"
    GOOD_INPUT = "good_input"
    TRUE_BUG = "true_bug"

    @property
    def gi(self) -> bool:
        """Good input: some input separates f from g."""
        return self in (Outcome.GOOD_INPUT_INVALID, Outcome.GOOD_INPUT, Outcome.TRUE_BUG)

    @property
    def itr(self) -> bool:
        """Invalid test: g fails (runtime error, or the oracle rejects its output)."""
        return self in (Outcome.INVALID, Outcome.GOOD_INPUT_INVALID)

    @property
    def tbr(self) -> bool:
        """True bug: g passes every test, f fails one."""
        return self is Outcome.TRUE_BUG

    def reward(self, format_penalty: float = 0.0) -> float:
        """HarnessLLM's RL reward r(o; f, g), Eq. 1: 1 for a true bug, 0.1 for a good
        input whose assertions failed g or let f pass (all inputs valid), ``format_penalty``
        (the paper's 0; the authors' code uses -1) for an answer without a usable test,
        else 0."""
        if self is Outcome.TRUE_BUG:
            return 1.0
        if self in (Outcome.GOOD_INPUT, Outcome.GOOD_INPUT_INVALID):
            return 0.1
        if self is Outcome.FORMAT_ERROR:
            return format_penalty
        return 0.0


CRASHES = {Verdict.RE, Verdict.MLE, Verdict.OLE, Verdict.CE, Verdict.TLE}  # g failing to run: an invalid test
# An oracle's verdict against an output: the test ran and said no. Any other failed check
# (the checker crashed or ran out of time, nothing to compare with) is a broken test.
VERDICTS = {"assertion", "mismatch"}


@dataclass
class Evidence:
    """Everything a classification needs, index-aligned with the probe inputs."""

    g_runs: list[Execution]
    f_runs: list[Execution]
    differs: list[bool]
    g_checks: list[Check | None]  # None where g did not run cleanly
    f_checks: list[Check | None]  # None where f's output was not checked (no difference, or f failed)

    @property
    def infrastructure_failures(self) -> int:
        """Runs and oracle checks the sandbox itself failed (SE): never the programs' behaviour."""
        return (sum(r.verdict is Verdict.SE for r in self.g_runs + self.f_runs)
                + sum(c is not None and c.kind == "sandbox_error" for c in self.g_checks + self.f_checks))


def classify(ev: Evidence, indices: list[int], *, rejected: Sequence[tuple[int, str]] = (),
             ground_truth_timeout: str = "invalid") -> tuple[Outcome, str, int | None]:
    """(outcome, reason, index of the deciding probe) for the probes ``indices``, by Eq. 1.

    ``rejected``: (position as generated, reason) of the response's tests in the same
    set that the problem's input check rejected (never run): each makes the response
    invalid, as an input g crashes on does (no probe decides it: the index is None). ``ground_truth_timeout``: ``invalid`` (Eq. 1: g must pass
    every test) or ``drop`` (the authors' evaluation leaves such inputs out)."""
    if ground_truth_timeout not in ("invalid", "drop"):
        raise ValueError(f"ground_truth_timeout is 'invalid' or 'drop', not {ground_truth_timeout!r}")
    if rejected:
        return Outcome.INVALID, "invalid_input", None
    if not indices:
        return Outcome.FORMAT_ERROR, "no_inputs", None
    crashes = CRASHES - {Verdict.TLE} if ground_truth_timeout == "drop" else CRASHES
    for i in indices:
        if ev.g_runs[i].verdict in crashes:
            return Outcome.INVALID, f"ground_truth_{ev.g_runs[i].verdict.value}", i
    live = [i for i in indices if ev.g_runs[i].ok]
    for i in live:
        check = ev.g_checks[i]
        if check is not None and not check.ok and check.kind not in VERDICTS:
            return Outcome.INVALID, f"ground_truth_check_{check.kind}", i
    separating = [i for i in live if ev.differs[i]]
    for i in live:
        check = ev.g_checks[i]
        if check is not None and not check.ok:
            outcome = Outcome.GOOD_INPUT_INVALID if separating else Outcome.INVALID
            return outcome, f"ground_truth_check_{check.kind}", i
    if not separating:
        return Outcome.NO_SEPARATION, "" if live else "ground_truth_timeout_everywhere", None
    for i in separating:
        if not ev.f_runs[i].ok:
            return Outcome.TRUE_BUG, f"target_{ev.f_runs[i].verdict.value}", i
        check = ev.f_checks[i]
        if check is not None and not check.ok:
            return Outcome.TRUE_BUG, f"target_check_{check.kind}", i
    return Outcome.GOOD_INPUT, "", separating[0]


def gather_evidence(sandbox: "Sandbox", f: Program, g: Program, oracle: Oracle,
                    probes: list[tuple[str, str | None]], *, limits: Limits, comparator: str | None = None,
                    entry_point: str | None = None, validator: "Validator | None" = None,
                    checker_time_ms: int = 5000) -> Evidence:
    """Run f and g on the probes (input, expected output or None) and check their
    outputs with the suite's oracle."""
    functional = entry_point is not None
    inputs = [p[0] for p in probes]
    g_runs = run_program(sandbox, g, inputs, limits=limits, entry_point=entry_point)
    f_runs = run_program(sandbox, f, inputs, limits=limits, entry_point=entry_point)
    both = [i for i, (gr, fr) in enumerate(zip(g_runs, f_runs)) if gr.ok and fr.ok]
    agree = dict(zip(both, outputs_match(sandbox, [(inputs[i], f_runs[i].output, g_runs[i].output) for i in both],
                                         comparator=comparator, validator=validator, functional=functional)))
    differs = []
    for i, (gr, fr) in enumerate(zip(g_runs, f_runs)):
        if not gr.ok or fr.verdict is Verdict.SE:
            differs.append(False)
        elif not fr.ok:
            differs.append(True)
        else:  # a validator that failed itself (None) separates nothing
            differs.append(agree[i] is False)
    g_idx = [i for i, r in enumerate(g_runs) if r.ok]
    f_idx = [i for i, r in enumerate(f_runs) if differs[i] and r.ok]
    cases = ([(inputs[i], probes[i][1], g_runs[i].output) for i in g_idx]
             + [(inputs[i], probes[i][1], f_runs[i].output) for i in f_idx])
    checks = check_outputs(sandbox, oracle, cases, limits=limits, comparator=comparator, entry_point=entry_point,
                           validator=validator, checker_time_ms=checker_time_ms)
    g_checks: list[Check | None] = [None] * len(probes)
    f_checks: list[Check | None] = [None] * len(probes)
    for i, c in zip(g_idx, checks[: len(g_idx)]):
        g_checks[i] = c
    for i, c in zip(f_idx, checks[len(g_idx):]):
        f_checks[i] = c
    return Evidence(g_runs, f_runs, differs, g_checks, f_checks)


def ground_truth_index(problem, name: str | None = None) -> int | None:
    """Which accepted solution plays g: the one called ``name``, else (HarnessLLM's
    choice) the first C++ one for stdin problems and the first Python one for
    functional problems, else the first. None when the problem has none."""
    from tczoo.schema import Language

    sols = problem.solutions
    if not sols:
        return None
    if name:
        for i, s in enumerate(sols):
            if s.name == name:
                return i
        raise ValueError(f"problem {problem.id} has no accepted solution named {name!r}")
    want = Language.PYTHON if problem.entry_point else Language.CPP
    return next((i for i, s in enumerate(sols) if s.language is want), 0)
