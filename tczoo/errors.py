"""The one mark of a user's mistake.

An exception that subclasses ``UserError`` was caused by what a user gave tczoo (an
option, a file, a model string, a run directory) and says so in one line: the command
line prints it as ``error: ...`` with exit code 2 and no traceback. Every other
exception is a bug or an environment failure and keeps its traceback. A plugin raises
``UserError`` (or ``tczoo.cli.kit.CLIError``) for its own users' mistakes.

The subclasses keep their historical bases (``ValueError``, ``KeyError``) so that code
catching those still works; the CLI never catches ``ValueError`` as such (pydantic's
``ValidationError`` is one, and hiding it would hide real bugs).
"""

from __future__ import annotations


class UserError(Exception):
    """Bad input from the user: reported as one line, exit code 2."""

    def one_line(self) -> str:
        return " ".join(str(self).split())
