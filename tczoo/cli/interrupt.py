"""Ctrl-C: whether it was pressed, and the one line a command ends with then.

Below every command module (``tczoo.cli`` sets ``stopped`` in its SIGINT handler; a
command that ends on Ctrl-C by design, such as ``view --serve``, clears it), so no
command imports the package that registers it.
"""

from __future__ import annotations

import threading

INTERRUPTED = "interrupted; run the same command again to resume"
stopped = threading.Event()  # Ctrl-C was pressed (typer turns it into exit code 130)
