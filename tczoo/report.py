"""A run directory's result tables, in every format ``tczoo report`` prints.

``run_report(run_dir)`` reads the records, asks each runner to summarise the scores of
the generations that succeeded (its paper's table layout), and adds what went wrong,
for every runner alike:

- every table with ``model`` and ``method`` columns gets, per row, ``units`` (units
  whose generation was attempted), ``failed`` (generations that failed, see
  ``tczoo.failures``, or could not be scored) and ``no valid tests`` (problems where no scored unit had a
  valid test); a model × method whose every generation failed gets a row with
  ``failed`` in each metric cell, and one whose every problem lacks a valid test keeps
  the number its runner's (its paper's) averaging gives with the marker beside it —
  ``0.00 (no valid tests)`` — or the marker alone where the runner has no number:
  never a bare rate (counts — problems, tests — stay as they are);
- a table of the failures by stage and reason (failed units, and scored units that
  recorded the same failure along the way);
- ``RunSummary``: totals, the one-line cause when everything failed, the warning line
  when some did.

``render(tables, fmt)`` turns tables into markdown, CSV or JSON text; rendering for a
terminal (rich) is the command line's job.
"""

from __future__ import annotations

import csv
import io
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tczoo.failures import generation_failure, transient
from tczoo.runner import Runner, Table
from tczoo.safetext import dumps, printable

FORMATS = ("table", "md", "csv", "json")
IDENTITY = ("model", "method", "language", "selector", "dataset")
ADDED = ("units", "failed", "no valid tests")
FAILED = "failed"
NO_VALID = "no valid tests"


