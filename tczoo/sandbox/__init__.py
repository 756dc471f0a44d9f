"""The execution engine: compile cache, limits, isolation, verdicts, batches.

    from tczoo.sandbox import Sandbox, Limits
    with Sandbox() as sb:
        r = sb.judge(program, stdin="1 2\n", expected="3\n", limits=Limits(time_ms=1000))

See docs/sandbox.md for the isolation levels, limits and verdict rules.
"""

from tczoo.sandbox.compare import compare_outputs
from tczoo.sandbox.compile import CompileLimits
from tczoo.sandbox.executor import Executor
from tczoo.sandbox.jail import isolation_report
from tczoo.sandbox.sandbox import IsolationUnavailable, Sandbox
from tczoo.sandbox.types import CallResult, CompileResult, DeadlineExceeded, Job, Limits, PyCall, RunResult, Verdict
from tczoo.sandbox.validators import input_valid, inputs_valid

__all__ = [
    "Sandbox", "Verdict", "Limits", "RunResult", "CompileResult", "Job", "CallResult",
    "compare_outputs", "isolation_report", "CompileLimits", "Executor",
    "IsolationUnavailable", "PyCall", "input_valid", "inputs_valid", "DeadlineExceeded",
]
