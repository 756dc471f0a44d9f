"""EvalPerf baseline (Liu et al., 2024; as used by STAB, arXiv:2605.27981, §4.2 / §5.4).

Setting: specification + a reference implementation. The LLM writes a scalable input
generator ``def perf_input_gen(scale: int) -> str`` ("synthesizing a synthesizer");
we call it with scale = 1, 2, 4, ... and run the reference on each input, doubling
until the reference exceeds the time limit; the largest input the reference still
finishes in time is the test. The loop also stops (keeping the last good input) when
the generator fails (crash, timeout, memory, output cap), the input exceeds
``max_input_kb``, the reference fails on it (a crash means the input is not one it
accepts), or ``max_doublings`` is reached. Our option ``check_inputs`` (off by
default: EvalPerf has no such check) also stops at an input that violates the
statement's parsed constraints (read back with :mod:`tczoo.methods.stab.inputs`); its repair
prompt then says only that the input broke the statement, never which parsed bound,
since EvalPerf has no constraint saturator.

``generators`` (5) generators are written per problem, one test each, so EvalPerf
and STAB hand the efficiency runner the same number of tests, sampled as STAB's
Appendix A samples every model (temperature 1.0, top-p 0.95, 4,096 tokens). A
generator that fails already at scale 1 gets ``repairs`` (1) repair calls with the
error. The reference is the one the efficiency runner chooses (a C++ accepted solution
that passes every original test, Appendix E).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from pydantic import Field

from tczoo.execution import Limits, py_call, read_call
from tczoo.methods.stab.constraints import parse_constraints
from tczoo.methods.stab.inputs import InputChecker, checker_for
from tczoo.method import Context, Method, MethodParams
from tczoo.parsing import ParseError, as_stdin, function_from
from tczoo.schema import Artifact, Language, OracleKind, Program, Setting, Task, TestCase, TestSuite



class EvalPerfParams(MethodParams):
    # STAB's Appendix A sampling, used for every generator in its comparison.
    temperature: float | None = Field(1.0, ge=0, description="sampling temperature (STAB Appendix A)")
    top_p: float | None = Field(0.95, gt=0, le=1, description="nucleus sampling mass (STAB Appendix A)")
    max_tokens: int | None = Field(4096, ge=1, description="most tokens per answer (STAB Appendix A)")
    generators: int = Field(5, ge=1, description="perf_input_gen functions (= tests) per problem")
    repairs: int = Field(1, ge=0, description="repair calls for a generator failing at scale 1")
    first_scale: int = Field(1, ge=1, description="the scale the doubling starts from")
    max_doublings: int = Field(24, ge=0, description="scale stops at first_scale * 2**max_doublings")
    time_limit_ms: int | None = Field(None, description="reference time limit (None = the problem's)")
    gen_time_ms: int = Field(10_000, ge=100, description="CPU time a generator call may take")
    gen_memory_mb: int = Field(1024, ge=64, description="memory a generator call may use (MB)",
                               json_schema_extra={"paper": "— (ours: the paper sets no such limit)"})
    max_input_kb: int = Field(32 * 1024, ge=1, description="largest input kept (KB); doubling stops above it",
                              json_schema_extra={"paper": "— (ours: the paper sets no such limit)"})
    check_inputs: bool = Field(False, description="ours: stop doubling at an input violating the parsed constraints")


@dataclass
class Step:
    scale: int
    outcome: str  # "ok", "reference_tle", "reference_failed", generator failure reason, ...
    input_kb: int = 0
    cpu_ms: float = 0.0
    error: str = ""


class EvalPerf(Method):
    name = "evalperf"
    paper = "EvalPerf (Liu et al., 2024), baseline in STAB (arXiv:2605.27981) §4.2"
    summary = "LLM writes perf_input_gen(scale); scale doubles until the reference exceeds the time limit"
    setting = Setting.SPEC_CORRECT
    produces = OracleKind.INPUTS_ONLY
    runner = "efficiency"
    Params = EvalPerfParams
    single_turn = {"generators": 1, "repairs": 0}  # one perf_input_gen, no repair call

    async def generate(self, task: Task, ctx: Context) -> TestSuite:
        suite = ctx.new_suite(task)
        reference = task.correct_programs[0]
        checker = None
        if self.params.check_inputs:
            parsed = parse_constraints(task.statement)
            checker = checker_for(task.statement, parsed.constraints, [s.input for s in task.samples])
            if not checker.active:
                suite.fail("validator", "no_input_layout", checker.note + "; inputs are not checked")
        total = self.params.generators
        results = await asyncio.gather(*(self._one(k, total, task, reference, checker, ctx, suite)
                                         for k in range(total)))
        seen: set[str] = set()
        for test in results:
            if test is None:
                continue
            key = " ".join(test.input.split())
            if key in seen:
                suite.fail("generator", "duplicate_input", "same input as an earlier generator", test.meta["generator"])
                continue
            seen.add(key)
            suite.tests.append(test)
        return suite

    async def _one(self, k: int, total: int, task: Task, reference: Program, checker: InputChecker | None,
                   ctx: Context, suite: TestSuite) -> TestCase | None:
        item = f"g{k}"
        variables = {"task": task, "reference": reference, "index": k + 1, "total": total}
        answers = await ctx.ask(suite, "evalperf/generate", first_sample=k, item=item, **variables)
        code = function_from(suite, answers, ("perf_input_gen",), item)
        repairs = 0
        while True:
            steps, best = await self.double(code, task, reference, checker, ctx) if code else ([], None)
            if best is not None:
                break
            if steps:
                suite.fail("generator", steps[0].outcome,
                           f"no usable input at scale {steps[0].scale}: {steps[0].error[-1000:]}".rstrip(": "), item)
            if repairs >= self.params.repairs:
                break
            repairs += 1
            error = _repair_message(steps[0]) if steps else "the answer held no usable perf_input_gen(scale) function"
            where = f"{item}/repair{repairs}"
            answers = await ctx.ask(suite, "evalperf/repair", first_sample=k, item=where,
                                    previous=code or "", error=error[:3000], **variables)
            code = function_from(suite, answers, ("perf_input_gen",), where) or code
        if code:
            trace = ", ".join(f"{s.scale}:{s.outcome}" for s in steps)
            suite.artifacts.append(Artifact(
                role="generator", ok=best is not None, note=f"scales {trace}; repairs: {repairs}",
                program=Program(code=code, language=Language.PYTHON, name=item, meta={"function": "perf_input_gen"})))
        if best is None:
            return None
        last_ok = [s for s in steps if s.outcome == "ok"][-1]
        return TestCase(input=best[1], origin=f"{self.name}/{item}",
                        meta={"generator": item, "scale": best[0], "stopped": steps[-1].outcome,
                              "reference_cpu_ms": last_ok.cpu_ms, "repairs": repairs})

    async def double(self, code: str, task: Task, reference: Program, checker: InputChecker | None,
                     ctx: Context) -> tuple[list[Step], tuple[int, str] | None]:
        """The doubling loop: (steps taken, (scale, input) of the largest in-time input)."""
        p = self.params
        gen_limits = Limits(time_ms=p.gen_time_ms, memory_mb=p.gen_memory_mb, output_kb=2 * p.max_input_kb + 1024)
        ref_limits = Limits(time_ms=p.time_limit_ms or task.time_limit_ms, memory_mb=task.memory_limit_mb)
        steps: list[Step] = []
        best: tuple[int, str] | None = None
        scale = p.first_scale
        for _ in range(p.max_doublings + 1):
            [call] = await ctx.call([py_call(code, "perf_input_gen", seed=scale, args=[scale], limits=gen_limits)])
            ok, value, reason, detail = read_call(call)
            if not ok:
                steps.append(Step(scale, reason, error=(detail or call.run.message)[-1500:]))
                break
            try:
                text = as_stdin(value)
            except ParseError as exc:
                steps.append(Step(scale, "bad_return", error=exc.detail))
                break
            size_kb = len(text.encode()) // 1024
            if not text.strip() or size_kb > p.max_input_kb:
                error = "empty input" if not text.strip() else f"{size_kb} KB > {p.max_input_kb} KB"
                steps.append(Step(scale, "empty_input" if not text.strip() else "input_too_large", size_kb,
                                  error=error))
                break
            if checker is not None:
                problems = checker.check(text)
                if problems:
                    # The step keeps the parsed detail; the repair prompt gets only the kind.
                    kind = "format_error" if problems[0].startswith("format:") else "constraint_violation"
                    steps.append(Step(scale, kind, size_kb, error="; ".join(problems[:5])))
                    break
            [run] = await ctx.run(reference, [text], ref_limits)
            if run.verdict.value == "TLE":
                steps.append(Step(scale, "reference_tle", size_kb, run.cpu_ms))
                break
            if not run.ok:
                steps.append(Step(scale, "reference_failed", size_kb, run.cpu_ms,
                                  error=f"reference {run.verdict.value}: {run.detail[-500:]}"))
                break
            steps.append(Step(scale, "ok", size_kb, run.cpu_ms))
            best = (scale, text)
            scale *= 2
        return steps, best


def _repair_message(step: Step) -> str:
    """What the repair prompt says about a failed first step: the traceback of a crash,
    but no parsed constraint (EvalPerf has no constraint saturator to give it one)."""
    if step.outcome in ("constraint_violation", "format_error"):
        return (f"{step.outcome} at scale {step.scale}: the input does not follow the problem's input "
                "format and constraints")
    return f"{step.outcome} at scale {step.scale}: {step.error}"
