"""HardTestGen (He et al., 2025, "HardTests: Synthesizing High-Quality Test Cases for LLM
Coding", arXiv:2505.24098): the full pipeline, named for its paper. The TC-Bench ``ht``
method is TC-Bench's reduced variant of it and stays as it is.

Setting: specification + correct code (the paper's oracle programs are human-written
accepted solutions). Facts and defaults come from the paper and the authors'
repository (LeiLiLab/HardTestGen: ``test_cases_kit_generation.py`` and
``test_cases_generation.py``, whose argument defaults are the settings below); the
prompts and the code here are our own.

1. **Checks** (``hardtestgen/checks``): shown the statement and one correct program
   (C++ first, then Python, as the reference's "most reliable solution"), the model
   writes ``validate_input(input_str) -> bool`` and decides whether the problem needs
   a special judge; if so it writes ``output_judging_function(input_str,
   candidate_output, reference_output) -> bool``. No validator: the problem gets no
   tests (the reference drops such problems).
2. **Inputs** (``hardtestgen/inputs``): shown the statement, the correct program and
   the validator, the model writes ``n_llmgen`` (10) inputs directly (LLMGen, at most
   300 characters each), either ``gen_range_based_input`` (RPGen) or one
   ``gen_stratified_input_<category>`` per output category (SPGen, for multi-category
   problems), and ``gen_hacking_input_<scenario>`` functions (HackGen) or null.
3. **Running the generators** in the sandbox, each call seeded (``call_seed``) and
   under ``attempt_time_ms``: RPGen keeps the first 20 valid inputs of at most 40
   attempts; SPGen (two or more programmed functions) and HackGen keep 10 of at most 20
   per function. An attempt that crashes, times out, returns a non-string or an input
   the validator rejects is lost; the function goes on with its next attempt.
   LLMGen inputs are validated too. Duplicates are dropped within each function.
4. **Outputs** from the correct programs (at most ``oracle_programs`` = 5, C++ first):
   each runs on every input (``oracle_time_ms`` per input); one that answers fewer than
   half of the inputs is set aside. The first output list that ``min_agreements`` (2)
   programs produce in full — compared by the model's judge when there is one, else by
   the problem's comparator — becomes the expected outputs; with a single correct
   program, its outputs. An input it did not answer is dropped. No agreement: no
   tests (the failure says which).
5. **The suite**: every test has its expected output; the oracle is the model's judge
   (a ``CHECKER_PROGRAM`` that receives the expected output as a third argument) when
   it wrote one and the problem has no output validator of its own, else the expected
   outputs compared by the problem's comparator. Tests in the reference's order:
   LLMGen, then RPGen/SPGen and HackGen function by function. A suite over
   ``max_suite_kb`` is dropped whole (the reference's size limit).

Differences from the paper (named options, docs/hardtestgen.md): the generators are
Python functions as in the authors' code; the LLM's sampling follows the authors'
defaults (temperature 0.1, 5,120 tokens); memory limits are lower than the
reference's 15 GB; ``use_task_budget`` cuts the suite to a runner's budget.
"""

from __future__ import annotations

import asyncio
from collections import Counter

from pydantic import Field

from tczoo.execution import (Generator, Limits, Verdict, check_with_checker, filter_inputs, no_sandbox_errors,
                             outputs_match, validate_inputs)
from tczoo.method import Context, Method, MethodParams
from tczoo.parsing import note_truncation
from tczoo.schema import (
    Artifact,
    GeneratorSpec,
    Language,
    Oracle,
    OracleKind,
    Program,
    Setting,
    Task,
    TestCase,
    TestSuite,
    input_key,
    interleave,
)

from tczoo.methods.hardtestgen.kit import JUDGE, VALIDATE, parse_checks, parse_inputs

# Appended to the model's judge: the kernel's checker contract with the expected output
# as third argument (tczoo.execution.oracle).
JUDGE_AS_CHECKER = f'''


def check_output(generated_input, captured_output, expected_output):
    assert expected_output is not None, "the test has no reference output to judge against"
    assert {JUDGE}(generated_input, captured_output, expected_output), "the output judge rejected the output"
'''

LANGUAGE_ORDER = {Language.CPP: 0, Language.PYTHON: 1}  # the reference's preference: cpp, python


