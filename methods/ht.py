"""HT: HardTests-style generation — an input validator, then four families of inputs:
LLMGen (small inputs written directly), RPGen (range-based random generator) or SPGen
(one generator per output category), and HackGen (inputs that break plausible wrong
approaches). Every input must pass the validator; outputs come from the correct code.

TC-Bench §3.1.1 (after He et al., 2025, HardTests / HardTestGen). Setting:
specification + correct code.

What the TC-Bench paper says of HT: it "adds an input validator over LCB", outputs come
from the correct code, its edge-case generator may return nothing, and its prompts carry
(simple) few-shot examples, on which its results depend (A.3). The method runs only the
correct code the task carries (one, the runner's choice) and its own validator; it never
sees the scorer's validators.

Choices where the papers are silent, or where we follow HardTestGen's structure:

- Two calls, as HardTestGen makes them: ``ht/validator`` (a Python function
  ``validate_input(input_str) -> bool`` checking format and every constraint), then
  ``ht/generators``, which sees the validator and one correct program and answers one
  JSON object: the LLMGen inputs, whether the problem has several output categories, the
  RPGen/SPGen code (``gen_random_input`` or ``gen_category_input_<label>`` functions)
  and the HackGen code (``gen_hack_input_<scenario>`` functions, or null). Code comes as
  JSON strings; fenced Python blocks are accepted as well. Each prompt shows one worked
  example (our own toy problem) before the task.
- A validator's answer is read as HardTestGen's and SAGA's are (``filter_inputs``): a
  truthy answer accepts, a tuple by its first element (``(False, "why")`` is a no); a
  crash or timeout rejects the input, a sandbox failure fails the unit (no input is
  dropped for it).
- The validator must accept every sample; if it does not (or cannot be parsed) a fresh
  one is sampled once. With no usable validator and ``require_validator`` (default) the
  method gives up: an input nobody checked could break the constraints, and a wrong code
  "hacked" by such an input would inflate HackRate. With ``require_validator=False`` it
  goes on unvalidated (recorded as ``validator_unusable``).
- Budget: the families present share it equally; each family is asked for
  ``oversample`` (2) times its share because its own validator rejects some (the
  method's filter, which the paper describes). Generator functions are seeded and called with distinct
  seeds; duplicates are removed across all families; a failing generator is recorded
  and retired. The final list takes inputs round-robin over LLMGen, HackGen and
  RPGen/SPGen, so any prefix keeps every family.
- Outputs: the task's correct program runs on every validated input under the
  problem's limits times ``time_factor``. An input it cannot answer stays without an
  output, the failure recorded; the scorer's validators decide whether it is valid.
  ``max_correct`` > 1 (our option, for a runner that hands over several correct codes,
  as HardTestGen uses several oracles) requires them to agree; where they do not, the
  input likewise has no output.
"""

from __future__ import annotations

import asyncio
import math

from pydantic import Field

from tczoo.execution import Generator, Limits, filter_inputs, record, same_output
from tczoo.method import Context, Method, MethodParams
from tczoo.parsing import (
    ParseError,
    as_stdin,
    code_blocks,
    extract_code,
    looks_like_solution,
    note_truncation,
    parse_json,
    python_defines,
)
from tczoo.schema import (
    Artifact,
    Language,
    OracleKind,
    Program,
    Setting,
    Task,
    TestCase,
    TestSuite,
    dedupe,
    input_key,
    interleave,
)

VALIDATE = "validate_input"
RANDOM = "gen_random_input"
CATEGORY = "gen_category_input_"
HACK = "gen_hack_input_"


class HtParams(MethodParams):
    llmgen_inputs: int = Field(10, ge=0, description="inputs the model writes directly (at most)")
    oversample: float = Field(2.0, ge=1, description="candidates per family = share x this")
    validator_retries: int = Field(1, ge=0, description="fresh validators asked for after one rejects the samples")
    require_validator: bool = Field(True, description="give up without a validator that accepts the samples "
                                                       "(else keep unvalidated inputs)")
    max_correct: int = Field(1, ge=1, description="correct programs given that must agree on an output")
    time_factor: float = Field(1.5, gt=0, description="correct code's time limit = problem limit x this")
    generator_time_ms: int = Field(5000, ge=100, description="CPU time a generator call may take",
                                   json_schema_extra={"paper": "— (ours: the paper sets no such limit)"})
    validator_time_ms: int = Field(5000, ge=100, description="CPU time the validator may take per input",
                                   json_schema_extra={"paper": "— (ours: the paper sets no such limit)"})
    max_input_kb: int = Field(8192, ge=1, description="largest input kept (KB)", json_schema_extra={"paper": "— (ours: the paper sets no such limit)"})
    max_rounds: int = Field(3, ge=1, description="generator rounds to fill the budget (new seeds each round)",
                            json_schema_extra={"paper": "— (not stated; ours)"})