def marked(value: Any, decimals: int = 1, marker: str = NO_VALID) -> Any:
    """A metric cell of a model × method without a single valid test: the rate its
    runner's averaging gives (the paper's, e.g. TC-Bench's HackRate 0 and AC 100) with
    the marker beside it, the marker alone when there is no number; a count (an int:
    problems, k, tests) is a fact, not a score, and stays as it is."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if not isinstance(value, float) or value != value:
        return marker
    return f"{value:.{decimals}f} ({marker})"


def is_marked(value: Any, marker: str = NO_VALID) -> bool:
    """Whether a cell is ``marker`` alone or a number with ``marker`` beside it."""
    return isinstance(value, str) and (value == marker or value.endswith(f" ({marker})"))


@dataclass
class Cell:
    """What happened to one model × method in a run."""

    model: str
    method: str
    runner: str
    attempted: int = 0
    failed: int = 0
    retryable: int = 0  # failed units the next `tczoo run` generates again
    scored: int = 0
    score_errors: int = 0
    failures: Counter = field(default_factory=Counter)  # (stage, reason) -> failed units
    recorded: Counter = field(default_factory=Counter)  # (stage, reason) -> scored units that recorded it
    examples: dict = field(default_factory=dict)  # (stage, reason) -> detail
    scored_problems: set = field(default_factory=set)
    valid_problems: set = field(default_factory=set)

    @property
    def no_valid(self) -> int:
        return len(self.scored_problems - self.valid_problems)

    @property
    def status(self) -> str:
        if self.attempted and not self.scored:
            return FAILED
        if self.scored_problems and not self.valid_problems:
            return NO_VALID
        return "partial" if self.failed or self.score_errors else "ok"


@dataclass
class RunSummary:
    cells: dict[tuple[str, str], Cell]
    warnings: list[str]

    @property
    def attempted(self) -> int:
        return sum(c.attempted for c in self.cells.values())

    @property
    def failed(self) -> int:
        return sum(c.failed for c in self.cells.values())

    @property
    def score_errors(self) -> int:
        return sum(c.score_errors for c in self.cells.values())

    @property
    def no_valid(self) -> int:
        return sum(c.no_valid for c in self.cells.values())

    @property
    def all_failed(self) -> bool:
        return self.attempted > 0 and all(c.scored == 0 for c in self.cells.values())

    def _top(self) -> tuple[tuple[str, str], str, int]:
        counts: Counter = Counter()
        examples: dict = {}
        for c in self.cells.values():
            counts.update(c.failures)
            for k, v in c.examples.items():
                examples.setdefault(k, v)
        if not counts:
            return ("score", "error"), "", 0
        key, n = counts.most_common(1)[0]
        return key, examples.get(key, ""), n

    def cause(self) -> str:
        """One line: why nothing succeeded."""
        (stage, reason), detail, _ = self._top()
        detail = printable(" ".join(str(detail).split())[:300], newlines=False)
        llm_only = all(k[0] == "llm" for c in self.cells.values() for k in c.failures)
        if self.failed and llm_only:
            return f"every LLM call failed ({reason}): {detail}"
        if not self.failed and self.score_errors:
            return f"no generation could be scored: {detail}"
        return f"every generation failed ({stage}/{reason}): {detail}"

    def warning(self) -> str | None:
        """One line counting what failed, or None when nothing did."""
        parts = []
        if self.failed:
            (stage, reason), _, n = self._top()
            retry = sum(c.retryable for c in self.cells.values())
            text = f"{self.failed} of {self.attempted} generations failed (most: {stage}/{reason}, {n})"
            if retry:
                text += f"; {retry} will be generated again by the same command"
            parts.append(text)
        if self.score_errors:
            parts.append(f"{self.score_errors} could not be scored")
        if self.no_valid:
            parts.append(f"{self.no_valid} problem(s) without a single valid test")
        return "; ".join(parts) or None


def _runner_of(config, method: str) -> str:
    if config.runner:
        return config.runner
    from tczoo.registry import describe_methods

    for info in describe_methods():
        if info["name"] == method:
            return info["runner"]
    return ""


def analyse(store) -> RunSummary:
    """What succeeded and what failed in a run directory (opened read-only)."""
    from tczoo.registry import UnknownNameError, get_runner

    config = store.config
    runners: dict[str, Any] = {}

    def runner_cls(name: str):
        if name not in runners:
            try:
                runners[name] = get_runner(name) if name else None
            except UnknownNameError:
                runners[name] = None
        return runners[name]

    gens = store.generations()
    scores = {(s.method, s.problem_id, s.task): s for s in store.scores()}
    scored_by = {s.method: s.runner for s in scores.values()}  # for a method not installed here
    cells: dict[tuple[str, str], Cell] = {}
    for g in gens:
        runner = _runner_of(config, g.method) or scored_by.get(g.method, "")
        cls = runner_cls(runner)
        cell = cells.setdefault((g.model, g.method), Cell(g.model, g.method, runner))
        cell.attempted += 1
        failure = generation_failure(g, scores_empty=bool(cls and cls.scores_empty_suites))
        key = (g.method, g.problem_id, g.task)
        if failure is not None:
            cell.failed += 1
            cell.retryable += transient(failure)
            k = (failure.stage, failure.reason)
            cell.failures[k] += 1
            cell.examples.setdefault(k, failure.detail)
            continue
        for f in g.suite.provenance.failures:
            cell.recorded[(f.stage, f.reason)] += 1
            cell.examples.setdefault((f.stage, f.reason), f.detail)
        s = scores.get(key)
        if s is None:
            continue  # not scored yet (an interrupted run); the next run scores it
        if s.error is not None:
            cell.score_errors += 1
            k = ("score", "infrastructure" if s.infrastructure else "error")
            cell.failures[k] += 1
            cell.examples.setdefault(k, s.error)
            continue
        cell.scored += 1
        cell.scored_problems.add(g.problem_id)
        valid = s.n_valid if s.n_valid is not None else len(g.suite.tests)
        if valid > 0:
            cell.valid_problems.add(g.problem_id)
    return RunSummary(cells=cells, warnings=list(store.warnings))


def run_report(run_dir: Path) -> tuple[Any, list[Table], RunSummary]:
    """(the store, the tables of every runner with the failure columns and table, the
    summary)."""
    from tczoo.store import RunStore

    store = RunStore.open(run_dir)
    tables, summary = stores_report([store])
    return store, tables, summary


def stores_report(stores: list) -> tuple[list[Table], RunSummary]:
    """The tables of several run directories read as one experiment (a grid of runs,
    one (model, method) cell each): each runner summarises the score records of all of
    them together, and every cell's failures are counted as in one run."""
    by_runner, summary = runner_tables(stores)
    tables = [t for produced in by_runner.values() for t in produced]
    failures = _failure_table(summary)
    if failures is not None:
        tables.append(failures)
    if summary.warnings:
        if tables:
            tables[0].notes.extend(summary.warnings)
        else:
            tables.append(Table(title="run directory", columns=["note"], rows=[{"note": w} for w in summary.warnings]))
    return tables, summary


def runner_tables(stores: list) -> tuple[dict[str, list[Table]], RunSummary]:
    """Each runner's tables over the scores of ``stores`` (with the failure columns), by
    runner name, and what succeeded and failed in them."""
    from tczoo.registry import UnknownNameError, get_runner

    summary = RunSummary(cells={}, warnings=[])
    by_runner: dict[str, list] = {}
    for store in stores:
        part = analyse(store)
        summary.cells.update(part.cells)
        summary.warnings += part.warnings
        gens = {(g.method, g.problem_id, g.task): g for g in store.generations()}
        for s in store.scores():
            g = gens.get((s.method, s.problem_id, s.task))
            cell = part.cells.get((s.model, s.method))
            if g is None or cell is None or s.error is not None:
                continue
            runner_cls = installed_runner(s.runner, store)
            if generation_failure(g, scores_empty=runner_cls.scores_empty_suites) is not None:
                continue  # scored by an older tczoo that scored failed generations
            by_runner.setdefault(s.runner, []).append(s)
    out: dict[str, list[Table]] = {}
    runner_names = sorted({c.runner for c in summary.cells.values()} | set(by_runner), key=str)
    for name in runner_names:
        runner: Runner | None
        try:
            runner = get_runner(name)() if name else None  # built to read records: no sandbox
        except UnknownNameError:
            runner = None
        cells = [c for c in summary.cells.values() if c.runner == name]
        records = by_runner.get(name, [])
        # summarising reads records only: no sandbox needed
        produced = runner.summarize(records) if (runner is not None and records) else []
        if not produced and cells:
            produced = [Table(title=f"{name or 'unknown runner'}: nothing could be scored",
                              columns=["model", "method"], rows=[])]
        for t in produced:
            _add_health(t, cells, runner)
        out[name] = produced
    return out, summary


