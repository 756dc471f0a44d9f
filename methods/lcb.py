"""LCB: the model writes a random-input generator and an edge-case input generator;
inputs come from running them, outputs from the correct code.

TC-Bench §3.1.1 (after Jain et al., 2024, LiveCodeBench's test generation: random and
edge-case input generators written by an LLM, outputs from a correct solution).
Setting: specification + correct code.

The paper: "LCB requires LLM to generate both multiple random and edge-case input
generators"; outputs come from executing the inputs on the correct code. The method
runs only that code (the task carries one, the runner's choice): it never sees the
scorer's validators and does not filter its inputs by them.

Choices where the papers are silent:

- Two prompts: ``lcb/random`` asks for ``generate() -> str`` returning one random input
  (``random`` is seeded by us before each call, so distinct seeds give distinct inputs);
  ``lcb/edge`` asks for ``generate_edge_cases() -> list[str]`` returning a list of
  hand-picked boundary inputs (called once). ``random_generators`` and
  ``edge_generators`` samples of each prompt (2 and 2: "multiple", the paper gives no
  number) are independent generators.
- The budget is shared: ``edge_share`` of it (half) goes to edge-case inputs, the
  random generators fill the rest; a shortfall on one side is filled from the other.
  The final list alternates edge-case and random inputs, so any prefix keeps both kinds.
- Outputs: the correct program runs on every input under the problem's limits times
  ``time_factor``. An input it cannot answer (a crash or a timeout: too large, or
  outside the constraints) stays in the suite without an output and the failure is
  recorded: the method generated it, so it counts in PassRate, and the scorer's
  validators decide whether it is a valid test (as the reference's filter does with
  every generated test). ``oversample`` (our option, 1 = off) asks the random
  generators for more inputs than needed.
- Generators run only in the sandbox with ``generator_time_ms`` and an output cap; one
  that crashes, hangs or prints too much is recorded and retired, the others go on.
"""

from __future__ import annotations

import asyncio
import math

from pydantic import Field

from tczoo.execution import Generator, Limits, record
from tczoo.method import Context, Method, MethodParams
from tczoo.parsing import ParseError, extract_function, note_truncation, python_defines
from tczoo.schema import OracleKind, Setting, Task, TestSuite, interleave


class LcbParams(MethodParams):
    random_generators: int = Field(2, ge=0, description="random-input generators (samples of one prompt)")
    edge_generators: int = Field(2, ge=0, description="edge-case generators (samples of one prompt)")
    edge_share: float = Field(0.5, ge=0, le=1, description="fraction of the budget for edge cases")
    oversample: float = Field(1.0, ge=1, description="random inputs generated per input needed (1: none extra)")
    time_factor: float = Field(1.5, gt=0, description="correct code's time limit = problem limit x this")
    generator_time_ms: int = Field(5000, ge=100, description="CPU time a generator call may take",
                                   json_schema_extra={"paper": "— (ours: the paper sets no such limit)"})
    max_input_kb: int = Field(8192, ge=1, description="largest input kept (KB)", json_schema_extra={"paper": "— (ours: the paper sets no such limit)"})
    max_rounds: int = Field(3, ge=1, description="generator rounds to fill the budget (new seeds each round)",
                            json_schema_extra={"paper": "— (not stated; ours)"})


class Lcb(Method):
    name = "lcb"
    paper = "TC-Bench §3.1.1 (Jain et al., 2024)"
    summary = "LLM writes random and edge-case input generators; outputs from the correct code"
    setting = Setting.SPEC_CORRECT
    produces = OracleKind.EXPECTED_OUTPUT
    runner = "hackrate"
    Params = LcbParams

    async def generate(self, task: Task, ctx: Context) -> TestSuite:
        suite = ctx.new_suite(task)
        p = self.params
        random_gens, edge_gens = await asyncio.gather(
            self._generators(task, ctx, suite, "lcb/random", p.random_generators, "random", ("generate",), False),
            self._generators(task, ctx, suite, "lcb/edge", p.edge_generators, "edge",
                             ("generate_edge_cases", "generate_edge_case", "generate"), True),
        )
        run = dict(seed=task.seed, time_ms=p.generator_time_ms, max_input_kb=p.max_input_kb)
        seen: set[str] = set()
        # Edge cases first: they are few and deliberate; random inputs fill the rest.
        await ctx.run_generators(edge_gens, per_generator=task.budget, rounds=1, seen=seen, **run)
        edge_share = math.ceil(task.budget * p.edge_share)
        n_edge = min(edge_share, sum(len(g.tests) for g in edge_gens))
        want_random = task.budget - n_edge
        if random_gens and want_random > 0:
            per = math.ceil(want_random * p.oversample / len(random_gens))
            await ctx.run_generators(random_gens, per_generator=per, rounds=p.max_rounds, seen=seen, **run)
        record(suite, edge_gens + random_gens, seed=task.seed, time_ms=p.generator_time_ms)
        every = 10**9
        edge = interleave([g.tests for g in edge_gens], every)
        rand = interleave([g.tests for g in random_gens], every)
        take_edge = min(len(edge), max(edge_share, task.budget - len(rand)))
        chosen = interleave([edge[:take_edge], rand], task.budget)
        suite.tests = await self._outputs(task, ctx, suite, chosen)
        return suite

    async def _generators(self, task, ctx, suite, template, n, kind, functions, multi) -> list[Generator]:
        if n <= 0:
            return []
        answers = await ctx.ask(suite, template, task=task, n=n, item=kind)
        gens = []
        for c in answers:
            name = f"{kind}-{c.sample}"
            try:
                code = extract_function(c.text, functions)
            except ParseError as exc:
                suite.fail("parse", exc.reason, exc.detail, name)
                continue
            note_truncation(suite, c.text, name)
            function = next(f for f in functions if f in python_defines(code))
            gens.append(Generator(name=name, code=code, function=function, origin=f"lcb:{kind}",
                                  returns="list" if multi else "one"))
        return gens

    async def _outputs(self, task: Task, ctx: Context, suite: TestSuite, inputs) -> list:
        """The inputs with the correct program's outputs; where it fails, no output."""
        reference = task.correct_programs[0]
        limits = Limits(time_ms=int(task.time_limit_ms * self.params.time_factor), memory_mb=task.memory_limit_mb)
        results = await ctx.run(reference, [t.input for t in inputs], limits)
        answered = []
        for test, run in zip(inputs, results):
            if not run.ok:
                suite.fail("oracle", f"correct_code_{run.verdict.value.lower()}",
                           f"input {test.input[:80]!r} kept without an output: {run.detail[-300:]}", test.origin)
                answered.append(test)
                continue
            answered.append(test.model_copy(update={"output": run.output}))
        return answered
