"""Answers into test cases and programs.

An LLM answer holds a JSON list of tests, a program, or a function that makes inputs —
usually not quite as asked. These functions salvage what they can and record every
item they cannot use on the suite (``TestSuite.fail``), so a method only sees usable
data and the run's report can say what was lost and why.
"""

from __future__ import annotations

import ast
import re
from typing import Any

from tczoo.parsing.text import (
    ParseError,
    as_stdin,
    code_blocks,
    extract_code,
    looks_like_solution,
    parse_json,
    python_defines,
)
from tczoo.schema import Language, Program, TestCase, TestSuite


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
    lines = text.strip().splitlines()
    n = len(lines)
    for lead in range(min(max_prose_lines, n)):
        for trail in range(min(max_prose_lines, n - lead)):
            code = "\n".join(lines[lead:n - trail])
            try:
                tree = ast.parse(code)
            except (SyntaxError, ValueError, RecursionError, MemoryError):  # ValueError: NUL, lone surrogates
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


def contest_language(text: str | None) -> Language | None:
    """A contest's language name (Codeforces': ``GNU G++20 13.2``, ``PyPy 3-64``, ``Python
    3.8``) by REFUTE's rule (its authors' ``parse_lang``): any C++, or Python 3 (PyPy with no
    version counts as 3); None for anything else, Python 2 included."""
    lang = str(text or "").lower().strip()
    if "c++" in lang or "cpp" in lang or "g++" in lang:
        return Language.CPP
    if "python" in lang or "pypy" in lang:
        version = "".join(ch for ch in lang if ch.isdigit() or ch == ".")
        if not version:
            return Language.PYTHON if "pypy" in lang else None
        try:
            return Language.PYTHON if float(version.split(".")[0] or "0") >= 3 else None
        except ValueError:
            return None
    return None


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
        salvaged = None if code_blocks(text) else bare_python(text)
        if salvaged is None:
            raise
        code = salvaged
    if not code.strip():
        raise ParseError("no_code_block", "the code block is empty")
    if "#include" in code or "int main" in code:
        return Program(code=code, language=Language.CPP)
    return Program(code=code, language=Language.PYTHON)


# --------------------------------------------------------------------------- generated functions, run in the sandbox

# Model-written Python runs through the sandbox's one call driver (``Sandbox.call_many``):
# it seeds ``random`` (so a generator called with distinct seeds gives distinct inputs),
# runs the code as a module that is not __main__ and returns the JSON-encoded value.
