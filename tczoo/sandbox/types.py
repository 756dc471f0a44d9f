"""Value types of the execution engine: verdicts, limits, jobs and results."""

from __future__ import annotations

from enum import Enum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

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


class Limits(BaseModel):
    model_config = ConfigDict(extra="forbid")

    time_ms: int = 2000  # CPU time; decides TLE
    wall_ms: int | None = None  # wall guard; default 2 * time_ms + 1000
    memory_mb: int = 256
    output_kb: int = 64 * 1024  # stdout cap; OLE past it
    file_kb: int = 16 * 1024  # largest file the program may write
    processes: int = 1  # threads/processes the program may create (1 = no fork)

    @classmethod
    def of(cls, problem) -> "Limits":
        """The judge's limits for a problem (anything with time/memory limits: Problem, Task)."""
        return cls(time_ms=problem.time_limit_ms, memory_mb=problem.memory_limit_mb)

    @property
    def wall_guard_ms(self) -> int:
        return self.wall_ms if self.wall_ms is not None else 2 * self.time_ms + 1000


class CompileResult(BaseModel):
    ok: bool
    message: str = ""  # compiler output, truncated
    cached: bool = False
    seconds: float = 0.0


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
