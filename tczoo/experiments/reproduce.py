"""``tczoo reproduce TARGET``: run a paper's experiment with one model and lay its
table out as the paper does, the paper's own numbers beside ours.

A target (``targets.yaml``) is run as a grid of one model × the target's methods
(``tczoo.experiments.grid``: resumable, cached, one run directory per method), then
read back from the recorded runs only — ``build`` executes nothing but the rescoring a
variant asks for (Figure 4a's WrongSelect basis) — so a recorded run regenerates its
table byte for byte. ``write`` puts ``results/<paper>/<target>.md`` and ``.csv`` (and
``.png`` for a figure) in place; the markdown starts with every setting in which this
run differs from the paper's.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from tczoo.experiments.grid import GridSession, GridSpec, cells, read_spec, run_grid
from tczoo.experiments.layout import OURS, comparison_table, our_rows, paper_rows, side_by_side
from tczoo.experiments.targets import Target, papers
from tczoo.report import ADDED, render, runner_tables, stores_report
from tczoo.run import Progress, RunOptions
from tczoo.runner import Table

DEFAULT_ROOT = Path("runs/reproduce")


# --------------------------------------------------------------------------- planning


def installed(methods: list[str]) -> list[str]:
    from tczoo.registry import method_names

    known = set(method_names())
    return [m for m in methods if m in known]


def merge_params(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    """``--params`` over a target's own: per method or runner key, field by field."""
    out = {k: dict(v) for k, v in base.items()}
    for key, value in over.items():
        if isinstance(value, dict):
            out[key] = {**out.get(key, {}), **value}
        else:
            out[key] = value
    return out


def plan(target: Target, model: str, *, benchmark: str = "zoo-mini", problems: list[str] | None = None,
         samples: int | None = None, params: dict[str, Any] | None = None,
         options: RunOptions | None = None) -> GridSpec:
    """The grid that reproduces ``target`` with ``model``."""
    options = options or RunOptions()
    methods = target.run.methods + installed(target.run.optional_methods)
    return GridSpec(methods=methods, models=[model], benchmark=benchmark, problems=problems,
                    samples=samples or target.run.samples, runner=target.run.runner,
                    params=merge_params(target.run.params, params or {}), llm=options.recorded())


def default_out(target: Target, spec: GridSpec, root: Path = DEFAULT_ROOT) -> Path:
    """``runs/reproduce/<run name>-<settings hash>``: targets that run the same
    experiment (same run name, benchmark, problems, samples, params, sampling) share it;
    another model or method is another cell of it."""
    settings = spec.model_dump(exclude={"methods", "models", "cross"})
    digest = hashlib.sha256(json.dumps(settings, sort_keys=True, default=str).encode()).hexdigest()[:8]
    return root / f"{target.run_name or target.name}-{digest}"


async def execute(target: Target, spec: GridSpec, out: Path, options: RunOptions | None = None, *,
                  progress: Callable[[Progress], None] | None = None) -> GridSession:
    del target  # the grid says everything the runs need
    return await run_grid(spec, out, options, progress=progress)


# --------------------------------------------------------------------------- reading back


def model_label(model: str) -> str:
    """The model that answered: a ``replay:DIR`` model is the model recorded in DIR (so a
    replayed run reports, and regenerates, the recorded run's tables)."""
    seen: set[str] = set()
    while model.startswith("replay:") and model not in seen:
        seen.add(model)
        folder = Path(model.split(":", 1)[1])
        if (folder / "config.json").is_file():
            model = json.loads((folder / "config.json").read_text()).get("model", model)
        elif read_spec(folder) is not None and len(read_spec(folder).models) == 1:
            model = read_spec(folder).models[0]
        else:
            break
    return model


