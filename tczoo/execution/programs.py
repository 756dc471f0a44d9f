"""Running a program on test inputs: the one way methods and runners do it.

Two kinds of problem, one result type (``Execution``):

- **stdin problems**: the program reads the input on stdin and prints its answer; any
  language the sandbox knows; runs go through ``Sandbox.run_many`` (every worker slot).
- **functional (call-based) problems** (``entry_point`` set): a test *input* is the JSON
  text of an object mapping the entry point's parameter names to argument values
  (``{"nums": [1, 2]}``), or of a JSON array of positional arguments; where JSON cannot
  carry the arguments (tuples, sets, dicts with non-string keys: HumanEval/95 and 127),
  the Python literal of the argument list (``[(1, 2), (2, 3)]``), read with
  ``ast.literal_eval`` when the text is not JSON. The function is
  looked up as a top-level name, else as a method of ``Solution()`` (LeetCode style),
  called with the decoded arguments in its own sandboxed process (state a buggy
  function leaves behind never leaks into the next input), and its *output* is
  ``repr()`` of the returned value.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from tczoo.errors import InfrastructureFailure
from tczoo.sandbox.types import Job, Limits, PyCall, Verdict
from tczoo.schema import Language, Program

if TYPE_CHECKING:
    from tczoo.sandbox import Sandbox

# Appended to a functional program: decode the arguments, call, return the repr.
_INVOKE_TAIL = r'''


def _tczoo_invoke(payload):
    import json
    try:
        args = json.loads(payload)
    except ValueError:
        import ast
        args = ast.literal_eval(payload)
    fn = globals().get({entry!r})
    if not callable(fn) and isinstance(globals().get("Solution"), type):
        fn = getattr(globals()["Solution"](), {entry!r})
    if isinstance(args, dict):
        value = fn(**args)
    else:
        value = fn(*args)
    return repr(value)
'''

# A failed call of a functional program, as the verdict a stdin program would get.
_CALL_VERDICT = {"timeout": Verdict.TLE, "memory": Verdict.MLE, "output": Verdict.OLE}


class Execution(BaseModel):
    """One run of a program on one input."""

    verdict: Verdict  # AC = it ran cleanly (nothing was compared yet)
    output: str = ""  # stdout, or repr of the return value (functional); "" unless AC
    detail: str = ""  # compiler/sandbox message, or the tail of stderr / the traceback
    cpu_ms: float = 0.0

    @property
    def ok(self) -> bool:
        return self.verdict is Verdict.AC


def run_program(sandbox: "Sandbox", program: Program, inputs: list[str], *, limits: Limits,
                entry_point: str | None = None) -> list[Execution]:
    """``program`` on every input, results in input order."""
    return [row[0] for row in run_programs(sandbox, [program], inputs, limits=limits, entry_point=entry_point)]


def run_programs(sandbox: "Sandbox", programs: list[Program], inputs: list[str], *, limits: Limits,
                 entry_point: str | None = None) -> list[list[Execution]]:
    """Every program on every input in one batch (so all worker slots stay busy):
    ``result[i][p]`` is program ``p`` on input ``i``."""
    if not inputs or not programs:
        return [[] for _ in inputs]
    k = len(programs)
    if entry_point is None:
        jobs = [Job(program=p, stdin=s, limits=limits) for s in inputs for p in programs]
        flat = [_from_run(r) for r in sandbox.run_many(jobs)]
    else:
        flat = _call_functional(sandbox, [(p, s) for s in inputs for p in programs], entry_point, limits)
    return [flat[i * k:(i + 1) * k] for i in range(len(inputs))]


def no_sandbox_errors(results, what: str) -> None:
    """Raise ``InfrastructureFailure`` when any of ``results`` (``Execution``,
    ``RunResult``, or an oracle's / validator's ``Check``) is ``SE`` / ``sandbox_error``:
    the sandbox already retried those runs on fresh slots, so what remains is our
    failure, and neither a runner nor a method may read it as the program's verdict."""
    failed = [r for r in results
              if getattr(r, "verdict", None) is Verdict.SE or getattr(r, "kind", None) == "sandbox_error"]
    if failed:
        why = getattr(failed[0], "detail", None) or getattr(failed[0], "message", "")
        raise InfrastructureFailure(f"{len(failed)} run(s) of {what} met a sandbox error after retries: "
                                    + " ".join(str(why).split())[:300])


