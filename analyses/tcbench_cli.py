"""``tczoo tcbench ...``: TC-Bench's analyses as report commands (a thin hook over
:mod:`tczoo.analyses.tcbench`, registered through ``tczoo.commands``).

    tczoo tcbench analyze fig4a runs/tc            # inflation: all wrong codes vs the WrongSelect basis
    tczoo tcbench analyze fig4c runs/tc            # stability over draws of the 8 correct codes
    tczoo tcbench analyze fig6  runs/tc            # HackRate vs number of correct codes
    tczoo tcbench analyze a5    runs/tc            # failure statistics (Appendix A.5)
    tczoo tcbench analyze fig7  tcbench:built.jsonl   # WrongSelect convergence
    tczoo tcbench analyze fig8  tcbench:built.jsonl   # wrong codes per problem before / after
"""

from __future__ import annotations

import typer

from pathlib import Path

from tczoo.cli.options import format_option, require_runs
from tczoo.cli.output import show_tables
from tczoo.cli.progress import progress


def register(app: typer.Typer) -> None:
    tcbench = typer.Typer(help="TC-Bench: the paper's analyses (Figures 4a, 4c, 6, 7, 8; Appendix A.5).",
                          no_args_is_help=True)
    app.add_typer(tcbench, name="tcbench")

    @tcbench.command("analyze")
    def analyze(
        kind: str = typer.Argument(..., help="fig4a | fig4c | fig6 | a5 (over a run) | fig7 | fig8 (over a built benchmark)"),
        target: str = typer.Argument(..., help="a run or comparison directory (tczoo compare/reproduce --out: "
                                               "every run in it), or tcbench:FILE written by build-benchmark"),
        fmt: str = format_option("table", "md", "csv", "json"),
        draws: int = typer.Option(5, "--draws", min=1, help="fig4c: draws of the validators"),
        restarts: int = typer.Option(1000, "--restarts", min=1, help="fig4a: WrongSelect restarts per problem"),
    ) -> None:
        """One of TC-Bench's analyses as tables."""
        from tczoo.analyses.tcbench import RUN_ANALYSES, analyze as run
        from tczoo.report import merge_tables, render

        options = {"fig4c": {"draws": draws}, "fig4a": {"restarts": restarts}}.get(kind, {})
        if kind in RUN_ANALYSES:
            dirs = require_runs([Path(target)])
            with progress(f"tcbench {kind}", unit="runs") as bar:
                parts = []
                for i, d in enumerate(dirs):
                    bar.update(i, len(dirs))
                    parts.append(run(kind, str(d), **options))
                bar.update(len(dirs), len(dirs))
            tables = merge_tables(parts)
        else:
            tables = run(kind, target, **options)
        if fmt != "table":
            print(render(tables, fmt), end="")
            return
        show_tables(tables)