def installed_runner(name: str, store) -> Any:
    """The runner class ``name``, or a one-line error that says which package to install
    when the run was made with a runner this installation lacks (its provenance names
    the plugin package and version)."""
    from tczoo.registry import UnknownNameError, get_runner, missing_hint

    try:
        return get_runner(name)
    except UnknownNameError as exc:
        hint = missing_hint("runner", name, store.provenance())
        if hint:
            raise UnknownNameError(f"{store.root}: scored by runner {name!r}, which is not installed; {hint}") from None
        raise UnknownNameError(f"{store.root}: {exc}") from None


def run_tables(run_dir: Path) -> tuple[Any, list[Table]]:
    store, tables, _ = run_report(run_dir)
    return store, tables


def merged_tables(run_dirs: list[Path], runner: str | None = None) -> list[Table]:
    """The tables of several run directories read as one: each runner (or only
    ``runner``) summarises the score records of all of them together — one benchmark
    per run, one row per dataset (TRAILS's Tables 1-3 over LiveCodeBench and
    CoCoClaNeL runs). Failed generations are left out as ``run_report`` leaves them out,
    and counted in a note."""
    from tczoo.registry import get_runner
    from tczoo.store import RunStore

    by_runner: dict[str, list] = {}
    left_out = 0
    for d in run_dirs:
        store = RunStore.open(d)
        gens = {(g.method, g.problem_id, g.task): g for g in store.generations()}
        for s in store.scores():
            if runner is not None and s.runner != runner:
                continue
            g = gens.get((s.method, s.problem_id, s.task))
            if g is None or s.error is not None or \
                    generation_failure(g, scores_empty=get_runner(s.runner).scores_empty_suites) is not None:
                left_out += 1
                continue
            by_runner.setdefault(s.runner, []).append(s)
    tables: list[Table] = []
    for name, records in by_runner.items():
        tables.extend(get_runner(name)().summarize(records))
    if left_out and tables:
        tables[0].notes.append(f"{left_out} unit(s) whose generation failed or could not be scored are left out")
    return tables


def merge_tables(parts: list[list[Table]]) -> list[Table]:
    """Tables made per run (an analysis over each cell of a grid), read as one: tables
    with the same title become one, the rows of each in turn, every note once."""
    merged: dict[str, Table] = {}
    for tables in parts:
        for table in tables:
            into = merged.get(table.title)
            if into is None:
                merged[table.title] = table
            else:
                into.rows += table.rows
                into.notes += [n for n in table.notes if n not in into.notes]
                into.columns += [c for c in table.columns if c not in into.columns]
    return list(merged.values())


def _add_health(table: Table, cells: list, runner) -> None:
    if "model" not in table.columns or "method" not in table.columns:
        return
    by_key = {(c.model, c.method.lower()): c for c in cells}
    metric_cols = [c for c in table.columns if c not in IDENTITY]
    matched = set()
    for row in table.rows:
        cell = by_key.get((row.get("model"), str(row.get("method", "")).lower()))
        if cell is None:
            continue
        matched.add((cell.model, cell.method.lower()))
        row.update({"units": cell.attempted, "failed": cell.failed + cell.score_errors,
                    "no valid tests": cell.no_valid})
        if cell.status == NO_VALID:
            precision = getattr(table, "precision", None) or {}
            row.update({c: marked(row.get(c), int(precision.get(c, table.decimals))) for c in metric_cols
                        if c not in ADDED})
    for cell in cells:
        if (cell.model, cell.method.lower()) in matched or cell.status != FAILED:
            continue
        label = runner.label(cell.method) if runner is not None else cell.method
        row = {c: FAILED for c in metric_cols}
        row.update({"model": cell.model, "method": label, "units": cell.attempted,
                    "failed": cell.failed + cell.score_errors, "no valid tests": 0})
        table.rows.append(row)
    table.columns = table.columns + [c for c in ADDED if c not in table.columns]


