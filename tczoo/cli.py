"""The ``tczoo`` command line (typer + rich).

Bad input — an unknown method/model/benchmark, an unreadable file, a missing API key —
ends in a one-line error and exit code 2, never a traceback. Runners and methods add
their own commands through the ``tczoo.commands`` entry-point group.
"""

from __future__ import annotations

import asyncio
import csv
import io
import json
import os
import sys
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table as RichTable

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="tczoo: LLM test-case-generation methods for algorithmic problems, scored as their papers do.",
    pretty_exceptions_enable=False,
)
# Piped output (logs, CI) gets wide tables instead of rich's 80-column default.
console = Console() if sys.stdout.isatty() else Console(width=160)
err_console = Console(stderr=True)


class CLIError(Exception):
    """A user error: printed as one line, exit code 2."""


def _split(values: str | None) -> list[str] | None:
    if not values:
        return None
    return [v.strip() for v in values.split(",") if v.strip()]


def progress_bar() -> Progress:
    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err_console,
        transient=False,
        disable=not err_console.is_terminal and os.environ.get("TCZOO_PROGRESS") != "1",
    )


# The keys of the common providers, checked without importing LiteLLM (which takes
# seconds); other providers are asked of LiteLLM itself.
PROVIDER_KEYS = {
    "openai": ("OPENAI_API_KEY",),
    "anthropic": ("ANTHROPIC_API_KEY",),
    "gemini": ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
    "deepseek": ("DEEPSEEK_API_KEY",),
    "groq": ("GROQ_API_KEY",),
    "mistral": ("MISTRAL_API_KEY",),
    "openrouter": ("OPENROUTER_API_KEY",),
    "together_ai": ("TOGETHERAI_API_KEY", "TOGETHER_AI_API_KEY"),
    "xai": ("XAI_API_KEY",),
    "dashscope": ("DASHSCOPE_API_KEY",),
}
KEYLESS = ("hosted_vllm", "ollama", "ollama_chat", "lm_studio", "llamafile")


def check_model(model: str, api_base: str | None = None) -> None:
    """Refuse a model string that names nothing, or a provider whose API key is missing,
    before any work starts."""
    from tczoo.llm.backends import LiteLLMBackend, ModelSpecError, _litellm, make_backend

    try:
        backend = make_backend(model)
    except ModelSpecError as exc:
        raise CLIError(str(exc)) from exc
    provider = model.split("/", 1)[0]
    if not isinstance(backend, LiteLLMBackend) or api_base or provider in KEYLESS:
        return  # local, scripted, replay, or a self-hosted server
    keys = PROVIDER_KEYS.get(provider)
    if keys is not None:
        missing = [] if any(os.environ.get(k) for k in keys) else [keys[0]]
    else:
        try:
            env = _litellm().validate_environment(model=model)
        except Exception:
            return  # unknown to LiteLLM's table: the call itself will report
        missing = [] if env.get("keys_in_environment") else list(env.get("missing_keys") or [])
    if missing:
        raise CLIError(f"model {model}: missing API key: set {', '.join(missing)}")


# --------------------------------------------------------------------------- listing


@app.command()
def methods(as_json: bool = typer.Option(False, "--json", help="print JSON")) -> None:
    """List the installed methods: paper, setting, oracle, default runner."""
    from tczoo.registry import get_method, method_names

    infos = [get_method(n).describe() for n in method_names()]
    if as_json:
        print(json.dumps(infos, indent=2))
        return
    table = RichTable(title="methods")
    for col in ("name", "setting", "produces", "runner", "paper", "summary"):
        table.add_column(col, overflow="fold")
    for i in infos:
        table.add_row(i["name"], i["setting"], i["produces"], i["runner"], i["paper"], i["summary"])
    console.print(table)


@app.command()
def benchmarks(as_json: bool = typer.Option(False, "--json")) -> None:
    """List the benchmark names --benchmark accepts (plus SCHEMA:PATH for local files)."""
    from tczoo.benchmarks import benchmark_names

    names = benchmark_names()
    if as_json:
        print(json.dumps(names, indent=2))
        return
    table = RichTable(title="benchmarks (also SCHEMA:PATH, e.g. tcbench:problems.jsonl)")
    table.add_column("name")
    table.add_column("what")
    for k, v in names.items():
        table.add_row(k, v)
    console.print(table)


# --------------------------------------------------------------------------- run / score / report


