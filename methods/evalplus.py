"""EvalPlus's test-input generation (Liu et al., NeurIPS 2023, arXiv:2305.01210): LLM
seed inputs, grown by type-aware mutation, outputs by differential testing against
the ground truth; test-suite reduction as an option.

1. **Seeds** (the paper's §2.1, the library's ``ChatGPTGen``): ``llm_rounds`` requests,
   each showing the ground-truth function, up to ``seeds_per_prompt`` example inputs
   drawn from the pool, and one of three instructions (complex, corner-case, difficult
   inputs): drawn at random for each request as the library's ``random.choice`` does
   (``instructions: "random"``, seeded here), or in turn (``"in_turn"``, ours); every
   line of the answer's code block is one argument list.
   **An input is admitted** as EvalPlus admits one: it must fit the function — the
   entry point's parameters and the types their annotations state
   (``tczoo.execution.screen.function_signature``, the check every function-level
   suite passes before scoring; EvalPlus's mutation keeps types, and HumanEval+'s
   contracts assert them) — and satisfy the problem's input contract when the
   benchmark states one (``Task.contract``, HumanEval+'s: its asserts run before the
   ground truth's body, as the library's ``trusted_check_exec`` runs the contracted
   ground truth), and the ground truth must run on it without an error within
   ``valid_time_ms`` (the library's 1 s). HumanEval's own file has no contracts: there
   an argument of the right type outside the docstring's domain (a negative count, an
   unsorted list where a sorted one is promised) can still enter, and may make a
   correct candidate fail (docs/humaneval.md). Inputs turned away are counted per
   reason (``type_mismatch``, ``contract_violation``).
2. **Type-aware mutation**: the evalplus library's own mutator
   (``evalplus.gen.type_mut.TypedMutGen``: its ``mutate``, ``typed_fetch`` ingredients
   and multi-step selection of 1 to 5 mutations) grows the LLM's seed inputs to
   ``mutants`` new inputs. It runs **in this process on plain data only**: the pool
   holds Python values read from JSON or literals (lists, dicts, str, int, float,
   bool, None, tuples), and the mutator only rearranges them (``copy.deepcopy``,
   ``random``, list/str/dict operations) -- it is never given code, and the library's
   generation loop, which ``exec``s the ground truth in-process to check each input
   (``trusted_check_exec``), is not used: every candidate input is checked the way
   step 1 checks them, by running the ground truth in the sandbox, in batches of
   ``batch``. Its ``random`` is a seeded generator of our own for the duration of the
   loop (the library draws from the module ``random``); mutants over ``max_input_chars``
   are dropped, and the loop stops after ``max_attempts`` x ``mutants`` tries.
3. **Outputs**: the ground truth's return value on every kept input (the run that
   checked it): differential testing.
4. **Reduction** (``reduce: "coverage"``, off by default): greedy set cover keeping the
   fewest tests that cover every line of the ground truth any test covers -- the
   coverage criterion of the paper's §2.2; its other two criteria (mutant kills and
   LLM-sample kills) need programs the method is not given.

Scored by the ``agreement`` runner: labelled candidates (``tczoo candidates``, labelled
by the golden tests) judged by the grown suite; its "Beyond the jury's tests" table
counts the submissions the golden tests accept and the grown suite rejects (EvalPlus's
headline: the drop of pass@k from HumanEval to HumanEval+).

Install: ``pip install 'tczoo[evalplus]'`` then ``pip install --no-deps evalplus==0.3.1``
(evalplus pulls openai, anthropic, transformers, datasets, tree-sitter ... which its
mutator does not need; ``scripts/install.sh`` does both). Without it the method is
refused before any LLM call.
"""

from __future__ import annotations

import ast
import contextlib
import json
import random
import time
from collections import Counter
from types import SimpleNamespace
from typing import Any, Literal

from pydantic import Field

from tczoo.errors import UserError
from tczoo.execution import Limits, no_sandbox_errors
from tczoo.execution.screen import FunctionSignature, function_signature
from tczoo.method import Context, Method, MethodParams
from tczoo.parsing import code_blocks
from tczoo.parsing.asserts import call_pair, constant, decode_value, encode_args
from tczoo.schema import OracleKind, Program, Setting, Task, TestCase, TestSuite

INSTRUCTIONS = ("complex", "corner", "difficult")  # the library's three seed instructions
EVALPLUS_VERSION = "0.3.1"


