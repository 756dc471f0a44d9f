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

from tczoo import stats
from tczoo.failures import generation_failure, transient
from tczoo.runner import Runner, Table
from tczoo.safeio.text import dumps, printable
from tczoo.schema import repeat_of
from tczoo.schema import ScoreRecord

FORMATS = ("table", "md", "csv", "json")
IDENTITY = ("model", "method", "language", "selector", "dataset")
ADDED = ("units", "failed", "no valid tests", "invalid inputs")
FAILED = "failed"
NO_VALID = "no valid tests"
CI = " 95% CI"  # the column beside a metric that holds its interval: "HR 95% CI"
N_PROBLEMS = "n problems"  # the problems a row's intervals rest on
N_SAMPLES = "n samples"  # generations per task behind them, when more than one
# a row's hidden keys (never columns): its cell's status (ok, partial, failed, no valid tests)
# and, where the text formats show a marker, the numbers the machine formats keep
STATUS, RAW = "_status", "_raw"


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
    samples: int = 1  # generations per task (the run's --samples)

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


def stores_report(stores: list, options: StatsOptions | None = None) -> tuple[list[Table], RunSummary]:
    """The tables of several run directories read as one experiment (a grid of runs,
    one (model, method) cell each): each runner summarises the score records of all of
    them together, and every cell's failures are counted as in one run."""
    _, tables, summary = stores_tables(stores, options)
    return tables, summary


def stores_tables(stores: list, options: StatsOptions | None = None
                  ) -> tuple[dict[str, list[Table]], list[Table], RunSummary]:
    """``stores_report`` with each runner's own tables (``runner_tables``) beside it."""
    by_runner, summary = runner_tables(stores, options)
    tables = [t for produced in by_runner.values() for t in produced]
    failures = _failure_table(summary)
    if failures is not None:
        tables.append(failures)
    if summary.warnings:
        if tables:
            tables[0].notes.extend(summary.warnings)
        else:
            tables.append(Table(title="run directory", columns=["note"], rows=[{"note": w} for w in summary.warnings]))
    return by_runner, tables, summary


def runner_tables(stores: list, options: StatsOptions | None = None) -> tuple[dict[str, list[Table]], RunSummary]:
    """Each runner's tables over the scores of ``stores`` (with the failure columns), by
    runner name, and what succeeded and failed in them; each metric with its interval
    (``add_intervals``; ``options``: resamples and seed, else ``STATS``)."""
    from tczoo.registry import UnknownNameError, get_runner

    summary = RunSummary(cells={}, warnings=[])
    by_runner: dict[str, list] = {}
    for store in stores:
        part = analyse(store)
        for c in part.cells.values():
            c.samples = store.config.samples
        summary.cells.update(part.cells)
        summary.warnings += part.warnings
        for s in scored_records(store, part):
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
        every = by_runner.get(name, [])
        repeats = 1 + max((repeat_of(r.task) for r in every), default=0)
        # --repeats: the tables are repeat 0's (the run as without the option); the spread
        # over every repeat is a table of its own
        records = [r for r in every if repeat_of(r.task) == 0] if repeats > 1 else every
        # summarising reads records only: no sandbox needed
        produced = runner.summarize(records) if (runner is not None and records) else []
        if not produced and cells:
            produced = [Table(title=f"{name or 'unknown runner'}: nothing could be scored",
                              columns=["model", "method"], rows=[])]
        invalid = invalid_inputs(records)
        for t in produced:
            _add_health(t, cells, runner, invalid)
        if produced:
            produced[0].notes.extend(n for n in input_check_notes(records) if n not in produced[0].notes)
        add_intervals(produced, runner, name, records, cells, options)
        if repeats > 1 and runner is not None and produced:
            produced[0].notes.append(f"repeat 0 of {repeats} (--repeats); the spread over all {repeats} is in "
                                     "'spread over repeats' below")
            produced.append(spread_table(runner, name, every, repeats))
        out[name] = produced
    return out, summary


def scored_records(store, part: RunSummary | None = None) -> list[ScoreRecord]:
    """The score records of ``store`` a report counts: of generations that succeeded,
    scored without an error (``part``: the store's ``analyse``, when the caller has it)."""
    part = part if part is not None else analyse(store)
    gens = {(g.method, g.problem_id, g.task): g for g in store.generations()}
    out = []
    for s in store.scores():
        g = gens.get((s.method, s.problem_id, s.task))
        cell = part.cells.get((s.model, s.method))
        if g is None or cell is None or s.error is not None:
            continue
        runner_cls = installed_runner(s.runner, store)
        if generation_failure(g, scores_empty=runner_cls.scores_empty_suites) is not None:
            continue  # scored by an older tczoo that scored failed generations
        out.append(s)
    return out


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


def invalid_inputs(records: list[ScoreRecord]) -> dict[tuple[str, str], int]:
    """Tests whose input the input screen rejected, by (model, method)."""
    out: dict[tuple[str, str], int] = {}
    for r in records:
        if r.input_check is not None:
            key = (r.model, r.method.lower())
            out[key] = out.get(key, 0) + r.input_check.rejected
    return out


