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
  arguments and the returned value re-evaluated from its repr inside the sandbox. A
  checker is untrusted code that judges: each case runs in a process of its own
  (``check_with_checker``), its verdict the process's exit status;
- ``INPUTS_ONLY`` and ``LLM_JUDGE``: no program can check outputs — ``can_check`` is
  False and a runner that needs outputs says why (or takes them from a reference).
"""

from __future__ import annotations

import ast
import hashlib
import json
import random
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tczoo.execution.calls import with_prelude
from tczoo.execution.outputs import outputs_match
from tczoo.execution.programs import run_program
from tczoo.sandbox.types import Job, Limits, RunResult, Verdict
from tczoo.schema import Language, Oracle, OracleKind, Program

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

# A checker is untrusted code that judges: one case per process. The driver below is the
# whole program (the checker's source sits in it as a string, so one cached program serves
# every case of a checker); the case arrives on stdin, which the driver reads to the end
# before any of the checker's code runs. The process sees its own (input, output) pair —
# and the expected output only when the checker is a special judge that takes one — never
# another case, never a file of the batch. The verdict is the process's exit status (0
# pass, ``ASSERTION_EXIT`` assertion, ``TIMEOUT_EXIT`` over its CPU time, anything else a
# crash) or the sandbox's own verdict (TLE, MLE, SE): nothing the checker could print or
# forge says more than it could say by judging. ``random`` is seeded the same for every
# case, so what a checker draws is a function of its case too. The checker's prints are
# discarded; the driver's report (an assertion's message, a traceback) is on stderr, for
# people only.
ASSERTION_EXIT = 70
TIMEOUT_EXIT = 71
CRASH_EXIT = 72
STARTUP_MS = 1000  # CPU time a checker's process gets besides its check: the interpreter, the checker's imports

_CHECK_DRIVER = r"""import _signal, os, sys

_ASSERTION, _TIMEOUT, _CRASH = @CODES@
_SOURCE = @SOURCE@


class _TczooAlarm(BaseException):
    pass


class _Sink:
    def write(self, text):
        return len(text)

    def flush(self):
        pass


def _end(code, text=""):
    if text:
        try:
            os.write(2, text[-4000:].encode("utf-8", "backslashreplace"))
        except BaseException:
            pass
    os._exit(code)


def _tail(limit):
    import traceback
    return traceback.format_exc()[-limit:]


def _decode(text):
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


def _alarm(*_):
    raise _TczooAlarm()


def _main():
    # the host wrote the case as an ASCII Python literal of strings, None, a bool and a
    # float (json would cost the process an import of re)
    given, captured, expected, functional, limit_s = eval(sys.stdin.read(), {"__builtins__": {}})
    try:
        if functional:
            import json
            try:
                given = json.loads(given)
            except ValueError:  # a Python literal where JSON cannot carry the arguments
                import ast
                given = ast.literal_eval(given)
            captured = _decode(captured)
            expected = None if expected is None else _decode(expected)
        import random
        random.seed(0)  # a checker's verdict is a function of its case alone, whatever it draws
        sys.stdout = sys.stderr = _Sink()
        sys.setrecursionlimit(max(sys.getrecursionlimit(), 10000))
        ns = {"__name__": "solution", "__builtins__": __builtins__}
        exec(compile(_SOURCE, "checker.py", "exec"), ns)
        fn = ns.get("check_output")
        if not callable(fn):
            _end(_CRASH, "no function check_output in the checker")
        code = getattr(fn, "__code__", None)
        with_expected = code is not None and (code.co_flags & 4 or code.co_argcount >= 3)
    except BaseException:
        _end(_CRASH, "while loading the checker: " + _tail(3000))
    _signal.signal(_signal.SIGPROF, _alarm)  # _signal: signal itself would import enum
    _signal.setitimer(_signal.ITIMER_PROF, limit_s)
    try:
        if with_expected:
            fn(given, captured, expected)
        else:
            fn(given, captured)
    except _TczooAlarm:
        _end(_TIMEOUT, "over %.1f s of CPU time" % limit_s)
    except AssertionError as e:
        _signal.setitimer(_signal.ITIMER_PROF, 0)
        _end(_ASSERTION, ("AssertionError: %s" % e)[:500] + "\n" + _tail(800))
    except BaseException:
        _signal.setitimer(_signal.ITIMER_PROF, 0)
        _end(_CRASH, _tail(1500))
    _end(0)


