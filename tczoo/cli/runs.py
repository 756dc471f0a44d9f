"""``tczoo run``, ``tczoo score``, ``tczoo report``: generate, score, and show results."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import typer

from tczoo.cli.options import (
    CLIError,
    address_option,
    check_benchmark,
    check_model,
    dry_check_model,
    execution_options,
    executor_option,
    format_option,
    parse_json_option,
    bootstrap_seed_option,
    print_dry_run,
    require_file,
    require_runs,
    resamples_option,
    say_embedded_model,
    use_stats,
    run_options,
    writable,
    split,
)
from tczoo.cli.output import echo, emit_json, print_tables, show_tables, warn
from tczoo.cli.progress import RunReporter, progress

REPORT_FORMATS = ("table", "md", "csv", "json")


@run_options
def run(
    method: str = typer.Option(..., "--method", "--methods", "-m", help="method name(s), comma-separated"),
    model: str = typer.Option("local/qwen2.5-coder-1.5b", "--model", "--models",
                              help="LiteLLM model string, local/..., scripted:PATH or replay:DIR "
                                   "(several models: tczoo compare)"),
    benchmark: str = typer.Option("zoo-mini", "--benchmark", "-b", help="zoo-mini, a hub name, or SCHEMA:PATH"),
    problems: Optional[str] = typer.Option(None, "--problems", "--problem", "-p",
                                           help="problem ids or id prefixes, comma-separated"),
    limit: Optional[int] = typer.Option(None, "--limit", min=1, help="only the first N problems (of --problems)"),
    samples: int = typer.Option(1, "--samples", "-n", min=1, help="independent generations per task"),
    seed: int = typer.Option(0, "--seed",
                             help="base seed of the tasks: sample i is seeded seed + i (the methods' and "
                                  "runners' random choices, the generators' seeds); the model's answers "
                                  "are keyed by the sample index"),
    repeats: int = typer.Option(1, "--repeats", min=1,
                                help="run every unit this many times, each with its own sample indices and seeds; "
                                     "the report adds the spread over the repeats"),
    out: Optional[Path] = typer.Option(None, "--out", "-o",
                                       help="run directory, resumed if it holds this experiment (default: "
                                            "runs/<methods>-<model>-<hash of the experiment>; runs/latest links to it)"),
    runner: Optional[str] = typer.Option(None, "--runner", help="score with this runner instead of each method's own"),
    params: Optional[str] = typer.Option(None, "--params", help='JSON: {"crux": {"max_rounds": 3}, "runner:hackrate": {...}}'),
    strict_inputs: bool = typer.Option(False, "--strict-inputs",
                                       help="where a problem has no input validator, count a test only if the "
                                            "reference solution runs cleanly on its input and prints something "
                                            "(ours, not a paper's rule)"),
    fmt: str = format_option(*REPORT_FORMATS, help="format of the report printed at the end"),
    dry_run: bool = typer.Option(False, "--dry-run",
                                 help="print units, LLM calls, prompt and worst-case completion tokens and dollars, "
                                      "then exit without calling the model or writing anything"),
    *,
    options,
) -> None:
    """Generate tests with METHOD(s) on a benchmark, record everything in OUT, and score them.

    Exit code 0 when every generation succeeded or some failed (a warning line counts
    them), 1 when every generation failed or the run stopped early (the cause in one
    line; the same command resumes), 2 for a usage error (nothing is written)."""
    import asyncio

    from tczoo.errors import RunFailed
    from tczoo.registry import get_method, get_runner, plugin_sources
    from tczoo.run import check_params, run as run_all
    from tczoo.schema import RunConfig

    names = split(method) or []
    if not names:
        raise CLIError("--method names no method")
    if len(set(names)) != len(names):
        raise CLIError(f"--method names a method twice: {method}")
    if len(split(model) or []) > 1:
        raise CLIError(f"--model names {len(split(model) or [])} models: a run has one "
                       "(tczoo compare --models A,B runs every model × method)")
    for n in names:
        get_method(n)
    if runner:
        get_runner(runner)
    check_benchmark(benchmark)
    parsed_params = parse_json_option(params, "--params") or {}
    if not isinstance(parsed_params, dict):
        raise CLIError('--params must be a JSON object, e.g. {"crux": {"max_rounds": 3}}')
    config = RunConfig(
        methods=names, model=model, benchmark=benchmark, problems=split(problems), limit=limit, samples=samples,
        seed=seed, runner=runner, params=parsed_params, llm=options.recorded(), strict_inputs=strict_inputs,
        repeats=repeats,
    )
    config.plugins = plugin_sources(names, [runner or get_method(n).runner for n in names])
    check_params(config)
    if dry_run:
        dry_check_model(model, options.settings.api_base)
        print_dry_run([config], options, fmt)
        return
    check_model(model, options.settings.api_base)
    say_embedded_model(model)
    chosen = out is not None
    out = out if chosen else default_run_dir(config)
    if out.exists() and not out.is_dir():
        raise CLIError(f"--out {out} exists and is not a directory")
    writable(out, "run directory", "--out")
    with RunReporter() as reporter:
        store = asyncio.run(run_all(config, out, options, progress=reporter))
    if not chosen:
        _link_latest(out)
    echo(f"run recorded in {store.root}", err=True)
    session = store.session
    for line in (session.warnings if session is not None else []):
        warn(line)
    summary = print_report(store.root, fmt, after_run=True)
    if session is not None and session.halted is not None:
        left = f"; {session.skipped} unit(s) not started" if session.skipped else ""
        raise RunFailed(f"stopped: {session.halted}{left}; run the same command again to resume")
    if summary is not None and summary.all_failed:
        raise RunFailed(summary.cause())


RUNS = Path("runs")


def default_run_dir(config) -> Path:
    """``runs/<methods>-<model>-<hash>``: the same experiment finds its folder again (and
    resumes), another experiment gets its own -- never a folder of something else."""
    import hashlib
    import json
    import re

    from tczoo.report import model_label

    # strict_inputs joins the key only when set, so that runs made before it existed keep their folder
    # (format: how the folder is written, not what the experiment is)
    settings = config.model_dump(exclude={"tczoo_version", "format"} |
                                 (set() if config.strict_inputs else {"strict_inputs"}))
    if settings.get("limit") is None:
        settings.pop("limit", None)
    if settings.get("repeats") == 1:
        settings.pop("repeats")  # a run without --repeats keeps the folder it had before the option existed
    if not settings.get("plugins"):
        settings.pop("plugins", None)  # likewise a run of tczoo's own methods and runners
    digest = hashlib.sha256(json.dumps(settings, sort_keys=True, default=str).encode()).hexdigest()[:8]
    label = re.sub(r"[^A-Za-z0-9._-]+", "_", model_label(config.model)).strip("._")[:40]
    return RUNS / f"{'+'.join(config.methods)[:60]}-{label}-{digest}"


def _link_latest(run_dir: Path) -> None:
    """``runs/latest`` -> the run just made (a link tczoo owns; a real folder there is left alone)."""
    import os

    link = run_dir.parent / "latest"
    try:
        if link.is_symlink():
            link.unlink()
        if not link.exists():
            os.symlink(run_dir.name, link)
    except OSError:
        pass


def score(
    run_dirs: Optional[list[Path]] = typer.Argument(
        None, metavar="RUN", help="run directories or comparison directories to score again (no LLM calls)"),
    benchmark: Optional[str] = typer.Option(None, "--benchmark", "-b", help="with --tests: the benchmark the tests are for"),
    tests: Optional[Path] = typer.Option(None, "--tests", help='JSONL of {"problem_id", "input", "output"?} from anywhere'),
    scale: Optional[int] = typer.Option(None, "--scale", min=1, help="with --tests: test budget k x rank (TC-Bench scaling)"),
    detail: Optional[Path] = typer.Option(None, "--detail", help="with --tests: write per-problem detail JSON here"),
    executor: str = executor_option(),
    address: Optional[str] = address_option(),
    fmt: str = format_option(*REPORT_FORMATS),
) -> None:
    """Score run directories again (a comparison: every run in it), or score external
    tests (--benchmark B --tests F) with HackRate."""
    execution = execution_options(executor, address)
    if run_dirs:
        from tczoo.distributed import open_cluster
        from tczoo.report import STATS
        from tczoo.run import rescore

        if benchmark or tests or scale is not None or detail is not None:
            raise CLIError("--benchmark, --tests, --scale and --detail score external tests; "
                           "a run directory is scored with its own configuration")
        dirs = require_runs(run_dirs)
        with progress("score", unit="units") as bar, open_cluster(execution) as cluster:
            for i, d in enumerate(dirs, 1):
                scope = f"run {i}/{len(dirs)} {d}" if len(dirs) > 1 else ""
                writable(d, "run directory", None,
                         hint="copy it to a folder you can write to and score the copy (scores.jsonl is rewritten)")
                rescore(d, cluster=cluster, progress=bar.run_callback(scope))
        report(run_dirs, fmt=fmt, plot=None, scaling_plot=None, per_problem=False, csv_dir=None, against=None,
               resamples=STATS.resamples, bootstrap_seed=STATS.seed)
        return
    if not (benchmark and tests):
        raise CLIError("give a run directory, or --benchmark B --tests FILE.jsonl")
    if fmt in ("md", "csv"):
        raise CLIError(f"--format {fmt} is for run directories; external tests print table or json")
    from tczoo.registry import get_runner

    scorer = getattr(get_runner("hackrate"), "score_external", None)
    if scorer is None:
        raise CLIError("the installed hackrate runner cannot score external tests")
    require_file(tests, "tests file")
    ids = _check_tests_file(tests)
    check_benchmark(benchmark)
    if detail is not None:
        writable(detail.parent if str(detail.parent) else Path("."), "folder", "--detail")
    from tczoo.benchmarks import load_benchmark, match_ids, problem_ids
    from tczoo.distributed import open_cluster

    known = problem_ids(benchmark)  # the bundled benchmark: checked before anything is built or run
    with open_cluster(execution) as cluster, progress(f"loading benchmark {benchmark}", unit="problems") as bar:
        loaded = None
        if known is None:
            loaded = load_benchmark(benchmark, sandbox=cluster.sandbox, progress=bar.update)
            known = [p.id for p in loaded]
        # ids as --problems takes them: an id or a prefix of exactly one, else one line with the closest
        hits = match_ids(sorted(ids), known, missing=f"tests name problems not in {benchmark}:", unique=True)
        aliases = {given: found[0] for given, found in hits.items()}
        if loaded is None:
            loaded = load_benchmark(benchmark, sorted(set(aliases.values())), sandbox=cluster.sandbox,
                                    progress=bar.update)
        bar.phase("score", "problems")
        extra = {"problems": loaded, "aliases": aliases, "benchmark_problems": len(known)}
        result = scorer(benchmark=benchmark, tests_path=tests, scale=scale, detail_path=detail,
                        sandbox=cluster.sandbox, **_supported(scorer, {**extra, "progress": bar.update}))
    if fmt == "json":
        emit_json(result)
    else:
        echo(format_metrics(result))


def _supported(fn, options: dict) -> dict:
    """The keyword arguments of ``options`` that ``fn`` takes (an installed runner of an
    older interface may take fewer)."""
    import inspect

    try:
        names = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return {}
    return {k: v for k, v in options.items() if k in names}


def _check_tests_file(path: Path) -> set[str]:
    """Every line of an external tests file is a JSON object with problem_id and input
    (refused here, naming the line, before any scoring starts); returns the ids."""
    from tczoo.safeio.userfiles import read_jsonl

    count = 0
    ids: set[str] = set()
    for n, rec in read_jsonl(path, "tests file"):
        if not isinstance(rec, dict) or not isinstance(rec.get("problem_id"), (str, int)) \
                or isinstance(rec.get("problem_id"), bool) or not isinstance(rec.get("input"), str) \
                or not isinstance(rec.get("output"), (str, type(None))):
            raise CLIError(f'{path}:{n}: need an object with "problem_id", "input" (a string) and '
                           'optionally "output" (a string)')
        ids.add(str(rec["problem_id"]))
        count += 1
    if not count:
        raise CLIError(f"no test in {path}: give JSONL lines {{\"problem_id\", \"input\", \"output\"?}}")
    return ids


def format_metrics(result: dict) -> str:
    return "  ".join(f"{k}={v:.2f}" if isinstance(v, float) else f"{k}={v}"
                     for k, v in result.items() if not isinstance(v, (dict, list)))


def print_report(run_dir: Path | list[Path], fmt: str, *, after_run: bool = False, extra: list | None = None):
    """The tables of one run directory (or several, as one document) on stdout, in
    ``fmt`` (``extra`` tables after them), then (stderr) one warning line counting what
    failed. Returns the (last) run's ``RunSummary``."""
    from tczoo.report import render, run_report

    dirs = run_dir if isinstance(run_dir, list) else [run_dir]
    tables, summaries = [], []
    for d in dirs:
        _, ts, summary = run_report(d)
        if len(dirs) > 1:
            for t in ts:
                t.title = f"{d}: {t.title}"
        tables += ts
        summaries.append((d, summary))
    if not tables:
        echo(f"no records in {', '.join(map(str, dirs))} yet", err=True)
        return summary
    tables += extra or []
    if fmt != "table":
        sys.stdout.write(render(tables, fmt))
        sys.stdout.flush()
    else:
        show_tables(tables)
    for d, summary in summaries:
        where = f"{d}: " if len(dirs) > 1 else ""
        if summary.all_failed and not after_run:
            warn(where + summary.cause())
        elif summary.warning() and not summary.all_failed:
            warn(where + summary.warning())
    return summaries[-1][1]


