"""ALGO: a brute-force oracle written by the model gives the outputs of inputs made by a
small-input generator the model also writes.

TC-Bench §3.1.1 (after Zhang et al., 2023, "ALGO: synthesizing algorithmic programs with
LLM-generated oracle verifiers"). Setting: specification only.

Choices where the papers are silent:

- Two independent calls: one for the oracle (an exhaustive, obviously-correct program
  for small inputs: enumerate every candidate answer, no cleverness), one for the input
  generator. They run concurrently.
- The generator is a Python function ``generate() -> str`` returning one small input;
  we seed Python's ``random`` before each call and call it with distinct seeds until the
  budget is met (duplicates removed, at most ``max_rounds`` rounds). It runs only in the
  sandbox, under ``generator_time_ms``; a generator that fails is recorded and retired.
- One oracle, as the paper says ("ALGO generates only one", A.3). We run it on the
  samples and record it when it gets one wrong (``oracle_fails_samples``), but use it
  anyway: the paper's point is that a wrong self-written oracle makes invalid tests and
  a low PassRate, so the method must not hide it. ``require_sample_pass`` (our option,
  off) gives up instead of using such an oracle, after ``oracle_retries`` fresh samples
  of the same prompt (no feedback). With no samples in the task there is nothing to
  check.
- The oracle runs with ``oracle_time_ms`` (brute force is slow by design); an input on
  which it fails is dropped with its reason.
"""

from __future__ import annotations

import asyncio

from pydantic import Field

from tczoo.execution import Generator, Limits, outputs_match, record
from tczoo.method import Context, Method, MethodParams
from tczoo.parsing import ParseError, extract_program, function_from, note_truncation
from tczoo.schema import Artifact, OracleKind, Program, Setting, Task, TestSuite

GENERATE = ("generate",)


class AlgoParams(MethodParams):
    require_sample_pass: bool = Field(False, description="give up unless the oracle reproduces the samples")
    oracle_retries: int = Field(0, ge=0, description="with require_sample_pass: fresh oracles tried after one fails")
    oracle_time_ms: int = Field(5000, ge=100, description="CPU time the brute-force oracle may take per input",
                                json_schema_extra={"paper": "— (ours: the paper sets no such limit)"})
    generator_time_ms: int = Field(5000, ge=100, description="CPU time a generator call may take",
                                   json_schema_extra={"paper": "— (ours: the paper sets no such limit)"})
    max_input_kb: int = Field(1024, ge=1, description="largest input kept (KB)", json_schema_extra={"paper": "— (ours: the paper sets no such limit)"})
    max_rounds: int = Field(3, ge=1, description="generator rounds to fill the budget (new seeds each round)",
                            json_schema_extra={"paper": "— (not stated; ours)"})


class Algo(Method):
    name = "algo"
    paper = "TC-Bench §3.1.1 (Zhang et al., 2023)"
    summary = "LLM writes a small-input generator and a brute-force oracle that gives the outputs"
    setting = Setting.SPEC
    produces = OracleKind.EXPECTED_OUTPUT
    runner = "hackrate"
    Params = AlgoParams

    async def generate(self, task: Task, ctx: Context) -> TestSuite:
        suite = ctx.new_suite(task)
        oracle_limits = Limits(time_ms=self.params.oracle_time_ms, memory_mb=max(task.memory_limit_mb, 512))
        oracle, generator = await asyncio.gather(
            self._oracle(task, ctx, suite, oracle_limits), self._generator(task, ctx, suite)
        )
        if oracle is None or generator is None:
            return suite
        await ctx.run_generators([generator], seed=task.seed, per_generator=task.budget, rounds=self.params.max_rounds,
                           time_ms=self.params.generator_time_ms, max_input_kb=self.params.max_input_kb)
        record(suite, [generator], seed=task.seed, time_ms=self.params.generator_time_ms)
        inputs = generator.tests[: task.budget]
        results = await ctx.run(oracle, [t.input for t in inputs], oracle_limits)
        for i, (test, run) in enumerate(zip(inputs, results)):
            if not run.ok:
                suite.fail("oracle", f"oracle_{run.verdict.value.lower()}", run.detail[-500:], f"input#{i}")
                continue
            suite.tests.append(test.model_copy(update={"output": run.output}))
        return suite

    async def _oracle(self, task: Task, ctx: Context, suite: TestSuite, limits) -> Program | None:
        attempts = 1 + (self.params.oracle_retries if self.params.require_sample_pass else 0)
        for attempt in range(attempts):
            item = f"oracle-{attempt}"
            answers = await ctx.ask(suite, "algo/oracle", task=task, item=item, first_sample=attempt)
            if not answers:
                continue
            try:
                program = extract_program(answers[0].text).model_copy(update={"name": item})
            except ParseError as exc:
                suite.fail("parse", exc.reason, exc.detail, item)
                continue
            note_truncation(suite, answers[0].text, item)
            artifact = Artifact(role="oracle", program=program)
            suite.artifacts.append(artifact)
            problem = await self._check_on_samples(task, ctx, program, limits)
            if problem is None:
                return program
            artifact.ok = False
            artifact.note = problem[1]
            suite.fail("oracle", problem[0], problem[1], item)
            if not self.params.require_sample_pass:
                return program  # the paper's ALGO uses its one oracle, right or wrong
        suite.fail("oracle", "no_usable_oracle",
                   "giving up: no oracle passed the samples" if self.params.require_sample_pass
                   else "no oracle program in the answer")
        return None

    async def _check_on_samples(self, task: Task, ctx: Context, program: Program, limits):
        """None when the oracle reproduces every sample, else (reason, detail)."""
        if not task.samples:
            return None
        results = await ctx.run(program, [s.input for s in task.samples], limits)
        for k, (sample, run) in enumerate(zip(task.samples, results), 1):
            if not run.ok:
                return "oracle_fails_samples", f"sample {k}: {run.verdict.value} {run.detail[-300:]}"
            [match] = await asyncio.to_thread(outputs_match, ctx.sandbox, [(sample.input, run.output, sample.output)],
                                              comparator=task.checker, validator=task.output_validator)
            if match is not True:
                return "oracle_fails_samples", f"sample {k}: printed {run.output[:100]!r}, expected {sample.output[:100]!r}"
        return None

    async def _generator(self, task: Task, ctx: Context, suite: TestSuite) -> Generator | None:
        answers = await ctx.ask(suite, "algo/generator", task=task, item="generator")
        code = function_from(suite, answers, GENERATE, "generator")
        if code is None:
            return None
        note_truncation(suite, answers[0].text, "generator")
        return Generator(name="generator", code=code, function="generate", origin="algo")