def input_check_notes(records: list[ScoreRecord]) -> list[str]:
    """What checked the scored tests' inputs, for a report's header: the problems'
    validators, signatures or the reference rule, with the rejected count, and, loudly,
    the problems whose inputs nothing checked (the benchmark has no input validator: the
    paper's own rule applies)."""
    by: dict[str, set[str]] = {}
    rejected = tested = 0
    for r in records:
        if r.input_check is None:
            continue
        by.setdefault(r.input_check.by, set()).add(r.problem_id)
        rejected += r.input_check.rejected
        tested += r.input_check.tests
    if not by:
        return []
    names = {"validator": "the problems' input validators", "signature": "the entry points' signatures",
             "reference": "the reference solution (strict_inputs: it must run cleanly and print something)"}
    checked = [f"{names[k]} ({len(v)} problem(s))" for k, v in sorted(by.items()) if k != "none"]
    notes = []
    if checked:
        notes.append(f"inputs checked by {', '.join(checked)}: {rejected} of {tested} test(s) rejected as invalid, "
                     "never scored (column 'invalid inputs')")
    if "none" in by:
        some = sorted(by["none"])
        notes.append(f"inputs NOT validated on {len(some)} problem(s) ({', '.join(some[:4])}"
                     f"{' ...' if len(some) > 4 else ''}): the benchmark has no input validator, the paper's own "
                     "rule applies (--strict-inputs: a reference solution must run cleanly and print something)")
    return notes


def _add_health(table: Table, cells: list, runner, invalid: dict[tuple[str, str], int] | None = None) -> None:
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
                    "no valid tests": cell.no_valid,
                    "invalid inputs": (invalid or {}).get((cell.model, cell.method.lower()), 0)})
        row[STATUS] = cell.status
        if cell.status == NO_VALID:
            precision = getattr(table, "precision", None) or {}
            row[RAW] = {c: row.get(c) for c in metric_cols if c not in ADDED}  # JSON keeps the numbers
            row.update({c: marked(row.get(c), int(precision.get(c, table.decimals))) for c in metric_cols
                        if c not in ADDED})
    for cell in cells:
        if (cell.model, cell.method.lower()) in matched or cell.status != FAILED:
            continue
        label = runner.label(cell.method) if runner is not None else cell.method
        row = {c: FAILED for c in metric_cols}
        row[STATUS] = FAILED
        row.update({"model": cell.model, "method": label, "units": cell.attempted,
                    "failed": cell.failed + cell.score_errors, "no valid tests": 0, "invalid inputs": 0})
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
    """One table cell as text: floats with the table's decimals (one by default), an
    interval as ``[low, high]`` with them, None as empty."""
    if isinstance(value, stats.Interval):
        return value.text(decimals)
    if isinstance(value, float):
        return "nan" if value != value else f"{value:.{decimals}f}"
    return "" if value is None else str(value)