class EvalPlusParams(MethodParams):
    temperature: float | None = Field(1.0, ge=0, description="seed requests (the library: 1.0)")
    top_p: float | None = Field(0.95, gt=0, le=1, description="seed requests (the library: 0.95)")
    max_tokens: int | None = Field(256, ge=1, description="seed requests (the library: 256)")
    llm_rounds: int = Field(20, ge=0, description="seed requests (the library's ChatGPTGen: 20 iterations)")
    instructions: Literal["random", "in_turn"] = Field(
        "random", description="which instruction a seed request carries: one drawn at random (the library's "
                              "random.choice, seeded here) or the three in turn (ours)")
    seeds_per_prompt: int = Field(5, ge=0, description="example inputs shown per request (the library: 5)")
    mutants: int = Field(1000, ge=0, description="inputs grown by type-aware mutation (ours; HumanEval+ "
                                                 "averages 764.1 tests per problem)")
    batch: int = Field(100, ge=1, description="mutants checked in the sandbox per round")
    max_attempts: int = Field(20, ge=1, description="mutation tries per wanted input before giving up")
    max_input_chars: int = Field(10_000, ge=10, description="longest mutant kept (repr of its arguments)")
    valid_time_ms: int = Field(1000, ge=10, description="ground truth's CPU time on an input (the library: 1 s)")
    mutation_seconds: float = Field(60.0, gt=0, description="wall time the in-process mutator may take in all")
    reduce: Literal["none", "coverage"] = Field("none", description="test-suite reduction (paper §2.2, coverage)")


