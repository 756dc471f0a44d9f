"""The one mark of a user's mistake.

An exception that subclasses ``UserError`` was caused by what a user gave tczoo (an
option, a file, a model string, a run directory) and says so in one line: the command
line prints it as ``error: ...`` with exit code 2 and no traceback. Every other
exception is a bug or an environment failure and keeps its traceback. A plugin raises
``UserError`` (or ``tczoo.cli.kit.CLIError``) for its own users' mistakes.

``RunFailed`` is the other one-line error: the user did nothing wrong, but the run
cannot go on (exit code 1).

The subclasses keep their historical bases (``ValueError``, ``KeyError``) so that code
catching those still works; the CLI never catches ``ValueError`` as such (pydantic's
``ValidationError`` is one, and hiding it would hide real bugs).
"""

from __future__ import annotations


class UserError(Exception):
    """Bad input from the user: reported as one line, exit code 2."""


class RunFailed(Exception):
    """A run that could not do its work, for a reason outside tczoo's code: every
    generation failed, the provider stopped answering, the cost limit was reached, the
    disk is full. Reported as one line with exit code 1; what was recorded stays, and
    the same command resumes."""


class InfrastructureFailure(RuntimeError):
    """The sandbox failed a run (``SE``) even after retrying it on fresh slots. A runner
    raises it instead of scoring: the unit is recorded as not scored, with
    ``ScoreRecord.infrastructure`` set, and every report counts it apart — a sandbox failure
    is never a program's behaviour (a wrong code that 'passed', a solution that
    'crashed', a test that separated nothing)."""


class BenchmarkLoadError(UserError, ValueError):
    """A benchmark could not be loaded; the message says which and why, in one line."""
