"""A target's table: our rows read from the runners' tables, the paper's rows beside
them, in the paper's column vocabulary (``targets.yaml`` ``layout``)."""

from __future__ import annotations

import re
from typing import Any

from tczoo.experiments.metrics import NOT_METRICS, decimals, norm, show
from tczoo.experiments.targets import Layout, Target
from tczoo.report import ADDED, CI, N_PROBLEMS
from tczoo.runner import Table
from tczoo.stats import Interval

OURS = "ours"


def melt(table: Table, spec: dict[str, Any]) -> Table:
    """Wide columns into rows: each column matching ``spec["pattern"]`` (a regex whose
    named groups become key columns; group ``metric`` names the value's column, else
    ``spec["metric"]`` does) becomes part of a row per distinct key."""
    pattern = re.compile(spec["pattern"])
    exclude = set(spec.get("exclude") or []) | NOT_METRICS
    matched = {c: pattern.match(c) for c in table.columns if c not in exclude and not c.endswith(CI)}
    matched = {c: m for c, m in matched.items() if m is not None}
    keep = [c for c in table.columns if c not in matched]
    groups = [g for g in pattern.groupindex if g != "metric"]
    rows = []
    for row in table.rows:
        by_key: dict[tuple, dict[str, Any]] = {}
        for col, m in matched.items():
            key = tuple(m.group(g) for g in groups)
            new = by_key.setdefault(key, {**{c: row.get(c) for c in keep}, **dict(zip(groups, key))})
            metric = m.group("metric") if "metric" in pattern.groupindex else spec.get("metric", col)
            new[metric] = row.get(col)
            if row.get(col + CI) is not None:  # the interval goes where its number goes
                new[metric + CI] = row.get(col + CI)
        rows.extend(by_key.values())
    metrics = list(dict.fromkeys(m.group("metric") if "metric" in pattern.groupindex else spec.get("metric", c)
                                 for c, m in matched.items()))
    keep = [c for c in keep if not c.endswith(CI)]
    with_ci = [x for m in metrics for x in ([m, m + CI] if any(r.get(m + CI) is not None for r in rows) else [m])]
    melted = Table(title=table.title, columns=keep + groups + with_ci, rows=rows, notes=table.notes)
    for attr in ("precision", "decimals"):  # keep how the runner prints its numbers
        if hasattr(table, attr):
            setattr(melted, attr, getattr(table, attr))
    return melted


def pick_table(tables: list[Table], layout: Layout) -> Table | None:
    """The runner table that holds the layout's numbers (after melting): the one with the
    key columns and the most of the wanted columns."""
    best, overlap = None, 0
    for table in tables:
        t = melt(table, layout.melt) if layout.melt else table
        if any(k not in t.columns for k in layout.keys):
            continue
        n = sum(c in t.columns for c in layout.columns)
        if n > overlap:
            best, overlap = t, n
    return best


def _renamed(value: Any, rule: list[str] | None) -> Any:
    if rule is None or value is None:
        return value
    return re.sub(rule[0], rule[1], str(value))


def our_rows(target: Target, tables: list[Table], label_of, model: str = "") -> tuple[list[dict[str, Any]], Table | None]:
    """Our rows in the layout's columns (numbers as the runner computed them; ``failed``
    and ``no valid tests`` where the report put them), with the failure counts, and the
    runner table they come from."""
    layout = target.layout
    table = pick_table(tables, layout)
    if table is None:
        return [], None
    methods = target.methods
    rows = []
    for row in table.rows:
        out: dict[str, Any] = {"source": OURS, "model": label_of(row.get("model") or model)}
        for k in layout.keys + layout.show:
            value = _renamed(row.get(k), layout.rename.get(k))
            if k == "method" or k == "selector":  # the method's own name, as the paper data spells it
                value = next((m for m in methods if norm(m) == norm(value)), value)
            out[k] = value
        for c in layout.columns:
            out[c] = row.get(c)
            if isinstance(row.get(c + CI), Interval):
                out[c + CI] = row[c + CI]
        for c in ADDED:
            if c in row:
                out[c] = row[c]
        rows.append(out)
    # the paper's method order; a row that names no method (best-of-N's "Original
    # pass@1") keeps its place before or after the method rows
    order = {norm(m): i for i, m in enumerate(methods)}
    named = [i for i, r in enumerate(rows) if any(norm(r.get(k)) in order for k in ("method", "selector"))]

    def rank(item: tuple[int, dict[str, Any]]) -> tuple:
        i, r = item
        found = [order[norm(r.get(k))] for k in ("method", "selector") if norm(r.get(k)) in order]
        if found:
            return (found[0], i)
        return (-1 if named and i < named[0] else len(order), i)

    return [r for _, r in sorted(enumerate(rows), key=rank)], table