def render(tables: list[Table], fmt: str) -> str:
    """``md``, ``csv`` or ``json`` text of ``tables`` (model and program text is kept
    exactly in JSON and CSV, escaped in markdown).

    JSON and CSV are for scripts: numbers are numbers (a cell without a valid test keeps
    its number, a failed one is null/empty), a ``status`` says which (``ok``,
    ``partial``, ``failed``, ``no valid tests``), and each interval is its own numbers
    (JSON: ``intervals: {metric: {low, high, level, method, problems, samples}}``; CSV:
    ``<metric> 95% CI low`` / ``high`` columns). CSV is one valid CSV document: a
    ``table`` column names the table a row belongs to, the other columns are the union
    of the tables' columns (notes are left out; they are in every other format);
    ``csv_files`` writes one CSV per table."""
    if fmt == "json":
        return dumps([json_table(t) for t in tables], indent=2, default=_json_default) + "\n"
    out = io.StringIO()
    if fmt == "csv":
        columns: list[str] = []
        for t in tables:
            columns += [c for c in csv_columns(t) if c not in columns]
        writer = csv.DictWriter(out, fieldnames=["table", *columns], extrasaction="ignore", lineterminator="\n")
        writer.writeheader()
        for t in tables:
            for row in csv_rows(t):
                writer.writerow({"table": t.title, **row})
        return out.getvalue().encode("utf-8", "backslashreplace").decode("utf-8")
    if fmt != "md":
        raise ValueError(f"unknown report format {fmt!r}")
    for t in tables:
        out.write(f"### {printable(t.title)}\n\n| " + " | ".join(t.columns) + " |\n|" + "---|" * len(t.columns) + "\n")
        per_column = getattr(t, "precision", None) or {}
        for row in t.rows:
            out.write("| " + " | ".join(printable(cell(row.get(c), int(per_column.get(c, t.decimals))),
                                                  newlines=False).replace("|", "\\|")
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


# --------------------------------------------------------------------------- a cell's metrics in a table
#
# Which row of a runner's tables is a (model, method) cell and which of its columns are
# the cell's metrics: experiments/data/runners.yaml says it per runner (a runner not
# listed there is read generically). The comparison and reproduction reports read
# numbers back this way, and the intervals below are computed for these columns.

NOT_METRICS = set(IDENTITY) | set(ADDED) | {"problems", "selector", "label", "reference", "candidates", "codes",
                                            "runs", "undecided", "responses", "k", "restart", "draws",
                                            N_PROBLEMS, N_SAMPLES}
RUNNERS_YAML = Path(__file__).parent / "experiments" / "data" / "runners.yaml"


def runner_reading() -> dict[str, dict[str, Any]]:
    global _READING
    if _READING is None:
        import yaml

        _READING = yaml.safe_load(RUNNERS_YAML.read_text()) or {}
    return _READING


_READING: dict[str, dict[str, Any]] | None = None


def norm(text: Any) -> str:
    """A method's name as tables spell it (CRUX, Io, STAB-BASE, stab-base) made comparable."""
    import re

    return re.sub(r"[^a-z0-9]", "", str(text).lower())


def _row_for(table: Table, model: str, method: str, reading: dict[str, Any]) -> dict[str, Any] | None:
    row_rule = reading.get("row")
    for row in table.rows:
        if row_rule:
            if all(str(row.get(col)) == pattern.format(method=method, model=model) for col, pattern in row_rule.items()):
                return row
            continue
        if "model" in table.columns and row.get("model") != model:
            continue
        if "method" in table.columns and norm(row.get("method")) != norm(method):
            continue
        if "model" in table.columns or "method" in table.columns:
            return row
    return None


def _columns(table: Table, patterns: list[str], method: str) -> list[str]:
    import fnmatch

    out: list[str] = []
    for pattern in patterns:
        wanted = pattern.format(method=method)
        for col in table.columns:
            if col in NOT_METRICS or col in out or col.endswith(CI):
                continue
            if fnmatch.fnmatchcase(col, wanted):
                out.append(col)
    return out


def lookup_rows(tables: list[Table], runner: str, model: str, method: str, *, which: str = "metrics"
                ) -> list[tuple[str, Any, Table, dict[str, Any]]]:
    """``lookup`` with the row each value was read from."""
    reading = runner_reading().get(runner)
    for table in tables:
        row = _row_for(table, model, method, reading or {})
        if row is None:
            continue
        if reading:
            cols = _columns(table, list(reading.get(which) or []), method)
            if which == "headline":
                cols = cols[:1]
        else:
            cols = [c for c in table.columns if c not in NOT_METRICS and not c.endswith(CI)
                    and (_is_number(row.get(c)) or row.get(c) == FAILED or is_marked(row.get(c)))]
            cols = cols[:1] if which == "headline" else cols
        if cols:
            return [(c, row.get(c), table, row) for c in cols]
    return []


def metric_rows(tables: list[Table], runner: str, model: str, method: str) -> list[tuple[str, Any, Table, dict]]:
    """The cell's headline and metric columns (``lookup_rows`` of both, each once):
    the columns that get an interval."""
    out, seen = [], set()
    for which in ("headline", "metrics", "bands"):
        for found in lookup_rows(tables, runner, model, method, which=which):
            if (found[0], id(found[2])) not in seen:
                seen.add((found[0], id(found[2])))
                out.append(found)
    return out


def lookup(tables: list[Table], runner: str, model: str, method: str, *, which: str = "metrics"
           ) -> list[tuple[str, Any, Table]]:
    """(column, value, table) of a cell's ``which`` ("headline" or "metrics") columns,
    from the first of ``tables`` that has the cell's row and such a column. A value may
    be ``failed``, or ``no valid tests`` alone or beside a number (the report puts
    those in the metric columns of a cell that failed or has no valid test)."""
    return [(c, v, t) for c, v, t, _ in lookup_rows(tables, runner, model, method, which=which)]


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value == value


# --------------------------------------------------------------------------- intervals
#
# Every metric a (model, method) cell is read by (``lookup``'s "metrics" columns) gets
# a 95% interval and the number of problems it rests on. The statistic is the runner's
# own ``summarize``: the cell's score records are resampled by problem (a problem's
# samples travel together), relabelled so that a problem drawn twice counts twice, and
# summarised again — so an interval means what the number beside it means, whatever
# the runner averages (macro over problems, pooled counts, an MCC). Where the metric is
# a mean over problems (checked: the runner's number on several resamples equals the
# mean of its numbers on each problem alone) the resamples are averaged at once with
# numpy; where each problem contributes one yes/no (its number alone is 0 or the
# top of the scale), the interval is the exact Clopper–Pearson one.


@dataclass(frozen=True)
class StatsOptions:
    """How intervals are computed (``--resamples``, ``--bootstrap-seed``)."""

    resamples: int = stats.RESAMPLES
    seed: int = stats.SEED


STATS = StatsOptions()  # the process's default; the report commands set it from their options


def use_stats(options: StatsOptions) -> None:
    """Every interval this process computes from now on uses ``options`` (the report
    commands' --resamples and --bootstrap-seed; an analysis reads ``STATS`` too)."""
    global STATS
    STATS = options


LINEARITY_CHECKS = 5  # resamples summarised in full to check that a metric is a mean over problems


class CellStatistic:
    """A runner's metrics of one (model, method) cell as a function of which of its
    problems are drawn: ``cell(indices) -> {column: value}``."""

    def __init__(self, runner: Runner, name: str, model: str, method: str, records: list[ScoreRecord]):
        self.runner, self.name, self.model, self.method = runner, name, model, method
        self.by_problem: dict[str, list[ScoreRecord]] = {}
        for r in records:
            self.by_problem.setdefault(r.problem_id, []).append(r)
        self.problems = sorted(self.by_problem)

    def restricted(self, problems: list[str]) -> "CellStatistic":
        """The same cell over ``problems`` only (in that order): a paired comparison
        resamples two cells over the problems both were scored on."""
        return CellStatistic(self.runner, self.name, self.model, self.method,
                             [r for p in problems for r in self.by_problem.get(p, [])])

    def __call__(self, indices: Any) -> dict[str, float]:
        records = []
        for j, i in enumerate(indices):
            pid = self.problems[int(i)]
            # a problem drawn twice is two problems to the runner
            records += [r.model_copy(update={"problem_id": f"{pid}~{j}"}) for r in self.by_problem[pid]]
        if not records:
            return {}
        tables = self.runner.summarize(records)
        return {c: float(v) for c, v, _, _ in metric_rows(tables, self.name, self.model, self.method)
                if _is_number(v)}


@dataclass
class Replicates:
    """A cell's metrics on each bootstrap resample, and on each problem alone."""

    value: dict[str, float]
    singles: dict[str, list[float | None]]
    draws: Any  # numpy array (resamples, problems)
    reps: dict[str, Any]  # column -> numpy array (resamples,)
    mean_like: dict[str, bool]


def replicates(statistic: CellStatistic, options: StatsOptions | None = None, *, draws: Any = None) -> Replicates:
    """The cell's metrics on every resample of its problems (``draws``: given by a
    caller pairing two cells, else the seeded draws for its problem count)."""
    import numpy as np

    options = options or STATS
    n = len(statistic.problems)
    if draws is None:
        draws = stats.resample_indices(n, options.resamples, options.seed)
    value = statistic(range(n))
    per_problem = [statistic([i]) for i in range(n)]
    singles = {c: [p.get(c) for p in per_problem] for c in value}
    checks = [statistic(row) for row in draws[:LINEARITY_CHECKS]]
    mean_like = {}
    for c in value:
        full_mean = stats.mean_replicates(singles[c], np.arange(n)[None, :])[0]
        fast = stats.mean_replicates(singles[c], draws[:LINEARITY_CHECKS])
        got = np.array([ch.get(c, np.nan) for ch in checks], dtype=float)
        mean_like[c] = bool(np.allclose(full_mean, value[c], rtol=1e-9, atol=1e-9)
                            and np.allclose(fast, got, rtol=1e-9, atol=1e-9, equal_nan=True))
    reps: dict[str, Any] = {c: stats.mean_replicates(singles[c], draws) for c in value if mean_like[c]}
    slow = [c for c in value if not mean_like[c]]
    if slow:
        rest = checks + [statistic(row) for row in draws[len(checks):]]
        for c in slow:
            reps[c] = np.array([r.get(c, np.nan) for r in rest], dtype=float)
    return Replicates(value=value, singles=singles, draws=draws, reps=reps, mean_like=mean_like)


def scale_of(name: str) -> float | None:
    """The top of a runner's metric scale (100 for percentages) from runners.yaml."""
    scale = (runner_reading().get(name) or {}).get("scale")
    return float(scale) if isinstance(scale, (int, float)) else None


def interval(reps: Replicates, column: str, *, scale: float | None, samples: int = 1) -> stats.Interval:
    """The interval of one column: exact when every problem alone scores 0 or the top of
    the scale and the metric is their mean, else the bootstrap's percentile interval."""
    value = reps.value[column]
    defined = [v for v in reps.singles[column] if v is not None and v == v]
    n = len(defined)
    if reps.mean_like[column] and n and scale and all(v in (0.0, scale) for v in defined):
        k = sum(1 for v in defined if v == scale)
        low, high = stats.clopper_pearson(k, n)
        return stats.Interval(value, low * scale, high * scale, "exact", n, samples)
    if n < 2:
        return stats.Interval(value, None, None, "none", n, samples)
    lo, hi = stats.percentile(reps.reps[column])
    return stats.Interval(value, lo, hi, "bootstrap", n, samples)


def cell_intervals(runner: Runner, name: str, model: str, method: str, records: list[ScoreRecord], *,
                   samples: int = 1, options: StatsOptions | None = None) -> dict[str, stats.Interval]:
    """The interval of each metric column of one cell (see above)."""
    statistic = CellStatistic(runner, name, model, method, records)
    if not statistic.problems:
        return {}
    reps = replicates(statistic, options)
    return {c: interval(reps, c, scale=scale_of(name), samples=samples) for c in reps.value}


def add_intervals(tables: list[Table], runner: Runner | None, name: str, records: list[ScoreRecord],
                  cells: list, options: StatsOptions | None = None) -> None:
    """Put each cell's intervals beside its metrics in the runner's tables: a column
    ``<metric> 95% CI`` after each metric column, and ``n problems`` (``n samples``
    with more than one generation per task). Cells that failed or have no valid test
    get none: their cells already say so."""
    if runner is None:
        return
    by_cell: dict[tuple[str, str], list[ScoreRecord]] = {}
    for r in records:
        by_cell.setdefault((r.model, r.method), []).append(r)
    status = {(c.model, c.method): c for c in cells}
    for (model, method), recs in by_cell.items():
        cell_state = status.get((model, method))
        if cell_state is not None and cell_state.status in (FAILED, NO_VALID):
            continue
        found = metric_rows(tables, name, model, method)
        if not found:
            continue
        samples = getattr(cell_state, "samples", 1) if cell_state is not None else 1
        try:
            intervals = cell_intervals(runner, name, model, method, recs, samples=samples, options=options)
        except Exception as exc:  # a runner that cannot summarise a subset: say so, never guess
            found[0][2].notes.append(f"{model} {method}: no interval ({type(exc).__name__}: {exc})"[:300])
            continue
        for column, _, table, row in found:
            if column not in intervals:
                continue
            _insert_after(table, column, column + CI)
            row[column + CI] = intervals[column]
            if "model" in table.columns and "method" in table.columns:
                row[N_PROBLEMS] = intervals[column].problems
                if samples > 1:
                    row[N_SAMPLES] = samples
    for table in tables:
        if any(c.endswith(CI) for c in table.columns):
            for extra in (N_PROBLEMS, N_SAMPLES):
                if any(extra in row for row in table.rows) and extra not in table.columns:
                    at = next((i for i, c in enumerate(table.columns) if c in ADDED), len(table.columns))
                    table.columns.insert(at, extra)
            note = ("95% CI: percentile interval of a seeded bootstrap over problems (a problem's samples kept "
                    f"together; {(options or STATS).resamples} resamples, seed {(options or STATS).seed}), or the "
                    "exact Clopper–Pearson interval where each problem alone scores 0 or 100%; n problems: what it rests on")
            if note not in table.notes:
                table.notes.append(note)


def _insert_after(table: Table, column: str, new: str) -> None:
    if new in table.columns:
        return
    at = table.columns.index(column) + 1 if column in table.columns else len(table.columns)
    table.columns.insert(at, new)


# --------------------------------------------------------------------------- machine formats


def _json_default(value: Any) -> Any:
    as_json = getattr(value, "as_json", None)
    return as_json() if callable(as_json) else str(value)


def _machine_value(row: dict[str, Any], column: str) -> Any:
    """A cell for JSON and CSV: the number behind a marker, null for ``failed``."""
    raw = row.get(RAW) or {}
    value = raw[column] if column in raw else row.get(column)
    if row.get(STATUS) == FAILED and value == FAILED:
        return None
    if isinstance(value, float) and value != value:
        return None
    return value


def json_table(t: Table) -> dict[str, Any]:
    """One table as JSON: its data columns (the interval columns become each row's
    ``intervals``), rows of numbers with a ``status`` where a row is a cell, notes."""
    columns = [c for c in t.columns if not c.endswith(CI)]
    rows = []
    for row in t.rows:
        out = {c: _machine_value(row, c) for c in columns}
        if STATUS in row:
            out["status"] = row[STATUS]
        intervals = {c[: -len(CI)]: row[c].as_json() for c in t.columns
                     if c.endswith(CI) and isinstance(row.get(c), stats.Interval)}
        if intervals:
            out["intervals"] = intervals
        rows.append(out)
    return {"title": t.title, "columns": columns, "rows": rows, "notes": t.notes}


SCORE_PARTS = ("low", "high", "problems", "status")  # a matrix cell's columns in CSV beside its value


def _csv_kind(t: Table, column: str) -> str:
    """How a column is written to CSV: ``interval`` (two columns, low and high),
    ``score`` (a comparison's cell: its value, then low, high, problems, status) or
    ``plain``."""
    values = [row.get(column) for row in t.rows]
    if column.endswith(CI) or any(isinstance(v, stats.Interval) for v in values):
        return "interval"
    if any(isinstance(v, Score) for v in values):
        return "score"
    return "plain"


def csv_columns(t: Table) -> list[str]:
    out: list[str] = []
    for c in t.columns:
        kind = _csv_kind(t, c)
        out += [c + " low", c + " high"] if kind == "interval" else \
            [c, *(f"{c} {part}" for part in SCORE_PARTS)] if kind == "score" else [c]
    if any(STATUS in row for row in t.rows):
        out.append("status")
    return out


def csv_rows(t: Table) -> list[dict[str, Any]]:
    kinds = {c: _csv_kind(t, c) for c in t.columns}
    rows = []
    for row in t.rows:
        out: dict[str, Any] = {}
        for c in t.columns:
            value = row.get(c)
            if kinds[c] == "interval":
                out[c + " low"] = value.low if isinstance(value, stats.Interval) else None
                out[c + " high"] = value.high if isinstance(value, stats.Interval) else None
            elif kinds[c] == "score":
                parts = value.as_json() if isinstance(value, Score) else {}
                out[c] = parts.get("value", value if not isinstance(value, Score) else None)
                out.update({f"{c} {part}": parts.get(part) for part in SCORE_PARTS})
            else:
                out[c] = _machine_value(row, c)
        if STATUS in row:
            out["status"] = row[STATUS]
        rows.append(out)
    return rows


def csv_files(tables: list[Table], folder: Path) -> list[Path]:
    """One CSV file per table in ``folder`` (``01-<title>.csv`` ...), as ``render``'s
    CSV writes each table; returns the paths."""
    import re

    from tczoo.paths import write_atomic

    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i, t in enumerate(tables, 1):
        slug = re.sub(r"[^A-Za-z0-9]+", "-", t.title).strip("-").lower()[:60] or "table"
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=csv_columns(t), extrasaction="ignore", lineterminator="\n")
        writer.writeheader()
        for row in csv_rows(t):
            writer.writerow(row)
        path = folder / f"{i:02d}-{slug}.csv"
        write_atomic(path, out.getvalue().encode("utf-8", "backslashreplace").decode("utf-8"))
        paths.append(path)
    return paths


# --------------------------------------------------------------------------- a comparison's cell


@dataclass(frozen=True)
class Score:
    """A comparison matrix's cell: a (model, method)'s headline number with its
    interval and what happened to its generations — text in a table
    (``66.82 [55.10, 78.30] n=12 (1/13 failed)``, ``failed``, ``0.00 (no valid tests)``),
    numbers and a status in JSON."""

    value: float | None
    status: str  # ok, partial, failed, no valid tests, not run, not scored
    interval: stats.Interval | None = None
    metric: str = ""
    units: int = 0
    failed: int = 0
    decimals: int = 1

    def text(self, decimals: int | None = None) -> str:
        places = self.decimals if decimals is None else decimals
        if self.value is None:
            return self.status
        shown = f"{self.value:.{places}f}"
        if self.status == NO_VALID:
            return f"{shown} ({NO_VALID})"
        if self.interval is not None and self.interval.low is not None:
            shown += f" {self.interval.text(places)} n={self.interval.problems}"
        if self.failed:
            shown += f" ({self.failed}/{self.units} failed)"
        return shown

    def __str__(self) -> str:
        return self.text()

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"metric": self.metric, "value": self.value, "status": self.status,
                               "units": self.units, "failed": self.failed}
        if self.interval is not None:
            out.update({"low": self.interval.low, "high": self.interval.high, "level": self.interval.level,
                        "interval": self.interval.method, "problems": self.interval.problems,
                        "samples": self.interval.samples})
        return out


