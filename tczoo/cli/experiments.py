"""``tczoo compare`` and ``tczoo reproduce``: grids of runs across models and methods,
and the papers' tables reproduced into ``results/`` (logic in ``tczoo.experiments``)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from tczoo.cli.options import (
    CLIError,
    bootstrap_seed_option,
    check_benchmark,
    check_model,
    dry_check_model,
    format_option,
    parse_json_option,
    print_dry_run,
    resamples_option,
    run_options,
    say_embedded_model,
    split,
    use_stats,
    writable,
)
from tczoo.cli.output import console, echo, emit_json, print_tables, rich_table, warn
from tczoo.cli.progress import RunReporter, progress

REPORT_FORMATS = ("table", "md", "csv", "json")


def _params(text: str | None) -> dict:
    parsed = parse_json_option(text, "--params") or {}
    if not isinstance(parsed, dict):
        raise CLIError('--params must be a JSON object, e.g. {"crux": {"max_rounds": 3}}')
    return parsed


def _check_models(models: list[str], api_base: str | None) -> None:
    from tczoo.experiments.grid import is_provider

    for model in models:
        check_model(model, api_base if is_provider(model) else None)


def _session_warnings(session) -> None:
    for state in session.cells:
        for line in state.warnings:
            warn(f"{state.cell.label}: {line}")
        if state.halted:
            warn(f"{state.cell.label}: stopped: {state.halted}")
        if state.not_started and state.not_started != "provider_down" and "no task" not in state.not_started:
            warn(f"{state.cell.label}: {state.not_started}")
    down = [s.cell.label for s in session.cells if s.not_started == "provider_down"]
    if down:
        warn(f"not started because the provider stopped answering: {', '.join(down)}")


@run_options
def compare(
    methods: str = typer.Option(..., "--methods", "--method", "-m", help="method names, comma-separated"),
    models: str = typer.Option("local/qwen2.5-coder-1.5b", "--models", "--model",
                               help="model strings, comma-separated (--api-base reaches the provider models)"),
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
    runner: Optional[str] = typer.Option(None, "--runner", help="score every method with this runner instead of its own"),
    runners: Optional[str] = typer.Option(None, "--runners",
                                          help="cross-score every method's suites with these runners too ('all': every installed runner)"),
    params: Optional[str] = typer.Option(None, "--params", help='JSON: {"crux": {...}, "runner:hackrate": {...}}'),
    out: Optional[Path] = typer.Option(None, "--out", "-o",
                                       help="comparison directory, resumed (and grown by new models or methods) "
                                            "when it holds one with the same settings (default: "
                                            "runs/compare-<hash of the settings>)"),
    fmt: str = format_option(*REPORT_FORMATS, help="format of the report printed at the end"),
    against: Optional[str] = typer.Option(None, "--against", metavar="METHOD|MODEL",
                                          help="also print B − A for every other cell against this method or model, "
                                               "paired over their common problems (interval, p-value, Holm)"),
    resamples: int = resamples_option(),
    bootstrap_seed: int = bootstrap_seed_option(),
    dry_run: bool = typer.Option(False, "--dry-run",
                                 help="print every cell's units, LLM calls, tokens and dollars, then exit without "
                                      "calling a model or writing anything"),
    *,
    options,
) -> None:
    """Run every model × method into OUT (one run directory per cell, shared caches,
    resumable) and print the model × method matrix with cost, time and failures.

    Exit code 0 when some cell produced results, 1 when every generation failed or a
    provider stopped answering (the same command resumes), 2 for a usage error."""
    import asyncio

    from tczoo.errors import RunFailed
    from tczoo.experiments.compare import grid_report
    from tczoo.experiments.grid import GridSpec, check_grid
    from tczoo.registry import runner_names

    use_stats(resamples, bootstrap_seed)
    cross = runner_names() if runners == "all" else (split(runners) or [])
    spec = GridSpec(methods=split(methods) or [], models=split(models) or [], benchmark=check_benchmark(benchmark),
                    problems=split(problems), limit=limit, samples=samples, seed=seed, repeats=repeats, runner=runner,
                    params=_params(params),
                    llm=options.recorded(), cross=cross)
    check_grid(spec)
    if against is not None:
        from tczoo.report import model_label

        if against not in spec.methods and against not in spec.models and \
                against not in [model_label(m) for m in spec.models]:
            raise CLIError(f"--against {against!r} is none of this comparison's methods or models "
                           f"({', '.join(spec.methods + spec.models)})")
    if dry_run:
        _dry_run(spec, options, fmt)
        return
    _check_models(spec.models, options.settings.api_base)
    say_embedded_model(spec.models[0])
    from tczoo.experiments.grid import run_grid

    out = out or default_grid_dir(spec)
    writable(out, "comparison directory", "--out")

    with RunReporter() as reporter:
        session = asyncio.run(run_grid(spec, out, options, progress=reporter))
    echo(f"comparison recorded in {out}", err=True)
    _session_warnings(session)
    tables, summary, _ = grid_report(out, spec)
    print_tables(tables + _paired(out, against), fmt)
    if summary.warning() and not summary.all_failed:
        warn(summary.warning())
    if session.halted:
        raise RunFailed(f"stopped: {session.stop_reason()}; run the same command again to resume")
    if summary.all_failed:
        raise RunFailed(summary.cause())


def _dry_run(spec, options, fmt: str) -> None:
    """``--dry-run`` of a comparison or a reproduction: every cell's estimate, nothing sent."""
    from tczoo.experiments.grid import cells, is_provider

    for model in spec.models:
        dry_check_model(model, options.settings.api_base if is_provider(model) else None)
    print_dry_run([c.config for c in cells(spec, Path("dry-run"))], options, fmt)


