"""WEDGE (Yang, Wang, Stoica and Pei, NeurIPS 2025, arXiv:2505.23471), the
reference-based baseline of STAB's Table 4 (arXiv:2605.27981 §5.4, Appendix E).

Setting: specification + a reference implementation (the efficiency runner gives one
C++ accepted solution that passes every original test). Per problem:

1. **validator**: the model writes ``validate_input(text)``; it must accept every seed
   input (the task's samples) and reject the empty input, else it is repaired with the
   failures (``validator_tries``). No validator, no tests (WEDGE skips such problems).
2. **contrastive profiling** (:mod:`.profile`): the reference runs on the seeds with line
   hit counts; the slow/fast pair WEDGE would mine from them, or the note that there is none.
3. **conditions**: the model states performance-characterising conditions from the
   profile (``wedge/invariants``), then inserts them as ``perf_condition(ID, COND)``
   checks into a copy of the reference (``wedge/instrument``, :mod:`.conditions`). The
   copy must compile and print what the reference prints on every seed, else it is
   repaired (``instrument_tries``); failing that, the plain reference is fuzzed.
4. **mutator**: the model writes ``mutate_input(text)`` from the conditions, the hit
   counts and STAB's parsed constraints with their resolved boundary; a probe in the
   sandbox must see it produce new inputs, else it is repaired (``mutator_tries``).
5. **fuzzing** for ``fuzz_seconds``: AFL++ with the mutator as its custom mutator
   (:mod:`.afl`), or the pure-Python loop (:mod:`.loop`) where AFL++ cannot run.
6. **tests**: the candidates (valid by the model's validator) run on the reference
   under the problem's limits; the ``task.budget`` slowest become the tests
   (``OracleKind.INPUTS_ONLY``), scored by the efficiency runner like every other method.

Every program involved runs in the tczoo sandbox. Differences from WEDGE, and why:
``docs/wedge.md``.
"""

from __future__ import annotations

import asyncio
from typing import Literal

from pydantic import Field

from tczoo.execution import Limits, input_key, outputs_match, with_prelude
from tczoo.method import Context, Method, MethodParams
from tczoo.methods.stab.constraints import parse_constraints
from tczoo.methods.stab.inputs import InputChecker, checker_for
from tczoo.methods.stab.saturator import saturate
from tczoo.parsing import ParseError, extract_code, function_from
from tczoo.schema import Artifact, Language, OracleKind, Program, Setting, Task, TestCase, TestSuite

from . import afl
from .afl import Campaign, Candidate
from .conditions import condition_ids, instrument
from .conditions import supported as conditions_supported
from .harness import BATCH_FAILED, mutate_many, validate_many
from .loop import run_loop
from .profile import profile

AFL_MAX_INPUT_KB = 1024  # AFL++ 4.04 hands a custom mutator at most 1 MB (MAX_FILE)


class WedgeParams(MethodParams):
    # STAB samples every compared generator as its Appendix A says (WEDGE's scripts: 0.8).
    temperature: float | None = Field(1.0, ge=0, description="sampling temperature (STAB Appendix A)")
    top_p: float | None = Field(0.95, gt=0, le=1, description="nucleus sampling mass (STAB Appendix A)")
    max_tokens: int | None = Field(4096, ge=1, description="most tokens per answer (STAB Appendix A)")
    fuzz_seconds: int = Field(60, ge=1, description="fuzzing budget per problem, wall-clock seconds",
                              json_schema_extra={"paper": 3600})
    fuzzer: Literal["auto", "afl", "loop"] = Field(
        "auto", description="auto: AFL++ for a C/C++ reference when installed, else the pure-Python loop")
    seeds: int = Field(5, ge=1, description="sample inputs used as profiling inputs and fuzzing seeds (WEDGE: 5)")
    validator_tries: int = Field(5, ge=1, description="validator answers, the first plus repairs (WEDGE: 5)")
    repair_from: Literal["best", "last"] = Field(
        "best", description="a validator repair starts from the answer that accepted the most samples so far "
                            "(best), or from the last answer", json_schema_extra={"paper": "— (not said; ours)"})
    instrument_tries: int = Field(2, ge=1, description="instrumented copies, the first plus repairs",
                                  json_schema_extra={"paper": "— (not checked; ours)"})
    mutator_tries: int = Field(10, ge=1, description="mutator answers, the first plus repairs (WEDGE: 10)")
    contrast_ratio: float = Field(1.2, ge=1.0, description="slow/fast cost ratio of a contrast pair (WEDGE: 1.2)")
    min_similarity: float = Field(0.1, ge=0.0, description="least content similarity of a contrast pair (WEDGE: 0.1)")
    candidates: int = Field(16, ge=1, description="fuzzer finds timed on the reference to pick the tests",
                            json_schema_extra={"paper": "— (ours)"})
    max_input_kb: int = Field(AFL_MAX_INPUT_KB, ge=1, description="largest input (AFL++ caps it at 1024)")
    exec_timeout_factor: float = Field(2.0, gt=0, description="fuzzer's per-run timeout, x the time limit",
                                       json_schema_extra={"paper": "20 s"})
    afl_custom_only: bool = Field(True, description="AFL_CUSTOM_MUTATOR_ONLY: only the model's mutator (WEDGE)")
    afl_trim: bool = Field(False, description="AFL++ trims queue entries",
                           json_schema_extra={"paper": "true (AFL++'s default)"})
    triage_seconds: int = Field(30, ge=1, description="time to validate and time the AFL++ queue (s)",
                                json_schema_extra={"paper": "— (ours)"})
    loop_batch: int = Field(8, ge=1, description="pure-Python loop: children per round")
    loop_coverage: bool = Field(True, description="pure-Python loop: line coverage as a reward")
    mutator_probes: int = Field(8, ge=1, description="mutate_input calls that test a mutator",
                                json_schema_extra={"paper": "— (ours)"})
    validate_ms: int = Field(2000, ge=100, description="CPU per validate_input call")
    mutate_ms: int = Field(2000, ge=100, description="CPU per mutate_input call")
    check_inputs: bool = Field(False, description="drop tests that break STAB's parsed constraints "
                                                  "(default: keep them, flagged)",
                               json_schema_extra={"paper": "— (ours)"})


