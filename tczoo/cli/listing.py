"""``tczoo methods``, ``tczoo benchmarks``, ``tczoo doctor``: what is installed."""

from __future__ import annotations

import typer

from tczoo.cli.kit import console, emit_json, format_option, rich_table, warn


def methods(fmt: str = format_option("table", "json")) -> None:
    """List the installed methods: paper, setting, oracle, default runner."""
    from tczoo.registry import describe_methods

    infos = describe_methods()
    if fmt == "json":
        emit_json(infos)
        return
    columns = ("name", "setting", "produces", "runner", "paper", "summary")
    console.print(rich_table("methods", columns, ([i[c] for c in columns] for i in infos), left=columns))


def benchmarks(
    fmt: str = format_option("table", "json"),
    check: str = typer.Option(None, "--check",
                              help="kattis:PATH: judge every submission of the packages on every test"),
    problems: str = typer.Option(None, "--problems", "-p", help="with --check: only these ids (comma-separated)"),
) -> None:
    """List the benchmark names --benchmark accepts (plus SCHEMA:PATH for local files)."""
    from tczoo.benchmarks import benchmark_availability, benchmark_names

    if check is not None:
        from tczoo.benchmarks.kattis.cli import check_command

        ids = [p.strip() for p in problems.split(",") if p.strip()] if problems else None
        raise typer.Exit(check_command(check, ids, fmt == "json", console))

    names = benchmark_names()
    if fmt == "json":
        emit_json(names)
        return
    available = benchmark_availability()
    console.print(rich_table("benchmarks (also SCHEMA:PATH, e.g. tcbench:problems.jsonl)", ("name", "available", "what"),
                             ((n, available[n], what) for n, what in names.items()),
                             left=("name", "available", "what")))


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
    app.command("benchmarks")(benchmarks)
    app.command("doctor")(doctor)
