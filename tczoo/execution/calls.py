"""Calling functions of model-written Python in the sandbox, and reading the results.

``Sandbox.call_many`` runs each call in a fresh jailed process (see
``tczoo.sandbox.callpy``); these helpers build the calls the way every method needs them
and turn a ``CallResult`` into (ok, value, failure reason, detail) with one table of
reasons, so every suite records failures under the same names.
"""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING, Any

from tczoo.parsing.text import code_blocks
from tczoo.sandbox.types import CallResult, Limits, PyCall, Verdict

if TYPE_CHECKING:
    from tczoo.sandbox import Sandbox

CALL_FAILURE_REASONS = {  # CallResult.error_type -> the reason a suite records
    "timeout": "timeout", "memory": "memory", "output": "output_too_large",
    "no_function": "no_function", "bad_return": "bad_return",
    "exception": "crash", "assertion": "crash",
}


# Names model-written Python uses in annotations without always importing them
# (``def generate_input_1() -> List[str]``).
PRELUDE = "from typing import Any, Dict, List, Optional, Set, Tuple\nimport random\n"


_TYPING_NAMES = re.compile(r"\b(?:Any|Dict|List|Optional|Set|Tuple)\b")


def with_prelude(code: str, *, lean: bool = False) -> str:
    """``code`` with ``PRELUDE`` inserted after its ``from __future__`` imports (which
    must stay first). ``lean``: the ``typing`` import only when the code names one of
    its names (importing typing costs a fresh interpreter ~10 ms, a checker pays it on
    every case); the line stays, as a comment, so line numbers do not move."""
    prelude = PRELUDE
    if lean and not _TYPING_NAMES.search(code):
        first, rest = PRELUDE.split("\n", 1)
        prelude = "# " + first + " (not needed)\n" + rest
    lines = code.splitlines(keepends=True)
    at = 0
    for i, line in enumerate(lines):
        stripped = line.strip()
        if stripped.startswith("from __future__ import"):
            at = i + 1
        elif stripped and not stripped.startswith("#") and at:
            break
    return "".join(lines[:at]) + prelude + "".join(lines[at:])


def required_args(code: str, function: str) -> int:
    """How many positional parameters ``function`` insists on (0 if unknown)."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # ValueError: NUL, lone surrogates
        return 0
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == function:
            positional = node.args.posonlyargs + node.args.args
            return len(positional) - len(node.args.defaults)
    return 0


def py_call(code: str, function: str, *, seed: int, limits: Limits, args: list | None = None,
            tag: Any = None) -> PyCall:
    """A sandbox call of ``function`` with ``random`` seeded; a generator that insists on
    a parameter gets the seed as its first argument."""
    if args is None:
        need = required_args(code, function)
        args = [seed] + [None] * (need - 1) if need else []
    return PyCall(code=code, function=function, args=args, seed=seed, limits=limits, tag=tag)


def read_call(res: CallResult) -> tuple[bool, Any, str, str]:
    """(ok, value, reason, detail) of one ``CallResult``."""
    if res.ok:
        return True, res.value, "", ""
    if res.run.verdict is Verdict.SE:
        return False, None, "sandbox_error", res.error
    return False, None, CALL_FAILURE_REASONS.get(res.error_type or "", "crash"), res.error[-1500:]


def evaluate_literal(sandbox: "Sandbox", text: str, limits: Limits) -> Any:
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
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        [res] = sandbox.call_many([py_call(code, "value", seed=0, limits=limits)])
        ok, value, _, _ = read_call(res)
        if ok:
            return value
    return None
