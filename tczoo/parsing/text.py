"""Getting code and data out of real LLM answers.

Models fence code or don't, wrap JSON in prose, leave comments and trailing commas in
it, put code inside JSON strings, give inputs as objects instead of stdin text, and get
cut off mid-answer. Every function here salvages what it can and says what went wrong
through ``ParseError.reason`` (recorded in the TestSuite provenance by the caller).
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from typing import Any


class ParseError(ValueError):
    def __init__(self, reason: str, detail: str = ""):
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail


# The failure reason of an answer that is empty: a method records it, a runner may treat
# it apart (HarnessLLM's evaluation drops the triplet of an empty response).
EMPTY_RESPONSE = "empty_response"


@dataclass
class CodeBlock:
    lang: str
    code: str
    closed: bool = True  # False: the answer was cut off inside this block


_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})[ \t]*([\w+#.-]*)[^\n]*$", re.M)

LANG_ALIASES = {
    "py": "python", "python3": "python", "python": "python",
    "cpp": "cpp", "c++": "cpp", "cc": "cpp", "cxx": "cpp",
    "c": "c", "json": "json", "jsonl": "json", "text": "text", "plaintext": "text",
    "txt": "text", "": "",
}


def code_blocks(text: str) -> list[CodeBlock]:
    """Fenced blocks in order; an unterminated last block (truncation) is kept, marked."""
    blocks: list[CodeBlock] = []
    pos = 0
    while True:
        m = _FENCE.search(text, pos)
        if not m:
            break
        fence, lang = m.group(1), m.group(2).lower()
        start = m.end() + 1
        close = re.compile(rf"^[ \t]*{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$", re.M)
        end = close.search(text, start)
        if end is None:
            blocks.append(CodeBlock(LANG_ALIASES.get(lang, lang), text[start:], closed=False))
            break
        blocks.append(CodeBlock(LANG_ALIASES.get(lang, lang), text[start : end.start()]))
        pos = end.end()
    return blocks


def extract_code(text: str, language: str = "python", *, require: tuple[str, ...] = ()) -> str:
    """The code of ``language`` in an answer.

    Prefers fenced blocks tagged with the language, then untagged ones, then an unfenced
    answer that parses as the language (Python only). With ``require``, the block must
    mention every name in it (e.g. ``("def generate",)``); of several candidates, the
    longest satisfying one wins, since models often show a snippet before the full code.
    """
    blocks = code_blocks(text)
    candidates = [b for b in blocks if b.lang == language] or [
        b for b in blocks if b.lang in ("", "text")
    ]
    if language == "python" and not candidates and not blocks:
        stripped = text.strip()
        if stripped and _parses_as_python(stripped):
            candidates = [CodeBlock("python", stripped)]
    fitting = [b for b in candidates if all(r in b.code for r in require)]
    if not fitting and require and len(candidates) > 1:
        # Definitions spread over several blocks (generate_input_1 in one, check_output
        # in the next): their concatenation is the answer.
        joined = CodeBlock(language, "\n\n".join(b.code for b in candidates), candidates[-1].closed)
        if all(r in joined.code for r in require):
            fitting = [joined]
    if not fitting:
        if candidates or blocks:
            raise ParseError("missing_definition" if require else "no_code_block",
                             f"no {language} block containing {list(require)}")
        raise ParseError("no_code_block", f"no {language} code in the answer")
    best = max(fitting, key=lambda b: len(b.code))
    code = best.code
    if not best.closed and language == "python":
        code = _trim_truncated_python(code)
    return code


def _parses_as_python(code: str) -> bool:
    try:
        ast.parse(code)
        return True
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # ValueError: NUL, lone surrogates
        return False


def _trim_truncated_python(code: str) -> str:
    """Drop trailing lines of a cut-off answer until what is left parses."""
    lines = code.rstrip().splitlines()
    while lines and not _parses_as_python("\n".join(lines)):
        lines.pop()
    if not lines:
        raise ParseError("truncated", "the code was cut off and nothing complete remains")
    return "\n".join(lines) + "\n"


def python_defines(code: str) -> set[str]:
    """Names of top-level functions a Python source defines (empty on a syntax error)."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # ValueError: NUL, lone surrogates
        return set()
    return {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}


# --------------------------------------------------------------------------- JSON