@dataclass
class Reproduction:
    target: Target
    spec: GridSpec
    comparison: Table
    ours: list[dict[str, Any]]
    paper: list[dict[str, Any]]
    settings: Table
    details: list[Table] = field(default_factory=list)  # counts, failures, the runner's own tables
    figure_rows: list[dict[str, Any]] = field(default_factory=list)

    @property
    def scored(self) -> bool:
        """Whether any number of ours came out (else every cell failed or was excluded)."""
        columns = [c for c in self.comparison.columns if c not in ("source", "model", *ADDED)]
        return any(_has_number(r, columns) for r in self.ours)


def _problem_ids(stores: list) -> tuple[list[str], int | None]:
    ids: set[str] = set()
    total = None
    for store in stores:
        ids |= {g.problem_id for g in store.generations()}
        for line in store.provenance():
            total = (line.get("benchmark") or {}).get("problems", total)
    return sorted(ids), total


def settings_table(target: Target, spec: GridSpec, stores: list) -> Table:
    """Every setting in which this run differs from the paper's, side by side."""
    from tczoo.llm import LLMSettings

    ids, total = _problem_ids(stores)
    subset = spec.problems is not None
    here_bench = (f"{spec.benchmark}: " + (f"{len(ids)} problem(s) chosen with --problems" if subset else
                                          f"all {total or len(ids)} problem(s)")
                  + (f" ({', '.join(ids)})" if ids and len(ids) <= 12 else ""))
    defaults = LLMSettings()
    sampling = []
    if spec.llm.get("temperature") not in (None, defaults.temperature):
        sampling.append(f"temperature {spec.llm['temperature']} where a method's paper fixes none")
    if spec.llm.get("max_tokens") not in (None, defaults.max_tokens):
        sampling.append(f"at most {spec.llm['max_tokens']} tokens per answer where a method's paper sets no limit")
    overrides = {k: v for k, v in spec.params.items() if target.run.params.get(k) != v}
    here = {
        "model": model_label(spec.models[0]) if spec.models else "",
        "benchmark": here_bench,
        "samples": f"{spec.samples} generation(s) per task"
                   + (" (a runner's own count where it sets one, e.g. 8 bug-finding responses)" if spec.samples == 1
                      else ""),
        "sampling": "; ".join(sampling) or "each method's paper settings (tczoo's defaults elsewhere)",
        "budget": "as the paper (the runner's defaults)" if not any(k.startswith("runner:") for k in overrides)
                  else "changed by --params (below)",
        "timing": "tczoo's sandbox on this machine: CPU time, median of repeated runs, no core pinning",
    }
    rows = [{"setting": key, "here": here.get(key, "tczoo's implementation (see docs/)"), "paper": value}
            for key, value in target.paper_setting.items()]
    missing = [m for m in target.run.optional_methods if m not in spec.methods]
    if missing:
        rows.append({"setting": "methods", "here": f"{', '.join(missing)} not installed: no row",
                     "paper": ", ".join(target.run.methods + target.run.optional_methods)})
    if overrides:
        rows.append({"setting": "--params", "here": json.dumps(overrides, sort_keys=True),
                     "paper": json.dumps({k: target.run.params.get(k, "paper default") for k in overrides},
                                         sort_keys=True)})
    return Table(title="settings: here and in the paper", columns=["setting", "here", "paper"], rows=rows)


def _variant_tables(target: Target, spec: GridSpec, out: Path, stores: list, by_runner: dict,
                    sandbox) -> dict[str, list[Table]]:
    """Per variant label, the runner tables of the same generations scored on the
    variant's problems."""
    found: dict[str, list[Table]] = {}
    for variant in target.variants:
        if variant.problems == "as-run":
            found[variant.label] = [t for ts in by_runner.values() for t in ts]
        else:
            found[variant.label] = rescore_on_basis(spec, out, sandbox)
    return found