class Wedge(Method):
    name = "wedge"
    paper = "WEDGE (Yang et al., NeurIPS 2025, arXiv:2505.23471), baseline in STAB (arXiv:2605.27981) §5.4"
    summary = "profile-mined performance conditions in the reference, then coverage-guided fuzzing for slow inputs"
    setting = Setting.SPEC_CORRECT
    produces = OracleKind.INPUTS_ONLY
    runner = "efficiency"
    Params = WedgeParams

    async def generate(self, task: Task, ctx: Context) -> TestSuite:
        suite = ctx.new_suite(task)
        if task.entry_point:
            suite.fail("method", "functional_problem", "WEDGE fuzzes stdin programs; this problem is call-based")
            return suite
        reference = task.correct_programs[0]
        limits = Limits(time_ms=task.time_limit_ms, memory_mb=task.memory_limit_mb)
        seeds = list(dict.fromkeys(s.input for s in task.samples if s.input.strip()))[:self.params.seeds]
        runs = await ctx.run(reference, seeds, limits) if seeds else []
        outputs = {s: r.output for s, r in zip(seeds, runs) if r.ok}
        if len(outputs) < len(seeds):
            bad = next(r for r in runs if not r.ok)
            suite.fail("profile", "reference_fails_on_sample", f"{bad.verdict.value}: {bad.detail[-500:]}")
        seeds = [s for s in seeds if s in outputs]
        if not seeds:
            suite.fail("profile", "no_seed_inputs", "no sample input the reference runs cleanly on")
            return suite

        validator = await self._validator(task, seeds, ctx, suite)
        if validator is None:
            return suite
        prof = await profile(ctx, reference, seeds, limits, ratio=self.params.contrast_ratio,
                             min_similarity=self.params.min_similarity)
        if prof.coverage_note:
            suite.fail("profile", "no_hit_counts", prof.coverage_note)
        if prof.contrast_note:
            suite.fail("profile", "no_contrast", prof.contrast_note)
        view = {"task": task, "reference": reference, "profile": prof, "rows": prof.rows(reference.code)}
        conditions = await self._conditions(view, ctx, suite)
        target, checks = await self._instrument(view, conditions, seeds, outputs, limits, ctx, suite)
        parsed = parse_constraints(task.statement)
        checker = checker_for(task.statement, parsed.constraints, seeds)
        # STAB's parsed constraints and their resolved boundary steer the mutator to the bounds.
        boundary = (await asyncio.to_thread(saturate, checker.constraints)).boundary if checker.constraints else {}
        mutator = await self._mutator({**view, "conditions": conditions or "(none were found)", "checks": checks,
                                       "constraints": [c.render() for c in checker.constraints],
                                       "boundary": boundary, "seeds": seeds,
                                       "max_bytes": self.params.max_input_kb * 1024},
                                      seeds, validator, ctx, suite)
        if mutator is None:
            return suite
        campaign = await self._fuzz(task, target, mutator, validator, seeds, ctx, suite)
        suite.artifacts.append(Artifact(role="fuzzer", ok=not campaign.error, program=target,
                                        note=f"{campaign.engine}: {campaign.note}"[:4000]))
        suite.tests = await self._select(task, reference, campaign, seeds, checker, ctx, suite)
        return suite

    # ------------------------------------------------------------------ validator

    async def _validator(self, task: Task, seeds: list[str], ctx: Context, suite: TestSuite) -> str | None:
        code, answer, failures = None, None, []
        # The answer a repair starts from: (samples rejected, the answer, its failures).
        # A small model's repair of a repair drifts from a first answer that was nearly
        # right (zm10: one sample rejected, then eleven answers rejecting both).
        base: tuple[int, str, list[dict]] | None = None
        for attempt in range(self.params.validator_tries):
            item = f"validator/{attempt}"
            # The repair shows the model its own answer, not it plus our prelude (which
            # it would copy back, one prelude more per repair).
            answers = await ctx.ask(suite, "wedge/validator_repair" if base is not None else "wedge/validator",
                                    first_sample=attempt, item=item, task=task, previous=base[1] if base else "",
                                    failures=base[2] if base else [])
            found = function_from(suite, answers, ("validate_input",), item)
            if found is None:
                continue
            answer, code = found, with_prelude(found)
            verdicts = await validate_many(ctx, code, seeds + [""], per_input_ms=self.params.validate_ms)
            if all(v is not None and v.startswith(BATCH_FAILED) for v in verdicts):
                # No input reached validate_input: the module failed as a whole (top-level
                # example calls a small model likes to add, or a limit). Saying "it rejects
                # sample 1" would send the repair after the wrong rule.
                failures = [{"what": "Your code failed before validate_input judged any input (code outside "
                                     "functions runs when it is loaded, so keep only imports and definitions; "
                                     "or it ran out of time or memory):", "input": seeds[0], "error": verdicts[0]}]
                suite.fail("validator", "validator_crashed", verdicts[0][:500], item)
                base = self._repair_base(base, (len(verdicts), answer, failures))
                continue
            failures = [{"what": f"It rejects sample input {k} of the problem, which is valid:", "input": s,
                         "error": v} for k, (s, v) in enumerate(zip(seeds, verdicts), 1) if v is not None]
            if verdicts[-1] is None:
                failures.append({"what": "It accepts the empty input, which is never valid:", "input": "",
                                 "error": "validate_input returned normally"})
            if not failures:
                suite.artifacts.append(Artifact(role="validator", program=Program(
                    code=code, language=Language.PYTHON, name="validator", meta={"function": "validate_input"}),
                    note=f"accepted every sample after {attempt + 1} answer(s)"))
                return code
            suite.fail("validator", "rejects_samples" if failures[0]["input"] else "accepts_empty",
                       f"{failures[0]['what']} {failures[0]['error'][:500]}", item)
            base = self._repair_base(base, (len(failures), answer, failures))
        if code is not None:
            suite.artifacts.append(Artifact(role="validator", ok=False, note="never accepted every sample",
                                            program=Program(code=code, language=Language.PYTHON, name="validator")))
        suite.fail("validator", "no_validator",
                   f"no validator accepted every sample in {self.params.validator_tries} answer(s); no tests")
        return None

    def _repair_base(self, base: tuple[int, str, list[dict]] | None,
                     new: tuple[int, str, list[dict]]) -> tuple[int, str, list[dict]]:
        """The answer the next repair starts from: the newest one, or with
        ``repair_from="best"`` the one with the fewest failures (on a tie, the newest)."""
        if self.params.repair_from == "last" or base is None or new[0] <= base[0]:
            return new
        return base

    # ------------------------------------------------------------------ conditions

    async def _conditions(self, view: dict, ctx: Context, suite: TestSuite) -> str:
        answers = await ctx.ask(suite, "wedge/invariants", item="conditions", **view)
        text = answers[0].text.strip() if answers else ""
        if answers and not text:
            suite.fail("conditions", "empty_answer", "the model stated no condition", "conditions")
        return text

    async def _instrument(self, view: dict, conditions: str, seeds: list[str], outputs: dict[str, str],
                          limits: Limits, ctx: Context, suite: TestSuite) -> tuple[Program, list[str]]:
        """The instrumented copy and its check lines; the plain reference when there is none."""
        reference: Program = view["reference"]
        task: Task = view["task"]
        if not conditions:
            return reference, []
        if not conditions_supported(reference.language):
            suite.fail("instrument", "unsupported_language",
                       f"no perf_condition for {reference.language.value}; fuzzing the plain reference")
            return reference, []
        code, error = None, ""
        language = reference.language.value
        for attempt in range(self.params.instrument_tries):
            item = f"instrument/{attempt}"
            template = "wedge/instrument_repair" if code is not None else "wedge/instrument"
            answers = await ctx.ask(suite, template, first_sample=attempt, item=item, conditions=conditions,
                                    previous=code or "", error=error, **view)
            if not answers:
                continue
            try:
                code = extract_code(answers[0].text, language)
            except ParseError as exc:
                suite.fail("parse", exc.reason, exc.detail, item)
                continue
            ids = condition_ids(code)
            program = instrument(code, reference.language, name=f"instrumented-{attempt}")
            error = await self._differs(program, ids, seeds, outputs, task, limits, ctx)
            if not error:
                checks = [line.strip()[:200] for line in code.splitlines() if "perf_condition" in line][:20]
                suite.artifacts.append(Artifact(role="instrumented", program=program,
                                                note=f"{len(ids)} condition(s) {ids}; {view['profile'].summary()}; "
                                                     f"conditions: {conditions[:1500]}"))
                return program, checks
            suite.fail("instrument", "unusable_copy", error[:1500], item)
        suite.fail("instrument", "no_instrumented_copy", "fuzzing the plain reference (no condition rewards)")
        return reference, []

    async def _differs(self, program: Program, ids: list[int], seeds: list[str], outputs: dict[str, str],
                       task: Task, limits: Limits, ctx: Context) -> str:
        """Why an instrumented copy cannot stand in for the reference ("" when it can)."""
        if not ids:
            return "it contains no perf_condition(ID, CONDITION) check"
        runs = await ctx.run(program, seeds, limits)
        for k, (seed, run) in enumerate(zip(seeds, runs), 1):
            if run.verdict.value == "CE":
                return f"it does not compile:\n{run.detail[-2000:]}"
            if not run.ok:
                return f"on sample input {k} it ends {run.verdict.value}: {run.detail[-800:]}"
        cases = [(s, r.output, outputs[s]) for s, r in zip(seeds, runs)]
        same = await asyncio.to_thread(outputs_match, ctx.sandbox, cases, comparator=task.checker,
                                       validator=task.output_validator)
        for k, ok in enumerate(same, 1):
            if ok is False:
                return f"on sample input {k} it prints something other than the original program"
        return ""

    # ------------------------------------------------------------------ mutator

    async def _mutator(self, view: dict, seeds: list[str], validator: str, ctx: Context,
                       suite: TestSuite) -> str | None:
        p = self.params
        code, answer, error = None, None, ""
        for attempt in range(p.mutator_tries):
            item = f"mutator/{attempt}"
            template = "wedge/mutator_repair" if answer is not None else "wedge/mutator"
            answers = await ctx.ask(suite, template, first_sample=attempt, item=item, previous=answer or "",
                                    error=error, **view)
            found = function_from(suite, answers, ("mutate_input",), item)
            if found is None:
                continue
            answer, code = found, with_prelude(found)
            probes = await mutate_many(ctx, code, seeds, p.mutator_probes, seed=attempt,
                                       per_call_ms=p.mutate_ms, max_input_kb=p.max_input_kb)
            known = {input_key(s) for s in seeds}
            fresh = [r["input"] for r in probes if isinstance(r.get("input"), str) and r["input"].strip()
                     and input_key(r["input"]) not in known
                     and len(r["input"].encode("utf-8", "surrogatepass")) <= p.max_input_kb * 1024]
            if fresh:
                verdicts = await validate_many(ctx, validator, fresh, per_input_ms=p.validate_ms)
                valid = sum(v is None for v in verdicts)
                suite.artifacts.append(Artifact(role="mutator", program=Program(
                    code=code, language=Language.PYTHON, name="mutator", meta={"function": "mutate_input"}),
                    note=f"probe: {len(fresh)} of {p.mutator_probes} calls gave new inputs, {valid} valid; "
                         f"{attempt + 1} answer(s)"))
                return code
            errors = [r["error"] for r in probes if r.get("error")]
            error = errors[0] if errors else (
                f"in {p.mutator_probes} calls it never returned a new non-empty input of at most "
                f"{p.max_input_kb * 1024} bytes (it returned the given input, an empty one or a larger one)")
            suite.fail("mutator", "unusable_mutator", error[:1500], item)
        if code is not None:
            suite.artifacts.append(Artifact(role="mutator", ok=False, note="never produced a new input",
                                            program=Program(code=code, language=Language.PYTHON, name="mutator")))
        suite.fail("mutator", "no_mutator", f"no usable mutator in {p.mutator_tries} answer(s); no tests")
        return None

    # ------------------------------------------------------------------ fuzzing

    async def _fuzz(self, task: Task, target: Program, mutator: str, validator: str, seeds: list[str],
                    ctx: Context, suite: TestSuite) -> Campaign:
        p = self.params
        exec_ms = max(100, int(p.exec_timeout_factor * task.time_limit_ms))
        engine = p.fuzzer
        if engine in ("auto", "afl"):
            usable = afl.available() and afl.supported(target.language)
            if not usable and engine == "afl":
                why = "AFL++ is not installed" if not afl.available() else \
                    f"AFL++ does not fuzz {target.language.value} programs"
                suite.fail("fuzz", "afl_unavailable", why + "; the pure-Python loop runs instead")
            engine = "afl" if usable else "loop"
        if engine == "afl":
            campaign = await afl.run_afl(
                ctx, target, mutator, validator, seeds, fuzz_s=p.fuzz_seconds, time_limit_ms=task.time_limit_ms,
                memory_mb=task.memory_limit_mb, exec_timeout_ms=exec_ms, candidates=p.candidates,
                max_input_kb=min(p.max_input_kb, AFL_MAX_INPUT_KB), triage_s=p.triage_seconds,
                custom_only=p.afl_custom_only, trim=p.afl_trim, validate_ms=p.validate_ms)
            if not campaign.error:
                return campaign
            suite.fail("fuzz", campaign.error, campaign.detail + "; the pure-Python loop runs instead")
        return await run_loop(ctx, target, mutator, validator, seeds, fuzz_s=p.fuzz_seconds,
                              limits=Limits(time_ms=exec_ms, memory_mb=task.memory_limit_mb), batch=p.loop_batch,
                              candidates=p.candidates, max_input_kb=p.max_input_kb, seed=task.seed,
                              validate_ms=p.validate_ms, mutate_ms=p.mutate_ms, coverage=p.loop_coverage)

    # ------------------------------------------------------------------ tests

    async def _select(self, task: Task, reference: Program, campaign: Campaign, seeds: list[str],
                      checker: InputChecker, ctx: Context, suite: TestSuite) -> list[TestCase]:
        """The ``task.budget`` candidates slowest on the reference (problem limits)."""
        if campaign.error and not campaign.candidates:
            suite.fail("fuzz", campaign.error, campaign.detail)
        seen = {input_key(s) for s in seeds}
        pool: list[tuple[Candidate, list[str]]] = []
        dropped = 0
        for c in campaign.candidates:
            key = input_key(c.input)
            if key in seen:
                continue
            seen.add(key)
            violations = checker.check(c.input) if checker.active else []
            if violations and self.params.check_inputs:
                dropped += 1
                continue
            pool.append((c, violations))
        if dropped:
            suite.fail("validator", "constraint_violation", f"{dropped} candidate(s) broke the parsed constraints")
        runs = await ctx.run(reference, [c.input for c, _ in pool], Limits.of(task)) if pool else []
        timed = [(c, v, r) for (c, v), r in zip(pool, runs) if r.verdict.value in ("AC", "TLE")]
        failed = len(pool) - len(timed)
        if failed:
            suite.fail("fuzz", "reference_failed", f"the reference crashed on {failed} valid candidate(s)")
        timed.sort(key=lambda t: (t[2].verdict.value == "TLE", t[2].cpu_ms, len(t[0].conditions)), reverse=True)
        tests = [TestCase(input=c.input, origin=f"{self.name}/{campaign.engine}",
                          meta={"engine": campaign.engine, "source": c.source, "conditions": c.conditions,
                                "reference_cpu_ms": r.cpu_ms, "reference_verdict": r.verdict.value,
                                "fuzz_cpu_ms": c.cpu_ms, "violations": v})
                 for c, v, r in timed[:task.budget]]
        if len(tests) < task.budget:
            suite.fail("fuzz", "few_tests" if tests else "no_tests",
                       f"{len(tests)} of {task.budget} tests: {len(campaign.candidates)} candidate(s) from "
                       f"{campaign.engine}")
        flagged = [t for t in tests if t.meta["violations"]]
        if flagged:
            suite.fail("validator", "invalid_input_kept", f"{len(flagged)} test(s) break the parsed constraints: "
                       + "; ".join(flagged[0].meta["violations"][:3]))
        return tests