@app.command()
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
    temperature: Optional[float] = typer.Option(None, "--temperature"),
    max_tokens: Optional[int] = typer.Option(None, "--max-tokens"),
    api_base: Optional[str] = typer.Option(None, "--api-base", help="for hosted_vllm/ and openai-compatible servers"),
    concurrency: int = typer.Option(4, "--concurrency", min=1, help="tasks generated at once"),
    no_cache: bool = typer.Option(False, "--no-cache", help="do not read or write the LLM exchange cache"),
) -> None:
    """Generate tests with METHOD(s) on a benchmark, record everything in OUT, and score them."""
    from tczoo.benchmarks import benchmark_names
    from tczoo.llm import LLMSettings
    from tczoo.registry import get_method, get_runner
    from tczoo.run import run as run_all
    from tczoo.schema import RunConfig

    names = _split(method) or []
    for n in names:
        get_method(n)
    if runner:
        get_runner(runner)
    if benchmark not in benchmark_names() and ":" not in benchmark:
        raise CLIError(f"unknown benchmark {benchmark!r} (known: {', '.join(benchmark_names())}, or SCHEMA:PATH)")
    check_model(model, api_base)
    try:
        parsed_params = json.loads(params) if params else {}
    except json.JSONDecodeError as exc:
        raise CLIError(f"--params is not valid JSON: {exc}") from exc
    settings = LLMSettings(api_base=api_base, cache=not no_cache)
    if temperature is not None:
        settings.temperature = temperature
    if max_tokens is not None:
        settings.max_tokens = max_tokens
    config = RunConfig(
        methods=names,
        model=model,
        benchmark=benchmark,
        problems=_split(problems),
        samples=samples,
        seed=seed,
        runner=runner,
        params=parsed_params,
        llm={"temperature": settings.temperature, "max_tokens": settings.max_tokens, "api_base": api_base},
    )
    with progress_bar() as bar:
        task_id = bar.add_task("generate + score", total=None)

        def progress(stage: str, done: int, total: int) -> None:
            bar.update(task_id, completed=done, total=total)

        store = asyncio.run(
            run_all(config, out, settings=settings, progress=progress, concurrency=concurrency)
        )
    err_console.print(f"run recorded in {store.root}")
    _print_report(store.root, "table")


