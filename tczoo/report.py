"""A run directory's result tables, in every format ``tczoo report`` prints.

``run_tables(run_dir)`` reads the records and asks each runner to summarise its own
(its paper's table layout); ``render(tables, fmt)`` turns tables into markdown, CSV or
JSON text. Rendering for a terminal (rich) is the command line's job.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

from tczoo.runner import Table

FORMATS = ("table", "md", "csv", "json")


def run_tables(run_dir: Path) -> tuple[Any, list[Table]]:
    """(the opened store, the tables of every runner that scored in it)."""
    from tczoo.registry import get_runner
    from tczoo.store import RunStore

    store = RunStore.open(run_dir)
    scores = store.scores()
    by_runner: dict[str, list] = {}
    failed = [s for s in scores if "error" in s.detail]
    for s in scores:
        if "error" not in s.detail:
            by_runner.setdefault(s.runner, []).append(s)
    tables: list[Table] = []
    for name, records in by_runner.items():
        # summarising reads records only: no sandbox needed
        tables.extend(get_runner(name)(None).summarize(records))
    if failed:
        first = failed[0]
        note = (f"{len(failed)} generation(s) could not be scored and are left out "
                f"(first: {first.method} on {first.problem_id}: {first.detail['error'][:200]})")
        if tables:
            tables[0].notes.append(note)
        else:
            tables.append(Table(title="scoring errors", columns=["note"], rows=[{"note": note}]))
    return store, tables


def cell(value: Any) -> str:
    """One table cell as text: floats with one decimal, None as empty."""
    if isinstance(value, float):
        return "nan" if value != value else f"{value:.1f}"
    return "" if value is None else str(value)


def render(tables: list[Table], fmt: str) -> str:
    """``md``, ``csv`` or ``json`` text of ``tables``.

    CSV is one valid CSV document: a ``table`` column names the table a row belongs to,
    the other columns are the union of the tables' columns (notes are left out; they
    are in every other format)."""
    if fmt == "json":
        return json.dumps([{"title": t.title, "columns": t.columns, "rows": t.rows, "notes": t.notes}
                           for t in tables], indent=2, ensure_ascii=False, default=str) + "\n"
    out = io.StringIO()
    if fmt == "csv":
        columns: list[str] = []
        for t in tables:
            columns += [c for c in t.columns if c not in columns]
        writer = csv.DictWriter(out, fieldnames=["table", *columns], extrasaction="ignore", lineterminator="\n")
        writer.writeheader()
        for t in tables:
            for row in t.rows:
                writer.writerow({"table": t.title, **{c: row.get(c) for c in t.columns}})
        return out.getvalue()
    if fmt != "md":
        raise ValueError(f"unknown report format {fmt!r}")
    for t in tables:
        out.write(f"### {t.title}\n\n| " + " | ".join(t.columns) + " |\n|" + "---|" * len(t.columns) + "\n")
        for row in t.rows:
            out.write("| " + " | ".join(cell(row.get(c)).replace("|", "\\|") for c in t.columns) + " |\n")
        for note in t.notes:
            out.write(f"\n{note}\n")
        out.write("\n")
    return out.getvalue()


def plot_scaling(tables: list[Table], path: Path) -> bool:
    """Figure 5 of TC-Bench: HackRate against the test budget (k x rank), a line per
    model x method. Returns False when no table has scaling columns."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    series = []
    for t in tables:
        cols = [c for c in t.columns if c.startswith("HR ") and c.endswith("x")]
        for row in t.rows:
            points = [(int(c[3:-1]), row[c]) for c in cols if isinstance(row.get(c), (int, float))]
            if points:
                series.append((f"{row.get('model', '')} {row.get('method', '')}".strip(), sorted(points)))
    if not series:
        return False
    fig, ax = plt.subplots(figsize=(6, 4))
    for label, points in series:
        ax.plot([k for k, _ in points], [v for _, v in points], marker="o", label=label)
    ax.set_xlabel("test budget (multiples of rank)")
    ax.set_ylabel("HackRate (%)")
    ax.set_ylim(0, 100)
    ax.set_xticks(sorted({k for _, pts in series for k, _ in pts}))
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True
