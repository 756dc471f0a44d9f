"""Reading numbers back out of runners' tables, for the comparison and reproduction
reports: which row is a (model, method) cell, which columns hold its metrics, and how
a value is printed. The runners' own tables stay the one place a metric is computed;
this only finds it (``data/runners.yaml`` says where, per runner)."""

from __future__ import annotations

import fnmatch
import re
from functools import lru_cache
from typing import Any

from tczoo.report import ADDED, FAILED, IDENTITY, is_marked
from tczoo.runner import Table

# columns that say which cell a row is, or how its generations went, never a metric
NOT_METRICS = set(IDENTITY) | set(ADDED) | {"problems", "selector", "label", "reference", "candidates", "codes",
                                            "runs", "undecided", "responses", "k", "restart", "draws"}


@lru_cache(maxsize=None)
def runner_reading() -> dict[str, dict[str, Any]]:
    import yaml

    from tczoo.experiments.targets import data_file

    return yaml.safe_load(data_file("runners.yaml").read_text()) or {}


def norm(text: Any) -> str:
    """A method's name as tables spell it (CRUX, Io, STAB-BASE, stab-base) made comparable."""
    return re.sub(r"[^a-z0-9]", "", str(text).lower())


def decimals(table: Table, column: str) -> int:
    """How many decimals the runner shows for ``column`` (tables that say nothing: one)."""
    per_column = getattr(table, "precision", None) or {}
    if column in per_column:
        return int(per_column[column])
    return int(getattr(table, "decimals", 1))


def show(value: Any, places: int = 1) -> str:
    if isinstance(value, float):
        return "nan" if value != value else f"{value:.{places}f}"
    return "" if value is None else str(value)


def _row_for(table: Table, model: str, method: str, reading: dict[str, Any]) -> dict[str, Any] | None:
    row_rule = reading.get("row")
    for row in table.rows:
        if row_rule:
            if all(str(row.get(col)) == pattern.format(method=method, model=model) for col, pattern in row_rule.items()):
                return row
            continue
        if "model" in table.columns and row.get("model") != model:
            continue
        if "method" in table.columns and norm(row.get("method")) != norm(method):
            continue
        if "model" in table.columns or "method" in table.columns:
            return row
    return None


def _columns(table: Table, patterns: list[str], method: str) -> list[str]:
    out: list[str] = []
    for pattern in patterns:
        wanted = pattern.format(method=method)
        for col in table.columns:
            if col in NOT_METRICS or col in out:
                continue
            if fnmatch.fnmatchcase(col, wanted):
                out.append(col)
    return out


def lookup(tables: list[Table], runner: str, model: str, method: str, *, which: str = "metrics"
           ) -> list[tuple[str, Any, Table]]:
    """(column, value, table) of a cell's ``which`` ("headline" or "metrics") columns,
    from the first of ``tables`` that has the cell's row and such a column. A value may
    be ``failed``, or ``no valid tests`` alone or beside a number (the report puts
    those in the metric columns of a cell that failed or has no valid test)."""
    reading = runner_reading().get(runner)
    for table in tables:
        row = _row_for(table, model, method, reading or {})
        if row is None:
            continue
        if reading:
            cols = _columns(table, list(reading.get(which) or []), method)
            if which == "headline":
                cols = cols[:1]
        else:
            cols = [c for c in table.columns if c not in NOT_METRICS
                    and (isinstance(row.get(c), (int, float)) or row.get(c) == FAILED or is_marked(row.get(c)))]
            cols = cols[:1] if which == "headline" else cols
        if cols:
            return [(c, row.get(c), table) for c in cols]
    return []