def score_of(found: tuple[str, Any, Table, dict] | None, state: Any, decimals: int = 1) -> Score:
    """The ``Score`` of a cell from its ``lookup_rows`` entry and its ``Cell`` (None:
    not run)."""
    if state is None:
        return Score(None, "not run")
    bad = state.failed + state.score_errors
    if found is None:
        return Score(None, FAILED if state.status == FAILED else "not scored", units=state.attempted, failed=bad)
    column, value, _, row = found
    if value == FAILED:
        return Score(None, FAILED, metric=column, units=state.attempted, failed=bad)
    if is_marked(value):
        raw = (row.get(RAW) or {}).get(column)
        return Score(raw if _is_number(raw) else None, NO_VALID, metric=column, units=state.attempted, failed=bad,
                     decimals=decimals)
    interval = row.get(column + CI)
    return Score(float(value) if _is_number(value) else None, "partial" if bad else "ok",
                 interval if isinstance(interval, stats.Interval) else None, column, state.attempted, bad, decimals)



# --------------------------------------------------------------------------- paired comparisons
#
# Two cells scored on the same problems (two methods on one model, two models on one
# method, two runs) are compared problem by problem: both are resampled on the same
# draws of the problems both were scored on, and B − A gets its percentile interval and
# a two-sided bootstrap p-value (tczoo.stats.paired_difference); Holm's adjustment runs
# over every difference one table prints.


