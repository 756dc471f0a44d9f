"""UTDebug: debugging a buggy function with generated unit tests, validated and backtracked.

Prasad et al., *Learning to Generate Unit Tests for Automated Debugging* (2025,
arXiv:2502.01619, §3.2; the authors' ``mbpp_utdebug.py``/``he_utdebug.py``). docs/utgen.md.

Setting: the task and the buggy function (``spec+target``). Per round (``rounds``, the
paper's 3):

1. unit tests for the current code, as UTGen writes them (``utgen``'s prompts), with the
   outputs decided by a vote (``output_votes`` answers about each input, the majority kept
   when it holds ``min_agreement`` of them: UTDebug's test-time scaling); answers are
   asked until ``unit_tests`` distinct inputs have a kept output, at most
   ``attempts`` x ``unit_tests`` answers (the authors' ``4 * units``); they are written
   again only after the code changed;
2. the code runs on them (in the sandbox); when it passes all, debugging stops (the code
   is taken as fixed);
3. otherwise the model is shown the first failing unit test (its input, what the code
   returned or raised, the expected output) and answers with a corrected function;
4. *validation and back-tracking* (``backtrack``): the edit is kept only if the edited code
   passes at least as many of those unit tests as the code before it; otherwise it is
   undone and the next round asks again (a new sample) with the same unit tests.

The suite holds every unit test written (``meta["round"]``: the round; the debugging
runner's intrinsic rates use round 1's, aimed at the given function) and, for each round,
the code after it as an artifact of role ``REPAIRED_ROLE`` (``meta["round"]``,
``meta["note"]``: edited, backtracked, all unit tests pass, no unit test ...). The
``debugging`` runner judges those on the golden tests: pass@1 after debugging.
"""

from __future__ import annotations

import ast
from typing import Literal

from pydantic import Field

from tczoo.execution import Limits, same_output
from tczoo.method import Context, Method, MethodParams
from tczoo.methods.utgen import write_unit_tests
from tczoo.parsing import ParseError, extract_function
from tczoo.schema import REPAIRED_ROLE, Artifact, Language, OracleKind, Program, Setting, Task, TestCase, TestSuite

ROUND_STRIDE = 1000  # sample indices of round r start at (r - 1) * ROUND_STRIDE: every round asks afresh


class UTDebugParams(MethodParams):
    temperature: float | None = Field(0.7, ge=0, description="sampling temperature of the repairs (the authors: "
                                                             "0.7)")
    top_p: float | None = Field(0.9, gt=0, le=1, description="nucleus sampling mass (the authors: 0.9)")
    max_tokens: int | None = Field(8192, ge=1, description="most tokens per repair and unit test answer (the "
                                                           "authors: 8 x 1,024)")
    rounds: int = Field(3, ge=1, le=20, description="debugging rounds (the paper: 3; the authors' --max-turns 4 "
                                                    "counts the given code as round 0)")
    unit_tests: int = Field(3, ge=1, le=50, description="unit tests per round (the authors' --units 3)")
    attempts: int = Field(4, ge=1, le=20, description="answers asked per unit test at most (the authors: "
                                                      "4 x units)")
    mode: Literal["failing", "random"] = Field(
        "failing", description='unit tests aimed at the current code ("failing": UTGen and the prompted baseline) '
                               'or written from the task only ("random")')
    unit_temperature: float = Field(0.7, ge=0, description="sampling temperature of the unit test answers (the "
                                                           "authors: 0.7)")
    output_votes: int = Field(8, ge=0, le=64, description="outputs asked per unit test input, majority kept (the "
                                                          "authors' --num-votes 8; 0: the answer's own output)")
    min_agreement: float = Field(0.5, gt=0, le=1, description="share of the votes the kept output needs (the "
                                                              "authors' --filter-vote 0.5)")
    vote_temperature: float = Field(0.8, ge=0, description="sampling temperature of the output votes (the "
                                                           "authors: 0.8)")
    backtrack: bool = Field(True, description="undo an edit whose code passes fewer of the unit tests that prompted "
                                              "it (the paper's validation and back-tracking)")