_main()
"""


def checker_takes_expected(code: str) -> bool:
    """Whether the checker's ``check_output`` (its last top-level definition) takes a
    third positional parameter, the expected output: a special judge. Read from the
    source, so that a two-parameter checker's process never holds an expected output."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    found = None
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == "check_output":
            found = node
    if found is None:
        return False
    args = found.args
    return args.vararg is not None or len(args.posonlyargs) + len(args.args) >= 3


def checker_program(code: str) -> Program:
    """The program that runs ``check_output`` of ``code`` on the one case on its stdin."""
    head, tail = _CHECK_DRIVER.replace("@CODES@", repr((ASSERTION_EXIT, TIMEOUT_EXIT, CRASH_EXIT))).split("@SOURCE@")
    return Program(code=head + repr(with_prelude(code, lean=True)) + tail, language=Language.PYTHON, name="tczoo-checker")


def checker_limits(time_ms: int, memory_mb: int = 1024) -> Limits:
    """One case's limits: ``time_ms`` of CPU for the check itself (the driver's alarm),
    ``STARTUP_MS`` more for the process (the sandbox's limit, its wall guard the default
    twice that): the same for every case, however many there are."""
    return Limits(time_ms=time_ms + STARTUP_MS, memory_mb=memory_mb, output_kb=1024)


def check_with_checker(sandbox: "Sandbox", code: str, pairs: list[tuple[str, str]], *, functional: bool,
                       time_ms: int = 5000, memory_mb: int = 1024,
                       expected: list[str | None] | None = None, seed: int = 0) -> list[Check]:
    """``check_output(input, output)`` for every pair, in the sandbox — or
    ``check_output(input, output, expected)`` when the checker takes a third parameter,
    with ``expected[k]`` the expected output of pair k (None when unknown).

    One case, one process: each distinct case runs alone under its own limits
    (``checker_limits``); identical cases are checked once (so the same output gets the
    same verdict, whoever printed it), and the cases run in an order shuffled by a seed
    drawn from their content and ``seed``, so the order says nothing about which program
    printed an output."""
    wanted = list(expected) if expected is not None else [None] * len(pairs)
    if len(wanted) != len(pairs):
        raise ValueError("one expected output per pair")
    if not checker_takes_expected(code):
        wanted = [None] * len(pairs)  # a checker that does not take it never holds it
    cases = [(i, out, exp) for (i, out), exp in zip(pairs, wanted)]
    unique = list(dict.fromkeys(cases))
    if not unique:
        return []
    digest = hashlib.sha256(json.dumps([seed, unique]).encode("utf-8", "surrogatepass")).digest()
    order = list(range(len(unique)))
    random.Random(digest).shuffle(order)
    program = checker_program(code)
    limits = checker_limits(time_ms, memory_mb)
    limit_s = time_ms / 1000

    def job(case: tuple[str, str, str | None]) -> Job:
        given, output, exp = case
        return Job(program=program, stdin=ascii((given, output, exp, functional, limit_s)), limits=limits)

    runs = sandbox.run_many([job(unique[k]) for k in order])
    verdicts = {unique[k]: _verdict_of(run, limit_s) for k, run in zip(order, runs)}
    return [verdicts[c] for c in cases]


def _verdict_of(run: RunResult, limit_s: float) -> Check:
    """A checker's verdict from its process: the sandbox's verdict first, then the exit status."""
    detail = run.stderr[-1500:]
    if run.verdict is Verdict.SE:  # the sandbox's failure, not the checker's verdict
        return Check(False, "sandbox_error", run.message[-1500:])
    if run.verdict is Verdict.AC:
        return Check(True)
    if run.verdict is Verdict.TLE:
        return Check(False, "timeout", f"over {limit_s:.1f} s of CPU time ({run.message})")
    if run.verdict is Verdict.RE and run.signal is None and run.exit_code == ASSERTION_EXIT:
        return Check(False, "assertion", detail)
    if run.verdict is Verdict.RE and run.signal is None and run.exit_code == TIMEOUT_EXIT:
        return Check(False, "timeout", detail)
    if run.verdict in (Verdict.MLE, Verdict.OLE):
        return Check(False, "crash", f"{run.verdict.value}: {run.message}")
    why = f"signal {run.signal}" if run.signal is not None else f"exit code {run.exit_code}"
    return Check(False, "crash", detail or why)