def _from_run(r) -> Execution:
    detail = r.message if r.verdict in (Verdict.CE, Verdict.SE) else (r.stderr[-800:] or r.message)
    return Execution(verdict=r.verdict, output=r.stdout if r.ok else "", detail=detail, cpu_ms=r.cpu_ms)


def _call_functional(sandbox: "Sandbox", pairs: list[tuple[Program, str]], entry_point: str,
                     limits: Limits) -> list[Execution]:
    out: list[Execution | None] = [None] * len(pairs)
    calls, where = [], []
    for i, (program, payload) in enumerate(pairs):
        if program.language is not Language.PYTHON:
            out[i] = Execution(verdict=Verdict.CE, detail="functional problems need Python programs")
            continue
        code = program.code + _INVOKE_TAIL.format(entry=entry_point)
        calls.append(PyCall(code=code, function="_tczoo_invoke", args=[payload], limits=limits))
        where.append(i)
    for i, r in zip(where, sandbox.call_many(calls) if calls else []):
        if r.ok and isinstance(r.value, str):
            out[i] = Execution(verdict=Verdict.AC, output=r.value, cpu_ms=r.run.cpu_ms)
        elif r.run.verdict is Verdict.SE:
            out[i] = Execution(verdict=Verdict.SE, detail=r.error[-800:])
        else:
            verdict = _CALL_VERDICT.get(r.error_type or "", Verdict.RE)
            out[i] = Execution(verdict=verdict, detail=r.error[-800:], cpu_ms=r.run.cpu_ms)
    return out  # type: ignore[return-value]


# --------------------------------------------------------------------------- functional signatures


@dataclass
class Signature:
    params: list[str]
    required: list[str]
    var_kw: bool = False

    def fit(self, args: Any) -> Any:
        """Arguments the function can take, or ValueError: extra keys dropped, a
        missing required parameter refused (the authors' rule)."""
        if isinstance(args, dict):
            missing = [p for p in self.required if p not in args]
            if missing:
                raise ValueError(f"missing argument(s) {missing}")
            return args if self.var_kw else {k: v for k, v in args.items() if k in self.params}
        if isinstance(args, list):
            if len(args) < len(self.required):
                raise ValueError(f"{len(args)} positional argument(s), needs {len(self.required)}")
            return args
        raise ValueError(f"an input must be an object of arguments or a list, not {type(args).__name__}")


def signature_of(code: str, entry_point: str) -> Signature | None:
    """The entry point's parameters, read from the source (nothing is executed):
    a top-level function, else a method of class ``Solution`` (``self`` dropped)."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # ValueError: NUL, lone surrogates
        return None
    found, method = None, False
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == entry_point:
            found = node
    if found is None:
        for node in tree.body:
            if isinstance(node, ast.ClassDef) and node.name == "Solution":
                for sub in node.body:
                    if isinstance(sub, ast.FunctionDef) and sub.name == entry_point:
                        found, method = sub, True
    if found is None:
        return None
    a = found.args
    positional = [x.arg for x in a.posonlyargs + a.args]
    if method and positional:
        positional = positional[1:]
    n_default = len(a.defaults)
    required = positional[: len(positional) - n_default] if n_default else list(positional)
    required += [k.arg for k, d in zip(a.kwonlyargs, a.kw_defaults) if d is None]
    return Signature(params=positional + [k.arg for k in a.kwonlyargs], required=required,
                     var_kw=a.kwarg is not None)