class UTDebug(Method):
    name = "utdebug"
    paper = "UTDebug (Prasad et al., 2025, arXiv:2502.01619)"
    summary = "debug a buggy function with UTGen's unit tests (output votes), validate each edit, back-track"
    setting = Setting.SPEC_TARGET
    produces = OracleKind.EXPECTED_OUTPUT
    runner = "debugging"
    functional = True
    stdin = False
    Params = UTDebugParams

    async def generate(self, task: Task, ctx: Context) -> TestSuite:
        suite = ctx.new_suite(task)
        if not task.entry_point:
            suite.fail("method", "stdin_problem", "UTDebug debugs Python functions: this problem has no entry point")
            return ctx.finish(suite)
        if task.target is None:
            suite.fail("method", "no_target", "UTDebug needs the function to debug (spec+target)")
            return ctx.finish(suite)
        p = self.params
        code = task.target.code
        limits = Limits.of(task)
        tests: list[TestCase] = []
        edited = True
        for r in range(1, p.rounds + 1):
            note = ""
            if edited:
                tests = await self._unit_tests(ctx, suite, task, code, r)
                suite.tests += tests
                edited = False
            if not tests:
                self._repaired(suite, code, r, "no unit test: the code is kept")
                break
            results = await self._check(ctx, task, code, tests, limits)
            if all(ok for ok, _ in results):
                self._repaired(suite, code, r, "all unit tests pass: debugging stops")
                break
            j = next(i for i, (ok, _) in enumerate(results) if not ok)
            answers = await ctx.ask(suite, "utdebug/debug", first_sample=(r - 1) * ROUND_STRIDE, task=task, code=code,
                                    call=tests[j].meta.get("call", tests[j].input), got=results[j][1],
                                    expected=tests[j].output, item=f"round-{r}/repair")
            new = self._program(suite, task, code, answers[0].text if answers else None, r)
            if new is None:
                self._repaired(suite, code, r, "no usable repair: the code is kept")
                continue
            before = sum(ok for ok, _ in results)
            after = sum(ok for ok, _ in await self._check(ctx, task, new, tests, limits))
            if p.backtrack and after < before:
                note = f"backtracked: the edit passes {after} of {len(tests)} unit tests, the code before {before}"
            else:
                code, edited = new, True
                note = f"edited: {after} of {len(tests)} unit tests pass (before: {before})"
            self._repaired(suite, code, r, note)
        return ctx.finish(suite)

    async def _unit_tests(self, ctx: Context, suite: TestSuite, task: Task, code: str, r: int) -> list[TestCase]:
        """Up to ``unit_tests`` unit tests with distinct inputs, asking in batches."""
        p = self.params
        kept: list[TestCase] = []
        seen: set[str] = set()
        asked = 0
        while len(kept) < p.unit_tests and asked < p.attempts * p.unit_tests:
            n = min(p.unit_tests - len(kept), p.attempts * p.unit_tests - asked)
            batch = await write_unit_tests(ctx, suite, task, code, n, mode=p.mode, votes=p.output_votes,
                                           min_agreement=p.min_agreement, vote_temperature=p.vote_temperature,
                                           first_sample=(r - 1) * ROUND_STRIDE + asked, round_=r,
                                           temperature=p.unit_temperature)
            asked += n
            for t in batch:
                if t.input not in seen and len(kept) < p.unit_tests:
                    seen.add(t.input)
                    kept.append(t)
        return kept

    @staticmethod
    async def _check(ctx: Context, task: Task, code: str, tests: list[TestCase],
                     limits: Limits) -> list[tuple[bool, str]]:
        """(passes, what it returned or raised) of ``code`` on each unit test, in the sandbox."""
        program = Program(code=code, language=Language.PYTHON, name="under-repair")
        runs = await ctx.run(program, [t.input for t in tests], limits, entry_point=task.entry_point)
        out = []
        for t, run in zip(tests, runs):
            if not run.ok:
                shown = " ".join(run.detail.split())[-300:] or run.verdict.value
                out.append((False, f"{run.verdict.value}: {shown}"))
            else:
                out.append((same_output(run.output, t.output or "", functional=True), run.output[:2000]))
        return out

    @staticmethod
    def _program(suite: TestSuite, task: Task, code: str, answer: str | None, r: int) -> str | None:
        """The corrected function, with the imports of the task's prompt and of the code
        before it (a repair that leaves out `from typing import List` still loads)."""
        if answer is None:
            return None
        try:
            fixed = extract_function(answer, (task.entry_point or "",))
        except ParseError as exc:
            suite.fail("repair", exc.reason, exc.detail, f"round-{r}/repair")
            return None
        imports = list(dict.fromkeys(_imports(task.statement) + _imports(code)))
        return ("\n".join(imports) + "\n\n" if imports else "") + fixed.strip("\n") + "\n"

    @staticmethod
    def _repaired(suite: TestSuite, code: str, r: int, note: str) -> None:
        suite.artifacts.append(Artifact(role=REPAIRED_ROLE, note=note, program=Program(
            code=code, language=Language.PYTHON, name=f"round-{r}", meta={"round": r, "note": note})))


def _imports(code: str) -> list[str]:
    """The top-level import statements of ``code`` (none when it does not parse)."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    return [ast.unparse(n) for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
