"""``tczoo reproduce TARGET``: run a paper's experiment with one model and lay its
table out as the paper does, the paper's own numbers beside ours.

A target (``targets.yaml``) is run as a grid of one model × the target's methods
(``tczoo.experiments.grid``: resumable, cached, one run directory per method), then
read back from the recorded runs only — ``build`` executes nothing but what an analysis
asks for (``tczoo.analyses``: TC-Bench's Figure 4a rescoring on the WrongSelect basis,
4c and 6 on other validators, 7 and 8 over the built benchmark) — so a recorded run
regenerates its table byte for byte. ``write`` puts ``results/<paper>/<target>.md`` and ``.csv`` (and
``.png`` for a figure) in place; the markdown starts with every setting in which this
run differs from the paper's.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from tczoo.experiments.grid import GridSession, GridSpec, cells, read_spec, run_grid
from tczoo.experiments.layout import OURS, comparison_table, our_rows, paper_rows, side_by_side
from tczoo.experiments.targets import Target, TargetError, papers
from tczoo.paths import write_atomic
from tczoo.report import ADDED, CI, N_PROBLEMS, render, stores_tables
from tczoo.stats import Interval
from tczoo.distributed import Cluster
from tczoo.run import RunOptions, RunProgress
from tczoo.sandbox import Sandbox
from tczoo.runner import Table

DEFAULT_ROOT = Path("runs/reproduce")
TARGET_KEYS = ("analysis", "build")


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


def plan(target: Target, model: str, *, benchmark: str | None = None, problems: list[str] | None = None,
         samples: int | None = None, params: dict[str, Any] | None = None,
         options: RunOptions | None = None) -> GridSpec:
    """The grid that reproduces ``target`` with ``model``."""
    options = options or RunOptions()
    benchmark = benchmark or target.benchmark
    params = dict(params or {})
    # "analysis" and "build" in --params reach the target's analysis, not a method or runner
    own = {k: params.pop(k) for k in TARGET_KEYS if k in params}
    for key, value in own.items():
        if not isinstance(value, dict):
            raise TargetError(f"--params: the value for {key!r} must be an object of options")
    if own and target.analysis is None:
        raise TargetError(f"--params names {', '.join(own)}, but target {target.name} runs no analysis")
    if target.run is None:  # an analysis of the benchmark itself: nothing to run
        if params:
            raise TargetError(f"target {target.name} runs no method: --params takes only {', '.join(TARGET_KEYS)}")
        return GridSpec(methods=[], models=[], benchmark=benchmark, problems=problems, llm=options.recorded(),
                        target=own)
    methods = target.run.methods + installed(target.run.optional_methods)
    return GridSpec(methods=methods, models=[model], benchmark=benchmark, problems=problems,
                    samples=samples or target.run.samples, runner=target.run.runner,
                    params=merge_params(target.run.params, params), llm=options.recorded(), target=own)


def default_out(target: Target, spec: GridSpec, root: Path = DEFAULT_ROOT) -> Path:
    """``runs/reproduce/<run name>-<settings hash>``: targets that run the same
    experiment (same run name, benchmark, problems, samples, params, sampling) share it;
    another model or method is another cell of it."""
    settings = spec.model_dump(exclude={"methods", "models", "cross", "target"})
    if settings.get("limit") is None:
        settings.pop("limit", None)  # as before --limit existed: the same folders are found again
    if settings.get("repeats") == 1:
        settings.pop("repeats")
    digest = hashlib.sha256(json.dumps(settings, sort_keys=True, default=str).encode()).hexdigest()[:8]
    return root / f"{target.run_name or target.name}-{digest}"


async def execute(target: Target, spec: GridSpec, out: Path, options: RunOptions | None = None, *,
                  progress: Callable[[RunProgress], None] | None = None) -> GridSession:
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
            from tczoo.store import RunStore

            model = RunStore(folder).config.model
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


def settings_table(target: Target, spec: GridSpec, stores: list, construction: str | None = None) -> Table:
    """Every setting in which this run differs from the paper's, side by side;
    ``construction``: what a benchmark analysis kept of the loaded problems."""
    from tczoo.llm import LLMSettings

    ids, total = _problem_ids(stores)
    subset = spec.problems is not None
    if construction is not None:
        here_bench = f"{spec.benchmark}" + (" (--problems)" if subset else "") + f": {construction}"
    else:
        here_bench = (f"{spec.benchmark}: " + (f"{len(ids)} problem(s) chosen with --problems" if subset else
                                              f"all {total or len(ids)} problem(s)")
                      + (f" ({', '.join(ids)})" if ids and len(ids) <= 12 else ""))
    defaults = LLMSettings()
    sampling = []
    if spec.llm.get("temperature") not in (None, defaults.temperature):
        sampling.append(f"temperature {spec.llm['temperature']} where a method's paper fixes none")
    if spec.llm.get("max_tokens") not in (None, defaults.max_tokens):
        sampling.append(f"at most {spec.llm['max_tokens']} tokens per answer where a method's paper sets no limit")
    run_params = target.run.params if target.run is not None else {}
    overrides = {k: v for k, v in spec.params.items() if run_params.get(k) != v}
    here = {
        "model": model_label(spec.models[0]) if spec.models else "none: the analysis reads the benchmark itself",
        "benchmark": here_bench,
        "samples": f"{spec.samples} generation(s) per task"
                   + (" (a runner's own count where it sets one, e.g. 8 bug-finding responses)" if spec.samples == 1
                      else ""),
        "sampling": "; ".join(sampling) or "each method's paper settings (tczoo's defaults elsewhere)",
        "budget": "as the paper (the runner's defaults)" if not any(k.startswith("runner:") for k in overrides)
                  else "changed by --params (below)",
        "timing": "tczoo's sandbox on this machine: CPU time, median of repeated runs, no core pinning",
        "prompts": "ours: tczoo's templates (prompts/<method>/), written from the papers' descriptions — "
                   "paraphrases, not the printed or published prompt text",
    }
    as_run = sampling_as_run(spec, stores)
    if as_run:
        here["sampling"] = as_run
    scored = any(s.error is None for store in stores for s in store.scores())
    unknown = ("not recorded by this run" if scored or not stores else
               "not recorded: nothing was scored (every generation failed, see the failures below)")
    rows = [{"setting": key, "here": here.get(key) or param_as_run(key, spec, stores) or artifacts_as_run(key, stores)
             or unknown, "paper": value}
            for key, value in target.paper_setting.items()]
    if as_run and "sampling" not in target.paper_setting:
        rows.append({"setting": "sampling", "here": as_run, "paper": "not set by the paper's table"})
    for key, value in settings_used(stores):  # what the runners say the records used: fills or adds a row
        row = next((r for r in rows if r["setting"] == key), None)
        if row is None:
            rows.append({"setting": key, "here": value, "paper": "—"})
        else:
            row["here"] = value
    missing = [m for m in target.run.optional_methods if m not in spec.methods] if target.run else []
    if missing:
        rows.append({"setting": "methods", "here": f"{', '.join(missing)} not installed: no row",
                     "paper": ", ".join(target.run.methods + target.run.optional_methods)})
    if spec.target:
        rows.append({"setting": "analysis options", "here": json.dumps(spec.target, sort_keys=True),
                     "paper": "the target's defaults"})
    if overrides:
        rows.append({"setting": "--params", "here": json.dumps(overrides, sort_keys=True),
                     "paper": "; ".join(defaults_of(k, v, run_params.get(k)) for k, v in sorted(overrides.items()))})
    return Table(title="settings: here and in the paper", columns=["setting", "here", "paper"], rows=rows)


def defaults_of(owner: str, changed: Any, target_value: Any) -> str:
    """What ``--params`` changed, as the defaults it replaced: the target's own value, else
    each field's default with where it comes from as its description says — the paper's
    (or its authors' code's) value, or ours. "paper default" is never claimed for a value
    the paper did not set."""
    if target_value is not None:
        return f"{owner}: the target's {json.dumps(target_value, sort_keys=True)}"
    from tczoo.registry import UnknownNameError, get_method, get_runner

    try:
        cls = get_runner(owner.split(":", 1)[1]) if owner.startswith("runner:") else get_method(owner)
    except (UnknownNameError, IndexError):
        return f"{owner}: its defaults"
    fields = cls.Params.model_fields
    parts = []
    for name in sorted(changed) if isinstance(changed, dict) else []:
        field = fields.get(name)
        if field is None:
            continue
        parts.append(f"{name} {json.dumps(field.default, default=str)} ({_source(field.description or '')})")
    return f"{owner}: " + (", ".join(parts) or "its defaults")


def _source(description: str) -> str:
    """Where a parameter's default comes from, as its description says it: whichever it
    names first, the paper (its authors, their library) or ours; else tczoo's default."""
    import re

    text = description.lower()
    marks = {"ours": r"\bours\b", "the paper's or its authors'": r"\bpaper|\bauthors|\blibrary|\bappendix|\btable \d|§"}
    found = sorted((m.start(), k) for k, pattern in marks.items() if (m := re.search(pattern, text)))
    return found[0][1] if found else "tczoo's default"


