"""HardTestGen's "test cases kit": what the model's two answers hold, parsed.

The first answer gives the input validator and, for a problem that needs one, the
output-judging function; the second gives the LLMGen inputs and the generator code
(RPGen or SPGen, HackGen). Both answers are asked as an analysis followed by a JSON
object; models also fence the code, misspell the keys or get cut off, so every field
is salvaged on its own and what could not be read says why (``ParseError.reason``).
Nothing here runs model code: function names come from ``ast``.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import Any

from tczoo.parsing import ParseError, as_stdin, code_blocks, extract_code, parse_json

VALIDATE = "validate_input"
JUDGE = "output_judging_function"
RANGE_BASED = "gen_range_based_input"
STRATIFIED = "gen_stratified_input_"
HACKING = "gen_hacking_input_"


def defined_functions(code: str | None) -> list[str]:
    """Top-level functions ``code`` defines, in the order it defines them (the reference
    orders generator functions by line)."""
    if not code:
        return []
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    return [n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]


def _result_json(text: str) -> Any:
    """The JSON object after ``# Result`` (or, failing that, anywhere in the answer)."""
    m = re.search(r"^#+\s*Result\b", text, re.M | re.I)
    tail = text[m.end():] if m else text
    for source in (tail, text) if m else (text,):
        try:
            value = parse_json(source)
        except ParseError:
            continue
        if isinstance(value, dict):
            return value
    raise ParseError("no_json_object", "no JSON object in the answer")


def _code_value(value: Any) -> str | None:
    """Code held in a JSON value: a string, fenced despite the instructions or bare."""
    if not isinstance(value, str) or not value.strip():
        return None
    if "```" in value:
        try:
            return extract_code(value, "python")
        except ParseError:
            pass
    return value


def _find_key(data: dict, *words: str, kinds: tuple[type, ...] = (object,)) -> Any:
    """The value under our key or a spelling of it (every word in the key, any case),
    of one of ``kinds`` (``needs_output_judge`` and ``output_judge`` share a word)."""
    for key, value in data.items():
        k = str(key).lower()
        if all(w in k for w in words) and isinstance(value, kinds) and not (
                bool not in kinds and isinstance(value, bool)):
            return value
    return None


def _fenced_python(text: str) -> list[str]:
    return [b.code for b in code_blocks(text) if b.lang in ("python", "")]


@dataclass
class Checks:
    """The first answer: the validator, and the judge when the model says one is needed."""

    validator: str | None = None
    needs_judge: bool = False
    judge: str | None = None
    problems: list[tuple[str, str]] = field(default_factory=list)  # (reason, detail)


def parse_checks(text: str) -> Checks:
    out = Checks()
    data: dict = {}
    try:
        data = _result_json(text)
    except ParseError as exc:
        out.problems.append((exc.reason, exc.detail))
    candidates = [_code_value(_find_key(data, "validator", kinds=(str,)))] + _fenced_python(text)
    out.validator = next((c for c in candidates if c and VALIDATE in defined_functions(c)), None)
    if out.validator is None:
        out.problems.append(("missing_definition", f"no Python function {VALIDATE} in the answer"))
    flag = _find_key(data, "need", kinds=(bool,))
    judges = [_code_value(_find_key(data, "judg", kinds=(str,)))] + _fenced_python(text)
    judge = next((c for c in judges if c and JUDGE in defined_functions(c)), None)
    # The model's own yes/no decides; without one, a judge it wrote says yes.
    out.needs_judge = flag if isinstance(flag, bool) else judge is not None
    if out.needs_judge:
        out.judge = judge
        if out.judge is None:
            out.problems.append(("missing_definition",
                                 f"a judge is needed but no Python function {JUDGE} is in the answer"))
    return out


@dataclass
class InputKit:
    """The second answer: written inputs and the generator code of each kind."""

    llmgen: list[str] = field(default_factory=list)
    multi_category: bool | None = None
    programmed: str | None = None  # code of gen_range_based_input or gen_stratified_input_*
    programmed_functions: list[str] = field(default_factory=list)
    hacking: str | None = None
    hacking_functions: list[str] = field(default_factory=list)
    problems: list[tuple[str, str, str]] = field(default_factory=list)  # (reason, detail, item)

    @property
    def stratified(self) -> bool:
        """SPGen: the reference treats two or more programmed functions as a
        multi-category (stratified) problem."""
        return len(self.programmed_functions) >= 2


def _programmed(name: str) -> bool:
    return name == RANGE_BASED or name.startswith(STRATIFIED)


def parse_inputs(text: str) -> InputKit:
    kit = InputKit()
    data: dict = {}
    try:
        data = _result_json(text)
    except ParseError as exc:
        kit.problems.append((exc.reason, exc.detail, "inputs"))
    raw = _find_key(data, "llmgen", kinds=(list, str, dict))
    if raw is None:
        raw = next((v for k, v in data.items() if "input" in str(k).lower() and isinstance(v, list)), None)
    if raw is not None and not isinstance(raw, list):
        kit.problems.append(("not_a_list", f"llmgen_inputs is {type(raw).__name__}", "llmgen"))
        raw = None
    for i, value in enumerate(raw or []):
        try:
            kit.llmgen.append(as_stdin(value))
        except ParseError as exc:
            kit.problems.append((exc.reason, exc.detail, f"llmgen#{i}"))
    flag = _find_key(data, "categor", kinds=(bool,))
    kit.multi_category = flag if isinstance(flag, bool) else None
    # Code under our keys (or any key), then fenced blocks; each function is taken from
    # the first code that defines it.
    codes = [_code_value(_find_key(data, "program", kinds=(str,))), _code_value(_find_key(data, "hack", kinds=(str,)))]
    codes += [_code_value(v) for v in data.values() if isinstance(v, str) and "def " in v]
    codes += _fenced_python(text)
    for code in codes:
        names = defined_functions(code)
        if kit.programmed is None and any(_programmed(n) for n in names):
            kit.programmed = code
            kit.programmed_functions = [n for n in names if _programmed(n)]
        if kit.hacking is None and any(n.startswith(HACKING) for n in names):
            kit.hacking = code
            kit.hacking_functions = [n for n in names if n.startswith(HACKING)]
    if kit.programmed is None:
        kit.problems.append(("missing_definition",
                             f"no {RANGE_BASED} or {STRATIFIED}* function in the answer", "programmed"))
    if kit.multi_category and len(kit.programmed_functions) < 2:
        kit.problems.append(("missing_definition", "a multi-category problem needs one "
                             f"{STRATIFIED}<category> function per category", "programmed"))
    return kit