@dataclass
class Arm:
    """One side of a comparison: a (run, model, method) cell's scored records."""

    run: Path
    model: str
    method: str
    runner: str
    records: list[ScoreRecord]
    samples: int = 1
    label: str = ""


def arms_of(stores: list) -> list[Arm]:
    """Every (run, model, method) cell of ``stores`` that has scored records, labelled
    ``method (model)`` (with the run's folder where two would read the same)."""
    arms: list[Arm] = []
    for store in stores:
        by: dict[tuple[str, str, str], list[ScoreRecord]] = {}
        for s in scored_records(store):
            by.setdefault((s.model, s.method, s.runner), []).append(s)
        for (model, method, runner), records in by.items():
            arms.append(Arm(Path(store.root), model, method, runner, records, store.config.samples))
    labels = model_labels([a.model for a in arms])
    for arm, model in zip(arms, labels):
        arm.label = f"{arm.method} ({model})"
    seen = Counter(a.label for a in arms)
    for arm in arms:
        if seen[arm.label] > 1:
            arm.label = f"{arm.label} [{arm.run}]"
    return arms


def _matches(arm: Arm, against: str) -> str | None:
    """How ``against`` names this arm: ``run``, ``method`` or ``model`` (None: it does not)."""
    try:
        if Path(against).resolve() == arm.run.resolve():
            return "run"
    except OSError:
        pass
    if norm(against) == norm(arm.method):
        return "method"
    if against in (arm.model, model_label(arm.model)):
        return "model"
    return None


