"""HarnessLLM test harnesses: the model writes input generators and an output checker.

HarnessLLM (Liu et al., 2025) §3.2, prompt of Figure 11. Setting: the specification plus
the program under test. One answer is one harness: ``generate_input_1..5()`` (each 1–4
inputs, a different strategy each) and ``check_output(generated_input, captured_output)``
that asserts on a program's output. The suite's oracle is a CHECKER_PROGRAM holding the
harness code; its tests are the generated inputs (no expected outputs).

Execution (``tczoo.execution``): the generators run in the sandbox, each call with
``random`` seeded from the task's seed and under the authors' 20 s; each generator's
first ``per_generator`` inputs are kept, the pool is deduplicated in generator order and
capped at ``max_tests`` (the paper's 20). Sampling is §4.1's (``HarnessLLMSampling``).
Appendix C.3's controlled setting asks for one generator (``max_generators: 1``) of one
input (``per_generator: 1``), which the prompt then says.
A generator that crashes, hangs or returns something else than a list of inputs gives
nothing and is recorded. An answer without a usable harness (no code block, syntax
error, no generator, no ``check_output``, a checker that never asserts) or whose
generators give no input at all is a *format error*: a suite without tests.

With ``strict_answers`` (default, the authors' ``check_format``) a ``check_output``
must hold an ``assert`` (a ``raise`` alone does not count, as their text search for
"assert" has it); without it (our lenient reading) a ``raise`` counts too. An empty
answer is recorded as ``empty_response`` (the bug-finding runner drops its triplet, as
the authors' ``eval.py`` does).

``first_k`` is the number of tests the bug-finding runner evaluates by default (the
paper's Appendix B.1: 5 for harnesses).
"""

from __future__ import annotations

import ast
import asyncio
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from pydantic import Field

from tczoo.execution import Generator, run_generators, signature_of
from tczoo.method import Context, Method, MethodParams
from tczoo.parsing import EMPTY_RESPONSE, ParseError, extract_code
from tczoo.schema import (
    Artifact,
    GeneratorSpec,
    Language,
    Oracle,
    OracleKind,
    Program,
    Setting,
    Task,
    TestSuite,
)

if TYPE_CHECKING:
    from tczoo.sandbox import Sandbox

GENERATOR_RE = re.compile(r"^generate_input_(\d+)$")


@dataclass
class ParsedHarness:
    code: str  # the model's code, as written
    generators: list[str]  # generate_input_N names in N order, at most max_generators

    @property
    def program(self) -> Program:
        return Program(code=self.code, language=Language.PYTHON, name="harness",
                       meta={"generators": self.generators})


def _has_assert(tree: ast.AST, name: str, *, strict: bool = False) -> bool:
    kinds = (ast.Assert,) if strict else (ast.Assert, ast.Raise)
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return any(isinstance(n, kinds) for n in ast.walk(node))
    return False


def parse_harness(text: str, *, max_generators: int = 5, strict: bool = False) -> ParsedHarness:
    """The harness in a model's answer, or ``ParseError`` with one of the reasons
    ``empty_response``, ``no_code_block``, ``truncated``, ``syntax_error``,
    ``no_generators``, ``no_check_output``, ``checker_without_assert``.

    A ``check_output`` without any ``assert`` (or, unless ``strict``, ``raise``) can
    never report a bug; the HarnessLLM authors count it as a format error, and so do we."""
    if not text.strip():
        raise ParseError(EMPTY_RESPONSE, "the model's answer is empty")
    try:
        code = extract_code(text, "python", require=("def generate_input_",))
    except ParseError as exc:
        if exc.reason == "missing_definition":
            raise ParseError("no_generators", "no generate_input_N function in the code") from None
        raise
    try:
        tree = ast.parse(code)
    except SyntaxError as exc:
        raise ParseError("syntax_error", f"line {exc.lineno}: {exc.msg}") from None
    names = [n.name for n in tree.body if isinstance(n, ast.FunctionDef)]
    generators = sorted((n for n in names if GENERATOR_RE.match(n)),
                        key=lambda n: int(GENERATOR_RE.match(n).group(1)))
    if not generators:
        raise ParseError("no_generators", "no top-level generate_input_N function")
    if "check_output" not in names:
        raise ParseError("no_check_output", "no top-level check_output function")
    if not _has_assert(tree, "check_output", strict=strict):
        raise ParseError("checker_without_assert", "check_output never asserts anything"
                         + (" (a raise alone does not count: strict_answers)" if strict else ""))
    return ParsedHarness(code=code, generators=generators[:max_generators])


def generator_names(code: str, max_generators: int = 5) -> list[str]:
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return []
    names = [n.name for n in tree.body if isinstance(n, ast.FunctionDef) and GENERATOR_RE.match(n.name)]
    return sorted(names, key=lambda n: int(GENERATOR_RE.match(n).group(1)))[:max_generators]


