"""CodeRM: best-of-N with many generated unit tests, and their dynamic scaling.

Ma et al., *Dynamic Scaling of Unit Tests for Code Reward Modeling* (ACL 2025,
arXiv:2501.01054; the authors' code: RUCKBReasoning/CodeRM). docs/coderm.md.

Setting: the problem only. The method samples ``solutions`` candidates (the policy
model) and ``unit_tests`` unit tests (the reward model: the same ``--model`` here; their
CodeRM-8B is one a user can name), each a ``unittest`` test class written for the
question and one code answer — the first sampled candidate, which may be wrong, as the
authors' prompts show a model-written solution (``shown: "stub"`` shows the function's
signature and docstring instead, ours). A unit test is one test of the suite: a
statement run after the candidate, in a copy of its namespace, that runs the class and
asserts it was successful (the authors run ``TestLoader().loadTestsFromTestCase`` and
read ``wasSuccessful()``, one process per solution and unit test); a candidate passes it
when every test method passes.

The ``bestofn`` runner ranks the candidates: its *CodeRM voting* row is the authors'
majority voting (most unit tests passed, then the most frequent set of passed tests), and
its ``test_counts`` sweep is the paper's scaling of unit tests per problem, uniform and
*dynamic* (more tests for harder problems at the same total).

Reading a unit test: the first python code block's classes that define ``test*``
methods, with the block's imports except any import of the function under test (the
authors drop ``from your_module import ...``); everything else (a redefinition of the
function, a ``__main__`` block) is left out. An answer without such a class is a
``parse`` failure.
"""

from __future__ import annotations

import ast
from typing import Literal

from pydantic import Field

from tczoo.execution.statements import statement_test
from tczoo.method import Context, Method, MethodParams
from tczoo.methods.codet import function_stub, solution_program
from tczoo.parsing import code_blocks
from tczoo.schema import CANDIDATE_ROLE, Artifact, Language, OracleKind, Program, Setting, Task, TestSuite

# Runs the unit test's classes and fails unless every test passed; {source!r} is the unit
# test, executed in a copy of the candidate's namespace so that it cannot change what the
# next unit test sees.
HARNESS = """exec(compile({source!r}, "<unit test>", "exec"), dict(globals()))"""
RUNNER = """
import io as _tczoo_io
import unittest as _tczoo_unittest
_tczoo_suite = _tczoo_unittest.TestSuite()
for _tczoo_case in ({classes},):
    _tczoo_suite.addTests(_tczoo_unittest.defaultTestLoader.loadTestsFromTestCase(_tczoo_case))
_tczoo_result = _tczoo_unittest.TextTestRunner(stream=_tczoo_io.StringIO(), verbosity=0).run(_tczoo_suite)
assert _tczoo_result.wasSuccessful()
"""


class CodeRMParams(MethodParams):
    temperature: float | None = Field(0.8, ge=0, description="sampling temperature (the authors' inference "
                                                             "config: 0.8)")
    top_p: float | None = Field(0.95, gt=0, le=1, description="nucleus sampling mass (the authors: 0.95)")
    max_tokens: int | None = Field(2048, ge=1, description="most tokens per answer (the authors: 2,048)")
    solutions: int = Field(100, ge=0, le=1000, description="candidate solutions (the paper's best-of-N: 100)")
    unit_tests: int = Field(100, ge=1, le=1000, description="unit tests, one answer each (the paper: 100)")
    shown: Literal["sample", "stub"] = Field(
        "sample", description='the code answer the unit test prompt shows: the first sampled solution (as the '
                              'authors\' prompts show a model-written one) or the signature and docstring (ours)')


class CodeRM(Method):
    name = "coderm"
    paper = "CodeRM (Ma et al., ACL 2025, arXiv:2501.01054)"
    summary = "N sampled solutions, M unittest classes; majority voting, and unit tests scaled by difficulty"
    setting = Setting.SPEC
    produces = OracleKind.EXPECTED_OUTPUT
    runner = "bestofn"
    functional = True
    stdin = False
    samples_candidates = True
    Params = CodeRMParams

    async def generate(self, task: Task, ctx: Context) -> TestSuite:
        suite = ctx.new_suite(task)
        if not task.entry_point:
            suite.fail("method", "stdin_problem", "CodeRM's unit tests call a function: this problem has no entry "
                                                  "point")
            return ctx.finish(suite)
        p = self.params
        if p.solutions:
            answers = await ctx.ask(suite, "coderm/solution", n=p.solutions, task=task, item="solutions")
            for answer in answers:
                code, why = solution_program(task.statement, answer.text, task.entry_point)
                if why:
                    suite.fail("parse", why, answer.text[-300:], f"solution-{answer.sample}")
                suite.artifacts.append(Artifact(role=CANDIDATE_ROLE, ok=not why, note=why, program=Program(
                    code=code, language=Language.PYTHON, name=f"solution-{answer.sample}")))
        sampled = [a.program.code for a in suite.artifacts if a.role == CANDIDATE_ROLE]
        shown = sampled[0] if p.shown == "sample" and sampled else function_stub(task.statement, task.entry_point)
        answers = await ctx.ask(suite, "coderm/unittest", n=p.unit_tests, task=task, code=shown, item="unit-tests")
        for answer in answers:
            source, why = unit_test_of(answer.text, task.entry_point)
            if why:
                suite.fail("parse", why, answer.text[-300:], f"unit-test-{answer.sample}")
                continue
            test = statement_test(HARNESS.format(source=source), origin=f"unit-test-{answer.sample}")
            test.meta["source"] = source
            suite.tests.append(test)
        return ctx.finish(suite)


def unit_test_of(answer: str, entry_point: str) -> tuple[str, str]:
    """(the unit test's source with the lines that run it, "") or ("", why not)."""
    blocks = [b.code for b in code_blocks(answer) if b.lang in ("python", "")]
    if not blocks:
        return "", "no_code_block"
    try:
        tree = ast.parse(blocks[0])
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return "", "syntax_error"
    kept: list[ast.stmt] = []
    classes: list[str] = []
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names = {a.asname or a.name for a in node.names}
            if entry_point not in names:
                kept.append(node)
        elif isinstance(node, ast.ClassDef) and any(
                isinstance(b, (ast.FunctionDef, ast.AsyncFunctionDef)) and b.name.startswith("test")
                for b in node.body):
            kept.append(node)
            classes.append(node.name)
    if not classes:
        return "", "no_test_class"
    try:
        body = ast.unparse(ast.Module(body=kept, type_ignores=[]))
    except (ValueError, RecursionError):
        return "", "syntax_error"
    return body + "\n" + RUNNER.format(classes=", ".join(classes)), ""
