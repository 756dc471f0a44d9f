"""CodeT: code generation with generated tests (Chen et al., ICLR 2023, arXiv:2207.10397).

The model samples N solutions of a function-level problem and M test samples (each a
few ``assert f(...) == ...`` lines); every solution runs on every test, and *dual
execution agreement* ranks them: solutions that pass exactly the same tests form a
consensus set, scored by |solutions| x |tests passed|; a solution of the best set is
the selection, scored by its pass@1 on the golden tests.

Who does what (the kernel's contract, ``Method.samples_candidates``): this method
samples the N solutions and the M test samples and returns them -- the solutions as
artifacts of role ``CANDIDATE_ROLE``, the tests as the suite (expected outputs, the
asserted values). The ``bestofn`` runner, CodeT's paper scoring, runs the candidates on
the pooled tests and ranks them with every selector it has: the dual agreement selector
(CodeT's), the most-tests-passed selector (HarnessLLM's), the original pass@1 (the
mean of the candidates: CodeT's baseline) and the oracle; so CodeT's ranking also
applies to any other method's tests, and CodeT's tests to any candidate pool
(``runner:bestofn.candidates``: a file of labelled candidates).

The paper's settings (§3.1, the released code; our defaults): temperature 0.8, top-p
0.95, at most 300 tokens per answer; N = 100 solutions, M = 100 test samples, the first
5 asserts of each test sample (the authors' ``test_case_limit``); the docstring's
example input-output cases are removed from both prompts (the paper's Figure 2). The
consensus score is the authors' released code's sqrt(|S_x|) x |S_y|, which reproduces
the paper's Table 2 from the released generations (docs/codet.md); the paper's text
writes |S_x| x |S_y| (``runner:bestofn.dual_agreement: "product"``).

Where we differ (docs/codet.md has the table: paper / authors' code / here): the paper
prompts a completion model with the function's stub and ``assert``; by default a chat
model is asked for the completed function and for assert lines, in our own words
(``prompts/codet/``); ``prompts: "completion"`` sends the paper's own prompts and reads
each answer as a continuation, cut at the stop words, its asserts split out as the
authors' code does -- how the authors' released generations are read (``released:``).
Every assert that names the function is a test, executed as written after the solution
(``asserts: "as_written"``, the paper's; ``"constants"``: only asserts whose arguments
and expected value are constants, as (arguments, expected) pairs, ours). Function-level
problems only (HumanEval, MBPP, LeetCode-style).
"""

from __future__ import annotations

import ast
import re

from typing import Literal

from pydantic import Field

from tczoo.execution.statements import statement_test
from tczoo.method import Context, Method, MethodParams
from tczoo.parsing import code_blocks
from tczoo.parsing.asserts import assert_pair, asserts_in, mentions
from tczoo.schema import (CANDIDATE_ROLE, Artifact, Language, OracleKind, Program, Setting, Task, TestCase,
                          TestSuite)


# CodeT's post-processing (its released code): a completion is cut at the first of these
STOP_WORDS = ["\nclass", "\ndef", "\n#", "\nif", "\nprint"]


class CodeTParams(MethodParams):
    temperature: float | None = Field(0.8, ge=0, description="sampling temperature (paper: 0.8)")
    top_p: float | None = Field(0.95, gt=0, le=1, description="nucleus sampling mass (paper: 0.95)")
    max_tokens: int | None = Field(300, ge=1, description="most tokens per answer (paper: 300)")
    solutions: int = Field(100, ge=0, description="N: sampled solutions (paper: 100); 0 with a candidates file")
    test_samples: int = Field(100, ge=1, description="M: sampled test answers (paper: 100)")
    tests_per_sample: int = Field(5, ge=1, description="asserts kept per test answer (the authors' limit: 5)")
    hide_examples: bool = Field(True, description="remove the docstring's examples from both prompts (paper)")
    prompts: Literal["chat", "completion"] = Field(
        "chat", description='"completion": the paper\'s prompts (the stub; the stub, pass, "# check the '
                            'correctness of f", assert) and answers read as continuations, cut at stop_words; '
                            '"chat" (ours): instructions for a chat model, answers read from code blocks')
    stop_words: list[str] = Field(default_factory=lambda: list(STOP_WORDS),
                                  description="completion prompts: a continuation is cut at the first of these "
                                              "(the authors' code)")
    asserts: Literal["as_written", "constants"] = Field(
        "as_written", description='"as_written": every assert that names the function is a test, executed '
                                  'after the solution as written (paper); "constants" (ours): only asserts whose '
                                  'arguments and expected value are constants, as (arguments, expected) pairs')