def artifacts_as_run(key: str, stores: list) -> str | None:
    """A ``generators`` row from the suites themselves: per method, the generator
    programs its suites hold (language, how many suites have one, the commands that ran
    them)."""
    if key != "generators":
        return None
    per: dict[str, dict[str, Any]] = {}
    for store in stores:
        for g in store.generations():
            row = per.setdefault(g.method, {"suites": 0, "with": 0, "languages": Counter(), "commands": []})
            row["suites"] += 1
            gens = [a for a in g.suite.artifacts if a.role == "generator" and a.program is not None]
            if gens:
                row["with"] += 1
            for a in gens:
                row["languages"][a.program.language.value] += 1
                commands = (a.program.meta or {}).get("commands")
                if isinstance(commands, list):
                    row["commands"].append(len(commands))
    parts = []
    for method, row in sorted(per.items()):
        if not row["with"]:
            parts.append(f"{method}: no generator program in its {row['suites']} suite(s)")
            continue
        langs = ", ".join(sorted(row["languages"]))
        text = f"{method}: {langs} generator program(s) in {row['with']} of {row['suites']} suite(s)"
        if row["commands"]:
            text += f", run by {sum(row['commands']) / len(row['commands']):.0f} command line(s) each on average"
        parts.append(text)
    return "; ".join(parts) or None


