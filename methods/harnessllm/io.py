"""HarnessLLM's input-output baseline: the model writes (input, expected output) pairs.

HarnessLLM (Liu et al., 2025) §3.1 and the prompt of Figure 10. Setting: the
specification plus the program under test. One answer is a JSON array of 1–20 objects
``{"input_str", "expected_output"}`` (stdin problems) or ``{"input_args",
"expected_output"}`` (functional problems, see ``tczoo.execution.programs`` for the
convention). The suite's oracle is EXPECTED_OUTPUT.

Where the paper is silent, the authors' evaluation (``testcase_judge.check_format``)
decides: with ``strict_answers`` (default) an answer is read as they read it — the last
fenced ``json`` block, parsed as JSON, a non-empty list whose every item is an object
with the exact keys asked for (stdin: ``input_str`` and ``expected_output``, both
strings; functional: ``input_args``, an object, and ``expected_output``) — and one
malformed item rejects the whole answer (a format error, reason ``malformed_item``).
Without it (our lenient reading) the JSON is looked for anywhere and repaired where it
can be (comments, a cut-off tail), key aliases are accepted, an item that cannot be
used is dropped and recorded and the rest kept, and for stdin problems an expected
output given as a number or list is turned into text. Either way repeated inputs keep
their first occurrence, the answer is capped at ``max_tests``, no test at all is a
format error, and an empty answer is recorded as ``empty_response`` (the bug-finding
runner drops its triplet, as the authors' ``eval.py`` does).

``first_k`` = 1: the bug-finding runner evaluates the first test by default (Appendix B.1).
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

from pydantic import Field

from tczoo.execution import signature_of
from tczoo.method import Context, Method
from tczoo.methods.harnessllm.harness import HarnessLLMSampling
from tczoo.parsing import EMPTY_RESPONSE, ParseError, as_stdin, code_blocks, looks_like_solution, parse_json
from tczoo.schema import OracleKind, Setting, Task, TestCase, TestSuite, input_key

INPUT_KEYS = ("input_str", "input", "stdin")
ARG_KEYS = ("input_args", "args", "input", "inputs")
OUTPUT_KEYS = ("expected_output", "output", "expected")


class InputOutputParams(HarnessLLMSampling):
    max_tests: int = Field(20, ge=1, description="most test cases asked for and kept")
    strict_answers: bool = Field(True, description="read answers as the authors' evaluation does: the last json "
                                                   "block, exact keys, one malformed item rejects the answer")


def _strict_json(text: str) -> Any:
    """The last fenced ``json`` block of an answer, parsed as JSON (the authors' reading)."""
    blocks = [b for b in code_blocks(text) if b.lang == "json" and b.closed]
    if not blocks:
        raise ParseError("no_json_block", "no closed ```json block in the answer")
    try:
        return json.loads(blocks[-1].code)
    except json.JSONDecodeError as exc:
        raise ParseError("bad_json", str(exc)[:200]) from None


def _field(entry: dict, keys: tuple[str, ...]) -> tuple[bool, Any]:
    for k in keys:
        if k in entry:
            return True, entry[k]
    return False, None


def build_io_suite(text: str, task: Task, suite: TestSuite, params: InputOutputParams) -> TestSuite:
    """Parse one answer into ``suite`` (no execution needed)."""
    if not text.strip():
        suite.fail("parse", EMPTY_RESPONSE, "the model's answer is empty", "io")
        return suite
    strict = params.strict_answers
    try:
        data = _strict_json(text) if strict else parse_json(text)
    except ParseError as exc:
        reason = "solution_instead_of_tests" if looks_like_solution(text) else exc.reason
        suite.fail("parse", reason, exc.detail or text[-300:], "io")
        return suite
    if isinstance(data, dict) and not strict:
        data = next((v for v in data.values() if isinstance(v, list)), [data])
    if not isinstance(data, list) or (strict and not data):
        suite.fail("parse", "not_a_list", repr(data)[:300], "io")
        return suite
    functional = task.entry_point is not None
    if strict:
        bad = _malformed_item(data, functional)
        if bad is not None:
            suite.fail("parse", "malformed_item", bad[:300], "io")
            return suite
    signature = signature_of(task.target.code, task.entry_point) if functional and task.target else None
    cap = min(params.max_tests, task.budget) if task.budget else params.max_tests
    tests: list[TestCase] = []
    seen: set[str] = set()
    for i, entry in enumerate(data):
        where = f"io#{i}"
        if not isinstance(entry, dict):
            suite.fail("parse", "not_an_object", repr(entry)[:300], where)
            continue
        has_in, raw_in = _field(entry, (ARG_KEYS if functional else INPUT_KEYS)[:1] if strict else
                                (ARG_KEYS if functional else INPUT_KEYS))
        has_out, raw_out = _field(entry, OUTPUT_KEYS[:1] if strict else OUTPUT_KEYS)
        if not has_in or not has_out:
            suite.fail("parse", "missing_field", repr(entry)[:300], where)
            continue
        try:
            if functional:
                args = raw_in if signature is None else signature.fit(raw_in)
                if not isinstance(args, (dict, list)):
                    raise ValueError(f"input_args is {type(args).__name__}, not an object")
                given, expected = json.dumps(args), repr(raw_out)
            else:
                if not isinstance(raw_in, str):
                    raise ValueError(f"input_str is {type(raw_in).__name__}, not a string")
                if raw_out is None:
                    raise ValueError("expected_output is null")
                given, expected = raw_in, raw_out if isinstance(raw_out, str) else as_stdin(raw_out)
        except (ValueError, ParseError) as exc:
            suite.fail("parse", "bad_item", str(exc)[:300], where)
            continue
        key = input_key(given, functional)
        if key in seen:
            continue
        seen.add(key)
        tests.append(TestCase(input=given, output=expected, origin="io"))
    if len(tests) > cap:
        suite.fail("parse", "over_budget", f"{len(tests)} tests, kept the first {cap}", "io")
    suite.tests = tests[:cap]
    if not suite.tests:
        suite.fail("parse", "no_tests", "the answer holds no usable test case", "io")
    return suite


def _malformed_item(data: list, functional: bool) -> str | None:
    """Why the authors' ``check_format`` rejects this list of items, or None."""
    keys = ("input_args", "expected_output") if functional else ("input_str", "expected_output")
    for i, item in enumerate(data):
        if not isinstance(item, dict):
            return f"item {i} is not an object: {item!r}"
        missing = [k for k in keys if k not in item]
        if missing:
            return f"item {i} lacks {', '.join(missing)}: {item!r}"
        if functional and not isinstance(item["input_args"], dict):
            return f"item {i}: input_args is {type(item['input_args']).__name__}, not an object"
        if not functional and not (isinstance(item["input_str"], str) and isinstance(item["expected_output"], str)):
            return f"item {i}: input_str and expected_output must both be strings: {item!r}"
    return None


class InputOutput(Method):
    name = "io"
    paper = "HarnessLLM (Liu et al., 2025) §3.1 input-output baseline"
    summary = "LLM writes 1-20 (input, expected output) pairs aimed at the program under test"
    setting = Setting.SPEC_TARGET
    produces = OracleKind.EXPECTED_OUTPUT
    runner = "bugfind"
    functional = True  # call-based problems too (Task.entry_point)
    Params = InputOutputParams
    first_k: ClassVar[int] = 1
    single_turn: ClassVar[dict] = {}  # one answer: the JSON tests

    async def generate(self, task: Task, ctx: Context) -> TestSuite:
        suite = ctx.new_suite(task)
        template = "io/functional" if task.entry_point else "io/stdin"
        answers = await ctx.ask(suite, template, task=task, target=task.target,
                                max_tests=min(self.params.max_tests, task.budget or self.params.max_tests))
        if not answers:
            return suite
        return build_io_suite(answers[0].text, task, suite, self.params)
