"""UTGen: unit tests (an input and its expected output) that expose a given buggy function.

Prasad et al., *Learning to Generate Unit Tests for Automated Debugging* (2025,
arXiv:2502.01619; the authors' code: archiki/UTGenDebug). docs/utgen.md.

Setting: the task description and the function under test, which the model is told is
incorrect (``spec+target``). Each unit test is one answer (the authors sample
``--num-units 3`` answers per problem): the model reasons about the error, then writes
``Arguments: f(...)`` and ``Output: <value>``. UTGen is the paper's *training* recipe; at
test time it is this prompt (the one the authors use for both prompted failing unit tests
and their trained models, ``joint_adv_prompt``), so a UTGen-trained model is a ``--model``;
``mode: "random"`` is the paper's random-unit-test baseline (the task only).

Reading an answer (the authors ``eval`` both strings in their own process; here nothing
runs): the call is the last ``f(...)`` after "Arguments", whose arguments must be
literals (constant arithmetic allowed), and the output is the last fenced value after
"Output", a literal too; anything else is a unit test the method could not read (a
``parse`` failure, counted by the debugging runner).

``output_votes`` (UTDebug's test-time scaling of output prediction; 0 here, as in UTGen's
own evaluation): the input of each unit test is kept and the model is asked that many
times for a correct function's output on it (``prompts/utgen/output.j2``); the most
frequent value is the expected output when at least ``min_agreement`` of the votes agree,
else the unit test is dropped (recorded). The authors continue the same answer after its
input (``continue_final_message``); a chat provider cannot, so the question is asked anew.
"""

from __future__ import annotations

import ast
import math
import re
from collections import Counter
from typing import Literal

from pydantic import Field

from tczoo.method import Context, Method, MethodParams
from tczoo.parsing.asserts import call_pair, constant_text
from tczoo.schema import OracleKind, Setting, Task, TestCase, TestSuite

MAX_ANSWER_CHARS = 200_000  # an answer is read up to here: what a unit test needs fits easily


class UTGenParams(MethodParams):
    temperature: float | None = Field(0.8, ge=0, description="sampling temperature (the authors' --use-temp: 0.8)")
    top_p: float | None = Field(0.9, gt=0, le=1, description="nucleus sampling mass (the authors: 0.9)")
    max_tokens: int | None = Field(2560, ge=1, description="most tokens per answer (the authors' vLLM runs: 2,048 + "
                                                            "512; their API calls: 2,000)")
    unit_tests: int = Field(3, ge=1, le=100, description="unit tests per buggy function, one answer each (the "
                                                         "authors' --num-units 3)")
    mode: Literal["failing", "random"] = Field(
        "failing", description='"failing": the function under test is shown, said to be incorrect, and the unit '
                               'test must break it (UTGen\'s and the prompted baseline\'s prompt); "random": the '
                               'task only (the random unit test baseline)')
    output_votes: int = Field(0, ge=0, le=64, description="outputs asked per unit test input, majority kept "
                                                          "(UTDebug's scaling: 8; 0: the answer's own output)")
    min_agreement: float = Field(0.5, gt=0, le=1, description="share of the votes the kept output needs (the "
                                                              "authors' --filter-vote 0.5)")
    vote_temperature: float = Field(0.8, ge=0, description="sampling temperature of the output votes (the "
                                                           "authors: 0.8)")


class UTGen(Method):
    name = "utgen"
    paper = "UTGen (Prasad et al., 2025, arXiv:2502.01619)"
    summary = "unit tests (input + expected output) aimed at a function said to be incorrect, one per answer"
    setting = Setting.SPEC_TARGET
    produces = OracleKind.EXPECTED_OUTPUT
    runner = "debugging"
    functional = True
    stdin = False  # Python functions called with arguments: refused on stdin problems before any LLM call
    Params = UTGenParams

    async def generate(self, task: Task, ctx: Context) -> TestSuite:
        suite = ctx.new_suite(task)
        if not task.entry_point:
            suite.fail("method", "stdin_problem", "UTGen writes function calls: this problem has no entry point")
            return ctx.finish(suite)
        p = self.params
        if p.mode == "failing" and task.target is None:
            suite.fail("method", "no_target", "the failing-unit-test prompt needs the function under test "
                                              "(spec+target); use mode: random for a spec-only task")
            return ctx.finish(suite)
        code = task.target.code if task.target is not None else ""
        suite.tests = await write_unit_tests(ctx, suite, task, code, p.unit_tests, mode=p.mode, votes=p.output_votes,
                                             min_agreement=p.min_agreement, vote_temperature=p.vote_temperature)
        return ctx.finish(suite)


# --------------------------------------------------------------------------- writing unit tests


