"""Running a model-written input validator on many inputs, in the sandbox.

A method that asks the model for ``validate_input(input_str) -> bool`` (HardTestGen,
SAGA) runs it on every input it made. The validator is wrapped as a checker
(``check_output(generated_input, captured_output)`` asserting the validator's answer),
so it runs through ``check_with_checker``: batched in one process, each input under its
own CPU-time alarm, a batch that dies as a whole checked again input by input, a
sandbox failure reported as such (never as a rejection).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tczoo.execution.oracle import Check, check_with_checker

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
