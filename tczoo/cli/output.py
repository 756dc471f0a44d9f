"""How every ``tczoo`` command prints — the kernel's and every plugin's.

- ``console`` / ``err_console``, ``echo``, ``warn``: output that never lets a model's or
  a program's bytes drive the terminal (escape sequences, NUL, lone surrogates are
  shown escaped, ``tczoo.safeio.text.printable``);
- ``emit_json``: machine output (``--format json``), always valid UTF-8;
- ``rich_table``: a table whose cells are plain text.

Nothing here imports more than rich at import time: ``tczoo --help`` must stay fast.
"""

from __future__ import annotations

import re
import sys
from typing import Any, Iterable, Sequence

from rich.console import Console
from rich.text import Text

from tczoo.safeio.text import dumps, printable



def _piped_width() -> int:
    """Piped output (logs, CI) gets wide tables instead of rich's 80-column default,
    unless COLUMNS says how wide."""
    import os

    try:
        return max(40, int(os.environ.get("COLUMNS", "")))
    except ValueError:
        return 160


console = Console(highlight=False) if sys.stdout.isatty() else Console(width=_piped_width(), highlight=False)
err_console = Console(stderr=True, highlight=False)
WIDE = False  # --wide: tables at their full width, labels in full (set by tczoo.cli.main)


def set_wide(wide: bool = True) -> None:
    """``--wide``: every table at its natural width (the terminal wraps what it must),
    model strings in full."""
    global WIDE
    WIDE = wide
    if wide:
        console.width = max(console.width, 1000)


def echo(text: Any = "", *, err: bool = False) -> None:
    """Print plain text (no rich markup is interpreted), escaped for the terminal."""
    (err_console if err else console).print(Text(printable(text)), soft_wrap=True)


def warn(text: str) -> None:
    err_console.print(Text("warning: ", style="bold yellow") + Text(printable(text, newlines=False)), soft_wrap=True)


def emit_json(data: Any) -> None:
    """Machine output: JSON on stdout, always valid UTF-8 (``tczoo.safeio.text.dumps``)."""
    sys.stdout.write(dumps(data, indent=2, default=str) + "\n")


# a number, maybe with its interval and problem count and a marker: 3.03 [0.00, 9.09] n=6 (1/7 failed);
# or an interval alone: [0.00, 9.09]
_NUMBER = re.compile(r"^([-+]?\$?(\d[\d,]*(\.\d*)?|\.\d+)(e[-+]?\d+)?%?( \[[-+\d., ]*\])?( n=\d+)?( \(.*\))?"
                     r"|\[[-+]?[\d.]+, [-+]?[\d.]+\])$")
STATUS = {"", "failed", "no valid tests", "not run", "not scored", "nan", "-", "n/a"}


def _longest_word(text: str) -> int:
    return max((len(w) for w in text.split()), default=0)


def numeric_column(cells: Sequence[str]) -> bool:
    """A column of numbers (a status word such as ``failed`` aside): right-aligned, never
    wrapped. Every other column is text: left-aligned, wrapped between words."""
    seen = False
    for c in cells:
        c = c.strip()
        if c in STATUS:
            continue
        if not _NUMBER.match(c):
            return False
        seen = True
    return seen


def rich_table(title: str, columns: Sequence[str], rows: Iterable[Sequence[Any]], *,
               left: Iterable[str] = (), width: int | None = None) -> Any:
    """A table whose cells are plain text (``[local]`` stays ``[local]``), fitted to the
    terminal: numbers are right-aligned and never broken, text is left-aligned and
    wrapped between words, and a table too wide for the terminal is printed in parts,
    each repeating the leading text columns (``model``, ``method`` ...), rather than
    cutting words. ``left`` forces columns to the left. ``--wide``: one table."""
    from rich.console import Group
    from rich.table import Table

    columns = [printable(c) for c in columns]
    cells = [[printable(v) for v in row] for row in rows]
    forced = set(left)
    numeric = [numeric_column([r[j] for r in cells if j < len(r)]) and columns[j] not in forced
               for j in range(len(columns))]
    need, natural = [], []
    for j, c in enumerate(columns):
        column = [r[j] for r in cells if j < len(r)]
        body = max((len(x) for x in column), default=0) if numeric[j] else \
            min(max((_longest_word(x) for x in column), default=0), 32)
        need.append(max(_longest_word(c), body, 1))
        natural.append(max([len(c), *(max((len(line) for line in x.split("\n")), default=0) for x in column), 1]))
    avail = width or console.width

    def cost(idx: list[int]) -> int:
        return sum(need[j] + 3 for j in idx) + 1

    lead: list[int] = []  # repeated in every part: the leading text columns that say what a row is
    for j in range(len(columns)):
        if numeric[j] or len(lead) >= 2 or cost(lead + [j]) > avail // 2:
            break
        lead.append(j)
    rest = [j for j in range(len(columns)) if j not in lead]

    parts: list[list[int]] = []
    if WIDE or cost(list(range(len(columns)))) <= avail or not rest:
        parts = [list(range(len(columns)))]
    else:
        current: list[int] = []
        for j in rest:
            if current and cost(lead + current + [j]) > avail:
                parts.append(lead + current)
                current = []
            current.append(j)
        parts.append(lead + current)

    tables = []
    for k, idx in enumerate(parts):
        name = printable(title) + (f" ({k + 1} of {len(parts)})" if len(parts) > 1 else "")
        table = Table(title=name)
        widths = {j: natural[j] for j in idx}
        if not WIDE:  # narrow the columns with the most room to spare, never below their longest word
            excess = sum(widths.values()) + 3 * len(idx) + 1 - avail
            while excess > 0:
                j = max(idx, key=lambda i: widths[i] - need[i])
                if widths[j] <= need[j]:
                    break
                widths[j] -= 1
                excess -= 1
        for j in idx:
            # a fixed width that holds every number and every word whole; text wraps between words
            table.add_column(columns[j], justify="right" if numeric[j] else "left", width=widths[j],
                             overflow="fold")
        for row in cells:
            table.add_row(*(Text(row[j]) if j < len(row) else Text("") for j in idx))
        tables.append(table)
    return tables[0] if len(tables) == 1 else Group(*tables)


def show_tables(tables: Iterable[Any], *, notes: bool = True) -> None:
    """``tczoo.runner.Table`` objects on the terminal, as every report command prints
    them: each column with its runner's decimals, model strings shortened to their
    file name where they name a file (``--wide``: in full), then each table's notes."""
    from tczoo.report import cell, model_labels

    for t in tables:
        per_column = getattr(t, "precision", None) or {}
        rows = [[cell(r.get(c), int(per_column.get(c, t.decimals))) for c in t.columns] for r in t.rows]
        if "model" in t.columns and not WIDE:
            j = t.columns.index("model")
            distinct = list(dict.fromkeys(r[j] for r in rows))
            short = dict(zip(distinct, model_labels(distinct)))
            for r in rows:
                r[j] = short[r[j]]
        console.print(rich_table(t.title, t.columns, rows))
        if notes:
            for note in t.notes:
                echo(note)


def print_tables(tables: Iterable[Any], fmt: str) -> None:
    """Tables on stdout in ``fmt``: ``table`` (``show_tables``), else ``tczoo.report.render``'s
    md, csv or json."""
    if fmt != "table":
        from tczoo.report import render

        sys.stdout.write(render(list(tables), fmt))
        sys.stdout.flush()
        return
    show_tables(tables)