class HardTestGenParams(MethodParams):
    temperature: float | None = Field(0.1, ge=0, description="sampling temperature (the authors' default 0.1)")
    max_tokens: int | None = Field(5120, ge=1, description="most tokens per answer (the authors' default 5,120)")
    llmgen_inputs: int = Field(10, ge=0, description="LLMGen: inputs the model writes directly")
    llmgen_max_chars: int = Field(300, ge=1, description="LLMGen: longest input the prompt allows (characters)")
    rpgen_inputs: int = Field(20, ge=0, description="RPGen: valid inputs kept from gen_range_based_input")
    rpgen_attempts: int = Field(40, ge=0, description="RPGen: most calls of gen_range_based_input")
    spgen_inputs: int = Field(10, ge=0, description="SPGen: valid inputs kept per gen_stratified_input_* function")
    spgen_attempts: int = Field(20, ge=0, description="SPGen: most calls per gen_stratified_input_* function")
    hackgen_inputs: int = Field(10, ge=0, description="HackGen: valid inputs kept per gen_hacking_input_* function")
    hackgen_attempts: int = Field(20, ge=0, description="HackGen: most calls per gen_hacking_input_* function")
    attempt_time_ms: int = Field(5000, ge=100, description="CPU time of one generator call (the reference: 5 s)")
    generator_memory_mb: int = Field(2048, ge=64, description="memory of a generator call (the reference: 15 GB)")
    apply_validator: bool = Field(True, description="drop every input the model's validator rejects")
    validator_time_ms: int = Field(5000, ge=100, description="CPU time of the validator on one input")
    oracle_programs: int = Field(5, ge=1, description="most correct programs run to make outputs")
    min_agreements: int = Field(2, ge=1, description="correct programs that must produce the same outputs")
    inconsistent_tolerance: float = Field(0.0, ge=0, description="outputs two programs may disagree on and still "
                                          "agree (a count; a fraction of the inputs when below 1); disagreeing "
                                          "tests are dropped")
    min_answered_share: float = Field(0.5, ge=0, le=1, description="a correct program answering fewer inputs "
                                      "than this share is set aside")
    oracle_time_ms: int = Field(5000, ge=100, description="CPU time of a correct program on one input")
    oracle_memory_mb: int = Field(4096, ge=64, description="memory of a correct program (the reference: 15 GB)")
    judge_time_ms: int = Field(5000, ge=100, description="CPU time of the output judge on one output")
    max_input_kb: int = Field(102400, ge=1, description="largest input a generator may return (the reference: 100 MB)")
    max_output_kb: int = Field(102400, ge=1, description="largest output of a correct program (the reference: 100 MB)")
    max_suite_kb: int = Field(512000, ge=1, description="a suite larger than this is dropped (the reference: 500 MB)")
    use_task_budget: bool = Field(False, description="ours: keep at most the runner's budget of tests, round-robin "
                                  "over the kinds (the paper keeps every test)")