class CodeT(Method):
    name = "codet"
    paper = "CodeT (Chen et al., ICLR 2023, arXiv:2207.10397)"
    summary = "N sampled solutions, M sampled assert tests; dual execution agreement picks a solution"
    setting = Setting.SPEC
    produces = OracleKind.EXPECTED_OUTPUT
    runner = "bestofn"
    functional = True
    samples_candidates = True
    stdin = False  # function-level problems only: refused on stdin ones before any LLM call
    Params = CodeTParams

    async def generate(self, task: Task, ctx: Context) -> TestSuite:
        suite = ctx.new_suite(task)
        if not task.entry_point:
            suite.fail("method", "stdin_problem", "CodeT samples functions and assert tests: this problem has no "
                                                  "entry point")
            return ctx.finish(suite)
        p = self.params
        prompt = without_examples(task.statement, task.entry_point) if p.hide_examples else task.statement
        stub = function_stub(prompt, task.entry_point)
        completion = p.prompts == "completion"
        if p.solutions:
            answers = await ctx.ask(suite, "codet/solution_completion" if completion else "codet/solution",
                                    n=p.solutions, task=task, prompt=prompt, item="solutions")
            for answer in answers:
                if completion:
                    code, why = prompt + cut_at_stop_words(answer.text, p.stop_words), ""
                else:
                    code, why = solution_program(task.statement, answer.text, task.entry_point)
                if why:
                    suite.fail("parse", why, answer.text[-300:], item=f"solution-{answer.sample}")
                suite.artifacts.append(Artifact(role=CANDIDATE_ROLE, ok=not why, note=why,
                                                program=Program(code=code, language=Language.PYTHON,
                                                                name=f"solution-{answer.sample}")))
        answers = await ctx.ask(suite, "codet/tests_completion" if completion else "codet/tests",
                                n=p.test_samples, task=task, stub=stub, item="tests")
        skipped: dict[str, int] = {}
        for answer in answers:
            if completion:
                written = completion_asserts(answer.text, task.entry_point, p.stop_words)[:p.tests_per_sample]
            else:
                written = chat_asserts(answer.text, task.entry_point)[:p.tests_per_sample]
            if p.asserts == "as_written":
                suite.tests += [statement_test(s, origin=f"tests-{answer.sample}") for s in written]
                made = len(written)
            else:
                tests, dropped = pairs_of(written, task.entry_point)
                for why, n in dropped.items():
                    skipped[why] = skipped.get(why, 0) + n
                suite.tests += [TestCase(input=i, output=o, origin=f"tests-{answer.sample}", meta={"kind": k})
                                for k, i, o in tests]
                made = len(tests)
            if not made:
                suite.fail("parse", "no_usable_assert", answer.text[-300:], item=f"tests-{answer.sample}")
        for why, n in sorted(skipped.items()):
            suite.fail("parse", why, f"{n} assert(s) not made into tests", item="tests")
        return ctx.finish(suite)


# --------------------------------------------------------------------------- prompts

_EXAMPLE_LINE = re.compile(r"^\s*(>>>|(for\s+)?(an?\s+)?examples?\b|e\.g\.)", re.I)


def without_examples(prompt: str, entry_point: str) -> str:
    """``prompt`` with the entry point's docstring cut before its first example line
    (``>>>``, ``Example``, ``For example`` ...): CodeT shows neither prompt the
    docstring's input-output examples. Unchanged when it cannot tell."""
    try:
        tree = ast.parse(prompt)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return prompt
    fns = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == entry_point]
    if not fns or not fns[-1].body:
        return prompt
    doc = fns[-1].body[0]
    if not (isinstance(doc, ast.Expr) and isinstance(doc.value, ast.Constant) and isinstance(doc.value.value, str)):
        return prompt
    lines = prompt.splitlines(keepends=True)
    first, last = doc.lineno - 1, doc.end_lineno - 1
    cut = next((j for j in range(first + 1, last + 1) if _EXAMPLE_LINE.match(lines[j])), None)
    if cut is None:
        return prompt
    closing = lines[last].rstrip()
    quote = closing[-3:] if closing[-3:] in ('"""', "'''") else None
    if quote is None:
        return prompt
    kept = lines[:cut]
    while len(kept) > first + 1 and not kept[-1].strip():
        kept.pop()
    indent = lines[first][: len(lines[first]) - len(lines[first].lstrip())]
    text = "".join(kept + [indent + quote + "\n"] + lines[last + 1:])
    try:
        ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return prompt
    return text