def _failure_table(summary: RunSummary) -> Table | None:
    rows = []
    for cell in summary.cells.values():
        keys = sorted(set(cell.failures) | set(cell.recorded))
        for stage, reason in keys:
            rows.append({"model": cell.model, "method": cell.method, "stage": stage, "reason": reason,
                         "failed units": cell.failures.get((stage, reason), 0),
                         "scored units": cell.recorded.get((stage, reason), 0),
                         "example": " ".join(str(cell.examples.get((stage, reason), "")).split())[:160]})
    if not rows:
        return None
    notes = ["failed units: generations not scored (shown as failed above); scored units: generations that "
             "recorded this failure along the way and were still scored"]
    return Table(title="failures by stage and reason", columns=["model", "method", "stage", "reason", "failed units",
                                                                "scored units", "example"], rows=rows, notes=notes)


def model_label(model: str) -> str:
    """A model string as a table column shows it: the file name for a model named by a
    path (``scripted:/long/dir/rules.jsonl`` -> ``scripted:rules.jsonl``,
    ``local//models/m.gguf`` -> ``local/m.gguf``, ``replay:runs/x/`` -> ``replay:x``);
    provider models as given. Reports in md, csv and json keep the full string."""
    text = str(model)
    for prefix in ("scripted:", "replay:", "local//"):
        if text.startswith(prefix) and ("/" in text[len(prefix):]):
            name = Path(text[len(prefix):].rstrip("/")).name
            return (prefix.rstrip("/") if prefix == "local//" else prefix) + ("/" if prefix == "local//" else "") + name
    return text


def model_labels(models: list[str]) -> list[str]:
    """``model_label`` of each, except where two would read the same (then the full strings)."""
    labels = {m: model_label(m) for m in dict.fromkeys(models)}
    short = list(labels.values())
    clash = {label for label in short if short.count(label) > 1}
    return [m if labels[m] in clash else labels[m] for m in models]


def cell(value: Any, decimals: int = 1) -> str:
    """One table cell as text: floats with the table's decimals (one by default), None as empty."""
    if isinstance(value, float):
        return "nan" if value != value else f"{value:.{decimals}f}"
    return "" if value is None else str(value)


def render(tables: list[Table], fmt: str) -> str:
    """``md``, ``csv`` or ``json`` text of ``tables`` (model and program text is kept
    exactly in JSON and CSV, escaped in markdown).

    CSV is one valid CSV document: a ``table`` column names the table a row belongs to,
    the other columns are the union of the tables' columns (notes are left out; they
    are in every other format)."""
    if fmt == "json":
        return dumps([{"title": t.title, "columns": t.columns, "rows": t.rows, "notes": t.notes} for t in tables],
                     indent=2, default=str) + "\n"
    out = io.StringIO()
    if fmt == "csv":
        columns: list[str] = []
        for t in tables:
            columns += [c for c in t.columns if c not in columns]
        writer = csv.DictWriter(out, fieldnames=["table", *columns], extrasaction="ignore", lineterminator="\n")
        writer.writeheader()
        for t in tables:
            for row in t.rows:
                writer.writerow({"table": t.title, **{c: row.get(c) for c in t.columns}})
        return out.getvalue().encode("utf-8", "backslashreplace").decode("utf-8")
    if fmt != "md":
        raise ValueError(f"unknown report format {fmt!r}")
    for t in tables:
        out.write(f"### {printable(t.title)}\n\n| " + " | ".join(t.columns) + " |\n|" + "---|" * len(t.columns) + "\n")
        for row in t.rows:
            out.write("| " + " | ".join(printable(cell(row.get(c), t.decimals), newlines=False).replace("|", "\\|")
                                        for c in t.columns) + " |\n")
        for note in t.notes:
            out.write(f"\n{printable(note)}\n")
        out.write("\n")
    return out.getvalue()


def plot_scaling(tables: list[Table], path: Path) -> bool:
    """Figure 5 of TC-Bench: HackRate against the test budget (k x rank), a line per
    model x method. Returns False when no table has scaling columns."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    series = []
    for t in tables:
        cols = [c for c in t.columns if c.startswith("HR ") and c.endswith("x")]
        for row in t.rows:
            points = [(int(c[3:-1]), row[c]) for c in cols if isinstance(row.get(c), (int, float))]
            if points:
                series.append((f"{row.get('model', '')} {row.get('method', '')}".strip(), sorted(points)))
    if not series:
        return False
    fig, ax = plt.subplots(figsize=(6, 4))
    for label, points in series:
        ax.plot([k for k, _ in points], [v for _, v in points], marker="o", label=label)
    ax.set_xlabel("test budget (multiples of rank)")
    ax.set_ylabel("HackRate (%)")
    ax.set_ylim(0, 100)
    ax.set_xticks(sorted({k for _, pts in series for k, _ in pts}))
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True