LOCAL_CONTEXT = 8192  # the embedded model's context window by default (tczoo.llm.local.engine)
SAMPLING_SHOWN = (("temperature", "temperature {}"), ("top_p", "top-p {}"), ("presence_penalty", "presence penalty {}"),
                  ("max_tokens", "at most {} tokens"))


def sampling_as_run(spec: GridSpec, stores: list) -> str:
    """Each method's sampling as its calls asked for it (the recorded exchanges' params,
    which a replay asks for alike): the temperature, top-p, presence penalty and the
    token cap, with where a cap came from (``--params``, the method's own default — its
    paper's —, or ``--max-tokens``). Methods that sampled alike share a line."""
    from tczoo.llm import LLMSettings

    by_method: dict[str, dict[str, set]] = {}
    own_cap: dict[str, Any] = {}
    for store in stores:
        for ex in store.exchanges():
            method = store.config.methods[0] if len(store.config.methods) == 1 else ", ".join(store.config.methods)
            params = ex.get("params") or {}
            seen = by_method.setdefault(method, {k: set() for k, _ in SAMPLING_SHOWN})
            for key, _ in SAMPLING_SHOWN:
                seen[key].add(params.get(key))
        for g in store.generations():
            own_cap.setdefault(g.method, g.suite.provenance.params.get("max_tokens"))
    if not by_method:
        return ""
    default_cap = LLMSettings().max_tokens

    def describe(method: str) -> str:
        parts = []
        for key, label in SAMPLING_SHOWN:
            values = sorted(by_method[method][key], key=lambda v: (v is None, str(v)))
            shown = [label.format(v) for v in values if v is not None]
            if key == "max_tokens" and shown:
                if (spec.params.get(method) or {}).get("max_tokens") is not None:
                    shown[-1] += " (--params)"
                elif own_cap.get(method) is not None:
                    shown[-1] += " (the method's default)"
                elif spec.llm.get("max_tokens") not in (None, default_cap):
                    shown[-1] += " (--max-tokens)"
            if shown:
                parts.append(" and ".join(shown))
        return ", ".join(parts) or "the provider's defaults"

    groups: dict[str, list[str]] = {}
    for method in sorted(by_method):
        groups.setdefault(describe(method), []).append(method)
    text = "as run: " + "; ".join(f"{', '.join(ms)}: {text}" for text, ms in groups.items())
    caps = [v for m in by_method.values() for v in m["max_tokens"] if isinstance(v, int)]
    if spec.models and model_label(spec.models[0]).startswith("local/") and caps and max(caps) >= LOCAL_CONTEXT:
        text += (f" — the embedded model cuts an answer at its context window (TCZOO_LOCAL_CTX, {LOCAL_CONTEXT} "
                 "tokens by default, prompt included)")
    return text


