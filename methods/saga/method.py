"""SAGA (Ma et al., 2025, "Rethinking Verification for LLM Code Generation: From
Generation to Testing", arXiv:2507.06920): human-LLM collaborative test generation —
tests engineered from what correct human solutions reveal (multidimensional analysis)
and from where wrong human submissions part ways with their corrected versions
(differential analysis). Its own scores, detection rate (DR) and verifier accuracy
(VAcc), come from the ``agreement`` runner.

Setting: specification + correct code + part of the wrong submissions, each with a
corrected version (``Setting.SPEC_CORRECT_WRONG``). Which wrong submissions a task
shows is the kernel's split (``tczoo.schema.shown_wrong``: half of them, fixed by
hash). The paper's DR and VAcc are over every incorrect submission of a problem, the
ones its differential analysis read included, so the agreement runner judges SAGA's
suites on all of them by default (``judges_shown``); its ``judged: held_out`` option
leaves every program the task showed out (ours: fewer wrong submissions, an easier
VAcc — docs/saga.md). Benchmarks rarely keep a submitter's own later accepted
submission, so the corrected version is the accepted solution closest to the wrong one
(``tczoo.schema.fix_for``).

1. **Multidimensional analysis** (``saga/multidim``, ``multidim_answers`` answers):
   shown one correct solution (C++ first), the model derives the constraints the code
   relies on (explicit, implicit, engineering), the defensive code that guards them,
   and writes boundary tests: ``validate_input`` plus ``gen_case_<k>()`` functions,
   each one input, its docstring naming its target.
2. **Differential analysis** (``saga/differential``, one answer per pair, at most
   ``differential_pairs``): shown a wrong submission and its corrected version, the
   model lines up their constraints and defences and writes tests on which the wrong
   one fails, in the same format.
3. Each ``gen_case`` function is called ``calls_per_case`` times in the sandbox (seeded,
   ``case_time_ms``); every input must pass its own answer's ``validate_input`` (a
   tuple answer is read by its first element, as SAGA's driver does); duplicates across
   the suite are dropped.
4. Outputs come from the correct solution (the problem's time limit times
   ``oracle_time_factor``); an input it cannot answer is dropped. A differential test
   records whether it exposes the wrong submission it was written against
   (``meta["exposes"]``).

The prompts are our own; the repository open-compass/SAGA publishes its two prompt
templates, whose structure (three analysis phases, a validation function, one
generator function per test) we follow. What the paper leaves unsaid is a named
option (docs/saga.md).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from pydantic import Field

from tczoo.execution import (Generator, Limits, filter_inputs, no_sandbox_errors, outputs_match, run_program,
                             validate_inputs)
from tczoo.method import Context, Method, MethodParams
from tczoo.parsing import note_truncation
from tczoo.schema import (
    Artifact,
    GeneratorSpec,
    Language,
    OracleKind,
    Program,
    Setting,
    Task,
    TestCase,
    TestSuite,
    WrongPair,
    interleave,
)

from tczoo.methods.saga.answer import VALIDATE, Answer, parse_answer

LANGUAGE_ORDER = {Language.CPP: 0, Language.PYTHON: 1}


class SagaParams(MethodParams):
    multidim_answers: int = Field(1, ge=0, description="answers of the multidimensional prompt (one analysis each)")
    differential_pairs: int = Field(3, ge=0, description="wrong/corrected pairs analysed, one answer each, of the "
                                    "pairs the task shows")
    calls_per_case: int = Field(1, ge=1, description="inputs asked of each gen_case function (distinct seeds)")
    require_validator: bool = Field(True, description="drop the tests of an answer without a usable validate_input")
    case_time_ms: int = Field(8000, ge=100, description="CPU time of one gen_case call (SAGA's driver: 8 s)")
    generator_memory_mb: int = Field(1024, ge=64, description="memory of a gen_case call")
    validator_time_ms: int = Field(8000, ge=100, description="CPU time of validate_input on one input "
                                   "(SAGA's driver: 8 s)")
    max_input_kb: int = Field(8192, ge=1, description="largest input a gen_case function may return")
    oracle_time_factor: float = Field(2.0, gt=0, description="the correct solution's time limit = the problem's x this")
    keep_only_exposing: bool = Field(False, description="ours: keep a differential test only when it exposes the "
                                     "wrong submission it was written against")
    use_task_budget: bool = Field(False, description="ours: keep at most the runner's budget of tests, round-robin "
                                  "over the answers")


@dataclass
class Source:
    label: str  # "multidim-0", "differential-2"
    analysis: str  # "multidim" or "differential"
    pair: WrongPair | None = None
    index: int = 0


class Saga(Method):
    name = "saga"
    paper = "SAGA (Ma et al., 2025, arXiv:2507.06920)"
    summary = ("multidimensional analysis of correct code + differential analysis of wrong/corrected pairs; "
               "outputs from the correct code")
    setting = Setting.SPEC_CORRECT_WRONG
    produces = OracleKind.EXPECTED_OUTPUT
    runner = "agreement"
    judges_shown = True  # SAGA's DR/VAcc are over every incorrect submission, the analysed ones included
    Params = SagaParams

    async def generate(self, task: Task, ctx: Context) -> TestSuite:
        p = self.params
        suite = ctx.new_suite(task)
        if task.entry_point is not None:
            suite.fail("setup", "functional_problem", "SAGA makes stdin tests; this problem is call-based")
            return suite
        correct = sorted(task.correct_programs, key=lambda q: LANGUAGE_ORDER.get(q.language, 9))[0]
        sources = [Source(f"multidim-{i}", "multidim", index=i) for i in range(p.multidim_answers)]
        pairs = [pair for pair in task.wrong_pairs if pair.fixed is not None][: p.differential_pairs]
        if not task.wrong_pairs:
            suite.fail("setup", "no_wrong_submissions", "the task shows no wrong submission: "
                                                        "multidimensional analysis only")
        sources += [Source(f"differential-{k}", "differential", pair=pair, index=k) for k, pair in enumerate(pairs)]
        answers = await asyncio.gather(*(self._ask(task, ctx, suite, correct, s) for s in sources))
        groups: list[list[TestCase]] = []
        seen: set[str] = set()
        for source, answer in zip(sources, answers):
            if answer is None:
                continue
            groups.append(await self._tests(task, ctx, suite, source, answer, seen))
        tests = [t for g in groups for t in g]
        if not tests:
            suite.fail("inputs", "no_valid_input", "no input survived generation and validation")
            return suite
        tests = await self._outputs(task, ctx, suite, correct, tests)
        tests = await self._exposes(task, ctx, suite, tests, {s.label: s for s in sources})
        if p.use_task_budget:
            by_answer: dict[str, list[TestCase]] = {}
            for t in tests:
                by_answer.setdefault(t.meta["answer"], []).append(t)
            tests = interleave(list(by_answer.values()), task.budget)
        suite.tests = tests
        return suite

    async def _ask(self, task: Task, ctx: Context, suite: TestSuite, correct: Program, source: Source) -> Answer | None:
        if source.analysis == "multidim":
            got = await ctx.ask(suite, "saga/multidim", task=task, correct=correct, first_sample=source.index,
                                item=source.label)
        else:
            # first_sample=0: two sources with the same (wrong, fixed) pair share one analysis
            got = await ctx.ask(suite, "saga/differential", task=task, wrong=source.pair.wrong,
                                fixed=source.pair.fixed, item=source.label, first_sample=0)
        if not got:
            return None
        note_truncation(suite, got[0].text, source.label)
        answer = parse_answer(got[0].text)
        for reason, detail in answer.problems:
            suite.fail("parse", reason, detail, source.label)
        return answer

    async def _tests(self, task: Task, ctx: Context, suite: TestSuite, source: Source, answer: Answer,
                     seen: set[str]) -> list[TestCase]:
        """The valid inputs of one answer, in the order of its gen_case functions."""
        p = self.params
        if answer.code is None or not answer.cases:
            return []
        if not answer.validator and p.require_validator:
            suite.fail("validator", "no_input_validator", "its tests are dropped: nothing checked them",
                       source.label)
            return []
        gens = [Generator(name=f"{source.label}:{c.function}", code=answer.code, function=c.function,
                          origin=f"saga:{source.analysis}") for c in answer.cases]
        await ctx.run_generators(gens, seed=task.seed, per_generator=p.calls_per_case, rounds=1, time_ms=p.case_time_ms,
                           memory_mb=p.generator_memory_mb, max_input_kb=p.max_input_kb, strings_only=True,
                           seen=seen)
        for g in gens:
            suite.provenance.failures.extend(g.failures)
        made = [t.model_copy(update={"meta": {"analysis": source.analysis, "answer": source.label,
                                              "function": c.function, "target": c.target,
                                              **({"pair": source.index} if source.pair else {})}})
                for g, c in zip(gens, answer.cases) for t in g.tests]
        artifact = Artifact(role="generator", program=Program(code=answer.code, language=Language.PYTHON,
                                                              name=source.label),
                            note=f"{len(answer.cases)} gen_case functions, {len(made)} inputs",
                            generator=GeneratorSpec(functions=[c.function for c in answer.cases],
                                                    names={g.function: g.name for g in gens}, seed=task.seed,
                                                    calls={g.function: g.calls for g in gens}, strings_only=True,
                                                    time_ms=p.case_time_ms, memory_mb=p.generator_memory_mb))
        suite.artifacts.append(artifact)
        if not answer.validator:
            suite.fail("validator", "validator_unusable", "its tests go on unvalidated", source.label)
            return made
        await self._try_validator(task, ctx, suite, source, answer.code)
        kept, rejected = await asyncio.to_thread(filter_inputs, ctx.sandbox, answer.code, [t.input for t in made],
                                                 time_ms=p.validator_time_ms)
        for r in rejected:
            suite.fail("validator", r.reason, r.detail, f"{source.label}:{made[r.index].meta['function']}")
        artifact.note += f", {len(kept)} valid"
        return [made[i] for i in kept]

    async def _try_validator(self, task: Task, ctx: Context, suite: TestSuite, source: Source, code: str) -> None:
        samples = [s.input for s in task.samples]
        checks = await asyncio.to_thread(validate_inputs, ctx.sandbox, code, samples,
                                         time_ms=self.params.validator_time_ms)
        no_sandbox_errors(checks, "the input validator")
        bad = [(k, c) for k, c in enumerate(checks, 1) if not c.ok]
        if bad:
            k, c = bad[0]
            suite.fail("validator", "validator_rejects_samples",
                       f"{len(bad)} of {len(samples)} samples; sample {k}: {c.detail.splitlines()[0][:300]}",
                       f"{source.label}:{VALIDATE}")

    async def _outputs(self, task: Task, ctx: Context, suite: TestSuite, correct: Program,
                       tests: list[TestCase]) -> list[TestCase]:
        limits = Limits(time_ms=max(1, int(task.time_limit_ms * self.params.oracle_time_factor)),
                        memory_mb=task.memory_limit_mb)
        runs = await ctx.run(correct, [t.input for t in tests], limits)
        no_sandbox_errors(runs, "the correct program")  # a sandbox failure is not the program's verdict
        kept = []
        for t, r in zip(tests, runs):
            if r.ok:
                kept.append(t.model_copy(update={"output": r.output}))
            else:
                suite.fail("oracle", f"correct_code_{r.verdict.value.lower()}",
                           f"{correct.name or 'correct'}: dropped: {r.detail[-300:]}",
                           f"{t.meta['answer']}:{t.meta['function']}")
        return kept

    async def _exposes(self, task: Task, ctx: Context, suite: TestSuite, tests: list[TestCase],
                       sources: dict[str, Source]) -> list[TestCase]:
        """Mark each differential test with whether the wrong submission it targets
        fails it (under the problem's limits, judged by the problem's comparator):
        True, False, or None when the sandbox could not tell."""
        limits = Limits.of(task)
        out = list(tests)
        by_pair: dict[str, list[int]] = {}
        for k, t in enumerate(tests):
            if t.meta["analysis"] == "differential":
                by_pair.setdefault(t.meta["answer"], []).append(k)
        for label, indices in by_pair.items():
            wrong = sources[label].pair.wrong
            runs = await asyncio.to_thread(run_program, ctx.sandbox, wrong, [tests[k].input for k in indices],
                                           limits=limits)
            clean = [(k, r) for k, r in zip(indices, runs) if r.ok]
            same = await asyncio.to_thread(outputs_match, ctx.sandbox,
                                           [(tests[k].input, r.output, tests[k].output) for k, r in clean],
                                           comparator=task.checker, validator=task.output_validator)
            verdict = {k: (None if r.verdict.value == "SE" else True) for k, r in zip(indices, runs) if not r.ok}
            verdict.update({k: (None if ok is None else not ok) for (k, _), ok in zip(clean, same)})
            for k in indices:
                out[k] = out[k].model_copy(update={"meta": {**out[k].meta, "exposes": verdict[k]}})
        if self.params.keep_only_exposing:
            dropped = [t for t in out if t.meta.get("exposes") is False]
            if dropped:
                suite.fail("inputs", "does_not_expose", f"{len(dropped)} differential tests dropped "
                                                        "(keep_only_exposing)")
            out = [t for t in out if t.meta.get("exposes") is not False]
        return out
