"""The PNG of a figure target (matplotlib, headless): readable axes, a legend, the
paper's figure named in the title. Three shapes (``targets.Figure``):

- lines over the layout's columns at ``x`` (Figure 5: HackRate at 1x-5x rank, a line
  per method);
- lines through (``x_column``, ``y``) points, one per ``series`` value (Figure 6:
  HackRate against the number of validating correct codes; Figure 7: convergence);
- grouped bars of ``columns`` per row (Figure 4a: all wrong codes vs the basis per
  method; Figure 8: problems per bin before and after).

Lines whose numbers carry a 95% interval (ours: the figure rows' ``<column> 95% CI``)
are drawn with a shaded band (one point: a vertical bar). The file is written without a
timestamp, so the same rows draw the same bytes."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def _number(value: Any) -> float | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value == value:
        return float(value)
    return None


def _band(row: dict[str, Any], column: str) -> tuple[float, float] | None:
    """(low, high) of the interval our row holds for ``column`` (the papers give none)."""
    from tczoo.report import CI
    from tczoo.stats import Interval

    iv = row.get(column + CI)
    return (iv.low, iv.high) if isinstance(iv, Interval) and iv.low is not None else None


def bands(repro) -> dict[str, list[tuple[Any, float, float]]]:
    """(x, low, high) per line series whose points carry an interval: drawn as a band."""
    target = repro.target
    figure = target.figure
    if figure.kind != "lines":
        return {}
    key = target.layout.keys[0] if target.layout.keys else None
    out: dict[str, list[tuple[Any, float, float]]] = {}
    for r in repro.figure_rows:
        if figure.x_column:
            x, band = _number(r.get(figure.x_column)), _band(r, figure.y)
            if x is not None and band is not None:
                out.setdefault(str(r.get(figure.series)) if figure.series else figure.y or "", []).append((x, *band))
        else:
            xs = figure.x or list(range(1, len(target.layout.columns) + 1))
            found = [(x, *b) for x, c in zip(xs, target.layout.columns) if (b := _band(r, c)) is not None]
            if found:
                out[str(r.get(key) if key else r.get("model"))] = found
    return {name: sorted(points) for name, points in out.items()}


def _series(repro) -> tuple[list[tuple[str, list[tuple[Any, float]]]], list[str]]:
    """(label, points) per drawn series, and the x tick labels (bars: the groups)."""
    target = repro.target
    figure = target.figure
    rows = repro.figure_rows
    key = target.layout.keys[0] if target.layout.keys else None
    if figure.kind == "lines" and figure.x_column:
        by: dict[str, list[tuple[Any, float]]] = {}
        for r in rows:
            y = _number(r.get(figure.y))
            x = _number(r.get(figure.x_column))
            if x is not None and y is not None:
                by.setdefault(str(r.get(figure.series)) if figure.series else figure.y or "", []).append((x, y))
        return [(name, sorted(pts)) for name, pts in by.items()], []
    if figure.kind == "lines":
        xs = figure.x or list(range(1, len(target.layout.columns) + 1))
        out = []
        for r in rows:
            pts = [(x, _number(r.get(c))) for x, c in zip(xs, target.layout.columns)]
            pts = [(x, y) for x, y in pts if y is not None]
            if pts:
                out.append((str(r.get(key) if key else r.get("model")), pts))
        return out, []
    columns = figure.columns or target.layout.columns
    group = figure.group or key or "model"
    groups = [str(r.get(group)) for r in rows]
    out = []
    for column in columns:
        pts = [(i, _number(r.get(column))) for i, r in enumerate(rows)]
        out.append((column, [(i, y) for i, y in pts if y is not None]))
    return [(name, pts) for name, pts in out if pts], groups


def draw(repro, path: Path) -> bool:
    """Draw ``repro``'s figure to ``path``; False when no row of ours has a number."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    target = repro.target
    figure = target.figure
    series, groups = _series(repro)
    if not series:
        return False
    fig, ax = plt.subplots(figsize=(7, 4.2))
    if figure.kind == "lines":
        shaded = bands(repro)
        for name, pts in series:
            line, = ax.plot([x for x, _ in pts], [y for _, y in pts], marker="o", linewidth=2, label=name)
            band = shaded.get(name)
            if band and len(band) > 1:
                ax.fill_between([b[0] for b in band], [b[1] for b in band], [b[2] for b in band],
                                color=line.get_color(), alpha=0.15, linewidth=0)
            elif band:  # one point: its interval as an error bar
                x, low, high = band[0]
                ax.vlines([x], [low], [high], color=line.get_color(), alpha=0.5)
        xs = sorted({x for _, pts in series for x, _ in pts})
        if figure.log_x:
            ax.set_xscale("log")
        elif figure.x and not figure.x_column:
            ax.set_xticks(xs)
            ax.set_xticklabels([f"{x:g}x" for x in xs])
        elif len(xs) <= 12:
            ax.set_xticks(xs)
            ax.set_xticklabels([f"{x:g}" for x in xs])
    else:
        width = 0.8 / len(series)
        for j, (name, pts) in enumerate(series):
            offset = (j - (len(series) - 1) / 2) * width
            bars = ax.bar([i + offset for i, _ in pts], [y for _, y in pts], width=width * 0.95, label=name)
            for bar, (_, y) in zip(bars, pts):
                ax.annotate(f"{y:.1f}" if y % 1 else f"{y:.0f}", (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                            ha="center", va="bottom", fontsize=8)
        ax.set_xticks(range(len(groups)))
        ax.set_xticklabels(groups)
    ax.set_xlabel(figure.xlabel or (target.layout.keys[0] if target.layout.keys else ""))
    ax.set_ylabel(figure.ylabel)
    top = max([y for _, pts in series for _, y in pts]
              + [b[2] for band in (bands(repro) if figure.kind == "lines" else {}).values() for b in band],
              default=1.0)
    if "%" in figure.ylabel:
        ax.set_ylim(0, max(100.0, top * 1.1))
    else:
        ax.set_ylim(0, top * 1.15 if top > 0 else 1.0)
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=8, loc="best")
    model = next((r.get("model") for r in repro.figure_rows if r.get("model")), "")
    ref = next((t.ref.split(" (")[0] for _, t in target.paper_tables()), "")
    ax.set_title(f"{target.paper}: {ref}" + (f" — {model}" if model else ""), fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=130, metadata={"Software": None})
    plt.close(fig)
    return True
