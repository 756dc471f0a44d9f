"""What one SAGA answer holds: the analysis text, ``validate_input`` and the
``gen_case_<k>`` functions with what each targets (its docstring's first line).

Read with ``ast`` only — nothing the model wrote runs in this process.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

from tczoo.parsing import ParseError, code_blocks, extract_code

VALIDATE = "validate_input"
CASE = re.compile(r"^gen_case_(\d+)$")


@dataclass
class Case:
    function: str
    target: str = ""  # the docstring's first line


@dataclass
class Answer:
    analysis: str = ""
    code: str | None = None
    validator: bool = False  # the code defines validate_input
    cases: list[Case] = field(default_factory=list)
    problems: list[tuple[str, str]] = field(default_factory=list)  # (reason, detail)


def _module(code: str) -> ast.Module | None:
    try:
        return ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _case_functions(tree: ast.Module) -> list[Case]:
    """The module's gen_case functions by number; a name defined twice is its last
    definition, as Python would have it."""
    cases: dict[str, Case] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and CASE.match(node.name):
            doc = (ast.get_docstring(node) or "").strip()
            cases[node.name] = Case(function=node.name, target=doc.splitlines()[0][:300] if doc else "")
    return sorted(cases.values(), key=lambda c: int(CASE.match(c.function).group(1)))


def parse_answer(text: str) -> Answer:
    out = Answer()
    m = re.search(r"^#+\s*Tests\b", text, re.M | re.I)
    out.analysis = (text[: m.start()] if m else text.split("```", 1)[0]).strip()[:20000]
    # The module with the most test functions wins: models show a fragment before the
    # full file, or split the file over several blocks (then the blocks together).
    blocks = [b.code for b in code_blocks(text) if b.lang in ("python", "")]
    try:
        blocks.append(extract_code(text, "python"))
    except ParseError:
        pass
    if len(blocks) > 1:
        blocks.append("\n\n".join(blocks))
    best: tuple[int, int, str, ast.Module] | None = None
    for code in blocks:
        tree = _module(code)
        if tree is None:
            continue
        n = len(_case_functions(tree))
        has_validator = any(isinstance(x, ast.FunctionDef) and x.name == VALIDATE for x in tree.body)
        if best is None or (n, has_validator) > best[:2]:
            best = (n, has_validator, code, tree)
    if best is None:
        out.problems.append(("no_code_block", "no Python module that parses in the answer"))
        return out
    _, out.validator, out.code, tree = best
    out.cases = _case_functions(tree)
    if not out.cases:
        out.problems.append(("missing_definition", "no gen_case_<k> function in the answer"))
    if not out.validator:
        out.problems.append(("missing_definition", f"no {VALIDATE} function in the answer"))
    return out
