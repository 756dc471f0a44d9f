"""When two outputs are the same answer: the one comparison every method and runner uses.

stdin problems compare text by the problem's comparator (``tczoo.sandbox.compare``:
tokens by default, ``exact``, ``float:ABS[:REL]``, ``kattis[:FLAGS]``), or — comparator
``program`` — by the problem's own output validator (a Kattis package's
``output_validators/``), which runs in the sandbox and needs the test's input: use
``outputs_match`` for those (``same_output`` refuses them). Functional problems compare
the ``repr`` of returned values as Python values: equal when equal as literals
(``ast.literal_eval``), tuples equal to lists, floats within 1e-9 relative; outputs that
are not literals (objects, ``inf``) compare as text.
"""

from __future__ import annotations

import ast
import math
from typing import TYPE_CHECKING, Any

from tczoo.sandbox.compare import compare_outputs
from tczoo.sandbox.types import Verdict
from tczoo.sandbox.validators import output_judgement, output_validator_job

if TYPE_CHECKING:
    from tczoo.sandbox import Sandbox
    from tczoo.schema import Validator


def same_output(a: str, b: str, *, comparator: str | None = None, functional: bool = False) -> bool:
    if not functional:
        return compare_outputs(a, b, comparator)
    if a == b:
        return True
    ok_a, va = _literal(a)
    ok_b, vb = _literal(b)
    return ok_a and ok_b and _same_value(va, vb)


def outputs_match(sandbox: "Sandbox | None", cases: list[tuple[str, str, str]], *, comparator: str | None = None,
                  validator: "Validator | None" = None, functional: bool = False) -> list[bool | None]:
    """For each (input, output, expected): whether ``output`` is a right answer where
    ``expected`` is. With a problem's output validator it is asked in the sandbox (one
    batch); a validator that fails itself gives None (an infrastructure failure, never a
    verdict on the output). Without one, ``same_output``."""
    if validator is None or functional:
        return [same_output(out, exp, comparator=comparator, functional=functional) for _, out, exp in cases]
    if sandbox is None:
        raise ValueError("comparing outputs with an output validator needs a sandbox")
    unique = list(dict.fromkeys(cases))
    jobs = [output_validator_job(validator, i, exp, out) for i, out, exp in unique]
    verdict = {}
    for case, run in zip(unique, sandbox.run_many(jobs)):
        judged = output_judgement(run, validator.program.name).verdict
        verdict[case] = None if judged is Verdict.SE else judged is Verdict.AC
    return [verdict[c] for c in cases]


def _literal(text: str) -> tuple[bool, Any]:
    try:
        return True, ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False, None


def _same_value(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        if isinstance(a, int) and isinstance(b, int):
            return a == b
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same_value(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same_value(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b