def param_as_run(key: str, spec: GridSpec, stores: list) -> str | None:
    """The value a ``paper_setting`` row named ``<method> <param>`` (or ``runner:<name>
    <param>``) had in this run: the method's resolved parameters as its generations
    recorded them, or the runner's parameters as ``--params`` and its defaults make them."""
    owner, _, param = key.partition(" ")
    if not param or " " in param:
        return None
    if owner.startswith("runner:"):
        from tczoo.registry import UnknownNameError, get_runner

        try:
            runner = get_runner(owner.split(":", 1)[1])
        except UnknownNameError:
            return None
        values = runner.Params(**(spec.params.get(owner) or {})).model_dump()
        return json.dumps(values[param]) if param in values else None
    if owner not in spec.methods:
        return None
    seen = sorted({json.dumps(g.suite.provenance.params[param], sort_keys=True) for store in stores
                   for g in store.generations() if g.method == owner and param in g.suite.provenance.params})
    return " / ".join(seen) if seen else None


def settings_used(stores: list) -> list[tuple[str, str]]:
    """What each runner says its records used where the paper fixes a protocol
    (``Runner.settings_used``: reruns per code, responses per triplet, scenarios chosen
    per problem ...)."""
    from tczoo.registry import UnknownNameError, get_runner

    by_runner: dict[str, list] = {}
    for store in stores:
        for s in store.scores():
            if s.error is None:
                by_runner.setdefault(s.runner, []).append(s)
    rows: list[tuple[str, str]] = []
    for name in sorted(by_runner):
        try:
            runner = get_runner(name)(None)
        except UnknownNameError:
            continue
        rows += runner.settings_used(by_runner[name])
    return rows


Phase = Callable[[str, str, int, int], None]  # (what is being done, unit, done, total)


def run_analysis(target: Target, spec: GridSpec, out: Path, sandbox: Sandbox, *,
                 progress: Phase | None = None) -> list[Table]:
    """The target's analysis: over each of its run directories (their tables merged:
    one row per model × method), or over the benchmark built from its benchmark.
    ``progress`` hears each phase's counts (runs analysed, problems built)."""
    from tczoo.registry import get_analysis

    say = progress or (lambda *a: None)
    analysis = target.analysis
    fn = get_analysis(analysis.name)
    options = {**analysis.options, **(spec.target.get("analysis") or {})}
    if analysis.over == "benchmark":
        built = built_benchmark(target, spec, out, sandbox, progress=progress)
        say(f"{target.name}: {analysis.name} over the built benchmark", "", 0, 0)
        return fn(f"tcbench:{built}", sandbox, **options)
    from tczoo.report import merge_tables

    dirs = [c.dir for c in cells(spec, Path(out)) if (c.dir / "config.json").is_file()]
    parts = []
    for i, d in enumerate(dirs):
        say(f"{target.name}: {analysis.name}", "runs", i, len(dirs))
        parts.append(fn(d, sandbox, **options))
    say(f"{target.name}: {analysis.name}", "runs", len(dirs), len(dirs))
    return merge_tables(parts)


