"""``tczoo judge`` (one program in the sandbox), ``tczoo wrongselect`` and
``tczoo build-benchmark`` (TC-Bench benchmark construction)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from tczoo.cli.options import CLIError, check_benchmark, format_option, read_user_file, require_file, split, writable
from tczoo.cli.output import console, echo, emit_json, rich_table
from tczoo.cli.progress import progress

SHOWN = 4000  # characters of stdout/stderr shown
# what judge assumes a file is when --lang is not given
EXTENSIONS = {".cpp": "cpp", ".cc": "cpp", ".cxx": "cpp", ".c++": "cpp", ".hpp": "cpp", ".c": "c", ".py": "python",
              ".java": "java", ".kt": "kotlin", ".hs": "haskell", ".rs": "rust", ".go": "go", ".py2": "python2"}


def _clip(text: str) -> str:
    return text if len(text) <= SHOWN else text[:SHOWN] + f"... [{len(text) - SHOWN} more]"


def _read(path: Path, what: str) -> str:
    """A user's file as text; bytes that are not UTF-8 are kept (surrogateescape), so a
    binary test input reaches the program unchanged."""
    return read_user_file(path, what).decode("utf-8", "surrogateescape")


def judge(
    file: Path = typer.Argument(..., help="source file"),
    lang: Optional[str] = typer.Option(None, "--lang", help="cpp | c | python | java | kotlin | haskell | rust | go | pypy | python2 "
                                                            "(and spellings like c++17, py3; `tczoo doctor` lists those installed); "
                                                            "default: from the file's extension"),
    input: Optional[Path] = typer.Option(None, "--input", help="stdin file"),
    expected: Optional[Path] = typer.Option(None, "--expected", help="expected output file"),
    time_limit: int = typer.Option(2000, "--time-limit", min=1, help="CPU time limit, ms"),
    memory_limit: int = typer.Option(256, "--memory-limit", min=1, help="MB"),
    fmt: str = format_option("table", "json"),
) -> None:
    """Run one program in the sandbox and print its verdict (exit 0 for AC, 1 otherwise).

    The program's output is shown escaped: its control sequences never reach the
    terminal."""
    from tczoo.sandbox import Limits, Sandbox
    from tczoo.sandbox.types import limits_error
    from tczoo.schema import Language, Program

    if lang is None:
        lang = EXTENSIONS.get(file.suffix.lower() if file.suffix != ".C" else ".cc")
        if lang is None:
            raise CLIError(f"cannot tell the language of {file} from its extension; give --lang "
                           "cpp|c|python|java|kotlin|haskell|rust|go|pypy|python2")
    try:
        language = Language.parse(lang)
    except ValueError as exc:
        raise CLIError(str(exc)) from exc
    program = Program(code=_read(file, "source file"), language=language, name=file.name)
    stdin = _read(input, "input file") if input else ""
    want = _read(expected, "expected-output file") if expected else None
    try:
        limits = Limits(time_ms=time_limit, memory_mb=memory_limit)
    except ValueError as exc:  # out of range: one line, exit 2, not a verdict
        raise CLIError(limits_error(exc, {"time_ms": "--time-limit", "memory_mb": "--memory-limit"})) from exc
    with Sandbox(workers=1) as sandbox:
        r = sandbox.run(program, stdin, limits) if want is None else sandbox.judge(program, stdin, want, limits)
        isolation = sandbox.isolation_level
    record = {
        "verdict": r.verdict.value, "cpu_ms": r.cpu_ms, "wall_ms": r.wall_ms, "memory_kb": r.memory_kb,
        "exit_code": r.exit_code, "signal": r.signal, "stdout": _clip(r.stdout), "stderr": _clip(r.stderr),
        "stdout_truncated": r.stdout_truncated or len(r.stdout) > SHOWN, "message": _clip(r.message),
        "isolation": isolation,
    }
    if fmt == "json":
        emit_json(record)
    else:
        echo(f"{record['verdict']}  cpu {r.cpu_ms:.0f} ms  wall {r.wall_ms:.0f} ms  "
             f"mem {r.memory_kb} KB  exit {r.exit_code}  signal {r.signal}")
        for key in ("message", "stdout", "stderr"):
            if record[key]:
                echo(f"--- {key}" if key != "message" else "--- sandbox")
                echo(record[key])
    raise typer.Exit(0 if r.verdict.value == "AC" else 1)


def wrongselect(
    matrix: Path = typer.Argument(..., help='JSON list of rows: "AWWA" strings or 0/1 lists'),
    restarts: int = typer.Option(1000, "--restarts", min=1),
    max_steps: int = typer.Option(1000, "--max-steps", min=1),
    seed: int = typer.Option(0, "--seed", help="seed of WrongSelect's random restarts"),
    field: str = typer.Option("real", "--field", help="real (as the reference) | gf2"),
    fmt: str = format_option("table", "json"),
) -> None:
    """Select a maximally diverse basis of wrong codes (TC-Bench WrongSelect)."""
    from tczoo.benchmarks.wrongselect import MatrixError, load_matrix_file, wrong_select

    if field not in ("real", "gf2"):
        raise CLIError(f"--field must be real or gf2, not {field!r}")
    require_file(matrix, "matrix file")
    try:
        m = load_matrix_file(matrix)
    except MatrixError as exc:
        raise CLIError(str(exc)) from exc
    res = wrong_select(m, restarts=restarts, max_steps=max_steps, seed=seed, field=field)
    if fmt == "json":
        emit_json(res.to_json())
        return
    for line in res.describe(m):
        echo(line)


def build_benchmark(
    benchmark: str = typer.Option("zoo-mini", "--benchmark", "-b", help="raw set with golden tests and a wrong-code pool"),
    problems: Optional[str] = typer.Option(None, "--problems", "--problem", "-p",
                                           help="problem ids or id prefixes, comma-separated"),
    limit: Optional[int] = typer.Option(None, "--limit", min=1, help="only the first N problems (of --problems)"),
    out: Path = typer.Option(Path("tcbench-built.jsonl"), "--out", "-o", help="JSONL in the TC-Bench schema"),
    restarts: int = typer.Option(1000, "--restarts", min=1),
    max_steps: int = typer.Option(1000, "--max-steps", min=1),
    seed: int = typer.Option(0, "--seed", help="seed of WrongSelect's random restarts"),
    min_rank: int = typer.Option(5, "--min-rank", min=1),
    languages: str = typer.Option("cpp,c", "--languages",
                                  help="languages of the codes kept (the paper: C/C++), comma-separated, or 'all'"),
    any_verdict: bool = typer.Option(False, "--any-verdict",
                                     help="keep wrong codes failing with TLE/RE too (the paper keeps those labelled WA)"),
    fmt: str = format_option("table", "json", help="format of the per-problem report: table | json"),
) -> None:
    """Judge every wrong code on the golden tests, filter, WrongSelect, write TC-Bench JSONL."""
    from tczoo.benchmarks import load_benchmark
    from tczoo.benchmarks.construct import build_benchmark as build
    from tczoo.sandbox import Sandbox
    from tczoo.schema import Language

    if out.exists() and not out.is_file():
        raise CLIError(f"--out {out} exists and is not a file")
    try:
        langs = None if languages.strip() == "all" else tuple(Language.parse(x) for x in split(languages) or [])
    except ValueError as exc:
        raise CLIError(f"--languages: {exc}") from None
    if langs == ():
        raise CLIError("--languages names no language")
    check_benchmark(benchmark)
    writable(out.parent if str(out.parent) else Path("."), "folder", "--out")
    with progress(f"loading benchmark {benchmark}", unit="problems") as bar, Sandbox() as sandbox:
        loaded = load_benchmark(benchmark, split(problems), limit=limit, sandbox=sandbox, progress=bar.update)
        bar.phase("build-benchmark: judge + select", "problems")
        bar.update(0, len(loaded))
        report = build(loaded, sandbox, out, restarts=restarts, max_steps=max_steps, seed=seed,
                       min_rank=min_rank, languages=langs, only_wa=not any_verdict,
                       progress=lambda _: bar.advance())
    kept = sum(r["kept"] for r in report)
    if fmt == "json":
        emit_json(report)
    else:
        columns = list(dict.fromkeys(k for r in report for k in r))
        names = {"problem": "problem", "kept": "kept", "wrong_codes": "wrong codes",
                 "wrong_in_languages": "in languages", "wrong_only_wa": "WA only", "correct_codes": "correct codes",
                 "selected_correct": "validators", "selected": "wrong basis", "rank": "rank", "reason": "why not"}
        console.print(rich_table(f"build-benchmark: {kept} of {len(report)} problems kept",
                                 [names.get(c, c.replace("_", " ")) for c in columns],
                                 ([("yes" if r.get(c) is True else "no" if r.get(c) is False else r.get(c, ""))
                                   for c in columns] for r in report)))
    echo(f"{kept} of {len(report)} problems kept -> {out} (load it with --benchmark tcbench:{out})", err=True)


def register(app: typer.Typer) -> None:
    app.command("judge")(judge)
    app.command("wrongselect")(wrongselect)
    app.command("build-benchmark")(build_benchmark)
