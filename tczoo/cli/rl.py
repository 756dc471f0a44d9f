"""``tczoo rl export`` (a benchmark's tasks as a verl or TRL data set) and ``tczoo rl
score`` (one completion's reward, as a trainer would get it). See docs/rl.md."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from tczoo.cli.options import CLIError, format_option, require_file, split
from tczoo.cli.output import echo, emit_json
from tczoo.cli.progress import progress

rl_app = typer.Typer(help="RL training: tczoo's scoring as a reward for verl and TRL (docs/rl.md).",
                     no_args_is_help=True)


def _params(text: Optional[str]) -> dict:
    if not text:
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CLIError(f"--params is not JSON: {exc}") from None
    if not isinstance(value, dict):
        raise CLIError('--params must be a JSON object, e.g. {"runner:bugfind": {"first_k": 5}}')
    return value


@rl_app.command("export")
def export(
    benchmark: str = typer.Option("zoo-mini", "--benchmark", "-b", help="benchmark spec (zoo-mini, kattis:PATH, ...)"),
    method: str = typer.Option(..., "--method", "-m", help="a single-turn method (crux, harness, io, cot, stab ...)"),
    layout: str = typer.Option(..., "--format", help="verl | trl: the data set's layout"),
    out: Path = typer.Option(..., "--out", "-o", help="folder to create (train.parquet, manifest.json)"),
    problems: Optional[str] = typer.Option(None, "--problems", "-p", help="comma-separated problem ids"),
    runner: Optional[str] = typer.Option(None, "--runner", help="score with this runner (default: the method's)"),
    kind: Optional[str] = typer.Option(None, "--kind", help="eq1 | quality | slowdown | verdict (default: the runner's)"),
    params: Optional[str] = typer.Option(None, "--params", help='JSON: {"METHOD": {...}, "runner:NAME": {...}, '
                                                                 '"reward": {...}}'),
    seed: int = typer.Option(0, "--seed"),
    samples: int = typer.Option(1, "--samples", min=1, help="as tczoo run's (tasks a runner makes per problem)"),
    check: bool = typer.Option(True, "--check/--no-check",
                               help="leave out tasks whose reward is undefined whatever the answer"),
    as_json: bool = typer.Option(False, "--json", help="print the manifest as JSON"),
) -> None:
    """Write the prompts (the method's own templates, rendered by the method) and the
    reward references of every task of a benchmark, for verl or TRL."""
    from tczoo.rl.export import FORMATS, export as run_export

    if layout not in FORMATS:
        raise CLIError(f"--format {layout!r}: expected one of {', '.join(FORMATS)}")
    with progress("export") as bar:
        summary = run_export(benchmark, method, fmt=layout, out=out, runner=runner, kind=kind,
                             params=_params(params), problems=split(problems), seed=seed, samples=samples,
                             check=check, progress=bar.update)
    if as_json:
        emit_json(summary)
        return
    echo(f"{out}: {summary['rows']} prompts ({summary['format']} layout) from {summary['tasks']} tasks of "
         f"{benchmark}, method {method}, reward {summary['kind']} ({summary['runner']})")
    for s in summary["skipped"][:10]:
        echo(f"  left out {s['problem']} {s['task']}: {s['reason']}")
    if len(summary["skipped"]) > 10:
        echo(f"  ... {len(summary['skipped']) - 10} more left out (manifest.json lists them)")


@rl_app.command("score")
def score(
    dataset: Path = typer.Argument(..., help="an exported folder or its train.parquet"),
    completion: Path = typer.Option(..., "--completion", "-c", help="file holding the completion's text"),
    row: int = typer.Option(0, "--row", min=0, help="which row's prompt the completion answers"),
    time_budget: Optional[float] = typer.Option(None, "--time-budget", help="seconds per sample (default 120)"),
    fmt: str = format_option("table", "json"),
) -> None:
    """The reward of one completion for one exported prompt, as a trainer gets it."""
    from tczoo.rewards import RewardScorer

    path = dataset / "train.parquet" if dataset.is_dir() else dataset
    require_file(path, "data set")
    require_file(completion, "completion file")
    try:
        import pyarrow.parquet as pq

        table = pq.read_table(path)
    except ImportError:
        raise CLIError("reading a data set needs pyarrow: pip install 'tczoo[rl]'") from None
    except Exception as exc:  # not parquet
        raise CLIError(f"{path}: not a parquet data set ({type(exc).__name__}: {exc})") from None
    if row >= table.num_rows:
        raise CLIError(f"--row {row}: the data set has {table.num_rows} rows")
    record = table.slice(row, 1).to_pylist()[0]
    reference = record.get("tczoo") or (record.get("extra_info") or {}).get("tczoo")
    if not reference:
        raise CLIError(f"{path}: row {row} has no tczoo reference (not exported by tczoo rl export)")
    text = completion.read_bytes().decode("utf-8", "replace")
    options = {} if time_budget is None else {"time_budget_s": time_budget}
    with RewardScorer(**options) as scorer:
        result = scorer.score(reference, text)
    if fmt == "json":
        emit_json(result.as_dict())
        return
    echo(f"reward: {'none (' + result.reason + ')' if result.score is None else format(result.score, 'g')}"
         f"  [{result.seconds:.1f} s]" + (f"  {result.reason}" if result.score is not None and result.reason else ""))
    for key, value in result.parts.items():
        if key != "metrics":
            echo(f"  {key}: {value}")


def register(app: typer.Typer) -> None:
    app.add_typer(rl_app, name="rl")
