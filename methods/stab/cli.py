"""``tczoo stab ...``: STAB's inspection commands.

* ``tczoo stab boundary FILE [--json]`` - parsed constraints, unparsed sentences,
  resolved boundary and options (:func:`methods.stab.boundary.boundary_command`);
* ``tczoo stab scenarios FILE [--mode union|keyword|knn] [--top-k 2] [--json]`` -
  the catalog scenarios retrieved for a statement, and how;
* ``tczoo stab layout FILE [--json]`` - the input layout read from the Input section,
  the one used to check generated inputs (verified against samples given with
  ``--sample FILE``, repeatable);
* ``tczoo stab spec FILE [--variant stab|stab-base|stab-no-m1|stab-no-m2]`` - the
  structured generation specification prompt exactly as a model would receive it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import List, Optional

import typer


def _read(file: Path) -> str:
    try:
        return Path(file).read_text(encoding="utf-8")
    except OSError as error:
        typer.echo(f"cannot read {file}: {error}", err=True)
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    stab = typer.Typer(help="STAB: constraint boundary, scenario retrieval, input layout, generation spec.",
                       no_args_is_help=True)

    @stab.command("boundary")
    def boundary(file: Path = typer.Argument(..., help="a problem statement (text/markdown)"),
                 as_json: bool = typer.Option(False, "--json", help="print JSON")) -> None:
        """Parsed constraints, unparsed sentences, the resolved boundary and its options."""
        from tczoo.methods.stab.boundary import boundary_command

        code = boundary_command(Path(file), as_json)
        raise typer.Exit(code)

    @stab.command("scenarios")
    def scenarios(file: Path = typer.Argument(..., help="a problem statement"),
                  mode: str = typer.Option("union", "--mode", help="union | keyword | knn"),
                  top_k: int = typer.Option(2, "--top-k", help="scenarios KNN keeps"),
                  model: Optional[str] = typer.Option(None, "--model", help="embedding model (KNN)"),
                  as_json: bool = typer.Option(False, "--json", help="print JSON")) -> None:
        """Catalog scenarios retrieved for a statement (keyword hits, KNN cosine)."""
        from tczoo.methods.stab.scenarios import ScenarioRetriever, load_catalog

        text = _read(file)
        try:
            hits = ScenarioRetriever(load_catalog(), model=model, mode=mode, top_k=top_k).retrieve(text)
        except (ImportError, ValueError, OSError) as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2)
        rows = [{"scenario": h.scenario.id, "name": h.scenario.name, "class": h.scenario.cls,
                 "via": sorted(h.via), "score": round(h.score, 4), "keywords": h.keywords,
                 "implementations": [i.name for i in h.scenario.implementations]} for h in hits]
        if as_json:
            typer.echo(json.dumps(rows, indent=2))
            return
        if not rows:
            typer.echo("no scenario retrieved")
        for r in rows:
            kw = f"  keywords: {', '.join(r['keywords'])}" if r["keywords"] else ""
            typer.echo(f"{r['name']:<22} {r['class']:<10} via {'+'.join(r['via']):<12} score {r['score']:.3f}{kw}")

    @stab.command("layout")
    def layout(file: Path = typer.Argument(..., help="a problem statement"),
               sample: List[Path] = typer.Option([], "--sample", help="a sample input file (repeatable)"),
               as_json: bool = typer.Option(False, "--json", help="print JSON")) -> None:
        """The input layout inferred from the Input section (what generated inputs are read with)."""
        from tczoo.methods.stab.constraints import parse_constraints
        from tczoo.methods.stab.inputs import LayoutError, checker_for, infer_layout

        text = _read(file)
        try:
            inferred = infer_layout(text).describe()
        except LayoutError as exc:
            inferred, note = None, str(exc)
        else:
            note = ""
        checker = None
        if sample:
            checker = checker_for(text, parse_constraints(text).constraints, [_read(s) for s in sample])
            note = checker.note or note
        report = {"layout": inferred, "verified": bool(checker and checker.active), "note": note,
                  "dropped_constraints": checker.dropped if checker else []}
        if as_json:
            typer.echo(json.dumps(report, indent=2, ensure_ascii=False))
        else:
            for k, v in report.items():
                typer.echo(f"{k}: {v}")
        raise typer.Exit(0 if inferred else 1)

    @stab.command("spec")
    def spec(file: Path = typer.Argument(..., help="a problem statement"),
             variant: str = typer.Option("stab", "--variant", help="stab | stab-base | stab-no-m1 | stab-no-m2"),
             mode: str = typer.Option("keyword", "--mode", help="scenario retrieval: union | keyword | knn"),
             index: int = typer.Option(1, "--index", help="which generator's prompt (1-based)")) -> None:
        """Print the structured generation specification prompt for one generator."""
        from tczoo.methods.stab.method import VARIANTS, build_spec
        from tczoo.templates import Prompts
        from tczoo.schema import Setting, Task

        if variant not in VARIANTS:
            typer.echo(f"unknown variant {variant!r} ({', '.join(VARIANTS)})", err=True)
            raise typer.Exit(2)
        cls = VARIANTS[variant]
        method = cls(retrieval=mode)
        task = Task(problem_id=Path(file).stem, statement=_read(file), time_limit_ms=2000, memory_limit_mb=256,
                    setting=Setting.SPEC)
        spec_, notes = build_spec(method, task)
        for note in notes:
            typer.echo(f"# note: {note}", err=True)
        for message in Prompts().render("stab/generate", **spec_.variables(index - 1, method.params.generators)):
            typer.echo(f"===== {message['role']} =====\n{message['content']}\n")

    app.add_typer(stab, name="stab")
