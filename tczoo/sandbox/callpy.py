"""Call a function of untrusted Python code inside the sandbox.

The code and a call description go into the run directory as files; a fixed driver
(one cached "program" for every call) executes the code as a module named
``solution`` (so an ``if __name__ == "__main__":`` block does not run), calls the
function and prints ``<marker><json>`` as its last line. The marker is random per
call, so the code's own prints cannot be mistaken for the result. Errors are
reported the same way, classified: an ``AssertionError`` is a verdict of the code,
anything else is a crash. The driver deletes the request file (``call.json``) before
the code runs.

What this channel may carry: what one call of the code's own function returns (a
generator's inputs), which the code decides anyway. The marker sits in the driver's
memory, so the code can find it and print a result of its choosing: a value it could
have returned, never more. Judgements in which untrusted code must not reach beyond
its own case run elsewhere, one case per process, their verdict the process's exit
status or a value the host compares (``tczoo.execution.oracle``'s checkers, the
``outputpred`` runner's predictions).
"""

from __future__ import annotations

import json
import secrets
from typing import Any

from tczoo.schema import Language, Program
from tczoo.sandbox.types import CallResult, RunResult, Verdict

DRIVER = r'''
import json, os, sys, traceback

def _emit(marker, obj):
    sys.stdout.flush()
    sys.stdout.write("\n" + marker + json.dumps(obj) + "\n")
    sys.stdout.flush()

def _tail(limit=3000):
    text = traceback.format_exc()
    return text[-limit:]

def _main():
    with open("call.json", encoding="utf-8") as f: call = json.load(f)  # one line: tracebacks keep their line numbers
    os.remove("call.json")  # the request is gone before the code runs
    marker = call["marker"]
    with open("solution.py", encoding="utf-8") as f:
        source = f.read()
    if call.get("seed") is not None:
        import random
        random.seed(call["seed"])
    ns = {"__name__": "solution", "__builtins__": __builtins__}
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10000))
    try:
        exec(compile(source, "solution.py", "exec"), ns)
    except BaseException as e:
        _emit(marker, {"ok": False, "error_type": "exception",
                       "error": "while loading the code: " + _tail()})
        return
    fn = ns.get(call["function"])
    if not callable(fn):
        _emit(marker, {"ok": False, "error_type": "no_function",
                       "error": "no function %r in the code" % call["function"]})
        return
    try:
        value = fn(*call["args"])
    except AssertionError as e:
        _emit(marker, {"ok": False, "error_type": "assertion",
                       "error": ("AssertionError: %s" % e).rstrip(": ") + "\n" + _tail(1500)})
        return
    except BaseException:
        _emit(marker, {"ok": False, "error_type": "exception", "error": _tail()})
        return
    try:
        payload = json.dumps(value)
    except (TypeError, ValueError) as e:
        _emit(marker, {"ok": False, "error_type": "bad_return",
                       "error": "return value is not JSON-serialisable: %s (%r)" % (e, value)[:2000]})
        return
    sys.stdout.flush()
    sys.stdout.write("\n" + marker)
    sys.stdout.write('{"ok": true, "value": ')
    sys.stdout.write(payload)
    sys.stdout.write("}\n")
    sys.stdout.flush()

_main()
'''

DRIVER_PROGRAM = Program(code=DRIVER, language=Language.PYTHON, name="tczoo-call-driver")

_BY_VERDICT = {
    Verdict.TLE: ("timeout", "TLE"),
    Verdict.MLE: ("memory", "MLE"),
    Verdict.OLE: ("output", "OLE"),
}


def prepare(code: str, function: str, args: list | None, seed: int | None = None) -> tuple[dict[str, str], str]:
    marker = f"@@tczoo-result-{secrets.token_hex(8)}@@"
    call = {"function": function, "args": list(args or []), "marker": marker, "seed": seed}
    return {"solution.py": code, "call.json": json.dumps(call)}, marker


def interpret(run: RunResult, marker: str) -> CallResult:
    at = run.stdout.rfind(marker)
    if at >= 0 and run.verdict in (Verdict.AC, Verdict.RE):
        line = run.stdout[at + len(marker):].split("\n", 1)[0]
        try:
            data: dict[str, Any] = json.loads(line)
        except ValueError:
            data = {"ok": False, "error_type": "bad_return", "error": "unreadable result"}
        # The program's own prints come before the marker: keep them for the caller.
        run = run.model_copy(update={"stdout": run.stdout[:at].rstrip("\n")})
        if data.get("ok"):
            return CallResult(ok=True, value=data.get("value"), run=run)
        return CallResult(ok=False, error=data.get("error", ""),
                          error_type=data.get("error_type", "exception"), run=run)
    if run.verdict in _BY_VERDICT:
        kind, text = _BY_VERDICT[run.verdict]
        return CallResult(ok=False, error=text, error_type=kind, run=run)
    if run.verdict is Verdict.SE:
        return CallResult(ok=False, error=f"SE: {run.message}", error_type="exception", run=run)
    # Exited without reporting: os._exit(), sys.exit in a finaliser, a segfault ...
    detail = run.stderr[-2000:] or f"exit code {run.exit_code}, signal {run.signal}"
    return CallResult(ok=False, error=detail, error_type="exception", run=run)
