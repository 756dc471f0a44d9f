"""Value types of the execution engine: verdicts, limits, jobs and results."""

from __future__ import annotations

from enum import Enum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from tczoo.schema import Program, Validator


class Verdict(str, Enum):
    AC = "AC"  # ran cleanly (and, when judged, the output matched)
    WA = "WA"  # ran cleanly, output did not match
    RE = "RE"  # non-zero exit or killed by a signal
    TLE = "TLE"  # CPU time over the limit, or stopped by the wall-clock guard
    MLE = "MLE"  # memory over the limit
    OLE = "OLE"  # output over the cap
    CE = "CE"  # compilation failed
    SE = "SE"  # sandbox/system error (our fault, not the program's)

    @property
    def ok(self) -> bool:
        return self is Verdict.AC


DAY_MS = 24 * 3600 * 1000
TB_MB = 1 << 20


class Limits(BaseModel):
    """A run's limits. Out-of-range values are refused here (a ``ValueError``), not
    turned into a verdict: ``time_ms=0`` would be TLE and ``memory_mb=0`` MLE for every
    program, ``time_ms=-5`` a sandbox error."""

    model_config = ConfigDict(extra="forbid")

    time_ms: int = Field(2000, gt=0, le=DAY_MS)  # CPU time; decides TLE
    wall_ms: int | None = Field(None, gt=0, le=DAY_MS)  # wall guard; default 2 * time_ms + 1000
    memory_mb: int = Field(256, gt=0, le=TB_MB)
    output_kb: int = Field(64 * 1024, ge=0, le=TB_MB)  # stdout cap; OLE past it
    file_kb: int = Field(16 * 1024, ge=0, le=TB_MB << 10)  # largest file the program may write
    processes: int = Field(1, ge=1, le=1 << 16)  # threads/processes the program may create (1 = no fork)

    @classmethod
    def of(cls, problem) -> "Limits":
        """The judge's limits for a problem (anything with time/memory limits: Problem, Task)."""
        return cls(time_ms=problem.time_limit_ms, memory_mb=problem.memory_limit_mb)

    @property
    def wall_guard_ms(self) -> int:
        return self.wall_ms if self.wall_ms is not None else 2 * self.time_ms + 1000


def limits_error(error: ValueError, names: dict[str, str] | None = None) -> str:
    """One line for a user from a refused ``Limits``: which field (under the name the
    user knows it by, e.g. ``--time-limit``), what it must be, what was given."""
    if not isinstance(error, ValidationError):
        return str(error).splitlines()[0]
    parts = []
    for err in error.errors():
        field = str(err["loc"][0]) if err.get("loc") else "limits"
        parts.append(f"{(names or {}).get(field, field)} {err.get('input')!r}: {err['msg'].lower()}")
    return "; ".join(parts)


class DeadlineExceeded(RuntimeError):
    """A caller's deadline (``deadline=`` of ``Sandbox.run_many``, ``run``, ``call_many``
    ...) passed before every result was known: runs in flight were stopped there by the
    worker, runs not started never start. Raised instead of a result, so that a run cut
    short is never read as the program's behaviour (it is no ``TLE``: the program had
    its own limits) nor as the sandbox's failure (no ``SE``: nothing failed). Results
    yielded before it are complete and stand."""

    def __init__(self, message: str = "the caller's deadline passed", *, done: int = 0, cut: int = 0):
        super().__init__(message)
        self.done = done  # results delivered before the deadline
        self.cut = cut  # runs stopped, or never started, because of it


class CompileResult(BaseModel):
    ok: bool
    message: str = ""  # compiler output, truncated
    cached: bool = False
    seconds: float = 0.0
    # The sandbox could not build it (its compile jail failed, no compiler or JDK, a
    # language it does not know): decided by the host from its own channel (the jail's
    # launcher's status pipe), never from the compiler's output, which the source shapes.
    infrastructure: bool = False
    # The language's compiler or interpreter is not installed on this machine (with
    # ``infrastructure``): the program cannot run here, which reports count and show
    # ("cannot run: Kotlin is not installed here ...").
    missing: bool = False


class RunResult(BaseModel):
    """What one execution did. ``verdict`` is AC for a clean run before any judging."""

    verdict: Verdict
    exit_code: int | None = None
    signal: int | None = None
    cpu_ms: float = 0.0
    wall_ms: float = 0.0
    memory_kb: int = 0
    stdout: str = ""
    stderr: str = ""  # truncated
    stdout_truncated: bool = False
    message: str = ""  # compile error, checker message, reason for SE

    @property
    def ok(self) -> bool:
        return self.verdict is Verdict.AC


class Job(BaseModel):
    """One (program, input) execution for batch runs."""

    program: Program
    stdin: str = ""
    limits: Limits = Field(default_factory=Limits)
    expected: str | None = None  # judge against this when given
    comparator: str | None = None  # None/"tokens", "exact", "float:ABS[:REL]", "kattis[:FLAGS]"
    output_validator: Validator | None = None  # judge with the problem's validator instead
    # The output validator is the program's interactor (an interactive problem): the two run
    # together, connected by pipes (Sandbox.interact); ``stdin`` is the interactor's input
    # file, ``expected`` its answer file.
    interactive: bool = False
    files: dict[str, str] | None = None  # extra files placed in the run directory
    args: list[str] | None = None  # command-line arguments of the program
    tag: Any = None  # caller's bookkeeping, returned untouched


class CallResult(BaseModel):
    """What ``Sandbox.call_python`` got from calling a function of untrusted code."""

    ok: bool
    value: Any = None  # the JSON-decoded return value when ok
    error: str = ""  # "AssertionError: ...", a traceback tail, "TLE", ...
    # "assertion", "exception", "timeout", "memory", "output", "no_function", "bad_return"
    error_type: str | None = None
    run: RunResult


class PyCall(BaseModel):
    """One call of a function of untrusted Python code, for ``Sandbox.call_many``."""

    code: str
    function: str
    args: list[Any] = Field(default_factory=list)
    limits: Limits = Field(default_factory=Limits)
    seed: int | None = None  # seeds ``random`` before the call (generators)
    stdin: str = ""
    tag: Any = None
