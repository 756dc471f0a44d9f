"""TRAILS: correctness of one program from (input, output) pairs judged against the
specification, never from reading the code (Tambon & Papadakis, 2026, §2, Figure 2).

Setting: the specification plus the program under test. The code is shown to the model
once, and only to learn how to run it (step 1b); every verdict is reasoned from the
specification and concrete executions.

Phase 1, inputs:
1. *Scenarios* (category partitioning): the model reads the specification only and
   describes ``scenarios`` (s = 3) behaviour scenarios with their pre-conditions.
   *Code properties*, asked in parallel: how the program receives an input and its exact
   structure (stdin text, or the arguments of the entry point).
2. Per scenario, the model writes ``n_inputs`` inputs for it (our choice: 5; the paper
   does not say how many are asked for).
3. Each input is run on the program in the sandbox: a run that does not end cleanly
   (runtime error, time or memory limit) makes it invalid.
4. Invalid inputs go back to the model with their errors, "assuming a correct program",
   for corrected ones; generation and repairs together take at most ``budget`` steps
   (g = 3) per scenario. A scenario left without a valid input is skipped; ``early_stop``
   consecutive such scenarios end the run and judge the program INCORRECT (likewise a
   program that does not compile, and one with no valid input at all).
5. Within a scenario, inputs that execute the same set of lines (``line_coverage``:
   tracing for Python, gcov for C/C++) keep the first; at most ``max_inputs`` (3) stay.

Phase 2, verdicts:
6. The outputs are those of the validating runs (the programs are deterministic; the
   paper runs them again).
7. Each (input, output) pair with the specification goes to the model, which reasons
   step by step and answers CORRECT or INCORRECT (an unreadable answer is asked again
   once, then left out).
8. The score is the share of CORRECT verdicts; the program is judged correct when the
   score is above ``threshold`` (τ = 0.8, the paper's best). The verdict runner
   re-decides the score at τ = 0.6, 0.7, 0.8.

The suite's tests are the judged pairs (``meta``: scenario, output, judgement); its
verdict carries the score, the scenarios and the code properties.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Literal

from pydantic import Field

from tczoo.execution import CoverageUnavailable, Execution, Limits, Verdict, input_key
from tczoo.method import Context, Method
from tczoo.methods.trails.answers import read_inputs, read_scenarios
from tczoo.methods.trails.common import VerifierParams, ask_verdict, fence, shown
from tczoo.schema import CodeVerdict, OracleKind, Setting, Task, TestCase, TestSuite

PROPERTIES_CHARS = 3000  # characters of the code-properties answer passed on to input generation


class TrailsParams(VerifierParams):
    scenarios: int = Field(3, ge=1, le=20, description="behaviour scenarios extracted from the specification (s)")
    budget: int = Field(3, ge=1, le=10, description="generation + repair steps per scenario (g)")
    max_inputs: int = Field(3, ge=1, le=50, description="inputs kept per scenario after coverage deduplication")
    n_inputs: int = Field(5, ge=1, le=20, description="inputs asked for per scenario (ours; the paper is silent)")
    early_stop: int = Field(2, ge=1, description="consecutive scenarios without a valid input that end the run")
    threshold: float = Field(0.8, ge=0.0, le=1.0, description="correct when the CORRECT share is above it (τ)")
    dedup: Literal["coverage", "text"] = Field("coverage", description="coverage: by lines executed; text: none")


@dataclass
class Pair:
    scenario: int  # 1-based
    input: str
    output: str
    step: int  # 0: as generated, k: after the k-th repair
    lines: int | None = None  # lines the input executed (coverage), when measured


class _Uncompilable(Exception):
    pass


def describe_failure(ex: Execution, limits: Limits) -> str:
    """What the model is told about an input the program could not process."""
    if ex.verdict is Verdict.TLE:
        return f"the program did not finish within the time limit ({limits.time_ms} ms)"
    if ex.verdict is Verdict.MLE:
        return f"the program ran out of memory (limit {limits.memory_mb} MB)"
    if ex.verdict is Verdict.OLE:
        return "the program printed far too much output"
    return "runtime error: " + (ex.detail.strip()[-800:] or "the program crashed")


class Trails(Method):
    name = "trails"
    paper = "TRAILS (Tambon & Papadakis, 2026) §2, Figure 2"
    summary = "scenario inputs validated on the code (repair budget), coverage dedup, one verdict per (input, output)"
    setting = Setting.SPEC_TARGET
    produces = OracleKind.LLM_JUDGE
    runner = "verdict"
    functional = True  # call-based problems too (Task.entry_point)
    Params = TrailsParams

    async def generate(self, task: Task, ctx: Context) -> TestSuite:
        suite = ctx.new_suite(task)
        suite.oracle.judge_prompt = "trails/judge"
        p = self.params
        scenarios, properties = await asyncio.gather(self._scenarios(task, ctx, suite),
                                                     self._properties(task, ctx, suite))
        detail = {"scenarios": scenarios, "properties": properties}
        if not scenarios:
            suite.verdict = CodeVerdict(reason="no_scenarios", detail=detail)
            return suite
        limits = Limits.of(task)
        pairs: list[Pair] = []
        empty_run, per_scenario = 0, []
        for si, scenario in enumerate(scenarios, 1):
            try:
                valid = await self._valid_inputs(task, ctx, suite, si, scenario, properties, limits)
            except _Uncompilable as exc:
                suite.fail("execution", "compile_error", str(exc), "target")
                detail["inputs_per_scenario"] = per_scenario
                suite.verdict = CodeVerdict(correct=False, reason="compile_error", detail=detail)
                return suite
            kept = await self._deduplicate(task, ctx, suite, valid, limits) if valid else []
            per_scenario.append({"valid": len(valid), "kept": len(kept)})
            pairs += kept
            empty_run = 0 if valid else empty_run + 1
            if empty_run >= p.early_stop:
                break
        detail["inputs_per_scenario"] = per_scenario
        suite.tests = [TestCase(input=x.input, origin=f"scenario-{x.scenario}",
                                meta={"scenario": x.scenario, "output": x.output, "step": x.step,
                                      **({"lines": x.lines} if x.lines is not None else {})}) for x in pairs]
        if empty_run >= p.early_stop:
            suite.verdict = CodeVerdict(correct=False, reason="early_stop", detail=detail)
            return suite
        if not pairs:
            suite.verdict = CodeVerdict(correct=False, reason="no_valid_input", detail=detail)
            return suite
        verdicts = await asyncio.gather(*(self._judge(task, ctx, suite, i, x) for i, x in enumerate(pairs)))
        for test, v in zip(suite.tests, verdicts):
            test.meta["judgement"] = None if v is None else ("CORRECT" if v else "INCORRECT")
        judged = [v for v in verdicts if v is not None]
        if not judged:
            suite.verdict = CodeVerdict(reason="unparsed", detail=detail)
            return suite
        score = sum(judged) / len(judged)
        suite.verdict = CodeVerdict(correct=score > p.threshold, score=score, threshold=p.threshold, reason="judged",
                                    judgements=len(judged), detail=detail)
        return suite

    # ------------------------------------------------------------------ phase 1

    async def _scenarios(self, task: Task, ctx: Context, suite: TestSuite) -> list[str]:
        for attempt in range(1 + self.params.parse_retries):
            answers = await ctx.ask(suite, "trails/partitions", first_sample=attempt, item="scenarios",
                                    task=task, scenarios=self.params.scenarios)
            if answers:
                found = read_scenarios(answers[0].text, self.params.scenarios)
                if found:
                    return found
                suite.fail("parse", "no_scenarios", answers[0].text[-300:], "scenarios")
        return []

    async def _properties(self, task: Task, ctx: Context, suite: TestSuite) -> str:
        answers = await ctx.ask(suite, "trails/properties", item="properties", task=task, target=task.target)
        if not answers:
            return ""
        text = answers[0].text.strip()
        at = text.lower().rfind("properties:")
        body = text[at:] if at >= 0 and len(text) - at > 40 else text
        return shown(body, PROPERTIES_CHARS)

    async def _valid_inputs(self, task: Task, ctx: Context, suite: TestSuite, si: int, scenario: str,
                            properties: str, limits: Limits) -> list[Pair]:
        """Inputs of one scenario that the program runs cleanly, after at most
        ``budget`` generation/repair steps."""
        functional = task.entry_point is not None
        valid: list[Pair] = []
        seen: set[str] = set()
        failures: list[dict] = []
        for step in range(self.params.budget):
            item = f"scenario-{si}/step-{step}"
            if failures:
                answers = await ctx.ask(suite, "trails/repair", first_sample=step, item=item, task=task,
                                        scenario=scenario, properties=properties, failures=failures,
                                        fence=fence(*(f["input"] for f in failures)))
            else:  # the first step, or a step whose answer held no new input: ask afresh
                answers = await ctx.ask(suite, "trails/inputs", first_sample=step, item=item, task=task,
                                        scenario=scenario, properties=properties, n_inputs=self.params.n_inputs)
            if not answers:
                failures = []
                continue
            inputs, problems = read_inputs(answers[0].text, functional=functional)
            for why in problems:
                suite.fail("parse", why.split(":", 1)[0], why, item)
            asked = len(failures) if failures else self.params.n_inputs
            if len(inputs) > asked:  # more than asked for: the first ones count
                suite.fail("parse", "over_budget", f"{len(inputs)} inputs, kept the first {asked}", item)
                inputs = inputs[:asked]
            fresh = []
            for text in inputs:
                key = input_key(text, functional)
                if key not in seen:
                    seen.add(key)
                    fresh.append(text)
            failures = []
            if not fresh:
                continue
            runs = await ctx.run(task.target, fresh, limits, entry_point=task.entry_point)
            for text, ex in zip(fresh, runs):
                if ex.ok:
                    valid.append(Pair(si, text, ex.output, step))
                elif ex.verdict is Verdict.CE:
                    raise _Uncompilable(ex.detail[:2000])
                elif ex.verdict is Verdict.SE:
                    suite.fail("execution", "sandbox_error", ex.detail[:500], item)
                else:
                    failures.append({"input": shown(text), "error": describe_failure(ex, limits)})
            if not failures:
                break
        return valid

    async def _deduplicate(self, task: Task, ctx: Context, suite: TestSuite, valid: list[Pair],
                           limits: Limits) -> list[Pair]:
        """The first input of each distinct set of executed lines, at most ``max_inputs``."""
        cap = self.params.max_inputs
        if self.params.dedup == "text" or len(valid) == 1:
            return valid[:cap]
        try:
            covs = await ctx.coverage(task.target, [x.input for x in valid], limits, entry_point=task.entry_point)
        except CoverageUnavailable as exc:
            suite.fail("coverage", "unavailable", str(exc), f"scenario-{valid[0].scenario}")
            return valid[:cap]
        kept, seen = [], set()
        for x, cov in zip(valid, covs):
            if cov.measured:
                key = cov.lines
                x.lines = len(cov.lines)
            else:  # nothing to compare: the input stands on its own
                suite.fail("coverage", "not_measured", cov.detail[:300], f"scenario-{x.scenario}")
                key = ("unmeasured", x.input)
            if key in seen:
                continue
            seen.add(key)
            kept.append(x)
            if len(kept) == cap:
                break
        return kept

    # ------------------------------------------------------------------ phase 2

    async def _judge(self, task: Task, ctx: Context, suite: TestSuite, i: int, x: Pair) -> bool | None:
        inp, out = shown(x.input), shown(x.output)
        verdict, _ = await ask_verdict(ctx, suite, "trails/judge", item=f"judge-{i}", retries=self.params.parse_retries,
                                       task=task, input=inp, output=out, fence=fence(inp, out))
        return verdict