class HardTestGen(Method):
    name = "hardtestgen"
    paper = "HardTests (He et al., 2025, arXiv:2505.24098)"
    summary = ("validator + output judge; LLMGen, RPGen/SPGen and HackGen inputs; outputs where correct "
               "programs agree")
    setting = Setting.SPEC_CORRECT
    produces = OracleKind.EXPECTED_OUTPUT
    runner = "agreement"
    Params = HardTestGenParams

    async def generate(self, task: Task, ctx: Context) -> TestSuite:
        suite = ctx.new_suite(task)
        if task.entry_point is not None:
            suite.fail("setup", "functional_problem", "HardTestGen makes stdin tests; this problem is call-based")
            return suite
        oracle = sorted(task.correct_programs, key=lambda p: LANGUAGE_ORDER.get(p.language, 9))[0]
        validator, judge = await self._checks(task, ctx, suite, oracle)
        if validator is None:
            suite.fail("validator", "no_input_validator", "no usable validate_input: the problem gets no tests "
                                                          "(the reference drops it)")
            return suite
        kinds = await self._inputs(task, ctx, suite, oracle, validator)
        if not any(kinds.values()):
            suite.fail("inputs", "no_valid_input", "no input survived generation and validation")
            return suite
        own_judge = judge if task.output_validator is None else None
        tests = await self._outputs(task, ctx, suite, [t for group in kinds.values() for t in group], own_judge)
        if not tests:
            return suite
        size = sum(len(t.input.encode(errors="surrogatepass")) + len((t.output or "").encode(errors="surrogatepass"))
                   for t in tests)
        if size > self.params.max_suite_kb * 1024:
            suite.fail("suite", "suite_too_large", f"{size // 1024} KB > {self.params.max_suite_kb} KB: dropped whole "
                                                   "(the reference's limit)")
            return suite
        if self.params.use_task_budget:
            by_kind: dict[str, list[TestCase]] = {}
            for t in tests:
                by_kind.setdefault(t.origin, []).append(t)
            tests = interleave(list(by_kind.values()), task.budget)
        suite.tests = tests
        if own_judge is not None:
            suite.oracle = Oracle(kind=OracleKind.CHECKER_PROGRAM, program=Program(
                code=own_judge + JUDGE_AS_CHECKER, language=Language.PYTHON, name="output-judge"))
        return suite

    # ------------------------------------------------------------------ the checks

    async def _checks(self, task: Task, ctx: Context, suite: TestSuite, oracle: Program) -> tuple[str | None, str | None]:
        """The validator and the judge (None when the problem needs none or the model
        wrote none it could use); both are tried on the samples, and what fails there is
        recorded (the reference does not check them; it is kept as data)."""
        answers = await ctx.ask(suite, "hardtestgen/checks", task=task, oracle=oracle, item="checks")
        if not answers:
            return None, None
        text = answers[0].text
        note_truncation(suite, text, "checks")
        checks = parse_checks(text)
        for reason, detail in checks.problems:
            suite.fail("parse", reason, detail, "checks")
        if checks.validator is not None:
            suite.artifacts.append(Artifact(role="validator", program=Program(
                code=checks.validator, language=Language.PYTHON, name=VALIDATE)))
            await self._try_validator(task, ctx, suite, checks.validator)
        judge = checks.judge
        if judge is not None:
            suite.artifacts.append(Artifact(role="output_judge", program=Program(
                code=judge, language=Language.PYTHON, name=JUDGE)))
            await self._try_judge(task, ctx, suite, judge)
        return checks.validator, judge

    async def _try_validator(self, task: Task, ctx: Context, suite: TestSuite, validator: str) -> None:
        samples = [s.input for s in task.samples]
        checks = await asyncio.to_thread(validate_inputs, ctx.sandbox, validator, samples,
                                         time_ms=self.params.validator_time_ms)
        no_sandbox_errors(checks, "the input validator")
        bad = [(k, c) for k, c in enumerate(checks, 1) if not c.ok]
        if bad:
            k, c = bad[0]
            suite.artifacts[-1].ok = False
            suite.artifacts[-1].note = f"rejects {len(bad)} of {len(samples)} samples"
            suite.fail("validator", "validator_rejects_samples",
                       f"{len(bad)} of {len(samples)} samples; sample {k}: {c.kind}: {c.detail[:300]}", VALIDATE)

    async def _try_judge(self, task: Task, ctx: Context, suite: TestSuite, judge: str) -> None:
        cases = [(s.input, s.output) for s in task.samples]
        if not cases:
            return
        checks = await asyncio.to_thread(
            check_with_checker, ctx.sandbox, judge + JUDGE_AS_CHECKER, cases, functional=False,
            time_ms=self.params.judge_time_ms, expected=[out for _, out in cases])
        bad = [(k, c) for k, c in enumerate(checks, 1) if not c.ok]
        if bad:
            k, c = bad[0]
            suite.artifacts[-1].ok = False
            suite.artifacts[-1].note = f"rejects the expected output of {len(bad)} of {len(cases)} samples"
            suite.fail("judge", "judge_rejects_samples",
                       f"{len(bad)} of {len(cases)} samples; sample {k}: {c.kind}: {c.detail[:300]}", JUDGE)

    # ------------------------------------------------------------------ the inputs

    async def _inputs(self, task: Task, ctx: Context, suite: TestSuite, oracle: Program,
                      validator: str) -> dict[str, list[TestCase]]:
        """The valid inputs of each kind, in the reference's order."""
        p = self.params
        kinds: dict[str, list[TestCase]] = {"llmgen": [], "programmed": [], "hackgen": []}
        answers = await ctx.ask(suite, "hardtestgen/inputs", task=task, oracle=oracle, validator=validator,
                                n_llmgen=p.llmgen_inputs, max_chars=p.llmgen_max_chars, item="inputs")
        if not answers:
            return kinds
        text = answers[0].text
        note_truncation(suite, text, "inputs")
        kit = parse_inputs(text)
        for reason, detail, item in kit.problems:
            suite.fail("parse", reason, detail, item)
        llmgen = [TestCase(input=s, origin="hardtestgen:llmgen") for s in kit.llmgen[: p.llmgen_inputs]]
        kinds["llmgen"] = _unique(await self._validate(ctx, suite, validator, llmgen, "llmgen"))
        if kit.programmed:
            stratified = kit.stratified
            want, attempts = (p.spgen_inputs, p.spgen_attempts) if stratified else (p.rpgen_inputs, p.rpgen_attempts)
            origin = "hardtestgen:spgen" if stratified else "hardtestgen:rpgen"
            kinds["programmed"] = await self._run(task, ctx, suite, validator, kit.programmed,
                                                  kit.programmed_functions, want, attempts, origin)
        if kit.hacking:
            kinds["hackgen"] = await self._run(task, ctx, suite, validator, kit.hacking, kit.hacking_functions,
                                               p.hackgen_inputs, p.hackgen_attempts, "hardtestgen:hackgen")
        return kinds

    async def _run(self, task: Task, ctx: Context, suite: TestSuite, validator: str, code: str,
                   functions: list[str], want: int, attempts: int, origin: str) -> list[TestCase]:
        """Each function's first ``want`` valid inputs of at most ``attempts`` calls,
        duplicates dropped, function by function. Calls run in two waves (``want``
        calls, then the rest when too few were valid), which keeps the same inputs a
        one-call-at-a-time loop would keep: call i always has seed ``call_seed(seed,
        function, i)``."""
        p = self.params
        valid: dict[str, list[tuple[int, TestCase]]] = {fn: [] for fn in functions}
        made = {fn: 0 for fn in functions}
        lost: dict[str, Counter] = {fn: Counter() for fn in functions}
        example: dict[tuple[str, str], str] = {}
        for wave in range(2):
            gens: list[tuple[Generator, int]] = []
            for fn in functions:
                left = attempts - made[fn]
                n = min(want, left) if wave == 0 else (left if len(valid[fn]) < want else 0)
                gens += [(Generator(name=fn, code=code, function=fn, origin=origin, calls=i), i)
                         for i in range(made[fn], made[fn] + n)]
                made[fn] += n
            if not gens:
                break
            await ctx.run_generators([g for g, _ in gens], seed=task.seed, per_generator=1, rounds=1,
                               time_ms=p.attempt_time_ms, memory_mb=p.generator_memory_mb,
                               max_input_kb=p.max_input_kb, strings_only=True, dedupe=False)
            made_now = []
            for g, i in gens:
                for f in g.failures:
                    lost[g.function][f.reason] += 1
                    example.setdefault((g.function, f.reason), f.detail)
                for t in g.tests:
                    made_now.append((i, t.model_copy(update={"meta": {"function": g.function, "attempt": i}})))
            kept = await self._validate(ctx, suite, validator, [t for _, t in made_now], None, lost, example)
            kept_ids = {id(t) for t in kept}
            for i, t in made_now:
                if id(t) in kept_ids:
                    valid[t.meta["function"]].append((i, t))
        out: list[TestCase] = []
        for fn in functions:
            tests = _unique([t for _, t in sorted(valid[fn], key=lambda x: x[0])][:want])
            for reason, count in sorted(lost[fn].items()):
                suite.fail("generator" if reason != "invalid_input" else "validator", reason,
                           f"{count} of {made[fn]} calls; e.g. {example.get((fn, reason), '')[:600]}", fn)
            suite.artifacts.append(Artifact(
                role="generator", program=Program(code=code, language=Language.PYTHON, name=fn, meta={"function": fn}),
                ok=len(tests) > 0, note=f"{len(tests)} valid inputs from {made[fn]} calls",
                generator=GeneratorSpec(functions=[fn], returns="one", seed=task.seed, calls={fn: made[fn]},
                                        strings_only=True, time_ms=p.attempt_time_ms,
                                        memory_mb=p.generator_memory_mb)))
            out += tests
        return out

    async def _validate(self, ctx: Context, suite: TestSuite, validator: str, tests: list[TestCase],
                        item: str | None, lost: dict[str, Counter] | None = None,
                        example: dict | None = None) -> list[TestCase]:
        """The tests the validator accepts. Rejections are counted per generator function
        (``lost``) or recorded one by one (LLMGen, ``item``)."""
        if not self.params.apply_validator or not tests:
            return list(tests)
        kept, rejected = await asyncio.to_thread(filter_inputs, ctx.sandbox, validator, [t.input for t in tests],
                                                 time_ms=self.params.validator_time_ms)
        for r in rejected:
            t = tests[r.index]
            if lost is not None:
                fn = t.meta.get("function", "")
                lost[fn][r.reason] += 1
                example.setdefault((fn, r.reason), r.detail)
            else:
                suite.fail("validator", r.reason, r.detail, item or t.origin)
        return [tests[i] for i in kept]

    # ------------------------------------------------------------------ the outputs

    async def _outputs(self, task: Task, ctx: Context, suite: TestSuite, tests: list[TestCase],
                       judge: str | None) -> list[TestCase]:
        """The tests with the outputs the correct programs agree on (see the module
        docstring); empty when they do not agree."""
        p = self.params
        programs = sorted(task.correct_programs, key=lambda q: LANGUAGE_ORDER.get(q.language, 9))[: p.oracle_programs]
        need = min(p.min_agreements, len(programs))
        limits = Limits(time_ms=p.oracle_time_ms, memory_mb=p.oracle_memory_mb, output_kb=p.max_output_kb)
        inputs = [t.input for t in tests]
        history: list[tuple[str, list[str | None]]] = []
        accepted: list[str | None] | None = None
        for k, program in enumerate(programs):
            label = program.name or f"correct-{k}"
            runs = await ctx.run(program, inputs, limits)
            if runs and runs[0].verdict is Verdict.CE:
                suite.fail("oracle", "compile_error", f"{label}: {runs[0].detail[:600]}", label)
                continue
            outs = [r.output if r.ok else None for r in runs]
            failed = Counter(r.verdict.value for r in runs if not r.ok)
            if failed:
                suite.fail("oracle", "correct_code_failed", f"{label}: no output on {sum(failed.values())} of "
                           f"{len(inputs)} inputs ({dict(failed)})", label)
            answered = sum(o is not None for o in outs)
            if answered < p.min_answered_share * len(inputs):
                suite.fail("oracle", "too_few_outputs", f"{label} answered {answered} of {len(inputs)} inputs: "
                           "set aside", label)
                continue
            if need <= 1:
                accepted = outs
                break
            agreements, current = 1, list(outs)
            for other, theirs in history:
                same = await self._same(task, ctx, judge, inputs, theirs, outs)
                bad = same.count(False)
                tolerance = int(p.inconsistent_tolerance * len(inputs)) if 0 < p.inconsistent_tolerance < 1 \
                    else int(p.inconsistent_tolerance)
                if bad <= tolerance:
                    agreements += 1
                    current = [o if ok else None for o, ok in zip(current, same)]
                else:
                    suite.fail("oracle", "outputs_disagree", f"{label} and {other} differ on {bad} of "
                               f"{len(inputs)} inputs", label)
                if agreements >= need:
                    accepted = current
                    break
            if accepted is not None:
                break
            history.append((label, outs))
        if accepted is None:
            reason = "too_few_oracles" if len(history) < need else "oracles_disagree"
            suite.fail("oracle", reason, f"no {need} of the {len(programs)} correct programs tried produced the "
                                         "same outputs: no tests (the reference gives up here)")
            return []
        kept = [t.model_copy(update={"output": out}) for t, out in zip(tests, accepted) if out is not None]
        if len(kept) < len(tests):
            suite.fail("oracle", "no_agreed_output", f"{len(tests) - len(kept)} of {len(tests)} inputs dropped")
        return kept

    async def _same(self, task: Task, ctx: Context, judge: str | None, inputs: list[str],
                    candidate: list[str | None], reference: list[str | None]) -> list[bool]:
        """Whether each candidate output is right where ``reference`` is: the model's judge
        when there is one, else the problem's comparator (or output validator). A missing
        output on either side is a disagreement."""
        both = [k for k, (c, r) in enumerate(zip(candidate, reference)) if c is not None and r is not None]
        same = [False] * len(inputs)
        if not both:
            return same
        if judge is not None:
            checks = await asyncio.to_thread(
                check_with_checker, ctx.sandbox, judge + JUDGE_AS_CHECKER, [(inputs[k], candidate[k]) for k in both],
                functional=False, time_ms=self.params.judge_time_ms, expected=[reference[k] for k in both])
            no_sandbox_errors(checks, "the output judge")  # never a disagreement of the programs
            verdicts = [c.ok for c in checks]
        else:
            verdicts = await asyncio.to_thread(
                outputs_match, ctx.sandbox, [(inputs[k], candidate[k], reference[k]) for k in both],
                comparator=task.checker, validator=task.output_validator)
        for k, ok in zip(both, verdicts):
            same[k] = ok is True
        return same


def _unique(tests: list[TestCase]) -> list[TestCase]:
    seen: set[str] = set()
    out = []
    for t in tests:
        key = input_key(t.input)
        if key not in seen:
            seen.add(key)
            out.append(t)
    return out