def _built_path(target: Target, spec: GridSpec, out: Path) -> tuple[dict[str, Any], Path]:
    """(construction options, where the benchmark built with them lies in ``out``)."""
    from tczoo.schema import Language

    options = {**target.analysis.build, **(spec.target.get("build") or {})}
    languages = options.get("languages")
    if isinstance(languages, str):
        languages = [languages]
    if languages is not None:  # "all": every language (the paper keeps C/C++)
        options["languages"] = None if "all" in languages else tuple(Language.parse(x) for x in languages)
    digest = hashlib.sha256(json.dumps(options, sort_keys=True, default=str).encode()).hexdigest()[:8]
    return options, Path(out) / f"built-{digest}.jsonl"


def built_benchmark(target: Target, spec: GridSpec, out: Path, sandbox: Sandbox, *,
                    progress: Phase | None = None) -> Path:
    """The benchmark's problems through TC-Bench's construction (judge, filter,
    WrongSelect; ``analysis.build`` options), written once into ``out`` with the
    construction's report (one row per loaded problem: kept, or why not) beside it."""
    from tczoo.benchmarks import load_benchmark
    from tczoo.benchmarks.construct import build_benchmark

    say = progress or (lambda *a: None)
    options, path = _built_path(target, spec, out)
    if not path.is_file() or not _construction_report(path).is_file():
        loading = f"loading benchmark {spec.benchmark}"
        problems = load_benchmark(spec.benchmark, spec.problems, limit=spec.limit, sandbox=sandbox,
                                  progress=lambda done, total: say(loading, "problems", done, total))
        built = [0]

        def one(_: str) -> None:
            built[0] += 1
            say(f"{target.name}: building the benchmark", "problems", built[0], len(problems))

        say(f"{target.name}: building the benchmark", "problems", 0, len(problems))
        report = build_benchmark(problems, sandbox, path, progress=one, **options)
        write_atomic(_construction_report(path), json.dumps(report, indent=1) + "\n")
    return path


def _construction_report(built: Path) -> Path:
    return built.with_suffix(".report.json")


def construction_note(target: Target, spec: GridSpec, out: Path) -> str | None:
    """'N problem(s) loaded, K kept ...' from the report beside the built benchmark."""
    report = _construction_report(_built_path(target, spec, out)[1])
    if not report.is_file():
        return None
    from tczoo.safeio.read import Refused, read_file

    try:
        rows = json.loads(read_file(report, cap=64 << 20, follow=False))
    except (Refused, ValueError, RecursionError):
        return None
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        return None
    kept = [r["problem"] for r in rows if r.get("kept")]
    dropped = Counter(r.get("reason", "?") for r in rows if not r.get("kept"))
    why = "; ".join(f"{n}: {reason}" for reason, n in sorted(dropped.items()))
    return (f"{len(rows)} problem(s) loaded, {len(kept)} kept by TC-Bench's construction"
            + (f" ({', '.join(kept)})" if kept and len(kept) <= 12 else "") + (f"; dropped {why}" if why else ""))


