"""``tczoo view``: one or more run directories as a static, self-contained site.

    SITE/index.html            the page (no inline script; a strict Content-Security-Policy)
    SITE/assets/               app.js and style.css, copied from the package (no CDN, no network)
    SITE/data/index.js         the summary of every run and one line per unit
    SITE/data/rR/pP.js         everything about problem P in run R, loaded when it is opened
    SITE/plots/*.svg           HackRate scaling and ASR per reference strategy (matplotlib)

The data files are JavaScript (``TCZOO.index({...})`` / ``TCZOO.chunk("rR/pP", {...})``)
loaded with ``<script src>``: a page opened from ``file://`` may not ``fetch()`` files
beside it in Chromium, but it may load scripts, so the same site works from disk and
from a server. The JSON inside is produced by ``json.dumps`` (quotes, backslashes and
control characters escaped), so no text in it can end the call early.
"""

from __future__ import annotations

import json
import time
from importlib import resources
from pathlib import Path
from typing import Any, Callable

from tczoo.errors import UserError
from tczoo.safeio.write import UnsafeFile, replace_dir
from tczoo.view.data import MAX_CHARS, RunData

MARKER = ".tczoo-view"  # a folder holding this file is a site tczoo may rebuild in place
ASSETS = ("index.html", "app.js", "style.css")


class SiteError(UserError, ValueError):
    pass


def _script(call: str, *args: Any) -> str:
    # ensure_ascii: the file is pure ASCII whatever it carries (U+2028, lone surrogates)
    return f"TCZOO.{call}(" + ", ".join(json.dumps(a, ensure_ascii=True, separators=(",", ":")) for a in args) + ");\n"


def build(paths: list[Path], out: Path, *, max_chars: int = MAX_CHARS,
          progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """Write the site for ``paths`` -- run directories and comparison directories (each
    of a comparison's runs, and its models × methods matrix) -- into ``out``; returns
    what was written (counts, seconds)."""
    from tczoo.report import model_label
    from tczoo.store import is_grid, run_dirs
    from tczoo.view.data import grid_summary

    started = time.perf_counter()
    dirs = run_dirs(paths)
    runs = [RunData(d, max_chars=max_chars) for d in dirs]
    names = [r.name for r in runs]
    for run in runs:  # a comparison's cells are folders named after their method: say whose
        if names.count(run.name) > 1 or is_grid(run.root.parent.parent):
            run.label = f"{model_label(str(run.config.get('model', '')))} · {run.name}"
    grids = [grid_summary(p, {d: i for i, d in enumerate(dirs)}) for p in paths if is_grid(p)]
    try:
        # Built in a fresh folder beside `out` and renamed into place: nothing is ever
        # written through a link or into a folder tczoo did not make (RUN/view may come
        # with the run directory).
        return replace_dir(out, lambda site: _fill(site, out, runs, grids, max_chars, progress, started),
                           marker=MARKER, what="a tczoo view site")
    except UnsafeFile as exc:
        raise SiteError(f"--out {exc}") from None


def _fill(site: Path, out: Path, runs: list[RunData], grids: list[dict[str, Any]], max_chars: int,
          progress: Callable[[int, int], None] | None, started: float) -> dict[str, Any]:
    out_root = site
    (out_root / "assets").mkdir()
    (out_root / "data").mkdir()
    (out_root / "plots").mkdir()
    package = resources.files("tczoo.view") / "assets"
    for name in ASSETS:
        target = out_root / name if name == "index.html" else out_root / "assets" / name
        target.write_bytes((package / name).read_bytes())

    problems: list[str] = []
    where: dict[str, int] = {}
    for run in runs:
        for pid in run.problems():
            if pid not in where:
                where[pid] = len(problems)
                problems.append(pid)

    from tczoo.view.data import iso_time, safe
    from tczoo.view.plots import draw_plots

    summaries, lines = [], []
    total = sum(len(r.problems()) for r in runs)
    done = 0
    for ri, run in enumerate(runs):
        summary = run.summary()
        summary["plots"] = draw_plots(run.tables, out_root / "plots", f"r{ri}")
        summaries.append(summary)
        (out_root / "data" / f"r{ri}").mkdir()
        position: dict[str, int] = {}
        for unit in run.all_units():
            line = run.unit_line(unit)
            line["r"] = ri
            line["p"] = where[unit.problem]
            line["u"] = position.get(unit.problem, 0)
            position[unit.problem] = line["u"] + 1
            lines.append(line)
        by_problem: dict[str, list] = {}
        for unit in run.all_units():
            by_problem.setdefault(unit.problem, []).append(unit)
        for pid, units in by_problem.items():
            name = f"r{ri}/p{where[pid]}"
            chunk = safe({"problem": pid, "run": ri, "units": [run.unit_detail(u) for u in units]}, max_chars)
            (out_root / "data" / f"{name}.js").write_text(_script("chunk", name, chunk))
            done += 1
            if progress:
                progress(done, total)
    # several runs: one figure over all of them, so they can be compared on one axis
    combined = draw_plots([t for r in runs for t in r.tables], out_root / "plots", "all") if len(runs) > 1 else []
    index = {"generated": iso_time(time.time()), "runs": summaries, "grids": grids,
             "problems": [safe(p, 500) for p in problems], "units": lines, "plots": combined}
    (out_root / "data" / "index.js").write_text(_script("index", index))
    return {"site": str(out), "index": str(out / "index.html"), "runs": len(runs), "grids": len(grids),
            "problems": len(problems),
            "units": len(lines), "seconds": round(time.perf_counter() - started, 2)}