@app.command()
def score(
    run_dir: Optional[Path] = typer.Argument(None, help="a run directory to score again (no LLM calls)"),
    benchmark: Optional[str] = typer.Option(None, "--benchmark", "-b", help="with --tests: the benchmark the tests are for"),
    tests: Optional[Path] = typer.Option(None, "--tests", help='JSONL of {"problem_id", "input", "output"?} from anywhere'),
    scale: Optional[int] = typer.Option(None, "--scale", help="test budget k x rank (TC-Bench scaling)"),
    detail: Optional[Path] = typer.Option(None, "--detail", help="write per-problem detail JSON here"),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Score a run directory again, or score external tests (--benchmark B --tests F) with HackRate."""
    if run_dir is not None:
        from tczoo.run import rescore

        if not (run_dir / "config.json").exists():
            raise CLIError(f"{run_dir} is not a tczoo run directory")
        with progress_bar() as bar:
            task_id = bar.add_task("score", total=None)
            rescore(run_dir, progress=lambda s, d, t: bar.update(task_id, completed=d, total=t))
        _print_report(run_dir, "json" if as_json else "table")
        return
    if not (benchmark and tests):
        raise CLIError("give a run directory, or --benchmark B --tests FILE.jsonl")
    from tczoo.registry import get_runner

    scorer = getattr(get_runner("hackrate"), "score_external", None)
    if scorer is None:
        raise CLIError("the installed hackrate runner cannot score external tests")
    if not tests.is_file():
        raise CLIError(f"cannot read {tests}")
    result = scorer(benchmark=benchmark, tests_path=tests, scale=scale, detail_path=detail)
    print(json.dumps(result, indent=2) if as_json else _format_metrics(result))


def _format_metrics(result: dict) -> str:
    return "  ".join(f"{k}={v:.2f}" if isinstance(v, float) else f"{k}={v}" for k, v in result.items() if not isinstance(v, (dict, list)))


def _tables(run_dir: Path):
    from tczoo.registry import get_runner
    from tczoo.store import RunStore

    store = RunStore.open(run_dir)
    scores = store.scores()
    by_runner: dict[str, list] = {}
    failed = [s for s in scores if "error" in s.detail]
    for s in scores:
        if "error" not in s.detail:
            by_runner.setdefault(s.runner, []).append(s)
    tables = []
    for name, records in by_runner.items():
        # summarising reads records only: no sandbox needed
        tables.extend(get_runner(name)(None).summarize(records))
    if failed:
        first = failed[0]
        note = (f"{len(failed)} generation(s) could not be scored and are left out "
                f"(first: {first.method} on {first.problem_id}: {first.detail['error'][:200]})")
        if tables:
            tables[0].notes.append(note)
        else:
            err_console.print(note)
    return store, tables


def render_tables(tables, fmt: str) -> str:
    if fmt == "json":
        return json.dumps([{"title": t.title, "columns": t.columns, "rows": t.rows, "notes": t.notes} for t in tables], indent=2)
    out = io.StringIO()
    for t in tables:
        if fmt == "csv":
            writer = csv.DictWriter(out, fieldnames=t.columns, extrasaction="ignore")
            out.write(f"# {t.title}\n")
            writer.writeheader()
            for row in t.rows:
                writer.writerow(row)
        else:  # markdown
            out.write(f"### {t.title}\n\n| " + " | ".join(t.columns) + " |\n|" + "---|" * len(t.columns) + "\n")
            for row in t.rows:
                out.write("| " + " | ".join(_cell(row.get(c)) for c in t.columns) + " |\n")
            for note in t.notes:
                out.write(f"\n{note}\n")
        out.write("\n")
    return out.getvalue()


def _cell(v) -> str:
    if isinstance(v, float):
        return f"{v:.1f}"
    return "" if v is None else str(v)


def _print_report(run_dir: Path, fmt: str) -> None:
    store, tables = _tables(run_dir)
    if not tables:
        err_console.print(f"no scores in {run_dir} yet")
        return
    if fmt != "table":
        print(render_tables(tables, fmt), end="")
        return
    for t in tables:
        table = RichTable(title=t.title)
        for c in t.columns:
            left = c in ("model", "method", "problem")
            table.add_column(c, justify="left" if left else "right", overflow="fold" if left else "ellipsis")
        for row in t.rows:
            table.add_row(*(_cell(row.get(c)) for c in t.columns))
        console.print(table)
        for note in t.notes:
            console.print(f"[dim]{note}[/dim]")


@app.command()
def report(
    run_dirs: list[Path] = typer.Argument(..., help="run directories"),
    fmt: str = typer.Option("table", "--format", "-f", help="table | md | csv | json"),
    plot: Optional[Path] = typer.Option(None, "--plot", help="also draw the scaling curves (HR at k x rank) to this PNG"),
) -> None:
    """Print the paper-style result tables of one or more runs."""
    if fmt not in ("table", "md", "csv", "json"):
        raise CLIError(f"unknown format {fmt!r} (table, md, csv, json)")
    for d in run_dirs:
        if not (d / "config.json").exists():
            raise CLIError(f"{d} is not a tczoo run directory")
    for d in run_dirs:
        _print_report(d, fmt)
    if plot is not None:
        tables = [t for d in run_dirs for t in _tables(d)[1]]
        if not plot_scaling(tables, plot):
            raise CLIError("nothing to plot: score with scales, e.g. --params '{\"runner:hackrate\": {\"scales\": [1,2,3,4,5]}}'")
        err_console.print(f"plot written to {plot}")


def plot_scaling(tables, path: Path) -> bool:
    """Figure 5 of TC-Bench: HackRate against the test budget (k x rank), a line per
    model x method. Returns False when no table has scaling columns."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    series = []
    for t in tables:
        cols = [c for c in t.columns if c.startswith("HR ") and c.endswith("x")]
        for row in t.rows:
            points = [(int(c[3:-1]), row[c]) for c in cols if row.get(c) is not None]
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


# --------------------------------------------------------------------------- benchmark construction


@app.command("wrongselect")
def wrongselect(
    matrix: Path = typer.Argument(..., help='JSON list of rows: "AWWA" strings or 0/1 lists'),
    restarts: int = typer.Option(1000, "--restarts", min=1),
    max_steps: int = typer.Option(1000, "--max-steps", min=1),
    seed: int = typer.Option(0, "--seed"),
    field: str = typer.Option("real", "--field", help="real (as the reference) | gf2"),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Select a maximally diverse basis of wrong codes (TC-Bench WrongSelect)."""
    from tczoo.benchmarks.wrongselect import wrongselect_command

    if field not in ("real", "gf2"):
        raise CLIError(f"--field must be real or gf2, not {field!r}")
    raise typer.Exit(wrongselect_command(matrix, restarts, max_steps, seed, as_json, field=field))


@app.command("build-benchmark")
def build_benchmark(
    benchmark: str = typer.Option("zoo-mini", "--benchmark", "-b", help="raw set with golden tests and a wrong-code pool"),
    problems: Optional[str] = typer.Option(None, "--problems", "-p"),
    out: Path = typer.Option(Path("tcbench-built.jsonl"), "--out", "-o", help="JSONL in the TC-Bench schema"),
    restarts: int = typer.Option(1000, "--restarts", min=1),
    max_steps: int = typer.Option(1000, "--max-steps", min=1),
    seed: int = typer.Option(0, "--seed"),
    min_rank: int = typer.Option(5, "--min-rank", min=1),
) -> None:
    """Judge every wrong code on the golden tests, filter, WrongSelect, write TC-Bench JSONL."""
    from tczoo.benchmarks import load_benchmark
    from tczoo.benchmarks.construct import build_benchmark as build
    from tczoo.sandbox import Sandbox

    with Sandbox() as sandbox:
        loaded = load_benchmark(benchmark, _split(problems), sandbox=sandbox)
        with progress_bar() as bar:
            task = bar.add_task("judge + select", total=len(loaded))
            report = build(loaded, sandbox, out, restarts=restarts, max_steps=max_steps, seed=seed,
                           min_rank=min_rank, progress=lambda _: bar.advance(task))
    for r in report:
        err_console.print(json.dumps(r))
    kept = sum(r["kept"] for r in report)
    err_console.print(f"{kept} of {len(report)} problems kept -> {out} (load it with --benchmark tcbench:{out})")


# --------------------------------------------------------------------------- sandbox / doctor


@app.command()
def judge(
    file: Path = typer.Argument(..., help="source file"),
    lang: str = typer.Option(..., "--lang", help="cpp | c | python"),
    input: Optional[Path] = typer.Option(None, "--input", help="stdin file"),
    expected: Optional[Path] = typer.Option(None, "--expected", help="expected output file"),
    time_limit: int = typer.Option(2000, "--time-limit", help="CPU time limit, ms"),
    memory_limit: int = typer.Option(256, "--memory-limit", help="MB"),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Run one program in the sandbox and print its verdict."""
    from tczoo.sandbox.cli import judge_command

    for p in (file, input, expected):
        if p is not None and not p.is_file():
            raise CLIError(f"cannot read {p}")
    code = judge_command(file, lang, input, expected, time_limit, memory_limit, as_json)
    raise typer.Exit(code)


@app.command()
def doctor(as_json: bool = typer.Option(False, "--json")) -> None:
    """What is installed: compilers, sandbox isolation level, local model, extras."""
    from tczoo.doctor import collect

    info = collect()
    if as_json:
        print(json.dumps(info, indent=2, default=str))
        return
    table = RichTable(title="tczoo doctor")
    table.add_column("what")
    table.add_column("status", overflow="fold")
    for k, v in info.items():
        if k == "warnings":
            continue
        table.add_row(k, str(v))
    console.print(table)
    for w in info.get("warnings", []):
        err_console.print(f"[bold red]WARNING:[/bold red] {w}")


# --------------------------------------------------------------------------- entry


def _register_plugins() -> None:
    from tczoo.registry import command_plugins

    for register in command_plugins():
        register(app)


def main() -> None:
    from tczoo.llm.backends import ModelSpecError
    from tczoo.templates import PromptError
    from tczoo.registry import UnknownNameError
    from tczoo.store import RunStoreError

    user_errors = (CLIError, UnknownNameError, ModelSpecError, RunStoreError, PromptError,
                   FileNotFoundError, PermissionError, IsADirectoryError, ValueError)
    try:
        _register_plugins()
        rc = app(standalone_mode=False)  # returns a command's typer.Exit code here
        sys.exit(rc if isinstance(rc, int) else 0)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except (typer.Abort, KeyboardInterrupt):
        err_console.print("aborted")
        sys.exit(130)
    except user_errors as exc:
        message = " ".join(str(exc).split())  # one line, whatever the exception held
        print(f"error: {message}", file=sys.stderr)
        sys.exit(2)
    except Exception as exc:
        import click

        if isinstance(exc, click.ClickException):
            exc.show()
            sys.exit(exc.exit_code)
        raise


if __name__ == "__main__":
    main()
