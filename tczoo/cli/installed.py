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
    infos = describe_methods(params=fmt == "json")  # the table shows no parameters
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
    name: Optional[str] = typer.Argument(None, metavar="[NAME]",
                                         help="a benchmark (a name above or SCHEMA:PATH): list its problem ids"),
    fmt: str = format_option("table", "json"),
    check: str = typer.Option(None, "--check",
                              help="kattis:PATH: judge every submission of the packages on every test"),
    problems: str = typer.Option(None, "--problems", "--problem", "-p",
                                 help="with --check: only these ids or id prefixes (comma-separated)"),
    limit: Optional[int] = typer.Option(None, "--limit", min=1, help="with --check: only the first N packages"),
) -> None:
    """List the benchmark names --benchmark accepts (plus SCHEMA:PATH for local files);
    with NAME, that benchmark's problem ids (what --problems takes)."""
    from tczoo.benchmarks import benchmark_availability, benchmark_names

    if check is not None:
        from tczoo.cli.progress import progress

        ids = [p.strip() for p in problems.split(",") if p.strip()] if problems else None
        with progress("benchmarks --check", unit="runs") as bar:
            code = _kattis_check(check, ids, fmt == "json", console, limit=limit, progress=bar)
        raise typer.Exit(code)
    if problems or limit is not None:
        raise CLIError("--problems and --limit go with --check kattis:PATH")
    if name is not None:
        _problem_list(name, fmt)
        return

    names = benchmark_names()
    if fmt == "json":
        emit_json(names)
        return
    available = benchmark_availability()
    console.print(rich_table("benchmarks (also SCHEMA:PATH, e.g. tcbench:problems.jsonl)", ("name", "available", "what"),
                             ((n, available[n], what) for n, what in names.items()),
                             left=("name", "available", "what")))


def _problem_list(name: str, fmt: str) -> None:
    """The problem ids of benchmark ``name`` (and each one's title where it has one)."""
    from tczoo.benchmarks import load_benchmark, problem_ids
    from tczoo.cli.options import check_benchmark

    check_benchmark(name)
    ids = problem_ids(name)
    rows: list[tuple[str, str]]
    if ids is not None:
        rows = [(i, "") for i in ids]
    else:
        from tczoo.cli.progress import progress

        with progress(f"loading benchmark {name}", unit="problems") as bar:
            loaded = load_benchmark(name, progress=bar.update)
        rows = [(p.id, p.title or "") for p in loaded]
    if fmt == "json":
        emit_json([i for i, _ in rows])
        return
    titled = any(t for _, t in rows)
    console.print(rich_table(f"{name}: {len(rows)} problems (ids or id prefixes go to --problems)",
                             ("id", "title") if titled else ("id",), rows if titled else [(i,) for i, _ in rows],
                             left=("id", "title")))


def provider_keys() -> dict[str, str]:
    """Which providers' API keys are set in the environment — names only, never a value."""
    import os

    from tczoo.cli.options import PROVIDER_KEYS

    out = {}
    for provider, names in PROVIDER_KEYS.items():
        found = [n for n in names if os.environ.get(n)]
        out[f"key {provider}"] = f"set ({found[0]})" if found else f"not set ({' or '.join(names)})"
    return out


def doctor(fmt: str = format_option("table", "json")) -> None:
    """What is installed: compilers, sandbox isolation level, local model, extras."""
    from tczoo.doctor import collect

    info = collect()
    info.update(provider_keys())
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


def _kattis_check(spec: str, problems: list[str] | None, as_json: bool, console, *, limit: int | None = None,
                  progress=None) -> int:
    """0 when every loaded submission's verdict matches its folder, 1 on a mismatch;
    a spec that is not ``kattis:PATH`` is a user error (exit 2). ``progress``: a
    ``tczoo.cli.progress.ProgressBar`` (runs made against the runs still possible, with
    an ETA). A submission that cannot run here (its language is not installed) is shown
    and counted, not a mismatch."""
    from tczoo.benchmarks.kattis.check import as_json as to_json
    from tczoo.benchmarks.kattis.check import check_path
    from tczoo.errors import UserError
    from tczoo.sandbox import Sandbox

    schema, _, path = spec.partition(":")
    if schema.strip().lower() != "kattis" or not path:
        raise UserError(f"--check takes kattis:PATH (a package or a folder of packages), not {spec!r}")
    with Sandbox() as sandbox:
        if progress is not None:
            progress.note(f"reading the packages in {path}")
        reports = check_path(path, sandbox, problems, limit=limit,
                             count=(lambda done, total: progress.update(done, total)) if progress is not None else None,
                             note=progress.note if progress is not None else None)
    if as_json:
        emit_json(to_json(reports))
    else:
        _render_kattis(reports, console)
    return 1 if any(r.mismatches or r.inputs_rejected for r in reports) else 0


def _render_kattis(reports: list, console) -> None:
    """The report as tables fitted to the terminal (words kept whole, a wide table in
    parts): one line per package, then each package's submissions."""
    from rich.text import Text

    from tczoo.safeio.text import printable

    rows = []
    for r in reports:
        if not r.loaded:
            rows.append([r.package, "skipped", "", "", "", "", "", ""])
            continue
        inputs = (f"{r.inputs_checked - len(r.inputs_rejected)}/{r.inputs_checked} valid"
                  if r.inputs_checked else "no input validator")
        skipped = f" (+{len(r.skipped_submissions)} skipped)" if r.skipped_submissions else ""
        kind = ", ".join(k for k in (r.type if r.type != "pass-fail" else "", "interactive" if r.interactive else "")
                         if k)
        rows.append([r.package + (f" ({kind})" if kind else ""), "loaded",
                     f"{r.time_limit_ms / 1000:g} s ({r.time_limit_source})", r.checker, str(r.tests),
                     f"{len(r.submissions)}{skipped}", str(r.mismatches), str(r.cannot_run), inputs,
                     f"{r.seconds:.0f} s"])
    console.print(rich_table("Kattis packages", ("package", "status", "time limit", "checker", "tests",
                                                 "submissions", "mismatches", "cannot run", "inputs", "wall"), rows))
    for r in reports:  # the reasons in full, one line each, below the table
        if not r.loaded:
            console.print(Text(printable(f"{r.package}: skipped: {r.reason}", newlines=False)), soft_wrap=True)
    for r in reports:
        if not r.loaded:
            continue
        rows = [[s.name, "/".join(s.expected), s.verdict + (f" ({s.score:g}/{s.max_score:g})" if s.score is not None
                                                            and s.max_score is not None else ""),
                 s.verdict_with_margin, s.failed_on, f"{s.slowest_ms / 1000:.2f} s", s.status, s.explanation]
                for s in r.submissions]
        rows += [[s["path"], "", "", "", "", "", "skipped", s["reason"]] for s in r.skipped_submissions]
        rows += [["(input validators)", "", "", "", "", "", "REJECTED", rejected] for rejected in r.inputs_rejected]
        console.print(rich_table(f"{r.package}: time limit {r.time_limit_ms / 1000:g} s, "
                                 f"safety margin x{r.safety_margin:g}",
                                 ("submission", "expected", "verdict", "with margin", "first failure", "slowest",
                                  "status", "explanation"), rows))