class Ht(Method):
    name = "ht"
    paper = "TC-Bench §3.1.1 (He et al., 2025, HardTests)"
    summary = "validator + LLMGen/RPGen/SPGen/HackGen inputs; outputs from the correct code"
    setting = Setting.SPEC_CORRECT
    produces = OracleKind.EXPECTED_OUTPUT
    runner = "hackrate"
    Params = HtParams

    async def generate(self, task: Task, ctx: Context) -> TestSuite:
        p = self.params
        suite = ctx.new_suite(task)
        validator = await self._validator(task, ctx, suite)
        if validator is None and p.require_validator:
            suite.fail("validator", "no_usable_validator", "giving up: every input must pass a validator")
            return suite
        families = await self._families(task, ctx, suite, validator)
        present = [f for f in families if f]
        if not present:
            return suite
        share = math.ceil(task.budget / len(present))
        want = math.ceil(share * p.oversample)
        seen: set[str] = set()
        llmgen = dedupe(families[0])[:want]
        seen.update(input_key(t.input) for t in llmgen)
        groups = [llmgen]
        for gens in families[1:]:
            if not gens:
                groups.append([])
                continue
            await ctx.run_generators(gens, seed=task.seed, per_generator=math.ceil(want / len(gens)),
                               time_ms=p.generator_time_ms, rounds=p.max_rounds, max_input_kb=p.max_input_kb,
                               seen=seen)
            record(suite, gens, seed=task.seed, time_ms=p.generator_time_ms)
            groups.append(interleave([g.tests for g in gens], want))
        if validator is not None:
            groups = await self._validate(ctx, suite, validator, groups)
        groups = await self._outputs(task, ctx, suite, groups)
        llm, programmed, hack = groups
        suite.tests = interleave([llm, hack, programmed], task.budget)
        return suite

    # ------------------------------------------------------------------ validator

    async def _validator(self, task: Task, ctx: Context, suite: TestSuite) -> str | None:
        for attempt in range(1 + self.params.validator_retries):
            item = f"validator-{attempt}"
            answers = await ctx.ask(suite, "ht/validator", task=task, item=item, first_sample=attempt)
            if not answers:
                continue
            try:
                code = self._code_with(answers[0].text, lambda names: VALIDATE in names)
            except ParseError as exc:
                suite.fail("parse", exc.reason, exc.detail, item)
                continue
            note_truncation(suite, answers[0].text, item)
            artifact = Artifact(role="validator", program=Program(code=code, language=Language.PYTHON, name=item))
            suite.artifacts.append(artifact)
            verdicts = await self._run_validator(ctx, code, [s.input for s in task.samples])
            bad = [(k, why) for k, (ok, why) in enumerate(verdicts, 1) if not ok]
            if not bad:
                return code
            artifact.ok = False
            artifact.note = f"rejects sample {bad[0][0]}: {bad[0][1]}"
            suite.fail("validator", "validator_rejects_samples", artifact.note, item)
        if not self.params.require_validator:
            suite.fail("validator", "validator_unusable", "going on without input validation")
        return None

    async def _run_validator(self, ctx: Context, code: str, inputs: list[str]) -> list[tuple[bool, str]]:
        """(accepted, why not) per input, by the one validator filter HardTestGen and SAGA
        use: a truthy answer accepts, a tuple by its first element; a crash or timeout
        rejects with its reason; a sandbox failure fails the unit, never an input."""
        kept, rejected = await asyncio.to_thread(filter_inputs, ctx.sandbox, code, inputs, function=VALIDATE,
                                                 time_ms=self.params.validator_time_ms)
        out = [(True, "")] * len(inputs)
        for r in rejected:
            out[r.index] = (False, r.detail if r.reason == "invalid_input" else f"{r.reason}: {r.detail}")
        return out

    async def _validate(self, ctx, suite, validator: str, groups: list[list[TestCase]]) -> list[list[TestCase]]:
        flat = [t for g in groups for t in g]
        verdicts = await self._run_validator(ctx, validator, [t.input for t in flat])
        verdict_of = {id(t): v for t, v in zip(flat, verdicts)}
        kept = []
        for g in groups:
            keep = []
            for t in g:
                ok, why = verdict_of[id(t)]
                if ok:
                    keep.append(t)
                else:
                    suite.fail("validator", "invalid_input", why, t.origin)
            kept.append(keep)
        return kept

    # ------------------------------------------------------------------ generators

    async def _families(self, task, ctx, suite, validator: str | None) -> list:
        """[LLMGen tests, RPGen/SPGen generators, HackGen generators]."""
        answers = await ctx.ask(suite, "ht/generators", task=task, validator=validator or "",
                                correct=task.correct_programs[0], n_llmgen=min(self.params.llmgen_inputs,
                                                                                 max(task.budget, 1)),
                                item="generators")
        if not answers:
            return [[], [], []]
        text = answers[0].text
        reason = "not_an_object"
        try:
            data = parse_json(text)
        except ParseError as exc:
            data = None
            reason = exc.reason
        if not isinstance(data, dict):
            data = None
        note_truncation(suite, text, "generators")
        codes: list[str] = []
        llmgen: list[TestCase] = []
        if data is not None:
            # Our key first, then any spelling of it ("LLMGen_input", "inputs" ...).
            keys = sorted((k for k in data if "input" in str(k).lower() and isinstance(data[k], list)),
                          key=lambda k: (k != "llmgen_inputs", "llm" not in str(k).lower()))
            raw = data[keys[0]] if keys else []
            for i, value in enumerate(raw):
                try:
                    llmgen.append(TestCase(input=as_stdin(value), origin="ht:llmgen"))
                except ParseError as exc:
                    suite.fail("parse", exc.reason, exc.detail, f"llmgen#{i}")
            for value in data.values():  # code under whatever key the model chose
                if isinstance(value, str) and "def " in value:
                    codes.append(self._code_in_string(value))
        for b in code_blocks(text):  # code given as fenced blocks instead of JSON strings
            if b.lang in ("python", "") and python_defines(b.code):
                codes.append(b.code)
        if data is None and not codes:
            why = "solution_instead_of_tests" if looks_like_solution(text) else reason
            suite.fail("parse", why, text[:300], "generators")
            return [[], [], []]
        programmed: list[Generator] = []
        hack: list[Generator] = []
        taken: set[str] = set()
        for code in codes:
            for fn in sorted(python_defines(code)):
                if fn in taken:
                    continue
                if fn == RANDOM or fn.startswith(CATEGORY):
                    programmed.append(Generator(name=fn, code=code, function=fn,
                                                origin="ht:rpgen" if fn == RANDOM else "ht:spgen"))
                elif fn.startswith(HACK):
                    hack.append(Generator(name=fn, code=code, function=fn, origin="ht:hackgen"))
                else:
                    continue
                taken.add(fn)
        if data is not None and data.get("multi_category") and not any(g.origin == "ht:spgen" for g in programmed):
            suite.fail("parse", "missing_definition", "multi-category problem but no gen_category_input_ functions",
                       "generators")
        if codes and not programmed and not hack:
            suite.fail("parse", "missing_definition", "no generator functions in the code", "generators")
        return [llmgen, programmed, hack]

    @staticmethod
    def _code_in_string(value: str) -> str:
        """Code from a JSON string: fenced despite the instructions, or bare."""
        if "```" in value:
            try:
                return extract_code(value, "python")
            except ParseError:
                pass
        return value

    @staticmethod
    def _code_with(text: str, accept) -> str:
        """Python code from an answer that defines what ``accept`` wants (fenced, bare, or
        inside a JSON string)."""
        candidates = [b.code for b in code_blocks(text) if b.lang in ("python", "")]
        try:
            candidates.append(extract_code(text, "python"))
        except ParseError:
            pass
        try:
            data = parse_json(text)
            if isinstance(data, dict):
                candidates += [v for v in data.values() if isinstance(v, str)]
        except ParseError:
            pass
        for code in candidates:
            if accept(python_defines(code)):
                return code
        if looks_like_solution(text):
            raise ParseError("solution_instead_of_validator", "the answer is a solution program")
        raise ParseError("missing_definition", f"no Python function {VALIDATE} in the answer")

    # ------------------------------------------------------------------ outputs

    async def _outputs(self, task, ctx, suite, groups: list[list[TestCase]]) -> list[list[TestCase]]:
        programs = task.correct_programs[: self.params.max_correct]
        limits = Limits(time_ms=int(task.time_limit_ms * self.params.time_factor), memory_mb=task.memory_limit_mb)
        flat = [t for g in groups for t in g]
        results = await ctx.run_all(programs, [t.input for t in flat], limits)
        answered = {}
        for t, runs in zip(flat, results):
            answered[id(t)] = t
            failed = [(p, r) for p, r in zip(programs, runs) if not r.ok]
            if failed:
                prog, run = failed[0]
                suite.fail("oracle", f"correct_code_{run.verdict.value.lower()}",
                           f"{prog.name or 'correct'}: kept without an output: {run.detail[-300:]}", t.origin)
                continue
            outs = [r.output for r in runs]
            if not all(same_output(o, outs[0], comparator=task.checker) for o in outs[1:]):
                suite.fail("oracle", "correct_codes_disagree", f"input {t.input[:80]!r} kept without an output",
                           t.origin)
                continue
            answered[id(t)] = t.model_copy(update={"output": outs[0]})
        return [[answered[id(t)] for t in g] for g in groups]