def paper_rows(target: Target) -> list[dict[str, Any]]:
    """Every row of the paper tables the target compares with, tagged by table."""
    out = []
    for tid, table in target.paper_tables():
        for rec in table.records():
            out.append({"source": "paper " + re.split(r" \(|:", table.ref)[0], "_table": tid, **rec})
    return out


def _key(row: dict[str, Any], keys: list[str]) -> tuple:
    return tuple(norm(row.get(k)) for k in keys)


def side_by_side(target: Target, ours: list[dict[str, Any]], paper: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Our rows, each followed by the paper rows with the same keys that ``compare_with``
    selects; then the paper's rows for keys we have no row for."""
    layout = target.layout
    chosen = [r for r in paper if all(norm(r.get(k)) == norm(v) for k, v in target.compare_with.items())]
    rows: list[dict[str, Any]] = []
    used: set[int] = set()
    groups: dict[tuple, list[dict[str, Any]]] = {}
    for r in ours:
        groups.setdefault(_key(r, layout.keys), []).append(r)
    for key, mine in groups.items():
        rows += mine
        for i, r in enumerate(chosen):
            if _key(r, layout.keys) == key:
                rows.append(r)
                used.add(i)
    rows += [r for i, r in enumerate(chosen) if i not in used]
    return rows


def places(target: Target, column: str, ours_table: Table | None) -> int:
    """How many decimals a column is printed with: as the paper prints it (the first
    compared table with numbers in that column), else as the runner does."""
    for _, table in target.paper_tables():
        if table.rows and column in table.columns:
            return table.places(column)
    return decimals(ours_table, column) if ours_table is not None else 1


def comparison_table(target: Target, rows: list[dict[str, Any]], ours_table: Table | None,
                     columns: list[str] | None = None) -> Table:
    """Rows of both sources under the same columns, every number printed as the paper
    prints it (ours with the same decimals)."""
    layout = target.layout
    metrics = columns or layout.columns
    identity = ["source", "model", *layout.keys, *layout.show]
    tables = dict(target.paper_tables())
    digits = {c: places(target, c, ours_table) for c in metrics}
    shown = []
    for row in rows:
        paper_table = tables.get(row.get("_table", ""))
        out = {c: row.get(c) for c in identity}
        for c in metrics:
            value = row.get(c)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                out[c] = show(value, digits[c])
            elif value is None and paper_table is not None and c in paper_table.columns and paper_table.rows:
                out[c] = "(illegible)"  # the paper prints no legible number there: never guessed
            else:
                out[c] = "" if value is None else str(value)
            interval = row.get(c + CI)
            if isinstance(interval, Interval):  # ours only: no paper gives one
                out[c + CI] = interval.text(digits[c])
                out[N_PROBLEMS] = interval.problems
        for c in ADDED:
            out[c] = "" if row.get("source") != OURS else show(row.get(c))
        shown.append(out)
    health = [c for c in ADDED if any(r.get(c) not in ("", None) for r in shown)]
    with_ci = [x for c in metrics for x in ([c, c + CI] if any(c + CI in r for r in shown) else [c])]
    counts = [N_PROBLEMS] if any(N_PROBLEMS in r for r in shown) else []
    table = Table(title=target.title, columns=identity + with_ci + counts + health, rows=shown)
    if counts:
        table.notes.append("95% CI (ours): the interval of a seeded bootstrap over the n problems our number rests "
                           "on, exact (Clopper–Pearson) where each problem scores 0 or 100; the papers give none")
    return table
