"""``tczoo view`` (a static HTML run browser) and ``tczoo show`` (the same in a terminal).

The builders live in ``tczoo.view`` and are imported when a command runs, so that
``tczoo --help`` does not load them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from tczoo.cli.options import (CLIError, bootstrap_seed_option, format_option, require_runs, resamples_option,
                                use_stats, writable)
from tczoo.cli.output import console, echo, emit_json, err_console
from tczoo.cli.progress import progress


def view(
    run_dirs: list[Path] = typer.Argument(..., metavar="RUN",
                                          help="run directories or comparison directories (tczoo compare/reproduce "
                                               "--out: its models × methods matrix and every run); several side by side"),
    out: Optional[Path] = typer.Option(None, "--out", "-o",
                                       help="site folder (default: RUN/view for one run or comparison, "
                                            "./tczoo-view for several)"),
    serve: bool = typer.Option(False, "--serve", help="serve the site on 127.0.0.1 until Ctrl-C"),
    port: int = typer.Option(8765, "--port", min=0, max=65535, help="with --serve: the port (0: any free one)"),
    max_chars: int = typer.Option(100_000, "--max-chars", min=1000,
                                  help="longest text kept per field (a test input, an answer); the rest is cut, noted"),
    fmt: str = format_option("table", "json"),
    resamples: int = resamples_option(),
    bootstrap_seed: int = bootstrap_seed_option(),
) -> None:
    """Build a static, self-contained HTML browser of one or more runs (opens from file:// too)."""
    from tczoo.view.site import build

    use_stats(resamples, bootstrap_seed)
    require_runs(run_dirs)
    if out is None:
        out = run_dirs[0] / "view" if len(run_dirs) == 1 else Path("tczoo-view")
    if out.exists() and not out.is_dir():
        raise CLIError(f"--out {out} is a file, not a folder")
    writable(out, "site folder", "--out")
    with progress("build site", unit="problems") as bar:
        result = build(run_dirs, out, max_chars=max_chars, progress=bar.update)
    if fmt == "json":
        emit_json(result)
    else:
        grids = f"{result['grids']} comparison(s), " if result["grids"] else ""
        err_console.print(f"site written to {result['site']} ({grids}{result['runs']} run(s), "
                          f"{result['problems']} problems, {result['units']} units, "
                          f"{result['seconds']} s); open {Path(result['index']).resolve().as_uri()}", markup=False,
                          soft_wrap=True)
    if serve:
        from tczoo.view.serve import serve_site

        serve_site(out, port, lambda line: err_console.print(line, markup=False))
        from tczoo.cli.interrupt import stopped

        stopped.clear()  # Ctrl-C is how serving ends: not an interruption to resume


def show(
    run_dirs: list[Path] = typer.Argument(..., metavar="RUN",
                                          help="a run directory, a comparison directory (tczoo compare --out), or several"),
    model: Optional[str] = typer.Option(None, "--model", "--models",
                                        help="with several runs: the runs of this model (its model string, or a part of it)"),
    problem: Optional[str] = typer.Option(None, "--problem", "--problems", "-p", help="one problem's units"),
    method: Optional[str] = typer.Option(None, "--method", "--methods", "-m",
                                         help="one method's units (with --problem: one unit in full)"),
    task: Optional[str] = typer.Option(None, "--task", help="with --problem and --method: which task, when there are several"),
    exchange: Optional[int] = typer.Option(None, "--exchange", "-x", min=1,
                                           help="with --problem and --method: the N-th LLM exchange in full"),
    full: bool = typer.Option(False, "--full", help="do not shorten tests and programs"),
    limit: int = typer.Option(40, "--limit", min=1, help="problems listed in the run's grid"),
) -> None:
    """The run browser in the terminal: the run (a comparison: its models × methods matrix),
    then --model / --problem / --method / --exchange to drill down."""
    from tczoo.store import is_grid
    from tczoo.view import terminal
    from tczoo.view.data import RunData

    dirs = require_runs(run_dirs)
    if (exchange is not None or task is not None) and not (problem and method):
        raise CLIError("--exchange and --task need --problem and --method (one unit)")
    datas = [RunData(d) for d in dirs]
    if model is not None:
        picked = _pick_model(datas, model)
        datas = picked
    if problem is not None:  # an id or a prefix of one, as --problems takes them
        from tczoo.benchmarks import match_ids

        known = list(dict.fromkeys(p for d in datas for p in d.problems()))
        where = f"run {datas[0].name}" if len(datas) == 1 else f"these {len(datas)} runs"
        [problem] = match_ids([problem], known, missing=f"{where} has no problem", unique=True)[problem]
    if method is not None and len(datas) > 1:
        having = [d for d in datas if any(u.method == method for u in d.all_units())]
        datas = having or datas
    if len(datas) == 1:
        data = datas[0]
        if problem and method:
            parts = terminal.unit_view(data, problem, method, task=task, exchange=exchange, full=full)
        elif problem or method:
            parts = terminal.units_view(data, problem=problem, method=method)
        else:
            parts = terminal.run_view(data, limit=limit)
    elif problem and method:
        models = sorted({str(d.config.get("model", "")) for d in datas})
        raise CLIError(f"{len(datas)} runs have method {method!r}: pick one with --model ({', '.join(models)})")
    elif problem or method:
        parts = terminal.units_view(datas, problem=problem, method=method)
    else:
        from tczoo.cli.output import WIDE, rich_table, show_tables
        from tczoo.experiments.compare import grid_report
        from tczoo.report import model_labels

        for path in (p for p in run_dirs if is_grid(p) and model is None):
            echo(f"comparison {path}")
            tables = grid_report(path)[0]
            show_tables([t for t in tables if " by model × method" in t.title or t.title == "cost and time per cell"],
                        notes=False)
        parts = terminal.runs_view(datas, make_table=lambda title, columns, rows: rich_table(
            title, columns, ([str(c) for c in r] for r in rows)), short=None if WIDE else model_labels)
    for part in parts:
        console.print(part)


def _pick_model(datas: list, model: str) -> list:
    """The runs whose model is ``model``, else whose model string contains it."""
    exact = [d for d in datas if d.config.get("model") == model]
    found = exact or [d for d in datas if model in str(d.config.get("model", ""))]
    if not found:
        models = sorted({str(d.config.get("model", "")) for d in datas})
        raise CLIError(f"no run of model {model!r} here (models: {', '.join(models)})")
    return found


def register(app: typer.Typer) -> None:
    app.command("view")(view)
    app.command("show")(show)
