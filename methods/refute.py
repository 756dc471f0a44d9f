"""REFUTE (Sinha et al., 2025, arXiv:2502.19414): one counterexample to an incorrect
submission.

Given a problem and a solution known to be wrong, the model answers with a program that
prints one input (the paper's zero-shot setting; the answer's form is the authors':
``<reason>`` then an ``<action>`` named ``print_fail_case`` holding the ``<code>`` and
its ``<lang>``). The program runs in the sandbox with nothing on stdin; what it prints
is the suite's one test. The ``counterexample`` runner judges it as the authors'
evaluation does: valid by the problem's input validator, a success when the incorrect
code's output differs from a correct solution's (or it crashes or runs out of time),
every program under REFUTE's 20 s and the incorrect code run up to 5 times
(``runs_per_eval``); the success rate is Success@1 (docs/refute.md).

Not implemented: the paper's few-shot prompts (their examples are the authors' text),
the variant shown the correct solution (``zero_shot_oracle``), the random-search
strategies (a generator stressed against a model-written brute force) and the agent
with code execution feedback.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

from pydantic import Field

from tczoo.errors import InfrastructureFailure
from tczoo.execution import Limits, Verdict
from tczoo.method import Context, Method, MethodParams
from tczoo.parsing import EMPTY_RESPONSE, code_blocks, contest_language, extract_program
from tczoo.schema import Language, OracleKind, Program, Setting, Task, TestCase, TestSuite

ACTION = "print_fail_case"
_ACTION = re.compile(r"<action>(.*?)</action>", re.S)
_FIELD = {k: re.compile(rf"<{k}>(.*?)</{k}>", re.S) for k in ("name", "code", "lang")}


class RefuteParams(MethodParams):
    strict_answers: bool = Field(True, description="read answers as the authors do: an <action> named "
                                                   "print_fail_case with <code> and <lang>; off (ours): a fenced "
                                                   "program is taken too")
    program_time_ms: int = Field(20_000, ge=100, description="CPU time of the program that prints the input (the "
                                                             "authors' evaluation: 20 s for every program)")
    max_input_kb: int = Field(8192, ge=1, description="largest input kept (KB)",
                              json_schema_extra={"paper": "— (ours)"})


def program_in(text: str, strict: bool) -> tuple[Program | None, str, str]:
    """(program, failure reason, detail) read from one answer."""
    if not text.strip():
        return None, EMPTY_RESPONSE, "the model's answer is empty"
    actions = [a for a in _ACTION.findall(text)
               if (m := _FIELD["name"].search(a)) and m.group(1).strip() == ACTION]
    if actions:
        body = actions[-1]
        code = _FIELD["code"].search(body)
        lang = _FIELD["lang"].search(body)
        if code is None or not code.group(1).strip():
            return None, "no_code", "the print_fail_case action has no <code>"
        source = code.group(1).strip("\n")
        fenced = code_blocks(source)
        if fenced and fenced[0].code.strip():
            source = fenced[0].code  # a fence inside <code>: its content
        language = contest_language(lang.group(1)) if lang is not None else Language.PYTHON
        if language is None:
            return None, "unsupported_language", f"<lang>{lang.group(1).strip()[:60] if lang else ''}</lang>"
        return Program(code=source, language=language, name="print_fail_case"), "", ""
    if strict:
        return None, "no_action", "no <action> named print_fail_case with <code> in the answer"
    try:
        return extract_program(text).model_copy(update={"name": "print_fail_case"}), "", ""
    except Exception as exc:  # noqa: BLE001 - a ParseError or worse: the answer holds no program
        return None, getattr(exc, "reason", "no_code_block"), str(exc)[:300]


class Refute(Method):
    name = "refute"
    paper = "REFUTE (Sinha et al., 2025, arXiv:2502.19414), zero-shot"
    summary = "LLM writes a program printing one input on which the given incorrect submission fails"
    setting = Setting.SPEC_TARGET
    produces = OracleKind.INPUTS_ONLY
    runner = "counterexample"
    Params = RefuteParams
    single_turn: ClassVar[dict[str, Any]] = {}  # one answer: the counterexample program
    responses: ClassVar[int] = 1  # attempts per target (the authors' n_attempts)
    program_time_ms: ClassVar[int] = 20_000  # REFUTE's evaluation: 20 s for every program
    target_runs: ClassVar[int] = 5  # REFUTE's evaluation: runs_per_eval

    async def generate(self, task: Task, ctx: Context) -> TestSuite:
        suite = ctx.new_suite(task)
        if task.interactive:
            suite.fail("method", "interactive_problem", "an interactive problem takes no fixed input: skipped")
            return suite
        answers = await ctx.ask(suite, "refute/counterexample", task=task, target=task.target, item="counterexample")
        if not answers:
            return suite
        program, reason, detail = program_in(answers[0].text, self.params.strict_answers)
        if program is None:
            suite.fail("parse", reason, detail, "counterexample")
            return suite
        limits = Limits(time_ms=self.params.program_time_ms, memory_mb=max(task.memory_limit_mb, 256),
                        output_kb=self.params.max_input_kb)
        [run] = await ctx.run(program, [""], limits)
        if run.verdict is Verdict.SE:
            raise InfrastructureFailure(f"the sandbox failed to run the counterexample program: {run.detail[-300:]}")
        if not run.ok:
            suite.fail("generator", f"program_{run.verdict.value}", run.detail[-600:], "print_fail_case")
            return suite
        if not run.output.strip():
            suite.fail("generator", "empty_input", "the program printed nothing", "print_fail_case")
            return suite
        suite.tests = [TestCase(input=run.output, origin="refute:print_fail_case")]
        return suite
