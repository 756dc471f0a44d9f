"""LiveCodeBench's test output prediction (Jain et al., ICLR 2025, arXiv:2403.07974, §3):
given the problem and a test input, the model predicts the output.

The task, not a test generator: the ``outputpred`` runner picks the inputs (the
problem's golden tests: ``Task.queries``), and scores each prediction against the
test's output by LiveCodeBench's equality rule, pass@1 over the samples. This method is
the model's side: one request per input, in LiveCodeBench's form -- the problem, then
``assert f(ARGS) == # TODO`` to complete -- and the answer read back as LiveCodeBench
reads it: the last line that starts with ``assert`` (else the first code block), the
right-hand side of its ``==``. Any method that fills ``TestCase.output`` for the
queried inputs is scored the same way (a plugin with a chain-of-thought prompt, say),
so providers and prompting methods compare on one protocol.

A prediction stays what the model wrote: a constant (folded: ``[1] * 3``) becomes its
``repr``; anything else stays the expression, ``meta["expression"]`` set, and the runner
evaluates it in the sandbox (LiveCodeBench ``eval``s it). stdin problems (our
extension: LiveCodeBench's task is LeetCode's functions): the model writes the printed
output in a code block; it is compared by the problem's comparator.

LiveCodeBench's settings: temperature 0.2, top-p 0.95, up to 2000 tokens, 10 samples
per instance (``--samples 10``; pass@1 is the mean over them).
"""

from __future__ import annotations

import ast
import json
from typing import Any, ClassVar

from pydantic import Field

from tczoo.method import Context, Method, MethodParams
from tczoo.parsing import code_blocks
from tczoo.parsing.asserts import constant, decode_value
from tczoo.schema import UNPOSED, OracleKind, Setting, Task, TestCase, TestSuite

MAX_PREDICTION_CHARS = 100_000


class LcbOutputParams(MethodParams):
    temperature: float | None = Field(0.2, ge=0, description="sampling temperature (LiveCodeBench: 0.2)")
    top_p: float | None = Field(0.95, gt=0, le=1, description="nucleus sampling mass (LiveCodeBench: 0.95)")
    max_tokens: int | None = Field(2000, ge=1, description="most tokens per answer (LiveCodeBench: 2000)")


class LcbOutput(Method):
    name = "lcb-output"
    paper = "LiveCodeBench test output prediction (Jain et al., ICLR 2025, arXiv:2403.07974)"
    summary = "the model predicts the output of each queried test input (scored by the outputpred runner)"
    setting = Setting.SPEC
    produces = OracleKind.EXPECTED_OUTPUT
    runner = "outputpred"
    # one call per queried test: the reward kind "prediction" queries one test per task
    single_turn: ClassVar[dict[str, Any] | None] = {}
    functional = True
    Params = LcbOutputParams

    async def generate(self, task: Task, ctx: Context) -> TestSuite:
        suite = ctx.new_suite(task)
        if not task.queries:
            suite.fail("method", "no_queries", "test output prediction needs inputs to predict (Task.queries: "
                                               "the outputpred runner gives them)")
            return ctx.finish(suite)
        for i, query in enumerate(task.queries):  # first_sample=0: a query given twice is one prediction
            if task.entry_point:
                args = call_arguments(query)
                if args is None:
                    # not a call's arguments: nothing to ask; the runner leaves the instance out
                    suite.fail("method", "unreadable_query", query[:200], item=f"query-{i}")
                    suite.tests.append(TestCase(input=query, output=None, origin=f"query-{i}",
                                                meta={UNPOSED: "unreadable_query"}))
                    continue
                answers = await ctx.ask(suite, "lcb-output/predict", item=f"query-{i}", task=task, call=args,
                                        first_sample=0)
            else:
                answers = await ctx.ask(suite, "lcb-output/predict", item=f"query-{i}", task=task, call=None,
                                        first_sample=0,
                                        stdin=query)
            for answer in answers:
                output, meta, why = read_prediction(answer.text, functional=bool(task.entry_point))
                if why:
                    suite.fail("parse", why, answer.text[-300:], item=f"query-{i}")
                suite.tests.append(TestCase(input=query, output=output, origin=f"query-{i}", meta=meta))
        return ctx.finish(suite)


def call_arguments(text: str) -> str | None:
    """The arguments of a function-level test input as Python call text: a JSON array
    (or a Python literal of one) of positional arguments, an object of keyword
    arguments, or LiveCodeBench's one JSON value per line."""
    ok, value = decode_value(text)
    if not ok:
        try:
            return ", ".join(repr(json.loads(line)) for line in text.splitlines() if line.strip())
        except (ValueError, RecursionError):
            return None
    if isinstance(value, list):
        return ", ".join(repr(v) for v in value)
    if isinstance(value, dict) and all(isinstance(k, str) and k.isidentifier() for k in value):
        return ", ".join(f"{k}={v!r}" for k, v in value.items())
    return repr(value)  # one value: LiveCodeBench's single-line input


def read_prediction(answer: str, *, functional: bool) -> tuple[str | None, dict[str, Any], str]:
    """(the predicted output, test meta, failure reason or ""). Function-level: the
    right-hand side of ``==`` in the last line starting with ``assert`` (LiveCodeBench's
    extraction), else of the first code block's; a constant becomes its repr, another
    expression is kept as text with ``meta["expression"]``."""
    if not functional:
        blocks = code_blocks(answer)
        text = blocks[0].code if blocks else answer.strip()
        return (text, {}, "") if text.strip() else (None, {}, "empty_answer")
    lines = [line for line in answer.splitlines() if line.startswith("assert")]
    if not lines:
        blocks = code_blocks(answer)
        inner = [line.strip() for b in blocks[:1] for line in b.code.splitlines() if line.strip().startswith("assert")]
        lines = inner[-1:]
    if not lines:
        return None, {}, "no_assertion"
    statement = lines[-1].strip()
    try:
        node = ast.parse(statement).body[0]
    except (SyntaxError, ValueError, RecursionError, MemoryError, IndexError):
        return None, {}, "assertion_syntax"
    test = node.test if isinstance(node, ast.Assert) else None
    if not (isinstance(test, ast.Compare) and test.ops and isinstance(test.ops[0], ast.Eq)):
        return None, {}, "not_an_equality"
    rhs = test.comparators[0]
    text = ast.get_source_segment(statement, rhs) or ""
    if len(text) > MAX_PREDICTION_CHARS:
        return None, {}, "prediction_too_long"
    ok, value = constant(rhs)
    if ok:
        try:
            literal = repr(value)
            ast.literal_eval(literal)
            return literal, {}, ""
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            pass
    return text, {"expression": True}, ""