class HarnessLLMSampling(MethodParams):
    """§4.1: "the official setting of Qwen3": temperature 0.6, presence penalty 1.5, up to
    32,000 generated tokens; top-p 0.95 as the authors' generation script sends it (the
    paper does not name it). A provider that lacks a knob gets the call without it (a
    logged note); the embedded model caps the length at its context window."""

    temperature: float | None = Field(0.6, ge=0, description="sampling temperature")
    top_p: float | None = Field(0.95, gt=0, le=1, description="nucleus sampling mass")
    presence_penalty: float | None = Field(1.5, description="penalty on tokens already present")
    max_tokens: int | None = Field(32_000, ge=1, description="most tokens generated per answer")


class HarnessParams(HarnessLLMSampling):
    max_generators: int = Field(5, ge=1, description="generate_input_N functions asked for and run")
    per_generator: int = Field(4, ge=1, description="inputs kept from each generator")
    max_tests: int = Field(20, ge=1, description="cap on deduplicated inputs per answer")
    generator_time_ms: int = Field(20_000, ge=100, description="CPU time per generator call (the authors' 20 s)")
    checker_time_ms: int = Field(5000, ge=100, description="CPU time per check_output call told to the model")
    strict_answers: bool = Field(True, description="read answers as the authors' evaluation does: check_output "
                                                   "must assert (a raise alone is a format error)")


def build_harness_suite(text: str, task: Task, sandbox: "Sandbox", suite: TestSuite,
                        params: HarnessParams) -> TestSuite:
    """Parse one answer and run its generators (seeded by ``task.seed``) into ``suite``.
    Synchronous: the method calls it in a thread, the RL reward calls it directly."""
    try:
        harness = parse_harness(text, max_generators=params.max_generators, strict=params.strict_answers)
    except ParseError as exc:
        suite.fail("parse", exc.reason, exc.detail or text[-300:], "harness")
        return suite
    functional = task.entry_point is not None
    signature = None
    if functional and task.target is not None:
        signature = signature_of(task.target.code, task.entry_point)
    suite.oracle = Oracle(kind=OracleKind.CHECKER_PROGRAM, program=harness.program)
    gens = [Generator(name=n, code=harness.code, function=n, origin=n, returns="list") for n in harness.generators]
    run_generators(sandbox, gens, seed=task.seed, per_generator=params.per_generator, rounds=1,
                   per_call=params.per_generator, time_ms=params.generator_time_ms, functional=functional,
                   signature=signature, strings_only=True, keep_blank=True)
    pool = [t for g in gens for t in g.tests]
    cap = min(params.max_tests, task.budget) if task.budget else params.max_tests
    suite.tests = [t.model_copy(update={"meta": {"round": 0}}) for t in pool[:cap]]
    for g in gens:
        suite.provenance.failures.extend(g.failures)
    failed = [g.name for g in gens if g.retired and g.retired not in ("exhausted", "done")]
    note = (f"{len(gens)} generators ({len(failed)} failed), {len(pool)} distinct inputs, "
            f"{len(suite.tests)} kept after the cap")
    trimmed = sum(g.trimmed for g in gens)
    if trimmed:
        note += f"; {trimmed} past {params.per_generator} per generator dropped"
    suite.artifacts.append(Artifact(
        role="harness", program=harness.program, ok=not failed, note=note,
        generator=GeneratorSpec(functions=harness.generators, returns="list", seed=task.seed,
                                calls={g.function: g.calls for g in gens}, per_call=params.per_generator,
                                strings_only=True, keep_blank=True, time_ms=params.generator_time_ms)))
    if not suite.tests:
        suite.fail("generator", "no_inputs", "no generator produced a usable input", "harness")
    return suite


class Harness(Method):
    name = "harness"
    paper = "HarnessLLM (Liu et al., 2025) §3.2"
    summary = "LLM writes seeded input generators and an asserting check_output"
    setting = Setting.SPEC_TARGET
    produces = OracleKind.CHECKER_PROGRAM
    runner = "bugfind"
    functional = True  # call-based problems too (Task.entry_point)
    Params = HarnessParams
    first_k: ClassVar[int] = 5
    single_turn: ClassVar[dict] = {}  # one answer: the harness

    async def generate(self, task: Task, ctx: Context) -> TestSuite:
        suite = ctx.new_suite(task)
        template = "harness/functional" if task.entry_point else "harness/stdin"
        answers = await ctx.ask(suite, template, task=task, target=task.target,
                                max_generators=self.params.max_generators,
                                per_generator=self.params.per_generator,
                                checker_seconds=max(1, round(self.params.checker_time_ms / 1000)))
        if not answers:
            return suite
        return await asyncio.to_thread(build_harness_suite, answers[0].text, task, ctx.sandbox, suite, self.params)
