"""HarnessLLM test harnesses: the model writes input generators and an output checker.

HarnessLLM (Liu et al., 2025) §3.2, prompt of Figure 11. Setting: the specification plus
the program under test. One answer is one harness: ``generate_input_1..5()`` (each 1–4
inputs, a different strategy each) and ``check_output(generated_input, captured_output)``
that asserts on a program's output. The suite's oracle is a CHECKER_PROGRAM holding the
harness code; its tests are the generated inputs (no expected outputs).

Execution (methods/harness_exec.py): the generators run in the sandbox with ``random``
seeded by the task's seed; each generator's first ``per_generator`` inputs are kept,
the pool is deduplicated in generator order and capped at ``max_tests`` (the paper's 20).
A generator that crashes, hangs or returns something else than a list of inputs gives
nothing and is recorded. An answer without a usable harness (no code block, syntax
error, no generator, no ``check_output``, a checker that never asserts) or whose
generators give no input at all is a *format error*: a suite without tests.

``first_k`` is the number of tests the bug-finding runner evaluates by default (the
paper's Appendix B.1: 5 for harnesses).
"""

from __future__ import annotations

import asyncio
from typing import ClassVar

from pydantic import BaseModel, ConfigDict, Field

from methods.harness_exec import dedupe_inputs, parse_harness, run_generators, signature_of
from tczoo.method import Context, Method
from tczoo.parsing import ParseError
from tczoo.schema import Artifact, Oracle, OracleKind, Setting, Task, TestCase, TestSuite


class HarnessParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    max_generators: int = Field(5, ge=1, description="generate_input_N functions asked for and run")
    per_generator: int = Field(4, ge=1, description="inputs kept from each generator")
    max_tests: int = Field(20, ge=1, description="cap on deduplicated inputs per answer")
    generator_time_ms: int = Field(5000, ge=100, description="CPU time per generator call")
    checker_time_ms: int = Field(5000, ge=100, description="CPU time per check_output call (told to the model)")
    temperature: float | None = None
    max_tokens: int | None = None


def build_harness_suite(text: str, task: Task, sandbox, suite: TestSuite, params: HarnessParams) -> TestSuite:
    """Parse one answer and run its generators (seeded by ``task.seed``) into ``suite``.
    Synchronous: the method calls it in a thread, the RL reward calls it directly."""
    try:
        harness = parse_harness(text, max_generators=params.max_generators)
    except ParseError as exc:
        suite.fail("parse", exc.reason, exc.detail or text[-300:], "harness")
        return suite
    functional = task.entry_point is not None
    signature = None
    if functional and task.target is not None:
        signature = signature_of(task.target.code, task.entry_point)
    suite.oracle = Oracle(kind=OracleKind.CHECKER_PROGRAM, program=harness.program)
    run = run_generators(sandbox, harness.code, harness.generators, seed=task.seed, functional=functional,
                         signature=signature, per_generator=params.per_generator,
                         time_ms=params.generator_time_ms)
    for f in run.failures:
        suite.fail("generator", f.reason, f.detail, f.name)
    cap = min(params.max_tests, task.budget) if task.budget else params.max_tests
    kept = dedupe_inputs(run.inputs, functional, cap)
    suite.tests = [TestCase(input=g.text, origin=g.origin, meta={"seed": task.seed, "round": 0}) for g in kept]
    failed = {f.name for f in run.failures}
    note = (f"{len(harness.generators)} generators ({len(failed)} failed), {len(run.inputs)} inputs, "
            f"{len(kept)} kept after dedup/cap")
    if run.trimmed:
        note += f"; {run.trimmed} past {params.per_generator} per generator dropped"
    suite.artifacts.append(Artifact(role="harness", program=harness.program, ok=not failed, note=note))
    if not suite.tests:
        suite.fail("generator", "no_inputs", "no generator produced a usable input", "harness")
    return suite


class Harness(Method):
    name = "harness"
    paper = "HarnessLLM (Liu et al., 2025) §3.2"
    summary = "LLM writes seeded input generators and an asserting check_output"
    setting = Setting.SPEC_TARGET
    produces = OracleKind.CHECKER_PROGRAM
    runner = "bugfind"
    Params = HarnessParams
    first_k: ClassVar[int] = 5

    async def generate(self, task: Task, ctx: Context) -> TestSuite:
        suite = ctx.new_suite(task)
        template = "harness/functional" if task.entry_point else "harness/stdin"
        answers = await ctx.ask(suite, template, task=task, target=task.target,
                                max_generators=self.params.max_generators,
                                per_generator=self.params.per_generator,
                                checker_seconds=max(1, round(self.params.checker_time_ms / 1000)))
        if not answers:
            return suite
        return await asyncio.to_thread(build_harness_suite, answers[0].text, task, ctx.sandbox, suite, self.params)