def pairs_against(arms: list[Arm], against: str) -> list[tuple[Arm, Arm]]:
    """(A, B) pairs: A an arm ``against`` names (a run directory, a method, a model), B
    every other arm scored by the same runner on the same model (against a method), the
    same method (against a model), or, against a run, the same method else the same
    model else any."""
    from tczoo.errors import UserError

    base = [(a, _matches(a, against)) for a in arms]
    base = [(a, how) for a, how in base if how is not None]
    if not base:
        names = sorted({a.method for a in arms} | {model_label(a.model) for a in arms} | {str(a.run) for a in arms})
        raise UserError(f"--against {against!r} names no run, method or model of these runs "
                        f"(they have: {', '.join(names)})")
    baseline = [a for a, _ in base]
    pairs = []
    for b in arms:
        if b in baseline:
            continue
        fits = []
        for a, how in base:
            if a.runner != b.runner:
                continue
            if how == "method" and a.model == b.model:
                fits.append(a)
            elif how == "model" and norm(a.method) == norm(b.method):
                fits.append(a)
            elif how == "run":
                fits.append(a)
        if len(fits) > 1:  # against a run: the same method, else the same model
            fits = [a for a in fits if norm(a.method) == norm(b.method)] or \
                   [a for a in fits if a.model == b.model] or fits
        pairs += [(a, b) for a in fits]
    return pairs


PAIRED_COLUMNS = ["runner", "metric", "A", "B", "A value", "B value", "B − A", "95% CI", "p", "p (Holm)",
                  "problems", "problems needed"]


def paired_table(stores: list, against: str, options: StatsOptions | None = None) -> Table:
    """B − A for every metric of every pair ``pairs_against`` finds, over the problems
    both were scored on, with its paired interval, p-value, Holm-adjusted p-value and,
    where the interval holds 0, how many problems would tell them apart; one reading
    per row in the notes ("lcb (gpt-4o) above crux (gpt-4o) by 19.1 HR, 95% CI [4.2,
    33.0], 12 problems")."""
    from tczoo.registry import get_runner

    options = options or STATS
    arms = arms_of(stores)
    rows: list[dict[str, Any]] = []
    diffs: list[stats.Difference] = []
    notes: list[str] = []
    for a, b in pairs_against(arms, against):
        runner = get_runner(a.runner)()
        left = CellStatistic(runner, a.runner, a.model, a.method, a.records)
        right = CellStatistic(runner, b.runner, b.model, b.method, b.records)
        common = sorted(set(left.problems) & set(right.problems))
        if len(common) < len(set(left.problems) | set(right.problems)):
            notes.append(f"{b.label} vs {a.label}: compared on the {len(common)} problem(s) both were scored on "
                         f"(of {len(left.problems)} and {len(right.problems)})")
        if not common:
            continue
        left, right = left.restricted(common), right.restricted(common)
        draws = stats.resample_indices(len(common), options.resamples, options.seed)
        ra, rb = replicates(left, options, draws=draws), replicates(right, options, draws=draws)
        for column in [c for c in ra.value if c in rb.value]:
            if len(common) < 2:
                d = stats.Difference(ra.value[column], rb.value[column], rb.value[column] - ra.value[column],
                                     None, None, None, len(common), max(a.samples, b.samples))
            else:
                d = stats.paired_difference(ra.value[column], rb.value[column], ra.reps[column], rb.reps[column],
                                            problems=len(common), samples=max(a.samples, b.samples))
            diffs.append(d)
            rows.append({"runner": a.runner, "metric": column, "A": a.label, "B": b.label,
                         "A value": d.a_value, "B value": d.b_value, "B − A": d.diff,
                         "95% CI": stats.Interval(d.diff, d.low, d.high, "bootstrap" if d.low is not None else "none",
                                                  d.problems, d.samples),
                         "p": d.p, "problems": d.problems, "problems needed": d.needed})
    adjusted = stats.holm([d.p for d in diffs])
    for row, d, p_adj in zip(rows, diffs, adjusted):
        row["p (Holm)"] = p_adj
        notes.append(reading(row["A"], row["B"], row["metric"], d, p_adj if len(diffs) > 1 else None))
    method_note = (f"paired over the problems both were scored on (a problem's samples kept together): "
                   f"{options.resamples} bootstrap resamples, seed {options.seed}, the same draws for A and B; "
                   "95% CI: percentile interval of B − A; p: two-sided, the bootstrap distribution shifted to "
                   "the null, (1 + #{|d* − d| >= |d|}) / (R + 1); p (Holm): Holm's step-down adjustment over "
                   "every row of this table; problems needed: where the interval holds 0, the problems at which "
                   "an interval of this width would exclude it if the difference stayed as measured (its "
                   "half-width shrinks as 1/sqrt(n))")
    if not rows and not notes:
        notes.append(f"nothing to compare against {against}: no other cell of the same runner")
    table = Table(title=f"paired differences against {against}", columns=PAIRED_COLUMNS, rows=rows,
                  notes=[method_note, *notes], decimals=2)
    table.precision = {"p": 4, "p (Holm)": 4}  # type: ignore[attr-defined]
    return table