def _paired(out: Path, against: str | None) -> list:
    """The paired-differences table against ``against`` over the comparison's runs (none without it)."""
    if not against:
        return []
    from tczoo.report import paired_table
    from tczoo.store import RunStore, run_dirs

    return [paired_table([RunStore.open(d) for d in run_dirs([out])], against)]


def default_grid_dir(spec) -> Path:
    """``runs/compare-<hash>``: comparisons with the same settings share a folder (and
    grow it by models and methods, as ``--out`` does); other settings get their own."""
    import hashlib
    import json

    settings = spec.model_dump(exclude={"methods", "models", "cross", "target"})
    if settings.get("limit") is None:
        settings.pop("limit", None)
    if settings.get("repeats") == 1:
        settings.pop("repeats")  # as before --repeats existed: the same folders are found again
    digest = hashlib.sha256(json.dumps(settings, sort_keys=True, default=str).encode()).hexdigest()[:8]
    return Path("runs") / f"compare-{digest}"


@run_options
def reproduce(
    target: Optional[str] = typer.Argument(None, help="a target (tczoo reproduce --list)"),
    model: Optional[str] = typer.Option(None, "--model", "--models",
                                        help="LiteLLM model string, local/..., scripted:PATH, replay:DIR or "
                                             "released:PATH[+PATH] (default: the target's, the embedded model "
                                             "for most)"),
    benchmark: Optional[str] = typer.Option(None, "--benchmark", "-b",
                                            help="zoo-mini, humaneval, a hub name, or SCHEMA:PATH (default: the "
                                                 "target's, zoo-mini for most)"),
    problems: Optional[str] = typer.Option(None, "--problems", "--problem", "-p",
                                           help="problem ids or id prefixes, comma-separated"),
    limit: Optional[int] = typer.Option(None, "--limit", min=1, help="only the first N problems (of --problems)"),
    samples: Optional[int] = typer.Option(None, "--samples", "-n", min=1, help="generations per task (default: the target's)"),
    params: Optional[str] = typer.Option(None, "--params", help="JSON merged over the target's own parameters"),
    out: Optional[Path] = typer.Option(None, "--out", "-o",
                                       help="comparison directory (default: runs/reproduce/<run>-<settings hash>)"),
    results: Path = typer.Option(Path("results"), "--results", help="where results/<paper>/<target>.md|.csv|.png go"),
    report_only: bool = typer.Option(False, "--report-only",
                                     help="run nothing: rebuild the result files from the runs already in OUT"),
    list_targets: bool = typer.Option(False, "--list", help="list the targets"),
    fmt: str = format_option(*REPORT_FORMATS, help="format of the table printed at the end"),
    resamples: int = resamples_option(),
    bootstrap_seed: int = bootstrap_seed_option(),
    dry_run: bool = typer.Option(False, "--dry-run",
                                 help="print the target's units, LLM calls, tokens and dollars, then exit without "
                                      "calling the model or writing anything"),
    *,
    options,
) -> None:
    """Reproduce one of the papers' tables or figures with MODEL: run it, lay the result
    out as the paper does with the paper's numbers beside ours, and write
    results/<paper>/<target>.md and .csv (.png for a figure)."""
    import asyncio

    from tczoo.experiments.targets import get_target, targets

    use_stats(resamples, bootstrap_seed)
    if list_targets:
        known = targets()
        rows = [{"target": n, "paper": t.paper, "methods": ",".join(t.methods) or "(none: benchmark analysis)",
                 "what": t.title} for n, t in known.items()]
        if fmt == "json":
            emit_json(rows)
        else:
            console.print(rich_table("reproduction targets", ["target", "paper", "methods", "what"],
                                     ([r[c] for c in ("target", "paper", "methods", "what")] for r in rows),
                                     left=["target", "paper", "methods", "what"]))
        return
    if target is None:
        raise CLIError("name a target (tczoo reproduce --list shows them)")
    from tczoo.errors import RunFailed
    from tczoo.experiments.grid import check_grid, read_spec
    from tczoo.experiments.reproduce import build, default_out, execute, plan, write

    chosen = get_target(target)
    model = model or chosen.model or "local/qwen2.5-coder-1.5b"
    missing = chosen.missing_methods()
    if missing:
        raise CLIError(f"target {target} runs {', '.join(missing)}, which are not installed")
    if len(split(model) or []) > 1:
        raise CLIError("--model names several models: a reproduction runs one (tczoo compare runs several)")
    spec = plan(chosen, model, benchmark=check_benchmark(benchmark or chosen.benchmark), problems=split(problems),
                samples=samples,
                params=_params(params), options=options)
    if limit is not None:
        spec = spec.model_copy(update={"limit": limit})
    if chosen.run is not None:
        check_grid(spec)
    if dry_run:
        if chosen.run is None:
            raise CLIError(f"target {target} calls no model (it analyses the benchmark): nothing to estimate")
        _dry_run(spec, options, fmt)
        return
    folder = out or default_out(chosen, spec)
    if results.exists() and not results.is_dir():
        raise CLIError(f"--results {results} exists and is not a directory")
    writable(folder, "comparison directory", "--out")
    writable(results, "results folder", "--results")
    if chosen.run is None:
        folder.mkdir(parents=True, exist_ok=True)  # holds the built benchmark
    elif report_only:
        if read_spec(folder) is None:
            raise CLIError(f"--report-only: {folder} holds no comparison (run the same command without it first)")
    else:
        _check_models(spec.models, options.settings.api_base)
        say_embedded_model(spec.models[0])
        with RunReporter() as reporter:
            session = asyncio.run(execute(chosen, spec, folder, options, progress=reporter))
        echo(f"runs recorded in {folder}", err=True)
        _session_warnings(session)
        if session.halted:
            raise RunFailed(f"stopped: {session.stop_reason()}; run the same command again to resume")
    cluster = options.open_cluster() if chosen.analysis is not None else None
    try:
        with progress(f"{target}: tables") as bar:
            def phase(what: str, unit: str, done: int, total: int) -> None:
                bar.phase(what, unit)
                if total:
                    bar.update(done, total)
                else:
                    bar.note("running")

            repro = build(chosen, spec, folder, cluster=cluster, progress=phase)
    finally:
        if cluster is not None:
            cluster.close()
    if not repro.scored:
        # a table of failures is not a reproduction: results/ keeps what it had
        print_tables([repro.settings, repro.comparison, *repro.details], fmt)
        raise RunFailed(f"{target}: nothing was scored, so nothing was written in {results}; the failures are "
                        f"printed above (the runs are in {folder})")
    paths = write(repro, results)
    print_tables([repro.settings, repro.comparison], fmt)
    echo("written: " + ", ".join(str(p) for p in paths), err=True)


def register(app: typer.Typer) -> None:
    app.command("compare")(compare)
    app.command("reproduce")(reproduce)