def rescore_on_basis(spec: GridSpec, out: Path, sandbox, *, restarts: int = 1000, seed: int = 0) -> list[Table]:
    """Every successful generation of the grid scored again, on each problem's
    WrongSelect basis instead of its whole pool of wrong codes (TC-Bench §4, Figure 4a):
    the same tests, the same validators and budget, only the wrong codes differ."""
    from tczoo.benchmarks import load_benchmark
    from tczoo.benchmarks.construct import judge_matrix
    from tczoo.benchmarks.wrongselect import build_benchmark_from_matrix
    from tczoo.outcomes import generation_failure
    from tczoo.registry import get_runner
    from tczoo.run import build_units, score_unit
    from tczoo.store import RunStore

    problems = load_benchmark(spec.benchmark, spec.problems, sandbox=sandbox)
    basis = {}
    left_out = []
    for p in problems:
        built = None
        if p.golden_tests and p.wrong_solutions:
            built = build_benchmark_from_matrix(p, judge_matrix(p, sandbox), restarts=restarts, seed=seed, min_rank=1)
        if built is None:
            left_out.append(p.id)
            continue
        keep = {w.digest for w in built.wrong_solutions}
        basis[p.id] = p.model_copy(update={"wrong_solutions": [w for w in p.wrong_solutions if w.digest in keep]})
    records: dict[str, list] = {}
    for cell in cells(spec, out):
        if not (cell.dir / "config.json").is_file():
            continue
        store = RunStore.open(cell.dir)
        units = {u.key: u for u in build_units(cell.config, list(basis.values()), sandbox)}
        empty_ok = get_runner(cell.runner).scores_empty_suites
        for g in store.generations():
            unit = units.get((g.method, g.problem_id, g.task))
            if unit is None or generation_failure(g, scores_empty=empty_ok) is not None:
                continue
            record = score_unit(unit, g.suite, g.model, g.attempt)
            if "error" not in record.detail:
                records.setdefault(cell.runner, []).append(record)
    tables = [t for name, recs in records.items() for t in get_runner(name)(None).summarize(recs)]
    sizes = ", ".join(f"{pid}: {len(b.wrong_solutions)} of {len(next(p for p in problems if p.id == pid).wrong_solutions)}"
                      for pid, b in basis.items())
    for t in tables:
        t.notes.append(f"WrongSelect basis ({restarts} restarts, seed {seed}) — wrong codes kept per problem: {sizes}"
                       + (f"; left out (no golden tests, or excluded by the filters): {', '.join(left_out)}"
                          if left_out else ""))
    return tables


def build(target: Target, spec: GridSpec, out: Path, *, sandbox=None) -> Reproduction:
    """The target's tables from the recorded runs in ``out``."""
    from tczoo.store import RunStore

    grid = [c for c in cells(spec, Path(out)) if (c.dir / "config.json").is_file()]
    stores = [RunStore.open(c.dir) for c in grid]
    by_runner, summary = runner_tables(stores)
    details, _ = stores_report(stores)
    label = model_label
    paper = paper_rows(target)
    figure_rows: list[dict[str, Any]] = []
    if target.variants:
        own = sandbox is None
        if own:
            sandbox = RunOptions().open_sandbox()
        try:
            variant_tables = _variant_tables(target, spec, Path(out), stores, by_runner, sandbox)
        finally:
            if own:
                sandbox.close()
        ours, columns, table = _variant_rows(target, variant_tables, label)
        for t in variant_tables.get(target.variants[-1].label, []) if len(target.variants) > 1 else []:
            details.append(Table(title=f"{t.title} — on the {target.variants[-1].label}", columns=t.columns,
                                 rows=t.rows, notes=t.notes))
        figure_rows = ours
    else:
        ours, table = our_rows(target, [t for ts in by_runner.values() for t in ts], label,
                               spec.models[0] if spec.models else "")
        columns = target.layout.columns
        figure_rows = ours
    ours += _unscored_rows(target, spec, ours, summary, columns)
    rows = side_by_side(target, ours, paper)
    comparison = comparison_table(target, rows, table, columns)
    details = [_relabelled(t, spec) for t in details]
    if not any(_has_number(r, columns) for r in ours):
        comparison.notes.append("no number of ours: nothing was scored (see the failures below)")
    if any(r.get(c) is None for r in ours for c in columns):
        comparison.notes.append("an empty cell of ours: the runner has no number there (a language without accepted "
                                "solutions, a problem excluded by the runner's rules: see the notes below)")
    return Reproduction(target=target, spec=spec, comparison=comparison, ours=ours, paper=paper,
                        settings=settings_table(target, spec, stores), details=details, figure_rows=figure_rows)