class EvalPlusMut(Method):
    name = "evalplus-mut"
    paper = "EvalPlus (Liu et al., NeurIPS 2023, arXiv:2305.01210)"
    summary = "LLM seed inputs, grown by evalplus's type-aware mutator; outputs from the ground truth"
    setting = Setting.SPEC_CORRECT
    produces = OracleKind.EXPECTED_OUTPUT
    runner = "agreement"
    functional = True
    stdin = False  # function-level problems only: refused on stdin ones before any LLM call
    Params = EvalPlusParams

    def __init__(self, **params: Any):
        super().__init__(**params)
        if self.params.mutants:
            mutator()  # refused here, before any LLM call, when evalplus is not installed

    async def generate(self, task: Task, ctx: Context) -> TestSuite:
        suite = ctx.new_suite(task)
        if not task.entry_point:
            suite.fail("method", "stdin_problem", "EvalPlus mutates function arguments: this problem has no "
                                                  "entry point")
            return ctx.finish(suite)
        p = self.params
        truth = task.correct_programs[0]
        checked = contracted(truth, task)  # the ground truth behind the contract, when the benchmark has one
        signature = function_signature(SimpleNamespace(entry_point=task.entry_point, statement=task.statement,
                                                       solutions=task.correct_programs))
        limits = Limits(time_ms=min(p.valid_time_ms, task.time_limit_ms), memory_mb=task.memory_limit_mb)
        kept: dict[str, tuple[str, str]] = {}  # input text -> (output, origin)
        turned: dict[tuple[str, str], list] = {}  # (origin, reason) -> [count, an example]

        def turn_away(origin: str, reason: str, why: str) -> None:
            entry = turned.setdefault((origin, reason), [0, why])
            entry[0] += 1

        async def admit(candidates: list[tuple[str, list[Any]]], origin: str) -> list[list[Any]]:
            fresh = []
            for text, value in candidates:
                if text in kept:
                    continue
                why = misfit(signature, value)
                if why:
                    turn_away(origin, "type_mismatch", why)
                    continue
                fresh.append((text, value))
            if not fresh:
                return []
            runs = await ctx.run(truth, [t for t, _ in fresh], limits, entry_point=task.entry_point)
            no_sandbox_errors(runs, "the ground truth")  # an input it never ran on is not an invalid one
            allowed = [True] * len(fresh)
            if checked is not truth:
                guarded = await ctx.run(checked, [t for t, _ in fresh], limits, entry_point=task.entry_point)
                no_sandbox_errors(guarded, "the contracted ground truth")
                for i, (run, guard) in enumerate(zip(runs, guarded)):
                    if run.ok and not guard.ok:
                        allowed[i] = False
                        turn_away(origin, "contract_violation", (guard.detail or guard.verdict.value)[-200:])
            admitted = []
            for (text, value), run, ok in zip(fresh, runs, allowed):
                if run.ok and ok:
                    kept[text] = (run.output, origin)
                    admitted.append(value)
            return admitted

        examples = [(s.input, v) for s in task.samples if (v := _decode(s.input)) is not None]
        rng = random.Random(f"{task.seed}:{task.problem_id}")
        shown = [v for _, v in examples]
        llm_seeds: list[list[Any]] = []
        for r in range(p.llm_rounds):
            picked = rng.sample(shown, min(len(shown), p.seeds_per_prompt))
            kind = rng.choice(INSTRUCTIONS) if p.instructions == "random" else INSTRUCTIONS[r % len(INSTRUCTIONS)]
            answers = await ctx.ask(suite, "evalplus/seeds", first_sample=r, item=f"seeds-{r}", task=task,
                                    code=truth.code, examples=[_call_text(task.entry_point, v) for v in picked],
                                    kind=kind)
            for answer in answers:
                read, unreadable = read_inputs(answer.text, task.entry_point, p.max_input_chars)
                if unreadable:
                    suite.fail("parse", "unreadable_input_line", f"{unreadable} line(s) not an argument list",
                               item=f"seeds-{r}")
                new = await admit(read, "llm")
                llm_seeds += new
                shown += new
        pool = llm_seeds
        if not pool and p.mutants:
            why = ("mutating the problem's examples instead" if examples
                   else "and the problem has no examples: nothing to mutate")
            suite.fail("method", "no_llm_seed", f"no LLM seed input passed the ground truth; {why}")
            pool = await admit(examples, "example")
        if pool and p.mutants:
            await self._mutate(task, ctx, suite, pool, admit, rng)
        for (origin, reason), (count, why) in sorted(turned.items()):
            # the detail is the same in every unit (a report shows one unit's as the reason's
            # example); how many, of which origin and why go in the item
            what = ("inputs that break the function's signature or its annotated types are not tests"
                    if reason == "type_mismatch" else "inputs that violate the problem's input contract are not tests")
            suite.fail("inputs", reason, what, item=f"{count} {origin} input(s); e.g. {why}")
        tests = [TestCase(input=text, output=out, origin=origin) for text, (out, origin) in kept.items()]
        if p.reduce == "coverage" and tests:
            tests = await reduce_by_coverage(ctx, suite, truth, tests, limits, task.entry_point)
        suite.tests = tests
        if not tests:
            suite.fail("method", "no_valid_input", "no input passed the ground truth")
        return ctx.finish(suite)

    async def _mutate(self, task: Task, ctx: Context, suite: TestSuite, pool: list[list[Any]], admit,
                      rng: random.Random) -> None:
        """The library's type-aware mutation over ``pool`` until ``mutants`` new inputs
        pass the ground truth (checked in the sandbox, a batch at a time)."""
        p = self.params
        gen = mutator()(pool, task.entry_point, "")  # no contract: it is never executed (see the docstring)
        seen = {encode_args(v) for v in pool}
        grown, tries = 0, 0
        started = time.monotonic()
        while grown < p.mutants and tries < p.max_attempts * p.mutants:
            if time.monotonic() - started > p.mutation_seconds:
                suite.fail("method", "mutation_time", f"stopped after {p.mutation_seconds:.0f} s with {grown} "
                                                      f"of {p.mutants} mutants")
                break
            batch: list[tuple[str, list[Any]]] = []
            with _seeded(rng):
                while len(batch) < min(p.batch, p.mutants - grown) and tries < p.max_attempts * p.mutants:
                    tries += 1
                    value = _one_mutant(gen, rng)
                    text = encode_args(value) if isinstance(value, list) else None
                    if text is None or len(text) > p.max_input_chars or text in seen:
                        continue
                    seen.add(text)
                    batch.append((text, value))
            for value in await admit(batch, "mutation"):
                with _seeded(rng), contextlib.suppress(Exception):
                    gen.typed_fetch(value)  # its ingredients, as the library's loop does
                gen.seed_pool.append(value)
                grown += 1
        if grown < p.mutants:
            suite.fail("method", "few_mutants", f"{grown} of {p.mutants} mutants passed the ground truth "
                                                f"after {tries} tries")


# --------------------------------------------------------------------------- admission


def misfit(signature: FunctionSignature | None, values: list[Any]) -> str | None:
    """Why ``values`` cannot be the arguments of the function (its parameters and the
    types their annotations state: the kernel's signature check), or None. A value JSON
    cannot carry (a set, bytes) is checked as the list it would be sent as."""
    if signature is None:
        return None
    try:
        payload = json.dumps(values, default=lambda v: list(v) if isinstance(v, (set, frozenset, tuple)) else str(v))
    except (TypeError, ValueError, RecursionError):
        return None  # nothing to read: the ground truth's run decides
    return signature.check(payload)


