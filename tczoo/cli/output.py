"""How every ``tczoo`` command prints — the kernel's and every plugin's.

- ``console`` / ``err_console``, ``echo``, ``warn``: output that never lets a model's or
  a program's bytes drive the terminal (escape sequences, NUL, lone surrogates are
  shown escaped, ``tczoo.safetext.printable``);
- ``emit_json``: machine output (``--format json``), always valid UTF-8;
- ``rich_table``: a table whose cells are plain text.

Nothing here imports more than rich at import time: ``tczoo --help`` must stay fast.
"""

from __future__ import annotations

import sys
from typing import Any, Iterable, Sequence

from rich.console import Console
from rich.text import Text

from tczoo.safetext import dumps, printable

# Piped output (logs, CI) gets wide tables instead of rich's 80-column default.
console = Console(highlight=False) if sys.stdout.isatty() else Console(width=160, highlight=False)
err_console = Console(stderr=True, highlight=False)


def echo(text: Any = "", *, err: bool = False) -> None:
    """Print plain text (no rich markup is interpreted), escaped for the terminal."""
    (err_console if err else console).print(Text(printable(text)), soft_wrap=True)


def warn(text: str) -> None:
    err_console.print(Text("warning: ", style="bold yellow") + Text(printable(text, newlines=False)), soft_wrap=True)


def emit_json(data: Any) -> None:
    """Machine output: JSON on stdout, always valid UTF-8 (``tczoo.safetext.dumps``)."""
    sys.stdout.write(dumps(data, indent=2, default=str) + "\n")


def rich_table(title: str, columns: Sequence[str], rows: Iterable[Sequence[Any]], *,
               left: Iterable[str] = ()) -> Any:
    """A rich table whose cells are plain text (``[local]`` stays ``[local]``)."""
    from rich.table import Table

    left = set(left)
    table = Table(title=printable(title))
    for c in columns:
        table.add_column(printable(c), justify="left" if c in left or not left else "right",
                         overflow="fold")
    for row in rows:
        table.add_row(*(Text(printable(v)) for v in row))
    return table
