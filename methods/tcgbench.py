"""TCGBench (Cao et al., 2025, arXiv:2506.06821): LLM-written test-case *generators*.

Two tasks, two methods:

- ``tcgbench-valid`` (Task 1, spec only): a generator of valid inputs for the problem;
- ``tcgbench`` (Task 2, spec + the erroneous program): a *targeted* generator whose
  input makes the given wrong program fail while a correct program passes.

A generator is a Python function ``construct_inputs()`` returning one input (the form
the benchmark's examples use). It runs in the sandbox (``tczoo.execution.run_generators``:
``random`` seeded per call, CPU-limited, its failures recorded); each call's input is a
test. The suite holds inputs only: the ``counterexample`` runner judges them — valid
when the problem's input validators accept every one, a success when one makes the
wrong program fail where the ground truth runs cleanly — and reports Valid@k and
Success@k as the paper defines them (docs/tcgbench.md).

Where we could not read the paper's own setting we say so in the parameters (the
``paper`` column of ``tczoo methods tcgbench``): the number of calls per generator and
the generator's time limit are ours. The paper's manually written target instructions
(its error analyses that guide the targeted generator) are not part of the task here:
the method sees the problem and the program only, the paper's base setting.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import Field

from tczoo.execution import Generator, record
from tczoo.method import Context, Method, MethodParams
from tczoo.parsing import ParseError, extract_function, note_truncation
from tczoo.schema import OracleKind, Setting, Task, TestSuite

FUNCTION = "construct_inputs"


class TcgbenchParams(MethodParams):
    calls: int | None = Field(None, ge=1, le=100, description="calls of the generator, each with its own seed; "
                                                              "each call's input is a test (None: as many as the "
                                                              "runner asks for: one)",
                              json_schema_extra={"paper": "— (not found; ours: one input per generator)"})
    generator_time_ms: int = Field(10_000, ge=100, description="CPU time per generator call",
                                   json_schema_extra={"paper": "— (not found; ours)"})
    max_input_kb: int = Field(8192, ge=1, description="largest input kept (KB)",
                              json_schema_extra={"paper": "— (ours)"})


class Tcgbench(Method):
    """Task 2: a targeted generator for the program under test."""

    name = "tcgbench"
    paper = "TCGBench (Cao et al., 2025, arXiv:2506.06821) Task 2"
    summary = "LLM writes a generator whose input makes the given wrong program fail (targeted generator)"
    setting = Setting.SPEC_TARGET
    produces = OracleKind.INPUTS_ONLY
    runner = "counterexample"
    Params = TcgbenchParams
    template: ClassVar[str] = "tcgbench/targeted"
    kind: ClassVar[str] = "targeted"
    single_turn: ClassVar[dict[str, Any]] = {}  # one answer: the generator
    responses: ClassVar[int] = 1  # generators per target the runner asks for (k of Success@k needs n >= k)

    async def generate(self, task: Task, ctx: Context) -> TestSuite:
        suite = ctx.new_suite(task)
        if task.interactive:
            suite.fail("method", "interactive_problem", "an interactive problem takes no fixed input: skipped")
            return suite
        answers = await ctx.ask(suite, self.template, task=task, target=task.target, item=self.kind)
        if not answers:
            return suite
        name = f"{self.kind}-generator"
        try:
            code = extract_function(answers[0].text, (FUNCTION,))
        except ParseError as exc:
            suite.fail("parse", exc.reason, exc.detail, name)
            return suite
        note_truncation(suite, answers[0].text, name)
        p = self.params
        gen = Generator(name=name, code=code, function=FUNCTION, origin=f"tcgbench:{self.kind}", returns="one")
        calls = p.calls or task.budget
        await ctx.run_generators([gen], seed=task.seed, per_generator=calls, rounds=calls,
                                 time_ms=p.generator_time_ms, max_input_kb=p.max_input_kb,
                                 functional=task.entry_point is not None)
        record(suite, [gen], seed=task.seed, time_ms=p.generator_time_ms)
        suite.tests = list(gen.tests)
        return suite


class TcgbenchValid(Tcgbench):
    """Task 1: a valid generator for the problem alone."""

    name = "tcgbench-valid"
    paper = "TCGBench (Cao et al., 2025, arXiv:2506.06821) Task 1"
    summary = "LLM writes a generator of valid inputs for the problem (Valid@k)"
    setting = Setting.SPEC
    template = "tcgbench/valid"
    kind = "valid"
