"""Running a model-written input validator on many inputs, in the sandbox.

A method that asks the model for ``validate_input(input_str) -> bool`` (HardTestGen,
SAGA) runs it on every input it made. The validator is wrapped as a checker
(``check_output(generated_input, captured_output)`` asserting the validator's answer),
so it runs through ``check_with_checker``: each input in a process of its own, under
its own CPU-time limit (a validator never sees another input, nor which input came
before), a sandbox failure reported as such (never as a rejection).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from tczoo.execution.oracle import Check, check_with_checker
from tczoo.execution.programs import no_sandbox_errors

if TYPE_CHECKING:
    from tczoo.sandbox import Sandbox

# A truthy answer accepts, as ``if valid:`` reads it; a tuple is decided by its first
# element (``(False, "why")`` is a no, as SAGA's own driver reads it).
_WRAPPER = '''


def check_output(generated_input, captured_output):
    _tczoo_verdict = {function}(generated_input)
    _tczoo_yes = _tczoo_verdict[0] if isinstance(_tczoo_verdict, tuple) and _tczoo_verdict else _tczoo_verdict
    assert _tczoo_yes, "returned %r" % (_tczoo_verdict,)
'''


def validate_inputs(sandbox: "Sandbox", code: str, inputs: list[str], *, function: str = "validate_input",
                    time_ms: int = 5000, memory_mb: int = 1024) -> list[Check]:
    """One ``Check`` per input: ``ok`` when ``function`` accepted it. A rejection is
    ``kind="assertion"`` (the detail says what it returned), a crash or timeout of the
    validator is ``crash``/``timeout``, and ``sandbox_error`` means it never ran."""
    if not function.isidentifier():
        raise ValueError(f"not a function name: {function!r}")
    if not inputs:
        return []
    program = code + _WRAPPER.format(function=function)
    return check_with_checker(sandbox, program, [(text, "") for text in inputs], functional=False,
                              time_ms=time_ms, memory_mb=memory_mb)


@dataclass(frozen=True)
class Rejection:
    """An input a validator did not accept: ``reason`` is ``invalid_input`` (it said no)
    or ``validator_crash`` / ``validator_timeout``; ``detail`` what it returned (or its
    traceback's end) and the input's start."""

    index: int
    reason: str
    detail: str


def filter_inputs(sandbox: "Sandbox", code: str, inputs: list[str], *, function: str = "validate_input",
                  time_ms: int = 5000, memory_mb: int = 1024) -> tuple[list[int], list[Rejection]]:
    """The indices of ``inputs`` the validator accepts, and a ``Rejection`` for each other
    one. A sandbox failure is nobody's verdict: ``InfrastructureFailure``."""
    checks = validate_inputs(sandbox, code, inputs, function=function, time_ms=time_ms, memory_mb=memory_mb)
    no_sandbox_errors(checks, "the input validator")
    kept, rejected = [], []
    for i, (text, c) in enumerate(zip(inputs, checks)):
        if c.ok:
            kept.append(i)
            continue
        reason = "invalid_input" if c.kind == "assertion" else f"validator_{c.kind}"
        # a rejection says what the validator returned; a crash keeps its traceback
        why = c.detail.splitlines()[0] if c.kind == "assertion" and c.detail else c.detail[-400:]
        rejected.append(Rejection(i, reason, f"{why}; input {text[:80]!r}"))
    return kept, rejected
