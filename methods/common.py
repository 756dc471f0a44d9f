"""Helpers shared by several methods: parsing answers into test cases and programs,
running model-written generator functions in the sandbox, collecting outputs."""

from __future__ import annotations

import ast
import asyncio
import re
import zlib
from dataclasses import dataclass, field
from typing import Any

from tczoo.parsing import (
    ParseError,
    as_stdin,
    code_blocks,
    extract_code,
    looks_like_solution,
    parse_json,
    python_defines,
)
from tczoo.schema import Artifact, Language, Program, TestCase, TestSuite


def tests_from_json_answer(
    suite: TestSuite, text: str, *, with_outputs: bool, origin: str, item: str = ""
) -> list[TestCase]:
    """Test cases from an answer holding a JSON list of {"input", "output"} (or inputs).

    Accepts a bare list of inputs, objects with ``input``/``stdin`` keys, inputs given
    as structured values (turned into stdin text), and a truncated list (complete
    items kept). Every item or answer that cannot be used is recorded on the suite.
    """
    if solution_not_tests(text):
        suite.fail("parse", "solution_instead_of_tests", text[:300], item)
        return []
    try:
        data = parse_json(text)
    except ParseError as exc:
        reason = "solution_instead_of_tests" if looks_like_solution(text) else exc.reason
        suite.fail("parse", reason, exc.detail or text[:300], item)
        return []
    if json_cut_off(text):
        suite.fail("parse", "truncated", "the answer was cut off; complete items kept", item)
    return tests_from_value(suite, data, with_outputs=with_outputs, origin=origin, item=item)


_CODE_IN_JSON = re.compile(r'"\s*[+*]\s*[\w"(]|[\w)\]]\s*[+*]\s*"|\.join\(|\brange\(|\bstr\(')


def code_in_json(text: str) -> bool:
    """Whether a JSON-ish answer builds values with Python expressions
    (``"1 " * 5``, ``" ".join(...)``) instead of writing them out."""
    return bool(_CODE_IN_JSON.search(text))


def code_cut_off(text: str) -> bool:
    """Whether the answer ends inside a fenced code block (truncated mid-code)."""
    blocks = code_blocks(text)
    return bool(blocks) and not blocks[-1].closed


def note_truncation(suite: TestSuite, text: str, item: str) -> None:
    """Record that an answer was cut off (what could be parsed is still used)."""
    if code_cut_off(text) or json_cut_off(text):
        suite.fail("parse", "truncated", "the answer was cut off; the complete part is used", item)


def json_cut_off(text: str) -> bool:
    """Whether the answer's JSON (fenced or not) ends inside an open array/object/string."""
    blocks = [b for b in code_blocks(text) if b.lang in ("json", "", "text")]
    if blocks and blocks[0].closed:
        return False
    source = blocks[0].code if blocks else text
    starts = [i for i in (source.find("["), source.find("{")) if i >= 0]
    if not starts:
        return False
    depth, in_str, escaped = 0, False, False
    for ch in source[min(starts):]:
        if in_str:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
            if depth == 0:
                return False
    return depth > 0 or in_str


def solution_not_tests(text: str) -> bool:
    """A solution program where data was asked for (TC-Bench A.5's most common failure):
    the answer reads stdin like a solution and holds no JSON block, only program code
    (whose brackets must not be mistaken for a list of tests)."""
    if not looks_like_solution(text):
        return False
    blocks = code_blocks(text)
    if blocks:
        return not any(b.lang in ("json", "text") or b.code.lstrip().startswith(("[", "{")) for b in blocks)
    return not text.lstrip().startswith(("[", "{"))