def function_stub(prompt: str, entry_point: str) -> str:
    """The prompt with ``pass`` as the entry point's body (the test prompt shows the
    signature and the docstring, no implementation)."""
    body = prompt.rstrip("\n") + "\n"
    try:
        tree = ast.parse(body)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return body
    fns = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == entry_point]
    if not fns:
        return body
    doc = fns[-1].body[0] if fns[-1].body else None
    indent = " " * ((doc.col_offset if doc is not None else fns[-1].col_offset + 4))
    return body + indent + "pass\n"


# --------------------------------------------------------------------------- answers


def solution_program(prompt: str, answer: str, entry_point: str) -> tuple[str, str]:
    """(program, failure reason or ""): the answer's code after the prompt, so the
    prompt's imports and helper functions are there and the answer's definition of the
    entry point replaces the stub; an answer that is only the body completes the
    prompt. An answer without usable code stays a candidate (it fails every test, as a
    bad sample does in CodeT's baseline) and says why."""
    blocks = [b.code for b in code_blocks(answer) if b.lang in ("python", "")]
    code = max(blocks, key=len) if blocks else answer
    head = prompt.rstrip("\n") + "\n"
    if _defines(code, entry_point):
        return head + "\n\n" + code.strip("\n") + "\n", ""
    body = code if code.startswith((" ", "\t")) else "".join(
        "    " + line if line.strip() else line for line in code.splitlines(keepends=True))
    program = head + body.rstrip("\n") + "\n"
    try:
        ast.parse(program)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return program, "no_code_block" if not blocks else "syntax_error"
    return program, ""


def _defines(code: str, name: str) -> bool:
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return any(isinstance(n, ast.FunctionDef) and n.name == name for n in tree.body)


def cut_at_stop_words(text: str, stop_words: list[str]) -> str:
    """A completion up to the first stop word (CodeT's post-processing, as its code does
    it: each stop word in turn cuts what the previous ones left)."""
    for word in stop_words:
        if word and word in text:
            text = text.split(word)[0]
    return text


def completion_asserts(answer: str, entry_point: str, stop_words: list[str]) -> list[str]:
    """The asserts of a continuation of CodeT's test prompt (which ends in ``assert``), as
    CodeT's post-processing reads them: the text split at each ``assert ``, the parts
    naming the function, each cut at the stop words, kept when it compiles as a
    statement; in the answer's order, not yet limited per sample."""
    parts = [f"assert {part}".strip() for part in f"assert {answer}".split("assert ")
             if entry_point.strip() in part and part.strip()]
    kept = []
    for part in parts:
        statement = cut_at_stop_words(part, stop_words).strip()
        if statement and "assert" in statement and _compiles_in_a_block(statement):
            kept.append(statement)
    return kept


def _compiles_in_a_block(statement: str) -> bool:
    body = statement.replace("\n", "\n    ")
    try:
        compile(f"try:\n    {body}\nexcept:\n    pass\n", "<assert>", "exec")
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return False
    return True


def chat_asserts(answer: str, entry_point: str) -> list[str]:
    """The asserts about ``entry_point`` in a chat answer's code blocks (the whole answer
    when it has none), each as its source, in order, not yet limited per sample."""
    blocks = [b.code for b in code_blocks(answer) if b.lang in ("python", "")]
    statements = [s for code in (blocks or [answer]) for s in asserts_in(code)]
    out = []
    for s in statements:
        if mentions(s, entry_point):
            try:
                out.append(ast.unparse(s))
            except (ValueError, RecursionError):
                continue
    return out


def pairs_of(statements: list[str], entry_point: str) -> tuple[list[tuple[str, str, str]], dict[str, int]]:
    """Of assert statements, those whose arguments and expected value are constants, as
    (kind, input, expected output); and how many could not be, by reason."""
    tests, dropped = [], {}
    for text in statements:
        try:
            body = ast.parse(text).body
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            body = []
        pair = assert_pair(body[0], entry_point) if len(body) == 1 else None
        if pair is None:
            dropped["assert_not_constant"] = dropped.get("assert_not_constant", 0) + 1
        else:
            tests.append((pair.kind, pair.input, pair.output))
    return tests, dropped


def cases_from_asserts(answer: str, entry_point: str, limit: int) -> tuple[list[tuple[str, str, str]], dict[str, int]]:
    """The first ``limit`` asserts of a chat ``answer`` about ``entry_point`` (CodeT's
    per-sample limit), those whose arguments and expected value are constants as
    (kind, input, expected output); and how many of them could not be, by reason."""
    return pairs_of(chat_asserts(answer, entry_point)[:limit], entry_point)
