"""CLI commands of the TC-Bench construction side: ``wrongselect`` and ``build-benchmark``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from runners.wrongselect import MAX_STEPS, RESTARTS, build_benchmark_from_matrix, wrongselect_command
from tczoo.schema import Problem

LETTERS = {"AC": "A", "WA": "W", "TLE": "T", "RE": "R", "MLE": "M", "CE": "C", "OLE": "O", "SE": "R"}


def judge_matrix(problem: Problem, sandbox) -> list[list[str]]:
    """Every wrong code on every golden test (no early exit: WrongSelect needs all of it)."""
    from tczoo.sandbox import Job, Limits

    limits = Limits.of(problem)
    tests = problem.golden_tests
    jobs = [
        Job(program=w, stdin=t.input, expected=t.output, comparator=problem.checker,
            output_validator=problem.output_validator, limits=limits)
        for w in problem.wrong_solutions
        for t in tests
    ]
    verdicts = [r.verdict.value for r in sandbox.run_many(jobs)]
    return [verdicts[i * len(tests) : (i + 1) * len(tests)] for i in range(len(problem.wrong_solutions))]


def tcbench_record(problem: Problem) -> dict:
    """``problem`` in the TC-Bench hub schema (what ``tcbench:PATH`` loads back)."""
    sample = problem.samples[0] if problem.samples else None
    return {
        "problem_id": problem.id,
        "description": problem.statement,
        "time_limit": problem.time_limit_ms,
        "memory_limit": problem.memory_limit_mb,
        "sample_input": sample.input if sample else "",
        "sample_output": sample.output if sample else "",
        "solutions": [{"code": s.code, "lang": s.language.value} for s in problem.solutions],
        "wrong_solutions": [
            {
                "code": w.code,
                "lang": w.language.value,
                "output_str": "".join(LETTERS.get(v, "R") for v in w.signature.verdicts) if w.signature else "",
            }
            for w in problem.wrong_solutions
        ],
        "rank": problem.rank,
        # tczoo's extension of the schema: how outputs are judged, so that a benchmark built
        # from packages with a tolerance or their own output validator is judged the same
        # when loaded back (tcbench:PATH reads these fields when present)
        **({"checker": problem.checker} if problem.checker else {}),
        **({"output_validator": problem.output_validator.model_dump(mode="json")}
           if problem.output_validator else {}),
        **({"input_validators": [v.model_dump(mode="json") for v in problem.input_validators]}
           if problem.input_validators else {}),
    }


def register(app: typer.Typer) -> None:
    @app.command("wrongselect")
    def wrongselect(
        matrix: Path = typer.Argument(..., help='JSON list of rows: "AWWA" strings or 0/1 lists'),
        restarts: int = typer.Option(RESTARTS, "--restarts", min=1),
        max_steps: int = typer.Option(MAX_STEPS, "--max-steps", min=1),
        seed: int = typer.Option(0, "--seed"),
        field: str = typer.Option("real", "--field", help="real (as the reference) | gf2"),
        as_json: bool = typer.Option(False, "--json"),
    ) -> None:
        """Select a maximally diverse basis of wrong codes (TC-Bench WrongSelect)."""
        if field not in ("real", "gf2"):
            raise ValueError(f"--field must be real or gf2, not {field!r}")
        raise typer.Exit(wrongselect_command(matrix, restarts, max_steps, seed, as_json, field=field))

    @app.command("build-benchmark")
    def build_benchmark(
        benchmark: str = typer.Option("zoo-mini", "--benchmark", "-b", help="raw set with golden tests and a wrong-code pool"),
        problems: Optional[str] = typer.Option(None, "--problems", "-p"),
        out: Path = typer.Option(Path("tcbench-built.jsonl"), "--out", "-o", help="JSONL in the TC-Bench schema"),
        restarts: int = typer.Option(RESTARTS, "--restarts", min=1),
        max_steps: int = typer.Option(MAX_STEPS, "--max-steps", min=1),
        seed: int = typer.Option(0, "--seed"),
        min_rank: int = typer.Option(5, "--min-rank", min=1),
    ) -> None:
        """Judge every wrong code on the golden tests, filter, WrongSelect, write TC-Bench JSONL."""
        from rich.console import Console

        from tczoo.benchmarks import load_benchmark
        from tczoo.cli import progress_bar
        from tczoo.sandbox import Sandbox

        err = Console(stderr=True)
        ids = [p.strip() for p in problems.split(",")] if problems else None
        kept, report = [], []
        with Sandbox() as sandbox:
            loaded = load_benchmark(benchmark, ids, sandbox=sandbox)
            with progress_bar() as bar:
                task = bar.add_task("judge + select", total=len(loaded))
                for problem in loaded:
                    if not problem.golden_tests or not problem.wrong_solutions:
                        report.append({"problem": problem.id, "kept": False, "reason": "no golden tests or no wrong codes"})
                        bar.advance(task)
                        continue
                    rows = judge_matrix(problem, sandbox)
                    built = build_benchmark_from_matrix(
                        problem, rows, restarts=restarts, max_steps=max_steps, seed=seed, min_rank=min_rank
                    )
                    report.append({
                        "problem": problem.id,
                        "kept": built is not None,
                        "wrong_codes": len(problem.wrong_solutions),
                        "selected": len(built.wrong_solutions) if built else 0,
                        "rank": built.rank if built else None,
                    })
                    if built is not None:
                        kept.append(built)
                    bar.advance(task)
        tmp = out.with_suffix(out.suffix + ".tmp")
        with tmp.open("w") as fh:
            for p in kept:
                fh.write(json.dumps(tcbench_record(p)) + "\n")
        tmp.replace(out)
        for r in report:
            err.print(json.dumps(r))
        err.print(f"{len(kept)} of {len(report)} problems kept -> {out} (load it with --benchmark tcbench:{out})")