def tests_from_value(
    suite: TestSuite, data: Any, *, with_outputs: bool, origin: str, item: str = ""
) -> list[TestCase]:
    """Test cases from already-parsed JSON data (see ``tests_from_json_answer``)."""
    if isinstance(data, dict):
        for key in ("tests", "test_cases", "testcases", "cases", "inputs"):
            if isinstance(data.get(key), list):
                data = data[key]
                break
        else:
            data = [data]
    if not isinstance(data, list):
        suite.fail("parse", "not_a_list", repr(data)[:300], item)
        return []
    out: list[TestCase] = []
    for i, entry in enumerate(data):
        where = f"{item}#{i}" if item else f"#{i}"
        raw_in: Any
        raw_out: Any = None
        if isinstance(entry, dict):
            raw_in = next((entry[k] for k in ("input", "stdin", "input_str", "in") if k in entry), None)
            if raw_in is None and not with_outputs:
                raw_in = entry  # an input given as an object of its fields ({"n": 2, "a": [...]})
            raw_out = next((entry[k] for k in ("output", "expected_output", "stdout", "out", "expected") if k in entry), None)
        else:
            raw_in = entry
        if raw_in is None:
            suite.fail("parse", "missing_input", repr(entry)[:300], where)
            continue
        try:
            stdin = as_stdin(raw_in)
        except ParseError as exc:
            suite.fail("parse", exc.reason, exc.detail, where)
            continue
        expected = None
        if with_outputs:
            if raw_out is None:
                suite.fail("parse", "missing_output", repr(entry)[:300], where)
                continue
            try:
                expected = as_stdin(raw_out)
            except ParseError as exc:
                suite.fail("parse", exc.reason, exc.detail, where)
                continue
        out.append(TestCase(input=stdin, output=expected, origin=origin))
    return out


def dedupe(tests: list[TestCase]) -> list[TestCase]:
    """Drop repeated inputs (whitespace-normalised), keeping the first occurrence."""
    seen: set[str] = set()
    kept = []
    for t in tests:
        key = " ".join(t.input.split())
        if key not in seen:
            seen.add(key)
            kept.append(t)
    return kept


# --------------------------------------------------------------------------- programs in answers


