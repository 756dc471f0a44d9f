"""``tczoo stab ...``: STAB's inspection commands.

* ``tczoo stab boundary FILE [--objective weighted|leximin] [-f json]`` - parsed
  constraints, unparsed sentences, resolved boundary and options
  (:func:`tczoo.methods.stab.boundary.boundary_report`);
* ``tczoo stab scenarios FILE [--mode keyword_first|union|keyword|knn] [--top-k 2] [-f json]``
  - the catalog scenarios retrieved for a statement, and how;
* ``tczoo stab layout FILE [-f json]`` - the input layout read from the Input section,
  the one used to check generated inputs (verified against samples given with
  ``--sample FILE``, repeatable);
* ``tczoo stab spec FILE [--variant stab|stab-base|stab-no-m1|stab-no-m2] [--per-test --index K]``
  - the structured generation specification prompt exactly as a model would receive
  it (the one batch call by default, generator K's own call with ``--per-test``).
"""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from tczoo.cli.options import CLIError, format_option, read_user_file
from tczoo.cli.output import echo, emit_json

# The retrieval modes (tczoo.methods.stab.scenarios.RETRIEVAL_MODES, not imported here:
# the CLI starts without loading the method's dependencies).
MODES = ("keyword_first", "union", "keyword", "knn")
OBJECTIVES = ("leximin", "weighted")


def _read(file: Path) -> str:
    data = read_user_file(file, "statement file")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CLIError(f"cannot read {file}: not UTF-8 text ({exc.reason} at byte {exc.start})") from exc


def _mode(mode: str) -> str:
    if mode not in MODES:
        raise CLIError(f"--mode must be one of {', '.join(MODES)}, not {mode!r}")
    return mode


def register(app: typer.Typer) -> None:
    stab = typer.Typer(help="STAB: constraint boundary, scenario retrieval, input layout, generation spec.",
                       no_args_is_help=True)

    @stab.command("boundary")
    def boundary(file: Path = typer.Argument(..., help="a problem statement (text/markdown/LaTeX)"),
                 objective: str = typer.Option("weighted", "--objective",
                                               help="weighted (the authors', STAB's default) | leximin"),
                 fmt: str = format_option("table", "json")) -> None:
        """Parsed constraints, unparsed sentences, the resolved boundary and its options
        (exit 1 when the boundary violates a parsed constraint: a saturator bug)."""
        from tczoo.methods.stab.boundary import boundary_report, print_report

        if objective not in OBJECTIVES:
            raise CLIError(f"--objective must be one of {', '.join(OBJECTIVES)}, not {objective!r}")
        report = boundary_report(_read(file), objective=objective)
        if fmt == "json":
            emit_json(report)
        else:
            print_report(report)
        raise typer.Exit(1 if report["violations"] else 0)

    @stab.command("scenarios")
    def scenarios(file: Path = typer.Argument(..., help="a problem statement"),
                  mode: str = typer.Option("keyword_first", "--mode",
                                           help="keyword_first (the authors': KNN only without keyword hits) "
                                                "| union | keyword | knn"),
                  top_k: int = typer.Option(2, "--top-k", min=1, help="scenarios KNN keeps"),
                  model: Optional[str] = typer.Option(None, "--model", help="embedding model (KNN)"),
                  fmt: str = format_option("table", "json")) -> None:
        """Catalog scenarios retrieved for a statement (keyword hits, KNN cosine)."""
        from tczoo.methods.stab.scenarios import EmbeddingUnavailable, ScenarioRetriever, load_catalog

        text = _read(file)
        try:
            hits = ScenarioRetriever(load_catalog(), model=model, mode=_mode(mode), top_k=top_k).retrieve(text)
        except EmbeddingUnavailable as exc:
            raise CLIError(f"--mode {mode} retrieves with KNN: {exc}") from exc
        rows = [{"scenario": h.scenario.id, "name": h.scenario.name, "class": h.scenario.cls,
                 "via": sorted(h.via), "score": round(h.score, 4), "keywords": h.keywords,
                 "implementations": [i.name for i in h.scenario.implementations]} for h in hits]
        if fmt == "json":
            emit_json(rows)
            return
        if not rows:
            echo("no scenario retrieved")
        for r in rows:
            kw = f"  keywords: {', '.join(r['keywords'])}" if r["keywords"] else ""
            echo(f"{r['name']:<22} {r['class']:<10} via {'+'.join(r['via']):<12} score {r['score']:.3f}{kw}")

    @stab.command("layout")
    def layout(file: Path = typer.Argument(..., help="a problem statement"),
               sample: List[Path] = typer.Option([], "--sample", help="a sample input file (repeatable)"),
               fmt: str = format_option("table", "json")) -> None:
        """The input layout inferred from the Input section (what generated inputs are read with);
        exit 1 when no layout could be inferred."""
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
        if fmt == "json":
            emit_json(report)
        else:
            for k, v in report.items():
                echo(f"{k}: {v}")
        raise typer.Exit(0 if inferred else 1)

    @stab.command("spec")
    def spec(file: Path = typer.Argument(..., help="a problem statement"),
             variant: str = typer.Option("stab", "--variant", help="stab | stab-base | stab-no-m1 | stab-no-m2"),
             mode: str = typer.Option("keyword", "--mode",
                                      help="scenario retrieval: keyword_first | union | keyword | knn"),
             per_test: bool = typer.Option(False, "--per-test", help="generator K's own prompt (generation=per_test)"),
             index: int = typer.Option(1, "--index", min=1, help="with --per-test: which generator (1-based)")) -> None:
        """Print the structured generation specification prompt (the one batch call by default)."""
        from tczoo.methods.stab.method import VARIANTS, build_spec
        from tczoo.templates import Prompts
        from tczoo.schema import Setting, Task

        if variant not in VARIANTS:
            raise CLIError(f"unknown variant {variant!r} ({', '.join(VARIANTS)})")
        cls = VARIANTS[variant]
        method = cls(retrieval=_mode(mode))
        total = method.params.generators
        if per_test and index > total:
            raise CLIError(f"--index {index}: {variant} asks {total} generators")
        task = Task(problem_id=Path(file).stem, statement=_read(file), time_limit_ms=2000, memory_limit_mb=256,
                    setting=Setting.SPEC)
        spec_, notes = build_spec(method, task)
        for note in notes:
            echo(f"# note: {note}", err=True)
        template = "stab/generate" if per_test else "stab/generate_batch"
        for message in Prompts().render(template, **spec_.variables(index - 1 if per_test else 0, total)):
            echo(f"===== {message['role']} =====\n{message['content']}\n")

    app.add_typer(stab, name="stab")