def reading(a: str, b: str, metric: str, d: stats.Difference, p_adjusted: float | None = None) -> str:
    """One line that says what a difference means."""
    n = f"{d.problems} problem{'s' if d.problems != 1 else ''}"
    if d.low is None or d.high is None:
        return f"{b} vs {a} on {metric}: B − A = {d.diff:.1f} on {n}, too few problems for an interval"
    ci = f"95% CI [{d.low:.1f}, {d.high:.1f}]"
    p = f"p = {d.p:.3g}" + (f", Holm {p_adjusted:.3g}" if p_adjusted is not None else "")
    if d.separated:
        side = "above" if d.diff > 0 else "below"
        text = f"{b} {side} {a} by {abs(d.diff):.1f} {metric}, {ci}, {n} ({p})"
        if p_adjusted is not None and p_adjusted >= 0.05:
            text += "; not at the 5% level once Holm's adjustment counts every comparison here"
        return text
    text = f"{b} and {a} cannot be told apart on {metric} with {n}: B − A = {d.diff:.1f}, {ci} ({p})"
    if d.needed is not None:
        text += f"; about {d.needed} problems would, if the difference stayed {d.diff:.1f}"
    elif d.diff == 0:
        text += "; they measured the same"
    return text



# --------------------------------------------------------------------------- repeats


def spread_table(runner: Runner, name: str, records: list[ScoreRecord], repeats: int) -> Table:
    """How much each cell's metrics move between repeats of the whole run (--repeats;
    TRAILS's stability over runs, for every runner): each repeat's records summarised
    alone by the runner, then per metric its value in each repeat, their mean, sample
    standard deviation, minimum and maximum."""
    import numpy as np

    by_cell: dict[tuple[str, str], dict[int, list[ScoreRecord]]] = {}
    for r in records:
        by_cell.setdefault((r.model, r.method), {}).setdefault(repeat_of(r.task), []).append(r)
    rows = []
    for (model, method), parts in by_cell.items():
        values: dict[str, dict[int, float]] = {}
        for k in range(repeats):
            if not parts.get(k):
                continue
            for column, value, _, _ in metric_rows(runner.summarize(parts[k]), name, model, method):
                if _is_number(value):
                    values.setdefault(column, {})[k] = float(value)
        for column, got in values.items():
            v = np.array(list(got.values()), dtype=float)
            row: dict[str, Any] = {"model": model, "method": runner.label(method), "metric": column,
                                   **{f"repeat {k}": got.get(k) for k in range(repeats)},
                                   "repeats": len(v), "mean": float(v.mean()),
                                   "SD": float(v.std(ddof=1)) if len(v) > 1 else None,
                                   "min": float(v.min()), "max": float(v.max())}
            rows.append(row)
    columns = ["model", "method", "metric", *[f"repeat {k}" for k in range(repeats)], "repeats", "mean", "SD",
               "min", "max"]
    notes = [f"each of the {repeats} repeats (every unit generated again with its own sample indices and seeds) "
             "summarised alone by the runner; SD: the sample standard deviation over the repeats that have the "
             "metric (a repeat whose generations all failed has none); the spread says how much the number moves "
             "when the same experiment is run again, the 95% CI how much it rests on the problems drawn"]
    return Table(title=f"{name}: spread over repeats", columns=columns, rows=rows, notes=notes, decimals=2)


# --------------------------------------------------------------------------- the forest plot


def forest_panels(tables: list[Table]) -> list[tuple[str, list[tuple[str, float, float, float, int]]]]:
    """(panel title, [(row label, value, low, high, problems)]) for every metric with
    intervals in ``tables``: one panel per (table, metric), one row per model × method."""
    panels: list[tuple[str, list[tuple[str, float, float, float, int]]]] = []
    for t in tables:
        for column in [c for c in t.columns if c.endswith(CI)]:
            metric = column[: -len(CI)]
            points = []
            rows = [r for r in t.rows if isinstance(r.get(column), stats.Interval) and r[column].low is not None]
            models = model_labels([str(r.get("model", "")) for r in rows])
            for row, model in zip(rows, models):
                iv = row[column]
                who = [str(row.get(k)) for k in ("method", "selector", "language", "dataset") if row.get(k)]
                label = " ".join(who) + (f" ({model})" if model else "")
                points.append((label, iv.value, iv.low, iv.high, iv.problems))
            if points:
                title = t.title.split(" (")[0]
                panels.append((f"{metric} — {title}", points))
    return panels