def _strings_in(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings_in(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings_in(v)]
    return []


def bare_python(text: str, *, max_prose_lines: int = 20) -> str | None:
    """Unfenced Python wrapped in prose ("Sure! Here it is:" ... "Hope this helps"):
    the code left after dropping the fewest leading and trailing lines. None if no
    substantial code (a definition, import or several statements) remains."""
    import ast

    lines = text.strip().splitlines()
    n = len(lines)
    for lead in range(min(max_prose_lines, n)):
        for trail in range(min(max_prose_lines, n - lead)):
            code = "\n".join(lines[lead:n - trail])
            try:
                tree = ast.parse(code)
            except SyntaxError:
                continue
            substantial = len(tree.body) >= 2 or any(
                isinstance(node, (ast.FunctionDef, ast.Import, ast.ImportFrom, ast.ClassDef)) for node in tree.body)
            if substantial:
                return code + "\n"
    return None


def function_from(suite: TestSuite, answers: list, functions: tuple[str, ...], item: str) -> str | None:
    """``extract_function`` on the first answer, a parse failure recorded on ``suite``
    (None when there is no answer or no usable function)."""
    if not answers:
        return None
    try:
        return extract_function(answers[0].text, functions)
    except ParseError as exc:
        suite.fail("parse", exc.reason, exc.detail, item)
        return None


def extract_function(text: str, functions: tuple[str, ...]) -> str:
    """Python source from an answer that defines one of ``functions``.

    Tries fenced/unfenced code first, then code carried inside JSON strings (a model
    that answers ``{"generator": "def generate(): ..."}``). Raises ``ParseError`` with
    ``solution_instead_of_generator`` when the answer is a solution program instead.
    """
    last: ParseError | None = None
    for name in functions:
        try:
            code = extract_code(text, "python", require=(f"def {name}",))
            if name in python_defines(code):
                return code
        except ParseError as exc:
            last = exc
    if not code_blocks(text):
        bare = bare_python(text)
        if bare is not None and any(f in python_defines(bare) for f in functions):
            return bare
    try:
        data = parse_json(text)
    except ParseError:
        data = None
    for s in _strings_in(data):
        defined = python_defines(s)
        if any(f in defined for f in functions):
            return s
    code_in_answer = any(b.lang in ("python", "cpp", "c", "") for b in code_blocks(text))
    if looks_like_solution(text):
        raise ParseError("solution_instead_of_generator",
                         f"the answer is a solution program, not a function {functions[0]}")
    if (last is not None and last.reason == "truncated") or code_cut_off(text):
        raise ParseError("truncated", f"the answer was cut off before {functions[0]} was complete")
    raise ParseError("missing_definition" if code_in_answer else "no_code_block",
                     f"no Python function named {' or '.join(functions)} in the answer")


def extract_program(text: str) -> Program:
    """A complete stdin/stdout program (Python preferred, else C++) from an answer."""
    for lang in ("python", "cpp"):
        blocks = [b for b in code_blocks(text) if b.lang == lang]
        if blocks:
            code = extract_code(text, lang)
            return Program(code=code, language=Language(lang))
    try:
        code = extract_code(text, "python")  # untagged fence or bare code that parses
    except ParseError:
        code = None if code_blocks(text) else bare_python(text)
        if code is None:
            raise
    if not code.strip():
        raise ParseError("no_code_block", "the code block is empty")
    if "#include" in code or "int main" in code:
        return Program(code=code, language=Language.CPP)
    return Program(code=code, language=Language.PYTHON)


# --------------------------------------------------------------------------- generated functions, run in the sandbox

# Model-written Python runs through the sandbox's one call driver (``Sandbox.call_many``):
# it seeds ``random`` (so a generator called with distinct seeds gives distinct inputs),
# runs the code as a module that is not __main__ and returns the JSON-encoded value.

CALL_FAILURE_REASONS = {  # CallResult.error_type -> the reason a suite records
    "timeout": "timeout", "memory": "memory", "output": "output_too_large",
    "no_function": "no_function", "bad_return": "bad_return",
    "exception": "crash", "assertion": "crash",
}


def required_args(code: str, function: str) -> int:
    """How many positional parameters ``function`` insists on (0 if unknown)."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return 0
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == function:
            positional = node.args.posonlyargs + node.args.args
            return len(positional) - len(node.args.defaults)
    return 0


def py_call(code: str, function: str, *, seed: int, limits, args: list | None = None, tag: Any = None):
    """A sandbox call of ``function``; a generator that insists on a parameter gets the seed."""
    from tczoo.sandbox import PyCall

    if args is None:
        need = required_args(code, function)
        args = [seed] + [None] * (need - 1) if need else []
    return PyCall(code=code, function=function, args=args, seed=seed, limits=limits, tag=tag)


def read_call(res) -> tuple[bool, Any, str, str]:
    """(ok, value, reason, detail) of one ``CallResult``."""
    if res.ok:
        return True, res.value, "", ""
    if res.run.verdict.value == "SE":
        return False, None, "sandbox_error", res.error
    return False, None, CALL_FAILURE_REASONS.get(res.error_type or "", "crash"), res.error[-1500:]


async def call_all(ctx, calls: list) -> list:
    """Run sandbox calls off the event loop, results in call order."""
    if not calls:
        return []
    return await ctx.sandbox.acall_many(calls)


async def run_jobs(ctx, jobs: list) -> list:
    """Run sandbox jobs off the event loop, results in job order."""
    if not jobs:
        return []
    return await asyncio.to_thread(lambda: list(ctx.sandbox.run_many(jobs)))


def input_key(text: str) -> str:
    return " ".join(text.split())


@dataclass
class Generator:
    """A model-written Python function that makes test inputs.

    ``multi``: the function returns a list of inputs (an edge-case generator); otherwise
    one input per call (a string, or a structured value turned into stdin text)."""

    name: str
    code: str
    function: str
    origin: str
    multi: bool = False
    role: str = "generator"
    tests: list[TestCase] = field(default_factory=list)
    runs: int = 0
    failures: int = 0
    retired: str = ""  # why it stopped being asked ("" while live)


def _seed_for(task_seed: int, name: str, k: int) -> int:
    return (zlib.crc32(f"{task_seed}:{name}".encode()) * 1_000 + k) % (2**31 - 1)


async def run_generators(ctx, suite: TestSuite, generators: list[Generator], *, per_generator: int,
                         limits, task_seed: int = 0, max_rounds: int = 3,
                         max_input_kb: int = 4096, seen: set[str] | None = None) -> list[Generator]:
    """Call every generator with distinct seeds until it has given ``per_generator`` new
    inputs (duplicates across all generators removed), it stops producing new ones, or
    ``max_rounds`` rounds have run. A generator that crashes, hangs, exhausts memory,
    prints too much or returns something unusable is retired with a recorded failure;
    the others go on. Each generator is kept in ``suite.artifacts``. Fills and returns
    ``generators`` (their ``tests``)."""
    seen = seen if seen is not None else set()
    for rnd in range(max_rounds):
        jobs = []
        for g in generators:
            if g.retired:
                continue
            need = per_generator - len(g.tests)
            if need <= 0:
                continue
            calls = 1 if g.multi else need
            for _ in range(calls):
                jobs.append(py_call(g.code, g.function, seed=_seed_for(task_seed, g.name, g.runs),
                                    limits=limits, tag=g.name))
                g.runs += 1
        if not jobs:
            break
        results = await call_all(ctx, jobs)
        by_name = {g.name: g for g in generators}
        fresh = {g.name: 0 for g in generators}
        for job, res in zip(jobs, results):
            g = by_name[job.tag]
            if g.retired:
                continue
            ok, value, reason, detail = read_call(res)
            values: list[Any] = []
            if ok:
                if g.multi:
                    if isinstance(value, list):
                        values = value
                    elif isinstance(value, str):
                        values = [value]
                    else:
                        ok, reason, detail = False, "bad_return", f"expected a list of inputs, got {type(value).__name__}"
                else:
                    values = [value]
            if not ok:
                g.failures += 1
                g.retired = reason
                suite.fail(g.role, reason, detail, g.name)
                continue
            for v in values:
                try:
                    text = as_stdin(v)
                except ParseError as exc:
                    suite.fail(g.role, exc.reason, exc.detail, g.name)
                    continue
                if not text.strip():
                    suite.fail(g.role, "empty_input", "", g.name)
                    continue
                if len(text.encode()) > max_input_kb * 1024:
                    # It will keep making inputs this big: retire it like one that crashed.
                    g.failures += 1
                    g.retired = "input_too_large"
                    suite.fail(g.role, "input_too_large", f"{len(text.encode()) // 1024} KB > {max_input_kb} KB", g.name)
                    break
                key = input_key(text)
                if key in seen:
                    continue
                seen.add(key)
                fresh[g.name] += 1
                if len(g.tests) < per_generator or g.multi:
                    g.tests.append(TestCase(input=text, origin=g.origin))
        for g in generators:
            # A generator that gave nothing new (deterministic, or a narrow edge-case
            # list) will not give more with other seeds: stop asking it.
            if not g.retired and fresh[g.name] == 0 and len(g.tests) < per_generator:
                g.retired = "exhausted"
            if g.multi and not g.retired:
                g.retired = "done"
    for g in generators:
        note = f"{len(g.tests)} inputs from {g.runs} runs"
        if g.retired and g.retired not in ("done", "exhausted"):
            note += f"; retired: {g.retired}"
        elif g.retired == "exhausted":
            note += "; stopped giving new inputs"
        suite.artifacts.append(Artifact(role=g.role, program=Program(code=g.code, language=Language.PYTHON,
                                                                      name=g.name, meta={"function": g.function}),
                                        ok=g.failures == 0, note=note))
    return generators


def interleave(groups: list[list[TestCase]], limit: int) -> list[TestCase]:
    """Round-robin over the groups until ``limit`` tests are taken (keeps every source
    represented when the budget cuts the list)."""
    out: list[TestCase] = []
    i = 0
    while len(out) < limit and any(i < len(g) for g in groups):
        for g in groups:
            if i < len(g) and len(out) < limit:
                out.append(g[i])
        i += 1
    return out


async def outputs_of(ctx, programs: list[Program], inputs: list[str], limits) -> list[list]:
    """RunResults of every program on every input: ``result[i][p]``."""
    from tczoo.sandbox import Job

    jobs = [Job(program=p, stdin=s, limits=limits) for s in inputs for p in programs]
    flat = await run_jobs(ctx, jobs)
    k = len(programs)
    return [flat[i * k:(i + 1) * k] for i in range(len(inputs))]


def same_output(a: str, b: str, checker: str | None = None) -> bool:
    """Outputs equal under the problem's comparator (tokens, exact or float tolerance)."""
    from tczoo.sandbox import compare_outputs

    return compare_outputs(a, b, checker)


async def evaluate_literal(ctx, text: str, limits) -> Any:
    """The value of a list/object literal written with Python expressions in it
    (``["3\\n" + "1 " * 3]``: code inside JSON), evaluated in the sandbox, never here.
    None when it cannot be evaluated."""
    blocks = [b.code for b in code_blocks(text) if b.lang in ("json", "", "text", "python")]
    for source in blocks + [text]:
        starts = [i for i in (source.find("["), source.find("{")) if i >= 0]
        if not starts:
            continue
        span = source[min(starts):].strip()
        code = f"VALUE = (\n{span}\n)\n\ndef value():\n    return VALUE\n"
        try:
            compile(code, "literal.py", "exec")
        except SyntaxError:
            continue
        [res] = await call_all(ctx, [py_call(code, "value", seed=0, limits=limits)])
        ok, value, _, _ = read_call(res)
        if ok:
            return value
    return None
