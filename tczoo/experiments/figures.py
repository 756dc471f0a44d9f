"""The PNG of a figure target (matplotlib, headless): readable axes, a legend, the
paper's reference in the title. Lines over the layout's columns (Figure 5: HackRate at
1x-5x rank), or grouped bars of the layout's columns per row (Figure 4a: HackRate on
all wrong codes and on the WrongSelect basis, per method)."""

from __future__ import annotations

from pathlib import Path


def _numbers(row: dict, columns: list[str]) -> list[float | None]:
    out = []
    for c in columns:
        v = row.get(c)
        out.append(float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) and v == v else None)
    return out


def draw(repro, path: Path) -> bool:
    """Draw ``repro``'s figure to ``path``; False when no row of ours has a number."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    target = repro.target
    figure = target.figure
    rows = repro.figure_rows
    key = target.layout.keys[0] if target.layout.keys else "model"
    if figure.kind == "lines":
        columns = target.layout.columns
        series = [(str(r.get(key)), _numbers(r, columns)) for r in rows]
    else:
        columns = [c for c in repro.comparison.columns if c.endswith(")") and "(" in c] or target.layout.columns
        series = [(str(r.get(key)), _numbers(r, columns)) for r in rows]
    series = [(name, ys) for name, ys in series if any(y is not None for y in ys)]
    if not series:
        return False
    plt.rcParams.update({"font.size": 10})
    fig, ax = plt.subplots(figsize=(7, 4.2))
    if figure.kind == "lines":
        xs = figure.x or list(range(1, len(columns) + 1))
        for name, ys in series:
            pts = [(x, y) for x, y in zip(xs, ys) if y is not None]
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", linewidth=2, label=name)
        ax.set_xticks(xs)
        ax.set_xticklabels([f"{x:g}x" for x in xs])
    else:
        width = 0.8 / max(1, len(columns))
        for j, column in enumerate(columns):
            positions = [i + (j - (len(columns) - 1) / 2) * width for i in range(len(series))]
            heights = [ys[j] if ys[j] is not None else 0.0 for _, ys in series]
            bars = ax.bar(positions, heights, width=width * 0.95, label=column)
            for bar, (_, ys) in zip(bars, series):
                if ys[j] is not None:
                    ax.annotate(f"{ys[j]:.1f}", (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                                ha="center", va="bottom", fontsize=8)
        ax.set_xticks(range(len(series)))
        ax.set_xticklabels([name for name, _ in series])
    ax.set_xlabel(figure.xlabel or key)
    ax.set_ylabel(figure.ylabel)
    top = max((y for _, ys in series for y in ys if y is not None), default=100.0)
    ax.set_ylim(0, max(100.0, top * 1.1) if "%" in figure.ylabel else top * 1.15 or 1.0)
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=8, loc="best")
    model = rows[0].get("model", "") if rows else ""
    ref = next((t.ref.split(" (")[0] for _, t in target.paper_tables()), "")
    ax.set_title(f"{target.paper}: {ref} — {model}", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=130, metadata={"Software": None})
    plt.close(fig)
    return True