def _strip_json_noise(text: str) -> str:
    """Remove // and /* */ comments outside strings, and trailing commas."""
    out = []
    i, n = 0, len(text)
    in_str = False
    while i < n:
        ch = text[i]
        if in_str:
            out.append(ch)
            if ch == "\\" and i + 1 < n:
                out.append(text[i + 1])
                i += 2
                continue
            if ch == '"':
                in_str = False
            i += 1
            continue
        if ch == '"':
            in_str = True
            out.append(ch)
            i += 1
        elif text.startswith("//", i) or ch == "#":
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
        else:
            out.append(ch)
            i += 1
    cleaned = "".join(out)
    return re.sub(r",(\s*[\]}])", r"\1", cleaned)


def _outer_json_span(text: str) -> str | None:
    starts = [i for i in (text.find("["), text.find("{")) if i >= 0]
    if not starts:
        return None
    return text[min(starts) :]


def _close_truncated(text: str) -> Any:
    """Salvage the complete leading elements of a cut-off JSON array/object."""
    stack: list[str] = []
    in_str = False
    last_complete = -1
    i = 0
    while i < len(text):
        ch = text[i]
        if in_str:
            if ch == "\\":
                i += 2
                continue
            if ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch in "[{":
            stack.append("]" if ch == "[" else "}")
        elif ch in "]}":
            if stack:
                stack.pop()
            if len(stack) == 1:
                last_complete = i
            if not stack:
                return json.loads(text[: i + 1])
        elif ch == "," and len(stack) == 1:
            last_complete = i - 1
        i += 1
    if last_complete < 0 or not stack:
        raise ParseError("truncated", "JSON cut off before its first complete element")
    head = text[: last_complete + 1].rstrip().rstrip(",")
    return json.loads(head + stack[0])


def parse_json(text: str) -> Any:
    """The JSON value in an answer: fenced or not, with comments, trailing commas,
    Python literals (single quotes, True/None) or a truncated tail."""
    blocks = [b for b in code_blocks(text) if b.lang in ("json", "", "text", "python")]
    sources = [b.code for b in blocks] + [text]
    last_error = "no JSON found"
    for source in sources:
        span = _outer_json_span(source)
        if span is None:
            continue
        cleaned = _strip_json_noise(span)
        try:
            value, _ = json.JSONDecoder().raw_decode(cleaned)
            return value
        except json.JSONDecodeError as exc:
            last_error = str(exc)
        except RecursionError:  # a hostile answer nested thousands deep: no test in it
            raise ParseError("bad_json", "nested too deeply") from None
        try:
            return ast.literal_eval(span.strip())
        except (ValueError, SyntaxError, RecursionError, MemoryError):
            pass
        try:
            return _close_truncated(cleaned)
        except (ParseError, json.JSONDecodeError) as exc:
            last_error = str(exc)
        except RecursionError:
            raise ParseError("bad_json", "nested too deeply") from None
    raise ParseError("bad_json", last_error[:200])


# --------------------------------------------------------------------------- test data


def as_stdin(value: Any) -> str:
    """A test input as stdin text, whatever shape the model gave it.

    Strings are taken as they are (a ``\\n`` escape left literal is unescaped); lists
    become one line per element, inner lists space-separated; objects contribute their
    values in order (``{"n": 3, "a": [1, 2, 3]}`` → ``3\\n1 2 3``).
    """
    if isinstance(value, str):
        text = value
        if "\n" not in text and "\\n" in text:
            text = text.replace("\\n", "\n")
    elif isinstance(value, dict):
        text = "\n".join(_line(v) for v in value.values())
    elif isinstance(value, list):
        text = "\n".join(_line(v) for v in value)
    elif value is None:
        raise ParseError("bad_input", "input is null")
    else:
        text = str(value)
    return text if text.endswith("\n") else text + "\n"


def _line(v: Any) -> str:
    if isinstance(v, list):
        if v and all(isinstance(x, list) for x in v):
            return "\n".join(_line(x) for x in v)
        return " ".join(str(x) for x in v)
    if isinstance(v, dict):
        return "\n".join(_line(x) for x in v.values())
    if isinstance(v, bool):
        return str(int(v))
    return str(v)


_SOLUTION_MARKERS = (
    re.compile(r"\bint\s+main\s*\("),
    re.compile(r"\bsys\.stdin\b|\binput\(\)"),
    re.compile(r"#include\s*<"),
)


def looks_like_solution(text: str) -> bool:
    """The failure the TC-Bench paper reports most: a solution instead of tests."""
    return any(p.search(text) for p in _SOLUTION_MARKERS)
