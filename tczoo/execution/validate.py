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

# ``strict``: only ``True`` accepts (a validator that returns ``(False, "why")`` must not
# pass a tuple off as a yes); otherwise any truthy value accepts, as ``if valid:`` does.
_WRAPPER = '''


def check_output(generated_input, captured_output):
    _tczoo_verdict = {function}(generated_input)
    if {strict}:
        assert _tczoo_verdict is True or (type(_tczoo_verdict) is int and _tczoo_verdict == 1), \\
            "returned %r" % (_tczoo_verdict,)
    else:
        assert _tczoo_verdict, "returned %r" % (_tczoo_verdict,)
'''


def validate_inputs(sandbox: "Sandbox", code: str, inputs: list[str], *, function: str = "validate_input",
                    strict: bool = False, time_ms: int = 5000, memory_mb: int = 1024) -> list[Check]:
    """One ``Check`` per input: ``ok`` when ``function`` accepted it. A rejection is
    ``kind="assertion"`` (the detail says what it returned), a crash or timeout of the
    validator is ``crash``/``timeout``, and ``sandbox_error`` means it never ran."""
    if not function.isidentifier():
        raise ValueError(f"not a function name: {function!r}")
    if not inputs:
        return []
    program = code + _WRAPPER.format(function=function, strict=bool(strict))
    return check_with_checker(sandbox, program, [(text, "") for text in inputs], functional=False,
                              time_ms=time_ms, memory_mb=memory_mb)
