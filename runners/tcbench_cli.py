"""``tczoo analyze KIND TARGET``: TC-Bench's analyses as report commands (a thin hook
over :mod:`tczoo.runners.tcbench_analysis`, registered through ``tczoo.commands``).

    tczoo analyze fig4a runs/tcbench          # inflation: all wrong codes vs the WrongSelect basis
    tczoo analyze fig4c runs/tcbench          # stability over draws of the 8 correct codes
    tczoo analyze fig6  runs/tcbench          # HackRate vs number of correct codes
    tczoo analyze a5    runs/tcbench          # failure statistics (Appendix A.5)
    tczoo analyze fig7  tcbench:built.jsonl   # WrongSelect convergence
    tczoo analyze fig8  tcbench:built.jsonl   # wrong codes per problem before / after
"""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    @app.command("analyze")
    def analyze(
        kind: str = typer.Argument(..., help="fig4a | fig4c | fig6 | a5 (over a run) | fig7 | fig8 (over a built benchmark)"),
        target: str = typer.Argument(..., help="a run directory, or tcbench:FILE written by build-benchmark"),
        fmt: str = typer.Option("md", "--format", "-f", help="md | csv | json"),
        draws: int = typer.Option(5, "--draws", help="fig4c: draws of the validators"),
        restarts: int = typer.Option(1000, "--restarts", help="fig4a: WrongSelect restarts per problem"),
    ) -> None:
        """TC-Bench's analyses (Figures 4a, 4c, 6, 7, 8 and Appendix A.5) as tables."""
        from tczoo.cli import render_tables
        from tczoo.runners.tcbench_analysis import analyze as run

        if fmt not in ("md", "csv", "json"):
            raise ValueError(f"unknown format {fmt!r} (md, csv, json)")
        options = {"fig4c": {"draws": draws}, "fig4a": {"restarts": restarts}}.get(kind, {})
        print(render_tables(run(kind, target, **options), fmt), end="")
