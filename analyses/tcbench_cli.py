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

from tczoo.cli.options import format_option
from tczoo.cli.output import console, echo, rich_table


def register(app: typer.Typer) -> None:
    tcbench = typer.Typer(help="TC-Bench: the paper's analyses (Figures 4a, 4c, 6, 7, 8; Appendix A.5).",
                          no_args_is_help=True)
    app.add_typer(tcbench, name="tcbench")

    @tcbench.command("analyze")
    def analyze(
        kind: str = typer.Argument(..., help="fig4a | fig4c | fig6 | a5 (over a run) | fig7 | fig8 (over a built benchmark)"),
        target: str = typer.Argument(..., help="a run directory, or tcbench:FILE written by build-benchmark"),
        fmt: str = format_option("table", "md", "csv", "json"),
        draws: int = typer.Option(5, "--draws", min=1, help="fig4c: draws of the validators"),
        restarts: int = typer.Option(1000, "--restarts", min=1, help="fig4a: WrongSelect restarts per problem"),
    ) -> None:
        """One of TC-Bench's analyses as tables."""
        from tczoo.report import cell, render
        from tczoo.analyses.tcbench import analyze as run

        options = {"fig4c": {"draws": draws}, "fig4a": {"restarts": restarts}}.get(kind, {})
        tables = run(kind, target, **options)
        if fmt != "table":
            print(render(tables, fmt), end="")
            return
        for t in tables:
            console.print(rich_table(t.title, t.columns, ([cell(r.get(c), t.decimals) for c in t.columns]
                                                          for r in t.rows), left=t.columns[:2]))
            for note in t.notes:
                echo(note)