async def write_unit_tests(ctx: Context, suite: TestSuite, task: Task, code: str, n: int, *, mode: str,
                           votes: int, min_agreement: float, vote_temperature: float, first_sample: int = 0,
                           round_: int | None = None, temperature: float | None = None,
                           max_tokens: int | None = None) -> list[TestCase]:
    """``n`` unit tests, one answer each, for ``code`` (the failing prompt) or the task
    (random); each unread answer is a ``parse`` failure, each output without a majority a
    ``method`` failure. ``round_`` tags them (UTDebug) and prefixes failure items
    ``round-K/``."""
    assert task.entry_point
    where = f"round-{round_}/" if round_ is not None else ""
    template = "utgen/failing" if mode == "failing" else "utgen/random"
    answers = await ctx.ask(suite, template, n=n, first_sample=first_sample, task=task, code=code,
                            item=f"{where}unit-tests", temperature=temperature, max_tokens=max_tokens)
    tests: list[TestCase] = []
    for answer in answers:
        item = f"{where}ut-{answer.sample}"
        read = read_unit_test(answer.text, task.entry_point, need_output=votes == 0)
        if isinstance(read, str):
            suite.fail("parse", read, answer.text[-300:], item)
            continue
        call, args, output = read
        if votes:
            output = await vote_output(ctx, suite, task, call, args, votes, min_agreement, vote_temperature,
                                       first_sample=first_sample + answer.sample, item=item)
            if output is None:
                continue
        meta = {"call": call}
        if round_ is not None:
            meta["round"] = round_
        tests.append(TestCase(input=args, output=output, origin=f"{where}ut-{answer.sample}", meta=meta))
    return tests


async def vote_output(ctx: Context, suite: TestSuite, task: Task, call: str, args: str, votes: int,
                      min_agreement: float, temperature: float, *, first_sample: int, item: str) -> str | None:
    """The most frequent output of ``votes`` answers about ``call``, when it has at least
    ``min_agreement`` of them (``round(min_agreement * votes)``, as the authors count);
    None (recorded) otherwise."""
    answers = await ctx.ask(suite, "utgen/output", n=votes, first_sample=first_sample * votes, task=task,
                            call=call, item=f"{item}/votes", temperature=temperature, max_tokens=2048)
    values = [v for v in (read_output(a.text) for a in answers) if v is not None]
    if not values:
        suite.fail("method", "no_output_vote", f"none of {len(answers)} answers about {call[:200]} gave a value",
                   item)
        return None
    (best, count), = Counter(values).most_common(1)
    need = max(1, round(min_agreement * votes))
    if count < need:
        suite.fail("method", "no_output_majority", f"{call[:200]}: the most frequent output has {count} of {votes} "
                                                   f"votes, {need} needed", item)
        return None
    return best


# --------------------------------------------------------------------------- reading answers

_FENCED = re.compile(r"```(?:[A-Za-z]*\n)?(.*?)```", re.S)
_INLINE = re.compile(r"`([^`\n]+)`")


def _last_value_text(text: str) -> str | None:
    fenced = _FENCED.findall(text)
    if fenced:
        return fenced[-1].strip()
    inline = _INLINE.findall(text)
    if inline:
        return inline[-1].strip()
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line.strip() or None


def read_output(text: str) -> str | None:
    """The repr of the value after the answer's last "Output" (a literal), or None."""
    text = text[:MAX_ANSWER_CHARS]
    at = text.lower().rfind("output")
    if at < 0:
        return None
    raw = _last_value_text(text[at + len("output"):].lstrip(" :*"))
    if raw is None:
        return None
    ok, value = constant_text(raw)
    if not ok or _unwritable(value):
        return None
    return repr(value)


def _unwritable(value) -> bool:
    """A value tczoo cannot carry as an expected output (a non-finite float compares unequal to itself)."""
    return isinstance(value, float) and not math.isfinite(value)


def read_call(text: str, entry_point: str) -> tuple[str, ast.Call] | None:
    """The last call of ``entry_point`` after "Arguments" (anywhere when there is no such
    word), as (source, node)."""
    text = text[:MAX_ANSWER_CHARS]
    at = text.lower().rfind("argument")
    scope = text[at:] if at >= 0 else text
    starts = [m.start() for m in re.finditer(rf"(?<![\w.]){re.escape(entry_point)}\s*\(", scope)]
    if at >= 0 and not starts:
        scope, starts = text, [m.start() for m in re.finditer(rf"(?<![\w.]){re.escape(entry_point)}\s*\(", text)]
    for start in (starts[:1] if at >= 0 else starts[-1:]):
        rest = scope[start:start + 20_000]
        for end in [m.end() for m in re.finditer(r"\)", rest)]:
            source = rest[:end]
            try:
                node = ast.parse(source, mode="eval").body
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                continue
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == entry_point:
                return source, node
    return None


def read_unit_test(text: str, entry_point: str, *, need_output: bool = True) -> tuple[str, str, str | None] | str:
    """(call source, arguments as a function-level test input, repr of the output or
    None) of one answer, or the reason it cannot be read."""
    if not text.strip():
        return "empty_response"
    found = read_call(text, entry_point)
    if found is None:
        return "no_call"
    source, node = found
    if node.keywords:
        return "keyword_arguments"
    output = read_output(text)
    if need_output and output is None:
        return "output_not_literal"
    pair = call_pair(node, entry_point, None)
    if pair is None:
        return "arguments_not_literal"
    return source, pair.input, output
