"""``tczoo trails ...``: TRAILS's result tables over several runs, and what a verdict rests on.

    tczoo run -m trails,hoareprompt,cot -b BENCH -o runs/X          (scored by the verdict runner)
    tczoo trails tables runs/lcb runs/cococlanel [-f md]             (Tables 1-3 over both datasets)
    tczoo trails show runs/X [-p PROBLEM] [--code NAME] [-m METHOD]  (scenarios, pairs, annotations)
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from tczoo.cli.options import CLIError, format_option, require_runs
from tczoo.cli.output import echo, emit_json, show_tables

FORMATS = ("table", "md", "csv", "json")


def _verdict_lines(rec) -> list[str]:
    """A generation record's verdict and the evidence under it, as text lines."""
    suite = rec.suite
    v = suite.verdict
    head = f"{rec.method} · {rec.problem_id} · {rec.task}"
    if v is None:
        return [head, "  no verdict" + (f" (method error: {rec.error.splitlines()[0]})" if rec.error else "")]
    decision = {True: "CORRECT", False: "INCORRECT", None: "undecided"}[v.correct]
    score = f", score {v.score:.3f} (> {v.threshold:g}?)" if v.score is not None and v.threshold is not None else ""
    lines = [head, f"  verdict: {decision} ({v.reason}{score}, {v.judgements} judgement(s))"]
    d = v.detail
    for i, s in enumerate(d.get("scenarios", []), 1):
        lines.append(f"  scenario {i}: {s}")
    if d.get("inputs_per_scenario"):
        lines.append("  inputs per scenario (valid/kept): "
                     + ", ".join(f"{x['valid']}/{x['kept']}" for x in d["inputs_per_scenario"]))
    for t in suite.tests:
        out = str(t.meta.get("output", ""))
        lines.append(f"  [{t.origin}] {t.meta.get('judgement') or '-'}: input {t.input[:80]!r} -> output {out[:80]!r}")
    if d.get("precondition"):
        lines.append(f"  precondition: {d['precondition']}")
    if d.get("annotated"):
        lines.append("  annotated program:")
        lines += ["    " + line for line in str(d["annotated"]).splitlines()]
    failures = suite.provenance.failures
    if failures:
        lines.append("  failures: " + "; ".join(f"{f.stage}:{f.reason}" + (f" ({f.item})" if f.item else "")
                                               for f in failures[:12])
                     + (f" ... {len(failures) - 12} more" if len(failures) > 12 else ""))
    return lines


def register(app: typer.Typer) -> None:
    trails = typer.Typer(help="TRAILS and its baselines: result tables over runs, verdict evidence.",
                         no_args_is_help=True)
    app.add_typer(trails, name="trails")

    @trails.command("tables")
    def tables(
        run_dirs: list[Path] = typer.Argument(..., help="run or comparison directories scored by the verdict runner"),
        fmt: str = format_option(*FORMATS),
    ) -> None:
        """TRAILS Tables 1-3 over several runs (e.g. one per dataset), read as one."""
        from tczoo.report import merged_tables, render

        found = merged_tables(require_runs(run_dirs), runner="verdict")
        if not found:
            raise CLIError("no verdict scores in these runs (run methods that give verdicts, e.g. -m trails,cot)")
        if fmt != "table":
            print(render(found, fmt), end="")
            return
        show_tables(found)

    @trails.command("show")
    def show(
        run_dir: Path = typer.Argument(..., help="a run directory, or a comparison directory (every run in it)"),
        problem: Optional[str] = typer.Option(None, "--problem", "-p", help="only this problem (id or prefix)"),
        code: Optional[str] = typer.Option(None, "--code", help="only codes whose name contains this"),
        method: Optional[str] = typer.Option(None, "--method", "--methods", "-m", help="only this method"),
        fmt: str = format_option("table", "json"),
    ) -> None:
        """What each verdict of a run rests on: scenarios, judged pairs, annotations, failures."""
        from tczoo.store import RunStore

        records = [g for d in require_runs(run_dir) for g in RunStore.open(d).generations()
                   if (problem is None or g.problem_id.startswith(problem))
                   and (code is None or code in g.task) and (method is None or g.method == method)]
        if fmt == "json":
            emit_json([{"method": g.method, "problem_id": g.problem_id, "task": g.task,
                        "verdict": g.suite.verdict.model_dump() if g.suite.verdict else None,
                        "tests": [t.model_dump() for t in g.suite.tests],
                        "failures": [f.model_dump() for f in g.suite.provenance.failures]} for g in records])
            return
        if not records:
            raise CLIError(f"nothing in {run_dir} matches")
        for g in records:
            for line in _verdict_lines(g):
                echo(line)
            echo()
