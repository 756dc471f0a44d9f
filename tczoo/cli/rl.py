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
    layout: str = typer.Option(..., "--layout", help="verl | trl: the data set's layout (-f is the printed format everywhere else)"),
    out: Path = typer.Option(..., "--out", "-o", help="folder to create (train.parquet, manifest.json)"),
    problems: Optional[str] = typer.Option(None, "--problems", "-p", help="comma-separated problem ids"),
    runner: Optional[str] = typer.Option(None, "--runner", help="score with this runner (default: the method's)"),
    kind: Optional[str] = typer.Option(None, "--kind", help="eq1 | quality | slowdown | verdict (default: the runner's)"),
    params: Optional[str] = typer.Option(None, "--params", help='JSON: {"METHOD": {...}, "runner:NAME": {...}, '
                                                                 '"reward": {...}}'),
    seed: int = typer.Option(0, "--seed", help="base seed of the tasks, as tczoo run's --seed"),
    samples: int = typer.Option(1, "--samples", min=1, help="as tczoo run's (tasks a runner makes per problem)"),
    check: bool = typer.Option(True, "--check/--no-check",
                               help="leave out tasks whose reward is undefined whatever the answer"),
    as_json: bool = typer.Option(False, "--json", help="print the manifest as JSON"),
) -> None:
    """Write the prompts (the method's own templates, rendered by the method) and the
    reward references of every task of a benchmark, for verl or TRL."""
    from tczoo.rl.export import FORMATS, export as run_export

    if layout not in FORMATS:
        raise CLIError(f"--layout {layout!r}: expected one of {', '.join(FORMATS)}")
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


@rl_app.command("audit")
def audit(
    benchmark: str = typer.Option("zoo-mini", "--benchmark", "-b", help="benchmark spec (zoo-mini, kattis:PATH, ...)"),
    method: str = typer.Option("harness,io,crux,stab,lcb-output", "--method", "-m",
                               help="methods whose rewards to attack, comma-separated"),
    problems: Optional[str] = typer.Option(None, "--problems", "-p", help="comma-separated problem ids"),
    max_tasks: int = typer.Option(2, "--max-tasks", min=1, help="exported tasks attacked per problem and method"),
    time_budget: float = typer.Option(20.0, "--time-budget", min=0.1, help="seconds per sample"),
    fmt: str = format_option("table", "json"),
) -> None:
    """Attack every reward with a battery of exploits (empty and out-of-range tests, forged
    sandbox errors, sleepers, memoising / file-reading / sniffing checkers, frame-walking
    predictions ...) and print each one's reward beside the honest answer's. Exit 1 when
    an exploit beats its bound (docs/rl.md, "The exploit audit")."""
    from tczoo.errors import RunFailed
    from tczoo.rl.audit import audit as run_audit

    names = split(method) or []
    if not names:
        raise CLIError("--method names no method")
    with progress("audit") as bar:
        report = run_audit(benchmark, names, problems=split(problems), time_budget_s=time_budget,
                           max_tasks=max_tasks, progress=bar.update)
    if fmt == "json":
        emit_json({"ok": report.ok, "rows": [r.__dict__ for r in report.rows], "skipped": report.skipped})
    else:
        def num(x: Optional[float]) -> str:
            return "none" if x is None else format(x, ".3g")

        echo(f"{'method':11} {'problem':24} {'exploit':38} {'reward':>7} {'bound':>7} {'honest':>7}  verdict")
        for r in report.rows:
            verdict = "ok" if r.ok else "EXPLOIT: " + r.why
            echo(f"{r.method:11} {r.problem[:24]:24} {r.exploit[:38]:38} {num(r.reward):>7} {num(r.bound):>7} "
                 f"{num(r.honest):>7}  {verdict}")
        for s in report.skipped[:10]:
            echo(f"  not attacked: {s['method']} {s['problem']} {s['task']}: {s['reason']}")
        bad = report.failures()
        echo(f"{len(report.rows)} answers, {len(bad)} exploit(s) beat their bound" if bad else
             f"{len(report.rows)} answers: no exploit beats its bound")
    if not report.ok:
        raise RunFailed(f"{len(report.failures())} exploit(s) beat their bound")


def register(app: typer.Typer) -> None:
    app.add_typer(rl_app, name="rl")
