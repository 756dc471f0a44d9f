"""Building a TC-Bench-style benchmark from raw problems (TC-Bench §2, Algorithm 1).

Judge every wrong code on every golden test (the code-test matrix), filter, run
WrongSelect, keep problems whose basis has rank ≥ ``min_rank``, and write the result in
the TC-Bench hub schema so ``--benchmark tcbench:FILE`` loads it back like any other.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from tczoo.benchmarks.wrongselect import MAX_STEPS, RESTARTS, build_benchmark_from_matrix
from tczoo.sandbox.types import Job, Limits
from tczoo.schema import Problem

if TYPE_CHECKING:
    from tczoo.sandbox import Sandbox

LETTERS = {"AC": "A", "WA": "W", "TLE": "T", "RE": "R", "MLE": "M", "CE": "C", "OLE": "O", "SE": "R"}


def judge_matrix(problem: Problem, sandbox) -> list[list[str]]:
    """Every wrong code on every golden test (no early exit: WrongSelect needs all of it)."""
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


def build_benchmark(problems: list[Problem], sandbox: "Sandbox", out: Path, *, restarts: int = RESTARTS,
                    max_steps: int = MAX_STEPS, seed: int = 0, min_rank: int = 5,
                    progress: Callable[[str], None] | None = None) -> list[dict]:
    """Judge, filter and select every problem; write the kept ones to ``out`` (JSONL,
    atomically). Returns one report row per problem, saying what was kept and why not."""
    kept, report = [], []
    for problem in problems:
        if not problem.golden_tests or not problem.wrong_solutions:
            report.append({"problem": problem.id, "kept": False, "reason": "no golden tests or no wrong codes"})
        else:
            rows = judge_matrix(problem, sandbox)
            built = build_benchmark_from_matrix(problem, rows, restarts=restarts, max_steps=max_steps,
                                                seed=seed, min_rank=min_rank)
            report.append({"problem": problem.id, "kept": built is not None,
                           "wrong_codes": len(problem.wrong_solutions),
                           "selected": len(built.wrong_solutions) if built else 0,
                           "rank": built.rank if built else None})
            if built is not None:
                kept.append(built)
        if progress is not None:
            progress(problem.id)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(out.suffix + ".tmp")
    with tmp.open("w") as fh:
        for p in kept:
            fh.write(json.dumps(tcbench_record(p)) + "\n")
    tmp.replace(out)
    return report