def report(
    run_dirs: list[Path] = typer.Argument(..., metavar="RUN",
                                          help="run directories, or comparison directories (tczoo compare --out)"),
    fmt: str = format_option(*REPORT_FORMATS),
    plot: Optional[Path] = typer.Option(None, "--plot",
                                        help="also draw the forest plot (every metric with its 95% interval, a row per "
                                             "model × method) to this .png or .svg"),
    scaling_plot: Optional[Path] = typer.Option(None, "--scaling-plot",
                                                help="also draw the scaling curves (HR at k x rank, TC-Bench Fig. 5) "
                                                     "to this .png or .svg"),
    per_problem: bool = typer.Option(False, "--per-problem",
                                     help="print every unit's numbers in long format instead (runner, model, method, "
                                          "problem, sample, repeat, metric, value, status)"),
    csv_dir: Optional[Path] = typer.Option(None, "--csv", metavar="DIR",
                                           help="also write one CSV file per table into DIR"),
    against: Optional[str] = typer.Option(None, "--against", metavar="RUN|METHOD|MODEL",
                                          help="print B − A for every other cell against this run, method or model, "
                                               "paired over their common problems (interval, p-value, Holm)"),
    resamples: int = resamples_option(),
    bootstrap_seed: int = bootstrap_seed_option(),
) -> None:
    """Print the paper-style result tables of one or more runs (a comparison directory:
    its model × method report), every metric with its 95% interval."""
    from tczoo.report import paired_table, plot_forest, plot_scaling, run_tables
    from tczoo.store import RunStore, is_grid, run_dirs as expand

    use_stats(resamples, bootstrap_seed)
    for path, option in ((plot, "--plot"), (scaling_plot, "--scaling-plot")):
        if path is not None:
            if path.suffix.lower() not in (".png", ".svg"):
                raise CLIError(f"{option} {path}: give a .png or .svg file")
            writable(path.parent if str(path.parent) else Path("."), "folder", option)
    every = expand(run_dirs)  # every path names runs, or nothing is printed
    if csv_dir is not None:
        writable(csv_dir, "folder", "--csv")
    if per_problem:
        from tczoo.report import csv_files, per_problem_table

        if against or plot or scaling_plot:
            raise CLIError("--per-problem prints the units' numbers alone: leave out --against and the plots")
        long = [per_problem_table([RunStore.open(d) for d in every])]
        print_tables(long, fmt)
        if csv_dir is not None:
            echo(f"CSV written: {', '.join(str(p) for p in csv_files(long, csv_dir))}", err=True)
        return
    paired = [paired_table([RunStore.open(d) for d in every], against)] if against else []
    grids = [d for d in run_dirs if is_grid(d) and not (d / "config.json").is_file()]
    runs = [d for d in run_dirs if d not in grids]
    tables = []
    if runs:
        print_report(runs, fmt, extra=paired if not grids else None)
        tables += [t for d in runs for t in run_tables(d)[1]]
    for i, g in enumerate(grids):
        from tczoo.experiments.compare import grid_report

        grid_tables, summary, _ = grid_report(g)
        print_tables(grid_tables + (paired if i == len(grids) - 1 else []), fmt)
        if summary.warning():
            warn(f"{g}: {summary.warning()}")
        tables += grid_tables
    if csv_dir is not None:
        from tczoo.report import csv_files

        echo(f"CSV written: {', '.join(str(p) for p in csv_files(tables + paired, csv_dir))}", err=True)
    if plot is not None:
        if not plot_forest(tables, plot):
            raise CLIError("nothing to plot: no metric has an interval (every cell failed, has no valid test, "
                           "or rests on one problem)")
        echo(f"forest plot written to {plot}", err=True)
    if scaling_plot is not None:
        if not plot_scaling(tables, scaling_plot):
            raise CLIError("nothing to plot: score with scales, e.g. --params '{\"runner:hackrate\": {\"scales\": [1,2,3,4,5]}}'")
        echo(f"plot written to {scaling_plot}", err=True)


def register(app: typer.Typer) -> None:
    app.command("run")(run)
    app.command("score")(score)
    app.command("report")(report)
