"""Is a program's output on a test right? The one oracle check, by ``OracleKind``.

- ``EXPECTED_OUTPUT``: the test's expected output, compared by the problem's comparator;
- ``REFERENCE_PROGRAM``: the output the suite's reference program gives on the input;
- ``CHECKER_PROGRAM``: the suite's checker judges the (input, output) pair — Python code
  defining ``check_output(generated_input, captured_output)`` that raises
  ``AssertionError`` on a wrong output (HarnessLLM's harness). A checker that takes a
  third positional parameter, ``check_output(generated_input, captured_output,
  expected_output)``, also receives the test's expected output (None when the test has
  none): a special judge that compares with a reference answer (HardTestGen's
  output-judging function). A failed assertion, a crash and a timeout all reject the
  output; the reason is kept. For functional problems the checker receives the decoded
  arguments and the returned value re-evaluated from its repr inside the sandbox;
- ``INPUTS_ONLY`` and ``LLM_JUDGE``: no program can check outputs — ``can_check`` is
  False and a runner that needs outputs says why (or takes them from a reference).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from tczoo.execution.calls import with_prelude
from tczoo.execution.outputs import outputs_match
from tczoo.execution.programs import run_program
from tczoo.sandbox.types import Limits, PyCall, Verdict
from tczoo.schema import Oracle, OracleKind

if TYPE_CHECKING:
    from tczoo.sandbox import Sandbox
    from tczoo.schema import Validator


@dataclass
class Check:
    ok: bool
    kind: str = "pass"  # pass, assertion, crash, timeout (checker); mismatch, no_expected_output;
    # sandbox_error: the checker or reference never ran (infrastructure, not a verdict)
    detail: str = ""


class OracleUnavailable(ValueError):
    """The suite's oracle cannot judge a program's output by running code."""


def can_check(oracle: Oracle) -> bool:
    if oracle.kind in (OracleKind.REFERENCE_PROGRAM, OracleKind.CHECKER_PROGRAM):
        return oracle.program is not None
    return oracle.kind is OracleKind.EXPECTED_OUTPUT


def check_outputs(sandbox: "Sandbox", oracle: Oracle, cases: list[tuple[str, str | None, str]], *,
                  limits: Limits, comparator: str | None = None, entry_point: str | None = None,
                  validator: "Validator | None" = None, checker_time_ms: int = 5000) -> list[Check]:
    """One ``Check`` per (input, expected output or None, program output) case.

    ``limits`` bound the reference program; ``comparator``/``validator`` are the
    problem's (``outputs_match``); ``checker_time_ms`` is the CPU time each
    ``check_output`` call gets."""
    functional = entry_point is not None
    if not can_check(oracle):
        raise OracleUnavailable(f"a {oracle.kind.value} oracle cannot check outputs by running code")
    if not cases:
        return []
    program = oracle.program
    if oracle.kind is OracleKind.CHECKER_PROGRAM and program is not None:
        return check_with_checker(sandbox, program.code, [(i, out) for i, _, out in cases],
                                  functional=functional, time_ms=checker_time_ms,
                                  expected=[e for _, e, _ in cases])
    if oracle.kind is OracleKind.REFERENCE_PROGRAM and program is not None:
        inputs = list(dict.fromkeys(i for i, _, _ in cases))
        ref = dict(zip(inputs, run_program(sandbox, program, inputs, limits=limits, entry_point=entry_point)))
        expected = [ref[i].output if ref[i].ok else None for i, _, _ in cases]
        missing = "no_reference_output"
        broken = {i for i, r in ref.items() if r.verdict is Verdict.SE}
    else:
        expected = [e for _, e, _ in cases]
        missing = "no_expected_output"
        broken = set()
    known = [(i, (inp, output, want)) for i, ((inp, _, output), want) in enumerate(zip(cases, expected))
             if want is not None]
    match = outputs_match(sandbox, [c for _, c in known], comparator=comparator, validator=validator,
                          functional=functional)
    # the reference never ran (the sandbox failed it): the oracle could not judge
    out = [Check(False, "sandbox_error", ref[inp].detail) if inp in broken else Check(False, missing)
           for inp, _, _ in cases]
    for (i, _), ok in zip(known, match):
        if ok is None:
            out[i] = Check(False, "validator_failed", "the problem's output validator failed itself")
        else:
            out[i] = Check(True) if ok else Check(False, "mismatch")
    return out


# --------------------------------------------------------------------------- checker programs

# Appended to the checker's code: check a batch of pairs, each under its own CPU-time
# alarm (ITIMER_PROF, so a loaded machine does not time a checker out).
_CHECK_TAIL = r'''


class _TczooAlarm(BaseException):
    pass


def _tczoo_decode(text):
    import ast
    try:
        return ast.literal_eval(text)
    except Exception:
        pass
    try:
        return eval(text, {"__builtins__": {}, "inf": float("inf"), "nan": float("nan"),
                           "set": set, "frozenset": frozenset})
    except Exception:
        return text


def _tczoo_takes_expected(fn):
    import inspect
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return False
    if any(p.kind is p.VAR_POSITIONAL for p in params):
        return True
    return len([p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]) >= 3


def _tczoo_check(pairs, limit_s, functional):
    import json, signal, traceback

    def alarm(*_):
        raise _TczooAlarm()

    with_expected = _tczoo_takes_expected(check_output)
    results = []
    for given, captured, expected in pairs:
        if functional:
            try:
                given = json.loads(given)
            except ValueError:  # a Python literal where JSON cannot carry the arguments
                import ast
                given = ast.literal_eval(given)
            captured = _tczoo_decode(captured)
            expected = None if expected is None else _tczoo_decode(expected)
        signal.signal(signal.SIGPROF, alarm)
        signal.setitimer(signal.ITIMER_PROF, limit_s)
        try:
            if with_expected:
                check_output(given, captured, expected)
            else:
                check_output(given, captured)
            res = {"ok": True}
        except _TczooAlarm:
            res = {"ok": False, "kind": "timeout", "error": "over %.1f s of CPU time" % limit_s}
        except AssertionError as e:
            res = {"ok": False, "kind": "assertion",
                   "error": ("AssertionError: %s" % e)[:500] + "\n" + traceback.format_exc()[-800:]}
        except BaseException:
            res = {"ok": False, "kind": "crash", "error": traceback.format_exc()[-1500:]}
        finally:
            signal.setitimer(signal.ITIMER_PROF, 0)
        results.append(res)
    return results
'''

def check_with_checker(sandbox: "Sandbox", code: str, pairs: list[tuple[str, str]], *, functional: bool,
                       time_ms: int = 5000, memory_mb: int = 1024, batch: int = 40,
                       expected: list[str | None] | None = None) -> list[Check]:
    """``check_output(input, output)`` for every pair, in the sandbox — or
    ``check_output(input, output, expected)`` when the checker takes a third parameter,
    with ``expected[k]`` the expected output of pair k (None when unknown). Identical
    cases are checked once. A batch whose process dies as a whole is checked again case
    by case."""
    wanted = list(expected) if expected is not None else [None] * len(pairs)
    if len(wanted) != len(pairs):
        raise ValueError("one expected output per pair")
    cases = [(i, out, exp) for (i, out), exp in zip(pairs, wanted)]
    unique = list(dict.fromkeys(cases))
    program = with_prelude(code) + _CHECK_TAIL

    def call(chunk: list[tuple[str, str, str | None]]) -> PyCall:
        total = time_ms * len(chunk) + 1000
        return PyCall(code=program, function="_tczoo_check", args=[[list(p) for p in chunk], time_ms / 1000, functional],
                      limits=Limits(time_ms=total, wall_ms=2 * total + 2000, memory_mb=memory_mb))

    verdicts: dict[tuple[str, str, str | None], Check] = {}
    chunks = [unique[i:i + batch] for i in range(0, len(unique), batch)]
    retry: list[tuple[str, str, str | None]] = []
    for chunk, res in zip(chunks, sandbox.call_many([call(c) for c in chunks])):
        if res.ok and isinstance(res.value, list) and len(res.value) == len(chunk):
            for p, r in zip(chunk, res.value):
                verdicts[p] = _check_of(r)
        else:
            retry.extend(chunk)
    for p, res in zip(retry, sandbox.call_many([call([p]) for p in retry]) if retry else []):
        if res.ok and isinstance(res.value, list) and res.value:
            verdicts[p] = _check_of(res.value[0])
        elif res.run.verdict is Verdict.SE:  # the sandbox's failure, not the checker's verdict
            verdicts[p] = Check(False, "sandbox_error", res.error[-1500:])
        else:
            verdicts[p] = Check(False, "timeout" if res.error_type == "timeout" else "crash", res.error[-1500:])
    return [verdicts[c] for c in cases]


def _check_of(r: dict) -> Check:
    if r.get("ok"):
        return Check(True)
    return Check(False, r.get("kind", "crash"), (r.get("error") or "")[-1500:])
