"""HarnessLLM's RL reward r(o; f, g) (Eq. 1) for one model answer on a triplet.

1 when the response exposes a true bug (g passes every test, f fails one); 0.1 when
all its inputs are valid and one separates f from g, but the assertions fail g or let
f pass; 0 otherwise (an input the problem's input check rejects, g failing to run, a
checker that breaks on g's output); ``format_penalty`` (default 0 as in the paper — the
authors' code uses -1) for an answer without a usable test. The answer is parsed and
its generators run exactly as the method does, then judged by the kernel's triplet
evaluation (``tczoo.execution.triplets``), the same one the ``bugfind`` runner uses.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tczoo.errors import InfrastructureFailure
from tczoo.execution import (INVALID_INPUT, Limits, Outcome, classify, gather_evidence, ground_truth_index, position,
                             screen_inputs)
from tczoo.methods.harnessllm.harness import HarnessParams, build_harness_suite
from tczoo.methods.harnessllm.io import InputOutputParams, build_io_suite
from tczoo.schema import Problem, Provenance, Setting, Task, TestSuite

if TYPE_CHECKING:
    from tczoo.sandbox import Sandbox

MAX_TESTS = 20  # the paper caps a response at 20 tests


def reward(outcome: Outcome | str, *, format_penalty: float = 0.0) -> float:
    """Eq. 1 of an outcome (``Outcome.reward``, the kernel's, which ``tczoo.rewards`` uses too)."""
    return Outcome(outcome).reward(format_penalty)


def response_reward(response: str, problem: Problem, *, sandbox: "Sandbox", method: str = "harness",
                    wrong: int = 0, ground_truth: int | None = None, seed: int = 0, first_k: int | None = None,
                    format_penalty: float = 0.0, checker_time_ms: int = 5000) -> tuple[float, Outcome]:
    """Eq. 1 for ``response`` on (problem, wrong solution ``wrong``, g). ``first_k``
    defaults to all tests (up to 20): during RL the paper lets the model choose how
    many tests to write."""
    if method not in ("harness", "io"):
        raise ValueError(f"response_reward knows the harness and io answer formats, not {method!r}")
    g = ground_truth_index(problem) if ground_truth is None else ground_truth
    if g is None:
        raise ValueError(f"problem {problem.id} has no accepted solution to serve as ground truth")
    f = problem.wrong_solutions[wrong]
    task = Task.from_problem(problem, Setting.SPEC_TARGET, budget=MAX_TESTS, seed=seed, target=f)
    suite = TestSuite(problem_id=problem.id, provenance=Provenance(method=method, seed=seed))
    if method == "harness":
        build_harness_suite(response, task, sandbox, suite, HarnessParams())
    else:
        build_io_suite(response, task, suite, InputOutputParams())
    tests = suite.tests[: first_k or MAX_TESTS]
    if not tests:
        return reward(Outcome.FORMAT_ERROR, format_penalty=format_penalty), Outcome.FORMAT_ERROR
    # inputs the problem's input check rejects are never run: each makes the response invalid
    screened = screen_inputs(problem, tests, sandbox)
    rejected = [(position(t, -1), str(t.meta.get(INVALID_INPUT, ""))) for t in screened.rejected]
    kept = [tests[i] for i in screened.kept]
    if not kept:
        outcome = Outcome.INVALID
        return reward(outcome, format_penalty=format_penalty), outcome
    evidence = gather_evidence(sandbox, f, problem.solutions[g], suite.oracle, [(t.input, t.output) for t in kept],
                               limits=Limits.of(problem), comparator=problem.checker,
                               entry_point=problem.entry_point, validator=problem.output_validator,
                               checker_time_ms=checker_time_ms)
    if evidence.infrastructure_failures:  # the sandbox failed, not the answer: no reward to give
        raise InfrastructureFailure(f"{evidence.infrastructure_failures} run(s) or check(s) of f and g met a "
                                    "sandbox error after retries")
    outcome, _, _ = classify(evidence, list(range(len(kept))), rejected=rejected)
    return reward(outcome, format_penalty=format_penalty), outcome
