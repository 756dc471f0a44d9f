"""``tczoo methods``, ``tczoo benchmarks``, ``tczoo doctor``: what is installed."""

from __future__ import annotations

import typer

from typing import Optional

from tczoo.cli.options import CLIError, format_option
from tczoo.cli.output import console, echo, emit_json, rich_table, warn


def _value(v) -> str:
    import json

    if v is None:
        return "none"
    if isinstance(v, str):
        return v
    return json.dumps(v, default=str)


def _show_params(kind: str, info: dict, params: list[dict], fmt: str) -> None:
    if fmt == "json":
        emit_json({**info, "params": params})
        return
    for key, value in info.items():
        if value not in ("", None) and key != "key":
            echo(f"{key}: {value}")
    if not params:
        echo(f"{kind} {info['name']} has no parameter")
        return
    rows = [(p["name"], _value(p["default"]), "" if p["paper"] is None else _value(p["paper"]),
             p["description"] or "(no description)") for p in params]
    console.print(rich_table(f"{kind} {info['name']}: parameters (--params '{{\"{info['key']}\": {{...}}}}')",
                             ("parameter", "default", "paper", "meaning"), rows,
                             left=("parameter", "default", "paper", "meaning")))
    echo("paper: the paper's value where it differs from the default or the knob is tczoo's own (ours); "
         "empty: the default is the paper's setting, or the paper names none")


def methods(
    name: Optional[str] = typer.Argument(None, help="one method: every parameter with its default, the paper's "
                                                    "value and what it means"),
    fmt: str = format_option("table", "json"),
) -> None:
    """List the installed methods (paper, setting, oracle, default runner), or one method's parameters."""
    from tczoo.registry import describe_methods

    if name is not None:
        from tczoo.registry import get_method, parameters

        cls = get_method(name)
        info = {"name": name, "key": name, "paper": cls.paper, "summary": cls.summary,
                "setting": cls.setting.value, "produces": cls.produces.value, "runner": cls.runner}
        _show_params("method", info, parameters(cls.Params), fmt)
        return
    infos = describe_methods()
    if fmt == "json":
        emit_json(infos)
        return
    columns = ("name", "setting", "produces", "runner", "paper", "summary")
    console.print(rich_table("methods (tczoo methods NAME: its parameters)", columns,
                             ([i[c] for c in columns] for i in infos), left=columns))


def runners(
    name: Optional[str] = typer.Argument(None, help="one runner: every parameter with its default, the paper's "
                                                    "value and what it means"),
    fmt: str = format_option("table", "json"),
) -> None:
    """List the installed runners (how each paper scores), or one runner's parameters."""
    from tczoo.registry import describe_runners, get_runner, parameters

    if name is not None:
        cls = get_runner(name)
        info = {"name": name, "key": f"runner:{name}", "paper": cls.paper, "summary": cls.summary,
                "headline": cls.headline}
        _show_params("runner", info, parameters(cls.Params), fmt)
        return
    infos = describe_runners()
    if fmt == "json":
        emit_json(infos)
        return
    columns = ("name", "paper", "summary", "headline")
    console.print(rich_table("runners (tczoo runners NAME: its parameters)", columns,
                             ([i[c] for c in columns] for i in infos), left=columns))


def benchmarks(
    fmt: str = format_option("table", "json"),
    check: str = typer.Option(None, "--check",
                              help="kattis:PATH: judge every submission of the packages on every test"),
    problems: str = typer.Option(None, "--problems", "--problem", "-p",
                                 help="with --check: only these ids or id prefixes (comma-separated)"),
    limit: Optional[int] = typer.Option(None, "--limit", min=1, help="with --check: only the first N packages"),
) -> None:
    """List the benchmark names --benchmark accepts (plus SCHEMA:PATH for local files)."""
    from tczoo.benchmarks import benchmark_names

    if check is not None:
        from tczoo.benchmarks.kattis.cli import check_command
        from tczoo.cli.progress import progress

        ids = [p.strip() for p in problems.split(",") if p.strip()] if problems else None
        with progress("benchmarks --check", unit="packages") as bar:
            code = check_command(check, ids, fmt == "json", console, limit=limit, progress=bar)
        raise typer.Exit(code)
    if problems or limit is not None:
        raise CLIError("--problems and --limit go with --check kattis:PATH")

    names = benchmark_names()
    if fmt == "json":
        emit_json(names)
        return
    console.print(rich_table("benchmarks (also SCHEMA:PATH, e.g. tcbench:problems.jsonl)", ("name", "what"),
                             names.items(), left=("name", "what")))


def doctor(fmt: str = format_option("table", "json")) -> None:
    """What is installed: compilers, sandbox isolation level, local model, extras."""
    from tczoo.doctor import collect

    info = collect()
    if fmt == "json":
        emit_json(info)
        return
    rows = [(k, v) for k, v in info.items() if k != "warnings"]
    console.print(rich_table("tczoo doctor", ("what", "status"), rows, left=("what", "status")))
    for w in info.get("warnings", []):
        warn(w)


def register(app: typer.Typer) -> None:
    app.command("methods")(methods)
    app.command("runners")(runners)
    app.command("benchmarks")(benchmarks)
    app.command("doctor")(doctor)