def build(target: Target, spec: GridSpec, out: Path, *, cluster: Cluster | None = None,
          progress: Phase | None = None) -> Reproduction:
    """The target's tables from the recorded runs in ``out``; a target's analysis runs
    programs on ``cluster`` (a caller's, left open), else on this machine, telling
    ``progress`` its phases."""
    from tczoo.store import RunStore

    grid = [c for c in cells(spec, Path(out)) if (c.dir / "config.json").is_file()]
    stores = [RunStore.open(c.dir) for c in grid]
    by_runner, details, summary = stores_tables(stores)  # the runners' tables are computed once
    label = model_label
    paper = paper_rows(target)
    columns = target.layout.columns
    model = spec.models[0] if spec.models else ""
    construction = None
    if target.analysis is not None:
        own = cluster is None
        if cluster is None:
            cluster = RunOptions().open_cluster()
        try:
            tables = run_analysis(target, spec, Path(out), cluster.sandbox, progress=progress)
        finally:
            if own:
                cluster.close()
        ours, table = our_rows(target, tables, label, model)
        details = tables + details
        if target.analysis.over == "benchmark":
            construction = construction_note(target, spec, Path(out))
    else:
        ours, table = our_rows(target, [t for ts in by_runner.values() for t in ts], label, model)
    fix = _renamer(spec)
    ours = [{k: fix(v) for k, v in row.items()} for row in ours]
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
                        settings=settings_table(target, spec, stores, construction), details=details,
                        figure_rows=figure_rows)


def _renamer(spec: GridSpec) -> Callable[[Any], Any]:
    """A function that names each model of ``spec`` by ``model_label`` wherever a string
    holds it (a replayed run's tables read as the recorded run's: a model column, and a
    label that quotes the model, such as a selector row's)."""
    names = {m: model_label(m) for m in spec.models if model_label(m) != m}

    def fix(value: Any) -> Any:
        if isinstance(value, str):
            for old, new in names.items():
                value = value.replace(old, new)
        return value

    return fix


def _relabelled(table: Table, spec: GridSpec) -> Table:
    """``table`` with each model named by ``model_label``."""
    fix = _renamer(spec)
    table.title = fix(table.title)
    table.rows = [{k: fix(v) for k, v in row.items()} for row in table.rows]
    table.notes = [fix(n) for n in table.notes]
    return table


def _has_number(row: dict[str, Any], columns: list[str]) -> bool:
    """Whether a row holds a number in ``columns`` (one shown with the no-valid-tests
    marker beside it counts: it was scored)."""
    from tczoo.report import NO_VALID, is_marked

    return any((isinstance(row.get(c), (int, float)) and not isinstance(row.get(c), bool))
               or (is_marked(row.get(c)) and row.get(c) != NO_VALID) for c in columns)


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


# --------------------------------------------------------------------------- writing


def command_line(spec: GridSpec, target: Target) -> str:
    """The command that reproduces this result (from the settings, not argv: the same
    for a replayed run)."""
    parts = ["tczoo reproduce", target.name]
    if spec.models:
        parts += ["--model", model_label(spec.models[0])]
    if spec.benchmark != target.benchmark:
        parts += ["--benchmark", spec.benchmark]
    if spec.problems:
        parts += ["--problems", ",".join(spec.problems)]
    if target.run is not None and spec.samples != target.run.samples:
        parts += ["--samples", str(spec.samples)]
    run_params = target.run.params if target.run is not None else {}
    overrides = {k: v for k, v in spec.params.items() if run_params.get(k) != v}
    overrides.update(spec.target)
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
    if target.notes:
        body.append("### How our numbers relate to the paper's\n\n" + "\n".join(f"- {n}" for n in target.notes)
                    + "\n\n")
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
    # an interval is two numbers here (ours; the papers give none), with the problems it rests on
    metric_cols = [x for c in metric_cols for x in ([c + " low", c + " high"] if c.endswith(CI) else [c])]
    columns = ["source", "reference", "model", *layout.keys, *layout.show, *metric_cols, *ADDED]
    tables = dict(target.paper_tables())
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=columns, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    for row in repro.ours:
        values = dict(row)
        for key, interval in row.items():
            if isinstance(interval, Interval):
                values[key + " low"], values[key + " high"] = interval.low, interval.high
                values[N_PROBLEMS] = interval.problems
        writer.writerow({**{c: _csv_value(values.get(c)) for c in columns}, "source": OURS,
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
        write_atomic(path, text)
        paths.append(path)
    if repro.target.figure is not None:
        path = folder / f"{repro.target.name}.png"
        if draw(repro, path):
            paths.append(path)
    return paths
