"""The run browser's figures, drawn with matplotlib as SVG from the report's own tables:

- HackRate against the test budget (TC-Bench Figure 5): ``tczoo.report.plot_scaling``,
  the figure ``tczoo report --plot`` draws;
- ASR per reference-solution strategy (STAB Table 5: Fast, Slow, R1-R3), one bar per
  (language, model, method) row of that table;
- the forest plot: every metric with its 95% interval, a row per model × method
  (``tczoo.report.plot_forest``, the figure ``tczoo report --plot`` draws).

The page shows them with ``<img>``, so nothing inside an SVG can run.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tczoo.report import CI

STRATEGIES = ("Fast", "Slow", "R1", "R2", "R3")


def _label(text: Any) -> str:
    # '$' starts mathtext in matplotlib: a model name with one must stay plain text
    return str(text).replace("$", r"\$")


def plot_asr(tables: list[Any], path: Path) -> bool:
    """Bars of ASR per strategy; False when no table has the per-reference layout."""
    rows = [r for t in tables if all(c in t.columns for c in STRATEGIES) for r in t.rows]
    if not rows:
        return False
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    width = 0.8 / len(rows)
    fig, ax = plt.subplots(figsize=(7, 4))
    for i, row in enumerate(rows):
        values = [row.get(s) if isinstance(row.get(s), (int, float)) else 0.0 for s in STRATEGIES]
        label = " ".join(_label(row.get(k, "")) for k in ("language", "model", "method") if row.get(k))
        ax.bar([x + i * width for x in range(len(STRATEGIES))], values, width, label=label)
    ax.set_xticks([x + 0.4 - width / 2 for x in range(len(STRATEGIES))])
    ax.set_xticklabels(STRATEGIES)
    ax.set_ylabel("ASR (%)")
    ax.set_ylim(0, 100)
    ax.set_xlabel("reference solution strategy")
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return True


def draw_plots(tables: list[Any], folder: Path, prefix: str) -> list[dict[str, str]]:
    """Every figure the tables allow, as ``folder/PREFIX-NAME.svg``; [{title, file}] or
    {title, error} when drawing failed (a figure is never worth a failed site)."""
    scaling = any(c.startswith("HR ") and c.endswith("x") for t in tables for c in t.columns)
    asr = any(all(c in t.columns for c in STRATEGIES) for t in tables)
    forest = any(c.endswith(CI) for t in tables for c in t.columns)
    if not (scaling or asr or forest):
        return []  # matplotlib takes a second or two to import: only when there is a figure
    import matplotlib

    from tczoo.report import plot_forest, plot_scaling
    from tczoo.runner import Table

    matplotlib.use("Agg")
    safe_tables = [Table(title=t.title, columns=t.columns, notes=t.notes,
                         rows=[{k: (_label(v) if isinstance(v, str) else v) for k, v in r.items()} for r in t.rows])
                   for t in tables]
    out = []
    for name, title, draw in (("scaling", "HackRate against the test budget (TC-Bench Fig. 5)", plot_scaling),
                              ("asr", "ASR per reference solution strategy (STAB Table 5)", plot_asr),
                              ("forest", "every metric with its 95% interval (forest plot)", plot_forest)):
        path = folder / f"{prefix}-{name}.svg"
        try:
            with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "tczoo"}):
                drawn = draw(safe_tables, path)
        except Exception as exc:
            out.append({"title": title, "error": f"{type(exc).__name__}: {exc}"[:300]})
            continue
        if drawn:
            out.append({"title": title, "file": f"plots/{path.name}"})
    return out
