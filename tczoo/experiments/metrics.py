"""Reading numbers back out of runners' tables, for the comparison and reproduction
reports: which row is a (model, method) cell and which columns hold its metrics
(``tczoo.report.lookup``, from ``data/runners.yaml``; the intervals beside them are
computed for the same columns), and how a value is printed. The runners' own tables
stay the one place a metric is computed; this only finds it."""

from __future__ import annotations

from typing import Any

from tczoo.report import NOT_METRICS, lookup, norm, runner_reading  # noqa: F401  (read here by the reports)
from tczoo.runner import Table


def decimals(table: Table, column: str) -> int:
    """How many decimals the runner shows for ``column`` (tables that say nothing: one)."""
    per_column = getattr(table, "precision", None) or {}
    if column in per_column:
        return int(per_column[column])
    return int(getattr(table, "decimals", 1))


def show(value: Any, places: int = 1) -> str:
    if isinstance(value, float):
        return "nan" if value != value else f"{value:.{places}f}"
    text = getattr(value, "text", None)
    if callable(text):  # an interval, a matrix cell
        return text(places)
    return "" if value is None else str(value)
