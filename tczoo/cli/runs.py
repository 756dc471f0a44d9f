"""``tczoo run``, ``tczoo score``, ``tczoo report``: generate, score, and show results."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from tczoo.cli.kit import (
    CLIError,
    check_model,
    console,
    echo,
    emit_json,
    err_console,
    format_option,
    parse_json_option,
    progress,
    require_file,
    require_run_dir,
    rich_table,
    split,
)

REPORT_FORMATS = ("table", "md", "csv", "json")


def run(
    method: str = typer.Option(..., "--method", "-m", help="method name(s), comma-separated"),
    model: str = typer.Option("local/qwen2.5-coder-1.5b", "--model", help="LiteLLM model string, local/..., scripted:PATH or replay:DIR"),
    benchmark: str = typer.Option("zoo-mini", "--benchmark", "-b", help="zoo-mini, a hub name, or SCHEMA:PATH"),
    problems: Optional[str] = typer.Option(None, "--problems", "-p", help="problem ids or id prefixes, comma-separated"),
    samples: int = typer.Option(1, "--samples", "-n", min=1, help="independent generations per task"),
    seed: int = typer.Option(0, "--seed"),
    out: Path = typer.Option(Path("runs/latest"), "--out", "-o", help="run directory (resumed if it exists)"),
    runner: Optional[str] = typer.Option(None, "--runner", help="score with this runner instead of each method's own"),
    params: Optional[str] = typer.Option(None, "--params", help='JSON: {"crux": {"n_tests": 5}, "runner:hackrate": {...}}'),
    temperature: Optional[float] = typer.Option(None, "--temperature", min=0),
    max_tokens: Optional[int] = typer.Option(None, "--max-tokens", min=1),
    api_base: Optional[str] = typer.Option(None, "--api-base", help="for hosted_vllm/ and openai-compatible servers"),
    concurrency: int = typer.Option(4, "--concurrency", min=1, help="tasks generated at once"),
    no_cache: bool = typer.Option(False, "--no-cache", help="do not read or write the LLM exchange cache"),
    fmt: str = format_option(*REPORT_FORMATS, help="format of the report printed at the end"),
) -> None:
    """Generate tests with METHOD(s) on a benchmark, record everything in OUT, and score them."""
    import asyncio

    from tczoo.benchmarks import benchmark_names
    from tczoo.llm import LLMSettings
    from tczoo.registry import get_method, get_runner
    from tczoo.run import run as run_all
    from tczoo.schema import RunConfig

    names = split(method) or []
    if not names:
        raise CLIError("--method names no method")
    for n in names:
        get_method(n)
    if runner:
        get_runner(runner)
    if benchmark not in benchmark_names() and ":" not in benchmark:
        raise CLIError(f"unknown benchmark {benchmark!r} (known: {', '.join(benchmark_names())}, or SCHEMA:PATH)")
    check_model(model, api_base)
    parsed_params = parse_json_option(params, "--params") or {}
    settings = LLMSettings(api_base=api_base, cache=not no_cache)
    if temperature is not None:
        settings.temperature = temperature
    if max_tokens is not None:
        settings.max_tokens = max_tokens
    config = RunConfig(
        methods=names, model=model, benchmark=benchmark, problems=split(problems), samples=samples, seed=seed,
        runner=runner, params=parsed_params,
        llm={"temperature": settings.temperature, "max_tokens": settings.max_tokens, "api_base": api_base},
    )
    with progress("generate + score") as bar:
        store = asyncio.run(run_all(config, out, settings=settings, progress=bar.callback(), concurrency=concurrency))
    err_console.print(f"run recorded in {store.root}", markup=False)
    print_report(store.root, fmt)


def score(
    run_dir: Optional[Path] = typer.Argument(None, help="a run directory to score again (no LLM calls)"),
    benchmark: Optional[str] = typer.Option(None, "--benchmark", "-b", help="with --tests: the benchmark the tests are for"),
    tests: Optional[Path] = typer.Option(None, "--tests", help='JSONL of {"problem_id", "input", "output"?} from anywhere'),
    scale: Optional[int] = typer.Option(None, "--scale", min=1, help="with --tests: test budget k x rank (TC-Bench scaling)"),
    detail: Optional[Path] = typer.Option(None, "--detail", help="with --tests: write per-problem detail JSON here"),
    fmt: str = format_option(*REPORT_FORMATS),
) -> None:
    """Score a run directory again, or score external tests (--benchmark B --tests F) with HackRate."""
    if run_dir is not None:
        from tczoo.run import rescore

        if benchmark or tests or scale is not None or detail is not None:
            raise CLIError("--benchmark, --tests, --scale and --detail score external tests; "
                           "a run directory is scored with its own configuration")
        require_run_dir(run_dir)
        with progress("score") as bar:
            rescore(run_dir, progress=bar.callback())
        print_report(run_dir, fmt)
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
    result = scorer(benchmark=benchmark, tests_path=tests, scale=scale, detail_path=detail)
    if fmt == "json":
        emit_json(result)
    else:
        echo(format_metrics(result))


def format_metrics(result: dict) -> str:
    return "  ".join(f"{k}={v:.2f}" if isinstance(v, float) else f"{k}={v}"
                     for k, v in result.items() if not isinstance(v, (dict, list)))


def print_report(run_dir: Path, fmt: str) -> None:
    """The tables of one run directory on stdout, in ``fmt``."""
    from tczoo.report import cell, render, run_tables

    _, tables = run_tables(run_dir)
    if not tables:
        err_console.print(f"no scores in {run_dir} yet", markup=False)
        return
    if fmt != "table":
        print(render(tables, fmt), end="")
        return
    for t in tables:
        left = [c for c in t.columns if c in ("model", "method", "problem", "selector", "language")]
        console.print(rich_table(t.title, t.columns, ([cell(r.get(c)) for c in t.columns] for r in t.rows),
                                 left=left or t.columns[:1]))
        for note in t.notes:
            echo(note)


def report(
    run_dirs: list[Path] = typer.Argument(..., help="run directories"),
    fmt: str = format_option(*REPORT_FORMATS),
    plot: Optional[Path] = typer.Option(None, "--plot", help="also draw the scaling curves (HR at k x rank) to this PNG"),
) -> None:
    """Print the paper-style result tables of one or more runs."""
    from tczoo.report import plot_scaling, run_tables

    for d in run_dirs:
        require_run_dir(d)
    for d in run_dirs:
        print_report(d, fmt)
    if plot is not None:
        tables = [t for d in run_dirs for t in run_tables(d)[1]]
        if not plot_scaling(tables, plot):
            raise CLIError("nothing to plot: score with scales, e.g. --params '{\"runner:hackrate\": {\"scales\": [1,2,3,4,5]}}'")
        err_console.print(f"plot written to {plot}", markup=False)


def register(app: typer.Typer) -> None:
    app.command("run")(run)
    app.command("score")(score)
    app.command("report")(report)
