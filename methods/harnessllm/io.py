"""HarnessLLM's input-output baseline: the model writes (input, expected output) pairs.

HarnessLLM (Liu et al., 2025) §3.1 and the prompt of Figure 10. Setting: the
specification plus the program under test. One answer is a JSON array of 1–20 objects
``{"input_str", "expected_output"}`` (stdin problems) or ``{"input_args",
"expected_output"}`` (functional problems, see ``tczoo.execution.programs`` for the
convention). The suite's oracle is EXPECTED_OUTPUT.

Choices where the paper is silent: an item that cannot be used (missing field, an input
that is not a string / not an object of arguments) is dropped and recorded, the rest of
the answer is kept (the authors reject the whole answer); for stdin problems an expected
output given as a number or list is turned into text. Repeated inputs keep their first
occurrence; the answer is capped at ``max_tests``. No test at all is a format error.

``first_k`` = 1: the bug-finding runner evaluates the first test by default (Appendix B.1).
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

from pydantic import Field

from tczoo.execution import signature_of
from tczoo.method import Context, Method
from tczoo.methods.harnessllm.harness import HarnessLLMSampling
from tczoo.parsing import ParseError, as_stdin, looks_like_solution, parse_json
from tczoo.schema import OracleKind, Setting, Task, TestCase, TestSuite, input_key

INPUT_KEYS = ("input_str", "input", "stdin")
ARG_KEYS = ("input_args", "args", "input", "inputs")
OUTPUT_KEYS = ("expected_output", "output", "expected")


class InputOutputParams(HarnessLLMSampling):
    max_tests: int = Field(20, ge=1, description="most test cases asked for and kept")


def _field(entry: dict, keys: tuple[str, ...]) -> tuple[bool, Any]:
    for k in keys:
        if k in entry:
            return True, entry[k]
    return False, None


def build_io_suite(text: str, task: Task, suite: TestSuite, params: InputOutputParams) -> TestSuite:
    """Parse one answer into ``suite`` (no execution needed)."""
    try:
        data = parse_json(text)
    except ParseError as exc:
        reason = "solution_instead_of_tests" if looks_like_solution(text) else exc.reason
        suite.fail("parse", reason, exc.detail or text[-300:], "io")
        return suite
    if isinstance(data, dict):
        data = next((v for v in data.values() if isinstance(v, list)), [data])
    if not isinstance(data, list):
        suite.fail("parse", "not_a_list", repr(data)[:300], "io")
        return suite
    functional = task.entry_point is not None
    signature = signature_of(task.target.code, task.entry_point) if functional and task.target else None
    cap = min(params.max_tests, task.budget) if task.budget else params.max_tests
    tests: list[TestCase] = []
    seen: set[str] = set()
    for i, entry in enumerate(data):
        where = f"io#{i}"
        if not isinstance(entry, dict):
            suite.fail("parse", "not_an_object", repr(entry)[:300], where)
            continue
        has_in, raw_in = _field(entry, ARG_KEYS if functional else INPUT_KEYS)
        has_out, raw_out = _field(entry, OUTPUT_KEYS)
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

    async def generate(self, task: Task, ctx: Context) -> TestSuite:
        suite = ctx.new_suite(task, OracleKind.EXPECTED_OUTPUT)
        template = "io/functional" if task.entry_point else "io/stdin"
        answers = await ctx.ask(suite, template, task=task, target=task.target,
                                max_tests=min(self.params.max_tests, task.budget or self.params.max_tests))
        if not answers:
            return suite
        return build_io_suite(answers[0].text, task, suite, self.params)