def _relabelled(table: Table, spec: GridSpec) -> Table:
    """``table`` with each model named by ``model_label`` (a replayed run's tables read
    as the recorded run's)."""
    names = {m: model_label(m) for m in spec.models if model_label(m) != m}
    if not names:
        return table

    def fix(value: Any) -> Any:
        if isinstance(value, str):
            for old, new in names.items():
                value = value.replace(old, new)
        return value

    table.title = fix(table.title)
    table.rows = [{k: fix(v) for k, v in row.items()} for row in table.rows]
    table.notes = [fix(n) for n in table.notes]
    return table


def _has_number(row: dict[str, Any], columns: list[str]) -> bool:
    return any(isinstance(row.get(c), (int, float)) and not isinstance(row.get(c), bool) for c in columns)


def _unscored_rows(target: Target, spec: GridSpec, ours: list[dict[str, Any]], summary, columns: list[str]
                   ) -> list[dict[str, Any]]:
    """A row for every method of the grid that has none in the runner's table (all its
    generations failed, or the runner excluded every problem), saying which."""
    from tczoo.experiments.metrics import norm

    if "method" not in target.layout.keys:
        return []
    have = {norm(r.get("method")) for r in ours}
    rows = []
    for model in spec.models:
        for method in spec.methods:
            if norm(method) in have:
                continue
            cell = summary.cells.get((model, method))
            what = "not run" if cell is None else ("failed" if cell.status == "failed" else "not scored")
            row = {"source": OURS, "model": model_label(model), "method": method, **{c: what for c in columns}}
            if cell is not None:
                row.update({"units": cell.attempted, "failed": cell.failed + cell.score_errors,
                            "no valid tests": cell.no_valid})
            rows.append(row)
    return rows


def _variant_rows(target: Target, variant_tables: dict[str, list[Table]], label) -> tuple[list, list[str], Any]:
    """One row per key with each layout column per variant (``HR (all wrong codes)``),
    and, with two variants, their difference."""
    merged: dict[tuple, dict[str, Any]] = {}
    columns: list[str] = []
    first_table = None
    for variant in target.variants:
        rows, table = our_rows(target, variant_tables.get(variant.label, []), label, "")
        first_table = first_table or table
        for row in rows:
            key = (row.get("model"), *(row.get(k) for k in target.layout.keys))
            into = merged.setdefault(key, {k: v for k, v in row.items() if k not in target.layout.columns})
            for c in target.layout.columns:
                name = f"{c} ({variant.label})"
                into[name] = row.get(c)
                if name not in columns:
                    columns.append(name)
    if len(target.variants) == 2:
        a, b = (v.label for v in target.variants)
        for c in target.layout.columns:
            name = f"{c} difference"
            for row in merged.values():
                x, y = row.get(f"{c} ({a})"), row.get(f"{c} ({b})")
                row[name] = x - y if isinstance(x, (int, float)) and isinstance(y, (int, float)) else None
            columns.append(name)
    return list(merged.values()), columns, first_table


# --------------------------------------------------------------------------- writing


def command_line(spec: GridSpec, target: Target) -> str:
    """The command that reproduces this result (from the settings, not argv: the same
    for a replayed run)."""
    parts = ["tczoo reproduce", target.name, "--model", model_label(spec.models[0])]
    if spec.benchmark != "zoo-mini":
        parts += ["--benchmark", spec.benchmark]
    if spec.problems:
        parts += ["--problems", ",".join(spec.problems)]
    if spec.samples != target.run.samples:
        parts += ["--samples", str(spec.samples)]
    overrides = {k: v for k, v in spec.params.items() if target.run.params.get(k) != v}
    if overrides:
        parts += ["--params", "'" + json.dumps(overrides, sort_keys=True) + "'"]
    from tczoo.llm import LLMSettings

    if spec.llm.get("max_tokens") not in (None, LLMSettings().max_tokens):
        parts += ["--max-tokens", str(spec.llm["max_tokens"])]
    if spec.llm.get("temperature") not in (None, LLMSettings().temperature):
        parts += ["--temperature", str(spec.llm["temperature"])]
    if spec.llm.get("api_base"):
        parts += ["--api-base", spec.llm["api_base"]]
    return " ".join(parts)