def plot_forest(tables: list[Table], path: Path) -> bool:
    """A forest plot of every metric's interval (rows model × method, a point and its 95%
    interval, the problems it rests on at the right), as PNG or SVG by ``path``'s
    suffix; False when no table has an interval. The same tables draw the same bytes."""
    panels = forest_panels(tables)
    if not panels:
        return False
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    heights = [max(1.2, 0.38 * len(points) + 0.9) for _, points in panels]
    with matplotlib.rc_context({"svg.hashsalt": "tczoo", "svg.fonttype": "none"}):
        fig, axes = plt.subplots(len(panels), 1, figsize=(8, sum(heights)), squeeze=False,
                                 gridspec_kw={"height_ratios": heights})
        for ax, (title, points) in zip(axes[:, 0], panels):
            ys = list(range(len(points)))[::-1]
            for y, (_, value, low, high, _) in zip(ys, points):
                ax.errorbar([value], [y], xerr=[[value - low], [high - value]], fmt="o", color="tab:blue",
                            ecolor="tab:blue", capsize=3, markersize=5)
            ax.set_yticks(ys)
            ax.set_yticklabels([p[0].replace("$", r"\$") for p in points], fontsize=8)
            ax.set_ylim(-0.7, len(points) - 0.3)
            right = ax.twinx()
            right.set_ylim(ax.get_ylim())
            right.set_yticks(ys)
            right.set_yticklabels([f"n={p[4]}" for p in points], fontsize=7, color="0.4")
            lows = [p[2] for p in points]
            highs = [p[3] for p in points]
            if min(lows) >= 0 and max(highs) <= 100 and max(highs) > 1:
                ax.set_xlim(-2, 102)
            ax.set_title(title.replace("$", r"\$"), fontsize=9, loc="left")
            ax.grid(axis="x", alpha=0.3)
        axes[-1, 0].set_xlabel("value with its 95% interval")
        fig.tight_layout()
        suffix = Path(path).suffix.lower()
        metadata = {"Date": None} if suffix == ".svg" else {"Software": None}
        fig.savefig(path, dpi=130, metadata=metadata)
        plt.close(fig)
    return True


# --------------------------------------------------------------------------- per problem, long format

LONG_COLUMNS = ["runner", "model", "method", "problem", "sample", "repeat", "metric", "value", "status"]


def per_problem_table(stores: list) -> Table:
    """Every unit's numbers in long format, one row per (unit, metric): runner, model,
    method, problem, sample (the unit's task key: "" for the one sample of a task,
    ``s1``, ``s2`` ... for ``--samples``, a program under test and a response for a
    runner that has them), repeat, metric, value, status. A unit whose generation failed
    or could not be scored is one row with no metric and its status (``failed:
    llm/timeout``), so that nothing is missing silently; ``n_valid`` is a metric row."""
    from tczoo.registry import UnknownNameError, get_runner

    rows: list[dict[str, Any]] = []
    for store in stores:
        config = store.config
        scores = {(s.method, s.problem_id, s.task): s for s in store.scores()}
        for g in store.generations():
            runner = _runner_of(config, g.method)
            try:
                empty = bool(get_runner(runner).scores_empty_suites) if runner else False
            except UnknownNameError:
                empty = False
            base = {"model": g.model, "method": g.method, "problem": g.problem_id, "sample": g.task,
                    "repeat": repeat_of(g.task)}
            failure = generation_failure(g, scores_empty=empty)
            s = scores.get((g.method, g.problem_id, g.task))
            if failure is not None:
                rows.append({**base, "runner": runner, "metric": None, "value": None,
                             "status": f"failed: {failure.stage}/{failure.reason}"})
            elif s is None:
                rows.append({**base, "runner": runner, "metric": None, "value": None, "status": "not scored yet"})
            elif s.error is not None:
                rows.append({**base, "runner": s.runner, "metric": None, "value": None,
                             "status": "sandbox error" if s.infrastructure else "scoring crashed"})
            else:
                numbers = dict(s.metrics)
                if s.n_valid is not None:
                    numbers["n_valid"] = float(s.n_valid)
                for metric in sorted(numbers):
                    rows.append({**base, "runner": s.runner, "metric": metric, "value": numbers[metric],
                                 "status": "ok"})
    return Table(title="per problem (long format)", columns=LONG_COLUMNS, rows=rows, decimals=4,
                 notes=["one row per unit and metric, as the runners recorded them (their own names; the tables "
                        "above aggregate these); a unit that failed is one row with its status and no metric"])



# --------------------------------------------------------------------------- dollars

NOT_PRICED = "not priced"  # the one way every report says no price is known
UNPRICED = ("local/", "scripted:", "replay:", "released:")  # models no provider bills


def cost_shown(model: str, cost_usd: float, tokens: int = 0) -> float | str:
    """Dollars as LiteLLM priced the answers (rounded to 6 places), or ``not priced``:
    for a model no provider bills (the embedded model, scripted, replayed, released
    answers) and for a provider model whose answered tokens LiteLLM's table priced at 0
    (a self-hosted server, a model it does not know). 0.0 only where nothing was asked."""
    if cost_usd > 0:
        return round(cost_usd, 6)
    if str(model).startswith(UNPRICED) or tokens > 0:
        return NOT_PRICED
    return 0.0