def contracted(truth: Program, task: Task) -> Program:
    """The ground truth with the problem's input contract in front of its body, as
    EvalPlus builds it (prompt + contract + canonical solution); the ground truth itself
    when there is no contract or it cannot be placed (the prompt is not the program's
    head)."""
    contract = task.contract
    if not contract or not contract.strip() or not truth.code.startswith(task.statement):
        return truth
    code = task.statement + contract + truth.code[len(task.statement):]
    return truth.model_copy(update={"code": code, "name": f"{truth.name}+contract"})


# --------------------------------------------------------------------------- the library


def mutator():
    """evalplus's ``TypedMutGen`` class; a one-line user error when it is not installed."""
    try:
        from evalplus.gen.type_mut import TypedMutGen
    except ImportError as exc:
        raise UserError(f"method evalplus-mut needs the evalplus library's mutator ({exc}): pip install "
                        f"'tczoo[evalplus]' && pip install --no-deps evalplus=={EVALPLUS_VERSION}") from None
    return TypedMutGen


@contextlib.contextmanager
def _seeded(rng: random.Random):
    """The library's mutator draws from its module's ``random``: ours for this block.
    No await happens inside, so no other task's mutation interleaves."""
    import evalplus.gen.type_mut as type_mut

    saved = type_mut.random
    type_mut.random = rng
    try:
        yield
    finally:
        type_mut.random = saved


def _one_mutant(gen, rng: random.Random) -> Any:
    """One input as the library's loop makes it: a seed, then 1 to 5 mutations."""
    from evalplus.gen.type_mut import MAX_MULTI_STEP_SIZE

    try:
        value = gen.seed_selection()
        for _ in range(rng.randint(1, MAX_MULTI_STEP_SIZE)):
            value = gen.mutate(value)
    except (Exception, RecursionError):  # a type its dispatch has no rule for (a set in a list ...)
        return None
    return value


# --------------------------------------------------------------------------- answers


def read_inputs(answer: str, entry_point: str, max_chars: int) -> tuple[list[tuple[str, list[Any]]], int]:
    """Argument lists from a seed answer: each line of its first code block (the whole
    answer without one) that is a constant argument list (``1, [2, 3]``) or a call of
    the function with constant arguments; (input text, arguments) pairs and how many
    non-blank lines were neither."""
    blocks = code_blocks(answer)
    body = blocks[0].code if blocks else answer
    out, bad = [], 0
    for raw in body.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        values = _line_arguments(line, entry_point)
        text = encode_args(values) if values is not None else None
        if text is None or len(text) > max_chars:
            bad += 1
            continue
        out.append((text, values))
    return out, bad


def _line_arguments(line: str, entry_point: str) -> list[Any] | None:
    for candidate in (line, line.split("#", 1)[0].strip()):
        try:
            node = ast.parse(candidate, mode="eval").body
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        pair = call_pair(node, entry_point, None)
        if pair is not None:
            return _decode(pair.input)
        ok, value = constant(ast.parse(f"[{candidate}]", mode="eval").body) if _parses(f"[{candidate}]") else (
            False, None)
        if ok:
            return value
    return None


def _parses(text: str) -> bool:
    try:
        ast.parse(text, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def _decode(text: str) -> list[Any] | None:
    """Positional arguments of a function-level test input (JSON or a Python literal)."""
    ok, value = decode_value(text)
    return value if ok and isinstance(value, list) else None


def _call_text(entry_point: str, args: list[Any]) -> str:
    return ", ".join(repr(a) for a in args)


# --------------------------------------------------------------------------- reduction


async def reduce_by_coverage(ctx: Context, suite: TestSuite, truth, tests: list[TestCase], limits: Limits,
                             entry_point: str) -> list[TestCase]:
    """Greedy set cover: the fewest tests (first the one adding the most new lines)
    that cover every line of the ground truth the whole suite covers."""
    from tczoo.execution import CoverageUnavailable

    try:
        covs = await ctx.coverage(truth, [t.input for t in tests], limits, entry_point=entry_point)
    except CoverageUnavailable as exc:
        suite.fail("reduce", "no_coverage", str(exc))
        return tests
    lines = [c.lines if c.measured else frozenset() for c in covs]
    if not any(lines):
        suite.fail("reduce", "no_coverage", "no test's coverage could be measured: the suite is kept whole")
        return tests
    todo = frozenset().union(*lines)
    chosen: list[int] = []
    while todo:
        best = max(range(len(tests)), key=lambda i: (len(lines[i] & todo), -i))
        if not lines[best] & todo:
            break
        chosen.append(best)
        todo -= lines[best]
    return [tests[i].model_copy(update={"meta": {**tests[i].meta, "reduced": "coverage"}}) for i in sorted(chosen)]