def markdown(repro: Reproduction) -> str:
    target = repro.target
    paper = papers()[target.paper]
    refs = [t.ref for _, t in target.paper_tables()]
    head = [
        f"# {target.title}",
        "",
        f"Reproduced by `{command_line(repro.spec, target)}`.",
        "",
        f"Paper: *{paper.title}* ({paper.cite}); " + "; ".join(refs) + ".",
        "",
        "The paper's numbers are entered from its tables (tczoo/experiments/data/papers.yaml); ours are computed "
        "by tczoo's runners from the recorded run. A cell whose generations failed says `failed`, never a number; "
        "`units`, `failed` and `no valid tests` count our generations.",
        "",
        "",
    ]
    body = [render([repro.settings], "md"), render([repro.comparison], "md")]
    for tid, table in target.paper_tables():
        if table.claims:
            body.append(f"### What the paper says about {table.ref}\n\n" + "\n".join(f"- {c}" for c in table.claims)
                        + "\n\n")
        if table.rows:
            full = Table(title=f"the paper's {table.ref}", columns=table.keys + table.columns,
                         rows=[{**r, **{c: _paper_cell(r.get(c), table.places(c)) for c in table.columns}}
                               for r in table.records()],
                         notes=([table.setting] if table.setting else []) + table.notes
                         + ([f"the paper's names: {json.dumps(table.headers, ensure_ascii=False)}"]
                            if table.headers else []))
            body.append(render([full], "md"))
    body.append("## Our run in detail\n\n" + render(repro.details, "md"))
    return "\n".join(head) + "".join(body).rstrip("\n") + "\n"


def _paper_cell(value: Any, places: int) -> str:
    if value is None:
        return "(illegible)"
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return f"{value:.{places}f}"
    return str(value)


def csv_text(repro: Reproduction) -> str:
    """Our rows and every row of the paper tables, one CSV: ``source`` says whose."""
    target = repro.target
    layout = target.layout
    metric_cols = [c for c in repro.comparison.columns if c not in ("source", "model", *layout.keys, *layout.show,
                                                                    *ADDED)]
    columns = ["source", "reference", "model", *layout.keys, *layout.show, *metric_cols, *ADDED]
    tables = dict(target.paper_tables())
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=columns, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    for row in repro.ours:
        writer.writerow({**{c: _csv_value(row.get(c)) for c in columns}, "source": OURS,
                         "reference": f"tczoo {target.name}"})
    for row in repro.paper:
        table = tables.get(row.get("_table", ""))
        writer.writerow({**{c: _csv_value(row.get(c)) for c in columns}, "reference": table.ref if table else ""})
    return out.getvalue()


def _csv_value(value: Any) -> Any:
    if isinstance(value, float):
        return "" if value != value else repr(round(value, 6))
    return "" if value is None else value


def write(repro: Reproduction, results: Path) -> list[Path]:
    """``results/<paper>/<target>.md`` and ``.csv``, and ``.png`` for a figure."""
    from tczoo.experiments.figures import draw

    folder = Path(results) / repro.target.paper
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for suffix, text in ((".md", markdown(repro)), (".csv", csv_text(repro))):
        path = folder / f"{repro.target.name}{suffix}"
        tmp = path.with_suffix(suffix + ".tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
        paths.append(path)
    if repro.target.figure is not None:
        path = folder / f"{repro.target.name}.png"
        if draw(repro, path):
            paths.append(path)
    return paths
